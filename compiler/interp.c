/*
 * interp.c: the CPU interpreter of the tile IR (see interp.h).
 *
 * Every SSA value owns one host array of Elt, allocated the first time the
 * value is defined and reused after that: a value inside a loop body is
 * overwritten on the next iteration, which SSA allows because it is dead by
 * then.  Programs of the grid run one after another, x fastest; each op
 * computes its whole tile at once.  A runtime error formats its message and
 * longjmps back to interp_run.
 *
 * Numbers.  An element is an int64 (integers sign-extended and wrapped to
 * their width after every op, i1 as 0/1, pointers as uint64 addresses) or a
 * double holding a value exactly representable in the element type: f32 ops
 * are computed in float, f16/bf16 ops in float and then rounded to nearest
 * even, f64 ops in double.  Where the GPU result is unspecified we choose:
 *   - integer division and remainder by zero give 0;
 *   - a shift by a negative amount or by >= the width gives 0 (shl) or the
 *     sign fill (shr);
 *   - reductions combine in a pairwise tree (stride n/2, n/4, ..., 1), the
 *     order of the GPU's butterfly shuffles; argmax/argmin scan in order,
 *     ties give the first index and a NaN counts as the extreme;
 *   - stores from several lanes to one address: the last lane wins;
 *   - dot with allow_tf32 is computed in full f32.
 *
 * Memory.  Buffer k (counted from 0 in registration order) is seen by the
 * kernel at VBASE + k * 2^40, so pointer arithmetic is integer arithmetic
 * and every unmasked access can be checked against the buffer it lands in.
 * Buffers hold elements in their storage format (f16/bf16 in 2 bytes, i1 in 1).
 */
#include "interp.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VBASE 0x100000000000ull
#define VSHIFT 40
#define MAX_TILE ((int64_t)1 << 24)   /* elements in one tile */
#define MAX_TOTAL ((int64_t)1 << 26)  /* elements over all values */

typedef union Elt {
	int64_t i;
	double f;
} Elt;

typedef struct Tile {
	Type type;
	int64_t n;
	Elt *d;   /* NULL until the value is first defined */
} Tile;

typedef struct Buffer {
	unsigned char *host;
	size_t bytes;
} Buffer;

struct Interp {
	Func *f;
	const char *file;
	Tile *tiles;      /* indexed by ValId */
	int64_t total;    /* elements allocated over all tiles */
	Buffer *bufs;
	int nbufs, capbufs;
	Elt *scratch;     /* one reduction row */
	int64_t capscratch;
	int pid[3], grid[3];
	int64_t writes;   /* stores and atomics that changed memory (exec_do_while) */
	FILE *out;        /* device_print's lines */
	jmp_buf jmp;
	char err[1024];
};

#define AT(t, i) ((t)->d[(t)->n == 1 ? 0 : (i)])

/* ---- errors ---- */

/* Writes "file:line:col: error: " into it->err; returns its length (clamped to the buffer). */
static size_t where(Interp *it, Loc loc)
{
	int n;
	if (loc.line == 0)
		n = snprintf(it->err, sizeof it->err, "%s: error: ", it->file);
	else
		n = snprintf(it->err, sizeof it->err, "%s:%d:%d: error: ", it->file, loc.line, loc.col);
	return n < 0 ? 0 : (size_t)n < sizeof it->err ? (size_t)n : sizeof it->err - 1;
}

/* Ends the run with the n bytes of message in it->err, then a note for each fn call loc sits in. */
NORETURN static void stop(Interp *it, Loc loc, size_t n)
{
	for (const DiagFrame *f = loc.in; f && n < sizeof it->err; f = f->up)
		n += (size_t)snprintf(it->err + n, sizeof it->err - n, "\n%s:%d:%d: note: in this call to '%s'", it->file,
				      f->call.line, f->call.col, f->fn);
	longjmp(it->jmp, 1);
}

NORETURN PRINTF(3, 4) static void fail(Interp *it, Loc loc, const char *fmt, ...)
{
	size_t n = where(it, loc);
	va_list ap;
	va_start(ap, fmt);
	if (n < sizeof it->err)
		n += (size_t)vsnprintf(it->err + n, sizeof it->err - n, fmt, ap);
	va_end(ap);
	if (n < sizeof it->err)
		n += (size_t)snprintf(it->err + n, sizeof it->err - n, " in program (%d, %d, %d)", it->pid[0], it->pid[1],
				      it->pid[2]);
	stop(it, loc, n);
}

/* ---- numbers ---- */

/* Round x to a binary format with p significand bits, smallest normal
 * exponent emin and largest finite value maxv, to nearest even. */
static double round_fmt(double x, int p, int emin, double maxv)
{
	int e;
	if (x == 0 || isnan(x) || isinf(x))
		return x;
	frexp(x, &e);
	int q = (e - 1 < emin ? emin : e - 1) - p + 1;  /* exponent of one ulp */
	double r = ldexp(nearbyint(ldexp(x, -q)), q);
	return fabs(r) > maxv ? copysign(INFINITY, x) : r;
}

static double round_to(int e, double x)
{
	if (elem_is_f8((ElemKind)e))
		return f8_round((ElemKind)e, x);
	switch (e) {
	case TY_F16: return round_fmt(x, 11, -14, 65504.0);
	case TY_BF16: return round_fmt(x, 8, -126, ldexp(255.0, 120));
	case TY_F32: return (double)(float)x;
	default: return x;
	}
}

static int64_t wrap(int e, int64_t x)
{
	switch (e) {
	case TY_I1: return x & 1;
	case TY_I8: return (int8_t)(uint8_t)x;
	case TY_I16: return (int16_t)(uint16_t)x;
	case TY_I32: return (int32_t)(uint32_t)x;
	default: return x;
	}
}

/* floats and fp8: values in Elt.f */
static bool is_float(int e)
{
	return elem_is_fp((ElemKind)e);
}

static int bits_of(int e)
{
	return e == TY_I1 ? 1 : elem_bytes((ElemKind)e) * 8;
}

/* float -> int: truncate toward zero, saturate, NaN -> 0 */
static int64_t float_to_int(double x, int e)
{
	if (isnan(x))
		return 0;
	double lim = ldexp(1.0, bits_of(e) - 1), t = trunc(x);
	if (t >= lim)
		return e == TY_I64 ? INT64_MAX : (int64_t)lim - 1;
	if (t < -lim)
		return e == TY_I64 ? INT64_MIN : -(int64_t)lim;
	return (int64_t)t;
}

static Elt convert(Elt v, int from, int to)
{
	Elt r;
	if (from == to)
		return v;
	if (is_float(from) && is_float(to))
		r.f = round_to(to, v.f);
	else if (is_float(from))
		r.i = to == TY_I1 ? v.f != 0 : float_to_int(v.f, to);
	else if (is_float(to))
		r.f = to == TY_F32 ? (double)(float)v.i : round_to(to, (double)v.i);
	else
		r.i = to == TY_I1 ? v.i != 0 : wrap(to, v.i);
	return r;
}

static double fmax_nan(double a, double b)
{
	if (isnan(a) || isnan(b))
		return NAN;
	if (a == b)
		return signbit(a) ? b : a;  /* +0 above -0 */
	return a > b ? a : b;
}

static double fmin_nan(double a, double b)
{
	if (isnan(a) || isnan(b))
		return NAN;
	if (a == b)
		return signbit(a) ? a : b;
	return a < b ? a : b;
}

static double fbinary(int code, int e, double a, double b)
{
	if (code == OP_MAX)
		return fmax_nan(a, b);
	if (code == OP_MIN)
		return fmin_nan(a, b);
	if (e == TY_F64) {
		switch (code) {
		case OP_ADD: return a + b;
		case OP_SUB: return a - b;
		case OP_MUL: return a * b;
		case OP_DIV: return a / b;
		case OP_POW: return pow(a, b);
		case OP_ATAN2: return atan2(a, b);
		default: return fmod(a, b);
		}
	}
	float x = (float)a, y = (float)b, r;
	switch (code) {
	case OP_ADD: r = x + y; break;
	case OP_SUB: r = x - y; break;
	case OP_MUL: r = x * y; break;
	case OP_DIV: r = x / y; break;
	case OP_POW: r = (float)pow(x, y); break; /* in double, rounded once, as the GPU's */
	case OP_ATAN2: r = (float)atan2(x, y); break; /* in double, rounded once */
	default: r = fmodf(x, y); break;
	}
	return round_to(e, r);
}

