/*
 * vector_add.c: dsl_examples/vector_add.tile in the interpreter.  Sizes
 * around and off the block (1, BLOCK - 1, BLOCK, BLOCK + 1, ragged), at
 * opt 0 and 1; out is poisoned, and its tail past n must keep the poison.
 */
#include "run.h"

static const char *path = "dsl_examples/vector_add.tile";

static void one(int n, int block, uint64_t seed)
{
	int pad = 5;
	size_t len = (size_t)n + (size_t)pad;
	float *x = malloc(len * 4), *y = malloc(len * 4), *out[2];
	double *want = malloc((size_t)n * sizeof *want);
	RefRng r = ref_rng(seed);
	ref_fill_f32(&r, x, len, -10, 10);
	ref_fill_f32(&r, y, len, -10, 10);
	for (int i = 0; i < n; i++)
		want[i] = (double)x[i] + (double)y[i];
	Define d = {"BLOCK", block, false, 0};
	for (int opt = 0; opt < 2; opt++) {
		char label[96];
		snprintf(label, sizeof label, "vector_add n=%d BLOCK=%d opt=%d", n, block, opt);
		out[opt] = malloc(len * 4);
		ref_poison_f32(out[opt], len);
		KArg a[] = {kbuf(x, (size_t)n * 4), kbuf(y, (size_t)n * 4), kbuf(out[opt], len * 4), kint(n)};
		if (!run_ok(path, NULL, &d, 1, opt, a, 4, cdiv(n, block), 1, 1))
			continue;
		check_f32(label, out[opt], want, (size_t)n, 1e-6, 0);
		for (size_t i = (size_t)n; i < len; i++)
			CHECKF(ref_is_poison_f32(out[opt][i]), "%s: out[%zu] past n was written", label, i);
	}
	check_same("vector_add", out[0], out[1], len * 4);
	free(x), free(y), free(out[0]), free(out[1]), free(want);
}

int main(void)
{
	int sizes[] = {1, 7, 63, 64, 65, 100, 1000, 4097};
	for (int i = 0; i < (int)(sizeof sizes / sizeof *sizes); i++)
		one(sizes[i], 64, 1 + (uint64_t)i);
	one(3000, 1024, 42);
	return check_summary("vector_add");
}
