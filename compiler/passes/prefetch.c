/*
 * prefetch.c: register double-buffering of plain global loads in loops.
 *
 * Guarantees afterwards: in every `for` without a dot (inner loops first),
 * up to MAX_LOADS loads that sit directly in the body, do not feed a `dot` and
 * whose address is cheap to recompute are loaded one iteration ahead.
 * Each gets a loop-carried value holding "this iteration's tile":
 *
 *     t0 = load a(lo), m(lo) & (lo < hi)          peeled, before the loop
 *     for iv = lo to hi step s iter(..., t = t0) {
 *         tn = load a(iv+s), m(iv+s) & (iv+s < hi)   as early as its inputs allow
 *         ... uses of the old load read t ...
 *         yield ..., tn
 *     }
 *
 * a() and m() are clones of the load's *address slice*: the body ops its
 * pointer, mask and other depend on, up to the body's arguments and values
 * from outside the loop, all pure element-wise or shape ops.  The clones
 * take iv := lo and iter args := their inits before the loop, and iv :=
 * iv + s and iter args := what this iteration yields for the next load.
 * The extra mask term keeps both loads off memory where the original loop
 * would not have loaded, so results are bit-identical.  The next load is
 * placed right after the last body op it depends on, so its latency hides
 * behind the work on the current tile.
 *
 * Loops that store or do atomics are skipped (no alias analysis to show the
 * early load reads what the late one would) unless their `range` says
 * num_stages >= 2, and so are loops with a dot:
 * its latency hides a plain load's, and registers are what such a loop
 * runs short of (the backward's dK/dV loop would carry each block's lse and
 * delta in the accumulators' column layout, 16 registers apiece, into 68
 * bytes of spills).  Loads that feed a dot (directly or through casts and
 * transposes) belong to the tensor-core pipeliner; tiles over
 * MAX_PER_THREAD elements per thread would cost too many registers;
 * num_stages < 2 (the loop's own, else the kernel's) turns the pass off
 * for the loop.
 */
#include "ir.h"
#include "compile.h"

enum { MAX_LOADS = 4, MAX_PER_THREAD = 32 };

/* Marks in a per-value table while a load's slice is collected. */
enum { IN_SLICE = 1, LEAF_ARG = 2 };

static bool in_body(Func *f, ValId v, Block *body)
{
	Op *d = val(f, v)->def;
	return d && d->parent == body;
}

static bool is_body_arg(Func *f, ValId v, Block *body)
{
	return !val(f, v)->def && val(f, v)->block == body;
}

/* Cheap to compute twice more: no memory, no region, nothing that takes shared-memory scratch (F_SMEM). */
static bool recomputable(const Op *op)
{
	return op_has(op->code, F_PURE) && !op_has(op->code, F_SMEM) && op->code != OP_LOAD && op->nblocks == 0 &&
	       op->nres == 1;
}

/* Marks what v depends on inside the body; false if something is not recomputable. */
static bool mark_slice(Func *f, Block *body, ValId v, uint8_t *mark)
{
	if (mark[v])
		return true;
	if (is_body_arg(f, v, body)) {
		mark[v] = LEAF_ARG;
		return true;
	}
	if (!in_body(f, v, body))
		return true;
	Op *op = val(f, v)->def;
	if (!recomputable(op))
		return false;
	mark[v] = IN_SLICE;
	for (int i = 0; i < op->nopnds; i++)
		if (!mark_slice(f, body, op->opnds[i], mark))
			return false;
	return true;
}

typedef struct DotUse {
	uint8_t *reach; /* the load's value and casts of it */
	bool found;
} DotUse;

/* Program order visits a value's uses after its definition, so one walk does. */
static void find_dot_use(Func *f, Op *op, void *ctx)
{
	DotUse *d = ctx;
	(void)f;
	for (int i = 0; i < op->nopnds; i++) {
		if (!d->reach[op->opnds[i]])
			continue;
		if (op->code == OP_DOT)
			d->found = true;
		else if (op->code == OP_CAST || op->code == OP_CONVERT_LAYOUT || op->code == OP_TRANS)
			d->reach[op->res[0]] = 1;
	}
}

static bool feeds_dot(Func *f, ValId v)
{
	DotUse d = {NEWN(f->arena, uint8_t, f->nvals), false};
	d.reach[v] = 1;
	ir_walk(f, find_dot_use, &d);
	return d.found;
}

