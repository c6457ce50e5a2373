/*
 * cg_reduce.c: sum, max, min, argmax, argmin along one axis, in three steps
 * (as Triton's ReduceOpToLLVM):
 *
 *  1. in-thread: registers that differ only in bits whose column lies in the
 *     axis fold into one accumulator per remaining register key, left to
 *     right (see chain), or pairwise in an MMA accumulator (see tree);
 *  2. in-warp: for each lane bit whose column lies in the axis, combine with
 *     shfl.sync.bfly over that bit; afterwards every lane has the result;
 *  3. across warps, if a warp column lies in the axis: after a barrier each
 *     warp writes its partials to scratch, slot (warp's axis bits, result
 *     element), and after a second barrier every thread reads the slots of
 *     its result elements and combines them in warp order.
 *
 * The result layout is the source's with the axis bits zeroed (contract),
 * so result register r is accumulator r & ~axis bits.  An accumulator is
 * a tuple of values (Acc): argmax/argmin carry (value, index) pairs, ties
 * keeping the smaller index (the first one); a reduce with a combine region
 * (ops.def) carries its k operands' elements and combines them by emitting
 * the region (cg_combine).  Its combine is taken to be commutative, as
 * Triton's is, but partners of a shuffle still pass their partials to it
 * in one order (the lane with the bit clear first), so every copy of a
 * result holds the same bits.
 */
#include "cg.h"

enum { MAX_ACC = 16 }; /* reduce's k operands; argmax's value and index */

typedef struct Red {
	Op *op;
	Opcode code;
	int n;                /* values in an accumulator */
	ElemKind e[MAX_ACC];  /* their element types */
	bool arg;             /* argmax/argmin */
	uint32_t field;       /* the axis's bits in the flat index */
	int shift;            /* lowest bit of the field */
} Red;

typedef struct Acc {
	LLVMValueRef v[MAX_ACC];
} Acc;

static Red red_of(Func *f, Op *op)
{
	Red r;
	Type t = vtype(f, op->opnds[0]);
	int axis = (int)op->iattr[0];
	r.op = op;
	r.code = op->code;
	r.arg = op->code == OP_ARGMAX || op->code == OP_ARGMIN;
	r.n = r.arg ? 2 : op->code == OP_REDUCE ? op->nopnds : 1;
	for (int i = 0; i < r.n; i++)
		r.e[i] = r.arg && i == 1 ? TY_I32 : (ElemKind)vtype(f, op->opnds[op->code == OP_REDUCE ? i : 0]).elem;
	r.shift = 0;
	for (int d = t.rank - 1; d > axis; d--)
		r.shift += ilog2((uint64_t)t.shape[d]);
	r.field = (((uint32_t)t.shape[axis] - 1)) << r.shift;
	return r;
}

static bool in_axis(const Red *rd, uint32_t col)
{
	return col != 0 && (col & rd->field) == col;
}

static Acc combine(Cg *c, const Red *rd, Acc a, Acc b)
{
	if (rd->code == OP_REDUCE) {
		Acc r;
		cg_combine(c, rd->op, a.v, b.v, r.v);
		return r;
	}
	ElemKind e = rd->e[0];
	if (!rd->arg) {
		Opcode code = rd->code == OP_SUM ? OP_ADD : rd->code == OP_RMAX ? OP_MAX : OP_MIN;
		a.v[0] = cg_binary(c, code, e, a.v[0], b.v[0]);
		return a;
	}
	bool fl = elem_is_float(e);
	LLVMValueRef av = cg_to_f32(c, a.v[0], e), bv = cg_to_f32(c, b.v[0], e);
	LLVMValueRef better, eq;
	if (fl) {
		better = LLVMBuildFCmp(c->b, rd->code == OP_ARGMAX ? LLVMRealOGT : LLVMRealOLT, bv, av, "");
		eq = LLVMBuildFCmp(c->b, LLVMRealOEQ, bv, av, "");
	} else {
		better = LLVMBuildICmp(c->b, rd->code == OP_ARGMAX ? LLVMIntSGT : LLVMIntSLT, bv, av, "");
		eq = LLVMBuildICmp(c->b, LLVMIntEQ, bv, av, "");
	}
	LLVMValueRef first = LLVMBuildICmp(c->b, LLVMIntSLT, b.v[1], a.v[1], "");
	LLVMValueRef take = LLVMBuildOr(c->b, better, LLVMBuildAnd(c->b, eq, first, ""), "");
	a.v[0] = LLVMBuildSelect(c->b, take, b.v[0], a.v[0], "");
	a.v[1] = LLVMBuildSelect(c->b, take, b.v[1], a.v[1], "");
	return a;
}

