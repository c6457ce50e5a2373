/*
 * passes/layout.c: pass_layout gives every tensor value a distributed layout
 * (scalars keep -1) and inserts CONVERT_LAYOUT where a value is needed in
 * a layout other than its own.
 *
 * Anchors fix layouts where the hardware cares: a load, store or atomic
 * wants the blocked default for its shape with 16-byte vectors of its
 * element along the last dim (or one run for all the accesses of a shape
 * where none can move more: access_vecs; a small 1-D load wants none:
 * small_load); a dot computes its accumulator in the blocked default and
 * reads its operands in dot_a/dot_b of it, or, for inputs that fit
 * mma.sync (layout_mma_kind: f16/bf16, f32 with allow_tf32, i8), in the
 * tensor-core layouts layout_mma_acc and layout_mma_operand.  Chained dots
 * (one's result reaches another's operand, in one block, through pure ops:
 * attention's Q K^T, softmax, P V) take layout_mma_acc_rows, warps along
 * M, so P reaches the second dot without crossing shared memory; so does a
 * dot for wgmma (sm_90a: layout_wgmma_ok, both operands loads of its loop),
 * whose warpgroups each compute 64 rows.  The rest follows
 * from three sweeps, in the spirit of Triton's Coalesce and
 * RemoveLayoutConversions but done as dataflow instead of rewriting:
 *
 *   1. forward, to a fixed point: anchors, and what a definition implies
 *      (a reduction slices its source, expand_dims, trans, reshape, join
 *      and split map theirs (join's result is its own: the new axis in
 *      register bit 0; split converts a source that lacks that), an
 *      element-wise op takes its first operand's, a loop or if result takes
 *      its yield's);
 *   2. backward, to a fixed point: a value with no layout takes the one its
 *      first consumer in reverse program order wants (element-wise: the
 *      same; broadcast: the result's minus the stretched dims; ...).  A
 *      reduction's result is never set this way: it is its source's slice;
 *   3. forward: what is still unknown gets what its definition implies, or
 *      the blocked default; every operand whose layout differs from what
 *      its user needs is replaced by a CONVERT_LAYOUT, one per value and
 *      layout, placed right after the value's definition (so a loop
 *      invariant is converted once, outside the loop).
 */
#include "compile.h"

typedef struct Cvt {
	ValId from;
	int layout;
	ValId to;
} Cvt;

enum { MAX_CHAINED = 16, CHAIN_BUDGET = 64 };

/* Among the loads and stores of one shape: the widest access the axis facts allow, the shortest default run. */
typedef struct ShapeVec {
	Type t;
	int widest, least;
	int stores; /* the widest store, 0 if none */
} ShapeVec;

typedef struct LayoutPass {
	Func *f;
	ShapeVec *vecs; /* access_vecs */
	int nvecs, capvecs;
	Op **operands;  /* loads behind dot operands, which access_vecs leaves out */
	int noperands, capoperands;
	bool changed;
	Cvt *cvts; /* converts made so far, reused for the same (value, layout) */
	int ncvts, capcvts;
	Op *chained[MAX_CHAINED]; /* dots in a chain (see the head of the file) */
	int nchained;
	bool settled;             /* sweep 3: every load takes its anchor */
} LayoutPass;

static bool is_tensor(Func *f, ValId v)
{
	return v > 0 && vtype(f, v).rank > 0;
}

static int lay(Func *f, ValId v)
{
	return val(f, v)->layout;
}

static Op *yield_of(Block *b)
{
	return b && b->last && b->last->code == OP_YIELD ? b->last : NULL;
}

/* 16 bytes of e per thread along the last dim, at most the whole dim. */
static int default_vec(Type t, ElemKind e)
{
	int v = 16 / elem_bytes(e);
	int last = t.shape[t.rank - 1];
	if (v > last)
		v = last;
	return v < 1 ? 1 : v;
}

/*
 * What a thread may hold: MAX_PER_THREAD elements of one tile, and for a dot
 * on CUDA cores (FMA) 2^MAX_FMA_BITS elements of an operand's register view,
 * one multiply-add each, all unrolled.  Past them the code lives in local
 * memory and LLVM takes seconds to minutes (layernorm with 4096 elements a
 * thread: over two minutes; an i8 128x128x64 dot on one warp: 15 s).
 */
