/*
 * cg_main.c: the LLVM module for one kernel, and the trip to PTX.
 *
 * cg_emit builds a module holding one `ptx_kernel` function (calling
 * convention 71) whose parameters are the Func's entry arguments (pointers in
 * addrspace(1)), annotated with reqntidx = 32 * num_warps (.reqntid).  The body is a
 * walk over the structured IR: every op appends the instructions for its
 * canonical registers (see cg.h); `for` becomes header/body/exit blocks with
 * one phi per canonical register of each loop-carried value, `if` becomes
 * then/else/merge blocks with phis for its results.  Each op's instructions
 * carry a DILocation of its .tile line, so the PTX has .loc lines.  The
 * module is verified, optimised (llvm_passes, below) and printed as LLVM IR or
 * emitted as PTX by the NVPTX TargetMachine (--emit=llvm shows the module
 * after the passes, as it goes to the backend).  An LLVM fatal error longjmps
 * back here and becomes a user-visible error instead of an abort.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/ErrorHandling.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "cg.h"

static const char triple[] = "nvptx64-nvidia-cuda";

/* ---- LLVM set-up and fatal errors ---- */

static once_flag init_once = ONCE_FLAG_INIT;
static mtx_t tm_lock; /* guards tm_pool (below) */
static _Thread_local jmp_buf *fatal_jmp;
static _Thread_local char fatal_msg[512];

static void on_fatal(const char *reason)
{
	snprintf(fatal_msg, sizeof fatal_msg, "%s", reason);
	if (fatal_jmp)
		longjmp(*fatal_jmp, 1);
	fprintf(stderr, "tilec: LLVM error: %s\n", reason);
}

/*
 * The LLVM passes: default<O3>'s own, as -print-pipeline-passes lists them,
 * less every pass whose removal left the machine code of all the kernels
 * that scripts/llvm-passes.py compiles the same (ptxas -O3, sm_90, sm_80
 * and sm_90a; byte for byte, or as large in another order, or smaller;
 * two kernels the script names come out 128 bytes larger):
 * ptxas redoes much of what they do.  The backend runs at
 * CodeGenLevelLess instead of Aggressive, also with the same machine code.
 * The script checks that this still holds (lit: codegen/llvm-passes.tile);
 * it failed on lists without ipsccp, the first early-cse, loop-unroll, the
 * late simplifycfg, the instcombine after the loop passes or the one after
 * loop-unroll, and held without the one default<O3> runs after early-cse.
 * ADCE runs first, which default<O3> does not: a third of the module as
 * built is dead (the 16-bit halves of ldmatrix words that the mma takes
 * whole, per-register pointers that no vector access reads, loop phis of
 * them), and every pass after it then visits less (the pipelined matmul:
 * 2251 instructions built, 1364 after ADCE; the passes' work -8%), with
 * the same machine code for every kernel.  The SLP vectoriser (with vector-combine
 * after it) pairs f16 and bf16 arithmetic into f16x2 instructions and finds
 * little else to do in these kernels, so it runs only where a kernel has
 * such arithmetic or f16/bf16 tiles loaded element by element, whose
 * halves it packs into words with fewer moves (half_math); it was a
 * quarter of the passes' time on the matmul.  TILEC_LLVM_REFERENCE=1
 * brings back default<O3> and Aggressive; TILEC_LLVM_PASSES replaces the
 * list (for trying others).
 */
#define IC "instcombine<max-iterations=1;no-use-loop-info;no-verify-fixpoint>"
#define PASSES(SLP)                                                                                           \
	"function(adce,nvvm-intr-range,early-cse<>),"                                                             \
	"ipsccp,"                                                                                                 \
	"function(" IC ",early-cse<memssa>,reassociate,"                                                          \
	"loop-mssa(loop-instsimplify,loop-simplifycfg,licm<no-allowspeculation>,"                                 \
	"loop-rotate<header-duplication;no-prepare-for-lto>,licm<allowspeculation>,"                              \
	"simple-loop-unswitch<nontrivial;trivial>),"                                                              \
	IC ",gvn<>,correlated-propagation,infer-alignment," IC ","                                                 \
	"simplifycfg<bonus-inst-threshold=1;forward-switch-cond;switch-range-to-icmp;switch-to-lookup;"           \
	"no-keep-loops;hoist-common-insts;sink-common-insts;speculate-blocks;simplify-cond-branch>,"              \
	SLP "loop-unroll<O3>," IC ",div-rem-pairs)"
static const char llvm_passes[] = PASSES("slp-vectorizer,vector-combine," IC ",");
static const char llvm_passes_no_slp[] = PASSES("");
#undef PASSES
#undef IC

static bool llvm_reference;
static const char *llvm_passes_env;

static void init_llvm(void)
{
	const char *e = getenv("TILEC_LLVM_REFERENCE");
	llvm_reference = e && *e && strcmp(e, "0") != 0;
	llvm_passes_env = getenv("TILEC_LLVM_PASSES");
	if (llvm_passes_env && !*llvm_passes_env)
		llvm_passes_env = NULL;
	LLVMInitializeNVPTXTargetInfo();
	LLVMInitializeNVPTXTarget();
	LLVMInitializeNVPTXTargetMC();
	LLVMInitializeNVPTXAsmPrinter();
	if (mtx_init(&tm_lock, mtx_plain) != thrd_success)
		die("codegen: cannot create a mutex");
	/*
	 * -nvptx-short-ptr: 32-bit shared (and const/local) pointers; the
	 * TargetMachine's data layout then says p3:32:32, and every module
	 * takes that layout.  The backend's loop strength reduction narrows
	 * its search above 20000 (LLVM's default 65535: the pipelined
	 * matmul's loop lies between and took a third of LSR's time to find
	 * the same solution), which leaves the machine code of every kernel
	 * scripts/llvm-passes.py compiles the same or smaller, like the pass
	 * list above.  Machine LICM stays on: it hoists the scaling of a
	 * loop-invariant GEP index that instruction selection puts in the
	 * loop (softmax_persistent's column offsets), which ptxas for sm_80
	 * leaves there, 128 bytes larger.
	 */
	const char *tuned[] = {"tilec", "-nvptx-short-ptr", "-lsr-complexity-limit=20000"};
	LLVMParseCommandLineOptions(llvm_reference ? 2 : 3, tuned, NULL);
	/* TILEC_LLVM_ARGS="-opt1 -opt2": LLVM's own options, for trying (at most 15,
	 * split at spaces); parsed last, so a value given there wins */
	const char *args = getenv("TILEC_LLVM_ARGS");
	if (args && *args) {
		static char buf[1024];
		const char *argv[16] = {"tilec"};
		int argc = 1;
		snprintf(buf, sizeof buf, "%s", args);
		for (char *t = strtok(buf, " "); t && argc < 16; t = strtok(NULL, " "))
			argv[argc++] = t;
		LLVMParseCommandLineOptions(argc, argv, NULL);
	}
	LLVMInstallFatalErrorHandler(on_fatal);
}

/* ---- helpers shared by the op families ---- */

const Layout *cg_layout(Cg *c, ValId v)
{
	Value *x = val(c->f, v);
	if (x->type.rank == 0)
		return NULL;
	if (x->layout < 0 || x->layout >= c->f->nlayouts)
		die("codegen: value %%%d has no layout", v);
	return &c->f->layouts[x->layout];
}

int cg_nregs(Cg *c, ValId v)
{
	const Layout *l = cg_layout(c, v);
	return l ? 1 << l->nreg : 1;
}

