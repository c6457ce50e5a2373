/*
 * ir.c: the IR's types, the builder, the opcode table and use lists.
 *
 * Values live in one growable table per Func (Func.vals); vals[0] is the
 * reserved "no value".  Ops and blocks are arena objects; a block is a
 * doubly linked list of ops.  Nothing keeps def-use chains: ir_fill_uses
 * recounts Value.nuses when a pass wants them, and ir_replace_uses walks
 * the function (kernels are a few hundred ops, so this stays cheap).
 */
#include "ir.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const OpInfo op_info[OP_COUNT] = {
#define OP(name, text, n, flags) [OP_##name] = {text, n, flags},
#include "ops.def"
#undef OP
};

/* ---- types ---- */

Type type_scalar(ElemKind e)
{
	Type t = {0};
	t.elem = (uint8_t)e;
	return t;
}

Type type_ptr(ElemKind pointee)
{
	Type t = {0};
	t.elem = TY_PTR;
	t.pointee = (uint8_t)pointee;
	return t;
}

Type type_tensor(ElemKind e, int rank, const int32_t *shape)
{
	Type t = type_scalar(e);
	ensure(rank >= 0 && rank <= MAX_RANK);
	t.rank = (uint8_t)rank;
	for (int i = 0; i < rank; i++)
		t.shape[i] = shape[i];
	return t;
}

Type type_with_elem(Type t, ElemKind e)
{
	t.elem = (uint8_t)e;
	if (e != TY_PTR)
		t.pointee = 0;
	return t;
}

bool type_same_shape(Type a, Type b)
{
	if (a.rank != b.rank)
		return false;
	for (int i = 0; i < a.rank; i++)
		if (a.shape[i] != b.shape[i])
			return false;
	return true;
}

bool type_eq(Type a, Type b)
{
	if (a.elem != b.elem || (a.elem == TY_PTR && a.pointee != b.pointee))
		return false;
	return type_same_shape(a, b);
}

int64_t type_numel(Type t)
{
	int64_t n = 1;
	for (int i = 0; i < t.rank; i++)
		n *= t.shape[i];
	return n;
}

static const struct {
	const char *name;
	int bits;
} elems[TY_COUNT] = {
	[TY_VOID] = {"void", 0}, [TY_I1] = {"i1", 1},   [TY_I8] = {"i8", 8},
	[TY_I16] = {"i16", 16},  [TY_I32] = {"i32", 32}, [TY_I64] = {"i64", 64},
	[TY_F16] = {"f16", 16},  [TY_BF16] = {"bf16", 16}, [TY_F32] = {"f32", 32},
	[TY_F64] = {"f64", 64},  [TY_F8E4M3] = {"f8e4m3", 8}, [TY_F8E5M2] = {"f8e5m2", 8},
	[TY_PTR] = {"ptr", 64},
};

int elem_bits(ElemKind e) { return e < TY_COUNT ? elems[e].bits : 0; }
int elem_bytes(ElemKind e) { return e == TY_I1 ? 1 : elem_bits(e) / 8; }
bool elem_is_float(ElemKind e) { return e >= TY_F16 && e <= TY_F64; }
bool elem_is_f8(ElemKind e) { return e == TY_F8E4M3 || e == TY_F8E5M2; }
bool elem_is_fp(ElemKind e) { return elem_is_float(e) || elem_is_f8(e); }
bool elem_is_int(ElemKind e) { return e >= TY_I1 && e <= TY_I64; }
const char *elem_name(ElemKind e) { return e < TY_COUNT ? elems[e].name : "?"; }

/*
 * The fp8 formats: f8e4m3 (bias 7, no infinities, S.1111.111 is NaN, the
 * largest finite 448) and f8e5m2 (bias 15, IEEE-like, the largest finite
 * 57344).  A value goes to fp8 as PTX's cvt.rn.satfinite takes f32 to it:
 * rounded to nearest even, finite values past the largest (and infinities)
 * to the largest, NaN to NaN.  Wider sources go through f32 first, as the
 * GPU converts them, so an f64 may round twice.
 */
