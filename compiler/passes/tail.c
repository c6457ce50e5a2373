/*
 * tail.c: a loop over blocks runs its full blocks without their bounds mask.
 *
 *     for j = lo to hi step S { ... c = (j + arange(a, b)) < hi ... }      0 <= a, b <= S
 *
 * In every iteration but a last, partial one (j + S <= hi), each such
 * compare c is all true.  Where one of them does more than mask memory (a
 * `where` of attention's scores, a masked sum: a select per element, every
 * iteration; the mask of a load or store costs nothing, the instruction
 * takes it as a predicate), the loop becomes two:
 *
 *     hm = lo + (hi - lo) / S * S
 *     r = for j = lo to hm step S iter(inits) { ... c = true ... }    the full blocks
 *     for j = hm to hi step S iter(r) { ... as before ... }           at most once
 *
 * and canon and fold then drop the selects of true, the masks and what
 * computed them.  When hi < lo, hm lies between hi and lo (the division
 * truncates), so neither loop runs.  Where lo, hi and S are constants and
 * S divides hi - lo there is no tail: the compares become true in place.
 *
 * The compare may be written either way round (j + arange < hi, or hi >
 * j + arange) and reshaped on both sides (expand_dims, broadcast, splat);
 * hi must be the loop's own bound, the loop's variable an i32 (hm is
 * computed in i64: hi - lo may not fit), a >= 0.  Loops nested in the body
 * are cloned with it.  The second loop is marked `tail` (at most one
 * iteration); a tail loop is not split again, nor a loop with one inside
 * (a nest of split loops would copy the innermost body 2^depth times).
 */
#include "ir.h"
#include "compile.h"

/* v through broadcast, expand_dims and splat. */
static ValId unshape(Func *f, ValId v)
{
	for (Op *d = val(f, v)->def; d && (d->code == OP_BROADCAST || d->code == OP_EXPAND_DIMS ||
	                                   d->code == OP_SPLAT); d = val(f, v)->def)
		v = d->opnds[0];
	return v;
}

static Op *def_of(Func *f, ValId v, Opcode code)
{
	Op *d = val(f, v)->def;
	return d && d->code == code ? d : NULL;
}

/* Is x = splat(iv) + arange(a, b) (either order) with 0 <= a, b <= step?
 * Then iv + a .. iv + b - 1 lie in [iv, iv + step): no i32 wraps where
 * iv + step <= hi. */
static bool block_index(Func *f, ValId x, ValId iv, int64_t step)
{
	Op *add = def_of(f, x, OP_ADD);
	if (!add)
		return false;
	for (int i = 0; i < 2; i++) {
		Op *s = def_of(f, add->opnds[i], OP_SPLAT);
		Op *r = def_of(f, add->opnds[1 - i], OP_ARANGE);
		if (s && r && s->opnds[0] == iv && r->iattr[0] >= 0 && r->iattr[1] <= step)
			return true;
	}
	return false;
}

/* Is op a compare that is all true in every full block of the loop? */
static bool bound_cmp(Func *f, Op *op, ValId iv, ValId hi, int64_t step)
{
	if (op->code != OP_CMP || vtype(f, op->res[0]).rank == 0)
		return false;
	ValId e, h;
	if (op->iattr[0] == CMP_LT)
		e = op->opnds[0], h = op->opnds[1];
	else if (op->iattr[0] == CMP_GT)
		e = op->opnds[1], h = op->opnds[0];
	else
		return false;
	return unshape(f, h) == hi && block_index(f, unshape(f, e), iv, step);
}

/* Tail.mask[v]: v is a qualifying compare, or derived from one by reshapes and logic. */
enum { DERIVED = 1, BOUND = 2 };

typedef struct Tail {
	Func *f;
	ValId iv, hi;
	int64_t step;
	uint8_t *mask;  /* per ValId: 0, DERIVED or BOUND */
	bool bound;     /* some compare is BOUND */
	bool costly;    /* a BOUND or DERIVED value reaches more than a memory op's mask */
} Tail;

/* Ops that pass a mask on: the result is as all true as the operand. */
static bool passes_mask(Opcode c)
{
	return c == OP_BROADCAST || c == OP_EXPAND_DIMS || c == OP_TRANS || c == OP_AND || c == OP_OR ||
	       c == OP_NOT;
}

