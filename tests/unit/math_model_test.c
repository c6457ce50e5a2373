/*
 * math_model_test.c: the steps of cg_math.c's sin, cos, tanh, erf, log1p,
 * expm1, pow, atan and atan2, done in C on the host with the constants the code generator uses
 * (codegen/cg_math.h), against libm's double functions, in ulps of the f32
 * result.  ex2.approx is modelled as exp2f flushed below 2^-126 and
 * rcp.approx as 1/x (the GPU's are within 2^-22 and 1 ulp of them);
 * gpu_test's math case measures the generated code itself.
 *
 * Inputs: every 127th f32 bit pattern up to FLT_MAX (about 17 million
 * each, every exponent), both signs, the f32 values nearest to multiples
 * of pi/2 (found with 2/pi to 1024 bits; the hardest leave a remainder of
 * 2^-29.9), the switch points between the algorithms' pieces, and the
 * special values.  docs/language.md promises 2 ulp.
 */
#pragma GCC optimize("fp-contract=off")
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "codegen/cg_math.h"
#include "../util/check.h"

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static float ex2(float x)
{
	float r = exp2f(x);
	return r < FLT_MIN ? 0 : r;
}

static float horner(float t, const float *k, int n)
{
	float p = k[n - 1];
	for (int i = n - 2; i >= 0; i--)
		p = fmaf(p, t, k[i]);
	return p;
}

static float model_tanh(float x)
{
	float a = fabsf(x), t = a * a;
	float small = fmaf(a * t, horner(t, tanh_p, NELEM(tanh_p)), a);
	float e = ex2(a * 0x1.715476p+1f);
	float large = fmaf(-2.0f, 1.0f / (e + 1.0f), 1.0f);
	return copysignf(a < (float)TANH_SPLIT ? small : large, x);
}

static float model_erf(float x)
{
	float a = fabsf(x), t = a * a;
	float small = fmaf(a, horner(t, erf_p, NELEM(erf_p)), a);
	float s = fminf(a, (float)ERF_CLAMP) - (float)ERF_SPLIT;
	float large = 1.0f - ex2(horner(s, erf_q, NELEM(erf_q)));
	return copysignf(a >= (float)ERF_SPLIT ? large : small, x);
}

static uint32_t bits(float x)
{
	uint32_t u;
	memcpy(&u, &x, 4);
	return u;
}

static float reduce(float x, uint32_t *n, float *lo)
{
	*lo = -0.0f;
	if (fabsf(x) <= (float)SC_FAST_MAX) {
		float j = fmaf(x, (float)SC_TWO_OVER_PI, 0x1.8p+23f);
		float q = j - 0x1.8p+23f;
		float r = fmaf(q, -(float)SC_PIO2_1, x);
		r = fmaf(q, -(float)SC_PIO2_2, r);
		r = fmaf(q, -(float)SC_PIO2_3, r);
		*n = bits(j);
		return r;
	}
	uint32_t e = (bits(x) >> 23) & 0xff;
	int g = 0;
	while (g < 4 && e >= (uint32_t)sc_exp_from[g])
		g++;
	double xd = x, t[4] = {xd * sc_f[g], xd * sc_f[g + 1], xd * sc_f[g + 2], xd * sc_tail[g]};
	double h = fma(-4.0, floor(t[0] * 0.25), t[0]) + fma(-4.0, floor(t[1] * 0.25), t[1]);
	double qm = (h + t[2]) + 0x1.8p+52, q = qm - 0x1.8p+52;
	double f = ((h - q) + t[2]) + t[3];
	uint64_t u;
	memcpy(&u, &qm, 8);
	*n = (uint32_t)u;
	double rd = f * 0x1.921fb54442d18p+0;
	float r = (float)rd;
	*lo = (float)(rd - (double)r);
	return r;
}

