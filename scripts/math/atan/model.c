/*
 * model.c: f32 atan and atan2, step for step as the generated code does
 * them (README.md's step lists; one rounding per operation, fmaf where the
 * code has fma, one correctly rounded division, no contraction, no double
 * inside the models), against glibc's double atan and atan2, in ulps of the
 * f32 result (ulp as tests/gpu/gpu_test.c's ulp_f32: 2^-149 below 2^-126,
 * else 2^(e-24) for |y| = m 2^e, 0.5 <= m < 1).
 *
 *   gcc -O2 -ffp-contract=off model.c -lm -lpthread
 *   ./a.out all         atan at every f32 bit pattern (both signs, infinities, NaNs), 2 threads
 *   ./a.out N           atan at every Nth bit pattern
 *   ./a.out special     the special-value tables of atan and atan2 (every pair of the atan2 table)
 *   ./a.out pairs N     atan2 on N pairs of random bits, and N/2 pairs of each structured class
 *                       (y/x near 1, y/x spread over [2^-40, 1], angles near the result's binade
 *                       and octant edges, tiny, huge and subnormal operands), 2 threads
 *
 * A result counts as wrong (infinite error) where the reference is NaN and
 * the model's is not, where the reference is exactly +-0 or rounds to an
 * infinite f32 and the model's bits differ, and for atan where |x| <= 2^-12
 * (+-0 and subnormals included) and the result is not x itself. The
 * special-value tables check the values C99 fixes bit for bit.
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

/* ---------------- atan (README.md's steps) ---------------- */
static float model_atan(float x)
{
	float a = fabsf(x);                                     /*  1 */
	int mid = a > 0.5f;                                     /*  2 */
	int big = a > 2.0f;                                     /*  3 */
	/* a + 1 = ap1 + dl0 exactly (a in (1/2, 2]) */
	float am1 = a - 1.0f;                                   /*  4: exact in (1/2, 2] */
	float ap1 = a + 1.0f;                                   /*  5 */
	float dl0 = a - (ap1 - 1.0f);                           /*  6, 7 */
	/* r = num/den: a/1, (a - 1)/(a + 1), -1/a */
	float num = big ? -1.0f : mid ? am1 : a;                /*  8, 9 */
	float den = big ? a : mid ? ap1 : 1.0f;                 /* 10, 11 */
	float dl = big ? 0.0f : mid ? dl0 : 0.0f;               /* 12, 13: den's rounding error */
	float r = num / den;                                    /* 14: the one division */
	float t = r * r;                                        /* 15 */
	float p = horner(t, atan_p, NELEM(atan_p));             /* 16 */
	float rt = r * t;                                       /* 17 */
	/* num/(den + dl) = r + e/den (to 2^-48); atan moves by e/(den (1 + t)) ~ e/h */
	float e0 = fmaf(-r, den, num);                          /* 18, 19: exact */
	float e = fmaf(-r, dl, e0);                             /* 20 */
	float h = fmaf(r, num, den);                            /* 21 */
	float inv = fbits(ATAN_RCP_K - bits(h));                /* 22-24: ~ 1/h */
	float d = e * inv;                                      /* 25 */
	/* k pi/4 + r + (r t P + d), k = 0, 1, 2 */
	float k = big ? 2.0f : mid ? 1.0f : 0.0f;               /* 26, 27 */
	float C = k * ATAN_PIO4_HI;                             /* 28: exact */
	float s = C + r;                                        /* 29 */
	float err = (C - s) + r;                                /* 30, 31 */
	float lo1 = fmaf(k, ATAN_PIO4_LO, err);                 /* 32 */
	float lo = fmaf(rt, p, lo1 + d);                        /* 33, 34 */
	float res = s + lo;                                     /* 35 */
	res = a >= ATAN_HUGE ? ATAN_PIO2 : res;                 /* 36, 37 */
	return copysignf(res, x);                               /* 38 */
}

