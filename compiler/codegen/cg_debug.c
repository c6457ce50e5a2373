/*
 * cg_debug.c: device_print and device_assert, through the CUDA system
 * calls ptxas knows by name, as CUDA C's printf and assert:
 *
 *   vprintf(format, args)   args: the values laid out as C's varargs
 *                           (a struct in local memory: ints as i32 or
 *                           i64, floats as double)
 *   __assertfail(message, file, line, function, char size)
 *
 * A print writes one line per element, from the thread that owns it (the
 * first of its copies), in interp.c's format: "pid (x, y, z) idx (i, j)
 * <text><value>"; a scalar's from thread 0.  The lines of one program
 * come in no particular order.
 */
#include "cg.h"

#include <stdio.h>
#include <string.h>

/* A NUL-terminated string constant in global memory, as a generic pointer. */
static LLVMValueRef string(Cg *c, const char *s)
{
	size_t n = strlen(s) + 1;
	LLVMTypeRef t = LLVMArrayType(c->i8, (unsigned)n);
	LLVMValueRef g = LLVMAddGlobalInAddressSpace(c->mod, t, "str", 1);
	LLVMSetInitializer(g, LLVMConstStringInContext(c->ctx, s, (unsigned)n - 1, 0));
	LLVMSetGlobalConstant(g, 1);
	LLVMSetLinkage(g, LLVMPrivateLinkage);
	LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
	return LLVMConstAddrSpaceCast(g, LLVMPointerTypeInContext(c->ctx, 0));
}

/* The value's format and its varargs form (interp.c's exec_print); hex: the bits of its width */
static const char *value_format(ElemKind e, bool hex)
{
	if (elem_is_float(e))
		return e == TY_F64 ? "%.17g" : "%.9g";
	return e == TY_PTR || hex ? "0x%llx" : "%lld";
}

static LLVMValueRef value_arg(Cg *c, LLVMValueRef x, ElemKind e, bool hex)
{
	LLVMTypeRef dbl = LLVMDoubleTypeInContext(c->ctx);
	if (elem_is_float(e))
		return e == TY_F64 ? x : LLVMBuildFPExt(c->b, cg_to_f32(c, x, e), dbl, "");
	if (e == TY_PTR)
		return LLVMBuildPtrToInt(c->b, x, c->i64, "");
	return hex || e == TY_I1 ? LLVMBuildZExt(c->b, x, c->i64, "") : LLVMBuildSExt(c->b, x, c->i64, "");
}

/*
 * vprintf(format, {vals...}) with the struct in a local slot made in the
 * entry block: one per struct type, which every call of that type reuses
 * (vprintf has read it by the time it returns).
 */
static void vprintf_call(Cg *c, LLVMValueRef format, LLVMValueRef *vals, int n)
{
	LLVMTypeRef ft[8];
	for (int i = 0; i < n; i++)
		ft[i] = LLVMTypeOf(vals[i]);
	LLVMTypeRef st = LLVMStructTypeInContext(c->ctx, ft, (unsigned)n, 0);
	LLVMValueRef slot = NULL;
	for (int i = 0; i < c->nprint_slots && !slot; i++)
		if (LLVMGetAllocatedType(c->print_slots[i]) == st)
			slot = c->print_slots[i];
	if (!slot) {
		slot = LLVMBuildAlloca(c->pre, st, "");
		if (c->nprint_slots < CG_MAX_PRINT_SLOTS)
			c->print_slots[c->nprint_slots++] = slot;
	}
	for (int i = 0; i < n; i++)
		LLVMBuildStore(c->b, vals[i], LLVMBuildStructGEP2(c->b, st, slot, (unsigned)i, ""));
	LLVMValueRef args[2] = {format, slot};
	cg_call(c, "vprintf", c->i32, args, 2);
}

