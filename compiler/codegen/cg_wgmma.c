/*
 * cg_wgmma.c: dot on Hopper's warpgroup tensor cores, wgmma.mma_async
 * (sm_90a), with both operands read by the tensor cores straight from
 * their ring slots: passes/pipeline.c marks such local_loads LL_WGMMA (they
 * stand for the slot's shared address, one i32 register) and their rings
 * RING_WGMMA.
 *
 * A RING_WGMMA slot holds an [R, C] tile of 16-bit elements (f16/bf16) or
 * 8-bit ones (int8, fp8) in wgmma's canonical swizzled layout: rows of C
 * elements are cut into panels of W = min(C * element bytes, 128) bytes a
 * row, panel p at byte p * R * W, and inside a panel row r keeps 16-byte
 * chunk j at chunk j ^ phase(r), cg_mma.c's swizzle, which for W = 128 /
 * 64 / 32 bytes is wgmma's 128B / 64B / 32B swizzle (address bits 4.. XOR
 * bits 7..).  An 8-bit tile is laid out as the 16-bit tile of its byte
 * pairs.  Slots are 1024-byte aligned (passes/smem.c), the period of those
 * patterns.
 *
 * A shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format")
 * is a 64-bit word: start address >> 4 in bits 0-13, the leading byte
 * offset >> 4 in 16-29, the stride byte offset >> 4 in 32-45, the swizzle
 * mode in 62-63 (1: 128B, 2: 64B, 3: 32B).  Here:
 *
 *     K-major (A; B stored [N, K]):  SBO = 8W, from 8 rows of M (N) to the
 *         next; LBO unused under a swizzle; k step s (k16 of 16-bit
 *         elements, k32 of int8: 32 bytes either way) starts at panel
 *         32s / W, byte 32s mod W of the row.
 *     MN-major (B stored [K, N], trans-b): 64-column panels, LBO = R * 128,
 *         from one panel to the next along N, SBO = 1024, from 8 rows of K
 *         to the next; step s starts at row 16s.
 *
 * The accumulator is layout_mma_acc_rows with every warp along M: warp w
 * holds rows 16w .. 16w+15 (warpgroup g = w / 4 rows 64g ..) and the m16n8
 * fragment repeated along N, which is the register order of wgmma's
 * m64nNk16 (f32) and m64nNk32 (s32) results (d[4i .. 4i+3] = n8 tile i).  Blocks of 16 * num_warps
 * rows repeat in registers; N (at most 256, layout_wgmma_ok) is one
 * instruction wide.
 *
 * One dot is: wgmma.fence; for each block, one asm of a wgmma per k
 * step with the accumulator registers in and out; commit_group; then
 * wait_group 0, which also passes the registers through, so that nothing
 * reads them before it.
 * An asynchronous dot (`dot ... async`, passes/pipeline.c) ends with
 * wait_group 1 instead, leaving itself in flight while the loop goes round
 * (its registers go only to the next iteration's wgmma), and the dot_wait
 * after the loop is the wait_group 0.  An issued one (`dot ... issue`)
 * ends with the commit; its dot_wait, before the first op that reads it,
 * is wait_group N (`pending=N`: the groups committed since may go on).
 * The shared memory was written by cp.async (the generic proxy) and is
 * read here by the async proxy: cg_async.c's wait puts fence.proxy.async
 * before its barrier.
 */
#include <stdio.h>
#include <string.h>

#include "cg.h"

static bool wgmma_operand(Cg *c, ValId v)
{
	Op *d = val(c->f, v)->def;
	return d && d->code == OP_LOCAL_LOAD && (d->iattr[1] & LL_WGMMA);
}

/* B in shared memory (LL_WGMMA); A there too, or in registers (layout_mma_a: attention's Q and P). */
bool cg_is_wgmma(Cg *c, Op *op)
{
	return wgmma_operand(c, op->opnds[1]);
}