LLVMValueRef *cg_new_regs(Cg *c, ValId v)
{
	LLVMValueRef *r = NEWN(c->f->arena, LLVMValueRef, cg_nregs(c, v));
	c->regs[v] = r;
	return r;
}

uint32_t cg_zeromask(const uint32_t *cols, int n)
{
	uint32_t m = 0;
	for (int i = 0; i < n; i++)
		if (cols[i] == 0)
			m |= 1u << i;
	return m;
}

uint32_t cg_reg_index(const Layout *l, uint32_t r)
{
	uint32_t x = 0;
	for (int i = 0; i < l->nreg; i++)
		if (r >> i & 1)
			x ^= l->reg[i];
	return x;
}

int32_t *cg_reg_of(Cg *c, const Layout *l)
{
	int64_t n = (int64_t)l->shape[0] * (l->rank > 1 ? l->shape[1] : 1);
	int32_t *m = NEWN(c->f->arena, int32_t, n);
	memset(m, 0xff, sizeof(int32_t) * (size_t)n);
	for (uint32_t r = 0; r < 1u << l->nreg; r++)
		m[cg_reg_index(l, r)] = (int32_t)r;
	return m;
}

/*
 * The thread index of a layout: the XOR of the lane and warp columns that
 * the thread's id bits select.  Lane and warp are the id's low 5 and next
 * bits, so the columns are taken as one list over the id; a run of id bits
 * whose columns are consecutive single bits is one shift-mask-shift, and
 * where no two columns share a bit the terms are joined by a
 * disjoint or.  Columns of several bits (a swizzle's) make runs too, as one
 * multiply, where the copies it adds do not overlap.  Built at b from tid.
 */
static LLVMValueRef thread_index(Cg *c, LLVMBuilderRef b, LLVMValueRef tid, const uint32_t *col, int nbits);

/* The set bits of x lie at least d apart: x times a number below 2^d is an OR of shifted copies of x. */
static bool spaced(uint32_t x, int d)
{
	for (int k = 1; k < d; k++)
		if (x & (x << k))
			return false;
	return true;
}

static LLVMValueRef thread_index(Cg *c, LLVMBuilderRef b, LLVMValueRef tid, const uint32_t *col, int nbits)
{
	LLVMValueRef acc = NULL;
	uint32_t seen = 0;
	bool disjoint = true;
	for (int i = 0; i < nbits; i++)
		if (col[i]) {
			disjoint = disjoint && !(seen & col[i]);
			seen |= col[i];
		}
	for (int i = 0; i < nbits;) {
		if (!col[i]) {
			i++;
			continue;
		}
		int n = 1;
		bool single = !(col[i] & (col[i] - 1));
		while (i + n < nbits && col[i + n] == col[i] << n && spaced(col[i], n + 1))
			n++;
		LLVMValueRef t = tid;
		if (i > 0)
			t = LLVMBuildLShr(b, t, cg_i32c(c, i), "");
		if (i + n < nbits)
			t = LLVMBuildAnd(b, t, cg_i32c(c, (1 << n) - 1), "");
		if (!single)
			t = LLVMBuildMul(b, t, cg_i32c(c, col[i]), "");
		else if (col[i] > 1)
			t = LLVMBuildShl(b, t, cg_i32c(c, __builtin_ctz(col[i])), "");
		if (!acc)
			acc = t;
		else if (disjoint) {
			acc = LLVMBuildOr(b, acc, t, "");
			LLVMSetIsDisjoint(acc, 1);
		} else
			acc = LLVMBuildXor(b, acc, t, "");
		i += n;
	}
	return acc ? acc : cg_i32c(c, 0);
}

/* l's lane and warp columns as one list over the thread id's bits; returns the bit count. */
static int id_columns(Cg *c, const Layout *l, uint32_t col[5 + 8])
{
	/* id bits past the program's threads are zero */
	memset(col, 0, (5 + 8) * sizeof *col);
	int nbits = 5 + ilog2((uint64_t)c->f->num_warps);
	for (int i = 0; i < l->nlane && i < 5; i++)
		col[i] = l->lane[i];
	for (int i = 0; i < l->nwarp && 5 + i < nbits; i++)
		col[5 + i] = l->warp[i];
	return nbits;
}

/* Computed once per distinct set of columns, in the entry block (c->pre), so every later use is dominated by it. */
static LLVMValueRef cached_thread_index(Cg *c, const uint32_t col[5 + 8], int nbits)
{
	for (int i = 0; i < c->nti; i++)
		if (!memcmp(c->ti[i].col, col, sizeof c->ti[i].col))
			return c->ti[i].v;
	LLVMValueRef v = thread_index(c, c->pre, c->tid, col, nbits);
	if (c->nti < CG_MAX_TI) {
		memcpy(c->ti[c->nti].col, col, sizeof c->ti[c->nti].col);
		c->ti[c->nti++].v = v;
	}
	return v;
}

LLVMValueRef cg_thread_index(Cg *c, const Layout *l)
{
	uint32_t col[5 + 8];
	int nbits = id_columns(c, l, col);
	return cached_thread_index(c, col, nbits);
}

uint32_t cg_thread_bits(const Layout *l)
{
	uint32_t m = 0;
	for (int i = 0; i < l->nlane; i++)
		m |= l->lane[i];
	for (int i = 0; i < l->nwarp; i++)
		m |= l->warp[i];
	return m;
}

/*
 * Where no lane or warp column shares a bit with the register part, the XOR
 * is an add: written so, LLVM sees that a thread's elements lie at constant
 * distances (one address plus immediate offsets, not an address each).
 */
LLVMValueRef cg_flat_index(Cg *c, const Layout *l, LLVMValueRef ti, uint32_t r)
{
	uint32_t k = cg_reg_index(l, r);
	if (!k)
		return ti;
	return k & cg_thread_bits(l) ? LLVMBuildXor(c->b, ti, cg_i32c(c, k), "")
	                             : LLVMBuildNUWAdd(c->b, ti, cg_i32c(c, k), "");
}

static uint32_t folded(LLVMValueRef v)
{
	if (!LLVMIsAConstantInt(v))
		die("codegen: a byte map of a constant did not fold");
	return (uint32_t)LLVMConstIntGetZExtValue(v);
}

/*
 * f's map of l's elements: f applied to the thread index where it is cheap
 * (a multiply), or, with columns set, f's image of the lane and warp columns
 * made into a thread index of its own, here (f is linear over XOR, so both
 * are f(thread index)).  A swizzle so costs no shifts and masks of the index
 * other addresses share, which LLVM would rewrite for all of them (the
 * pipelined matmul's loop lost its strength-reduced pointers).
 */
static CgLin lin(Cg *c, const Layout *l, CgLinFn f, int a0, int a1, bool columns)
{
	CgLin m = {.f = f, .a0 = a0, .a1 = a1};
	uint32_t tb = cg_thread_bits(l);
	for (uint32_t b = tb; b; b &= b - 1)
		m.tmask |= folded(f(c, cg_i32c(c, b & -b), a0, a1));
	if (columns) {
		uint32_t col[5 + 8];
		int nbits = id_columns(c, l, col);
		for (int i = 0; i < nbits; i++)
			if (col[i])
				col[i] = folded(f(c, cg_i32c(c, col[i]), a0, a1));
		m.fti = thread_index(c, c->b, c->tid, col, nbits);
	} else
		m.fti = f(c, cg_thread_index(c, l), a0, a1);
	m.l = l;
	return m;
}

CgLin cg_lin(Cg *c, const Layout *l, CgLinFn f, int a0, int a1)
{
	return lin(c, l, f, a0, a1, false);
}

CgLin cg_lin_columns(Cg *c, const Layout *l, CgLinFn f, int a0, int a1)
{
	return lin(c, l, f, a0, a1, true);
}