static int64_t shift(int code, int e, int64_t a, int64_t b)
{
	if (b < 0 || b >= bits_of(e))
		return code == OP_SHL ? 0 : (a < 0 ? -1 : 0);
	if (code == OP_SHL)
		return wrap(e, (int64_t)((uint64_t)a << b));
	return e == TY_I1 ? a : a >> b;
}

static int64_t ibinary(int code, int e, int64_t a, int64_t b)
{
	uint64_t x = (uint64_t)a, y = (uint64_t)b;
	switch (code) {
	case OP_ADD: return wrap(e, (int64_t)(x + y));
	case OP_SUB: return wrap(e, (int64_t)(x - y));
	case OP_MUL: return wrap(e, (int64_t)(x * y));
	case OP_DIV:
		if (b == 0)
			return 0;
		return b == -1 ? wrap(e, (int64_t)(0 - x)) : wrap(e, a / b);
	case OP_REM: return b == 0 || b == -1 ? 0 : a % b;
	case OP_AND: return a & b;
	case OP_OR: return a | b;
	case OP_XOR: return a ^ b;
	case OP_SHL:
	case OP_SHR: return shift(code, e, a, b);
	case OP_MAX: return a > b ? a : b;
	default: return a < b ? a : b;
	}
}

/*
 * Word `word` of Philox4x32 (Salmon et al., SC'11) with `rounds` rounds, of
 * the counter (c0, 0, 0, 0) and the key (k0, k1): what rand() draws from,
 * as Triton's tl.randint.  Philox4x32-10 of zero counter and key is
 * 0x6627e8d5 0xe169c58d 0xbc57ac4c 0x9b00dbd8 (Random123's known answer).
 */
static uint32_t philox(uint32_t c0, uint32_t k0, uint32_t k1, int rounds, int word)
{
	uint32_t c[4] = {c0, 0, 0, 0};
	for (int i = 0; i < rounds; i++) {
		uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p2 = (uint64_t)0xCD9E8D57u * c[2];
		uint32_t n0 = (uint32_t)(p2 >> 32) ^ c[1] ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1;
		c[1] = (uint32_t)p2;
		c[3] = (uint32_t)p0;
		c[0] = n0;
		c[2] = n2;
		k0 += 0x9E3779B9u;
		k1 += 0xBB67AE85u;
	}
	return c[word];
}

static Elt binary(int code, int e, Elt a, Elt b)
{
	Elt r;
	if (is_float(e))
		r.f = fbinary(code, e, a.f, b.f);
	else
		r.i = ibinary(code, e, a.i, b.i);
	return r;
}

static bool compare(int pred, int e, Elt a, Elt b)
{
	if (is_float(e)) {
		switch (pred) {
		case CMP_EQ: return a.f == b.f;
		case CMP_NE: return a.f != b.f;
		case CMP_LT: return a.f < b.f;
		case CMP_LE: return a.f <= b.f;
		case CMP_GT: return a.f > b.f;
		default: return a.f >= b.f;
		}
	}
	if (e == TY_PTR) {
		uint64_t x = (uint64_t)a.i, y = (uint64_t)b.i;
		a.i = x < y ? -1 : x > y;
		b.i = 0;
	}
	switch (pred) {
	case CMP_EQ: return a.i == b.i;
	case CMP_NE: return a.i != b.i;
	case CMP_LT: return a.i < b.i;
	case CMP_LE: return a.i <= b.i;
	case CMP_GT: return a.i > b.i;
	default: return a.i >= b.i;
	}
}

/* exp, log, ... on one float element: f32 libm for f32/f16/bf16 (exp and exp2 flush f32 subnormal results to 0, as the GPU) */
static double fmath(int code, int e, double x)
{
	if (e == TY_F64) {
		switch (code) {
		case OP_EXP: return exp(x);
		case OP_EXP2: return exp2(x);
		case OP_LOG: return log(x);
		case OP_LOG2: return log2(x);
		case OP_SQRT: return sqrt(x);
		case OP_FLOOR: return floor(x);
		case OP_CEIL: return ceil(x);
		case OP_TRUNC: return trunc(x);
		case OP_RINT: return rint(x);
		case OP_ROUND: return round(x);
		default: return 1.0 / sqrt(x);
		}
	}
	float y = (float)x, r;
	switch (code) {
	case OP_EXP: r = expf(y); break;
	case OP_EXP2: r = exp2f(y); break;
	case OP_LOG: r = logf(y); break;
	case OP_LOG2: r = log2f(y); break;
	case OP_SQRT: r = sqrtf(y); break;
	case OP_SIN: r = sinf(y); break;
	case OP_COS: r = cosf(y); break;
	case OP_TANH: r = tanhf(y); break;
	case OP_ERF: r = erff(y); break;
	case OP_FLOOR: r = floorf(y); break;
	case OP_CEIL: r = ceilf(y); break;
	case OP_LOG1P: r = log1pf(y); break;
	case OP_EXPM1: r = expm1f(y); break;
	case OP_ATAN: r = (float)atan(y); break;
	case OP_TRUNC: r = truncf(y); break;
	case OP_RINT: r = rintf(y); break;
	case OP_ROUND: r = roundf(y); break;
	default: r = 1.0f / sqrtf(y); break;
	}
	if ((code == OP_EXP || code == OP_EXP2) && r < FLT_MIN)
		r = 0; /* the GPU's ex2.approx.ftz flushes subnormal results */
	return round_to(e, r);
}

static Elt unary(Interp *it, Op *op, int e, Elt a)
{
	Elt r;
	switch (op->code) {
	case OP_NEG:
		if (is_float(e))
			r.f = -a.f;
		else
			r.i = wrap(e, (int64_t)(0 - (uint64_t)a.i));
		return r;
	case OP_NOT:
		if (is_float(e))
			break;
		r.i = wrap(e, ~a.i);
		return r;
	case OP_ABS:
		if (is_float(e))
			r.f = fabs(a.f);
		else
			r.i = a.i < 0 ? wrap(e, (int64_t)(0 - (uint64_t)a.i)) : a.i;
		return r;
	default:
		if (!is_float(e))
			break;
		r.f = fmath(op->code, e, a.f);
		return r;
	}
	fail(it, op->loc, "%s of %s", op_info[op->code].text, elem_name((ElemKind)e));
}

/* ---- values ---- */

static Tile *def(Interp *it, ValId v, Loc loc)
{
	Tile *t = &it->tiles[v];
	if (t->d)
		return t;
	if (t->n > MAX_TILE)
		fail(it, loc, "a tile of %lld elements is over the interpreter's limit of 2^24", (long long)t->n);
	if (it->total + t->n > MAX_TOTAL)
		fail(it, loc, "the kernel's values need over 2^26 elements, the interpreter's limit");
	t->d = calloc((size_t)t->n, sizeof(Elt));
	if (!t->d)
		fail(it, loc, "out of memory for a tile of %lld elements", (long long)t->n);
	it->total += t->n;
	return t;
}

/* Operand k of op; it must have n elements, or one (a scalar broadcast). */
static Tile *arg(Interp *it, Op *op, int k, int64_t n)
{
	if (k >= op->nopnds)
		fail(it, op->loc, "malformed IR: %s has no operand %d", op_info[op->code].text, k);
	Tile *t = &it->tiles[op->opnds[k]];
	if (!t->d)
		fail(it, op->loc, "malformed IR: %s reads a value before its definition", op_info[op->code].text);
	if (n >= 0 && t->n != n && t->n != 1)
		fail(it, op->loc, "malformed IR: %s operand %d has %lld elements, not %lld", op_info[op->code].text, k,
		     (long long)t->n, (long long)n);
	return t;
}

static int64_t scalar_int(Interp *it, Op *op, int k)
{
	return arg(it, op, k, 1)->d[0].i;
}

