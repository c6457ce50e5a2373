/*
 * passes/pipeline.c: pass_pipeline, software pipelining of the loads that
 * feed tensor-core dots, with cp.async into rings of shared buffers.
 *
 * A `for` whose body loads a tile (f16/bf16, or int8 for a wgmma dot;
 * 16-byte runs provable by the axis analysis, mask constant over them,
 * masked-off value 0) only to hand it, through the converts pass_layout
 * inserted, to mma dots, is rewritten so that the load of iteration i is
 * issued S-1 iterations earlier
 * (S = the loop's num_stages if `range` gave one, else the kernel's; a
 * loop with S < 2 is left alone) as an async copy into slot i % S of a ring:
 *
 *     ring_t = async_ring S                    one per pipelined load
 *     for j in 0 .. S-2:                       prologue
 *         async_copy ring_t, j, ptr_t(j), mask_t(j) && iv_j < hi ; async_commit
 *     for iv ... iter(..., X' = X(S-1), rd = 0, wr = S-1):
 *         async_wait S-2                       (and a barrier)
 *         async_copy ring_t, wr, ptr_t(X'), mask_t(iv + (S-1) step) && ... ; async_commit
 *         ...
 *         a_t = local_load ring_t, rd          replaces a convert, right before its dot
 *         ... dot(a_t, ...) ...
 *         yield ..., next(X'), rd + 1 mod S, wr + 1 mod S
 *     async_wait 0
 *
 * (With an asynchronous wgmma dot, see pipeline_loop, the loads run S-2
 * iterations ahead instead: the prologue issues S-2 groups, the body waits
 * for S-3 and writes slot i + S-2.)
 *
 * The slot written in iteration i was read in iteration i-1, which every
 * thread has left once it passes iteration i's barrier.  The address and
 * mask of a load are recomputed for the prefetched iteration by cloning
 * their computation in the body (its "slice"), with the induction variable
 * shifted and every loop-carried value X the slice reads replaced by a new
 * loop-carried copy X' that runs S-1 iterations ahead (its update cloned
 * the same way), as the prologue/kernel expansion of Triton's
 * PipelineExpander does.  A slice must be pure, region-free and read no
 * memory; otherwise the loop is left as it is.  Iterations past the end
 * copy nothing: their mask is false and cp.async zero-fills.
 *
 * Then a dot of two ring operands is split into 16-wide k-slices, each
 * read one dot ahead of its use, slice 0 across the back edge
 * (prefetch_slices, as Triton's Prefetch pass for MMAv2).  On sm_90a such a
 * dot runs as wgmma instead, reading both slots where they lie, and stays
 * in flight across the back edge (wgmma_dot, wgmma_operands).
 */
#include <string.h>

#include "compile.h"

/*
 * One use of a pipelined load: the convert to an operand of an mma dot.  A
 * load that several dots read (attention's backward reads Q as B of
 * K Q^T and of dS^T Q) has one entry per use, which share one ring and
 * one copy (first: the index of the load's first entry).
 */
typedef struct Load {
	Op *load, *cvt, *dot;
	bool trans;         /* cvt's source is trans(load): B read from an [N, K] tile */
	bool wgmma_b;       /* every use of the load is B of a wgmma dot with A in registers */
	int first;
	ValId ring, ll;     /* the ring; the local_load that replaced cvt */
} Load;

typedef struct Pipe {
	Func *f;
	Op *loop;
	Block *body;
	Load loads[8];
	int nloads;
	uint8_t *need;      /* per ValId of the body: in some slice */
	ValId *map;         /* per ValId: its clone in the current round, or 0 */
	int nvals;          /* values that existed when the pass started */
	int nargs;          /* the body's arguments then (rewrite adds more, unmapped) */
	Op *wait, *dot;     /* the async_wait in the body; the first dot of the loads */
	Op *carried[4];     /* wgmma dots left in flight into the next iteration (carried_dots) */
	int ncarried;
	ValId rd, rd_next;  /* the slot read this iteration and the next */
} Pipe;

/* ---- which loads qualify ---- */

/* The first register columns give n (a power of two) consecutive elements that nothing else touches. */
static bool vec_of(const Layout *l, int n)
{
	int bits = ilog2((uint64_t)n);
	if (l->nreg < bits)
		return false;
	for (int i = 0; i < bits; i++)
		if (l->reg[i] != 1u << i)
			return false;
	uint32_t bad = 0, m = (uint32_t)n - 1;
	for (int i = bits; i < l->nreg; i++)
		bad |= l->reg[i] & m;
	for (int i = 0; i < l->nlane; i++)
		bad |= l->lane[i] & m;
	for (int i = 0; i < l->nwarp; i++)
		bad |= l->warp[i] & m;
	return !bad;
}