static float model_sin_cos(float x, int cos)
{
	uint32_t n;
	float lo, r = reduce(x, &n, &lo), s = r * r;
	n += (uint32_t)cos;
	float vs = r + fmaf(fmaf(horner(s, sc_sin, NELEM(sc_sin)), s, 0.0f), r, lo);
	float vc = fmaf(horner(s, sc_cos, NELEM(sc_cos)), s, 1.0f);
	float v = n & 1 ? vc : vs;
	return n & 2 ? -v : v;
}

static float model(int f, float x)
{
	switch (f) {
	case 0: return model_sin_cos(x, 0);
	case 1: return model_sin_cos(x, 1);
	case 2: return model_tanh(x);
	default: return model_erf(x);
	}
}

static double exact(int f, double x)
{
	return f == 0 ? sin(x) : f == 1 ? cos(x) : f == 2 ? tanh(x) : erf(x);
}

static double ulps(float got, double want)
{
	if (isnan(want))
		return isnan(got) ? 0 : INFINITY;
	int e;
	frexp(fabs(want), &e); /* |want| = m 2^e, 0.5 <= m < 1 */
	double ulp = ldexp(1.0, e - 24 < -149 ? -149 : e - 24);
	return fabs((double)got - want) / ulp; /* NaN got: NaN, never <= */
}

typedef struct Worst {
	double ulps;
	float x;
} Worst;

static void one(int f, float x, Worst *w)
{
	double u = ulps(model(f, x), exact(f, x));
	if (!(u <= w->ulps))
		w->ulps = u, w->x = x;
}

/* ---- merge from here ---- */

static float fbits(uint32_t u)
{
	float x;
	memcpy(&x, &u, 4);
	return x;
}

/*
 * log1p: 1 + x = u + c (two-sum), u = 2^k m with m in [2/3, 4/3), f = m - 1
 * (x itself where k = 0, and no c); log1p(x) = k ln2 + f - f^2/2 + f^3 P(f)
 * + c 2^-k / m, the first terms summed as two f32 each.
 */
static float model_log1p(float x)
{
	float u = x + 1.0f, bp = u - x;
	float c = (x - (u - bp)) + (1.0f - bp);
	int32_t k = (int32_t)(bits(u) - (uint32_t)LOG1P_M0) >> 23;
	float m = fbits(bits(u) - ((uint32_t)k << 23));
	float f = k == 0 ? x : m - 1.0f, kf = (float)k;
	float s = fbits((uint32_t)(127 - (k < 126 ? k : 126)) << 23); /* 2^-k */
	float cs = k == 0 ? 0.0f : c * s;
	float corr = fmaf(cs, f * fmaf(f, 1.0f - f, -1.0f), cs);
	float hf = 0.5f * f, hh = hf * f, hl = fmaf(hf, f, -hh);
	float d = f - hh, derr = (f - d) - hh;
	float A = kf * (float)LOG1P_LN2_HI, z = A + d, zerr = (A - z) + d;
	float lo = ((zerr + derr) - hl) + fmaf(kf, (float)LOG1P_LN2_LO, corr);
	float r = z + fmaf(f * f * f, horner(f, log1p_p, NELEM(log1p_p)), lo);
	r = fabsf(x) < (float)LOG1P_TINY ? x : r;
	r = x == INFINITY ? INFINITY : r;
	r = x == -1.0f ? -INFINITY : r;
	return x >= -1.0f ? r : NAN;
}

/*
 * expm1: x clamped, j = rint(x log2 e), f = x - j ln2 = fh + fl; e^f - 1 =
 * s + elo with s = fh + fh^2/2; 2^j (1 + s + elo) - 1 as A + Aerr = 2^j - 1,
 * z + zerr = A + 2^j s, then one last sum (halved and doubled at j = 128).
 */
