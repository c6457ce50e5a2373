/*
 * cg_math.c: sin, cos, tanh and erf of one f32 register, as LLVM IR.
 *
 * PTX has sin.approx and cos.approx (absolute error 2^-20.9 only near 0,
 * nothing past |x| of a few hundred), tanh.approx (2^-11 relative) and no
 * erf, while CUDA's sinf, cosf, tanhf and erff, which Triton's tl.sin,
 * tl.cos, tl.erf and libdevice tanh call, are within 2 ulp everywhere.  So
 * these are tilec's own, to the same standard: polynomials fitted (minimax,
 * relative error) to each function on a short interval, evaluated by Horner
 * with fma, and a range reduction to reach them.  The coefficients and the
 * measured errors over every f32 input come from the models in
 * docs/math.md.
 *
 *   tanh: |x| < 0.6: x + x t P(t), t = x^2; else 1 - 2 / (e^2|x| + 1), with
 *         ex2.approx and rcp.approx; sign restored.  Both sides computed,
 *         one selected: no branch.
 *   erf:  |x| < 1: x P(x^2); else 1 - 2^Q(s), Q fitted to log2 erfc on
 *         [1, 4] in s = (2|x| - 5) / 3 (erf rounds to 1 past 3.92); sign
 *         restored.  No branch.
 *   sin, cos: x = q pi/2 + r, |r| <= pi/4, then sin r or cos r by the
 *         quadrant q mod 4.  For |x| <= FAST_MAX, r = x - q pi/2 with pi/2
 *         in three f32 parts (Cody and Waite, with fma); above it a branch
 *         to Payne and Hanek's reduction in f64: |x| = m 2^e with m < 2^24,
 *         and 2/pi in 24-bit chunks c_i, so each m c_i 2^(e - 24 (i + 1))
 *         is exact in f64 and only the chunks whose products are not
 *         multiples of 4 matter.
 */
#include "cg.h"

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

/*
 * The constants, each fitted or checked by the models (docs/math.md says
 * how); polynomial coefficients lowest degree first.
 */
/* tanh */
#define TANH_SPLIT 0x1p+0
static const float tanh_p[] = {-0x1.55553cp-2f, 0x1.110be4p-3f, -0x1.b9623ap-5f, 0x1.6009a2p-6f,
                               -0x1.045fd0p-7f, 0x1.2d9f4ep-9f, -0x1.77ca4cp-12f};
/* erf */
#define ERF_SPLIT 0x1.8p-1
#define ERF_CLAMP 0x1p+2
static const float erf_p[] = {0x1.06eba8p-3f, -0x1.812740p-2f, 0x1.ce2dbcp-4f, -0x1.b810e8p-6f,
                              0x1.554772p-8f, -0x1.b46f0ap-11f, 0x1.b0ca4cp-14f, -0x1.f27bbap-18f};
static const float erf_q[] = {-0x1.d93b7cp+1f, -0x1.1b3ffep+2f, -0x1.41a6cep+0f, -0x1.7cc688p-5f,
                              0x1.42dd7ap-7f, -0x1.172fcap-10f, -0x1.4895c6p-14f};
/* sin, cos: the short reduction up to SC_FAST_MAX, pi/2 = SC_PIO2_1 + SC_PIO2_2 + SC_PIO2_3 */
#define SC_FAST_MAX 0x1.9c8p+16
#define SC_TWO_OVER_PI 0x1.45f306p-1
#define SC_PIO2_1 0x1.921fb4p+0
#define SC_PIO2_2 0x1.4442d0p-24
#define SC_PIO2_3 0x1.84698ap-48
/* the long one: 2/pi = F_0 + F_1 + ..., F_0 of 15 bits, then 24 each; with x's biased exponent
 * at or above sc_exp_from[i], the first product that matters is x F_(i+1); sc_tail[i] is 2/pi
 * less F_0 .. F_(i+2), rounded */
