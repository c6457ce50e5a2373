/*
 * semantics.c: the interpreter's arithmetic, where it must match the GPU
 * bit for bit or where it defines what the GPU leaves open: C division and
 * remainder, division by zero giving 0, i32 wrap-around, saturating
 * float-to-int casts (NaN -> 0), NaN-propagating maximum, f16 rounded after
 * every op (round to nearest even), bf16 storage, reductions with argmax's
 * first index; if/else in a loop and atomic_add's old value; the math
 * functions (libm's f32 ones, fma rounded once, floor and ceil folded
 * exactly, clamp; trunc, rint, round, log1p, expm1, pow, isnan, isinf,
 * isfinite, fdiv, sqrt_rn, softmax); fn helpers; random numbers; the atomics; cumsum; while loops, a lock, float
 * atomic max/min and atomic_cas; bitcasts and 16-bit float sorts; the
 * shape built-ins, static_assert, swizzle2d and umulhi; block pointers
 * (make_block_ptr, advance, boundary_check, padding_option, carried through
 * loops, ifs and fns, i64 indices); the dots of loops whose operand
 * addresses the strength pass steps (the induction variable's k + arange,
 * a block pointer's advance, carried offsets moved by x - c and by c + x,
 * one of them plus the induction variable, an i64 loop, addresses that
 * move backwards, nested loops) and of one it must leave alone (an offset
 * also moved in an if).  Runs at opt 0 and opt 1, which must agree.
 */
#include "run.h"

static const char *ints =
	"kernel ints(o: *i32, a: i32, b: i32, z: i32, f: f32, g: f32) {\n"
	"    store(o + 0, a / b);\n"
	"    store(o + 1, a % b);\n"
	"    store(o + 2, a / z);\n"
	"    store(o + 3, a % z);\n"
	"    store(o + 4, 2147483647 + (b - 1));\n"
	"    store(o + 5, cast(f * 1e10, i32));\n"
	"    store(o + 6, cast(-f * 1e10, i32));\n"
	"    store(o + 7, cast(g, i32));\n"
	"    store(o + 8, cast(-2.75 * f, i32));\n"
	"    store(o + 9, a >> 1);\n"
	"    store(o + 10, (a * 65536) * 65536);\n"
	"}\n";

static void test_ints(int opt, int32_t *o)
{
	/* a = -7, b = 2, z = 0, f = 1, g = NaN */
	int32_t want[] = {-3, -1, 0, 0, INT32_MIN, INT32_MAX, INT32_MIN, 0, -2, -4, 0};
	for (int i = 0; i < 11; i++)
		o[i] = REF_POISON_INT;
	KArg a[] = {kbuf(o, 11 * 4), kint(-7), kint(2), kint(0), kfloat(1.0), kfloat(NAN)};
	if (!CHECKF(run_text("ints.tile", ints, NULL, NULL, 0, opt, a, 6, 1, 1, 1) == 0, "ints: %s", run_error))
		return;
	for (int i = 0; i < 11; i++)
		CHECKF(o[i] == want[i], "ints (opt %d): line %d stored %d, want %d", opt, i + 2, o[i], want[i]);
}

/* h = 1 (f16); e = 2^-11 is half an f16 ulp at 1, so h + e ties to even (1.0) at every step */
static const char *halfs =
	"kernel halfs(o: *f16, ob: *bf16, of: *f32, f: f32, g: f32) {\n"
	"    let h = cast(f, f16);\n"
	"    let e = cast(f * 0.00048828125, f16);\n"
	"    store(o + 0, (h + e) + e);\n"
	"    store(o + 1, cast((f + 0.00048828125) + 0.00048828125, f16));\n"
	"    store(o + 2, cast(f * 70000.0, f16));\n"
	"    store(o + 3, h / cast(f * 3.0, f16));\n"
	"    store(ob + 0, cast(f * 1.00390625, bf16));\n"
	"    store(ob + 1, cast(f * 1.01171875, bf16));\n"
	"    store(of + 0, maximum(g, f));\n"
	"    store(of + 1, minimum(f, g));\n"
	"    store(of + 2, maximum(f, -f));\n"
	"}\n";

static void test_halfs(int opt, uint16_t *o, uint16_t *ob, float *of)
{
	uint16_t want[] = {0x3c00, 0x3c01, 0x7c00, 0x3555};
	uint16_t wantb[] = {0x3f80, 0x3f82};
	ref_poison_f16(o, 4);
	ref_poison_f16(ob, 2);
	ref_poison_f32(of, 3);
	KArg a[] = {kbuf(o, 8), kbuf(ob, 4), kbuf(of, 12), kfloat(1.0), kfloat(NAN)};
	if (!CHECKF(run_text("halfs.tile", halfs, NULL, NULL, 0, opt, a, 5, 1, 1, 1) == 0, "halfs: %s", run_error))
		return;
	for (int i = 0; i < 4; i++)
		CHECKF(o[i] == want[i], "halfs (opt %d): f16 %d is 0x%04x, want 0x%04x", opt, i, o[i], want[i]);
	for (int i = 0; i < 2; i++)
		CHECKF(ob[i] == wantb[i], "halfs (opt %d): bf16 %d is 0x%04x, want 0x%04x", opt, i, ob[i], wantb[i]);
	CHECKF(isnan(of[0]) && isnan(of[1]), "maximum/minimum with NaN: %g %g", of[0], of[1]);
	CHECKF(of[2] == 1.0f, "maximum(1, -1) = %g", of[2]);
}

/* argmax/argmin give the first index of the extreme; max/min/sum over both axes */
static const char *reduce =
	"kernel reduce(o: *i32, of: *f32, x: *f32) {\n"
	"    let r = arange(0, 4);\n"
	"    let c = arange(0, 8);\n"
	"    let t = load(x + r[:, None] * 8 + c[None, :]);\n"
	"    store(o + r, argmax(t, 1));\n"
	"    store(o + 4 + c, argmin(t, 0));\n"
	"    store(of + r, max(t, 1));\n"
	"    store(of + 4 + c, sum(t, 0));\n"
	"}\n";

static void test_reduce(int opt, int32_t *o, float *of)
{
	float x[32];
	for (int i = 0; i < 32; i++)
		x[i] = (float)((i * 7) % 5);   /* rows repeat values, so ties happen */
	ref_poison_bytes(o, 12 * 4);
	ref_poison_f32(of, 12);
	KArg a[] = {kbuf(o, 12 * 4), kbuf(of, 12 * 4), kbuf(x, sizeof x)};
	if (!CHECKF(run_text("reduce.tile", reduce, NULL, NULL, 0, opt, a, 3, 1, 1, 1) == 0, "reduce: %s", run_error))
		return;
	for (int r = 0; r < 4; r++) {
		int best = 0;
		for (int c = 1; c < 8; c++)
			best = x[r * 8 + c] > x[r * 8 + best] ? c : best;
		CHECKF(o[r] == best, "argmax row %d = %d, want %d", r, o[r], best);
		float m = x[r * 8];
		for (int c = 1; c < 8; c++)
			m = fmaxf(m, x[r * 8 + c]);
		CHECKF(of[r] == m, "max row %d = %g, want %g", r, of[r], m);
	}
	for (int c = 0; c < 8; c++) {
		int best = 0;
		float s = 0;
		for (int r = 0; r < 4; r++) {
			best = x[r * 8 + c] < x[best * 8 + c] ? r : best;
			s += x[r * 8 + c];
		}
		CHECKF(o[4 + c] == best, "argmin column %d = %d, want %d", c, o[4 + c], best);
		CHECKF(of[4 + c] == s, "sum column %d = %g, want %g", c, of[4 + c], s);
	}
}

/* if/else inside a loop, loop-carried values, atomic_add returning the old value */
static const char *flow =
	"kernel flow(o: *i32, n: i32) {\n"
	"    var even = 0;\n"
	"    var odd = 0;\n"
	"    for i in range(0, n) {\n"
	"        if i % 2 == 1 { odd += i; } else { even += i; }\n"
	"    }\n"
	"    let old = atomic_add(o + 2, even);\n"
	"    store(o, even);\n"
	"    store(o + 1, odd);\n"
	"    store(o + 3, old);\n"
	"}\n";

static void test_flow(int opt)
{
	int32_t o[4] = {REF_POISON_INT, REF_POISON_INT, 5, REF_POISON_INT};
	KArg a[] = {kbuf(o, sizeof o), kint(10)};
	if (!CHECKF(run_text("flow.tile", flow, NULL, NULL, 0, opt, a, 2, 1, 1, 1) == 0, "flow: %s", run_error))
		return;
	CHECKF(o[0] == 20 && o[1] == 25 && o[2] == 25 && o[3] == 5, "flow (opt %d): %d %d %d %d, want 20 25 25 5", opt,
	       o[0], o[1], o[2], o[3]);
}

/* a = 1 + 2^-12: a * a = 1 + 2^-11 + 2^-24 rounds to 1 + 2^-11 in f32, so
 * a * a + c is 0 with c = -(1 + 2^-11), where fma keeps the 2^-24 */
static const char *maths =
	"kernel maths(o: *f32, oh: *f16, a: f32, c: f32, f: f32) {\n"
	"    store(o + 0, fma(a, a, c));\n"
	"    store(o + 1, a * a + c);\n"
	"    store(o + 2, floor(-2.5));\n"
	"    store(o + 3, ceil(-2.5));\n"
	"    store(o + 4, floor(f * -2.5));\n"
	"    store(o + 5, ceil(f * 2.25));\n"
	"    store(o + 6, sin(f * 10000.0));\n"
	"    store(o + 7, cos(f * 3.0));\n"
	"    store(o + 8, tanh(f * 0.5));\n"
	"    store(o + 9, erf(f * -0.75));\n"
	"    store(o + 10, clamp(f * 7.0, -1.0, 2.0));\n"
	"    store(o + 11, clamp(f * -7.0, -1.0, 2.0));\n"
	"    store(oh + 0, fma(cast(f, f16), cast(f * 3.0, f16), cast(f * 0.0001, f16)));\n"
	"    store(oh + 1, erf(cast(f, f16)));\n"
	"}\n";

static void test_maths(int opt, float *o, uint16_t *oh)
{
	float a = 1.0f + 0x1p-12f, c = -(1.0f + 0x1p-11f);
	float want[] = {0x1p-24f, 0, -3, -2, -3, 3, sinf(10000.0f), cosf(3.0f), tanhf(0.5f), erff(-0.75f), 2, -1};
	/* f16: 1 * 3 + 0.0001 rounds to 3 (ulp 2^-9 at 3); erf(1) = 0.8427 -> 0x3abe */
	uint16_t wanth[] = {0x4200, 0x3abe};
	ref_poison_f32(o, 12);
	ref_poison_f16(oh, 2);
	KArg k[] = {kbuf(o, 12 * 4), kbuf(oh, 2 * 2), kfloat(a), kfloat(c), kfloat(1.0)};
	if (!CHECKF(run_text("maths.tile", maths, NULL, NULL, 0, opt, k, 5, 1, 1, 1) == 0, "maths: %s", run_error))
		return;
	for (int i = 0; i < 12; i++)
		CHECKF(memcmp(&o[i], &want[i], 4) == 0, "maths (opt %d): line %d stored %a, want %a", opt, i + 2,
		       (double)o[i], (double)want[i]);
	for (int i = 0; i < 2; i++)
		CHECKF(oh[i] == wanth[i], "maths (opt %d): f16 line %d stored 0x%04x, want 0x%04x", opt, i + 14, oh[i],
		       wanth[i]);
}

