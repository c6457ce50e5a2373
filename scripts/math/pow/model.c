/*
 * model.c: pow(x, y) of two f32, step for step as the generated code does it
 * (README.md's step list: f64 arithmetic inside, one narrowing to f32 at the
 * end), against glibc's double pow of the same inputs, in ulps of the f32
 * result.
 *
 *   gcc -O2 model.c -lm
 *   ./a.out special              every pair of the special-value lists, against C99 Annex F
 *                                and glibc's powf
 *   ./a.out random N [SEED]      N random pairs (four kinds, below)
 *   ./a.out xgrid [P NP]         every f32 x in [1/2, 2) at each of YGRID's y (part P of NP)
 *   ./a.out ygrid [P NP]         every f32 y (all 2^32 patterns) at each of XSET's x (part P of NP)
 *   ./a.out parts                log2's relative error at every reduced m (k = -1, 0, 1) and
 *                                2^r's at 2^24 + 1 points of [-1/2, 1/2], against long double
 *
 * The error of a result: |got - want| / ulp, ulp as gpu_test's ulp_f32 (2^-149
 * below 2^-126, else 2^(e-24) for |want| = m 2^e, 1/2 <= m < 1), capped at
 * 2^104 (FLT_MAX's) above FLT_MAX; an infinite got where want rounds to the
 * same infinity is exact, one where it does not is measured as 2^128.  NaN
 * against NaN is exact, NaN against a number (or the other way) infinite,
 * and so is a result of the wrong sign (zeros included).
 */
#pragma GCC optimize("fp-contract=off")
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consts.h"

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static uint64_t bits64(double x)
{
	uint64_t u;
	memcpy(&u, &x, 8);
	return u;
}

static double from64(uint64_t u)
{
	double x;
	memcpy(&x, &u, 8);
	return x;
}

static uint32_t bits32(float x)
{
	uint32_t u;
	memcpy(&u, &x, 4);
	return u;
}

static float from32(uint32_t u)
{
	float x;
	memcpy(&x, &u, 4);
	return x;
}

/* k[0] + k[1] t + ... by Horner with fma, in f64 */
static double horner(double t, const double *k, int n)
{
	double p = k[n - 1];
	for (int i = n - 2; i >= 0; i--)
		p = fma(p, t, k[i]);
	return p;
}

/* steps 1-12: log2|x| in f64 (-inf at 0, +inf at inf) */
static double model_log2(float ax)
{
	double xd = (double)ax;                                     /* 2 */
	uint64_t ix = bits64(xd);                                   /* 3 */
	int64_t k = (int64_t)(ix - (uint64_t)POW_SPLIT_BITS) >> 52; /* 4, 5 (arithmetic shift) */
	double m = from64(ix - ((uint64_t)k << 52));                /* 6, 7 */
	double f = m - 1.0;                                         /* 8 */
	double q = horner(f, pow_log2_p, NELEM(pow_log2_p));        /* 9 */
	double L = fma(f, q, (double)k);                            /* 10, 11 */
	L = ax == 0.0f ? -INFINITY : L;                             /* 12 */
	return ax == INFINITY ? INFINITY : L;
}

/* steps 14-21: 2^z rounded to f32 */
static float model_exp2(double z)
{
	z = z < POW_ZCLAMP ? z : POW_ZCLAMP; /* 15: NaN becomes POW_ZCLAMP */
	z = z > -POW_ZCLAMP ? z : -POW_ZCLAMP;
	double n = rint(z);                                    /* 16 */
	double r = z - n;                                      /* 17, exact */
	double p = horner(r, pow_exp2_p, NELEM(pow_exp2_p));   /* 18 */
	double s = from64((uint64_t)((int64_t)n + 1023) << 52); /* 19 */
	return (float)(p * s);                                 /* 20, 21 */
}

static float model_pow(float x, float y)
{
	float ax = fabsf(x);                       /* 1 */
	double L = model_log2(ax);                 /* 2-12 */
	double z = (double)y * L;                  /* 13, 14 */
	float a = model_exp2(z);                   /* 15-21 */
	int yint = truncf(y) == y;                 /* 22 */
	float h = y * 0.5f;                        /* 23 */
	int yodd = yint & (truncf(h) != h);        /* 24 */
	a = yodd ? copysignf(a, x) : a;            /* 25 */
	int bad = ((x < 0.0f) & (ax < INFINITY) & !yint) | isunordered(x, y); /* 26 */
	a = bad ? NAN : a;                         /* 27 */
	int one = (y == 0.0f) | (x == 1.0f) | ((ax == 1.0f) & (fabsf(y) == INFINITY)); /* 28 */
	return one ? 1.0f : a;                     /* 29 */
}

