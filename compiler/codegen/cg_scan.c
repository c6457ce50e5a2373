/*
 * cg_scan.c: cumsum along one axis, through shared memory, for any layout.
 *
 * Every element goes to scratch at its flat index; then, for d = 1, 2, 4,
 * ... below the axis's length, each thread reads for each of its elements
 * the one d places back along the axis (d places on, reversed) and adds it
 * to its running value, and writes the running values back for the next
 * step (Hillis and Steele's scan).  All reads of a step come before any
 * write of it: cg_smem_access puts a bar.sync between the two phases and
 * between steps.  The running values stay in registers in the source's
 * layout, which is the result's.  log2(n) steps of one shared load and one
 * store per element: simple, and for the tiles a kernel scans (a few
 * thousand elements) a small part of its time.  The interpreter adds in
 * the same order (exec_cumsum), so float results agree bit for bit.
 */
#include "cg.h"

/* Element registers of v, one per element: the writes of the owners of l's elements. */
static void write_all(Cg *c, Op *op, const Layout *l, LLVMValueRef *flat, LLVMValueRef *v, int n, uint32_t zm,
		      ElemKind e)
{
	int32_t eb = elem_bytes(e);
	cg_smem_access(c, op->smem_offset, op->smem_bytes, true);
	LLVMBasicBlockRef after = cg_owner_begin(c, l);
	for (int r = 0; r < n; r++) {
		if (r & zm)
			continue;
		LLVMValueRef off = LLVMBuildMul(c->b, flat[r], cg_i32c(c, eb), "");
		LLVMBuildStore(c->b, v[r], cg_smem_ptr(c, op->smem_offset, off));
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
	int32_t len = t.shape[axis];
	const Layout *l = cg_layout(c, src);
	int n = cg_nregs(c, src);
	int64_t need = type_numel(t) * elem_bytes(e);
	if (op->smem_bytes < need)
		die("codegen: cumsum has %d bytes of scratch, needs %lld", op->smem_bytes, (long long)need);
	uint32_t zm = cg_zeromask(l->reg, l->nreg);
	LLVMValueRef ti = cg_thread_index(c, l);
	LLVMValueRef *flat = NEWN(c->f->arena, LLVMValueRef, n), *pos = NEWN(c->f->arena, LLVMValueRef, n);
	LLVMValueRef *v = NEWN(c->f->arena, LLVMValueRef, n);
	for (int r = 0; r < n; r++) {
		flat[r] = cg_flat_index(c, l, ti, (uint32_t)r);
		pos[r] = LLVMBuildAnd(c->b, LLVMBuildLShr(c->b, flat[r], cg_i32c(c, shift), ""), cg_i32c(c, len - 1), "");
		v[r] = c->regs[src][r];
	}
	LLVMTypeRef mt = cg_mem_type(c, e);
	bool fusion = c->f->fp_fusion;
	c->f->fp_fusion = false; /* adds only; nothing to contract, and the interpreter's order */
	for (int32_t d = 1; d < len; d *= 2) {
		write_all(c, op, l, flat, v, n, zm, e);
		cg_smem_access(c, op->smem_offset, op->smem_bytes, false);
		for (int r = 0; r < n; r++) {
			if (r & zm)
				continue;
			LLVMValueRef ok = rev ? LLVMBuildICmp(c->b, LLVMIntULT, pos[r], cg_i32c(c, len - d), "")
			                      : LLVMBuildICmp(c->b, LLVMIntUGE, pos[r], cg_i32c(c, d), "");
			LLVMValueRef step = cg_i32c(c, (int64_t)d << shift);
			LLVMValueRef other = rev ? LLVMBuildAdd(c->b, flat[r], step, "") : LLVMBuildSub(c->b, flat[r], step, "");
			LLVMValueRef at = LLVMBuildSelect(c->b, ok, other, flat[r], "");
			LLVMValueRef off = LLVMBuildMul(c->b, at, cg_i32c(c, elem_bytes(e)), "");
			LLVMValueRef x = LLVMBuildLoad2(c->b, mt, cg_smem_ptr(c, op->smem_offset, off), "");
			v[r] = LLVMBuildSelect(c->b, ok, cg_binary(c, OP_ADD, e, v[r], x), v[r], "");
		}
	}
	c->f->fp_fusion = fusion;
	LLVMValueRef *out = cg_new_regs(c, res);
	for (int r = 0; r < n; r++)
		out[r] = v[r & ~zm];
}