/*
 * The rounding functions folded (constants) and computed (f = 1 at run
 * time): trunc toward 0, rint to even, round away from 0 at the halves;
 * log1p and expm1 as libm's f32 ones, pow as its double one rounded to
 * f32, pow's special values as C's; isnan, isinf, isfinite; fdiv,
 * sqrt_rn; softmax of a 2 x 4 tile along each axis (each column and each
 * row sums to 1); atan and atan2 at their special values, of integers, and
 * by keyword (atan2(x = 1, y = -1)); pow of an f16 to an odd power past
 * f16's integers.
 */
static const char *maths2 =
	"kernel maths2(o: *f32, ob: *i32, f: f32) {\n"
	"    store(o + 0, trunc(-2.5));\n"
	"    store(o + 1, rint(-2.5));\n"
	"    store(o + 2, round(-2.5));\n"
	"    store(o + 3, trunc(f * 3.5));\n"
	"    store(o + 4, rint(f * 3.5));\n"
	"    store(o + 5, round(f * 0.5));\n"
	"    store(o + 6, rint(f * 0.5));\n"
	"    store(o + 7, log1p(f * 1e-5));\n"
	"    store(o + 8, expm1(f * -1e-5));\n"
	"    store(o + 9, pow(f * 2.0, 10));\n"
	"    store(o + 10, pow(f * -2.0, 3.0));\n"
	"    store(o + 11, pow(f * -2.0, 0.5));\n"
	"    store(o + 12, pow(nan * f, 0.0));\n"
	"    store(o + 13, pow(f * 0.0, -1.0));\n"
	"    store(o + 14, fdiv(f, 3.0));\n"
	"    store(o + 15, fdiv(f, 3.0, ieee_rounding = true));\n"
	"    store(o + 16, sqrt_rn(f * 2.0));\n"
	"    let v = full([4], f, f32) * (arange(0, 4) - 1);\n"
	"    let w = v / (v - v);\n"
	"    store(ob + arange(0, 4), cast(isnan(w), i32) + 2 * cast(isinf(w), i32) + 4 * cast(isfinite(w), i32));\n"
	"    let x = cast(arange(0, 2)[:, None] * 4 + arange(0, 4)[None, :], f32) * f;\n"
	"    let r = arange(0, 2)[:, None] * 4 + arange(0, 4)[None, :];\n"
	"    store(o + 17 + r, softmax(x));\n"
	"    store(o + 25 + r, softmax(x, dim = 1));\n"
	"    store(o + 33 + r, softmax(cast(x, f16), 1, ieee_rounding = true));\n"
	"    store(o + 41, atan(f));\n"
	"    store(o + 42, atan(inf * f));\n"
	"    store(o + 43, atan2(f * 0.0, -1.0));\n"
	"    store(o + 44, atan2(f * -0.0, -1.0));\n"
	"    store(o + 45, atan2(f, 0.0));\n"
	"    store(o + 46, atan2(-inf * f, inf));\n"
	"    store(o + 47, atan2(f, f));\n"
	"    store(o + 48, atan2(3, 4));\n"
	"    store(o + 49, atan2(x = f, y = -f));\n"
	"    store(o + 50, cast(pow(cast(-f, f16), 2049), f32));\n"
	"}\n";

static void test_maths2(int opt, float *o, int32_t *ob)
{
	float want[] = {-2, -2, -3, 3, 4, 1, 0, log1pf(1e-5f), expm1f(-1e-5f), 1024, -8, NAN, 1, INFINITY};
	float want_atan[] = {(float)atan(1.0), 0x1.921fb6p+0f, 0x1.921fb6p+1f, -0x1.921fb6p+1f, 0x1.921fb6p+0f,
	                     -0x1.921fb6p-1f, 0x1.921fb6p-1f, (float)atan2(3.0, 4.0), -0x1.921fb6p-1f, -1.0f};
	ref_poison_f32(o, 51);
	ref_poison_bytes(ob, 4 * 4);
	KArg k[] = {kbuf(o, 51 * 4), kbuf(ob, 4 * 4), kfloat(1.0)};
	if (!CHECKF(run_text("maths2.tile", maths2, NULL, NULL, 0, opt, k, 3, 1, 1, 1) == 0, "maths2: %s", run_error))
		return;
	for (int i = 0; i < 14; i++)
		CHECKF(memcmp(&o[i], &want[i], 4) == 0 || (isnan(want[i]) && isnan(o[i])),
		       "maths2 (opt %d): line %d stored %a, want %a", opt, i + 2, (double)o[i], (double)want[i]);
	CHECKF(fabsf(o[14] - 1.0f / 3) <= 0x1p-23f, "maths2 (opt %d): fdiv stored %a", opt, (double)o[14]);
	CHECKF(o[15] == 1.0f / 3, "maths2 (opt %d): fdiv ieee stored %a", opt, (double)o[15]);
	CHECKF(o[16] == sqrtf(2.0f), "maths2 (opt %d): sqrt_rn stored %a", opt, (double)o[16]);
	/* w = -1/0, 0/0, 1/0, 2/0: -inf, NaN, inf, inf; every one is not finite */
	int32_t wantb[] = {2, 1, 2, 2};
	for (int i = 0; i < 4; i++)
		CHECKF(ob[i] == wantb[i], "maths2 (opt %d): class of element %d is %d, want %d", opt, i, ob[i], wantb[i]);
	for (int j = 0; j < 4; j++) { /* dim 0: each column (j, j + 4) */
		double e = exp(4.0), want0 = 1 / (1 + e);
		CHECKF(fabs(o[17 + j] - want0) < 1e-6 && fabs(o[21 + j] - e * want0) < 1e-6,
		       "maths2 (opt %d): softmax dim 0 column %d is %g %g", opt, j, (double)o[17 + j], (double)o[21 + j]);
	}
	for (int i = 0; i < 2; i++) /* dim 1: each row */
		for (int j = 0; j < 4; j++) {
			double den = 1 + exp(1.0) + exp(2.0) + exp(3.0), want1 = exp((double)j) / den;
			CHECKF(fabs(o[25 + 4 * i + j] - want1) < 1e-6 && fabs(o[33 + 4 * i + j] - want1) < 1e-3,
			       "maths2 (opt %d): softmax dim 1 row %d element %d is %g and %g, want %g", opt, i, j,
			       (double)o[25 + 4 * i + j], (double)o[33 + 4 * i + j], want1);
		}
	for (int i = 0; i < 10; i++) /* and pow(-1 in f16, 2049): the exponent stays odd (computed in f32) */
		CHECKF(memcmp(&o[41 + i], &want_atan[i], 4) == 0, "maths2 (opt %d): line %d stored %a, want %a", opt,
		       i, (double)o[41 + i], (double)want_atan[i]);
}

/*
 * fn helpers: a constant argument sizes a tile; a weak literal stays weak
 * (with h = 1 + 2^-10 in f16, scale(scale(h, 3.0), 3.0) rounds in f16 twice:
 * 3 + 1.5 ulp ties up to 0x4202, times 3 is 9 + 1.5 ulp, up to 0x4882;
 * in f32 it would be 9.0087890625, 0x4881 in f16);
 * defaults; nested calls; two values returned and unpacked into a loop's
 * carried variables (an online max and sum of exp over x, 8 at a time);
 * `return g(x);` passing on g's two values; `_` dropping one; a call's
 * values dropped as a statement.
 */
static const char *fns =
	"fn scale(x, s = 3.0) { return x * s; }\n"
	"fn iota(B) { return arange(0, B); }\n"
	"fn sq(x) { return x * x; }\n"
	"fn sum_sq(x) { return sum(sq(x), 0); }\n"
	"fn two(x) { return x, x + 1.0; }\n"
	"fn fwd(x) { return two(x); }\n"
	"fn step(m, l, x) {\n"
	"    let m_new = maximum(m, max(x, 0));\n"
	"    return m_new, l * exp(m - m_new) + sum(exp(x - m_new), 0);\n"
	"}\n"
	"kernel fns(o: *f32, oh: *f16, x: *f32, n: i32, g: f32, N: const i32 = 8) {\n"
	"    store(o + 0, sum_sq(cast(iota(N), f32)));\n"
	"    store(o + 1, scale(2.0));\n"
	"    store(o + 2, scale(2.0, s = 0.5));\n"
	"    store(oh + 0, scale(scale(cast(g, f16), 3.0), 3.0));\n"
	"    var m = -inf;\n"
	"    var l = 0.0;\n"
	"    for j in range(0, n, N) {\n"
	"        let offs = j + iota(N);\n"
	"        m, l = step(m, l, load(x + offs, offs < n, -inf));\n"
	"    }\n"
	"    let m2, l2 = step(m, l, full([N], -inf, f32));\n"
	"    store(o + 3, m2);\n"
	"    store(o + 4, l2);\n"
	"    let p, q = fwd(2.0);\n"
	"    store(o + 5, p * q);\n"
	"    var s = 0.0;\n"
	"    s, _ = two(4.0);\n"
	"    let _, _ = two(s);\n"
	"    two(s);\n"
	"    store(o + 6, s);\n"
	"}\n";

static void test_fns(int opt, float *o)
{
	enum { N = 20 };
	float x[N], m = -INFINITY;
	double l = 0;
	for (int i = 0; i < N; i++) {
		x[i] = (float)((i * 7) % 11) * 0.25f - 1.0f;
		m = fmaxf(m, x[i]);
	}
	for (int i = 0; i < N; i++)
		l += exp((double)x[i] - m);
	uint16_t oh = 0;
	ref_poison_f32(o, 7);
	ref_poison_f16(&oh, 1);
	KArg k[] = {kbuf(o, 7 * 4), kbuf(&oh, 2), kbuf(x, sizeof x), kint(N), kfloat(1.0009765625)};
	if (!CHECKF(run_text("fns.tile", fns, NULL, NULL, 0, opt, k, 5, 1, 1, 1) == 0, "fns: %s", run_error))
		return;
	CHECKF(o[0] == 140.0f, "fns (opt %d): sum of squares of 0..7 is %g, want 140", opt, (double)o[0]);
	CHECKF(o[1] == 6.0f && o[2] == 1.0f, "fns (opt %d): scale gave %g and %g, want 6 and 1", opt, (double)o[1],
	       (double)o[2]);
	CHECKF(oh == 0x4882, "fns (opt %d): f16 (1 + 2^-10) * 3 * 3 stored 0x%04x, want 0x4882", opt, oh);
	CHECKF(o[3] == m, "fns (opt %d): running max %g, want %g", opt, (double)o[3], (double)m);
	CHECKF(fabs(o[4] - l) < 1e-5 * l, "fns (opt %d): running sum %g, want %g", opt, (double)o[4], l);
	CHECKF(o[5] == 6.0f && o[6] == 4.0f, "fns (opt %d): forwarded values gave %g and %g, want 6 and 4", opt,
	       (double)o[5], (double)o[6]);
}

/*
 * Random numbers: Philox4x32-10 of counter 0 and key 0 is Random123's known
 * answer 0x6627e8d5 0xe169c58d 0xbc57ac4c 0x9b00dbd8; the rest against
 * ref_philox (tests/util/ref.h), with a 64-bit seed (both key words), a negative i32
 * seed (high word all ones), offsets that wrap, and 7 rounds.  rand maps x
 * to (x < 0 ? ~x : x) * 4.6566127342e-10 in f32, in [0, 1); randn is
 * Box-Muller (within 1e-5 of libm's f32 functions here).
 */
static const char *rng =
	"kernel rng(o: *i32, of: *f32, seed: i64, neg: i32, N: const i32 = 64) {\n"
	"    let offs = arange(0, N);\n"
	"    let k0, k1, k2, k3 = randint4x(0, 0);\n"
	"    store(o + 0, k0);\n"
	"    store(o + 1, k1);\n"
	"    store(o + 2, k2);\n"
	"    store(o + 3, k3);\n"
	"    let a, b, c, d = randint4x(seed, offs);\n"
	"    store(o + 4 + offs, a);\n"
	"    store(o + 4 + N + offs, b);\n"
	"    store(o + 4 + 2 * N + offs, c);\n"
	"    store(o + 4 + 3 * N + offs, d);\n"
	"    store(o + 4 + 4 * N + offs, randint(neg, offs * 2053368709, n_rounds = 7));\n"
	"    store(of + offs, rand(seed, offs));\n"
	"    store(of + N + offs, randn(seed, offs));\n"
	"}\n";