/* A load cp.async can do in 16-byte pieces (n elements) with zero fill (who reads its ring: keep_readable). */
static bool copyable(Func *f, Op *ld)
{
	Type t = vtype(f, ld->res[0]);
	if (t.rank != 2 || (t.elem != TY_F16 && t.elem != TY_BF16 && t.elem != TY_I8 && !elem_is_f8(t.elem)))
		return false;
	int n = 16 / elem_bytes(t.elem);
	if (t.shape[1] < n)
		return false;
	Value *p = val(f, ld->opnds[0]);
	if (p->layout < 0 || !vec_of(&f->layouts[p->layout], n) || p->contig < n || p->divis % 16)
		return false;
	if (ld->nopnds > 1 && val(f, ld->opnds[1])->constancy < n)
		return false;
	return ld->nopnds < 3 || ir_is_zero(f, ld->opnds[2]);
}

static Op *def_in(Pipe *p, ValId v)
{
	Op *d = val(p->f, v)->def;
	return d && d->parent == p->body ? d : NULL;
}

/*
 * Operand k of an mma dot: a convert of a load in the body, used once;
 * or, for B, a convert of trans(load) (K^T in attention, a weight stored
 * [N, K]): the ring then holds the [N, K] tile with K contiguous, and its
 * local_load (LL_TRANS) reads B with plain ldmatrix, as A is read.  The
 * load may have other uses; whole_loads keeps it only if each is such an
 * operand.
 */
static void try_operand(Pipe *p, Op *dot, int k)
{
	Func *f = p->f;
	Op *cvt = def_in(p, dot->opnds[k]);
	if (!cvt || cvt->code != OP_CONVERT_LAYOUT || val(f, cvt->res[0])->nuses != 1)
		return;
	Op *ld = def_in(p, cvt->opnds[0]);
	bool trans = false;
	if (k == 1 && ld && ld->code == OP_TRANS && val(f, ld->res[0])->nuses == 1) {
		trans = true;
		ld = def_in(p, ld->opnds[0]);
	}
	if (!ld || ld->code != OP_LOAD || !copyable(f, ld))
		return;
	const Layout *lc = &f->layouts[val(f, dot->res[0])->layout];
	int K = vtype(f, dot->opnds[0]).shape[1];
	MmaKind kind = layout_mma_kind(f, dot);
	if (kind == MMA_NONE)
		return;
	Layout want = layout_mma_operand(kind, lc, K, k);
	if (!layout_eq(&f->layouts[val(f, cvt->res[0])->layout], &want))
		return;
	if (p->nloads < (int)(sizeof p->loads / sizeof p->loads[0]))
		p->loads[p->nloads++] = (Load){.load = ld, .cvt = cvt, .dot = dot, .trans = trans};
}

/* Drops the entries of loads that are not pipelined through every use; sets first. */
static void whole_loads(Pipe *p)
{
	int n = 0;
	for (int i = 0; i < p->nloads; i++) {
		int uses = 0;
		for (int j = 0; j < p->nloads; j++)
			uses += p->loads[j].load == p->loads[i].load;
		if (uses == val(p->f, p->loads[i].load->res[0])->nuses)
			p->loads[n++] = p->loads[i];
	}
	p->nloads = n;
	for (int i = 0; i < n; i++) {
		int j = 0;
		while (p->loads[j].load != p->loads[i].load)
			j++;
		p->loads[i].first = j;
	}
}

static void find_loads(Pipe *p)
{
	Func *f = p->f;
	for (Op *op = p->body->first; op; op = op->next) {
		if (op->code != OP_DOT || val(f, op->res[0])->layout < 0)
			continue;
		if (!layout_is_mma_acc(&f->layouts[val(f, op->res[0])->layout], f->num_warps))
			continue;
		try_operand(p, op, 0);
		try_operand(p, op, 1);
	}
	whole_loads(p);
}

/* ---- slices ---- */

/* Marks v's computation in the body; false when it cannot be cloned. */
static bool mark(Pipe *p, ValId v)
{
	if (v >= p->nvals || p->need[v])
		return true;
	Value *x = val(p->f, v);
	if (x->block == p->body) {
		p->need[v] = 1;
		return true;
	}
	Op *d = def_in(p, v);
	if (!d)
		return true; /* defined outside: loop-invariant */
	if (!op_has(d->code, F_PURE) || d->nblocks || d->nres != 1 || d->nopnds > 3 || d->code == OP_LOAD || d->code == OP_LOCAL_LOAD)
		return false;
	p->need[v] = 1;
	for (int i = 0; i < d->nopnds; i++)
		if (!mark(p, d->opnds[i]))
			return false;
	return true;
}

