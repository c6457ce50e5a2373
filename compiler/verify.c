/*
 * verify.c: the IR verifier (docs/ir.md lists its rules).
 *
 * One walk in program order.  `live` marks the values an op may use: the
 * arguments and earlier results of its own block and of every enclosing
 * block (structured control flow makes that exactly SSA dominance).  A
 * block's values are unmarked when the walk leaves it.  Each op is checked
 * against its opcode's rules; the first failure is reported as the printed
 * op followed by what is wrong.
 */
#include "ir.h"

#include <string.h>

typedef struct Verifier {
	Func *f;
	uint8_t *live;
	Op *bad;
	const char *msg;
} Verifier;

static const char *tstr(Func *f, Type t)
{
	char buf[64];
	return arena_strdup(f->arena, type_str(t, buf, sizeof buf));
}

static bool fail(Verifier *v, Op *op, const char *why)
{
	StrBuf b = {0};
	if (op) {
		sb_puts(&b, "'");
		ir_print_op(&b, v->f, op);
		sb_puts(&b, "': ");
	}
	sb_puts(&b, why);
	v->msg = arena_strdup(v->f->arena, b.s);
	v->bad = op;
	sb_free(&b);
	return false;
}

/* An element type the op's rule allows but the GPU does not (op_elem_ok). */
static const char *unsupported(Func *f, Op *op, ElemKind e)
{
	return arena_printf(f->arena, "%s does not support %s", op_info[op->code].text, elem_name(e));
}

/* ---- operand and result counts ---- */

static const char *check_counts(Func *f, Op *op)
{
	int n = op_info[op->code].nopnds, lo = n, hi = n, nres = 1, nblk = 0;
	switch (op->code) {
	case OP_LOAD: lo = 1, hi = 3; break;
	case OP_STORE: lo = 2, hi = 3, nres = 0; break;
	case OP_PRINT: lo = 1, hi = 64, nres = 0; break;
	case OP_ASSERT: nres = 0; break;
	case OP_ATOMIC: lo = 2, hi = 3; break;
	case OP_ATOMIC_CAS: lo = 3, hi = 4; break;
	case OP_FOR: lo = 3, hi = 1 << 20, nres = op->nopnds - 3, nblk = 1; break;
	case OP_IF: lo = hi = 1, nres = op->nres, nblk = op->nres ? 2 : (op->nblocks == 1 ? 1 : 2); break;
	case OP_DO_WHILE: lo = 0, hi = 1 << 20, nres = op->nopnds, nblk = 1; break;
	case OP_YIELD: lo = 0, hi = 1 << 20, nres = 0; break;
	case OP_REDUCE:
	case OP_SCAN: lo = 1, hi = 16, nres = op->nopnds, nblk = 1; break;
	default: break;
	}
	if (op->nopnds < lo || op->nopnds > hi)
		return lo == hi ? arena_printf(f->arena, "expects %d operands, has %d", lo, op->nopnds)
				: arena_printf(f->arena, "expects %d to %d operands, has %d", lo, hi, op->nopnds);
	if (op->nres != nres)
		return arena_printf(f->arena, "expects %d results, has %d", nres, op->nres);
	if (op->nblocks != nblk)
		return arena_printf(f->arena, "expects %d blocks, has %d", nblk, op->nblocks);
	for (int i = 0; i < op->nblocks; i++)
		if (!op->blocks[i])
			return "missing block";
	return NULL;
}

/* ---- per-opcode rules; each returns NULL or what is wrong ---- */