static void test_rng(int opt, int32_t *o, float *of)
{
	enum { N = 64 };
	const uint64_t seed = 0x123456789abcdef0ull;
	const int32_t neg = -12345;
	ref_poison_bytes(o, (4 + 5 * N) * 4);
	ref_poison_f32(of, 2 * N);
	KArg k[] = {kbuf(o, (4 + 5 * N) * 4), kbuf(of, 2 * N * 4), kint((int64_t)seed), kint(neg)};
	if (!CHECKF(run_text("rng.tile", rng, NULL, NULL, 0, opt, k, 4, 1, 1, 1) == 0, "rng: %s", run_error))
		return;
	const uint32_t kat[4] = {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8};
	for (int w = 0; w < 4; w++)
		CHECKF((uint32_t)o[w] == kat[w], "rng (opt %d): Philox4x32-10(0, 0) word %d is 0x%08x, want 0x%08x", opt,
		       w, (uint32_t)o[w], kat[w]);
	int bad = 0;
	for (int i = 0; i < N; i++) {
		for (int w = 0; w < 4; w++)
			bad += (uint32_t)o[4 + w * N + i] != ref_philox((uint32_t)i, seed, 10, w);
		uint32_t c = (uint32_t)i * 2053368709u;
		bad += (uint32_t)o[4 + 4 * N + i] != ref_philox(c, (uint64_t)(int64_t)neg, 7, 0);
		float u = ref_rand_float(ref_philox((uint32_t)i, seed, 10, 0));
		bad += memcmp(&of[i], &u, 4) != 0 || !(of[i] >= 0.0f && of[i] < 1.0f);
		float u1 = fmaxf(u, 1e-7f), u2 = ref_rand_float(ref_philox((uint32_t)i, seed, 10, 1));
		float z = sqrtf(-2.0f * logf(u1)) * cosf(6.2831853f * u2);
		bad += !(fabsf(of[N + i] - z) <= 1e-5f * fmaxf(1.0f, fabsf(z)));
	}
	CHECKF(bad == 0, "rng (opt %d): %d of %d values differ from the reference", opt, bad, 7 * N);
}

/*
 * atomic_max, min, and, or, xor: 64 values into 4 slots each (no order
 * matters); atomic_xchg swaps in new values and returns the old ones.
 */
static const char *atomics =
	"kernel atomics(o: *i32, f: *f32, x: *i32) {\n"
	"    let i = arange(0, 64);\n"
	"    let v = load(x + i);\n"
	"    atomic_max(o + i % 4, v);\n"
	"    atomic_min(o + 4 + i % 4, v);\n"
	"    atomic_and(o + 8 + i % 4, v);\n"
	"    atomic_or(o + 12 + i % 4, v);\n"
	"    atomic_xor(o + 16 + i % 4, v);\n"
	"    store(f + 64 + i, atomic_xchg(f + i, cast(v, f32)));\n"
	"}\n";

static void test_atomics(int opt, int32_t *o, float *f)
{
	int32_t x[64], want[20];
	for (int s = 0; s < 4; s++)
		want[s] = INT32_MIN, want[4 + s] = INT32_MAX, want[8 + s] = -1, want[12 + s] = 0, want[16 + s] = 0;
	for (int i = 0; i < 64; i++) {
		x[i] = (int32_t)(((uint32_t)i * 2654435761u) ^ 0x5bd1e995u);
		int s = i % 4;
		want[s] = x[i] > want[s] ? x[i] : want[s];
		want[4 + s] = x[i] < want[4 + s] ? x[i] : want[4 + s];
		want[8 + s] &= x[i], want[12 + s] |= x[i], want[16 + s] ^= x[i];
	}
	for (int s = 0; s < 20; s++)
		o[s] = s < 4 ? INT32_MIN : s < 8 ? INT32_MAX : s < 12 ? -1 : 0;
	for (int i = 0; i < 64; i++)
		f[i] = (float)i * 0.5f;
	ref_poison_f32(f + 64, 64);
	KArg k[] = {kbuf(o, 20 * 4), kbuf(f, 128 * 4), kbuf(x, sizeof x)};
	if (!CHECKF(run_text("atomics.tile", atomics, NULL, NULL, 0, opt, k, 3, 1, 1, 1) == 0, "atomics: %s", run_error))
		return;
	for (int s = 0; s < 20; s++)
		CHECKF(o[s] == want[s], "atomics (opt %d): slot %d is %d, want %d", opt, s, o[s], want[s]);
	for (int i = 0; i < 64; i++)
		CHECKF(f[i] == (float)x[i] && f[64 + i] == (float)i * 0.5f, "atomics (opt %d): xchg at %d gave %g, old %g",
		       opt, i, (double)f[i], (double)f[64 + i]);
}

/*
 * cumsum: along either axis of a 2-D tile and of a 1-D one, forward and
 * reversed, ints (exact) and floats holding small integers (exact in any
 * order); f16 input accumulates in f32, as sum does.
 */
static const char *scans =
	"kernel scans(o: *i32, of: *f32, x: *i32) {\n"
	"    let r = arange(0, 8);\n"
	"    let c = arange(0, 16);\n"
	"    let t = load(x + r[:, None] * 16 + c[None, :]);\n"
	"    let at = r[:, None] * 16 + c[None, :];\n"
	"    store(o + at, cumsum(t, 1));\n"
	"    store(o + 128 + at, cumsum(t, axis = 0, reverse = true));\n"
	"    store(of + at, cumsum(cast(t, f32), 0));\n"
	"    store(of + 128 + c, cumsum(cast(load(x + c), f16), reverse = true));\n"
	"}\n";

static void test_scans(int opt, int32_t *o, float *of)
{
	int32_t x[128], want[256];
	float wantf[144];
	for (int i = 0; i < 128; i++)
		x[i] = (int32_t)((i * 37) % 23) - 11;
	for (int r = 0; r < 8; r++)
		for (int c = 0; c < 16; c++) {
			int32_t s = 0, u = 0;
			float f = 0;
			for (int k = 0; k <= c; k++)
				s += x[r * 16 + k];
			for (int k = r; k < 8; k++)
				u += x[k * 16 + c];
			for (int k = 0; k <= r; k++)
				f += (float)x[k * 16 + c];
			want[r * 16 + c] = s, want[128 + r * 16 + c] = u, wantf[r * 16 + c] = f;
		}
	for (int c = 0; c < 16; c++) {
		float f = 0;
		for (int k = c; k < 16; k++)
			f += (float)x[k];
		wantf[128 + c] = f;
	}
	ref_poison_bytes(o, 256 * 4);
	ref_poison_f32(of, 144);
	KArg k[] = {kbuf(o, 256 * 4), kbuf(of, 144 * 4), kbuf(x, sizeof x)};
	if (!CHECKF(run_text("scans.tile", scans, NULL, NULL, 0, opt, k, 3, 1, 1, 1) == 0, "scans: %s", run_error))
		return;
	int bad = 0;
	for (int i = 0; i < 256; i++)
		bad += o[i] != want[i];
	for (int i = 0; i < 144; i++)
		bad += of[i] != wantf[i];
	CHECKF(bad == 0, "scans (opt %d): %d of 400 running sums wrong", opt, bad);
}

/*
 * while loops (one with an if in it, one that never runs, one carrying a
 * tile), a spin lock around a ticket taken from a scalar atomic's old
 * value, float atomic_max and atomic_min on the bits as the GPU does them
 * (signed zeros, NaN, infinities), and atomic_cas on floats with a mask.
 */
static const char *loops =
	"kernel loops(o: *i32, lock: *i32, x: *f32, fm: *f32, fc: *f32, n: i32) {\n"
	"    let p = program_id(0) * 4;\n"
	"    var m = n;\n"
	"    var steps = 0;\n"
	"    while m != 1 {\n"
	"        if m % 2 == 0 { m = m / 2; } else { m = 3 * m + 1; }\n"
	"        steps += 1;\n"
	"    }\n"
	"    var k = 5;\n"
	"    while k < 0 { k -= 1; }\n"
	"    var t = load(x + arange(0, 8));\n"
	"    var halvings = 0;\n"
	"    while sum(t, 0) >= 1.0 { t = t * 0.5; halvings += 1; }\n"
	"    while atomic_cas(lock, 0, 1) == 1 {}\n"
	"    let ticket = atomic_add(lock + 1, 1);\n"
	"    atomic_xchg(lock, 0);\n"
	"    store(o + p, steps);\n"
	"    store(o + p + 1, halvings);\n"
	"    store(o + p + 2, k);\n"
	"    store(o + p + 3, ticket);\n"
	"    if program_id(0) == 0 {\n"
	"        let i = arange(0, 8);\n"
	"        let v = load(fm + 16 + i);\n"
	"        store(fm + 24 + i, atomic_max(fm + i, v));\n"
	"        atomic_min(fm + 8 + i, v);\n"
	"        let j = arange(0, 4);\n"
	"        store(fc + 4 + j, atomic_cas(fc + j, cast(j, f32), 100.0, j != 3));\n"
	"    }\n"
	"}\n";

static void test_loops(int opt, int32_t *o, float *fm)
{
	int32_t lock[2] = {0, 0};
	float x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, fc[8] = {0, 5, 2, 3};
	static const float a[8] = {1, -1, -2, 0.5f, -0.0f, -1, 3, -INFINITY};
	static const float v[8] = {2, -3, 0.5f, -7, 0.0f, -0.0f, NAN, INFINITY};
	static const float mx[8] = {2, -1, 0.5f, 0.5f, 0.0f, -0.0f, 3, INFINITY};
	static const float mn[8] = {1, -3, -2, -7, -0.0f, -1, 3, -INFINITY};
	for (int i = 0; i < 8; i++)
		fm[i] = a[i], fm[8 + i] = a[i], fm[16 + i] = v[i], fm[24 + i] = 42;
	for (int i = 0; i < 12; i++)
		o[i] = REF_POISON_INT;
	ref_poison_f32(fc + 4, 4);
	KArg k[] = {kbuf(o, 12 * 4), kbuf(lock, sizeof lock), kbuf(x, sizeof x), kbuf(fm, 32 * 4), kbuf(fc, sizeof fc),
		    kint(27)};
	if (!CHECKF(run_text("loops.tile", loops, NULL, NULL, 0, opt, k, 6, 3, 1, 1) == 0, "loops: %s", run_error))
		return;
	for (int p = 0; p < 3; p++)
		CHECKF(o[4 * p] == 111 && o[4 * p + 1] == 6 && o[4 * p + 2] == 5 && o[4 * p + 3] == p,
		       "loops (opt %d): program %d gave %d %d %d %d, want 111 6 5 %d", opt, p, o[4 * p], o[4 * p + 1],
		       o[4 * p + 2], o[4 * p + 3], p);
	CHECKF(lock[0] == 0 && lock[1] == 3, "loops (opt %d): lock %d, tickets %d, want 0 and 3", opt, lock[0], lock[1]);
	for (int i = 0; i < 8; i++) {
		CHECKF(!memcmp(&fm[i], &mx[i], 4) && !memcmp(&fm[8 + i], &mn[i], 4) && !memcmp(&fm[24 + i], &a[i], 4),
		       "loops (opt %d): float max/min of %g and %g gave %g and %g (old %g), want %g and %g", opt,
		       (double)a[i], (double)v[i], (double)fm[i], (double)fm[8 + i], (double)fm[24 + i], (double)mx[i],
		       (double)mn[i]);
	}
	static const float cw[8] = {100, 5, 100, 3, 0, 5, 2, 0};
	for (int i = 0; i < 8; i++)
		CHECKF(fc[i] == cw[i], "loops (opt %d): atomic_cas f32 element %d is %g, want %g", opt, i, (double)fc[i],
		       (double)cw[i]);
}