static const double sc_f[] = {0x1.45fp-1, 0x1.836e4ep-16, 0x1.1054ap-42, 0x1.fc2756p-64,
                              0x1.d1f534p-88, 0x1.bb81b4p-113, 0x1.629598p-136};
static const double sc_tail[] = {0x1.fc2757d1f534ep-64, 0x1.d1f534ddc0db6p-88, 0x1.bb81b6c52b328p-113,
                                 0x1.6295993c43904p-136, 0x1.3c439041fe516p-160};
static const int sc_exp_from[] = {167, 191, 215, 239};
static const float sc_sin[] = {-0x1.555544p-3f, 0x1.1106c6p-7f, -0x1.991c26p-13f};
static const float sc_cos[] = {-0.5f, 0x1.55554ap-5f, -0x1.6c0c1ep-10f, 0x1.99e336p-16f};

static LLVMValueRef fc(Cg *c, double v) { return LLVMConstReal(c->f32, v); }

static LLVMValueRef f64c(Cg *c, double v) { return LLVMConstReal(LLVMDoubleTypeInContext(c->ctx), v); }

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

/* |x| <= FAST_MAX: x = q pi/2 + r by 2/pi and pi/2 in three f32 parts; q mod 4 in *n */
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
static LLVMValueRef reduce_slow(Cg *c, LLVMValueRef x, LLVMValueRef *n)
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
	return LLVMBuildFPTrunc(c->b, LLVMBuildFMul(c->b, f, f64c(c, 0x1.921fb54442d18p+0), ""), c->f32, "");
}

LLVMValueRef cg_sin_cos(Cg *c, LLVMValueRef x, bool cos)
{
	LLVMValueRef nf, rf = reduce_fast(c, x, &nf);
	LLVMValueRef fast = LLVMBuildFCmp(c->b, LLVMRealOLE, call1(c, "llvm.fabs.f32", x), fc(c, SC_FAST_MAX), "");
	LLVMBasicBlockRef from = LLVMGetInsertBlock(c->b);
	LLVMBasicBlockRef slow = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "reduce.slow");
	LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "reduce.join");
	LLVMBuildCondBr(c->b, fast, join, slow);
	LLVMPositionBuilderAtEnd(c->b, slow);
	LLVMValueRef ns, rs = reduce_slow(c, x, &ns);
	LLVMBuildBr(c->b, join);
	LLVMPositionBuilderAtEnd(c->b, join);
	LLVMValueRef r = LLVMBuildPhi(c->b, c->f32, ""), n = LLVMBuildPhi(c->b, c->i32, "");
	LLVMAddIncoming(r, (LLVMValueRef[]){rf, rs}, (LLVMBasicBlockRef[]){from, slow}, 2);
	LLVMAddIncoming(n, (LLVMValueRef[]){nf, ns}, (LLVMBasicBlockRef[]){from, slow}, 2);
	if (cos)
		n = LLVMBuildAdd(c->b, n, cg_i32c(c, 1), "");

	/* |r| <= pi/4: sin r = r + r s S(s), cos r = 1 - s/2 + s^2 C(s), s = r^2 */
	LLVMValueRef s = mul(c, r, r);
	LLVMValueRef ps = fma3(c, horner(c, s, sc_sin, NELEM(sc_sin)), s, fc(c, 0)); /* +0 where s is 0 */
	LLVMValueRef vs = fma3(c, ps, r, r);
	LLVMValueRef vc = fma3(c, horner(c, s, sc_cos, NELEM(sc_cos)), s, fc(c, 1));
	LLVMValueRef odd = LLVMBuildTrunc(c->b, n, c->i1, "");
	LLVMValueRef neg = LLVMBuildICmp(c->b, LLVMIntNE, LLVMBuildAnd(c->b, n, cg_i32c(c, 2), ""), cg_i32c(c, 0), "");
	LLVMValueRef v = LLVMBuildSelect(c->b, odd, vc, vs, "");
	return LLVMBuildSelect(c->b, neg, LLVMBuildFNeg(c->b, v, ""), v, "");
}
