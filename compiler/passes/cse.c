/*
 * cse.c: common subexpression elimination.
 *
 * Guarantees afterwards: no pure, single-result, region-free op computes the
 * same thing (opcode, operands, attributes, result type and layout) as an op that
 * dominates it; the later op is removed and its uses go to the earlier one.
 * Commutative ops match with their operands in either order.  Loads are
 * never merged: a store or atomic between two loads could change what the
 * second one reads.
 *
 * Dominance comes from the structure: an op dominates the rest of its block
 * and every block nested in it.  The table is scoped (as in the classic
 * dominator-tree walk of Briggs, Cooper and Simpson's "Value Numbering",
 * 1997): entries made inside a block are popped when the walk leaves it.
 * Entries are pushed on a stack and at the head of their hash chain, so
 * popping the stack unlinks chain heads in order.  Uses of a removed op
 * all come after it in the walk, so they are rewritten through `repl` as
 * the walk reaches them.
 */
#include "ir.h"
#include "compile.h"

#include <string.h>

enum { NBUCKET = 1024 };

typedef struct Entry {
	Op *op;
	uint32_t hash;
	int bucket;
	struct Entry *next;  /* hash chain */
} Entry;

typedef struct Table {
	Entry *head[NBUCKET];
	Entry **stack;
	int n, cap;
	Arena *arena;
	ValId *repl;         /* value -> the value replacing it, or 0 */
} Table;

static uint32_t mix(uint32_t h, uint64_t x)
{
	h ^= (uint32_t)x + 0x9e3779b9u + (h << 6) + (h >> 2);
	h ^= (uint32_t)(x >> 32) + 0x9e3779b9u + (h << 6) + (h >> 2);
	return h;
}

/* Operands in match order: commutative ops compare their sorted pair. */
static void key_opnds(const Op *op, ValId *k)
{
	for (int i = 0; i < op->nopnds; i++)
		k[i] = op->opnds[i];
	if (op_has(op->code, F_COMMUT) && op->nopnds == 2 && k[0] > k[1]) {
		ValId t = k[0];
		k[0] = k[1];
		k[1] = t;
	}
}

static uint32_t hash_op(Func *f, const Op *op)
{
	ValId k[3];
	uint64_t fbits;
	Type t = vtype(f, op->res[0]);
	uint32_t h = mix((uint32_t)op->code, (uint64_t)op->nopnds);
	key_opnds(op, k);
	for (int i = 0; i < op->nopnds; i++)
		h = mix(h, (uint64_t)k[i]);
	memcpy(&fbits, &op->fattr, sizeof fbits);
	h = mix(h, (uint64_t)op->iattr[0]);
	h = mix(h, (uint64_t)op->iattr[1]);
	h = mix(h, fbits);
	return mix(h, (uint64_t)t.elem | (uint64_t)t.rank << 8 | (uint64_t)t.shape[0] << 16);
}

static bool same_op(Func *f, const Op *a, const Op *b)
{
	ValId ka[3], kb[3];
	if (a->code != b->code || a->nopnds != b->nopnds || a->iattr[0] != b->iattr[0] ||
	    a->iattr[1] != b->iattr[1] || memcmp(&a->fattr, &b->fattr, sizeof a->fattr) != 0)
		return false;
	if (!type_eq(vtype(f, a->res[0]), vtype(f, b->res[0])) ||
	    f->vals[a->res[0]].layout != f->vals[b->res[0]].layout)
		return false;
	key_opnds(a, ka);
	key_opnds(b, kb);
	for (int i = 0; i < a->nopnds; i++)
		if (ka[i] != kb[i])
			return false;
	return true;
}

static bool candidate(const Op *op)
{
	return op_has(op->code, F_PURE) && op->code != OP_LOAD && op->nres == 1 && op->nblocks == 0 &&
	       op->nopnds <= 3;
}

static Op *lookup(Table *t, Func *f, Op *op, uint32_t h)
{
	for (Entry *e = t->head[h % NBUCKET]; e; e = e->next)
		if (e->hash == h && same_op(f, e->op, op))
			return e->op;
	return NULL;
}

static void push(Table *t, Op *op, uint32_t h)
{
	Entry *e = NEW(t->arena, Entry);
	e->op = op;
	e->hash = h;
	e->bucket = (int)(h % NBUCKET);
	e->next = t->head[e->bucket];
	t->head[e->bucket] = e;
	t->stack = arena_grow(t->arena, t->stack, &t->cap, t->n + 1, sizeof(Entry *));
	t->stack[t->n++] = e;
}

static void pop_to(Table *t, int mark)
{
	while (t->n > mark) {
		Entry *e = t->stack[--t->n];
		t->head[e->bucket] = e->next;
	}
}

static void cse_block(Table *t, Func *f, Block *b)
{
	int mark = t->n;
	for (Op *op = b->first, *next; op; op = next) {
		next = op->next;
		for (int i = 0; i < op->nopnds; i++)
			if (t->repl[op->opnds[i]])
				op->opnds[i] = t->repl[op->opnds[i]];
		for (int i = 0; i < op->nblocks; i++)
			if (op->blocks[i])
				cse_block(t, f, op->blocks[i]);
		if (!candidate(op))
			continue;
		uint32_t h = hash_op(f, op);
		Op *old = lookup(t, f, op, h);
		if (old) {
			t->repl[op->res[0]] = old->res[0];
			ir_remove(op);
		} else {
			push(t, op, h);
		}
	}
	pop_to(t, mark);
}

void pass_cse(Func *f)
{
	Table *t = NEW(f->arena, Table);
	t->arena = f->arena;
	t->repl = NEWN(f->arena, ValId, f->nvals);
	cse_block(t, f, f->entry);
}