static const char *check_eltwise(Func *f, Op *op)
{
	Type r = vtype(f, op->res[0]);
	for (int i = 0; i < op->nopnds; i++)
		if (!type_same_shape(vtype(f, op->opnds[i]), r))
			return arena_printf(f->arena, "operand %d has type %s, the result %s: shapes differ", i,
					    tstr(f, vtype(f, op->opnds[i])), tstr(f, r));
	Type a = vtype(f, op->opnds[0]);
	ElemKind e = a.elem;
	switch (op->code) {
	case OP_CAST:
		return NULL;
	case OP_ASSUME:
		if (!type_eq(a, r) || (e != TY_PTR && (!elem_is_int(e) || e == TY_I1)))
			return "assume needs integers or pointers, and gives its operand's type";
		if (!is_pow2(op->iattr[0]) || !is_pow2(ASSUME_CONTIG(op)) || !is_pow2(ASSUME_CONSTANCY(op)))
			return "assume's divis, contig and constancy are powers of two";
		return NULL;
	case OP_BITCAST:
		if (e == TY_PTR || e == TY_I1 || r.elem == TY_PTR || r.elem == TY_I1 || elem_bits(e) != elem_bits(r.elem))
			return arena_printf(f->arena, "bitcast from %s to %s: needs numbers of one width", elem_name(e),
					    elem_name(r.elem));
		return NULL;
	case OP_CMP:
		if (!type_eq(a, vtype(f, op->opnds[1])))
			return "operand types differ";
		if (r.elem != TY_I1)
			return "cmp result is not i1";
		if (elem_is_f8(e))
			return "cmp of f8 values (a storage type: cast them first)";
		if (op->iattr[0] < CMP_EQ || op->iattr[0] > CMP_GE)
			return "bad cmp predicate";
		return NULL;
	case OP_PTRADD:
		if (e != TY_PTR || !type_eq(a, r))
			return "ptradd needs a pointer operand of the result type";
		if (!elem_is_int(vtype(f, op->opnds[1]).elem))
			return "ptradd offset is not an integer";
		return NULL;
	case OP_PHILOX:
		if (op->iattr[0] < 1 || op->iattr[0] > MAX_PHILOX_ROUNDS || op->iattr[1] < 0 || op->iattr[1] > 3)
			return arena_printf(f->arena, "philox needs 1 to %d rounds and a word from 0 to 3", MAX_PHILOX_ROUNDS);
		break;
	case OP_SELECT:
		if (e != TY_I1)
			return "select condition is not i1";
		if (!type_eq(vtype(f, op->opnds[1]), r) || !type_eq(vtype(f, op->opnds[2]), r))
			return "select operands differ from the result type";
		return NULL;
	default:
		break;
	}
	for (int i = 0; i < op->nopnds; i++)
		if (!type_eq(vtype(f, op->opnds[i]), r))
			return arena_printf(f->arena, "operand %d has type %s, the result %s",
					    i, tstr(f, vtype(f, op->opnds[i])), tstr(f, r));
	if (e == TY_PTR || e == TY_VOID)
		return "arithmetic on a pointer";
	if (elem_is_f8(e))
		return "arithmetic on f8 values (a storage type: cast them first)";
	if (((op->code >= OP_EXP && op->code <= OP_ROUND) || op->code == OP_FMA || op->code == OP_POW || op->code == OP_ATAN2) &&
	    !elem_is_float(e))
		return "needs a float operand";
	if (!op_elem_ok(op->code, e))
		return unsupported(f, op, e);
	if ((op->code == OP_NOT || (op->code >= OP_AND && op->code <= OP_SHR)) && !elem_is_int(e))
		return "needs an integer operand";
	return NULL;
}