LLVMValueRef cg_lin_at(Cg *c, const CgLin *m, uint32_t r, uint32_t *add)
{
	return cg_lin_at_index(c, m, cg_reg_index(m->l, r), add);
}

LLVMValueRef cg_lin_at_index(Cg *c, const CgLin *m, uint32_t k, uint32_t *add)
{
	uint32_t fk = folded(m->f(c, cg_i32c(c, k), m->a0, m->a1));
	*add = fk & ~m->tmask;
	fk &= m->tmask;
	return fk ? LLVMBuildXor(c->b, m->fti, cg_i32c(c, fk), "") : m->fti;
}

LLVMValueRef cg_is_owner(Cg *c, const Layout *l)
{
	uint32_t zl = cg_zeromask(l->lane, l->nlane), zw = cg_zeromask(l->warp, l->nwarp);
	/* bits beyond the program's warps do not exist */
	zw &= (uint32_t)c->f->num_warps - 1;
	LLVMValueRef ok = NULL;
	if (zl) {
		LLVMValueRef m = LLVMBuildAnd(c->b, c->lane, cg_i32c(c, zl), "");
		ok = LLVMBuildICmp(c->b, LLVMIntEQ, m, cg_i32c(c, 0), "");
	}
	if (zw) {
		LLVMValueRef m = LLVMBuildAnd(c->b, c->warp, cg_i32c(c, zw), "");
		LLVMValueRef w = LLVMBuildICmp(c->b, LLVMIntEQ, m, cg_i32c(c, 0), "");
		ok = ok ? LLVMBuildAnd(c->b, ok, w, "") : w;
	}
	return ok;
}

static LLVMBasicBlockRef new_bb(Cg *c, const char *name)
{
	return LLVMAppendBasicBlockInContext(c->ctx, c->fn, name);
}

LLVMBasicBlockRef cg_when(Cg *c, LLVMValueRef pred)
{
	if (!pred)
		return NULL;
	LLVMBasicBlockRef body = new_bb(c, "owner"), after = new_bb(c, "");
	LLVMBuildCondBr(c->b, pred, body, after);
	LLVMPositionBuilderAtEnd(c->b, body);
	return after;
}

LLVMBasicBlockRef cg_owner_begin(Cg *c, const Layout *l)
{
	return cg_when(c, cg_is_owner(c, l));
}

void cg_owner_end(Cg *c, LLVMBasicBlockRef after)
{
	if (!after)
		return;
	LLVMBuildBr(c->b, after);
	LLVMPositionBuilderAtEnd(c->b, after);
}

int cg_reg_vec(const Layout *l, int eb)
{
	int v = 1, k = 0;
	while (k < l->nreg && l->reg[k] == 1u << k && v * 2 * eb <= 16 && v * 2 <= l->shape[l->rank - 1]) {
		v *= 2;
		k++;
	}
	for (; v > 1; v /= 2) {
		uint32_t low = (uint32_t)v - 1, bad = 0;
		for (int i = ilog2((uint64_t)v); i < l->nreg; i++)
			bad |= l->reg[i] & low;
		for (int i = 0; i < l->nlane; i++)
			bad |= l->lane[i] & low;
		for (int i = 0; i < l->nwarp; i++)
			bad |= l->warp[i] & low;
		if (!bad)
			break;
	}
	return v;
}

void cg_fill_dups(Cg *c, ValId v)
{
	const Layout *l = cg_layout(c, v);
	if (!l)
		return;
	uint32_t zm = cg_zeromask(l->reg, l->nreg);
	LLVMValueRef *r = c->regs[v];
	for (uint32_t i = 0; i < 1u << l->nreg; i++)
		if (i & zm)
			r[i] = r[i & ~zm];
}

LLVMTypeRef cg_elem_type(Cg *c, ElemKind e)
{
	switch (e) {
	case TY_I1: return c->i1;
	case TY_I8:
	case TY_F8E4M3:
	case TY_F8E5M2: return c->i8; /* fp8: the byte; only casts and dots read it as a number */
	case TY_I16: return c->i16;
	case TY_I32: return c->i32;
	case TY_I64: return c->i64;
	case TY_F16: return LLVMHalfTypeInContext(c->ctx);
	case TY_BF16: return LLVMBFloatTypeInContext(c->ctx);
	case TY_F32: return c->f32;
	case TY_F64: return LLVMDoubleTypeInContext(c->ctx);
	case TY_PTR: return LLVMPointerTypeInContext(c->ctx, 1);
	default: die("codegen: no LLVM type for element kind %d", e);
	}
}

LLVMTypeRef cg_mem_type(Cg *c, ElemKind e)
{
	return e == TY_I1 ? c->i8 : cg_elem_type(c, e);
}

LLVMValueRef cg_to_mem(Cg *c, LLVMValueRef v, ElemKind e)
{
	return e == TY_I1 ? LLVMBuildZExt(c->b, v, c->i8, "") : v;
}

LLVMValueRef cg_from_mem(Cg *c, LLVMValueRef v, ElemKind e)
{
	return e == TY_I1 ? LLVMBuildICmp(c->b, LLVMIntNE, v, LLVMConstInt(c->i8, 0, 0), "") : v;
}

LLVMValueRef cg_i32c(Cg *c, int64_t x)
{
	return LLVMConstInt(c->i32, (unsigned long long)x, 1);
}

LLVMValueRef cg_call(Cg *c, const char *name, LLVMTypeRef ret, LLVMValueRef *args, int n)
{
	LLVMValueRef fn = LLVMGetNamedFunction(c->mod, name);
	if (!fn) {
		LLVMTypeRef at[8];
		ensure(n <= 8);
		for (int i = 0; i < n; i++)
			at[i] = LLVMTypeOf(args[i]);
		fn = LLVMAddFunction(c->mod, name, LLVMFunctionType(ret, at, (unsigned)n, 0));
	}
	return LLVMBuildCall2(c->b, LLVMGlobalGetValueType(fn), fn, args, (unsigned)n, "");
}

LLVMValueRef cg_nv(Cg *c, NvName id, LLVMTypeRef ret, LLVMValueRef *args, int n)
{
	return cg_call(c, nv_names[id], ret, args, n);
}

LLVMTypeRef cg_widened_from(LLVMValueRef x)
{
	if (!LLVMIsAInstruction(x) || LLVMGetInstructionOpcode(x) != LLVMFPExt)
		return NULL;
	return LLVMTypeOf(LLVMGetOperand(x, 0));
}

/*
 * x = fptrunc float to half (bfloat): its f32 source, else NULL.  Not
 * where the source is an add, sub or mul of two values widened from x's
 * type: LLVM narrows that op to x's type (f16 arithmetic is computed in
 * f32 and rounded, cg_elementwise.c), and two such are one add.rn.f16x2,
 * where a cvt.rn.f16x2.f32 would take the f32 op, its four widenings and
 * the cvt.
 */
static LLVMValueRef rounded_from_f32(Cg *c, LLVMValueRef x)
{
	if (!LLVMIsAInstruction(x) || LLVMGetInstructionOpcode(x) != LLVMFPTrunc)
		return NULL;
	LLVMValueRef s = LLVMGetOperand(x, 0);
	if (LLVMTypeOf(s) != c->f32)
		return NULL;
	if (LLVMIsAInstruction(s)) {
		LLVMOpcode o = LLVMGetInstructionOpcode(s);
		LLVMTypeRef t = LLVMTypeOf(x);
		if ((o == LLVMFAdd || o == LLVMFSub || o == LLVMFMul) && cg_widened_from(LLVMGetOperand(s, 0)) == t &&
		    cg_widened_from(LLVMGetOperand(s, 1)) == t)
			return NULL;
	}
	return s;
}