static int f8_mant(ElemKind e) { return e == TY_F8E4M3 ? 3 : 2; }
static int f8_bias(ElemKind e) { return e == TY_F8E4M3 ? 7 : 15; }
static double f8_max(ElemKind e) { return e == TY_F8E4M3 ? 448.0 : 57344.0; }

double f8_round(ElemKind e, double x)
{
	x = (double)(float)x;
	if (isnan(x) || x == 0)
		return x;
	if (isinf(x))
		return copysign(f8_max(e), x);
	int ex, emin = 1 - f8_bias(e);
	frexp(x, &ex); /* |x| = m 2^ex, 1/2 <= m < 1 */
	int q = (ex - 1 < emin ? emin : ex - 1) - f8_mant(e); /* the exponent of one ulp */
	double r = ldexp(nearbyint(ldexp(x, -q)), q);
	if (fabs(r) > f8_max(e))
		r = copysign(f8_max(e), x);
	return r == 0 ? copysign(0.0, x) : r;
}

double f8_value(ElemKind e, unsigned bits)
{
	int m = f8_mant(e), bias = f8_bias(e);
	unsigned ef = bits >> m & (e == TY_F8E4M3 ? 15u : 31u), mf = bits & ((1u << m) - 1);
	double s = bits & 0x80 ? -1.0 : 1.0;
	if (e == TY_F8E4M3 && ef == 15 && mf == 7)
		return NAN;
	if (e == TY_F8E5M2 && ef == 31)
		return mf ? NAN : s * INFINITY;
	if (ef == 0)
		return s * ldexp((double)mf, 1 - bias - m);
	return s * ldexp((double)(mf | 1u << m), (int)ef - bias - m);
}

unsigned f8_bits(ElemKind e, double x)
{
	int m = f8_mant(e), bias = f8_bias(e);
	if (isnan(x))
		return 0x7f;
	x = f8_round(e, x);
	unsigned s = signbit(x) ? 0x80 : 0;
	double a = fabs(x);
	if (a == 0)
		return s;
	int ex;
	frexp(a, &ex);
	int be = ex - 1 + bias; /* the biased exponent if normal */
	if (be < 1) /* subnormal: a multiple of 2^(1 - bias - m) */
		return s | (unsigned)ldexp(a, bias - 1 + m);
	return s | (unsigned)be << m | ((unsigned)ldexp(a, m - (ex - 1)) & ((1u << m) - 1));
}

ElemKind elem_from_name(const char *s, int len)
{
	for (int e = TY_I1; e < TY_PTR; e++)
		if ((int)strlen(elems[e].name) == len && memcmp(elems[e].name, s, (size_t)len) == 0)
			return (ElemKind)e;
	return TY_VOID;
}

/*
 * Where the GPU takes fewer element types than an op's type rule allows:
 * exp, exp2, log and log2 have no f64 version; dot multiplies f16, bf16,
 * f32, i8, i16 and i32 (e is the operands' element type); atomics, whose
 * types depend on their kind, ask atomic_elem_ok.
 * These are the front end's rules for source (lower.c); the verifier asks
 * here, so IR text keeps them too.
 */
const char *const atomic_names[ATOM_COUNT] = {"add", "max", "min", "xchg", "and", "or", "xor"};
const char *const sem_names[SEM_COUNT] = {"", "relaxed", "acquire", "release", "acq_rel"};
const char *const scope_names[SCOPE_COUNT] = {"", "cta", "gpu", "sys"};

/*
 * The types the GPU's atom instruction takes for each kind; float max and
 * min become two integer atomics on the bits (cg_memory.c).
 */
bool atomic_elem_ok(AtomicKind k, ElemKind e)
{
	switch (k) {
	case ATOM_ADD: return e == TY_F16 || e == TY_F32 || e == TY_F64 || e == TY_I32 || e == TY_I64;
	case ATOM_XCHG: return e == TY_F32 || e == TY_F64 || e == TY_I32 || e == TY_I64;
	case ATOM_MAX:
	case ATOM_MIN: return e == TY_I32 || e == TY_I64 || e == TY_F32 || e == TY_F64;
	case ATOM_AND:
	case ATOM_OR:
	case ATOM_XOR: return e == TY_I32 || e == TY_I64;
	default: return false;
	}
}