LLVMValueRef cg_shfl_xor(Cg *c, LLVMValueRef v, int lane_mask)
{
	LLVMTypeRef t = LLVMTypeOf(v);
	LLVMTypeKind k = LLVMGetTypeKind(t);
	if (k == LLVMPointerTypeKind)
		return LLVMBuildIntToPtr(c->b, cg_shfl_xor(c, LLVMBuildPtrToInt(c->b, v, c->i64, ""), lane_mask), t, "");
	unsigned bits = k == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(t) : k == LLVMFloatTypeKind ? 32
	              : k == LLVMDoubleTypeKind ? 64 : 16;
	if (bits == 64) {
		LLVMTypeRef v2 = LLVMVectorType(c->i32, 2);
		LLVMValueRef x = LLVMBuildBitCast(c->b, v, v2, "");
		for (int h = 0; h < 2; h++) {
			LLVMValueRef part = LLVMBuildExtractElement(c->b, x, cg_i32c(c, h), "");
			part = cg_shfl_xor(c, part, lane_mask);
			x = LLVMBuildInsertElement(c->b, x, part, cg_i32c(c, h), "");
		}
		return LLVMBuildBitCast(c->b, x, t, "");
	}
	LLVMTypeRef it = LLVMIntTypeInContext(c->ctx, bits);
	LLVMValueRef x = LLVMBuildBitCast(c->b, v, it, "");
	if (bits < 32)
		x = LLVMBuildZExt(c->b, x, c->i32, "");
	LLVMValueRef args[4] = {cg_i32c(c, -1), x, cg_i32c(c, lane_mask), cg_i32c(c, 0x1f)};
	x = cg_nv(c, NV_SHFL_BFLY, c->i32, args, 4);
	if (bits < 32)
		x = LLVMBuildTrunc(c->b, x, it, "");
	return LLVMBuildBitCast(c->b, x, t, "");
}

/* Coordinate along the axis of source register r (argmax/argmin). */
static LLVMValueRef axis_index(Cg *c, const Red *rd, const Layout *l, LLVMValueRef ti, uint32_t r)
{
	LLVMValueRef flat = cg_flat_index(c, l, ti, r);
	flat = LLVMBuildAnd(c->b, flat, cg_i32c(c, rd->field), "");
	return LLVMBuildLShr(c->b, flat, cg_i32c(c, rd->shift), "");
}

/* xs[0] combine ... combine xs[n-1], in that order, as a balanced tree (xs is overwritten). */
static Acc tree(Cg *c, const Red *rd, Acc *xs, int n)
{
	while (n > 1) {
		int m = 0;
		for (int i = 0; i + 1 < n; i += 2)
			xs[m++] = combine(c, rd, xs[i], xs[i + 1]);
		if (n & 1)
			xs[m++] = xs[n - 1];
		n = m;
	}
	return xs[0];
}

/*
 * ((xs[0] combine xs[1]) combine xs[2]) ...: registers that come from
 * memory, and partials read back from scratch, are folded in the order
 * they arrive, as Triton does.  ptxas schedules a row's loads around that
 * order; with balanced trees it issued softmax's first load (of 8 per
 * thread) 27 instructions later, behind the masks and -inf fills
 * (4096x16384: 0.4% of bandwidth).  Registers of an MMA accumulator all
 * arrive at once, so there the tree's shorter dependence chain wins
 * (attention: 1% slower with chains).
 */
static Acc chain(Cg *c, const Red *rd, const Acc *xs, int n)
{
	Acc a = xs[0];
	for (int i = 1; i < n; i++)
		a = combine(c, rd, a, xs[i]);
	return a;
}

/* Step 1: acc[key] for every canonical key = r without axis register bits. */
static void in_thread(Cg *c, const Red *rd, ValId src, Acc *acc)
{
	const Layout *l = cg_layout(c, src);
	uint32_t n = (uint32_t)cg_nregs(c, src), zm = l ? cg_zeromask(l->reg, l->nreg) : 0, am = 0;
	LLVMValueRef ti = l && rd->arg ? cg_thread_index(c, l) : NULL;
	bool mma = l && layout_is_mma_acc(l, c->f->num_warps);
	for (int i = 0; l && i < l->nreg; i++)
		if (in_axis(rd, l->reg[i]))
			am |= 1u << i;
	Acc *xs = NEWN(c->f->arena, Acc, n);
	for (uint32_t key = 0; key < n; key++) {
		if (key & (am | zm))
			continue;
		int m = 0;
		for (uint32_t r = key; r < n; r++) {
			if ((r & ~am) != key || (r & zm))
				continue;
			for (int j = 0; j < rd->n; j++)
				xs[m].v[j] = rd->arg && j == 1 ? axis_index(c, rd, l, ti, r)
				           : c->regs[rd->op->opnds[rd->code == OP_REDUCE ? j : 0]][r];
			m++;
		}
		acc[key] = mma ? tree(c, rd, xs, m) : chain(c, rd, xs, m);
	}
}

