/*
 * ref.h: host-side helpers for tests that check kernels against plain C
 * references (the interpreter tests and the GPU tests).
 *
 *   - a fixed-seed xorshift64* generator, so every run sees the same inputs;
 *   - f16 and bf16 conversions with round-to-nearest-even, done on the bits
 *     (no compiler support for _Float16 needed);
 *   - poisoning of outputs (NaN patterns for floats, 0xDEADBEEF for
 *     integers) so a lane the kernel forgot to write is caught, and a
 *     lane it should not have written is caught too (its poison changed);
 *   - a row softmax in double, the reference of the softmax kernels, and
 *     attention's forward and backward (attention_backward.tile);
 *   - closeness checks: |got - want| <= atol + rtol * |want|, NaN fails.
 *
 * Header only: every function is static inline.
 */
#ifndef TILEC_TEST_REF_H
#define TILEC_TEST_REF_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- random numbers: xorshift64* (Vigna, "An experimental exploration of
 * Marsaglia's xorshift generators, scrambled", 2016) ---- */

typedef struct RefRng {
	uint64_t s;
} RefRng;

static inline RefRng ref_rng(uint64_t seed)
{
	RefRng r = {seed * 0x9E3779B97F4A7C15ull + 1};
	return r;
}

static inline uint64_t ref_next(RefRng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545F4914F6CDD1Dull;
}

/* uniform in [lo, hi) */
static inline double ref_uniform(RefRng *r, double lo, double hi)
{
	return lo + (hi - lo) * (double)(ref_next(r) >> 11) * 0x1p-53;
}

/* ---- f16 / bf16 ---- */

static inline uint32_t ref_f32_bits(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	return x;
}

static inline float ref_bits_f32(uint32_t x)
{
	float f;
	memcpy(&f, &x, 4);
	return f;
}

/* f32 -> IEEE half, round to nearest even; overflow gives inf, NaN stays NaN. */
static inline uint16_t ref_f32_to_f16(float f)
{
	uint32_t x = ref_f32_bits(f), ax = x & 0x7fffffffu;
	uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
	if (ax > 0x7f800000u)
		return sign | 0x7e00u;
	if (ax >= 0x477ff000u)             /* >= 65520: rounds to inf */
		return sign | 0x7c00u;
	if (ax < 0x38800000u) {            /* below 2^-14: subnormal half or 0 */
		if (ax < 0x33000000u)      /* below 2^-25 (2^-25 itself ties to 0) */
			return sign;
		uint32_t m = (ax & 0x7fffffu) | 0x800000u;
		int shift = 126 - (int)(ax >> 23);   /* value / 2^-24 = m >> shift */
		uint32_t q = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
		if (rem > half || (rem == half && (q & 1)))
			q++;
		return (uint16_t)(sign | q);
	}
	uint32_t q = (ax - 0x38000000u) >> 13, rem = ax & 0x1fffu;  /* rebias 127 -> 15 */
	if (rem > 0x1000u || (rem == 0x1000u && (q & 1)))
		q++;
	return (uint16_t)(sign | q);
}

static inline float ref_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 31, m = h & 1023u;
	if (e == 0)
		return ref_bits_f32(ref_f32_bits(ldexpf((float)m, -24)) | sign);
	if (e == 31)
		return ref_bits_f32(sign | 0x7f800000u | (m << 13));
	return ref_bits_f32(sign | ((e + 112) << 23) | (m << 13));
}

static inline uint16_t ref_f32_to_bf16(float f)
{
	uint32_t x = ref_f32_bits(f);
	if ((x & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((x >> 16) | 0x40u);
	return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1)) >> 16);
}

static inline float ref_bf16_to_f32(uint16_t h)
{
	return ref_bits_f32((uint32_t)h << 16);
}

/* A layer-norm row's statistics: the mean of n f16 values and 1 / sqrt(variance + eps), in double. */
static inline void ref_row_stats_f16(const uint16_t *x, int n, double eps, double *mean, double *rstd)
{
	double mu = 0, var = 0;
	for (int i = 0; i < n; i++)
		mu += ref_f16_to_f32(x[i]);
	mu /= n;
	for (int i = 0; i < n; i++)
		var += (ref_f16_to_f32(x[i]) - mu) * (ref_f16_to_f32(x[i]) - mu);
	*mean = mu;
	*rstd = 1 / sqrt(var / n + eps);
}