enum { MAX_PER_THREAD = 1024, MAX_FMA_BITS = 13 };

static void check_per_thread(Func *f, Type t, Loc loc)
{
	if (type_numel(t) / (32 * (int64_t)f->num_warps) > MAX_PER_THREAD)
		error_at(f->diag, loc, "a tile of %lld elements is too large for %d warps (at most %d per thread)",
		         (long long)type_numel(t), f->num_warps, MAX_PER_THREAD);
}

static int blocked_vec(LayoutPass *p, Type t, int vec, Loc loc)
{
	Func *f = p->f;
	check_per_thread(f, t, loc);
	Layout l = layout_blocked(t.rank, t.shape, f->num_warps, vec);
	return layout_add(f, &l);
}

static int blocked(LayoutPass *p, Type t, ElemKind e, Loc loc)
{
	return blocked_vec(p, t, default_vec(t, e), loc);
}

static ShapeVec *shape_vec(LayoutPass *p, Type t)
{
	for (int i = 0; i < p->nvecs; i++)
		if (type_same_shape(p->vecs[i].t, t))
			return &p->vecs[i];
	if (p->nvecs >= p->capvecs)
		p->vecs = arena_grow(p->f->arena, p->vecs, &p->capvecs, p->nvecs + 1, sizeof(ShapeVec));
	p->vecs[p->nvecs] = (ShapeVec){t, 1, 16, 0};
	return &p->vecs[p->nvecs++];
}

static bool is_operand(LayoutPass *p, const Op *op)
{
	for (int i = 0; i < p->noperands; i++)
		if (p->operands[i] == op)
			return true;
	return false;
}

/* Records the loads that dot operands come from, through trans, casts and bitcasts. */
static void find_operands(LayoutPass *p, Block *b)
{
	Func *f = p->f;
	for (Op *op = b->first; op; op = op->next) {
		for (int i = 0; i < op->nblocks; i++)
			if (op->blocks[i])
				find_operands(p, op->blocks[i]);
		for (int k = 0; op->code == OP_DOT && k < 2; k++) {
			Op *d = val(f, op->opnds[k])->def;
			while (d && (d->code == OP_TRANS || d->code == OP_CAST || d->code == OP_BITCAST))
				d = val(f, d->opnds[0])->def;
			if (!d || d->code != OP_LOAD || is_operand(p, d))
				continue;
			if (p->noperands >= p->capoperands)
				p->operands = arena_grow(f->arena, p->operands, &p->capoperands, p->noperands + 1, sizeof(Op *));
			p->operands[p->noperands++] = d;
		}
	}
}

/*
 * For each shape of the tensor loads and stores, the widest access the axis
 * facts allow among them (an atomic counts its default) and the shortest
 * of their 16-byte default runs.  Where no access is wider than that
 * shortest run, all of them take one run, a layout in common: with a store
 * among them the widest store access itself (as Triton's Coalesce sizes a
 * store), since a store one element at a time from a run of k a thread
 * writes each 32-byte sector in k pieces, where consecutive lanes on
 * consecutive elements write it whole (quant.tile at a row length of 1000:
 * 2.8 times the L2 write sectors, 0.65 of Triton's GB/s); otherwise
 * (loads, which L1 gathers) the shortest default, which no access is
 * wider than.  Aligned, quant's f16 loads move 16 bytes, its i8 stores 16,
 * and both keep their own.  Left out, keeping their own: a load behind a
 * dot operand (it crosses shared memory to the operand's layout anyway,
 * and linear_i8's 128 x 128 i8 tiles one element at a time spill), and a
 * small load, which takes its users' layout.
 */
static bool small_load(Func *f, const Op *op);

static void access_vecs(LayoutPass *p, Block *b)
{
	Func *f = p->f;
	for (Op *op = b->first; op; op = op->next) {
		for (int i = 0; i < op->nblocks; i++)
			if (op->blocks[i])
				access_vecs(p, op->blocks[i]);
		int mi = ir_mask_index(op->code);
		if (mi < 0 || !is_tensor(f, op->opnds[0]) || is_operand(p, op) || small_load(f, op))
			continue;
		Type t = vtype(f, op->opnds[0]);
		int d = default_vec(t, t.pointee);
		ValId mask = op->nopnds > mi ? op->opnds[mi] : 0;
		int a = ir_is_atomic(op->code) ? d : axis_access_vec(f, op->opnds[0], mask, elem_bytes(t.pointee), d);
		ShapeVec *sv = shape_vec(p, t);
		if (a > sv->widest)
			sv->widest = a;
		if (d < sv->least)
			sv->least = d;
		if (op->code == OP_STORE && a > sv->stores)
			sv->stores = a;
	}
}

