/*
 * lower.c: the semantic checks, and the AST of one kernel to tile IR.
 *
 * The kernel is specialised while it is lowered: constexpr parameters are
 * bound to their values (defaults or -D), so every shape is known and
 * checked here, with the error at the node that caused it.  Expressions
 * yield an Rv: an IR value plus whether it is a *weak* literal (`2`, `0.5`,
 * `inf`), which takes the type of the other operand (docs/language.md,
 * "Promotion and broadcasting").  Scalar integer constants are evaluated
 * on the spot so that `BLOCK * 2` can size a tile; the fold pass does the
 * rest.
 *
 * Mutable variables are renamed SSA-style: an assignment rebinds the name to
 * the new value.  `for` and `if` first scan their bodies for assignments to
 * outer variables; those become loop-carried values (block arguments of the
 * body, results of the loop) or results of the `if`.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compile.h"
#include "token.h"

#define MAX_NUMEL (1 << 20)
#define MAX_PARAMS 256 /* of each kind: runtime and const */

/*
 * A block pointer (make_block_ptr, as Triton's): a block of a tensor in
 * global memory.  It is no IR value: its parts are, and load, store and
 * advance take them apart (a loop carries each part).  The block's shape
 * and the integer type of the index arithmetic are fixed when it is made.
 */
typedef struct BPtr {
	int rank;
	int32_t block[MAX_RANK];
	ElemKind idx;                   /* i32, or i64 where a shape, stride or offset is */
	ValId part[1 + 3 * MAX_RANK];   /* the base, then rank shapes, rank strides, rank offsets */
} BPtr;

enum { BP_BASE = 0 };
enum { BP_SHAPE, BP_STRIDE, BP_OFFSET }; /* the kinds of per-axis parts, in the order they are kept */
static int bp_nparts(const BPtr *p) { return 1 + 3 * p->rank; }
static int bp_part(const BPtr *p, int kind, int d) { return 1 + kind * p->rank + d; }

typedef struct Binding Binding;
struct Binding {
	const char *name;
	ValId v;
	BPtr *bp;            /* a block pointer's parts (v is then its base) */
	Loc loc;
	bool mutable_;
	bool used;
	bool runtime_param;  /* a kernel parameter without `const`, or an fn's parameter */
	bool weak;           /* an fn's parameter bound to a weak literal */
	bool is_iv;          /* a for-loop induction variable */
	Binding *next;
};

typedef struct Scope Scope;
struct Scope {
	Binding *vars;
	Scope *up;
};

/* An fn call being inlined; the innermost is l->calls. */
typedef struct Call {
	const Kernel *fn;
	struct Call *up;
} Call;

typedef struct L {
	Arena *a;
	Diag *d;
	Func *f;
	Builder b;
	Scope *scope;
	const Program *p;
	const Kernel *k;
	Call *calls;
	int ninlined;   /* fn calls inlined so far in this kernel */
	Loc *unused;    /* where an unused variable was reported: an fn inlined again says it once */
	int nunused, capunused;
	int depth;      /* statements open around this one, across inlined fn bodies */
	int edepth;     /* expressions open around this one, the same way */
	int64_t copies; /* copies of the innermost static_range body made by the nest around it */
} L;

typedef struct Rv {
	ValId v;
	bool weak;
	BPtr *bp;  /* a block pointer (v is its base): only bexpr() passes one on */
} Rv;

static Rv rv(ValId v, bool weak) { return (Rv){v, weak, NULL}; }

static Rv expr(L *l, Node *n);
static Rv bexpr(L *l, Node *n);
static void stmt(L *l, Node *n);
static void block_stmts(L *l, Node *n);
static void if_stmt(L *l, Node *n);
static int values_of(L *l, Node *e, Rv *out);
static int combine_call(L *l, Node *call, bool scan, Rv *out);

enum { MAX_INLINED = 10000, MAX_RESULTS = 16, MAX_CARRIED = 63 };

/* ---- small helpers ---- */

static const char *tstr(L *l, Type t)
{
	char buf[128];
	return arena_strdup(l->a, type_str(t, buf, sizeof buf));
}

static const char *shape_str(L *l, Type t)
{
	char buf[96];
	int n = 0;
	n += snprintf(buf + n, sizeof buf - n, "[");
	for (int i = 0; i < t.rank; i++)
		n += snprintf(buf + n, sizeof buf - n, "%s%d", i ? ", " : "", t.shape[i]);
	snprintf(buf + n, sizeof buf - n, "]");
	return arena_strdup(l->a, buf);
}

static Type ty(L *l, ValId v) { return vtype(l->f, v); }

static ValId emit(L *l, Opcode code, Type rt, const ValId *ops, int nops)
{
	return b_op1(&l->b, code, rt, ops, nops);
}

static bool const_of(L *l, ValId v, int64_t *i, double *fv)
{
	Op *op = l->f->vals[v].def;
	if (!op || op->code != OP_CONST)
		return false;
	if (i)
		*i = op->iattr[0];
	if (fv)
		*fv = op->fattr;
	return true;
}

static bool const_int(L *l, ValId v, int64_t *out)
{
	return elem_is_int(ty(l, v).elem) && ty(l, v).rank == 0 && const_of(l, v, out, NULL);
}

static void check_tile(L *l, Loc loc, int rank, const int32_t *shape)
{
	if (rank > MAX_RANK)
		error_at(l->d, loc, "tensors of rank %d are not supported (at most %d)", rank, MAX_RANK);
	int64_t n = 1;
	for (int i = 0; i < rank; i++) {
		if (!is_pow2(shape[i])) {
			char buf[80];
			int k = snprintf(buf, sizeof buf, "[");
			for (int j = 0; j < rank; j++)
				k += snprintf(buf + k, sizeof buf - k, "%s%d", j ? ", " : "", shape[j]);
			snprintf(buf + k, sizeof buf - k, "]");
			error_at(l->d, loc, "tile dimensions must be powers of two, got %s", buf);
		}
		n *= shape[i];
	}
	if (n > MAX_NUMEL)
		error_at(l->d, loc, "tile of %lld elements is too large (at most %d)", (long long)n, MAX_NUMEL);
}

/* ---- scopes ---- */

static void push_scope(L *l)
{
	Scope *s = NEW(l->a, Scope);
	s->up = l->scope;
	l->scope = s;
}

static void pop_scope(L *l)
{
	for (Binding *b = l->scope->vars; b; b = b->next) {
		/* in a static_range body a name may serve only some copies (`if i == 0 { ... }`) */
		if (b->used || b->runtime_param || b->name[0] == '_' || l->copies > 1)
			continue;
		bool seen = false;
		for (int i = 0; i < l->nunused && !seen; i++)
			seen = l->unused[i].line == b->loc.line && l->unused[i].col == b->loc.col;
		if (seen)
			continue;
		l->unused = arena_grow(l->a, l->unused, &l->capunused, l->nunused + 1, sizeof(Loc));
		l->unused[l->nunused++] = b->loc;
		warn_at(l->d, b->loc, "unused variable '%s'", b->name);
	}
	l->scope = l->scope->up;
}

static Binding *bind(L *l, const char *name, ValId v, Loc loc, bool mutable_)
{
	Binding *b = NEW(l->a, Binding);
	b->name = name;
	b->v = v;
	b->loc = loc;
	b->mutable_ = mutable_;
	b->next = l->scope->vars;
	l->scope->vars = b;
	if (!l->f->vals[v].name)
		l->f->vals[v].name = name;
	return b;
}

/* name bound to x: a value, or a block pointer */
static Binding *bind_rv(L *l, const char *name, Rv x, Loc loc, bool mutable_)
{
	Binding *b = bind(l, name, x.v, loc, mutable_);
	b->bp = x.bp;
	return b;
}

static Binding *lookup(L *l, const char *name)
{
	for (Scope *s = l->scope; s; s = s->up)
		for (Binding *b = s->vars; b; b = b->next)
			if (strcmp(b->name, name) == 0)
				return b;
	return NULL;
}

/* ---- constants ---- */

static ValId cint(L *l, ElemKind e, int64_t v) { return b_const_int(&l->b, e, v); }
static ValId cfloat(L *l, ElemKind e, double v) { return b_const_float(&l->b, e, v); }

static ValId zero_of(L *l, ElemKind e) { return elem_is_float(e) || elem_is_f8(e) ? cfloat(l, e, 0) : cint(l, e, 0); }

static Rv weak_int(L *l, int64_t v)
{
	ElemKind e = (v >= INT32_MIN && v <= INT32_MAX) ? TY_I32 : TY_I64;
	return rv(cint(l, e, v), true);
}

/* ---- conversions ---- */

static ValId cast_to(L *l, ValId v, ElemKind e)
{
	Type t = ty(l, v);
	if (t.elem == e)
		return v;
	int64_t i;
	double fv;
	if (t.rank == 0 && const_of(l, v, &i, &fv)) {
		/* fold casts of constants here so weak literals stay constants */
		bool from_float = elem_is_float(t.elem) || elem_is_f8(t.elem);
		if (elem_is_float(e))
			return cfloat(l, e, from_float ? fv : (double)i);
		if (elem_is_f8(e))
			return cfloat(l, e, f8_round(e, from_float ? fv : (double)i));
		if (!from_float)
			return cint(l, e, e == TY_I1 ? i != 0 : i);
	}
	return emit(l, OP_CAST, type_with_elem(t, e), &v, 1);
}

static ValId bitcast(L *l, ValId v, ElemKind e)
{
	return emit(l, OP_BITCAST, type_with_elem(ty(l, v), e), &v, 1);
}

/* numpy broadcasting of two shapes; false if they do not broadcast */
static bool broadcast_shape(Type a, Type b, Type *out)
{
	int r = a.rank > b.rank ? a.rank : b.rank;
	Type t = a.rank >= b.rank ? a : b;
	for (int i = 0; i < r; i++) {
		int da = i < r - a.rank ? 1 : a.shape[i - (r - a.rank)];
		int db = i < r - b.rank ? 1 : b.shape[i - (r - b.rank)];
		if (da != db && da != 1 && db != 1)
			return false;
		t.shape[i] = da > db ? da : db;
	}
	t.rank = r;
	*out = t;
	return true;
}

/* Whether t broadcasts to exactly `shape`'s shape (it may gain leading axes, not change the rank of shape). */
static bool broadcasts_to(Type t, Type shape)
{
	Type s;
	return broadcast_shape(t, shape, &s) && s.rank == shape.rank &&
	       !memcmp(s.shape, shape.shape, sizeof(int32_t) * s.rank);
}

/* v with a new axis of 1 at `at`; a scalar becomes a 1-element tile. */
static ValId expand_at(L *l, ValId v, int at)
{
	Type t = ty(l, v), u = t;
	memmove(u.shape + at + 1, u.shape + at, sizeof(int32_t) * (t.rank - at));
	u.shape[at] = 1;
	u.rank++;
	if (t.rank == 0)
		return emit(l, OP_SPLAT, u, &v, 1);
	v = emit(l, OP_EXPAND_DIMS, u, &v, 1);
	l->f->vals[v].def->iattr[0] = at;
	return v;
}

/* v (scalar or tensor) stretched to `shape` (its element type kept). */
static ValId broadcast_to(L *l, ValId v, Type shape)
{
	Type t = ty(l, v);
	Type want = type_with_elem(shape, t.elem);
	want.pointee = t.pointee;
	if (shape.rank == 0 || type_eq(t, want))
		return v;
	if (t.rank == 0)
		return emit(l, OP_SPLAT, want, &v, 1);
	while (ty(l, v).rank < shape.rank)
		v = expand_at(l, v, 0);
	if (!type_eq(ty(l, v), want))
		v = emit(l, OP_BROADCAST, want, &v, 1);
	return v;
}

static int float_rank(ElemKind e)
{
	switch (e) {
	case TY_F16: return 1;
	case TY_BF16: return 2;
	case TY_F32: return 3;
	case TY_F64: return 4;
	default: return 0;
	}
}

/* The element type two operands are computed in (docs/language.md). */
static ElemKind promote(Type ta, bool wa, Type tb, bool wb)
{
	ElemKind a = ta.elem, b = tb.elem;
	if (a == b)
		return a;
	if (wa != wb) {
		ElemKind strong = wa ? b : a, weak = wa ? a : b;
		if (elem_is_float(weak) && elem_is_f8(strong))
			return strong;
		if (elem_is_float(weak) && !elem_is_float(strong))
			return weak == TY_F64 ? TY_F64 : TY_F32;
		return strong;
	}
	bool fa = elem_is_float(a), fb = elem_is_float(b);
	if (fa && fb) {
		if ((a == TY_F16 && b == TY_BF16) || (a == TY_BF16 && b == TY_F16))
			return TY_F32;
		return float_rank(a) > float_rank(b) ? a : b;
	}
	if (fa)
		return a;
	if (fb)
		return b;
	return elem_bits(a) >= elem_bits(b) ? a : b;
}

static int64_t wrap(ElemKind e, int64_t v)
{
	switch (e) {
	case TY_I1: return v & 1;
	case TY_I8: return (int8_t)v;
	case TY_I16: return (int16_t)v;
	case TY_I32: return (int32_t)v;
	default: return v;
	}
}

/* The largest finite value of a float type, plus half an ulp: beyond it a literal rounds to inf. */
static double float_limit(ElemKind e)
{
	switch (e) {
	case TY_F16: return 65520.0;
	case TY_BF16: return 3.3961775292304e38;
	case TY_F32: return 3.4028235677973366e38;
	case TY_F8E4M3: return 464.0;
	case TY_F8E5M2: return 61440.0;
	default: return INFINITY;
	}
}

/* A weak literal takes the other operand's type only if it fits in it. */
static void check_weak(L *l, Loc loc, Rv x, ElemKind e)
{
	int64_t i;
	double fv;
	Type t = ty(l, x.v);
	if (!x.weak || t.rank != 0 || !const_of(l, x.v, &i, &fv) || e == TY_PTR)
		return;
	if (!elem_is_float(t.elem) && elem_is_int(e) && e != TY_I1 && wrap(e, i) != i)
		error_at(l->d, loc, "integer literal %lld does not fit in %s", (long long)i, elem_name(e));
	if (elem_is_float(t.elem) && (elem_is_float(e) || elem_is_f8(e)) && isfinite(fv) && fabs(fv) >= float_limit(e))
		error_at(l->d, loc, "float literal %g overflows %s", fv, elem_name(e));
}

/* The fp8 types are for storage: load, store, cast, where, dot and the ops that move elements take them. */
static void no_f8(L *l, Loc loc, const char *what, Type t)
{
	if (elem_is_f8(t.elem))
		error_at(l->d, loc, "'%s' does not take %s values (fp8 is a storage type: load, store, cast, where and "
			 "dot take it); cast to f16, bf16 or f32 first", what, elem_name(t.elem));
}

/* Broadcast and promote a pair of operands; report at `loc` if shapes clash. */
static void unify(L *l, Loc loc, Rv *x, Rv *y, ElemKind e)
{
	Type tx = ty(l, x->v), ty_ = ty(l, y->v), s;
	if (!broadcast_shape(tx, ty_, &s))
		error_at(l->d, loc, "shapes %s and %s do not broadcast", tstr(l, tx), tstr(l, ty_));
	check_weak(l, loc, *x, e);
	check_weak(l, loc, *y, e);
	x->v = broadcast_to(l, cast_to(l, x->v, e), s);
	y->v = broadcast_to(l, cast_to(l, y->v, e), s);
}

static ValId to_bool(L *l, Loc loc, Rv x, const char *what)
{
	Type t = ty(l, x.v);
	if (t.elem == TY_I1)
		return x.v;
	if (!elem_is_int(t.elem))
		error_at(l->d, loc, "'%s' needs an integer or i1 operand, got %s", what, tstr(l, t));
	Rv zero = rv(cint(l, t.elem, 0), true);
	ValId z = broadcast_to(l, zero.v, t);
	ValId ops[2] = {x.v, z};
	ValId r = emit(l, OP_CMP, type_with_elem(t, TY_I1), ops, 2);
	l->f->vals[r].def->iattr[0] = CMP_NE;
	return r;
}

/* ---- binary operators ---- */

static bool fold_int(int op, int64_t a, int64_t b, int64_t *r)
{
	switch (op) {
	case TK_PLUS: *r = (int64_t)((uint64_t)a + (uint64_t)b); return true;
	case TK_MINUS: *r = (int64_t)((uint64_t)a - (uint64_t)b); return true;
	case TK_STAR: *r = (int64_t)((uint64_t)a * (uint64_t)b); return true;
	case TK_SLASH: if (b == 0 || (a == INT64_MIN && b == -1)) return false; *r = a / b; return true;
	case TK_PERCENT: if (b == 0 || (a == INT64_MIN && b == -1)) return false; *r = a % b; return true;
	case TK_SHL: if (b < 0 || b > 62) return false; *r = (int64_t)((uint64_t)a << b); return true;
	case TK_SHR: if (b < 0 || b > 63) return false; *r = a >> b; return true;
	case TK_AMP: *r = a & b; return true;
	case TK_PIPE: *r = a | b; return true;
	case TK_CARET: *r = a ^ b; return true;
	default: return false;
	}
}

static Opcode arith_op(int tok)
{
	switch (tok) {
	case TK_PLUS: return OP_ADD;
	case TK_MINUS: return OP_SUB;
	case TK_STAR: return OP_MUL;
	case TK_SLASH: return OP_DIV;
	case TK_PERCENT: return OP_REM;
	case TK_AMP: return OP_AND;
	case TK_PIPE: return OP_OR;
	case TK_CARET: return OP_XOR;
	case TK_SHL: return OP_SHL;
	case TK_SHR: return OP_SHR;
	default: return OP_COUNT;
	}
}

static int cmp_pred(int tok)
{
	switch (tok) {
	case TK_EQ: return CMP_EQ;
	case TK_NE: return CMP_NE;
	case TK_LT: return CMP_LT;
	case TK_LE: return CMP_LE;
	case TK_GT: return CMP_GT;
	case TK_GE: return CMP_GE;
	default: return -1;
	}
}

static Rv pointer_arith(L *l, Loc loc, int op, Rv x, Rv y)
{
	Type tx = ty(l, x.v), ty_ = ty(l, y.v);
	if (tx.elem != TY_PTR) { /* int + ptr */
		Rv t = x; x = y; y = t;
		tx = ty(l, x.v); ty_ = ty(l, y.v);
		if (op == TK_MINUS)
			goto bad;
	}
	if (ty_.elem == TY_PTR || !elem_is_int(ty_.elem) || ty_.elem == TY_I1 || (op != TK_PLUS && op != TK_MINUS))
		goto bad;
	Type s;
	if (!broadcast_shape(tx, ty_, &s))
		error_at(l->d, loc, "shapes %s and %s do not broadcast", tstr(l, tx), tstr(l, ty_));
	ValId off = y.v;
	if (op == TK_MINUS)
		off = emit(l, OP_NEG, ty_, &off, 1);
	ValId ops[2] = {broadcast_to(l, x.v, s), broadcast_to(l, off, s)};
	Type rt = s;
	rt.elem = TY_PTR;
	rt.pointee = tx.pointee;
	return rv(emit(l, OP_PTRADD, rt, ops, 2), false);
bad:
	error_at(l->d, loc, "invalid operands to '%s': %s and %s", tok_text[op], tstr(l, ty(l, x.v)),
		 tstr(l, ty(l, y.v)));
}

static Rv binary(L *l, Loc loc, int op, Rv x, Rv y)
{
	Type tx = ty(l, x.v), ty_ = ty(l, y.v);
	if (op == TK_ANDAND || op == TK_OROR) {
		Rv a = rv(to_bool(l, loc, x, tok_text[op]), false), b = rv(to_bool(l, loc, y, tok_text[op]), false);
		unify(l, loc, &a, &b, TY_I1);
		ValId ops[2] = {a.v, b.v};
		return rv(emit(l, op == TK_ANDAND ? OP_AND : OP_OR, ty(l, a.v), ops, 2), false);
	}
	int pred = cmp_pred(op);
	if (tx.elem == TY_PTR || ty_.elem == TY_PTR) {
		if (pred >= 0 && tx.elem == TY_PTR && ty_.elem == TY_PTR && tx.pointee == ty_.pointee) {
			Type s;
			if (!broadcast_shape(tx, ty_, &s))
				error_at(l->d, loc, "shapes %s and %s do not broadcast", tstr(l, tx), tstr(l, ty_));
			ValId ops[2] = {broadcast_to(l, x.v, s), broadcast_to(l, y.v, s)};
			ValId r = emit(l, OP_CMP, type_with_elem(s, TY_I1), ops, 2);
			l->f->vals[r].def->iattr[0] = pred;
			return rv(r, false);
		}
		if (pred >= 0)
			error_at(l->d, loc, "invalid operands to '%s': %s and %s", tok_text[op], tstr(l, tx), tstr(l, ty_));
		return pointer_arith(l, loc, op, x, y);
	}
	no_f8(l, loc, tok_text[op], tx);
	no_f8(l, loc, tok_text[op], ty_);
	ElemKind e = promote(tx, x.weak, ty_, y.weak);
	Opcode code = arith_op(op);
	bool bitwise = op == TK_AMP || op == TK_PIPE || op == TK_CARET || op == TK_SHL || op == TK_SHR;
	if (bitwise && elem_is_float(e))
		error_at(l->d, loc, "'%s' needs integer operands, got %s and %s", tok_text[op], tstr(l, tx), tstr(l, ty_));
	if (e == TY_I1 && pred < 0 && !bitwise)
		e = TY_I32; /* arithmetic on booleans happens in i32 */
	bool weak = x.weak && y.weak;
	/* evaluate integer constants now, so constexpr arithmetic can size tiles */
	int64_t a, b, r;
	if (tx.rank == 0 && ty_.rank == 0 && elem_is_int(e) && const_int(l, x.v, &a) && const_int(l, y.v, &b)) {
		if (pred >= 0) {
			bool c = pred == CMP_EQ ? a == b : pred == CMP_NE ? a != b : pred == CMP_LT ? a < b
				 : pred == CMP_LE ? a <= b : pred == CMP_GT ? a > b : a >= b;
			return rv(cint(l, TY_I1, c), false);
		}
		if (fold_int(op, a, b, &r)) {
			if (weak)
				return weak_int(l, r);
			return rv(cint(l, e, wrap(e, r)), false);
		}
	}
	unify(l, loc, &x, &y, e);
	ValId ops[2] = {x.v, y.v};
	Type rt = ty(l, x.v);
	if (pred >= 0) {
		ValId v = emit(l, OP_CMP, type_with_elem(rt, TY_I1), ops, 2);
		l->f->vals[v].def->iattr[0] = pred;
		return rv(v, false);
	}
	if (code == OP_COUNT)
		die("binary operator %d", op);
	return rv(emit(l, code, rt, ops, 2), weak);
}