static float model_expm1(float x)
{
	float xc = x > (float)EXPM1_XMAX ? (float)EXPM1_XMAX : x;
	xc = xc < (float)EXPM1_XMIN ? (float)EXPM1_XMIN : xc;
	float jm = fmaf(xc, (float)EXPM1_LOG2E, 0x1.8p+23f), nj = -(jm - 0x1.8p+23f);
	int32_t j = (int32_t)(bits(jm) - 0x4b400000u);
	float f1 = fmaf(nj, (float)EXPM1_LN2_HI, xc);
	float fh = fmaf(nj, (float)EXPM1_LN2_LO, f1), fl = fmaf(nj, (float)EXPM1_LN2_LO, f1 - fh);
	float hf = 0.5f * fh, hh = hf * fh, hl = fmaf(hf, fh, -hh);
	float s = fh + hh, serr = (fh - s) + hh;
	float elo = fmaf(fh * fh * fh, horner(fh, expm1_q, NELEM(expm1_q)), (serr + hl) + fmaf(fl, s, fl));
	float sc = fbits((uint32_t)((j < 127 ? j : 127) + 127) << 23);
	float A = j > 24 ? sc : j < -24 ? -1.0f : sc - 1.0f;
	float Aerr = j > 24 ? (j > 127 ? -0.5f : -1.0f) : j < -24 ? sc : 0.0f;
	float B = sc * s, z = A + B, zerr = (A - z) + B;
	float r = (z + fmaf(sc, elo, Aerr + zerr)) * (j > 127 ? 2.0f : 1.0f);
	r = x > (float)EXPM1_XMAX ? INFINITY : r;
	return fabsf(x) < (float)EXPM1_TINY ? x : r;
}

/* infinite results must be exact; the rest in ulps */
static double ulps_lx(float got, double want)
{
	if (isinf((float)want))
		return bits(got) == bits((float)want) ? 0 : INFINITY;
	return ulps(got, want);
}

static void check_log1p_expm1(void)
{
	static const char *const names[] = {"log1p", "expm1"};
	/* the switch points (k or j changes, the clamps, the tiny threshold), a neighbour each side */
	static const float edges[] = {-0x1.555554p-2f, 0x1.555556p-2f, 1.0f, 3.0f, 0x1p+24f, 0x1p+25f,
	                              0x1.555556p+126f, -0x1.fffffep-1f, 0x1p-25f, FLT_MAX, 0x1.62e42ep-2f,
	                              0x1.0a2b24p+4f, -0x1.0a2b24p+4f, 0x1.601e68p+6f, -0x1.154246p+4f,
	                              (float)EXPM1_XMAX, (float)EXPM1_XMIN, 0x1p-126f, 0x1p-149f};
	for (int f = 0; f < 2; f++) {
		double w = 0;
		float at = 0;
		for (int pass = 0; pass < 2; pass++) {
			uint32_t n = pass ? NELEM(edges) : 0x7f800000u / 127 + 1;
			for (uint32_t i = 0; i < n; i++) {
				float e = pass ? edges[i] : fbits(i * 127u);
				float near[] = {e, nextafterf(e, 0), nextafterf(e, INFINITY)};
				for (int k = 0; k < (pass ? 3 : 1); k++)
					for (int sg = 0; sg < 2; sg++) {
						float x = sg ? -near[k] : near[k];
						double want = f ? expm1((double)x) : log1p((double)x);
						double u = ulps_lx(f ? model_expm1(x) : model_log1p(x), want);
						if (!(u <= w))
							w = u, at = x;
					}
			}
		}
		printf("%s: at most %.3f ulp (at %a)\n", names[f], w, (double)at);
		/* every f32: log1p 0.60, expm1 0.56 (scripts/math/log1p_expm1) */
		CHECKF(w <= 1.0, "%s(%a): %.3f ulp, more than 1", names[f], (double)at, w);
	}
	/* special values (C99 Annex F) */
	CHECK(bits(model_log1p(0.0f)) == bits(0.0f) && bits(model_log1p(-0.0f)) == bits(-0.0f));
	CHECK(bits(model_expm1(0.0f)) == bits(0.0f) && bits(model_expm1(-0.0f)) == bits(-0.0f));
	CHECK(model_log1p(-1.0f) == -INFINITY && model_log1p(INFINITY) == INFINITY);
	CHECK(isnan(model_log1p(-INFINITY)) && isnan(model_log1p(-2.0f)) && isnan(model_log1p(-0x1.000002p+0f)));
	CHECK(model_expm1(INFINITY) == INFINITY && model_expm1(-INFINITY) == -1.0f && model_expm1(-FLT_MAX) == -1.0f);
	CHECK(model_expm1(FLT_MAX) == INFINITY && model_expm1(nextafterf((float)EXPM1_XMAX, INFINITY)) == INFINITY);
	CHECK(isfinite(model_expm1((float)EXPM1_XMAX)));
	CHECK(isnan(model_log1p(NAN)) && isnan(model_log1p(-NAN)) && isnan(model_expm1(NAN)) && isnan(model_expm1(-NAN)));
	CHECK(bits(model_log1p(-0x1p-149f)) == bits(-0x1p-149f) && bits(model_expm1(-0x1p-149f)) == bits(-0x1p-149f));
}