static const char *check_shape_op(Func *f, Op *op)
{
	Type a = vtype(f, op->opnds[0]), r = vtype(f, op->res[0]);
	if (a.elem != r.elem || a.pointee != r.pointee)
		return "element type changes";
	if (op->code == OP_EXPAND_DIMS) {
		int64_t ax = op->iattr[0];
		if (ax < 0 || ax > a.rank || r.rank != a.rank + 1)
			return "bad axis or result rank";
		for (int i = 0, j = 0; i < r.rank; i++)
			if (i == ax ? r.shape[i] != 1 : r.shape[i] != a.shape[j++])
				return "result shape is not the operand's with a 1 inserted";
		return NULL;
	}
	if (op->code == OP_TRANS)
		return a.rank == 2 && r.rank == 2 && a.shape[0] == r.shape[1] && a.shape[1] == r.shape[0]
			       ? NULL : "trans needs a 2-D operand and the transposed result shape";
	if (op->code == OP_PERMUTE) {
		int seen = 0;
		if (a.rank == 0 || r.rank != a.rank || op->iattr[1] != a.rank)
			return "permute needs a tile, a result of its rank and as many dims";
		for (int i = 0; i < a.rank; i++) {
			int d = (int)(op->iattr[0] >> 2 * i & 3);
			if (d >= a.rank || seen & 1 << d)
				return "perm is not a permutation of the operand's axes";
			seen |= 1 << d;
			if (r.rank != a.rank || r.shape[i] != a.shape[d])
				return "the result's axis i is not the operand's axis perm[i]";
		}
		return op->iattr[0] >> 2 * a.rank ? "perm is not a permutation of the operand's axes" : NULL;
	}
	if (op->code == OP_RESHAPE)
		return a.rank > 0 && r.rank > 0 && type_numel(a) == type_numel(r)
			       ? NULL : "reshape needs tiles of as many elements";
	if (op->code == OP_JOIN || op->code == OP_SPLIT) {
		Type in = op->code == OP_JOIN ? a : r, out = op->code == OP_JOIN ? r : a;
		if (op->code == OP_JOIN && !type_eq(a, vtype(f, op->opnds[1])))
			return "join's operands differ in type";
		if (op->code == OP_SPLIT && op->iattr[0] != 0 && op->iattr[0] != 1)
			return "split takes index 0 or 1";
		if (in.rank < 1 || out.rank != in.rank + 1 || out.shape[in.rank] != 2)
			return "the joined tile is the parts' shape with a last axis of 2";
		for (int i = 0; i < in.rank; i++)
			if (in.shape[i] != out.shape[i])
				return "the joined tile is the parts' shape with a last axis of 2";
		return NULL;
	}
	if (a.rank != r.rank)
		return "broadcast changes the rank";
	for (int i = 0; i < a.rank; i++)
		if (a.shape[i] != r.shape[i] && a.shape[i] != 1)
			return "broadcast stretches an axis that is not 1";
	return NULL;
}

/*
 * ptr [, mask [, other]] for loads; ptr, value [, mask] for store and
 * atomic; ptr, cmp, value [, mask] for atomic_cas.
 */
static const char *check_memory(Func *f, Op *op)
{
	Type p = vtype(f, op->opnds[0]);
	if (p.elem != TY_PTR)
		return "address is not a pointer";
	Type data = type_with_elem(p, (ElemKind)p.pointee);
	int mask = ir_mask_index(op->code);
	if (op->code == OP_LOAD && !type_eq(vtype(f, op->res[0]), data))
		return arena_printf(f->arena, "result should be %s", tstr(f, data));
	for (int i = 1; op->code != OP_LOAD && i < mask; i++)
		if (!type_eq(vtype(f, op->opnds[i]), data))
			return arena_printf(f->arena, "%s should be %s", i < mask - 1 ? "cmp" : "value", tstr(f, data));
	if (ir_is_atomic(op->code) && !type_eq(vtype(f, op->res[0]), data))
		return "atomic result differs from the value";
	if (op->code == OP_ATOMIC_CAS && !atomic_cas_elem_ok(data.elem))
		return arena_printf(f->arena, "atomic_cas does not support %s", elem_name(data.elem));
	if (op->code == OP_ATOMIC && (op->iattr[0] < 0 || op->iattr[0] >= ATOM_COUNT))
		return "bad atomic kind";
	if (ir_is_atomic(op->code) && (op->iattr[1] < 0 || op->iattr[1] >= 16 * SCOPE_COUNT || ATOMIC_SEM(op) >= SEM_COUNT))
		return "bad atomic memory order or scope";
	if (op->code == OP_ATOMIC && !atomic_elem_ok((AtomicKind)op->iattr[0], data.elem))
		return arena_printf(f->arena, "atomic %s does not support %s", atomic_names[op->iattr[0]],
				    elem_name(data.elem));
	if (!op_elem_ok(op->code, data.elem))
		return unsupported(f, op, data.elem);
	if (op->nopnds > mask) {
		Type m = vtype(f, op->opnds[mask]);
		if (m.elem != TY_I1 || !type_same_shape(m, p))
			return "mask is not i1 of the pointer's shape";
	}
	if (op->code == OP_LOAD && op->nopnds == 3 && !type_eq(vtype(f, op->opnds[2]), data))
		return "other differs from the result type";
	return NULL;
}

