/*
 * fold.c: constant folding.
 *
 * Guarantees afterwards: no element-wise op (cast and cmp included) has only
 * constant operands, where a constant is a scalar `const` or a `splat` of
 * one, unless folding it would change what the GPU computes:
 *   - integer division or remainder by zero, and MIN / -1, are left alone;
 *   - shifts by a negative amount or by the width or more are left alone;
 *   - exp, exp2, log, log2 and rsqrt are left alone (the GPU uses
 *     approximate instructions, so folding with libm would not match), and
 *     so are sin, cos, tanh and erf (tilec's own f32 algorithms) and fma;
 *   - float to integer casts of NaN or out-of-range values, casts to i1 and
 *     casts of pointers are left alone.
 * Integers wrap at their width (two's complement, like the GPU); f16 and bf16
 * results are rounded to nearest even, as every f16 operation on the GPU is.
 * A `select` whose condition is constant becomes the chosen operand.
 * Folded ops are removed; the new constants they leave are placed just
 * before them (CSE merges duplicates).  It runs before the layout pass:
 * ops whose result has a layout are left alone.
 */
#include "ir.h"
#include "compile.h"

#include <math.h>

typedef struct Const {
	int64_t i;
	double f;
} Const;

/* ---- number formats ---- */

/* Round x to a binary float with p bits of precision, smallest normal
 * exponent emin and largest emax, to nearest even. */
static double round_fmt(double x, int p, int emin, int emax)
{
	if (x == 0 || isnan(x) || isinf(x))
		return x;
	int e;
	frexp(x, &e); /* |x| = m * 2^e, 0.5 <= m < 1 */
	e -= 1;       /* |x| = m' * 2^e, 1 <= m' < 2 */
	if (e < emin)
		e = emin;
	double q = ldexp(1.0, e - (p - 1));
	double r = nearbyint(x / q) * q;
	double max = ldexp(2.0 - ldexp(1.0, 1 - p), emax);
	if (fabs(r) > max)
		return r < 0 ? -INFINITY : INFINITY;
	return r;
}

static double round_to(ElemKind e, double x)
{
	if (elem_is_f8(e))
		return f8_round(e, x);
	switch (e) {
	case TY_F16: return round_fmt(x, 11, -14, 15);
	case TY_BF16: return round_fmt(x, 8, -126, 127);
	case TY_F32: return (double)(float)x;
	default: return x;
	}
}

static int64_t wrap(ElemKind e, uint64_t v)
{
	int bits = elem_bits(e);
	if (e == TY_I1)
		return (int64_t)(v & 1);
	if (bits >= 64)
		return (int64_t)v;
	return (int64_t)(v << (64 - bits)) >> (64 - bits);
}

static int64_t int_min(ElemKind e)
{
	return e == TY_I1 ? 0 : (int64_t)((uint64_t)-1 << (elem_bits(e) - 1));
}

/* ---- reading constants ---- */

static Op *const_op(Func *f, ValId v)
{
	Op *d = f->vals[v].def;
	if (d && d->code == OP_SPLAT)
		d = f->vals[d->opnds[0]].def;
	return d && d->code == OP_CONST ? d : NULL;
}

static bool get_const(Func *f, ValId v, Const *c)
{
	Op *d = const_op(f, v);
	if (!d)
		return false;
	ElemKind e = vtype(f, v).elem;
	c->i = d->iattr[0];
	c->f = elem_is_fp(e) ? round_to(e, d->fattr) : 0;
	return e != TY_PTR && e != TY_VOID;
}

/* ---- evaluation; each returns false when it must not fold ---- */

static bool eval_int_unary(Opcode code, ElemKind e, int64_t a, int64_t *r)
{
	switch (code) {
	case OP_NEG: *r = wrap(e, -(uint64_t)a); return e != TY_I1;
	case OP_NOT: *r = wrap(e, ~(uint64_t)a); return true;
	case OP_ABS: *r = wrap(e, a < 0 ? -(uint64_t)a : (uint64_t)a); return e != TY_I1;
	default: return false;
	}
}

