/*
 * passes/axis.c: pass_axis, the axis analysis of Triton's AxisInfo, along
 * the last dimension only (the one loads and stores vectorise over).
 *
 * For every value (Value.contig / divis / constancy, see ir.h): runs of
 * `contig` consecutive integers, whose first element is a multiple of
 * `divis` (pointers: in bytes), and runs of `constancy` equal elements.
 * Runs start at multiples of their length.  All three are powers of two
 * (divis is capped at 2^30, "a multiple of everything"); a scalar has
 * contig = constancy = 1.  One forward sweep in program order (every
 * operand is defined before its use), with a fixed point per loop for its
 * loop-carried values, as in Triton's dataflow AxisInfo.
 *
 * Where an op breaks a run into shorter ones, an operand's divisibility at
 * the new run starts is what `at_runs` says: a run of c consecutive values
 * starting at a multiple of d, sampled every n elements (n < c), gives
 * multiples of gcd(d, n) only.
 */
#include "compile.h"

enum { MAXDIV = 1 << 30 };

typedef struct Info {
	int32_t contig, divis, constancy;
} Info;

static int64_t gcd(int64_t a, int64_t b)
{
	while (b) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static int32_t cap(int64_t x)
{
	return x > MAXDIV ? MAXDIV : x < 1 ? 1 : (int32_t)x;
}

static int32_t pow2_divisor(int64_t v)
{
	if (v == 0)
		return MAXDIV;
	int64_t d = 1;
	while (!(v & d) && d < MAXDIV)
		d <<= 1;
	return (int32_t)d;
}

static int32_t last_dim(Type t)
{
	return t.rank ? t.shape[t.rank - 1] : 1;
}

static Info get(Func *f, ValId v)
{
	Value *x = val(f, v);
	return (Info){x->contig, x->divis, x->constancy};
}

static void put(Func *f, ValId v, Info i)
{
	Value *x = val(f, v);
	int32_t n = last_dim(x->type);
	x->contig = i.contig > n ? n : i.contig < 1 ? 1 : i.contig;
	x->constancy = i.constancy > n ? n : i.constancy < 1 ? 1 : i.constancy;
	x->divis = cap(i.divis);
}

static const Info none = {1, 1, 1};

/* Divisibility of a's elements at the starts of runs of length n. */
static int64_t at_runs(Info a, int32_t n)
{
	return a.contig > n ? gcd(a.divis, n) : a.divis;
}

/* add, ptradd (b scaled by the element size), max/min keep multiples */
static Info add_like(Info a, Info b, int64_t scale)
{
	Info r;
	r.contig = (int32_t)(gcd(a.contig, b.constancy) > gcd(a.constancy, b.contig) ? gcd(a.contig, b.constancy)
	                                                                            : gcd(a.constancy, b.contig));
	r.constancy = (int32_t)gcd(a.constancy, b.constancy);
	r.divis = cap(gcd(at_runs(a, r.contig), at_runs(b, r.contig) * scale));
	return r;
}

static Info sub(Info a, Info b)
{
	Info r;
	r.contig = (int32_t)gcd(a.contig, b.constancy);
	r.constancy = (int32_t)gcd(a.constancy, b.constancy);
	r.divis = cap(gcd(at_runs(a, r.contig), at_runs(b, r.contig)));
	return r;
}

static Info mul(Info a, Info b)
{
	Info r = {1, 1, (int32_t)gcd(a.constancy, b.constancy)};
	r.divis = cap(at_runs(a, 1) * at_runs(b, 1));
	return r;
}

/*
 * Triton's rule for comparisons with a value constant along the dim: a run
 * of c consecutive values starting at a multiple of d, compared (< or >=)
 * with a multiple of e, gives runs of gcd(c, d, e) equal results.
 * (The contract's gcd(x.contig, y.divis) also needs x's run start aligned.)
 */
static Info cmp(Info a, Info b, int pred, int32_t n)
{
	Info r = {1, 1, (int32_t)gcd(a.constancy, b.constancy)};
	int64_t k = 0;
	if ((pred == CMP_LT || pred == CMP_GE) && b.constancy == n)
		k = gcd(a.contig, gcd(a.divis, b.divis));
	else if ((pred == CMP_GT || pred == CMP_LE) && a.constancy == n)
		k = gcd(b.contig, gcd(a.divis, b.divis));
	if (k > r.constancy)
		r.constancy = (int32_t)k;
	return r;
}

/*
 * x % y with y constant along the dim (Triton's rule, values assumed
 * non-negative): a run of c consecutive values starting at a multiple of d
 * can only wrap at a multiple of y, itself a multiple of e, so it splits into
 * runs of gcd(c, d, e) consecutive values, each starting at a multiple of
 * gcd(d, e).  `(pid * BN + arange(0, BN)) % N` stays contiguous in runs of 16
 * when N is a multiple of 16.
 */
static Info rem(Info a, Info b, int32_t n)
{
	Info r = {1, 1, (int32_t)gcd(a.constancy, b.constancy)};
	if (b.constancy == n) {
		r.contig = (int32_t)gcd(a.contig, gcd(a.divis, b.divis));
		r.divis = (int32_t)gcd(a.divis, b.divis);
	}
	return r;
}

static Info select3(Info c, Info a, Info b)
{
	Info r;
	int64_t x = gcd(a.contig, c.constancy), y = gcd(b.contig, c.constancy);
	r.contig = (int32_t)(x < y ? x : y);
	r.constancy = (int32_t)gcd(c.constancy, gcd(a.constancy, b.constancy));
	r.divis = cap(gcd(at_runs(a, r.contig), at_runs(b, r.contig)));
	return r;
}

/* Stretching a size-1 last dim repeats each element; other dims keep the info. */
static Info broadcast(Func *f, Op *op)
{
	Info s = get(f, op->opnds[0]);
	int32_t from = last_dim(vtype(f, op->opnds[0])), to = last_dim(vtype(f, op->res[0]));
	if (from == to)
		return s;
	return (Info){1, s.divis, to};
}

/* A new last dim of size 1: each element is a run of its own. */
static Info expand_dims(Func *f, Op *op)
{
	Info s = get(f, op->opnds[0]);
	if (op->iattr[0] < vtype(f, op->opnds[0]).rank)
		return s;
	return (Info){1, (int32_t)at_runs(s, 1), 1};
}

static Info constant(Func *f, Op *op)
{
	Type t = vtype(f, op->res[0]);
	int32_t d = elem_is_int(t.elem) ? pow2_divisor(op->iattr[0]) : 1;
	return (Info){1, d, last_dim(t)};
}

static Info cast(Func *f, Op *op)
{
	Info s = get(f, op->opnds[0]);
	ElemKind from = vtype(f, op->opnds[0]).elem, to = vtype(f, op->res[0]).elem;
	if (elem_is_int(from) && elem_is_int(to) && from != TY_I1 && elem_bits(to) >= elem_bits(from))
		return s;
	return (Info){1, 1, s.constancy};
}

/* Element-wise ops with no better rule: equal inputs give equal outputs. */
static Info same_inputs(Func *f, Op *op)
{
	Info r = none;
	r.constancy = last_dim(vtype(f, op->res[0]));
	for (int i = 0; i < op->nopnds; i++)
		r.constancy = (int32_t)gcd(r.constancy, get(f, op->opnds[i]).constancy);
	return r;
}

static Info binary(Func *f, Op *op)
{
	Info a = get(f, op->opnds[0]), b = get(f, op->opnds[1]);
	switch (op->code) {
	case OP_ADD:
		return add_like(a, b, 1);
	case OP_SUB:
		return sub(a, b);
	case OP_MUL:
		return mul(a, b);
	case OP_PTRADD:
		return add_like(a, b, elem_bytes(vtype(f, op->res[0]).pointee));
	case OP_CMP:
		return cmp(a, b, (int)op->iattr[0], last_dim(vtype(f, op->res[0])));
	case OP_REM:
		if (elem_is_int(vtype(f, op->res[0]).elem))
			return rem(a, b, last_dim(vtype(f, op->res[0])));
		return same_inputs(f, op);
	default:
		return same_inputs(f, op);
	}
}

static Info param(Func *f, int i)
{
	Type t = vtype(f, f->entry->args[i]);
	if (t.elem == TY_PTR)
		return (Info){1, 16, 1};
	if (elem_is_int(t.elem) && f->param_div && i < f->nparams)
		return (Info){1, f->param_div[i], 1};
	return none;
}

static Info result(Func *f, Op *op)
{
	switch (op->code) {
	case OP_CONST:
		return constant(f, op);
	case OP_SPLAT: {
		Info s = get(f, op->opnds[0]);
		return (Info){1, s.divis, last_dim(vtype(f, op->res[0]))};
	}
	case OP_ARANGE:
		return (Info){last_dim(vtype(f, op->res[0])), pow2_divisor(op->iattr[0]), 1};
	case OP_BROADCAST:
		return broadcast(f, op);
	case OP_EXPAND_DIMS:
		return expand_dims(f, op);
	case OP_CONVERT_LAYOUT:
		return get(f, op->opnds[0]);
	case OP_ASSUME: {
		/* the promise, where it says more than the operand's own */
		Info a = get(f, op->opnds[0]);
		a.divis = cap(a.divis > op->iattr[0] ? a.divis : op->iattr[0]);
		a.contig = a.contig > ASSUME_CONTIG(op) ? a.contig : (int32_t)ASSUME_CONTIG(op);
		a.constancy = a.constancy > ASSUME_CONSTANCY(op) ? a.constancy : (int32_t)ASSUME_CONSTANCY(op);
		return a;
	}
	case OP_CAST:
		return cast(f, op);
	case OP_SELECT:
		return select3(get(f, op->opnds[0]), get(f, op->opnds[1]), get(f, op->opnds[2]));
	default:
		break;
	}
	if (op_has(op->code, F_ELTWISE))
		return op->nopnds == 2 ? binary(f, op) : same_inputs(f, op);
	return none;
}

/* What holds for both a and b (a value that is one or the other). */
static Info join(Info a, Info b)
{
	return (Info){(int32_t)gcd(a.contig, b.contig), (int32_t)gcd(a.divis, b.divis),
	              (int32_t)gcd(a.constancy, b.constancy)};
}

static bool info_eq(Info a, Info b)
{
	return a.contig == b.contig && a.divis == b.divis && a.constancy == b.constancy;
}

static Op *yield_of(Block *b)
{
	return b && b->last && b->last->code == OP_YIELD ? b->last : NULL;
}

static void axis_block(Func *f, Block *b);

/*
 * The induction variable starts at lo and moves by step.  A loop-carried
 * value is its init joined with what the body yields for it: start from
 * the init and re-run the body until the join stops shrinking (every
 * change halves a power of two, so this ends quickly).  A do_while is the
 * same without an induction variable (its iters are operands and body
 * arguments from 0, and its yield ends with the condition).
 */
static void axis_loop(Func *f, Op *op)
{
	Block *body = op->blocks[0];
	Op *y = yield_of(body);
	int a0 = 0, o0 = 0; /* the first iter's body argument and operand */
	if (op->code == OP_FOR) {
		Info lo = get(f, op->opnds[0]), step = get(f, op->opnds[2]);
		put(f, body->args[0], (Info){1, cap(gcd(lo.divis, step.divis)), 1});
		a0 = 1, o0 = 3;
	}
	for (int i = a0; i < body->nargs; i++)
		put(f, body->args[i], get(f, op->opnds[o0 + i - a0]));
	for (bool changed = true; changed;) {
		axis_block(f, body);
		changed = false;
		for (int i = a0; y && i < body->nargs && i - a0 < y->nopnds; i++) {
			Info old = get(f, body->args[i]), j = join(old, get(f, y->opnds[i - a0]));
			put(f, body->args[i], j);
			if (!info_eq(get(f, body->args[i]), old))
				changed = true;
		}
	}
	for (int i = 0; i < op->nres && i + a0 < body->nargs; i++)
		put(f, op->res[i], get(f, body->args[i + a0]));
}

static void axis_if(Func *f, Op *op)
{
	for (int k = 0; k < op->nblocks; k++)
		if (op->blocks[k])
			axis_block(f, op->blocks[k]);
	Op *t = yield_of(op->blocks[0]), *e = op->nblocks > 1 ? yield_of(op->blocks[1]) : NULL;
	for (int i = 0; i < op->nres; i++)
		put(f, op->res[i], t && e ? join(get(f, t->opnds[i]), get(f, e->opnds[i])) : none);
}

static void axis_block(Func *f, Block *b)
{
	for (Op *op = b->first; op; op = op->next) {
		if (op->code == OP_FOR || op->code == OP_DO_WHILE)
			axis_loop(f, op);
		else if (op->code == OP_IF)
			axis_if(f, op);
		else
			for (int i = 0; i < op->nres; i++)
				put(f, op->res[i], op->nres == 1 ? result(f, op) : none);
	}
}

/*
 * How many consecutive elements of eb bytes one access through ptr may
 * move (Triton's rule): the largest power of two, at most `most` and 16
 * bytes, that the pointers run contiguous for and are aligned to and that
 * the mask (0: none) is constant over.
 */
int axis_access_vec(Func *f, ValId ptr, ValId mask, int eb, int most)
{
	const Value *p = val(f, ptr);
	int v = 1;
	while (v * 2 <= most && v * 2 * eb <= 16 && v * 2 <= p->contig)
		v *= 2;
	while (v > 1 && (p->divis <= 0 || p->divis % (v * eb) != 0))
		v /= 2;
	int k = mask ? val(f, mask)->constancy : v;
	while (v > 1 && (k <= 0 || k % v != 0))
		v /= 2;
	return v;
}

void pass_axis(Func *f)
{
	for (int i = 0; i < f->entry->nargs; i++)
		put(f, f->entry->args[i], param(f, i));
	axis_block(f, f->entry);
}
