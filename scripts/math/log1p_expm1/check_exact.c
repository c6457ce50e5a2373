/*
 * check_exact.c: the steps README.md calls exact, checked on every f32 input
 * where they matter (finite x >= -1 for log1p, x in [EXPM1_XMIN, EXPM1_XMAX]
 * for expm1): the products and differences are compared with long double
 * (64-bit significand, wide enough for each of them), and each fast two-sum
 * (Dekker: a + b = s + err exactly when |a| >= |b| or a = 0) is checked for
 * its condition.  The two-sums of x + 1 and the fma products' low parts are
 * the textbook error-free transformations and are not rechecked.
 *
 *   gcc -O2 check_exact.c -lm && ./a.out
 */
#pragma GCC optimize("fp-contract=off")
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "consts.h"

static uint32_t bits(float x)
{
	uint32_t u;
	memcpy(&u, &x, 4);
	return u;
}

static float fbits(uint32_t u)
{
	float x;
	memcpy(&x, &u, 4);
	return x;
}

static unsigned long long nbad[16];
static const char *const what[16] = {
    "log1p: 2^k m == u",          "log1p: m in [2/3, 4/3)",       "log1p: f = m - 1 exact",
    "log1p: k ln2_hi exact",      "log1p: |f| >= |hh| (d)",        "log1p: |A| >= |d| or A = 0 (z)",
    "expm1: f1 = x - j ln2_hi exact", "expm1: |fh| <= 0.34658",    "expm1: |fh| >= |hh| (s)",
    "expm1: |A| >= |B| or A = 0 (z)", "expm1: B = 2^j s exact",    "expm1: A + Aerr = 2^j - 1",
    "expm1: jf exact integer",    "log1p: -127 <= k <= 128",       "", ""};

#define EXPECT(i, c) (nbad[i] += !(c))

int main(void)
{
	for (uint64_t w = 0; w <= 0xffffffffu; w++) {
		float x = fbits((uint32_t)w);
		if (isfinite(x) && x >= -1.0f && x != -1.0f) {
			float u = x + 1.0f;
			int32_t k = (int32_t)(bits(u) - (uint32_t)LOG1P_M0) >> 23;
			float m = fbits(bits(u) - ((uint32_t)k << 23));
			EXPECT(13, k >= -127 && k <= 128);
			EXPECT(0, ldexpl((long double)m, k) == (long double)u);
			EXPECT(1, m >= 0x1.555556p-1f && m < 0x1.555556p+0f);
			float fm = m - 1.0f;
			EXPECT(2, (long double)fm == (long double)m - 1.0L);
			float f = k == 0 ? x : fm, kf = (float)k;
			float A = kf * (float)LOG1P_LN2_HI;
			EXPECT(3, (long double)A == (long double)kf * (long double)(float)LOG1P_LN2_HI);
			float hh = (0.5f * f) * f, d = f - hh;
			EXPECT(4, fabsf(f) >= fabsf(hh));
			EXPECT(5, A == 0.0f || fabsf(A) >= fabsf(d));
		}
		if (x >= (float)EXPM1_XMIN && x <= (float)EXPM1_XMAX) {
			float jm = fmaf(x, (float)EXPM1_LOG2E, 0x1.8p+23f), jf = jm - 0x1.8p+23f, nj = -jf;
			int32_t j = (int32_t)(bits(jm) - 0x4b400000u);
			EXPECT(12, (float)j == jf);
			float f1 = fmaf(nj, (float)EXPM1_LN2_HI, x);
			EXPECT(6, (long double)f1 == (long double)x + (long double)nj * (long double)(float)EXPM1_LN2_HI);
			float fh = fmaf(nj, (float)EXPM1_LN2_LO, f1);
			EXPECT(7, fabsf(fh) <= 0.34658f);
			float hh = (0.5f * fh) * fh, s = fh + hh;
			EXPECT(8, fabsf(fh) >= fabsf(hh));
			int32_t jb = j < 127 ? j : 127;
			float sc = fbits((uint32_t)(jb + 127) << 23);
			int big = j > 24, neg = j < -24, top = j > 127;
			float A = big ? sc : neg ? -1.0f : sc - 1.0f;
			float Aerr = big ? (top ? -0.5f : -1.0f) : neg ? sc : 0.0f;
			/* 2^jb - 2^(jb - j) */
			long double want = ldexpl(1.0L, jb) - ldexpl(1.0L, jb - j);
			EXPECT(11, (long double)A + (long double)Aerr == want);
			float B = sc * s;
			EXPECT(10, (long double)B == (long double)sc * (long double)s);
			EXPECT(9, A == 0.0f || fabsf(A) >= fabsf(B));
		}
	}
	int bad = 0;
	for (int i = 0; i < 14; i++) {
		printf("%-34s %s (%llu failures)\n", what[i], nbad[i] ? "FAILS" : "holds", nbad[i]);
		bad |= nbad[i] != 0;
	}
	return bad;
}