/* Byte offset of element `flat` in a RING_WGMMA slot of `rows` rows of 2^rowbits 16-bit elements. */
LLVMValueRef cg_wgmma_offset(Cg *c, LLVMValueRef flat, int rowbits, int rows)
{
	int pb = rowbits < 6 ? rowbits : 6;
	if (pb == rowbits)
		return cg_swizzle(c, flat, rowbits);
	LLVMValueRef row = LLVMBuildLShr(c->b, flat, cg_i32c(c, rowbits), "");
	LLVMValueRef col = LLVMBuildAnd(c->b, flat, cg_i32c(c, (1 << rowbits) - 1), "");
	LLVMValueRef panel = LLVMBuildLShr(c->b, col, cg_i32c(c, pb), "");
	LLVMValueRef pcol = LLVMBuildAnd(c->b, col, cg_i32c(c, (1 << pb) - 1), "");
	LLVMValueRef in = LLVMBuildOr(c->b, LLVMBuildShl(c->b, row, cg_i32c(c, pb), ""), pcol, "");
	LLVMValueRef at = LLVMBuildMul(c->b, panel, cg_i32c(c, (int64_t)rows << (pb + 1)), "");
	return LLVMBuildAdd(c->b, at, cg_swizzle(c, in, pb), "");
}

/*
 * The same for 8-bit elements: byte pairs as the 16-bit elements of an
 * [R, C/2] tile (flat >> 1), the low bit picking the byte.  A panel row is
 * then 128 elements.
 */
LLVMValueRef cg_wgmma_offset8(Cg *c, LLVMValueRef flat, int rowbits, int rows)
{
	LLVMValueRef pair = cg_wgmma_offset(c, LLVMBuildLShr(c->b, flat, cg_i32c(c, 1), ""), rowbits - 1, rows);
	return LLVMBuildOr(c->b, pair, LLVMBuildAnd(c->b, flat, cg_i32c(c, 1), ""), "");
}

/* A slot of ring type t as wgmma sees it. */
typedef struct Smem {
	LLVMValueRef base4;   /* i32: the slot's shared address >> 4 (plus a warpgroup's rows for A) */
	int rows, cols;       /* R, C */
	int width;            /* W: bytes of a panel row, min(C * element bytes, 128) */
	bool mn_major;        /* B stored [K, N] */
	uint64_t hi;          /* the descriptor's constant bits: LBO, SBO, swizzle */
} Smem;

static uint64_t desc_bits(uint64_t lbo, uint64_t sbo, int width)
{
	uint64_t mode = width == 128 ? 1 : width == 64 ? 2 : 3;
	return ((lbo >> 4) & 0x3fff) << 16 | ((sbo >> 4) & 0x3fff) << 32 | mode << 62;
}

static Smem smem_operand(Cg *c, ValId v, bool mn_major)
{
	Op *ll = val(c->f, v)->def;
	Type t = vtype(c->f, ll->opnds[0]);
	int row = t.shape[1] * elem_bytes(t.elem);
	if (row < 32)
		die("codegen: wgmma operand rows of %d bytes (the swizzles take 32, 64 or 128)", row);
	Smem s = {NULL, t.shape[0], t.shape[1], row < 128 ? row : 128, mn_major, 0};
	s.hi = mn_major ? desc_bits((uint64_t)s.rows * 128, 1024, 128) : desc_bits(16, 8 * (uint64_t)s.width, s.width);
	s.base4 = LLVMBuildLShr(c->b, c->regs[v][0], cg_i32c(c, 4), "");
	return s;
}

/*
 * Bytes from the slot to k step s (32 bytes of K: k16 of 16-bit elements,
 * k32 of int8) of the rows (K-major) / columns (MN-major, 16-bit) from
 * `first`.
 */