static bool eval_float_unary(Opcode code, ElemKind e, double a, double *r)
{
	switch (code) {
	case OP_NEG: *r = -a; break;
	case OP_ABS: *r = fabs(a); break;
	case OP_SQRT: *r = round_to(e, sqrt(a)); break;
	case OP_FLOOR: *r = floor(a); break;
	case OP_CEIL: *r = ceil(a); break;
	case OP_TRUNC: *r = trunc(a); break;
	case OP_RINT: *r = rint(a); break;
	case OP_ROUND: *r = round(a); break;
	default: return false;
	}
	return true;
}

static bool int_divide(Opcode code, ElemKind e, int64_t a, int64_t b, int64_t *r)
{
	if (b == 0 || e == TY_I1 || (b == -1 && a == int_min(e)))
		return false;
	*r = wrap(e, (uint64_t)(code == OP_DIV ? a / b : a % b));
	return true;
}

static bool eval_int_binary(Opcode code, ElemKind e, int64_t a, int64_t b, int64_t *r)
{
	uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
	switch (code) {
	case OP_ADD: *r = wrap(e, ua + ub); return true;
	case OP_SUB: *r = wrap(e, ua - ub); return true;
	case OP_MUL: *r = wrap(e, ua * ub); return true;
	case OP_AND: *r = wrap(e, ua & ub); return true;
	case OP_OR: *r = wrap(e, ua | ub); return true;
	case OP_XOR: *r = wrap(e, ua ^ ub); return true;
	case OP_MAX: *r = a > b ? a : b; return e != TY_I1;
	case OP_MIN: *r = a < b ? a : b; return e != TY_I1;
	case OP_DIV:
	case OP_REM: return int_divide(code, e, a, b, r);
	case OP_SHL:
	case OP_SHR:
		if (b < 0 || b >= elem_bits(e) || e == TY_I1)
			return false;
		*r = code == OP_SHL ? wrap(e, ua << b) : a >> b;
		return true;
	default: return false;
	}
}

/* max/min propagate NaN, as Triton's and the PTX .NaN variants do;
 * max(-0, +0) is +0. */
static double fmax_nan(double a, double b)
{
	if (isnan(a) || isnan(b))
		return NAN;
	if (a == b)
		return signbit(a) ? b : a;
	return a > b ? a : b;
}

static bool eval_float_binary(Opcode code, ElemKind e, double a, double b, double *r)
{
	double x;
	switch (code) {
	case OP_ADD: x = a + b; break;
	case OP_SUB: x = a - b; break;
	case OP_MUL: x = a * b; break;
	case OP_DIV: x = a / b; break;
	case OP_REM: x = fmod(a, b); break;
	case OP_MAX: x = fmax_nan(a, b); break;
	case OP_MIN: x = -fmax_nan(-a, -b); break;
	default: return false;
	}
	*r = round_to(e, x);
	return true;
}

static bool compare(CmpPred p, int c) /* c: -1, 0, 1 */
{
	switch (p) {
	case CMP_EQ: return c == 0;
	case CMP_NE: return c != 0;
	case CMP_LT: return c < 0;
	case CMP_LE: return c <= 0;
	case CMP_GT: return c > 0;
	case CMP_GE: return c >= 0;
	}
	return false;
}

static bool eval_cmp(CmpPred p, ElemKind e, Const a, Const b, int64_t *r)
{
	if (elem_is_float(e)) {
		if (isnan(a.f) || isnan(b.f)) {
			*r = p == CMP_NE; /* unordered: only != holds */
			return true;
		}
		*r = compare(p, a.f < b.f ? -1 : a.f > b.f);
		return true;
	}
	if (e == TY_I1 && p != CMP_EQ && p != CMP_NE)
		return false; /* i1 order differs between signed and unsigned readings */
	*r = compare(p, a.i < b.i ? -1 : a.i > b.i);
	return true;
}