static const char *check_reduce(Func *f, Op *op)
{
	Type a = vtype(f, op->opnds[0]), r = vtype(f, op->res[0]);
	int64_t ax = op->iattr[0];
	if (ax < 0 || ax >= a.rank)
		return arena_printf(f->arena, "axis %lld out of range for rank %d", (long long)ax, a.rank);
	if (elem_is_f8(a.elem))
		return unsupported(f, op, a.elem);
	ElemKind e = op->code == OP_ARGMAX || op->code == OP_ARGMIN ? TY_I32 : (ElemKind)a.elem;
	if (r.elem != e || r.rank != a.rank - 1)
		return "result type is not the operand's without the axis";
	for (int i = 0, j = 0; i < a.rank; i++)
		if (i != ax && a.shape[i] != r.shape[j++])
			return "result shape is not the operand's without the axis";
	return NULL;
}

static const char *check_cumsum(Func *f, Op *op)
{
	Type a = vtype(f, op->opnds[0]), r = vtype(f, op->res[0]);
	if (a.rank < 1 || op->iattr[0] < 0 || op->iattr[0] >= a.rank)
		return arena_printf(f->arena, "axis %lld out of range for rank %d", (long long)op->iattr[0], a.rank);
	if (!type_eq(a, r))
		return "result type is not the operand's";
	if (a.elem != TY_I32 && a.elem != TY_I64 && a.elem != TY_F32 && a.elem != TY_F64)
		return unsupported(f, op, a.elem);
	return op->iattr[1] == 0 || op->iattr[1] == 1 ? NULL : "reverse must be 0 or 1";
}

static const char *check_xorperm(Func *f, Op *op)
{
	Type a = vtype(f, op->opnds[0]);
	if (a.rank < 1 || op->iattr[0] < 0 || op->iattr[0] >= a.rank)
		return arena_printf(f->arena, "axis %lld out of range for rank %d", (long long)op->iattr[0], a.rank);
	if (!type_eq(a, vtype(f, op->res[0])))
		return "result type is not the operand's";
	if (op->iattr[1] < 0 || op->iattr[1] >= a.shape[op->iattr[0]])
		return arena_printf(f->arena, "mask %lld is not below the axis's length %d", (long long)op->iattr[1],
				    a.shape[op->iattr[0]]);
	return NULL;
}

static const char *check_gather(Func *f, Op *op)
{
	Type src = vtype(f, op->opnds[0]), idx = vtype(f, op->opnds[1]), r = vtype(f, op->res[0]);
	int64_t ax = op->iattr[0];
	if (src.rank < 1 || ax < 0 || ax >= src.rank)
		return arena_printf(f->arena, "axis %lld out of range for rank %d", (long long)ax, src.rank);
	if (!elem_is_int(idx.elem) || idx.elem == TY_I1)
		return arena_printf(f->arena, "index is %s, not integers", tstr(f, idx));
	if (idx.rank != src.rank)
		return arena_printf(f->arena, "index is %s, source %s: ranks differ", tstr(f, idx), tstr(f, src));
	for (int d = 0; d < src.rank; d++)
		if (d != ax && idx.shape[d] != src.shape[d])
			return arena_printf(f->arena, "index is %s, source %s: they differ off axis %lld", tstr(f, idx),
					    tstr(f, src), (long long)ax);
	if (r.elem != src.elem || (r.elem == TY_PTR && r.pointee != src.pointee) || !type_same_shape(r, idx))
		return "result is not the source's elements in the index's shape";
	return NULL;
}

