/*
 * layernorm_backward.c: dsl_examples/layernorm_backward.tile in the
 * interpreter, both kernels: dx, then dw and db summed from the programs'
 * shares, against double on the same f16 inputs and f32 statistics.
 * Ragged n, padded stride, fewer, as many and more programs than rows (a
 * program with no row writes a share of zeros), several BLOCK_P blocks of
 * shares with a ragged last one; opt 0 and 1 must agree bit for bit.
 */
#include "run.h"

static const char *path = "dsl_examples/layernorm_backward.tile";

typedef struct Case {
	int rows, n, stride, programs;
	uint16_t *x, *dy, *w;
	float *mean, *rstd;
	double *dx, *dw, *db;
} Case;

static double f16(uint16_t h) { return ref_f16_to_f32(h); }

/* The forward's statistics (f32, as layernorm.tile stores them), then the gradients. */
static void reference(Case *c)
{
	for (int r = 0; r < c->rows; r++) {
		double mu, rs;
		ref_row_stats_f16(c->x + (size_t)r * c->stride, c->n, 1e-5, &mu, &rs);
		c->mean[r] = (float)mu;
		c->rstd[r] = (float)rs;
	}
	for (int i = 0; i < c->n; i++)
		c->dw[i] = c->db[i] = 0;
	for (int r = 0; r < c->rows; r++) {
		const uint16_t *x = c->x + (size_t)r * c->stride, *dy = c->dy + (size_t)r * c->stride;
		double rstd = c->rstd[r], c1 = 0, c2 = 0;
		for (int i = 0; i < c->n; i++) {
			double xhat = (f16(x[i]) - c->mean[r]) * rstd, g = f16(c->w[i]) * f16(dy[i]);
			c1 += xhat * g, c2 += g;
			c->dw[i] += f16(dy[i]) * xhat;
			c->db[i] += f16(dy[i]);
		}
		c1 /= c->n, c2 /= c->n;
		for (int i = 0; i < c->n; i++) {
			double xhat = (f16(x[i]) - c->mean[r]) * rstd, g = f16(c->w[i]) * f16(dy[i]);
			c->dx[(size_t)r * c->n + i] = (g - (xhat * c1 + c2)) * rstd;
		}
	}
}

static void one(int rows, int n, int programs, int block_p, uint64_t seed)
{
	Case c = {rows, n, n + 3, programs, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
	size_t len = (size_t)rows * c.stride, parts = (size_t)programs * n;
	c.x = malloc(len * 2), c.dy = malloc(len * 2), c.w = malloc((size_t)n * 2);
	c.mean = malloc((size_t)rows * 4), c.rstd = malloc((size_t)rows * 4);
	c.dx = malloc((size_t)rows * n * sizeof(double));
	c.dw = malloc((size_t)n * sizeof(double)), c.db = malloc((size_t)n * sizeof(double));
	RefRng r = ref_rng(seed);
	ref_fill_f16(&r, c.x, len, -2, 2);
	ref_fill_f16(&r, c.dy, len, -1, 1);
	ref_fill_f16(&r, c.w, (size_t)n, -1, 1);
	reference(&c);
	uint16_t *dx[2], *dw[2], *db[2], *got = malloc((size_t)rows * n * 2);
	Define d = {"BLOCK", next_pow2(n), false, 0};
	Define d2[] = {{"BLOCK_P", block_p, false, 0}, {"BLOCK_N", 16, false, 0}};
	for (int opt = 0; opt < 2; opt++) {
		char label[128];
		snprintf(label, sizeof label, "layernorm_backward rows=%d n=%d programs=%d BLOCK_P=%d opt=%d", rows, n,
			 programs, block_p, opt);
		dx[opt] = malloc(len * 2), dw[opt] = malloc((size_t)n * 2), db[opt] = malloc((size_t)n * 2);
		float *dw_part = malloc(parts * 4), *db_part = malloc(parts * 4);
		ref_poison_f16(dx[opt], len);
		ref_poison_f16(dw[opt], (size_t)n);
		ref_poison_f16(db[opt], (size_t)n);
		ref_poison_f32(dw_part, parts);
		ref_poison_f32(db_part, parts);
		KArg a[] = {kbuf(dx[opt], len * 2), kbuf(dw_part, parts * 4), kbuf(db_part, parts * 4),
			    kbuf(c.dy, len * 2), kbuf(c.x, len * 2), kbuf(c.w, (size_t)n * 2),
			    kbuf(c.mean, (size_t)rows * 4), kbuf(c.rstd, (size_t)rows * 4),
			    kint(rows), kint(c.stride), kint(n)};
		KArg b[] = {kbuf(dw[opt], (size_t)n * 2), kbuf(db[opt], (size_t)n * 2), kbuf(dw_part, parts * 4),
			    kbuf(db_part, parts * 4), kint(programs), kint(n)};
		if (run_ok(path, "layernorm_backward_dx", &d, 1, opt, a, 11, programs, 1, 1) &&
		    run_ok(path, "layernorm_backward_dwdb", d2, 2, opt, b, 6, cdiv(n, 16), 1, 1)) {
			unpad_rows(label, got, dx[opt], 2, rows, n, c.stride);
			/* dx cancels where g ~ xhat * c1 + c2: an absolute floor of f16's step at 1 */
			check_f16(label, got, c.dx, (size_t)rows * n, 1e-2, 1e-3);
			check_f16(label, dw[opt], c.dw, (size_t)n, 1e-2, 1e-2);
			check_f16(label, db[opt], c.db, (size_t)n, 1e-2, 1e-2);
		}
		free(dw_part), free(db_part);
	}
	check_same("layernorm_backward dx", dx[0], dx[1], len * 2);
	check_same("layernorm_backward dw", dw[0], dw[1], (size_t)n * 2);
	check_same("layernorm_backward db", db[0], db[1], (size_t)n * 2);
	for (int opt = 0; opt < 2; opt++)
		free(dx[opt]), free(dw[opt]), free(db[opt]);
	free(c.x), free(c.dy), free(c.w), free(c.mean), free(c.rstd), free(c.dx), free(c.dw), free(c.db), free(got);
}

int main(void)
{
	int ns[] = {1, 7, 100, 781, 1024};
	/* rows, programs, BLOCK_P: shares in one block, in several with a ragged last one, idle programs */
	int shapes[][3] = {{1, 1, 4}, {5, 2, 4}, {9, 9, 4}, {7, 11, 4}, {12, 5, 2}};
	for (int i = 0; i < 5; i++)
		for (int s = 0; s < 5; s++)
			one(shapes[s][0], ns[i], shapes[s][1], shapes[s][2], 400 + (uint64_t)(i * 10 + s));
	return check_summary("layernorm_backward");
}
