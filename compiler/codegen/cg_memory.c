/*
 * cg_memory.c: global loads, stores and atomics, vectorised and predicated.
 *
 * A load or store moves `v` consecutive registers at once when the layout
 * puts them on consecutive elements of the last dimension (register columns
 * 1, 2, 4, ... and no other column touching those low bits) and the axis
 * analysis proves the pointers contiguous and aligned for v elements and
 * the mask constant over them (Triton's rule), up to 16 bytes.
 *
 * Unpredicated accesses are plain LLVM vector loads/stores (the backend
 * prints ld.global.v4.f32).  Predicated ones are inline PTX as Triton writes
 * them, because LLVM would otherwise turn a masked 128-bit access into
 * branches or scalar accesses:
 *
 *     mov.b32 $0, $6; ...                  // `other` moved in first
 *     @$5 ld.global.v4.b32 {$0,$1,$2,$3}, [ $4 + 0 ];
 *
 * Elements are packed into 32-bit words (64-bit for 8-byte elements; one 16-
 * or 8-bit word when the whole access is smaller).  A store's predicate also
 * keeps duplicate lanes/warps (zero layout columns) and, for scalars, every
 * thread but thread 0 from writing.
 */
#include <stdio.h>

#include "cg.h"

/* Registers per access for a tensor of layout l (NULL: scalar). */
static int vec_width(Cg *c, const Layout *l, ValId ptr, ValId mask, int eb)
{
	return l ? axis_access_vec(c->f, ptr, mask, eb, cg_reg_vec(l, eb)) : 1;
}

static LLVMValueRef and_pred(Cg *c, LLVMValueRef a, LLVMValueRef b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return LLVMBuildAnd(c->b, a, b, "");
}

/* Owner predicate of a tensor's elements, or thread 0 for a scalar; NULL: always. */
static LLVMValueRef owner(Cg *c, const Layout *l)
{
	if (l)
		return cg_is_owner(c, l);
	return LLVMBuildICmp(c->b, LLVMIntEQ, c->tid, cg_i32c(c, 0), "");
}

/* ---- packing elements into the words inline asm moves ---- */

typedef struct Words {
	int wbits;            /* 8, 16, 32 or 64 */
	int nw;               /* 1, 2 or 4 */
	int per;              /* elements per word */
	LLVMTypeRef wt;       /* register type of a word (i8 words travel in i16) */
	char cons;            /* constraint letter */
} Words;

static Words words_for(Cg *c, int eb, int v)
{
	Words w;
	int total = eb * 8 * v;
	w.wbits = eb == 8 ? 64 : total >= 32 ? 32 : total;
	w.nw = total / w.wbits;
	w.per = w.wbits / (eb * 8);
	w.wt = w.wbits == 64 ? c->i64 : w.wbits == 32 ? c->i32 : c->i16;
	w.cons = w.wbits == 64 ? 'l' : w.wbits == 32 ? 'r' : 'h';
	return w;
}

static LLVMTypeRef bits_type(Cg *c, ElemKind e)
{
	return e == TY_PTR ? c->i64 : cg_mem_type(c, e);
}

/* Element value in memory form -> its bits type (pointers become i64). */
static LLVMValueRef to_bits(Cg *c, LLVMValueRef x, ElemKind e)
{
	x = cg_to_mem(c, x, e);
	return e == TY_PTR ? LLVMBuildPtrToInt(c->b, x, c->i64, "") : x;
}

static LLVMValueRef from_bits(Cg *c, LLVMValueRef x, ElemKind e)
{
	if (e == TY_PTR)
		return LLVMBuildIntToPtr(c->b, x, cg_elem_type(c, e), "");
	return cg_from_mem(c, x, e);
}

static LLVMValueRef pack(Cg *c, const Words *w, ElemKind e, LLVMValueRef *xs)
{
	LLVMTypeRef bt = bits_type(c, e);
	LLVMValueRef word;
	if (w->per == 1) {
		word = LLVMBuildBitCast(c->b, to_bits(c, xs[0], e), LLVMIntTypeInContext(c->ctx, (unsigned)w->wbits), "");
	} else if (w->per == 2 && (e == TY_F16 || e == TY_BF16)) {
		word = cg_pack_half2(c, xs[0], xs[1]);
	} else {
		LLVMValueRef vec = LLVMGetUndef(LLVMVectorType(bt, (unsigned)w->per));
		for (int j = 0; j < w->per; j++)
			vec = LLVMBuildInsertElement(c->b, vec, to_bits(c, xs[j], e), cg_i32c(c, j), "");
		word = LLVMBuildBitCast(c->b, vec, LLVMIntTypeInContext(c->ctx, (unsigned)w->wbits), "");
	}
	return w->wbits == 8 ? LLVMBuildZExt(c->b, word, c->i16, "") : word;
}