/*
 * A butterfly step's add is built without contraction (fp_fusion off for
 * it): partners compute x + y and y + x, equal only as rounded sums; an fma
 * of the multiply before would add one lane's exact product to the other's
 * rounded one, and lanes that then write one scratch slot (across_warps) or
 * hold one replicated value would differ in the last bit.
 */
static void in_warp(Cg *c, const Red *rd, const Layout *l, Acc *acc, uint32_t keymask, int n)
{
	bool fusion = c->f->fp_fusion;
	c->f->fp_fusion = false;
	for (int i = 0; i < l->nlane; i++) {
		if (!in_axis(rd, l->lane[i]))
			continue;
		LLVMValueRef upper = NULL; /* this lane has bit i set: its partial goes second */
		if (rd->code == OP_REDUCE)
			upper = LLVMBuildTrunc(c->b, LLVMBuildLShr(c->b, c->lane, cg_i32c(c, i), ""), c->i1, "");
		for (int k = 0; k < n; k++) {
			if (k & ~keymask)
				continue;
			Acc o, a = acc[k];
			for (int j = 0; j < rd->n; j++)
				o.v[j] = cg_shfl_xor(c, a.v[j], 1 << i);
			for (int j = 0; upper && j < rd->n; j++) {
				LLVMValueRef mine = a.v[j];
				a.v[j] = LLVMBuildSelect(c->b, upper, o.v[j], mine, "");
				o.v[j] = LLVMBuildSelect(c->b, upper, mine, o.v[j], "");
			}
			acc[k] = combine(c, rd, a, o);
		}
	}
	c->f->fp_fusion = fusion;
}

static uint32_t warp_axis_bits(const Red *rd, const Layout *l, int num_warps)
{
	uint32_t m = 0;
	for (int i = 0; i < l->nwarp && (1 << i) < num_warps; i++)
		if (in_axis(rd, l->warp[i]))
			m |= 1u << i;
	return m;
}

static int popcount(uint32_t x)
{
	int n = 0;
	for (; x; x &= x - 1)
		n++;
	return n;
}

static int64_t result_numel(Func *f, Op *op)
{
	Type t = vtype(f, op->res[0]);
	return t.rank ? type_numel(t) : 1;
}

/*
 * A slot's bytes: the element's, but 4 for f16 and bf16, which sit in the
 * low half of an i32.  With 2-byte slots LLVM merges neighbouring scratch
 * loads of an (f16, bf16) tuple into one f16 vector, and NVPTX cannot
 * select a bf16 element out of it.
 */
static int slot_bytes(ElemKind e)
{
	return e == TY_F16 || e == TY_BF16 ? 4 : elem_bytes(e);
}

static void store_slot(Cg *c, LLVMValueRef v, ElemKind e, LLVMValueRef at)
{
	if (slot_bytes(e) != elem_bytes(e))
		v = LLVMBuildZExt(c->b, LLVMBuildBitCast(c->b, v, c->i16, ""), c->i32, "");
	LLVMBuildStore(c->b, cg_to_mem(c, v, e), at);
}

static LLVMValueRef load_slot(Cg *c, ElemKind e, LLVMValueRef at)
{
	if (slot_bytes(e) == elem_bytes(e))
		return cg_from_mem(c, LLVMBuildLoad2(c->b, cg_mem_type(c, e), at, ""), e);
	LLVMValueRef x = LLVMBuildTrunc(c->b, LLVMBuildLoad2(c->b, c->i32, at, ""), c->i16, "");
	return LLVMBuildBitCast(c->b, x, cg_elem_type(c, e), "");
}

/* Where value j's slots start in scratch: each value's slots packed, starting 4-byte (8 for 8-byte values) aligned. */
static int64_t part_base(const Red *rd, int j, int64_t nslots)
{
	int64_t base = 0;
	for (int i = 0; i <= j; i++) {
		int eb = slot_bytes(rd->e[i]), align = eb > 4 ? eb : 4;
		base = (base + align - 1) / align * align;
		if (i < j)
			base += nslots * eb;
	}
	return base;
}

int cg_reduce_smem_bytes(Func *f, Op *op)
{
	Value *s = val(f, op->opnds[0]);
	if (s->layout < 0)
		return 0;
	Red rd = red_of(f, op);
	uint32_t wm = warp_axis_bits(&rd, &f->layouts[s->layout], f->num_warps);
	if (!wm)
		return 0;
	int64_t slots = ((int64_t)1 << popcount(wm)) * result_numel(f, op);
	int64_t bytes = part_base(&rd, rd.n - 1, slots) + slots * slot_bytes(rd.e[rd.n - 1]);
	return (int)((bytes + 15) & ~15);
}