static const char *check_histogram(Func *f, Op *op)
{
	Type a = vtype(f, op->opnds[0]), r = vtype(f, op->res[0]);
	if (a.rank < 1 || !elem_is_int(a.elem) || a.elem == TY_I1)
		return arena_printf(f->arena, "operand is %s, not a tile of integers", tstr(f, a));
	return r.rank == 1 && r.elem == TY_I32 && is_pow2(r.shape[0]) ? NULL : "result is not a 1-D tile of i32";
}

/* reduce, scan: k tiles of one shape, the results they make (the region: check_combine_region) */
static const char *check_combine(Func *f, Op *op)
{
	Type a = vtype(f, op->opnds[0]);
	int64_t ax = op->iattr[0];
	if (a.rank < 1 || ax < 0 || ax >= a.rank)
		return arena_printf(f->arena, "axis %lld out of range for rank %d", (long long)ax, a.rank);
	if (op->iattr[1] != 0 && (op->code == OP_REDUCE || op->iattr[1] != 1))
		return op->code == OP_REDUCE ? "reduce has no reverse" : "reverse must be 0 or 1";
	for (int i = 0; i < op->nopnds; i++) {
		Type t = vtype(f, op->opnds[i]), r = vtype(f, op->res[i]);
		if (!type_same_shape(t, a))
			return arena_printf(f->arena, "operand %d is %s, operand 0 %s: shapes differ", i, tstr(f, t),
					    tstr(f, a));
		if (t.elem == TY_PTR || t.elem == TY_VOID || elem_is_f8(t.elem))
			return unsupported(f, op, t.elem);
		if (op->code == OP_SCAN ? !type_eq(t, r) : r.elem != t.elem || r.rank != a.rank - 1)
			return arena_printf(f->arena, "result %d is not operand %d's type%s", i, i,
					    op->code == OP_SCAN ? "" : " without the axis");
		for (int d = 0, j = 0; op->code == OP_REDUCE && d < a.rank; d++)
			if (d != ax && a.shape[d] != r.shape[j++])
				return arena_printf(f->arena, "result %d's shape is not operand %d's without the axis", i, i);
	}
	return NULL;
}

static const char *check_dot(Func *f, Op *op)
{
	Type a = vtype(f, op->opnds[0]), b = vtype(f, op->opnds[1]), c = vtype(f, op->opnds[2]);
	if (a.rank != 2 || b.rank != 2 || c.rank != 2)
		return "dot operands are not 2-D";
	if (a.shape[1] != b.shape[0] || c.shape[0] != a.shape[0] || c.shape[1] != b.shape[1])
		return "dot shapes do not match: a[M,K] b[K,N] acc[M,N]";
	if (a.elem != b.elem)
		return "dot inputs differ in element type";
	if (!op_elem_ok(OP_DOT, a.elem))
		return unsupported(f, op, a.elem);
	ElemKind acc = elem_is_float(a.elem) || elem_is_f8(a.elem) ? TY_F32 : TY_I32;
	if (c.elem != acc)
		return arena_printf(f->arena, "a dot of %s inputs accumulates in %s, not %s", elem_name(a.elem),
				    elem_name(acc), elem_name(c.elem));
	if (!type_eq(c, vtype(f, op->res[0])))
		return "dot result differs from the accumulator";
	return NULL;
}

