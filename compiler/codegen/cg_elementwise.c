/*
 * cg_elementwise.c: constants, splat, arange, program ids and every
 * element-wise op, one LLVM instruction (or intrinsic) per canonical
 * register.  Operands and result share one layout (contract), so register r
 * of the result needs register r of each operand and nothing else.
 *
 * Math follows Triton: exp(x) = ex2.approx.ftz(x * log2 e) (f32 results
 * below 2^-126 are 0, in the interpreter too), log(x) =
 * lg2.approx(x) * ln 2, sqrt is sqrt.rn (IEEE), rsqrt is rsqrt.approx,
 * division is div.full.f32 (div_rn: IEEE fdiv); sin, cos, tanh and erf are tilec's own (cg_math.c),
 * log1p, expm1, pow, atan and atan2 too; floor, ceil, trunc, rint exact (cvt.rmi,
 * cvt.rpi, cvt.rzi, cvt.rni), round as LLVM expands it, fma one fma.rn.  f16 and bf16 are computed in f32 and rounded back
 * after every op (cvt.rn), which is what the interpreter does; for + - * /
 * this equals native half arithmetic since f32 holds twice the bits plus two.
 */
#include <stdio.h>

#include "cg.h"

static void fill(Cg *c, Op *op, LLVMValueRef x)
{
	LLVMValueRef *r = cg_new_regs(c, op->res[0]);
	for (int i = 0; i < cg_nregs(c, op->res[0]); i++)
		r[i] = x;
}

void cg_const(Cg *c, Op *op)
{
	ElemKind e = vtype(c->f, op->res[0]).elem;
	LLVMTypeRef t = cg_elem_type(c, e);
	LLVMValueRef x;
	if (elem_is_float(e))
		x = LLVMConstReal(t, op->fattr);
	else if (elem_is_f8(e))
		x = LLVMConstInt(t, f8_bits(e, op->fattr), 0);
	else if (e == TY_PTR)
		x = LLVMConstNull(t);
	else
		x = LLVMConstInt(t, (unsigned long long)(e == TY_I1 ? op->iattr[0] & 1 : op->iattr[0]), 1);
	fill(c, op, x);
}

void cg_splat(Cg *c, Op *op)
{
	fill(c, op, c->regs[op->opnds[0]][0]);
}

void cg_arange(Cg *c, Op *op)
{
	ValId v = op->res[0];
	const Layout *l = cg_layout(c, v);
	LLVMValueRef *r = cg_new_regs(c, v);
	LLVMValueRef ti = cg_thread_index(c, l);
	LLVMTypeRef t = cg_elem_type(c, vtype(c->f, v).elem);
	uint32_t zm = cg_zeromask(l->reg, l->nreg);
	for (uint32_t i = 0; i < 1u << l->nreg; i++) {
		if (i & zm)
			continue;
		LLVMValueRef x = cg_flat_index(c, l, ti, i);
		if (op->iattr[0])
			x = LLVMBuildAdd(c->b, x, cg_i32c(c, op->iattr[0]), "");
		r[i] = t == c->i32 ? x : LLVMBuildSExt(c->b, x, t, "");
	}
	cg_fill_dups(c, v);
}

void cg_program_info(Cg *c, Op *op)
{
	static const NvName ids[2][3] = {{NV_CTAID_X, NV_CTAID_Y, NV_CTAID_Z},
	                                 {NV_NCTAID_X, NV_NCTAID_Y, NV_NCTAID_Z}};
	int axis = (int)op->iattr[0];
	if (axis < 0 || axis > 2)
		die("codegen: program axis %d", axis);
	LLVMValueRef x = cg_nv(c, ids[op->code == OP_NUM_PROGRAMS][axis], c->i32, NULL, 0);
	LLVMTypeRef t = cg_elem_type(c, vtype(c->f, op->res[0]).elem);
	fill(c, op, t == c->i32 ? x : LLVMBuildSExt(c->b, x, t, ""));
}