static LLVMValueRef slot_ptr(Cg *c, Op *op, const Red *rd, LLVMValueRef slot, int j, int64_t nslots)
{
	LLVMValueRef off = LLVMBuildMul(c->b, slot, cg_i32c(c, slot_bytes(rd->e[j])), "");
	return cg_smem_ptr(c, op->smem_offset + (int32_t)part_base(rd, j, nslots), off);
}

/* Step 3: exchange partials between warps through scratch. */
static void across_warps(Cg *c, Op *op, const Red *rd, const Layout *ls, Acc *acc, uint32_t keymask, int n)
{
	uint32_t wm = warp_axis_bits(rd, ls, c->f->num_warps);
	if (!wm)
		return;
	int need = cg_reduce_smem_bytes(c->f, op);
	if (op->smem_bytes < need)
		die("codegen: %s has %d bytes of scratch, needs %d", op_info[op->code].text, op->smem_bytes, need);
	const Layout *lr = cg_layout(c, op->res[0]);
	int64_t nout = result_numel(c->f, op), k = (int64_t)1 << popcount(wm);
	LLVMValueRef ti = lr ? cg_thread_index(c, lr) : cg_i32c(c, 0);
	LLVMValueRef widx = cg_i32c(c, 0);
	for (int i = 0, j = 0; i < ls->nwarp; i++) {
		if (!(wm >> i & 1))
			continue;
		LLVMValueRef bit = LLVMBuildAnd(c->b, LLVMBuildLShr(c->b, c->warp, cg_i32c(c, i), ""), cg_i32c(c, 1), "");
		widx = LLVMBuildOr(c->b, widx, LLVMBuildShl(c->b, bit, cg_i32c(c, j++), ""), "");
	}
	cg_smem_access(c, op->smem_offset, op->smem_bytes, true);
	for (int r = 0; r < n; r++) {
		if (r & ~keymask)
			continue;
		LLVMValueRef flat = lr ? cg_flat_index(c, lr, ti, (uint32_t)r) : ti;
		LLVMValueRef slot = LLVMBuildAdd(c->b, LLVMBuildMul(c->b, widx, cg_i32c(c, nout), ""), flat, "");
		for (int j = 0; j < rd->n; j++)
			store_slot(c, acc[r].v[j], rd->e[j], slot_ptr(c, op, rd, slot, j, nout * k));
	}
	cg_smem_access(c, op->smem_offset, op->smem_bytes, false);
	Acc *xs = NEWN(c->f->arena, Acc, k);
	for (int r = 0; r < n; r++) {
		if (r & ~keymask)
			continue;
		LLVMValueRef flat = lr ? cg_flat_index(c, lr, ti, (uint32_t)r) : ti;
		for (int64_t w = 0; w < k; w++) {
			LLVMValueRef slot = LLVMBuildAdd(c->b, flat, cg_i32c(c, w * nout), "");
			for (int j = 0; j < rd->n; j++) {
				LLVMValueRef at = slot_ptr(c, op, rd, slot, j, nout * k);
				xs[w].v[j] = load_slot(c, rd->e[j], at);
			}
		}
		acc[r] = chain(c, rd, xs, (int)k);
	}
}

void cg_reduce(Cg *c, Op *op)
{
	ValId src = op->opnds[0], res = op->res[0];
	Red rd = red_of(c->f, op);
	const Layout *ls = cg_layout(c, src);
	int n = cg_nregs(c, src);
	if (cg_nregs(c, res) != n && cg_nregs(c, res) != 1)
		die("codegen: %s result %%%d has a register count unlike its source", op_info[op->code].text, res);
	for (int i = 1; i < op->nopnds; i++)
		if (cg_layout(c, op->opnds[i]) != ls && !layout_eq(cg_layout(c, op->opnds[i]), ls))
			die("codegen: reduce operand %d's layout is not operand 0's", i);
	uint32_t keymask = (uint32_t)n - 1;
	for (int i = 0; i < ls->nreg; i++)
		if (in_axis(&rd, ls->reg[i]) || ls->reg[i] == 0)
			keymask &= ~(1u << i);
	Acc *acc = NEWN(c->f->arena, Acc, n);
	in_thread(c, &rd, src, acc);
	in_warp(c, &rd, ls, acc, keymask, n);
	across_warps(c, op, &rd, ls, acc, keymask, n);
	for (int i = 0; i < op->nres; i++) {
		LLVMValueRef *out = cg_new_regs(c, op->res[i]);
		for (int r = 0; r < cg_nregs(c, res); r++)
			out[r] = acc[r & keymask].v[rd.arg ? 1 : i];
	}
}