/* The operand index an op takes a predicate at, for free; -1 if none. */
static int mask_operand(Opcode c)
{
	return ir_mask_index(c);
}

static void scan(Tail *t, Block *b)
{
	Func *f = t->f;
	for (Op *op = b->first; op; op = op->next) {
		bool uses = false, free = true;
		for (int i = 0; i < op->nopnds; i++) {
			if (!t->mask[op->opnds[i]])
				continue;
			uses = true;
			free &= i == mask_operand(op->code);
		}
		if (uses && passes_mask(op->code))
			t->mask[op->res[0]] = DERIVED;
		else if (uses && !free)
			t->costly = true;
		if (bound_cmp(f, op, t->iv, t->hi, t->step))
			t->mask[op->res[0]] = BOUND, t->bound = true;
		for (int k = 0; k < op->nblocks; k++)
			if (op->blocks[k])
				scan(t, op->blocks[k]);
	}
}

/* A `tail` loop anywhere in b: splitting around it would copy it again. */
static bool has_tail(Block *b)
{
	for (Op *op = b->first; op; op = op->next) {
		if (op->code == OP_FOR && op->iattr[0])
			return true;
		for (int k = 0; k < op->nblocks; k++)
			if (op->blocks[k] && has_tail(op->blocks[k]))
				return true;
	}
	return false;
}

static bool const_int(Func *f, ValId v, int64_t *x)
{
	Op *d = def_of(f, v, OP_CONST);
	if (d && elem_is_int(vtype(f, v).elem))
		*x = d->iattr[0];
	return d && elem_is_int(vtype(f, v).elem);
}

static ValId cast_to(Builder *b, ElemKind e, ValId x)
{
	return b_op1(b, OP_CAST, type_scalar(e), &x, 1);
}

static void split(Func *f, Op *loop)
{
	Block *body = loop->blocks[0];
	ValId lo = loop->opnds[0], hi = loop->opnds[1];
	int64_t step, clo, chi;
	if (loop->iattr[0] || vtype(f, lo).elem != TY_I32 || !const_int(f, loop->opnds[2], &step) || step <= 0 ||
	    has_tail(body))
		return;
	int nmap = f->nvals;
	Tail t = {.f = f, .iv = body->args[0], .hi = hi, .step = step};
	t.mask = NEWN(f->arena, uint8_t, nmap);
	scan(&t, body);
	if (!t.bound || !t.costly)
		return;

	/* the loop whose compares become true: this one, or its copy over the full blocks */
	Op *at = loop;
	ValId *map = NULL;
	if (!const_int(f, lo, &clo) || !const_int(f, hi, &chi) || (chi - clo) % step) {
		/* in i64, where hi - lo cannot wrap; hm lies between lo and hi, so it fits in i32 */
		Builder b = {f, loop->parent, loop, loop->loc};
		Type i64 = type_scalar(TY_I64);
		ValId lo64 = cast_to(&b, TY_I64, lo), s64 = b_const_int(&b, TY_I64, step);
		ValId n = b_op2(&b, OP_SUB, i64, cast_to(&b, TY_I64, hi), lo64);
		ValId q = b_op2(&b, OP_MUL, i64, b_op2(&b, OP_DIV, i64, n, s64), s64);
		ValId hm = cast_to(&b, TY_I32, b_op2(&b, OP_ADD, i64, lo64, q));
		map = NEWN(f->arena, ValId, nmap);
		at = ir_clone(f, loop, map, nmap);
		at->opnds[1] = hm;
		ir_insert_before(loop, at);
		loop->opnds[0] = hm;
		loop->iattr[0] = 1;
		for (int i = 0; i < at->nres; i++)
			loop->opnds[3 + i] = at->res[i];
	}
	Builder b = {f, at->parent, at, at->loc};
	for (ValId v = 1; v < nmap; v++) {
		if (t.mask[v] != BOUND)
			continue;
		ValId yes = b_const_int(&b, TY_I1, 1);
		ir_replace_uses(f, map ? map[v] : v, b_op1(&b, OP_SPLAT, vtype(f, v), &yes, 1));
	}
}

void pass_tail(Func *f)
{
	int n;
	Op **loops = ir_collect(f, OP_FOR, &n);
	for (int i = n - 1; i >= 0; i--) /* inner loops first */
		split(f, loops[i]);
}
