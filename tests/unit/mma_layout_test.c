/*
 * mma_layout_test.c: the tensor-core layouts of compiler/layout_mma.c and
 * the fragment addressing of codegen/cg_mma.c, simulated on the host.
 *
 * mma.sync.m16n8k16 and ldmatrix are modelled from the PTX ISA's fragment
 * tables alone (g = lane / 4, t = lane % 4):
 *     A a[i]: row g + 8 (i>>1 & 1), col 2t + (i & 1) + 8 (i >> 2)
 *     B b[i]: row 2t + (i & 1) + 8 (i >> 1), col g
 *     C c[i]: row g + 8 (i>>1 & 1), col 2t + (i & 1)
 *     ldmatrix: lane 8j + r gives the address of row r of matrix j; thread
 *     t gets, from matrix j, row t/4 elements 2(t%4), 2(t%4)+1 (.trans:
 *     rows 2(t%4), 2(t%4)+1 at column t/4).
 * Every thread's registers are filled from random A and B through the
 * layouts, the product is run tile by tile picking registers the way
 * cg_mma.c does, and each accumulator register is compared with a host
 * matmul.  The swizzled shared tile is written from a blocked layout, read
 * with the simulated ldmatrix at cg_mma.c's lane addresses and compared
 * with the registers, and each 8-lane phase is checked free of bank
 * conflicts.  The TF32 operand layouts (mma.m16n8k8 .tf32: A a[i] row
 * g + 8 (i & 1), col t + 4 (i >> 1); B b[i] row t + 4 i, col g) and the
 * int8 ones (mma.m16n8k32 .s8: A a[i] row g + 8 (i>>2 & 1), col
 * 4t + (i & 3) + 16 (i >> 3); B b[i] row 4t + (i & 3) + 16 (i >> 2), col g)
 * are run the same way, with cg_mma.c's mma_flat walk.
 */
#include "compile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nchecks, nfail;

static void check(bool ok, const char *what, int M, int N, int K, int w)
{
	nchecks++;
	if (!ok && nfail++ < 20)
		fprintf(stderr, "mma_layout_test: %s failed for M=%d N=%d K=%d warps=%d\n", what, M, N, K, w);
}

static uint32_t reg_index(const Layout *l, uint32_t r)
{
	return layout_apply(l, r, 0, 0);
}

/* Every element held, and by exactly one canonical (reg, lane, warp). */
static bool covers_once(const Layout *l)
{
	int64_t n = (int64_t)l->shape[0] * l->shape[1];
	int *seen = calloc((size_t)n, sizeof(int));
	uint32_t zr = 0, zl = 0, zw = 0;
	for (int i = 0; i < l->nreg; i++)
		zr |= l->reg[i] ? 0 : 1u << i;
	for (int i = 0; i < l->nlane; i++)
		zl |= l->lane[i] ? 0 : 1u << i;
	for (int i = 0; i < l->nwarp; i++)
		zw |= l->warp[i] ? 0 : 1u << i;
	for (uint32_t w = 0; w < 1u << l->nwarp; w++)
		for (uint32_t ln = 0; ln < 32; ln++)
			for (uint32_t r = 0; r < 1u << l->nreg; r++)
				if (!(r & zr) && !(ln & zl) && !(w & zw)) {
					uint32_t x = layout_apply(l, r, ln, w);
					if (x < n)
						seen[x]++;
				}
	bool ok = true;
	for (int64_t i = 0; i < n; i++)
		ok &= seen[i] == 1;
	free(seen);
	return ok;
}

/* ---- the hardware, per the PTX ISA ---- */

static void mma_sync(int32_t a[32][8], int32_t b[32][4], int32_t d[32][4])
{
	int32_t A[16][16], B[16][8], C[16][8];
	for (int l = 0; l < 32; l++) {
		int g = l / 4, t = l % 4;
		for (int i = 0; i < 8; i++)
			A[g + 8 * (i >> 1 & 1)][2 * t + (i & 1) + 8 * (i >> 2)] = a[l][i];
		for (int i = 0; i < 4; i++)
			B[2 * t + (i & 1) + 8 * (i >> 1)][g] = b[l][i];
		for (int i = 0; i < 4; i++)
			C[g + 8 * (i >> 1 & 1)][2 * t + (i & 1)] = d[l][i];
	}
	for (int l = 0; l < 32; l++) {
		int g = l / 4, t = l % 4;
		for (int i = 0; i < 4; i++) {
			int row = g + 8 * (i >> 1 & 1), col = 2 * t + (i & 1);
			int32_t s = C[row][col];
			for (int k = 0; k < 16; k++)
				s += A[row][k] * B[k][col];
			d[l][i] = s;
		}
	}
}

