/*
 * passes/fuse.c: pass_fuse keeps element-wise work in its producer's layout.
 *
 * Guarantee afterwards: element-wise chains, broadcasts and epilogues run in
 * their producer's layout, with no tile written to shared or local memory
 * unless a reduction or a real layout change needs it.  Every
 * CONVERT_LAYOUT left changes the layout (source and target differ), its
 * source is not itself a convert, and its source chain cannot be recomputed
 * in the target layout from scalars, values already in it, and at most one
 * smaller converted value: the chain reaches a load that may not be read
 * again (below), a dot, a reduction or a block argument of the same size,
 * or exceeds the budget below.
 *
 * How (Triton's RemoveLayoutConversions, backward rematerialisation): for
 * each convert in program order,
 *   - convert(convert(x)) reads x directly;
 *   - a convert to the layout its source already has is dropped;
 *   - a source chain made of arange, splat, const, element-wise ops,
 *     expand_dims, broadcast and trans, ending in scalars or in values
 *     already in the wanted layout, is cloned in the wanted layout (each
 *     clone's operands wanted in what the op's layout rule asks), the
 *     clones are placed before the convert, and the convert goes;
 *   - failing that, the same with one leaf of the chain converted instead,
 *     when the leaf has fewer bytes than the converted tile: the convert
 *     moves above widening casts and broadcasts (Triton's
 *     hoistConvertOnTopOfExtOrBroadcast), e.g. an f16 load widened to f32
 *     crosses shared memory as f16.  The leaf's convert is fused in turn.
 * A load counts as cheap, and is read again in the wanted layout, when its
 * tile has no more elements than the program has threads (so reading it in
 * any layout costs each thread little), nothing between it and the
 * convert, in the convert's block, writes memory, and the convert does not
 * feed a dot (dot operands go through shared memory, where the pipeliner
 * wants them): a GEMM epilogue's bias vector is read straight into the MMA
 * layout's columns instead of crossing shared memory.  When its address
 * cannot be recomputed, the load itself may be the converted leaf.
 * The originals stay for their other users; DCE removes the dead ones.
 * Then an add of a dot's product becomes the dot's accumulator
 * (fuse_dot_add).
 */
#include "compile.h"

enum { REMAT_BUDGET = 64 }; /* ops cloned for one convert at most */

typedef struct Clone {
	ValId from;
	int layout;
	ValId to;
} Clone;

typedef struct Leaf {
	ValId v;        /* 0: none yet */
	int layout;
} Leaf;

typedef struct Fuse {
	Func *f;
	Op *at;         /* the convert being removed: clones go before it */
	ValId leaf;     /* the value can_remat chose to convert, or 0 */
	Clone *memo;    /* clones made for this convert */
	int nmemo, capmemo;
	Op *leaf_cvt;   /* the convert made for the leaf, if any */
} Fuse;

static int lay(Func *f, ValId v)
{
	return val(f, v)->layout;
}

/* The convert's result is an operand of a dot later in its block. */
static bool feeds_dot(Op *cvt)
{
	for (Op *o = cvt->next; o; o = o->next)
		if (o->code == OP_DOT && (o->opnds[0] == cvt->res[0] || o->opnds[1] == cvt->res[0]))
			return true;
	return false;
}

/* d is a load that may be read again at `at` (see the head of the file). */
static bool cheap_load(Func *f, Op *d, Op *at)
{
	if (d->code != OP_LOAD || d->parent != at->parent ||
	    type_numel(vtype(f, d->res[0])) > (int64_t)f->num_warps * 32 || feeds_dot(at))
		return false;
	for (Op *o = d->next; o; o = o->next) {
		if (o == at)
			return true;
		if (ir_op_has_side_effect(o))
			return false;
	}
	return false;
}

static bool cheap_op(int code)
{
	return code == OP_ARANGE || code == OP_SPLAT || code == OP_CONST || code == OP_EXPAND_DIMS ||
	       code == OP_BROADCAST || code == OP_TRANS || code == OP_CONVERT_LAYOUT ||
	       (op_has(code, F_ELTWISE) && op_has(code, F_PURE));
}

/* The layout operand i of a cheap op must have for the op to produce layout L. */
static int operand_layout(Func *f, Op *op, int i, int L)
{
	ValId v = op->opnds[i];
	Layout l;
	if (vtype(f, v).rank == 0)
		return -1;
	switch (op->code) {
	case OP_EXPAND_DIMS:
		l = layout_squeeze(&f->layouts[L], (int)op->iattr[0]);
		break;
	case OP_BROADCAST:
		l = layout_unbroadcast(&f->layouts[L], vtype(f, v).shape);
		break;
	case OP_TRANS:
		l = layout_trans(&f->layouts[L]);
		break;
	default:
		return L; /* element-wise, convert */
	}
	return layout_add(f, &l);
}

/*
 * Can v be produced in layout L from scalars, values already in L and the
 * one leaf (a value converted to a layout), within *budget cloned ops?
 * With leaf NULL no value may be converted; else the first value that is
 * not cheap becomes the leaf.
 */
static bool can_remat(Func *f, Op *at, ValId v, int L, int *budget, Leaf *leaf)
{
	if (vtype(f, v).rank == 0 || lay(f, v) == L)
		return true;
	Op *d = val(f, v)->def;
	if (d && d->nres == 1 && (cheap_op(d->code) || cheap_load(f, d, at))) {
		/* a load is read again only with its whole address recomputed, no
		 * leaf under it: else the load itself may be the leaf */
		bool load = d->code == OP_LOAD;
		int b0 = *budget;
		bool ok = --*budget >= 0;
		for (int i = 0; ok && i < d->nopnds; i++)
			ok = can_remat(f, at, d->opnds[i], operand_layout(f, d, i, L), budget, load ? NULL : leaf);
		if (ok || !load)
			return ok;
		*budget = b0;
	}
	if (!leaf || (leaf->v && (leaf->v != v || leaf->layout != L)))
		return false;
	leaf->v = v;
	leaf->layout = L;
	return true;
}