/*
 * Two 16-bit floats as one b32 word, lo in bits 0-15.  Where both are f32
 * values just rounded, the two roundings are one cvt.rn.f16x2.f32 (the
 * same bits as two cvt.rn.f16.f32 and the moves that pack them).
 */
LLVMValueRef cg_pack_half2(Cg *c, LLVMValueRef lo, LLVMValueRef hi)
{
	LLVMTypeRef t = LLVMTypeOf(lo);
	LLVMValueRef a[2] = {rounded_from_f32(c, hi), rounded_from_f32(c, lo)};
	if (a[0] && a[1]) {
		NvName id = LLVMGetTypeKind(t) == LLVMBFloatTypeKind ? NV_CVT_BF16X2 : NV_CVT_F16X2;
		return LLVMBuildBitCast(c->b, cg_nv(c, id, LLVMVectorType(t, 2), a, 2), c->i32, "");
	}
	LLVMValueRef w = LLVMGetUndef(LLVMVectorType(t, 2));
	w = LLVMBuildInsertElement(c->b, w, lo, cg_i32c(c, 0), "");
	w = LLVMBuildInsertElement(c->b, w, hi, cg_i32c(c, 1), "");
	return LLVMBuildBitCast(c->b, w, c->i32, "");
}

LLVMValueRef cg_asm(Cg *c, const char *text, const char *cons, LLVMTypeRef ret,
                    LLVMValueRef *args, int n, bool side_effect)
{
	LLVMTypeRef *at = n ? NEWN(c->f->arena, LLVMTypeRef, n) : NULL;
	for (int i = 0; i < n; i++)
		at[i] = LLVMTypeOf(args[i]);
	LLVMTypeRef fty = LLVMFunctionType(ret, at, (unsigned)n, 0);
	LLVMValueRef a = LLVMGetInlineAsm(fty, (char *)text, strlen(text), (char *)cons, strlen(cons),
	                                  side_effect, 0, LLVMInlineAsmDialectATT, 0);
	return LLVMBuildCall2(c->b, fty, a, args, (unsigned)n, "");
}

void cg_barrier(Cg *c)
{
	cg_nv(c, NV_BARRIER0, LLVMVoidTypeInContext(c->ctx), NULL, 0);
	c->since_bar = (CgSpans){0};
}

void cg_smem_access(Cg *c, int32_t off, int32_t size, bool write)
{
	CgSpans *s = &c->since_bar;
	bool conflict = s->all;
	for (int i = 0; i < s->n && !conflict; i++)
		conflict = (write || s->s[i].write) && s->s[i].lo < off + size && off < s->s[i].hi;
	if (conflict)
		cg_barrier(c);
	if (s->n == CG_MAX_SPANS)
		s->all = true;
	else
		s->s[s->n++] = (CgSpan){off, off + size, write};
}

/* Ops whose shared-memory accesses cg_smem_access does not see: they place
 * their own barriers.  (A ring's allocation is seen; its copies are not.) */
static bool untracked_smem(Opcode code)
{
	switch (code) {
	case OP_DOT:
	case OP_ASYNC_COPY:
	case OP_ASYNC_COMMIT:
	case OP_ASYNC_WAIT:
	case OP_LOCAL_LOAD:
	case OP_DOT_WAIT: return true;
	default: return false;
	}
}

static bool block_uses_smem(Block *bl)
{
	for (Op *op = bl ? bl->first : NULL; op; op = op->next) {
		if (op->smem_bytes > 0 || untracked_smem(op->code))
			return true;
		for (int i = 0; i < op->nblocks; i++)
			if (block_uses_smem(op->blocks[i]))
				return true;
	}
	return false;
}

/* Where two paths meet: what either touched since its last barrier. */
static void join_spans(CgSpans *a, const CgSpans *b)
{
	a->all |= b->all;
	for (int i = 0; i < b->n && !a->all; i++) {
		if (a->n == CG_MAX_SPANS)
			a->all = true;
		else
			a->s[a->n++] = b->s[i];
	}
}

/*
 * smem + byte_index, then + offset as a GEP of its own, not an add of the
 * two: instcombine would prove the add's operands have no common bits
 * (known-bits queries up the thread-index arithmetic) and rewrite it as an
 * or, a fifth of its work on the matmul; the constant GEP stays for ptxas
 * to fold into the access ([reg+imm]).  (Adding a ring slot's dynamic base
 * the same way made the matmul's SASS larger.)
 */
LLVMValueRef cg_smem_ptr(Cg *c, int32_t offset, LLVMValueRef byte_index)
{
	if (!c->smem || offset < 0)
		die("codegen: an op needs shared memory but the planner gave it none");
	LLVMValueRef p = LLVMBuildGEP2(c->b, c->i8, c->smem, &byte_index, 1, "");
	if (!offset)
		return p;
	LLVMValueRef off = cg_i32c(c, offset);
	return LLVMBuildGEP2(c->b, c->i8, p, &off, 1, "");
}

/* ---- the walk ---- */

static void emit_block(Cg *c, Block *bl);

static bool same_layout(Cg *c, ValId a, ValId b)
{
	const Layout *la = cg_layout(c, a), *lb = cg_layout(c, b);
	if (!la || !lb)
		return la == lb;
	return la == lb || layout_eq(la, lb);
}

/* One phi per canonical register of v, in the current block. */
static LLVMValueRef *phis_for(Cg *c, ValId v)
{
	LLVMValueRef *r = cg_new_regs(c, v);
	const Layout *l = cg_layout(c, v);
	uint32_t zm = l ? cg_zeromask(l->reg, l->nreg) : 0;
	LLVMTypeRef t = cg_elem_type(c, vtype(c->f, v).elem);
	for (int i = 0; i < cg_nregs(c, v); i++)
		if (!(i & zm))
			r[i] = LLVMBuildPhi(c->b, t, "");
	cg_fill_dups(c, v);
	return r;
}

/*
 * A loop-carried mma operand that enters the loop as ldmatrix's words
 * (the prefetch pass's operands) is carried as those words: one i32 phi per
 * word, not one per 16-bit element that the mma would pack again.  The
 * value from the latch is packed there if it has no words of its own.
 */
static void word_phis(Cg *c, ValId v)
{
	int n = cg_nregs(c, v) / 2;
	c->words[v] = NEWN(c->f->arena, LLVMValueRef, n);
	for (int p = 0; p < n; p++)
		c->words[v][p] = LLVMBuildPhi(c->b, c->i32, "");
}

static Op *yield_of(Block *bl)
{
	Op *y = bl->last;
	if (!y || y->code != OP_YIELD)
		die("codegen: a region block does not end in yield");
	return y;
}

static bool halves(Cg *c, ValId v)
{
	const Layout *l = cg_layout(c, v);
	return l && elem_bits(vtype(c->f, v).elem) == 16 && cg_nregs(c, v) >= 2 && !cg_zeromask(l->reg, l->nreg);
}

/*
 * Whether phi_v meets its incoming values in word phis.  A tile of 16-bit
 * elements does, two elements to a word: ptxas gives each 16-bit phi a
 * 32-bit register of its own, so layernorm_backward_locked's f16 shares,
 * merged by an if after the lock's loop, took 173 registers as halves and
 * take 128 as words (two programs per SM instead of one).  An incoming
 * value that is words already (ldmatrix's, in emit_for) stays words.
 */
static bool phi_in_words(Cg *c, ValId phi_v, ValId in_v)
{
	return c->words[in_v] || halves(c, phi_v);
}