/* A memory op's blocked layout: its default run, or its shape's common one (access_vecs). */
static int blocked_access(LayoutPass *p, Op *op, Type t, Loc loc)
{
	if (is_operand(p, op))
		return blocked(p, t, t.pointee, loc);
	ShapeVec *sv = shape_vec(p, t);
	int d = default_vec(t, t.pointee), v = sv->widest > sv->least ? d : sv->stores ? sv->stores : sv->least;
	return blocked_vec(p, t, v < d ? v : d, loc);
}

/* Values that are not anchored or implied get the default of a 32-bit tile. */
static int fallback(LayoutPass *p, ValId v, Loc loc)
{
	return blocked(p, vtype(p->f, v), TY_I32, loc);
}

static bool is_chained(LayoutPass *p, Op *dot)
{
	for (int i = 0; i < p->nchained; i++)
		if (p->chained[i] == dot)
			return true;
	return false;
}

static void add_chained(LayoutPass *p, Op *dot)
{
	if (!is_chained(p, dot) && p->nchained < MAX_CHAINED)
		p->chained[p->nchained++] = dot;
}

/*
 * Marks chained every dot v comes from through pure ops of block b (at most
 * *budget ops looked at; attention's backward computes dS from two dots,
 * P and dP, before the third); true if there is one.
 */
static bool dots_behind(LayoutPass *p, ValId v, Block *b, int *budget)
{
	Op *d = val(p->f, v)->def;
	if (!d || d->parent != b || --*budget < 0)
		return false;
	if (d->code == OP_DOT) {
		add_chained(p, d);
		return true;
	}
	if (!op_has(d->code, F_PURE) || d->code == OP_LOAD || d->nblocks || d->nres != 1)
		return false;
	bool any = false;
	for (int i = 0; i < d->nopnds; i++)
		any |= dots_behind(p, d->opnds[i], b, budget);
	return any;
}

static void find_chains(LayoutPass *p, Block *b)
{
	for (Op *op = b->first; op; op = op->next) {
		for (int i = 0; i < op->nblocks; i++)
			if (op->blocks[i])
				find_chains(p, op->blocks[i]);
		if (op->code != OP_DOT)
			continue;
		for (int k = 0; k < 2; k++) {
			int budget = CHAIN_BUDGET;
			if (dots_behind(p, op->opnds[k], b, &budget))
				add_chained(p, op);
		}
	}
}

/*
 * Operand k of dot is a tile the pipeliner can stream through shared memory:
 * a load in the dot's loop body (for B also trans(load)) whose pointer runs
 * 16 bytes, 16-byte aligned, along its last dimension.
 */
static bool streamed(Func *f, const Op *dot, int k)
{
	Op *d = val(f, dot->opnds[k])->def;
	if (k == 1 && d && d->code == OP_TRANS && d->parent == dot->parent)
		d = val(f, d->opnds[0])->def;
	if (!d || d->code != OP_LOAD || d->parent != dot->parent)
		return false;
	Value *ptr = val(f, d->opnds[0]);
	return ptr->contig * elem_bytes(vtype(f, d->res[0]).elem) >= 16 && ptr->divis % 16 == 0;
}

/* A dot for wgmma: its shapes fit, and both operands will come from a pipelined ring. */
static bool wgmma_dot(LayoutPass *p, Op *dot)
{
	Func *f = p->f;
	Block *b = dot->parent;
	Op *bd = val(f, dot->opnds[1])->def;
	if (is_chained(p, dot) || !b->parent || b->parent->code != OP_FOR ||
	    !layout_wgmma_ok(f, dot, bd && bd->code == OP_TRANS))
		return false;
	return streamed(f, dot, 0) && streamed(f, dot, 1);
}

