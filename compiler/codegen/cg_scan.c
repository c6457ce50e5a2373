/*
 * cg_scan.c: cumsum along one axis, as a merge over the bits of the
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
 *    shared memory, every element's tot at its flat index, then a read at
 *    the flat index with the bit flipped; cg_smem_access puts the barriers.
 *
 * Registers that differ only in bits already merged share one tot, so the
 * shuffles and shared loads are made once for them.  The order of the adds
 * depends only on the positions, not on the layout, and the interpreter
 * makes the same ones (exec_cumsum): float results agree bit for bit.
 */
#include "cg.h"

/* Every element's tot at its flat index in scratch, by the owners of l's elements. */
static void write_tots(Cg *c, Op *op, const Layout *l, LLVMValueRef *flat, LLVMValueRef *tot, int n, uint32_t zm,
		       ElemKind e)
{
	cg_smem_access(c, op->smem_offset, op->smem_bytes, true);
	LLVMBasicBlockRef after = cg_owner_begin(c, l);
	for (int r = 0; r < n; r++) {
		if (r & zm)
			continue;
		LLVMValueRef off = LLVMBuildMul(c->b, flat[r], cg_i32c(c, elem_bytes(e)), "");
		LLVMBuildStore(c->b, tot[r], cg_smem_ptr(c, op->smem_offset, off));
	}
	cg_owner_end(c, after);
}

void cg_scan(Cg *c, Op *op)
{
	ValId src = op->opnds[0], res = op->res[0];
	Type t = vtype(c->f, src);
	int axis = (int)op->iattr[0];
	bool rev = op->iattr[1] != 0;
	ElemKind e = t.elem;
	int shift = 0;
	for (int d = t.rank - 1; d > axis; d--)
		shift += ilog2((uint64_t)t.shape[d]);
	int bits = ilog2((uint64_t)t.shape[axis]);
	const Layout *l = cg_layout(c, src);
	int n = cg_nregs(c, src);
	uint32_t zm = cg_zeromask(l->reg, l->nreg), merged = 0; /* register bits merged so far */
	LLVMValueRef ti = cg_thread_index(c, l);
	LLVMValueRef *flat = NEWN(c->f->arena, LLVMValueRef, n), *pre = NEWN(c->f->arena, LLVMValueRef, n);
	LLVMValueRef *tot = NEWN(c->f->arena, LLVMValueRef, n), *part = NEWN(c->f->arena, LLVMValueRef, n);
	for (int r = 0; r < n; r++) {
		flat[r] = cg_flat_index(c, l, ti, (uint32_t)r);
		pre[r] = tot[r] = c->regs[src][r];
	}
	LLVMTypeRef mt = cg_mem_type(c, e);
	bool fusion = c->f->fp_fusion;
	c->f->fp_fusion = false; /* adds only, in the interpreter's order */
	for (int j = 0; j < bits; j++) {
		uint32_t bit = 1u << (shift + j);
		int ri = layout_column(l->reg, l->nreg, bit), li = ri < 0 ? layout_column(l->lane, l->nlane, bit) : -1;
		if (ri < 0 && li < 0) {
			if (op->smem_bytes < type_numel(t) * elem_bytes(e))
				die("codegen: cumsum has %d bytes of scratch, needs %lld", op->smem_bytes,
				    (long long)(type_numel(t) * elem_bytes(e)));
			write_tots(c, op, l, flat, tot, n, zm, e);
			cg_smem_access(c, op->smem_offset, op->smem_bytes, false);
		}
		for (int r = 0; r < n; r++) {
			int rep = r & ~(int)merged;
			if (r & zm)
				continue;
			if (ri >= 0)
				part[r] = tot[r ^ (1 << ri)];
			else if (rep != r)
				part[r] = part[rep];
			else if (li >= 0)
				part[r] = cg_shfl_xor(c, tot[r], 1 << li);
			else {
				LLVMValueRef at = LLVMBuildXor(c->b, flat[r], cg_i32c(c, bit), "");
				LLVMValueRef off = LLVMBuildMul(c->b, at, cg_i32c(c, elem_bytes(e)), "");
				part[r] = LLVMBuildLoad2(c->b, mt, cg_smem_ptr(c, op->smem_offset, off), "");
			}
		}
		for (int r = 0; r < n; r++) {
			if (r & zm)
				continue;
			LLVMValueRef set = LLVMBuildICmp(c->b, LLVMIntNE, LLVMBuildAnd(c->b, flat[r], cg_i32c(c, bit), ""),
			                                 cg_i32c(c, 0), "");
			LLVMValueRef take = rev ? LLVMBuildNot(c->b, set, "") : set;
			pre[r] = LLVMBuildSelect(c->b, take, cg_binary(c, OP_ADD, e, pre[r], part[r]), pre[r], "");
		}
		for (int r = 0; r < n; r++)
			if (!(r & zm))
				tot[r] = cg_binary(c, OP_ADD, e, tot[r], part[r]);
		if (ri >= 0)
			merged |= 1u << ri;
	}
	c->f->fp_fusion = fusion;
	LLVMValueRef *out = cg_new_regs(c, res);
	for (int r = 0; r < n; r++)
		out[r] = pre[r & ~zm];
}