/* v's phis in the current block: word phis, or one per register */
static void phis_as(Cg *c, ValId v, bool words)
{
	if (words)
		word_phis(c, v);
	else
		phis_for(c, v);
}

/* After a block's phis: the registers of those that are words. */
static void unpack_phis(Cg *c, const ValId *vs, int n)
{
	for (int i = 0; i < n; i++)
		if (c->words[vs[i]])
			cg_unpack_words(c, vs[i]);
}

/*
 * The values that reach a word phi get their words where they are made
 * (emit_block), not at the end of the phi's predecessor: an if after a
 * loop would otherwise let the back end sink the f32 math and the rounding
 * below the loop, with both operands live across it.
 */
static void mark_word_inputs(Func *f, Op *op, void *ctx)
{
	(void)f;
	Cg *c = ctx;
	Block *body = op->nblocks ? op->blocks[0] : NULL;
	switch (op->code) {
	case OP_IF:
		for (int i = 0; i < op->nres; i++)
			if (halves(c, op->res[i]))
				for (int k = 0; k < op->nblocks && k < 2; k++)
					c->to_words[yield_of(op->blocks[k])->opnds[i]] = true;
		break;
	case OP_FOR:
		for (int i = 1; i < body->nargs; i++)
			if (halves(c, body->args[i]))
				c->to_words[op->opnds[2 + i]] = c->to_words[yield_of(body)->opnds[i - 1]] = true;
		break;
	case OP_DO_WHILE:
		for (int i = 0; i < body->nargs; i++)
			if (halves(c, body->args[i]))
				c->to_words[op->opnds[i]] = c->to_words[yield_of(body)->opnds[i]] = true;
		break;
	default:
		break;
	}
}

static void add_incoming(Cg *c, ValId phi_v, ValId in_v, LLVMBasicBlockRef from)
{
	if (!same_layout(c, phi_v, in_v))
		die("codegen: %%%d and %%%d meet in a phi with different layouts", phi_v, in_v);
	if (c->words[phi_v]) {
		/* words packed here are packed at the end of `from` */
		LLVMBasicBlockRef at = LLVMGetInsertBlock(c->b);
		LLVMValueRef term = LLVMGetBasicBlockTerminator(from);
		if (term)
			LLVMPositionBuilderBefore(c->b, term);
		else
			LLVMPositionBuilderAtEnd(c->b, from);
		for (int p = 0; p < cg_nregs(c, phi_v) / 2; p++) {
			LLVMValueRef w = cg_word(c, in_v, (uint32_t)p);
			LLVMAddIncoming(c->words[phi_v][p], &w, &from, 1);
		}
		LLVMPositionBuilderAtEnd(c->b, at);
		return;
	}
	const Layout *l = cg_layout(c, phi_v);
	uint32_t zm = l ? cg_zeromask(l->reg, l->nreg) : 0;
	for (int i = 0; i < cg_nregs(c, phi_v); i++)
		if (!(i & zm))
			LLVMAddIncoming(c->regs[phi_v][i], &c->regs[in_v][i], &from, 1);
}

/*
 *   pre -> header: iv = phi(lo, iv + step), iters = phi(inits, yields)
 *          if (iv < hi) body else exit
 * A range counts up: its step is positive (docs/language.md; the
 * interpreter reports a step <= 0 as an error).
 */
static void emit_for(Cg *c, Op *op)
{
	Block *body = op->blocks[0];
	LLVMValueRef lo = c->regs[op->opnds[0]][0], hi = c->regs[op->opnds[1]][0];
	LLVMValueRef step = c->regs[op->opnds[2]][0];
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(c->b);
	LLVMBasicBlockRef header = new_bb(c, "for.header"), bbody = new_bb(c, "for.body");
	LLVMBasicBlockRef exit = new_bb(c, "for.exit");
	LLVMBuildBr(c->b, header);
	LLVMPositionBuilderAtEnd(c->b, header);
	LLVMValueRef *iv = phis_for(c, body->args[0]);
	LLVMAddIncoming(iv[0], &lo, &pre, 1);
	for (int i = 1; i < body->nargs; i++) {
		phis_as(c, body->args[i], phi_in_words(c, body->args[i], op->opnds[2 + i]));
		add_incoming(c, body->args[i], op->opnds[2 + i], pre);
	}
	unpack_phis(c, body->args + 1, body->nargs - 1);
	LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntSLT, iv[0], hi, ""), bbody, exit);

	/*
	 * The header is reached from the body's end too: in the body, anything
	 * may conflict; the exit sees what the loop's entry or the body's end
	 * had touched since their last barriers.
	 */
	bool smem = block_uses_smem(body);
	CgSpans entry = c->since_bar;
	if (smem)
		c->since_bar.all = true;
	LLVMPositionBuilderAtEnd(c->b, bbody);
	emit_block(c, body);
	Op *y = yield_of(body);
	LLVMValueRef next = LLVMBuildAdd(c->b, iv[0], step, "");
	LLVMBasicBlockRef latch = LLVMGetInsertBlock(c->b);
	LLVMAddIncoming(iv[0], &next, &latch, 1);
	for (int i = 1; i < body->nargs; i++)
		add_incoming(c, body->args[i], y->opnds[i - 1], latch);
	LLVMBuildBr(c->b, header);

	LLVMPositionBuilderAtEnd(c->b, exit);
	if (smem) {
		CgSpans end = c->since_bar;
		c->since_bar = entry;
		join_spans(&c->since_bar, &end);
	}
	for (int i = 0; i < op->nres; i++) {
		if (!same_layout(c, op->res[i], body->args[i + 1]))
			die("codegen: for result %%%d changes layout", op->res[i]);
		c->regs[op->res[i]] = c->regs[body->args[i + 1]];
		c->words[op->res[i]] = c->words[body->args[i + 1]];
	}
}

/*
 *   pre -> body: iters = phi(inits, yields)
 *          ... ; if (go) body else exit
 * The results are the last iteration's yields (the exit's one predecessor
 * is the body's end).  The condition is a scalar: every thread of the
 * program takes the same branch.
 */
static void emit_do_while(Cg *c, Op *op)
{
	Block *body = op->blocks[0];
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(c->b);
	LLVMBasicBlockRef bbody = new_bb(c, "while.body"), exit = new_bb(c, "while.exit");
	LLVMBuildBr(c->b, bbody);
	LLVMPositionBuilderAtEnd(c->b, bbody);
	for (int i = 0; i < body->nargs; i++) {
		phis_as(c, body->args[i], phi_in_words(c, body->args[i], op->opnds[i]));
		add_incoming(c, body->args[i], op->opnds[i], pre);
	}
	unpack_phis(c, body->args, body->nargs);
	/* the body is entered from its own end too; the exit only from there */
	if (block_uses_smem(body))
		c->since_bar.all = true;
	emit_block(c, body);
	Op *y = yield_of(body);
	LLVMBasicBlockRef latch = LLVMGetInsertBlock(c->b);
	for (int i = 0; i < body->nargs; i++)
		add_incoming(c, body->args[i], y->opnds[i], latch);
	LLVMValueRef go = c->regs[y->opnds[body->nargs]][0];
	LLVMBuildCondBr(c->b, go, bbody, exit);
	LLVMPositionBuilderAtEnd(c->b, exit);
	for (int i = 0; i < op->nres; i++) {
		if (!same_layout(c, op->res[i], y->opnds[i]))
			die("codegen: do_while result %%%d changes layout", op->res[i]);
		c->regs[op->res[i]] = c->regs[y->opnds[i]];
		c->words[op->res[i]] = c->words[y->opnds[i]];
	}
}