static void copy_tile(Interp *it, Op *op, ValId to, ValId from)
{
	Tile *s = &it->tiles[from];
	if (!s->d)
		fail(it, op->loc, "malformed IR: %s reads a value before its definition", op_info[op->code].text);
	Tile *d = def(it, to, op->loc);
	if (d->n != s->n)
		fail(it, op->loc, "malformed IR: %s moves %lld elements into %lld", op_info[op->code].text, (long long)s->n,
		     (long long)d->n);
	memcpy(d->d, s->d, (size_t)s->n * sizeof(Elt));
}

/* "[3, 17]" for lane i of a tile of type t, into buf */
static void coords(char *buf, size_t n, Type t, int64_t i)
{
	int64_t c[MAX_RANK];
	for (int d = t.rank - 1; d >= 0; d--) {
		c[d] = i % t.shape[d];
		i /= t.shape[d];
	}
	size_t k = (size_t)snprintf(buf, n, " at element [");
	for (int d = 0; d < t.rank && k < n; d++)
		k += (size_t)snprintf(buf + k, n - k, "%s%lld", d ? ", " : "", (long long)c[d]);
	if (k < n)
		snprintf(buf + k, n - k, "]");
}

/* ---- memory ---- */

static uint64_t buf_base(int k)
{
	return VBASE + ((uint64_t)k << VSHIFT);
}

/* Why address a (an access of sz bytes) is not inside a buffer. */
static void explain(Interp *it, uint64_t a, int sz, char *out, size_t n)
{
	int64_t k = a >= VBASE ? (int64_t)((a - VBASE) >> VSHIFT) : -1;
	if (a == 0) {
		snprintf(out, n, "the address is null");
	} else if (k < 0 && it->nbufs > 0 && VBASE - a < ((uint64_t)1 << 30)) {
		snprintf(out, n, "address is %llu bytes before the start of buffer 0 (%zu bytes)",
			 (unsigned long long)(VBASE - a), it->bufs[0].bytes);
	} else if (k < 0 || k >= it->nbufs) {
		snprintf(out, n, "address 0x%llx is in no buffer", (unsigned long long)a);
	} else {
		uint64_t off = a - buf_base((int)k), size = it->bufs[k].bytes;
		uint64_t before = buf_base((int)k + 1) - a;
		if (off < size)
			snprintf(out, n, "the %d-byte access runs past the end of buffer %lld (%llu bytes)", sz,
				 (long long)k, (unsigned long long)size);
		else if (k + 1 < it->nbufs && before < off - size)
			snprintf(out, n, "address is %llu bytes before the start of buffer %lld (%zu bytes)",
				 (unsigned long long)before, (long long)k + 1, it->bufs[k + 1].bytes);
		else
			snprintf(out, n, "address is %llu bytes past the end of buffer %lld (%llu bytes)",
				 (unsigned long long)(off - size), (long long)k, (unsigned long long)size);
	}
}

/* Host address of an access of element kind e by lane i of op; fails if outside a buffer or misaligned. */
static unsigned char *check(Interp *it, Op *op, const char *what, int e, Type lanes, int64_t i, uint64_t a)
{
	int sz = elem_bytes((ElemKind)e);
	int64_t k = a >= VBASE ? (int64_t)((a - VBASE) >> VSHIFT) : -1;
	char why[256], at[96] = "";
	bool misaligned = false;
	if (k >= 0 && k < it->nbufs) {
		uint64_t off = a - buf_base((int)k);
		if (off + (uint64_t)sz <= it->bufs[k].bytes) {
			if (a % (uint64_t)sz == 0)
				return it->bufs[k].host + off;
			misaligned = true;
		}
	}
	if (misaligned)
		snprintf(why, sizeof why, "address 0x%llx is not a multiple of %d bytes", (unsigned long long)a, sz);
	else
		explain(it, a, sz, why, sizeof why);
	if (lanes.rank > 0)
		coords(at, sizeof at, lanes, i);
	size_t n = where(it, op->loc);
	n += (size_t)snprintf(it->err + n, sizeof it->err - n, "%s %s of %s%s in program (%d, %d, %d): %s",
			      misaligned ? "misaligned" : "out-of-bounds", what, elem_name((ElemKind)e), at, it->pid[0],
			      it->pid[1], it->pid[2], why);
	stop(it, op->loc, n < sizeof it->err ? n : sizeof it->err - 1);
}

static uint16_t f16_bits(double v)
{
	uint16_t s = signbit(v) ? 0x8000 : 0;
	int e;
	if (isnan(v)) {
		/* the payload's top 10 bits, as f16_value put them (quiet where they are 0) */
		uint64_t u;
		memcpy(&u, &v, 8);
		uint16_t m = (uint16_t)(u >> 42 & 0x3ff);
		return s | 0x7c00 | (m ? m : 0x200);
	}
	if (isinf(v))
		return s | 0x7c00;
	if (v == 0)
		return s;
	double a = frexp(fabs(v), &e);  /* fabs(v) = a * 2^e, a in [0.5, 1) */
	if (e - 1 < -14)
		return s | (uint16_t)ldexp(fabs(v), 24);
	return s | (uint16_t)((e - 1 + 15) << 10) | (uint16_t)(ldexp(a, 11) - 1024);
}

static double f16_value(uint16_t h)
{
	int ex = (h >> 10) & 31, m = h & 1023;
	double v;
	if (ex == 0)
		v = ldexp(m, -24);
	else if (ex == 31 && m) {
		/* a NaN keeps its payload, in the top bits of the double's, as the hardware widens one */
		uint64_t u = (uint64_t)(h & 0x8000) << 48 | 0x7ffULL << 52 | (uint64_t)m << 42;
		memcpy(&v, &u, 8);
		return v;
	} else if (ex == 31)
		v = INFINITY;
	else
		v = ldexp(m | 1024, ex - 25);
	return h & 0x8000 ? -v : v;
}

/*
 * f32 to double and back, where a NaN keeps its payload (in the double's
 * top bits), signalling or not: the C conversions quiet a signalling NaN,
 * which a load, a store or a bitcast on the GPU keeps.
 */
static double f32_value(uint32_t b)
{
	float f;
	memcpy(&f, &b, 4);
	if (f == f)
		return f;
	uint64_t u = (uint64_t)(b & 0x80000000u) << 32 | 0x7ffULL << 52 | (uint64_t)(b & 0x7fffff) << 29;
	double d;
	memcpy(&d, &u, 8);
	return d;
}

static uint32_t f32_bits(double v)
{
	float f = (float)v;
	uint32_t b;
	memcpy(&b, &f, 4);
	if (v == v)
		return b;
	uint64_t u;
	memcpy(&u, &v, 8);
	uint32_t m = (uint32_t)(u >> 29 & 0x7fffff);
	return (uint32_t)(u >> 32 & 0x80000000u) | 0x7f800000u | (m ? m : 0x400000u);
}

static Elt mem_read(const unsigned char *p, int e)
{
	Elt r;
	union { int8_t i8; int16_t i16; int32_t i32; int64_t i64; uint16_t u16; uint32_t u32; float f; double d; } u;
	memcpy(&u, p, (size_t)elem_bytes((ElemKind)e));
	switch (e) {
	case TY_I1: r.i = u.i8 != 0; break;
	case TY_I8: r.i = u.i8; break;
	case TY_I16: r.i = u.i16; break;
	case TY_I32: r.i = u.i32; break;
	case TY_F16: r.f = f16_value(u.u16); break;
	case TY_BF16: r.f = f32_value((uint32_t)u.u16 << 16); break;
	case TY_F32: r.f = f32_value(u.u32); break;
	case TY_F64: r.f = u.d; break;
	case TY_F8E4M3:
	case TY_F8E5M2: r.f = f8_value((ElemKind)e, (uint8_t)u.i8); break;
	default: r.i = u.i64; break;
	}
	return r;
}

