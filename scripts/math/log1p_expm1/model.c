/*
 * model.c: f32 log1p and expm1, step for step as the generated code does
 * them (README.md's step lists; one rounding per operation, fmaf where the
 * code has fma, no contraction, no double inside the models), against
 * glibc's double log1p and expm1, in ulps of the f32 result (ulp as
 * tests/gpu/gpu_test.c's ulp_f32: 2^-149 below 2^-126, else 2^(e-24) for
 * |y| = m 2^e, 0.5 <= m < 1).
 *
 *   gcc -O2 model.c -lm -lpthread
 *   ./a.out all       every f32 bit pattern (both signs, infinities, NaNs), 2 threads
 *   ./a.out N         every Nth bit pattern
 *   ./a.out special   the special-value table only
 *
 * A result counts as wrong (infinite error) where the reference, rounded to
 * f32, is infinite or NaN and the model's is not the same, or the other way
 * round; -0 and +0 are told apart for x = +-0 and tiny x (the result is x).
 */
#pragma GCC optimize("fp-contract=off")
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consts.h"

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static inline uint32_t bits(float x)
{
	uint32_t u;
	memcpy(&u, &x, 4);
	return u;
}

static inline float fbits(uint32_t u)
{
	float x;
	memcpy(&x, &u, 4);
	return x;
}

/* k[0] + k[1] t + ..., Horner with fma from the top */
static inline float horner(float t, const float *k, int n)
{
	float p = k[n - 1];
	for (int i = n - 2; i >= 0; i--)
		p = fmaf(p, t, k[i]);
	return p;
}

/* ---------------- log1p (README.md's steps) ---------------- */
static float model_log1p(float x)
{
	/* 1 + x = u + c exactly (two-sum) */
	float u = x + 1.0f;                                     /*  1 */
	float bp = u - x;                                       /*  2 */
	float ap = u - bp;                                      /*  3 */
	float db = 1.0f - bp;                                   /*  4 */
	float da = x - ap;                                      /*  5 */
	float c = da + db;                                      /*  6 */
	/* u = 2^k m, m in [2/3, 4/3) */
	int32_t iu = (int32_t)bits(u);                          /*  7 */
	int32_t k = (int32_t)((uint32_t)iu - LOG1P_M0) >> 23;   /*  8, 9 */
	float m = fbits((uint32_t)iu - ((uint32_t)k << 23));    /* 10-12 */
	int k0 = k == 0;                                        /* 13 */
	float f = k0 ? x : m - 1.0f;                            /* 14, 15 */
	float kf = (float)k;                                    /* 16 */
	int32_t ks = k < 126 ? k : 126;                         /* 17 */
	float s = fbits((uint32_t)(127 - ks) << 23);            /* 18-20: 2^-k */
	float cs = k0 ? 0.0f : c * s;                           /* 21, 22 */
	float gm = f * fmaf(f, 1.0f - f, -1.0f);                /* 23-25: 1/m - 1 */
	float corr = fmaf(cs, gm, cs);                          /* 26: c 2^-k / m */
	/* f - f^2/2 = d + derr - hl */
	float hf = 0.5f * f;                                    /* 27 */
	float hh = hf * f;                                      /* 28 */
	float hl = fmaf(hf, f, -hh);                            /* 29, 30 */
	float d = f - hh;                                       /* 31 */
	float derr = (f - d) - hh;                              /* 32, 33 */
	/* k ln2_hi + d = z + zerr */
	float A = kf * (float)LOG1P_LN2_HI;                     /* 34 */
	float z = A + d;                                        /* 35 */
	float zerr = (A - z) + d;                               /* 36, 37 */
	/* the rest */
	float t = f * f;                                        /* 38 */
	float f3 = t * f;                                       /* 39 */
	float p = horner(f, log1p_p, NELEM(log1p_p));           /* 40 */
	float lo = ((zerr + derr) - hl) + fmaf(kf, (float)LOG1P_LN2_LO, corr); /* 41-44 */
	float y = fmaf(f3, p, lo);                              /* 45 */
	float r = z + y;                                        /* 46 */
	/* special values */
	r = fabsf(x) < (float)LOG1P_TINY ? x : r;               /* 47-49 */
	r = x == INFINITY ? INFINITY : r;                       /* 50, 51 */
	r = x == -1.0f ? -INFINITY : r;                         /* 52, 53 */
	r = x >= -1.0f ? r : NAN;                               /* 54, 55: NaN, x < -1 */
	return r;
}

