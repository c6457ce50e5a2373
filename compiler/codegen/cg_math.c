/*
 * cg_math.c: sin, cos, tanh, erf, log1p, expm1, pow, atan and atan2 of
 * f32 registers, and fmod, as LLVM IR.
 *
 * PTX has sin.approx and cos.approx (absolute error 2^-20.9 only near 0,
 * nothing past |x| of a few hundred), tanh.approx (2^-11 relative) and no
 * erf, while CUDA's sinf, cosf, tanhf and erff, which Triton's tl.sin,
 * tl.cos, tl.erf and libdevice tanh call, are within 2 ulp everywhere.  So
 * these are tilec's own, to the same standard: polynomials fitted (minimax,
 * relative error) to each function on a short interval, evaluated by Horner
 * with fma, and a range reduction to reach them.  The constants are in
 * cg_math.h; tests/unit/math_model_test.c runs the same steps in C over
 * f32 inputs of every exponent against libm, and gpu_test's math case
 * this code on the GPU.
 *
 *   tanh: |x| < 1.125: |x| + |x| t P(t), t = x^2; else 1 - 2 / (2^(2|x|
 *         log2 e) + 1) with ex2.approx and rcp.approx (below 1.125 their
 *         errors would grow past 2 ulp); the sign put back.  Both sides
 *         computed, one selected: no branch.
 *   erf:  |x| < 1: |x| + |x| P(x^2); else 1 - 2^Q(min(|x|, 4) - 1), Q
 *         fitted to log2 erfc on [1, 4] (erf rounds to 1 from 3.92 on); the
 *         sign put back.  No branch.
 *   sin, cos: x = q pi/2 + r, |r| <= pi/4, then sin r or cos r by the
 *         quadrant q mod 4.  For |x| <= 65536, r = x - q pi/2 with pi/2 in
 *         three f32 parts (Cody and Waite, with fma; past 71476 the error
 *         would pass 1.5 ulp); above it a branch to Payne and Hanek's
 *         reduction in f64 (reduce_slow), which also gives r's low part.
 *
 * Largest errors over every f32 (the models behind cg_math.h's constants,
 * and the same steps run on an H100 for all 2^32 inputs): sin and cos
 * 1.49 ulp (CUDA's sinf and cosf 1.49 and 1.51 there), tanh 1.16, erf 0.99
 * (1.05 on the H100, whose ex2.approx differs from exp2f).  None of these
 * values may be contracted or flushed: no `contract` flag, no .ftz but
 * ex2's and rcp's.
 *
 * log1p and expm1 (scripts/math/log1p_expm1) carry a value and its error
 * in two f32s where 1 + x or 2^j - 1 would lose bits, no branch: 0.60 and
 * 0.56 ulp over every f32.  pow (scripts/math/pow) works in f64, log2 and
 * exp2 each one polynomial, and rounds to f32 once: 0.50 ulp over 5.4e10
 * random pairs, every special value of C's powf exactly (on a branch the
 * lanes with x > 0 finite and y finite skip).  atan and atan2
 * (scripts/math/atan) reduce to |r| <= 1/2 with one IEEE division and feed
 * the division's error back: 0.68 ulp over every f32, 0.70 over 2^30
 * pairs, C99's special values exactly.
 *
 * And fmod, the float %, exactly (LLVM's frem on NVPTX is x - trunc(x/y) y):
 * f32 reduced in f64, f64 in integers, musl's way in steps of 11 bits
 * (tests/unit/fmod_model_test.c runs those steps against libm's fmod).
 */
#include "cg.h"
#include "cg_math.h"

#include <math.h>

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static LLVMValueRef fc(Cg *c, double v) { return LLVMConstReal(c->f32, v); }

static LLVMValueRef f64c(Cg *c, double v) { return LLVMConstReal(LLVMDoubleTypeInContext(c->ctx), v); }

static LLVMValueRef i64c(Cg *c, uint64_t v) { return LLVMConstInt(c->i64, v, 0); }

static LLVMValueRef call1(Cg *c, const char *name, LLVMValueRef x)
{
	return cg_call(c, name, LLVMTypeOf(x), &x, 1);
}

static LLVMValueRef call2(Cg *c, const char *name, LLVMValueRef x, LLVMValueRef y)
{
	LLVMValueRef a[2] = {x, y};
	return cg_call(c, name, LLVMTypeOf(x), a, 2);
}

static LLVMValueRef fma3(Cg *c, LLVMValueRef x, LLVMValueRef y, LLVMValueRef z)
{
	LLVMValueRef a[3] = {x, y, z};
	return cg_call(c, LLVMTypeOf(x) == c->f32 ? "llvm.fma.f32" : "llvm.fma.f64", LLVMTypeOf(x), a, 3);
}

static LLVMValueRef mul(Cg *c, LLVMValueRef x, LLVMValueRef y) { return LLVMBuildFMul(c->b, x, y, ""); }

static LLVMValueRef add(Cg *c, LLVMValueRef x, LLVMValueRef y) { return LLVMBuildFAdd(c->b, x, y, ""); }

static LLVMValueRef sub(Cg *c, LLVMValueRef x, LLVMValueRef y) { return LLVMBuildFSub(c->b, x, y, ""); }

static LLVMValueRef lt(Cg *c, LLVMValueRef x, double v)
{
	return LLVMBuildFCmp(c->b, LLVMRealOLT, x, fc(c, v), "");
}

/* k[0] + k[1] t + ... + k[n-1] t^(n-1), by Horner with fma */
static LLVMValueRef horner(Cg *c, LLVMValueRef t, const float *k, int n)
{
	LLVMValueRef p = fc(c, k[n - 1]);
	for (int i = n - 2; i >= 0; i--)
		p = fma3(c, p, t, fc(c, k[i]));
	return p;
}

static LLVMValueRef ex2(Cg *c, LLVMValueRef x) { return cg_nv(c, NV_EX2_F32, c->f32, &x, 1); }

static LLVMValueRef with_sign(Cg *c, LLVMValueRef mag, LLVMValueRef sign)
{
	return call2(c, "llvm.copysign.f32", mag, sign);
}

/* ---- tanh ---- */

