/*
 * cg_mma.c: dot on tensor cores, mma.sync.aligned.m16n8k16 (f16/bf16 in,
 * f32 accumulate), as Triton's MMAv2 path; at the end, m16n8k8 on tf32 and
 * m16n8k32 on int8 (i32 accumulate), whose operands take the generic
 * convert.
 *
 * The layout pass gives the result the accumulator layout layout_mma_acc
 * and the operands layout_mma_operand of it (layout_mma.c).  A
 * register index of each names one element relative to the thread, so a
 * fragment is found by flat index: C tile with origin o (registers with
 * bits 0,1 clear), A tile (o_row, k0), B tile (k0, o_col); element i of
 * the A fragment is the A register whose register part is origin ^ fa(i).
 *
 * Operands arriving through a pending convert_layout (cg_convert.c) are
 * written to shared memory once, swizzled, and read back a whole 8x8
 * matrix per lane group with ldmatrix (B with .trans: its rows in shared
 * memory run along N).  A tile row of W bytes is cut into 16-byte chunks,
 * and chunk j of row r is stored at chunk j ^ phase(r), with
 *
 *     per_phase = max(1, 128 / W),  max_phase = min(W / 16, 8 / per_phase)
 *     phase(r)  = (r / per_phase) % max_phase
 *
 * (Triton's swizzled shared layout with vec = 8): the eight 16-byte rows one
 * ldmatrix phase reads then fall in eight different bank groups, and the
 * writers' 16-byte vectors stay whole.  Operands already in registers are
 * packed two halves to a b32 word.
 */
#include <string.h>

#include "cg.h"

typedef struct Frag {
	ValId v;
	const Layout *l;
	int rowbits;            /* log2 of the tile's last dimension */
	int32_t off;            /* the swizzled tile in shared memory, or -1 */
	int32_t *reg_of;        /* register part of a flat index -> register number */
	LLVMValueRef *words;    /* per register pair r >> 1: the packed b32 word */
	LLVMValueRef dyn;       /* i32 bytes added to off (a ring slot), or NULL */
	int tilebits;           /* log2 of the last dimension of the tile in shared memory */
	uint32_t k0;            /* the fragment's first k in that tile (a k-slice of a ring slot) */
	LLVMValueRef sbase_of;  /* tile_ptr's last run-time base, and */
	LLVMValueRef sbase;     /* its swizzled byte offset */
} Frag;

/* The dot runs as mma.sync: its instruction's operand layouts of an mma accumulator (layout_mma.c). */
bool cg_is_mma(Cg *c, Op *op)
{
	MmaKind kind = layout_mma_kind(c->f, op);
	const Layout *lc = cg_layout(c, op->res[0]);
	if (kind == MMA_NONE || !layout_is_mma_acc(lc, c->f->num_warps))
		return false;
	int K = vtype(c->f, op->opnds[0]).shape[1];
	Layout ma = layout_mma_operand(kind, lc, K, 0), mb = layout_mma_operand(kind, lc, K, 1);
	return layout_eq(cg_layout(c, op->opnds[0]), &ma) && layout_eq(cg_layout(c, op->opnds[1]), &mb);
}

/* v's fragments, in layout l (v's own, or a transposed view of it: same registers). */
static Frag frag_in(Cg *c, ValId v, const Layout *l)
{
	int rb = ilog2((uint64_t)l->shape[1]);
	Frag o = {.v = v, .l = l, .rowbits = rb, .off = -1, .reg_of = cg_reg_of(c, l), .tilebits = rb};
	o.words = NEWN(c->f->arena, LLVMValueRef, (1u << l->nreg) / 2);
	return o;
}

static Frag frag_of(Cg *c, ValId v)
{
	return frag_in(c, v, cg_layout(c, v));
}

/* ---- shared memory: swizzled tile ---- */

static LLVMValueRef i32op(Cg *c, LLVMOpcode code, LLVMValueRef a, int64_t b)
{
	return LLVMBuildBinOp(c->b, code, a, cg_i32c(c, b), "");
}

/*
 * The swizzle of a row-major tile with 2^rowbits 16-bit elements per row
 * (w bytes): rows go in phases of per_phase rows, and row phase p XORs the
 * 16-byte chunk index with p, over max_phase phases.
 */
