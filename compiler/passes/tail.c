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

#include <string.h>

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

typedef struct Tail {
	Func *f;
	ValId iv, hi;
	int64_t step;
	Op **cmps;      /* the qualifying compares */
	int ncmps, cap;
	uint8_t *mask;  /* per ValId: derived from a qualifying compare by reshapes and logic */
	bool costly;    /* such a value reaches more than a memory op's mask */
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
	return c == OP_LOAD ? 1 : c == OP_STORE || c == OP_ATOMIC_ADD ? 2 : -1;
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
			t->mask[op->res[0]] = 1;
		else if (uses && !free)
			t->costly = true;
		if (bound_cmp(f, op, t->iv, t->hi, t->step)) {
			if (t->ncmps == t->cap) {
				t->cap = t->cap ? 2 * t->cap : 8;
				Op **n = NEWN(f->arena, Op *, t->cap);
				if (t->ncmps)
					memcpy(n, t->cmps, sizeof(Op *) * (size_t)t->ncmps);
				t->cmps = n;
			}
			t->cmps[t->ncmps++] = op;
			t->mask[op->res[0]] = 1;
		}
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

/* The constant true in c's type, built by b. */
static ValId all_true(Builder *b, Op *c)
{
	ValId t = b_const_int(b, TY_I1, 1);
	return b_op1(b, OP_SPLAT, vtype(b->f, c->res[0]), &t, 1);
}

static ValId op2(Builder *b, Opcode code, ValId x, ValId y)
{
	ValId o[2] = {x, y};
	return b_op1(b, code, vtype(b->f, x), o, 2);
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
	if (!t.ncmps || !t.costly)
		return;

	Builder b = {f, loop->parent, loop, loop->loc};
	ValId *yes = NEWN(f->arena, ValId, t.ncmps);
	for (int i = 0; i < t.ncmps; i++)
		yes[i] = all_true(&b, t.cmps[i]);
	if (const_int(f, lo, &clo) && const_int(f, hi, &chi) && (chi - clo) % step == 0) {
		for (int i = 0; i < t.ncmps; i++)
			ir_replace_uses(f, t.cmps[i]->res[0], yes[i]);
		return;
	}
	/* in i64, where hi - lo cannot wrap; hm lies between lo and hi, so it fits in i32 */
	ValId lo64 = cast_to(&b, TY_I64, lo), s64 = b_const_int(&b, TY_I64, step);
	ValId n = op2(&b, OP_SUB, cast_to(&b, TY_I64, hi), lo64);
	ValId hm = cast_to(&b, TY_I32, op2(&b, OP_ADD, lo64, op2(&b, OP_MUL, op2(&b, OP_DIV, n, s64), s64)));
	ValId *map = NEWN(f->arena, ValId, nmap);
	Op *full = ir_clone(f, loop, map, nmap);
	full->opnds[1] = hm;
	ir_insert_before(loop, full);
	for (int i = 0; i < t.ncmps; i++)
		ir_replace_uses(f, map[t.cmps[i]->res[0]], yes[i]);
	loop->opnds[0] = hm;
	loop->iattr[0] = 1;
	for (int i = 0; i < full->nres; i++)
		loop->opnds[3 + i] = full->res[i];
}

void pass_tail(Func *f)
{
	int n;
	Op **loops = ir_collect(f, OP_FOR, &n);
	for (int i = n - 1; i >= 0; i--) /* inner loops first */
		split(f, loops[i]);
}