bool atomic_cas_elem_ok(ElemKind e)
{
	return e == TY_I32 || e == TY_I64 || e == TY_F32 || e == TY_F64;
}

int ir_mask_index(Opcode code)
{
	switch (code) {
	case OP_LOAD: return 1;
	case OP_STORE:
	case OP_ATOMIC: return 2;
	case OP_ATOMIC_CAS: return 3;
	default: return -1;
	}
}

bool op_elem_ok(Opcode code, ElemKind e)
{
	switch (code) {
	case OP_EXP:
	case OP_EXP2:
	case OP_LOG:
	case OP_LOG2:
	case OP_SIN:
	case OP_COS:
	case OP_TANH:
	case OP_ERF:
	case OP_LOG1P:
	case OP_EXPM1:
	case OP_ATAN:
	case OP_POW:
	case OP_ATAN2: return e != TY_F64;
	case OP_PHILOX: return e == TY_I32;
	case OP_DOT:
		return (elem_is_float(e) && e != TY_F64) || elem_is_f8(e) || (elem_is_int(e) && e != TY_I1 && e != TY_I64);
	default: return true;
	}
}

/* The element part: "f32" or "*f32". */
static int elem_part(Type t, char *buf, size_t n)
{
	if (t.elem == TY_PTR)
		return snprintf(buf, n, "*%s", elem_name(t.pointee));
	return snprintf(buf, n, "%s", elem_name(t.elem));
}

char *type_str(Type t, char *buf, size_t n)
{
	size_t k = 0;
	if (n == 0)
		return buf;
	buf[0] = 0;
	if (t.rank == 0) {
		elem_part(t, buf, n);
		return buf;
	}
	k += (size_t)snprintf(buf, n, "tensor<");
	for (int i = 0; i < t.rank && k < n; i++)
		k += (size_t)snprintf(buf + k, n - k, "%dx", t.shape[i]);
	if (k < n)
		k += (size_t)elem_part(t, buf + k, n - k);
	if (k < n)
		snprintf(buf + k, n - k, ">");
	return buf;
}

/* ---- building ---- */

/*
 * The entry block starts with no arguments; lower.c replaces f->entry by a
 * block whose arguments are the kernel's parameters.
 */
Func *ir_new_func(Arena *a, const char *name)
{
	Func *f = NEW(a, Func);
	f->arena = a;
	f->name = name;
	f->num_warps = 4;
	f->num_stages = 3;
	f->fp_fusion = 1;
	f->vals = arena_grow(a, NULL, &f->capvals, 64, sizeof(Value));
	f->nvals = 1; /* vals[0]: no value */
	f->entry = ir_new_block(f, 0, NULL);
	return f;
}

ValId ir_new_value(Func *f, Type t)
{
	if (f->nvals >= f->capvals)
		f->vals = arena_grow(f->arena, f->vals, &f->capvals, f->nvals + 1, sizeof(Value));
	ValId v = f->nvals++;
	Value *x = &f->vals[v];
	memset(x, 0, sizeof *x);
	x->type = t;
	x->layout = -1;
	x->contig = x->divis = x->constancy = 1;
	return v;
}

Block *ir_new_block(Func *f, int nargs, const Type *argtypes)
{
	Block *b = NEW(f->arena, Block);
	b->nargs = nargs;
	b->args = NEWN(f->arena, ValId, nargs > 0 ? nargs : 1);
	for (int i = 0; i < nargs; i++) {
		ValId v = ir_new_value(f, argtypes[i]);
		f->vals[v].block = b;
		f->vals[v].index = (int16_t)i;
		b->args[i] = v;
	}
	return b;
}

