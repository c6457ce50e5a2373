/*
 * canon.c: canonicalisation, algebraic simplifications that never change
 * a result bit.
 *
 * Guarantees afterwards (to a fixed point):
 *   - commutative ops and cmp have a constant operand, if any, on the right
 *     (cmp mirrors its predicate: 0 < x becomes x > 0);
 *   - x+0, x-0, x*1, x/1, x|0, x^0, x<<0, x>>0 are x (the float forms only
 *     where IEEE says so: x-0.0, x+(-0.0), x*1.0, x/1.0);
 *   - x*0 and x&0 are 0, x-x and x^x are 0, for integers;
 *   - x&x, x|x, max(x,x), min(x,x), select(c,a,a) are x, a;
 *   - neg(neg x), not(not x), and casts to the operand's own type are x;
 *   - cmp x, x on integers is a constant;
 *   - broadcast, expand_dims and trans of a splat are one splat of the
 *     result type (so expand_dims + broadcast of a splat is a splat);
 *   - x & ~0 is x for integers (x & true for masks);
 *   - a load, store or atomic whose mask is all true has no mask (and
 *     a load no `other`);
 *   - a loop-carried value the body yields unchanged is its initial value.
 * Constant operands are a scalar const or a splat of one (fold.c folds
 * ops whose operands are all constants).  Ops made dead are left to DCE.
 * It is meant to run before the layout pass; after it, a value is only
 * replaced by one of the same layout, and no new constants are made.
 */
#include "ir.h"
#include "compile.h"

#include <math.h>

typedef struct Canon {
	bool changed;
	Forward fw;  /* replaced results, applied as the walk reaches their uses */
} Canon;

static Op *const_op(Func *f, ValId v)
{
	Op *d = f->vals[v].def;
	if (d && d->code == OP_SPLAT)
		d = f->vals[d->opnds[0]].def;
	return d && d->code == OP_CONST ? d : NULL;
}

/* Is v the constant x? Integers compare exactly; floats by value and sign. */
static bool is_const(Func *f, ValId v, double x)
{
	Op *c = const_op(f, v);
	ElemKind e = vtype(f, v).elem;
	if (!c || e == TY_PTR)
		return false;
	if (elem_is_float(e) || elem_is_f8(e))
		return c->fattr == x && signbit(c->fattr) == signbit(x);
	return (double)c->iattr[0] == x;
}

static bool is_int(Func *f, ValId v)
{
	return elem_is_int(vtype(f, v).elem);
}

/* Is v an integer constant with every bit of its width set (true, for i1)? */
static bool all_ones(Func *f, ValId v)
{
	Op *c = const_op(f, v);
	int bits = elem_bits(vtype(f, v).elem);
	if (!c || !is_int(f, v) || bits > 64)
		return false;
	uint64_t m = bits == 64 ? ~0ull : (1ull << bits) - 1;
	return ((uint64_t)c->iattr[0] & m) == m;
}

/* load p, true[, other] -> load p; store p, x, true -> store p, x (atomics the same). */
static bool drop_true_mask(Func *f, Op *op)
{
	int at = ir_mask_index(op->code);
	if (at < 0 || op->nopnds <= at || !all_ones(f, op->opnds[at]))
		return false;
	op->nopnds = at;
	return true;
}

static void swap(Op *op)
{
	ValId t = op->opnds[0];
	op->opnds[0] = op->opnds[1];
	op->opnds[1] = t;
}

static const CmpPred mirror[] = {CMP_EQ, CMP_NE, CMP_GT, CMP_GE, CMP_LT, CMP_LE};

/* Constants to the right. */
static bool reorder(Func *f, Op *op)
{
	bool commut = op_has(op->code, F_COMMUT) || op->code == OP_CMP;
	if (!commut || op->nopnds != 2 || !const_op(f, op->opnds[0]) || const_op(f, op->opnds[1]))
		return false;
	swap(op);
	if (op->code == OP_CMP)
		op->iattr[0] = mirror[op->iattr[0]];
	return true;
}

static ValId inner(Func *f, ValId v, Opcode code)
{
	Op *d = f->vals[v].def;
	return d && d->code == code ? d->opnds[0] : 0;
}

/* join(split(x) index=0, split(x) index=1) is x. */
static ValId rejoined(Func *f, Op *op)
{
	Op *a = f->vals[op->opnds[0]].def, *b = f->vals[op->opnds[1]].def;
	if (!a || !b || a->code != OP_SPLIT || b->code != OP_SPLIT || a->opnds[0] != b->opnds[0])
		return 0;
	return a->iattr[0] == 0 && b->iattr[0] == 1 ? a->opnds[0] : 0;
}

/* The existing value op simplifies to, or 0. */
static ValId identity(Func *f, Op *op)
{
	ValId a = op->opnds[0], b = op->nopnds > 1 ? op->opnds[1] : 0;
	bool in = is_int(f, a);
	switch (op->code) {
	case OP_ADD: return (in && is_const(f, b, 0)) || (!in && is_const(f, b, -0.0)) ? a : 0;
	case OP_SUB: return is_const(f, b, 0) ? a : 0;
	case OP_MUL:
	case OP_DIV: return is_const(f, b, 1) ? a : 0;
	case OP_XOR:
	case OP_SHL:
	case OP_SHR: return in && is_const(f, b, 0) ? a : 0;
	case OP_OR: return a == b || (in && is_const(f, b, 0)) ? a : 0;
	case OP_AND: return a == b || (in && all_ones(f, b)) ? a : 0;
	case OP_MAX:
	case OP_MIN: return a == b ? a : 0;
	case OP_SELECT: return op->opnds[1] == op->opnds[2] ? op->opnds[1] : 0;
	case OP_CAST:
	case OP_BITCAST:
	case OP_BROADCAST:
	case OP_RESHAPE: return type_eq(vtype(f, a), vtype(f, op->res[0])) ? a : 0;
	case OP_JOIN: return rejoined(f, op);
	case OP_NEG: return inner(f, a, OP_NEG);
	case OP_NOT: return inner(f, a, OP_NOT);
	default: return 0;
	}
}