static const char *check_source(Func *f, Op *op)
{
	Type r = vtype(f, op->res[0]);
	switch (op->code) {
	case OP_CONST:
		return r.rank == 0 && (elem_is_int(r.elem) || elem_is_float(r.elem) || elem_is_f8(r.elem)) ? NULL
			: "const must be an integer or float scalar";
	case OP_SPLAT: {
		Type a = vtype(f, op->opnds[0]);
		return a.rank == 0 && r.rank > 0 && a.elem == r.elem && a.pointee == r.pointee ? NULL
			: "splat needs a scalar of the result's element type";
	}
	case OP_ARANGE: {
		int32_t n = (int32_t)(op->iattr[1] - op->iattr[0]);
		return r.rank == 1 && r.elem == TY_I32 && n > 0 && r.shape[0] == n ? NULL
			: "arange result is not tensor<(hi-lo)xi32>";
	}
	default: /* program_id, num_programs */
		if (op->iattr[0] < 0 || op->iattr[0] > 2)
			return "axis must be 0, 1 or 2";
		return r.rank == 0 && r.elem == TY_I32 ? NULL : "result is not i32";
	}
}

static const char *check_op(Func *f, Op *op)
{
	if (op_has(op->code, F_ELTWISE))
		return check_eltwise(f, op);
	if (op_has(op->code, F_REDUCE))
		return check_reduce(f, op);
	switch (op->code) {
	case OP_CONST:
	case OP_SPLAT:
	case OP_ARANGE:
	case OP_PROGRAM_ID:
	case OP_NUM_PROGRAMS: return check_source(f, op);
	case OP_EXPAND_DIMS:
	case OP_BROADCAST:
	case OP_TRANS:
	case OP_RESHAPE:
	case OP_PERMUTE:
	case OP_JOIN:
	case OP_SPLIT: return check_shape_op(f, op);
	case OP_LOAD:
	case OP_STORE:
	case OP_ATOMIC:
	case OP_ATOMIC_CAS: return check_memory(f, op);
	case OP_CUMSUM: return check_cumsum(f, op);
	case OP_XORPERM: return check_xorperm(f, op);
	case OP_GATHER: return check_gather(f, op);
	case OP_PRINT:
		for (int i = 0; i < op->nopnds; i++)
			if (vtype(f, op->opnds[i]).elem == TY_VOID)
				return "print of a value without a type";
		return op->sattr ? NULL : "print without its text";
	case OP_ASSERT:
		if (vtype(f, op->opnds[0]).elem != TY_I1)
			return arena_printf(f->arena, "assert of %s, not i1", tstr(f, vtype(f, op->opnds[0])));
		return op->sattr ? NULL : "assert without its message";
	case OP_HISTOGRAM: return check_histogram(f, op);
	case OP_REDUCE:
	case OP_SCAN: return check_combine(f, op);
	case OP_DOT: return check_dot(f, op);
	case OP_CONVERT_LAYOUT:
		return type_eq(vtype(f, op->opnds[0]), vtype(f, op->res[0])) ? NULL : "convert_layout changes the type";
	case OP_DOT_WAIT:
		if (op->iattr[0] < 0 || op->iattr[0] > 7)
			return "dot_wait leaves 0 to 7 groups pending";
		return type_eq(vtype(f, op->opnds[0]), vtype(f, op->res[0])) ? NULL : "dot_wait changes the type";
	default: return NULL; /* for, if, do_while, yield: checked with their blocks */
	}
}

/* ---- structured control flow ---- */

static bool check_yield(Verifier *v, Op *owner, Block *b)
{
	Func *f = v->f;
	Op *y = b->last;
	if (!y || y->code != OP_YIELD)
		return fail(v, owner, "region does not end in yield");
	int n = y->nopnds;
	if (owner->code == OP_DO_WHILE) { /* the iters, then whether to go on */
		Type c = n > 0 ? vtype(f, y->opnds[n - 1]) : type_scalar(TY_VOID);
		if (n != owner->nres + 1 || c.rank != 0 || c.elem != TY_I1)
			return fail(v, y, arena_printf(f->arena, "a do_while body yields its %d iters and then an i1 "
						       "scalar condition", owner->nres));
		n--;
	} else if ((owner->code == OP_REDUCE || owner->code == OP_SCAN) && n == owner->nres) {
		for (int i = 0; i < n; i++)
			if (!type_eq(vtype(f, y->opnds[i]), type_scalar(vtype(f, owner->res[i]).elem)))
				return fail(v, y, arena_printf(f->arena, "yield operand %d is %s, not a scalar of result %d's "
							       "element type", i, tstr(f, vtype(f, y->opnds[i])), i));
		return true;
	} else if (n != owner->nres) {
		return fail(v, y, arena_printf(f->arena, "yields %d values, the %s has %d results", n,
					       op_info[owner->code].text, owner->nres));
	}
	for (int i = 0; i < n; i++)
		if (!type_eq(vtype(f, y->opnds[i]), vtype(f, owner->res[i])))
			return fail(v, y, arena_printf(f->arena, "yield operand %d is %s, result %d is %s", i,
						       tstr(f, vtype(f, y->opnds[i])), i, tstr(f, vtype(f, owner->res[i]))));
	return true;
}