static void unpack(Cg *c, const Words *w, ElemKind e, LLVMValueRef word, LLVMValueRef *xs)
{
	LLVMTypeRef bt = bits_type(c, e);
	if (w->wbits == 8)
		word = LLVMBuildTrunc(c->b, word, c->i8, "");
	if (w->per == 1) {
		xs[0] = from_bits(c, LLVMBuildBitCast(c->b, word, bt, ""), e);
		return;
	}
	LLVMValueRef vec = LLVMBuildBitCast(c->b, word, LLVMVectorType(bt, (unsigned)w->per), "");
	for (int j = 0; j < w->per; j++)
		xs[j] = from_bits(c, LLVMBuildExtractElement(c->b, vec, cg_i32c(c, j), ""), e);
}

static const char *vec_suffix(int nw)
{
	return nw == 4 ? ".v4" : nw == 2 ? ".v2" : "";
}

/* "{$a, $b, ...}" or "$a" for n operands starting at first */
static void operand_list(char *buf, size_t n, int first, int count)
{
	size_t k = 0;
	if (count > 1)
		k += (size_t)snprintf(buf + k, n - k, "{ ");
	for (int i = 0; i < count; i++)
		k += (size_t)snprintf(buf + k, n - k, "%s$%d", i ? ", " : "", first + i);
	if (count > 1)
		snprintf(buf + k, n - k, " }");
}

/* ---- loads ---- */

static void load_plain(Cg *c, ElemKind e, int v, LLVMValueRef ptr, LLVMValueRef *out)
{
	LLVMTypeRef mt = cg_mem_type(c, e);
	int eb = elem_bytes(e);
	LLVMTypeRef t = v > 1 ? LLVMVectorType(mt, (unsigned)v) : mt;
	LLVMValueRef x = LLVMBuildLoad2(c->b, t, ptr, "");
	LLVMSetAlignment(x, (unsigned)(v * eb));
	for (int j = 0; j < v; j++)
		out[j] = cg_from_mem(c, v > 1 ? LLVMBuildExtractElement(c->b, x, cg_i32c(c, j), "") : x, e);
}

static void load_pred(Cg *c, ElemKind e, int v, LLVMValueRef ptr, LLVMValueRef pred, LLVMValueRef *other,
                      LLVMValueRef *out)
{
	Words w = words_for(c, elem_bytes(e), v);
	char text[512], cons[128], outs[64];
	size_t k = 0, kc = 0;
	LLVMValueRef args[2 + 4];
	args[0] = ptr;
	args[1] = pred;
	for (int i = 0; i < w.nw; i++) {
		args[2 + i] = pack(c, &w, e, other + i * w.per);
		k += (size_t)snprintf(text + k, sizeof text - k, "mov.b%d $%d, $%d;\n\t", w.wbits == 8 ? 16 : w.wbits,
		                      i, w.nw + 2 + i);
		kc += (size_t)snprintf(cons + kc, sizeof cons - kc, "=%c,", w.cons);
	}
	operand_list(outs, sizeof outs, 0, w.nw);
	snprintf(text + k, sizeof text - k, "@$%d %s%s.b%d %s, [ $%d + 0 ];", w.nw + 1, nv_names[NV_ASM_LD],
	         vec_suffix(w.nw), w.wbits, outs, w.nw);
	kc += (size_t)snprintf(cons + kc, sizeof cons - kc, "l,b");
	for (int i = 0; i < w.nw; i++)
		kc += (size_t)snprintf(cons + kc, sizeof cons - kc, ",%c", w.cons);
	LLVMTypeRef rt = w.wt;
	if (w.nw > 1) {
		LLVMTypeRef el[4] = {w.wt, w.wt, w.wt, w.wt};
		rt = LLVMStructTypeInContext(c->ctx, el, (unsigned)w.nw, 0);
	}
	LLVMValueRef r = cg_asm(c, text, cons, rt, args, 2 + w.nw, true);
	for (int i = 0; i < w.nw; i++) {
		LLVMValueRef word = w.nw > 1 ? LLVMBuildExtractValue(c->b, r, (unsigned)i, "") : r;
		unpack(c, &w, e, word, out + i * w.per);
	}
}