/* ---------------- atan2 (README.md's steps) ---------------- */
static float model_atan2(float y, float x)
{
	float ax = fabsf(x);                                    /*  1 */
	float ay = fabsf(y);                                    /*  2 */
	int sw = ay > ax;                                       /*  3 */
	float mx = sw ? ay : ax;                                /*  4 */
	float mn = sw ? ax : ay;                                /*  5 */
	float S = mx >= ATAN2_BIG ? ATAN2_DOWN : ATAN2_UP;      /*  6, 7 */
	float mxs = mx * S;                                     /*  8 */
	float mns = mn * S;                                     /*  9 */
	/* middle: mn/mx in (1/2, 1] (and inf/inf) */
	float dn = mns - mxs;                                   /* 10: exact in the middle */
	int mid = !((mns + dn) <= 0.0f);                        /* 11, 12: fcmp ugt */
	float v = mid ? dn : mns;                               /* 13 */
	float sx = copysignf(1.0f, x);                          /* 14 */
	float q = sx * (sw ? -1.0f : 1.0f);                     /* 15, 16 */
	float num = v * q;                                      /* 17 */
	/* mxs + mns = sm + dl0 exactly */
	float sm = mxs + mns;                                   /* 18 */
	float dl0 = mns - (sm - mxs);                           /* 19, 20 */
	float den = mid ? sm : mxs;                             /* 21 */
	float dl = mid ? dl0 : 0.0f;                            /* 22 */
	float r0 = num / den;                                   /* 23: the one division */
	float r = isnan(r0) ? 0.0f : r0;                        /* 24, 25: 0/0, inf/inf (and NaN operands) */
	float t = r * r;                                        /* 26 */
	float p = horner(t, atan_p, NELEM(atan_p));             /* 27 */
	float rt = r * t;                                       /* 28 */
	/* num/(den + dl) = r + e/den (to 2^-48); atan moves by e/(den (1 + t)) ~ e/h */
	float e0 = fmaf(-r, den, num);                          /* 29, 30: exact */
	float e = fmaf(-r, dl, e0);                             /* 31 */
	float h = fmaf(r, num, den);                            /* 32 */
	float inv = fbits(ATAN_RCP_K - bits(h));                /* 33-35: ~ 1/h */
	float d = e * inv;                                      /* 36 */
	d = t < ATAN2_TINY ? 0.0f : d;                          /* 37, 38: |r| < 2^-30, inf operands */
	/* k pi/4 + r + (r t P + d), k = 0, ..., 4 */
	float f = mid ? -1.0f : sw ? 0.0f : -2.0f;              /* 39, 40 */
	float k = fmaf(sx, f, 2.0f);                            /* 41 */
	float C = k * ATAN_PIO4_HI;                             /* 42: exact */
	float s = C + r;                                        /* 43 */
	float err = (C - s) + r;                                /* 44, 45 */
	float lo1 = fmaf(k, ATAN_PIO4_LO, err);                 /* 46 */
	float lo = fmaf(rt, p, lo1 + d);                        /* 47, 48 */
	float res = s + lo;                                     /* 49 */
	res = isnan(x) || isnan(y) ? NAN : res;                 /* 50, 51 */
	return copysignf(res, y);                               /* 52 */
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
static double err_ulp(float got, double want)
{
	float w32 = (float)want;
	if (isnan(want))
		return isnan(got) ? 0 : INFINITY;
	if (isinf(w32) || want == 0)
		return bits(got) == bits(w32) ? 0 : INFINITY;
	if (!isfinite(got))
		return INFINITY;
	return fabs((double)got - want) / ulp_f32(want);
}

static double err_atan(float x)
{
	float got = model_atan(x);
	if (fabsf(x) <= 0x1p-12f)
		return bits(got) == bits(x) ? 0 : INFINITY; /* tiny x (and +-0): x itself, sign and all */
	return err_ulp(got, atan((double)x));
}

static double err_atan2(float y, float x)
{
	return err_ulp(model_atan2(y, x), atan2((double)y, (double)x));
}

enum { NT = 2 };

typedef struct {
	double worst;
	float at, at2;
	uint64_t over1, over05, bad, n;
} Stat;

static void stat_add(Stat *S, double e, float x, float x2)
{
	S->n++;
	if (e == INFINITY) {
		if (!S->bad)
			S->at = x, S->at2 = x2;
		S->bad++;
		S->worst = INFINITY;
		return;
	}
	if (e > 1.0)
		S->over1++;
	if (e > 0.5)
		S->over05++;
	if (e > S->worst)
		S->worst = e, S->at = x, S->at2 = x2;
}

static void stat_merge(Stat *A, const Stat *B)
{
	if (B->worst > A->worst || (B->bad && !A->bad))
		A->worst = B->worst, A->at = B->at, A->at2 = B->at2;
	A->over1 += B->over1, A->over05 += B->over05, A->bad += B->bad, A->n += B->n;
}

/* ---------------- atan over bit patterns ---------------- */
typedef struct {
	uint64_t stride, start;
	Stat S;
} AllJob;

static void *all_worker(void *vp)
{
	AllJob *J = vp;
	for (uint64_t u = J->start * J->stride; u <= 0xffffffffu; u += J->stride * NT) {
		float x = fbits((uint32_t)u);
		stat_add(&J->S, err_atan(x), x, 0);
	}
	return NULL;
}

static int run_all(uint64_t stride)
{
	printf("atan: every %llu%s f32 bit pattern, both signs\n", (unsigned long long)stride,
	       stride == 1 ? "st (all 2^32)" : "th");
	AllJob J[NT];
	pthread_t th[NT];
	for (int i = 0; i < NT; i++) {
		memset(&J[i], 0, sizeof J[i]);
		J[i].stride = stride;
		J[i].start = (uint64_t)i;
		pthread_create(&th[i], NULL, all_worker, &J[i]);
	}
	Stat S;
	memset(&S, 0, sizeof S);
	for (int i = 0; i < NT; i++) {
		pthread_join(th[i], NULL);
		stat_merge(&S, &J[i].S);
	}
	if (S.bad)
		printf("atan: %llu inputs, %llu WRONG special values (first at x = %a)\n", (unsigned long long)S.n,
		       (unsigned long long)S.bad, (double)S.at);
	else
		printf("atan: %llu inputs, max %.4f ulp at x = %a (%.9g): got %a, want %.9g; > 0.5 ulp: %llu, "
		       "> 1 ulp: %llu, wrong special values: 0\n",
		       (unsigned long long)S.n, S.worst, (double)S.at, (double)S.at, (double)model_atan(S.at),
		       atan((double)S.at), (unsigned long long)S.over05, (unsigned long long)S.over1);
	return S.bad != 0;
}

/* ---------------- atan2 on pairs ---------------- */
static inline uint64_t next64(uint64_t *s) /* splitmix64 */
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* a finite nonzero f32 with exponent field in [lo, hi] (1..254), random mantissa and sign */
static inline float rnd_exp(uint64_t v, int lo, int hi)
{
	uint32_t ex = (uint32_t)(lo + (int)((v >> 32) % (uint64_t)(hi - lo + 1)));
	return fbits((uint32_t)(v & 0x807fffffu) | ex << 23);
}

/* the angles near which atan2's result changes binade or octant */
static const double edges[] = {
    0x1p-20, 0x1p-12, 0x1p-8, 0x1p-4, 0x1p-3, 0x1p-2, 0x1p-1, 0.78539816339744831, 1.0,
    1.5707963267948966, 2.0, 2.3561944901923449, 3.1415926535897931, 0.39269908169872414, 1.1780972450961724,
    1.9634954084936207, 2.7488935718910690, 0.4636476090008061, 0.4, 0.6, 1.2, 1.4, 2.5, 3.0};

enum { NCLASS = 5 };
static const char *const class_names[NCLASS] = {
    "random bits", "y/x near 1", "y/x in [2^-40, 1]", "angles near binade and octant edges",
    "tiny, huge, subnormal"};

static void pair(int cls, uint64_t *s, float *py, float *px)
{
	uint64_t v = next64(s), v2 = next64(s);
	float x, y;
	switch (cls) {
	case 0:
		y = fbits((uint32_t)v), x = fbits((uint32_t)(v >> 32));
		break;
	case 1: { /* |y| = |x| moved by up to 2^12 ulps, or times (1 + u 2^-j) */
		x = rnd_exp(v, 1, 254);
		int32_t k = (int32_t)(v2 & 0x1fff) - 0x1000;
		if (v2 & 0x10000)
			y = fbits((uint32_t)((int32_t)(bits(x) & 0x7fffffff) + k));
		else
			y = (float)((double)fabsf(x) * (1.0 + ldexp((double)(v2 >> 40) / 0x1p24, -(int)((v2 >> 17) % 24))));
		if (!isfinite(y) || bits(y) == 0 || (bits(y) & 0x80000000u))
			y = x;
		break;
	}
	case 2: { /* y = x u, u in [2^-40, 1] spread by its exponent */
		x = rnd_exp(v, 1, 254);
		float u = fbits((uint32_t)(v2 & 0x007fffff) | (uint32_t)(127 - (int)((v2 >> 24) % 41)) << 23);
		y = x * u;
		break;
	}
	case 3: { /* the angle theta near an edge, (x, y) = s (cos theta, sin theta) */
		double th = edges[(v >> 40) % NELEM(edges)];
		th *= 1.0 + ((double)(int64_t)(v2 << 16) / 0x1p63) * ldexp(1.0, -(int)((v2 & 0xffff) % 24) - 4);
		double sc = ldexp(1.0 + (double)(v & 0xffffff) / 0x1p24, (int)((v >> 24) % 200) - 100);
		x = (float)(cos(th) * sc), y = (float)(sin(th) * sc);
		break;
	}
	default: { /* each operand subnormal, near 2^-126, near 2^64, near FLT_MAX, or anywhere */
		float o[2];
		for (int i = 0; i < 2; i++) {
			uint64_t w = i ? v2 : v;
			switch ((w >> 56) % 6) {
			case 0: o[i] = fbits((uint32_t)(w & 0x807fffff)); break;         /* subnormal or 0 */
			case 1: o[i] = rnd_exp(w, 1, 4); break;                          /* just above 2^-126 */
			case 2: o[i] = rnd_exp(w, 189, 192); break;                      /* around 2^64 */
			case 3: o[i] = rnd_exp(w, 251, 254); break;                      /* up to FLT_MAX */
			case 4: o[i] = rnd_exp(w, 1, 30); break;                         /* tiny normal */
			default: o[i] = rnd_exp(w, 1, 254); break;
			}
		}
		y = o[0], x = o[1];
		break;
	}
	}
	if (cls) { /* random signs, and for the ratio classes either order */
		if (cls != 4 && (v2 & (1ull << 63))) {
			float t = x;
			x = y, y = t;
		}
		x = fbits(bits(x) ^ (uint32_t)(v2 >> 31 & 1) << 31);
		y = fbits(bits(y) ^ (uint32_t)(v2 >> 30 & 1) << 31);
	}
	*py = y, *px = x;
}

typedef struct {
	int cls, id;
	uint64_t n;
	Stat S;
} PairJob;

static void *pair_worker(void *vp)
{
	PairJob *J = vp;
	uint64_t s = 0x123456789abcdefull * (uint64_t)(J->cls + 1) + (uint64_t)J->id * 0x9e3779b97f4a7c15ull;
	for (uint64_t i = 0; i < J->n; i++) {
		float y, x;
		pair(J->cls, &s, &y, &x);
		stat_add(&J->S, err_atan2(y, x), y, x);
	}
	return NULL;
}

static int run_pairs(uint64_t n)
{
	int bad = 0;
	Stat T;
	memset(&T, 0, sizeof T);
	for (int cls = 0; cls < NCLASS; cls++) {
		uint64_t m = cls ? n / 2 : n;
		PairJob J[NT];
		pthread_t th[NT];
		for (int i = 0; i < NT; i++) {
			memset(&J[i], 0, sizeof J[i]);
			J[i].cls = cls, J[i].id = i, J[i].n = m / NT + (i == 0 ? m % NT : 0);
			pthread_create(&th[i], NULL, pair_worker, &J[i]);
		}
		Stat S;
		memset(&S, 0, sizeof S);
		for (int i = 0; i < NT; i++) {
			pthread_join(th[i], NULL);
			stat_merge(&S, &J[i].S);
		}
		stat_merge(&T, &S);
		if (S.bad)
			printf("atan2 %-36s %11llu pairs: %llu WRONG special values (first at y = %a, x = %a)\n",
			       class_names[cls], (unsigned long long)S.n, (unsigned long long)S.bad, (double)S.at,
			       (double)S.at2);
		else
			printf("atan2 %-36s %11llu pairs: max %.4f ulp at (y, x) = (%a, %a): got %a, want %.9g; "
			       "> 0.5 ulp: %llu, > 1 ulp: %llu\n",
			       class_names[cls], (unsigned long long)S.n, S.worst, (double)S.at, (double)S.at2,
			       (double)model_atan2(S.at, S.at2), atan2((double)S.at, (double)S.at2),
			       (unsigned long long)S.over05, (unsigned long long)S.over1);
		fflush(stdout);
		bad += S.bad != 0;
	}
	printf("atan2 all classes: %llu pairs, max %.4f ulp at (y, x) = (%a, %a); > 0.5 ulp: %llu, > 1 ulp: %llu, "
	       "wrong special values: %llu\n",
	       (unsigned long long)T.n, T.worst, (double)T.at, (double)T.at2, (unsigned long long)T.over05,
	       (unsigned long long)T.over1, (unsigned long long)T.bad);
	return bad;
}

/* ---------------- special values ---------------- */
static int is_fixed(float y, float x) /* C99 Annex F gives atan2(y, x) exactly */
{
	return y == 0 || x == 0 || isinf(x) || isinf(y);
}

static int check_specials(void)
{
	static const float base[] = {
	    0.0f, 0x1p-149f, 0x1p-148f, 0x1.fffffcp-127f, 0x1p-126f, 0x1.000002p-126f, 0x1p-12f, 0x1.fffffep-1f,
	    1.0f, 0x1.000002p+0f, 0x1.921fb6p+0f, 0x1p+63f, 0x1.fffffep+63f, 0x1p+64f, 0x1.000002p+64f, 0x1p+126f,
	    0x1.fffffcp+127f, FLT_MAX, INFINITY, NAN};
	float v[2 * NELEM(base)];
	int nv = 0;
	for (int i = 0; i < NELEM(base); i++)
		v[nv++] = base[i], v[nv++] = -base[i];
	int bad = 0;

	/* atan: the values fixed by C99 and tiny x */
	static const struct {
		float x, want;
	} at[] = {
	    {0.0f, 0.0f}, {-0.0f, -0.0f}, {INFINITY, 0x1.921fb6p+0f}, {-INFINITY, -0x1.921fb6p+0f}, {NAN, NAN},
	    {-NAN, NAN}, {0x1p-149f, 0x1p-149f}, {-0x1p-149f, -0x1p-149f}, {0x1.fffffcp-127f, 0x1.fffffcp-127f},
	    {0x1p-126f, 0x1p-126f}, {-0x1p-126f, -0x1p-126f}, {0x1p-12f, 0x1p-12f}, {FLT_MAX, 0x1.921fb6p+0f},
	    {-FLT_MAX, -0x1.921fb6p+0f}, {0x1p+26f, 0x1.921fb6p+0f}, {1.0f, 0x1.921fb6p-1f}, {-1.0f, -0x1.921fb6p-1f},
	};
	for (int i = 0; i < NELEM(at); i++) {
		float got = model_atan(at[i].x), lib = atanf(at[i].x), want = at[i].want;
		int ok = isnan(want) ? isnan(got) && isnan(lib) : bits(got) == bits(want) && bits(lib) == bits(want);
		if (!ok)
			printf("  atan(%a) = %a, want %a, atanf %a WRONG\n", (double)at[i].x, (double)got, (double)want,
			       (double)lib);
		bad += !ok;
	}
	/* atan on the table: NaN for NaN, else bits of atanf where C99 fixes them, else ulps */
	double wa = 0;
	float wax = 0;
	int same_a = 0;
	for (int i = 0; i < nv; i++) {
		float x = v[i], got = model_atan(x);
		same_a += bits(got) == bits(atanf(x)) || (isnan(got) && isnan(x));
		double e = isnan(x) ? (isnan(got) ? 0 : INFINITY) : err_atan(x);
		if (e == INFINITY) {
			printf("  atan(%a) = %a WRONG\n", (double)x, (double)got);
			bad++;
		} else if (e > wa)
			wa = e, wax = x;
	}
	printf("atan special values: %d fixed values %s; the %d-value table: max %.4f ulp (at %a), same bits as "
	       "atanf at %d\n",
	       NELEM(at), bad ? "WRONG" : "ok", nv, wa, (double)wax, same_a);

	/* atan2: every pair of the table */
	int nfixed = 0, nbad2 = 0, same = 0, npairs = 0;
	double w2 = 0;
	float wy = 0, wx = 0;
	for (int i = 0; i < nv; i++)
		for (int j = 0; j < nv; j++) {
			float y = v[i], x = v[j], got = model_atan2(y, x), lib = atan2f(y, x);
			npairs++;
			same += bits(got) == bits(lib) || (isnan(got) && isnan(lib));
			int ok;
			if (isnan(x) || isnan(y))
				ok = isnan(got);
			else if (is_fixed(y, x)) {
				nfixed++;
				ok = bits(got) == bits(lib) && bits(got) == bits((float)atan2((double)y, (double)x));
			} else {
				double e = err_atan2(y, x);
				ok = e != INFINITY;
				if (ok && e > w2)
					w2 = e, wy = y, wx = x;
			}
			if (!ok) {
				printf("  atan2(%a, %a) = %a, atan2f %a WRONG\n", (double)y, (double)x, (double)got,
				       (double)lib);
				nbad2++;
			}
		}
	/* the Annex F list, spelled out */
	static const struct {
		float y, x, want;
	} f[] = {
	    {0.0f, 0.0f, 0.0f}, {-0.0f, 0.0f, -0.0f}, {0.0f, -0.0f, 0x1.921fb6p+1f}, {-0.0f, -0.0f, -0x1.921fb6p+1f},
	    {0.0f, -2.0f, 0x1.921fb6p+1f}, {-0.0f, -2.0f, -0x1.921fb6p+1f}, {0.0f, 2.0f, 0.0f}, {-0.0f, 2.0f, -0.0f},
	    {-2.0f, 0.0f, -0x1.921fb6p+0f}, {-2.0f, -0.0f, -0x1.921fb6p+0f}, {2.0f, 0.0f, 0x1.921fb6p+0f},
	    {2.0f, -0.0f, 0x1.921fb6p+0f}, {2.0f, -INFINITY, 0x1.921fb6p+1f}, {-2.0f, -INFINITY, -0x1.921fb6p+1f},
	    {2.0f, INFINITY, 0.0f}, {-2.0f, INFINITY, -0.0f}, {INFINITY, 2.0f, 0x1.921fb6p+0f},
	    {-INFINITY, 2.0f, -0x1.921fb6p+0f}, {INFINITY, -2.0f, 0x1.921fb6p+0f}, {-INFINITY, -2.0f, -0x1.921fb6p+0f},
	    {INFINITY, -INFINITY, 0x1.2d97c8p+1f}, {-INFINITY, -INFINITY, -0x1.2d97c8p+1f},
	    {INFINITY, INFINITY, 0x1.921fb6p-1f}, {-INFINITY, INFINITY, -0x1.921fb6p-1f},
	};
	for (int i = 0; i < NELEM(f); i++) {
		float got = model_atan2(f[i].y, f[i].x), lib = atan2f(f[i].y, f[i].x);
		int ok = bits(got) == bits(f[i].want) && bits(lib) == bits(f[i].want);
		if (!ok) {
			printf("  atan2(%a, %a) = %a, want %a, atan2f %a WRONG\n", (double)f[i].y, (double)f[i].x,
			       (double)got, (double)f[i].want, (double)lib);
			nbad2++;
		}
	}
	printf("atan2 special values: %d pairs of the %d-value table (%d fixed by C99, bit for bit as atan2f; "
	       "the rest at most %.4f ulp, at (%a, %a)), same bits as atan2f at %d; the %d Annex F cases: %s\n",
	       npairs, nv, nfixed, w2, (double)wy, (double)wx, same, NELEM(f), nbad2 ? "WRONG" : "ok");
	bad += nbad2;

	/* NaN payloads: every one comes out NaN (a sample of them) */
	int nanbad = 0;
	for (uint32_t u = 0x7f800001u; u < 0x80000000u; u += 4099) {
		float q = fbits(u), nq = fbits(u | 0x80000000u);
		nanbad += !isnan(model_atan(q)) + !isnan(model_atan(nq));
		for (int i = 0; i < nv; i += 3)
			nanbad += !isnan(model_atan2(q, v[i])) + !isnan(model_atan2(v[i], nq));
	}
	printf("NaN payloads: %s\n", nanbad ? "WRONG" : "all give NaN");
	bad += nanbad;
	printf("special values: %s\n", bad ? "WRONG" : "all ok");
	return bad;
}

int main(int argc, char **argv)
{
	int bad = check_specials();
	if (argc > 1 && strcmp(argv[1], "special") == 0)
		return bad != 0;
	if (argc > 1 && strcmp(argv[1], "pairs") == 0) {
		uint64_t n = argc > 2 ? (uint64_t)strtod(argv[2], NULL) : 10000000;
		return (bad + run_pairs(n)) != 0;
	}
	uint64_t stride = argc > 1 && strcmp(argv[1], "all") != 0 ? strtoull(argv[1], NULL, 0) : 1;
	if (argc < 2)
		stride = 127;
	return (bad + run_all(stride)) != 0;
}