/* ---- floats ---- */

static bool is_half(ElemKind e) { return e == TY_F16 || e == TY_BF16; }

LLVMValueRef cg_to_f32(Cg *c, LLVMValueRef v, ElemKind e)
{
	return is_half(e) ? LLVMBuildFPExt(c->b, v, c->f32, "") : v;
}

LLVMValueRef cg_from_f32(Cg *c, LLVMValueRef v, ElemKind e)
{
	return is_half(e) ? LLVMBuildFPTrunc(c->b, v, cg_elem_type(c, e), "") : v;
}

static LLVMValueRef intrinsic1(Cg *c, const char *base, LLVMValueRef x)
{
	char name[64];
	LLVMTypeRef t = LLVMTypeOf(x);
	const char *suffix = t == c->f32 ? "f32" : t == c->i32 ? "i32" : t == c->i64 ? "i64"
	                   : t == c->i16 ? "i16" : t == c->i8 ? "i8" : "f64";
	snprintf(name, sizeof name, "llvm.%s.%s", base, suffix);
	return cg_call(c, name, t, &x, 1);
}

static LLVMValueRef intrinsic2(Cg *c, const char *base, LLVMValueRef x, LLVMValueRef y)
{
	char name[64];
	LLVMTypeRef t = LLVMTypeOf(x);
	const char *suffix = t == c->f32 ? "f32" : t == c->i32 ? "i32" : t == c->i64 ? "i64"
	                   : t == c->i16 ? "i16" : t == c->i8 ? "i8" : "f64";
	snprintf(name, sizeof name, "llvm.%s.%s", base, suffix);
	LLVMValueRef a[2] = {x, y};
	return cg_call(c, name, t, a, 2);
}

/* x in f32 or f64 */
static LLVMValueRef float_unary(Cg *c, Opcode code, LLVMValueRef x)
{
	bool d = LLVMTypeOf(x) != c->f32;
	LLVMTypeRef t = LLVMTypeOf(x);
	switch (code) {
	case OP_NEG: return LLVMBuildFNeg(c->b, x, "");
	case OP_ABS: return intrinsic1(c, "fabs", x);
	case OP_EXP:
		x = LLVMBuildFMul(c->b, x, LLVMConstReal(t, 1.4426950408889634), "");
		return cg_nv(c, d ? NV_EX2_F64 : NV_EX2_F32, t, &x, 1);
	case OP_EXP2: return cg_nv(c, d ? NV_EX2_F64 : NV_EX2_F32, t, &x, 1);
	case OP_LOG:
		x = cg_nv(c, d ? NV_LG2_F64 : NV_LG2_F32, t, &x, 1);
		return LLVMBuildFMul(c->b, x, LLVMConstReal(t, 0.6931471805599453), "");
	case OP_LOG2: return cg_nv(c, d ? NV_LG2_F64 : NV_LG2_F32, t, &x, 1);
	case OP_SQRT: return cg_nv(c, d ? NV_SQRT_F64 : NV_SQRT_F32, t, &x, 1);
	case OP_RSQRT: return cg_nv(c, d ? NV_RSQRT_F64 : NV_RSQRT_F32, t, &x, 1);
	case OP_FLOOR: return intrinsic1(c, "floor", x);
	case OP_CEIL: return intrinsic1(c, "ceil", x);
	case OP_TRUNC: return intrinsic1(c, "trunc", x);
	case OP_RINT: return intrinsic1(c, "rint", x);
	case OP_ROUND: return intrinsic1(c, "round", x);
	case OP_LOG1P: return cg_log1p(c, x);
	case OP_EXPM1: return cg_expm1(c, x);
	case OP_ATAN: return cg_atan(c, x);
	case OP_SIN: return cg_sin_cos(c, x, false);
	case OP_COS: return cg_sin_cos(c, x, true);
	case OP_TANH: return cg_tanh(c, x);
	case OP_ERF: return cg_erf(c, x);
	default: die("codegen: '%s' on a float", op_info[code].text);
	}
}