LLVMValueRef cg_tanh(Cg *c, LLVMValueRef x)
{
	LLVMValueRef a = call1(c, "llvm.fabs.f32", x), t = mul(c, a, a);
	/* |x| < TANH_SPLIT: a + a t P(t) */
	LLVMValueRef small = fma3(c, mul(c, a, t), horner(c, t, tanh_p, NELEM(tanh_p)), a);
	/* else 1 - 2 / (2^(2 |x| log2 e) + 1): rcp.approx is within an ulp, and 2 / (e + 1) <= 0.28 */
	LLVMValueRef e = ex2(c, mul(c, a, fc(c, 0x1.715476p+1)));
	LLVMValueRef r = cg_nv(c, NV_RCP_F32, c->f32, (LLVMValueRef[]){add(c, e, fc(c, 1))}, 1);
	LLVMValueRef large = fma3(c, fc(c, -2), r, fc(c, 1));
	/* NaN: a < split is false, and e, r and large are NaN */
	return with_sign(c, LLVMBuildSelect(c->b, lt(c, a, TANH_SPLIT), small, large, ""), x);
}

/* ---- erf ---- */

LLVMValueRef cg_erf(Cg *c, LLVMValueRef x)
{
	LLVMValueRef a = call1(c, "llvm.fabs.f32", x), t = mul(c, a, a);
	/* |x| < ERF_SPLIT: a + a P(t) */
	LLVMValueRef small = fma3(c, a, horner(c, t, erf_p, NELEM(erf_p)), a);
	/* else 1 - 2^Q(min(|x|, ERF_CLAMP) - ERF_SPLIT), Q fitted to log2 erfc */
	LLVMValueRef s = sub(c, call2(c, "llvm.minnum.f32", a, fc(c, ERF_CLAMP)), fc(c, ERF_SPLIT));
	LLVMValueRef large = sub(c, fc(c, 1), ex2(c, horner(c, s, erf_q, NELEM(erf_q))));
	/* NaN takes the small side (minnum would drop it from the large one) */
	LLVMValueRef pick = LLVMBuildFCmp(c->b, LLVMRealOGE, a, fc(c, ERF_SPLIT), "");
	return with_sign(c, LLVMBuildSelect(c->b, pick, large, small, ""), x);
}

/* ---- sin and cos ---- */

/* |x| <= SC_FAST_MAX: x = q pi/2 + r by 2/pi and pi/2 in three f32 parts; q mod 4 in *n */
static LLVMValueRef reduce_fast(Cg *c, LLVMValueRef x, LLVMValueRef *n)
{
	/* j = 1.5 2^23 + rint(x 2/pi): its last bits are q's */
	LLVMValueRef j = fma3(c, x, fc(c, SC_TWO_OVER_PI), fc(c, 0x1.8p+23));
	LLVMValueRef q = sub(c, j, fc(c, 0x1.8p+23));
	LLVMValueRef r = fma3(c, q, fc(c, -SC_PIO2_1), x); /* exact */
	r = fma3(c, q, fc(c, -SC_PIO2_2), r);
	r = fma3(c, q, fc(c, -SC_PIO2_3), r);
	*n = LLVMBuildBitCast(c->b, j, c->i32, "");
	return r;
}

/*
 * Any finite x: x 2/pi mod 4, exactly.  2/pi = F_0 + F_1 + ... with F_i of
 * 24 bits or fewer, so x F_i is exact in f64; of the products that are not
 * multiples of 4 (which x's exponent decides: i0 = 0..4) two are reduced
 * mod 4 exactly and summed exactly, the third and the tail of 2/pi's
 * series come after q is taken, so the fraction keeps its bits however
 * close x is to a multiple of pi/2.
 */
static LLVMValueRef reduce_slow(Cg *c, LLVMValueRef x, LLVMValueRef *n, LLVMValueRef *lo)
{
	LLVMTypeRef d = LLVMDoubleTypeInContext(c->ctx);
	LLVMValueRef e = LLVMBuildAnd(c->b, LLVMBuildLShr(c->b, LLVMBuildBitCast(c->b, x, c->i32, ""),
	                                                  cg_i32c(c, 23), ""), cg_i32c(c, 0xff), "");
	LLVMValueRef k[4];
	for (int part = 0; part < 4; part++) {
		const double *tab = part == 3 ? sc_tail : sc_f + part;
		k[part] = f64c(c, tab[0]);
		for (int g = 1; g <= 4; g++) {
			LLVMValueRef ge = LLVMBuildICmp(c->b, LLVMIntUGE, e, cg_i32c(c, sc_exp_from[g - 1]), "");
			k[part] = LLVMBuildSelect(c->b, ge, f64c(c, tab[g]), k[part], "");
		}
	}
	LLVMValueRef xd = LLVMBuildFPExt(c->b, x, d, ""), t[4];
	for (int part = 0; part < 4; part++)
		t[part] = LLVMBuildFMul(c->b, xd, k[part], "");
	LLVMValueRef m[2];
	for (int part = 0; part < 2; part++) { /* t mod 4, in [0, 4) */
		LLVMValueRef fl = call1(c, "llvm.floor.f64", LLVMBuildFMul(c->b, t[part], f64c(c, 0.25), ""));
		m[part] = fma3(c, f64c(c, -4), fl, t[part]);
	}
	LLVMValueRef h = LLVMBuildFAdd(c->b, m[0], m[1], "");
	LLVMValueRef qm = LLVMBuildFAdd(c->b, LLVMBuildFAdd(c->b, h, t[2], ""), f64c(c, 0x1.8p+52), "");
	LLVMValueRef q = LLVMBuildFSub(c->b, qm, f64c(c, 0x1.8p+52), "");
	LLVMValueRef f = LLVMBuildFAdd(c->b, LLVMBuildFAdd(c->b, LLVMBuildFSub(c->b, h, q, ""), t[2], ""), t[3], "");
	*n = LLVMBuildTrunc(c->b, LLVMBuildBitCast(c->b, qm, c->i64, ""), c->i32, "");
	LLVMValueRef rd = LLVMBuildFMul(c->b, f, f64c(c, 0x1.921fb54442d18p+0), "");
	LLVMValueRef r = LLVMBuildFPTrunc(c->b, rd, c->f32, "");
	*lo = LLVMBuildFPTrunc(c->b, LLVMBuildFSub(c->b, rd, LLVMBuildFPExt(c->b, r, d, ""), ""), c->f32, "");
	return r;
}

