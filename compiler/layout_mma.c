/*
 * layout_mma.c: the linear layouts of tensor-core dot (mma.sync.m16n8k16,
 * f16/bf16 inputs, f32 accumulator), as Triton's NvidiaMmaEncoding v2; the
 * same accumulator with m16n8k8 (tf32) and m16n8k32 (int8) operands, all
 * three fragments in one table (frag[], below); and wgmma's.
 *
 * One warp's m16n8k16 fragments, per the PTX ISA ("Matrix Fragments for
 * mma.m16n8k16"), with g = lane / 4 and t = lane % 4:
 *
 *     C/D 16x8:  c[i]  row g + 8 (i>>1 & 1)     col 2t + (i & 1)
 *     A 16x16:   a[i]  row g + 8 (i>>1 & 1)     k   2t + (i & 1) + 8 (i>>2)
 *     B 16x8:    b[i]  k 2t + (i & 1) + 8 (i>>1) col g
 *
 * so as columns (reg bits, then lane bits 0..4):
 *
 *     C  reg (c1, r8)          lane (c2, c4, r1, r2, r4)
 *     A  reg (k1, r8, k8)      lane (k2, k4, r1, r2, r4)
 *     B  reg (k1, k8)          lane (k2, k4, n1, n2, n4)
 *
 * The block's accumulator puts the warps right above one fragment (warps
 * along M first: rows 16, 32, ..., then N: cols 8, 16, ...) and repeats
 * that block-wide tile in registers, N first.  A and B follow from it: A
 * keeps C's row columns (its N columns become 0, a broadcast across the
 * warps that share rows), adds K repeats of 16; B keeps C's column
 * columns.  Registers come in pairs along K (bit 0 = k 1), which is how
 * mma.sync packs two 16-bit values into one b32 register.
 */
#include "ir.h"

#include <string.h>

static Layout blank(int32_t rows, int32_t cols, int num_warps)
{
	Layout l;
	memset(&l, 0, sizeof l);
	l.rank = 2;
	l.shape[0] = rows;
	l.shape[1] = cols;
	l.nlane = 5;
	l.nwarp = (uint8_t)ilog2((uint64_t)num_warps);
	return l;
}

static void push(Layout *l, uint32_t col)
{
	if (l->nreg >= LAYOUT_MAX_REG)
		die("mma layout of %dx%d needs more than %d register bits", l->shape[0], l->shape[1], LAYOUT_MAX_REG);
	l->reg[l->nreg++] = col;
}

/*
 * Warps along M and N as Triton's warpsPerTileV2: give a warp bit to M
 * while M has at least as many 16-row tiles per warp as N has 16-column
 * ones, else to N; a dimension already down to one fragment per warp takes
 * no more (leftover warps duplicate the tile).
 */
static void split_warps(int M, int N, int num_warps, int *wm, int *wn)
{
	*wm = *wn = 1;
	for (int w = 1; w < num_warps; w *= 2) {
		int mt = M / 16 / *wm, nt = N / 8 / *wn;
		if (mt >= 2 && (mt >= nt / 2 || nt < 2))
			*wm *= 2;
		else if (nt >= 2)
			*wn *= 2;
	}
}

/* The accumulator with wm warps along M and wn along N. */
static Layout acc_layout(int M, int N, int num_warps, int wm, int wn)
{
	Layout l = blank(M, N, num_warps);
	int nb = ilog2((uint64_t)N);
	push(&l, 1);
	push(&l, 8u << nb);
	uint32_t lane[5] = {2, 4, 1u << nb, 2u << nb, 4u << nb};
	memcpy(l.lane, lane, sizeof lane);
	int w = 0;
	for (int m = 16; m < 16 * wm; m *= 2)
		l.warp[w++] = (uint32_t)m << nb;
	for (int n = 8; n < 8 * wn; n *= 2)
		l.warp[w++] = (uint32_t)n;
	for (int n = 8 * wn; n < N; n *= 2)
		push(&l, (uint32_t)n);
	for (int m = 16 * wm; m < M; m *= 2)
		push(&l, (uint32_t)m << nb);
	return l;
}