/* ---- cg_mma.c's tile walk ---- */

typedef struct Sim {
	const Layout *la, *lb, *lc;
	int M, N, K, kb, nb;
	int32_t *a_of, *b_of;       /* register part -> register number */
	int32_t (*ra)[32][1 << LAYOUT_MAX_REG];
} Sim;

static int32_t *reg_table(const Layout *l)
{
	int32_t *t = calloc((size_t)l->shape[0] * (size_t)l->shape[1], sizeof(int32_t));
	for (uint32_t r = 0; r < 1u << l->nreg; r++)
		t[reg_index(l, r)] = (int32_t)r;
	return t;
}

/* Warp w's operand registers: ra[lane * na + r] from Am through la, rb likewise. */
static void load_warp(const Layout *la, const Layout *lb, uint32_t w, const int32_t *Am, const int32_t *Bm,
                      int32_t *ra, int32_t *rb)
{
	int na = 1 << la->nreg, nbr = 1 << lb->nreg;
	for (uint32_t l = 0; l < 32; l++) {
		for (int r = 0; r < na; r++)
			ra[l * na + r] = Am[layout_apply(la, (uint32_t)r, l, w)];
		for (int r = 0; r < nbr; r++)
			rb[l * nbr + r] = Bm[layout_apply(lb, (uint32_t)r, l, w)];
	}
}

/* Warp w's accumulator registers rc (layout lc) hold Am @ Bm. */
static bool acc_matches(const Layout *lc, uint32_t w, const int32_t *rc, int nc, int nb, const int32_t *Am,
                        const int32_t *Bm, int N, int K)
{
	bool ok = true;
	for (uint32_t l = 0; l < 32; l++)
		for (int r = 0; r < nc; r++) {
			uint32_t x = layout_apply(lc, (uint32_t)r, l, w);
			int m = (int)(x >> nb), n = (int)(x & ((1u << nb) - 1));
			int32_t s = 0;
			for (int k = 0; k < K; k++)
				s += Am[m * K + k] * Bm[k * N + n];
			ok &= rc[l * nc + r] == s;
		}
	return ok;
}

static Layout acc_of(int M, int N, int nw, bool rows)
{
	return rows ? layout_mma_acc_rows(M, N, nw) : layout_mma_acc(M, N, nw);
}

static bool run_product(int M, int N, int K, int nw, bool rows)
{
	Layout lc = acc_of(M, N, nw, rows), la = layout_mma_a(&lc, K), lb = layout_mma_b(&lc, K);
	int kb = ilog2((uint64_t)K), nb = ilog2((uint64_t)N);
	int32_t *Am = malloc(sizeof(int32_t) * (size_t)(M * K)), *Bm = malloc(sizeof(int32_t) * (size_t)(K * N));
	for (int i = 0; i < M * K; i++)
		Am[i] = rand() % 7 - 3;
	for (int i = 0; i < K * N; i++)
		Bm[i] = rand() % 7 - 3;
	int32_t *a_of = reg_table(&la), *b_of = reg_table(&lb);
	int na = 1 << la.nreg, nbr = 1 << lb.nreg, nc = 1 << lc.nreg;
	int32_t *ra = malloc(sizeof(int32_t) * 32 * (size_t)na), *rb = malloc(sizeof(int32_t) * 32 * (size_t)nbr);
	int32_t *rc = calloc(32 * (size_t)nc, sizeof(int32_t));
	uint32_t fa[8], fb[4];
	for (uint32_t i = 0; i < 8; i++)
		fa[i] = (i & 1) | (i >> 1 & 1) * (8u << kb) | (i >> 2) * 8u;
	for (uint32_t i = 0; i < 4; i++)
		fb[i] = (i & 1) * (1u << nb) | (i >> 1) * (8u << nb);
	bool ok = true;
	for (uint32_t w = 0; w < (uint32_t)nw; w++) {
		load_warp(&la, &lb, w, Am, Bm, ra, rb);
		memset(rc, 0, sizeof(int32_t) * 32 * (size_t)nc);
		for (uint32_t k0 = 0; k0 < (uint32_t)K; k0 += 16)
			for (uint32_t r = 0; r < (uint32_t)nc; r += 4) {
				uint32_t o = reg_index(&lc, r), row = o >> nb, col = o & ((1u << nb) - 1);
				int32_t a[32][8], b[32][4], d[32][4];
				for (int l = 0; l < 32; l++) {
					for (int i = 0; i < 8; i++)
						a[l][i] = ra[l * na + a_of[(row << kb | k0) ^ fa[i]]];
					for (int i = 0; i < 4; i++)
						b[l][i] = rb[l * nbr + b_of[(k0 << nb | col) ^ fb[i]]];
					for (int i = 0; i < 4; i++)
						d[l][i] = rc[l * nc + (int)r + i];
				}
				mma_sync(a, b, d);
				for (int l = 0; l < 32; l++)
					for (int i = 0; i < 4; i++)
						rc[l * nc + (int)r + i] = d[l][i];
			}
		ok &= acc_matches(&lc, w, rc, nc, nb, Am, Bm, N, K);
	}
	free(Am), free(Bm), free(a_of), free(b_of), free(ra), free(rb), free(rc);
	return ok;
}

