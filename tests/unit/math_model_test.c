/*
 * math_model_test.c: the steps of cg_math.c's sin, cos, tanh and erf, done
 * in C on the host with the constants the code generator uses
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
	return check_summary("math_model");
}