/*
 * reshape keeps row-major order; split takes the even and odd elements of
 * a last axis of 2 (also after a transpose); join and interleave put them
 * back side by side, a scalar broadcast; permute moves axes.
 */
static const char *shapes =
	"kernel shapes(o: *i32, x: *i32) {\n"
	"    let v = load(x + arange(0, 16));\n"
	"    let lo, hi = split(reshape(v, [2, 4, 2]));\n"
	"    store(o + arange(0, 8), reshape(lo, [8]));\n"
	"    store(o + 8 + arange(0, 8), reshape(hi - lo, [8]));\n"
	"    store(o + 16 + arange(0, 16), interleave(arange(0, 8), 100));\n"
	"    let p, q = split(trans(reshape(v, [2, 8])));\n"
	"    store(o + 32 + arange(0, 8), p * 1000 + q);\n"
	"    store(o + 40 + arange(0, 32), reshape(join(reshape(v, [4, 4]), 7), [32]));\n"
	"    store(o + 72 + arange(0, 4), sum(reshape(v, [4, 4]), 1));\n"
	"    store(o + 76 + reshape(arange(0, 16), [4, 2, 2]), permute(reshape(v, [2, 4, 2]), [1, 2, 0]));\n"
	"    store(o + 92 + reshape(arange(0, 16), [8, 2]), permute(reshape(v, [2, 8]), dims=[1, 0]));\n"
	"}\n";

static void test_shapes(int opt, int32_t *o)
{
	int32_t x[16], want[108];
	for (int i = 0; i < 16; i++)
		x[i] = i * i - 3 * i;
	for (int i = 0; i < 108; i++)
		o[i] = REF_POISON_INT;
	for (int i = 0; i < 8; i++) {
		want[i] = x[2 * i];
		want[8 + i] = x[2 * i + 1] - x[2 * i];
		want[16 + 2 * i] = i;
		want[16 + 2 * i + 1] = 100;
		want[32 + i] = x[i] * 1000 + x[8 + i];
	}
	for (int i = 0; i < 16; i++)
		want[40 + 2 * i] = x[i], want[40 + 2 * i + 1] = 7;
	for (int r = 0; r < 4; r++)
		want[72 + r] = x[4 * r] + x[4 * r + 1] + x[4 * r + 2] + x[4 * r + 3];
	for (int a = 0; a < 4; a++)
		for (int b = 0; b < 2; b++)
			for (int c = 0; c < 2; c++)
				want[76 + (a * 2 + b) * 2 + c] = x[c * 8 + a * 2 + b];
	for (int a = 0; a < 8; a++)
		for (int b = 0; b < 2; b++)
			want[92 + a * 2 + b] = x[b * 8 + a];
	KArg k[] = {kbuf(o, 108 * 4), kbuf(x, sizeof x)};
	if (!CHECKF(run_text("shapes.tile", shapes, NULL, NULL, 0, opt, k, 2, 1, 1, 1) == 0, "shapes: %s", run_error))
		return;
	for (int i = 0; i < 108; i++)
		CHECKF(o[i] == want[i], "shapes (opt %d): element %d is %d, want %d", opt, i, o[i], want[i]);
}

/*
 * bitcast keeps every bit, NaN payloads (signalling ones too) and -0
 * included, both ways and for f16/bf16, as loads and stores do on the GPU;
 * a constant folds.  sort of 16-bit floats (keys as i16 in the network):
 * numbers in order, -0 below +0, NaNs after them, bits kept.
 */
static const char *bits =
	"kernel bits(oi: *i32, of: *f32, oh: *i16, ohf: *f16, ob: *bf16, x: *f32, n: *i32, h: *f16, b: *bf16) {\n"
	"    let i = arange(0, 8);\n"
	"    store(oi + i, cast(load(x + i), i32, bitcast = true));\n"
	"    store(oi + 8, cast(1.0, i32, bitcast = true));\n"
	"    store(of + i, cast(load(n + i), f32, bitcast = true));\n"
	"    store(oh + i, cast(load(h + i), i16, bitcast = true));\n"
	"    store(ohf + i, cast(cast(load(b + i), i16, bitcast = true), f16, bitcast = true));\n"
	"    store(ohf + 8 + i, sort(load(h + i)));\n"
	"    store(ob + i, sort(load(b + i), descending = true));\n"
	"}\n";

static void test_bitcasts(int opt, int32_t *oi, uint16_t *oh)
{
	uint32_t xb[8] = {0x3f800000, 0x80000000, 0x7fc00123, 0xffc00001, 0x7f800000, 0xc0200000, 0xff800003, 0x00000001};
	int32_t n[8] = {0x3f800000, (int32_t)0x80000000, 0x7fc00456, (int32_t)0xffc00002, 0x7f800001, -1, 7, 0x7f800000};
	uint16_t h[8] = {0x3c00, 0x8000, 0x7e01, 0xfe00, 0x7c00, 0xc100, 0x0000, 0x3800};
	uint16_t b[8] = {0x3f80, 0x8000, 0x7fc1, 0xffc0, 0x7f80, 0xc020, 0x0000, 0x3f00};
	uint16_t hsorted[8] = {0xc100, 0x8000, 0x0000, 0x3800, 0x3c00, 0x7c00, 0x7e01, 0xfe00};
	uint16_t bdown[8] = {0xffc0, 0x7fc1, 0x7f80, 0x3f80, 0x3f00, 0x0000, 0x8000, 0xc020};
	float x[8], of[8];
	int16_t ohi[8];
	uint16_t ob[8];
	memcpy(x, xb, sizeof x);
	for (int i = 0; i < 8; i++)
		oi[i] = REF_POISON_INT, of[i] = NAN, ohi[i] = -1, oh[i] = oh[8 + i] = ob[i] = 0xffff;
	oi[8] = REF_POISON_INT;
	KArg a[] = {kbuf(oi, 9 * 4), kbuf(of, sizeof of), kbuf(ohi, sizeof ohi), kbuf(oh, 16 * 2), kbuf(ob, sizeof ob),
		    kbuf(x, sizeof x), kbuf(n, sizeof n), kbuf(h, sizeof h), kbuf(b, sizeof b)};
	if (!CHECKF(run_text("bits.tile", bits, NULL, NULL, 0, opt, a, 9, 1, 1, 1) == 0, "bits: %s", run_error))
		return;
	for (int i = 0; i < 8; i++) {
		uint32_t f;
		memcpy(&f, &of[i], 4);
		CHECKF((uint32_t)oi[i] == xb[i], "bitcast f32 to i32 (opt %d): %#x, want %#x", opt, (unsigned)oi[i], (unsigned)xb[i]);
		CHECKF(f == (uint32_t)n[i], "bitcast i32 to f32 (opt %d): %#x, want %#x", opt, (unsigned)f, (unsigned)n[i]);
		CHECKF((uint16_t)ohi[i] == h[i], "bitcast f16 to i16 (opt %d): %#x, want %#x", opt, (unsigned)(uint16_t)ohi[i], h[i]);
		CHECKF(oh[i] == b[i], "bitcast bf16 to f16 (opt %d): %#x, want %#x", opt, oh[i], b[i]);
		CHECKF(oh[8 + i] == hsorted[i], "sort f16 (opt %d) at %d: %#x, want %#x", opt, i, oh[8 + i], hsorted[i]);
		CHECKF(ob[i] == bdown[i], "sort bf16 descending (opt %d) at %d: %#x, want %#x", opt, i, ob[i], bdown[i]);
	}
	CHECKF(oi[8] == 0x3f800000, "bitcast of the constant 1.0 (opt %d): %#x", opt, (unsigned)oi[8]);
}

/*
 * The shape built-ins (broadcast_to, expand_dims with one axis, a
 * negative one and a list, of a tile and of a scalar; ravel, zeros_like,
 * cat of 1-D and 2-D tiles), static_assert that holds, swizzle2d of tiles
 * (a last group of fewer rows) and of scalars, and umulhi of i32 and i64,
 * against 64- and 128-bit unsigned products on the host: 0, -1, the
 * minimum, the maximum, words at the 32-bit boundary and random values,
 * broadcast, promoted and folded.
 */
static const char *more =
	"kernel more(o: *i32, ol: *i64, x: *i32, xl: *i64, s: i32, n: i32, B: const i32 = 16) {\n"
	"    static_assert(B % 4 == 0, \"B is a multiple of 4\");\n"
	"    static_assert(true);\n"
	"    let i = arange(0, B);\n"
	"    let q = arange(0, 4);\n"
	"    let a = load(x + i);\n"
	"    let b = load(x + B + i);\n"
	"    let c = load(xl + i);\n"
	"    let d = load(xl + B + i);\n"
	"    store(o + i, umulhi(a, b));\n"
	"    store(o + 16 + i, umulhi(a, -7));\n"
	"    store(o + 32 + i, umulhi(x = s, y = a));\n"
	"    store(o + 48, umulhi(-1, -1));\n"
	"    store(o + 49, umulhi(65536, 65536));\n"
	"    let m = reshape(a, [4, 4]);\n"
	"    store(o + 64 + arange(0, 32), ravel(broadcast_to(m, [2, 4, 4])));\n"
	"    store(o + 96 + i, ravel(broadcast_to(expand_dims(q, 1), [4, 4])));\n"
	"    store(o + 112 + i, ravel(broadcast_to(input = expand_dims(q, -2), shape = [4, 4])));\n"
	"    store(o + 128 + i, ravel(broadcast_to(expand_dims(input = q, axis = [0, 2]), [2, 4, 2])));\n"
	"    store(o + 144 + q, ravel(broadcast_to(expand_dims(n, [0, -1]), [2, 2])));\n"
	"    store(o + 148 + q, broadcast_to(7, [4]));\n"
	"    store(o + 152 + i, ravel(zeros_like(m), can_reorder = true));\n"
	"    store(o + 168 + arange(0, 32), cat(a, b));\n"
	"    store(o + 200 + arange(0, 32), ravel(cat(input = trans(m), other = reshape(b, [4, 4]), can_reorder = true)));\n"
	"    let r = arange(0, 8);\n"
	"    let si, sj = swizzle2d(r[:, None], r[None, :], 7, 8, 3);\n"
	"    store(o + 232 + arange(0, 64), ravel(si));\n"
	"    store(o + 296 + arange(0, 64), ravel(sj));\n"
	"    let ti, tj = swizzle2d(n, 5, size_i = 7, size_j = 8, size_g = 3);\n"
	"    store(o + 360, ti);\n"
	"    store(o + 361, tj);\n"
	"    store(ol + i, umulhi(c, d));\n"
	"    store(ol + 16 + i, umulhi(c, a));\n"
	"    store(ol + 32, umulhi(cast(-1, i64), cast(-1, i64)));\n"
	"    store(ol + 33, umulhi(cast(-1, i64), 2));\n"
	"    store(ol + 34 + i, zeros_like(c));\n"
	"}\n";

static int32_t umulhi32(int32_t a, int32_t b) { return (int32_t)(((uint64_t)(uint32_t)a * (uint32_t)b) >> 32); }

static int64_t umulhi64(int64_t a, int64_t b)
{
	return (int64_t)(uint64_t)(((unsigned __int128)(uint64_t)a * (uint64_t)b) >> 64);
}