static void mem_write(unsigned char *p, int e, Elt v)
{
	union { int8_t i8; int16_t i16; int32_t i32; int64_t i64; uint16_t u16; uint32_t u32; float f; double d; } u;
	switch (e) {
	case TY_I1: u.i8 = (int8_t)(v.i != 0); break;
	case TY_I8: u.i8 = (int8_t)v.i; break;
	case TY_I16: u.i16 = (int16_t)v.i; break;
	case TY_I32: u.i32 = (int32_t)v.i; break;
	case TY_F16: u.u16 = f16_bits(v.f); break;
	case TY_BF16: u.u32 = f32_bits(v.f); u.u16 = (uint16_t)(u.u32 >> 16); break;
	case TY_F32: u.u32 = f32_bits(v.f); break;
	case TY_F64: u.d = v.f; break;
	case TY_F8E4M3:
	case TY_F8E5M2: u.i8 = (int8_t)f8_bits((ElemKind)e, v.f); break;
	default: u.i64 = v.i; break;
	}
	memcpy(p, &u, (size_t)elem_bytes((ElemKind)e));
}

static bool lane_on(Tile *mask, int64_t i)
{
	return !mask || AT(mask, i).i != 0;
}

static void exec_load(Interp *it, Op *op)
{
	Tile *r = def(it, op->res[0], op->loc);
	Tile *p = arg(it, op, 0, r->n);
	Tile *mask = op->nopnds > 1 ? arg(it, op, 1, r->n) : NULL;
	Tile *other = op->nopnds > 2 ? arg(it, op, 2, r->n) : NULL;
	int e = p->type.pointee, re = r->type.elem;
	for (int64_t i = 0; i < r->n; i++) {
		if (!lane_on(mask, i)) {
			Elt z = {0};
			r->d[i] = other ? convert(AT(other, i), other->type.elem, re) : convert(z, TY_I64, re);
			continue;
		}
		unsigned char *h = check(it, op, "load", e, r->type, i, (uint64_t)AT(p, i).i);
		r->d[i] = convert(mem_read(h, e), e, re);
	}
}

/* mem_write, counting the writes that change memory */
static void mem_store(Interp *it, unsigned char *p, int e, Elt v)
{
	unsigned char b[8];
	size_t n = (size_t)elem_bytes((ElemKind)e);
	mem_write(b, e, v);
	if (memcmp(p, b, n)) {
		memcpy(p, b, n);
		it->writes++;
	}
}

/* An element's bits (32 or 64) as a signed integer of that width. */
static int64_t elem_raw(int e, Elt x)
{
	unsigned char b[8];
	mem_write(b, e, x);
	return mem_read(b, elem_bits((ElemKind)e) == 64 ? TY_I64 : TY_I32).i;
}

/*
 * Float atomic max and min as the GPU does them (cg_memory.c), on the bits:
 * a value whose sign bit is clear takes the signed maximum (minimum) of the
 * bits, one whose sign bit is set the unsigned minimum (maximum), a NaN
 * changes nothing.  That is the maximum (minimum) in IEEE order with -0
 * below +0, whatever order the programs come in.
 */
static Elt float_max_min(int e, bool max, Elt old, Elt x)
{
	if (x.f != x.f)
		return old;
	int64_t a = elem_raw(e, old), b = elem_raw(e, x);
	bool wide = elem_bits((ElemKind)e) == 64;
	uint64_t ua = wide ? (uint64_t)a : (uint32_t)a, ub = wide ? (uint64_t)b : (uint32_t)b;
	bool take = b >= 0 ? (max ? b > a : b < a) : (max ? ub < ua : ub > ua);
	return take ? x : old;
}

/* store and atomic: ptr, value [, mask]; atomic_cas: ptr, cmp, value [, mask] */
static void exec_write(Interp *it, Op *op)
{
	bool atomic = ir_is_atomic(op->code), cas = op->code == OP_ATOMIC_CAS;
	int vi = cas ? 2 : 1, mi = ir_mask_index(op->code);
	Tile *p = arg(it, op, 0, -1);
	Tile *v = arg(it, op, vi, p->n);
	Tile *cmp = cas ? arg(it, op, 1, p->n) : NULL;
	Tile *mask = op->nopnds > mi ? arg(it, op, mi, p->n) : NULL;
	Tile *r = atomic && op->nres > 0 ? def(it, op->res[0], op->loc) : NULL;
	int e = p->type.pointee;
	if (r && r->n != p->n)
		fail(it, op->loc, "malformed IR: atomic result shape");
	for (int64_t i = 0; i < p->n; i++) {
		if (!lane_on(mask, i)) {
			if (r)
				r->d[i] = convert((Elt){0}, TY_I64, r->type.elem);
			continue;
		}
		unsigned char *h = check(it, op, atomic ? op_info[op->code].text : "store", e, p->type, i,
					 (uint64_t)AT(p, i).i);
		Elt x = convert(AT(v, i), v->type.elem, e);
		if (atomic) {
			static const int code[ATOM_COUNT] = {OP_ADD, OP_MAX, OP_MIN, -1, OP_AND, OP_OR, OP_XOR};
			Elt old = mem_read(h, e);
			int k = cas ? -1 : (int)op->iattr[0];
			if (r)
				r->d[i] = convert(old, e, r->type.elem);
			if (cas && elem_raw(e, old) != elem_raw(e, convert(AT(cmp, i), cmp->type.elem, e)))
				x = old;
			else if ((k == ATOM_MAX || k == ATOM_MIN) && elem_is_float((ElemKind)e))
				x = float_max_min(e, k == ATOM_MAX, old, x);
			else if (k >= 0 && code[k] >= 0)
				x = binary(code[k], e, old, x);
		}
		mem_store(it, h, e, x);
	}
}

/* ---- element-wise ---- */

/*
 * assume: the operand, once the promise is seen to hold along the last
 * axis: runs of `contig` consecutive integers (pointers: elements) and of
 * `constancy` equal elements, and the divisibility of a scalar or of each
 * such run's first element (a tile's divisibility with neither run
 * promised speaks of runs the analysis finds, and is not checked).
 */
static void exec_assume(Interp *it, Op *op, Tile *r, Tile *a)
{
	int64_t n = r->n, len = r->type.rank ? r->type.shape[r->type.rank - 1] : 1;
	int64_t step = r->type.elem == TY_PTR ? elem_bytes(r->type.pointee) : 1, d = op->iattr[0];
	int64_t c = ASSUME_CONTIG(op), k = ASSUME_CONSTANCY(op), run = c > 1 ? c : k;
	for (int64_t i = 0; i < n; i++) {
		int64_t x = AT(a, i).i, at = i % len;
		r->d[i] = AT(a, i);
		if (at % run && c > 1 && x != AT(a, i - 1).i + step)
			fail(it, op->loc, "max_contiguous(%lld) does not hold: element %lld is %lld after %lld", (long long)c,
			     (long long)i, (long long)x, (long long)AT(a, i - 1).i);
		if (at % run && k > 1 && x != AT(a, i - 1).i)
			fail(it, op->loc, "max_constancy(%lld) does not hold: element %lld is %lld after %lld", (long long)k,
			     (long long)i, (long long)x, (long long)AT(a, i - 1).i);
		if (d > 1 && r->type.rank == 0 && x % d)
			fail(it, op->loc, "multiple_of(%lld) does not hold: the value is %lld", (long long)d, (long long)x);
		if (d > 1 && run > 1 && at % run == 0 && x % d)
			fail(it, op->loc, "multiple_of(%lld) does not hold: element %lld, which starts a run, is %lld",
			     (long long)d, (long long)i, (long long)x);
	}
}