/* Slices of every load's pointer and mask, closed over the updates of the carried values they read. */
static bool mark_slices(Pipe *p)
{
	for (int i = 0; i < p->nloads; i++)
		for (int k = 0; k < p->loads[i].load->nopnds && k < 2; k++)
			if (!mark(p, p->loads[i].load->opnds[k]))
				return false;
	Op *y = p->body->last;
	for (bool grew = true; grew;) {
		grew = false;
		for (int j = 1; j < p->body->nargs; j++) {
			ValId a = p->body->args[j];
			if (!p->need[a] || p->need[a] == 2)
				continue;
			p->need[a] = 2;
			grew = true;
			if (!mark(p, y->opnds[j - 1]))
				return false;
		}
	}
	return true;
}

/* ---- cloning one iteration's slice ---- */

static ValId mapped(Pipe *p, ValId v)
{
	return v < p->nvals && p->map[v] ? p->map[v] : v;
}

/* Clones every marked op of the body before b->before, with map[] preset for the body's arguments. */
static void clone_round(Pipe *p, Builder *b)
{
	Func *f = p->f;
	for (Op *op = p->body->first; op; op = op->next) {
		if (op->nres != 1 || op->res[0] >= p->nvals || !p->need[op->res[0]])
			continue;
		ValId ops[3];
		for (int i = 0; i < op->nopnds; i++)
			ops[i] = mapped(p, op->opnds[i]);
		b->loc = op->loc;
		ValId r = b_op1(b, op->code, vtype(f, op->res[0]), ops, op->nopnds);
		Op *c = val(f, r)->def;
		c->iattr[0] = op->iattr[0];
		c->iattr[1] = op->iattr[1];
		c->fattr = op->fattr;
		val(f, r)->layout = val(f, op->res[0])->layout;
		val(f, r)->name = val(f, op->res[0])->name;
		p->map[op->res[0]] = r;
	}
}

/* Presets the map for an iteration whose induction variable is iv and carried values cur[]. */
static void start_round(Pipe *p, ValId iv, const ValId *cur)
{
	memset(p->map, 0, sizeof(ValId) * (size_t)p->nvals);
	p->map[p->body->args[0]] = iv;
	for (int j = 1; j < p->nargs; j++)
		if (p->need[p->body->args[j]])
			p->map[p->body->args[j]] = cur[j];
}

static ValId cmp(Builder *b, CmpPred pred, ValId x, ValId y)
{
	ValId r = b_op2(b, OP_CMP, type_scalar(TY_I1), x, y);
	val(b->f, r)->def->iattr[0] = pred;
	return r;
}

/* async_copy of every load for the iteration cloned last, valid when `ok`; then commit. */
static void issue_copies(Pipe *p, Builder *b, ValId slot, ValId ok)
{
	Func *f = p->f;
	for (int i = 0; i < p->nloads; i++) {
		if (p->loads[i].first != i)
			continue;
		Op *ld = p->loads[i].load;
		ValId ptr = mapped(p, ld->opnds[0]);
		Type mt = type_with_elem(vtype(f, ptr), TY_I1);
		ValId mask = b_op1(b, OP_SPLAT, mt, &ok, 1);
		val(f, mask)->layout = val(f, ptr)->layout;
		if (ld->nopnds > 1) {
			mask = b_op2(b, OP_AND, mt, mapped(p, ld->opnds[1]), mask);
			val(f, mask)->layout = val(f, ptr)->layout;
		}
		ValId o[4] = {p->loads[i].ring, slot, ptr, mask};
		b->loc = ld->loc;
		b_op1(b, OP_ASYNC_COPY, type_scalar(TY_I32), o, 4);
	}
	b_op1(b, OP_ASYNC_COMMIT, type_scalar(TY_I32), NULL, 0);
}

/* Carried values after the cloned iteration: the clones of what the body yields. */
static void next_carried(Pipe *p, ValId *cur)
{
	Op *y = p->body->last;
	for (int j = 1; j < p->nargs; j++)
		if (p->need[p->body->args[j]])
			cur[j] = mapped(p, y->opnds[j - 1]);
}

/* ---- the rewrite ---- */

static ValId wait_op(Builder *b, int n)
{
	ValId c = b_const_int(b, TY_I32, n);
	return b_op1(b, OP_ASYNC_WAIT, type_scalar(TY_I32), &c, 1);
}