/* x = q pi/2 + r + lo, |r| <= pi/4: r, lo and q mod 4 in *n (the fast reduction, or a branch to the slow one) */
static LLVMValueRef reduce(Cg *c, LLVMValueRef x, LLVMValueRef *lo_out, LLVMValueRef *n_out)
{
	LLVMValueRef nf, rf = reduce_fast(c, x, &nf);
	LLVMValueRef fast = LLVMBuildFCmp(c->b, LLVMRealOLE, call1(c, "llvm.fabs.f32", x), fc(c, SC_FAST_MAX), "");
	LLVMBasicBlockRef from = LLVMGetInsertBlock(c->b);
	LLVMBasicBlockRef slow = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "reduce.slow");
	LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "reduce.join");
	LLVMBuildCondBr(c->b, fast, join, slow);
	LLVMPositionBuilderAtEnd(c->b, slow);
	LLVMValueRef ns, ls, rs = reduce_slow(c, x, &ns, &ls);
	LLVMBuildBr(c->b, join);
	LLVMPositionBuilderAtEnd(c->b, join);
	LLVMBasicBlockRef ins[2] = {from, slow};
	LLVMValueRef r = LLVMBuildPhi(c->b, c->f32, ""), lo = LLVMBuildPhi(c->b, c->f32, "");
	LLVMValueRef n = LLVMBuildPhi(c->b, c->i32, "");
	LLVMAddIncoming(r, (LLVMValueRef[]){rf, rs}, ins, 2);
	LLVMAddIncoming(lo, (LLVMValueRef[]){fc(c, -0.0), ls}, ins, 2); /* -0: sin(-0) stays -0 */
	LLVMAddIncoming(n, (LLVMValueRef[]){nf, ns}, ins, 2);
	*lo_out = lo;
	*n_out = n;
	return r;
}

/* sin of q pi/2 + r + lo, n = q mod 4 (cos: n + 1) */
static LLVMValueRef by_quadrant(Cg *c, LLVMValueRef r, LLVMValueRef lo, LLVMValueRef n)
{
	/* |r| <= pi/4, r + lo the remainder: sin r = r + (r s S(s) + lo), cos r = 1 - s/2 + s^2 C(s), s = r^2 */
	LLVMValueRef s = mul(c, r, r);
	LLVMValueRef ps = fma3(c, horner(c, s, sc_sin, NELEM(sc_sin)), s, fc(c, 0)); /* +0 where s is 0 */
	LLVMValueRef vs = add(c, r, fma3(c, ps, r, lo));
	LLVMValueRef vc = fma3(c, horner(c, s, sc_cos, NELEM(sc_cos)), s, fc(c, 1));
	LLVMValueRef odd = LLVMBuildTrunc(c->b, n, c->i1, "");
	LLVMValueRef neg = LLVMBuildICmp(c->b, LLVMIntNE, LLVMBuildAnd(c->b, n, cg_i32c(c, 2), ""), cg_i32c(c, 0), "");
	LLVMValueRef v = LLVMBuildSelect(c->b, odd, vc, vs, "");
	return LLVMBuildSelect(c->b, neg, LLVMBuildFNeg(c->b, v, ""), v, "");
}

LLVMValueRef cg_sin_cos(Cg *c, LLVMValueRef x, bool cos)
{
	LLVMValueRef lo, n, r = reduce(c, x, &lo, &n);
	return by_quadrant(c, r, lo, cos ? LLVMBuildAdd(c->b, n, cg_i32c(c, 1), "") : n);
}

/* Both of one x, from one reduction (the polynomials are the same instructions: LLVM keeps one of each). */
void cg_sin_and_cos(Cg *c, LLVMValueRef x, LLVMValueRef *s, LLVMValueRef *co)
{
	LLVMValueRef lo, n, r = reduce(c, x, &lo, &n);
	*s = by_quadrant(c, r, lo, n);
	*co = by_quadrant(c, r, lo, LLVMBuildAdd(c->b, n, cg_i32c(c, 1), ""));
}

/* ---- log1p and expm1 ---- */

static LLVMValueRef i32c(Cg *c, int v) { return cg_i32c(c, v); }

static LLVMValueRef fcmp(Cg *c, LLVMRealPredicate p, LLVMValueRef x, LLVMValueRef y)
{
	return LLVMBuildFCmp(c->b, p, x, y, "");
}

static LLVMValueRef sel(Cg *c, LLVMValueRef p, LLVMValueRef a, LLVMValueRef b)
{
	return LLVMBuildSelect(c->b, p, a, b, "");
}

static LLVMValueRef f32_of(Cg *c, LLVMValueRef i) { return LLVMBuildBitCast(c->b, i, c->f32, ""); }

/* 2^e for the i32 e in [-126, 127], from its exponent bits */
static LLVMValueRef pow2i(Cg *c, LLVMValueRef e)
{
	return f32_of(c, LLVMBuildShl(c->b, LLVMBuildAdd(c->b, e, i32c(c, 127), ""), i32c(c, 23), ""));
}

/*
 * log1p: 1 + x = u + c exactly (two-sum), u = 2^k m with m in [2/3, 4/3),
 * f = m - 1 (x itself where k = 0); log1p(x) = k ln2 + f - f^2/2 +
 * f^3 P(f) + c 2^-k / m, with k ln2_hi + f - f^2/2 carried as a sum and
 * its error (scripts/math/log1p_expm1/README.md: the steps, one for one).
 */