static void exec_eltwise(Interp *it, Op *op)
{
	Tile *r = def(it, op->res[0], op->loc);
	Tile *a = arg(it, op, 0, r->n);
	int e = a->type.elem, re = r->type.elem;
	int64_t n = r->n;
	if (op->code == OP_CAST || op->code == OP_CONVERT_LAYOUT) {
		for (int64_t i = 0; i < n; i++)
			r->d[i] = convert(AT(a, i), e, re);
		return;
	}
	if (op->code == OP_ASSUME) {
		exec_assume(it, op, r, a);
		return;
	}
	if (op->code == OP_BITCAST) {
		unsigned char b[8];
		for (int64_t i = 0; i < n; i++) {
			mem_write(b, e, AT(a, i));
			r->d[i] = mem_read(b, re);
		}
		return;
	}
	if (op->nopnds == 1) {
		for (int64_t i = 0; i < n; i++)
			r->d[i] = unary(it, op, e, AT(a, i));
		return;
	}
	Tile *b = arg(it, op, 1, n);
	switch (op->code) {
	case OP_CMP:
		for (int64_t i = 0; i < n; i++)
			r->d[i].i = compare((int)op->iattr[0], e, AT(a, i), AT(b, i));
		break;
	case OP_PTRADD: {
		uint64_t sz = (uint64_t)elem_bytes((ElemKind)a->type.pointee);
		for (int64_t i = 0; i < n; i++)
			r->d[i].i = (int64_t)((uint64_t)AT(a, i).i + (uint64_t)AT(b, i).i * sz);
		break;
	}
	case OP_SELECT: {
		Tile *c = arg(it, op, 2, n);
		for (int64_t i = 0; i < n; i++)
			r->d[i] = AT(a, i).i ? AT(b, i) : AT(c, i);
		break;
	}
	case OP_PHILOX: {
		Tile *c = arg(it, op, 2, n);
		for (int64_t i = 0; i < n; i++)
			r->d[i].i = (int32_t)philox((uint32_t)AT(a, i).i, (uint32_t)AT(b, i).i, (uint32_t)AT(c, i).i,
						    (int)op->iattr[0], (int)op->iattr[1]);
		break;
	}
	case OP_FMA: { /* f16 and bf16 in f32, then rounded, as on the GPU */
		Tile *c = arg(it, op, 2, n);
		for (int64_t i = 0; i < n; i++)
			r->d[i].f = e == TY_F64 ? fma(AT(a, i).f, AT(b, i).f, AT(c, i).f)
			                        : round_to(e, fmaf((float)AT(a, i).f, (float)AT(b, i).f, (float)AT(c, i).f));
		break;
	}
	default:
		if (is_float(e) && (op->code == OP_AND || op->code == OP_OR || op->code == OP_XOR ||
				    op->code == OP_SHL || op->code == OP_SHR))
			fail(it, op->loc, "%s of %s", op_info[op->code].text, elem_name((ElemKind)e));
		for (int64_t i = 0; i < n; i++)
			r->d[i] = binary(op->code, e, AT(a, i), AT(b, i));
	}
}

/* ---- constants, shapes ---- */

static void exec_const(Interp *it, Op *op)
{
	Tile *r = def(it, op->res[0], op->loc);
	int e = r->type.elem;
	Elt x;
	if (is_float(e))
		x.f = round_to(e, op->fattr);
	else
		x.i = wrap(e, op->iattr[0]);
	for (int64_t i = 0; i < r->n; i++)
		r->d[i] = x;
}

static void exec_splat(Interp *it, Op *op)
{
	Tile *r = def(it, op->res[0], op->loc);
	Tile *a = arg(it, op, 0, 1);
	Elt x = convert(a->d[0], a->type.elem, r->type.elem);
	for (int64_t i = 0; i < r->n; i++)
		r->d[i] = x;
}

static void exec_info(Interp *it, Op *op)
{
	Tile *r = def(it, op->res[0], op->loc);
	int64_t axis = op->iattr[0];
	if (axis < 0 || axis > 2)
		fail(it, op->loc, "malformed IR: %s axis %lld", op_info[op->code].text, (long long)axis);
	r->d[0].i = op->code == OP_PROGRAM_ID ? it->pid[axis] : it->grid[axis];
}

static void exec_arange(Interp *it, Op *op)
{
	Tile *r = def(it, op->res[0], op->loc);
	if (op->iattr[1] - op->iattr[0] != r->n)
		fail(it, op->loc, "malformed IR: arange(%lld, %lld) into %lld elements", (long long)op->iattr[0],
		     (long long)op->iattr[1], (long long)r->n);
	for (int64_t i = 0; i < r->n; i++)
		r->d[i].i = wrap(r->type.elem, op->iattr[0] + i);
}

/* broadcast (size-1 axes stretched, shapes aligned on the right) and expand_dims */
static void exec_broadcast(Interp *it, Op *op)
{
	Tile *r = def(it, op->res[0], op->loc);
	Tile *a = arg(it, op, 0, -1);
	int rr = r->type.rank, off = rr - a->type.rank;
	int64_t stride[MAX_RANK] = {0}, s = 1;
	if (op->code == OP_EXPAND_DIMS || a->n == r->n) {
		copy_tile(it, op, op->res[0], op->opnds[0]);
		return;
	}
	if (off < 0)
		fail(it, op->loc, "malformed IR: broadcast to a lower rank");
	for (int d = a->type.rank - 1; d >= 0; d--) {
		int32_t ad = a->type.shape[d];
		if (ad != 1 && ad != r->type.shape[d + off])
			fail(it, op->loc, "malformed IR: broadcast of dimension %d from %d to %d", d, ad,
			     r->type.shape[d + off]);
		stride[d + off] = ad == 1 ? 0 : s;
		s *= ad;
	}
	for (int64_t i = 0; i < r->n; i++) {
		int64_t j = i, src = 0;
		for (int d = rr - 1; d >= 0; d--) {
			src += (j % r->type.shape[d]) * stride[d];
			j /= r->type.shape[d];
		}
		r->d[i] = a->d[src];
	}
}

/* r's axis k is a's axis (perm >> 2k) & 3 (permute's iattr[0]; trans: 1) */
static void permute_tile(Interp *it, Op *op, int64_t perm)
{
	Tile *r = def(it, op->res[0], op->loc);
	Tile *a = arg(it, op, 0, r->n);
	int rank = a->type.rank;
	bool bad = rank != r->type.rank || a->n != r->n || perm >> 2 * rank;
	for (int k = 0; k < rank; k++)
		bad |= (perm >> 2 * k & 3) >= rank;
	if (bad)
		fail(it, op->loc, "malformed IR: %s of a tile of rank %d", op_info[op->code].text, rank);
	int64_t stride[MAX_RANK], s = 1;
	for (int d = rank - 1; d >= 0; d--)
		stride[d] = s, s *= a->type.shape[d];
	for (int64_t i = 0; i < r->n; i++) {
		int64_t rest = i, src = 0;
		for (int k = rank - 1; k >= 0; k--) {
			src += rest % r->type.shape[k] * stride[perm >> 2 * k & 3];
			rest /= r->type.shape[k];
		}
		r->d[i] = a->d[src];
	}
}

/* reshape keeps the row-major order; join interleaves along a new last axis, split takes one side */
static void exec_reshape(Interp *it, Op *op)
{
	Tile *r = def(it, op->res[0], op->loc);
	Tile *a = arg(it, op, 0, r->n);
	for (int64_t i = 0; i < r->n; i++)
		r->d[i] = AT(a, i);
}

static void exec_join(Interp *it, Op *op)
{
	Tile *r = def(it, op->res[0], op->loc);
	Tile *a = arg(it, op, 0, r->n / 2), *b = arg(it, op, 1, r->n / 2);
	for (int64_t i = 0; i < r->n / 2; i++) {
		r->d[2 * i] = AT(a, i);
		r->d[2 * i + 1] = AT(b, i);
	}
}

static void exec_split(Interp *it, Op *op)
{
	Tile *r = def(it, op->res[0], op->loc);
	Tile *a = arg(it, op, 0, 2 * r->n);
	if (a->n != 2 * r->n)
		fail(it, op->loc, "malformed IR: split of a tile of %lld elements into %lld", (long long)a->n,
		     (long long)r->n);
	for (int64_t i = 0; i < r->n; i++)
		r->d[i] = a->d[2 * i + op->iattr[0]];
}

/* ---- reductions, dot ---- */

static Elt reduce_row(Interp *it, Op *op, int e, Elt *t, int64_t len)
{
	int code = op->code == OP_SUM ? OP_ADD : op->code == OP_RMAX ? OP_MAX : OP_MIN;
	if (!is_pow2(len))
		fail(it, op->loc, "malformed IR: reduction over %lld elements, not a power of two", (long long)len);
	for (int64_t w = len / 2; w >= 1; w /= 2)
		for (int64_t j = 0; j < w; j++)
			t[j] = binary(code, e, t[j], t[j + w]);
	return t[0];
}

static int64_t arg_extreme(int code, int e, const Elt *t, int64_t len)
{
	int64_t best = 0;
	for (int64_t j = 1; j < len; j++) {
		Elt b = t[best], c = t[j];
		if (is_float(e)) {
			if (isnan(b.f))
				break;
			if (isnan(c.f) || (code == OP_ARGMAX ? c.f > b.f : c.f < b.f))
				best = j;
		} else if (code == OP_ARGMAX ? c.i > b.i : c.i < b.i) {
			best = j;
		}
	}
	return best;
}

