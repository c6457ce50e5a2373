/*
 * cg_async.c: the ops of software pipelining (passes/pipeline.c).
 *
 * A ring is `nslots` tiles in a row at the op's smem_offset, each laid out
 * as cg_mma.c lays out a dot operand (row-major, 16-byte chunks swizzled),
 * so local_load reads a slot with the same ldmatrix code as a staged
 * operand.  async_copy moves each thread's runs of v consecutive elements
 * (16 bytes for the tiles the pass picks) with
 *
 *     cp.async.cg.shared.global [slot + swizzle(flat)], [ptr], 16, mask ? 16 : 0;
 *
 * (inline asm on the 32-bit shared address: LLVM 19 selects no cp.async
 * intrinsic once shared pointers are 32-bit, see cg_main.c).
 * A source size of 0 reads nothing and fills the chunk with zeros, which
 * is how masked-off elements become 0.  The swizzle moves whole 16-byte
 * chunks, so a run stays contiguous in shared memory.  async_wait is
 * cp.async.wait_group N followed by bar.sync: after it every thread's
 * copies of the waited groups are visible to all, and every thread has
 * finished reading the slot the copies issued after it will overwrite.
 * The ring itself starts with a barrier where the planner handed it memory
 * that this thread touched since the last one (cg_smem_access); at the top
 * of a kernel it needs none.  Tokens are the constant 0.
 */
#include <stdio.h>

#include "cg.h"

static int32_t slot_bytes(Cg *c, ValId ring)
{
	Type t = vtype(c->f, ring);
	return (int32_t)(type_numel(t) * elem_bytes(t.elem));
}

static Op *ring_op(Cg *c, ValId ring)
{
	Op *r = val(c->f, ring)->def;
	if (!r || r->code != OP_ASYNC_RING)
		die("codegen: %%%d is not an async_ring", ring);
	return r;
}

static int const_operand(Cg *c, Op *op)
{
	Op *d = val(c->f, op->opnds[0])->def;
	if (!d || d->code != OP_CONST)
		die("codegen: %s needs a constant operand", op_info[op->code].text);
	return (int)d->iattr[0];
}

/* Registers per copy: the layout's run, cut to what the pointer's and mask's axis info prove. */
static int copy_width(Cg *c, const Layout *l, ValId ptr, ValId mask, int eb)
{
	Value *p = val(c->f, ptr), *m = val(c->f, mask);
	int v = cg_reg_vec(l, eb);
	while (v > 1 && (p->contig % v || p->divis % (v * eb) || m->constancy % v))
		v /= 2;
	if (v * eb < 4)
		die("codegen: async_copy of %%%d cannot move 4 aligned bytes at once", ptr);
	return v;
}

static LLVMValueRef swizzled(Cg *c, LLVMValueRef flat, int rowbits, int unused)
{
	(void)unused;
	return cg_swizzle(c, flat, rowbits);
}

static void async_copy(Cg *c, Op *op)
{
	ValId ring = op->opnds[0], ptr = op->opnds[2], mask = op->opnds[3];
	Op *rop = ring_op(c, ring);
	const Layout *l = cg_layout(c, ptr);
	Type t = vtype(c->f, ring);
	int eb = elem_bytes(t.elem), v = copy_width(c, l, ptr, mask, eb), bytes = v * eb;
	int rowbits = ilog2((uint64_t)t.shape[1]);
	bool wg = rop->iattr[0] == RING_WGMMA;
	if (!wg && eb != 2)
		die("codegen: a ring of %d-byte elements outside wgmma (ldmatrix takes 16-bit ones)", eb);
	NvName id = bytes == 16 ? NV_ASM_CP_ASYNC_CG_16 : bytes == 8 ? NV_ASM_CP_ASYNC_CA_8 : NV_ASM_CP_ASYNC_CA_4;
	/* where lanes or warps hold the same elements, one of them copies: the copy under predicate $3 */
	LLVMValueRef own = cg_is_owner(c, l);
	char text[96];
	snprintf(text, sizeof text, "%s%s", own ? "@$3 " : "", nv_names[id]);
	LLVMValueRef base = LLVMBuildMul(c->b, c->regs[op->opnds[1]][0], cg_i32c(c, slot_bytes(c, ring)), "");
	CgLin at = wg ? cg_lin(c, l, eb == 1 ? cg_wgmma_offset8 : cg_wgmma_offset, rowbits, (int)t.shape[0])
	              : cg_lin(c, l, swizzled, rowbits, 0);
	uint32_t zm = cg_zeromask(l->reg, l->nreg);
	for (uint32_t r = 0; r < 1u << l->nreg; r += (uint32_t)v) {
		if (r & zm)
			continue;
		uint32_t add;
		LLVMValueRef off = LLVMBuildAdd(c->b, base, cg_lin_at(c, &at, r, &add), "");
		LLVMValueRef size = LLVMBuildSelect(c->b, c->regs[mask][r], cg_i32c(c, bytes), cg_i32c(c, 0), "");
		LLVMValueRef dst = LLVMBuildPtrToInt(c->b, cg_smem_ptr(c, rop->smem_offset + (int32_t)add, off), c->i32, "");
		LLVMValueRef args[4] = {dst, c->regs[ptr][r], size, own};
		cg_asm(c, text, own ? "r,l,r,b,~{memory}" : "r,l,r,~{memory}", LLVMVoidTypeInContext(c->ctx), args,
		       own ? 4 : 3, true);
	}
}

static void token(Cg *c, Op *op)
{
	cg_new_regs(c, op->res[0])[0] = cg_i32c(c, 0);
}

void cg_async(Cg *c, Op *op)
{
	LLVMTypeRef vt = LLVMVoidTypeInContext(c->ctx);
	switch (op->code) {
	case OP_ASYNC_RING:
		cg_smem_access(c, op->smem_offset, op->smem_bytes, true);
		break;
	case OP_ASYNC_COPY:
		async_copy(c, op);
		token(c, op);
		break;
	case OP_ASYNC_COMMIT:
		cg_nv(c, NV_CP_ASYNC_COMMIT, vt, NULL, 0);
		token(c, op);
		break;
	case OP_ASYNC_WAIT: {
		LLVMValueRef n = cg_i32c(c, const_operand(c, op));
		cg_nv(c, NV_CP_ASYNC_WAIT, vt, &n, 1);
		if (c->wgmma)
			cg_asm(c, nv_names[NV_ASM_FENCE_PROXY_ASYNC], "~{memory}", vt, NULL, 0, true);
		cg_barrier(c);
		token(c, op);
		break;
	}
	case OP_LOCAL_LOAD: {
		ValId ring = op->opnds[0];
		LLVMValueRef dyn = LLVMBuildMul(c->b, c->regs[op->opnds[1]][0], cg_i32c(c, slot_bytes(c, ring)), "");
		if (op->iattr[1] & LL_WGMMA) {
			LLVMValueRef p = cg_smem_ptr(c, ring_op(c, ring)->smem_offset, dyn);
			cg_new_regs(c, op->res[0])[0] = LLVMBuildPtrToInt(c->b, p, c->i32, "");
		} else {
			int eb = elem_bytes(vtype(c->f, ring).elem);
			if (eb != 2)
				die("codegen: ldmatrix of a ring of %d-byte elements", eb);
			cg_mma_local_load(c, op->res[0], ring_op(c, ring)->smem_offset, dyn);
		}
		break;
	}
	default:
		die("codegen: '%s' is not an async op", op_info[op->code].text);
	}
}
