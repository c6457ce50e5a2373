/*
 * cg_dot.c: dot on CUDA cores (FMA), as Triton's FMADotOpToLLVM.
 *
 * The layout pass gives `a` the layout dot_a(Lc, K) and `b` dot_b(Lc, K)
 * (layout.c), built so that for the accumulator's register r the k-th term
 * of its sum is a register (k | r << log2 K) times b register
 * (k | r << log2 K):
 *
 *     c[r] = acc[r] + sum over k < K of a[k | r << kb] * b[k | r << kb]
 *
 * Each thread thus owns whole rows of a and columns of b for its outputs and
 * needs no communication.  Operands arriving through a convert_layout stay
 * in shared memory and are read as the k loop needs them, 32 bits at a
 * time; k is the outer loop, so each k's values die before the next k's
 * are read (holding a K-wide slice of both operands spills).  f16/bf16
 * inputs are widened once per canonical register and accumulated with
 * llvm.fmuladd in f32 (fma.rn); integer inputs accumulate in the
 * accumulator's integer type.
 */
#include "cg.h"

typedef struct Operand {
	ValId v;
	LLVMValueRef *cache;  /* per canonical register, widened */
	uint32_t zm;
	int32_t off;          /* the tile's offset in shared memory, or -1: in registers */
	CgLin at;             /* its elements' places, when the tile is in shared memory */
	int vec;              /* registers read from shared memory at once */
} Operand;

static bool overlap(const Op *a, const Op *b)
{
	return a->smem_offset < b->smem_offset + b->smem_bytes && b->smem_offset < a->smem_offset + a->smem_bytes;
}

/*
 * Writes the pending operand tiles (cg_convert.c) to shared memory between
 * two barriers; off[i] = where operand i lies, or -1 if it is in registers.
 * Each tile goes to its convert's buffer when the planner kept the two
 * apart; else side by side from offset 0 when the launch's shared memory
 * holds both (the planner gives scratch only to the op that runs, so
 * during the dot nothing else lives there); else `a` takes the registers
 * path first.
 */
static void stage_operands(Cg *c, ValId a, ValId b, int32_t *off)
{
	Op *pa = c->pending[a], *pb = c->pending[b];
	off[0] = pa ? pa->smem_offset : -1;
	off[1] = pb ? pb->smem_offset : -1;
	if (pa && pb && overlap(pa, pb)) {
		int32_t na = (pa->smem_bytes + 15) & ~15;
		if (na + pb->smem_bytes <= c->f->smem_total) {
			off[0] = 0;
			off[1] = na;
		} else {
			cg_barrier(c);
			cg_convert_write(c, a, off[0]);
			cg_barrier(c);
			cg_convert_read(c, a, off[0]);
			off[0] = -1;
		}
	}
	if (off[0] < 0 && off[1] < 0)
		return;
	cg_barrier(c);
	if (off[0] >= 0)
		cg_convert_write(c, a, off[0]);
	if (off[1] >= 0)
		cg_convert_write(c, b, off[1]);
	cg_barrier(c);
}

static Operand operand_of(Cg *c, ValId v, int32_t off)
{
	const Layout *l = cg_layout(c, v);
	Operand o = {v, NEWN(c->f->arena, LLVMValueRef, 1 << l->nreg), cg_zeromask(l->reg, l->nreg), off, {0}, 1};
	if (off >= 0) {
		o.at = cg_smem_lin(c, v);
		/* one 32-bit word at a time: a wider read keeps more k values alive */
		int eb = elem_bytes(vtype(c->f, v).elem);
		o.vec = cg_reg_vec(l, eb);
		while (o.vec > 1 && o.vec * eb > 4)
			o.vec /= 2;
	}
	return o;
}