LLVMValueRef cg_log1p(Cg *c, LLVMValueRef x)
{
	LLVMValueRef one = fc(c, 1);
	LLVMValueRef u = add(c, x, one), bp = sub(c, u, x), ap = sub(c, u, bp);
	LLVMValueRef cc = add(c, sub(c, x, ap), sub(c, one, bp));
	LLVMValueRef iu = LLVMBuildBitCast(c->b, u, c->i32, "");
	LLVMValueRef k = LLVMBuildAShr(c->b, LLVMBuildSub(c->b, iu, i32c(c, LOG1P_M0), ""), i32c(c, 23), "");
	LLVMValueRef m = f32_of(c, LLVMBuildSub(c->b, iu, LLVMBuildShl(c->b, k, i32c(c, 23), ""), ""));
	LLVMValueRef k0 = LLVMBuildICmp(c->b, LLVMIntEQ, k, i32c(c, 0), "");
	LLVMValueRef f = sel(c, k0, x, sub(c, m, one));
	LLVMValueRef kf = LLVMBuildSIToFP(c->b, k, c->f32, "");
	LLVMValueRef ks = call2(c, "llvm.smin.i32", k, i32c(c, 126));
	LLVMValueRef s2 = f32_of(c, LLVMBuildShl(c->b, LLVMBuildSub(c->b, i32c(c, 127), ks, ""), i32c(c, 23), ""));
	LLVMValueRef cs = sel(c, k0, fc(c, 0), mul(c, cc, s2));
	LLVMValueRef gm = mul(c, f, fma3(c, f, sub(c, one, f), fc(c, -1)));
	LLVMValueRef corr = fma3(c, cs, gm, cs);
	LLVMValueRef hf = mul(c, fc(c, 0.5), f), hh = mul(c, hf, f);
	LLVMValueRef hl = fma3(c, hf, f, LLVMBuildFNeg(c->b, hh, ""));
	LLVMValueRef d = sub(c, f, hh), derr = sub(c, sub(c, f, d), hh);
	LLVMValueRef A = mul(c, kf, fc(c, LOG1P_LN2_HI));
	LLVMValueRef z = add(c, A, d), zerr = add(c, sub(c, A, z), d);
	LLVMValueRef f3 = mul(c, mul(c, f, f), f);
	LLVMValueRef p = horner(c, f, log1p_p, NELEM(log1p_p));
	LLVMValueRef lo = add(c, sub(c, add(c, zerr, derr), hl), fma3(c, kf, fc(c, LOG1P_LN2_LO), corr));
	LLVMValueRef r = add(c, z, fma3(c, f3, p, lo));
	r = sel(c, lt(c, call1(c, "llvm.fabs.f32", x), LOG1P_TINY), x, r);
	r = sel(c, fcmp(c, LLVMRealOEQ, x, fc(c, INFINITY)), fc(c, INFINITY), r);
	r = sel(c, fcmp(c, LLVMRealOEQ, x, fc(c, -1)), fc(c, -INFINITY), r);
	return sel(c, fcmp(c, LLVMRealOGE, x, fc(c, -1)), r, fc(c, NAN));
}

/*
 * expm1: x (clamped) = j ln2 + fh + fl, j = rint(x log2 e); e^f - 1 = s +
 * elo with s = fh + fh^2/2; then 2^j (1 + s + elo) - 1 = (A + Aerr) + 2^j s
 * + 2^j elo with A + Aerr = 2^j - 1 exactly, A + 2^j s a two-sum, and at
 * j = 128 all of it at half scale, doubled (scripts/math/log1p_expm1/README.md).
 */
LLVMValueRef cg_expm1(Cg *c, LLVMValueRef x)
{
	LLVMValueRef xc = sel(c, fcmp(c, LLVMRealOGT, x, fc(c, EXPM1_XMAX)), fc(c, EXPM1_XMAX), x);
	xc = sel(c, lt(c, xc, EXPM1_XMIN), fc(c, EXPM1_XMIN), xc);
	LLVMValueRef jm = fma3(c, xc, fc(c, EXPM1_LOG2E), fc(c, 0x1.8p+23));
	LLVMValueRef jf = sub(c, jm, fc(c, 0x1.8p+23));
	LLVMValueRef j = LLVMBuildSub(c->b, LLVMBuildBitCast(c->b, jm, c->i32, ""), i32c(c, 0x4b400000), "");
	LLVMValueRef nj = LLVMBuildFNeg(c->b, jf, "");
	LLVMValueRef f1 = fma3(c, nj, fc(c, EXPM1_LN2_HI), xc);
	LLVMValueRef fh = fma3(c, nj, fc(c, EXPM1_LN2_LO), f1);
	LLVMValueRef fl = fma3(c, nj, fc(c, EXPM1_LN2_LO), sub(c, f1, fh));
	LLVMValueRef hf = mul(c, fc(c, 0.5), fh), hh = mul(c, hf, fh);
	LLVMValueRef hl = fma3(c, hf, fh, LLVMBuildFNeg(c->b, hh, ""));
	LLVMValueRef s = add(c, fh, hh), serr = add(c, sub(c, fh, s), hh);
	LLVMValueRef f3 = mul(c, mul(c, fh, fh), fh);
	LLVMValueRef q = horner(c, fh, expm1_q, NELEM(expm1_q));
	LLVMValueRef elo = fma3(c, f3, q, add(c, add(c, serr, hl), fma3(c, fl, s, fl)));
	LLVMValueRef sc = pow2i(c, call2(c, "llvm.smin.i32", j, i32c(c, 127)));
	LLVMValueRef big = LLVMBuildICmp(c->b, LLVMIntSGT, j, i32c(c, 24), "");
	LLVMValueRef neg = LLVMBuildICmp(c->b, LLVMIntSLT, j, i32c(c, -24), "");
	LLVMValueRef top = LLVMBuildICmp(c->b, LLVMIntSGT, j, i32c(c, 127), "");
	LLVMValueRef A = sel(c, big, sc, sel(c, neg, fc(c, -1), sub(c, sc, fc(c, 1))));
	LLVMValueRef Aerr = sel(c, big, sel(c, top, fc(c, -0.5), fc(c, -1)), sel(c, neg, sc, fc(c, 0)));
	LLVMValueRef B = mul(c, sc, s);
	LLVMValueRef z = add(c, A, B), zerr = add(c, sub(c, A, z), B);
	LLVMValueRef r = add(c, z, fma3(c, sc, elo, add(c, Aerr, zerr)));
	r = mul(c, r, sel(c, top, fc(c, 2), fc(c, 1)));
	r = sel(c, fcmp(c, LLVMRealOGT, x, fc(c, EXPM1_XMAX)), fc(c, INFINITY), r);
	return sel(c, lt(c, call1(c, "llvm.fabs.f32", x), EXPM1_TINY), x, r);
}

/* ---- pow ---- */

/*
 * pow of two f32, in f64 (scripts/math/pow/README.md has the steps this
 * follows one for one, and why the degrees): log2|x| = k + f Q(f) with
 * |x| 2^-k in [POW_SPLIT, 2 POW_SPLIT) found on the f64 bits, z = y log2|x|
 * clamped to +-POW_ZCLAMP, 2^z = 2^n E(z - n) with n = rint(z), rounded to
 * f32 once; then the sign of an odd integer y, NaN for a negative x to a
 * non-integer, and 1 for y = 0, x = 1 and (-1)^inf, by selects (on the
 * lanes that need them: cg_pow).
 */
static LLVMValueRef horner64(Cg *c, LLVMValueRef t, const double *k, int n)
{
	LLVMValueRef p = f64c(c, k[n - 1]);
	for (int i = n - 2; i >= 0; i--)
		p = fma3(c, p, t, f64c(c, k[i]));
	return p;
}