static bool cmp_self(CmpPred p)
{
	return p == CMP_EQ || p == CMP_LE || p == CMP_GE;
}

/* Integer ops whose result is a constant whatever x is: x*0, x&0, x-x, x^x, cmp x, x. */
static bool constant_result(Func *f, Op *op, int64_t *v)
{
	if (op->nopnds != 2 || !is_int(f, op->opnds[0]))
		return false;
	ValId a = op->opnds[0], b = op->opnds[1];
	*v = 0;
	switch (op->code) {
	case OP_MUL:
	case OP_AND: return is_const(f, b, 0);
	case OP_SUB:
	case OP_XOR: return a == b;
	case OP_CMP: *v = cmp_self((CmpPred)op->iattr[0]); return a == b;
	default: return false;
	}
}

static void replace_by_const(Func *f, Forward *w, Op *op, int64_t v)
{
	Builder b = {f, op->parent, op, op->loc};
	Type t = vtype(f, op->res[0]);
	ValId c = b_const_int(&b, (ElemKind)t.elem, v);
	if (t.rank > 0)
		c = b_op1(&b, OP_SPLAT, t, &c, 1);
	fw_set(f, w, op->res[0], c);
	ir_remove(op);
}

/* reshape(reshape(x)) and bitcast(bitcast(x)) read x. */
static bool skip_inner(Func *f, Op *op)
{
	ValId s = op->code == OP_RESHAPE || op->code == OP_BITCAST ? inner(f, op->opnds[0], op->code) : 0;
	if (!s)
		return false;
	op->opnds[0] = s;
	return true;
}

/* broadcast / expand_dims / trans / reshape of splat(s) becomes splat(s) in place. */
static bool reshape_splat(Func *f, Op *op)
{
	if (op->code != OP_BROADCAST && op->code != OP_EXPAND_DIMS && op->code != OP_TRANS && op->code != OP_RESHAPE &&
	    op->code != OP_PERMUTE)
		return false;
	ValId s = inner(f, op->opnds[0], OP_SPLAT);
	if (!s)
		return false;
	op->code = OP_SPLAT;
	op->opnds[0] = s;
	op->iattr[0] = op->iattr[1] = 0;
	return true;
}

/*
 * A value a loop carries and yields as it got it is its initial value
 * throughout: a block pointer's base, shape and strides, or a variable
 * only some iterations assign to itself.  Its uses in the body and after
 * the loop read the initial value; DCE then drops the carried value from
 * a `for` (a do-while keeps it, read by nothing).
 */
static bool invariant_carried(Func *f, Forward *w, Op *op)
{
	if ((op->code != OP_FOR && op->code != OP_DO_WHILE) || op->nblocks != 1)
		return false;
	Block *body = op->blocks[0];
	Op *y = body->last;
	int arg0 = op->code == OP_FOR ? 1 : 0, init0 = op->code == OP_FOR ? 3 : 0;
	bool changed = false;
	if (!y || y->code != OP_YIELD || y->nopnds < op->nres)
		return false;
	for (int i = 0; i < op->nres; i++) {
		ValId arg = body->args[arg0 + i], init = op->opnds[init0 + i];
		int lay = f->vals[init].layout;
		if (y->opnds[i] != arg || f->vals[arg].layout != lay || f->vals[op->res[i]].layout != lay)
			continue;
		fw_set(f, w, arg, init); /* the walk reaches the body's uses next, then those after the loop */
		fw_set(f, w, op->res[i], init);
		changed = true;
	}
	return changed;
}

static void canon_op(Func *f, Op *op, void *ctx)
{
	Canon *c = ctx;
	int64_t k;
	fw_opnds(&c->fw, op);
	c->changed |= drop_true_mask(f, op);
	c->changed |= invariant_carried(f, &c->fw, op);
	if (op->nres != 1 || op->nblocks || !op_has(op->code, F_PURE))
		return;
	c->changed |= reorder(f, op);
	c->changed |= reshape_splat(f, op);
	c->changed |= skip_inner(f, op);
	ValId x = identity(f, op);
	if (x && f->vals[x].layout != f->vals[op->res[0]].layout)
		x = 0; /* after the layout pass, the replacement must sit in the same layout */
	if (x) {
		fw_set(f, &c->fw, op->res[0], x);
		ir_remove(op);
		c->changed = true;
	} else if (f->vals[op->res[0]].layout < 0 && constant_result(f, op, &k)) {
		replace_by_const(f, &c->fw, op, k);
		c->changed = true;
	}
}

void pass_canon(Func *f)
{
	Canon c = {0};
	do {
		c.changed = false;
		ir_walk(f, canon_op, &c);
		fw_apply(f, &c.fw);
	} while (c.changed);
}