static const char *check_for_head(Func *f, Op *op)
{
	Type lo = vtype(f, op->opnds[0]);
	Block *body = op->blocks[0];
	if (lo.rank != 0 || !elem_is_int(lo.elem) || lo.elem == TY_I1)
		return "loop bounds must be i32 or i64 scalars";
	if (!type_eq(vtype(f, op->opnds[1]), lo) || !type_eq(vtype(f, op->opnds[2]), lo))
		return "lo, hi and step differ in type";
	if (body->nargs != op->nopnds - 2)
		return arena_printf(f->arena, "body has %d arguments, expects %d", body->nargs, op->nopnds - 2);
	if (!type_eq(vtype(f, body->args[0]), lo))
		return "induction variable differs from the bounds' type";
	if (op->iattr[1] && !num_stages_ok(op->iattr[1]))
		return arena_printf(f->arena, "stages=%lld is not from 1 to 8", (long long)op->iattr[1]);
	for (int i = 3; i < op->nopnds; i++) {
		Type t = vtype(f, op->opnds[i]);
		if (!type_eq(t, vtype(f, body->args[i - 2])) || !type_eq(t, vtype(f, op->res[i - 3])))
			return arena_printf(f->arena, "iter value %d: init, body argument and result differ", i - 3);
	}
	return NULL;
}

static const char *check_do_while_head(Func *f, Op *op)
{
	Block *body = op->blocks[0];
	if (body->nargs != op->nopnds)
		return arena_printf(f->arena, "body has %d arguments, expects %d", body->nargs, op->nopnds);
	for (int i = 0; i < op->nopnds; i++) {
		Type t = vtype(f, op->opnds[i]);
		if (!type_eq(t, vtype(f, body->args[i])) || !type_eq(t, vtype(f, op->res[i])))
			return arena_printf(f->arena, "iter value %d: init, body argument and result differ", i);
	}
	return NULL;
}

/* The 2k scalar arguments (an earlier partial, then a later one) and straight-line scalar ops. */
static const char *check_combine_region(Func *f, Op *op)
{
	Block *body = op->blocks[0];
	int k = op->nopnds;
	if (body->nargs != 2 * k)
		return arena_printf(f->arena, "region has %d arguments, expects %d", body->nargs, 2 * k);
	for (int i = 0; i < 2 * k; i++)
		if (!type_eq(vtype(f, body->args[i]), type_scalar(vtype(f, op->opnds[i % k]).elem)))
			return arena_printf(f->arena, "region argument %d is not a scalar of operand %d's element type", i,
					    i % k);
	for (Op *q = body->first; q; q = q->next) {
		if (q->code == OP_YIELD)
			continue;
		if (q->nblocks || !op_has(q->code, F_PURE) || q->code == OP_LOAD)
			return arena_printf(f->arena, "its region holds %s: only pure, straight-line ops may combine",
					    op_info[q->code].text);
		for (int i = 0; i < q->nres; i++)
			if (vtype(f, q->res[i]).rank)
				return arena_printf(f->arena, "its region makes a tile (%s): it combines scalars",
						    op_info[q->code].text);
		for (int i = 0; i < q->nopnds; i++)
			if (vtype(f, q->opnds[i]).rank)
				return arena_printf(f->arena, "its region reads a tile (%s's operand %d): it combines scalars",
						    op_info[q->code].text, i);
	}
	return NULL;
}