/* Triton's swizzle2d, in C (the indices are not negative, so C's / and % are Python's) */
static void swizzle_ref(int i, int j, int size_i, int size_j, int size_g, int32_t *ni, int32_t *nj)
{
	int ij = i * size_j + j, gj = size_g * size_j, off = ij / gj * size_g;
	int g = size_i - off < size_g ? size_i - off : size_g;
	ij %= gj;
	*ni = off + ij % g;
	*nj = ij / g;
}

static void test_more(int opt, int32_t *o, int64_t *ol)
{
	int32_t x[32] = {0, -1, INT32_MIN, INT32_MAX, -1, INT32_MIN, 1, -2, 65536, -65536, 0x7fffffff, 12345};
	int32_t y[16] = {-1, -1, INT32_MIN, INT32_MAX, INT32_MIN, -1, -1, -2, 65536, 65536, -1};
	int64_t xl[32] = {0, -1, INT64_MIN, INT64_MAX, -1, INT64_MIN, INT64_MIN, 0xffffffff, 0x100000000, -0x80000000LL,
			  0x7fffffff, -0xffffffffLL};
	int64_t yl[16] = {-1, -1, INT64_MIN, INT64_MAX, INT64_MIN, INT64_MAX, -1, 0xffffffff, 0xffffffff, -0x80000000LL,
			  0x80000000, -0xffffffffLL};
	uint64_t seed = 12345;
	for (int k = 0; k < 32; k++) { /* random values past the chosen ones */
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		if (k >= 12)
			x[k] = (int32_t)(seed >> 32), xl[k] = (int64_t)(seed ^ (seed << 17));
		if (k >= 11 && k < 16)
			y[k] = (int32_t)seed;
		if (k >= 12 && k < 16)
			yl[k] = (int64_t)(seed * 0x9e3779b97f4a7c15ull);
	}
	for (int k = 0; k < 16; k++)
		x[16 + k] = y[k], xl[16 + k] = yl[k];
	int32_t want[362];
	int64_t wantl[50];
	for (int k = 0; k < 362; k++)
		want[k] = o[k] = REF_POISON_INT;
	for (int k = 0; k < 50; k++)
		wantl[k] = ol[k] = REF_POISON_INT;
	int32_t s = INT32_MIN, n = 6;
	for (int k = 0; k < 16; k++) {
		want[k] = umulhi32(x[k], x[16 + k]);
		want[16 + k] = umulhi32(x[k], -7);
		want[32 + k] = umulhi32(s, x[k]);
		want[64 + k] = want[80 + k] = x[k];
		want[96 + k] = k / 4;
		want[112 + k] = k % 4;
		want[128 + k] = k / 2 % 4;
		want[152 + k] = 0;
		want[168 + k] = x[k];
		want[184 + k] = want[216 + k] = x[16 + k];
		want[200 + k] = x[k % 4 * 4 + k / 4];
		wantl[k] = umulhi64(xl[k], xl[16 + k]);
		wantl[16 + k] = umulhi64(xl[k], x[k]);
		wantl[34 + k] = 0;
	}
	want[48] = -2;
	want[49] = 1;
	for (int k = 0; k < 4; k++)
		want[144 + k] = n, want[148 + k] = 7;
	for (int r = 0; r < 8; r++)
		for (int c = 0; c < 8; c++)
			swizzle_ref(r, c, 7, 8, 3, &want[232 + r * 8 + c], &want[296 + r * 8 + c]);
	swizzle_ref(n, 5, 7, 8, 3, &want[360], &want[361]);
	wantl[32] = -2;
	wantl[33] = 1;
	KArg k[] = {kbuf(o, 362 * 4), kbuf(ol, 50 * 8), kbuf(x, sizeof x), kbuf(xl, sizeof xl), kint(s), kint(n)};
	if (!CHECKF(run_text("more.tile", more, NULL, NULL, 0, opt, k, 6, 1, 1, 1) == 0, "more: %s", run_error))
		return;
	for (int i = 0; i < 362; i++)
		CHECKF(o[i] == want[i], "more (opt %d): i32 element %d is %d (%#x), want %d (%#x)", opt, i, o[i],
		       (unsigned)o[i], want[i], (unsigned)want[i]);
	for (int i = 0; i < 50; i++)
		CHECKF(ol[i] == wantl[i], "more (opt %d): i64 element %d is %#llx, want %#llx", opt, i,
		       (unsigned long long)ol[i], (unsigned long long)wantl[i]);
}

/*
 * static_range repeats its body with the variable a constant: it sizes
 * tiles (arange(0, 2 << i)), counts down with a negative step, updates
 * outer vars copy after copy, and nests.
 */
static const char *static_src =
	"kernel st(out: *f32, x: *f32) {\n"
	"    var acc = zeros([8], f32);\n"
	"    for i in static_range(4) {\n"
	"        acc += load(x + i * 8 + arange(0, 8));\n"
	"        let w = arange(0, 2 << i);\n"
	"        store(out + 8 + (2 << i) - 2 + w, cast(w * i, f32));\n"
	"    }\n"
	"    for j in static_range(6, 0, -2) {\n"
	"        for k in static_range(j, j + 2) {\n"
	"            acc = acc * 2.0 + k;\n"
	"        }\n"
	"    }\n"
	"    store(out + arange(0, 8), acc);\n"
	"}\n";

/* gather of a tile of pointers gathers pointers (to the same type) */
static const char *gather_ptr_src =
	"kernel gp(x: *i32, out: *i32) {\n"
	"    let p = gather(x + arange(0, 16), 15 - arange(0, 16), 0);\n"
	"    store(out + arange(0, 16), load(p));\n"
	"}\n";

static void test_gather_ptr(int opt)
{
	int32_t x[16], out[16];
	for (int i = 0; i < 16; i++)
		x[i] = 100 + i, out[i] = REF_POISON_INT;
	KArg a[] = {kbuf(x, sizeof x), kbuf(out, sizeof out)};
	if (!CHECKF(run_text("gp.tile", gather_ptr_src, NULL, NULL, 0, opt, a, 2, 1, 1, 1) == 0, "gather of pointers: %s",
		    run_error))
		return;
	for (int i = 0; i < 16; i++)
		CHECKF(out[i] == 115 - i, "gather of pointers (opt %d) at %d: %d", opt, i, out[i]);
}

static void test_static_range(int opt)
{
	float x[32], out[8 + 30], want[8 + 30];
	for (int i = 0; i < 32; i++)
		x[i] = (float)(i % 7) - 3;
	for (int e = 0; e < 8; e++) {
		float acc = 0;
		for (int i = 0; i < 4; i++)
			acc += x[i * 8 + e];
		for (int j = 6; j > 0; j -= 2)
			for (int k = j; k < j + 2; k++)
				acc = acc * 2 + (float)k;
		want[e] = acc;
	}
	for (int i = 0; i < 4; i++)
		for (int w = 0; w < 2 << i; w++)
			want[8 + (2 << i) - 2 + w] = (float)(w * i);
	KArg a[] = {kbuf(out, sizeof out), kbuf(x, sizeof x)};
	if (!CHECKF(run_text("st.tile", static_src, NULL, NULL, 0, opt, a, 2, 1, 1, 1) == 0, "static_range: %s",
		    run_error))
		return;
	for (int i = 0; i < 38; i++)
		CHECKF(out[i] == want[i], "static_range (opt %d) at %d: %g, want %g", opt, i, (double)out[i],
		       (double)want[i]);
}

/*
 * Block pointers (make_block_ptr, advance): loads with boundary_check on
 * both axes (negative offsets, offsets past the end), on one axis (the
 * other is not masked: it reads the row padding and the rows past M that
 * the buffer holds), padding_option="nan", a transposed view (strides
 * (1, ld)), 1-D and 3-D blocks; stores that write only inside along the
 * checked axes (poisoned guard cells around the tensor stay poisoned)
 * and along unchecked axes past the tensor, a scalar broadcast, f32
 * values rounded to f16 on store, i32 blocks; advance in for and while
 * loops (one whose condition loads the block), in an if in a loop, in
 * nested loops and a static_range, through fns that make, take, advance
 * and return block pointers (one in a loop, one in an if), made anew in a
 * loop (its shape carried too), a copy that must not move, a shadowing let;
 * i64 shapes, strides and offsets whose i32 truncation would give other
 * masks.  The host reference computes each element's index in i64.
 */
typedef struct BpRef {
	int rank;
	int64_t shape[3], stride[3], off[3];
	int block[3];
	unsigned check; /* a bit per checked axis */
} BpRef;

static BpRef bp_ref(int rank, const int64_t *shape, const int64_t *stride, const int64_t *off, const int *block,
		    unsigned check)
{
	BpRef b = {rank, {0}, {0}, {0}, {1, 1, 1}, check};
	for (int d = 0; d < rank; d++)
		b.shape[d] = shape[d], b.stride[d] = stride[d], b.off[d] = off[d], b.block[d] = block[d];
	return b;
}

static BpRef bp_ref2(int64_t m, int64_t n, int64_t ld, int64_t r, int64_t c, int br, int bc, unsigned check)
{
	return bp_ref(2, (int64_t[]){m, n}, (int64_t[]){ld, 1}, (int64_t[]){r, c}, (int[]){br, bc}, check);
}

static int bp_numel(const BpRef *b)
{
	return b->block[0] * b->block[1] * b->block[2];
}

/* Element k (row-major in the block): its index from the base, and whether it is inside along the checked axes. */
static bool bp_at(const BpRef *b, int k, int64_t *at)
{
	bool in = true;
	*at = 0;
	for (int d = b->rank - 1; d >= 0; d--) {
		int64_t i = b->off[d] + k % b->block[d];
		k /= b->block[d];
		*at += i * b->stride[d];
		if (b->check >> d & 1)
			in &= i >= 0 && i < b->shape[d];
	}
	return in;
}

/* The block b of x read into want, pad outside. */
static void bp_load_ref(const BpRef *b, const float *x, float pad, float *want)
{
	for (int k = 0; k < bp_numel(b); k++) {
		int64_t at;
		want[k] = bp_at(b, k, &at) ? x[at] : pad;
	}
}

/* got equals want bit for bit, but a NaN wanted (other than the poison) is any NaN other than the poison. */
static bool same_f32(float got, float want)
{
	if (isnan(want) && !ref_is_poison_f32(want))
		return isnan(got) && !ref_is_poison_f32(got);
	return memcmp(&got, &want, 4) == 0;
}

static void check_block(const char *what, int opt, const float *got, const float *want, int n)
{
	int bad = 0, first = -1;
	for (int k = 0; k < n; k++)
		if (!same_f32(got[k], want[k]))
			bad++, first = first < 0 ? k : first;
	CHECKF(bad == 0, "block pointers (opt %d), %s: %d of %d elements wrong, the first at %d: %g, want %g", opt, what,
	       bad, n, first, bad ? (double)got[first] : 0.0, bad ? (double)want[first] : 0.0);
}