static Rv unary(L *l, Node *n)
{
	Rv x = expr(l, n->lhs);
	Type t = ty(l, x.v);
	int64_t i;
	double fv;
	switch (n->op) {
	case TK_MINUS:
		no_f8(l, n->loc, "-", t);
		if (t.elem == TY_PTR || t.elem == TY_I1)
			error_at(l->d, n->loc, "invalid operand to unary '-': %s", tstr(l, t));
		if (t.rank == 0 && const_of(l, x.v, &i, &fv))
			return rv(elem_is_float(t.elem) ? cfloat(l, t.elem, -fv) : cint(l, t.elem, wrap(t.elem, -(uint64_t)i)),
				    x.weak);
		return rv(emit(l, OP_NEG, t, &x.v, 1), x.weak);
	case TK_BANG: {
		ValId b = to_bool(l, n->loc, x, "!");
		if (t.rank == 0 && const_of(l, b, &i, NULL))
			return rv(cint(l, TY_I1, !i), false);
		return rv(emit(l, OP_NOT, ty(l, b), &b, 1), false);
	}
	case TK_TILDE:
		if (!elem_is_int(t.elem))
			error_at(l->d, n->loc, "'~' needs an integer or i1 operand, got %s", tstr(l, t));
		return rv(emit(l, OP_NOT, t, &x.v, 1), x.weak);
	}
	die("unary operator %d", n->op);
}

/* ---- names ---- */

static Rv name(L *l, Node *n)
{
	Binding *b = lookup(l, n->name);
	if (b) {
		b->used = true;
		return (Rv){b->v, b->weak, b->bp};
	}
	if (strcmp(n->name, "inf") == 0)
		return rv(cfloat(l, TY_F32, INFINITY), true);
	if (strcmp(n->name, "nan") == 0)
		return rv(cfloat(l, TY_F32, NAN), true);
	error_at(l->d, n->loc, "unknown name '%s'", n->name);
}

/* ---- built-in calls ---- */

typedef struct Args {
	Node *call;
	Node *a[6];
	int n;
} Args;

/*
 * Match positional and keyword arguments of a call against `names`
 * (NULL-terminated); the first `min` are required.
 */
static Args args_of(L *l, Node *call, const char *const *names, int min)
{
	Args r = {.call = call};
	int max = 0;
	while (names[max])
		max++;
	int npos = 0;
	for (int i = 0; i < call->nargs; i++) {
		Node *arg = call->args[i];
		int slot = -1;
		if (arg->argname) {
			for (int j = 0; j < max; j++)
				if (strcmp(names[j], arg->argname) == 0)
					slot = j;
			if (slot < 0)
				error_at(l->d, arg->loc, "unknown keyword argument '%s' to '%s'", arg->argname, call->name);
		} else {
			slot = npos++;
			if (slot >= max) {
				if (min == max)
					error_at(l->d, call->loc, "'%s' takes %d argument(s), got %d", call->name, max, call->nargs);
				error_at(l->d, call->loc, "'%s' takes %d to %d arguments, got %d", call->name, min, max,
					 call->nargs);
			}
		}
		if (r.a[slot])
			error_at(l->d, arg->loc, "argument '%s' given twice", names[slot]);
		r.a[slot] = arg;
		if (slot + 1 > r.n)
			r.n = slot + 1;
	}
	for (int j = 0; j < min; j++)
		if (!r.a[j]) {
			if (min == max)
				error_at(l->d, call->loc, "'%s' takes %d argument(s), got %d", call->name, max, call->nargs);
			error_at(l->d, call->loc, "'%s' takes %d to %d arguments, got %d", call->name, min, max, call->nargs);
		}
	return r;
}

/* A compile-time integer argument; `shape` says it sizes a tile. */
static int64_t const_arg(L *l, Node *n, const char *what, bool shape)
{
	Rv v = expr(l, n);
	int64_t i;
	if (!const_int(l, v.v, &i)) {
		if (shape && n->kind == ND_NAME) {
			Binding *b = lookup(l, n->name);
			if (b && b->runtime_param)
				error_at(l->d, n->loc, "'%s' is not a constexpr; shapes must be compile-time constants", n->name);
		}
		error_at(l->d, n->loc, "%s", what);
	}
	return i;
}

static int axis_arg(L *l, Node *n, Type t)
{
	int64_t ax = const_arg(l, n, "axis must be a compile-time constant", false);
	if (ax < 0)
		ax += t.rank;
	if (ax < 0 || ax >= t.rank)
		error_at(l->d, n->loc, "axis %lld is out of range for %s", (long long)ax, tstr(l, t));
	return (int)ax;
}

static ElemKind type_arg(L *l, Node *call, Node *n)
{
	if (!n || n->kind != ND_TYPE || n->ty.is_ptr)
		error_at(l->d, n ? n->loc : call->loc, "'%s' needs a type as its %s argument", call->name,
			 strcmp(call->name, "full") == 0 ? "third" : "second");
	return (ElemKind)n->ty.elem;
}

/* The items of a list argument `[a, b]` or `(a, b)` into *items, and how many; a lone `a` is one. */
static int list_items(Node **n, Node ***items)
{
	bool list = (*n)->kind == ND_LIST || (*n)->kind == ND_TUPLE;
	*items = list ? (*n)->args : n;
	return list ? (*n)->nargs : 1;
}

static Type shape_arg(L *l, Node *n, ElemKind e)
{
	int32_t shape[8];
	int rank = 0;
	Node **items;
	int nitems = list_items(&n, &items);
	if (nitems > 8)
		error_at(l->d, n->loc, "tensors of rank %d are not supported (at most %d)", nitems, MAX_RANK);
	for (int i = 0; i < nitems; i++) {
		int64_t v = const_arg(l, items[i], "shape must be a list of compile-time constants", true);
		if (v <= 0 || v > MAX_NUMEL)
			error_at(l->d, items[i]->loc, "tile dimensions must be powers of two, got %lld", (long long)v);
		shape[rank++] = (int32_t)v;
	}
	check_tile(l, n->loc, rank, shape);
	return type_tensor(e, rank, shape);
}

static Type need_tensor(L *l, Node *n, Rv x, const char *fn)
{
	Type t = ty(l, x.v);
	if (t.rank == 0)
		error_at(l->d, n->loc, "'%s' needs a tensor, got %s", fn, tstr(l, t));
	return t;
}

/* t without axis ax: a reduction's result type */
static Type drop_axis(Type t, int ax)
{
	memmove(t.shape + ax, t.shape + ax + 1, sizeof(int32_t) * (t.rank - ax - 1));
	t.rank--;
	return t;
}

/* The reduction `code` of tile v along ax. */
static ValId reduce_of(L *l, Opcode code, ValId v, int ax)
{
	Type rt = drop_axis(ty(l, v), ax);
	if (code == OP_ARGMAX || code == OP_ARGMIN)
		rt.elem = TY_I32;
	ValId r = emit(l, code, rt, &v, 1);
	l->f->vals[r].def->iattr[0] = ax;
	return r;
}

static Rv reduce(L *l, Node *call, Opcode code)
{
	static const char *const names[] = {"x", "axis", NULL};
	Args a = args_of(l, call, names, 2);
	Rv x = expr(l, a.a[0]);
	Type t = need_tensor(l, a.a[0], x, call->name);
	if (t.elem == TY_PTR)
		error_at(l->d, a.a[0]->loc, "'%s' needs numbers, got %s", call->name, tstr(l, t));
	no_f8(l, a.a[0]->loc, call->name, t);
	int ax = axis_arg(l, a.a[1], t);
	ValId v = x.v;
	if (code == OP_SUM && (t.elem == TY_F16 || t.elem == TY_BF16))
		v = cast_to(l, v, TY_F32); /* sums of halves accumulate in f32 */
	else if (code == OP_SUM && elem_bits(t.elem) < 32)
		v = cast_to(l, v, TY_I32);
	return rv(reduce_of(l, code, v, ax), false);
}

/* body as op's next region */
static void add_region(Op *op, Block *body)
{
	op->blocks[op->nblocks++] = body;
	body->parent = op;
}

/* A reduce (SCAN: scan) of tile x along ax whose region is the binary op `with` in x's type. */
static ValId region_op(L *l, Loc loc, Opcode code, Opcode with, ValId x, int ax, bool rev)
{
	Type t = ty(l, x), st = type_scalar(t.elem), at[2] = {st, st}, rt = code == OP_REDUCE ? drop_axis(t, ax) : t;
	Block *body = ir_new_block(l->f, 2, at);
	Op *c = ir_new_op(l->f, with, body->args, 2, &st, 1, loc);
	ir_append(body, c);
	ir_append(body, ir_new_op(l->f, OP_YIELD, c->res, 1, NULL, 0, loc));
	Op *op = ir_new_op(l->f, code, &x, 1, &rt, 1, loc);
	op->iattr[0] = ax;
	op->iattr[1] = rev;
	add_region(op, body);
	b_place(&l->b, op);
	return op->res[0];
}

/* xor_sum(x, axis): the XOR of integers along axis, as Triton's tl.xor_sum */
static Rv xor_sum(L *l, Node *call)
{
	static const char *const names[] = {"x", "axis", NULL};
	Args a = args_of(l, call, names, 2);
	Rv x = expr(l, a.a[0]);
	Type t = need_tensor(l, a.a[0], x, "xor_sum");
	if (!elem_is_int(t.elem) || t.elem == TY_I1)
		error_at(l->d, a.a[0]->loc, "'xor_sum' needs integers, got %s", tstr(l, t));
	return rv(region_op(l, call->loc, OP_REDUCE, OP_XOR, x.v, axis_arg(l, a.a[1], t), false), false);
}

/*
 * cumsum(x, axis = 0, reverse = false): running sums, accumulated as sum
 * does (halves in f32, small ints in i32).  cumprod: running products in
 * x's type, as Triton's tl.cumprod: a scan whose region multiplies.
 */
static Rv cumsum(L *l, Node *call, bool prod)
{
	static const char *const names[] = {"x", "axis", "reverse", NULL};
	Args a = args_of(l, call, names, 1);
	Rv x = expr(l, a.a[0]);
	Type t = need_tensor(l, a.a[0], x, call->name);
	if (t.elem == TY_PTR || t.elem == TY_I1)
		error_at(l->d, a.a[0]->loc, "'%s' needs numbers, got %s", call->name, tstr(l, t));
	no_f8(l, a.a[0]->loc, call->name, t);
	int ax = a.a[1] ? axis_arg(l, a.a[1], t) : 0;
	int64_t rev = a.a[2] ? const_arg(l, a.a[2], "reverse must be a compile-time constant", false) : 0;
	if (prod)
		return rv(region_op(l, call->loc, OP_SCAN, OP_MUL, x.v, ax, rev != 0), false);
	ValId v = x.v;
	if (t.elem == TY_F16 || t.elem == TY_BF16)
		v = cast_to(l, v, TY_F32);
	else if (elem_bits(t.elem) < 32)
		v = cast_to(l, v, TY_I32);
	l->b.loc = call->loc;
	ValId r = emit(l, OP_CUMSUM, ty(l, v), &v, 1);
	l->f->vals[r].def->iattr[0] = ax;
	l->f->vals[r].def->iattr[1] = rev != 0;
	return rv(r, false);
}

static Rv unary_math(L *l, Node *call, Opcode code)
{
	static const char *const names[] = {"x", NULL};
	Args a = args_of(l, call, names, 1);
	Rv x = expr(l, a.a[0]);
	Type t = ty(l, x.v);
	no_f8(l, a.a[0]->loc, call->name, t);
	if (x.weak && !elem_is_float(t.elem) && code != OP_ABS)
		x.v = cast_to(l, x.v, TY_F32), t = ty(l, x.v);
	if (code == OP_ABS ? (t.elem == TY_PTR || t.elem == TY_I1) : !elem_is_float(t.elem))
		error_at(l->d, a.a[0]->loc, "'%s' needs a %s operand, got %s", call->name,
			 code == OP_ABS ? "numeric" : "float", tstr(l, t));
	if (!op_elem_ok(code, t.elem) || (t.elem == TY_F64 && !strcmp(call->name, "sigmoid")))
		error_at(l->d, a.a[0]->loc, "'%s' of f64 is not supported (the GPU has no f64 %s); cast to f32",
			 call->name, call->name);
	return rv(emit(l, code, t, &x.v, 1), x.weak);
}

static Rv sigmoid(L *l, Node *call)
{
	Rv x = unary_math(l, call, OP_NEG); /* checks and negates: -x */
	ValId e = emit(l, OP_EXP, ty(l, x.v), &x.v, 1);
	Rv one = rv(cfloat(l, TY_F32, 1.0), true);
	Rv den = binary(l, call->loc, TK_PLUS, rv(e, false), one);
	return binary(l, call->loc, TK_SLASH, one, den);
}

/*
 * pow(x, y): x^y, and atan2(y, x): the angle of the point (x, y), on
 * floats, broadcasting, as C's (special values included); computed in f32
 * (integers: pow(2, 3), as in Triton) and rounded to the operands' type.
 */
static Rv binary_math(L *l, Node *call, Opcode code)
{
	static const char *const xy[] = {"x", "y", NULL}, *const yx[] = {"y", "x", NULL};
	const char *name = call->name;
	Args a = args_of(l, call, code == OP_POW ? xy : yx, 2);
	Rv x = expr(l, a.a[0]), y = expr(l, a.a[1]);
	Type tx = ty(l, x.v), ty_ = ty(l, y.v);
	no_f8(l, a.a[0]->loc, name, tx);
	no_f8(l, a.a[1]->loc, name, ty_);
	if (tx.elem == TY_PTR || ty_.elem == TY_PTR || tx.elem == TY_I1 || ty_.elem == TY_I1)
		error_at(l->d, call->loc, "'%s' needs numbers, got %s and %s", name, tstr(l, tx), tstr(l, ty_));
	ElemKind e = promote(tx, x.weak, ty_, y.weak);
	if (e == TY_F64)
		error_at(l->d, call->loc, "'%s' of f64 is not supported (the GPU has no f64 %s); cast to f32", name, name);
	/* in f32, f16 and bf16 too: pow(h, 2049) must not round its exponent to 2048 first */
	unify(l, call->loc, &x, &y, TY_F32);
	l->b.loc = call->loc;
	ValId ops[2] = {x.v, y.v};
	ValId r = emit(l, code, ty(l, x.v), ops, 2);
	return rv(elem_is_float(e) && e != TY_F32 ? cast_to(l, r, e) : r, x.weak && y.weak);
}

static Rv pow_call(L *l, Node *call)
{
	return binary_math(l, call, OP_POW);
}

static Rv atan2_call(L *l, Node *call)
{
	return binary_math(l, call, OP_ATAN2);
}

/* isnan, isinf, isfinite: an i1 of x's shape; x != x, |x| == inf, |x| < inf */
static Rv classify(L *l, Node *call)
{
	static const char *const names[] = {"x", NULL};
	Args a = args_of(l, call, names, 1);
	Rv x = expr(l, a.a[0]);
	Type t = ty(l, x.v);
	if (!elem_is_float(t.elem))
		error_at(l->d, a.a[0]->loc, "'%s' needs a float operand, got %s", call->name, tstr(l, t));
	l->b.loc = call->loc;
	ValId ops[2] = {x.v, x.v};
	CmpPred p = CMP_NE;
	if (call->name[2] != 'n') { /* isinf, isfinite */
		ops[0] = emit(l, OP_ABS, t, &x.v, 1);
		ops[1] = broadcast_to(l, cfloat(l, t.elem, INFINITY), t);
		p = call->name[2] == 'i' ? CMP_EQ : CMP_LT;
	}
	ValId r = emit(l, OP_CMP, type_with_elem(t, TY_I1), ops, 2);
	l->f->vals[r].def->iattr[0] = p;
	return rv(r, false);
}

/* a / b on floats, with div.full's 2 ulp unless `ieee` asks for IEEE rounding (div_rn, fdiv) */
static Rv float_div(L *l, Node *call, Rv x, Rv y, bool ieee)
{
	Rv q = binary(l, call->loc, TK_SLASH, x, y);
	Op *op = l->f->vals[q.v].def;
	if (!op || op->code != OP_DIV || !elem_is_float(ty(l, q.v).elem))
		error_at(l->d, call->loc, "'%s' needs float operands, got %s and %s", call->name, tstr(l, ty(l, x.v)),
			 tstr(l, ty(l, y.v)));
	op->iattr[0] = ieee;
	return q;
}

/*
 * softmax(x, dim = 0, keep_dims = false, ieee_rounding = false), as
 * tl.softmax: exp(x - max) / sum(exp(x - max)) along dim, in x's shape
 * (keep_dims, which Triton's broadcasting needs, changes nothing here).
 * f16 and bf16 sum in f32, so their result is f32, as Triton's.
 */
static Rv softmax(L *l, Node *call)
{
	static const char *const names[] = {"x", "dim", "keep_dims", "ieee_rounding", NULL};
	Args a = args_of(l, call, names, 1);
	Rv x = expr(l, a.a[0]);
	Type t = need_tensor(l, a.a[0], x, "softmax");
	if (!elem_is_float(t.elem) || t.elem == TY_F64)
		error_at(l->d, a.a[0]->loc, "'softmax' needs f32, f16 or bf16 values, got %s", tstr(l, t));
	int ax = a.a[1] ? axis_arg(l, a.a[1], t) : 0;
	if (a.a[2])
		const_arg(l, a.a[2], "keep_dims must be a compile-time constant", false);
	bool ieee = a.a[3] && const_arg(l, a.a[3], "ieee_rounding must be a compile-time constant", false);
	l->b.loc = call->loc;
	ValId m = expand_at(l, reduce_of(l, OP_RMAX, x.v, ax), ax);
	Rv z = binary(l, call->loc, TK_MINUS, rv(x.v, false), rv(m, false));
	ValId num = emit(l, OP_EXP, t, &z.v, 1);
	ValId wide = t.elem == TY_F32 ? num : cast_to(l, num, TY_F32);
	ValId den = expand_at(l, reduce_of(l, OP_SUM, wide, ax), ax);
	return float_div(l, call, rv(num, false), rv(den, false), ieee);
}

/* OP_MAX or OP_MIN of two numbers, broadcast and promoted */
static Rv extremum(L *l, Loc loc, Opcode code, Rv x, Rv y)
{
	unify(l, loc, &x, &y, promote(ty(l, x.v), x.weak, ty(l, y.v), y.weak));
	ValId ops[2] = {x.v, y.v};
	return rv(emit(l, code, ty(l, x.v), ops, 2), x.weak && y.weak);
}

static Rv minmax(L *l, Node *call, int is_max)
{
	static const char *const names[] = {"a", "b", NULL};
	Args a = args_of(l, call, names, 2);
	Rv x = expr(l, a.a[0]), y = expr(l, a.a[1]);
	Type tx = ty(l, x.v), ty_ = ty(l, y.v);
	if (tx.elem == TY_PTR || ty_.elem == TY_PTR)
		error_at(l->d, call->loc, "invalid operands to '%s': %s and %s", call->name, tstr(l, tx), tstr(l, ty_));
	no_f8(l, a.a[0]->loc, call->name, tx);
	no_f8(l, a.a[1]->loc, call->name, ty_);
	return extremum(l, call->loc, is_max ? OP_MAX : OP_MIN, x, y);
}

/* clamp(x, min, max) = minimum(maximum(x, min), max), broadcasting all three */
static Rv clamp(L *l, Node *call)
{
	static const char *const names[] = {"x", "min", "max", NULL};
	Args a = args_of(l, call, names, 3);
	Rv v[3];
	for (int i = 0; i < 3; i++) {
		v[i] = expr(l, a.a[i]);
		if (ty(l, v[i].v).elem == TY_PTR)
			error_at(l->d, a.a[i]->loc, "'clamp' needs numbers, got %s", tstr(l, ty(l, v[i].v)));
		no_f8(l, a.a[i]->loc, "clamp", ty(l, v[i].v));
	}
	for (int i = 1; i < 3; i++)
		v[0] = extremum(l, call->loc, i == 1 ? OP_MAX : OP_MIN, v[0], v[i]);
	return v[0];
}