/* a's elements along op's axis (iattr[0]): outer x length x inner; returns the length. */
static int64_t axis_split(Interp *it, Op *op, const Tile *a, int64_t *outer, int64_t *inner)
{
	int rank = a->type.rank;
	int64_t axis = op->iattr[0];
	if (axis < 0 || axis >= rank)
		fail(it, op->loc, "malformed IR: %s axis %lld of a rank-%d tile", op_info[op->code].text, (long long)axis,
		     rank);
	*outer = *inner = 1;
	for (int d = 0; d < axis; d++)
		*outer *= a->type.shape[d];
	for (int d = (int)axis + 1; d < rank; d++)
		*inner *= a->type.shape[d];
	return a->type.shape[axis];
}

/* flip and sort's steps: element i along the axis is the operand's i ^ mask */
static void exec_xorperm(Interp *it, Op *op)
{
	Tile *r = def(it, op->res[0], op->loc);
	Tile *a = arg(it, op, 0, r->n);
	int64_t outer, inner, len = axis_split(it, op, a, &outer, &inner), m = op->iattr[1];
	if (!is_pow2(len) || m < 0 || m >= len)
		fail(it, op->loc, "malformed IR: xorperm mask %lld over %lld elements", (long long)m, (long long)len);
	for (int64_t o = 0; o < outer; o++)
		for (int64_t p = 0; p < len; p++)
			for (int64_t in = 0; in < inner; in++)
				r->d[(o * len + p) * inner + in] = a->d[(o * len + (p ^ m)) * inner + in];
}

/* gather: r[o, p, in] = src[o, idx[o, p, in], in] along the axis */
static void exec_gather(Interp *it, Op *op)
{
	Tile *r = def(it, op->res[0], op->loc);
	Tile *src = arg(it, op, 0, -1), *idx = arg(it, op, 1, r->n);
	int64_t outer, inner, n = axis_split(it, op, src, &outer, &inner), len = r->type.shape[op->iattr[0]];
	for (int64_t o = 0; o < outer; o++)
		for (int64_t p = 0; p < len; p++)
			for (int64_t in = 0; in < inner; in++) {
				int64_t at = (o * len + p) * inner + in, k = AT(idx, at).i;
				if (k < 0 || k >= n)
					fail(it, op->loc, "gather index %lld is outside the axis's %lld elements", (long long)k,
					     (long long)n);
				r->d[at] = AT(src, (o * n + k) * inner + in);
			}
}

static void exec_histogram(Interp *it, Op *op)
{
	Tile *r = def(it, op->res[0], op->loc);
	Tile *a = arg(it, op, 0, -1);
	for (int64_t i = 0; i < r->n; i++)
		r->d[i].i = 0;
	for (int64_t i = 0; i < a->n; i++)
		if (a->d[i].i >= 0 && a->d[i].i < r->n)
			r->d[a->d[i].i].i++;
}

/*
 * print: a line per element, "pid (x, y, z) idx (i, j) <text><value>", as
 * codegen's vprintf writes it (cg_debug.c), each operand after the other;
 * with several operands the text is followed by "(operand k) ".
 */
static void exec_print(Interp *it, Op *op)
{
	for (int k = 0; k < op->nopnds; k++) {
		Tile *a = arg(it, op, k, -1);
		Type t = a->type;
		for (int64_t i = 0; i < a->n; i++) {
			int64_t at[MAX_RANK] = {0}, rest = i;
			for (int d = t.rank - 1; d >= 0; d--)
				at[d] = rest % t.shape[d], rest /= t.shape[d];
			fprintf(it->out, "pid (%d, %d, %d) idx (", it->pid[0], it->pid[1], it->pid[2]);
			for (int d = 0; d < t.rank; d++)
				fprintf(it->out, "%s%lld", d ? ", " : "", (long long)at[d]);
			fprintf(it->out, ") %s", op->sattr);
			if (op->nopnds > 1)
				fprintf(it->out, "(operand %d) ", k);
			Elt x = AT(a, i);
			if (elem_is_float(t.elem))
				fprintf(it->out, t.elem == TY_F64 ? "%.17g\n" : "%.9g\n", x.f);
			else if (t.elem == TY_PTR || op->iattr[0])
				fprintf(it->out, "0x%llx\n", (unsigned long long)x.i &
				        (t.elem == TY_PTR || elem_bits(t.elem) == 64 ? ~0ull : (1ull << elem_bits(t.elem)) - 1));
			else
				fprintf(it->out, "%lld\n", (long long)x.i);
		}
	}
	fflush(it->out);
}

static void exec_assert(Interp *it, Op *op)
{
	Tile *a = arg(it, op, 0, -1);
	for (int64_t i = 0; i < a->n; i++)
		if (!AT(a, i).i && a->type.rank)
			fail(it, op->loc, "device_assert failed at element %lld: %s", (long long)i, op->sattr);
		else if (!AT(a, i).i)
			fail(it, op->loc, "device_assert failed: %s", op->sattr);
}

/* it->scratch with room for n elements. */
static Elt *scratch(Interp *it, int64_t n, Loc loc)
{
	if (it->capscratch < n) {
		free(it->scratch);
		it->scratch = malloc((size_t)n * sizeof(Elt));
		if (!it->scratch)
			fail(it, loc, "out of memory");
		it->capscratch = n;
	}
	return it->scratch;
}

static void exec_reduce(Interp *it, Op *op)
{
	Tile *r = def(it, op->res[0], op->loc);
	Tile *a = arg(it, op, 0, -1);
	int e = a->type.elem;
	int64_t outer, inner, len = axis_split(it, op, a, &outer, &inner);
	if (outer * inner != r->n)
		fail(it, op->loc, "malformed IR: reduction result shape");
	Elt *t = scratch(it, len, op->loc);
	for (int64_t o = 0; o < outer; o++)
		for (int64_t in = 0; in < inner; in++) {
			for (int64_t j = 0; j < len; j++)
				t[j] = a->d[(o * len + j) * inner + in];
			Elt x;
			if (op->code == OP_ARGMAX || op->code == OP_ARGMIN)
				x.i = arg_extreme(op->code, e, t, len);
			else
				x = reduce_row(it, op, e, t, len);
			r->d[o * inner + in] = x;
		}
}

/*
 * cumsum along an axis, in the GPU's order (cg_scan.c): each element keeps
 * its running sum within its block of 2^j positions and the block's sum;
 * for j = 0, 1, ... blocks merge with the one that differs in bit j, the
 * upper (lower, reversed) adding the partner's sum to its running sum.
 */
static void exec_cumsum(Interp *it, Op *op)
{
	Tile *r = def(it, op->res[0], op->loc);
	Tile *a = arg(it, op, 0, r->n);
	int e = a->type.elem;
	int64_t outer, inner, len = axis_split(it, op, a, &outer, &inner);
	if (!is_pow2(len))
		fail(it, op->loc, "malformed IR: cumsum over %lld elements, not a power of two", (long long)len);
	Elt *tot = scratch(it, 2 * len, op->loc), *part = tot + len;
	for (int64_t o = 0; o < outer; o++)
		for (int64_t in = 0; in < inner; in++) {
			Elt *pre = r->d + o * len * inner + in;
			for (int64_t p = 0; p < len; p++)
				pre[p * inner] = tot[p] = a->d[(o * len + p) * inner + in];
			for (int64_t b = 1; b < len; b *= 2) {
				for (int64_t p = 0; p < len; p++)
					part[p] = tot[p ^ b];
				for (int64_t p = 0; p < len; p++) {
					if (((p & b) != 0) != (op->iattr[1] != 0))
						pre[p * inner] = binary(OP_ADD, e, pre[p * inner], part[p]);
					tot[p] = binary(OP_ADD, e, tot[p], part[p]);
				}
			}
		}
}

static Op *exec_block(Interp *it, Block *b);

/*
 * reduce and scan with a combine region (ops.def): x[0..k) := x combine y,
 * by running the region on scalars (its arguments x..., then y...).
 */
