/*
 * unit_snippet.c: log1p and expm1 for tests/unit/math_model_test.c, once
 * consts.h's constants are in codegen/cg_math.h.  To merge: the two model
 * functions and check_log1p_expm1() go after model_sin_cos (horner, bits,
 * ulps and NELEM are the test's own; the block under STANDALONE stands in
 * for them here), and main() calls check_log1p_expm1() before
 * check_summary.  The comment at the top of the test gains "log1p, expm1".
 *
 * Standalone, from the repository root:
 *   gcc -O2 -DSTANDALONE -Iscripts/math/log1p_expm1 -Itests/unit scripts/math/log1p_expm1/unit_snippet.c -lm && ./a.out
 */
#ifdef STANDALONE
#pragma GCC optimize("fp-contract=off")
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "consts.h" /* merged: codegen/cg_math.h */
#include "../util/check.h"

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static float horner(float t, const float *k, int n)
{
	float p = k[n - 1];
	for (int i = n - 2; i >= 0; i--)
		p = fmaf(p, t, k[i]);
	return p;
}

static uint32_t bits(float x)
{
	uint32_t u;
	memcpy(&u, &x, 4);
	return u;
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
#endif

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

#ifdef STANDALONE
int main(void)
{
	check_log1p_expm1();
	return check_summary("math_model (log1p, expm1)");
}
#endif