/* steps 1-11: log2|x| (finite garbage for x = 0, inf or NaN: step 12 and the selects fix those) */
static LLVMValueRef pow_log2(Cg *c, LLVMValueRef ax)
{
	LLVMTypeRef d = LLVMDoubleTypeInContext(c->ctx);
	LLVMValueRef ix = LLVMBuildBitCast(c->b, LLVMBuildFPExt(c->b, ax, d, ""), c->i64, "");
	LLVMValueRef k = LLVMBuildAShr(c->b, LLVMBuildSub(c->b, ix, i64c(c, POW_SPLIT_BITS), ""), i64c(c, 52), "");
	LLVMValueRef m = LLVMBuildBitCast(c->b, LLVMBuildSub(c->b, ix, LLVMBuildShl(c->b, k, i64c(c, 52), ""), ""), d, "");
	LLVMValueRef f = LLVMBuildFSub(c->b, m, f64c(c, 1), "");
	return fma3(c, f, horner64(c, f, pow_log2_p, NELEM(pow_log2_p)), LLVMBuildSIToFP(c->b, k, d, ""));
}

/* steps 13-21: 2^(y L) rounded to f32 */
static LLVMValueRef pow_exp2(Cg *c, LLVMValueRef y, LLVMValueRef L)
{
	LLVMTypeRef d = LLVMDoubleTypeInContext(c->ctx);
	LLVMValueRef z = LLVMBuildFMul(c->b, LLVMBuildFPExt(c->b, y, d, ""), L, "");
	z = sel(c, fcmp(c, LLVMRealOLT, z, f64c(c, POW_ZCLAMP)), z, f64c(c, POW_ZCLAMP));
	z = sel(c, fcmp(c, LLVMRealOGT, z, f64c(c, -POW_ZCLAMP)), z, f64c(c, -POW_ZCLAMP));
	LLVMValueRef n = call1(c, "llvm.rint.f64", z);
	LLVMValueRef p = horner64(c, LLVMBuildFSub(c->b, z, n, ""), pow_exp2_p, NELEM(pow_exp2_p));
	LLVMValueRef ni = LLVMBuildFPToSI(c->b, n, c->i64, "");
	LLVMValueRef s = LLVMBuildBitCast(c->b, LLVMBuildShl(c->b, LLVMBuildAdd(c->b, ni, i64c(c, 1023), ""),
	                                                     i64c(c, 52), ""), d, "");
	return LLVMBuildFPTrunc(c->b, LLVMBuildFMul(c->b, p, s, ""), c->f32, "");
}

/* steps 12-29 from step 11's L: any x and y */
static LLVMValueRef pow_special(Cg *c, LLVMValueRef x, LLVMValueRef y, LLVMValueRef ax, LLVMValueRef L)
{
	LLVMValueRef inf = fc(c, INFINITY);
	L = sel(c, fcmp(c, LLVMRealOEQ, ax, fc(c, 0)), f64c(c, -INFINITY), L);
	L = sel(c, fcmp(c, LLVMRealOEQ, ax, inf), f64c(c, INFINITY), L);
	LLVMValueRef a = pow_exp2(c, y, L);
	/* y's parity: an integer, an odd one (every |y| >= 2^24 and inf count as even) */
	LLVMValueRef yint = fcmp(c, LLVMRealOEQ, call1(c, "llvm.trunc.f32", y), y);
	LLVMValueRef h = mul(c, y, fc(c, 0.5));
	LLVMValueRef yodd = LLVMBuildAnd(c->b, yint, fcmp(c, LLVMRealUNE, call1(c, "llvm.trunc.f32", h), h), "");
	/* the sign, NaN and 1 */
	a = sel(c, yodd, with_sign(c, a, x), a);
	LLVMValueRef negfin = LLVMBuildAnd(c->b, fcmp(c, LLVMRealOLT, x, fc(c, 0)), fcmp(c, LLVMRealOLT, ax, inf), "");
	LLVMValueRef bad = LLVMBuildOr(c->b, LLVMBuildAnd(c->b, negfin, LLVMBuildNot(c->b, yint, ""), ""),
	                               fcmp(c, LLVMRealUNO, x, y), "");
	a = sel(c, bad, fc(c, NAN), a);
	LLVMValueRef one = LLVMBuildOr(c->b, fcmp(c, LLVMRealOEQ, y, fc(c, 0)), fcmp(c, LLVMRealOEQ, x, fc(c, 1)), "");
	one = LLVMBuildOr(c->b, one, LLVMBuildAnd(c->b, fcmp(c, LLVMRealOEQ, ax, fc(c, 1)),
	                                          fcmp(c, LLVMRealOEQ, call1(c, "llvm.fabs.f32", y), inf), ""), "");
	return sel(c, one, fc(c, 1), a);
}

/*
 * x > 0 finite with y finite, most lanes, takes steps 1-11 and 13-21
 * alone: there step 12 and the selects of 22-29 change nothing (a
 * positive result keeps its sign, no NaN, and y = 0 or x = 1 give z = 0,
 * 2^0 = 1).  The other lanes branch to steps 12-29, from the same log2.
 * The results are those of the step list either way; the branch saves a
 * third of the instructions of a pow on the common path.
 */
LLVMValueRef cg_pow(Cg *c, LLVMValueRef x, LLVMValueRef y)
{
	LLVMValueRef inf = fc(c, INFINITY), ax = call1(c, "llvm.fabs.f32", x);
	LLVMValueRef plain = LLVMBuildAnd(c->b, fcmp(c, LLVMRealOGT, x, fc(c, 0)), fcmp(c, LLVMRealOLT, x, inf), "");
	plain = LLVMBuildAnd(c->b, plain, fcmp(c, LLVMRealOLT, call1(c, "llvm.fabs.f32", y), inf), "");
	LLVMValueRef L = pow_log2(c, ax), fast = pow_exp2(c, y, L);
	LLVMBasicBlockRef from = LLVMGetInsertBlock(c->b);
	LLVMBasicBlockRef special = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "pow.special");
	LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "pow.join");
	LLVMBuildCondBr(c->b, plain, join, special);
	LLVMPositionBuilderAtEnd(c->b, special);
	LLVMValueRef slow = pow_special(c, x, y, ax, L);
	LLVMBasicBlockRef special_end = LLVMGetInsertBlock(c->b);
	LLVMBuildBr(c->b, join);
	LLVMPositionBuilderAtEnd(c->b, join);
	LLVMValueRef r = LLVMBuildPhi(c->b, c->f32, "");
	LLVMAddIncoming(r, (LLVMValueRef[]){fast, slow}, (LLVMBasicBlockRef[]){from, special_end}, 2);
	return r;
}

