/*
 * cg_scan.c: cumsum (and scan) along one axis, as a merge over the bits of the
 * position along it (a butterfly, as Triton's scan within a warp).
 *
 * Each element keeps `pre`, its running sum within its block of 2^j
 * positions, and `tot`, that block's sum.  For j = 0, 1, ... every block
 * meets the one with bit j flipped: both add the partner's tot to their
 * own, and the upper block (the lower one, reversed) also adds it to pre.
 * Where bit j of the position lies decides how the partner's tot arrives:
 *
 *  - a register column: another register of this thread, free;
 *  - a lane column: shfl.sync.bfly over that lane bit;
 *  - anything else (a warp column, a column that mixes bits): through
 *    shared memory, up to MAX_RUN such bits in one exchange (smem_run);
 *    cg_smem_access puts the barriers.
 *
 * Registers that differ only in bits already merged share one tot, so the
 * shuffles and shared loads are made once for them.  The order of the adds
 * depends only on the positions, not on the layout, and the interpreter
 * makes the same ones (exec_cumsum): float results agree bit for bit.
 *
 * A scan with a combine region (ops.def) carries its k operands' elements
 * (pre[r][i], tot[r][i]) and emits the region where cumsum adds
 * (cg_combine); it keeps the order: the earlier block's partial is always
 * the left one, so both partners compute the same merged tot, and the
 * combine need not be commutative, as Triton's associative_scan.
 */
#include "cg.h"

enum { MAX_SCAN = 16 };

typedef struct Part {
	LLVMValueRef v[MAX_SCAN];
} Part;

/* Where value i's tile starts in scratch: each a row-major tile, starting 8-byte aligned (passes/smem.c). */
static int32_t tile_base(Func *f, Op *op, int i)
{
	int64_t base = 0;
	for (int j = 0; j < i; j++)
		base += (type_numel(vtype(f, op->opnds[j])) * elem_bytes(vtype(f, op->opnds[j]).elem) + 7) & ~7;
	return (int32_t)base;
}

/* Where value i of the element at flat index `flat` (i32) lies in scratch. */
static LLVMValueRef tot_ptr(Cg *c, Op *op, int i, LLVMValueRef flat)
{
	LLVMValueRef off = LLVMBuildMul(c->b, flat, cg_i32c(c, elem_bytes(vtype(c->f, op->opnds[i]).elem)), "");
	return cg_smem_ptr(c, op->smem_offset + tile_base(c->f, op, i), off);
}

/* Value i of the tot at flat index flat, read from scratch. */
static LLVMValueRef load_tot(Cg *c, Op *op, int i, LLVMValueRef flat)
{
	ElemKind e = vtype(c->f, op->opnds[i]).elem;
	return cg_from_mem(c, LLVMBuildLoad2(c->b, cg_mem_type(c, e), tot_ptr(c, op, i, flat), ""), e);
}

/*
 * Each block's tot at its elements' flat indices in scratch, by the owners
 * of l's elements: by the registers that stand for the others (none of the
 * merged register bits), which hold the blocks' first elements, the ones
 * smem_run reads.  Where a register's bits of the flat index are not the
 * thread's, its address is the thread's plus a constant (an offset of the
 * instruction, not a register of its own).
 */
static void write_tots(Cg *c, Op *op, const Layout *l, LLVMValueRef *flat, Part *tot, int n, uint32_t zm,
		       uint32_t merged, int k)
{
	cg_smem_access(c, op->smem_offset, op->smem_bytes, true);
	LLVMBasicBlockRef after = cg_owner_begin(c, l);
	for (int r = 0; r < n; r++) {
		if ((r & zm) || (r & (int)merged))
			continue;
		uint32_t kr = cg_reg_index(l, (uint32_t)r);
		for (int i = 0; i < k; i++) {
			ElemKind e = vtype(c->f, op->opnds[i]).elem;
			LLVMValueRef at = kr & cg_thread_bits(l) ? tot_ptr(c, op, i, flat[r])
			                  : LLVMBuildGEP2(c->b, c->i8, tot_ptr(c, op, i, flat[0]),
			                                  (LLVMValueRef[]){cg_i32c(c, (int64_t)kr * elem_bytes(e))}, 1, "");
			LLVMBuildStore(c->b, cg_to_mem(c, tot[r].v[i], e), at);
		}
	}
	cg_owner_end(c, after);
}

/* a combine b: cumsum's add, or the region */
static Part combine(Cg *c, Op *op, Part a, Part b)
{
	if (op->code == OP_CUMSUM) {
		a.v[0] = cg_binary(c, OP_ADD, vtype(c->f, op->opnds[0]).elem, a.v[0], b.v[0]);
		return a;
	}
	Part r;
	cg_combine(c, op, a.v, b.v, r.v);
	return r;
}