static const char *bp_src =
	"fn load_in(p) { return load(p, boundary_check=(0, 1)); }\n"
	"fn down(p, k) { return advance(p, (k, 0)); }\n"
	"fn at(x, ld, M, N, r, c) { return make_block_ptr(x, (M, N), (ld, 1), (r, c), (4, 16), (1, 0)); }\n"
	"fn both(p, q) { return advance(q, (1, 0)), advance(p, (0, 1)); }\n"
	"fn walk(p, n) {\n"
	"    var q = p;\n"
	"    for i in range(0, n) { q = advance(q, (1, 0)); }\n"
	"    return q;\n"
	"}\n"
	"fn pick(c, p, q) {\n"
	"    var r = p;\n"
	"    if c { r = q; }\n"
	"    return r;\n"
	"}\n"
	"kernel bp_load(o: *f32, x: *f32, M: i32, N: i32, ld: i32) {\n"
	"    let a = make_block_ptr(x, (M, N), (ld, 1), (-3, -5), (8, 16), (1, 0));\n"
	"    store(o + arange(0, 128), ravel(load(a, boundary_check=(0, 1))));\n"
	"    let b = make_block_ptr(x, (M, N), (ld, 1), (M - 3, N - 6), (8, 16), (1, 0));\n"
	"    store(o + 128 + arange(0, 128), ravel(load(b, boundary_check=(1, 0), padding_option=\"zero\")));\n"
	"    let c = make_block_ptr(x, (M, N), (ld, 1), (-4, 0), (8, 16), (1, 0));\n"
	"    store(o + 256 + arange(0, 128), ravel(load(c, boundary_check=(0,))));\n"
	"    let d = make_block_ptr(x, (M, N), (ld, 1), (M - 2, 9), (8, 16), (1, 0));\n"
	"    store(o + 384 + arange(0, 128), ravel(load(d, boundary_check=1)));\n"
	"    store(o + 512 + arange(0, 128), ravel(load(a, boundary_check=(0, 1), padding_option=\"nan\")));\n"
	"    let t = make_block_ptr(x, (N, M), (1, ld), (-2, 5), (16, 8), (0, 1));\n"
	"    store(o + 640 + arange(0, 128), ravel(load(t, boundary_check=(0, 1))));\n"
	"    let e = make_block_ptr(x, [20], [3], [-4], [16], [0]);\n"
	"    store(o + 768 + arange(0, 16), load(e, boundary_check=[0]));\n"
	"    let f = make_block_ptr(x, (2, 5, N), (5 * ld, ld, 1), (-1, 2, 8), (4, 4, 8), (2, 1, 0));\n"
	"    store(o + 784 + arange(0, 128), ravel(load(f, boundary_check=(0, 1, 2))));\n"
	"    store(o + 912 + arange(0, 16), load(make_block_ptr(x, (4,), (3,), (2,), (16,), (0,))));\n"
	"}\n"
	"kernel bp_store(o: *f32, h: *f16, oi: *i32, hx: *f16, xi: *i32, M: i32, N: i32) {\n"
	"    let v = cast(arange(0, 8)[:, None] * 100 + arange(0, 16)[None, :] + 1000, f32);\n"
	"    store(make_block_ptr(o + 136, (M, N), (32, 1), (-3, -5), (8, 16), (1, 0)), v, boundary_check=(0, 1));\n"
	"    store(make_block_ptr(o + 648, (M, N), (32, 1), (3, 4), (8, 16), (1, 0)), v, boundary_check=(1, 0));\n"
	"    let w = cast(arange(0, 4)[:, None] * 100 + arange(0, 16)[None, :] + 1000, f32);\n"
	"    store(make_block_ptr(o + 1160, (M, N), (32, 1), (4, -6), (4, 16), (1, 0)), w, boundary_check=1);\n"
	"    store(make_block_ptr(o + 1672, (M, N), (32, 1), (-1, 8), (4, 4), (1, 0)), 7.0, boundary_check=(0, 1));\n"
	"    store(make_block_ptr(h + 136, (M, N), (32, 1), (-2, 3), (8, 16), (1, 0)), v * 0.001, boundary_check=(0, 1));\n"
	"    let hp = make_block_ptr(hx, (M, N), (N, 1), (3, -6), (8, 16), (1, 0));\n"
	"    store(o + 2048 + arange(0, 128), ravel(cast(load(hp, boundary_check=(0, 1), padding_option=\"nan\"), f32)));\n"
	"    let h3 = cast(load(hp, boundary_check=(0, 1)) * 3.0, f16);\n"
	"    store(make_block_ptr(h + 648, (M, N), (32, 1), (3, -6), (8, 16), (1, 0)), h3, boundary_check=(0, 1));\n"
	"    let xp = make_block_ptr(xi, (M, N), (N, 1), (-2, 5), (8, 16), (1, 0));\n"
	"    let iv = load(xp, boundary_check=(0, 1));\n"
	"    store(oi + 512 + arange(0, 128), ravel(iv));\n"
	"    store(make_block_ptr(oi + 136, (M, N), (32, 1), (-2, 5), (8, 16), (1, 0)), iv, boundary_check=(0, 1));\n"
	"}\n"
	"kernel bp_loops(o: *f32, x: *f32, M: i32, N: i32, ld: i32, steps: i32) {\n"
	"    let i = arange(0, 64);\n"
	"    var p = at(x, ld, M, N, 0, 0);\n"
	"    let p0 = p;\n"
	"    var acc = zeros((4, 16), f32);\n"
	"    for k in range(0, M, 4) {\n"
	"        acc += load_in(p);\n"
	"        p = advance(p, (4, 0));\n"
	"    }\n"
	"    store(o + i, ravel(acc));\n"
	"    store(o + 64 + i, ravel(load_in(p0)));\n"
	"    store(o + 128 + i, ravel(load_in(down(p, -6))));\n"
	"    var q = at(x, ld, M, N, 1, -2);\n"
	"    var n = 0;\n"
	"    while n < steps { q = advance(q, (1, 1)); n += 1; }\n"
	"    store(o + 192 + i, ravel(load_in(q)));\n"
	"    var s = p0;\n"
	"    var t = zeros((4, 16), f32);\n"
	"    for k in range(0, 6) {\n"
	"        if k % 2 == 1 { s = advance(s, (0, 3)); } else if k == 4 { s = down(s, 2); }\n"
	"        t += load_in(s);\n"
	"    }\n"
	"    store(o + 256 + i, ravel(t));\n"
	"    var u = p0;\n"
	"    var w = at(x, ld, M, N, 2, 0);\n"
	"    for a in range(0, 2) {\n"
	"        for b in range(0, 3) { u = advance(u, (0, 2)); }\n"
	"        u, w = both(u, w);\n"
	"        let u = advance(u, (5, 5));\n"
	"        store(o + 320 + 64 * a + i, ravel(load_in(u)));\n"
	"    }\n"
	"    store(o + 448 + i, ravel(load_in(u)));\n"
	"    store(o + 512 + i, ravel(load_in(w)));\n"
	"    var z = p0;\n"
	"    for c in static_range(3) { z = advance(z, (c, 1)); }\n"
	"    store(o + 576 + i, ravel(load_in(z)));\n"
	"    var y = p0;\n"
	"    while max(max(load_in(y), 1), 0) < 100.0 { y = advance(y, (1, 0)); }\n"
	"    store(o + 640 + i, ravel(load_in(y)));\n"
	"    store(o + 704 + i, ravel(load_in(walk(p0, steps))));\n"
	"    var r = p0;\n"
	"    for k in range(0, 3) { r = make_block_ptr(x, (M - k, N - 2 * k), (ld, 1), (2 * k + 1, k), (4, 16), (1, 0)); }\n"
	"    store(o + 768 + i, ravel(load_in(r)));\n"
	"    store(o + 832 + i, ravel(load_in(pick(steps > 2, p0, r))));\n"
	"    store(o + 896 + i, ravel(load_in(pick(steps > 7, p0, r))));\n"
	"}\n"
	"kernel bp_i64(o: *f32, x: *f32, s0: i64, off: i64, n: i64) {\n"
	"    let p = make_block_ptr(x, (1, n), (s0, 1), (1, off), (1, 16), (1, 0));\n"
	"    store(o + arange(0, 16), ravel(load(p, boundary_check=(1,))));\n"
	"    let q = advance(advance(p, (0, 3_000_000_000)), (0, -2_999_999_998));\n"
	"    store(o + 16 + arange(0, 16), ravel(load(q, boundary_check=1)));\n"
	"    let r = make_block_ptr(x, (16,), (1,), (cast(0, i64),), (16,), (0,));\n"
	"    store(o + 32 + arange(0, 16), load(advance(r, (4_294_967_296,)), boundary_check=0));\n"
	"}\n";

enum { BP_M = 10, BP_N = 13, BP_LD = 24, BP_XR = 16, BP_LOAD = 928, BP_LOOPS = 960, BP_I64 = 48, BP_STORE = 2176,
       BP_OF = BP_LOAD + BP_LOOPS + BP_I64 + BP_STORE, BP_OH = 1024, BP_OI = 640 };

static void bp_load_case(int opt, float *o, const float *x)
{
	float want[BP_LOAD];
	BpRef r[] = {
		bp_ref2(BP_M, BP_N, BP_LD, -3, -5, 8, 16, 3),
		bp_ref2(BP_M, BP_N, BP_LD, BP_M - 3, BP_N - 6, 8, 16, 3),
		bp_ref2(BP_M, BP_N, BP_LD, -4, 0, 8, 16, 1),
		bp_ref2(BP_M, BP_N, BP_LD, BP_M - 2, 9, 8, 16, 2),
		bp_ref2(BP_M, BP_N, BP_LD, -3, -5, 8, 16, 3),
		bp_ref(2, (int64_t[]){BP_N, BP_M}, (int64_t[]){1, BP_LD}, (int64_t[]){-2, 5}, (int[]){16, 8}, 3),
		bp_ref(1, (int64_t[]){20}, (int64_t[]){3}, (int64_t[]){-4}, (int[]){16}, 1),
		bp_ref(3, (int64_t[]){2, 5, BP_N}, (int64_t[]){5 * BP_LD, BP_LD, 1}, (int64_t[]){-1, 2, 8}, (int[]){4, 4, 8},
		       7),
		bp_ref(1, (int64_t[]){4}, (int64_t[]){3}, (int64_t[]){2}, (int[]){16}, 0),
	};
	static const char *const what[] = {"2-D, both axes checked, negative offsets", "2-D, both axes, past the end",
					   "axis 0 checked", "axis 1 checked", "padding_option=\"nan\"",
					   "transposed view", "1-D, stride 3", "3-D", "1-D unchecked"};
	int at = 0;
	for (int c = 0; c < 9; c++) {
		bp_load_ref(&r[c], x, c == 4 ? NAN : 0.0f, want + at);
		at += bp_numel(&r[c]);
	}
	ref_poison_f32(o, BP_LOAD);
	KArg k[] = {kbuf(o, BP_LOAD * 4), kbuf((void *)x, BP_XR * BP_LD * 4), kint(BP_M), kint(BP_N), kint(BP_LD)};
	if (!CHECKF(run_text("bp.tile", bp_src, "bp_load", NULL, 0, opt, k, 5, 1, 1, 1) == 0, "bp_load: %s", run_error))
		return;
	at = 0;
	for (int c = 0; c < 9; c++) {
		check_block(what[c], opt, o + at, want + at, bp_numel(&r[c]));
		at += bp_numel(&r[c]);
	}
}

/* The tensor of the store cases: M x N at row 4, column 8 of a 16 x 32 buffer (guard cells around it). */
static BpRef bp_out(int64_t r, int64_t c, int br, int bc, unsigned check)
{
	return bp_ref2(BP_M - 4, BP_N - 3, 32, r, c, br, bc, check);
}