static bool small_enough(Func *f, Op *ld)
{
	int64_t threads = 32 * (int64_t)f->num_warps;
	return type_numel(vtype(f, ld->res[0])) / threads <= MAX_PER_THREAD;
}

/* A load's address slice: mark[v] for the values that existed when it was taken. */
typedef struct Slice {
	uint8_t *mark;
	int n;
} Slice;

static bool marked(const Slice *s, ValId v, uint8_t what)
{
	return v < s->n && s->mark[v] == what;
}

/* False when the load is not to be prefetched. */
static bool slice_of(Func *f, Block *body, Op *ld, Slice *s)
{
	s->n = f->nvals;
	s->mark = NEWN(f->arena, uint8_t, s->n);
	if (!small_enough(f, ld) || feeds_dot(f, ld->res[0]))
		return false;
	for (int i = 0; i < ld->nopnds; i++)
		if (!mark_slice(f, body, ld->opnds[i], s->mark))
			return false;
	return true;
}

static ValId remap(const ValId *map, int nmap, ValId v)
{
	return v < nmap && map[v] ? map[v] : v;
}

/* Clones the slice's ops, in body order, with operands through map; records the clones in map. */
static void clone_slice(Func *f, Block *body, const Slice *s, ValId *map, int nmap, Builder *b)
{
	for (Op *op = body->first; op; op = op->next) {
		if (op->nres != 1 || !marked(s, op->res[0], IN_SLICE))
			continue;
		ValId *o = NEWN(f->arena, ValId, op->nopnds);
		for (int i = 0; i < op->nopnds; i++)
			o[i] = remap(map, nmap, op->opnds[i]);
		Type t = vtype(f, op->res[0]);
		Op *c = ir_new_op(f, op->code, o, op->nopnds, &t, 1, op->loc);
		c->iattr[0] = op->iattr[0];
		c->iattr[1] = op->iattr[1];
		c->fattr = op->fattr;
		ir_insert_before(b->before, c);
		val(f, c->res[0])->name = val(f, op->res[0])->name;
		map[op->res[0]] = c->res[0];
	}
}

static ValId lt(Builder *b, ValId x, ValId y)
{
	ValId r = b_op2(b, OP_CMP, type_scalar(TY_I1), x, y);
	val(b->f, r)->def->iattr[0] = CMP_LT;
	return r;
}

/* The load ld with operands through map and its mask and-ed with the scalar `go`. */
static ValId guarded_load(Builder *b, Op *ld, const ValId *map, int nmap, ValId go)
{
	Func *f = b->f;
	ValId o[3] = {remap(map, nmap, ld->opnds[0]), go, 0};
	Type mt = type_with_elem(vtype(f, o[0]), TY_I1);
	if (mt.rank > 0)
		o[1] = b_op1(b, OP_SPLAT, mt, &go, 1);
	if (ld->nopnds > 1) {
		ValId m[2] = {remap(map, nmap, ld->opnds[1]), o[1]};
		o[1] = b_op1(b, OP_AND, mt, m, 2);
	}
	if (ld->nopnds > 2)
		o[2] = remap(map, nmap, ld->opnds[2]);
	ValId r = b_op1(b, OP_LOAD, vtype(f, ld->res[0]), o, ld->nopnds > 2 ? 3 : 2);
	val(f, r)->name = val(f, ld->res[0])->name;
	return r;
}

/*
 * What every prefetched load of one loop shares, made with its first one:
 * before the loop, `lo < hi`; at the top of the body, next = iv + step and
 * `next < hi`.
 */
typedef struct Loop {
	Op *op;
	ValId first_go, next_iv, next_go;
} Loop;

static void make_guards(Func *f, Loop *l)
{
	Op *loop = l->op;
	Block *body = loop->blocks[0];
	Builder b = {f, NULL, loop, loop->loc};
	l->first_go = lt(&b, loop->opnds[0], loop->opnds[1]);
	b.before = body->first;
	l->next_iv = b_op2(&b, OP_ADD, vtype(f, body->args[0]), body->args[0], loop->opnds[2]);
	l->next_go = lt(&b, l->next_iv, loop->opnds[1]);
}

/* The first op after the guards and after every body op defining a value need marks. */
static Op *earliest_point(Func *f, Loop *l, const uint8_t *need, int nneed)
{
	Block *body = l->op->blocks[0];
	Op *at = val(f, l->next_go)->def->next;
	for (Op *op = at; op != body->last; op = op->next)
		for (int i = 0; i < op->nres; i++)
			if (op->res[i] < nneed && need[op->res[i]])
				at = op->next;
	return at;
}