static ValId memo_add(Fuse *z, ValId from, int L, ValId to)
{
	if (z->nmemo >= z->capmemo)
		z->memo = arena_grow(z->f->arena, z->memo, &z->capmemo, z->nmemo + 1, sizeof(Clone));
	z->memo[z->nmemo++] = (Clone){from, L, to};
	return to;
}

static Op *new_before(Fuse *z, int code, ValId *ops, int n, ValId like, int L, Loc loc)
{
	Func *f = z->f;
	Type t = vtype(f, like);
	Op *c = ir_new_op(f, code, ops, n, &t, 1, loc);
	ir_insert_before(z->at, c);
	val(f, c->res[0])->layout = L;
	val(f, c->res[0])->name = val(f, like)->name;
	return c;
}

static ValId remat(Fuse *z, ValId v, int L)
{
	Func *f = z->f;
	if (vtype(f, v).rank == 0 || lay(f, v) == L)
		return v;
	for (int i = 0; i < z->nmemo; i++)
		if (z->memo[i].from == v && z->memo[i].layout == L)
			return z->memo[i].to;
	Op *d = val(f, v)->def;
	if (!d || d->nres != 1 || v == z->leaf || !(cheap_op(d->code) || cheap_load(f, d, z->at))) {
		z->leaf_cvt = new_before(z, OP_CONVERT_LAYOUT, &v, 1, v, L, z->at->loc);
		return memo_add(z, v, L, z->leaf_cvt->res[0]);
	}
	if (d->code == OP_CONVERT_LAYOUT)
		return remat(z, d->opnds[0], L);
	ValId ops[8];
	if (d->nopnds > 8)
		die("rematerialising %s with %d operands", op_info[d->code].text, d->nopnds);
	for (int i = 0; i < d->nopnds; i++)
		ops[i] = remat(z, d->opnds[i], operand_layout(f, d, i, L));
	Op *c = new_before(z, d->code, ops, d->nopnds, v, L, d->loc);
	c->iattr[0] = d->iattr[0];
	c->iattr[1] = d->iattr[1];
	c->fattr = d->fattr;
	return memo_add(z, v, L, c->res[0]);
}

static int64_t tile_bytes(Func *f, ValId v)
{
	Type t = vtype(f, v);
	return type_numel(t) * elem_bytes(t.elem);
}

static void fuse_convert(Func *f, Op *cvt)
{
	int L = lay(f, cvt->res[0]);
	Op *src;
	while ((src = val(f, cvt->opnds[0])->def) && src->code == OP_CONVERT_LAYOUT)
		cvt->opnds[0] = src->opnds[0];
	ValId x = cvt->opnds[0];
	if (lay(f, x) == L) {
		ir_replace_uses(f, cvt->res[0], x);
		ir_remove(cvt);
		return;
	}
	int budget = REMAT_BUDGET;
	Leaf leaf = {0, -1};
	if (!can_remat(f, cvt, x, L, &budget, NULL)) {
		budget = REMAT_BUDGET;
		if (!can_remat(f, cvt, x, L, &budget, &leaf) || tile_bytes(f, leaf.v) >= tile_bytes(f, x))
			return;
	}
	Fuse z = {.f = f, .at = cvt, .leaf = leaf.v};
	ValId y = remat(&z, x, L);
	ir_replace_uses(f, cvt->res[0], y);
	ir_remove(cvt);
	if (z.leaf_cvt)
		fuse_convert(f, z.leaf_cvt);
}

/*
 * c + dot(a, b) (the dot's accumulator zero, its product used only there)
 * is dot(a, b, c): the tensor cores add c as they accumulate, instead of a
 * second pass over the tile (Triton's CombineDotAdd; a float sum may round
 * differently, as the order of a dot's sum is unspecified anyway).  The
 * dot moves down to the add, where c exists.  `acc = acc * alpha +
 * dot(p, v)` in attention is one wgmma into the rescaled accumulator.
 */
static void fuse_dot_add(Func *f, Op *add)
{
	for (int k = 0; k < 2; k++) {
		ValId c = add->opnds[1 - k];
		Op *dot = val(f, add->opnds[k])->def;
		if (!dot || dot->code != OP_DOT || dot->parent != add->parent || val(f, dot->res[0])->nuses != 1 ||
		    !ir_is_zero(f, dot->opnds[2]) || !type_eq(vtype(f, c), vtype(f, dot->res[0])) ||
		    val(f, c)->layout != val(f, dot->res[0])->layout)
			continue;
		ir_remove(dot);
		ir_insert_before(add, dot);
		dot->opnds[2] = c;
		val(f, dot->res[0])->nuses = val(f, add->res[0])->nuses; /* the add's readers are the dot's now */
		ir_replace_uses(f, add->res[0], dot->res[0]);
		ir_remove(add);
		return;
	}
}

void pass_fuse(Func *f)
{
	int n;
	Op **cvts = ir_collect(f, OP_CONVERT_LAYOUT, &n);
	for (int i = 0; i < n; i++)
		fuse_convert(f, cvts[i]);
	ir_fill_uses(f);
	Op **adds = ir_collect(f, OP_ADD, &n);
	for (int i = 0; i < n; i++)
		if (vtype(f, adds[i]->res[0]).rank == 2)
			fuse_dot_add(f, adds[i]);
	ir_fill_uses(f);
}