/* ---- TF32 (m16n8k8) and int8 (m16n8k32) on the layouts of layout_mma_operand ---- */

/*
 * PTX ISA, element e of lane l's fragments (g = l / 4, t = l % 4):
 *   mma.m16n8k8 .tf32:  A row g + 8 (e & 1), k t + 4 (e >> 1);        B k t + 4 e, col g
 *   mma.m16n8k32 .s8:   A row g + 8 (e >> 2 & 1), k 4t + (e & 3) + 16 (e >> 3);
 *                       B k 4t + (e & 3) + 16 (e >> 2), col g
 * A has K / 2 elements a lane, B K / 4; C as for m16n8k16.
 */
static void mma_sync_flat(MmaKind kind, int32_t a[32][16], int32_t b[32][8], int32_t d[32][4])
{
	int K = kind == MMA_S8 ? 32 : 8;
	int32_t A[16][32], B[32][8], C[16][8];
	for (int l = 0; l < 32; l++) {
		int g = l / 4, t = l % 4;
		for (int e = 0; e < K / 2; e++) {
			if (kind == MMA_S8)
				A[g + 8 * (e >> 2 & 1)][4 * t + (e & 3) + 16 * (e >> 3)] = a[l][e];
			else
				A[g + 8 * (e & 1)][t + 4 * (e >> 1)] = a[l][e];
		}
		for (int e = 0; e < K / 4; e++) {
			if (kind == MMA_S8)
				B[4 * t + (e & 3) + 16 * (e >> 2)][g] = b[l][e];
			else
				B[t + 4 * e][g] = b[l][e];
		}
		for (int i = 0; i < 4; i++)
			C[g + 8 * (i >> 1 & 1)][2 * t + (i & 1)] = d[l][i];
	}
	for (int l = 0; l < 32; l++) {
		int g = l / 4, t = l % 4;
		for (int i = 0; i < 4; i++) {
			int row = g + 8 * (i >> 1 & 1), col = 2 * t + (i & 1);
			int32_t s = C[row][col];
			for (int k = 0; k < K; k++)
				s += A[row][k] * B[k][col];
			d[l][i] = s;
		}
	}
}

/*
 * cg_mma.c's mma_flat walk: for tf32, element i of A at (row + 8 (i & 1),
 * k0 + 4 (i >> 1)) and of B at (k0 + 4 i, col); for int8, byte q of word i
 * of A at (row + 8 (i & 1), k0 + 16 (i >> 1) + q) and of B at
 * (k0 + 16 i + q, col).
 */