/* fma(a, b, c): a * b + c rounded once; floats, broadcasting all three */
static Rv fma_call(L *l, Node *call)
{
	static const char *const names[] = {"a", "b", "c", NULL};
	Args a = args_of(l, call, names, 3);
	Rv v[3] = {expr(l, a.a[0]), expr(l, a.a[1]), expr(l, a.a[2])};
	Type t[3] = {ty(l, v[0].v), ty(l, v[1].v), ty(l, v[2].v)}, s = t[0];
	for (int i = 0; i < 3; i++)
		no_f8(l, a.a[i]->loc, "fma", t[i]);
	ElemKind e = t[0].elem;
	bool weak = v[0].weak;
	for (int i = 1; i < 3; i++) {
		if (!broadcast_shape(s, t[i], &s))
			error_at(l->d, call->loc, "shapes %s, %s and %s do not broadcast", tstr(l, t[0]), tstr(l, t[1]),
				 tstr(l, t[2]));
		e = promote(type_with_elem(t[i], e), weak, t[i], v[i].weak);
		weak = weak && v[i].weak;
	}
	if (!elem_is_float(e) || t[0].elem == TY_PTR || t[1].elem == TY_PTR || t[2].elem == TY_PTR)
		error_at(l->d, call->loc, "'fma' needs float operands, got %s, %s and %s", tstr(l, t[0]), tstr(l, t[1]),
			 tstr(l, t[2]));
	ValId ops[3];
	for (int i = 0; i < 3; i++) {
		check_weak(l, call->loc, v[i], e);
		ops[i] = broadcast_to(l, cast_to(l, v[i].v, e), s);
	}
	l->b.loc = call->loc;
	return rv(emit(l, OP_FMA, ty(l, ops[0]), ops, 3), weak);
}

/* The element type of `call`'s two operands: promoted numbers, or pointers to one type (cast_to keeps them). */
static ElemKind pair_elem(L *l, Node *call, Rv x, Rv y)
{
	Type tx = ty(l, x.v), ty_ = ty(l, y.v);
	if (tx.elem == TY_PTR || ty_.elem == TY_PTR) {
		if (tx.elem != ty_.elem || tx.pointee != ty_.pointee)
			error_at(l->d, call->loc, "'%s' operands differ: %s and %s", call->name, tstr(l, tx), tstr(l, ty_));
		return TY_PTR;
	}
	ElemKind e = promote(tx, x.weak, ty_, y.weak);
	check_weak(l, call->loc, x, e);
	check_weak(l, call->loc, y, e);
	return e;
}

static Rv where(L *l, Node *call)
{
	static const char *const names[] = {"cond", "a", "b", NULL};
	Args a = args_of(l, call, names, 3);
	Rv c = rv(to_bool(l, a.a[0]->loc, expr(l, a.a[0]), "where"), false);
	Rv x = expr(l, a.a[1]), y = expr(l, a.a[2]);
	Type tx = ty(l, x.v), ty_ = ty(l, y.v), s;
	ElemKind e = pair_elem(l, call, x, y);
	if (!broadcast_shape(ty(l, c.v), tx, &s) || !broadcast_shape(s, ty_, &s))
		error_at(l->d, call->loc, "shapes %s, %s and %s do not broadcast", tstr(l, ty(l, c.v)), tstr(l, tx),
			 tstr(l, ty_));
	ValId ops[3] = {broadcast_to(l, c.v, s), broadcast_to(l, cast_to(l, x.v, e), s),
			broadcast_to(l, cast_to(l, y.v, e), s)};
	return rv(emit(l, OP_SELECT, ty(l, ops[1]), ops, 3), x.weak && y.weak);
}

/* x's elements in row-major order, in `shape` (as many elements). */
static ValId reshape_to(L *l, Loc loc, ValId x, int rank, const int32_t *shape)
{
	Type t = ty(l, x), r = t;
	r.rank = (uint8_t)rank;
	for (int d = 0; d < MAX_RANK; d++)
		r.shape[d] = d < rank ? shape[d] : 0;
	if (type_numel(r) != type_numel(t))
		error_at(l->d, loc, "cannot reshape %s (%lld elements) to %s (%lld)", tstr(l, t),
			 (long long)type_numel(t), tstr(l, r), (long long)type_numel(r));
	if (type_eq(r, t))
		return x;
	l->b.loc = loc;
	return emit(l, OP_RESHAPE, r, &x, 1);
}

static Rv reshape(L *l, Node *call)
{
	static const char *const names[] = {"x", "shape", NULL};
	Args a = args_of(l, call, names, 2);
	Rv x = expr(l, a.a[0]);
	need_tensor(l, a.a[0], x, "reshape");
	Type s = shape_arg(l, a.a[1], TY_I32);
	return rv(reshape_to(l, call->loc, x.v, s.rank, s.shape), x.weak);
}

/* the 2-D tile x transposed */
static ValId transpose(L *l, Loc loc, ValId x)
{
	Type t = ty(l, x);
	int32_t s = t.shape[0];
	t.shape[0] = t.shape[1];
	t.shape[1] = s;
	l->b.loc = loc;
	return emit(l, OP_TRANS, t, &x, 1);
}

/* permute(x, dims): axis i of the result is axis dims[i] of x (trans in any rank). */
static Rv permute(L *l, Node *call)
{
	static const char *const names[] = {"x", "dims", NULL};
	Args a = args_of(l, call, names, 2);
	Rv x = expr(l, a.a[0]);
	Type t = need_tensor(l, a.a[0], x, "permute"), r = t;
	Node *d = a.a[1], **items;
	int n = list_items(&d, &items), seen = 0;
	bool same = true;
	if (n != t.rank)
		error_at(l->d, d->loc, "'permute' of %s needs %d dims, got %d", tstr(l, t), t.rank, n);
	int64_t perm = 0;
	for (int i = 0; i < n; i++) {
		int64_t k = const_arg(l, items[i], "dims must be a list of compile-time constants", false);
		if (k < 0 || k >= t.rank || seen & 1 << k)
			error_at(l->d, items[i]->loc, "dims must name each axis of %s once (0 to %d)", tstr(l, t),
				 t.rank - 1);
		seen |= 1 << k;
		perm |= k << 2 * i;
		r.shape[i] = t.shape[k];
		same &= k == i;
	}
	if (same)
		return x;
	l->b.loc = call->loc;
	ValId v = emit(l, OP_PERMUTE, r, &x.v, 1);
	l->f->vals[v].def->iattr[0] = perm;
	l->f->vals[v].def->iattr[1] = t.rank;
	return rv(v, x.weak);
}

/* a and b, of one type and shape, side by side along a new last axis of 2 */
static ValId join_of(L *l, Loc loc, ValId a, ValId b)
{
	Type t = ty(l, a);
	t.shape[t.rank++] = 2;
	check_tile(l, loc, t.rank, t.shape);
	l->b.loc = loc;
	return emit(l, OP_JOIN, t, (ValId[]){a, b}, 2);
}

/*
 * join(a, b): a and b, promoted to one type and broadcast to one shape, side
 * by side along a new last axis of 2 ([..., 0] is a); interleave(a, b) is
 * that with the last two axes merged, so a[i] lands at 2i and b[i] at 2i+1.
 */
static Rv join(L *l, Node *call, bool interleave)
{
	static const char *const names[] = {"a", "b", NULL};
	Args a = args_of(l, call, names, 2);
	Rv x = expr(l, a.a[0]), y = expr(l, a.a[1]);
	Type tx = ty(l, x.v), ty_ = ty(l, y.v), s;
	ElemKind e = pair_elem(l, call, x, y);
	if (!broadcast_shape(tx, ty_, &s))
		error_at(l->d, call->loc, "shapes %s and %s do not broadcast", tstr(l, tx), tstr(l, ty_));
	if (s.rank == 0)
		error_at(l->d, call->loc, "'%s' needs a tile, got two scalars", call->name);
	if (s.rank >= MAX_RANK)
		error_at(l->d, call->loc, "'%s' of rank-%d tiles needs a join of rank %d (at most %d)", call->name,
			 s.rank, s.rank + 1, MAX_RANK);
	ValId j = join_of(l, call->loc, broadcast_to(l, cast_to(l, x.v, e), s), broadcast_to(l, cast_to(l, y.v, e), s));
	if (interleave) {
		Type t = ty(l, j);
		t.shape[t.rank - 2] *= 2;
		j = reshape_to(l, call->loc, j, t.rank - 1, t.shape);
	}
	return rv(j, x.weak && y.weak);
}

/* broadcast_to(input, shape): input stretched to `shape` (a constant list) by numpy's rules, as tl.broadcast_to */
static Rv broadcast_call(L *l, Node *call)
{
	static const char *const names[] = {"input", "shape", NULL};
	Args a = args_of(l, call, names, 2);
	Rv x = expr(l, a.a[0]);
	Type t = ty(l, x.v), s = shape_arg(l, a.a[1], t.elem);
	if (!broadcasts_to(t, s))
		error_at(l->d, call->loc, "cannot broadcast %s to the shape %s", tstr(l, t), shape_str(l, s));
	l->b.loc = call->loc;
	return rv(broadcast_to(l, x.v, s), false);
}

/*
 * expand_dims(input, axis): input with a new axis of 1 at `axis`, or at
 * each of a constant list of them, as tl.expand_dims: each counts in the
 * result's rank r, from -r to r - 1 (negative from the end), and they are
 * inserted in increasing order, so each lands where it says.
 */
static Rv expand_dims(L *l, Node *call)
{
	static const char *const names[] = {"input", "axis", NULL};
	Args a = args_of(l, call, names, 2);
	Rv x = expr(l, a.a[0]);
	Type t = ty(l, x.v);
	Node **items;
	int n = list_items(&a.a[1], &items), rank = t.rank + n, seen = 0;
	if (rank > MAX_RANK)
		error_at(l->d, a.a[1]->loc, "tensors of rank %d are not supported (at most %d)", rank, MAX_RANK);
	for (int i = 0; i < n; i++) {
		int64_t ax = const_arg(l, items[i], "axis must be a compile-time constant", false);
		if (ax < -rank || ax >= rank)
			error_at(l->d, items[i]->loc, "'expand_dims' axis %lld is out of range for a result of rank %d "
				 "(-%d to %d)", (long long)ax, rank, rank, rank - 1);
		ax += ax < 0 ? rank : 0;
		if (seen & 1 << ax)
			error_at(l->d, items[i]->loc, "'expand_dims' axis %lld is given twice", (long long)ax);
		seen |= 1 << ax;
	}
	l->b.loc = call->loc;
	ValId v = x.v;
	for (int ax = 0; ax < rank; ax++)
		if (seen & 1 << ax)
			v = expand_at(l, v, ax);
	return rv(v, false);
}

/* ravel(x, can_reorder?): x's elements in row-major order, as tl.ravel; the order is kept whatever can_reorder says */
static Rv ravel(L *l, Node *call)
{
	static const char *const names[] = {"x", "can_reorder", NULL};
	Args a = args_of(l, call, names, 1);
	Rv x = expr(l, a.a[0]);
	int32_t n = (int32_t)type_numel(need_tensor(l, a.a[0], x, "ravel"));
	if (a.a[1])
		const_arg(l, a.a[1], "can_reorder must be a compile-time constant", false);
	return rv(reshape_to(l, call->loc, x.v, 1, &n), x.weak);
}

/*
 * cat(input, other, can_reorder?): input then other along axis 0, as
 * tl.cat, which may reorder them (this order is one it may give; a
 * constant can_reorder is accepted and changes nothing).  Both flattened
 * and joined ([n, 2]), then transposed: [2, n] in row-major order is
 * input's elements and then other's.
 */
static Rv cat(L *l, Node *call)
{
	static const char *const names[] = {"input", "other", "can_reorder", NULL};
	Args a = args_of(l, call, names, 2);
	Rv x = expr(l, a.a[0]), y = expr(l, a.a[1]);
	ElemKind e = pair_elem(l, call, x, y);
	Type tx = ty(l, x.v), ty_ = ty(l, y.v), r = tx;
	if (tx.rank == 0 || tx.rank != ty_.rank || memcmp(tx.shape, ty_.shape, sizeof(int32_t) * tx.rank))
		error_at(l->d, call->loc, "'cat' needs two tiles of one shape, got %s and %s", tstr(l, tx), tstr(l, ty_));
	if (a.a[2])
		const_arg(l, a.a[2], "can_reorder must be a compile-time constant", false);
	int32_t n = (int32_t)type_numel(tx);
	ValId j = join_of(l, call->loc, reshape_to(l, call->loc, cast_to(l, x.v, e), 1, &n),
			  reshape_to(l, call->loc, cast_to(l, y.v, e), 1, &n));
	r.shape[0] *= 2;
	check_tile(l, call->loc, r.rank, r.shape);
	return rv(reshape_to(l, call->loc, transpose(l, call->loc, j), r.rank, r.shape), x.weak && y.weak);
}

/* let a, b = split(x): x[..., 0] and x[..., 1] of x whose last axis is 2. */
static int split(L *l, Node *call, Rv *out)
{
	static const char *const names[] = {"x", NULL};
	Args a = args_of(l, call, names, 1);
	Rv x = expr(l, a.a[0]);
	Type t = ty(l, x.v);
	if (t.rank < 2 || t.shape[t.rank - 1] != 2)
		error_at(l->d, call->loc, "'split' needs a tile of rank 2 or 3 whose last dimension is 2, got %s",
			 tstr(l, t));
	t.shape[--t.rank] = 0;
	l->b.loc = call->loc;
	for (int k = 0; k < 2; k++) {
		out[k] = rv(emit(l, OP_SPLIT, t, &x.v, 1), x.weak);
		l->f->vals[out[k].v].def->iattr[0] = k;
	}
	return 2;
}

/* ---- flip, sort, topk: networks of xorperm ---- */

static ValId xorperm(L *l, ValId x, int ax, int64_t mask)
{
	ValId r = emit(l, OP_XORPERM, ty(l, x), &x, 1);
	l->f->vals[r].def->iattr[0] = ax;
	l->f->vals[r].def->iattr[1] = mask;
	return r;
}

/* flip(x, dim = last): x reversed along dim, whose length n is a power of two: i from i ^ (n - 1) */
static Rv flip(L *l, Node *call)
{
	static const char *const names[] = {"x", "dim", NULL};
	Args a = args_of(l, call, names, 1);
	Rv x = expr(l, a.a[0]);
	Type t = need_tensor(l, a.a[0], x, "flip");
	int ax = a.a[1] ? axis_arg(l, a.a[1], t) : t.rank - 1;
	l->b.loc = call->loc;
	return t.shape[ax] == 1 ? x : rv(xorperm(l, x.v, ax, t.shape[ax] - 1), x.weak);
}

/*
 * multiple_of(input, values), max_contiguous, max_constancy: input, with
 * Triton's promise to the axis analysis (an assume).  values is a constant
 * or a list of one per axis; the analysis reads the last axis's, and the
 * largest power of two dividing it (runs of 48 hold aligned runs of 16).
 * A hint on an assume adds to it, so the interpreter checks the two
 * together (multiple_of's run starts are max_contiguous's runs).
 */
static Rv hint(L *l, Node *call)
{
	int which = !strcmp(call->name, "multiple_of") ? 0 : !strcmp(call->name, "max_contiguous") ? 1 : 2;
	static const char *const names[] = {"input", "values", NULL};
	Args a = args_of(l, call, names, 2);
	Rv x = expr(l, a.a[0]);
	Type t = ty(l, x.v);
	if (t.elem != TY_PTR && (!elem_is_int(t.elem) || t.elem == TY_I1))
		error_at(l->d, a.a[0]->loc, "'%s' needs integers or pointers, got %s", call->name, tstr(l, t));
	if (which > 0 && t.rank == 0)
		error_at(l->d, a.a[0]->loc, "'%s' needs a tensor, got %s", call->name, tstr(l, t));
	Node *d = a.a[1];
	int n = d->kind == ND_LIST ? d->nargs : 1;
	if (d->kind == ND_LIST && n != (t.rank ? t.rank : 1))
		error_at(l->d, d->loc, "'%s' of %s needs %d values, got %d", call->name, tstr(l, t), t.rank ? t.rank : 1, n);
	Node *last = d->kind == ND_LIST ? d->args[n - 1] : d;
	for (int i = 0; i < n - 1; i++) /* only the last counts, but each must be one */
		const_arg(l, d->args[i], "hint values must be compile-time constants", false);
	int64_t v = const_arg(l, last, "hint values must be compile-time constants", false);
	if (v < 1 || v > (int64_t)1 << 30)
		error_at(l->d, last->loc, "'%s' needs a value from 1 to 2^30, got %lld", call->name, (long long)v);
	int64_t p = v & -v, at[3] = {1, 1, 1};
	Op *inner = l->f->vals[x.v].def;
	ValId from = x.v;
	if (inner && inner->code == OP_ASSUME) {
		from = inner->opnds[0];
		at[0] = inner->iattr[0], at[1] = ASSUME_CONTIG(inner), at[2] = ASSUME_CONSTANCY(inner);
	}
	at[which] = at[which] > p ? at[which] : p;
	l->b.loc = call->loc;
	ValId r = emit(l, OP_ASSUME, t, &from, 1);
	l->f->vals[r].def->iattr[0] = at[0];
	l->f->vals[r].def->iattr[1] = at[1] | at[2] << 32;
	return rv(r, x.weak);
}

/*
 * gather(src, index, axis): src's element at index's value along axis and
 * index's other coordinates, as Triton's tl.gather; index has src's rank
 * and its shape off the axis.
 */
static Rv gather(L *l, Node *call)
{
	static const char *const names[] = {"src", "index", "axis", NULL};
	Args a = args_of(l, call, names, 3);
	Rv src = expr(l, a.a[0]), idx = expr(l, a.a[1]);
	Type ts = need_tensor(l, a.a[0], src, "gather"), ti = need_tensor(l, a.a[1], idx, "gather");
	int ax = axis_arg(l, a.a[2], ts);
	if (!elem_is_int(ti.elem) || ti.elem == TY_I1)
		error_at(l->d, a.a[1]->loc, "'gather' needs an integer index, got %s", tstr(l, ti));
	bool fits = ti.rank == ts.rank;
	for (int d = 0; fits && d < ts.rank; d++)
		fits = d == ax || ti.shape[d] == ts.shape[d];
	if (!fits)
		error_at(l->d, a.a[1]->loc, "'gather' needs an index of the source's shape except along axis %d: "
			 "source %s, index %s", ax, tstr(l, ts), tstr(l, ti));
	l->b.loc = call->loc;
	ValId ops[2] = {src.v, idx.v};
	Type rt = type_with_elem(ti, ts.elem);
	rt.pointee = ts.pointee; /* a tile of pointers gathers pointers to the same type */
	ValId r = emit(l, OP_GATHER, rt, ops, 2);
	l->f->vals[r].def->iattr[0] = ax;
	return rv(r, src.weak);
}

/*
 * histogram(x, num_bins, mask?): how many of x's integers equal each of 0
 * .. num_bins-1, an i32 tile of num_bins, as Triton's tl.histogram; other
 * values, and those where mask is false, count nowhere.
 */
static Rv histogram(L *l, Node *call)
{
	static const char *const names[] = {"input", "num_bins", "mask", NULL};
	Args a = args_of(l, call, names, 2);
	Rv x = expr(l, a.a[0]);
	Type t = need_tensor(l, a.a[0], x, "histogram");
	if (!elem_is_int(t.elem) || t.elem == TY_I1)
		error_at(l->d, a.a[0]->loc, "'histogram' counts integers, got %s", tstr(l, t));
	int64_t bins = const_arg(l, a.a[1], "num_bins must be a compile-time constant", true);
	if (bins <= 0 || !is_pow2(bins) || bins > INT32_MAX)
		error_at(l->d, a.a[1]->loc, "num_bins %lld is not a power of two", (long long)bins);
	int32_t shape[1] = {(int32_t)bins};
	check_tile(l, a.a[1]->loc, 1, shape);
	ValId v = x.v;
	if (a.a[2]) {
		Rv m = rv(to_bool(l, a.a[2]->loc, expr(l, a.a[2]), "histogram"), false);
		Type s;
		if (!broadcast_shape(ty(l, m.v), t, &s) || !type_eq(type_with_elem(s, t.elem), t))
			error_at(l->d, a.a[2]->loc, "'histogram' mask %s does not broadcast to the input's %s",
				 tstr(l, ty(l, m.v)), tstr(l, t));
		l->b.loc = call->loc;
		ValId ops[3] = {broadcast_to(l, m.v, t), v, broadcast_to(l, cint(l, t.elem, -1), t)};
		v = emit(l, OP_SELECT, t, ops, 3);
	}
	l->b.loc = call->loc;
	return rv(emit(l, OP_HISTOGRAM, type_tensor(TY_I32, 1, shape), &v, 1), false);
}

/*
 * Float keys as integers of their width in the same order, so that each
 * step of a sort compares once: the bits b, their magnitude bits flipped
 * where the sign is set (b ^ (b >> w-1 & max), -0 now just below +0),
 * then less the count of NaNs of one sign, modulo 2^w (a `wrap` sub:
 * the negative NaNs overflow), which moves the negative NaNs from the
 * bottom to the top beside the positive ones: every number below every
 * NaN, as torch.sort has them.  A bijection; key_float undoes it.
 */
static int64_t nan_count(ElemKind e)
{
	int mant = e == TY_F16 ? 10 : e == TY_BF16 ? 7 : e == TY_F32 ? 23 : 52;
	return ((int64_t)1 << mant) - 1;
}

/* x + y or x - y modulo 2^n: a `wrap` add, whose overflow is defined */
static Rv wrapping(L *l, Loc loc, int op, Rv x, Rv y)
{
	Rv r = binary(l, loc, op, x, y);
	Op *d = l->f->vals[r.v].def;
	if (d && (d->code == OP_ADD || d->code == OP_SUB))
		d->iattr[0] = 1;
	return r;
}

/* b ^ (b >> w-1 & max): the magnitude bits of w-bit integers b flipped where the sign is set (its own inverse) */
static Rv flip_magnitude(L *l, Loc loc, Rv b, int w)
{
	Rv sign = binary(l, loc, TK_SHR, b, weak_int(l, w - 1));
	Rv m = binary(l, loc, TK_AMP, sign, weak_int(l, (int64_t)(UINT64_MAX >> (65 - w))));
	return binary(l, loc, TK_CARET, b, m);
}

static Rv float_key(L *l, Loc loc, Rv x)
{
	ElemKind e = ty(l, x.v).elem, ie = elem_bits(e) == 16 ? TY_I16 : elem_bits(e) == 32 ? TY_I32 : TY_I64;
	Rv b = flip_magnitude(l, loc, rv(bitcast(l, x.v, ie), false), elem_bits(e));
	return wrapping(l, loc, TK_MINUS, b, weak_int(l, nan_count(e)));
}