/*
 * A 1-D load of no more elements than the program has threads (a row's
 * log-sum-exp, a bias vector) is no anchor in sweeps 1 and 2: it takes the
 * layout its users want, and each thread reads the elements that layout
 * puts on it, mostly from cache, instead of a coalesced read that crosses
 * shared memory to reach them (Triton's RemoveLayoutConversions counts such
 * loads cheap to rematerialise).  In a loop that matters: the backward's
 * dK/dV loop reads the lse of each block of queries.  A 1-D tile is never
 * a dot operand, so no pipelined load loses its anchor.  fuse.c's re-read
 * of a small load would reach the same layout, but from right before the
 * convert, next to the use, where nothing hides its latency: dK/dV ran 7%
 * slower that way (bench/NOTES-attention.md).
 */
static bool small_load(Func *f, const Op *op)
{
	Type t = vtype(f, op->res[0]);
	return op->code == OP_LOAD && t.rank == 1 && type_numel(t) <= 32 * (int64_t)f->num_warps;
}

/* The layout an anchor op wants for its memory operands / its result, or -1. */
static int anchor(LayoutPass *p, Op *op)
{
	Func *f = p->f;
	if (op->code == OP_LOAD && !p->settled && small_load(f, op))
		return -1;
	if (ir_mask_index(op->code) >= 0) {
		Type t = vtype(f, op->opnds[0]);
		return t.rank ? blocked_access(p, op, t, op->loc) : -1;
	}
	if (op->code == OP_DOT) {
		Type t = vtype(f, op->res[0]);
		if (layout_mma_kind(f, op) != MMA_NONE) {
			check_per_thread(f, t, op->loc);
			bool rows = is_chained(p, op) || wgmma_dot(p, op);
			Layout l = rows ? layout_mma_acc_rows(t.shape[0], t.shape[1], f->num_warps)
			                             : layout_mma_acc(t.shape[0], t.shape[1], f->num_warps);
			return layout_add(f, &l);
		}
		return blocked(p, t, t.elem, op->loc);
	}
	return -1;
}

/* reduce and scan: k operands in one layout, k results in one (the first operand's, sliced for reduce) */
static bool is_combine(const Op *op)
{
	return op->code == OP_REDUCE || op->code == OP_SCAN;
}

/* Results whose layout only their definition decides. */
static bool owned(Func *f, ValId v)
{
	Op *d = val(f, v)->def;
	if (!d)
		return false;
	return (d->code == OP_LOAD && !small_load(f, d)) || ir_is_atomic(d->code) || d->code == OP_DOT ||
	       op_has(d->code, F_REDUCE) || d->code == OP_JOIN || is_combine(d);
}

static int dot_operand(LayoutPass *p, Op *op, int i, int R)
{
	Func *f = p->f;
	int K = vtype(f, op->opnds[0]).shape[1];
	Layout c = f->layouts[R];
	if (i == 2)
		return R;
	MmaKind kind = layout_mma_kind(f, op);
	int bits = kind ? layout_mma_operand_bits(kind, &c, K, i) : ilog2((uint64_t)K) + c.nreg;
	int most = kind ? LAYOUT_MAX_REG : MAX_FMA_BITS;
	if (bits > most)
		error_at(f->diag, op->loc, "dot of %dx%dx%d is too large for %d warps (operand %s: more than %d elements "
		         "per thread)", c.shape[0], c.shape[1], K, f->num_warps, i == 0 ? "A" : "B", 1 << most);
	if (kind) {
		Layout l = layout_mma_operand(kind, &c, K, i);
		return layout_add(f, &l);
	}
	Layout l = i == 0 ? layout_dot_a(&c, K) : layout_dot_b(&c, K);
	return layout_add(f, &l);
}