void cg_load(Cg *c, Op *op)
{
	ValId res = op->res[0], ptr = op->opnds[0];
	ValId mask = op->nopnds > 1 ? op->opnds[1] : 0, other = op->nopnds > 2 ? op->opnds[2] : 0;
	ElemKind e = vtype(c->f, res).elem;
	const Layout *l = cg_layout(c, res);
	uint32_t zm = l ? cg_zeromask(l->reg, l->nreg) : 0;
	int n = cg_nregs(c, res), v = vec_width(c, l, ptr, mask, elem_bytes(e));
	LLVMValueRef *r = cg_new_regs(c, res);
	LLVMValueRef zero = LLVMConstNull(cg_elem_type(c, e)), oth[16];
	for (int r0 = 0; r0 < n; r0 += v) {
		if (r0 & zm)
			continue;
		LLVMValueRef p = c->regs[ptr][r0];
		if (!mask) {
			load_plain(c, e, v, p, r + r0);
			continue;
		}
		for (int j = 0; j < v; j++)
			oth[j] = other ? c->regs[other][r0 + j] : zero;
		load_pred(c, e, v, p, c->regs[mask][r0], oth, r + r0);
	}
	cg_fill_dups(c, res);
}

/* ---- stores ---- */

static void store_plain(Cg *c, ElemKind e, int v, LLVMValueRef ptr, LLVMValueRef *xs)
{
	LLVMTypeRef mt = cg_mem_type(c, e);
	LLVMValueRef x;
	if (v == 1) {
		x = cg_to_mem(c, xs[0], e);
	} else {
		x = LLVMGetUndef(LLVMVectorType(mt, (unsigned)v));
		for (int j = 0; j < v; j++)
			x = LLVMBuildInsertElement(c->b, x, cg_to_mem(c, xs[j], e), cg_i32c(c, j), "");
	}
	LLVMSetAlignment(LLVMBuildStore(c->b, x, ptr), (unsigned)(v * elem_bytes(e)));
}

static void store_pred(Cg *c, ElemKind e, int v, LLVMValueRef ptr, LLVMValueRef pred, LLVMValueRef *xs)
{
	Words w = words_for(c, elem_bytes(e), v);
	char text[256], cons[64], ins[64];
	LLVMValueRef args[2 + 4];
	args[0] = ptr;
	args[1] = pred;
	size_t kc = (size_t)snprintf(cons, sizeof cons, "l,b");
	for (int i = 0; i < w.nw; i++) {
		args[2 + i] = pack(c, &w, e, xs + i * w.per);
		kc += (size_t)snprintf(cons + kc, sizeof cons - kc, ",%c", w.cons);
	}
	operand_list(ins, sizeof ins, 2, w.nw);
	snprintf(text, sizeof text, "@$1 %s%s.b%d [ $0 + 0 ], %s;", nv_names[NV_ASM_ST], vec_suffix(w.nw), w.wbits,
	         ins);
	cg_asm(c, text, cons, LLVMVoidTypeInContext(c->ctx), args, 2 + w.nw, true);
}

void cg_store(Cg *c, Op *op)
{
	ValId ptr = op->opnds[0], x = op->opnds[1], mask = op->nopnds > 2 ? op->opnds[2] : 0;
	ElemKind e = vtype(c->f, x).elem;
	const Layout *l = cg_layout(c, ptr);
	uint32_t zm = l ? cg_zeromask(l->reg, l->nreg) : 0;
	int n = cg_nregs(c, ptr), v = vec_width(c, l, ptr, mask, elem_bytes(e));
	LLVMValueRef own = owner(c, l);
	for (int r0 = 0; r0 < n; r0 += v) {
		if (r0 & zm)
			continue;
		LLVMValueRef pred = and_pred(c, mask ? c->regs[mask][r0] : NULL, own);
		if (pred)
			store_pred(c, e, v, c->regs[ptr][r0], pred, c->regs[x] + r0);
		else
			store_plain(c, e, v, c->regs[ptr][r0], c->regs[x] + r0);
	}
}

/* ---- atomics ---- */

/*
 * The atom instruction's operation and type for kind k on e.  Float max and
 * min are not here: atomic_float_max_min makes them of integer ones.
 */