/* ---- measuring ---- */

static double ulp_f32(double w)
{
	w = fabs(w);
	if (w < 0x1p-126)
		return 0x1p-149;
	if (w >= 0x1p128)
		return 0x1p104;
	int e;
	frexp(w, &e);
	return ldexp(1.0, e - 24);
}

static double ulps(float got, double want)
{
	if (isnan(want) || isnan(got))
		return isnan(want) && isnan(got) ? 0 : INFINITY;
	if (!signbit(got) != !signbit(want))
		return INFINITY;
	double g = got;
	if (isinf(got)) {
		if ((float)want == got)
			return 0;
		g = copysign(0x1p128, got);
	} else if (isinf(want))
		return INFINITY;
	return fabs(g - want) / ulp_f32(want);
}

typedef struct Stat {
	double worst;
	float x, y;
	uint64_t n, inexact, off; /* pairs; not equal to (float)pow(x, y); more than 0.5 ulp */
} Stat;

static void account(Stat *s, float x, float y)
{
	float got = model_pow(x, y);
	double want = pow((double)x, (double)y);
	double u = ulps(got, want);
	s->n++;
	if (!(u <= 0.5))
		s->off++;
	if (bits32(got) != bits32((float)want) && !(isnan(got) && isnan(want)))
		s->inexact++;
	if (!(u <= s->worst))
		s->worst = u, s->x = x, s->y = y;
}

static void report(const char *what, const Stat *s)
{
	float got = model_pow(s->x, s->y);
	double want = pow((double)s->x, (double)s->y);
	printf("%s: %llu pairs, at most %.6f ulp at x = %a, y = %a (got %a, want %a); "
	       "%llu above 0.5 ulp, %llu differ from (float)pow\n",
	       what, (unsigned long long)s->n, s->worst, (double)s->x, (double)s->y, (double)got, want,
	       (unsigned long long)s->off, (unsigned long long)s->inexact);
	fflush(stdout);
}

static uint64_t rng;

static uint64_t next(void) /* splitmix64 */
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double uniform(double lo, double hi) { return lo + (hi - lo) * (double)(next() >> 11) * 0x1p-53; }

/*
 * N pairs, by i mod 4: x of random bits (positive, finite) and y = t / log2 x
 * rounded to f32, t uniform in [-160, 135] (x^y about 2^t: every exponent of
 * the range, its edges, over and underflow); x of random bits and y of
 * random bits (any, NaN and inf included); x negative and y = rint(t /
 * log2|x|) (an integer, odd or even: the sign); x uniform over the f32 of
 * [1/2, 2) and y = t / log2 x (large y, x near 1).
 */
static void run_random(uint64_t n, uint64_t seed)
{
	Stat all = {0}, kind[4] = {{0}};
	rng = seed;
	for (uint64_t i = 0; i < n; i++) {
		int kd = (int)(i & 3);
		float x, y;
		double t = uniform(-160, 135);
		if (kd == 3) {
			x = from32(0x3f000000u + (uint32_t)(next() % (2u << 23)));
		} else {
			do
				x = from32((uint32_t)next() & 0x7fffffffu);
			while (!(x < INFINITY) || x == 0);
		}
		if (kd == 1)
			y = from32((uint32_t)next());
		else
			y = (float)(t / log2((double)x));
		if (kd == 2) {
			x = -x;
			y = rintf(y);
		}
		account(&all, x, y);
		account(&kind[kd], x, y);
	}
	static const char *const names[] = {"x random, y = t/log2 x", "x random, y random bits",
	                                    "x negative, y = rint(t/log2|x|)", "x in [1/2, 2), y = t/log2 x"};
	for (int k = 0; k < 4; k++)
		report(names[k], &kind[k]);
	report("random, all", &all);
}

/* xgrid's y: 160 steps of the golden ratio up to 258 (x^y reaches 2^-258 .. 2^258 from [1/2, 2)), both signs, and a few small ones */
static int ygrid(float *y)
{
	int n = 0;
	static const float small[] = {0.5f, 1, 2, 3, 1.0f / 3, 0.1f, 1e-3f, 1e-7f};
	for (int i = 0; i < NELEM(small); i++)
		y[n++] = small[i], y[n++] = -small[i];
	for (int j = 0; j < 160; j++) {
		float v = (float)(0.37 + 1.6180339887 * j);
		y[n++] = v, y[n++] = -v;
	}
	return n;
}