/* ---- atan and atan2 ---- */

/*
 * Both reduce with one IEEE division to r = num / den, |r| <= 1/2, and
 * return k pi/4 + atan(r) (scripts/math/atan/README.md has the step lists;
 * these are the same, instruction for instruction):
 *
 *   atan(r) = r + r t P(t), t = r^2;
 *   the exact quotient num / (den + dl) is r + e / den, e = num - r (den + dl)
 *   found exactly by fma, so atan moves by e / (den (1 + t)) ~ e / h with
 *   h = den + r num, and 1/h comes from h's bit pattern (5% is enough);
 *   k pi/4 + r as a two-sum (k HI exact), the small parts added to its low
 *   half, rounded once at the end.
 */
static LLVMValueRef atan_sum(Cg *c, LLVMValueRef k, LLVMValueRef r, LLVMValueRef t, LLVMValueRef d)
{
	LLVMValueRef p = horner(c, t, atan_p, NELEM(atan_p)), rt = mul(c, r, t);
	LLVMValueRef C = mul(c, k, fc(c, ATAN_PIO4_HI)), s = add(c, C, r);
	LLVMValueRef err = add(c, sub(c, C, s), r); /* C + r = s + err exactly */
	LLVMValueRef lo1 = fma3(c, k, fc(c, ATAN_PIO4_LO), err);
	return add(c, s, fma3(c, rt, p, add(c, lo1, d)));
}

/* e / h: the division's error, e = num - r (den + dl), carried into atan(r) */
static LLVMValueRef atan_correction(Cg *c, LLVMValueRef r, LLVMValueRef num, LLVMValueRef den, LLVMValueRef dl)
{
	LLVMValueRef nr = LLVMBuildFNeg(c->b, r, "");
	LLVMValueRef e = fma3(c, nr, dl, fma3(c, nr, den, num)), h = fma3(c, r, num, den);
	LLVMValueRef hb = LLVMBuildBitCast(c->b, h, c->i32, "");
	return mul(c, e, f32_of(c, LLVMBuildSub(c->b, i32c(c, ATAN_RCP_K), hb, "")));
}

/*
 * atan: a = |x|; r = a (k = 0) up to 1/2, (a - 1) / (a + 1) (k = 1) up to
 * 2, -1/a (k = 2) above; a + 1's rounding error kept by a two-sum; pi/2
 * from 2^26 on (and for inf); x's sign.
 */
LLVMValueRef cg_atan(Cg *c, LLVMValueRef x)
{
	LLVMValueRef a = call1(c, "llvm.fabs.f32", x);
	LLVMValueRef mid = fcmp(c, LLVMRealOGT, a, fc(c, 0.5)), big = fcmp(c, LLVMRealOGT, a, fc(c, 2));
	LLVMValueRef am1 = sub(c, a, fc(c, 1)), ap1 = add(c, a, fc(c, 1));
	LLVMValueRef dl0 = sub(c, a, sub(c, ap1, fc(c, 1))); /* a + 1 = ap1 + dl0 */
	LLVMValueRef num = sel(c, big, fc(c, -1), sel(c, mid, am1, a));
	LLVMValueRef den = sel(c, big, a, sel(c, mid, ap1, fc(c, 1)));
	LLVMValueRef dl = sel(c, big, fc(c, 0), sel(c, mid, dl0, fc(c, 0)));
	LLVMValueRef r = LLVMBuildFDiv(c->b, num, den, ""), t = mul(c, r, r);
	LLVMValueRef d = atan_correction(c, r, num, den, dl);
	LLVMValueRef k = sel(c, big, fc(c, 2), sel(c, mid, fc(c, 1), fc(c, 0)));
	LLVMValueRef res = atan_sum(c, k, r, t, d);
	res = sel(c, fcmp(c, LLVMRealOGE, a, fc(c, ATAN_HUGE)), fc(c, ATAN_PIO2), res);
	return with_sign(c, res, x);
}

/*
 * atan2(y, x): mn and mx the smaller and larger of |x| and |y|, scaled
 * (exactly) so that the correction neither overflows nor loses bits;
 * r = +-mn / mx (k = 0, 2 or 4) where mn/mx <= 1/2, else +-(mn - mx) /
 * (mn + mx) (k = 1 or 3), signed for the quadrant; 0/0 and inf/inf give
 * r = 0; no correction below |r| = 2^-30; NaN for a NaN operand; y's sign.
 */
LLVMValueRef cg_atan2(Cg *c, LLVMValueRef y, LLVMValueRef x)
{
	LLVMValueRef ax = call1(c, "llvm.fabs.f32", x), ay = call1(c, "llvm.fabs.f32", y);
	LLVMValueRef sw = fcmp(c, LLVMRealOGT, ay, ax), mx = sel(c, sw, ay, ax), mn = sel(c, sw, ax, ay);
	LLVMValueRef S = sel(c, fcmp(c, LLVMRealOGE, mx, fc(c, ATAN2_BIG)), fc(c, ATAN2_DOWN), fc(c, ATAN2_UP));
	LLVMValueRef mxs = mul(c, mx, S), mns = mul(c, mn, S);
	LLVMValueRef dn = sub(c, mns, mxs);
	LLVMValueRef mid = fcmp(c, LLVMRealUGT, add(c, mns, dn), fc(c, 0)); /* mn/mx in (1/2, 1], inf/inf */
	LLVMValueRef sx = with_sign(c, fc(c, 1), x);
	LLVMValueRef num = mul(c, sel(c, mid, dn, mns), mul(c, sx, sel(c, sw, fc(c, -1), fc(c, 1))));
	LLVMValueRef sm = add(c, mxs, mns), dl0 = sub(c, mns, sub(c, sm, mxs)); /* mxs + mns = sm + dl0 */
	LLVMValueRef den = sel(c, mid, sm, mxs), dl = sel(c, mid, dl0, fc(c, 0));
	LLVMValueRef r0 = LLVMBuildFDiv(c->b, num, den, "");
	LLVMValueRef r = sel(c, fcmp(c, LLVMRealUNO, r0, fc(c, 0)), fc(c, 0), r0), t = mul(c, r, r);
	LLVMValueRef d = sel(c, lt(c, t, ATAN2_TINY), fc(c, 0), atan_correction(c, r, num, den, dl));
	LLVMValueRef f = sel(c, mid, fc(c, -1), sel(c, sw, fc(c, 0), fc(c, -2)));
	LLVMValueRef k = fma3(c, sx, f, fc(c, 2)); /* 0 .. 4 */
	LLVMValueRef res = atan_sum(c, k, r, t, d);
	res = sel(c, fcmp(c, LLVMRealUNO, x, y), fc(c, NAN), res);
	return with_sign(c, res, y);
}