/* iv := lo, iter args := inits; the load lands before the loop. */
static ValId peel_first(Func *f, Loop *l, Op *ld, const Slice *s)
{
	Op *loop = l->op;
	Block *body = loop->blocks[0];
	int n = f->nvals;
	ValId *map = NEWN(f->arena, ValId, n);
	for (int i = 0; i < body->nargs; i++)
		map[body->args[i]] = loop->opnds[i == 0 ? 0 : 2 + i];
	Builder b = {f, NULL, loop, ld->loc};
	clone_slice(f, body, s, map, n, &b);
	return guarded_load(&b, ld, map, n, l->first_go);
}

/* iv := iv + step, iter args := what this iteration yields; placed as early as it can be. */
static ValId load_next(Func *f, Loop *l, Op *ld, const Slice *s)
{
	Block *body = l->op->blocks[0];
	Op *y = body->last;
	int n = f->nvals;
	ValId *map = NEWN(f->arena, ValId, n);
	uint8_t *need = NEWN(f->arena, uint8_t, n);
	for (int i = 1; i < body->nargs; i++) {
		ValId a = body->args[i];
		if (marked(s, a, LEAF_ARG))
			need[map[a] = y->opnds[i - 1]] = 1;
	}
	map[body->args[0]] = l->next_iv;
	Builder b = {f, NULL, earliest_point(f, l, need, n), ld->loc};
	clone_slice(f, body, s, map, n, &b);
	return guarded_load(&b, ld, map, n, l->next_go);
}

static void prefetch_load(Func *f, Loop *l, Op *ld, const Slice *s)
{
	if (!l->next_go)
		make_guards(f, l);
	ValId cur = ir_add_iter(f, l->op, peel_first(f, l, ld, s));
	ir_replace_uses(f, ld->res[0], cur);
	ir_remove(ld);
	Op *y = l->op->blocks[0]->last;
	y->opnds[y->nopnds - 1] = load_next(f, l, ld, s);
}

/*
 * Loads made by this pass (ids from `fresh` on) are not prefetched again by
 * an outer loop.  A loop that writes memory is left alone unless its
 * `range` gave num_stages >= 2: without alias information, the next
 * iteration's load could not be moved above this iteration's stores, and
 * the loop's num_stages is the kernel author's word that it may (as
 * Triton's tl.range(..., num_stages=N) pipelines a loop's loads past its
 * stores).
 */
static bool has_dot(Block *b)
{
	for (Op *op = b->first; op; op = op->next) {
		if (op->code == OP_DOT)
			return true;
		for (int i = 0; i < op->nblocks; i++)
			if (op->blocks[i] && has_dot(op->blocks[i]))
				return true;
	}
	return false;
}

static void prefetch_loop(Func *f, Op *loop, ValId fresh)
{
	Block *body = loop->blocks[0];
	Loop l = {loop, 0, 0, 0};
	int n = 0, done = 0;
	if (ir_stages(f, loop) < 2)
		return;
	/* a load moved across a store might read another value */
	if (!loop->iattr[1] && ir_has_side_effect(body))
		return;
	if (has_dot(body))
		return;
	for (Op *op = body->first; op; op = op->next)
		n += op->code == OP_LOAD;
	Op **loads = NEWN(f->arena, Op *, n);
	n = 0;
	for (Op *op = body->first; op; op = op->next)
		if (op->code == OP_LOAD && op->res[0] < fresh)
			loads[n++] = op;
	for (int i = 0; i < n && done < MAX_LOADS; i++) {
		Slice s;
		if (slice_of(f, body, loads[i], &s)) {
			prefetch_load(f, &l, loads[i], &s);
			done++;
		}
	}
}

static void prefetch_block(Func *f, Block *b, ValId fresh)
{
	for (Op *op = b->first; op; op = op->next) {
		for (int i = 0; i < op->nblocks; i++)
			if (op->blocks[i])
				prefetch_block(f, op->blocks[i], fresh);
		if (op->code == OP_FOR && op->nblocks == 1 && op->blocks[0]->last &&
		    op->blocks[0]->last->code == OP_YIELD)
			prefetch_loop(f, op, fresh);
	}
}

void pass_prefetch(Func *f)
{
	prefetch_block(f, f->entry, f->nvals);
}