static Rv key_float(L *l, Loc loc, Rv k, ElemKind e)
{
	Rv b = wrapping(l, loc, TK_PLUS, k, weak_int(l, nan_count(e)));
	return rv(bitcast(l, flip_magnitude(l, loc, b, elem_bits(e)).v, e), false);
}

/* (b >> i ^ b >> j) & 1 == want, for the positions b along the axis (i1, broadcastable to the tile) */
static Rv bits_equal(L *l, Loc loc, Rv pos, int i, int j, int want)
{
	Rv x = binary(l, loc, TK_SHR, pos, weak_int(l, i));
	if (j >= 0)
		x = binary(l, loc, TK_CARET, x, binary(l, loc, TK_SHR, pos, weak_int(l, j)));
	x = binary(l, loc, TK_AMP, x, weak_int(l, 1));
	return binary(l, loc, TK_EQ, x, weak_int(l, want));
}

/* each of xs[0..k) where take is true from its partner (mask m; p: the keys' partners), else its own */
static void take_partner(L *l, Rv *xs, Rv p, int k, int ax, int64_t m, Rv take)
{
	for (int i = 0; i < k; i++) {
		Rv q = i == 0 ? p : rv(xorperm(l, xs[i].v, ax, m), false);
		ValId ops[3] = {broadcast_to(l, take.v, ty(l, xs[i].v)), q.v, xs[i].v};
		xs[i] = rv(emit(l, OP_SELECT, ty(l, xs[i].v), ops, 3), false);
	}
}

/*
 * Steps j = top - 1 .. 0 of a bitonic merge of the tuples xs (integer
 * keys xs[0]) along ax: each position meets the one whose index differs
 * in bit j and keeps the smaller key of the two where bit j of its index
 * equals its block's direction (bit d of the index XOR desc; d < 0: desc
 * alone), else the larger.  Of a tuple with equal keys both partners
 * keep their own, so each step moves whole tuples and loses none; keys
 * alone may trade equal bits, which takes one compare instead of two.
 */
static void merge(L *l, Loc loc, Rv *xs, int k, int ax, Rv pos, int top, int d, int desc)
{
	for (int j = top - 1; j >= 0; j--) {
		Rv p = rv(xorperm(l, xs[0].v, ax, (int64_t)1 << j), false);
		Rv first = bits_equal(l, loc, pos, j, d, desc), take;
		if (k == 1)
			take = binary(l, loc, TK_CARET, first, binary(l, loc, TK_GE, p, xs[0]));
		else {
			/* first ? a : b as b ^ (first & (a ^ b)): predicate logic, where a select of i1 costs five */
			Rv a = binary(l, loc, TK_LT, p, xs[0]), b = binary(l, loc, TK_LT, xs[0], p);
			take = binary(l, loc, TK_CARET, b, binary(l, loc, TK_AMP, first, binary(l, loc, TK_CARET, a, b)));
		}
		take_partner(l, xs, p, k, ax, (int64_t)1 << j, take);
	}
}

/*
 * The values of `in`, a tile or a tuple (a, b, ...) of them (numbers; not
 * i1 unless `bools`), into xs, and their broadcast shape: a tensor.
 */
static int tuple_inputs(L *l, Node *call, Node *in, bool bools, Rv *xs, Type *shape)
{
	Node **items = in->kind == ND_TUPLE ? in->args : &in;
	int k = in->kind == ND_TUPLE ? in->nargs : 1;
	if (k > MAX_RESULTS)
		error_at(l->d, in->loc, "'%s' %s at most %d values, got %d", call->name, bools ? "combines" : "takes",
			 MAX_RESULTS, k);
	*shape = type_scalar(TY_I32);
	for (int i = 0; i < k; i++) {
		xs[i] = expr(l, items[i]);
		Type t = ty(l, xs[i].v);
		if (t.elem == TY_PTR || (t.elem == TY_I1 && !bools))
			error_at(l->d, items[i]->loc, "'%s' needs numbers, got %s", call->name, tstr(l, t));
		no_f8(l, items[i]->loc, call->name, t);
		if (!broadcast_shape(*shape, t, shape))
			error_at(l->d, items[i]->loc, "'%s': this %s does not broadcast with the inputs before it (shape %s)",
				 call->name, tstr(l, t), shape_str(l, *shape));
	}
	if (shape->rank == 0)
		error_at(l->d, in->loc, "'%s' needs a tensor, got %s", call->name, k > 1 ? "scalars" : "a scalar");
	return k;
}

/*
 * Tile x as [outer * a, b, c * inner], where outer is the product of the
 * dims before ax, inner of those after, and a * b * c ax's length: a
 * reshape, whatever x's rank, that splits ax in three.
 */
static ValId around_axis(L *l, Loc loc, ValId x, int ax, int32_t a, int32_t b, int32_t c)
{
	Type t = ty(l, x);
	int32_t s[3] = {a, b, c};
	for (int d = 0; d < t.rank; d++)
		if (d != ax)
			s[d < ax ? 0 : 2] *= t.shape[d];
	return reshape_to(l, loc, x, 3, s);
}

/* The index along ax of a tile of shape t, shaped to broadcast against it. */
static Rv axis_index(L *l, Type t, int ax)
{
	int32_t n = t.shape[ax];
	ValId pv = emit(l, OP_ARANGE, type_tensor(TY_I32, 1, &n), NULL, 0);
	l->f->vals[pv].def->iattr[1] = n;
	for (int d = 0; d < t.rank; d++)
		if (d != ax)
			pv = expand_at(l, pv, d < ax ? 0 : ty(l, pv).rank);
	return rv(pv, false);
}

/*
 * Of the tuples xs, each `nb` equal blocks along ax, one block, bit for
 * bit: [outer, nb, rest] and a reduce over the blocks whose combine keeps
 * its first partial.
 */
static void pick_block(L *l, Loc loc, Rv *xs, int k, int ax, int32_t nb)
{
	int32_t len = ty(l, xs[0].v).shape[ax];
	ValId blocks[MAX_RESULTS];
	Type rt[MAX_RESULTS], at[2 * MAX_RESULTS];
	for (int i = 0; i < k; i++) {
		blocks[i] = around_axis(l, loc, xs[i].v, ax, 1, nb, len / nb);
		rt[i] = drop_axis(ty(l, blocks[i]), 1);
		at[i] = at[k + i] = type_scalar(rt[i].elem);
	}
	Block *body = ir_new_block(l->f, 2 * k, at);
	ir_append(body, ir_new_op(l->f, OP_YIELD, body->args, k, NULL, 0, loc));
	Op *op = ir_new_op(l->f, OP_REDUCE, blocks, k, rt, k, loc);
	op->iattr[0] = 1;
	add_region(op, body);
	b_place(&l->b, op);
	for (int i = 0; i < k; i++) {
		Type t = ty(l, xs[i].v);
		t.shape[ax] = len / nb;
		xs[i] = rv(reshape_to(l, loc, op->res[i], t.rank, t.shape), false);
	}
}

/*
 * sort(x, dim = last, descending = false), as Triton's tl.sort, and
 * topk(x, k, dim = last): the k largest along dim, largest first, as
 * tl.topk.  x may be a tuple (keys, values...), sorted by the keys; one
 * result per input.  A bitonic network over the positions' bits (xorperm
 * steps: registers, shuffles, or shared memory across warps), the same
 * on the GPU and in the interpreter.
 *
 * Float keys travel through the network as float_key's integers.  Blocks
 * of 2, 4, ..., 2^kbits are sorted first; for topk the last direction
 * alternates, by block for tuples, by half for a lone key.
 *
 * A lone key then halves the tile: each position of the lower half takes
 * the larger of itself and the one n / 2 above (a max of integers, exact;
 * the top 2^kbits of two blocks sorted opposite ways, in a bitonic order)
 * and merges its block again, by the new halves, until one block is left.
 * A layout puts the top bits of a position in registers where a thread
 * holds more than one vector, so the first levels move no data.
 *
 * Tuples keep their length: for D = k, 2k, ... each position takes the
 * larger of its tuple and the one D away (the lower position's on equal
 * keys), which leaves both blocks holding the top k of the two, and
 * merges its block again; pick_block then takes one of the equal blocks.
 */
static int sort_call(L *l, Node *call, bool topk, Rv *out)
{
	static const char *const sn[] = {"x", "dim", "descending", NULL}, *const tn[] = {"x", "k", "dim", NULL};
	Args a = args_of(l, call, topk ? tn : sn, topk ? 2 : 1);
	Rv xs[MAX_RESULTS];
	Type shape;
	int k = tuple_inputs(l, call, a.a[0], false, xs, &shape);
	Node *dn = a.a[topk ? 2 : 1];
	int ax = dn ? axis_arg(l, dn, shape) : shape.rank - 1;
	int32_t n = shape.shape[ax];
	int bits = ilog2((uint64_t)n), kbits = bits, desc = topk;
	if (topk) {
		int64_t kk = const_arg(l, a.a[1], "k must be a compile-time constant", false);
		if (!is_pow2(kk) || kk > n)
			error_at(l->d, a.a[1]->loc, "'topk' needs k a power of two from 1 to %d (the length of dim %d), got %lld",
				 n, ax, (long long)kk);
		kbits = ilog2((uint64_t)kk);
	} else if (a.a[2])
		desc = const_arg(l, a.a[2], "descending must be a compile-time constant", false) != 0;
	l->b.loc = call->loc;
	for (int i = 0; i < k; i++)
		xs[i] = rv(broadcast_to(l, xs[i].v, shape), false);
	ElemKind ke = ty(l, xs[0].v).elem;
	if (elem_is_float(ke))
		xs[0] = float_key(l, call->loc, xs[0]);
	Rv pos = axis_index(l, shape, ax);
	bool halve = topk && k == 1;
	for (int s = 1; s <= kbits; s++)
		merge(l, call->loc, xs, k, ax, pos, s, s == bits ? -1 : s == kbits && halve ? bits - 1 : s,
		      s == bits ? desc : 0);
	for (int m = bits; halve && m > kbits; m--) {
		Type t = ty(l, xs[0].v);
		ValId halves = around_axis(l, call->loc, xs[0].v, ax, 1, 2, 1 << (m - 1));
		t.shape[ax] = 1 << (m - 1);
		xs[0] = rv(reshape_to(l, call->loc, reduce_of(l, OP_RMAX, halves, 1), t.rank, t.shape), false);
		merge(l, call->loc, xs, 1, ax, axis_index(l, t, ax), kbits, m - 1 > kbits ? m - 2 : -1, m - 1 == kbits);
	}
	for (int s = kbits; !halve && s < bits; s++) {
		Rv p = rv(xorperm(l, xs[0].v, ax, (int64_t)1 << s), false);
		/* the larger tuple; of equal keys the lower position's */
		Rv lt = binary(l, call->loc, TK_LT, xs[0], p);
		Rv tie = binary(l, call->loc, TK_EQ, xs[0], p);
		tie = binary(l, call->loc, TK_AMP, tie, bits_equal(l, call->loc, pos, s, -1, 1));
		Rv take = binary(l, call->loc, TK_PIPE, lt, tie);
		take_partner(l, xs, p, k, ax, (int64_t)1 << s, take);
		merge(l, call->loc, xs, k, ax, pos, kbits, s + 1 < bits ? s + 1 : -1, s + 1 == bits);
	}
	if (!halve && kbits < bits)
		pick_block(l, call->loc, xs, k, ax, n >> kbits);
	for (int i = 0; i < k; i++)
		out[i] = xs[i];
	if (elem_is_float(ke))
		out[0] = key_float(l, call->loc, out[0], ke);
	return k;
}

/* ---- integer built-ins ---- */

/* x as xh * 2^32 + xl, xl its low word sign-extended: both at most 2^31 in magnitude */
static void split_words(L *l, Loc loc, Rv x, Rv *xh, Rv *xl)
{
	*xl = rv(cast_to(l, cast_to(l, x.v, TY_I32), TY_I64), false);
	Rv borrow = binary(l, loc, TK_SHR, *xl, weak_int(l, 63)); /* -1 where xl < 0 */
	*xh = binary(l, loc, TK_MINUS, binary(l, loc, TK_SHR, x, weak_int(l, 32)), borrow);
}

/*
 * The high half of the signed product of x and y (i32 or i64, one type),
 * from products that fit in i64: i32 as one product of i64s; i64 by
 * words, (xh yh) 2^64 + (xh yl + xl yh) 2^32 + xl yl, carrying the middle
 * terms one at a time so that no sum overflows either.
 */
static Rv mul_high_signed(L *l, Loc loc, Rv x, Rv y)
{
	if (ty(l, x.v).elem == TY_I32) {
		Rv p = binary(l, loc, TK_STAR, rv(cast_to(l, x.v, TY_I64), false), rv(cast_to(l, y.v, TY_I64), false));
		return rv(cast_to(l, binary(l, loc, TK_SHR, p, weak_int(l, 32)).v, TY_I32), false);
	}
	Rv xh, xl, yh, yl, low = weak_int(l, 0xffffffff);
	split_words(l, loc, x, &xh, &xl);
	split_words(l, loc, y, &yh, &yl);
	Rv t = binary(l, loc, TK_STAR, xl, yl);
	Rv m = binary(l, loc, TK_PLUS, binary(l, loc, TK_STAR, xh, yl), binary(l, loc, TK_SHR, t, weak_int(l, 32)));
	Rv s = binary(l, loc, TK_PLUS, binary(l, loc, TK_AMP, m, low), binary(l, loc, TK_STAR, xl, yh));
	Rv h = binary(l, loc, TK_PLUS, binary(l, loc, TK_STAR, xh, yh), binary(l, loc, TK_SHR, m, weak_int(l, 32)));
	return binary(l, loc, TK_PLUS, h, binary(l, loc, TK_SHR, s, weak_int(l, 32)));
}

/*
 * umulhi(x, y): the high half of the unsigned 2w-bit product of w-bit
 * integers, i32 or i64, as tl.umulhi, its bits in the signed type.  A
 * negative x is x + 2^w unsigned, which adds y 2^w to the product: so the
 * signed high half, plus y where x < 0 and x where y < 0, modulo 2^w.
 * The GPU takes a plain product's overflow as undefined (nsw), so
 * unsigned products of whole words, which would overflow i64, are avoided.
 */
static Rv umulhi(L *l, Node *call)
{
	static const char *const names[] = {"x", "y", NULL};
	Args a = args_of(l, call, names, 2);
	Rv x = expr(l, a.a[0]), y = expr(l, a.a[1]);
	Type tx = ty(l, x.v), ty_ = ty(l, y.v);
	if ((tx.elem != TY_I32 && tx.elem != TY_I64) || (ty_.elem != TY_I32 && ty_.elem != TY_I64))
		error_at(l->d, call->loc, "'umulhi' needs i32 or i64 operands, got %s and %s", tstr(l, tx), tstr(l, ty_));
	ElemKind e = promote(tx, x.weak, ty_, y.weak);
	unify(l, call->loc, &x, &y, e);
	x.weak = y.weak = false; /* folded constants wrap to e */
	Rv h = mul_high_signed(l, call->loc, x, y);
	for (int k = 0; k < 2; k++) {
		Rv neg = binary(l, call->loc, TK_SHR, k ? y : x, weak_int(l, elem_bits(e) - 1));
		h = wrapping(l, call->loc, TK_PLUS, h, binary(l, call->loc, TK_AMP, neg, k ? x : y));
	}
	return h;
}

/*
 * let i2, j2 = swizzle2d(i, j, size_i, size_j, size_g): tl.swizzle2d's
 * formula: (i, j) of a row-major size_i x size_j grid, renumbered down the
 * columns of each group of size_g rows (the last group may have fewer).
 * Integers, scalars or tiles, broadcasting; / and % truncate, as Triton's.
 */
static int swizzle2d(L *l, Node *call, Rv *out)
{
	static const char *const names[] = {"i", "j", "size_i", "size_j", "size_g", NULL};
	Args a = args_of(l, call, names, 5);
	Rv v[5];
	Loc at = call->loc;
	for (int k = 0; k < 5; k++) {
		v[k] = expr(l, a.a[k]);
		if (!elem_is_int(ty(l, v[k].v).elem))
			error_at(l->d, a.a[k]->loc, "'swizzle2d' needs integers, got %s", tstr(l, ty(l, v[k].v)));
	}
	l->b.loc = at;
	Rv ij = binary(l, at, TK_PLUS, binary(l, at, TK_STAR, v[0], v[3]), v[1]);
	Rv group = binary(l, at, TK_STAR, v[4], v[3]); /* elements of a group */
	Rv off = binary(l, at, TK_STAR, binary(l, at, TK_SLASH, ij, group), v[4]);
	Rv rows = extremum(l, at, OP_MIN, binary(l, at, TK_MINUS, v[2], off), v[4]);
	ij = binary(l, at, TK_PERCENT, ij, group);
	out[0] = binary(l, at, TK_PLUS, off, binary(l, at, TK_PERCENT, ij, rows));
	out[1] = binary(l, at, TK_SLASH, ij, rows);
	return 2;
}

/*
 * device_print(prefix, args..., hex?): every element of each arg, a line
 * each, from the GPU's printf (as tl.device_print); prefix, a string,
 * gets ": " unless it ends in a space.
 */
static Rv device_print(L *l, Node *call)
{
	Node *pre = call->nargs ? call->args[0] : NULL;
	if (!pre || pre->kind != ND_STR || pre->argname)
		error_at(l->d, pre ? pre->loc : call->loc, "device_print's first argument is its prefix, a string literal");
	ValId v[64];
	int n = 0;
	int64_t hex = 0;
	for (int i = 1; i < call->nargs; i++) {
		Node *a = call->args[i];
		if (a->argname && !strcmp(a->argname, "hex")) {
			hex = const_arg(l, a, "hex must be a compile-time constant", false);
			continue;
		}
		if (a->argname)
			error_at(l->d, a->loc, "unknown keyword argument '%s' to 'device_print'", a->argname);
		if (n == 64)
			error_at(l->d, a->loc, "device_print takes at most 64 values");
		v[n++] = expr(l, a).v;
		if (ty(l, v[n - 1]).elem == TY_VOID)
			error_at(l->d, a->loc, "device_print of something that has no value");
		no_f8(l, a->loc, "device_print", ty(l, v[n - 1]));
	}
	if (n == 0)
		error_at(l->d, call->loc, "device_print needs a value to print after its prefix");
	size_t len = strlen(pre->name);
	l->b.loc = call->loc;
	Op *op = ir_new_op(l->f, OP_PRINT, v, n, NULL, 0, call->loc);
	op->sattr = len && pre->name[len - 1] == ' ' ? pre->name : arena_printf(l->f->arena, "%s: ", pre->name);
	op->iattr[0] = hex != 0;
	b_place(&l->b, op);
	return rv(0, false);
}

/*
 * device_assert(cond, msg?, mask?): where cond is false (and mask true)
 * the kernel stops with msg, as tl.device_assert: on the GPU through
 * CUDA's assert (the launch then fails), in the interpreter with the line.
 */
static Rv device_assert(L *l, Node *call)
{
	static const char *const names[] = {"cond", "msg", "mask", NULL};
	Args a = args_of(l, call, names, 1);
	if (a.a[1] && a.a[1]->kind != ND_STR)
		error_at(l->d, a.a[1]->loc, "device_assert's message must be a string literal");
	ValId c = to_bool(l, a.a[0]->loc, expr(l, a.a[0]), "device_assert");
	if (a.a[2]) {
		Rv m = rv(to_bool(l, a.a[2]->loc, expr(l, a.a[2]), "device_assert"), false);
		c = binary(l, call->loc, TK_OROR, rv(c, false), rv(emit(l, OP_NOT, ty(l, m.v), &m.v, 1), false)).v;
	}
	l->b.loc = call->loc;
	Op *op = ir_new_op(l->f, OP_ASSERT, &c, 1, NULL, 0, call->loc);
	op->sattr = a.a[1] ? a.a[1]->name : "device_assert failed";
	b_place(&l->b, op);
	return rv(0, false);
}

/* static_assert(cond, msg?): an error unless cond, a constant, holds, as tl.static_assert; no value */
static Rv static_assert_call(L *l, Node *call)
{
	static const char *const names[] = {"cond", "msg", NULL};
	Args a = args_of(l, call, names, 1);
	Node *msg = a.a[1];
	if (msg && msg->kind != ND_STR)
		error_at(l->d, msg->loc, "static_assert's message must be a string literal");
	if (!const_arg(l, a.a[0], "static_assert's condition must be a compile-time constant", false))
		error_at(l->d, call->loc, "static_assert failed%s%s", msg ? ": " : "", msg ? msg->name : "");
	return rv(0, false);
}

/* ---- block pointers ---- */

static bool bp_same_kind(L *l, const BPtr *a, const BPtr *b)
{
	return a->rank == b->rank && a->idx == b->idx && !memcmp(a->block, b->block, sizeof(int32_t) * a->rank) &&
	       ty(l, a->part[BP_BASE]).pointee == ty(l, b->part[BP_BASE]).pointee;
}

/* "a block pointer to [64, 32] x f16 blocks (i32 indices)" */
static const char *bp_str(L *l, const BPtr *p)
{
	char buf[96];
	int n = snprintf(buf, sizeof buf, "a block pointer to [");
	for (int d = 0; d < p->rank; d++)
		n += snprintf(buf + n, sizeof buf - n, "%s%d", d ? ", " : "", p->block[d]);
	snprintf(buf + n, sizeof buf - n, "] x %s blocks (%s indices)", elem_name(ty(l, p->part[BP_BASE]).pointee),
		 elem_name(p->idx));
	return arena_strdup(l->a, buf);
}