static void emit_if(Cg *c, Op *op)
{
	LLVMValueRef cond = c->regs[op->opnds[0]][0];
	if (LLVMGetIntTypeWidth(LLVMTypeOf(cond)) != 1)
		cond = LLVMBuildICmp(c->b, LLVMIntNE, cond, LLVMConstNull(LLVMTypeOf(cond)), "");
	LLVMBasicBlockRef bthen = new_bb(c, "if.then"), belse = new_bb(c, "if.else");
	LLVMBasicBlockRef merge = new_bb(c, "if.end");
	LLVMBuildCondBr(c->b, cond, bthen, belse);
	LLVMBasicBlockRef ends[2];
	Op *ys[2] = {NULL, NULL};
	LLVMBasicBlockRef starts[2] = {bthen, belse};
	CgSpans before = c->since_bar, after[2];
	for (int k = 0; k < 2; k++) {
		c->since_bar = before;
		LLVMPositionBuilderAtEnd(c->b, starts[k]);
		if (k < op->nblocks && op->blocks[k]) {
			emit_block(c, op->blocks[k]);
			if (op->nres)
				ys[k] = yield_of(op->blocks[k]);
		}
		ends[k] = LLVMGetInsertBlock(c->b);
		LLVMBuildBr(c->b, merge);
		after[k] = c->since_bar;
	}
	c->since_bar = after[0];
	join_spans(&c->since_bar, &after[1]);
	LLVMPositionBuilderAtEnd(c->b, merge);
	for (int i = 0; i < op->nres; i++) {
		if (!ys[0] || !ys[1])
			die("codegen: if with results lacks a branch");
		phis_as(c, op->res[i], phi_in_words(c, op->res[i], ys[0]->opnds[i]) ||
		                       phi_in_words(c, op->res[i], ys[1]->opnds[i]));
		add_incoming(c, op->res[i], ys[0]->opnds[i], ends[0]);
		add_incoming(c, op->res[i], ys[1]->opnds[i], ends[1]);
	}
	unpack_phis(c, op->res, op->nres);
}

/*
 * An op's line and column.  One from an fn's body keeps the fn's line
 * (LLVM 19's NVPTX back end writes no `inlined_at` into .loc; errors name
 * the calls, Loc.in).
 */
static void set_loc(Cg *c, Loc loc)
{
	if (!c->dib || loc.line <= 0)
		return;
	LLVMMetadataRef dl = LLVMDIBuilderCreateDebugLocation(c->ctx, (unsigned)loc.line,
	                                                      (unsigned)(loc.col > 0 ? loc.col : 0), c->scope, NULL);
	LLVMSetCurrentDebugLocation2(c->b, dl);
}

static void emit_op(Cg *c, Op *op)
{
	set_loc(c, op->loc);
	if (op_has(op->code, F_ELTWISE)) {
		cg_elementwise(c, op);
		return;
	}
	if (op_has(op->code, F_REDUCE)) {
		cg_reduce(c, op);
		return;
	}
	switch (op->code) {
	case OP_REDUCE: cg_reduce(c, op); break;
	case OP_CUMSUM:
	case OP_SCAN: cg_scan(c, op); break;
	case OP_CONST: cg_const(c, op); break;
	case OP_SPLAT: cg_splat(c, op); break;
	case OP_ARANGE: cg_arange(c, op); break;
	case OP_PROGRAM_ID:
	case OP_NUM_PROGRAMS: cg_program_info(c, op); break;
	case OP_EXPAND_DIMS:
	case OP_BROADCAST:
	case OP_TRANS:
	case OP_RESHAPE:
	case OP_PERMUTE: cg_rename(c, op); break;
	case OP_JOIN: cg_join(c, op); break;
	case OP_SPLIT: cg_split(c, op); break;
	case OP_XORPERM: cg_xorperm(c, op); break;
	case OP_GATHER: cg_gather(c, op); break;
	case OP_PRINT: cg_print(c, op); break;
	case OP_ASSERT: cg_assert(c, op); break;
	case OP_HISTOGRAM: cg_histogram(c, op); break;
	case OP_LOAD: cg_load(c, op); break;
	case OP_STORE: cg_store(c, op); break;
	case OP_ATOMIC:
	case OP_ATOMIC_CAS: cg_atomic(c, op); break;
	case OP_DOT: cg_dot(c, op); break;
	case OP_CONVERT_LAYOUT: cg_convert_layout(c, op); break;
	case OP_FOR: emit_for(c, op); break;
	case OP_IF: emit_if(c, op); break;
	case OP_DO_WHILE: emit_do_while(c, op); break;
	case OP_YIELD: break; /* read by the owning for/if */
	case OP_ASYNC_RING:
	case OP_ASYNC_COPY:
	case OP_ASYNC_COMMIT:
	case OP_ASYNC_WAIT:
	case OP_LOCAL_LOAD: cg_async(c, op); break;
	case OP_DOT_WAIT: cg_wgmma_wait(c, op); break;
	default: die("codegen: no lowering for op '%s'", op_info[op->code].text);
	}
	if (untracked_smem(op->code))
		c->since_bar.all = true;
}

/*
 * The region of a reduce or scan on scalars: out = a combine b, k values
 * each.  It is emitted afresh wherever two partials meet, so the values
 * made by its last emission are forgotten first (sin_and_cos reads a
 * partner's registers as already made).
 */
void cg_combine(Cg *c, Op *op, const LLVMValueRef *a, const LLVMValueRef *b, LLVMValueRef *out)
{
	Block *body = op->blocks[0];
	int k = op->nopnds;
	for (int i = 0; i < 2 * k; i++)
		cg_new_regs(c, body->args[i])[0] = i < k ? a[i] : b[i - k];
	for (Op *q = body->first; q; q = q->next)
		for (int i = 0; i < q->nres; i++)
			c->regs[q->res[i]] = NULL;
	Op *y = body->last; /* the verifier's: the region ends in its yield */
	for (Op *q = body->first; q != y; q = q->next)
		emit_op(c, q);
	if (!y || y->code != OP_YIELD || y->nopnds != k)
		die("codegen: %s region does not yield %d values", op_info[op->code].text, k);
	for (int i = 0; i < k; i++)
		out[i] = c->regs[y->opnds[i]][0];
	set_loc(c, op->loc);
}

static void emit_block(Cg *c, Block *bl)
{
	for (Op *op = bl->first; op; op = op->next) {
		emit_op(c, op);
		for (int i = 0; i < op->nres; i++) {
			ValId r = op->res[i];
			if (!c->to_words[r] || c->words[r] || !c->regs[r])
				continue;
			LLVMValueRef *w = NEWN(c->f->arena, LLVMValueRef, cg_nregs(c, r) / 2);
			for (int p = 0; p < cg_nregs(c, r) / 2; p++)
				w[p] = cg_word(c, r, (uint32_t)p);
			c->words[r] = w;
			cg_unpack_words(c, r);
		}
	}
}

/* ---- module, kernel, debug info ---- */

static int first_line(Block *bl)
{
	for (Op *op = bl->first; op; op = op->next)
		if (op->loc.line > 0)
			return op->loc.line;
	return 1;
}

/*
 * DICompileUnit::DebugDirectivesOnly (3), missing from the C API's enum:
 * .loc/.file lines without DWARF sections or `.target ..., debug`, which is
 * what `nvcc -lineinfo` emits and ptxas optimises normally.
 */
#define LINE_DIRECTIVES_ONLY ((LLVMDWARFEmissionKind)3)