/* The layout op needs operand i in, given its result layout R; -1: no constraint. */
static int want(LayoutPass *p, Op *op, int i, int R)
{
	Func *f = p->f;
	ValId v = op->opnds[i];
	if (!is_tensor(f, v))
		return -1;
	/* a load's or atomic's operands share its result's layout (one given in
	 * IR text included); a store's follow the anchor */
	if ((op->code == OP_LOAD || ir_is_atomic(op->code)) && R >= 0)
		return R;
	if (ir_mask_index(op->code) >= 0)
		return anchor(p, op);
	if (is_combine(op))
		return i > 0 ? lay(f, op->opnds[0]) : -1;
	if (R < 0 || (op->code == OP_GATHER && i == 0))
		return -1; /* gather reads its source from shared memory, in any layout */
	if (op_has(op->code, F_ELTWISE) || op->code == OP_GATHER)
		return R;
	Layout l;
	switch (op->code) {
	case OP_CUMSUM:
	case OP_XORPERM:
		return R;
	case OP_DOT:
		return dot_operand(p, op, i, R);
	case OP_EXPAND_DIMS:
		l = layout_squeeze(&f->layouts[R], (int)op->iattr[0]);
		break;
	case OP_BROADCAST:
		l = layout_unbroadcast(&f->layouts[R], vtype(f, v).shape);
		break;
	case OP_TRANS:
		l = layout_trans(&f->layouts[R]);
		break;
	case OP_RESHAPE:
		l = layout_reshape(&f->layouts[R], vtype(f, v).rank, vtype(f, v).shape);
		break;
	case OP_PERMUTE:
		l = layout_permute(&f->layouts[R], permute_inverse(op->iattr[0], vtype(f, v).rank));
		break;
	case OP_JOIN:
		if (layout_split_reg(&f->layouts[R]) < 0)
			return -1;
		l = layout_split(&f->layouts[R]);
		break;
	case OP_SPLIT: {
		/* any layout with the last axis in registers whose split is R; else R joined */
		int S = lay(f, v);
		if (S >= 0 && layout_split_reg(&f->layouts[S]) >= 0) {
			l = layout_split(&f->layouts[S]);
			if (layout_eq(&l, &f->layouts[R]))
				return S;
		}
		l = layout_join(&f->layouts[R]);
		break;
	}
	default:
		return -1;
	}
	return layout_add(f, &l);
}

/* The layout op's definition implies for its single result (reduce's and scan's: for each), or -1. */
static int implied(LayoutPass *p, Op *op)
{
	Func *f = p->f;
	if (is_combine(op) && is_tensor(f, op->res[0]) && lay(f, op->opnds[0]) >= 0) {
		if (op->code == OP_SCAN)
			return lay(f, op->opnds[0]);
		Layout l = layout_slice(&f->layouts[lay(f, op->opnds[0])], (int)op->iattr[0]);
		return layout_add(f, &l);
	}
	if (op->nres != 1 || !is_tensor(f, op->res[0]))
		return -1;
	if (op->code == OP_LOAD || ir_is_atomic(op->code) || op->code == OP_DOT)
		return anchor(p, op);
	int s = op->nopnds > 0 && is_tensor(f, op->opnds[0]) ? lay(f, op->opnds[0]) : -1;
	Layout l;
	if (op_has(op->code, F_REDUCE) && s >= 0)
		l = layout_slice(&f->layouts[s], (int)op->iattr[0]);
	else if (op->code == OP_EXPAND_DIMS && s >= 0)
		l = layout_expand(&f->layouts[s], (int)op->iattr[0]);
	else if (op->code == OP_TRANS && s >= 0)
		l = layout_trans(&f->layouts[s]);
	else if (op->code == OP_PERMUTE && s >= 0)
		l = layout_permute(&f->layouts[s], op->iattr[0]);
	else if (op->code == OP_RESHAPE && s >= 0)
		l = layout_reshape(&f->layouts[s], vtype(f, op->res[0]).rank, vtype(f, op->res[0]).shape);
	else if (op->code == OP_JOIN && s >= 0)
		l = layout_join(&f->layouts[s]);
	else if (op->code == OP_SPLIT && s >= 0 && layout_split_reg(&f->layouts[s]) >= 0)
		l = layout_split(&f->layouts[s]);
	else if (op->code == OP_CUMSUM || op->code == OP_XORPERM)
		return s;
	else if (op->code == OP_GATHER)
		return lay(f, op->opnds[1]);
	else if (op_has(op->code, F_ELTWISE)) {
		for (int i = 0; i < op->nopnds; i++)
			if (is_tensor(f, op->opnds[i]) && lay(f, op->opnds[i]) >= 0)
				return lay(f, op->opnds[i]);
		return -1;
	} else
		return -1;
	return layout_add(f, &l);
}

static void set(LayoutPass *p, ValId v, int L)
{
	if (L >= 0 && is_tensor(p->f, v) && lay(p->f, v) < 0) {
		val(p->f, v)->layout = L;
		p->changed = true;
	}
}