static Part select_part(Cg *c, LLVMValueRef cond, Part a, Part b, int k)
{
	for (int i = 0; i < k; i++)
		a.v[i] = LLVMBuildSelect(c->b, cond, a.v[i], b.v[i], "");
	return a;
}

/* pre takes in part, the tot of the block before its own, where its block is the later one (cumsum's add commutes). */
static Part take_part(Cg *c, Op *op, Part pre, Part part, LLVMValueRef later)
{
	Part m = op->code == OP_CUMSUM ? combine(c, op, pre, part) : combine(c, op, part, pre);
	return select_part(c, later, m, pre, op->nopnds);
}

enum { MAX_RUN = 3 };

typedef struct Levels {
	Part t[2 << MAX_RUN]; /* a run's blocks' tots, level 0 (2^w of them) first, then each level's merges */
} Levels;

/*
 * Steps j .. j + w - 1 (bits of the position that are no register or lane
 * column: warp bits, mostly), w <= MAX_RUN, in one exchange: every
 * element's tot to scratch once, then each thread reads the tots of the
 * 2^w blocks of the run its own block lies in, the block's first element
 * each (the bits below the run merged, every element of a block holds its
 * tot), and makes the steps itself.  It merges the blocks' tots pairwise,
 * level by level, the earlier block on the left, and at level i its own
 * pre takes in, where its block is the later one, the tot of the level-i
 * block before it: the merges of the butterfly, in its order, so the same
 * bits, behind one barrier.  The addresses read do not depend on the bits
 * merged below, so for a tile whose lanes and registers hold those bits
 * they are the same in every thread (broadcast reads at constant offsets;
 * reading at the flat index with the run's bits flipped cost a register
 * for each address, live across a loop).
 */
static void smem_run(Cg *c, Op *op, const Layout *l, LLVMValueRef *flat, Part *pre, Part *tot, int n, uint32_t zm,
		     uint32_t merged, int shift, int j, int w, bool rev)
{
	int k = op->nopnds, nb = 1 << w, bit0 = shift + j;
	bool add = op->code == OP_CUMSUM;
	if (op->smem_bytes < tile_base(c->f, op, k))
		die("codegen: %s has %d bytes of scratch, needs %d", op_info[op->code].text, op->smem_bytes,
		    tile_base(c->f, op, k));
	write_tots(c, op, l, flat, tot, n, zm, merged, k);
	cg_smem_access(c, op->smem_offset, op->smem_bytes, false);
	uint32_t keep = ~(((1u << (j + w)) - 1) << shift);
	Levels *lv = NEWN(c->f->arena, Levels, n); /* per rep */
	for (int r = 0; r < n; r++) {
		if ((r & zm) || (r & (int)merged))
			continue;
		LLVMValueRef at = LLVMBuildAnd(c->b, flat[r], cg_i32c(c, keep), "");
		for (int m = 0; m < nb; m++)
			for (int i = 0; i < k; i++)
				lv[r].t[m].v[i] = load_tot(c, op, i, LLVMBuildOr(c->b, at, cg_i32c(c, (int64_t)m << bit0), ""));
		/* level i + 1's blocks after level i's: t[base(i + 1) + q] merges base(i) + 2q and 2q + 1 */
		for (int i = 0, base = 0, cnt = nb; cnt > 1; base += cnt, cnt /= 2, i++)
			for (int q = 0; q < cnt / 2; q++) {
				Part x = lv[r].t[base + 2 * q], y = lv[r].t[base + 2 * q + 1];
				lv[r].t[base + cnt + q] = rev && !add ? combine(c, op, y, x) : combine(c, op, x, y);
			}
	}
	for (int r = 0; r < n; r++) {
		if (r & zm)
			continue;
		const Part *t = lv[r & ~(int)merged].t;
		LLVMValueRef own = LLVMBuildAnd(c->b, LLVMBuildLShr(c->b, flat[r], cg_i32c(c, bit0), ""), cg_i32c(c, nb - 1), "");
		for (int i = 0, base = 0, cnt = nb; i < w; base += cnt, cnt /= 2, i++) {
			LLVMValueRef blk = LLVMBuildLShr(c->b, own, cg_i32c(c, i), ""); /* own block at level i */
			LLVMValueRef set = LLVMBuildICmp(c->b, LLVMIntNE, LLVMBuildAnd(c->b, blk, cg_i32c(c, 1), ""),
			                                 cg_i32c(c, 0), "");
			LLVMValueRef later = rev ? LLVMBuildNot(c->b, set, "") : set;
			/* the block before it: even (odd, reversed) at level i, the one in its pair */
			LLVMValueRef pair = LLVMBuildLShr(c->b, blk, cg_i32c(c, 1), "");
			Part part = t[base + rev];
			for (int q = 1; q < cnt / 2; q++)
				part = select_part(c, LLVMBuildICmp(c->b, LLVMIntEQ, pair, cg_i32c(c, q), ""),
				                   t[base + 2 * q + rev], part, k);
			pre[r] = take_part(c, op, pre[r], part, later);
		}
		tot[r] = t[2 * nb - 2];
	}
}

