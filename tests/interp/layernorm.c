/*
 * layernorm.c: dsl_examples/layernorm.tile in the interpreter: f16 rows in
 * and out, f32 statistics, against layer norm in double on the same f16
 * inputs.  Ragged n, 1 to 5 rows, padded stride; mean and rstd are checked
 * to f32 precision (rel 1e-5), out to f16 precision (rel 1e-2); opt 0 and 1
 * must agree bit for bit in all three outputs.
 */
#include "run.h"

static const char *path = "dsl_examples/layernorm.tile";

typedef struct Case {
	int rows, n, stride;
	uint16_t *x, *w, *b;
	double *want, *want_mean, *want_rstd;
} Case;

static void reference(Case *c, double eps)
{
	for (int r = 0; r < c->rows; r++) {
		const uint16_t *x = c->x + (size_t)r * c->stride;
		double mu, rstd;
		ref_row_stats_f16(x, c->n, eps, &mu, &rstd);
		c->want_mean[r] = mu;
		c->want_rstd[r] = rstd;
		for (int i = 0; i < c->n; i++)
			c->want[(size_t)r * c->n + i] =
				(ref_f16_to_f32(x[i]) - mu) * rstd * ref_f16_to_f32(c->w[i]) + ref_f16_to_f32(c->b[i]);
	}
}

static void one(int rows, int n, uint64_t seed)
{
	Case c = {rows, n, n + 3, NULL, NULL, NULL, NULL, NULL, NULL};
	size_t len = (size_t)rows * c.stride;
	float eps = 1e-5f;
	c.x = malloc(len * 2), c.w = malloc((size_t)n * 2), c.b = malloc((size_t)n * 2);
	c.want = malloc((size_t)rows * n * sizeof(double));
	c.want_mean = malloc((size_t)rows * sizeof(double));
	c.want_rstd = malloc((size_t)rows * sizeof(double));
	RefRng r = ref_rng(seed);
	ref_fill_f16(&r, c.x, len, 0.5, 2.5);
	ref_fill_f16(&r, c.w, (size_t)n, -1, 1);
	ref_fill_f16(&r, c.b, (size_t)n, -1, 1);
	reference(&c, eps);
	uint16_t *out[2], *got = malloc((size_t)rows * n * 2);
	float *mean[2], *rstd[2];
	Define d = {"BLOCK", next_pow2(n), false, 0};
	for (int opt = 0; opt < 2; opt++) {
		char label[96];
		snprintf(label, sizeof label, "layernorm rows=%d n=%d opt=%d", rows, n, opt);
		out[opt] = malloc(len * 2), mean[opt] = malloc((size_t)rows * 4), rstd[opt] = malloc((size_t)rows * 4);
		ref_poison_f16(out[opt], len);
		ref_poison_f32(mean[opt], (size_t)rows);
		ref_poison_f32(rstd[opt], (size_t)rows);
		KArg a[] = {kbuf(out[opt], len * 2), kbuf(mean[opt], (size_t)rows * 4), kbuf(rstd[opt], (size_t)rows * 4),
			    kbuf(c.x, len * 2), kbuf(c.w, (size_t)n * 2), kbuf(c.b, (size_t)n * 2),
			    kint(c.stride), kint(n), kfloat(eps)};
		if (!run_ok(path, NULL, &d, 1, opt, a, 9, rows, 1, 1))
			continue;
		unpad_rows(label, got, out[opt], 2, rows, n, c.stride);
		check_f16(label, got, c.want, (size_t)rows * n, 1e-2, 1e-2);
		check_f32(label, mean[opt], c.want_mean, (size_t)rows, 1e-5, 0);
		check_f32(label, rstd[opt], c.want_rstd, (size_t)rows, 1e-5, 0);
	}
	check_same("layernorm out", out[0], out[1], len * 2);
	check_same("layernorm mean", mean[0], mean[1], (size_t)rows * 4);
	check_same("layernorm rstd", rstd[0], rstd[1], (size_t)rows * 4);
	for (int opt = 0; opt < 2; opt++)
		free(out[opt]), free(mean[opt]), free(rstd[opt]);
	free(c.x), free(c.w), free(c.b), free(c.want), free(c.want_mean), free(c.want_rstd), free(got);
}

int main(void)
{
	int ns[] = {1, 7, 100, 781, 1024};
	for (int i = 0; i < 5; i++)
		for (int rows = 1; rows <= 5; rows++)
			one(rows, ns[i], 300 + (uint64_t)(i * 10 + rows));
	return check_summary("layernorm");
}
