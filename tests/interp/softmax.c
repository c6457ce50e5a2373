/*
 * softmax.c: dsl_examples/softmax.tile in the interpreter against softmax
 * in double.  n = 1, 7, 100, 781, 1024 with BLOCK the next power of two,
 * 1 to 5 rows, row stride n + 3; the 3 padding columns of out must keep
 * their poison.  opt 0 and opt 1 must agree bit for bit.
 */
#include "run.h"

static const char *path = "dsl_examples/softmax.tile";

static void one(int rows, int n, uint64_t seed)
{
	int stride = n + 3;
	size_t len = (size_t)rows * stride;
	float *in = malloc(len * 4), *out[2];
	float *got = malloc((size_t)rows * n * 4);
	double *want = malloc((size_t)rows * n * sizeof *want);
	RefRng r = ref_rng(seed);
	ref_fill_f32(&r, in, len, -8, 8);
	for (int row = 0; row < rows; row++)
		ref_softmax_row(want + (size_t)row * n, in + (size_t)row * stride, n);
	Define d = {"BLOCK", next_pow2(n), false, 0};
	for (int opt = 0; opt < 2; opt++) {
		char label[96];
		snprintf(label, sizeof label, "softmax rows=%d n=%d opt=%d", rows, n, opt);
		out[opt] = malloc(len * 4);
		ref_poison_f32(out[opt], len);
		KArg a[] = {kbuf(out[opt], len * 4), kbuf(in, len * 4), kint(stride), kint(n)};
		if (!run_ok(path, NULL, &d, 1, opt, a, 4, rows, 1, 1))
			continue;
		unpad_rows(label, got, out[opt], 4, rows, n, stride);
		check_f32(label, got, want, (size_t)rows * n, 1e-5, 1e-12);
	}
	check_same("softmax", out[0], out[1], len * 4);
	free(in), free(out[0]), free(out[1]), free(got), free(want);
}

int main(void)
{
	int ns[] = {1, 7, 100, 781, 1024};
	for (int i = 0; i < 5; i++)
		for (int rows = 1; rows <= 5; rows++)
			one(rows, ns[i], 100 + (uint64_t)(i * 10 + rows));
	return check_summary("softmax");
}