typedef struct Swizzle {
	int w, per_phase, max_phase;
} Swizzle;

static Swizzle swizzle_of(int rowbits)
{
	int w = 2 << rowbits, chunks = w / 16;
	int per_phase = w >= 128 ? 1 : 128 / w;
	return (Swizzle){w, per_phase, 8 / per_phase < chunks ? 8 / per_phase : chunks};
}

/* Byte offset of element `flat` (i32) in that tile. */
static LLVMValueRef swizzle(Cg *c, LLVMValueRef flat, int rowbits)
{
	Swizzle s = swizzle_of(rowbits);
	LLVMValueRef row = i32op(c, LLVMLShr, flat, rowbits);
	LLVMValueRef col = i32op(c, LLVMAnd, flat, (1 << rowbits) - 1);
	LLVMValueRef phase = i32op(c, LLVMAnd, i32op(c, LLVMUDiv, row, s.per_phase), s.max_phase - 1);
	LLVMValueRef chunk = LLVMBuildXor(c->b, i32op(c, LLVMLShr, col, 3), phase, "");
	LLVMValueRef x = LLVMBuildAdd(c->b, i32op(c, LLVMMul, row, s.w), i32op(c, LLVMShl, chunk, 4), "");
	return LLVMBuildAdd(c->b, x, i32op(c, LLVMShl, i32op(c, LLVMAnd, col, 7), 1), "");
}

/*
 * The same for a constant.  Each field of the result (row, chunk, column
 * within the chunk) is a bit selection or an XOR of bit selections of flat,
 * and the fields do not overlap: the swizzle is linear over GF(2), so
 * swizzle(x ^ k) = swizzle(x) ^ swizzle_const(k).
 */
static uint32_t swizzle_const(uint32_t flat, int rowbits)
{
	Swizzle s = swizzle_of(rowbits);
	uint32_t row = flat >> rowbits, col = flat & ((1u << rowbits) - 1);
	uint32_t chunk = (col >> 3) ^ ((row / (uint32_t)s.per_phase) & (uint32_t)(s.max_phase - 1));
	return row * (uint32_t)s.w + (chunk << 4) + ((col & 7) << 1);
}

LLVMValueRef cg_swizzle(Cg *c, LLVMValueRef flat, int rowbits)
{
	return swizzle(c, flat, rowbits);
}

/* The pending convert's source registers to the swizzled tile at off (no barriers; owners only). */
static void write_swizzled(Cg *c, ValId v, int32_t off)
{
	Op *cvt = c->pending[v];
	ValId src = cvt->opnds[0];
	const Layout *l = cg_layout(c, src);
	int rowbits = ilog2((uint64_t)l->shape[1]), vec = cg_reg_vec(l, 2);
	uint32_t zm = cg_zeromask(l->reg, l->nreg);
	LLVMTypeRef et = cg_elem_type(c, vtype(c->f, src).elem);
	LLVMValueRef ti = cg_thread_index(c, l);
	LLVMBasicBlockRef after = cg_owner_begin(c, l);
	for (uint32_t r = 0; r < 1u << l->nreg; r += (uint32_t)vec) {
		if (r & zm)
			continue;
		LLVMValueRef x = c->regs[src][r];
		if (vec > 1) {
			x = LLVMGetUndef(LLVMVectorType(et, (unsigned)vec));
			for (int j = 0; j < vec; j++)
				x = LLVMBuildInsertElement(c->b, x, c->regs[src][r + (uint32_t)j], cg_i32c(c, j), "");
		}
		LLVMValueRef flat = cg_flat_index(c, l, ti, r);
		LLVMValueRef st = LLVMBuildStore(c->b, x, cg_smem_ptr(c, off, swizzle(c, flat, rowbits)));
		LLVMSetAlignment(st, (unsigned)(vec * 2));
	}
	cg_owner_end(c, after);
	c->pending[v] = NULL;
}

/* The warp's part of the thread index (lane columns left out). */
static LLVMValueRef warp_origin(Cg *c, const Layout *l)
{
	Layout w = *l;
	memset(w.lane, 0, sizeof w.lane);
	return cg_thread_index(c, &w);
}

