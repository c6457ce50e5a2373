/*
 * strength.c: pass_strength, the addresses of the tiles a loop's dots read
 * stepped from one iteration to the next instead of computed anew.
 *
 * Guarantees afterwards: in every `for`, a load directly in the body whose
 * tile reaches a dot (through casts and transposes) and whose pointer tile
 * P moves by one scalar d (in elements) every iteration reads a new
 * loop-carried pointer tile Q instead: Q starts as P computed for the
 * first iteration, before the loop, and the body yields Q + d.  Its mask
 * is left as it was.
 *
 * P moves by a scalar when it is made, by splat, broadcast, expand_dims,
 * add, sub, ptradd, widening integer casts and products with a scalar (or
 * a splat of one) from outside the loop, of values from outside the loop,
 * the induction variable (it moves by the step) and carried scalars the
 * body yields as x + c or x - c with c from outside the loop.  That is how
 * block pointers come out of the front end (base + (offset + arange) *
 * stride, the offset advanced each iteration), and how `k + arange(0, BK)`
 * addresses are written.  d is computed once, before the loop, and so is
 * the first pointer tile, from the body's ops cloned: a slice with an
 * integer division or an op that takes shared memory, which LICM would
 * not hoist either, is left alone.  Loads of one pointer tile share one
 * carried tile, and a loop steps at most MAX_STEPPED of them.  The steps are exact as long as the integer arithmetic
 * does not overflow, which the language leaves undefined on the GPU (the
 * interpreter's i32 indices wrap where the stepped pointer does not).
 *
 * Why: a pointer tile computed anew takes integer multiplies and adds per
 * 16-byte copy in the loop that issues the tensor cores' work, and on the
 * H100 those wait on dispatch while a wgmma runs (bench/NOTES-matmul.md:
 * the block-pointer matmul at 0.80x the carried-pointer one until this
 * pass).  LLVM's loop strength reduction does not do it for us: the i32
 * index arithmetic is sign-extended per element.
 */
#include "ir.h"
#include "compile.h"

/* What is known of a value's change from one iteration to the next. */
enum { UNSEEN, FIXED, MOVES, OTHER };

/* Pointer tiles stepped in one loop, at most: each costs registers across the loop (real kernels have 2 to 4). */
enum { MAX_STEPPED = 16 };

typedef struct Strength {
	Func *f;
	Op *loop;
	Block *body;
	Builder pre;       /* before the loop: where the steps are computed */
	uint8_t *state;    /* per ValId of the loop's start */
	ValId *step;       /* per ValId in state MOVES: its change per iteration, a scalar before the loop */
	uint8_t *to_dot;   /* per ValId: reaches a dot of the body through casts and transposes */
	ValId *map;        /* per ValId of the body: its value in the first iteration (first_value) */
	ValId *stepped;    /* per pointer tile: the carried tile that replaced it */
	int nvals;
} Strength;

/* The scalar a value from outside the loop is a splat of (through broadcasts and expand_dims), or 0. */
static ValId scalar_of(Func *f, ValId v)
{
	for (;;) {
		if (vtype(f, v).rank == 0)
			return v;
		Op *d = val(f, v)->def;
		if (!d || (d->code != OP_SPLAT && d->code != OP_BROADCAST && d->code != OP_EXPAND_DIMS))
			return 0;
		v = d->opnds[0];
	}
}

/* x converted to the integer type e before the loop (steps of i32 and i64 meet in a ptradd's offset). */
static ValId as_elem(Strength *s, ValId x, ElemKind e)
{
	if (vtype(s->f, x).elem == e)
		return x;
	return b_op1(&s->pre, OP_CAST, type_scalar(e), &x, 1);
}

static ValId step_op(Strength *s, Opcode code, ValId x, ValId y)
{
	ElemKind e = elem_bits(vtype(s->f, x).elem) >= elem_bits(vtype(s->f, y).elem) ? vtype(s->f, x).elem
										  : vtype(s->f, y).elem;
	return b_op2(&s->pre, code, type_scalar(e), as_elem(s, x, e), as_elem(s, y, e));
}