static uint32_t step_offset(const Smem *s, int first, int step)
{
	if (s->mn_major)
		return (uint32_t)(first / 64 * s->rows * 128 + step * 16 * 128);
	int kb = 32 * step;
	return (uint32_t)(kb / s->width * s->rows * s->width + first * s->width + kb % s->width);
}

static LLVMValueRef descriptor(Cg *c, const Smem *s, uint32_t off)
{
	LLVMValueRef lo = LLVMBuildAdd(c->b, s->base4, cg_i32c(c, off >> 4), "");
	lo = LLVMBuildZExt(c->b, lo, c->i64, "");
	return LLVMBuildOr(c->b, lo, LLVMConstInt(c->i64, s->hi, 0), "");
}

/* n accumulator registers: f32, or i32 (int8 products) */
static LLVMTypeRef acc_struct(Cg *c, int n, bool i32)
{
	LLVMTypeRef *t = NEWN(c->f->arena, LLVMTypeRef, n);
	for (int i = 0; i < n; i++)
		t[i] = i32 ? c->i32 : c->f32;
	return LLVMStructTypeInContext(c->ctx, t, (unsigned)n, 0);
}

/* n registers in and out, "=f,...,=f" (i32: "=r") `inputs` ",0,...,n-1": the tied inputs come after the others. */
static char *tied_constraints(Cg *c, int n, bool i32, const char *inputs)
{
	StrBuf b = {0};
	for (int i = 0; i < n; i++)
		sb_printf(&b, "%s=%c", i ? "," : "", i32 ? 'r' : 'f');
	sb_puts(&b, inputs);
	for (int i = 0; i < n; i++)
		sb_printf(&b, ",%d", i);
	sb_puts(&b, ",~{memory}");
	char *s = arena_strdup(c->f->arena, b.s);
	sb_free(&b);
	return s;
}

/* The asm's result registers into d. */
static void unpack(Cg *c, LLVMValueRef r, LLVMValueRef *d, int n)
{
	for (int i = 0; i < n; i++)
		d[i] = LLVMBuildExtractValue(c->b, r, (unsigned)i, "");
}

/* wgmma.wait_group pending, with the n registers of regs passed through it, so that every use of them comes after. */
static void wait_through(Cg *c, LLVMValueRef *regs, int n, bool i32, int pending)
{
	if (n > 128)
		die("codegen: a wgmma accumulator of %d registers per thread", n);
	char text[48];
	snprintf(text, sizeof text, "wgmma.wait_group.sync.aligned %d;", pending);
	LLVMValueRef r = cg_asm(c, arena_strdup(c->f->arena, text), tied_constraints(c, n, i32, ""),
	                        acc_struct(c, n, i32), regs, n, true);
	unpack(c, r, regs, n);
}

/*
 * One m-block's wgmmas for all `steps` k steps, in place on the nr = n/2
 * accumulators $0..$nr-1: one asm, so the accumulators pass through LLVM
 * once per dot, not once per step.  Step s's operands follow the
 * accumulators: A's descriptor, or (a_regs) its four b32 words, then B's
 * descriptor; after the last step, a b32 1 that sets the predicate p,
 * wgmma's scale-d (D = A B + D).  Where the accumulator is zero (`zero`),
 * the first step takes the false predicate z instead (D = A B), so the
 * accumulators need no zeros moved into them.  A from registers has no
 * trans-a; the int8 instruction has no scale or trans immediates at all,
 * the fp8 ones only the scales (both operands K-major).
 */