/* The items of a tuple or list argument of a block pointer, one per axis of its block. */
static Node **bp_items(L *l, Node **n, const char *what, int rank)
{
	Node **items;
	int k = list_items(n, &items);
	if (k != rank)
		error_at(l->d, (*n)->loc, "'%s' has %d value%s; the block has %d axes", what, k, k == 1 ? "" : "s", rank);
	return items;
}

/* An integer scalar, of a block pointer's shape, strides or offsets, or of advance's offsets. */
static Rv bp_index(L *l, Node *n, const char *what)
{
	Rv x = expr(l, n);
	Type t = ty(l, x.v);
	if (t.rank != 0 || !elem_is_int(t.elem) || t.elem == TY_I1)
		error_at(l->d, n->loc, "%s must be integer scalars, got %s", what, tstr(l, t));
	return x;
}

/*
 * make_block_ptr(base, shape, strides, offsets, block_shape, order), as
 * tl.make_block_ptr: the block_shape block at `offsets` of the tensor of
 * `shape` and `strides` (in elements) at `base`.  The index arithmetic is
 * in i64 where a shape, stride or offset is i64, else in i32 (as that of
 * plain pointers).  `order` is checked and has no other effect: the axis
 * analysis finds the contiguous axis from the strides.
 */
static Rv make_block_ptr(L *l, Node *call)
{
	static const char *const names[] = {"base", "shape", "strides", "offsets", "block_shape", "order", NULL};
	static const char *const parts[] = {"shape", "strides", "offsets"};
	Args a = args_of(l, call, names, 6);
	BPtr *p = NEW(l->a, BPtr);
	Node **items;
	p->rank = list_items(&a.a[4], &items);
	if (p->rank > MAX_RANK)
		error_at(l->d, a.a[4]->loc, "tensors of rank %d are not supported (at most %d)", p->rank, MAX_RANK);
	for (int d = 0; d < p->rank; d++) {
		int64_t v = const_arg(l, items[d], "block_shape must be compile-time constants", true);
		if (v <= 0 || v > MAX_NUMEL)
			error_at(l->d, items[d]->loc, "tile dimensions must be powers of two, got %lld", (long long)v);
		p->block[d] = (int32_t)v;
	}
	check_tile(l, a.a[4]->loc, p->rank, p->block);
	items = bp_items(l, &a.a[5], "order", p->rank);
	unsigned seen = 0;
	for (int d = 0; d < p->rank; d++) {
		int64_t v = const_arg(l, items[d], "order must be compile-time constants", false);
		if (v < 0 || v >= p->rank || seen & 1u << v)
			error_at(l->d, items[d]->loc, "'order' must name each of the block's %d axes once", p->rank);
		seen |= 1u << v;
	}
	Rv base = expr(l, a.a[0]);
	Type bt = ty(l, base.v);
	if (bt.elem != TY_PTR || bt.rank != 0)
		error_at(l->d, a.a[0]->loc, "'make_block_ptr' needs a pointer (a scalar) as its base, got %s", tstr(l, bt));
	Rv v[3][MAX_RANK];
	Node *at[3][MAX_RANK];
	p->idx = TY_I32;
	for (int k = 0; k < 3; k++) {
		items = bp_items(l, &a.a[1 + k], parts[k], p->rank);
		for (int d = 0; d < p->rank; d++) {
			at[k][d] = items[d];
			v[k][d] = bp_index(l, items[d], arena_printf(l->a, "make_block_ptr's %s", parts[k]));
			if (!v[k][d].weak && ty(l, v[k][d].v).elem == TY_I64)
				p->idx = TY_I64;
		}
	}
	p->part[BP_BASE] = base.v;
	for (int k = 0; k < 3; k++)
		for (int d = 0; d < p->rank; d++) {
			check_weak(l, at[k][d]->loc, v[k][d], p->idx);
			p->part[bp_part(p, k, d)] = cast_to(l, v[k][d].v, p->idx);
		}
	return (Rv){base.v, false, p};
}

/* advance(base, offsets): the block pointer moved by `offsets` (elements along each axis), as tl.advance */
static Rv advance(L *l, Node *call)
{
	static const char *const names[] = {"base", "offsets", NULL};
	Args a = args_of(l, call, names, 2);
	Rv x = bexpr(l, a.a[0]);
	if (!x.bp)
		error_at(l->d, a.a[0]->loc, "'advance' needs a block pointer (make_block_ptr), got %s", tstr(l, ty(l, x.v)));
	BPtr *p = NEW(l->a, BPtr);
	*p = *x.bp;
	Node **items = bp_items(l, &a.a[1], "offsets", p->rank);
	for (int d = 0; d < p->rank; d++) {
		Rv o = bp_index(l, items[d], "advance's offsets");
		if (!o.weak && elem_bits(ty(l, o.v).elem) > elem_bits(p->idx))
			error_at(l->d, items[d]->loc, "advance by an %s offset: the block pointer's indices are %s (give "
				 "make_block_ptr an %s shape, stride or offset)", elem_name(ty(l, o.v).elem),
				 elem_name(p->idx), elem_name(ty(l, o.v).elem));
		check_weak(l, items[d]->loc, o, p->idx);
		l->b.loc = call->loc;
		Rv off = rv(p->part[bp_part(p, BP_OFFSET, d)], false), by = rv(cast_to(l, o.v, p->idx), false);
		p->part[bp_part(p, BP_OFFSET, d)] = binary(l, call->loc, TK_PLUS, off, by).v;
	}
	return (Rv){x.v, false, p};
}

/* boundary_check=(d, ...): the axes a block pointer's load or store checks, a bit each */
static unsigned bp_checks(L *l, Node *n, const BPtr *p)
{
	if (!n)
		return 0;
	Node **items;
	int k = list_items(&n, &items);
	unsigned m = 0;
	for (int i = 0; i < k; i++) {
		int64_t d = const_arg(l, items[i], "boundary_check must be compile-time constants", false);
		if (d < 0 || d >= p->rank)
			error_at(l->d, items[i]->loc, "boundary_check: axis %lld is out of range for a block of %d axes",
				 (long long)d, p->rank);
		if (m & 1u << d)
			error_at(l->d, items[i]->loc, "boundary_check names axis %lld twice", (long long)d);
		m |= 1u << d;
	}
	return m;
}

/*
 * The pointers of p's block, and in *mask (0: none) whether each element
 * lies inside the tensor along the axes in `check`: 0 <= offset + i < shape,
 * as Triton checks.  The terms are added axis by axis, so the sum is a full
 * tile only at its last add and what does not move in a loop is hoisted.
 */
static ValId bp_pointers(L *l, Loc loc, const BPtr *p, unsigned check, ValId *mask)
{
	Rv ptr = rv(p->part[BP_BASE], false), in = rv(0, false);
	for (int d = 0; d < p->rank; d++) {
		int32_t n = p->block[d];
		ValId v = emit(l, OP_ARANGE, type_tensor(TY_I32, 1, &n), NULL, 0);
		l->f->vals[v].def->iattr[1] = n;
		v = cast_to(l, v, p->idx);
		for (int j = 0; j < d; j++)
			v = expand_at(l, v, 0);
		for (int j = d + 1; j < p->rank; j++)
			v = expand_at(l, v, j);
		Rv off = rv(p->part[bp_part(p, BP_OFFSET, d)], false), stride = rv(p->part[bp_part(p, BP_STRIDE, d)], false);
		Rv idx = binary(l, loc, TK_PLUS, rv(v, false), off);
		ptr = binary(l, loc, TK_PLUS, ptr, binary(l, loc, TK_STAR, idx, stride));
		if (!(check & 1u << d))
			continue;
		Rv lo = binary(l, loc, TK_GE, idx, rv(zero_of(l, p->idx), false));
		Rv hi = binary(l, loc, TK_LT, idx, rv(p->part[bp_part(p, BP_SHAPE, d)], false));
		Rv both = binary(l, loc, TK_AMP, lo, hi);
		in = in.v ? binary(l, loc, TK_AMP, in, both) : both;
	}
	*mask = in.v ? broadcast_to(l, in.v, ty(l, ptr.v)) : 0;
	return ptr.v;
}

/* padding_option="zero" | "nan" | "": what a block pointer's load reads outside the tensor (0 unless "nan") */
static ValId bp_padding(L *l, Node *n, const BPtr *p)
{
	ElemKind e = ty(l, p->part[BP_BASE]).pointee;
	if (!n)
		return zero_of(l, e);
	if (n->kind != ND_STR || (strcmp(n->name, "zero") && strcmp(n->name, "nan") && n->name[0]))
		error_at(l->d, n->loc, "padding_option is \"zero\", \"nan\" or \"\"");
	if (strcmp(n->name, "nan"))
		return zero_of(l, e);
	if (!elem_is_float(e) && !elem_is_f8(e))
		error_at(l->d, n->loc, "padding_option \"nan\" needs a block of floats, not of %s", elem_name(e));
	return cfloat(l, e, NAN);
}

static ValId pointer_of(L *l, Node *call, Node *n, Rv p)
{
	Type t = ty(l, p.v);
	if (t.elem != TY_PTR)
		error_at(l->d, n->loc, "'%s' needs a pointer as its first argument, got %s", call->name, tstr(l, t));
	return p.v;
}

static ValId pointer_arg(L *l, Node *call, Node *n)
{
	return pointer_of(l, call, n, expr(l, n));
}

static ValId mask_arg(L *l, Node *n, Type ptr)
{
	Rv m = expr(l, n);
	Type t = ty(l, m.v);
	if (t.elem != TY_I1)
		error_at(l->d, n->loc, "mask must be i1 (a comparison), got %s", tstr(l, t));
	if (!broadcasts_to(t, ptr))
		error_at(l->d, n->loc, "mask of type %s does not broadcast to the pointer's shape %s", tstr(l, t),
			 shape_str(l, ptr));
	return broadcast_to(l, m.v, ptr);
}

/* A value converted to the pointee type and broadcast to the pointer's shape. */
static ValId value_arg(L *l, Node *call, Node *n, Type ptr)
{
	Rv v = expr(l, n);
	Type t = ty(l, v.v);
	if (t.elem == TY_PTR)
		error_at(l->d, n->loc, "%s of a pointer value is not supported", call->name);
	if (!broadcasts_to(t, ptr))
		error_at(l->d, n->loc, "'%s' value of type %s does not broadcast to the pointer's shape %s", call->name,
			 tstr(l, t), shape_str(l, ptr));
	check_weak(l, n->loc, v, ptr.pointee);
	return broadcast_to(l, cast_to(l, v.v, ptr.pointee), ptr);
}

/* The pointers of a block pointer's load or store; with its mask (0: none) in *mask. */
static ValId bp_access(L *l, Node *call, const BPtr *p, Node *checks, Node *plain, ValId *mask)
{
	if (plain)
		error_at(l->d, plain->loc, "a block pointer's %s takes boundary_check, not %s", call->name, plain->argname ?
			 plain->argname : "mask");
	unsigned check = bp_checks(l, checks, p);
	l->b.loc = call->loc;
	return bp_pointers(l, call->loc, p, check, mask);
}

/* A tile of pointers' load or store given a block pointer's arguments (n of them, max for a tile of pointers). */
static void no_block_args(L *l, Node *call, Node *checks, Node *padding, int max)
{
	Node *x = checks ? checks : padding;
	if (x && !x->argname)
		error_at(l->d, call->loc, "'%s' of a tile of pointers takes %d to %d arguments, got %d (boundary_check "
			 "and padding_option are for block pointers)", call->name, max == 3 ? 1 : 2, max, call->nargs);
	if (x)
		error_at(l->d, x->loc, "%s is for block pointers (make_block_ptr); a tile of pointers takes a mask",
			 x->argname);
}

static Rv load(L *l, Node *call)
{
	static const char *const names[] = {"ptr", "mask", "other", "boundary_check", "padding_option", NULL};
	Args a = args_of(l, call, names, 1);
	Rv p = bexpr(l, a.a[0]);
	ValId ops[3];
	int n = 0;
	if (p.bp) {
		ValId m, pad = bp_padding(l, a.a[4], p.bp);
		ops[n++] = bp_access(l, call, p.bp, a.a[3], a.a[1] ? a.a[1] : a.a[2], &m);
		if (m) {
			ops[n++] = m;
			ops[n++] = broadcast_to(l, pad, ty(l, ops[0]));
		}
		Type rt = type_with_elem(ty(l, ops[0]), ty(l, ops[0]).pointee);
		rt.pointee = TY_VOID;
		return rv(emit(l, OP_LOAD, rt, ops, n), false);
	}
	no_block_args(l, call, a.a[3], a.a[4], 3);
	if (a.a[2] && !a.a[1])
		error_at(l->d, a.a[2]->loc, "'load' needs a mask when 'other' is given");
	ops[n++] = pointer_of(l, call, a.a[0], p);
	Type pt = ty(l, ops[0]);
	if (a.a[1])
		ops[n++] = mask_arg(l, a.a[1], pt);
	if (a.a[2])
		ops[n++] = value_arg(l, call, a.a[2], pt);
	Type rt = type_with_elem(pt, pt.pointee);
	rt.pointee = TY_VOID;
	return rv(emit(l, OP_LOAD, rt, ops, n), false);
}

/* sem= and scope= of an atomic: string literals naming a PTX memory order and scope; iattr[1]'s bits */
static int64_t memory_order(L *l, Node *sem, Node *scope)
{
	int64_t r = 0;
	for (int k = 0; k < 2; k++) {
		Node *n = k ? scope : sem;
		const char *const *names = k ? scope_names : sem_names;
		const char *what = k ? "scope" : "sem";
		const char *choices = k ? "\"cta\", \"gpu\" or \"sys\"" : "\"relaxed\", \"acquire\", \"release\" or \"acq_rel\"";
		int count = k ? SCOPE_COUNT : SEM_COUNT, i = 1;
		if (!n)
			continue;
		if (n->kind != ND_STR)
			error_at(l->d, n->loc, "'%s' is a string: %s", what, choices);
		while (i < count && strcmp(n->name, names[i]) != 0)
			i++;
		if (i == count)
			error_at(l->d, n->loc, "unknown %s \"%s\" (%s)", what, n->name, choices);
		r |= (int64_t)i << 4 * k;
	}
	return r;
}

static Rv store_like(L *l, Node *call, Opcode code, AtomicKind kind)
{
	static const char *const names[] = {"ptr", "value", "mask", "sem", "scope", "boundary_check", NULL};
	Args a = args_of(l, call, names, 2);
	if (code == OP_STORE && (a.a[3] || a.a[4]))
		error_at(l->d, (a.a[3] ? a.a[3] : a.a[4])->loc, "'store' takes no sem or scope (only atomics do)");
	int64_t order = memory_order(l, a.a[3], a.a[4]);
	ValId ops[3], m = 0;
	int n = 0;
	Rv p = bexpr(l, a.a[0]);
	if (p.bp && code != OP_STORE)
		error_at(l->d, a.a[0]->loc, "'%s' takes a tile of pointers, not a block pointer", call->name);
	if (p.bp) {
		ops[n++] = bp_access(l, call, p.bp, a.a[5], a.a[2], &m);
	} else {
		no_block_args(l, call, a.a[5], NULL, 5);
		ops[n++] = pointer_of(l, call, a.a[0], p);
	}
	Type pt = ty(l, ops[0]);
	ops[n++] = value_arg(l, call, a.a[1], pt);
	if (a.a[2])
		ops[n++] = mask_arg(l, a.a[2], pt);
	if (m)
		ops[n++] = m;
	if (code == OP_STORE) {
		Op *op = ir_new_op(l->f, OP_STORE, ops, n, NULL, 0, l->b.loc);
		b_place(&l->b, op);
		return rv(0, false);
	}
	if (!atomic_elem_ok(kind, pt.pointee))
		error_at(l->d, call->loc, "'%s' does not support %s", call->name, elem_name(pt.pointee));
	Type rt = type_with_elem(pt, pt.pointee);
	rt.pointee = TY_VOID;
	ValId r = emit(l, code, rt, ops, n);
	l->f->vals[r].def->iattr[0] = kind;
	l->f->vals[r].def->iattr[1] = order;
	return rv(r, false);
}

/* atomic_cas(ptr, cmp, value, mask?): value where the old bits equal cmp's; the old values */
static Rv atomic_cas(L *l, Node *call)
{
	static const char *const names[] = {"ptr", "cmp", "value", "mask", "sem", "scope", NULL};
	Args a = args_of(l, call, names, 3);
	int64_t order = memory_order(l, a.a[4], a.a[5]);
	ValId ops[4];
	int n = 0;
	ops[n++] = pointer_arg(l, call, a.a[0]);
	Type pt = ty(l, ops[0]);
	if (!atomic_cas_elem_ok(pt.pointee))
		error_at(l->d, call->loc, "'atomic_cas' does not support %s (it takes i32, i64, f32 and f64)",
			 elem_name(pt.pointee));
	ops[n++] = value_arg(l, call, a.a[1], pt);
	ops[n++] = value_arg(l, call, a.a[2], pt);
	if (a.a[3])
		ops[n++] = mask_arg(l, a.a[3], pt);
	Type rt = type_with_elem(pt, pt.pointee);
	rt.pointee = TY_VOID;
	ValId r = emit(l, OP_ATOMIC_CAS, rt, ops, n);
	l->f->vals[r].def->iattr[1] = order;
	return rv(r, false);
}

static Rv dot(L *l, Node *call)
{
	static const char *const names[] = {"a", "b", "acc", "allow_tf32", NULL};
	Args a = args_of(l, call, names, 2);
	Rv x = expr(l, a.a[0]), y = expr(l, a.a[1]);
	Type ta = ty(l, x.v), tb = ty(l, y.v);
	if (ta.rank != 2)
		error_at(l->d, call->loc, "'dot' needs 2-D operands, got %s", tstr(l, ta));
	if (tb.rank != 2)
		error_at(l->d, call->loc, "'dot' needs 2-D operands, got %s", tstr(l, tb));
	if (ta.shape[1] != tb.shape[0])
		error_at(l->d, call->loc, "'dot' inner dimensions differ: %s x %s", shape_str(l, ta), shape_str(l, tb));
	if (ta.shape[0] < 16 || ta.shape[1] < 16 || tb.shape[1] < 16)
		error_at(l->d, call->loc, "'dot' dimensions must be at least 16, got %s x %s", shape_str(l, ta),
			 shape_str(l, tb));
	if (ta.elem != tb.elem)
		error_at(l->d, call->loc, "'dot' operand types differ: %s and %s", elem_name(ta.elem), elem_name(tb.elem));
	if (!op_elem_ok(OP_DOT, ta.elem))
		error_at(l->d, call->loc, "'dot' does not support %s operands", elem_name(ta.elem));
	ElemKind acc_e = elem_is_float(ta.elem) || elem_is_f8(ta.elem) ? TY_F32 : TY_I32;
	int32_t shape[2] = {ta.shape[0], tb.shape[1]};
	Type rt = type_tensor(acc_e, 2, shape);
	ValId acc;
	if (a.a[2]) {
		Rv c = expr(l, a.a[2]);
		if (!type_eq(ty(l, c.v), rt))
			error_at(l->d, a.a[2]->loc, "'dot' accumulator must be %s, got %s", tstr(l, rt), tstr(l, ty(l, c.v)));
		acc = c.v;
	} else {
		acc = broadcast_to(l, zero_of(l, acc_e), rt);
	}
	int64_t tf32 = 0;
	if (a.a[3])
		tf32 = const_arg(l, a.a[3], "'allow_tf32' must be a compile-time constant", false) != 0;
	ValId ops[3] = {x.v, y.v, acc};
	ValId r = emit(l, OP_DOT, rt, ops, 3);
	l->f->vals[r].def->iattr[0] = tf32;
	return rv(r, false);
}

/* The element-wise math functions call() takes by name. */
static const struct {
	const char *name;
	Opcode op;
} math[] = {
	{"exp", OP_EXP}, {"exp2", OP_EXP2}, {"log", OP_LOG}, {"log2", OP_LOG2}, {"sqrt", OP_SQRT},
	{"rsqrt", OP_RSQRT}, {"abs", OP_ABS}, {"sin", OP_SIN}, {"cos", OP_COS}, {"tanh", OP_TANH},
	{"erf", OP_ERF}, {"floor", OP_FLOOR}, {"ceil", OP_CEIL}, {"log1p", OP_LOG1P}, {"expm1", OP_EXPM1},
	{"atan", OP_ATAN}, {"trunc", OP_TRUNC}, {"rint", OP_RINT}, {"round", OP_ROUND}, {"sqrt_rn", OP_SQRT},
};

/* ---- random numbers ---- */

typedef enum { RAND_INT, RAND_UNIFORM, RAND_NORMAL, RAND_INT4 } RandKind;

/* A cmp, not, select, cast and multiply: x's bits as a float in [0, 1), as Triton's uint_to_uniform_float. */
static ValId uniform(L *l, ValId x)
{
	Type t = ty(l, x), b = t, f = t;
	b.elem = TY_I1;
	f.elem = TY_F32;
	ValId lt = emit(l, OP_CMP, b, (ValId[]){x, broadcast_to(l, cint(l, TY_I32, 0), t)}, 2);
	l->f->vals[lt].def->iattr[0] = CMP_LT;
	ValId y = emit(l, OP_SELECT, t, (ValId[]){lt, emit(l, OP_NOT, t, &x, 1), x}, 3); /* ~x = -x - 1 */
	ValId yf = emit(l, OP_CAST, f, &y, 1);
	return emit(l, OP_MUL, f, (ValId[]){yf, broadcast_to(l, cfloat(l, TY_F32, 4.6566127342e-10), f)}, 2);
}

/*
 * randint, rand, randn and randint4x(seed, offset, n_rounds = 10): Philox4x32
 * of the counter (offset, 0, 0, 0) and the key (seed's low and high words),
 * element by element, so the same seed and offset give the same numbers in
 * any kernel, layout or launch, and the numbers Triton's functions of the
 * same name give.  Writes the values to out[] and returns how many.
 */
