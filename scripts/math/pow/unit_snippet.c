/*
 * unit_snippet.c: pow for tests/unit/math_model_test.c.  Paste below that
 * file's model_sin_cos (it uses the file's NELEM, bits() and its
 * fp-contract=off pragma, and cg_math.h's POW_ constants, pasted from
 * scripts/math/pow/consts.h), and call check_pow() from main before
 * check_summary.  The steps are scripts/math/pow/README.md's, numbered
 * alike; f64 inside, one narrowing to f32.
 *
 * Checked: four million pairs of a fixed seed (x of random bits and y =
 * t / log2 x, t uniform in [-160, 135], so that x^y covers the f32 range
 * and its edges; y of random bits; x negative with y an integer; x in
 * [1/2, 2) with large y) against libm's double pow, in ulps of the f32
 * result (scripts/math/pow measured 0.500097 over 5.4e10 pairs; the check
 * allows 0.501), and a table of C99 Annex F's special cases, bit for
 * bit (signed zeros, infinities; NaN as any NaN).
 */

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