static const char *check_region_head(Func *f, Op *op)
{
	if (op->code == OP_REDUCE || op->code == OP_SCAN)
		return check_combine_region(f, op);
	if (op->code == OP_FOR)
		return check_for_head(f, op);
	if (op->code == OP_DO_WHILE)
		return check_do_while_head(f, op);
	Type c = vtype(f, op->opnds[0]);
	if (c.rank != 0 || c.elem != TY_I1)
		return "if condition is not a scalar i1";
	for (int i = 0; i < op->nblocks; i++)
		if (op->blocks[i]->nargs)
			return "if blocks take no arguments";
	return NULL;
}

/* ---- the walk ---- */

static bool verify_block(Verifier *v, Block *b);

static bool operands_live(Verifier *v, Op *op)
{
	for (int i = 0; i < op->nopnds; i++) {
		ValId x = op->opnds[i];
		if (x <= 0 || x >= v->f->nvals)
			return fail(v, op, arena_printf(v->f->arena, "operand %d is not a value", i));
		if (!v->live[x])
			return fail(v, op, arena_printf(v->f->arena, "operand %d is used where its definition does not dominate", i));
	}
	return true;
}

static bool results_fresh(Verifier *v, Op *op)
{
	for (int i = 0; i < op->nres; i++) {
		ValId r = op->res[i];
		if (r <= 0 || r >= v->f->nvals || v->f->vals[r].def != op || v->live[r])
			return fail(v, op, "result is not a fresh value defined by this op");
	}
	return true;
}

static bool verify_op(Verifier *v, Block *b, Op *op)
{
	Func *f = v->f;
	const char *why;
	if (op->parent != b)
		return fail(v, op, "op's parent block link is wrong");
	if (op_has(op->code, F_TERM) && (op != b->last || !b->parent))
		return fail(v, op, op != b->last ? "terminator in the middle of a block" : "yield outside a region");
	if (!operands_live(v, op) || !results_fresh(v, op))
		return false;
	if ((why = check_counts(f, op)) || (why = check_op(f, op)))
		return fail(v, op, why);
	if (op_has(op->code, F_REGION)) {
		if ((why = check_region_head(f, op)))
			return fail(v, op, why);
		for (int i = 0; i < op->nblocks; i++) {
			if (op->blocks[i]->parent != op)
				return fail(v, op, "block's parent link is wrong");
			if (!verify_block(v, op->blocks[i]) || !check_yield(v, op, op->blocks[i]))
				return false;
		}
	}
	for (int i = 0; i < op->nres; i++)
		v->live[op->res[i]] = 1;
	return true;
}

static void unmark(Verifier *v, Block *b)
{
	for (int i = 0; i < b->nargs; i++)
		v->live[b->args[i]] = 0;
	for (Op *op = b->first; op; op = op->next)
		for (int i = 0; i < op->nres; i++)
			v->live[op->res[i]] = 0;
}

static bool verify_block(Verifier *v, Block *b)
{
	for (int i = 0; i < b->nargs; i++) {
		ValId a = b->args[i];
		if (a <= 0 || a >= v->f->nvals || v->live[a] || v->f->vals[a].def)
			return fail(v, b->parent, "block argument is not a fresh value");
		v->live[a] = 1;
	}
	bool ok = true;
	for (Op *op = b->first; op && ok; op = op->next)
		ok = verify_op(v, b, op);
	unmark(v, b);
	return ok;
}

const char *ir_verify_at(Func *f, Op **bad)
{
	Verifier v = {f, NEWN(f->arena, uint8_t, f->nvals), NULL, NULL};
	if (f->entry->parent)
		fail(&v, NULL, "entry block has a parent op");
	else
		verify_block(&v, f->entry);
	if (bad)
		*bad = v.bad;
	return v.msg;
}

const char *ir_verify(Func *f)
{
	return ir_verify_at(f, NULL);
}