Layout layout_mma_acc(int M, int N, int num_warps)
{
	int wm, wn;
	split_warps(M, N, num_warps, &wm, &wn);
	return acc_layout(M, N, num_warps, wm, wn);
}

/*
 * Every warp along M, as far as M has 16-row tiles (the rest along N), as
 * Triton's warpsPerTile for chained dots: the result of a dot over [M, N]
 * then holds each row's N columns in one warp, which is what a later dot
 * needs of it as its A operand (K = N), and the convert between the two is a
 * renaming of registers (layout_same_threads).
 */
Layout layout_mma_acc_rows(int M, int N, int num_warps)
{
	int wm = 1, wn = 1;
	for (int w = 1; w < num_warps; w *= 2) {
		if (M / 16 / wm >= 2)
			wm *= 2;
		else if (N / 8 / wn >= 2)
			wn *= 2;
	}
	return acc_layout(M, N, num_warps, wm, wn);
}

/*
 * The rest of an A operand of C once its fragment and K repeats are pushed:
 * C's row repeats and warps (its column bits dropped: a broadcast across
 * the warps that share rows), and the fragment's lane columns.
 */
static Layout finish_a(Layout a, const Layout *c, const uint32_t lane[5])
{
	int kb = ilog2((uint64_t)a.shape[1]), nb = ilog2((uint64_t)c->shape[1]);
	for (int i = 2; i < c->nreg; i++)
		if (c->reg[i] >> nb)
			push(&a, (c->reg[i] >> nb) << kb);
	memcpy(a.lane, lane, 5 * sizeof *lane);
	for (int i = 0; i < c->nwarp; i++)
		a.warp[i] = (c->warp[i] >> nb) << kb;
	return a;
}

/* The same for B: C's column repeats and warps. */
static Layout finish_b(Layout b, const Layout *c, const uint32_t lane[5])
{
	uint32_t nmask = (uint32_t)c->shape[1] - 1;
	for (int i = 2; i < c->nreg; i++)
		if (c->reg[i] & nmask)
			push(&b, c->reg[i] & nmask);
	memcpy(b.lane, lane, 5 * sizeof *lane);
	for (int i = 0; i < c->nwarp; i++)
		b.warp[i] = c->warp[i] & nmask;
	return b;
}

/*
 * The operand fragments of each instruction as columns.  A's register
 * columns are a row bit (r8) or a k bit; B's are k bits; lanes 0 and 1 are
 * k bits of both, lanes 2-4 A's rows 1, 2, 4 and B's columns 1, 2, 4.  K
 * repeats of the instruction's k come next, then C's row (A) or column (B)
 * repeats.  From the PTX ISA's "Matrix Fragments for mma.m16n8k16" (above),
 * "... for mma.m16n8k8" (.tf32, one 32-bit element per register):
 *
 *     A 16x8:  a[i]  row g + 8 (i & 1)   k t + 4 (i>>1)   reg (r8, k4)  lane (k1, k2, r1, r2, r4)
 *     B 8x8:   b[i]  k t + 4 i           col g            reg (k4)      lane (k1, k2, n1, n2, n4)
 *
 * and "... for mma.m16n8k32" (.s8, four 8-bit elements to a b32 register,
 * the first in its low byte):
 *
 *     A 16x32:  a[i]  row g + 8 (i>>2 & 1)   k 4t + (i & 3) + 16 (i>>3)
 *               reg (k1, k2, r8, k16)  lane (k4, k8, r1, r2, r4)
 *     B 32x8:   b[i]  k 4t + (i & 3) + 16 (i>>2)   col g
 *               reg (k1, k2, k16)      lane (k4, k8, n1, n2, n4)
 */