static void run_xgrid(int part, int nparts)
{
	float ys[512];
	int ny = ygrid(ys);
	Stat s = {0};
	uint32_t lo = bits32(0.5f), hi = bits32(2.0f), len = (hi - lo + nparts - 1) / nparts;
	uint32_t a = lo + len * part, b = a + len < hi ? a + len : hi;
	for (uint32_t u = a; u < b; u++)
		for (int j = 0; j < ny; j++)
			account(&s, from32(u), ys[j]);
	char what[96];
	snprintf(what, sizeof what, "xgrid part %d/%d (every f32 x in [1/2, 2), %d y)", part, nparts, ny);
	report(what, &s);
}

static const float xset[] = {2.0f, 3.0f, 0.1f, 0x1.000002p+0f, 0x1.fffffep-1f, 0x1p-149f, FLT_MAX,
                             -3.0f, 0x1.6a09e6p-1f, 0x1.6a09e4p+0f};

static void run_ygrid(int part, int nparts)
{
	Stat s[NELEM(xset)] = {{0}};
	uint64_t len = ((1ull << 32) + nparts - 1) / nparts, a = len * part, b = a + len;
	if (b > 1ull << 32)
		b = 1ull << 32;
	for (uint64_t u = a; u < b; u++)
		for (int i = 0; i < NELEM(xset); i++)
			account(&s[i], xset[i], from32((uint32_t)u));
	for (int i = 0; i < NELEM(xset); i++) {
		char what[96];
		snprintf(what, sizeof what, "ygrid part %d/%d, x = %a, every f32 y", part, nparts, (double)xset[i]);
		report(what, &s[i]);
	}
}

/* ---- special values ---- */

static int same(float a, float b) { return (isnan(a) && isnan(b)) || bits32(a) == bits32(b); }

/* C99 Annex F's pow, where a rule gives the result (integer and odd tested in double, not as model_pow does) */
static int annex_f(float xf, float yf, float *r)
{
	double x = xf, y = yf;
	int isint = isfinite(y) && floor(y) == y, odd = isint && fabs(y) < 0x1p53 && fmod(y, 2.0) != 0;
	if (y == 0 || x == 1)
		return *r = 1, 1;
	if (isnan(x) || isnan(y))
		return *r = NAN, 1;
	if (isinf(y)) {
		if (x == -1)
			*r = 1;
		else
			*r = (fabs(x) < 1) == (y > 0) ? 0.0f : INFINITY;
		return 1;
	}
	if (x == 0) {
		if (y < 0)
			*r = odd ? copysignf(INFINITY, xf) : INFINITY;
		else
			*r = odd ? xf : 0.0f;
		return 1;
	}
	if (isinf(x)) {
		float m = y < 0 ? 0.0f : INFINITY;
		*r = odd && x < 0 ? -m : m;
		return 1;
	}
	if (x < 0 && !isint)
		return *r = NAN, 1;
	return 0;
}