/* A flat index of the fragment's shape in its tile: a k-slice moves A's columns or B's rows by k0. */
static uint32_t in_tile(const Frag *o, uint32_t flat, uint32_t k0)
{
	uint32_t row = flat >> o->rowbits, col = flat & ((1u << o->rowbits) - 1);
	if (o->l->reg[0] == 1)
		col |= k0;
	else
		row |= k0;
	return row << o->tilebits | col;
}

/* The same for a run-time index (no k0: that comes with the constant part). */
static LLVMValueRef in_tile_rt(Cg *c, const Frag *o, LLVMValueRef flat)
{
	if (o->tilebits == o->rowbits)
		return flat;
	LLVMValueRef row = i32op(c, LLVMLShr, flat, o->rowbits);
	LLVMValueRef col = i32op(c, LLVMAnd, flat, (1 << o->rowbits) - 1);
	return LLVMBuildOr(c->b, i32op(c, LLVMShl, row, o->tilebits), col, "");
}

/* Rows after which the swizzle repeats (per_phase * max_phase). */
static uint32_t swizzle_period(int rowbits)
{
	Swizzle s = swizzle_of(rowbits);
	return (uint32_t)(s.per_phase * s.max_phase);
}

/*
 * Address of element (base ^ org) of the fragment's tile, org = hi ? org1 :
 * org0 (constants; hi NULL: org0).  Whole swizzle periods of rows in org
 * that base cannot have (bits in `bmask`, fragment coordinates) move the
 * address by a constant, added last so that ptxas folds it into the
 * ldmatrix as [reg+imm]: the fragments then share a few base registers
 * (one per distinct column part) instead of one address each.
 */
static LLVMValueRef tile_ptr(Cg *c, Frag *o, LLVMValueRef base, uint32_t bmask, uint32_t org0, uint32_t org1,
                             LLVMValueRef hi)
{
	uint32_t t0 = in_tile(o, org0, o->k0), t1 = in_tile(o, org1, o->k0), bm = in_tile(o, bmask, 0);
	uint32_t rows = ~(swizzle_period(o->tilebits) - 1) << o->tilebits;
	uint32_t add = t0 & rows;
	if (add != (t1 & rows) || (add & bm))
		add = 0;
	if (o->sbase_of != base) {
		o->sbase = swizzle(c, in_tile_rt(c, o, base), o->tilebits);
		o->sbase_of = base;
	}
	/* swizzle(base ^ org), org = t ^ add, by linearity */
	uint32_t s0 = swizzle_const(t0 ^ add, o->tilebits), s1 = swizzle_const(t1 ^ add, o->tilebits);
	LLVMValueRef byte = o->sbase;
	if (hi)
		byte = LLVMBuildXor(c->b, byte, LLVMBuildSelect(c->b, hi, cg_i32c(c, s1), cg_i32c(c, s0), ""), "");
	else if (s0)
		byte = LLVMBuildXor(c->b, byte, cg_i32c(c, s0), "");
	if (o->dyn)
		byte = LLVMBuildAdd(c->b, byte, o->dyn, "");
	LLVMValueRef idx = cg_i32c(c, (int64_t)add * 2);
	return LLVMBuildGEP2(c->b, c->i8, cg_smem_ptr(c, o->off, byte), &idx, 1, "");
}

/* The bits a warp_origin can set: the layout's warp columns. */
static uint32_t warp_bits(const Layout *l)
{
	uint32_t m = 0;
	for (int i = 0; i < l->nwarp; i++)
		m |= l->warp[i];
	return m;
}

static LLVMValueRef ldmatrix(Cg *c, NvName id, LLVMValueRef ptr, LLVMValueRef *out, int n)
{
	LLVMTypeRef el[4] = {c->i32, c->i32, c->i32, c->i32};
	LLVMValueRef r = cg_nv(c, id, LLVMStructTypeInContext(c->ctx, el, (unsigned)n, 0), &ptr, 1);
	for (int i = 0; i < n; i++)
		out[i] = LLVMBuildExtractValue(c->b, r, (unsigned)i, "");
	return r;
}