static int classify(Strength *s, ValId v);

/* A carried scalar the body yields as itself plus or minus a value from outside the loop. */
static int carried(Strength *s, ValId v)
{
	Func *f = s->f;
	Op *y = s->body->last;
	int i = val(f, v)->index - 1;
	if (i < 0 || i >= y->nopnds || vtype(f, v).rank != 0 || !elem_is_int(vtype(f, v).elem))
		return OTHER;
	Op *d = val(f, y->opnds[i])->def;
	if (!d || d->parent != s->body || (d->code != OP_ADD && d->code != OP_SUB))
		return OTHER;
	int k = d->opnds[0] == v ? 1 : d->code == OP_ADD && d->opnds[1] == v ? 0 : -1;
	if (k < 0 || ir_inside(f, d->opnds[k], s->loop))
		return OTHER;
	ValId c = d->opnds[k];
	s->step[v] = d->code == OP_SUB ? b_op1(&s->pre, OP_NEG, vtype(f, c), &c, 1) : c;
	return MOVES;
}

static int classify_op(Strength *s, Op *op)
{
	Func *f = s->f;
	int st[2] = {FIXED, FIXED};
	if (op->parent != s->body || op->nres != 1 || op->nblocks || !op_has(op->code, F_PURE) || op->code == OP_LOAD)
		return OTHER;
	bool moves = false;
	for (int i = 0; i < op->nopnds; i++) {
		int c = classify(s, op->opnds[i]);
		if (c == OTHER)
			return OTHER;
		if (i < 2)
			st[i] = c;
		moves |= c == MOVES;
	}
	if (!moves) /* cloned before the loop for the first value: only what LICM would hoist */
		return op->code == OP_DIV || op->code == OP_REM || op_has(op->code, F_SMEM) ? OTHER : FIXED;
	ValId r = op->res[0], a = op->opnds[0], b = op->nopnds > 1 ? op->opnds[1] : 0;
	switch (op->code) {
	case OP_SPLAT:
	case OP_BROADCAST:
	case OP_EXPAND_DIMS:
		s->step[r] = s->step[a];
		return MOVES;
	case OP_CAST: {
		ElemKind from = vtype(f, a).elem, to = vtype(f, r).elem;
		if (!elem_is_int(from) || !elem_is_int(to) || from == TY_I1 || elem_bits(to) < elem_bits(from))
			return OTHER;
		s->step[r] = as_elem(s, s->step[a], to);
		return MOVES;
	}
	case OP_ADD:
	case OP_PTRADD:
		s->step[r] = st[0] == MOVES && st[1] == MOVES ? step_op(s, OP_ADD, s->step[a], s->step[b])
							       : s->step[st[0] == MOVES ? a : b];
		return MOVES;
	case OP_SUB:
		if (st[0] == MOVES && st[1] == MOVES)
			s->step[r] = step_op(s, OP_SUB, s->step[a], s->step[b]);
		else if (st[0] == MOVES)
			s->step[r] = s->step[a];
		else
			s->step[r] = b_op1(&s->pre, OP_NEG, vtype(f, s->step[b]), &s->step[b], 1);
		return MOVES;
	case OP_MUL: {
		ValId k = scalar_of(f, st[0] == MOVES ? b : a);
		if ((st[0] == MOVES && st[1] == MOVES) || !k || ir_inside(f, k, s->loop))
			return OTHER;
		s->step[r] = step_op(s, OP_MUL, s->step[st[0] == MOVES ? a : b], k);
		return MOVES;
	}
	default:
		return OTHER;
	}
}

static int classify(Strength *s, ValId v)
{
	Func *f = s->f;
	if (v >= s->nvals)
		return OTHER;
	if (s->state[v] != UNSEEN)
		return s->state[v];
	int r;
	if (!ir_inside(f, v, s->loop))
		r = FIXED;
	else if (v == s->body->args[0])
		s->step[v] = s->loop->opnds[2], r = MOVES;
	else if (val(f, v)->block == s->body && !val(f, v)->def)
		r = carried(s, v);
	else
		r = val(f, v)->def ? classify_op(s, val(f, v)->def) : OTHER;
	s->state[v] = (uint8_t)r;
	return r;
}