static const char *mma_text(Cg *c, int n, ElemKind e, bool a_regs, bool mn_major, int steps, bool zero)
{
	StrBuf b = {0};
	const char *t = e == TY_BF16 ? "bf16" : e == TY_F8E4M3 ? "e4m3" : e == TY_F8E5M2 ? "e5m2" : "f16";
	int nr = n / 2, per = a_regs ? 5 : 2, one = nr + per * steps;
	sb_printf(&b, "{\n.reg .pred p;\nsetp.ne.b32 p, $%d, 0;", one);
	if (zero)
		sb_printf(&b, "\n.reg .pred z;\nsetp.eq.b32 z, $%d, 0;", one);
	for (int st = 0; st < steps; st++) {
		int o = nr + per * st;
		const char *p = zero && st == 0 ? "z" : "p";
		if (e == TY_I8)
			sb_printf(&b, "\nwgmma.mma_async.sync.aligned.m64n%dk32.s32.s8.s8 {", n);
		else if (elem_is_f8(e))
			sb_printf(&b, "\nwgmma.mma_async.sync.aligned.m64n%dk32.f32.%s.%s {", n, t, t);
		else
			sb_printf(&b, "\nwgmma.mma_async.sync.aligned.m64n%dk16.f32.%s.%s {", n, t, t);
		for (int i = 0; i < nr; i++)
			sb_printf(&b, "%s$%d", i ? ", " : "", i);
		if (e == TY_I8)
			sb_printf(&b, "}, $%d, $%d, %s;", o, o + 1, p);
		else if (elem_is_f8(e))
			sb_printf(&b, "}, $%d, $%d, %s, 1, 1;", o, o + 1, p);
		else if (a_regs)
			sb_printf(&b, "}, {$%d, $%d, $%d, $%d}, $%d, %s, 1, 1, %d;", o, o + 1, o + 2, o + 3, o + 4, p,
			          mn_major ? 1 : 0);
		else
			sb_printf(&b, "}, $%d, $%d, %s, 1, 1, 0, %d;", o, o + 1, p, mn_major ? 1 : 0);
	}
	sb_puts(&b, "\n}");
	char *s = arena_strdup(c->f->arena, b.s);
	sb_free(&b);
	return s;
}