/* ---------------- expm1 (README.md's steps) ---------------- */
static float model_expm1(float x)
{
	float xc = x > (float)EXPM1_XMAX ? (float)EXPM1_XMAX : x;   /*  1, 2 */
	xc = xc < (float)EXPM1_XMIN ? (float)EXPM1_XMIN : xc;       /*  3, 4 */
	/* j = rint(xc log2 e) */
	float jm = fmaf(xc, (float)EXPM1_LOG2E, 0x1.8p+23f);        /*  5 */
	float jf = jm - 0x1.8p+23f;                                 /*  6 */
	int32_t j = (int32_t)(bits(jm) - 0x4b400000u);              /*  7, 8 */
	/* xc - j ln2 = fh + fl */
	float nj = -jf;                                             /*  9 */
	float f1 = fmaf(nj, (float)EXPM1_LN2_HI, xc);               /* 10 */
	float fh = fmaf(nj, (float)EXPM1_LN2_LO, f1);               /* 11 */
	float fl = fmaf(nj, (float)EXPM1_LN2_LO, f1 - fh);          /* 12, 13 */
	/* e^f - 1 = s + elo */
	float hf = 0.5f * fh;                                       /* 14 */
	float hh = hf * fh;                                         /* 15 */
	float hl = fmaf(hf, fh, -hh);                               /* 16, 17 */
	float s = fh + hh;                                          /* 18 */
	float serr = (fh - s) + hh;                                 /* 19, 20 */
	float t = fh * fh;                                          /* 21 */
	float f3 = t * fh;                                          /* 22 */
	float q = horner(fh, expm1_q, NELEM(expm1_q));              /* 23 */
	float elo = fmaf(f3, q, (serr + hl) + fmaf(fl, s, fl));     /* 24-27 */
	/* 2^j (1 + s + elo) - 1 */
	int32_t jb = j < 127 ? j : 127;                             /* 28 */
	float sc = fbits((uint32_t)(jb + 127) << 23);               /* 29-31: 2^jb */
	int big = j > 24, neg = j < -24, top = j > 127;             /* 32-34 */
	float A = big ? sc : neg ? -1.0f : sc - 1.0f;               /* 35-37 */
	float Aerr = big ? (top ? -0.5f : -1.0f) : neg ? sc : 0.0f; /* 38-40 */
	float mult = top ? 2.0f : 1.0f;                             /* 41 */
	float B = sc * s;                                           /* 42 */
	float z = A + B;                                            /* 43 */
	float zerr = (A - z) + B;                                   /* 44, 45 */
	float r = (z + fmaf(sc, elo, Aerr + zerr)) * mult;          /* 46-49 */
	/* special values */
	r = x > (float)EXPM1_XMAX ? INFINITY : r;                   /* 50, 51 */
	r = fabsf(x) < (float)EXPM1_TINY ? x : r;                   /* 52-54 */
	return r;
}

/* ---------------- measurement ---------------- */
static double ulp_f32(double y)
{
	y = fabs(y);
	if (y < 0x1p-126)
		return 0x1p-149;
	int e;
	frexp(y, &e);
	return ldexp(1.0, e - 24);
}