/* ---- filling and poisoning ---- */

static inline void ref_fill_f32(RefRng *r, float *p, size_t n, double lo, double hi)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (float)ref_uniform(r, lo, hi);
}

static inline void ref_fill_f16(RefRng *r, uint16_t *p, size_t n, double lo, double hi)
{
	for (size_t i = 0; i < n; i++)
		p[i] = ref_f32_to_f16((float)ref_uniform(r, lo, hi));
}

static inline void ref_fill_bf16(RefRng *r, uint16_t *p, size_t n, double lo, double hi)
{
	for (size_t i = 0; i < n; i++)
		p[i] = ref_f32_to_bf16((float)ref_uniform(r, lo, hi));
}

enum { REF_POISON_F32_BITS = 0x7fdeadbe, REF_POISON_F16_BITS = 0x7e5a, REF_POISON_INT = (int)0xDEADBEEF };

/* a quiet NaN with a recognisable payload in every element */
static inline void ref_poison_f32(float *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = ref_bits_f32(REF_POISON_F32_BITS);
}

static inline void ref_poison_f16(uint16_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = REF_POISON_F16_BITS;
}

/* 0xDEADBEEF repeated over `bytes` bytes (little-endian words) */
static inline void ref_poison_bytes(void *p, size_t bytes)
{
	static const unsigned char pat[4] = {0xEF, 0xBE, 0xAD, 0xDE};
	for (size_t i = 0; i < bytes; i++)
		((unsigned char *)p)[i] = pat[i % 4];
}

/*
 * Word `word` of Philox4x32 with `rounds` rounds of counter (c0, 0, 0, 0) and
 * key (key's low and high words): what rand(seed, c0) and randint draw
 * from.  Philox4x32-10 of zero counter and key is Random123's known answer
 * 0x6627e8d5 0xe169c58d 0xbc57ac4c 0x9b00dbd8.
 */
static inline uint32_t ref_philox(uint32_t c0, uint64_t key, int rounds, int word)
{
	uint32_t c[4] = {c0, 0, 0, 0}, k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
	for (int i = 0; i < rounds; i++, k0 += 0x9E3779B9u, k1 += 0xBB67AE85u) {
		uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p2 = (uint64_t)0xCD9E8D57u * c[2];
		uint32_t n[4] = {(uint32_t)(p2 >> 32) ^ c[1] ^ k0, (uint32_t)p2, (uint32_t)(p0 >> 32) ^ c[3] ^ k1,
				 (uint32_t)p0};
		memcpy(c, n, sizeof c);
	}
	return c[word];
}

/* rand()'s float of Philox bits x, in [0, 1). */
static inline float ref_rand_float(uint32_t x)
{
	int32_t s = (int32_t)x;
	return (float)(s < 0 ? ~s : s) * 4.6566127342e-10f;
}

static inline int ref_is_poison_f32(float f)
{
	return ref_f32_bits(f) == (uint32_t)REF_POISON_F32_BITS;
}

/* ---- references ---- */

/* want[i] = softmax(x)[i] over one row of n floats, in double. */
static inline void ref_softmax_row(double *want, const float *x, int n)
{
	double m = -INFINITY, s = 0;
	for (int i = 0; i < n; i++)
		m = fmax(m, x[i]);
	for (int i = 0; i < n; i++)
		s += exp(x[i] - m);
	for (int i = 0; i < n; i++)
		want[i] = exp(x[i] - m) / s;
}

/*
 * Attention forward and backward in double for f16 [bh, n, d] inputs (row t
 * of head h at (h n + t) d): P = softmax(Q K^T * scale) row by row,
 * O = P V, lse = log2 of the row's sum of exp (base 2, as the kernels keep
 * it), delta = rowsum(P * dP) = rowsum(O * dO), dV = P^T dO, dP = dO V^T,
 * dS = P * (dP - delta), dQ = dS K * scale, dK = dS^T Q * scale.  lse and
 * delta are [bh, n]; the rest [bh, n, d].
 */
typedef struct RefAttention {
	double *o, *lse, *delta, *dq, *dk, *dv;
} RefAttention;

