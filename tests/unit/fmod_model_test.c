/*
 * fmod_model_test.c: the steps of cg_math.c's f64 fmod (fmod64, unpack64,
 * pack64), done in C on the host with the code generator's step
 * (FMOD64_STEP, codegen/cg_math.h), against libm's fmod, bit for bit (NaNs
 * of any payload alike).  The GPU runs the generated code in
 * tests/gpu/round_check.py.
 *
 * Inputs: every pair of a list of special values (zeros, subnormals,
 * the least and largest normals, infinities, NaNs, and numbers whose
 * quotients are up to 2^2098, as fmod(1e308, 3e-308)), each with both
 * signs; a million pairs of random bit patterns (random exponents, so
 * mostly long loops); a million with y's exponent a little below x's
 * (short ones, and one pass of no shift); and a million with both at the
 * bottom of the range, subnormal or about the least normal.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "codegen/cg_math.h"
#include "../util/check.h"

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define SIGN (1ull << 63)
#define INF (0x7ffull << 52)
#define MANT ((1ull << 52) - 1)

static uint64_t bits(double x)
{
	uint64_t u;
	memcpy(&u, &x, 8);
	return u;
}

static double from_bits(uint64_t u)
{
	double x;
	memcpy(&x, &u, 8);
	return x;
}

/* LLVM's ctlz with 0 allowed */
static int64_t clz64(uint64_t a) { return a ? __builtin_clzll(a) : 64; }

static uint64_t umax(uint64_t a, uint64_t b) { return a > b ? a : b; }

static int64_t smax(int64_t a, int64_t b) { return a > b ? a : b; }

/* unpack64: a = m 2^(e - 1075), bit 52 of m set */
static uint64_t unpack(uint64_t a, int64_t *e)
{
	uint64_t sh = umax((uint64_t)clz64(a), 11) - 11;
	*e = (int64_t)(umax(a >> 52, 1) - sh);
	return ((a << sh) & MANT) | (MANT + 1);
}

/* pack64: the bits of r 2^(e - 1075), 0 < r < 2^53 */
static uint64_t pack(uint64_t r, int64_t e)
{
	int64_t sh = clz64(r) - 11, t = e - sh - 1;
	uint64_t m = r << sh;
	return (m >> smax(-t, 0)) + ((uint64_t)smax(t, 0) << 52);
}

static long passes;

static double model_fmod(double x, double y)
{
	uint64_t ax = bits(x) & ~SIGN, ay = bits(y) & ~SIGN, sx = bits(x) & SIGN;
	if (ay == 0 || ax >= INF || ay > INF)
		return NAN;
	if (ax < ay)
		return x;
	int64_t ex, ey;
	uint64_t mx = unpack(ax, &ex), my = unpack(ay, &ey);
	uint64_t d = (uint64_t)(ex - ey);
	do {
		uint64_t s = d < FMOD64_STEP ? d : FMOD64_STEP;
		mx = (mx << s) % my;
		d -= s;
		passes++;
	} while (d != 0);
	return from_bits((mx == 0 ? 0 : pack(mx, ey)) | sx);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void) /* splitmix64 */
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static long ntried, nwrong;

static void one(double x, double y)
{
	double got = model_fmod(x, y), want = fmod(x, y);
	bool same = isnan(want) ? isnan(got) : bits(got) == bits(want);
	ntried++;
	if (!same && nwrong++ < 10)
		CHECKF(false, "fmod(%a, %a): got %a, want %a", x, y, got, want);
}

/* a double of sign and exponent field e (0..2047) and a random mantissa */
static double with_field(uint64_t e)
{
	return from_bits((next() & (SIGN | MANT)) | e << 52);
}

int main(void)
{
	static const double special[] = {0.0, 0x1p-1074, 0x1.8p-1073, 0x0.fffffffffffffp-1022, 0x1p-1022,
	                                 0x1.0000000000001p-1022, 0x1.5555555555555p-1000, 3e-308, 1e-300, 0.1,
	                                 0.5, 1.0, 1.5, 2.0, 3.0, 7.0, 10.0, 0x1p52, 0x1p53, 0x1.fffffffffffffp52,
	                                 0x1p53 + 2, 1e16, 1e22, 1e100, 1e300, 1e308, 0x1.fffffffffffffp1023,
	                                 INFINITY, NAN};
	for (int i = 0; i < NELEM(special); i++)
		for (int j = 0; j < NELEM(special); j++)
			for (int s = 0; s < 4; s++)
				one(s & 1 ? -special[i] : special[i], s & 2 ? -special[j] : special[j]);
	CHECK(bits(model_fmod(-6.0, 3.0)) == bits(-0.0) && bits(model_fmod(-0.0, 1.0)) == bits(-0.0));
	CHECK(model_fmod(1e308, 3e-308) == fmod(1e308, 3e-308) && model_fmod(1e308, 3e-308) != 0);
	CHECK(bits(model_fmod(-0x1p-1074, INFINITY)) == bits(-0x1p-1074));
	long fixed = ntried;

	for (int k = 0; k < 1000000; k++)
		one(from_bits(next()), from_bits(next()));
	for (int k = 0; k < 1000000; k++) {
		uint64_t e = 1 + next() % 2046, below = next() % 64;
		one(with_field(e), with_field(e > below ? e - below : 0));
	}
	for (int k = 0; k < 1000000; k++)
		one(with_field(next() % 3), with_field(next() % 3));
	printf("fmod_model: %ld pairs (%ld special), %ld wrong, %.1f passes each\n", ntried, fixed, nwrong,
	       (double)passes / (double)ntried);
	CHECKF(nwrong == 0, "%ld of %ld pairs differ from libm's fmod", nwrong, ntried);
	return check_summary("fmod_model");
}
