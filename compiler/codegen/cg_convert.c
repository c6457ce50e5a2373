/*
 * cg_convert.c: layout changes.
 *
 * expand_dims, broadcast and trans change only how register bits are read
 * (contract: registers map 1:1), so the result shares the source's array.
 *
 * convert_layout between layouts that hold every element in the same thread
 * (layout_same_threads) renames registers.  Otherwise it goes through the
 * op's shared-memory scratch as a row-major copy of the whole tile:
 *
 *     bar.sync 0;  smem[off + flat(src reg r) * eb] = x[r]  (canonical r; owner only)
 *     bar.sync 0;  y[r'] = smem[off + flat(dst reg r') * eb]
 *
 * The first barrier protects a buffer the planner reused; runs of
 * consecutive registers on consecutive elements move as one vector access.
 *
 * A convert whose only user is a later dot in the same block is left
 * pending: cg_dot writes both operand tiles at once and reads each element
 * from shared memory as it needs it (Triton's dot operands in shared
 * memory), instead of holding a K-wide slice of both operands in registers
 * across the whole product.
 */
#include "cg.h"

void cg_rename(Cg *c, Op *op)
{
	ValId src = op->opnds[0], res = op->res[0];
	if (cg_nregs(c, src) != cg_nregs(c, res))
		die("codegen: %s of %%%d changes the register count", op_info[op->code].text, src);
	c->regs[res] = c->regs[src];
}

static LLVMValueRef times(Cg *c, LLVMValueRef flat, int eb, int unused)
{
	(void)unused;
	return LLVMBuildMul(c->b, flat, cg_i32c(c, eb), "");
}

/* Address of register r's element: (thread index ^ register part) * eb. */
static LLVMValueRef elem_ptr(Cg *c, int32_t offset, const CgLin *at, uint32_t r)
{
	uint32_t add;
	LLVMValueRef byte = cg_lin_at(c, at, r, &add);
	return cg_smem_ptr(c, offset + (int32_t)add, byte);
}

/*
 * Every canonical register of v to its row-major place at offset.  Where
 * lanes or warps hold the same elements only the owner writes them (the
 * others would store the same bytes: a race, if a harmless one).
 */
static void write_tile(Cg *c, int32_t offset, ValId v, ElemKind e)
{
	const Layout *l = cg_layout(c, v);
	int eb = elem_bytes(e), vec = cg_reg_vec(l, eb);
	uint32_t zm = cg_zeromask(l->reg, l->nreg);
	LLVMTypeRef mt = cg_mem_type(c, e);
	CgLin at = cg_smem_lin(c, v);
	LLVMBasicBlockRef after = cg_owner_begin(c, l);
	for (uint32_t r = 0; r < 1u << l->nreg; r += (uint32_t)vec) {
		if (r & zm)
			continue;
		LLVMValueRef x = cg_to_mem(c, c->regs[v][r], e);
		if (vec > 1) {
			x = LLVMGetUndef(LLVMVectorType(mt, (unsigned)vec));
			for (int j = 0; j < vec; j++)
				x = LLVMBuildInsertElement(c->b, x, cg_to_mem(c, c->regs[v][r + (uint32_t)j], e),
				                           cg_i32c(c, j), "");
		}
		LLVMSetAlignment(LLVMBuildStore(c->b, x, elem_ptr(c, offset, &at, r)), (unsigned)(vec * eb));
	}
	cg_owner_end(c, after);
}

CgLin cg_smem_lin(Cg *c, ValId v)
{
	return cg_lin(c, cg_layout(c, v), times, elem_bytes(vtype(c->f, v).elem), 0);
}

void cg_smem_read(Cg *c, ValId v, int32_t offset, const CgLin *at, uint32_t r, int vec, LLVMValueRef *out)
{
	ElemKind e = vtype(c->f, v).elem;
	int eb = elem_bytes(e);
	LLVMTypeRef mt = cg_mem_type(c, e), t = vec > 1 ? LLVMVectorType(mt, (unsigned)vec) : mt;
	LLVMValueRef x = LLVMBuildLoad2(c->b, t, elem_ptr(c, offset, at, r), "");
	LLVMSetAlignment(x, (unsigned)(vec * eb));
	for (int j = 0; j < vec; j++)
		out[j] = cg_from_mem(c, vec > 1 ? LLVMBuildExtractElement(c->b, x, cg_i32c(c, j), "") : x, e);
}

/* Every canonical register of v from offset. */
static void read_tile(Cg *c, int32_t offset, ValId v)
{
	const Layout *l = cg_layout(c, v);
	int vec = cg_reg_vec(l, elem_bytes(vtype(c->f, v).elem));
	uint32_t zm = cg_zeromask(l->reg, l->nreg);
	LLVMValueRef *out = cg_new_regs(c, v);
	CgLin at = cg_smem_lin(c, v);
	for (uint32_t r = 0; r < 1u << l->nreg; r += (uint32_t)vec)
		if (!(r & zm))
			cg_smem_read(c, v, offset, &at, r, vec, out + r);
	cg_fill_dups(c, v);
}

/* The only use of op's result is a dot later in this block, with no region in between. */
static bool feeds_dot(Cg *c, Op *op)
{
	ValId res = op->res[0];
	if (val(c->f, res)->nuses != 1)
		return false;
	for (Op *q = op->next; q; q = q->next) {
		if (q->code == OP_DOT)
			return q->opnds[0] == res || q->opnds[1] == res;
		if (q->nblocks)
			return false;
	}
	return false;
}

void cg_convert_write(Cg *c, ValId v, int32_t offset)
{
	Op *op = c->pending[v];
	write_tile(c, offset, op->opnds[0], vtype(c->f, v).elem);
	c->pending[v] = NULL;
}

void cg_convert_read(Cg *c, ValId v, int32_t offset)
{
	read_tile(c, offset, v);
}

/* res's register r' is src's register holding the same element. */
static void rename_regs(Cg *c, ValId src, ValId res)
{
	const Layout *ls = cg_layout(c, src), *lr = cg_layout(c, res);
	uint32_t n = 1u << ls->nreg;
	LLVMValueRef *byidx = NEWN(c->f->arena, LLVMValueRef, (int64_t)type_numel(vtype(c->f, src)));
	for (uint32_t r = 0; r < n; r++)
		byidx[cg_reg_index(ls, r)] = c->regs[src][r];
	LLVMValueRef *out = cg_new_regs(c, res);
	for (uint32_t r = 0; r < n; r++)
		out[r] = byidx[cg_reg_index(lr, r)];
}

void cg_convert_layout(Cg *c, Op *op)
{
	ValId src = op->opnds[0], res = op->res[0];
	ElemKind e = vtype(c->f, res).elem;
	if (!cg_layout(c, src)) {
		c->regs[res] = c->regs[src];
		return;
	}
	if (layout_same_threads(cg_layout(c, src), cg_layout(c, res))) {
		rename_regs(c, src, res);
		return;
	}
	int64_t need = type_numel(vtype(c->f, res)) * elem_bytes(e);
	if (op->smem_bytes < need)
		die("codegen: convert_layout %%%d has %d bytes of scratch, needs %lld", res, op->smem_bytes,
		    (long long)need);
	if (feeds_dot(c, op)) {
		c->pending[res] = op;
		return;
	}
	cg_smem_access(c, op->smem_offset, op->smem_bytes, true);
	write_tile(c, op->smem_offset, src, e);
	cg_smem_access(c, op->smem_offset, op->smem_bytes, false);
	read_tile(c, op->smem_offset, res);
}