static const struct {
	int k;                  /* the instruction's k */
	int abits, bbits;       /* register bits of the A and B fragments */
	struct {
		uint8_t row, k;
	} areg[4];              /* A's register columns: row 8 or a k */
	uint8_t breg[3];        /* B's: a k */
	uint8_t lane_k[2];      /* the k of lanes 0 and 1, in A and B */
} frag[] = {
	[MMA_HALF] = {16, 3, 2, {{0, 1}, {8, 0}, {0, 8}}, {1, 8}, {2, 4}},
	[MMA_TF32] = {8, 2, 1, {{8, 0}, {0, 4}}, {4}, {1, 2}},
	[MMA_S8] = {32, 4, 3, {{0, 1}, {0, 2}, {8, 0}, {0, 16}}, {1, 2, 16}, {4, 8}},
	[MMA_F8] = {32, 4, 3, {{0, 1}, {0, 2}, {8, 0}, {0, 16}}, {1, 2, 16}, {4, 8}}, /* fp8's are int8's */
};

static Layout operand_a(MmaKind kind, const Layout *c, int K)
{
	Layout a = blank(c->shape[0], K, 1 << c->nwarp);
	int kb = ilog2((uint64_t)K);
	for (int i = 0; i < frag[kind].abits; i++)
		push(&a, frag[kind].areg[i].row ? (uint32_t)frag[kind].areg[i].row << kb : frag[kind].areg[i].k);
	for (int k = frag[kind].k; k < K; k *= 2)
		push(&a, (uint32_t)k);
	uint32_t lane[5] = {frag[kind].lane_k[0], frag[kind].lane_k[1], 1u << kb, 2u << kb, 4u << kb};
	return finish_a(a, c, lane);
}

static Layout operand_b(MmaKind kind, const Layout *c, int K)
{
	Layout b = blank(K, c->shape[1], 1 << c->nwarp);
	int nb = ilog2((uint64_t)c->shape[1]);
	for (int i = 0; i < frag[kind].bbits; i++)
		push(&b, (uint32_t)frag[kind].breg[i] << nb);
	for (int k = frag[kind].k; k < K; k *= 2)
		push(&b, (uint32_t)k << nb);
	uint32_t lane[5] = {(uint32_t)frag[kind].lane_k[0] << nb, (uint32_t)frag[kind].lane_k[1] << nb, 1, 2, 4};
	return finish_b(b, c, lane);
}

Layout layout_mma_operand(MmaKind kind, const Layout *c, int K, int i)
{
	return i == 0 ? operand_a(kind, c, K) : operand_b(kind, c, K);
}

Layout layout_mma_a(const Layout *c, int K)
{
	return operand_a(MMA_HALF, c, K);
}

Layout layout_mma_b(const Layout *c, int K)
{
	return operand_b(MMA_HALF, c, K);
}

/*
 * What layout_mma_operand pushes: the fragment's own bits and K repeats,
 * then C's row (A) or column (B) repeats.
 */
int layout_mma_operand_bits(MmaKind kind, const Layout *c, int K, int i)
{
	int nb = ilog2((uint64_t)c->shape[1]), reps = 0;
	uint32_t nmask = (uint32_t)c->shape[1] - 1;
	for (int j = 2; j < c->nreg; j++)
		reps += i == 0 ? (c->reg[j] >> nb) != 0 : (c->reg[j] & nmask) != 0;
	int own = i == 0 ? frag[kind].abits : frag[kind].bbits;
	return own + ilog2((uint64_t)(K / frag[kind].k)) + reps;
}

/* Register bits of C (2 + M, N repeats), A (own + K, M repeats), B (own + K, N repeats) fit. */
static bool regs_fit(Func *f, int M, int N, int K, MmaKind kind)
{
	int wm, wn;
	split_warps(M, N, f->num_warps, &wm, &wn);
	int mr = ilog2((uint64_t)(M / 16 / wm)), nr = ilog2((uint64_t)(N / 8 / wn));
	int kr = ilog2((uint64_t)(K / frag[kind].k));
	return 2 + mr + nr <= LAYOUT_MAX_REG && frag[kind].abits + kr + mr <= LAYOUT_MAX_REG &&
	       frag[kind].bbits + kr + nr <= LAYOUT_MAX_REG;
}

static bool is_half(ElemKind e)
{
	return e == TY_F16 || e == TY_BF16;
}