/* Register pair holding fragment element i (even) of the tile at origin o. */
static uint32_t pair_of(Frag *o, uint32_t origin, uint32_t col)
{
	return (uint32_t)o->reg_of[origin ^ col] >> 1;
}

/*
 * A: one ldmatrix.x4 per 16x16 tile.  Lanes 0-7 address rows 0-7 at k 0,
 * lanes 8-15 rows 8-15, lanes 16-23 rows 0-7 at k 8, lanes 24-31 rows 8-15
 * at k 8: matrix j lands in word j = fragment elements 2j, 2j+1.
 */
static void load_a(Cg *c, Frag *o)
{
	int kb = o->rowbits;
	LLVMValueRef base = warp_origin(c, o->l);
	LLVMValueRef lrow = i32op(c, LLVMShl, i32op(c, LLVMAnd, c->lane, 15), kb);
	LLVMValueRef lk = i32op(c, LLVMShl, i32op(c, LLVMLShr, c->lane, 4), 3);
	base = LLVMBuildOr(c->b, base, LLVMBuildOr(c->b, lrow, lk, ""), "");
	uint32_t bm = warp_bits(o->l) | 15u << kb | 8;
	uint32_t fa[4] = {0, 8u << kb, 8, (8u << kb) | 8};
	for (uint32_t r = 0; r < 1u << o->l->nreg; r += 8) {
		uint32_t origin = cg_reg_index(o->l, r);
		LLVMValueRef w[4];
		ldmatrix(c, NV_LDMATRIX_X4, tile_ptr(c, o, base, bm, origin, origin, NULL), w, 4);
		for (int j = 0; j < 4; j++)
			o->words[pair_of(o, origin, fa[j])] = w[j];
	}
}

static void load_b_tiles(Cg *c, Frag *o, LLVMValueRef base, uint32_t bmask, const uint32_t *fb, bool trans);

/*
 * B: ldmatrix.x4.trans for two 16x8 tiles t0, t1 (x2 for a last odd one).
 * Lanes 0-7 address k rows 0-7 of t0, 8-15 rows 8-15 of t0, 16-31 the same
 * of t1; .trans hands thread t the elements (k 2(t%4) + e, n t/4) of each.
 */
static void load_b(Cg *c, Frag *o)
{
	int nb = o->rowbits;
	LLVMValueRef base = warp_origin(c, o->l);
	base = LLVMBuildOr(c->b, base, i32op(c, LLVMShl, i32op(c, LLVMAnd, c->lane, 15), nb), "");
	uint32_t fb[2] = {0, 8u << nb};
	load_b_tiles(c, o, base, warp_bits(o->l) | 15u << nb, fb, true);
}

/*
 * B stored transposed, [N, K] with K contiguous (a pipelined trans(load)),
 * o in the transposed view: plain ldmatrix.x4 for two 16x8 B tiles t0, t1
 * (x2 for a last odd one), each tile's 8 n-rows twice, at k and k + 8.
 * Lanes 0-7 address rows 0-7 of t0 at k, 8-15 the same at k + 8, 16-31 the
 * same of t1; thread t gets (n t/4, k 2(t%4) + e) of each: B's fragment.
 */
static void load_bt(Cg *c, Frag *o)
{
	int kb = o->rowbits;
	LLVMValueRef base = warp_origin(c, o->l);
	LLVMValueRef row = i32op(c, LLVMShl, i32op(c, LLVMAnd, c->lane, 7), kb);
	LLVMValueRef k8 = i32op(c, LLVMAnd, c->lane, 8);
	base = LLVMBuildOr(c->b, base, LLVMBuildOr(c->b, row, k8, ""), "");
	uint32_t fb[2] = {0, 8};
	load_b_tiles(c, o, base, warp_bits(o->l) | 7u << kb | 8, fb, false);
}

/*
 * The B tiles of o two at a time (x2 for a last odd one): lanes 0-15 at
 * tile t0 from base, 16-31 at t1; words 0, 1 are t0's fragment pairs at
 * fb[0], fb[1] from its origin, words 2, 3 t1's.
 */