/* Rings of nslots and the prologue before the loop; leaves cur[] = carried values dist iterations in. */
static void prologue(Pipe *p, int nslots, int dist, ValId *cur)
{
	Func *f = p->f;
	Op *loop = p->loop;
	Builder b = {f, NULL, loop, loop->loc};
	ValId ns = b_const_int(&b, TY_I32, nslots);
	for (int i = 0; i < p->nloads; i++) {
		Load *l = &p->loads[i];
		if (l->first != i) {
			l->ring = p->loads[l->first].ring;
			continue;
		}
		l->ring = b_op1(&b, OP_ASYNC_RING, vtype(f, l->load->res[0]), &ns, 1);
		val(f, l->ring)->def->loc = l->load->loc;
	}
	ValId lo = loop->opnds[0], hi = loop->opnds[1], step = loop->opnds[2];
	ElemKind ie = vtype(f, lo).elem;
	for (int j = 1; j < p->body->nargs; j++)
		cur[j] = loop->opnds[2 + j];
	for (int s = 0; s < dist; s++) {
		ValId iv = s == 0 ? lo : b_op2(&b, OP_ADD, vtype(f, lo), lo,
		                             b_op2(&b, OP_MUL, vtype(f, lo), b_const_int(&b, ie, s), step));
		start_round(p, iv, cur);
		clone_round(p, &b);
		issue_copies(p, &b, b_const_int(&b, TY_I32, s), cmp(&b, CMP_LT, iv, hi));
		next_carried(p, cur);
	}
}

/* (x + 1) mod S */
static ValId bump(Builder *b, ValId x, int S)
{
	Type t = type_scalar(TY_I32);
	ValId x1 = b_op2(b, OP_ADD, t, x, b_const_int(b, TY_I32, 1));
	ValId o[3] = {cmp(b, CMP_EQ, x1, b_const_int(b, TY_I32, S)), b_const_int(b, TY_I32, 0), x1};
	return b_op1(b, OP_SELECT, t, o, 3);
}

static Op *first_dot(Pipe *p)
{
	for (Op *op = p->body->first; op; op = op->next)
		for (int i = 0; i < p->nloads; i++)
			if (op->code == OP_DOT && (op->opnds[0] == p->loads[i].cvt->res[0] ||
			                           op->opnds[1] == p->loads[i].cvt->res[0]))
				return op;
	die("pipeline: no dot uses the pipelined loads");
}

/* The loop with loads issued dist iterations ahead into rings of nslots (> dist) slots. */
static void rewrite(Pipe *p, int nslots, int dist)
{
	Func *f = p->f;
	Op *loop = p->loop;
	int nargs0 = p->nargs;
	ValId *cur = NEWN(f->arena, ValId, nargs0);
	prologue(p, nslots, dist, cur);

	Builder pre = {f, NULL, loop, loop->loc};
	ValId *ahead = NEWN(f->arena, ValId, nargs0), *yslot = NEWN(f->arena, int32_t, nargs0);
	for (int j = 1; j < nargs0; j++) {
		if (!p->need[p->body->args[j]])
			continue;
		yslot[j] = p->body->last->nopnds;
		ahead[j] = ir_add_iter(f, loop, cur[j]);
	}
	int rd_at = p->body->last->nopnds;
	ValId rd = ir_add_iter(f, loop, b_const_int(&pre, TY_I32, 0));
	ValId wr = ir_add_iter(f, loop, b_const_int(&pre, TY_I32, dist));

	p->dot = first_dot(p);
	Builder b = {f, NULL, p->dot, loop->loc};
	p->wait = val(f, wait_op(&b, dist - 1))->def;
	for (int i = 0; i < p->nloads; i++) {
		/* right before its dot, so that only the operands of one dot live in registers at a time */
		Op *cvt = p->loads[i].cvt;
		Builder at = {f, NULL, p->loads[i].dot, cvt->loc};
		ValId ll = b_op2(&at, OP_LOCAL_LOAD, vtype(f, cvt->res[0]), p->loads[i].ring, rd);
		val(f, ll)->def->iattr[1] = p->loads[i].trans ? LL_TRANS : 0;
		val(f, ll)->layout = val(f, cvt->res[0])->layout;
		val(f, ll)->name = val(f, cvt->res[0])->name;
		ir_replace_uses(f, cvt->res[0], ll);
		p->loads[i].ll = ll;
	}
	b.loc = loop->loc;
	ValId iv = p->body->args[0], lo = loop->opnds[0];
	ValId shift = b_op2(&b, OP_MUL, vtype(f, lo), b_const_int(&b, vtype(f, lo).elem, dist), loop->opnds[2]);
	ValId iva = b_op2(&b, OP_ADD, vtype(f, lo), iv, shift);
	start_round(p, iva, ahead);
	clone_round(p, &b);
	issue_copies(p, &b, wr, cmp(&b, CMP_LT, iva, loop->opnds[1]));
	Op *y = p->body->last;
	for (int j = 1; j < nargs0; j++)
		if (p->need[p->body->args[j]])
			y->opnds[yslot[j]] = mapped(p, y->opnds[j - 1]);
	y->opnds[rd_at] = bump(&b, rd, nslots);
	y->opnds[rd_at + 1] = bump(&b, wr, nslots);
	p->rd = rd;
	p->rd_next = y->opnds[rd_at];

	Builder post = {f, loop->next ? NULL : loop->parent, loop->next, loop->loc};
	wait_op(&post, 0);
}