Op *ir_new_op(Func *f, Opcode code, const ValId *opnds, int nopnds, const Type *restypes, int nres, Loc loc)
{
	Op *op = NEW(f->arena, Op);
	op->code = code;
	op->loc = loc;
	if (!loc.in)
		op->loc.in = f->inlining;
	op->smem_offset = -1;
	op->nopnds = nopnds;
	op->opnds = NEWN(f->arena, ValId, nopnds > 0 ? nopnds : 1);
	if (nopnds > 0)
		memcpy(op->opnds, opnds, sizeof(ValId) * (size_t)nopnds);
	op->nres = nres;
	op->res = NEWN(f->arena, ValId, nres > 0 ? nres : 1);
	for (int i = 0; i < nres; i++) {
		ValId v = ir_new_value(f, restypes[i]);
		f->vals[v].def = op;
		f->vals[v].index = (int16_t)i;
		op->res[i] = v;
	}
	return op;
}

/* Blocks built before their op was placed learn their parent here. */
static void adopt_blocks(Op *op)
{
	for (int i = 0; i < op->nblocks; i++)
		if (op->blocks[i])
			op->blocks[i]->parent = op;
}

void ir_append(Block *b, Op *op)
{
	op->parent = b;
	op->next = NULL;
	op->prev = b->last;
	if (b->last)
		b->last->next = op;
	else
		b->first = op;
	b->last = op;
	adopt_blocks(op);
}

void ir_insert_before(Op *pos, Op *op)
{
	Block *b = pos->parent;
	ensure(b != NULL);
	op->parent = b;
	op->next = pos;
	op->prev = pos->prev;
	if (pos->prev)
		pos->prev->next = op;
	else
		b->first = op;
	pos->prev = op;
	adopt_blocks(op);
}

/*
 * Unlinks op.  Its prev/next stay as they were so that a walk that is
 * standing on the removed op can still step to the next one.
 */
void ir_remove(Op *op)
{
	Block *b = op->parent;
	ensure(b != NULL);
	if (op->prev)
		op->prev->next = op->next;
	else
		b->first = op->next;
	if (op->next)
		op->next->prev = op->prev;
	else
		b->last = op->prev;
	op->parent = NULL;
}

/* ---- walking and uses ---- */

static void walk_block(Func *f, Block *b, OpFn fn, void *ctx)
{
	Op *op = b->first;
	while (op) {
		fn(f, op, ctx);
		for (int i = 0; i < op->nblocks; i++)
			if (op->blocks[i])
				walk_block(f, op->blocks[i], fn, ctx);
		op = op->next;
	}
}

/* fn may remove the op it is given or insert ops before it. */
void ir_walk(Func *f, OpFn fn, void *ctx)
{
	walk_block(f, f->entry, fn, ctx);
}

static void count_uses(Func *f, Op *op, void *ctx)
{
	(void)ctx;
	for (int i = 0; i < op->nopnds; i++)
		f->vals[op->opnds[i]].nuses++;
	adopt_blocks(op);
}

typedef struct Collect {
	Opcode code;
	Op **ops;
	int n, cap;
} Collect;

static void collect_op(Func *f, Op *op, void *ctx)
{
	Collect *c = ctx;
	if (op->code != c->code)
		return;
	c->ops = arena_grow(f->arena, c->ops, &c->cap, c->n + 1, sizeof(Op *));
	c->ops[c->n++] = op;
}

Op **ir_collect(Func *f, Opcode code, int *n)
{
	Collect c = {.code = code};
	ir_walk(f, collect_op, &c);
	*n = c.n;
	return c.ops;
}

bool ir_is_zero(Func *f, ValId v)
{
	Op *d = val(f, v)->def;
	if (d && d->code == OP_SPLAT)
		d = val(f, d->opnds[0])->def;
	if (!d || d->code != OP_CONST)
		return false;
	if (elem_is_fp(vtype(f, d->res[0]).elem))
		return d->fattr == 0.0 && !signbit(d->fattr);
	return d->iattr[0] == 0;
}