/*
 * A dot runs on tensor cores (mma.sync) when its inputs and accumulator are
 * those of one of the instructions -- f16 or bf16 (both the same) into f32,
 * m16n8k16; f32 with allow_tf32 into f32, m16n8k8 on tf32; i8 into i32,
 * m16n8k32; f8e4m3 or f8e5m2 (both the same) into f32, m16n8k32 -- and M,
 * N, K are multiples of its fragment (16, 8, k).  Every target codegen
 * knows is sm_80 or newer, which have the first three, and fp8 values
 * exist only for sm_89 and newer (pipeline.c), so the architecture is not
 * asked.
 */
MmaKind layout_mma_kind(Func *f, const Op *dot)
{
	Type a = vtype(f, dot->opnds[0]), b = vtype(f, dot->opnds[1]), c = vtype(f, dot->res[0]);
	MmaKind kind = MMA_NONE;
	if (is_half(a.elem) && b.elem == a.elem && c.elem == TY_F32)
		kind = MMA_HALF;
	else if (dot->iattr[0] && a.elem == TY_F32 && b.elem == TY_F32 && c.elem == TY_F32)
		kind = MMA_TF32;
	else if (a.elem == TY_I8 && b.elem == TY_I8 && c.elem == TY_I32)
		kind = MMA_S8;
	else if (elem_is_f8(a.elem) && b.elem == a.elem && c.elem == TY_F32)
		kind = MMA_F8;
	int M = c.shape[0], N = c.shape[1], K = a.shape[1];
	if (kind == MMA_NONE || M % 16 || N % 8 || K % frag[kind].k || !regs_fit(f, M, N, K, kind))
		return MMA_NONE;
	return kind;
}

/*
 * wgmma.m64nNk16 (sm_90a; f16/bf16) or m64nNk32 (int8, fp8): a warpgroup of four
 * warps computes 64 rows x N columns, its operands read from shared
 * memory.  Warp w of a warpgroup holds rows 16w .. 16w+15 in the
 * m16n8 accumulator fragment repeated along N (d[4i .. 4i+3] is n8 tile
 * i), which is layout_mma_acc_rows with every warp along M: so M must give
 * each warp its own 16 rows (repeats of the whole block are more
 * instructions).  The accumulator is at most 128 32-bit registers per
 * thread (which keeps N <= 256, one instruction wide) and leaves 48 of the
 * thread's share of the register file (65536 / threads, at most 255) for
 * the rest.  The operands come from a pipelined ring: num_stages >= 2
 * (the dot's loop's own, if it has one); B
 * stored [K, N] (not b_kmajor) is read in whole 64-column panels, which
 * only the 16-bit instructions can (int8 and fp8 take both operands
 * K-major).  int8 has fewer widths: N = 8, 16, 24, 32, then multiples of 16.
 */
bool layout_wgmma_ok(Func *f, const Op *dot, bool b_kmajor)
{
	MmaKind kind = layout_mma_kind(f, dot);
	if (!f->wgmma || f->num_warps % 4 || ir_stages(f, dot) < 2 || kind == MMA_NONE || kind == MMA_TF32)
		return false;
	Type c = vtype(f, dot->res[0]);
	int M = c.shape[0], N = c.shape[1], threads = 32 * f->num_warps;
	if ((kind == MMA_S8 && (!b_kmajor || (N > 32 && N % 16))) || (kind == MMA_F8 && !b_kmajor))
		return false;
	int share = 65536 / threads < 255 ? 65536 / threads : 255;
	int64_t acc = (int64_t)M * N / threads;
	return M % (16 * f->num_warps) == 0 && acc <= 128 && acc + 48 <= share && (b_kmajor || N % 64 == 0);
}

bool layout_is_mma_acc(const Layout *l, int num_warps)
{
	if (l->rank != 2 || l->shape[0] % 16 || l->shape[1] % 8)
		return false;
	Layout m = layout_mma_acc(l->shape[0], l->shape[1], num_warps);
	Layout r = layout_mma_acc_rows(l->shape[0], l->shape[1], num_warps);
	return layout_eq(l, &m) || layout_eq(l, &r);
}