/* ---- prefetching the first k-slice across iterations ---- */

/* The k-slice [k0, k0 + 16) of local_load ll (operand `opnd` of its dot) from `slot`. */
static ValId slice_load(Builder *b, Op *ll, int opnd, ValId slot, int k0, int layout)
{
	Func *f = b->f;
	Type t = vtype(f, ll->res[0]);
	t.shape[opnd == 0 ? 1 : 0] = 16;
	ValId r = b_op2(b, OP_LOCAL_LOAD, t, ll->opnds[0], slot);
	val(f, r)->def->iattr[0] = k0;
	val(f, r)->def->iattr[1] = ll->iattr[1];
	val(f, r)->layout = layout;
	val(f, r)->name = val(f, ll->res[0])->name;
	return r;
}

static ValId dot_slice(Builder *b, Op *dot, ValId x, ValId y, ValId acc)
{
	ValId o[3] = {x, y, acc};
	ValId r = b_op1(b, OP_DOT, vtype(b->f, dot->res[0]), o, 3);
	val(b->f, r)->def->iattr[0] = dot->iattr[0];
	val(b->f, r)->layout = val(b->f, dot->res[0])->layout;
	return r;
}

/* The body's local_load behind operand k of dot, used only there, or NULL. */
static Op *ring_operand(Pipe *p, Op *dot, int k)
{
	Op *d = def_in(p, dot->opnds[k]);
	if (!d || d->code != OP_LOCAL_LOAD || val(p->f, d->res[0])->nuses != 1 || d->opnds[1] != p->rd)
		return NULL;
	return d;
}

/* The entry whose convert is v, or NULL. */
static Load *entry_of(Pipe *p, ValId v)
{
	for (int i = 0; i < p->nloads; i++)
		if (p->loads[i].cvt->res[0] == v)
			return &p->loads[i];
	return NULL;
}

static bool is_cvt_of_load(Pipe *p, ValId v)
{
	return entry_of(p, v) != NULL;
}

/*
 * prefetch_slices applies: the first dot reads both its operands from
 * rings, and no other op reads a ring (the pass moves the wait and its
 * barrier to the end of the body, before the dot's last slice: a ring read
 * after it would race with the next iteration's copies into its slot).
 */
static bool sliceable(Pipe *p, Op *dot)
{
	for (int i = 0; i < p->nloads; i++) {
		ValId v = p->loads[i].cvt->res[0];
		if (dot->opnds[0] != v && dot->opnds[1] != v)
			return false;
	}
	return is_cvt_of_load(p, dot->opnds[0]) && is_cvt_of_load(p, dot->opnds[1]);
}

/*
 * Triton's Prefetch pass for MMAv2: the dot of both ring operands becomes
 * K/16 dots of one 16-wide k-slice each, and each slice is read (ldmatrix)
 * one dot ahead of its use.  Slice 0 of iteration i+1 is read at the end of
 * iteration i, after its wait (which moves there from the top of the body)
 * and before the last dot of iteration i, and is carried into the next
 * iteration; the prologue waits for and reads slice 0 of slot 0.  The
 * wait's barrier then overlaps the last slice's mma, and fragments live for
 * two slices instead of the whole tile.
 *
 *     for ... iter(..., a0, b0):
 *         a1, b1 = local_load rd, k 16 ; copies ; acc = dot(a0, b0, acc) ; ...
 *         async_wait S-2 ; a0', b0' = local_load rd+1, k 0
 *         acc = dot(a_{n-1}, b_{n-1}, acc)
 *         yield ..., a0', b0'
 *
 * The slot iteration i+1 overwrites (i's) has been read in full before the
 * barrier of i's wait, as before.
 */