/* ---- to here ---- */

static double pow_horner(double t, const double *k, int n)
{
	double p = k[n - 1];
	for (int i = n - 2; i >= 0; i--)
		p = fma(p, t, k[i]);
	return p;
}

static float model_pow(float x, float y)
{
	float ax = fabsf(x);                                          /* 1 */
	double xd = (double)ax;                                       /* 2 */
	uint64_t ix;                                                  /* 3 */
	memcpy(&ix, &xd, 8);
	int64_t k = (int64_t)(ix - (uint64_t)POW_SPLIT_BITS) >> 52;   /* 4, 5 */
	uint64_t im = ix - ((uint64_t)k << 52);                       /* 6 */
	double m;                                                     /* 7 */
	memcpy(&m, &im, 8);
	double f = m - 1.0;                                           /* 8 */
	double q = pow_horner(f, pow_log2_p, NELEM(pow_log2_p));      /* 9 */
	double L = fma(f, q, (double)k);                              /* 10, 11 */
	L = ax == 0.0f ? -INFINITY : L;                               /* 12 */
	L = ax == INFINITY ? INFINITY : L;
	double z = (double)y * L;                                     /* 13, 14 */
	z = z < POW_ZCLAMP ? z : POW_ZCLAMP;                          /* 15 */
	z = z > -POW_ZCLAMP ? z : -POW_ZCLAMP;
	double n = rint(z);                                           /* 16 */
	double r = z - n;                                             /* 17 */
	double p = pow_horner(r, pow_exp2_p, NELEM(pow_exp2_p));      /* 18 */
	uint64_t sb = (uint64_t)((int64_t)n + 1023) << 52;            /* 19 */
	double s;
	memcpy(&s, &sb, 8);
	float a = (float)(p * s);                                     /* 20, 21 */
	int yint = truncf(y) == y;                                    /* 22 */
	float h = y * 0.5f;                                           /* 23 */
	int yodd = yint & (truncf(h) != h);                           /* 24 */
	a = yodd ? copysignf(a, x) : a;                               /* 25 */
	int bad = ((x < 0.0f) & (ax < INFINITY) & !yint) | isunordered(x, y); /* 26 */
	a = bad ? NAN : a;                                            /* 27 */
	int one = (y == 0.0f) | (x == 1.0f) | ((ax == 1.0f) & (fabsf(y) == INFINITY)); /* 28 */
	return one ? 1.0f : a;                                        /* 29 */
}

/* ulps of the f32 result; past FLT_MAX in FLT_MAX's ulp, an infinity as 2^128 unless want rounds to it */
static double pow_ulps(float got, double want)
{
	if (isnan(want) || isnan(got))
		return isnan(want) && isnan(got) ? 0 : INFINITY;
	if (!signbit(got) != !signbit(want))
		return INFINITY;
	double g = got, w = fabs(want), ulp;
	if (isinf(got)) {
		if ((float)want == got)
			return 0;
		g = copysign(0x1p128, got);
	} else if (isinf(want))
		return INFINITY;
	if (w < 0x1p-126)
		ulp = 0x1p-149;
	else if (w >= 0x1p128)
		ulp = 0x1p104;
	else {
		int e;
		frexp(w, &e);
		ulp = ldexp(1.0, e - 24);
	}
	return fabs(g - want) / ulp;
}