/* error in ulps; INFINITY for a wrong special value */
static double err(float got, double want, float x)
{
	float w32 = (float)want;
	if (isnan(want) || isinf(w32))
		return (isnan(want) ? isnan(got) : bits(got) == bits(w32)) ? 0 : INFINITY;
	if (!isfinite(got))
		return INFINITY;
	if (fabsf(x) < 0x1p-25f && bits(got) != bits(x))
		return INFINITY; /* tiny x (and +-0): x itself, sign and all */
	return fabs((double)got - want) / ulp_f32(want);
}

static float model(int fn, float x) { return fn ? model_expm1(x) : model_log1p(x); }
static double exact(int fn, float x) { return fn ? expm1((double)x) : log1p((double)x); }
static const char *const names[] = {"log1p", "expm1"};

enum { NT = 2 };
typedef struct {
	uint64_t stride, start;
	double worst[2];
	float at[2];
	uint64_t over1[2], over05[2], bad[2], n;
} Job;

static void *worker(void *vp)
{
	Job *J = vp;
	for (uint64_t u = J->start * J->stride; u <= 0xffffffffu; u += J->stride * NT) {
		float x = fbits((uint32_t)u);
		J->n++;
		for (int fn = 0; fn < 2; fn++) {
			double e = err(model(fn, x), exact(fn, x), x);
			if (e == INFINITY)
				J->bad[fn]++;
			else {
				if (e > 1.0)
					J->over1[fn]++;
				if (e > 0.5)
					J->over05[fn]++;
				if (e > J->worst[fn])
					J->worst[fn] = e, J->at[fn] = x;
			}
		}
	}
	return NULL;
}

static int check_specials(void)
{
	struct {
		int fn;
		float x, want;
	} sp[] = {
	    {0, 0.0f, 0.0f},       {0, -0.0f, -0.0f},      {0, -1.0f, -INFINITY}, {0, INFINITY, INFINITY},
	    {0, -INFINITY, NAN},   {0, -2.0f, NAN},        {0, -1.0000001f, NAN}, {0, NAN, NAN},
	    {0, -NAN, NAN},        {0, 0x1p-149f, 0x1p-149f}, {0, -0x1p-149f, -0x1p-149f},
	    {0, 0x1p-126f, 0x1p-126f}, {0, -0x1p-126f, -0x1p-126f},
	    {1, 0.0f, 0.0f},       {1, -0.0f, -0.0f},      {1, INFINITY, INFINITY}, {1, -INFINITY, -1.0f},
	    {1, NAN, NAN},         {1, -NAN, NAN},         {1, 0x1p-149f, 0x1p-149f}, {1, -0x1p-149f, -0x1p-149f},
	    {1, 0x1p-126f, 0x1p-126f}, {1, -0x1p-126f, -0x1p-126f}, {1, 100.0f, INFINITY},
	    {1, 0x1.62e430p+6f, INFINITY}, {1, FLT_MAX, INFINITY}, {1, -FLT_MAX, -1.0f}, {1, -20.0f, -1.0f},
	    {1, -100.0f, -1.0f},
	};
	int bad = 0;
	for (int i = 0; i < NELEM(sp); i++) {
		float got = model(sp[i].fn, sp[i].x), want = sp[i].want;
		int ok = isnan(want) ? isnan(got) : bits(got) == bits(want);
		printf("  %s(%a) = %a, want %a %s\n", names[sp[i].fn], (double)sp[i].x, (double)got, (double)want,
		       ok ? "ok" : "WRONG");
		bad += !ok;
	}
	/* NaN payloads: every one comes out NaN (a sample of them) */
	for (uint32_t u = 0x7f800001u; u < 0x80000000u; u += 4099)
		for (int fn = 0; fn < 2; fn++)
			bad += !isnan(model(fn, fbits(u))) + !isnan(model(fn, fbits(u | 0x80000000u)));
	/* the largest finite expm1 and its neighbour */
	float xm = (float)EXPM1_XMAX;
	float y0 = model_expm1(xm), y1 = model_expm1(nextafterf(xm, INFINITY));
	printf("  expm1(%a) = %a (%.4f ulp), expm1(%a) = %a\n", (double)xm, (double)y0, err(y0, expm1(xm), xm),
	       (double)nextafterf(xm, INFINITY), (double)y1);
	bad += !(isfinite(y0) && isinf(y1));
	printf("special values: %s\n", bad ? "WRONG" : "all ok");
	return bad;
}