static void prefetch_slices(Pipe *p, int S)
{
	Func *f = p->f;
	ir_fill_uses(f);
	Op *dot = p->dot, *la = ring_operand(p, dot, 0), *lb = ring_operand(p, dot, 1);
	if (!la || !lb || !p->wait)
		return;
	int n = vtype(f, dot->opnds[0]).shape[1] / 16;
	const Layout *lc = &f->layouts[val(f, dot->res[0])->layout];
	Layout m = layout_mma_a(lc, 16);
	int ya = layout_add(f, &m);
	m = layout_mma_b(lc, 16);
	int yb = layout_add(f, &m);

	Builder pre = {f, NULL, p->loop, p->loop->loc};
	wait_op(&pre, S - 2);
	ValId slot0 = b_const_int(&pre, TY_I32, 0);
	ValId ca = ir_add_iter(f, p->loop, slice_load(&pre, la, 0, slot0, 0, ya));
	ValId cb = ir_add_iter(f, p->loop, slice_load(&pre, lb, 1, slot0, 0, yb));
	Op *y = p->body->last;
	int at = y->nopnds - 2;

	Builder b = {f, NULL, la, dot->loc};
	ValId acc = dot->opnds[2];
	for (int j = 1; j <= n; j++) {
		ValId na, nb;
		if (j < n) {
			na = slice_load(&b, la, 0, p->rd, 16 * j, ya);
			nb = slice_load(&b, lb, 1, p->rd, 16 * j, yb);
		} else {
			b.before = dot;
			ir_remove(p->wait);
			ir_insert_before(dot, p->wait);
			na = y->opnds[at] = slice_load(&b, la, 0, p->rd_next, 0, ya);
			nb = y->opnds[at + 1] = slice_load(&b, lb, 1, p->rd_next, 0, yb);
		}
		b.before = dot;
		acc = dot_slice(&b, dot, ca, cb, acc);
		ca = na;
		cb = nb;
	}
	ir_replace_uses(f, dot->res[0], acc);
	ir_remove(dot);
	ir_remove(la);
	ir_remove(lb);
}

/* ---- wgmma: operands read where they lie ---- */

/* The dot fits wgmma (layout_wgmma_ok) and the layout pass gave it layout_mma_acc_rows. */
static bool wgmma_fits(Func *f, Op *dot, bool b_kmajor)
{
	if (val(f, dot->res[0])->layout < 0 || !layout_wgmma_ok(f, dot, b_kmajor))
		return false;
	Type t = vtype(f, dot->res[0]);
	Layout rows = layout_mma_acc_rows(t.shape[0], t.shape[1], f->num_warps);
	return layout_eq(&f->layouts[val(f, dot->res[0])->layout], &rows);
}

/*
 * The first dot of the loads runs as wgmma (sm_90a) when both its operands
 * are pipelined loads that nothing else reads (their rings take wgmma's
 * layout, which ldmatrix does not read).
 */
static bool wgmma_dot(Pipe *p, Op *dot)
{
	Func *f = p->f;
	Load *a = entry_of(p, dot->opnds[0]), *b = entry_of(p, dot->opnds[1]);
	if (!a || !b || val(f, a->load->res[0])->nuses != 1 || val(f, b->load->res[0])->nuses != 1)
		return false;
	return wgmma_fits(f, dot, b->trans);
}

/*
 * Entry i is B of a 16-bit dot whose A is not a ring read, and the dot fits
 * wgmma: with A in registers, it reads B where it lies (wgmma_b_operands).
 */
static bool b_in_place(Pipe *p, int i)
{
	Load *l = &p->loads[i];
	return l->dot->opnds[1] == l->cvt->res[0] && !is_cvt_of_load(p, l->dot->opnds[0]) &&
	       layout_mma_kind(p->f, l->dot) == MMA_HALF && wgmma_fits(p->f, l->dot, l->trans);
}

/* Sets wgmma_b: every entry of the load is b_in_place. */
static void find_wgmma_b(Pipe *p)
{
	for (int i = 0; i < p->nloads; i++) {
		bool all = true;
		for (int j = 0; j < p->nloads; j++)
			if (p->loads[j].first == p->loads[i].first)
				all = all && b_in_place(p, j);
		p->loads[i].wgmma_b = all;
	}
}

/*
 * Only a wgmma dot reads 8-bit operands from a ring (wg: the first dot,
 * when it runs as one); ldmatrix and the k-slice prefetch take 16-bit
 * elements.  Drops the other 8-bit loads (they stay plain loads); true if
 * it dropped any.
 */
static bool keep_readable(Pipe *p, const Op *wg)
{
	int n = 0;
	for (int i = 0; i < p->nloads; i++) {
		ValId v = p->loads[i].cvt->res[0];
		bool of_wg = wg && (wg->opnds[0] == v || wg->opnds[1] == v);
		if (elem_bytes(vtype(p->f, p->loads[i].load->res[0]).elem) == 2 || of_wg)
			p->loads[n++] = p->loads[i];
	}
	bool dropped = n < p->nloads;
	p->nloads = n;
	whole_loads(p);
	return dropped;
}