/* Marks the values that reach a dot of the body through casts and transposes (one backward walk). */
static void mark_dot_inputs(Strength *s)
{
	for (Op *op = s->body->last; op; op = op->prev) {
		bool in = op->code == OP_DOT || ((op->code == OP_CAST || op->code == OP_TRANS) && s->to_dot[op->res[0]]);
		for (int i = 0; in && i < op->nopnds && (op->code != OP_DOT || i < 2); i++)
			s->to_dot[op->opnds[i]] = 1;
	}
}

/*
 * v for the first iteration, before the loop: its ops in the body cloned
 * (operands first) with iv = lo and carried = init.  The clones serve
 * every load of the loop.
 */
static ValId first_value(Strength *s, ValId v)
{
	if (v < s->nvals && s->map[v])
		return s->map[v];
	Op *d = val(s->f, v)->def;
	if (!d || d->parent != s->body)
		return v;
	for (int i = 0; i < d->nopnds; i++)
		first_value(s, d->opnds[i]);
	ir_insert_before(s->loop, ir_clone(s->f, d, s->map, s->nvals));
	return s->map[v];
}

static void strength_loop(Func *f, Op *loop)
{
	Block *body = loop->blocks[0];
	Op *y = body->last;
	if (!y || y->code != OP_YIELD)
		return;
	Strength s = {.f = f, .loop = loop, .body = body, .pre = {f, NULL, loop, loop->loc}, .nvals = f->nvals};
	int nstepped = 0;
	s.to_dot = NEWN(f->arena, uint8_t, s.nvals);
	mark_dot_inputs(&s);
	for (Op *op = body->first; op; op = op->next) {
		if (op->code != OP_LOAD || op->res[0] >= s.nvals || !s.to_dot[op->res[0]] ||
		    vtype(f, op->opnds[0]).rank == 0)
			continue;
		if (!s.state) { /* a loop with such a load: the rest of the tables */
			s.state = NEWN(f->arena, uint8_t, s.nvals);
			s.step = NEWN(f->arena, ValId, s.nvals);
			s.map = NEWN(f->arena, ValId, s.nvals);
			s.stepped = NEWN(f->arena, ValId, s.nvals);
			s.map[body->args[0]] = loop->opnds[0];
			for (int i = 1; i < body->nargs; i++)
				s.map[body->args[i]] = loop->opnds[2 + i];
		}
		ValId p = op->opnds[0];
		if (s.stepped[p]) { /* another load of the same tile: the same carried pointers */
			op->opnds[0] = s.stepped[p];
			continue;
		}
		if (nstepped == MAX_STEPPED || classify(&s, p) != MOVES || !val(f, p)->def)
			continue;
		nstepped++;
		ValId q = ir_add_iter(f, loop, first_value(&s, p));
		s.stepped[p] = q;
		Type t = vtype(f, p), dt = type_with_elem(t, vtype(f, s.step[p]).elem);
		dt.pointee = TY_VOID;
		ValId d = b_op1(&s.pre, OP_SPLAT, dt, &s.step[p], 1);
		Builder in = {f, NULL, y, op->loc};
		y->opnds[y->nopnds - 1] = b_op2(&in, OP_PTRADD, t, q, d);
		const char *ln = val(f, op->res[0])->name; /* the load's: `ta` steps `ta.ptr` */
		if (ln)
			val(f, q)->name = val(f, loop->res[loop->nres - 1])->name = arena_printf(f->arena, "%s.ptr", ln);
		op->opnds[0] = q;
	}
}

static void strength_block(Func *f, Block *b)
{
	for (Op *op = b->first; op; op = op->next) {
		for (int i = 0; i < op->nblocks; i++)
			if (op->blocks[i])
				strength_block(f, op->blocks[i]);
		if (op->code == OP_FOR && op->nblocks == 1)
			strength_loop(f, op);
	}
}

void pass_strength(Func *f)
{
	strength_block(f, f->entry);
}