/* ---- fmod ---- */

/*
 * fmod of two f32, exactly (LLVM's frem on NVPTX is x - trunc(x/y) y, which
 * loses bits past a quotient of 2^24 and the sign of a zero).  In f64, r =
 * |x| is reduced by d = |y| scaled by 2^k, k making the quotient below
 * 2^26: q d is exact (24 + 26 bits), so r - q d is, and one step more or
 * less fixes q's rounding; each pass takes 24 or more bits off the
 * quotient, so an f32's range is done in 12.  The sign of x goes back on.
 * y = 0, x infinite or a NaN: NaN; |x| < |y| (y infinite too): x.
 */
static LLVMValueRef fmod32(Cg *c, LLVMValueRef x, LLVMValueRef y)
{
	LLVMTypeRef d = LLVMDoubleTypeInContext(c->ctx);
	LLVMValueRef ax = call1(c, "llvm.fabs.f32", x), ay = call1(c, "llvm.fabs.f32", y);
	LLVMValueRef nan = LLVMBuildOr(c->b, LLVMBuildFCmp(c->b, LLVMRealUGE, ax, fc(c, INFINITY), ""),
	                               LLVMBuildFCmp(c->b, LLVMRealUEQ, ay, fc(c, 0), ""), "");
	LLVMValueRef big = LLVMBuildFCmp(c->b, LLVMRealOGE, ax, ay, ""); /* false for NaN */
	LLVMValueRef dd = LLVMBuildFPExt(c->b, ay, d, ""), start = LLVMBuildFPExt(c->b, ax, d, "");
	LLVMValueRef quiet = LLVMBuildSelect(c->b, nan, fc(c, NAN), x, ""); /* NaN, or x where |x| < |y| */
	LLVMBasicBlockRef from = LLVMGetInsertBlock(c->b);
	LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "fmod.loop");
	LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "fmod.done");
	LLVMBuildCondBr(c->b, LLVMBuildAnd(c->b, big, LLVMBuildNot(c->b, nan, ""), ""), loop, done);

	LLVMPositionBuilderAtEnd(c->b, loop);
	LLVMValueRef r = LLVMBuildPhi(c->b, d, "");
	LLVMTypeRef i64 = c->i64;
	LLVMValueRef er = LLVMBuildLShr(c->b, LLVMBuildBitCast(c->b, r, i64, ""), LLVMConstInt(i64, 52, 0), "");
	LLVMValueRef ed = LLVMBuildLShr(c->b, LLVMBuildBitCast(c->b, dd, i64, ""), LLVMConstInt(i64, 52, 0), "");
	LLVMValueRef k = LLVMBuildSub(c->b, LLVMBuildSub(c->b, er, ed, ""), LLVMConstInt(i64, 24, 0), "");
	k = LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntSGT, k, LLVMConstInt(i64, 0, 0), ""), k,
	                    LLVMConstInt(i64, 0, 0), "");
	/* 2^k as an f64: exponent field 1023 + k (k <= 278) */
	LLVMValueRef p2 = LLVMBuildBitCast(c->b, LLVMBuildShl(c->b, LLVMBuildAdd(c->b, k, LLVMConstInt(i64, 1023, 0), ""),
	                                                       LLVMConstInt(i64, 52, 0), ""), d, "");
	LLVMValueRef ds = LLVMBuildFMul(c->b, dd, p2, "");
	LLVMValueRef q = call1(c, "llvm.trunc.f64", LLVMBuildFDiv(c->b, r, ds, ""));
	LLVMValueRef rn = fma3(c, LLVMBuildFNeg(c->b, q, ""), ds, r);
	rn = LLVMBuildSelect(c->b, LLVMBuildFCmp(c->b, LLVMRealOLT, rn, f64c(c, 0), ""), LLVMBuildFAdd(c->b, rn, ds, ""),
	                     rn, "");
	rn = LLVMBuildSelect(c->b, LLVMBuildFCmp(c->b, LLVMRealOGE, rn, ds, ""), LLVMBuildFSub(c->b, rn, ds, ""), rn, "");
	LLVMValueRef mag = call2(c, "llvm.copysign.f32", LLVMBuildFPTrunc(c->b, rn, c->f32, ""), x);
	LLVMBasicBlockRef latch = LLVMGetInsertBlock(c->b);
	LLVMAddIncoming(r, &start, &from, 1);
	LLVMAddIncoming(r, &rn, &latch, 1);
	LLVMBuildCondBr(c->b, LLVMBuildFCmp(c->b, LLVMRealOGE, rn, dd, ""), loop, done);

	LLVMPositionBuilderAtEnd(c->b, done);
	LLVMValueRef res = LLVMBuildPhi(c->b, c->f32, "");
	LLVMBasicBlockRef ins[2] = {from, latch};
	LLVMAddIncoming(res, (LLVMValueRef[]){quiet, mag}, ins, 2);
	return res;
}

static LLVMValueRef int2(Cg *c, const char *name, LLVMValueRef a, LLVMValueRef b)
{
	return cg_call(c, name, c->i64, (LLVMValueRef[]){a, b}, 2);
}

/* leading zeros of an i64 (64 for 0) */
static LLVMValueRef clz64(Cg *c, LLVMValueRef a)
{
	return cg_call(c, "llvm.ctlz.i64", c->i64, (LLVMValueRef[]){a, LLVMConstInt(c->i1, 0, 0)}, 2);
}

#define MANT ((1ull << 52) - 1)

/*
 * The bits a of a finite |f64| other than 0 as m 2^(e - 1075), m's top bit
 * bit 52 (11 leading zeros): a normal's mantissa and implicit bit, or a
 * subnormal's mantissa shifted up by sh, its leading zeros past 11; e is
 * the exponent field (1 for a subnormal) less sh.
 */
static LLVMValueRef unpack64(Cg *c, LLVMValueRef a, LLVMValueRef *e)
{
	LLVMValueRef sh = LLVMBuildSub(c->b, int2(c, "llvm.umax.i64", clz64(c, a), i64c(c, 11)), i64c(c, 11), "");
	LLVMValueRef field = LLVMBuildLShr(c->b, a, i64c(c, 52), "");
	*e = LLVMBuildSub(c->b, int2(c, "llvm.umax.i64", field, i64c(c, 1)), sh, "");
	LLVMValueRef m = LLVMBuildAnd(c->b, LLVMBuildShl(c->b, a, sh, ""), i64c(c, MANT), "");
	return LLVMBuildOr(c->b, m, i64c(c, MANT + 1), "");
}