static void load_b_tiles(Cg *c, Frag *o, LLVMValueRef base, uint32_t bmask, const uint32_t *fb, bool trans)
{
	LLVMValueRef hi = LLVMBuildICmp(c->b, LLVMIntUGE, c->lane, cg_i32c(c, 16), "");
	uint32_t ntiles = (1u << o->l->nreg) / 4;
	for (uint32_t t = 0; t < ntiles; t += 2) {
		uint32_t o0 = cg_reg_index(o->l, t * 4);
		bool two = t + 1 < ntiles;
		uint32_t o1 = two ? cg_reg_index(o->l, (t + 1) * 4) : o0;
		LLVMValueRef w[4];
		NvName id = trans ? (two ? NV_LDMATRIX_X4_TRANS : NV_LDMATRIX_X2_TRANS) : (two ? NV_LDMATRIX_X4 : NV_LDMATRIX_X2);
		ldmatrix(c, id, tile_ptr(c, o, base, bmask, o0, o1, hi), w, two ? 4 : 2);
		for (int j = 0; j < 2; j++)
			o->words[pair_of(o, o0, fb[j])] = w[j];
		for (int j = 0; two && j < 2; j++)
			o->words[pair_of(o, o1, fb[j])] = w[2 + j];
	}
}

/*
 * Operands in registers: each pair (r, r|1) packed into one b32 word, as
 * lo | hi << 16 on the bits (cg_pack_half2).  A value ldmatrix read, or a loop phi of such
 * values (cg_main.c's emit_for), gives back its words as they are.
 */
LLVMValueRef cg_word(Cg *c, ValId v, uint32_t p)
{
	if (c->words[v])
		return c->words[v][p];
	return cg_pack_half2(c, c->regs[v][2 * p], c->regs[v][2 * p + 1]);
}

static void pack_regs(Cg *c, Frag *o)
{
	for (uint32_t p = 0; p < (1u << o->l->nreg) / 2; p++)
		o->words[p] = cg_word(c, o->v, p);
}

void cg_unpack_words(Cg *c, ValId v)
{
	LLVMTypeRef i16 = LLVMInt16TypeInContext(c->ctx), et = cg_elem_type(c, vtype(c->f, v).elem);
	LLVMValueRef *r = cg_new_regs(c, v);
	for (int p = 0; p < cg_nregs(c, v) / 2; p++) {
		LLVMValueRef w = c->words[v][p];
		r[2 * p] = LLVMBuildBitCast(c->b, LLVMBuildTrunc(c->b, w, i16, ""), et, "");
		r[2 * p + 1] = LLVMBuildBitCast(c->b, LLVMBuildTrunc(c->b, i32op(c, LLVMLShr, w, 16), i16, ""), et, "");
	}
}

/*
 * An operand read from a ring slot (passes/pipeline.c): the ldmatrix words
 * as two registers each, and the words themselves (c->words) for
 * pack_regs to hand to the mma.  A's register 0 runs along K (column 1), B's
 * along its rows.  A local_load narrower than the ring's tile reads the
 * k-slice starting at its iattr[0].  With iattr[1] the slot holds B
 * transposed, [N, K] with K contiguous: B is read through its transposed
 * view, whose register 0 runs along K as A's does, with plain ldmatrix
 * (same registers, so the words land where B's own view expects them).
 */
void cg_mma_local_load(Cg *c, ValId v, int32_t off, LLVMValueRef dyn)
{
	Op *ll = val(c->f, v)->def;
	Layout *lt = NULL;
	if (ll->iattr[1] & LL_TRANS) {
		lt = NEW(c->f->arena, Layout);
		*lt = layout_trans(cg_layout(c, v));
	}
	Frag o = lt ? frag_in(c, v, lt) : frag_of(c, v);
	o.off = off;
	o.dyn = dyn;
	o.tilebits = ilog2((uint64_t)vtype(c->f, ll->opnds[0]).shape[1]);
	o.k0 = (uint32_t)ll->iattr[0];
	if (lt)
		load_bt(c, &o);
	else if (o.l->reg[0] == 1)
		load_a(c, &o);
	else
		load_b(c, &o);
	c->words[v] = o.words;
	cg_unpack_words(c, v);
}