static int random_call(L *l, Node *call, RandKind kind, Rv *out)
{
	static const char *const names[] = {"seed", "offset", "n_rounds", NULL};
	Args a = args_of(l, call, names, 2);
	Rv seed = expr(l, a.a[0]), off = expr(l, a.a[1]);
	Type st = ty(l, seed.v), t = ty(l, off.v);
	if (st.rank != 0 || !elem_is_int(st.elem) || st.elem == TY_I1)
		error_at(l->d, a.a[0]->loc, "'%s' needs an integer scalar seed, got %s", call->name, tstr(l, st));
	if (!elem_is_int(t.elem) || t.elem == TY_I1 || t.elem == TY_I64)
		error_at(l->d, a.a[1]->loc, "'%s' needs i32 offsets (the counter is 32 bits), got %s", call->name,
			 tstr(l, t));
	int64_t rounds = 10;
	if (a.a[2]) {
		rounds = const_arg(l, a.a[2], "n_rounds must be a compile-time constant", false);
		if (rounds < 1 || rounds > MAX_PHILOX_ROUNDS)
			error_at(l->d, a.a[2]->loc, "n_rounds must be from 1 to %d, got %lld", MAX_PHILOX_ROUNDS,
				 (long long)rounds);
	}
	l->b.loc = call->loc;
	t.elem = TY_I32;
	ValId c0 = cast_to(l, off.v, TY_I32), s = cast_to(l, seed.v, TY_I64);
	ValId hi = emit(l, OP_SHR, type_scalar(TY_I64), (ValId[]){s, cint(l, TY_I64, 32)}, 2);
	ValId key[2] = {broadcast_to(l, cast_to(l, s, TY_I32), t), broadcast_to(l, cast_to(l, hi, TY_I32), t)};
	ValId w[4];
	for (int i = 0; i < (kind == RAND_INT4 ? 4 : kind == RAND_NORMAL ? 2 : 1); i++) {
		w[i] = emit(l, OP_PHILOX, t, (ValId[]){c0, key[0], key[1]}, 3);
		l->f->vals[w[i]].def->iattr[0] = rounds;
		l->f->vals[w[i]].def->iattr[1] = i;
	}
	switch (kind) {
	case RAND_INT: out[0] = rv(w[0], false); return 1;
	case RAND_INT4:
		for (int i = 0; i < 4; i++)
			out[i] = rv(w[i], false);
		return 4;
	case RAND_UNIFORM: out[0] = rv(uniform(l, w[0]), false); return 1;
	case RAND_NORMAL: { /* Box-Muller, as Triton's randn: sqrt(-2 log u1) cos(2 pi u2) */
		Type f = t;
		f.elem = TY_F32;
		ValId u1 = emit(l, OP_MAX, f, (ValId[]){uniform(l, w[0]), broadcast_to(l, cfloat(l, TY_F32, 1e-7), f)}, 2);
		ValId th = emit(l, OP_MUL, f, (ValId[]){broadcast_to(l, cfloat(l, TY_F32, 6.283185307179586), f),
							uniform(l, w[1])}, 2);
		ValId lg = emit(l, OP_LOG, f, &u1, 1);
		ValId m = emit(l, OP_MUL, f, (ValId[]){broadcast_to(l, cfloat(l, TY_F32, -2.0), f), lg}, 2);
		ValId r = emit(l, OP_SQRT, f, &m, 1);
		out[0] = rv(emit(l, OP_MUL, f, (ValId[]){r, emit(l, OP_COS, f, &th, 1)}, 2), false);
		return 1;
	}
	}
	die("random kind %d", kind);
}

/* ---- fn helpers ---- */

/*
 * A call of an fn: its body is lowered here, inline, in a scope of its own
 * that sees only its parameters.  They are bound to the argument values, so
 * a constant argument stays a constant (and can size a tile), a weak
 * literal stays weak, and a tile keeps its shape: an fn is generic, as a
 * Triton @jit function called from a kernel.  The call's values, in out[],
 * are those of the fn's final `return a, b, ...;`; it returns how many.
 */
static int inline_body(L *l, int idx, Loc call_loc, Rv *val, Node **given, Rv *out);

/* Whether fn idx may be inlined at loc: no recursion, nor too deep or too many. */
static void check_inlining(L *l, int idx, Loc loc)
{
	const Kernel *fn = l->p->fns[idx];
	int depth = 0;
	for (Call *c = l->calls; c; c = c->up, depth++)
		if (c->fn == fn)
			error_at(l->d, loc, "fn '%s' calls itself%s; an fn is inlined, so it cannot recurse",
				 fn->name, c == l->calls ? "" : " through other fns");
	if (depth >= MAX_NESTING)
		error_at(l->d, loc, "fn calls nest more than %d deep", MAX_NESTING);
	if (++l->ninlined > MAX_INLINED)
		error_at(l->d, loc, "more than %d fn calls to inline in kernel '%s'", MAX_INLINED, l->k->name);
}

static int inline_fn(L *l, Node *call, int idx, Rv *out)
{
	const Kernel *fn = l->p->fns[idx];
	check_inlining(l, idx, call->loc);
	int np = fn->nparams, npos = 0;
	int *slot = NEWN(l->a, int, call->nargs + 1);
	Node **given = NEWN(l->a, Node *, np + 1);
	for (int i = 0; i < call->nargs; i++) {
		Node *a = call->args[i];
		slot[i] = -1;
		if (a->argname) {
			for (int j = 0; j < np; j++)
				if (!strcmp(fn->params[j].name, a->argname))
					slot[i] = j;
			if (slot[i] < 0)
				error_at(l->d, a->loc, "fn '%s' has no parameter '%s'", fn->name, a->argname);
		} else if ((slot[i] = npos++) >= np) {
			error_at(l->d, a->loc, "fn '%s' takes %d argument%s, got %d", fn->name, np, np == 1 ? "" : "s",
				 call->nargs);
		}
		if (given[slot[i]])
			error_at(l->d, a->loc, "argument '%s' given twice", fn->params[slot[i]].name);
		given[slot[i]] = a;
	}
	for (int j = 0; j < np; j++)
		if (!given[j] && !fn->params[j].defval)
			error_at(l->d, call->loc, "fn '%s' needs an argument for '%s'", fn->name, fn->params[j].name);
	Rv *val = NEWN(l->a, Rv, np + 1);
	for (int i = 0; i < call->nargs; i++) /* in the order written */
		val[slot[i]] = bexpr(l, call->args[i]);
	return inline_body(l, idx, call->loc, val, given, out);
}

/*
 * The body of fn idx, inlined for a call at call_loc: val[j] is parameter
 * j's value where given[j] is set (given NULL: all are), else its default's.
 */
static int inline_body(L *l, int idx, Loc call_loc, Rv *val, Node **given, Rv *out)
{
	const Kernel *fn = l->p->fns[idx];
	int np = fn->nparams;
	Scope *scope = l->scope;
	Call c = {fn, l->calls};
	/* in the function's arena: the ops' locations point at it (loc.in) */
	DiagFrame *frame = NEW(l->f->arena, DiagFrame);
	*frame = (DiagFrame){fn->name, call_loc, l->d->frames};
	l->scope = NULL;
	l->calls = &c;
	l->d->frames = frame;
	l->f->inlining = frame;
	push_scope(l);
	for (int j = 0; j < np; j++) /* defaults see no names, as Python's */
		if (given && !given[j])
			val[j] = expr(l, fn->params[j].defval);
	for (int j = 0; j < np; j++) {
		Binding *b = bind_rv(l, fn->params[j].name, val[j], fn->params[j].loc, false);
		b->runtime_param = true;
		b->weak = val[j].weak;
	}
	Node *body = fn->body;
	int n = body->nstmts;
	Node *ret = n > 0 && body->stmts[n - 1]->kind == ND_RETURN ? body->stmts[--n] : NULL;
	push_scope(l);
	for (int i = 0; i < n; i++)
		stmt(l, body->stmts[i]);
	int nr = 0;
	if (ret && ret->lhs)
		nr = values_of(l, ret->lhs, out); /* `return g(x);` passes on all of g's values */
	if (ret && ret->nargs > MAX_RESULTS)
		error_at(l->d, ret->loc, "an fn returns at most %d values", MAX_RESULTS);
	for (int i = 0; ret && i < ret->nargs; i++)
		out[nr++] = bexpr(l, ret->args[i]);
	pop_scope(l);
	pop_scope(l);
	l->d->frames = frame->up;
	l->f->inlining = frame->up;
	l->calls = c.up;
	l->scope = scope;
	return nr;
}

static int fn_index(L *l, const char *name)
{
	for (int i = 0; i < l->p->nfns; i++)
		if (!strcmp(name, l->p->fns[i]->name))
			return i;
	return -1;
}

/* A call that may give several values (or none): of an fn, or randint4x. */
static bool multi_valued(L *l, Node *e)
{
	return e->kind == ND_CALL && (fn_index(l, e->name) >= 0 || !strcmp(e->name, "randint4x") ||
				      !strcmp(e->name, "split") || !strcmp(e->name, "reduce") ||
				      !strcmp(e->name, "associative_scan") || !strcmp(e->name, "sort") ||
				      !strcmp(e->name, "topk") || !strcmp(e->name, "swizzle2d"));
}

/* The values of e into out[], and how many: a multi_valued call's, else e's one. */
static int values_of(L *l, Node *e, Rv *out)
{
	if (!multi_valued(l, e)) {
		out[0] = bexpr(l, e); /* an fn's `return p;` may pass on a block pointer */
		return 1;
	}
	int idx = fn_index(l, e->name);
	if (idx >= 0)
		return inline_fn(l, e, idx, out);
	if (!strcmp(e->name, "reduce") || !strcmp(e->name, "associative_scan"))
		return combine_call(l, e, e->name[0] == 'a', out);
	if (!strcmp(e->name, "sort") || !strcmp(e->name, "topk"))
		return sort_call(l, e, e->name[0] == 't', out);
	if (!strcmp(e->name, "swizzle2d"))
		return swizzle2d(l, e, out);
	return !strcmp(e->name, "split") ? split(l, e, out) : random_call(l, e, RAND_INT4, out);
}

/* An fn's call as an expression: one value, or none for a statement. */
static Rv fn_call(L *l, Node *call, int idx)
{
	Rv r[MAX_RESULTS] = {{0}};
	int n = inline_fn(l, call, idx, r);
	if (n > 1)
		error_at(l->d, call->loc, "fn '%s' returns %d values; take them with 'let a, b = %s(...);'", call->name, n,
			 call->name);
	return r[0];
}

/*
 * A combine_fn's region may hold only scalar, pure, straight-line ops: it
 * runs wherever two partials meet (in registers, after a shuffle, after
 * shared memory), any number of times.
 */
static void check_combine_ops(L *l, Block *b, const char *fname)
{
	for (Op *op = b->first; op; op = op->next) {
		if (op->code == OP_YIELD)
			continue;
		if (op->nblocks)
			error_at(l->d, op->loc, "combine_fn '%s' must be straight-line code (no if, for or while; "
				 "choose with where)", fname);
		if (!op_has(op->code, F_PURE) || op->code == OP_LOAD)
			error_at(l->d, op->loc, "combine_fn '%s' cannot read or write memory", fname);
		for (int i = 0; i < op->nres; i++)
			if (vtype(l->f, op->res[i]).rank)
				error_at(l->d, op->loc, "combine_fn '%s' works on scalars, but this makes %s", fname,
					 tstr(l, vtype(l->f, op->res[i])));
	}
}

/*
 * reduce(input, axis, combine_fn) and associative_scan(input, axis,
 * combine_fn, reverse = false), as Triton's tl.reduce and
 * tl.associative_scan: input is a tile or a tuple (a, b, ...) of k values
 * broadcast to one shape; combine_fn names an fn of 2k parameters, called
 * on scalars, an earlier partial (k values) and a later one, and returning
 * their combination (k values of the inputs' element types).  The fn is
 * inlined once, into the op's region (ops.def).  out[] gets the k results.
 */
static int combine_call(L *l, Node *call, bool scan, Rv *out)
{
	static const char *const rn[] = {"input", "axis", "combine_fn", NULL};
	static const char *const sn[] = {"input", "axis", "combine_fn", "reverse", NULL};
	Args a = args_of(l, call, scan ? sn : rn, 3);
	Rv xs[MAX_RESULTS];
	Type shape;
	int k = tuple_inputs(l, call, a.a[0], true, xs, &shape);
	ValId v[MAX_RESULTS];
	for (int i = 0; i < k; i++)
		v[i] = xs[i].v;
	int ax = axis_arg(l, a.a[1], shape);
	int64_t rev = scan && a.a[3] ? const_arg(l, a.a[3], "reverse must be a compile-time constant", false) : 0;
	Node *fnn = a.a[2];
	int idx = fnn->kind == ND_NAME ? fn_index(l, fnn->name) : -1;
	if (idx < 0)
		error_at(l->d, fnn->loc, "'%s' needs the name of an fn as its combine_fn (as in %s(x, 0, add) with "
			 "'fn add(a, b) { return a + b; }')", call->name, call->name);
	const Kernel *fn = l->p->fns[idx];
	int required = 0;
	for (int j = 0; j < fn->nparams; j++)
		required += fn->params[j].defval == NULL;
	if (fn->nparams < 2 * k || required > 2 * k)
		error_at(l->d, fnn->loc, "combine_fn '%s' takes %d parameter%s; combining %d value%s takes %d: the %d of "
			 "an earlier partial, then the %d of a later one", fn->name, fn->nparams,
			 fn->nparams == 1 ? "" : "s", k, k == 1 ? "" : "s", 2 * k, k, k);

	Type at[2 * MAX_RESULTS], rt[MAX_RESULTS];
	for (int i = 0; i < k; i++) {
		v[i] = broadcast_to(l, v[i], shape);
		at[i] = at[k + i] = type_scalar(ty(l, v[i]).elem);
		rt[i] = type_with_elem(scan ? shape : drop_axis(shape, ax), at[i].elem);
	}
	Block *body = ir_new_block(l->f, 2 * k, at);
	Op *op = ir_new_op(l->f, scan ? OP_SCAN : OP_REDUCE, v, k, rt, k, call->loc);
	op->iattr[0] = ax;
	op->iattr[1] = rev != 0;
	add_region(op, body);

	Builder saved = l->b;
	l->b.at = body;
	l->b.before = NULL;
	check_inlining(l, idx, fnn->loc);
	/* the first 2k parameters take the partials; any others their defaults */
	Rv *vals = NEWN(l->a, Rv, fn->nparams), res[MAX_RESULTS];
	Node **given = NEWN(l->a, Node *, fn->nparams);
	for (int j = 0; j < 2 * k; j++) {
		vals[j] = rv(body->args[j], false);
		given[j] = fnn;
	}
	int nr = inline_body(l, idx, fnn->loc, vals, given, res);
	if (nr != k)
		error_at(l->d, fnn->loc, "combine_fn '%s' returns %d value%s; combining %d takes %d", fn->name, nr,
			 nr == 1 ? "" : "s", k, k);
	ValId y[MAX_RESULTS];
	for (int i = 0; i < k; i++) {
		Type t = ty(l, res[i].v);
		if (t.rank)
			error_at(l->d, fnn->loc, "combine_fn '%s' returns %s as value %d; it works on scalars", fn->name,
				 tstr(l, t), i + 1);
		if (t.elem != at[i].elem && !res[i].weak)
			error_at(l->d, fnn->loc, "combine_fn '%s' returns %s as value %d, for an input of %s; it returns "
				 "the inputs' types (cast it)", fn->name, tstr(l, t), i + 1, tstr(l, at[i]));
		y[i] = cast_to(l, res[i].v, at[i].elem);
	}
	ir_append(body, ir_new_op(l->f, OP_YIELD, y, k, NULL, 0, call->loc));
	check_combine_ops(l, body, fn->name);
	l->b = saved;
	b_place(&l->b, op);
	for (int i = 0; i < k; i++)
		out[i] = rv(op->res[i], false);
	return k;
}

/* The built-ins that take their call alone, by name. */
static const struct {
	const char *name;
	Rv (*lower)(L *l, Node *call);
} builtins[] = {
	{"load", load}, {"atomic_cas", atomic_cas}, {"dot", dot}, {"xor_sum", xor_sum}, {"sigmoid", sigmoid},
	{"clamp", clamp}, {"fma", fma_call}, {"where", where}, {"umulhi", umulhi}, {"pow", pow_call},
	{"atan2", atan2_call}, {"isnan", classify}, {"isinf", classify}, {"isfinite", classify}, {"softmax", softmax},
	{"static_assert", static_assert_call}, {"reshape", reshape}, {"ravel", ravel}, {"broadcast_to", broadcast_call},
	{"expand_dims", expand_dims}, {"cat", cat}, {"flip", flip}, {"permute", permute}, {"gather", gather},
	{"histogram", histogram}, {"device_print", device_print}, {"device_assert", device_assert},
	{"multiple_of", hint}, {"max_contiguous", hint}, {"max_constancy", hint}, {"make_block_ptr", make_block_ptr},
	{"advance", advance},
};

/* Every name call() takes, and the type names: an fn may not take one. */
static bool reserved_name(const char *s)
{
	static const char *const names[] = {
		"program_id", "num_programs", "arange", "zeros", "full", "zeros_like", "store", "sum", "max", "min",
		"argmax", "argmin", "cumsum", "cumprod", "maximum", "minimum", "div_rn", "fdiv", "cast", "cdiv", "trans", "join",
		"split", "interleave", "rand", "randn", "randint", "randint4x", "range", "inf", "nan", "reduce",
		"associative_scan", "sort", "topk", "swizzle2d",
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcmp(s, names[i]))
			return true;
	for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
		if (!strcmp(s, builtins[i].name))
			return true;
	for (size_t i = 0; i < sizeof math / sizeof math[0]; i++)
		if (!strcmp(s, math[i].name))
			return true;
	for (int k = 0; k < ATOM_COUNT; k++)
		if (!strncmp(s, "atomic_", 7) && !strcmp(s + 7, atomic_names[k]))
			return true;
	return elem_from_name(s, (int)strlen(s)) != TY_VOID;
}

/* What makes a program's names ambiguous, checked whichever kernel is compiled. */
static void check_names(L *l, const Program *p)
{
	for (int i = 0; i < p->nkernels; i++)
		for (int j = 0; j < i; j++)
			if (!strcmp(p->kernels[i]->name, p->kernels[j]->name))
				error_at(l->d, p->kernels[i]->loc, "kernel '%s' is defined twice", p->kernels[i]->name);
	for (int i = 0; i < p->nfns; i++) {
		const Kernel *fn = p->fns[i];
		if (reserved_name(fn->name))
			error_at(l->d, fn->loc, "'%s' is a built-in name; give the fn another", fn->name);
		for (int j = 0; j < p->nkernels; j++)
			if (!strcmp(fn->name, p->kernels[j]->name))
				error_at(l->d, fn->loc, "'%s' is both a kernel and an fn", fn->name);
		for (int j = 0; j < i; j++)
			if (!strcmp(fn->name, p->fns[j]->name))
				error_at(l->d, fn->loc, "fn '%s' is defined twice", fn->name);
		for (int j = 0; j < fn->nparams; j++)
			for (int k = 0; k < j; k++)
				if (!strcmp(fn->params[j].name, fn->params[k].name))
					error_at(l->d, fn->params[j].loc, "duplicate parameter '%s'", fn->params[j].name);
	}
}