/*
 * The dot may stay in flight across the back edge (wgmma.wait_group 1
 * after it instead of 0) when its accumulator only goes round the loop:
 * it reads body argument j, its result is used only by the yield, as that
 * argument's next value.  Returns j, or 0.
 */
static int async_acc(Pipe *p, Op *dot)
{
	Func *f = p->f;
	ValId acc = dot->opnds[2];
	Value *a = val(f, acc);
	if (a->block != p->body || a->index < 1 || a->nuses != 1 || val(f, dot->res[0])->nuses != 1)
		return 0;
	return p->body->last->opnds[a->index - 1] == dot->res[0] ? a->index : 0;
}

/* dot_wait r (pending groups) before op u (or after the loop: u NULL, at loop), for every other reader of r. */
static void wait_before(Func *f, Op *u, Op *loop, ValId r, int pending)
{
	Builder b = u ? (Builder){f, NULL, u, u->loc} : (Builder){f, loop->next ? NULL : loop->parent, loop->next, loop->loc};
	ValId w = b_op1(&b, OP_DOT_WAIT, vtype(f, r), &r, 1);
	val(f, w)->layout = val(f, r)->layout;
	val(f, w)->name = val(f, r)->name;
	val(f, w)->def->iattr[0] = pending < 7 ? pending : 7; /* fewer pending only waits more */
	ir_replace_uses(f, r, w);
	val(f, w)->def->opnds[0] = r;
}

/*
 * After the rewrite: the dot's local_loads become LL_WGMMA (the slot's
 * address, no registers), their rings RING_WGMMA (cg_wgmma.c's layout).
 * An asynchronous dot (j > 0) gets `async` and a dot_wait on loop result
 * j - 1 right after the loop, before anything reads the accumulator or
 * reuses the rings' memory.
 */
static void wgmma_operands(Pipe *p, int j)
{
	Func *f = p->f;
	ir_fill_uses(f);
	Op *dot = p->dot, *ll[2] = {ring_operand(p, dot, 0), ring_operand(p, dot, 1)};
	if (!ll[0] || !ll[1])
		die("pipeline: the wgmma dot's operands are not ring slots");
	for (int i = 0; i < 2; i++) {
		ll[i]->iattr[1] |= LL_WGMMA;
		val(f, ll[i]->opnds[0])->def->iattr[0] = RING_WGMMA;
	}
	if (!j)
		return;
	dot->iattr[1] = DOT_ASYNC;
	wait_before(f, NULL, p->loop, p->loop->res[j - 1], 0);
}

/*
 * Any other dot of the body whose B is a ring slot and whose A is in
 * registers (attention's Q K^T and P V) reads B where it lies too, with A
 * from registers (cg_wgmma.c), and waits for itself (no async): the loads
 * find_wgmma_b found, all of whose readers are such dots.
 */
static void wgmma_b_operands(Pipe *p)
{
	Func *f = p->f;
	for (int i = 0; i < p->nloads; i++) {
		if (!p->loads[i].wgmma_b)
			continue;
		val(f, p->loads[i].ll)->def->iattr[1] |= LL_WGMMA;
		val(f, p->loads[i].ring)->def->iattr[0] = RING_WGMMA;
	}
}

/*
 * The dots whose B is a pipelined load and A is not (attention's P V, the
 * backward's dV and dK) that will run as wgmma (wgmma_b_operands) and whose
 * product only goes round the loop, as the next value of a body argument
 * that something reads.  Each may stay in flight into the next iteration,
 * waited for there before the argument's first reader (defer_waits); the
 * loads then run S-2 iterations ahead, as for an async dot.
 */
static void carried_dots(Pipe *p)
{
	Func *f = p->f;
	Op *y = p->body->last;
	for (Op *dot = p->body->first; dot; dot = dot->next) {
		Load *b = dot->code == OP_DOT ? entry_of(p, dot->opnds[1]) : NULL;
		if (!b || !b->wgmma_b || val(f, dot->res[0])->nuses != 1)
			continue;
		for (int i = 0; i < y->nopnds; i++)
			if (y->opnds[i] == dot->res[0] && val(f, p->body->args[i + 1])->nuses &&
			    p->ncarried < (int)(sizeof p->carried / sizeof p->carried[0]))
				p->carried[p->ncarried++] = dot;
	}
}

/* dot runs as wgmma and commits a group (dce has removed dead dots before this pass) */
static bool runs_wgmma(Func *f, const Op *dot)
{
	if (dot->code != OP_DOT)
		return false;
	Op *b = val(f, dot->opnds[1])->def;
	return b && b->code == OP_LOCAL_LOAD && (b->iattr[1] & LL_WGMMA);
}