/*
 * Operand A of a wgmma in registers (cg_wgmma.c), in layout_mma_a of the
 * accumulator, staged through shared memory first when its convert is
 * pending: out[4 i + j] = word j (mma.sync's a_j) of the 16x16 tile whose
 * first element has the flat index origins[i] relative to the thread.
 */
void cg_mma_a_words(Cg *c, ValId a, const uint32_t *origins, int n, LLVMValueRef *out)
{
	Frag fa = frag_of(c, a);
	Op *pa = c->pending[a];
	if (pa) {
		fa.off = pa->smem_offset;
		cg_barrier(c);
		write_swizzled(c, a, fa.off);
		cg_barrier(c);
		load_a(c, &fa);
	} else {
		pack_regs(c, &fa);
	}
	int kb = fa.rowbits;
	uint32_t cols[4] = {0, 8u << kb, 8, (8u << kb) | 8};
	for (int i = 0; i < n; i++)
		for (int j = 0; j < 4; j++)
			out[4 * i + j] = fa.words[pair_of(&fa, origins[i], cols[j])];
}

static bool overlap(const Op *a, const Op *b)
{
	return a->smem_offset < b->smem_offset + b->smem_bytes && b->smem_offset < a->smem_offset + a->smem_bytes;
}

/* Both operands' words, through shared memory for pending converts (see cg_dot.c's stage_operands). */
static void stage(Cg *c, Frag *fa, Frag *fb)
{
	Op *pa = c->pending[fa->v], *pb = c->pending[fb->v];
	fa->off = pa ? pa->smem_offset : -1;
	fb->off = pb ? pb->smem_offset : -1;
	if (pa && pb && overlap(pa, pb)) {
		int32_t na = (pa->smem_bytes + 15) & ~15;
		if (na + pb->smem_bytes <= c->f->smem_total) {
			fa->off = 0;
			fb->off = na;
		} else {
			cg_barrier(c);
			write_swizzled(c, fa->v, fa->off);
			cg_barrier(c);
			load_a(c, fa);
			pa = NULL;
		}
	}
	if (pa || pb) {
		cg_barrier(c);
		if (pa)
			write_swizzled(c, fa->v, fa->off);
		if (pb)
			write_swizzled(c, fb->v, fb->off);
		cg_barrier(c);
		if (pa)
			load_a(c, fa);
		if (pb)
			load_b(c, fb);
	}
	if (fa->off < 0)
		pack_regs(c, fa);
	if (fb->off < 0)
		pack_regs(c, fb);
}

static LLVMValueRef as_operand(Cg *c, LLVMValueRef w, ElemKind e)
{
	if (e == TY_BF16)
		return w;
	return LLVMBuildBitCast(c->b, w, LLVMVectorType(LLVMHalfTypeInContext(c->ctx), 2), "");
}

/* cg_nv for the ten operands of an mma (cg_call takes at most eight). */
static LLVMValueRef call_nv(Cg *c, NvName id, LLVMTypeRef ret, LLVMValueRef *args, int n)
{
	LLVMValueRef fn = LLVMGetNamedFunction(c->mod, nv_names[id]);
	if (!fn) {
		LLVMTypeRef at[10];
		for (int i = 0; i < n; i++)
			at[i] = LLVMTypeOf(args[i]);
		fn = LLVMAddFunction(c->mod, nv_names[id], LLVMFunctionType(ret, at, (unsigned)n, 0));
	}
	return LLVMBuildCall2(c->b, LLVMGlobalGetValueType(fn), fn, args, (unsigned)n, "");
}

/* All of o's words as the intrinsic's operands, once each (a word feeds several mmas). */
static void as_operands(Cg *c, Frag *o, ElemKind e)
{
	for (uint32_t p = 0; p < (1u << o->l->nreg) / 2; p++)
		o->words[p] = as_operand(c, o->words[p], e);
}