/*
 * The bits of r 2^(e - 1075), 0 < r < 2^53 and a multiple of the least
 * subnormal (a remainder of two doubles): m = r shifted up to bit 52 and e
 * down with it, t = e - 1; a normal is m + (t << 52) (m's bit 52 carries
 * into the exponent field, making it e), a subnormal (t < 0) m >> -t,
 * exactly: only zeros are shifted out.
 */
static LLVMValueRef pack64(Cg *c, LLVMValueRef r, LLVMValueRef e)
{
	LLVMValueRef sh = LLVMBuildSub(c->b, clz64(c, r), i64c(c, 11), "");
	LLVMValueRef m = LLVMBuildShl(c->b, r, sh, "");
	LLVMValueRef t = LLVMBuildSub(c->b, LLVMBuildSub(c->b, e, sh, ""), i64c(c, 1), "");
	LLVMValueRef zero = i64c(c, 0);
	m = LLVMBuildLShr(c->b, m, int2(c, "llvm.smax.i64", LLVMBuildNeg(c->b, t, ""), zero), "");
	return LLVMBuildAdd(c->b, m, LLVMBuildShl(c->b, int2(c, "llvm.smax.i64", t, zero), i64c(c, 52), ""), "");
}

/*
 * fmod of two f64, exactly, in integers (musl's fmod, in steps): with x =
 * mx 2^ex and y = my 2^ey (unpack64), ex >= ey, the remainder is (mx
 * 2^(ex - ey) mod my) 2^ey, taken FMOD64_STEP bits of the exponent
 * difference at a time, mx = (mx << s) urem my: mx < 2^53 keeps the shift
 * inside 64 bits.  A loop of one pass where the quotient is below 2^11,
 * about 190 for the largest.  The remainder (below |y|, so exact) is packed
 * back with x's sign; a zero one is a zero of x's sign (|x| == |y| too).
 * y = 0, x infinite or a NaN: NaN; |x| < |y| (y infinite, x = 0): x.
 */
static LLVMValueRef fmod64(Cg *c, LLVMValueRef x, LLVMValueRef y)
{
	LLVMTypeRef d = LLVMDoubleTypeInContext(c->ctx), i64 = c->i64;
	LLVMValueRef ux = LLVMBuildBitCast(c->b, x, i64, ""), uy = LLVMBuildBitCast(c->b, y, i64, "");
	LLVMValueRef ax = LLVMBuildAnd(c->b, ux, i64c(c, ~(1ull << 63)), "");
	LLVMValueRef ay = LLVMBuildAnd(c->b, uy, i64c(c, ~(1ull << 63)), "");
	LLVMValueRef sx = LLVMBuildAnd(c->b, ux, i64c(c, 1ull << 63), "");
	LLVMValueRef inf = i64c(c, 0x7ffull << 52);
	LLVMValueRef nan = LLVMBuildOr(c->b, LLVMBuildICmp(c->b, LLVMIntEQ, ay, i64c(c, 0), ""),
	                               LLVMBuildOr(c->b, LLVMBuildICmp(c->b, LLVMIntUGE, ax, inf, ""),
	                                           LLVMBuildICmp(c->b, LLVMIntUGT, ay, inf, ""), ""), "");
	LLVMValueRef big = LLVMBuildICmp(c->b, LLVMIntUGE, ax, ay, "");
	LLVMValueRef quiet = LLVMBuildSelect(c->b, nan, f64c(c, NAN), x, ""); /* NaN, or x where |x| < |y| */
	LLVMValueRef ex, ey, mx0 = unpack64(c, ax, &ex), my = unpack64(c, ay, &ey);
	LLVMValueRef diff = LLVMBuildSub(c->b, ex, ey, "");
	LLVMBasicBlockRef from = LLVMGetInsertBlock(c->b);
	LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "fmod64.loop");
	LLVMBasicBlockRef out = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "fmod64.out");
	LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "fmod64.done");
	LLVMBuildCondBr(c->b, LLVMBuildAnd(c->b, big, LLVMBuildNot(c->b, nan, ""), ""), loop, done);

	/* each pass keeps mx 2^d mod my, the remainder's mantissa, and ends with mx < my */
	LLVMPositionBuilderAtEnd(c->b, loop);
	LLVMValueRef mx = LLVMBuildPhi(c->b, i64, ""), dl = LLVMBuildPhi(c->b, i64, "");
	LLVMValueRef s = int2(c, "llvm.umin.i64", dl, i64c(c, FMOD64_STEP));
	LLVMValueRef mxn = LLVMBuildURem(c->b, LLVMBuildShl(c->b, mx, s, ""), my, "");
	LLVMValueRef dn = LLVMBuildSub(c->b, dl, s, "");
	LLVMAddIncoming(mx, (LLVMValueRef[]){mx0, mxn}, (LLVMBasicBlockRef[]){from, loop}, 2);
	LLVMAddIncoming(dl, (LLVMValueRef[]){diff, dn}, (LLVMBasicBlockRef[]){from, loop}, 2);
	LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntNE, dn, i64c(c, 0), ""), loop, out);

	LLVMPositionBuilderAtEnd(c->b, out);
	LLVMValueRef mag = LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntEQ, mxn, i64c(c, 0), ""), i64c(c, 0),
	                                   pack64(c, mxn, ey), "");
	LLVMValueRef rem = LLVMBuildBitCast(c->b, LLVMBuildOr(c->b, mag, sx, ""), d, "");
	LLVMBuildBr(c->b, done);

	LLVMPositionBuilderAtEnd(c->b, done);
	LLVMValueRef res = LLVMBuildPhi(c->b, d, "");
	LLVMAddIncoming(res, (LLVMValueRef[]){quiet, rem}, (LLVMBasicBlockRef[]){from, out}, 2);
	return res;
}

/* x % y for floats (f32 or f64; f16 and bf16 come as f32): fmod, exactly */
LLVMValueRef cg_fmod(Cg *c, LLVMValueRef x, LLVMValueRef y)
{
	return LLVMTypeOf(x) == c->f32 ? fmod32(c, x, y) : fmod64(c, x, y);
}