void cg_wgmma(Cg *c, Op *op)
{
	Func *f = c->f;
	ValId acc = op->opnds[2], res = op->res[0];
	const Layout *lc = cg_layout(c, res);
	ElemKind e = vtype(f, op->opnds[0]).elem;
	int M = lc->shape[0], N = lc->shape[1], K = vtype(f, op->opnds[0]).shape[1];
	int nr = N / 2, rows = 16 * f->num_warps, nblocks = M / rows;
	if (N > 256 || nr > 128 || M % rows)
		die("codegen: a %dx%d wgmma accumulator over %d warps", M, N, f->num_warps);
	bool trans_b = val(f, op->opnds[1])->def->iattr[1] & LL_TRANS, a_regs = !wgmma_operand(c, op->opnds[0]);
	bool i8 = e == TY_I8;
	if ((i8 || elem_is_f8(e)) && (a_regs || !trans_b))
		die("codegen: an 8-bit wgmma takes both operands K-major from shared memory");
	Smem sa = {0}, sb = smem_operand(c, op->opnds[1], !trans_b);
	LLVMValueRef *aw = NULL;
	if (a_regs) {
		/* the words of A's 16x16 tile of m-block mb, k16 step s: aw[4 (mb K/16 + s) ..] */
		int kb = ilog2((uint64_t)K), nt = nblocks * (K / 16);
		uint32_t *org = NEWN(f->arena, uint32_t, nt);
		for (int i = 0; i < nt; i++)
			org[i] = (uint32_t)(i / (K / 16) * rows) << kb | (uint32_t)(16 * (i % (K / 16)));
		aw = NEWN(f->arena, LLVMValueRef, 4 * nt);
		cg_mma_a_words(c, op->opnds[0], org, nt, aw);
	} else {
		/* warpgroup g's rows of A: 64g, in panel rows of W bytes */
		sa = smem_operand(c, op->opnds[0], false);
		LLVMValueRef g = LLVMBuildLShr(c->b, c->warp, cg_i32c(c, 2), "");
		sa.base4 = LLVMBuildAdd(c->b, sa.base4, LLVMBuildMul(c->b, g, cg_i32c(c, 64 * sa.width / 16), ""), "");
	}

	/* map[mb * nr + j]: the register of d[j] of m-block mb (rows mb * rows + ..) */
	int32_t *reg_of = cg_reg_of(c, lc);
	int32_t *map = NEWN(f->arena, int32_t, (int64_t)nblocks * nr);
	for (int mb = 0; mb < nblocks; mb++) {
		for (int j = 0; j < nr; j++) {
			int row = mb * rows + 8 * (j >> 1 & 1), col = 8 * (j >> 2) + (j & 1);
			int32_t r = reg_of[(int64_t)row * N + col];
			if (r < 0)
				die("codegen: wgmma accumulator of %dx%d has no register for (%d, %d)", M, N, row, col);
			map[mb * nr + j] = r;
		}
	}

	LLVMValueRef *out = cg_new_regs(c, res);
	for (uint32_t r = 0; r < 1u << lc->nreg; r++)
		out[r] = c->regs[acc][r];
	LLVMTypeRef vt = LLVMVoidTypeInContext(c->ctx), st = acc_struct(c, nr, i8);
	cg_asm(c, "wgmma.fence.sync.aligned;", "~{memory}", vt, NULL, 0, true);
	int steps = K * elem_bytes(e) / 32, per = a_regs ? 5 : 2, nin = per * steps + 1;
	bool zero = ir_is_zero(f, acc);
	const char *text = mma_text(c, N, e, a_regs, sb.mn_major, steps, zero);
	StrBuf in = {0};
	for (int s = 0; s < steps; s++)
		sb_puts(&in, a_regs ? ",r,r,r,r,l" : ",l,l");
	sb_puts(&in, ",r");
	const char *cons = tied_constraints(c, nr, i8, in.s);
	sb_free(&in);
	LLVMValueRef *args = NEWN(f->arena, LLVMValueRef, nin + nr);
	for (int mb = 0; mb < nblocks; mb++) {
		for (int s = 0; s < steps; s++) {
			LLVMValueRef *a = args + per * s;
			if (a_regs)
				memcpy(a, aw + 4 * (mb * steps + s), 4 * sizeof *args);
			else
				a[0] = descriptor(c, &sa, step_offset(&sa, mb * rows, s));
			a[per - 1] = descriptor(c, &sb, step_offset(&sb, 0, s));
		}
		args[nin - 1] = cg_i32c(c, 1);
		for (int j = 0; j < nr; j++)
			args[nin + j] = zero ? LLVMGetUndef(LLVMTypeOf(out[map[mb * nr + j]])) : out[map[mb * nr + j]];
		LLVMValueRef r = cg_asm(c, text, cons, st, args, nin + nr, true);
		LLVMValueRef *d = NEWN(f->arena, LLVMValueRef, nr);
		unpack(c, r, d, nr);
		for (int j = 0; j < nr; j++)
			out[map[mb * nr + j]] = d[j];
	}
	cg_asm(c, "wgmma.commit_group.sync.aligned;", "~{memory}", vt, NULL, 0, true);
	if (op->iattr[1] == DOT_ASYNC)
		cg_asm(c, "wgmma.wait_group.sync.aligned 1;", "~{memory}", vt, NULL, 0, true);
	else if (op->iattr[1] != DOT_ISSUE)
		wait_through(c, out, 1 << lc->nreg, i8, 0);
}

/* dot_wait: the accumulator of the asynchronous dots, once they are done. */
void cg_wgmma_wait(Cg *c, Op *op)
{
	int n = cg_nregs(c, op->opnds[0]);
	LLVMValueRef *out = cg_new_regs(c, op->res[0]);
	memcpy(out, c->regs[op->opnds[0]], sizeof(LLVMValueRef) * (size_t)n);
	wait_through(c, out, n, vtype(c->f, op->opnds[0]).elem == TY_I32, (int)op->iattr[0]);
}