/* d[0..3] = A tile (4 operand words) x B tile (2) + d[0..3]. */
static void mma(Cg *c, ElemKind e, LLVMValueRef *a, LLVMValueRef *b, LLVMValueRef *d)
{
	LLVMValueRef args[10];
	for (int i = 0; i < 4; i++)
		args[i] = a[i];
	for (int i = 0; i < 2; i++)
		args[4 + i] = b[i];
	for (int i = 0; i < 4; i++)
		args[6 + i] = d[i];
	LLVMTypeRef f4[4] = {c->f32, c->f32, c->f32, c->f32};
	LLVMValueRef r = call_nv(c, e == TY_BF16 ? NV_MMA_BF16 : NV_MMA_F16, LLVMStructTypeInContext(c->ctx, f4, 4, 0),
	                       args, 10);
	for (int i = 0; i < 4; i++)
		d[i] = LLVMBuildExtractValue(c->b, r, (unsigned)i, "");
}

/* ---- TF32 (m16n8k8) and int8 (m16n8k32): operands through the generic convert ---- */

/* A pending operand convert done now (generic row-major round trip): v in registers. */
static void materialise(Cg *c, ValId v)
{
	Op *p = c->pending[v];
	if (!p)
		return;
	cg_barrier(c);
	cg_convert_write(c, v, p->smem_offset);
	cg_barrier(c);
	cg_convert_read(c, v, p->smem_offset);
}

/* v's registers indexed by the flat index of their element (register part); f32 rounded to tf32 once. */
static LLVMValueRef *flat_regs(Cg *c, ValId v)
{
	const Layout *l = cg_layout(c, v);
	bool tf32 = vtype(c->f, v).elem == TY_F32;
	LLVMValueRef *m = NEWN(c->f->arena, LLVMValueRef, (int64_t)l->shape[0] * l->shape[1]);
	for (uint32_t r = 0; r < 1u << l->nreg; r++) {
		LLVMValueRef x = c->regs[v][r];
		m[cg_reg_index(l, r)] = tf32 ? cg_asm(c, nv_names[NV_ASM_CVT_TF32], "=r,f", c->i32, &x, 1, false) : x;
	}
	return m;
}

/*
 * The b32 word of four i8 elements at m[at], m[at + step], ..., the first in
 * the low byte; built once (words[at]), as every fragment along the other
 * dimension takes the same word.
 */
static LLVMValueRef pack_s8(Cg *c, LLVMValueRef *m, LLVMValueRef *words, uint32_t at, uint32_t step)
{
	if (words[at])
		return words[at];
	LLVMValueRef w = NULL;
	for (uint32_t q = 0; q < 4; q++) {
		LLVMValueRef x = LLVMBuildZExt(c->b, m[at + q * step], c->i32, "");
		if (q)
			x = LLVMBuildShl(c->b, x, cg_i32c(c, 8 * q), "");
		w = w ? LLVMBuildOr(c->b, w, x, "") : x;
	}
	return words[at] = w;
}

static void mma_flat_step(Cg *c, MmaKind kind, ElemKind e, LLVMValueRef *a, LLVMValueRef *b, LLVMValueRef *d)
{
	LLVMValueRef args[10];
	for (int i = 0; i < 4; i++)
		args[i] = a[i];
	for (int i = 0; i < 2; i++)
		args[4 + i] = b[i];
	for (int i = 0; i < 4; i++)
		args[6 + i] = d[i];
	LLVMTypeRef t = kind == MMA_S8 ? c->i32 : c->f32, t4[4] = {t, t, t, t};
	NvName text = kind == MMA_S8 ? NV_ASM_MMA_S8 : kind == MMA_TF32 ? NV_ASM_MMA_TF32
	            : e == TY_F8E4M3 ? NV_ASM_MMA_E4M3 : NV_ASM_MMA_E5M2;
	LLVMValueRef r = cg_asm(c, nv_names[text],
	                        kind == MMA_S8 ? "=r,=r,=r,=r,r,r,r,r,r,r,0,1,2,3" : "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3",
	                        LLVMStructTypeInContext(c->ctx, t4, 4, 0), args, 10, false);
	for (int i = 0; i < 4; i++)
		d[i] = LLVMBuildExtractValue(c->b, r, (unsigned)i, "");
}

/*
 * The operands come to registers in their fragment layouts through the
 * generic convert (plain ld.shared of each element).  Each accumulator
 * fragment at (row, col) then takes, for tf32, A's elements (row + 8 (i & 1),
 * k0 + 4 (i >> 1)) and B's (k0 + 4 i, col), each rounded once (cvt.rna);
 * for int8 and fp8, A word i packs (row + 8 (i & 1), k0 + 16 (i >> 1) + q) and B
 * word i packs (k0 + 16 i + q, col), q = 0..3.
 */