/* the switch points, with their neighbours */
static void edges(void)
{
	static const float pts[] = {
	    /* log1p: u = 1 + x crossing 2/3, 4/3 and powers of 2 (k changes), x = -1 + 2^-24, the tiny threshold */
	    -0x1.555554p-2f, 0x1.555556p-2f, 1.0f, 3.0f, 0x1p+24f, 0x1p+25f, 0x1.555556p+126f, -0x1.fffffep-1f,
	    0x1p-25f, -0x1p-25f, FLT_MAX,
	    /* expm1: j = 0/1, j = -1/0, j = 24/25, j = -24/-25, j = 127/128, the clamps, tiny */
	    0x1.62e42ep-2f, -0x1.62e42ep-2f, 0x1.0a2b24p+4f, -0x1.0a2b24p+4f, 0x1.601e68p+6f, -0x1.154246p+4f,
	    (float)EXPM1_XMAX, (float)EXPM1_XMIN, -0x1.154246p+4f,
	};
	for (int fn = 0; fn < 2; fn++) {
		double w = 0;
		float at = 0;
		for (int i = 0; i < NELEM(pts); i++)
			for (int d = -2; d <= 2; d++) {
				float x = pts[i];
				for (int s = 0; s < (d < 0 ? -d : d); s++)
					x = nextafterf(x, d < 0 ? -INFINITY : INFINITY);
				double e = err(model(fn, x), exact(fn, x), x);
				if (!(e <= w))
					w = e, at = x;
			}
		printf("%s switch points: at most %.4f ulp (at %a)\n", names[fn], w, (double)at);
	}
}

int main(int argc, char **argv)
{
	int bad = check_specials();
	edges();
	if (argc > 1 && strcmp(argv[1], "special") == 0)
		return bad != 0;
	uint64_t stride = argc > 1 && strcmp(argv[1], "all") != 0 ? strtoull(argv[1], NULL, 0) : 1;
	if (argc < 2)
		stride = 127;
	printf("every %llu%s f32 bit pattern, both signs\n", (unsigned long long)stride,
	       stride == 1 ? "st (all 2^32)" : "th");
	Job J[NT];
	pthread_t th[NT];
	for (int i = 0; i < NT; i++) {
		memset(&J[i], 0, sizeof J[i]);
		J[i].stride = stride;
		J[i].start = (uint64_t)i;
		pthread_create(&th[i], NULL, worker, &J[i]);
	}
	for (int i = 0; i < NT; i++)
		pthread_join(th[i], NULL);
	uint64_t n = 0;
	for (int i = 0; i < NT; i++)
		n += J[i].n;
	for (int fn = 0; fn < 2; fn++) {
		double w = 0;
		float at = 0;
		uint64_t o1 = 0, o05 = 0, b = 0;
		for (int i = 0; i < NT; i++) {
			if (J[i].worst[fn] > w)
				w = J[i].worst[fn], at = J[i].at[fn];
			o1 += J[i].over1[fn], o05 += J[i].over05[fn], b += J[i].bad[fn];
		}
		printf("%s: %llu inputs, max %.4f ulp at x = %a (%.9g): got %a, want %.9g; > 0.5 ulp: %llu, > 1 ulp: %llu, "
		       "wrong special values: %llu\n",
		       names[fn], (unsigned long long)n, w, (double)at, (double)at, (double)model(fn, at), exact(fn, at),
		       (unsigned long long)o05, (unsigned long long)o1, (unsigned long long)b);
		bad += b != 0;
	}
	return bad != 0;
}