void cg_scan(Cg *c, Op *op)
{
	ValId src = op->opnds[0];
	Type t = vtype(c->f, src);
	int axis = (int)op->iattr[0], k = op->nopnds;
	bool rev = op->iattr[1] != 0, add = op->code == OP_CUMSUM;
	int shift = 0;
	for (int d = t.rank - 1; d > axis; d--)
		shift += ilog2((uint64_t)t.shape[d]);
	int bits = ilog2((uint64_t)t.shape[axis]);
	const Layout *l = cg_layout(c, src);
	int n = cg_nregs(c, src);
	for (int i = 1; i < k; i++)
		if (cg_layout(c, op->opnds[i]) != l && !layout_eq(cg_layout(c, op->opnds[i]), l))
			die("codegen: scan operand %d's layout is not operand 0's", i);
	uint32_t zm = cg_zeromask(l->reg, l->nreg), merged = 0; /* register bits merged so far */
	LLVMValueRef ti = cg_thread_index(c, l);
	LLVMValueRef *flat = NEWN(c->f->arena, LLVMValueRef, n);
	Part *pre = NEWN(c->f->arena, Part, n), *tot = NEWN(c->f->arena, Part, n), *part = NEWN(c->f->arena, Part, n);
	for (int r = 0; r < n; r++) {
		flat[r] = cg_flat_index(c, l, ti, (uint32_t)r);
		for (int i = 0; i < k; i++)
			pre[r].v[i] = tot[r].v[i] = c->regs[op->opnds[i]][r];
	}
	bool fusion = c->f->fp_fusion;
	c->f->fp_fusion = false; /* adds only, in the interpreter's order */
	for (int j = 0; j < bits; j++) {
		uint32_t bit = 1u << (shift + j);
		int ri = layout_column(l->reg, l->nreg, bit), li = ri < 0 ? layout_column(l->lane, l->nlane, bit) : -1;
		int w = 0; /* steps from j on that cross shared memory */
		while (ri < 0 && li < 0 && w < MAX_RUN && j + w < bits &&
		       layout_column(l->reg, l->nreg, bit << w) < 0 && layout_column(l->lane, l->nlane, bit << w) < 0)
			w++;
		if (w > 0) {
			smem_run(c, op, l, flat, pre, tot, n, zm, merged, shift, j, w, rev);
			j += w - 1;
			continue;
		}
		for (int r = 0; r < n; r++) {
			int rep = r & ~(int)merged;
			if (r & zm)
				continue;
			for (int i = 0; i < k; i++) {
				if (ri >= 0)
					part[r].v[i] = tot[r ^ (1 << ri)].v[i];
				else if (rep != r)
					part[r].v[i] = part[rep].v[i];
				else
					part[r].v[i] = cg_shfl_xor(c, tot[r].v[i], 1 << li);
			}
		}
		for (int r = 0; r < n; r++) {
			if (r & zm)
				continue;
			LLVMValueRef set = LLVMBuildICmp(c->b, LLVMIntNE, LLVMBuildAnd(c->b, flat[r], cg_i32c(c, bit), ""),
			                                 cg_i32c(c, 0), "");
			LLVMValueRef later = rev ? LLVMBuildNot(c->b, set, "") : set; /* the partner's block comes first */
			pre[r] = take_part(c, op, pre[r], part[r], later);
			if (!add)
				tot[r] = combine(c, op, select_part(c, later, part[r], tot[r], k),
				                 select_part(c, later, tot[r], part[r], k));
		}
		for (int r = 0; add && r < n; r++)
			if (!(r & zm))
				tot[r] = combine(c, op, tot[r], part[r]);
		if (ri >= 0)
			merged |= 1u << ri;
	}
	c->f->fp_fusion = fusion;
	for (int i = 0; i < k; i++) {
		LLVMValueRef *out = cg_new_regs(c, op->res[i]);
		for (int r = 0; r < n; r++)
			out[r] = pre[r & ~zm].v[i];
	}
}