static bool run_product_flat(MmaKind kind, int M, int N, int K, int nw)
{
	Layout lc = layout_mma_acc(M, N, nw);
	Layout la = layout_mma_operand(kind, &lc, K, 0), lb = layout_mma_operand(kind, &lc, K, 1);
	int kb = ilog2((uint64_t)K), nb = ilog2((uint64_t)N);
	uint32_t kstep = kind == MMA_S8 ? 32 : 8;
	int32_t *Am = malloc(sizeof(int32_t) * (size_t)(M * K)), *Bm = malloc(sizeof(int32_t) * (size_t)(K * N));
	for (int i = 0; i < M * K; i++)
		Am[i] = rand() % 7 - 3;
	for (int i = 0; i < K * N; i++)
		Bm[i] = rand() % 7 - 3;
	int32_t *a_of = reg_table(&la), *b_of = reg_table(&lb);
	int na = 1 << la.nreg, nbr = 1 << lb.nreg, nc = 1 << lc.nreg;
	int32_t *ra = malloc(sizeof(int32_t) * 32 * (size_t)na), *rb = malloc(sizeof(int32_t) * 32 * (size_t)nbr);
	int32_t *rc = calloc(32 * (size_t)nc, sizeof(int32_t));
	bool ok = true;
	for (uint32_t w = 0; w < (uint32_t)nw; w++) {
		load_warp(&la, &lb, w, Am, Bm, ra, rb);
		memset(rc, 0, sizeof(int32_t) * 32 * (size_t)nc);
		for (uint32_t k0 = 0; k0 < (uint32_t)K; k0 += kstep)
			for (uint32_t r = 0; r < (uint32_t)nc; r += 4) {
				uint32_t o = reg_index(&lc, r), row = o >> nb, col = o & ((1u << nb) - 1);
				int32_t a[32][16], b[32][8], d[32][4];
				for (int l = 0; l < 32; l++) {
					for (uint32_t i = 0; i < 4; i++)
						for (uint32_t q = 0; q < (kind == MMA_S8 ? 4u : 1u); q++) {
							uint32_t at = kind == MMA_S8 ? (row + 8 * (i & 1)) << kb | (k0 + 16 * (i >> 1) + q)
							                             : (row + 8 * (i & 1)) << kb | (k0 + 4 * (i >> 1));
							a[l][kind == MMA_S8 ? 4 * i + q : i] = ra[l * na + a_of[at]];
						}
					for (uint32_t i = 0; i < 2; i++)
						for (uint32_t q = 0; q < (kind == MMA_S8 ? 4u : 1u); q++) {
							uint32_t at = kind == MMA_S8 ? (k0 + 16 * i + q) << nb | col : (k0 + 4 * i) << nb | col;
							b[l][kind == MMA_S8 ? 4 * i + q : i] = rb[l * nbr + b_of[at]];
						}
					for (int i = 0; i < 4; i++)
						d[l][i] = rc[l * nc + (int)r + i];
				}
				mma_sync_flat(kind, a, b, d);
				for (int l = 0; l < 32; l++)
					for (int i = 0; i < 4; i++)
						rc[l * nc + (int)r + i] = d[l][i];
			}
		ok &= acc_matches(&lc, w, rc, nc, nb, Am, Bm, N, K);
	}
	free(Am), free(Bm), free(a_of), free(b_of), free(ra), free(rb), free(rc);
	return ok;
}

static void test_config_flat(MmaKind kind, int M, int N, int K, int nw)
{
	Layout lc = layout_mma_acc(M, N, nw);
	Layout la = layout_mma_operand(kind, &lc, K, 0), lb = layout_mma_operand(kind, &lc, K, 1);
	bool s8 = kind == MMA_S8;
	check(covers_once(&la), s8 ? "s8 A covers once" : "tf32 A covers once", M, N, K, nw);
	check(covers_once(&lb), s8 ? "s8 B covers once" : "tf32 B covers once", M, N, K, nw);
	check(run_product_flat(kind, M, N, K, nw), s8 ? "simulated s8 mma product" : "simulated tf32 mma product", M, N,
	      K, nw);
}

/* ---- shared memory: cg_mma.c's swizzle and ldmatrix addressing ---- */

static uint32_t swizzle(uint32_t flat, int rowbits)
{
	int w = 2 << rowbits, chunks = w / 16;
	int per_phase = w >= 128 ? 1 : 128 / w;
	int max_phase = 8 / per_phase < chunks ? 8 / per_phase : chunks;
	uint32_t row = flat >> rowbits, col = flat & ((1u << rowbits) - 1);
	uint32_t phase = (row / (uint32_t)per_phase) & (uint32_t)(max_phase - 1);
	return row * (uint32_t)w + (((col >> 3) ^ phase) << 4) + (col & 7) * 2;
}

static uint32_t warp_origin(const Layout *l, uint32_t w)
{
	return layout_apply(l, 0, 0, w);
}