static void setup_debug(Cg *c, const char *file_name)
{
	const char *base = strrchr(file_name, '/');
	const char *dir = ".";
	size_t dirlen = 1;
	if (base) {
		dir = file_name;
		dirlen = (size_t)(base - file_name);
		base++;
	} else {
		base = file_name;
	}
	c->dib = LLVMCreateDIBuilder(c->mod);
	LLVMMetadataRef file = LLVMDIBuilderCreateFile(c->dib, base, strlen(base), dir, dirlen);
	LLVMDIBuilderCreateCompileUnit(c->dib, LLVMDWARFSourceLanguageC, file, "tilec", 5, 1, "", 0, 0, "", 0,
	                               LINE_DIRECTIVES_ONLY, 0, 0, 0, "", 0, "", 0);
	LLVMMetadataRef sty = LLVMDIBuilderCreateSubroutineType(c->dib, file, NULL, 0, LLVMDIFlagZero);
	unsigned line = (unsigned)first_line(c->f->entry);
	const char *name = c->f->name;
	c->scope = LLVMDIBuilderCreateFunction(c->dib, file, name, strlen(name), name, strlen(name), file, line,
	                                       sty, 0, 1, line, LLVMDIFlagZero, 1);
	LLVMSetSubprogram(c->fn, c->scope);
	LLVMAddModuleFlag(c->mod, LLVMModuleFlagBehaviorWarning, "Debug Info Version", 18,
	                  LLVMValueAsMetadata(LLVMConstInt(c->i32, 3, 0)));
}

static void annotate(Cg *c, const char *key, int v)
{
	LLVMValueRef md[3] = {c->fn, LLVMMDStringInContext(c->ctx, key, (unsigned)strlen(key)), cg_i32c(c, v)};
	LLVMAddNamedMetadataOperand(c->mod, "nvvm.annotations", LLVMMDNodeInContext(c->ctx, md, 3));
}

static void find_wgmma_ring(Func *f, Op *op, void *found)
{
	(void)f;
	if (op->code == OP_ASYNC_RING && op->iattr[0] == RING_WGMMA)
		*(bool *)found = true;
}

static void build_kernel(Cg *c, bool lineinfo, const char *file_name)
{
	Func *f = c->f;
	Block *e = f->entry;
	c->file = file_name ? file_name : "kernel.tile";
	LLVMTypeRef *pt = NEWN(f->arena, LLVMTypeRef, e->nargs + 1);
	for (int i = 0; i < e->nargs; i++)
		pt[i] = cg_elem_type(c, vtype(f, e->args[i]).elem);
	LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(c->ctx), pt, (unsigned)e->nargs, 0);
	c->fn = LLVMAddFunction(c->mod, f->name, fty);
	LLVMSetFunctionCallConv(c->fn, 71); /* PTX_Kernel */
	annotate(c, "reqntidx", 32 * f->num_warps); /* launches always use exactly this many threads */
	if (lineinfo)
		setup_debug(c, file_name ? file_name : "kernel.tile");
	ir_walk(f, find_wgmma_ring, &c->wgmma);
	if (f->smem_total > 0) {
		LLVMTypeRef at = LLVMArrayType2(c->i8, 0);
		c->smem = LLVMAddGlobalInAddressSpace(c->mod, at, "global_smem", 3);
		LLVMSetLinkage(c->smem, LLVMExternalLinkage);
		LLVMSetAlignment(c->smem, c->wgmma ? 1024 : 16); /* wgmma's swizzle atoms */
	}
	/* entry: the thread's id and the indices derived from it (c->pre), then the body */
	LLVMBasicBlockRef entry = new_bb(c, "entry"), start = new_bb(c, "start");
	LLVMPositionBuilderAtEnd(c->b, entry);
	set_loc(c, (Loc){.line = first_line(e), .col = 1});
	c->tid = cg_nv(c, NV_TID_X, c->i32, NULL, 0);
	c->lane = LLVMBuildAnd(c->b, c->tid, cg_i32c(c, 31), "lane");
	c->warp = LLVMBuildLShr(c->b, c->tid, cg_i32c(c, 5), "warp");
	LLVMPositionBuilderBefore(c->pre, LLVMBuildBr(c->b, start));
	LLVMPositionBuilderAtEnd(c->b, start);
	for (int i = 0; i < e->nargs; i++) {
		LLVMValueRef *r = cg_new_regs(c, e->args[i]);
		r[0] = LLVMGetParam(c->fn, (unsigned)i);
		if (f->param_names && i < f->nparams)
			LLVMSetValueName2(r[0], f->param_names[i], strlen(f->param_names[i]));
	}
	emit_block(c, e);
	LLVMBuildRetVoid(c->b);
	if (c->dib)
		LLVMDIBuilderFinalize(c->dib);
}

/* ---- optimisation and output ---- */

/*
 * TargetMachines are reused: making one costs about 0.4 ms, a tenth of a
 * small kernel's codegen, and the JIT compiles many variants.  Idle machines
 * wait in a small pool under a lock rather than in a thread-local cache, so
 * two compiles never share one and a thread that exits leaves nothing
 * unreachable behind.  A machine keeps no state between modules: the PTX is
 * byte-for-byte that of a fresh one.
 */
#define TM_POOL 16

static struct {
	const Target *t;
	int ptx;
	LLVMTargetMachineRef tm;
} tm_pool[TM_POOL];

static LLVMTargetMachineRef new_target_machine(const Target *t, int ptx)
{
	LLVMTargetRef tgt;
	char *err = NULL;
	if (LLVMGetTargetFromTriple(triple, &tgt, &err))
		die("codegen: no NVPTX target in this LLVM: %s", err);
	char features[32];
	snprintf(features, sizeof features, "+ptx%d", ptx);
	return LLVMCreateTargetMachine(tgt, triple, t->name, features,
	                               llvm_reference ? LLVMCodeGenLevelAggressive : LLVMCodeGenLevelLess,
	                               LLVMRelocDefault, LLVMCodeModelDefault);
}

static LLVMTargetMachineRef take_target_machine(const Target *t, int ptx)
{
	LLVMTargetMachineRef tm = NULL;
	mtx_lock(&tm_lock);
	for (int i = 0; i < TM_POOL && !tm; i++)
		if (tm_pool[i].tm && tm_pool[i].t == t && tm_pool[i].ptx == ptx) {
			tm = tm_pool[i].tm;
			tm_pool[i].tm = NULL;
		}
	mtx_unlock(&tm_lock);
	return tm ? tm : new_target_machine(t, ptx);
}

static void give_target_machine(const Target *t, int ptx, LLVMTargetMachineRef tm)
{
	mtx_lock(&tm_lock);
	for (int i = 0; i < TM_POOL && tm; i++)
		if (!tm_pool[i].tm) {
			tm_pool[i].t = t;
			tm_pool[i].ptx = ptx;
			tm_pool[i].tm = tm;
			tm = NULL;
		}
	mtx_unlock(&tm_lock);
	if (tm)
		LLVMDisposeTargetMachine(tm);
}

static void verify(Cg *c, const char *when)
{
	char *msg = NULL;
	if (LLVMVerifyModule(c->mod, LLVMReturnStatusAction, &msg)) {
		char *ir = LLVMPrintModuleToString(c->mod);
		fprintf(stderr, "%s\n", ir);
		die("codegen: LLVM module invalid %s: %s", when, msg);
	}
	LLVMDisposeMessage(msg);
}