static Rv call(L *l, Node *n)
{
	const char *f = n->name;
	l->b.loc = n->loc;
	for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
		if (!strcmp(f, builtins[i].name))
			return builtins[i].lower(l, n);
	if (!strcmp(f, "program_id") || !strcmp(f, "num_programs")) {
		static const char *const names[] = {"axis", NULL};
		Args a = args_of(l, n, names, 1);
		int64_t ax = const_arg(l, a.a[0], "axis must be a compile-time constant", false);
		if (ax < 0 || ax > 2)
			error_at(l->d, a.a[0]->loc, "%s axis must be 0, 1 or 2", f);
		l->b.loc = n->loc;
		ValId v = emit(l, f[0] == 'p' ? OP_PROGRAM_ID : OP_NUM_PROGRAMS, type_scalar(TY_I32), NULL, 0);
		l->f->vals[v].def->iattr[0] = ax;
		return rv(v, false);
	}
	if (!strcmp(f, "arange")) {
		static const char *const names[] = {"lo", "hi", NULL};
		Args a = args_of(l, n, names, 2);
		int64_t lo = const_arg(l, a.a[0], "arange bounds must be compile-time constants", true);
		int64_t hi = const_arg(l, a.a[1], "arange bounds must be compile-time constants", true);
		if (hi - lo <= 0 || !is_pow2(hi - lo))
			error_at(l->d, n->loc, "arange size %lld is not a power of two", (long long)(hi - lo));
		if (lo < INT32_MIN || hi > INT32_MAX)
			error_at(l->d, n->loc, "arange bounds must fit in i32");
		int32_t shape[1] = {(int32_t)(hi - lo)};
		check_tile(l, n->loc, 1, shape);
		l->b.loc = n->loc;
		ValId v = emit(l, OP_ARANGE, type_tensor(TY_I32, 1, shape), NULL, 0);
		l->f->vals[v].def->iattr[0] = lo;
		l->f->vals[v].def->iattr[1] = hi;
		return rv(v, false);
	}
	if (!strcmp(f, "zeros") || !strcmp(f, "full")) {
		bool full = f[0] == 'f';
		static const char *const zn[] = {"shape", "type", NULL}, *const fn[] = {"shape", "value", "type", NULL};
		Args a = args_of(l, n, full ? fn : zn, full ? 3 : 2);
		ElemKind e = type_arg(l, n, a.a[full ? 2 : 1]);
		Type t = shape_arg(l, a.a[0], e);
		ValId s;
		if (full) {
			Rv v = expr(l, a.a[1]);
			if (ty(l, v.v).rank != 0)
				error_at(l->d, a.a[1]->loc, "'full' needs a scalar value, got %s", tstr(l, ty(l, v.v)));
			if (ty(l, v.v).elem == TY_PTR)
				error_at(l->d, a.a[1]->loc, "'full' of a pointer value is not supported");
			s = cast_to(l, v.v, e);
		} else {
			s = zero_of(l, e);
		}
		l->b.loc = n->loc;
		return rv(emit(l, OP_SPLAT, t, &s, 1), false);
	}
	if (!strcmp(f, "zeros_like")) { /* zeros of input's shape and type, as tl.zeros_like */
		static const char *const names[] = {"input", NULL};
		Args a = args_of(l, n, names, 1);
		Type t = ty(l, expr(l, a.a[0]).v);
		if (t.elem == TY_PTR)
			error_at(l->d, a.a[0]->loc, "'zeros_like' of a pointer is not supported");
		l->b.loc = n->loc;
		return rv(broadcast_to(l, zero_of(l, t.elem), t), false);
	}
	if (!strcmp(f, "store"))
		return store_like(l, n, OP_STORE, ATOM_ADD);
	for (int k = 0; k < ATOM_COUNT; k++)
		if (!strncmp(f, "atomic_", 7) && !strcmp(f + 7, atomic_names[k]))
			return store_like(l, n, OP_ATOMIC, (AtomicKind)k);
	if (!strcmp(f, "sum"))
		return reduce(l, n, OP_SUM);
	if (!strcmp(f, "max"))
		return reduce(l, n, OP_RMAX);
	if (!strcmp(f, "min"))
		return reduce(l, n, OP_RMIN);
	if (!strcmp(f, "argmax"))
		return reduce(l, n, OP_ARGMAX);
	if (!strcmp(f, "argmin"))
		return reduce(l, n, OP_ARGMIN);
	if (!strcmp(f, "cumsum") || !strcmp(f, "cumprod"))
		return cumsum(l, n, f[3] == 'p');
	if (!strcmp(f, "reduce") || !strcmp(f, "associative_scan") || !strcmp(f, "sort") || !strcmp(f, "topk")) {
		Rv r[MAX_RESULTS];
		if (values_of(l, n, r) > 1)
			error_at(l->d, n->loc, "'%s' of a tuple gives one value per input; take them with "
				 "'let a, b = %s(...);'", f, f);
		return r[0];
	}
	for (size_t i = 0; i < sizeof math / sizeof math[0]; i++)
		if (!strcmp(f, math[i].name))
			return unary_math(l, n, math[i].op);
	if (!strcmp(f, "maximum") || !strcmp(f, "minimum"))
		return minmax(l, n, f[1] == 'a');
	if (!strcmp(f, "rand") || !strcmp(f, "randn") || !strcmp(f, "randint")) {
		Rv r[1];
		random_call(l, n, f[4] == 'i' ? RAND_INT : f[4] == 'n' ? RAND_NORMAL : RAND_UNIFORM, r);
		return r[0];
	}
	if (!strcmp(f, "randint4x"))
		error_at(l->d, n->loc, "'randint4x' gives 4 values; take them with 'let a, b, c, d = randint4x(...);'");
	if (!strcmp(f, "div_rn") || !strcmp(f, "fdiv")) { /* fdiv(x, y, ieee_rounding = false), as tl.fdiv */
		static const char *const dn[] = {"a", "b", NULL}, *const fn[] = {"x", "y", "ieee_rounding", NULL};
		bool rn = f[0] == 'd';
		Args a = args_of(l, n, rn ? dn : fn, 2);
		Rv x = expr(l, a.a[0]), y = expr(l, a.a[1]);
		bool ieee = rn || (a.a[2] && const_arg(l, a.a[2], "ieee_rounding must be a compile-time constant", false));
		l->b.loc = n->loc;
		return float_div(l, n, x, y, ieee);
	}
	if (!strcmp(f, "cast")) {
		static const char *const names[] = {"x", "type", "bitcast", NULL};
		Args a = args_of(l, n, names, 2);
		Rv x = expr(l, a.a[0]);
		ElemKind e = type_arg(l, n, a.a[1]), from = ty(l, x.v).elem;
		if (from == TY_PTR)
			error_at(l->d, a.a[0]->loc, "cannot cast a pointer");
		l->b.loc = n->loc;
		if (!a.a[2] || !const_arg(l, a.a[2], "bitcast must be a compile-time constant", false))
			return rv(cast_to(l, x.v, e), false);
		if (from == TY_I1 || e == TY_I1 || elem_bits(from) != elem_bits(e))
			error_at(l->d, n->loc, "cannot bitcast %s to %s: a bitcast keeps the bits, so both need one width (%d and %d bits)",
				 elem_name(from), elem_name(e), elem_bits(from), elem_bits(e));
		return rv(from == e ? x.v : bitcast(l, x.v, e), false);
	}
	if (!strcmp(f, "swizzle2d"))
		error_at(l->d, n->loc, "'swizzle2d' gives 2 values; take them with 'let i, j = swizzle2d(...);'");
	if (!strcmp(f, "cdiv")) {
		static const char *const names[] = {"a", "b", NULL};
		Args a = args_of(l, n, names, 2);
		Rv x = expr(l, a.a[0]), y = expr(l, a.a[1]);
		if (!elem_is_int(ty(l, x.v).elem) || !elem_is_int(ty(l, y.v).elem))
			error_at(l->d, n->loc, "'cdiv' needs integer operands, got %s and %s", tstr(l, ty(l, x.v)),
				 tstr(l, ty(l, y.v)));
		Rv one = weak_int(l, 1);
		Rv t = binary(l, n->loc, TK_PLUS, x, y);
		t = binary(l, n->loc, TK_MINUS, t, one);
		return binary(l, n->loc, TK_SLASH, t, y);
	}
	if (!strcmp(f, "join") || !strcmp(f, "interleave"))
		return join(l, n, f[0] == 'i');
	if (!strcmp(f, "split"))
		error_at(l->d, n->loc, "'split' gives 2 values; take them with 'let a, b = split(x);'");
	if (!strcmp(f, "trans")) {
		static const char *const names[] = {"x", NULL};
		Args a = args_of(l, n, names, 1);
		Rv x = expr(l, a.a[0]);
		if (ty(l, x.v).rank != 2)
			error_at(l->d, n->loc, "'trans' needs a 2-D tensor, got %s", tstr(l, ty(l, x.v)));
		return rv(transpose(l, n->loc, x.v), false);
	}
	int idx = fn_index(l, f);
	if (idx >= 0)
		return fn_call(l, n, idx);
	if (lookup(l, f))
		error_at(l->d, n->loc, "'%s' is not a function", f);
	for (int i = 0; i < l->p->nkernels; i++)
		if (!strcmp(f, l->p->kernels[i]->name))
			error_at(l->d, n->loc, "'%s' is a kernel, which cannot be called; make it an 'fn'", f);
	error_at(l->d, n->loc, "unknown function '%s'", f);
}

/* x[:, None] */
static Rv index_expr(L *l, Node *n)
{
	Rv x = expr(l, n->lhs);
	Type t = ty(l, x.v);
	int slices = 0;
	for (int i = 0; i < n->nargs; i++)
		slices += n->args[i]->kind == ND_SLICE;
	if (slices != t.rank)
		error_at(l->d, n->loc, "index needs one ':' per dimension of %s, got %d", tstr(l, t), slices);
	if (n->nargs > MAX_RANK)
		error_at(l->d, n->loc, "tensors of rank %d are not supported (at most %d)", n->nargs, MAX_RANK);
	ValId v = x.v;
	l->b.loc = n->loc;
	for (int i = 0; i < n->nargs; i++) /* scalar[None] -> tensor<1xT> */
		if (n->args[i]->kind == ND_NONE)
			v = expand_at(l, v, i);
	return rv(v, false);
}

/*
 * The parser bounds how deep one body nests; inlining fns adds their bodies'
 * depths, so lowering bounds the sum, and no input overflows the stack.
 */
enum { MAX_STMT_DEPTH = 2 * MAX_NESTING, MAX_EXPR_DEPTH = 16 * MAX_NESTING };

/* An expression, which may have no value (a store): only a statement takes it as it is. */
static Rv eval(L *l, Node *n)
{
	if (++l->edepth > MAX_EXPR_DEPTH)
		error_at(l->d, n->loc, "expressions nest more than %d deep once fns are inlined", MAX_EXPR_DEPTH);
	Loc saved = l->b.loc;
	l->b.loc = n->loc;
	Rv r;
	switch (n->kind) {
	case ND_INT: r = weak_int(l, n->ival); break;
	case ND_FLOAT: r = rv(cfloat(l, TY_F32, n->fval), true); break;
	case ND_BOOL: r = rv(cint(l, TY_I1, n->ival != 0), false); break;
	case ND_NAME: r = name(l, n); break;
	case ND_UNARY: r = unary(l, n); break;
	case ND_BINARY: {
		Rv x = expr(l, n->lhs), y = expr(l, n->rhs);
		l->b.loc = n->loc;
		r = binary(l, n->loc, n->op, x, y);
		break;
	}
	case ND_CALL: r = call(l, n); break;
	case ND_INDEX: r = index_expr(l, n); break;
	case ND_TYPE: error_at(l->d, n->loc, "a type is not a value here");
	case ND_LIST: error_at(l->d, n->loc, "a list is only valid as a shape (zeros, full, reshape, broadcast_to), "
			       "permute's dims, expand_dims's axis, or a block pointer's values (make_block_ptr, advance, "
			       "boundary_check)");
	case ND_TUPLE: error_at(l->d, n->loc, "a tuple (a, b, ...) is only valid as the input of reduce, "
				"associative_scan, sort or topk, or where a list is (a shape, a block pointer's values)");
	case ND_STR: error_at(l->d, n->loc, "a string is only valid as an atomic's sem= or scope=, static_assert's or "
			      "device_assert's message, device_print's prefix, or a load's padding_option");
	case ND_NONE:
	case ND_SLICE: error_at(l->d, n->loc, "'%s' is only valid inside an index", n->kind == ND_NONE ? "None" : ":");
	default: die("expr kind %d", n->kind);
	}
	l->b.loc = saved;
	l->edepth--;
	return r;
}

/* A used expression that may be a block pointer: what variables, fns, load, store and advance take. */
static Rv bexpr(L *l, Node *n)
{
	Rv r = eval(l, n);
	if (!r.v)
		error_at(l->d, n->loc, "'%s' has no value", n->kind == ND_CALL ? n->name : "expression");
	return r;
}

/* An expression whose value is used: every operand, argument and initialiser. */
static Rv expr(L *l, Node *n)
{
	Rv r = bexpr(l, n);
	if (r.bp)
		error_at(l->d, n->loc, "a block pointer can only be loaded, stored, advanced, assigned to a variable "
			 "or passed to an fn");
	return r;
}

/* ---- statements ---- */

/* Names assigned anywhere in n (ND_ASSIGN and ND_UNPACK targets), deduplicated, in order. */
static void assigned_names(L *l, Node *n, const char ***names, int *count, int *cap)
{
	if (!n)
		return;
	if (n->kind == ND_ASSIGN || (n->kind == ND_UNPACK && n->op == TK_ASSIGN)) {
		for (int k = 0; k < (n->kind == ND_UNPACK ? n->nargs : 1); k++) {
			const char *name = n->kind == ND_UNPACK ? n->args[k]->name : n->name;
			bool seen = false;
			for (int i = 0; i < *count; i++)
				seen |= !strcmp((*names)[i], name);
			if (seen)
				continue;
			*names = arena_grow(l->a, *names, cap, *count + 1, sizeof(char *));
			(*names)[(*count)++] = name;
		}
		return;
	}
	for (int i = 0; i < n->nstmts; i++)
		assigned_names(l, n->stmts[i], names, count, cap);
	assigned_names(l, n->body, names, count, cap);
	assigned_names(l, n->else_, names, count, cap);
}

/* One value a loop or an if carries: a binding's, or a part of the block pointer it holds. */
typedef struct Slot {
	Binding *b;
	int part; /* -1: b->v */
} Slot;

static ValId slot_get(Slot s) { return s.part < 0 ? s.b->v : s.b->bp->part[s.part]; }

static void slot_set(L *l, Slot s, ValId v)
{
	if (s.part < 0) {
		s.b->v = v;
		return;
	}
	BPtr *c = NEW(l->a, BPtr); /* a copy: another binding may hold the same block pointer */
	*c = *s.b->bp;
	c->part[s.part] = v;
	s.b->bp = c;
	if (s.part == BP_BASE)
		s.b->v = v;
}

/* The name a carried value's results take: the variable's, with the part's for a block pointer. */
static const char *slot_name(L *l, Slot s)
{
	static const char *const parts[] = {"shape", "stride", "offset"};
	if (s.part < 0)
		return s.b->name;
	if (s.part == BP_BASE)
		return arena_printf(l->a, "%s.base", s.b->name);
	int k = (s.part - 1) / s.b->bp->rank, d = (s.part - 1) % s.b->bp->rank; /* bp_part's inverse */
	return arena_printf(l->a, "%s.%s%d", s.b->name, parts[k], d);
}

/*
 * The values of the outer mutable bindings a body assigns: what the loop
 * or if st carries.  At most MAX_CARRIED: with a for's induction variable
 * they are a block's 64 arguments.
 */
static Slot *carried(L *l, Node *st, Node *body, Node *other, int *n)
{
	const char **names = NULL;
	int count = 0, cap = 0, cs = 0;
	assigned_names(l, body, &names, &count, &cap);
	assigned_names(l, other, &names, &count, &cap);
	Slot *out = NULL;
	*n = 0;
	for (int i = 0; i < count; i++) {
		Binding *b = lookup(l, names[i]);
		if (!b || !b->mutable_)
			continue;
		for (int k = b->bp ? 0 : -1; k < (b->bp ? bp_nparts(b->bp) : 0); k++) {
			out = arena_grow(l->a, out, &cs, *n + 1, sizeof(Slot));
			out[(*n)++] = (Slot){b, k};
		}
	}
	if (*n > MAX_CARRIED)
		error_at(l->d, st->loc, "this %s carries %d values, more than %d (each variable it assigns is one, a "
			 "block pointer of rank r is 1 + 3r)", st->kind == ND_IF ? "if" : "loop", *n, MAX_CARRIED);
	return out;
}

static ValId assign_value(L *l, Node *n, Binding *b, Rv v)
{
	Type want = ty(l, b->v), got = ty(l, v.v);
	if (type_eq(want, got))
		return v.v;
	if (got.rank == 0 && got.elem != TY_PTR && want.elem != TY_PTR && (v.weak || got.elem == want.elem)) {
		check_weak(l, n->loc, v, want.elem);
		return broadcast_to(l, cast_to(l, v.v, want.elem), want);
	}
	error_at(l->d, n->loc, "cannot assign %s to '%s' of type %s", tstr(l, got), b->name, tstr(l, want));
}

/* The binding an assignment to n->name (at n) changes. */
static Binding *assignable(L *l, Node *n)
{
	Binding *b = lookup(l, n->name);
	if (!b)
		error_at(l->d, n->loc, "unknown name '%s'", n->name);
	if (b->is_iv)
		error_at(l->d, n->loc, "cannot assign to '%s': it is the loop's induction variable", n->name);
	if (!b->mutable_ && b->runtime_param)
		error_at(l->d, n->loc, "cannot assign to '%s': it is a parameter (copy it into a 'var')", n->name);
	if (!b->mutable_)
		error_at(l->d, n->loc, "cannot assign to '%s': it was declared with 'let'", n->name);
	return b;
}

/* b = x, at n: a value converted to b's type, or a block pointer of b's kind */
static void set_binding(L *l, Node *n, Binding *b, Rv x)
{
	if (b->bp || x.bp) {
		const char *what = x.bp ? bp_str(l, x.bp) : tstr(l, ty(l, x.v));
		if (!b->bp || !x.bp || !bp_same_kind(l, b->bp, x.bp))
			error_at(l->d, n->loc, "cannot assign %s to '%s', %s", what, b->name,
				 b->bp ? bp_str(l, b->bp) : tstr(l, ty(l, b->v)));
		b->v = x.v;
		b->bp = x.bp;
		return;
	}
	b->v = assign_value(l, n, b, x);
	if (!l->f->vals[b->v].name)
		l->f->vals[b->v].name = b->name;
}

static void assign(L *l, Node *n)
{
	Binding *b = assignable(l, n);
	if (b->bp && n->op != TK_ASSIGN)
		error_at(l->d, n->loc, "'%s' is a block pointer: move it with advance", b->name);
	Rv v = n->op == TK_ASSIGN ? bexpr(l, n->lhs) : expr(l, n->lhs);
	if (n->op != TK_ASSIGN) {
		static const int ops[][2] = {{TK_PLUSEQ, TK_PLUS}, {TK_MINUSEQ, TK_MINUS}, {TK_STAREQ, TK_STAR},
					     {TK_SLASHEQ, TK_SLASH}, {TK_PERCENTEQ, TK_PERCENT}};
		int op = 0;
		for (size_t i = 0; i < 5; i++)
			if (ops[i][0] == n->op)
				op = ops[i][1];
		b->used = true;
		l->b.loc = n->loc;
		v = binary(l, n->loc, op, rv(b->v, false), v);
	}
	set_binding(l, n, b, v);
}

/* let a, b = f(...);  var a, b = f(...);  a, b = f(...); */
static void unpack(L *l, Node *n)
{
	Node *c = n->lhs;
	if (!multi_valued(l, c))
		error_at(l->d, c->loc, "only a call of an fn, randint4x, split, swizzle2d, or reduce, associative_scan, sort or "
			 "topk of a tuple gives several values");
	for (int i = 0; i < n->nargs; i++)
		for (int j = 0; j < i; j++)
			if (!strcmp(n->args[i]->name, n->args[j]->name) && strcmp(n->args[i]->name, "_"))
				error_at(l->d, n->args[i]->loc, "'%s' is named twice", n->args[i]->name);
	Binding **b = NEWN(l->a, Binding *, n->nargs);
	for (int i = 0; n->op == TK_ASSIGN && i < n->nargs; i++) /* `_` drops a value */
		b[i] = strcmp(n->args[i]->name, "_") ? assignable(l, n->args[i]) : NULL;
	Rv r[MAX_RESULTS];
	int nr = values_of(l, c, r);
	if (nr != n->nargs)
		error_at(l->d, c->loc, "%s '%s' returns %d value%s, not %d", fn_index(l, c->name) < 0 ? "built-in" : "fn",
			 c->name, nr, nr == 1 ? "" : "s", n->nargs);
	for (int i = 0; i < n->nargs; i++) {
		Node *x = n->args[i];
		l->b.loc = x->loc;
		if (n->op != TK_ASSIGN)
			bind_rv(l, x->name, r[i], x->loc, n->op == TK_VAR);
		else if (b[i])
			set_binding(l, x, b[i], r[i]);
	}
}

static Block *new_block(L *l, const ValId *from, int n, int extra, const Type *extra_types)
{
	Type types[MAX_CARRIED + 1];
	for (int i = 0; i < extra; i++)
		types[i] = extra_types[i];
	for (int i = 0; i < n; i++)
		types[extra + i] = ty(l, from[i]);
	return ir_new_block(l->f, n + extra, types);
}

static void emit_yield(L *l, Block *blk, const Slot *vars, int n)
{
	ValId vals[MAX_CARRIED];
	for (int i = 0; i < n; i++)
		vals[i] = slot_get(vars[i]);
	Op *y = ir_new_op(l->f, OP_YIELD, vals, n, NULL, 0, l->b.loc);
	ir_append(blk, y);
}

/* Lower a branch body (a block or an else-if) into blk, in a new scope. */
static void lower_into(L *l, Block *blk, Node *body)
{
	Builder saved = l->b;
	l->b.at = blk;
	l->b.before = NULL;
	push_scope(l);
	if (body->kind == ND_IF)
		if_stmt(l, body);
	else
		block_stmts(l, body);
	pop_scope(l);
	l->b = saved;
}

/*
 * range(lo, hi, step, num_stages=N): the bounds are positional; the one
 * keyword sets the loop's own pipelining depth (OP_FOR's iattr[1]).
 */
static int64_t range_args(L *l, Node *n, Node **pos, int *npos)
{
	int64_t stages = 0;
	Node *kw = NULL;
	*npos = 0;
	for (int i = 0; i < n->nargs; i++) {
		Node *a = n->args[i];
		if (!a->argname) {
			if (kw)
				error_at(l->d, a->loc, "positional argument after the keyword argument '%s'", kw->argname);
			if (*npos < 3)
				pos[*npos] = a;
			++*npos;
			continue;
		}
		if (strcmp(a->argname, "num_stages") != 0)
			error_at(l->d, a->loc, "unknown keyword argument '%s' to 'range' (it takes num_stages)", a->argname);
		if (kw)
			error_at(l->d, a->loc, "argument 'num_stages' given twice");
		kw = a;
		stages = const_arg(l, a, "num_stages must be a compile-time constant", false);
		if (!num_stages_ok(stages))
			error_at(l->d, a->loc, "num_stages must be from 1 to 8, got %lld", (long long)stages);
	}
	if (*npos < 1 || *npos > 3)
		error_at(l->d, n->loc, "'%s' takes 1 to 3 bounds, got %d", n->op ? "static_range" : "range", *npos);
	return stages;
}

/*
 * for i in static_range(lo, hi, step): the body once for each value, as
 * tl.static_range, with i a constant in it (so it may size tiles), and
 * the variables it assigns taking each copy's values in turn.
 */
