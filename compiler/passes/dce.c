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

static bool has_side_effect(Block *b)
{
	for (Op *op = b->first; op; op = op->next) {
		if (op_has(op->code, F_SIDE))
			return true;
		for (int i = 0; i < op->nblocks; i++)
			if (op->blocks[i] && has_side_effect(op->blocks[i]))
				return true;
	}
	return false;
}

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
			if (op->blocks[i] && has_side_effect(op->blocks[i]))
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

/* Removes the array element at k of a[n]. */
static void cut(ValId *a, int *n, int k)
{
	for (int i = k; i + 1 < *n; i++)
		a[i] = a[i + 1];
	(*n)--;
}

/*
 * Iteration value j of a for (result j, body argument 1+j, init 3+j,
 * yield operand j) is dead when the result is unused and the body
 * argument's only use is the yield.
 */
static bool drop_dead_iters(Func *f, Op *op)
{
	Block *body = op->blocks[0];
	Op *y = body ? body->last : NULL;
	bool changed = false;
	if (!y || y->code != OP_YIELD || y->nopnds != op->nres || body->nargs != op->nres + 1)
		return false;
	for (int j = op->nres - 1; j >= 0; j--) {
		ValId arg = body->args[1 + j];
		int self = y->opnds[j] == arg; /* `yield %arg` is the argument's use too */
		if (f->vals[op->res[j]].nuses > 0 || f->vals[arg].nuses != 1 - self + self)
			continue;
		if (f->vals[arg].nuses == 1 && y->opnds[j] != arg && !yield_only_use(f, y, arg))
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