static int run_special(void)
{
	static const float xs[] = {0.0f, -0.0f, 0x1p-149f, -0x1p-149f, 0x1.234p-130f, -0x1.234p-130f, 1.0f, -1.0f,
	                           0.5f, -0.5f, 2.0f, -2.0f, INFINITY, -INFINITY, NAN, -NAN, -8.0f, 8.0f, 3e38f,
	                           -3e38f, FLT_MAX, 1e-38f, -1e-38f, 0x1.fffffep-1f, -0x1.fffffep-1f, 0x1.000002p+0f,
	                           -0x1.000002p+0f, 10.0f};
	static const float ys[] = {0.0f, -0.0f, 0.5f, -0.5f, 1.0f, -1.0f, 2.0f, -2.0f, 3.0f, -3.0f, INFINITY,
	                           -INFINITY, NAN, 0x1p24f, -0x1p24f, 0x1.000002p24f, 0x1.fffffep23f,
	                           -0x1.fffffep23f, 0x1.fffffcp22f + 0.5f, 1e10f, -1e10f, -149.5f, -149.0f,
	                           -150.0f, 127.9f, 127.0f, 128.0f, -126.0f, 1.0f / 3, 0x1p-149f, -0x1p-149f,
	                           FLT_MAX, -FLT_MAX, 0x1.8p0f, 0x1.000002p0f};
	int fails = 0, rows = 0;
	double worst = 0;
	printf("%-16s %-16s %-16s %-16s %-10s %s\n", "x", "y", "model", "glibc powf", "ulp", "rule");
	for (int i = 0; i < NELEM(xs); i++)
		for (int j = 0; j < NELEM(ys); j++) {
			float x = xs[i], y = ys[j], got = model_pow(x, y), lib = powf(x, y), r;
			double want = pow((double)x, (double)y), u = ulps(got, want);
			int ruled = annex_f(x, y, &r), ok;
			const char *tag;
			if (ruled) {
				ok = same(got, r) && same(lib, r);
				tag = ok ? "C99" : same(got, r) ? "C99, glibc powf differs" : "C99: MODEL WRONG";
			} else {
				ok = u <= 0.5001;
				tag = !ok ? "MORE THAN 0.5001 ULP" : same(got, lib) ? "= powf" : "differs from powf";
				if (u > worst)
					worst = u;
			}
			fails += !ok;
			rows++;
			printf("%-16a %-16a %-16a %-16a %-10.6f %s\n", (double)x, (double)y, (double)got, (double)lib, u, tag);
		}
	printf("special: %d pairs, %d failed; where no rule applies at most %.6f ulp\n", rows, fails, worst);
	return fails != 0;
}

/* ---- the two polynomials alone ---- */

static void run_parts(void)
{
	/* every f32 m in [POW_SPLIT, 2 POW_SPLIT), as x = m 2^k */
	long double worst[3] = {0};
	float at[3] = {0};
	for (uint32_t u = bits32((float)POW_SPLIT); u < bits32(2 * (float)POW_SPLIT); u++)
		for (int k = -1; k <= 1; k++) {
			float x = ldexpf(from32(u), k);
			long double want = log2l((long double)x);
			long double e = want == 0 ? fabsl((long double)model_log2(x)) : fabsl(((long double)model_log2(x) - want) / want);
			if (e > worst[k + 1])
				worst[k + 1] = e, at[k + 1] = x;
		}
	for (int k = -1; k <= 1; k++)
		printf("log2: k = %2d, relative error at most 2^%.3f (at x = %a)\n", k, (double)log2l(worst[k + 1]),
		       (double)at[k + 1]);
	/* E(r) alone, and 2^r as model_exp2's f64 value (before narrowing) */
	long double we = 0;
	double wr = 0;
	for (int i = 0; i <= 1 << 24; i++) {
		double r = -0.5 + i * 0x1p-24;
		long double want = exp2l((long double)r);
		long double e = fabsl(((long double)horner(r, pow_exp2_p, NELEM(pow_exp2_p)) - want) / want);
		if (e > we)
			we = e, wr = r;
	}
	printf("2^r: relative error at most 2^%.3f (at r = %a)\n", (double)log2l(we), wr);
	/* what that makes in ulps of the result: |z| <= 128 for normal results */
	double el = 0;
	for (int k = 0; k < 3; k++)
		el = fmax(el, (double)worst[k]);
	printf("bound on the error past 0.5 ulp (normal results, |z| <= 128): "
	       "2^24 (128 ln2 (%.3g + 3 2^-53) + %.3g) = %.3g ulp\n",
	       el, (double)we, 0x1p24 * (128 * M_LN2 * (el + 3 * 0x1p-53) + (double)we));
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "special";
	int part = argc > 3 ? atoi(argv[2]) : 0, nparts = argc > 3 ? atoi(argv[3]) : 1;
	if (!strcmp(mode, "special"))
		return run_special();
	if (!strcmp(mode, "random"))
		run_random(argc > 2 ? strtoull(argv[2], 0, 0) : 10000000, argc > 3 ? strtoull(argv[3], 0, 0) : 1);
	else if (!strcmp(mode, "xgrid"))
		run_xgrid(part, nparts);
	else if (!strcmp(mode, "ygrid"))
		run_ygrid(part, nparts);
	else if (!strcmp(mode, "grid"))
		run_xgrid(0, 1), run_ygrid(0, 1);
	else if (!strcmp(mode, "parts"))
		run_parts();
	else {
		fprintf(stderr, "usage: %s special | random N [SEED] | xgrid [P NP] | ygrid [P NP] | grid | parts\n", argv[0]);
		return 2;
	}
	return 0;
}