/* Eight 16-byte rows per phase: conflict-free when their 16-byte slots mod 128 differ. */
static bool no_conflict(const uint32_t *addr, int nlanes)
{
	for (int p = 0; p < nlanes; p += 8) {
		unsigned used = 0;
		for (int i = p; i < p + 8; i++)
			used |= 1u << (addr[i] / 16 % 8);
		if (used != 0xff)
			return false;
	}
	return true;
}

/* Tile v (flat -> value) written swizzled, read back by ldmatrix for operand l (A, or B with .trans). */
static bool run_ldmatrix(const Layout *l, bool is_b, int nw, bool *conflict_free)
{
	int rb = ilog2((uint64_t)l->shape[1]);
	int64_t n = (int64_t)l->shape[0] * l->shape[1];
	uint16_t *smem = calloc((size_t)n, 2);
	for (uint32_t x = 0; x < n; x++)
		smem[swizzle(x, rb) / 2] = (uint16_t)(x * 2654435761u >> 16);
	int32_t *reg_of = reg_table(l);
	bool ok = true;
	uint32_t step = 8; /* registers per ldmatrix.x4: A one 16x16 tile, B two 16x8 tiles */
	uint32_t frag[4] = {0, is_b ? 8u << rb : 8u << rb, is_b ? 0 : 8, is_b ? 8u << rb : (8u << rb) | 8};
	for (uint32_t w = 0; w < (uint32_t)nw; w++)
		for (uint32_t r = 0; r < 1u << l->nreg; r += step) {
			uint32_t o0 = reg_index(l, r), o1 = is_b ? reg_index(l, r + 4) : o0, addr[32];
			for (uint32_t ln = 0; ln < 32; ln++) {
				uint32_t base = warp_origin(l, w) ^ (is_b && ln >= 16 ? o1 : o0);
				uint32_t lane_part = is_b ? (ln & 15) << rb : (ln & 15) << rb | (ln >> 4) << 3;
				addr[ln] = swizzle(base | lane_part, rb);
			}
			*conflict_free &= no_conflict(addr, 32);
			for (uint32_t t = 0; t < 32; t++)
				for (int j = 0; j < 4; j++) {
					uint32_t tile = is_b && j >= 2 ? o1 : o0;
					for (int e = 0; e < 2; e++) {
						uint16_t got;
						if (is_b)
							got = smem[(addr[8 * j + 2 * (t % 4) + (uint32_t)e] + (t / 4) * 2) / 2];
						else
							got = smem[(addr[8 * j + t / 4] + (2 * (t % 4) + (uint32_t)e) * 2) / 2];
						/* the register cg_mma.c assigns this half of word j to */
						uint32_t reg = (uint32_t)reg_of[tile ^ frag[j]] | (uint32_t)e;
						uint32_t flat = layout_apply(l, reg, t, w);
						ok &= got == (uint16_t)(flat * 2654435761u >> 16);
					}
				}
		}
	free(smem);
	free(reg_of);
	return ok;
}

/* Writers: a blocked layout's 16-byte vectors stay inside one swizzled chunk, 16-byte aligned. */
static bool writes_whole_chunks(const Layout *l, int nw)
{
	int rb = ilog2((uint64_t)l->shape[1]);
	for (uint32_t w = 0; w < (uint32_t)nw; w++)
		for (uint32_t ln = 0; ln < 32; ln++)
			for (uint32_t r = 0; r < 1u << l->nreg; r += 8) {
				uint32_t a0 = swizzle(layout_apply(l, r, ln, w), rb);
				if (a0 % 16)
					return false;
				for (uint32_t j = 1; j < 8; j++)
					if (swizzle(layout_apply(l, r + j, ln, w), rb) != a0 + 2 * j)
						return false;
			}
	return true;
}

/*
 * cg_mma.c's load_bt on l = the transposed view of a B layout, the tile
 * stored [N, K] (swizzled, K contiguous): plain ldmatrix.x4 over two 16x8 B
 * tiles (x2 for a last odd one), lanes 0-7 rows of t0 at k, 8-15 at k + 8,
 * 16-31 the same of t1.  Every half lands in the register holding its
 * element; *conflict_free as run_ldmatrix.
 */