static void static_for(L *l, Node *n)
{
	Node *pos[3];
	int npos;
	if (range_args(l, n, pos, &npos))
		error_at(l->d, n->loc, "static_range takes no num_stages: its body is repeated, not a loop");
	int64_t b[3] = {0, 0, 1};
	for (int i = 0; i < npos; i++) {
		int64_t *at = &b[npos == 1 ? 1 : i]; /* static_range(hi) gives only the upper bound */
		*at = const_arg(l, pos[i], "static_range bounds must be compile-time constants", false);
		if (*at < INT32_MIN || *at > INT32_MAX)
			error_at(l->d, pos[i]->loc, "static_range bounds must fit in i32");
	}
	if (b[2] == 0)
		error_at(l->d, pos[2]->loc, "static_range step must not be zero");
	int64_t trips = b[2] > 0 ? (b[1] - b[0] + b[2] - 1) / b[2] : (b[0] - b[1] - b[2] - 1) / -b[2];
	trips = trips > 0 ? trips : 0;
	int64_t saved = l->copies, outer = saved ? saved : 1;
	if (outer * trips > 1024)
		error_at(l->d, n->loc, "static_range repeats its body %lld times%s (at most 1024)",
			 (long long)(outer * trips), outer > 1 ? " with the static_ranges around it" : "");
	l->copies = outer * trips;
	for (int64_t k = 0; k < trips; k++) {
		push_scope(l);
		Binding *iv = bind(l, n->name, cint(l, TY_I32, b[0] + k * b[2]), n->loc, false);
		iv->used = true;
		block_stmts(l, n->body);
		pop_scope(l);
	}
	l->copies = saved;
}

static void for_stmt(L *l, Node *n)
{
	Node *pos[3];
	int npos;
	if (n->op) {
		static_for(l, n);
		return;
	}
	int64_t stages = range_args(l, n, pos, &npos);
	Rv r[3];
	r[0] = weak_int(l, 0);
	r[2] = weak_int(l, 1);
	if (npos == 1) {
		r[1] = expr(l, pos[0]);
	} else {
		r[0] = expr(l, pos[0]);
		r[1] = expr(l, pos[1]);
		if (npos == 3)
			r[2] = expr(l, pos[2]);
	}
	ElemKind e = TY_I32;
	for (int i = 0; i < 3; i++) {
		Type t = ty(l, r[i].v);
		Node *arg = pos[npos == 1 ? 0 : (i < npos ? i : 0)];
		if (t.rank != 0 || !elem_is_int(t.elem) || t.elem == TY_I1)
			error_at(l->d, arg->loc, "range bounds must be integer scalars, got %s", tstr(l, t));
		if (t.elem == TY_I64 && !r[i].weak)
			e = TY_I64;
	}
	int64_t step;
	if (const_int(l, r[2].v, &step) && step <= 0) /* Python's range would count down; the IR's for counts up */
		error_at(l->d, pos[2]->loc, "range step must be positive, got %lld", (long long)step);
	int nc;
	Slot *vars = carried(l, n, n->body, NULL, &nc);
	ValId ops[3 + MAX_CARRIED];
	for (int i = 0; i < 3; i++)
		ops[i] = cast_to(l, r[i].v, e);
	for (int i = 0; i < nc; i++)
		ops[3 + i] = slot_get(vars[i]);
	Type rtypes[MAX_CARRIED];
	for (int i = 0; i < nc; i++)
		rtypes[i] = ty(l, slot_get(vars[i]));
	Type ivt = type_scalar(e);
	Block *body = new_block(l, ops + 3, nc, 1, &ivt);
	l->b.loc = n->loc;
	Op *op = ir_new_op(l->f, OP_FOR, ops, 3 + nc, rtypes, nc, n->loc);
	op->iattr[1] = stages;
	add_region(op, body);
	ValId outer[MAX_CARRIED];
	for (int i = 0; i < nc; i++) {
		outer[i] = slot_get(vars[i]);
		slot_set(l, vars[i], body->args[1 + i]);
	}
	/* the induction variable lives in the body's scope */
	Builder saved = l->b;
	l->b.at = body;
	l->b.before = NULL;
	push_scope(l);
	Binding *iv = bind(l, n->name, body->args[0], n->loc, false);
	iv->is_iv = true;
	iv->used = true; /* `for _ in` and unused ivs are normal */
	block_stmts(l, n->body);
	pop_scope(l);
	emit_yield(l, body, vars, nc);
	l->b = saved;
	b_place(&l->b, op);
	for (int i = 0; i < nc; i++) {
		(void)outer[i];
		slot_set(l, vars[i], op->res[i]);
		l->f->vals[op->res[i]].name = slot_name(l, vars[i]);
	}
}

/* Some op in b (at any depth) reads or writes memory. */
static bool touches_memory(Block *b)
{
	for (Op *op = b->first; op; op = op->next) {
		if (ir_mask_index(op->code) >= 0)
			return true;
		for (int i = 0; i < op->nblocks; i++)
			if (op->blocks[i] && touches_memory(op->blocks[i]))
				return true;
	}
	return false;
}

static ValId while_cond(L *l, Node *n)
{
	Rv c = expr(l, n->lhs);
	Type t = ty(l, c.v);
	if (t.rank != 0)
		error_at(l->d, n->lhs->loc, "condition must be a scalar, got %s", tstr(l, t));
	return to_bool(l, n->lhs->loc, c, "while");
}

/*
 * while c { B } is rotated, as compilers do, into
 *     if c { do { B } while c }
 * so the IR has one loop with its test at the end (do_while: the body
 * yields the carried values, then whether to go on), and c is lowered twice:
 * before the loop, and after B in every iteration.  A first test that is
 * a constant drops the loop (false) or the if (true).
 */
static void while_stmt(L *l, Node *n)
{
	ValId c0 = while_cond(l, n);
	int64_t k = -1;
	if (const_of(l, c0, &k, NULL) && !k)
		return;
	int nc;
	Slot *vars = carried(l, n, n->body, NULL, &nc);
	ValId before[MAX_CARRIED];
	Type rtypes[MAX_CARRIED];
	for (int i = 0; i < nc; i++) {
		before[i] = slot_get(vars[i]);
		rtypes[i] = ty(l, slot_get(vars[i]));
	}
	Op *test = NULL;
	Builder saved = l->b;
	if (k != 1) {
		test = ir_new_op(l->f, OP_IF, &c0, 1, rtypes, nc, n->loc);
		for (int br = 0; br < 2; br++)
			add_region(test, ir_new_block(l->f, 0, NULL));
		l->b.at = test->blocks[0];
		l->b.before = NULL;
	}
	Block *body = new_block(l, before, nc, 0, NULL);
	Op *loop = ir_new_op(l->f, OP_DO_WHILE, before, nc, rtypes, nc, n->loc);
	add_region(loop, body);
	for (int i = 0; i < nc; i++)
		slot_set(l, vars[i], body->args[i]);
	Builder outer = l->b;
	l->b.at = body;
	l->b.before = NULL;
	push_scope(l);
	block_stmts(l, n->body);
	pop_scope(l);
	l->b.loc = n->lhs->loc;
	ValId again = while_cond(l, n);
	if (const_of(l, again, &k, NULL) && k)
		error_at(l->d, n->lhs->loc, "this loop never ends: its condition is still true after the body, "
			 "whatever it does");
	ValId ys[MAX_CARRIED + 1];
	bool same = true;
	for (int i = 0; i < nc; i++) {
		ys[i] = slot_get(vars[i]);
		same &= ys[i] == body->args[i];
	}
	ys[nc] = again;
	if (same && !touches_memory(body))
		error_at(l->d, n->loc, "this loop never ends once it starts: its body changes no variable and no memory, "
			 "so its condition stays true");
	ir_append(body, ir_new_op(l->f, OP_YIELD, ys, nc + 1, NULL, 0, n->loc));
	l->b = outer;
	b_place(&l->b, loop);
	Op *result = loop;
	if (test) {
		for (int i = 0; i < nc; i++) {
			slot_set(l, vars[i], loop->res[i]);
			l->f->vals[loop->res[i]].name = slot_name(l, vars[i]);
		}
		emit_yield(l, test->blocks[0], vars, nc);
		for (int i = 0; i < nc; i++)
			slot_set(l, vars[i], before[i]);
		emit_yield(l, test->blocks[1], vars, nc);
		l->b = saved;
		b_place(&l->b, test);
		result = test;
	}
	for (int i = 0; i < nc; i++) {
		slot_set(l, vars[i], result->res[i]);
		l->f->vals[result->res[i]].name = slot_name(l, vars[i]);
	}
}

static void if_stmt(L *l, Node *n)
{
	Rv c = expr(l, n->lhs);
	Type t = ty(l, c.v);
	if (t.rank != 0)
		error_at(l->d, n->lhs->loc, "condition must be a scalar, got %s", tstr(l, t));
	ValId cond = to_bool(l, n->lhs->loc, c, "if");
	int64_t k;
	if (const_of(l, cond, &k, NULL)) { /* resolved at compile time (constexpr flags) */
		Node *taken = k ? n->body : n->else_;
		if (taken) {
			push_scope(l);
			if (taken->kind == ND_IF)
				if_stmt(l, taken);
			else
				block_stmts(l, taken);
			pop_scope(l);
		}
		return;
	}
	int nc;
	Slot *vars = carried(l, n, n->body, n->else_, &nc);
	ValId before[MAX_CARRIED];
	Type rtypes[MAX_CARRIED];
	for (int i = 0; i < nc; i++) {
		before[i] = slot_get(vars[i]);
		rtypes[i] = ty(l, slot_get(vars[i]));
	}
	Op *op = ir_new_op(l->f, OP_IF, &cond, 1, rtypes, nc, n->loc);
	for (int br = 0; br < 2; br++) {
		Block *blk = ir_new_block(l->f, 0, NULL);
		add_region(op, blk);
		Node *body = br == 0 ? n->body : n->else_;
		if (body)
			lower_into(l, blk, body);
		emit_yield(l, blk, vars, nc);
		for (int i = 0; i < nc; i++)
			slot_set(l, vars[i], before[i]);
	}
	b_place(&l->b, op);
	for (int i = 0; i < nc; i++) {
		slot_set(l, vars[i], op->res[i]);
		l->f->vals[op->res[i]].name = slot_name(l, vars[i]);
	}
}

static void stmt(L *l, Node *n)
{
	if (++l->depth > MAX_STMT_DEPTH)
		error_at(l->d, n->loc, "statements nest more than %d deep once fns are inlined", MAX_STMT_DEPTH);
	l->b.loc = n->loc;
	switch (n->kind) {
	case ND_LET:
	case ND_VAR: {
		Rv v = bexpr(l, n->lhs);
		bind_rv(l, n->name, v, n->loc, n->kind == ND_VAR);
		break;
	}
	case ND_ASSIGN: assign(l, n); break;
	case ND_UNPACK: unpack(l, n); break;
	case ND_EXPR: { /* a call as a statement: whatever values it has are dropped */
		Rv r[MAX_RESULTS];
		if (multi_valued(l, n->lhs))
			values_of(l, n->lhs, r);
		else
			eval(l, n->lhs);
		break;
	}
	case ND_FOR: for_stmt(l, n); break;
	case ND_IF: if_stmt(l, n); break;
	case ND_WHILE: while_stmt(l, n); break;
	case ND_BLOCK:
		push_scope(l);
		block_stmts(l, n);
		pop_scope(l);
		break;
	case ND_RETURN:
		if (l->calls)
			error_at(l->d, n->loc, "'return' must be the last statement of fn '%s'", l->calls->fn->name);
		error_at(l->d, n->loc, "'return' must be the last statement of the kernel");
	default: die("stmt kind %d", n->kind);
	}
	l->depth--;
}

static void block_stmts(L *l, Node *n)
{
	for (int i = 0; i < n->nstmts; i++)
		stmt(l, n->stmts[i]);
}

/* ---- the unmasked-ragged-access warning ---- */

/*
 * An offset tile compared against a bound somewhere (`offs < n`) is ragged:
 * its last block runs past n.  A load or store through `base + offs` with no
 * mask then reads or writes out of bounds in that block.  bound[v] holds the
 * comparison's op for every value some comparison looks at.
 */
typedef struct Bounds {
	Op **bound;
} Bounds;

/* A value defined by a constant, or a splat of one. */
static bool is_constant(Func *f, ValId v)
{
	Op *d = f->vals[v].def;
	if (d && d->code == OP_SPLAT)
		d = f->vals[d->opnds[0]].def;
	return d && d->code == OP_CONST;
}

/* Only `offs < n` and `offs <= n` (or `n > offs`, `n >= offs`) with n not a constant bound offs. */
static void note_bounds(Func *f, Op *op, void *ctx)
{
	Bounds *b = ctx;
	if (op->code != OP_CMP || vtype(f, op->res[0]).rank == 0)
		return;
	int64_t p = op->iattr[0];
	int side = p == CMP_LT || p == CMP_LE ? 0 : p == CMP_GT || p == CMP_GE ? 1 : -1;
	if (side < 0 || is_constant(f, op->opnds[1 - side]))
		return;
	if (!b->bound[op->opnds[side]])
		b->bound[op->opnds[side]] = op;
}

static void check_unmasked(Func *f, Op *op, void *ctx)
{
	Bounds *b = ctx;
	int unmasked = op->code == OP_LOAD ? 1 : 2;
	if ((op->code != OP_LOAD && op->code != OP_STORE && op->code != OP_ATOMIC) || op->nopnds != unmasked)
		return;
	Op *ptr = f->vals[op->opnds[0]].def;
	if (!ptr || ptr->code != OP_PTRADD)
		return;
	Op *cmp = b->bound[ptr->opnds[1]];
	if (cmp)
		warn_at(f->diag, op->loc, "%s with no mask, but its offsets are compared with a bound at line %d: "
			"a ragged last block goes out of bounds", op_info[op->code].text, cmp->loc.line);
}

static void warn_unmasked(L *l)
{
	Bounds b = {NEWN(l->a, Op *, l->f->nvals + 1)};
	ir_walk(l->f, note_bounds, &b);
	ir_walk(l->f, check_unmasked, &b);
}

/* ---- the kernel ---- */

static int attr_value(L *l, const Attr *a, const CompileOptions *o)
{
	(void)o;
	int64_t v = const_arg(l, a->arg, "attribute value must be a compile-time constant", false);
	if (!strcmp(a->name, "num_warps") && !num_warps_ok(v))
		error_at(l->d, a->arg->loc, "num_warps must be a power of two from 1 to 32, got %lld", (long long)v);
	if (!strcmp(a->name, "num_stages") && !num_stages_ok(v))
		error_at(l->d, a->arg->loc, "num_stages must be from 1 to 8, got %lld", (long long)v);
	if (!strcmp(a->name, "fp_fusion") && v != 0 && v != 1)
		error_at(l->d, a->arg->loc, "fp_fusion takes true or false, got %lld", (long long)v);
	return (int)v;
}

/*
 * A define (-D, or the JIT's) for constexpr p, held to what a literal of p's
 * type may be: a float only for a float, true/false only for i1 (which also
 * takes 0 and 1, the JIT's defines being integers), and an integer that fits.
 */
static ValId define_value(L *l, const Param *p, const Define *d)
{
	ElemKind e = p->ty.elem;
	bool fl = elem_is_float(e);
	if ((d->kind == DEF_FLOAT && !fl) || (d->kind == DEF_BOOL && e != TY_I1))
		error_at(l->d, p->loc, "-D %s: constexpr '%s' is %s, got %s", d->name, p->name, elem_name(e),
			 d->kind == DEF_FLOAT ? "a float value" : "a boolean");
	if (fl) {
		double v = d->kind == DEF_FLOAT ? d->fvalue : (double)d->value;
		if (isfinite(v) && fabs(v) >= float_limit(e))
			error_at(l->d, p->loc, "-D %s: %g overflows %s", d->name, v, elem_name(e));
		return cfloat(l, e, v);
	}
	if (e == TY_I1 && d->value != 0 && d->value != 1)
		error_at(l->d, p->loc, "-D %s: constexpr '%s' is i1, got %lld (give true or false)", d->name, p->name,
			 (long long)d->value);
	if (wrap(e, d->value) != d->value)
		error_at(l->d, p->loc, "-D %s: %lld does not fit in %s", d->name, (long long)d->value, elem_name(e));
	return cint(l, e, d->value);
}

static ValId constexpr_value(L *l, const Param *p, const CompileOptions *o)
{
	for (int i = 0; i < o->ndefines; i++)
		if (!strcmp(o->defines[i].name, p->name))
			return define_value(l, p, &o->defines[i]);
	if (!p->defval)
		error_at(l->d, p->loc, "constexpr '%s' has no default; give it with -D %s=...", p->name, p->name);
	Rv v = expr(l, p->defval);
	if (ty(l, v.v).rank != 0 || !const_of(l, v.v, NULL, NULL))
		error_at(l->d, p->defval->loc, "the default of '%s' must be a constant", p->name);
	if (ty(l, v.v).elem != p->ty.elem && !v.weak)
		error_at(l->d, p->defval->loc, "the default of '%s' is %s, expected %s", p->name,
			 elem_name(ty(l, v.v).elem), elem_name(p->ty.elem));
	return cast_to(l, v.v, p->ty.elem);
}

/* Counted first, so the duplicate scan below is quadratic in at most 512 names. */
static void check_param_count(L *l, const Kernel *k)
{
	int n[2] = {0, 0};
	for (int i = 0; i < k->nparams; i++) {
		const Param *p = &k->params[i];
		if (++n[p->is_const] > MAX_PARAMS)
			error_at(l->d, p->loc, "too many %sparameters (at most %d)", p->is_const ? "const " : "",
				 MAX_PARAMS);
	}
}

static void check_params(L *l, const Kernel *k, const CompileOptions *o)
{
	check_param_count(l, k);
	for (int i = 0; i < k->nparams; i++) {
		const Param *p = &k->params[i];
		for (int j = 0; j < i; j++)
			if (!strcmp(k->params[j].name, p->name))
				error_at(l->d, p->loc, "duplicate parameter '%s'", p->name);
		if (p->is_const && (p->ty.is_ptr || (p->ty.elem != TY_I32 && p->ty.elem != TY_I64 &&
						     p->ty.elem != TY_I1 && p->ty.elem != TY_F32)))
			error_at(l->d, p->ty.loc, "constexpr '%s' must be i32, i64, i1 or f32", p->name);
		if (!p->is_const && !p->ty.is_ptr && (p->ty.elem == TY_F16 || p->ty.elem == TY_BF16 || elem_is_f8(p->ty.elem)))
			error_at(l->d, p->ty.loc, "scalar parameter '%s' of type %s is not supported; pass f32", p->name,
				 elem_name(p->ty.elem));
	}
	for (int i = 0; i < o->ndefines; i++) {
		bool found = false;
		for (int j = 0; j < k->nparams; j++)
			found |= k->params[j].is_const && !strcmp(k->params[j].name, o->defines[i].name);
		if (!found)
			error_plain(l->d, "-D %s: kernel '%s' has no const parameter named '%s'", o->defines[i].name,
				    k->name, o->defines[i].name);
	}
}

Func *lower_kernel(Arena *a, Diag *d, const Program *p, const Kernel *k, const CompileOptions *o)
{
	L l = {.a = a, .d = d, .p = p, .k = k};
	l.f = ir_new_func(a, k->name);
	l.f->diag = d;
	check_names(&l, p);
	check_params(&l, k, o);

	int nrt = 0;
	Type types[MAX_PARAMS];
	const char **names = NEWN(a, const char *, k->nparams + 1);
	for (int i = 0; i < k->nparams; i++) {
		const Param *q = &k->params[i];
		if (q->is_const)
			continue;
		types[nrt] = q->ty.is_ptr ? type_ptr(q->ty.elem) : type_scalar(q->ty.elem);
		names[nrt++] = q->name;
	}
	l.f->entry = ir_new_block(l.f, nrt, types);
	l.f->param_names = names;
	l.f->nparams = nrt;
	l.f->param_div = NEWN(a, int, nrt + 1);
	for (int i = 0; i < nrt; i++)
		l.f->param_div[i] = 1;
	l.b = (Builder){.f = l.f, .at = l.f->entry, .loc = k->loc};
	push_scope(&l);
	for (int i = 0, r = 0; i < k->nparams; i++) {
		const Param *q = &k->params[i];
		l.b.loc = q->loc;
		Binding *b;
		if (q->is_const) {
			b = bind(&l, q->name, constexpr_value(&l, q, o), q->loc, false);
			b->used = true;
		} else {
			b = bind(&l, q->name, l.f->entry->args[r++], q->loc, false);
			b->runtime_param = true;
		}
	}
	l.f->num_warps = o->num_warps ? o->num_warps : 4;
	l.f->num_stages = o->num_stages ? o->num_stages : 3;
	for (int i = 0; i < k->nattrs; i++) {
		const Attr *at = &k->attrs[i];
		if (strcmp(at->name, "num_warps") && strcmp(at->name, "num_stages") && strcmp(at->name, "fp_fusion"))
			error_at(d, at->loc, "unknown attribute '@%s'", at->name);
		int v = attr_value(&l, at, o);
		if (!strcmp(at->name, "num_warps") && !o->num_warps)
			l.f->num_warps = v;
		if (!strcmp(at->name, "num_stages") && !o->num_stages)
			l.f->num_stages = v;
		if (!strcmp(at->name, "fp_fusion"))
			l.f->fp_fusion = v;
	}
	Node *body = k->body;
	int n = body->nstmts;
	if (n > 0 && body->stmts[n - 1]->kind == ND_RETURN) {
		Node *ret = body->stmts[n - 1];
		if (ret->lhs || ret->nargs)
			error_at(d, ret->lhs ? ret->lhs->loc : ret->args[0]->loc, "a kernel returns no value");
		n--; /* a final `return;` ends the program anyway */
	}
	push_scope(&l);
	for (int i = 0; i < n; i++)
		stmt(&l, body->stmts[i]);
	pop_scope(&l);
	pop_scope(&l);
	warn_unmasked(&l);
	return l.f;
}