static LLVMValueRef int_unary(Cg *c, Opcode code, LLVMValueRef x)
{
	switch (code) {
	case OP_NEG: return LLVMBuildNeg(c->b, x, "");
	case OP_NOT: return LLVMBuildNot(c->b, x, "");
	case OP_ABS: {
		if (LLVMTypeOf(x) == c->i1)
			return x;
		LLVMValueRef a[2] = {x, LLVMConstInt(c->i1, 0, 0)};
		char name[32];
		snprintf(name, sizeof name, "llvm.abs.i%u", LLVMGetIntTypeWidth(LLVMTypeOf(x)));
		return cg_call(c, name, LLVMTypeOf(x), a, 2);
	}
	default: die("codegen: '%s' on an integer", op_info[code].text);
	}
}

/*
 * With the kernel's fp_fusion (the default, as Triton's enable_fp_fusion), a
 * multiply and the add or subtract of its result may become one fma: LLVM's
 * `contract`.  Each op is still rounded on its own in the interpreter.
 */
static LLVMValueRef contract(Cg *c, LLVMValueRef x)
{
	if (c->f->fp_fusion && LLVMIsAInstruction(x))
		LLVMSetFastMathFlags(x, LLVMFastMathAllowContract);
	return x;
}

static LLVMValueRef float_binary(Cg *c, Opcode code, LLVMValueRef a, LLVMValueRef b)
{
	switch (code) {
	case OP_ADD: return contract(c, LLVMBuildFAdd(c->b, a, b, ""));
	case OP_SUB: return contract(c, LLVMBuildFSub(c->b, a, b, ""));
	case OP_MUL: return contract(c, LLVMBuildFMul(c->b, a, b, ""));
	case OP_DIV: return LLVMBuildFDiv(c->b, a, b, "");
	case OP_REM: return cg_fmod(c, a, b);
	case OP_POW: return cg_pow(c, a, b);
	case OP_ATAN2: return cg_atan2(c, a, b);
	case OP_MAX: return intrinsic2(c, "maximum", a, b);
	case OP_MIN: return intrinsic2(c, "minimum", a, b);
	default: die("codegen: '%s' on floats", op_info[code].text);
	}
}

static LLVMValueRef int_binary(Cg *c, Opcode code, LLVMValueRef a, LLVMValueRef b)
{
	bool bit = LLVMTypeOf(a) == c->i1;
	switch (code) {
	/* signed overflow is undefined on the GPU, as for C's int: `nsw` lets
	 * LLVM fold constant offsets into addresses (base + 4096, not a 64-bit
	 * multiply per element) */
	case OP_ADD: return bit ? LLVMBuildXor(c->b, a, b, "") : LLVMBuildNSWAdd(c->b, a, b, "");
	case OP_SUB: return bit ? LLVMBuildXor(c->b, a, b, "") : LLVMBuildNSWSub(c->b, a, b, "");
	case OP_MUL: return bit ? LLVMBuildAnd(c->b, a, b, "") : LLVMBuildNSWMul(c->b, a, b, "");
	case OP_DIV: return LLVMBuildSDiv(c->b, a, b, "");
	case OP_REM: return LLVMBuildSRem(c->b, a, b, "");
	case OP_AND: return LLVMBuildAnd(c->b, a, b, "");
	case OP_OR: return LLVMBuildOr(c->b, a, b, "");
	case OP_XOR: return LLVMBuildXor(c->b, a, b, "");
	case OP_SHL: return LLVMBuildShl(c->b, a, b, "");
	case OP_SHR: return LLVMBuildAShr(c->b, a, b, "");
	case OP_MAX: return bit ? LLVMBuildOr(c->b, a, b, "") : intrinsic2(c, "smax", a, b);
	case OP_MIN: return bit ? LLVMBuildAnd(c->b, a, b, "") : intrinsic2(c, "smin", a, b);
	default: die("codegen: '%s' on integers", op_info[code].text);
	}
}