static bool eval_cast(ElemKind from, ElemKind to, Const a, Const *r)
{
	if (elem_is_fp(to)) {
		if (elem_is_fp(from))
			r->f = round_to(to, a.f);
		else if (to == TY_F64 || (a.i <= (1LL << 53) && a.i >= -(1LL << 53)))
			r->f = round_to(to, (double)a.i);
		else
			return false;
		return true;
	}
	if (to == TY_I1 || !elem_is_int(to))
		return false;
	if (elem_is_int(from)) {
		r->i = wrap(to, (uint64_t)a.i);
		return true;
	}
	double t = trunc(a.f);
	int bits = elem_bits(to);
	if (isnan(t) || t < -ldexp(1, bits - 1) || t >= ldexp(1, bits - 1))
		return false;
	r->i = (int64_t)t;
	return true;
}

/* 32- and 64-bit bitcasts, not from or to a NaN (a constant might not keep its payload) */
static bool eval_bitcast(ElemKind from, ElemKind to, Const a, Const *r)
{
	union { int32_t i32; int64_t i64; float f; double d; } u;
	switch (from) {
	case TY_I32: u.i32 = (int32_t)a.i; break;
	case TY_I64: u.i64 = a.i; break;
	case TY_F32: u.f = (float)a.f; break;
	case TY_F64: u.d = a.f; break;
	default: return false;
	}
	if (elem_is_float(from) && isnan(a.f))
		return false;
	switch (to) {
	case TY_I32: r->i = u.i32; return true;
	case TY_I64: r->i = u.i64; return true;
	case TY_F32: r->f = u.f; return !isnan(r->f);
	case TY_F64: r->f = u.d; return !isnan(r->f);
	default: return false;
	}
}

/* ---- rewriting ---- */

static void materialize(Func *f, Forward *w, Op *op, Const c)
{
	Builder b = {f, op->parent, op, op->loc};
	Type t = vtype(f, op->res[0]);
	ElemKind e = t.elem;
	ValId v = elem_is_fp(e) ? b_const_float(&b, e, c.f) : b_const_int(&b, e, c.i);
	if (t.rank > 0)
		v = b_op1(&b, OP_SPLAT, t, &v, 1);
	fw_set(f, w, op->res[0], v);
	ir_remove(op);
}

static bool eval_op(Func *f, Op *op, const Const *c, Const *r)
{
	ElemKind in = vtype(f, op->opnds[0]).elem;
	ElemKind out = vtype(f, op->res[0]).elem;
	if (op->code == OP_CAST)
		return eval_cast(in, out, c[0], r);
	if (op->code == OP_BITCAST)
		return eval_bitcast(in, out, c[0], r);
	if (op->code == OP_CMP)
		return eval_cmp((CmpPred)op->iattr[0], in, c[0], c[1], &r->i);
	if (in != out)
		return false;
	if (op->nopnds == 1)
		return elem_is_float(in) ? eval_float_unary(op->code, in, c[0].f, &r->f)
					 : eval_int_unary(op->code, in, c[0].i, &r->i);
	return elem_is_float(in) ? eval_float_binary(op->code, in, c[0].f, c[1].f, &r->f)
				 : eval_int_binary(op->code, in, c[0].i, c[1].i, &r->i);
}

static void fold_select(Func *f, Forward *w, Op *op)
{
	Const c;
	if (!get_const(f, op->opnds[0], &c))
		return;
	fw_set(f, w, op->res[0], op->opnds[c.i ? 1 : 2]);
	ir_remove(op);
}

static void fold_op(Func *f, Op *op, void *ctx)
{
	Forward *w = ctx;
	fw_opnds(w, op);
	if (op->nres != 1 || f->vals[op->res[0]].layout >= 0)
		return; /* new constants would have no layout */
	if (op->code == OP_SELECT) {
		fold_select(f, w, op);
		return;
	}
	if (!op_has(op->code, F_ELTWISE) || op->nres != 1 || op->nopnds < 1 || op->nopnds > 2 ||
	    op->code == OP_PTRADD)
		return;
	Const c[2], r = {0, 0};
	for (int i = 0; i < op->nopnds; i++)
		if (!get_const(f, op->opnds[i], &c[i]))
			return;
	if (eval_op(f, op, c, &r))
		materialize(f, w, op, r);
}

void pass_fold(Func *f)
{
	Forward w = {0};
	ir_walk(f, fold_op, &w);
	fw_apply(f, &w);
}