static void combine(Interp *it, Op *op, Elt *x, const Elt *y)
{
	Block *body = op->blocks[0];
	int k = op->nopnds;
	for (int i = 0; i < 2 * k; i++)
		def(it, body->args[i], op->loc)->d[0] = i < k ? x[i] : y[i - k];
	Op *yl = exec_block(it, body);
	if (!yl || yl->nopnds != k)
		fail(it, op->loc, "malformed IR: a %s region yields %d values, not %d", op_info[op->code].text,
		     yl ? yl->nopnds : 0, k);
	for (int i = 0; i < k; i++)
		x[i] = it->tiles[yl->opnds[i]].d[0];
}

/*
 * reduce: each row in the pairwise tree of the built-in reductions
 * (reduce_row), the earlier element on the left; scan: in the GPU's
 * butterfly (cg_scan.c), as exec_cumsum, each block's partial combined
 * with the earlier block's on its left (from the end: the later block's).
 */
static void exec_combine(Interp *it, Op *op)
{
	int k = op->nopnds;
	bool scan = op->code == OP_SCAN, rev = op->iattr[1] != 0;
	Tile *a[16], *r[16];
	if (op->nblocks != 1 || k < 1 || k > 16 || op->nres != k)
		fail(it, op->loc, "malformed IR: %s", op_info[op->code].text);
	for (int i = 0; i < k; i++) {
		a[i] = arg(it, op, i, -1);
		r[i] = def(it, op->res[i], op->loc);
	}
	int64_t outer, inner, len = axis_split(it, op, a[0], &outer, &inner);
	for (int i = 0; i < k; i++)
		if (a[i]->n != a[0]->n || r[i]->n != (scan ? a[0]->n : outer * inner))
			fail(it, op->loc, "malformed IR: %s operand or result %d has the wrong shape", op_info[op->code].text, i);
	if (!is_pow2(len))
		fail(it, op->loc, "malformed IR: %s over %lld elements, not a power of two", op_info[op->code].text,
		     (long long)len);
	/* per position p: t[p*k ..] the running value, tot the block's, part the partner block's */
	Elt *t = scratch(it, 3 * len * k, op->loc), *tot = t + len * k, *part = tot + len * k;
	for (int64_t o = 0; o < outer; o++)
		for (int64_t in = 0; in < inner; in++) {
			for (int64_t p = 0; p < len; p++)
				for (int i = 0; i < k; i++)
					t[p * k + i] = tot[p * k + i] = a[i]->d[(o * len + p) * inner + in];
			if (!scan) {
				for (int64_t w = len / 2; w >= 1; w /= 2)
					for (int64_t j = 0; j < w; j++)
						combine(it, op, t + j * k, t + (j + w) * k);
				for (int i = 0; i < k; i++)
					r[i]->d[o * inner + in] = t[i];
				continue;
			}
			for (int64_t b = 1; b < len; b *= 2) {
				memcpy(part, tot, sizeof(Elt) * (size_t)(len * k));
				for (int64_t p = 0; p < len; p++) {
					const Elt *q = part + (p ^ b) * k;
					bool upper = (p & b) != 0, later = upper != rev; /* this block comes after its partner */
					if (later) {
						Elt x[16];
						memcpy(x, q, sizeof(Elt) * (size_t)k);
						combine(it, op, x, t + p * k);
						memcpy(t + p * k, x, sizeof(Elt) * (size_t)k);
					}
					Elt lo[16];
					memcpy(lo, later ? q : part + p * k, sizeof(Elt) * (size_t)k);
					combine(it, op, lo, later ? part + p * k : q);
					memcpy(tot + p * k, lo, sizeof(Elt) * (size_t)k);
				}
			}
			for (int64_t p = 0; p < len; p++)
				for (int i = 0; i < k; i++)
					r[i]->d[(o * len + p) * inner + in] = t[p * k + i];
		}
}

/* one element of a float dot: products and sums in f32 (f64 for f64 inputs), k ascending, no FMA
 * (the build's -std=c11 sets -ffp-contract=off, so GCC does not fuse p into s) */
static double dot_float(int e, const Elt *a, const Elt *b, int64_t n, int64_t k, double acc)
{
	if (e == TY_F64) {
		for (int64_t j = 0; j < k; j++)
			acc = acc + a[j].f * b[j * n].f;
		return acc;
	}
	float s = (float)acc;
	for (int64_t j = 0; j < k; j++) {
		float p = (float)a[j].f * (float)b[j * n].f;
		s = s + p;
	}
	return s;
}

static int64_t dot_int(const Elt *a, const Elt *b, int64_t n, int64_t k, int64_t acc)
{
	uint32_t s = (uint32_t)acc;
	for (int64_t j = 0; j < k; j++)
		s += (uint32_t)((uint64_t)a[j].i * (uint64_t)b[j * n].i);
	return (int32_t)s;
}

static void exec_dot(Interp *it, Op *op)
{
	Tile *r = def(it, op->res[0], op->loc);
	Tile *a = arg(it, op, 0, -1), *b = arg(it, op, 1, -1), *c = arg(it, op, 2, r->n);
	if (a->type.rank != 2 || b->type.rank != 2 || r->type.rank != 2 || a->type.shape[1] != b->type.shape[0] ||
	    r->type.shape[0] != a->type.shape[0] || r->type.shape[1] != b->type.shape[1])
		fail(it, op->loc, "malformed IR: dot shapes");
	int64_t m = a->type.shape[0], k = a->type.shape[1], n = b->type.shape[1];
	int e = a->type.elem, re = r->type.elem;
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < n; j++) {
			Elt acc = convert(AT(c, i * n + j), c->type.elem, is_float(e) ? TY_F64 : TY_I64), x;
			if (is_float(e))
				x.f = dot_float(e, a->d + i * k, b->d + j, n, k, acc.f);
			else
				x.i = dot_int(a->d + i * k, b->d + j, n, k, acc.i);
			r->d[i * n + j] = convert(x, is_float(e) ? TY_F64 : TY_I64, re);
		}
}

/* ---- control flow ---- */

static void exec_op(Interp *it, Op *op);

/* Runs the ops of b; returns its yield, or NULL if it ends without one. */
static Op *exec_block(Interp *it, Block *b)
{
	for (Op *op = b->first; op; op = op->next) {
		if (op->code == OP_YIELD)
			return op;
		exec_op(it, op);
	}
	return NULL;
}

static void take_yield(Interp *it, Op *op, Op *y, const ValId *to, int n)
{
	if (!y || y->nopnds != n)
		fail(it, op->loc, "malformed IR: %s region yields %d values, not %d", op_info[op->code].text,
		     y ? y->nopnds : 0, n);
	for (int i = 0; i < n; i++)
		copy_tile(it, op, to[i], y->opnds[i]);
}

/* for lo, hi, step, inits... ; the body's args are (iv, iters...); results are the iters */
static void exec_for(Interp *it, Op *op)
{
	Block *body = op->blocks[0];
	int n = op->nopnds - 3;
	if (n < 0 || op->nblocks < 1 || n != op->nres || body->nargs != n + 1)
		fail(it, op->loc, "malformed IR: for");
	int64_t lo = scalar_int(it, op, 0), hi = scalar_int(it, op, 1), step = scalar_int(it, op, 2);
	int ive = vtype(it->f, body->args[0]).elem;
	if (step <= 0 && lo < hi)
		fail(it, op->loc, "for loop step is %lld, not positive", (long long)step);
	for (int i = 0; i < n; i++)
		copy_tile(it, op, op->res[i], op->opnds[3 + i]);
	for (int64_t iv = lo; iv < hi;) {
		def(it, body->args[0], op->loc)->d[0].i = wrap(ive, iv);
		for (int i = 0; i < n; i++)
			copy_tile(it, op, body->args[1 + i], op->res[i]);
		take_yield(it, op, exec_block(it, body), op->res, n);
		if (__builtin_add_overflow(iv, step, &iv))
			break;
	}
}

/* Whether tiles a[i] and b[i] hold the same bits, for i < n. */
static bool same_tiles(Interp *it, const ValId *a, const ValId *b, int n)
{
	for (int i = 0; i < n; i++) {
		Tile *x = &it->tiles[a[i]], *y = &it->tiles[b[i]];
		if (x->n != y->n || memcmp(x->d, y->d, sizeof(Elt) * (size_t)x->n))
			return false;
	}
	return true;
}

