/*
 * dce.c: dead code elimination.
 *
 * Guarantees afterwards: every pure op has a used result, and every `for`
 * or `if` either has a used result or holds a side effect (a store or an
 * atomic, at any depth).  A loop-carried value that only feeds its own
 * yield is dropped from its `for` (init, body argument, yield operand and
 * result), so a dead accumulator dies with what computes it.
 *
 * Blocks are walked last op first with use counts kept up to date, so one
 * sweep frees whole dead chains; loop-carried values need another sweep
 * after they are dropped, so sweeps repeat until nothing changes.
 */
#include "ir.h"
#include "compile.h"


static bool results_unused(Func *f, Op *op)
{
	for (int i = 0; i < op->nres; i++)
		if (f->vals[op->res[i]].nuses > 0)
			return false;
	return true;
}

static bool removable(Func *f, Op *op)
{
	if (!results_unused(f, op))
		return false;
	if (op_has(op->code, F_REGION)) {
		for (int i = 0; i < op->nblocks; i++)
			if (op->blocks[i] && ir_has_side_effect(op->blocks[i]))
				return false;
		return true;
	}
	return op_has(op->code, F_PURE);
}

static void drop_uses(Func *f, Op *op);

static void drop_block_uses(Func *f, Block *b)
{
	for (Op *op = b->first; op; op = op->next)
		drop_uses(f, op);
}

static void drop_uses(Func *f, Op *op)
{
	for (int i = 0; i < op->nopnds; i++)
		f->vals[op->opnds[i]].nuses--;
	for (int i = 0; i < op->nblocks; i++)
		if (op->blocks[i])
			drop_block_uses(f, op->blocks[i]);
}

/*
 * Iteration value j of a for (result j, body argument 1+j, init 3+j, yield
 * operand j) is dead when the result is unused and everything computed from
 * the body argument is pure and feeds only yield operand j: the chain
 * `%acc2 = add %acc, %x ; yield %acc2` of an accumulator nobody reads.
 * `chain` marks the argument and the results of the ops computed from it.
 */
static bool iter_is_dead(Func *f, Op *loop, int j, uint8_t *chain, int *count, ValId *members, int *nmem)
{
	Block *body = loop->blocks[0];
	Op *y = body->last;
	*nmem = 0;
	if (f->vals[loop->res[j]].nuses > 0)
		return false;
	chain[body->args[1 + j]] = 1;
	members[(*nmem)++] = body->args[1 + j];
	for (Op *op = body->first; op != y; op = op->next) {
		bool uses = false;
		for (int i = 0; i < op->nopnds; i++)
			uses |= chain[op->opnds[i]];
		if (!uses)
			continue;
		if (!op_has(op->code, F_PURE) || op->nblocks || op->nres != 1)
			return false;
		for (int i = 0; i < op->nopnds; i++)
			count[op->opnds[i]] += chain[op->opnds[i]];
		chain[op->res[0]] = 1;
		members[(*nmem)++] = op->res[0];
	}
	count[y->opnds[j]] += chain[y->opnds[j]];
	for (int k = 0; k < *nmem; k++)
		if (count[members[k]] != f->vals[members[k]].nuses)
			return false;
	return true;
}

static void remove_chain(Func *f, Block *body, const uint8_t *chain)
{
	for (Op *op = body->last->prev, *prev; op; op = prev) {
		prev = op->prev;
		if (op->nres == 1 && chain[op->res[0]]) {
			drop_uses(f, op);
			ir_remove(op);
		}
	}
}

/* Removes the array element at k of a[n]. */
static void cut(ValId *a, int *n, int k)
{
	for (int i = k; i + 1 < *n; i++)
		a[i] = a[i + 1];
	(*n)--;
}

static bool drop_dead_iters(Func *f, Op *op)
{
	Block *body = op->blocks[0];
	Op *y = body ? body->last : NULL;
	bool changed = false;
	if (!y || y->code != OP_YIELD || y->nopnds != op->nres || body->nargs != op->nres + 1 ||
	    op->nopnds != op->nres + 3)
		return false;
	/* one set of tables for all of the loop's values (a loop may carry thousands), cleared member by member */
	uint8_t *chain = NEWN(f->arena, uint8_t, f->nvals);
	int *count = NEWN(f->arena, int, f->nvals);
	ValId *members = NEWN(f->arena, ValId, f->nvals);
	for (int j = op->nres - 1; j >= 0; j--) {
		int nmem;
		bool dead = iter_is_dead(f, op, j, chain, count, members, &nmem);
		if (dead)
			remove_chain(f, body, chain);
		for (int k = 0; k < nmem; k++)
			chain[members[k]] = 0, count[members[k]] = 0;
		if (!dead)
			continue;
		f->vals[y->opnds[j]].nuses--;
		f->vals[op->opnds[3 + j]].nuses--;
		cut(y->opnds, &y->nopnds, j);
		cut(op->opnds, &op->nopnds, 3 + j);
		cut(body->args, &body->nargs, 1 + j);
		cut(op->res, &op->nres, j);
		changed = true;
	}
	for (int i = 0; i < body->nargs; i++)
		f->vals[body->args[i]].index = (int16_t)i;
	for (int i = 0; i < op->nres; i++)
		f->vals[op->res[i]].index = (int16_t)i;
	return changed;
}

static bool sweep_block(Func *f, Block *b)
{
	bool changed = false;
	for (Op *op = b->last, *prev; op; op = prev) {
		prev = op->prev;
		if (op->code == OP_FOR && op->nblocks == 1)
			changed |= drop_dead_iters(f, op);
		for (int i = 0; i < op->nblocks; i++)
			if (op->blocks[i])
				changed |= sweep_block(f, op->blocks[i]);
		if (removable(f, op)) {
			drop_uses(f, op);
			ir_remove(op);
			changed = true;
		}
	}
	return changed;
}

void pass_dce(Func *f)
{
	ir_fill_uses(f);
	while (sweep_block(f, f->entry))
		;
}