/* A consumer asks for v in layout L: granted if v has none and may take one. */
static void request(LayoutPass *p, ValId v, int L)
{
	if (!owned(p->f, v))
		set(p, v, L);
}

/* ---- 1. forward ---- */

static void forward_block(LayoutPass *p, Block *b);

/* The body argument of a loop's first carried value: a for's iv comes first. */
static int first_iter(const Op *op)
{
	return op->code == OP_FOR ? 1 : 0;
}

/* Loop and if results (and loop-carried block args) take their yields' layouts. */
static void carry_from_yields(LayoutPass *p, Op *op)
{
	Func *f = p->f;
	Op *y0 = yield_of(op->blocks[0]);
	Op *y1 = op->nblocks > 1 ? yield_of(op->blocks[1]) : NULL;
	for (int i = 0; i < op->nres; i++) {
		int L = y0 && i < y0->nopnds && is_tensor(f, y0->opnds[i]) ? lay(f, y0->opnds[i]) : -1;
		if (L < 0 && y1 && i < y1->nopnds && is_tensor(f, y1->opnds[i]))
			L = lay(f, y1->opnds[i]);
		set(p, op->res[i], L);
		if (op->code == OP_FOR || op->code == OP_DO_WHILE)
			set(p, op->blocks[0]->args[i + first_iter(op)], L);
	}
}

static void forward_block(LayoutPass *p, Block *b)
{
	for (Op *op = b->first; op; op = op->next) {
		for (int i = 0; i < op->nblocks; i++)
			if (op->blocks[i])
				forward_block(p, op->blocks[i]);
		if (op->code == OP_FOR || op->code == OP_DO_WHILE || op->code == OP_IF)
			carry_from_yields(p, op);
		else if (op->nres == 1 || is_combine(op))
			for (int i = 0, L = implied(p, op); i < op->nres; i++)
				set(p, op->res[i], L);
	}
}

/* ---- 2. backward ---- */

static void backward_block(LayoutPass *p, Block *b);

/* A loop result, its block arg, its yield operand and its init share a layout. */
static void backward_loop(LayoutPass *p, Op *op)
{
	Func *f = p->f;
	Block *body = op->blocks[0];
	Op *y = yield_of(body);
	int a0 = first_iter(op), o0 = op->nopnds - op->nres;
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < op->nres; i++) {
			ValId r = op->res[i], arg = body->args[i + a0];
			int G = lay(f, r) >= 0 ? lay(f, r) : lay(f, arg);
			set(p, r, G);
			set(p, arg, G);
			if (y && i < y->nopnds)
				request(p, y->opnds[i], G);
			request(p, op->opnds[o0 + i], G);
		}
		if (pass == 0)
			backward_block(p, body);
	}
}

static void backward_if(LayoutPass *p, Op *op)
{
	for (int k = 0; k < op->nblocks; k++) {
		Op *y = yield_of(op->blocks[k]);
		for (int i = 0; y && i < op->nres && i < y->nopnds; i++)
			request(p, y->opnds[i], lay(p->f, op->res[i]));
		if (op->blocks[k])
			backward_block(p, op->blocks[k]);
	}
}

static void backward_block(LayoutPass *p, Block *b)
{
	Func *f = p->f;
	for (Op *op = b->last; op; op = op->prev) {
		if (op->code == OP_FOR || op->code == OP_DO_WHILE) {
			backward_loop(p, op);
			continue;
		}
		if (op->code == OP_IF) {
			backward_if(p, op);
			continue;
		}
		if (op->code == OP_YIELD)
			continue;
		int R = op->nres == 1 && is_tensor(f, op->res[0]) ? lay(f, op->res[0]) : -1;
		for (int i = 0; i < op->nopnds; i++)
			request(p, op->opnds[i], want(p, op, i, R));
	}
}

/* ---- 3. defaults and converts ---- */

static void place_after_def(Func *f, ValId v, Op *c)
{
	Value *x = val(f, v);
	if (x->def && x->def->next)
		ir_insert_before(x->def->next, c);
	else if (x->def)
		ir_append(x->def->parent, c);
	else if (x->block->first)
		ir_insert_before(x->block->first, c);
	else
		ir_append(x->block, c);
}