static ValId clone_val(Func *f, ValId from, ValId to, ValId *map, int nmap)
{
	val(f, to)->name = val(f, from)->name;
	val(f, to)->layout = val(f, from)->layout;
	if (from < nmap)
		map[from] = to;
	return to;
}

int ir_stages(const Func *f, const Op *op)
{
	while (op && op->code != OP_FOR)
		op = op->parent ? op->parent->parent : NULL;
	return op && op->iattr[1] ? (int)op->iattr[1] : f->num_stages;
}

Op *ir_clone(Func *f, const Op *op, ValId *map, int nmap)
{
	ValId *o = NEWN(f->arena, ValId, op->nopnds > 0 ? op->nopnds : 1);
	for (int i = 0; i < op->nopnds; i++) {
		ValId v = op->opnds[i];
		o[i] = v < nmap && map[v] ? map[v] : v;
	}
	Type *rt = NEWN(f->arena, Type, op->nres > 0 ? op->nres : 1);
	for (int i = 0; i < op->nres; i++)
		rt[i] = vtype(f, op->res[i]);
	Op *c = ir_new_op(f, op->code, o, op->nopnds, rt, op->nres, op->loc);
	c->iattr[0] = op->iattr[0];
	c->iattr[1] = op->iattr[1];
	c->fattr = op->fattr;
	c->sattr = op->sattr;
	for (int i = 0; i < op->nres; i++)
		clone_val(f, op->res[i], c->res[i], map, nmap);
	c->nblocks = op->nblocks;
	for (int k = 0; k < op->nblocks; k++) {
		const Block *b = op->blocks[k];
		if (!b)
			continue;
		Type *at = NEWN(f->arena, Type, b->nargs > 0 ? b->nargs : 1);
		for (int i = 0; i < b->nargs; i++)
			at[i] = vtype(f, b->args[i]);
		Block *nb = ir_new_block(f, b->nargs, at);
		for (int i = 0; i < b->nargs; i++)
			clone_val(f, b->args[i], nb->args[i], map, nmap);
		for (const Op *x = b->first; x; x = x->next)
			ir_append(nb, ir_clone(f, x, map, nmap));
		c->blocks[k] = nb;
		nb->parent = c;
	}
	return c;
}

typedef struct FirstFp8 {
	Op *op;
	ElemKind elem;
} FirstFp8;

static void first_fp8(Func *f, Op *op, void *ctx)
{
	FirstFp8 *w = ctx;
	for (int i = 0; i < op->nres && !w->op; i++)
		if (elem_is_f8(vtype(f, op->res[i]).elem))
			w->op = op, w->elem = vtype(f, op->res[i]).elem;
}

Op *ir_first_fp8(Func *f, ElemKind *elem)
{
	FirstFp8 w = {NULL, TY_VOID};
	ir_walk(f, first_fp8, &w);
	if (elem)
		*elem = w.elem;
	return w.op;
}

bool ir_inside(Func *f, ValId v, const Op *op)
{
	Value *x = val(f, v);
	Block *b = x->def ? x->def->parent : x->block;
	for (; b; b = b->parent ? b->parent->parent : NULL)
		if (b->parent == op)
			return true;
	return false;
}

ValId ir_add_iter(Func *f, Op *loop, ValId init)
{
	Block *body = loop->blocks[0];
	Op *y = body->last;
	Type t = vtype(f, init);
	ValId *ops = NEWN(f->arena, ValId, loop->nopnds + 1), *args = NEWN(f->arena, ValId, body->nargs + 1);
	ValId *res = NEWN(f->arena, ValId, loop->nres + 1), *ys = NEWN(f->arena, ValId, y->nopnds + 1);
	memcpy(ops, loop->opnds, sizeof(ValId) * (size_t)loop->nopnds);
	memcpy(args, body->args, sizeof(ValId) * (size_t)body->nargs);
	memcpy(res, loop->res, sizeof(ValId) * (size_t)loop->nres);
	memcpy(ys, y->opnds, sizeof(ValId) * (size_t)y->nopnds);
	ValId a = ir_new_value(f, t), r = ir_new_value(f, t);
	val(f, a)->block = body;
	val(f, a)->index = (int16_t)body->nargs;
	val(f, a)->layout = val(f, init)->layout;
	val(f, r)->def = loop;
	val(f, r)->index = (int16_t)loop->nres;
	val(f, r)->layout = val(f, init)->layout;
	ops[loop->nopnds++] = init;
	args[body->nargs++] = a;
	res[loop->nres++] = r;
	ys[y->nopnds++] = a;
	loop->opnds = ops;
	body->args = args;
	loop->res = res;
	y->opnds = ys;
	return a;
}