/* op, or an op nested in its regions, reads v */
static bool reads(const Op *op, ValId v)
{
	for (int i = 0; i < op->nopnds; i++)
		if (op->opnds[i] == v)
			return true;
	for (int i = 0; i < op->nblocks; i++)
		for (const Op *o = op->blocks[i] ? op->blocks[i]->first : NULL; o; o = o->next)
			if (reads(o, v))
				return true;
	return false;
}


/* The first op from `from` on that reads v (or NULL); *n: the wgmma dots before it. */
static Op *first_reader(Func *f, Op *from, ValId v, int *n)
{
	*n = 0;
	for (; from && !reads(from, v); from = from->next)
		*n += runs_wgmma(f, from);
	return from;
}

/*
 * A wgmma dot of the body that waits for itself (not `async`) is issued
 * instead (`dot ... issue`: commit, no wait), and a dot_wait right before
 * the first op that reads its result waits for it, allowing the wgmma
 * groups the body commits in between to stay in flight (`pending=N`).
 * What runs in between overlaps the tensor cores.  N counts only the dots
 * of the body itself; one in a nested region may commit more groups,
 * which only makes the wait more certain.
 *
 * A carried dot (carried_dots) is waited for in the next iteration
 * instead, before the first reader of the argument it becomes (pending:
 * the groups this iteration has committed by then, fewer than have been
 * committed since it), and after the loop: attention's P V runs on while
 * the next iteration's copies and Q K^T are issued.  Every other dot is
 * waited for in the iteration that issued it.
 */
static void defer_waits(Pipe *p)
{
	Func *f = p->f;
	ir_fill_uses(f);
	Op *y = p->body->last;
	for (int i = 0; i < p->ncarried; i++) {
		int j = 0;
		while (y->opnds[j] != p->carried[i]->res[0])
			j++;
		ValId arg = p->body->args[j + 1];
		int n;
		Op *u = first_reader(f, p->body->first, arg, &n);
		p->carried[i]->iattr[1] = DOT_ISSUE;
		wait_before(f, u, NULL, arg, n);
		wait_before(f, NULL, p->loop, p->loop->res[j], 0);
	}
	for (Op *dot = p->body->first; dot; dot = dot->next) {
		if (!runs_wgmma(f, dot) || dot->iattr[1])
			continue;
		int n;
		Op *u = first_reader(f, dot->next, dot->res[0], &n);
		if (!u || u == dot->next)
			continue;
		dot->iattr[1] = DOT_ISSUE;
		wait_before(f, u, NULL, dot->res[0], n);
	}
}

/*
 * Loads go num_stages - 1 iterations ahead into rings of num_stages slots;
 * with an asynchronous wgmma dot num_stages - 2: the copies of iteration i
 * (issued after its barrier, before its dot) then overwrite the slot of
 * i - 2, whose dot every warpgroup has waited for (wait_group 1 in i - 1)
 * before reaching that barrier, while dot i - 1 may still read its slot.
 */
static void pipeline_loop(Func *f, Op *loop)
{
	int S = ir_stages(f, loop);
	if (S < 2)
		return;
	Pipe p = {.f = f, .loop = loop, .body = loop->blocks[0], .nvals = f->nvals, .nargs = loop->blocks[0]->nargs};
	if (!p.body->last || p.body->last->code != OP_YIELD)
		return;
	find_loads(&p);
	if (!p.nloads)
		return;
	Op *dot = first_dot(&p);
	bool wg = wgmma_dot(&p, dot);
	/* without the first dot's 8-bit loads (not wg), the first dot of the rest is 16-bit */
	if (keep_readable(&p, wg ? dot : NULL) && !wg) {
		if (!p.nloads)
			return;
		dot = first_dot(&p);
		wg = wgmma_dot(&p, dot);
	}
	p.need = NEWN(f->arena, uint8_t, f->nvals);
	p.map = NEWN(f->arena, ValId, f->nvals);
	if (!mark_slices(&p))
		return;
	if (f->wgmma)
		find_wgmma_b(&p);
	int j = wg && S >= 3 ? async_acc(&p, dot) : 0;
	bool slices = !wg && sliceable(&p, dot);
	if (f->wgmma && !wg && !slices && S >= 3)
		carried_dots(&p);
	rewrite(&p, S, j || p.ncarried ? S - 2 : S - 1);
	if (wg)
		wgmma_operands(&p, j);
	else if (slices)
		prefetch_slices(&p, S);
	if (f->wgmma) {
		wgmma_b_operands(&p);
		defer_waits(&p);
	}
}

void pass_pipeline(Func *f)
{
	int n;
	Op **loops = ir_collect(f, OP_FOR, &n);
	for (int i = 0; i < n; i++) {
		ir_fill_uses(f);
		pipeline_loop(f, loops[i]);
	}
	ir_fill_uses(f);
}