static LLVMValueRef widen(Cg *c, LLVMValueRef x, ElemKind e, ElemKind acc_e)
{
	LLVMTypeRef t = cg_elem_type(c, acc_e);
	if (e == acc_e)
		return x;
	if (elem_is_f8(e))
		return cg_cast(c, e, acc_e, x);
	if (elem_is_float(acc_e))
		return elem_bits(e) < elem_bits(acc_e) ? LLVMBuildFPExt(c->b, x, t, "") : LLVMBuildFPTrunc(c->b, x, t, "");
	return LLVMBuildSExt(c->b, x, t, "");
}

/* Register `i` of the operand widened to the accumulator's type, each canonical one once. */
static LLVMValueRef operand(Cg *c, Operand *o, uint32_t i, ElemKind acc_e)
{
	i &= ~o->zm;
	if (o->cache[i])
		return o->cache[i];
	ElemKind e = vtype(c->f, o->v).elem;
	if (o->off < 0) {
		o->cache[i] = widen(c, c->regs[o->v][i], e, acc_e);
		return o->cache[i];
	}
	LLVMValueRef xs[16];
	uint32_t g = i & ~(uint32_t)(o->vec - 1);
	cg_smem_read(c, o->v, o->off, &o->at, g, o->vec, xs);
	for (int j = 0; j < o->vec; j++)
		o->cache[g + (uint32_t)j] = widen(c, xs[j], e, acc_e);
	return o->cache[i];
}

static LLVMValueRef fma_step(Cg *c, ElemKind acc_e, LLVMValueRef a, LLVMValueRef b, LLVMValueRef s)
{
	if (!elem_is_float(acc_e))
		return LLVMBuildAdd(c->b, s, LLVMBuildMul(c->b, a, b, ""), "");
	LLVMValueRef args[3] = {a, b, s};
	return cg_call(c, acc_e == TY_F64 ? "llvm.fmuladd.f64" : "llvm.fmuladd.f32", cg_elem_type(c, acc_e), args, 3);
}

void cg_dot(Cg *c, Op *op)
{
	if (cg_is_wgmma(c, op)) {
		cg_wgmma(c, op);
		return;
	}
	if (cg_is_mma(c, op)) {
		cg_mma(c, op);
		return;
	}
	ValId a = op->opnds[0], b = op->opnds[1], acc = op->opnds[2], res = op->res[0];
	const Layout *lc = cg_layout(c, res), *la = cg_layout(c, a), *lb = cg_layout(c, b);
	int K = vtype(c->f, a).shape[1], kb = ilog2((uint64_t)K);
	if (la->nreg != kb + lc->nreg || lb->nreg != kb + lc->nreg)
		die("codegen: dot operands are not in the dot_a/dot_b layouts of the result");
	ElemKind acc_e = vtype(c->f, res).elem;
	bool narrow = acc_e == TY_F16 || acc_e == TY_BF16;
	ElemKind sum_e = narrow ? TY_F32 : acc_e;
	uint32_t zc = cg_zeromask(lc->reg, lc->nreg);
	int32_t off[2];
	stage_operands(c, a, b, off);
	Operand oa = operand_of(c, a, off[0]), ob = operand_of(c, b, off[1]);
	LLVMValueRef *out = cg_new_regs(c, res);
	/* k outermost, so each k's operands die before the next k's are used */
	for (uint32_t r = 0; r < 1u << lc->nreg; r++)
		if (!(r & zc))
			out[r] = cg_to_f32(c, c->regs[acc][r], acc_e);
	for (uint32_t k = 0; k < (uint32_t)K; k++) {
		for (uint32_t r = 0; r < 1u << lc->nreg; r++) {
			if (r & zc)
				continue;
			uint32_t i = k | r << kb;
			out[r] = fma_step(c, sum_e, operand(c, &oa, i, sum_e), operand(c, &ob, i, sum_e), out[r]);
		}
	}
	for (uint32_t r = 0; r < 1u << lc->nreg; r++)
		if (!(r & zc))
			out[r] = cg_from_f32(c, out[r], acc_e);
	cg_fill_dups(c, res);
}