LLVMValueRef cg_binary(Cg *c, Opcode code, ElemKind e, LLVMValueRef a, LLVMValueRef b)
{
	if (!elem_is_float(e))
		return int_binary(c, code, a, b);
	LLVMValueRef ab[2] = {cg_to_f32(c, a, e), cg_to_f32(c, b, e)}, x;
	if ((code == OP_MAX || code == OP_MIN) && (e == TY_F16 || e == TY_BF16))
		/*
		 * max.NaN.f32 between conversions, as inline PTX, which LLVM
		 * does not narrow to max.NaN.f16 as it does llvm.maximum:
		 * ptxas (CUDA 13.0, -O3) fuses f16 ones into 3-input VHMNMX
		 * and packed HMNMX2, and made a 512-element scan of them
		 * wrong on the H100 (bench/scan_probe2.py, gpu_test scan16).
		 */
		x = cg_asm(c, nv_names[code == OP_MAX ? NV_ASM_MAX_NAN_F32 : NV_ASM_MIN_NAN_F32], "=f,f,f", c->f32, ab, 2,
			   false);
	else
		x = float_binary(c, code, ab[0], ab[1]);
	return cg_from_f32(c, x, e);
}

static LLVMValueRef compare(Cg *c, CmpPred p, ElemKind e, LLVMValueRef a, LLVMValueRef b)
{
	static const LLVMRealPredicate fp[] = {LLVMRealOEQ, LLVMRealUNE, LLVMRealOLT, LLVMRealOLE,
	                                       LLVMRealOGT, LLVMRealOGE};
	static const LLVMIntPredicate sp[] = {LLVMIntEQ, LLVMIntNE, LLVMIntSLT, LLVMIntSLE, LLVMIntSGT, LLVMIntSGE};
	static const LLVMIntPredicate up[] = {LLVMIntEQ, LLVMIntNE, LLVMIntULT, LLVMIntULE, LLVMIntUGT, LLVMIntUGE};
	if ((unsigned)p > CMP_GE)
		die("codegen: compare predicate %d", p);
	if (elem_is_float(e))
		return LLVMBuildFCmp(c->b, fp[p], cg_to_f32(c, a, e), cg_to_f32(c, b, e), "");
	return LLVMBuildICmp(c->b, (e == TY_I1 || e == TY_PTR) ? up[p] : sp[p], a, b, "");
}

/*
 * x (f32 or f64) about to be rounded to the 16-bit type t, behind an
 * opaque move where LLVM 19's instcombine would narrow its op wrongly: it
 * narrows fptrunc(op(fpext a, fpext b)) to the type a and b came from even
 * where that is the *other* 16-bit type, then "casts" with a bitcast (f16
 * bits read as bf16, or bf16 values rounded to f16 before the op, or a
 * failed selection).  Where a, b and t are one type, the narrowing is
 * exact and stays.  (A float % is cg_fmod's loop, never an frem.)  ptxas
 * drops the move.
 */
static LLVMValueRef guard_rounding(Cg *c, LLVMValueRef x, LLVMTypeRef t)
{
	if (!LLVMIsAInstruction(x))
		return x;
	LLVMOpcode o = LLVMGetInstructionOpcode(x);
	if (o != LLVMFAdd && o != LLVMFSub && o != LLVMFMul && o != LLVMFDiv)
		return x;
	bool hide = false;
	for (int i = 0; i < 2; i++) {
		LLVMTypeRef s = cg_widened_from(LLVMGetOperand(x, (unsigned)i));
		bool half = s && (LLVMGetTypeKind(s) == LLVMHalfTypeKind || LLVMGetTypeKind(s) == LLVMBFloatTypeKind);
		hide |= half && s != t;
	}
	if (!hide)
		return x;
	bool d = LLVMTypeOf(x) != c->f32;
	return cg_asm(c, nv_names[d ? NV_ASM_MOV_F64 : NV_ASM_MOV_F32], d ? "=d,d" : "=f,f", LLVMTypeOf(x), &x, 1,
		      false);
}