static uint64_t pow_rng = 20240601;

static uint64_t pow_next(void) /* splitmix64 */
{
	uint64_t z = (pow_rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static float pow_from_bits(uint32_t u)
{
	float x;
	memcpy(&x, &u, 4);
	return x;
}

static void check_pow(void)
{
	double worst = 0;
	float wx = 0, wy = 0;
	for (int i = 0; i < 4000000; i++) {
		int kind = i & 3;
		double t = -160 + 295 * (double)(pow_next() >> 11) * 0x1p-53;
		float x, y;
		if (kind == 3)
			x = pow_from_bits(0x3f000000u + (uint32_t)(pow_next() % (2u << 23))); /* [1/2, 2) */
		else
			do
				x = pow_from_bits((uint32_t)pow_next() & 0x7fffffffu);
			while (!(x < INFINITY) || x == 0);
		y = kind == 1 ? pow_from_bits((uint32_t)pow_next()) : (float)(t / log2((double)x));
		if (kind == 2)
			x = -x, y = rintf(y);
		double u = pow_ulps(model_pow(x, y), pow((double)x, (double)y));
		if (!(u <= worst))
			worst = u, wx = x, wy = y;
	}
	printf("pow: at most %.6f ulp (at %a, %a)\n", worst, (double)wx, (double)wy);
	CHECKF(worst <= 0.501, "pow(%a, %a): %.6f ulp, more than 0.501", (double)wx, (double)wy, worst);

	/* C99 Annex F (and IEEE 754's pow): x, y, the result */
	static const float special[][3] = {
		{NAN, 0.0f, 1.0f}, {NAN, -0.0f, 1.0f}, {-INFINITY, 0.0f, 1.0f}, {1.0f, NAN, 1.0f},
		{1.0f, -INFINITY, 1.0f}, {-1.0f, INFINITY, 1.0f}, {-1.0f, -INFINITY, 1.0f}, {NAN, 1.0f, NAN},
		{2.0f, NAN, NAN}, {-1.0f, NAN, NAN}, {-8.0f, 1.0f / 3, NAN}, {-0x1p-149f, 0.5f, NAN},
		{-2.0f, 0x1.000002p0f, NAN}, {0.0f, -3.0f, INFINITY}, {-0.0f, -3.0f, -INFINITY},
		{-0.0f, -2.0f, INFINITY}, {-0.0f, -0.5f, INFINITY}, {-0.0f, -INFINITY, INFINITY},
		{0.0f, 3.0f, 0.0f}, {-0.0f, 3.0f, -0.0f}, {-0.0f, 0x1p24f, 0.0f}, {-0.0f, 0.5f, 0.0f},
		{0.5f, -INFINITY, INFINITY}, {-0.5f, -INFINITY, INFINITY}, {2.0f, -INFINITY, 0.0f},
		{-2.0f, -INFINITY, 0.0f}, {0.5f, INFINITY, 0.0f}, {-2.0f, INFINITY, INFINITY},
		{-INFINITY, -3.0f, -0.0f}, {-INFINITY, -2.0f, 0.0f}, {-INFINITY, -0.5f, 0.0f},
		{-INFINITY, 3.0f, -INFINITY}, {-INFINITY, 0.5f, INFINITY}, {INFINITY, -1.0f, 0.0f},
		{INFINITY, 0x1p-149f, INFINITY}, {-2.0f, 3.0f, -8.0f}, {-2.0f, -0x1.fffffep23f, -0.0f},
		{-2.0f, 0x1p24f, INFINITY}, {-2.0f, 0x1.000002p24f, INFINITY}, {-0.5f, 0x1.fffffep23f, -0.0f},
		{-0.5f, -1e10f, INFINITY}, {2.0f, -149.0f, 0x1p-149f}, {2.0f, -150.0f, 0.0f},
		{2.0f, -149.5f, 0x1p-149f}, {2.0f, 127.0f, 0x1p127f}, {2.0f, 128.0f, INFINITY},
		{-2.0f, -149.0f, -0x1p-149f}, {0x1p-149f, -1.0f, INFINITY}, {FLT_MAX, -1.0f, 0x1p-128f},
		{4.0f, 0.5f, 2.0f}, {0x1p-149f, 0.5f, 0x1.6a09e6p-75f},
	};
	for (int i = 0; i < NELEM(special); i++) {
		float x = special[i][0], y = special[i][1], want = special[i][2], got = model_pow(x, y);
		CHECKF(isnan(want) ? isnan(got) : bits(got) == bits(want), "pow(%a, %a) = %a, want %a", (double)x,
		       (double)y, (double)got, (double)want);
	}
}

/*
 * atan and atan2: scripts/math/atan/README.md's step lists (cg_math.c's
 * cg_atan, cg_atan2), with cg_math.h's constants.
 */
static float model_atan(float x)
{
	float a = fabsf(x);
	int mid = a > 0.5f, big = a > 2.0f;
	float am1 = a - 1.0f, ap1 = a + 1.0f, dl0 = a - (ap1 - 1.0f);
	float num = big ? -1.0f : mid ? am1 : a, den = big ? a : mid ? ap1 : 1.0f, dl = big ? 0.0f : mid ? dl0 : 0.0f;
	float r = num / den, t = r * r, p = horner(t, atan_p, NELEM(atan_p)), rt = r * t;
	float e = fmaf(-r, dl, fmaf(-r, den, num)), h = fmaf(r, num, den);
	float d = e * fbits((uint32_t)ATAN_RCP_K - bits(h));
	float k = big ? 2.0f : mid ? 1.0f : 0.0f, C = k * (float)ATAN_PIO4_HI, s = C + r, err = (C - s) + r;
	float res = s + fmaf(rt, p, fmaf(k, (float)ATAN_PIO4_LO, err) + d);
	return copysignf(a >= (float)ATAN_HUGE ? (float)ATAN_PIO2 : res, x);
}

static float model_atan2(float y, float x)
{
	float ax = fabsf(x), ay = fabsf(y);
	int sw = ay > ax;
	float mx = sw ? ay : ax, mn = sw ? ax : ay, S = mx >= (float)ATAN2_BIG ? (float)ATAN2_DOWN : (float)ATAN2_UP;
	float mxs = mx * S, mns = mn * S, dn = mns - mxs;
	int mid = !((mns + dn) <= 0.0f);
	float sx = copysignf(1.0f, x), num = (mid ? dn : mns) * (sx * (sw ? -1.0f : 1.0f));
	float sm = mxs + mns, dl0 = mns - (sm - mxs), den = mid ? sm : mxs, dl = mid ? dl0 : 0.0f;
	float r0 = num / den, r = isnan(r0) ? 0.0f : r0, t = r * r, p = horner(t, atan_p, NELEM(atan_p)), rt = r * t;
	float e = fmaf(-r, dl, fmaf(-r, den, num)), h = fmaf(r, num, den);
	float d = t < (float)ATAN2_TINY ? 0.0f : e * fbits((uint32_t)ATAN_RCP_K - bits(h));
	float k = fmaf(sx, mid ? -1.0f : sw ? 0.0f : -2.0f, 2.0f), C = k * (float)ATAN_PIO4_HI, s = C + r;
	float err = (C - s) + r, res = s + fmaf(rt, p, fmaf(k, (float)ATAN_PIO4_LO, err) + d);
	return copysignf(isnan(x) || isnan(y) ? NAN : res, y);
}

/* ulps of the f32 result; a wrong zero, infinity or NaN is infinitely wrong */
static double atan_ulps(float got, double want)
{
	if (isnan(want) || want == 0 || isinf(got))
		return bits(got) == bits((float)want) || (isnan(want) && isnan(got)) ? 0 : INFINITY;
	return ulps(got, want);
}

static void check_atan(void)
{
	/* every 251st f32 of both signs: the README's run of all 2^32 gives 0.6844 */
	double worst = 0;
	float wx = 0;
	for (uint32_t u = 0; u < 0x7f800000u; u += 251) {
		float x = fbits(u), v[2] = {x, -x};
		for (int i = 0; i < 2; i++) {
			double e = fabsf(x) <= 0x1p-12f ? (bits(model_atan(v[i])) == bits(v[i]) ? 0 : INFINITY)
			                                : atan_ulps(model_atan(v[i]), atan((double)v[i]));
			if (!(e <= worst))
				worst = e, wx = v[i];
		}
	}
	printf("atan: at most %.4f ulp (at %a)\n", worst, (double)wx);
	CHECKF(worst <= 0.6844, "atan(%a): %.4f ulp, more than scripts/math/atan's 0.6844", (double)wx, worst);
	CHECK(bits(model_atan(-0.0f)) == bits(-0.0f) && isnan(model_atan(NAN)) && isnan(model_atan(-NAN)));
	CHECK(model_atan(INFINITY) == 0x1.921fb6p+0f && model_atan(-INFINITY) == -0x1.921fb6p+0f);
	CHECK(model_atan(1.0f) == 0x1.921fb6p-1f && model_atan(-1.0f) == -0x1.921fb6p-1f);

	/* atan2: random bits, nearby magnitudes (the middle reduction), y = x u; the largest found is 0.7014 */
	worst = 0;
	float wy = 0;
	/* the two worst found: on the H100 over 2^30 pairs (scripts/math/gpu_sweep.py), in the C model over 6e9 */
	static const float hard[][2] = {{-0x1.1fe246p-62f, 0x1.28a75ep-61f}, {-0x1.afa01ep-114f, 0x1.b0fc4ap-113f}};
	for (int i = 0; i < NELEM(hard); i++) {
		double e = atan_ulps(model_atan2(hard[i][0], hard[i][1]), atan2((double)hard[i][0], (double)hard[i][1]));
		if (!(e <= worst))
			worst = e, wy = hard[i][0], wx = hard[i][1];
	}
	for (int i = 0; i < 3000000; i++) {
		uint32_t a = (uint32_t)pow_next() % 0x7f800000u, b = (uint32_t)pow_next() % 0x7f800000u;
		if (i % 3 == 1) {
			int64_t m = (int64_t)a + (int64_t)(pow_next() % (1u << 25)) - (1 << 24);
			b = (uint32_t)(m < 0 ? 0 : m > 0x7f7fffff ? 0x7f7fffff : m);
		}
		float y = fbits(a | (uint32_t)(pow_next() & 1) << 31), x = fbits(b | (uint32_t)(pow_next() & 1) << 31);
		if (i % 3 == 2)
			y = (float)((double)x * exp2(-40.0 * (double)(pow_next() >> 11) * 0x1p-53));
		if (i % 6 == 5) {
			float tmp = x;
			x = y, y = tmp;
		}
		double e = atan_ulps(model_atan2(y, x), atan2((double)y, (double)x));
		if (!(e <= worst))
			worst = e, wy = y, wx = x;
	}
	printf("atan2: at most %.4f ulp (at %a, %a)\n", worst, (double)wy, (double)wx);
	CHECKF(worst <= 0.7015, "atan2(%a, %a): %.5f ulp, more than 0.7015 (the largest found)", (double)wy, (double)wx,
	       worst);
	/* every pair where an operand is 0, infinite or NaN: as C99 says (the double atan2 rounded), and the rest
	 * of the table within 0.57 ulp */
	static const float sv[] = {0.0f, 0x1p-149f, 0x1.fffffcp-127f, 0x1p-126f, 0x1p-12f, 1.0f, 0x1.fffffep-1f,
	                           0x1.000002p0f, 0x1.921fb6p+0f, 0x1p+64f, 0x1.fffffep+63f, 0x1p+126f, FLT_MAX,
	                           INFINITY, NAN};
	for (int i = 0; i < 2 * NELEM(sv); i++)
		for (int j = 0; j < 2 * NELEM(sv); j++) {
			float y = i % 2 ? -sv[i / 2] : sv[i / 2], x = j % 2 ? -sv[j / 2] : sv[j / 2], got = model_atan2(y, x);
			double want = atan2((double)y, (double)x);
			if (!isfinite(x) || !isfinite(y) || x == 0 || y == 0)
				CHECKF(isnan(want) ? isnan(got) : bits(got) == bits((float)want), "atan2(%a, %a) = %a, want %a",
				       (double)y, (double)x, (double)got, want);
			else
				CHECKF(atan_ulps(got, want) <= 0.5682, "atan2(%a, %a) = %a, want %a", (double)y, (double)x,
				       (double)got, want);
		}
}

int main(void)
{
	static const char *const names[] = {"sin", "cos", "tanh", "erf"};
	/* nearest to multiples of pi/2, the hardest of several binades */
	static const float hard[] = {0x1.f37c8ap+95f, 0x1.47d0fep+34f, 0x1.f9cbe2p+7f, 0x1.32ede2p+85f,
	                             0x1.628d4cp+40f, 0x1.13093p+76f, 0x1.b08c4ap+111f, 0x1.921fb6p+0f,
	                             0x1.2d97c8p+3f, 0x1.921fb6p+1f};
	/* the switch points, and a neighbour on each side */
	static const float edges[] = {(float)SC_FAST_MAX, (float)TANH_SPLIT, (float)ERF_SPLIT, (float)ERF_CLAMP,
	                              0x1p-126f, 0x1p-149f, FLT_MAX, 1.0f, 0x1.ep+1f};
	for (int f = 0; f < 4; f++) {
		Worst w = {0, 0};
		for (uint32_t u = 0; u < 0x7f800000u; u += 127) {
			float x;
			memcpy(&x, &u, 4);
			one(f, x, &w);
			one(f, -x, &w);
		}
		for (int i = 0; i < NELEM(hard); i++)
			one(f, hard[i], &w), one(f, -hard[i], &w);
		for (int i = 0; i < NELEM(edges); i++) {
			float e = edges[i];
			float near[] = {e, nextafterf(e, 0), nextafterf(e, INFINITY)};
			for (int k = 0; k < 3; k++)
				one(f, near[k], &w), one(f, -near[k], &w);
		}
		printf("%s: at most %.3f ulp (at %a)\n", names[f], w.ulps, (double)w.x);
		CHECKF(w.ulps <= 2.0, "%s(%a): %.3f ulp, more than docs/language.md's 2", names[f], (double)w.x, w.ulps);
	}
	/* special values */
	CHECK(bits(model(0, -0.0f)) == bits(-0.0f) && bits(model(2, -0.0f)) == bits(-0.0f) &&
	      bits(model(3, -0.0f)) == bits(-0.0f) && model(1, -0.0f) == 1.0f);
	for (int f = 0; f < 4; f++)
		CHECKF(isnan(model(f, NAN)), "%s(NaN) is %a", names[f], (double)model(f, NAN));
	CHECK(isnan(model(0, INFINITY)) && isnan(model(1, -INFINITY)));
	CHECK(model(2, INFINITY) == 1.0f && model(2, -INFINITY) == -1.0f);
	CHECK(model(3, INFINITY) == 1.0f && model(3, -INFINITY) == -1.0f);
	check_log1p_expm1();
	check_pow();
	check_atan();
	return check_summary("math_model");
}