bool ir_op_has_side_effect(const Op *op)
{
	if (op_has(op->code, F_SIDE))
		return true;
	for (int i = 0; i < op->nblocks; i++)
		if (op->blocks[i] && ir_has_side_effect(op->blocks[i]))
			return true;
	return false;
}

bool ir_has_side_effect(Block *b)
{
	for (Op *op = b->first; op; op = op->next)
		if (ir_op_has_side_effect(op))
			return true;
	return false;
}

void ir_fill_uses(Func *f)
{
	for (int v = 0; v < f->nvals; v++)
		f->vals[v].nuses = 0;
	ir_walk(f, count_uses, NULL);
}

typedef struct Subst {
	ValId from, to;
} Subst;

static void subst_op(Func *f, Op *op, void *ctx)
{
	Subst *s = ctx;
	(void)f;
	for (int i = 0; i < op->nopnds; i++)
		if (op->opnds[i] == s->from)
			op->opnds[i] = s->to;
}

void ir_replace_uses(Func *f, ValId from, ValId to)
{
	Subst s = {from, to};
	ir_walk(f, subst_op, &s);
}

void fw_set(Func *f, Forward *w, ValId from, ValId to)
{
	if (from >= w->cap) /* the arena's memory comes zeroed */
		w->to = arena_grow(f->arena, w->to, &w->cap, f->nvals, sizeof(ValId));
	w->to[from] = to;
	w->any = true;
}

void fw_opnds(Forward *w, Op *op)
{
	if (!w->any)
		return;
	for (int i = 0; i < op->nopnds; i++)
		while (op->opnds[i] < w->cap && w->to[op->opnds[i]])
			op->opnds[i] = w->to[op->opnds[i]];
}

static void fw_op(Func *f, Op *op, void *ctx)
{
	(void)f;
	fw_opnds(ctx, op);
}

void fw_apply(Func *f, Forward *w)
{
	if (w->any)
		ir_walk(f, fw_op, w);
}

/* ---- builder ---- */

void b_place(Builder *b, Op *op)
{
	if (b->before)
		ir_insert_before(b->before, op);
	else
		ir_append(b->at, op);
}

ValId b_op1(Builder *b, Opcode code, Type rt, const ValId *opnds, int nopnds)
{
	Op *op = ir_new_op(b->f, code, opnds, nopnds, &rt, 1, b->loc);
	b_place(b, op);
	return op->res[0];
}

ValId b_op2(Builder *b, Opcode code, Type rt, ValId x, ValId y)
{
	ValId o[2] = {x, y};
	return b_op1(b, code, rt, o, 2);
}

/* Integer constants are kept sign-extended from their width (i1: 0 or 1). */
ValId b_const_int(Builder *b, ElemKind e, int64_t v)
{
	int bits = elem_bits(e);
	if (e == TY_I1)
		v &= 1;
	else if (bits > 0 && bits < 64)
		v = (int64_t)((uint64_t)v << (64 - bits)) >> (64 - bits);
	Type t = type_scalar(e);
	Op *op = ir_new_op(b->f, OP_CONST, NULL, 0, &t, 1, b->loc);
	op->iattr[0] = v;
	b_place(b, op);
	return op->res[0];
}

ValId b_const_float(Builder *b, ElemKind e, double v)
{
	Type t = type_scalar(e);
	Op *op = ir_new_op(b->f, OP_CONST, NULL, 0, &t, 1, b->loc);
	op->fattr = v;
	b_place(b, op);
	return op->res[0];
}