/*
 * fp8 goes to f16 exactly (cvt.rn.f16x2 of the byte, the low half of the
 * pair) and from there on as f16 does; everything goes to fp8 through f32
 * (cvt.rn.satfinite of the f32 twice, one byte kept), as the interpreter's
 * f8_round has it.
 */
static LLVMValueRef from_f8(Cg *c, ElemKind from, ElemKind to, LLVMValueRef x)
{
	LLVMValueRef b = LLVMBuildZExt(c->b, x, c->i16, "");
	LLVMValueRef p = cg_asm(c, nv_names[from == TY_F8E4M3 ? NV_ASM_CVT_F16X2_E4M3 : NV_ASM_CVT_F16X2_E5M2], "=r,h",
	                        c->i32, &b, 1, false);
	LLVMValueRef h = LLVMBuildBitCast(c->b, LLVMBuildTrunc(c->b, p, c->i16, ""), LLVMHalfTypeInContext(c->ctx), "");
	return cg_cast(c, TY_F16, to, h);
}

static LLVMValueRef to_f8(Cg *c, ElemKind from, ElemKind to, LLVMValueRef x)
{
	LLVMValueRef f = cg_cast(c, from, TY_F32, x), ab[2] = {f, f};
	LLVMValueRef p = cg_asm(c, nv_names[to == TY_F8E4M3 ? NV_ASM_CVT_E4M3X2_F32 : NV_ASM_CVT_E5M2X2_F32], "=h,f,f",
	                        c->i16, ab, 2, false);
	return LLVMBuildTrunc(c->b, p, c->i8, "");
}

LLVMValueRef cg_cast(Cg *c, ElemKind from, ElemKind to, LLVMValueRef x)
{
	LLVMTypeRef t = cg_elem_type(c, to);
	if (from == to)
		return x;
	if (elem_is_f8(from))
		return from_f8(c, from, to, x);
	if (elem_is_f8(to))
		return to_f8(c, from, to, x);
	if (from == TY_PTR || to == TY_PTR) {
		if (from == TY_PTR && to == TY_PTR)
			return x;
		return from == TY_PTR ? LLVMBuildPtrToInt(c->b, x, t, "") : LLVMBuildIntToPtr(c->b, x, t, "");
	}
	if (to == TY_I1)
		return elem_is_float(from) ? LLVMBuildFCmp(c->b, LLVMRealUNE, x, LLVMConstNull(LLVMTypeOf(x)), "")
		                           : LLVMBuildICmp(c->b, LLVMIntNE, x, LLVMConstNull(LLVMTypeOf(x)), "");
	if (elem_is_float(from) && elem_is_float(to)) {
		if (is_half(from) && is_half(to))
			return LLVMBuildFPTrunc(c->b, cg_to_f32(c, x, from), t, "");
		if (is_half(to))
			x = guard_rounding(c, x, t);
		return elem_bits(from) < elem_bits(to) ? LLVMBuildFPExt(c->b, x, t, "") : LLVMBuildFPTrunc(c->b, x, t, "");
	}
	if (elem_is_float(to))
		return from == TY_I1 ? LLVMBuildUIToFP(c->b, x, t, "") : LLVMBuildSIToFP(c->b, x, t, "");
	if (elem_is_float(from))
		return LLVMBuildFPToSI(c->b, x, t, "");
	if (from == TY_I1)
		return LLVMBuildZExt(c->b, x, t, "");
	return elem_bits(from) < elem_bits(to) ? LLVMBuildSExt(c->b, x, t, "") : LLVMBuildTrunc(c->b, x, t, "");
}

static LLVMValueRef unary(Cg *c, Opcode code, ElemKind e, LLVMValueRef x)
{
	if (!elem_is_float(e))
		return int_unary(c, code, x);
	return cg_from_f32(c, float_unary(c, code, cg_to_f32(c, x, e)), e);
}