void cg_print(Cg *c, Op *op)
{
	LLVMValueRef pid[3];
	static const NvName ids[3] = {NV_CTAID_X, NV_CTAID_Y, NV_CTAID_Z};
	for (int d = 0; d < 3; d++)
		pid[d] = cg_nv(c, ids[d], c->i32, NULL, 0);
	for (int k = 0; k < op->nopnds; k++) {
		ValId v = op->opnds[k];
		Type t = vtype(c->f, v);
		size_t cap = 2 * strlen(op->sattr) + 128;
		char *fmt = NEWN(c->f->arena, char, cap);
		int len = snprintf(fmt, cap, "pid (%%d, %%d, %%d) idx (");
		for (int d = 0; d < t.rank; d++)
			len += snprintf(fmt + len, cap - (size_t)len, "%s%%d", d ? ", " : "");
		len += snprintf(fmt + len, cap - (size_t)len, ") ");
		for (const char *s = op->sattr; *s; s++) { /* the text as it is: % doubled */
			if (*s == '%')
				fmt[len++] = '%';
			fmt[len++] = *s;
		}
		fmt[len] = 0;
		if (op->nopnds > 1)
			len += snprintf(fmt + len, cap - (size_t)len, "(operand %d) ", k);
		snprintf(fmt + len, cap - (size_t)len, "%s\n", value_format(t.elem, op->iattr[0] != 0));
		LLVMValueRef format = string(c, fmt), vals[3 + MAX_RANK + 1];
		memcpy(vals, pid, sizeof pid);
		const Layout *l = cg_layout(c, v);
		if (!l) {
			LLVMBasicBlockRef after = cg_when(c, LLVMBuildICmp(c->b, LLVMIntEQ, c->tid, cg_i32c(c, 0), ""));
			vals[3] = value_arg(c, c->regs[v][0], t.elem, op->iattr[0] != 0);
			vprintf_call(c, format, vals, 4);
			cg_owner_end(c, after);
			continue;
		}
		LLVMValueRef ti = cg_thread_index(c, l);
		uint32_t zm = cg_zeromask(l->reg, l->nreg);
		LLVMBasicBlockRef after = cg_owner_begin(c, l);
		for (uint32_t r = 0; r < 1u << l->nreg; r++) {
			if (r & zm)
				continue;
			LLVMValueRef flat = cg_flat_index(c, l, ti, r);
			int shift = 0; /* the flat index's field of axis d, last axis lowest */
			for (int d = t.rank - 1; d >= 0; d--) {
				LLVMValueRef at = LLVMBuildLShr(c->b, flat, cg_i32c(c, shift), "");
				vals[3 + d] = LLVMBuildAnd(c->b, at, cg_i32c(c, t.shape[d] - 1), "");
				shift += ilog2((uint64_t)t.shape[d]);
			}
			vals[3 + t.rank] = value_arg(c, c->regs[v][r], t.elem, op->iattr[0] != 0);
			vprintf_call(c, format, vals, 4 + t.rank);
		}
		cg_owner_end(c, after);
	}
}

/* Each owner of a false element calls __assertfail, which stops the kernel with the message. */
void cg_assert(Cg *c, Op *op)
{
	ValId v = op->opnds[0];
	const Layout *l = cg_layout(c, v);
	uint32_t zm = l ? cg_zeromask(l->reg, l->nreg) : 0;
	LLVMValueRef args[5] = {string(c, op->sattr), string(c, c->file), cg_i32c(c, op->loc.line),
	                        string(c, c->f->name ? c->f->name : "kernel"), LLVMConstInt(c->i64, 1, 0)};
	LLVMBasicBlockRef owned = l ? cg_owner_begin(c, l) : NULL;
	for (uint32_t r = 0; r < (l ? 1u << l->nreg : 1u); r++) {
		if (r & zm)
			continue;
		LLVMBasicBlockRef after = cg_when(c, LLVMBuildNot(c->b, c->regs[v][r], ""));
		cg_call(c, "__assertfail", LLVMVoidTypeInContext(c->ctx), args, 5);
		cg_owner_end(c, after);
	}
	cg_owner_end(c, owned);
}