static void bp_store_case(int opt, float *o, uint16_t *h, int32_t *oi)
{
	enum { M = BP_M - 4, N = BP_N - 3, G = 4 * 32 + 8 };
	float want[BP_STORE], hx32[M * N];
	uint16_t hx[M * N], wanth[BP_OH];
	int32_t xi[M * N], wanti[BP_OI];
	for (int k = 0; k < M * N; k++) {
		hx[k] = ref_f32_to_f16((float)(k % 23) * 0.375f - 4.0f);
		hx32[k] = ref_f16_to_f32(hx[k]);
		xi[k] = 3 * k - 7;
	}
	ref_poison_f32(o, BP_STORE);
	ref_poison_f16(h, BP_OH);
	ref_poison_bytes(oi, BP_OI * 4);
	memcpy(want, o, sizeof want);
	memcpy(wanth, h, sizeof wanth);
	memcpy(wanti, oi, sizeof wanti);
	/* value (i, j) of a 2-D store is 1000 + 100 i + j */
	BpRef s[] = {bp_out(-3, -5, 8, 16, 3), bp_out(3, 4, 8, 16, 3), bp_out(4, -6, 4, 16, 2), bp_out(-1, 8, 4, 4, 3)};
	for (int c = 0; c < 4; c++)
		for (int k = 0; k < bp_numel(&s[c]); k++) {
			int64_t at;
			if (bp_at(&s[c], k, &at))
				want[512 * c + G + at] = c == 3 ? 7.0f : (float)(1000 + 100 * (k / 16) + k % 16);
		}
	BpRef hs = bp_out(-2, 3, 8, 16, 3), hl = bp_ref2(M, N, N, 3, -6, 8, 16, 3), hs2 = bp_out(3, -6, 8, 16, 3);
	BpRef is = bp_out(-2, 5, 8, 16, 3), il = bp_ref2(M, N, N, -2, 5, 8, 16, 3);
	bp_load_ref(&hl, hx32, NAN, want + 2048);
	for (int k = 0; k < 128; k++) {
		int64_t at, at2;
		if (bp_at(&hs, k, &at))
			wanth[G + at] = ref_f32_to_f16((float)(1000 + 100 * (k / 16) + k % 16) * 0.001f);
		if (bp_at(&hs2, k, &at) && bp_at(&hl, k, &at2))
			wanth[512 + G + at] = ref_f32_to_f16(hx32[at2] * 3.0f);
		wanti[512 + k] = bp_at(&il, k, &at) ? xi[at] : 0;
		if (bp_at(&is, k, &at) && bp_at(&il, k, &at2))
			wanti[G + at] = xi[at2];
	}
	KArg k[] = {kbuf(o, BP_STORE * 4), kbuf(h, BP_OH * 2), kbuf(oi, BP_OI * 4), kbuf(hx, sizeof hx),
		    kbuf(xi, sizeof xi), kint(M), kint(N)};
	if (!CHECKF(run_text("bp.tile", bp_src, "bp_store", NULL, 0, opt, k, 7, 1, 1, 1) == 0, "bp_store: %s", run_error))
		return;
	static const char *const what[] = {"store, both axes checked, negative offsets", "store, both axes, past the end",
					   "store, axis 1 checked, rows past the end", "store of a scalar"};
	for (int c = 0; c < 4; c++)
		check_block(what[c], opt, o + 512 * c, want + 512 * c, 512);
	check_block("f16 load, padding_option=\"nan\"", opt, o + 2048, want + 2048, 128);
	int bad = 0;
	for (int k = 0; k < BP_OH; k++)
		bad += h[k] != wanth[k];
	CHECKF(bad == 0, "block pointers (opt %d): %d of %d f16 elements stored wrong", opt, bad, BP_OH);
	bad = 0;
	for (int k = 0; k < BP_OI; k++)
		bad += oi[k] != wanti[k];
	CHECKF(bad == 0, "block pointers (opt %d): %d of %d i32 elements loaded or stored wrong", opt, bad, BP_OI);
}

/* the loops of bp_loops, on the host: each region's block offsets */
static void bp_loops_case(int opt, float *o, const float *x)
{
	enum { STEPS = 5 };
	float want[BP_LOOPS], blk[64];
	int64_t regions[15][2]; /* a block at (row, column) per region; 0 and 4 are sums of several */
	for (int k = 0; k < BP_LOOPS; k++)
		want[k] = 0;
	for (int r = 0; r < BP_M; r += 4) {
		BpRef b = bp_ref2(BP_M, BP_N, BP_LD, r, 0, 4, 16, 3);
		bp_load_ref(&b, x, 0, blk);
		for (int k = 0; k < 64; k++)
			want[k] += blk[k];
	}
	regions[1][0] = 0, regions[1][1] = 0;
	regions[2][0] = 12 - 6, regions[2][1] = 0;
	regions[3][0] = 1 + STEPS, regions[3][1] = -2 + STEPS;
	int64_t sr = 0, sc = 0;
	for (int k = 0; k < 6; k++) {
		if (k % 2 == 1)
			sc += 3;
		else if (k == 4)
			sr += 2;
		BpRef b = bp_ref2(BP_M, BP_N, BP_LD, sr, sc, 4, 16, 3);
		bp_load_ref(&b, x, 0, blk);
		for (int e = 0; e < 64; e++)
			want[256 + e] += blk[e];
	}
	int64_t u[2] = {0, 0}, w[2] = {2, 0};
	for (int a = 0; a < 2; a++) {
		u[1] += 6;
		int64_t nu[2] = {w[0] + 1, w[1]}, nw[2] = {u[0], u[1] + 1};
		memcpy(u, nu, sizeof u);
		memcpy(w, nw, sizeof w);
		regions[5 + a][0] = u[0] + 5, regions[5 + a][1] = u[1] + 5;
	}
	regions[7][0] = u[0], regions[7][1] = u[1];
	regions[8][0] = w[0], regions[8][1] = w[1];
	regions[9][0] = 0 + 1 + 2, regions[9][1] = 3;
	for (int64_t r = 0;; r++) {
		BpRef b = bp_ref2(BP_M, BP_N, BP_LD, r, 0, 4, 16, 3);
		float m = -INFINITY;
		bp_load_ref(&b, x, 0, blk);
		for (int e = 0; e < 64; e++)
			m = fmaxf(m, blk[e]);
		if (m >= 100.0f) {
			regions[10][0] = r, regions[10][1] = 0;
			break;
		}
	}
	regions[11][0] = STEPS, regions[11][1] = 0;
	regions[12][0] = regions[13][0] = 5, regions[12][1] = regions[13][1] = 2;
	regions[14][0] = regions[14][1] = 0;
	for (int g = 1; g < 15; g++) {
		if (g == 4)
			continue;
		bool remade = g == 12 || g == 13; /* the block pointer made in the loop: a smaller tensor */
		BpRef b = bp_ref2(BP_M - 2 * remade, BP_N - 4 * remade, BP_LD, regions[g][0], regions[g][1], 4, 16, 3);
		bp_load_ref(&b, x, 0, want + 64 * g);
	}
	ref_poison_f32(o, BP_LOOPS);
	KArg k[] = {kbuf(o, BP_LOOPS * 4), kbuf((void *)x, BP_XR * BP_LD * 4), kint(BP_M), kint(BP_N), kint(BP_LD),
		    kint(STEPS)};
	if (!CHECKF(run_text("bp.tile", bp_src, "bp_loops", NULL, 0, opt, k, 6, 1, 1, 1) == 0, "bp_loops: %s", run_error))
		return;
	static const char *const what[] = {"for loop", "a copy made before the loop", "advanced by an fn after the loop",
					   "while loop", "if in a loop", "shadowing let (first)", "shadowing let (second)",
					   "nested loops and an fn returning two", "the other of the two", "static_range",
					   "while loop whose condition loads", "an fn whose loop advances a copy",
					   "made anew in a loop", "an fn's if (taken)", "an fn's if (not taken)"};
	for (int g = 0; g < 15; g++)
		check_block(what[g], opt, o + 64 * g, want + 64 * g, 64);
}

/*
 * i64 indices: stride s0 = 4 - 2^32, offset 2^32 - 4 and shape 2^32 + 8
 * along the checked axis: element j is at j and inside for j < 12, where
 * i32 indices (4, -4 and 8) would mask j < 4 off; advancing a 1-D block of
 * 16 by 2^32 leaves nothing inside, where i32 would leave all of it.
 */
static void bp_i64_case(int opt, float *o)
{
	float x[16], want[BP_I64];
	for (int k = 0; k < 16; k++)
		x[k] = (float)(k + 1);
	for (int k = 0; k < 16; k++) {
		want[k] = k < 12 ? x[k] : 0;
		want[16 + k] = k < 10 ? x[k + 2] : 0;
		want[32 + k] = 0;
	}
	ref_poison_f32(o, BP_I64);
	KArg k[] = {kbuf(o, BP_I64 * 4), kbuf(x, sizeof x), kint(4 - (INT64_C(1) << 32)), kint((INT64_C(1) << 32) - 4),
		    kint((INT64_C(1) << 32) + 8)};
	if (!CHECKF(run_text("bp.tile", bp_src, "bp_i64", NULL, 0, opt, k, 5, 1, 1, 1) == 0, "bp_i64: %s", run_error))
		return;
	check_block("i64 indices", opt, o, want, BP_I64);
}

static void test_block_ptr(int opt, float *of, uint16_t *oh, int32_t *oi)
{
	float x[BP_XR * BP_LD];
	for (int k = 0; k < BP_XR * BP_LD; k++)
		x[k] = (float)(k + 1); /* no 0, so padding shows */
	bp_load_case(opt, of, x);
	bp_loops_case(opt, of + BP_LOAD, x);
	bp_i64_case(opt, of + BP_LOAD + BP_LOOPS);
	bp_store_case(opt, of + BP_LOAD + BP_LOOPS + BP_I64, oh, oi);
}

/*
 * passes/strength.c: loops whose dot operands are loaded from addresses
 * that move by one scalar an iteration, which the pass carries and steps.
 * A is ST_AR x ST_AK (row stride ST_AK), B is ST_AK x ST_BN (row stride
 * ST_BN), f16 integers from -3 to 3, so every 16 x 16 product, summed in
 * f32, is exact.  Each kernel writes one 16 x 16 block; the host adds the
 * same blocks of A @ B in i64.
 */
enum { ST_AR = 32, ST_AK = 64, ST_BN = 32, ST_CASES = 7 };

