/*
 * softmax_backward.c: dsl_examples/softmax_backward.tile in the interpreter:
 * dx = y * (dy - sum(dy * y)) row by row, against double, with y a real
 * softmax output.  Ragged n, 1 to 5 rows, padded stride; opt 0 == opt 1.
 */
#include "run.h"

static const char *path = "dsl_examples/softmax_backward.tile";

static void make_inputs(RefRng *r, float *dy, float *y, int rows, int n, int stride)
{
	ref_fill_f32(r, dy, (size_t)rows * stride, -1, 1);
	for (int row = 0; row < rows; row++) {
		float *p = y + (size_t)row * stride;
		double s = 0;
		for (int i = 0; i < stride; i++)
			s += (p[i] = (float)exp(ref_uniform(r, -3, 3)));
		for (int i = 0; i < n; i++)
			p[i] = (float)(p[i] / s);
	}
}

static void one(int rows, int n, uint64_t seed)
{
	int stride = n + 2;
	size_t len = (size_t)rows * stride;
	float *dy = malloc(len * 4), *y = malloc(len * 4), *dx[2], *got = malloc((size_t)rows * n * 4);
	double *want = malloc((size_t)rows * n * sizeof *want);
	RefRng r = ref_rng(seed);
	make_inputs(&r, dy, y, rows, n, stride);
	for (int row = 0; row < rows; row++) {
		const float *g = dy + (size_t)row * stride, *p = y + (size_t)row * stride;
		double s = 0;
		for (int i = 0; i < n; i++)
			s += (double)g[i] * p[i];
		for (int i = 0; i < n; i++)
			want[(size_t)row * n + i] = p[i] * (g[i] - s);
	}
	Define d = {"BLOCK", next_pow2(n), false, 0};
	for (int opt = 0; opt < 2; opt++) {
		char label[96];
		snprintf(label, sizeof label, "softmax_backward rows=%d n=%d opt=%d", rows, n, opt);
		dx[opt] = malloc(len * 4);
		ref_poison_f32(dx[opt], len);
		KArg a[] = {kbuf(dx[opt], len * 4), kbuf(dy, len * 4), kbuf(y, len * 4), kint(stride), kint(n)};
		if (!run_ok(path, NULL, &d, 1, opt, a, 5, rows, 1, 1))
			continue;
		unpad_rows(label, got, dx[opt], 4, rows, n, stride);
		/* y * (dy - s) cancels when dy ~ s: allow an absolute error of a few f32 ulps of y * |dy| */
		check_f32(label, got, want, (size_t)rows * n, 1e-5, 1e-7);
	}
	check_same("softmax_backward", dx[0], dx[1], len * 4);
	free(dy), free(y), free(dx[0]), free(dx[1]), free(got), free(want);
}

int main(void)
{
	int ns[] = {1, 7, 100, 781, 1024};
	for (int i = 0; i < 5; i++)
		for (int rows = 1; rows <= 5; rows++)
			one(rows, ns[i], 200 + (uint64_t)(i * 10 + rows));
	return check_summary("softmax_backward");
}