static inline void ref_attention_backward(int bh, int n, int d, const uint16_t *q, const uint16_t *k,
                                          const uint16_t *v, const uint16_t *dout, double scale, RefAttention *g)
{
	size_t len = (size_t)bh * n * d;
	double *p = malloc((size_t)n * sizeof *p), *dp = malloc((size_t)n * sizeof *dp);
	memset(g->dq, 0, len * sizeof(double));
	memset(g->dk, 0, len * sizeof(double));
	memset(g->dv, 0, len * sizeof(double));
#define H(x, row, col) ((double)ref_f16_to_f32((x)[base + (size_t)(row) * d + (col)]))
	for (int b = 0; b < bh; b++) {
		size_t base = (size_t)b * n * d;
		for (int i = 0; i < n; i++) {
			double m = -INFINITY, l = 0, delta = 0;
			for (int j = 0; j < n; j++) {
				double s = 0, t = 0;
				for (int c = 0; c < d; c++) {
					s += H(q, i, c) * H(k, j, c);
					t += H(dout, i, c) * H(v, j, c);
				}
				p[j] = s * scale;
				dp[j] = t;
				m = fmax(m, p[j]);
			}
			for (int j = 0; j < n; j++)
				l += p[j] = exp(p[j] - m);
			for (int j = 0; j < n; j++) {
				p[j] /= l;
				delta += p[j] * dp[j];
			}
			g->lse[(size_t)b * n + i] = (m + log(l)) / log(2.0);
			g->delta[(size_t)b * n + i] = delta;
			for (int c = 0; c < d; c++) {
				double o = 0;
				for (int j = 0; j < n; j++)
					o += p[j] * H(v, j, c);
				g->o[base + (size_t)i * d + c] = o;
			}
			for (int j = 0; j < n; j++) {
				double ds = p[j] * (dp[j] - delta) * scale;
				for (int c = 0; c < d; c++) {
					g->dv[base + (size_t)j * d + c] += p[j] * H(dout, i, c);
					g->dq[base + (size_t)i * d + c] += ds * H(k, j, c);
					g->dk[base + (size_t)j * d + c] += ds * H(q, i, c);
				}
			}
		}
	}
#undef H
	free(p);
	free(dp);
}

/* ---- checks ---- */

/* The largest magnitude of n values (a scale for absolute tolerances). */
static inline double ref_peak(const double *x, size_t n)
{
	double m = 0;
	for (size_t i = 0; i < n; i++)
		m = fmax(m, fabs(x[i]));
	return m;
}

/* Does got match want within atol + rtol * |want|?  A NaN got fails unless want is NaN. */
static inline int ref_close(double got, double want, double rtol, double atol)
{
	if (isnan(want))
		return isnan(got);
	if (isinf(want))
		return got == want;
	return !isnan(got) && fabs(got - want) <= atol + rtol * fabs(want);
}

/* Compare n values; prints up to 5 mismatches prefixed by `what` and returns the mismatch count. */
static inline size_t ref_check(const char *what, const double *got, const double *want, size_t n, double rtol,
			       double atol)
{
	size_t bad = 0;
	for (size_t i = 0; i < n; i++) {
		if (ref_close(got[i], want[i], rtol, atol))
			continue;
		if (bad < 5)
			fprintf(stderr, "%s: element %zu: got %.9g, want %.9g (rtol %g, atol %g)\n", what, i, got[i],
				want[i], rtol, atol);
		bad++;
	}
	if (bad > 5)
		fprintf(stderr, "%s: %zu mismatches in all, of %zu\n", what, bad, n);
	return bad;
}

/* A whole file (NUL-terminated, malloc'ed; *len its size), or NULL. */
static inline char *ref_try_read(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return NULL;
	fseek(fp, 0, SEEK_END);
	long n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	char *s = n < 0 ? NULL : malloc((size_t)n + 1);
	if (s && fread(s, 1, (size_t)n, fp) != (size_t)n) {
		free(s);
		s = NULL;
	}
	fclose(fp);
	if (!s)
		return NULL;
	s[n] = 0;
	if (len)
		*len = (size_t)n;
	return s;
}

/* The same, or exit with a message. */
static inline char *ref_read_file(const char *path, size_t *len)
{
	char *s = ref_try_read(path, len);
	if (!s) {
		fprintf(stderr, "cannot read %s\n", path);
		exit(2);
	}
	return s;
}

#endif