static const char *strength_src =
	"kernel st_iv(o: *f32, a: *f16, b: *f16, K: i32) {\n"
	"    let r = arange(0, 16);\n"
	"    var acc = zeros((16, 16), f32);\n"
	"    for k in range(0, K, 16) {\n"
	"        let ta = load(a + r[:, None] * 64 + (k + r)[None, :]);\n"
	"        let tb = load(b + (k + r)[:, None] * 32 + r[None, :]);\n"
	"        acc = dot(ta, tb, acc);\n"
	"    }\n"
	"    store(o + r[:, None] * 16 + r[None, :], acc);\n"
	"}\n"
	"kernel st_bp(o: *f32, a: *f16, b: *f16, M: i32, N: i32, K: i32) {\n"
	"    var pa = make_block_ptr(a, (M, K), (64, 1), (2, 0), (16, 16), (1, 0));\n"
	"    var pb = make_block_ptr(b, (K, N), (32, 1), (0, 3), (16, 16), (1, 0));\n"
	"    var acc = zeros((16, 16), f32);\n"
	"    for k in range(0, K, 16) {\n"
	"        acc = dot(load(pa, boundary_check = (0, 1)), load(pb, boundary_check = (0, 1)), acc);\n"
	"        pa = advance(pa, (0, 16));\n"
	"        pb = advance(pb, (16, 0));\n"
	"    }\n"
	"    let r = arange(0, 16);\n"
	"    store(o + r[:, None] * 16 + r[None, :], acc);\n"
	"}\n"
	"kernel st_sub(o: *f32, a: *f16, b: *f16, n: i32, c: i32) {\n"
	"    let r = arange(0, 16);\n"
	"    var acc = zeros((16, 16), f32);\n"
	"    var x = 48;\n"
	"    var y = 0;\n"
	"    for i in range(0, n) {\n"
	"        let ta = load(a + r[:, None] * 64 + (x + 2 * i) + r[None, :]);\n"
	"        let tb = load(b + cast(y + r, i64)[:, None] * 32 + r[None, :]);\n"
	"        acc = dot(ta, tb, acc);\n"
	"        x = x - c;\n"
	"        y = c + y;\n"
	"    }\n"
	"    store(o + r[:, None] * 16 + r[None, :], acc);\n"
	"}\n"
	"kernel st_i64(o: *f32, a: *f16, b: *f16, K: i64) {\n"
	"    let r = arange(0, 16);\n"
	"    var acc = zeros((16, 16), f32);\n"
	"    for k in range(cast(16, i64), K, 16) {\n"
	"        let ta = load(a + (r + 8)[:, None] * 64 + (k + r)[None, :]);\n"
	"        let tb = load(b + (k + r)[:, None] * 32 + r[None, :] + 5);\n"
	"        acc = dot(ta, tb, acc);\n"
	"    }\n"
	"    store(o + r[:, None] * 16 + r[None, :], acc);\n"
	"}\n"
	"kernel st_back(o: *f32, a: *f16, b: *f16, K: i32) {\n"
	"    let r = arange(0, 16);\n"
	"    var acc = zeros((16, 16), f32);\n"
	"    for h in static_range(1, -1, -1) {\n"
	"        for k in range(16 * h, K, 16) {\n"
	"            let j = K - 16 - k;\n"
	"            let ta = load(a + r[:, None] * 64 + (j + 16 * h + r)[None, :]);\n"
	"            let tb = load(b + (j + r)[:, None] * 32 + r[None, :]);\n"
	"            acc = dot(ta, tb, acc);\n"
	"        }\n"
	"    }\n"
	"    store(o + r[:, None] * 16 + r[None, :], acc);\n"
	"}\n"
	"kernel st_nest(o: *f32, a: *f16, b: *f16, n: i32, K: i32) {\n"
	"    let r = arange(0, 16);\n"
	"    var acc = zeros((16, 16), f32);\n"
	"    var w = 0;\n"
	"    for j in range(0, n) {\n"
	"        for k in range(0, K, 16) {\n"
	"            let ta = load(a + (j * 8 + r)[:, None] * 64 + (k + r)[None, :]);\n"
	"            let tb = load(b + (k + r)[:, None] * 32 + (j * 4 + r)[None, :]);\n"
	"            acc = dot(ta, tb, acc);\n"
	"        }\n"
	"        acc = dot(load(a + r[:, None] * 64 + (w + r)[None, :]), load(b + (w + r)[:, None] * 32 + r[None, :]), acc);\n"
	"        w += 16;\n"
	"    }\n"
	"    store(o + r[:, None] * 16 + r[None, :], acc);\n"
	"}\n"
	"kernel st_if(o: *f32, a: *f16, b: *f16, n: i32, c: i32) {\n"
	"    let r = arange(0, 16);\n"
	"    var acc = zeros((16, 16), f32);\n"
	"    var x = 0;\n"
	"    for i in range(0, n) {\n"
	"        let ta = load(a + r[:, None] * 64 + (x + r)[None, :]);\n"
	"        let tb = load(b + (x + r)[:, None] * 32 + r[None, :]);\n"
	"        acc = dot(ta, tb, acc);\n"
	"        x += 16;\n"
	"        if i % 2 == 1 { x += c; }\n"
	"    }\n"
	"    store(o + r[:, None] * 16 + r[None, :], acc);\n"
	"}\n";

/* want += the 16 x 16 product of A's rows ar.., columns ak..ak+15 and B's rows bk.., columns bc..;
 * columns of A (rows of B) at klim or past it count as 0 (a block pointer's boundary_check) */
static void st_block(const int16_t *a, const int16_t *b, int ar, int ak, int bk, int bc, int klim, int64_t *want)
{
	for (int i = 0; i < 16; i++)
		for (int j = 0; j < 16; j++)
			for (int t = 0; t < 16; t++)
				if (ak + t < klim && bk + t < klim)
					want[i * 16 + j] += (int64_t)a[(ar + i) * ST_AK + ak + t] * b[(bk + t) * ST_BN + bc + j];
}

static void test_strength(int opt, float *o)
{
	int16_t ai[ST_AR * ST_AK], bi[ST_AK * ST_BN];
	uint16_t a[ST_AR * ST_AK], b[ST_AK * ST_BN];
	for (int k = 0; k < ST_AR * ST_AK; k++)
		ai[k] = (int16_t)((k * 5 + k / ST_AK) % 7 - 3), a[k] = ref_f32_to_f16(ai[k]);
	for (int k = 0; k < ST_AK * ST_BN; k++)
		bi[k] = (int16_t)((k * 3 + k / ST_BN * 2) % 7 - 3), b[k] = ref_f32_to_f16(bi[k]);
	int64_t want[ST_CASES][256] = {{0}};
	for (int k = 0; k < 64; k += 16)
		st_block(ai, bi, 0, k, k, 0, 64, want[0]);
	for (int k = 0; k < 40; k += 16) /* K = 40: the last block half outside */
		st_block(ai, bi, 2, k, k, 3, 40, want[1]);
	for (int i = 0; i < 4; i++) /* x = 48 - 16 i, y = 16 i */
		st_block(ai, bi, 0, 48 - 14 * i, 16 * i, 0, 64, want[2]);
	for (int k = 16; k < 48; k += 16) /* K = 48 */
		st_block(ai, bi, 8, k, k, 5, 64, want[3]);
	for (int h = 1; h >= 0; h--)
		for (int k = 16 * h; k < 64; k += 16)
			st_block(ai, bi, 0, 48 - k + 16 * h, 48 - k, 0, 64, want[4]);
	for (int j = 0; j < 2; j++) {
		for (int k = 0; k < 64; k += 16)
			st_block(ai, bi, 8 * j, k, k, 4 * j, 64, want[5]);
		st_block(ai, bi, 0, 16 * j, 16 * j, 0, 64, want[5]);
	}
	for (int i = 0, x = 0; i < 3; i++) { /* c = 8: x = 0, 16, 40 */
		st_block(ai, bi, 0, x, x, 0, 64, want[6]);
		x += 16 + (i % 2 == 1 ? 8 : 0);
	}
	ref_poison_f32(o, ST_CASES * 256);
	static const char *const names[ST_CASES] = {"st_iv", "st_bp", "st_sub", "st_i64", "st_back", "st_nest", "st_if"};
	KArg args[ST_CASES][6] = {
		{kbuf(o, 1024), kbuf(a, sizeof a), kbuf(b, sizeof b), kint(64)},
		{kbuf(o + 256, 1024), kbuf(a, sizeof a), kbuf(b, sizeof b), kint(18), kint(19), kint(40)},
		{kbuf(o + 512, 1024), kbuf(a, sizeof a), kbuf(b, sizeof b), kint(4), kint(16)},
		{kbuf(o + 768, 1024), kbuf(a, sizeof a), kbuf(b, sizeof b), kint(48)},
		{kbuf(o + 1024, 1024), kbuf(a, sizeof a), kbuf(b, sizeof b), kint(64)},
		{kbuf(o + 1280, 1024), kbuf(a, sizeof a), kbuf(b, sizeof b), kint(2), kint(64)},
		{kbuf(o + 1536, 1024), kbuf(a, sizeof a), kbuf(b, sizeof b), kint(3), kint(8)},
	};
	static const int nargs[ST_CASES] = {4, 6, 5, 4, 4, 5, 5};
	for (int c = 0; c < ST_CASES; c++) {
		if (!CHECKF(run_text("strength.tile", strength_src, names[c], NULL, 0, opt, args[c], nargs[c], 1, 1, 1) == 0,
			    "%s (opt %d): %s", names[c], opt, run_error))
			continue;
		int bad = 0, first = -1;
		for (int k = 0; k < 256; k++)
			if (o[256 * c + k] != (float)want[c][k])
				bad++, first = first < 0 ? k : first;
		CHECKF(bad == 0, "%s (opt %d): %d of 256 elements wrong, the first at %d: %g, want %g", names[c], opt, bad,
		       first, bad ? (double)o[256 * c + first] : 0.0, bad ? (double)want[c][first] : 0.0);
	}
}

int main(void)
{
	int32_t oi[2][11], ori[2][12];
	uint16_t oh[2][4], ob[2][2];
	float of[2][3], orf[2][12], om[2][12], ofn[2][7], orngf[2][128];
	int32_t orng[2][4 + 5 * 64], oat[2][20];
	float oatf[2][128], oscf[2][144];
	int32_t osc[2][256];
	uint16_t omh[2][2];
	float om2[2][51];
	int32_t om2b[2][4];
	int32_t olp[2][12];
	float olf[2][32];
	int32_t osh[2][108];
	int32_t obi[2][9];
	uint16_t obh[2][16];
	int32_t omo[2][362];
	int64_t omol[2][50];
	float obp[2][BP_OF];
	uint16_t obph[2][BP_OH];
	int32_t obpi[2][BP_OI];
	float ostr[2][ST_CASES * 256];
	for (int opt = 0; opt < 2; opt++) {
		test_ints(opt, oi[opt]);
		test_halfs(opt, oh[opt], ob[opt], of[opt]);
		test_reduce(opt, ori[opt], orf[opt]);
		test_flow(opt);
		test_static_range(opt);
		test_gather_ptr(opt);
		test_maths(opt, om[opt], omh[opt]);
		test_maths2(opt, om2[opt], om2b[opt]);
		test_fns(opt, ofn[opt]);
		test_rng(opt, orng[opt], orngf[opt]);
		test_atomics(opt, oat[opt], oatf[opt]);
		test_scans(opt, osc[opt], oscf[opt]);
		test_loops(opt, olp[opt], olf[opt]);
		test_shapes(opt, osh[opt]);
		test_bitcasts(opt, obi[opt], obh[opt]);
		test_more(opt, omo[opt], omol[opt]);
		test_block_ptr(opt, obp[opt], obph[opt], obpi[opt]);
		test_strength(opt, ostr[opt]);
	}
	check_same("strength", ostr[0], ostr[1], sizeof ostr[0]);
	check_same("block pointers", obp[0], obp[1], sizeof obp[0]);
	check_same("block pointers f16", obph[0], obph[1], sizeof obph[0]);
	check_same("block pointers i32", obpi[0], obpi[1], sizeof obpi[0]);
	check_same("more", omo[0], omo[1], sizeof omo[0]);
	check_same("more i64", omol[0], omol[1], sizeof omol[0]);
	check_same("bitcasts", obi[0], obi[1], sizeof obi[0]);
	check_same("bitcasts f16", obh[0], obh[1], sizeof obh[0]);
	check_same("shapes", osh[0], osh[1], sizeof osh[0]);
	check_same("loops", olp[0], olp[1], sizeof olp[0]);
	check_same("loops f32", olf[0], olf[1], sizeof olf[0]);
	check_same("scans", osc[0], osc[1], sizeof osc[0]);
	check_same("atomics", oat[0], oat[1], sizeof oat[0]);
	check_same("rng", orng[0], orng[1], sizeof orng[0]);
	check_same("rng f32", orngf[0], orngf[1], sizeof orngf[0]);
	check_same("fns", ofn[0], ofn[1], sizeof ofn[0]);
	check_same("ints", oi[0], oi[1], sizeof oi[0]);
	check_same("halfs", oh[0], oh[1], sizeof oh[0]);
	check_same("bf16", ob[0], ob[1], sizeof ob[0]);
	check_same("reduce", ori[0], ori[1], sizeof ori[0]);
	check_same("reduce f32", orf[0], orf[1], sizeof orf[0]);
	check_same("maths", om[0], om[1], sizeof om[0]);
	check_same("maths f16", omh[0], omh[1], sizeof omh[0]);
	check_same("maths2", om2[0], om2[1], sizeof om2[0]);
	check_same("maths2 classes", om2b[0], om2b[1], sizeof om2b[0]);
	return check_summary("semantics");
}