static bool run_ldmatrix_bt(const Layout *l, int nw, bool *conflict_free)
{
	int kb = ilog2((uint64_t)l->shape[1]);
	int64_t n = (int64_t)l->shape[0] * l->shape[1];
	uint16_t *smem = calloc((size_t)n, 2);
	for (uint32_t x = 0; x < n; x++)
		smem[swizzle(x, kb) / 2] = (uint16_t)(x * 2654435761u >> 16);
	int32_t *reg_of = reg_table(l);
	bool ok = true;
	uint32_t ntiles = (1u << l->nreg) / 4;
	for (uint32_t w = 0; w < (uint32_t)nw; w++)
		for (uint32_t t0 = 0; t0 < ntiles; t0 += 2) {
			bool two = t0 + 1 < ntiles;
			uint32_t o[2] = {reg_index(l, t0 * 4), reg_index(l, two ? (t0 + 1) * 4 : t0 * 4)}, addr[32];
			int lanes = two ? 32 : 16;
			for (int ln = 0; ln < lanes; ln++)
				addr[ln] = swizzle(warp_origin(l, w) ^ o[ln >= 16] ^ ((uint32_t)(ln & 7) << kb | (uint32_t)(ln & 8)),
				                   kb);
			*conflict_free &= no_conflict(addr, lanes);
			for (uint32_t t = 0; t < 32; t++)
				for (int j = 0; j < lanes / 8; j++)
					for (int e = 0; e < 2; e++) {
						uint16_t got = smem[(addr[8 * j + t / 4] + (2 * (t % 4) + (uint32_t)e) * 2) / 2];
						uint32_t reg = (uint32_t)reg_of[o[j >> 1] ^ (8u * (uint32_t)(j & 1))] | (uint32_t)e;
						ok &= got == (uint16_t)(layout_apply(l, reg, t, w) * 2654435761u >> 16);
					}
		}
	free(smem);
	free(reg_of);
	return ok;
}

static void test_config(int M, int N, int K, int nw, bool rows)
{
	Layout lc = acc_of(M, N, nw, rows), la = layout_mma_a(&lc, K), lb = layout_mma_b(&lc, K);
	check(covers_once(&lc), "accumulator covers once", M, N, K, nw);
	check(covers_once(&la), "A covers once", M, N, K, nw);
	check(covers_once(&lb), "B covers once", M, N, K, nw);
	check(layout_is_mma_acc(&lc, nw), "layout_is_mma_acc", M, N, K, nw);
	check(run_product(M, N, K, nw, rows), "simulated mma product", M, N, K, nw);
	bool cf = true;
	check(run_ldmatrix(&la, false, nw, &cf), "ldmatrix A", M, N, K, nw);
	check(cf, "ldmatrix A without bank conflicts", M, N, K, nw);
	if ((1 << lb.nreg) / 4 >= 2) {
		cf = true;
		check(run_ldmatrix(&lb, true, nw, &cf), "ldmatrix.trans B", M, N, K, nw);
		check(cf, "ldmatrix B without bank conflicts", M, N, K, nw);
	}
	Layout lbt = layout_trans(&lb);
	cf = true;
	check(run_ldmatrix_bt(&lbt, nw, &cf), "ldmatrix B from a transposed [N, K] tile", M, N, K, nw);
	check(cf, "ldmatrix B from [N, K] without bank conflicts", M, N, K, nw);
	int32_t sa[2] = {M, K}, sb[2] = {K, N};
	Layout ba = layout_blocked(2, sa, nw, 8), bb = layout_blocked(2, sb, nw, 8);
	check(writes_whole_chunks(&ba, nw), "A writes whole chunks", M, N, K, nw);
	check(writes_whole_chunks(&bb, nw), "B writes whole chunks", M, N, K, nw);
}

/*
 * Chained dots (attention): with the warps along M, a dot's [M, N]
 * accumulator is already the A operand of a dot with K = N (no convert at
 * all); with warps on N too, the A operand needs other threads' elements.
 * layout_same_threads: the register order may differ, nothing else.
 */