/* The high half of the 64-bit product of two u32: mul.hi.u32. */
static LLVMValueRef umulhi(Cg *c, LLVMValueRef a, uint32_t k)
{
	LLVMValueRef p = LLVMBuildMul(c->b, LLVMBuildZExt(c->b, a, c->i64, ""), LLVMConstInt(c->i64, k, 0), "");
	return LLVMBuildTrunc(c->b, LLVMBuildLShr(c->b, p, LLVMConstInt(c->i64, 32, 0), ""), c->i32, "");
}

/*
 * Philox4x32 of counter (c0, 0, 0, 0) and key (k0, k1), as the interpreter's
 * philox(); words 1-3 start at 0 and LLVM folds the first round's zeros.
 * Every product wraps (no nsw): it is arithmetic modulo 2^32.  rand(),
 * randn() and randint4x() ask for several words of one counter, which
 * LLVM's CSE computes once.
 */
static LLVMValueRef philox(Cg *c, Op *op, LLVMValueRef c0, LLVMValueRef k0, LLVMValueRef k1)
{
	LLVMValueRef zero = LLVMConstInt(c->i32, 0, 0), w[4] = {c0, zero, zero, zero};
	for (int i = 0; i < op->iattr[0]; i++) {
		LLVMValueRef n0 = LLVMBuildXor(c->b, LLVMBuildXor(c->b, umulhi(c, w[2], 0xCD9E8D57u), w[1], ""), k0, "");
		LLVMValueRef n2 = LLVMBuildXor(c->b, LLVMBuildXor(c->b, umulhi(c, w[0], 0xD2511F53u), w[3], ""), k1, "");
		w[1] = LLVMBuildMul(c->b, w[2], LLVMConstInt(c->i32, 0xCD9E8D57u, 0), "");
		w[3] = LLVMBuildMul(c->b, w[0], LLVMConstInt(c->i32, 0xD2511F53u, 0), "");
		w[0] = n0;
		w[2] = n2;
		k0 = LLVMBuildAdd(c->b, k0, LLVMConstInt(c->i32, 0x9E3779B9u, 0), "");
		k1 = LLVMBuildAdd(c->b, k1, LLVMConstInt(c->i32, 0xBB67AE85u, 0), "");
	}
	return w[op->iattr[1]];
}

static LLVMValueRef one_register(Cg *c, Op *op, int r)
{
	LLVMValueRef a = c->regs[op->opnds[0]][r];
	ElemKind e = vtype(c->f, op->opnds[0]).elem;
	switch (op->code) {
	case OP_CAST: return cg_cast(c, e, vtype(c->f, op->res[0]).elem, a);
	case OP_ASSUME: return a;
	case OP_BITCAST: return LLVMBuildBitCast(c->b, a, cg_elem_type(c, vtype(c->f, op->res[0]).elem), "");
	case OP_CMP: return compare(c, (CmpPred)op->iattr[0], e, a, c->regs[op->opnds[1]][r]);
	case OP_SELECT: return LLVMBuildSelect(c->b, a, c->regs[op->opnds[1]][r], c->regs[op->opnds[2]][r], "");
	case OP_PHILOX: return philox(c, op, a, c->regs[op->opnds[1]][r], c->regs[op->opnds[2]][r]);
	case OP_FMA: {
		LLVMValueRef x[3] = {cg_to_f32(c, a, e), cg_to_f32(c, c->regs[op->opnds[1]][r], e),
		                     cg_to_f32(c, c->regs[op->opnds[2]][r], e)};
		return cg_from_f32(c, cg_call(c, e == TY_F64 ? "llvm.fma.f64" : "llvm.fma.f32", LLVMTypeOf(x[0]), x, 3), e);
	}
	case OP_PTRADD: {
		LLVMValueRef off = c->regs[op->opnds[1]][r];
		LLVMTypeRef et = cg_mem_type(c, vtype(c->f, op->opnds[0]).pointee);
		return LLVMBuildGEP2(c->b, et, a, &off, 1, "");
	}
	case OP_DIV:
		if (!op->iattr[0] && elem_is_float(e) && e != TY_F64) {
			LLVMValueRef ab[2] = {cg_to_f32(c, a, e), cg_to_f32(c, c->regs[op->opnds[1]][r], e)};
			LLVMValueRef q = cg_asm(c, nv_names[NV_ASM_DIV_FULL], "=f,f,f", LLVMTypeOf(ab[0]), ab, 2, false);
			return cg_from_f32(c, q, e);
		}
		break;
	case OP_ADD:
	case OP_SUB:
		/* `wrap`: modulo 2^n, where a plain one's overflow is undefined (nsw) */
		if (op->iattr[0] && elem_is_int(e) && e != TY_I1) {
			LLVMValueRef b = c->regs[op->opnds[1]][r];
			return op->code == OP_ADD ? LLVMBuildAdd(c->b, a, b, "") : LLVMBuildSub(c->b, a, b, "");
		}
		break;
	default:
		break;
	}
	if (op->nopnds == 1)
		return unary(c, op->code, e, a);
	return cg_binary(c, op->code, e, a, c->regs[op->opnds[1]][r]);
}