static void mma_flat(Cg *c, Op *op, MmaKind kind)
{
	ValId a = op->opnds[0], b = op->opnds[1], acc = op->opnds[2], res = op->res[0];
	const Layout *lc = cg_layout(c, res);
	int K = vtype(c->f, a).shape[1], kb = ilog2((uint64_t)K), nb = ilog2((uint64_t)lc->shape[1]);
	ElemKind e = vtype(c->f, a).elem;
	bool bytes = kind == MMA_S8 || kind == MMA_F8;
	uint32_t kstep = bytes ? 32 : 8;
	materialise(c, a);
	materialise(c, b);
	LLVMValueRef *ta = flat_regs(c, a), *tb = flat_regs(c, b), *wa = NULL, *wb = NULL;
	if (bytes) {
		wa = NEWN(c->f->arena, LLVMValueRef, (int64_t)lc->shape[0] * K);
		wb = NEWN(c->f->arena, LLVMValueRef, (int64_t)K * lc->shape[1]);
	}
	LLVMValueRef *out = cg_new_regs(c, res);
	for (uint32_t r = 0; r < 1u << lc->nreg; r++)
		out[r] = c->regs[acc][r];
	for (uint32_t k0 = 0; k0 < (uint32_t)K; k0 += kstep) {
		for (uint32_t r = 0; r < 1u << lc->nreg; r += 4) {
			uint32_t o = cg_reg_index(lc, r), row = o >> nb, col = o & ((1u << nb) - 1);
			LLVMValueRef fa[4], fb[2];
			for (uint32_t i = 0; i < 4; i++)
				fa[i] = bytes ? pack_s8(c, ta, wa, (row + 8 * (i & 1)) << kb | (k0 + 16 * (i >> 1)), 1)
				                       : ta[(row + 8 * (i & 1)) << kb | (k0 + 4 * (i >> 1))];
			for (uint32_t i = 0; i < 2; i++)
				fb[i] = bytes ? pack_s8(c, tb, wb, (k0 + 16 * i) << nb | col, 1u << nb)
				                       : tb[(k0 + 4 * i) << nb | col];
			mma_flat_step(c, kind, e, fa, fb, out + r);
		}
	}
}

void cg_mma(Cg *c, Op *op)
{
	MmaKind kind = layout_mma_kind(c->f, op);
	if (kind != MMA_HALF) {
		mma_flat(c, op, kind);
		return;
	}
	ValId acc = op->opnds[2], res = op->res[0];
	const Layout *lc = cg_layout(c, res);
	ElemKind e = vtype(c->f, op->opnds[0]).elem;
	int K = vtype(c->f, op->opnds[0]).shape[1];
	int kb = ilog2((uint64_t)K), nb = ilog2((uint64_t)lc->shape[1]);
	Frag fa = frag_of(c, op->opnds[0]), fb = frag_of(c, op->opnds[1]);
	stage(c, &fa, &fb);
	as_operands(c, &fa, e);
	as_operands(c, &fb, e);
	LLVMValueRef *out = cg_new_regs(c, res);
	for (uint32_t r = 0; r < 1u << lc->nreg; r++)
		out[r] = c->regs[acc][r];
	uint32_t fa_cols[4] = {0, 8u << kb, 8, (8u << kb) | 8}, fb_cols[2] = {0, 8u << nb};
	for (uint32_t k0 = 0; k0 < (uint32_t)K; k0 += 16) {
		for (uint32_t r = 0; r < 1u << lc->nreg; r += 4) {
			uint32_t o = cg_reg_index(lc, r), row = o >> nb, col = o & ((1u << nb) - 1);
			LLVMValueRef a[4], b[2];
			for (int j = 0; j < 4; j++)
				a[j] = fa.words[pair_of(&fa, row << kb | k0, fa_cols[j])];
			for (int j = 0; j < 2; j++)
				b[j] = fb.words[pair_of(&fb, k0 << nb | col, fb_cols[j])];
			mma(c, e, a, b, out + r);
		}
	}
}
