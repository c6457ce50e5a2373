/*
 * passes/licm.c: pass_licm moves loop-invariant work out of `for` bodies.
 *
 * Guarantee afterwards: no hoistable op (below) that sits directly in a
 * loop body reads only values defined outside the loop; each such op now
 * stands right before its loop, in the order it had.
 *
 * Kernels write `m[:, None]` or `scale` inside the loop that uses them,
 * as in Triton.  Hoisted, the expand_dims and broadcast of a value loaded
 * before the loop sit next to that load, so the layout pass converts it
 * once before the loop (or reads a small one straight into the layout its
 * user wants) instead of through shared memory every iteration.
 *
 * Hoistable: a pure op with one result and no blocks, except loads (a
 * store in the loop may change what they read), local_loads, and the ops
 * that take shared-memory scratch (F_SMEM: converts, which the GPU passes
 * place, and dots, reductions, scans and xorperms, whose layouts and
 * pipelining the later passes choose by where they are), and integer
 * division and remainder: LLVM's sdiv by zero is undefined behaviour, and
 * hoisted out of a loop that runs no iteration it would run where the
 * kernel never ran it.  Ops inside an `if` in the body stay (they might
 * not run at all).
 *
 * Inner loops go first, so an op hoisted out of one may leave the loop
 * around it as well.
 */
#include "compile.h"

static bool hoistable(Func *f, const Op *op)
{
	if (op->nblocks || op->nres != 1 || !op_has(op->code, F_PURE) || op->code == OP_LOAD ||
	    op->code == OP_LOCAL_LOAD || op_has(op->code, F_SMEM))
		return false;
	if ((op->code == OP_DIV || op->code == OP_REM) && elem_is_int(vtype(f, op->res[0]).elem))
		return false;
	return true;
}

static void licm_block(Func *f, Block *b);

static void licm_loop(Func *f, Op *loop)
{
	Block *body = loop->blocks[0];
	licm_block(f, body);
	Op *next;
	for (Op *op = body->first; op; op = next) {
		next = op->next;
		if (!hoistable(f, op))
			continue;
		bool invariant = true;
		for (int i = 0; i < op->nopnds && invariant; i++)
			invariant = !ir_inside(f, op->opnds[i], loop);
		if (!invariant)
			continue;
		ir_remove(op);
		ir_insert_before(loop, op);
	}
}

static void licm_block(Func *f, Block *b)
{
	for (Op *op = b->first; op; op = op->next) {
		if (op->code == OP_FOR)
			licm_loop(f, op);
		else
			for (int i = 0; i < op->nblocks; i++)
				if (op->blocks[i])
					licm_block(f, op->blocks[i]);
	}
}

void pass_licm(Func *f)
{
	licm_block(f, f->entry);
}