static const char *atom_type(AtomicKind k, ElemKind e)
{
	static const char *const bits[][2] = {{"exch.b32", "exch.b64"}, {"and.b32", "and.b64"}, {"or.b32", "or.b64"},
	                                      {"xor.b32", "xor.b64"}};
	if (!atomic_elem_ok(k, e))
		return NULL;
	switch (k) {
	case ATOM_ADD:
		switch (e) {
		case TY_F32: return "add.f32";
		case TY_F64: return "add.f64";
		case TY_I32: return "add.u32";
		case TY_I64: return "add.u64";
		case TY_F16: return "add.noftz.f16";
		case TY_BF16: return "add.noftz.bf16";
		default: return NULL;
		}
	case ATOM_MAX: return e == TY_I64 ? "max.s64" : e == TY_I32 ? "max.s32" : NULL;
	case ATOM_MIN: return e == TY_I64 ? "min.s64" : e == TY_I32 ? "min.s32" : NULL;
	default: return bits[k - ATOM_XCHG][elem_bits(e) == 64];
	}
}

/*
 * One `@pred <atom>.<ty> old, [ptr], x (, y)` in inline asm, old 0 where
 * pred is false; the registers are e's (f16: i16).  atom: the instruction
 * with its order, scope and space (atom_name).
 */
static LLVMValueRef atom_asm(Cg *c, const char *atom, const char *ty, ElemKind e, LLVMValueRef ptr, LLVMValueRef pred,
			     LLVMValueRef x, LLVMValueRef y)
{
	char text[160], cons[32];
	char cc = e == TY_F32 ? 'f' : e == TY_F64 ? 'd' : e == TY_I64 ? 'l' : e == TY_I32 ? 'r' : 'h';
	bool half = cc == 'h';
	LLVMTypeRef rt = half ? c->i16 : cg_elem_type(c, e);
	if (half)
		x = LLVMBuildBitCast(c->b, x, c->i16, "");
	snprintf(text, sizeof text, "mov.b%d $0, 0;\n\t@$2 %s.%s $0, [ $1 + 0 ], $3%s;", half ? 16 : elem_bits(e),
	         atom, ty, y ? ", $4" : "");
	snprintf(cons, sizeof cons, y ? "=%c,l,b,%c,%c" : "=%c,l,b,%c", cc, cc, cc);
	LLVMValueRef args[4] = {ptr, pred ? pred : LLVMConstInt(c->i1, 1, 0), x, y};
	LLVMValueRef r = cg_asm(c, text, cons, rt, args, y ? 4 : 3, true);
	return half ? LLVMBuildBitCast(c->b, r, cg_elem_type(c, e), "") : r;
}

/*
 * Float max (min) on the bits as integers: a value whose sign bit is clear
 * takes the signed maximum (minimum), one whose sign bit is set the
 * unsigned minimum (maximum), for IEEE order is signed order on the bits
 * of non-negative floats and reversed unsigned order on negative ones.
 * Each step is then the maximum (minimum) in that order with -0 below +0,
 * so the programs may come in any order.  (Splitting on x >= 0, as Triton
 * does, sends -0 down the signed path, where its bits are the smallest
 * integer: a minimum of -0 would overwrite any negative value.)  A NaN
 * value changes nothing: an `or` of 0 reads the old value.
 */
static LLVMValueRef atomic_float_max_min(Cg *c, const char *atom, bool max, ElemKind e, LLVMValueRef ptr,
					 LLVMValueRef pred, LLVMValueRef x)
{
	bool wide = e == TY_F64;
	ElemKind ie = wide ? TY_I64 : TY_I32;
	LLVMTypeRef it = cg_elem_type(c, ie);
	LLVMValueRef bits = LLVMBuildBitCast(c->b, x, it, "");
	LLVMValueRef nan = LLVMBuildFCmp(c->b, LLVMRealUNO, x, x, ""), num = LLVMBuildNot(c->b, nan, "");
	LLVMValueRef sign = LLVMBuildICmp(c->b, LLVMIntSLT, bits, LLVMConstNull(it), "");
	LLVMValueRef pos = LLVMBuildAnd(c->b, num, LLVMBuildNot(c->b, sign, ""), "");
	LLVMValueRef neg = LLVMBuildAnd(c->b, num, sign, "");
	const char *sgn = max ? (wide ? "max.s64" : "max.s32") : (wide ? "min.s64" : "min.s32");
	const char *uns = max ? (wide ? "min.u64" : "min.u32") : (wide ? "max.u64" : "max.u32");
	LLVMValueRef a = atom_asm(c, atom, sgn, ie, ptr, and_pred(c, pred, pos), bits, NULL);
	LLVMValueRef b = atom_asm(c, atom, uns, ie, ptr, and_pred(c, pred, neg), bits, NULL);
	LLVMValueRef n = atom_asm(c, atom, wide ? "or.b64" : "or.b32", ie, ptr, and_pred(c, pred, nan),
				  LLVMConstNull(it), NULL);
	LLVMValueRef old = LLVMBuildSelect(c->b, pos, a, LLVMBuildSelect(c->b, neg, b, n, ""), "");
	return LLVMBuildBitCast(c->b, old, cg_elem_type(c, e), "");
}