/* The op after op in its block that takes the other of sin and cos of op's operand, in op's layout, or NULL. */
static Op *sin_cos_partner(Cg *c, Op *op)
{
	if (op->code != OP_SIN && op->code != OP_COS)
		return NULL;
	Opcode other = op->code == OP_SIN ? OP_COS : OP_SIN;
	for (Op *o = op->next; o; o = o->next) {
		if (o->code != other || o->opnds[0] != op->opnds[0] || c->regs[o->res[0]])
			continue;
		const Layout *a = cg_layout(c, op->res[0]), *b = cg_layout(c, o->res[0]);
		return a == b || (a && b && layout_eq(a, b)) ? o : NULL;
	}
	return NULL;
}

/*
 * sin(x) and cos(x) of one x in one block (rope's angles) are computed
 * together at the first, from one range reduction; the second finds its
 * registers set.
 */
static void sin_and_cos(Cg *c, Op *op, Op *partner)
{
	ValId x = op->opnds[0], v = op->res[0], w = partner->res[0];
	ElemKind e = vtype(c->f, v).elem;
	const Layout *l = cg_layout(c, v);
	uint32_t zm = l ? cg_zeromask(l->reg, l->nreg) : 0;
	LLVMValueRef *r = cg_new_regs(c, v), *q = cg_new_regs(c, w);
	for (int i = 0; i < cg_nregs(c, v); i++) {
		if (i & zm)
			continue;
		LLVMValueRef s, co;
		cg_sin_and_cos(c, cg_to_f32(c, c->regs[x][i], e), &s, &co);
		r[i] = cg_from_f32(c, op->code == OP_SIN ? s : co, e);
		q[i] = cg_from_f32(c, op->code == OP_SIN ? co : s, e);
	}
	cg_fill_dups(c, v);
	cg_fill_dups(c, w);
}

void cg_elementwise(Cg *c, Op *op)
{
	ValId v = op->res[0];
	if ((op->code == OP_SIN || op->code == OP_COS) && c->regs[v])
		return; /* sin_and_cos made it */
	Op *partner = sin_cos_partner(c, op);
	if (partner) {
		sin_and_cos(c, op, partner);
		return;
	}
	const Layout *l = cg_layout(c, v);
	uint32_t zm = l ? cg_zeromask(l->reg, l->nreg) : 0;
	LLVMValueRef *r = cg_new_regs(c, v);
	for (int i = 0; i < cg_nregs(c, v); i++)
		if (!(i & zm))
			r[i] = one_register(c, op, i);
	cg_fill_dups(c, v);
}