static void test_chained(void)
{
	Layout r = layout_mma_acc_rows(128, 64, 8), ra = layout_mma_a(&r, 64);
	check(layout_eq(&r, &ra), "rows accumulator is the A operand of K = N", 128, 64, 64, 8);
	Layout s = layout_mma_acc(128, 64, 8), sa = layout_mma_a(&s, 64);
	check(!layout_same_threads(&s, &sa), "split accumulator is not the A operand", 128, 64, 64, 8);
	check(layout_is_mma_acc(&r, 8) && layout_is_mma_acc(&s, 8), "both are accumulators", 128, 64, 0, 8);
	Layout p = r;
	p.reg[1] = r.reg[2], p.reg[2] = r.reg[1];
	check(layout_same_threads(&r, &p) && !layout_eq(&r, &p), "permuted registers: same threads", 128, 64, 0, 8);
	p.lane[0] = r.lane[1], p.lane[1] = r.lane[0];
	check(!layout_same_threads(&r, &p), "permuted lanes: other threads", 128, 64, 0, 8);
	int32_t sh[2] = {128, 64};
	Layout b = layout_blocked(2, sh, 8, 8);
	check(!layout_same_threads(&r, &b), "blocked is not the accumulator", 128, 64, 0, 8);
	int wm = 0;
	for (int i = 0; i < r.nwarp; i++)
		wm += r.warp[i] >= 64;
	check(wm == 3, "all 8 warps along M", 128, 64, 0, 8);
	/* attention's alpha[:, None]: the row max of a 64x32 S, expanded, against
	 * the 64x64 output's rows; the same elements in the same threads, the
	 * output's with more (zero) register columns */
	Layout s32 = layout_mma_acc_rows(64, 32, 4), o64 = layout_mma_acc_rows(64, 64, 4);
	Layout sl = layout_slice(&s32, 1), ex = layout_expand(&sl, 1);
	int32_t col[2] = {64, 1};
	Layout ub = layout_unbroadcast(&o64, col);
	check(ex.nreg != ub.nreg && layout_same_threads(&ex, &ub) && layout_same_threads(&ub, &ex),
	      "row slices with other register counts: same threads", 64, 32, 0, 4);
	Layout sh1 = ub;
	sh1.lane[2] = ub.lane[3], sh1.lane[3] = ub.lane[2];
	check(!layout_same_threads(&ex, &sh1), "row slices, lanes swapped: other threads", 64, 32, 0, 4);
}

/* 128x128 on 8 warps: warps [4, 2] as Triton's warpsPerTileV2. */
static void test_warps(void)
{
	Layout lc = layout_mma_acc(128, 128, 8);
	int wm = 0, wn = 0;
	for (int i = 0; i < lc.nwarp; i++) {
		wm += lc.warp[i] >= 128;
		wn += lc.warp[i] && lc.warp[i] < 128;
	}
	check(wm == 2 && wn == 1, "warps 4 x 2 for 128x128", 128, 128, 0, 8);
	check(lc.nreg == 6, "64 accumulator registers for 128x128 on 8 warps", 128, 128, 0, 8);
}

int main(void)
{
	srand(1);
	static const int cfg[][4] = {
		{128, 128, 32, 8}, {128, 128, 64, 4}, {64, 64, 32, 4}, {16, 16, 16, 1}, {32, 16, 64, 4},
		{128, 64, 16, 8}, {16, 128, 32, 8}, {64, 256, 32, 8}, {16, 16, 16, 8}, {256, 128, 32, 8},
	};
	for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
		test_config(cfg[i][0], cfg[i][1], cfg[i][2], cfg[i][3], false);
		test_config(cfg[i][0], cfg[i][1], cfg[i][2], cfg[i][3], true);
	}
	test_chained();
	static const int cfg32[][4] = {
		{64, 64, 16, 4}, {16, 8, 8, 1}, {128, 64, 32, 8}, {32, 64, 8, 4}, {128, 128, 16, 8}, {16, 16, 8, 8},
	};
	for (size_t i = 0; i < sizeof cfg32 / sizeof cfg32[0]; i++)
		test_config_flat(MMA_TF32, cfg32[i][0], cfg32[i][1], cfg32[i][2], cfg32[i][3]);
	static const int cfg8[][4] = {
		{64, 64, 32, 4}, {16, 8, 32, 1}, {128, 64, 64, 8}, {32, 64, 128, 4}, {128, 128, 32, 8}, {16, 16, 32, 8},
	};
	for (size_t i = 0; i < sizeof cfg8 / sizeof cfg8[0]; i++)
		test_config_flat(MMA_S8, cfg8[i][0], cfg8[i][1], cfg8[i][2], cfg8[i][3]);
	test_warps();
	printf("mma_layout_test: %d checks, %d failed\n", nchecks, nfail);
	return nfail != 0;
}