static LLVMValueRef atomic_one(Cg *c, Op *op, const char *atom, ElemKind e, LLVMValueRef ptr, LLVMValueRef pred,
			       LLVMValueRef x, LLVMValueRef cmp)
{
	if (op->code == OP_ATOMIC_CAS)
		return atom_asm(c, atom, elem_bits(e) == 64 ? "cas.b64" : "cas.b32", e, ptr, pred, cmp, x);
	AtomicKind k = (AtomicKind)op->iattr[0];
	if ((k == ATOM_MAX || k == ATOM_MIN) && elem_is_float(e))
		return atomic_float_max_min(c, atom, k == ATOM_MAX, e, ptr, pred, x);
	const char *ty = atom_type(k, e);
	if (!ty)
		die("codegen: atomic %s on %s", atomic_names[k], elem_name(e));
	return atom_asm(c, atom, ty, e, ptr, pred, x, NULL);
}

/*
 * The atom instruction before its operation: its memory order and scope as
 * sem= and scope= give them, else none for a tile (PTX's relaxed at GPU
 * scope) and acq_rel at GPU scope for a scalar, whose program's accesses
 * are ordered around it.
 */
static const char *atom_name(Cg *c, Op *op, bool scalar)
{
	MemSem sem = ATOMIC_SEM(op);
	MemScope scope = ATOMIC_SCOPE(op);
	if (!sem && scalar)
		sem = SEM_ACQ_REL;
	if (!scope && scalar)
		scope = SCOPE_GPU;
	return arena_printf(c->f->arena, "%s%s%s%s%s.global", nv_names[NV_ASM_ATOM], sem ? "." : "", sem_names[sem],
	                    scope ? "." : "", scope_names[scope]);
}

/*
 * One atomic per owned element; the old value comes back to the thread
 * that did it.
 *
 * A scalar atomic is done once for the program, by thread 0, and orders
 * the program's memory accesses around it (docs/language.md): a bar.sync
 * before it, so every thread's earlier accesses precede it, the acq_rel
 * GPU-scope form, and a bar.sync after it, so every thread's later ones
 * follow it; the old value reaches the other threads through the op's
 * scratch.  Where a tile's elements are held by several threads (lanes or
 * warps of the layout that hold copies), the owners' old values go to the
 * others the same way when they are used.
 */
void cg_atomic(Cg *c, Op *op)
{
	bool cas = op->code == OP_ATOMIC_CAS;
	int mi = ir_mask_index(op->code);
	ValId ptr = op->opnds[0], x = op->opnds[cas ? 2 : 1], mask = op->nopnds > mi ? op->opnds[mi] : 0;
	ValId cmp = cas ? op->opnds[1] : 0;
	ElemKind e = vtype(c->f, x).elem;
	const Layout *l = cg_layout(c, ptr);
	bool used = op->nres && val(c->f, op->res[0])->nuses > 0;
	uint32_t zm = l ? cg_zeromask(l->reg, l->nreg) : 0;
	if (!l)
		cg_barrier(c);
	LLVMValueRef own = owner(c, l);
	LLVMValueRef *r = op->nres ? cg_new_regs(c, op->res[0]) : NULL;
	const char *atom = atom_name(c, op, !l);
	for (int i = 0; i < cg_nregs(c, ptr); i++) {
		if (i & zm)
			continue;
		LLVMValueRef pred = and_pred(c, mask ? c->regs[mask][i] : NULL, own);
		LLVMValueRef old = atomic_one(c, op, atom, e, c->regs[ptr][i], pred, c->regs[x][i],
					      cas ? c->regs[cmp][i] : NULL);
		if (r)
			r[i] = old;
	}
	if (r)
		cg_fill_dups(c, op->res[0]);
	if (!l && used)
		cg_share_scalar(c, op->res[0], own, op->smem_offset);
	else if (!l && (op->next || op->parent != c->f->entry)) /* not the kernel's last word */
		cg_barrier(c);
	else if (used && layout_copies(l))
		cg_share_owned(c, op->res[0], op->smem_offset, op->smem_bytes);
}