/*
 * Work for the SLP vectoriser: an element-wise op other than a cast on f16
 * or bf16 values, or an f16/bf16 tile loaded one element at a time (no
 * proof of two contiguous, 4-byte aligned elements), whose halves the
 * vectoriser and vector-combine pack into 32-bit words with fewer moves;
 * so too the bytes of an fp8 tile loaded so (four to a word for mma.sync:
 * without it, tests/codegen/fp8.tile's dot5 assembles 896 bytes larger).
 */
static void find_half_math(Func *f, Op *op, void *found)
{
	if (op->code == OP_LOAD && vtype(f, op->res[0]).rank > 0) {
		ElemKind e = vtype(f, op->res[0]).elem;
		Value *p = val(f, op->opnds[0]);
		if ((e == TY_F16 || e == TY_BF16) && (p->contig < 2 || p->divis % 4 != 0))
			*(bool *)found = true;
		if (elem_is_f8(e) && (p->contig < 4 || p->divis % 4 != 0))
			*(bool *)found = true;
		return;
	}
	if (!op_has(op->code, F_ELTWISE) || op->code == OP_CAST)
		return;
	for (int i = 0; i < op->nopnds + op->nres; i++) {
		ElemKind e = vtype(f, i < op->nopnds ? op->opnds[i] : op->res[i - op->nopnds]).elem;
		if (e == TY_F16 || e == TY_BF16)
			*(bool *)found = true;
	}
}

static void optimise(Cg *c, LLVMTargetMachineRef tm)
{
	LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
	bool half_math = false;
	ir_walk(c->f, find_half_math, &half_math);
	const char *own = half_math ? llvm_passes : llvm_passes_no_slp;
	const char *passes = llvm_reference ? "default<O3>" : llvm_passes_env ? llvm_passes_env : own;
	LLVMErrorRef err = LLVMRunPasses(c->mod, passes, tm, po);
	if (err && passes == llvm_passes_env) {
		/* a pipeline given for trying: say why it failed, then use tilec's own */
		char *m = LLVMGetErrorMessage(err);
		fprintf(stderr, "tilec: TILEC_LLVM_PASSES ignored: %s\n", m);
		LLVMDisposeErrorMessage(m);
		err = LLVMRunPasses(c->mod, own, tm, po);
	}
	LLVMDisposePassBuilderOptions(po);
	if (err) {
		char *m = LLVMGetErrorMessage(err);
		die("codegen: LLVM passes failed: %s", m);
	}
}

static void emit_text(Cg *c, LLVMTargetMachineRef tm, EmitKind emit, StrBuf *out)
{
	if (emit == EMIT_LLVM) {
		char *s = LLVMPrintModuleToString(c->mod);
		sb_puts(out, s);
		LLVMDisposeMessage(s);
		return;
	}
	char *err = NULL;
	LLVMMemoryBufferRef buf;
	if (LLVMTargetMachineEmitToMemoryBuffer(tm, c->mod, LLVMAssemblyFile, &err, &buf))
		die("codegen: PTX emission failed: %s", err);
	sb_putn(out, LLVMGetBufferStart(buf), LLVMGetBufferSize(buf));
	LLVMDisposeMemoryBuffer(buf);
}

/* TILEC_TIME_LLVM=1: where codegen's time goes, one line on stderr. */
static void print_times(const double *t)
{
	fprintf(stderr, "tilec: llvm tm %.3f build %.3f verify %.3f opt %.3f emit %.3f ms\n",
	        (t[1] - t[0]) * 1e3, (t[2] - t[1]) * 1e3, (t[3] - t[2]) * 1e3, (t[4] - t[3]) * 1e3,
	        (t[5] - t[4]) * 1e3);
}

static void generate(Cg *c, EmitKind emit, bool lineinfo, const char *file_name, StrBuf *out)
{
	double t[6];
	t[0] = now_seconds();
	LLVMTargetMachineRef tm = take_target_machine(c->t, c->ptx);
	LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
	LLVMSetTarget(c->mod, triple);
	LLVMSetModuleDataLayout(c->mod, td);
	LLVMDisposeTargetData(td);
	t[1] = now_seconds();
	build_kernel(c, lineinfo, file_name);
	t[2] = now_seconds();
	verify(c, "after codegen");
	t[3] = now_seconds();
	optimise(c, tm);
	t[4] = now_seconds();
	emit_text(c, tm, emit, out);
	t[5] = now_seconds();
	/* after an LLVM fatal error this is not reached and tm is leaked with the rest */
	give_target_machine(c->t, c->ptx, tm);
	if (getenv("TILEC_TIME_LLVM"))
		print_times(t);
}

static void init_cg(Cg *c, Func *f, const Target *t)
{
	c->f = f;
	c->t = t;
	c->ptx = t->ptx;
	c->ctx = LLVMContextCreate();
	c->mod = LLVMModuleCreateWithNameInContext(f->name, c->ctx);
	c->b = LLVMCreateBuilderInContext(c->ctx);
	c->pre = LLVMCreateBuilderInContext(c->ctx);
	c->regs = NEWN(f->arena, LLVMValueRef *, f->nvals + 1);
	c->pending = NEWN(f->arena, Op *, f->nvals + 1);
	c->words = NEWN(f->arena, LLVMValueRef *, f->nvals + 1);
	c->to_words = NEWN(f->arena, bool, f->nvals + 1);
	c->i1 = LLVMInt1TypeInContext(c->ctx);
	c->i8 = LLVMInt8TypeInContext(c->ctx);
	c->i16 = LLVMInt16TypeInContext(c->ctx);
	c->i32 = LLVMInt32TypeInContext(c->ctx);
	c->i64 = LLVMInt64TypeInContext(c->ctx);
	c->f32 = LLVMFloatTypeInContext(c->ctx);
}

/* An .ir file planned for wgmma (passes/pipeline.c) compiled for an arch without it. */
static void check_no_wgmma(Func *f, Op *op, void *ctx)
{
	(void)f;
	bool wg = (op->code == OP_ASYNC_RING && op->iattr[0] == RING_WGMMA) ||
	          (op->code == OP_LOCAL_LOAD && (op->iattr[1] & LL_WGMMA)) || op->code == OP_DOT_WAIT ||
	          (op->code == OP_DOT && op->iattr[1]);
	if (wg)
		error_at(ctx, op->loc, "%s is planned for wgmma, which this --arch does not have; compile for sm_90a",
		         op_info[op->code].text);
}

int cg_emit(Func *f, const char *arch, EmitKind emit, bool lineinfo, const char *file_name,
            StrBuf *out, Diag *d)
{
	const Target *t = cg_target(arch);
	if (!t)
		error_plain(d, "unknown --arch '%s'; supported: %s", arch, cg_target_list());
	call_once(&init_once, init_llvm);
	ir_fill_uses(f);
	if (!t->wgmma)
		ir_walk(f, check_no_wgmma, d);
	Cg *c = NEW(f->arena, Cg);
	init_cg(c, f, t);
	if (ir_first_fp8(f, NULL) && c->ptx < FP8_PTX)
		c->ptx = FP8_PTX;
	ir_walk(f, mark_word_inputs, c);
	jmp_buf jb;
	fatal_jmp = &jb;
	if (setjmp(jb)) {
		/* LLVM's state after a fatal error is unknown: leak it rather than crash freeing it */
		fatal_jmp = NULL;
		error_plain(d, "LLVM failed on kernel '%s': %s", f->name, fatal_msg);
	}
	generate(c, emit, lineinfo, file_name, out);
	fatal_jmp = NULL;
	if (c->dib)
		LLVMDisposeDIBuilder(c->dib);
	LLVMDisposeBuilder(c->b);
	LLVMDisposeBuilder(c->pre);
	LLVMDisposeModule(c->mod);
	LLVMContextDispose(c->ctx);
	return 0;
}