/*
 * do_while inits... ; the body's args are the iters; it yields the next iters
 * and then whether to run again; results are the last iters.  Programs run
 * one after another here, so a loop that waits for a later program to write
 * memory would never end: an iteration that changes no iter and no memory
 * is an error (docs/language.md).
 */
static void exec_do_while(Interp *it, Op *op)
{
	Block *body = op->blocks[0];
	int n = op->nopnds;
	if (op->nblocks < 1 || n != op->nres || body->nargs != n)
		fail(it, op->loc, "malformed IR: do_while");
	for (int i = 0; i < n; i++)
		copy_tile(it, op, op->res[i], op->opnds[i]);
	for (;;) {
		for (int i = 0; i < n; i++)
			copy_tile(it, op, body->args[i], op->res[i]);
		int64_t writes = it->writes;
		Op *y = exec_block(it, body);
		if (!y || y->nopnds != n + 1)
			fail(it, op->loc, "malformed IR: a do_while body yields %d values, not %d", y ? y->nopnds : 0, n + 1);
		for (int i = 0; i < n; i++)
			copy_tile(it, op, op->res[i], y->opnds[i]);
		Tile *go = &it->tiles[y->opnds[n]];
		if (!go->d || go->n != 1)
			fail(it, op->loc, "malformed IR: a do_while condition that is not a scalar");
		if (!go->d[0].i)
			break;
		if (it->writes == writes && same_tiles(it, body->args, op->res, n))
			fail(it, op->loc, "an iteration of this loop changed no value it carries and no memory (programs run "
			     "one after another here, so one that waits for a later program waits forever): it never ends");
	}
}

static void exec_if(Interp *it, Op *op)
{
	Block *b = scalar_int(it, op, 0) ? op->blocks[0] : op->nblocks > 1 ? op->blocks[1] : NULL;
	if (op->nblocks < 1)
		fail(it, op->loc, "malformed IR: if without a then block");
	if (!b) {
		if (op->nres > 0)
			fail(it, op->loc, "malformed IR: if with results and no else block");
		return;
	}
	Op *y = exec_block(it, b);
	if (op->nres > 0 || y)
		take_yield(it, op, y, op->res, op->nres);
}

static void exec_op(Interp *it, Op *op)
{
	bool no_result = op->code == OP_STORE || op->code == OP_PRINT || op->code == OP_ASSERT ||
			 ir_is_atomic(op->code) || op_has(op->code, F_REGION);
	if (op->nres < 1 && !no_result)
		fail(it, op->loc, "malformed IR: %s has no result", op_info[op->code].text);
	switch (op->code) {
	case OP_CONST: exec_const(it, op); break;
	case OP_SPLAT: exec_splat(it, op); break;
	case OP_ARANGE: exec_arange(it, op); break;
	case OP_PROGRAM_ID:
	case OP_NUM_PROGRAMS: exec_info(it, op); break;
	case OP_EXPAND_DIMS:
	case OP_BROADCAST: exec_broadcast(it, op); break;
	case OP_TRANS: permute_tile(it, op, 1); break;
	case OP_RESHAPE: exec_reshape(it, op); break;
	case OP_PERMUTE: permute_tile(it, op, op->iattr[0]); break;
	case OP_JOIN: exec_join(it, op); break;
	case OP_SPLIT: exec_split(it, op); break;
	case OP_LOAD: exec_load(it, op); break;
	case OP_STORE:
	case OP_ATOMIC:
	case OP_ATOMIC_CAS: exec_write(it, op); break;
	case OP_SUM:
	case OP_RMAX:
	case OP_RMIN:
	case OP_ARGMAX:
	case OP_ARGMIN: exec_reduce(it, op); break;
	case OP_CUMSUM: exec_cumsum(it, op); break;
	case OP_XORPERM: exec_xorperm(it, op); break;
	case OP_GATHER: exec_gather(it, op); break;
	case OP_PRINT: exec_print(it, op); break;
	case OP_ASSERT: exec_assert(it, op); break;
	case OP_HISTOGRAM: exec_histogram(it, op); break;
	case OP_REDUCE:
	case OP_SCAN: exec_combine(it, op); break;
	case OP_DOT: exec_dot(it, op); break;
	case OP_FOR: exec_for(it, op); break;
	case OP_IF: exec_if(it, op); break;
	case OP_DO_WHILE: exec_do_while(it, op); break;
	case OP_YIELD: fail(it, op->loc, "malformed IR: yield outside a region");
	default:
		if (!op_has(op->code, F_ELTWISE) && op->code != OP_CONVERT_LAYOUT)
			fail(it, op->loc, "malformed IR: the interpreter has no rule for %s", op_info[op->code].text);
		exec_eltwise(it, op);
	}
}

/* ---- entry points ---- */

void interp_set_output(Interp *it, FILE *out)
{
	it->out = out;
}

Interp *interp_new(Func *f, const char *file_name)
{
	Interp *it = calloc(1, sizeof *it);
	if (!it)
		return NULL;
	it->f = f;
	it->file = file_name ? file_name : f->name;
	it->out = stdout;
	it->tiles = calloc((size_t)f->nvals + 1, sizeof(Tile));
	if (!it->tiles) {
		free(it);
		return NULL;
	}
	for (int v = 1; v < f->nvals; v++) {
		it->tiles[v].type = f->vals[v].type;
		it->tiles[v].n = type_numel(f->vals[v].type);
	}
	return it;
}

void interp_free(Interp *it)
{
	if (!it)
		return;
	for (int v = 0; v <= it->f->nvals; v++)
		free(it->tiles[v].d);
	free(it->tiles);
	free(it->bufs);
	free(it->scratch);
	free(it);
}

uint64_t interp_buffer(Interp *it, void *host, size_t bytes)
{
	if (it->nbufs == it->capbufs) {
		int cap = it->capbufs ? 2 * it->capbufs : 8;
		Buffer *nb = realloc(it->bufs, (size_t)cap * sizeof(Buffer));
		if (!nb)
			return 0;
		it->bufs = nb;
		it->capbufs = cap;
	}
	if (bytes > ((size_t)1 << VSHIFT) || it->nbufs >= (1 << 20))
		return 0;
	it->bufs[it->nbufs] = (Buffer){host, bytes};
	return buf_base(it->nbufs++);
}

static void bind_args(Interp *it, const InterpArg *args, int nargs)
{
	Block *entry = it->f->entry;
	Loc none = {.line = 0};
	if (nargs != entry->nargs)
		fail(it, none, "kernel %s takes %d arguments, %d given", it->f->name, entry->nargs, nargs);
	for (int i = 0; i < nargs; i++) {
		Tile *t = def(it, entry->args[i], none);
		int e = t->type.elem;
		if (t->type.rank != 0)
			fail(it, none, "malformed IR: kernel parameter %d is a tile", i);
		if (e == TY_PTR)
			t->d[0].i = (int64_t)args[i].ptr;
		else if (is_float(e))
			t->d[0].f = round_to(e, args[i].f);
		else
			t->d[0].i = wrap(e, args[i].i);
	}
}

static void run_grid(Interp *it, const InterpArg *args, int nargs, const int grid[3])
{
	Loc none = {.line = 0};
	for (int d = 0; d < 3; d++) {
		it->grid[d] = grid[d];
		it->pid[d] = 0;
		if (grid[d] < 0)
			fail(it, none, "grid dimension %d is %d", d, grid[d]);
	}
	bind_args(it, args, nargs);
	for (int z = 0; z < grid[2]; z++)
		for (int y = 0; y < grid[1]; y++)
			for (int x = 0; x < grid[0]; x++) {
				it->pid[0] = x;
				it->pid[1] = y;
				it->pid[2] = z;
				exec_block(it, it->f->entry);
			}
}

int interp_run(Interp *it, const InterpArg *args, int nargs, const int grid[3])
{
	it->err[0] = 0;
	if (setjmp(it->jmp))
		return -1;
	run_grid(it, args, nargs, grid);
	return 0;
}

const char *interp_error(const Interp *it)
{
	return it->err;
}