static ValId convert(LayoutPass *p, ValId v, int L, Loc loc)
{
	Func *f = p->f;
	for (int i = 0; i < p->ncvts; i++)
		if (p->cvts[i].from == v && p->cvts[i].layout == L)
			return p->cvts[i].to;
	Type t = vtype(f, v);
	Op *c = ir_new_op(f, OP_CONVERT_LAYOUT, &v, 1, &t, 1, loc);
	ValId to = c->res[0];
	val(f, to)->layout = L;
	val(f, to)->name = val(f, v)->name;
	place_after_def(f, v, c);
	if (p->ncvts >= p->capcvts)
		p->cvts = arena_grow(f->arena, p->cvts, &p->capcvts, p->ncvts + 1, sizeof(Cvt));
	p->cvts[p->ncvts++] = (Cvt){v, L, to};
	return to;
}

static void need(LayoutPass *p, Op *op, int i, int L)
{
	ValId v = op->opnds[i];
	if (L >= 0 && is_tensor(p->f, v) && lay(p->f, v) != L)
		op->opnds[i] = convert(p, v, L, op->loc);
}

static void fix_block(LayoutPass *p, Block *b);

static void fix_loop(LayoutPass *p, Op *op)
{
	Func *f = p->f;
	Block *body = op->blocks[0];
	int a0 = first_iter(op), o0 = op->nopnds - op->nres;
	for (int i = 0; i < op->nres; i++) {
		ValId r = op->res[i], arg = body->args[i + a0], init = op->opnds[o0 + i];
		if (!is_tensor(f, r))
			continue;
		int G = lay(f, r) >= 0 ? lay(f, r) : lay(f, arg) >= 0 ? lay(f, arg) : lay(f, init);
		val(f, r)->layout = G;
		val(f, arg)->layout = G;
		need(p, op, o0 + i, G);
	}
	fix_block(p, body);
}

static void fix_if(LayoutPass *p, Op *op)
{
	for (int i = 0; i < op->nres; i++)
		if (is_tensor(p->f, op->res[i]) && lay(p->f, op->res[i]) < 0)
			val(p->f, op->res[i])->layout = fallback(p, op->res[i], op->loc);
	for (int k = 0; k < op->nblocks; k++)
		if (op->blocks[k])
			fix_block(p, op->blocks[k]);
}

/* A yield hands its operands over in its loop's or if's result layouts. */
static void fix_yield(LayoutPass *p, Op *op)
{
	Op *parent = op->parent->parent;
	for (int i = 0; parent && i < op->nopnds && i < parent->nres; i++)
		need(p, op, i, lay(p->f, parent->res[i]));
}

static void fix_op(LayoutPass *p, Op *op)
{
	Func *f = p->f;
	for (int i = 0; i < op->nres; i++) {
		ValId r = op->res[i];
		if (!is_tensor(f, r))
			continue;
		if (op_has(op->code, F_REDUCE) || is_combine(op) || lay(f, r) < 0 ||
		    (op->code == OP_JOIN && layout_split_reg(&f->layouts[lay(f, r)]) < 0)) {
			/* a join's result given (IR text) with its new axis outside the registers takes its own */
			int L = implied(p, op);
			val(f, r)->layout = L >= 0 ? L : fallback(p, r, op->loc);
		}
	}
	int R = op->nres == 1 && is_tensor(f, op->res[0]) ? lay(f, op->res[0]) : -1;
	for (int i = 0; i < op->nopnds; i++)
		need(p, op, i, want(p, op, i, R));
}

static void fix_block(LayoutPass *p, Block *b)
{
	for (Op *op = b->first; op; op = op->next) {
		if (op->code == OP_FOR || op->code == OP_DO_WHILE)
			fix_loop(p, op);
		else if (op->code == OP_IF)
			fix_if(p, op);
		else if (op->code == OP_YIELD)
			fix_yield(p, op);
		else
			fix_op(p, op);
	}
}

void pass_layout(Func *f)
{
	LayoutPass p = {.f = f};
	find_chains(&p, f->entry);
	find_operands(&p, f->entry);
	access_vecs(&p, f->entry);
	do {
		p.changed = false;
		forward_block(&p, f->entry);
	} while (p.changed);
	do {
		p.changed = false;
		backward_block(&p, f->entry);
	} while (p.changed);
	p.settled = true;
	fix_block(&p, f->entry);
}
