/*
 * mean.c: the three kernels of dsl_examples/mean.tile in the interpreter.
 * mean_atomic over P programs into a zeroed out; mean_partial's per-program
 * sums (each program's grid-stride chunks, against double), then
 * mean_final on them with a BLOCK smaller than the number of partials, so
 * its loop runs more than once and ends ragged.  opt 0 == opt 1 bitwise.
 */
#include "run.h"

static const char *path = "dsl_examples/mean.tile";

/* the sum program p of P sees in the grid-stride loop */
static double chunk_sum(const float *x, int n, int block, int p, int P)
{
	double s = 0;
	for (int start = p * block; start < n; start += P * block)
		for (int i = start; i < start + block && i < n; i++)
			s += x[i];
	return s;
}

static void atomic_case(int n, int P, int block, uint64_t seed)
{
	float *x = malloc((size_t)n * 4), out[2];
	RefRng r = ref_rng(seed);
	ref_fill_f32(&r, x, (size_t)n, 0, 1);
	double want = chunk_sum(x, n, 1, 0, 1) / n;
	Define d = {"BLOCK", block, false, 0};
	for (int opt = 0; opt < 2; opt++) {
		char label[96];
		snprintf(label, sizeof label, "mean_atomic n=%d P=%d BLOCK=%d opt=%d", n, P, block, opt);
		out[opt] = 0;
		KArg a[] = {kbuf(&out[opt], 4), kbuf(x, (size_t)n * 4), kint(n), kfloat(1.0f / (float)n)};
		if (run_ok(path, "mean_atomic", &d, 1, opt, a, 4, P, 1, 1))
			check_f32(label, &out[opt], &want, 1, 1e-5, 0);
	}
	check_same("mean_atomic", &out[0], &out[1], 4);
	free(x);
}

static void partial_case(int n, int P, int block, int final_block, uint64_t seed)
{
	float *x = malloc((size_t)n * 4), *part[2], out[2];
	double *want = malloc((size_t)P * sizeof *want), total = 0;
	RefRng r = ref_rng(seed);
	ref_fill_f32(&r, x, (size_t)n, 0, 1);
	for (int p = 0; p < P; p++)
		total += (want[p] = chunk_sum(x, n, block, p, P));
	double want_mean = total / n;
	Define d = {"BLOCK", block, false, 0}, fd = {"BLOCK", final_block, false, 0};
	for (int opt = 0; opt < 2; opt++) {
		char label[96];
		snprintf(label, sizeof label, "mean_partial n=%d P=%d BLOCK=%d opt=%d", n, P, block, opt);
		part[opt] = malloc((size_t)(P + 1) * 4);
		ref_poison_f32(part[opt], (size_t)P + 1);
		ref_poison_f32(&out[opt], 1);
		KArg a[] = {kbuf(part[opt], (size_t)(P + 1) * 4), kbuf(x, (size_t)n * 4), kint(n)};
		if (!run_ok(path, "mean_partial", &d, 1, opt, a, 3, P, 1, 1))
			continue;
		check_f32(label, part[opt], want, (size_t)P, 1e-5, 1e-6);
		CHECKF(ref_is_poison_f32(part[opt][P]), "%s: partial[P] was written", label);
		KArg b[] = {kbuf(&out[opt], 4), kbuf(part[opt], (size_t)P * 4), kint(P), kfloat(1.0f / (float)n)};
		snprintf(label, sizeof label, "mean_final n=%d m=%d BLOCK=%d opt=%d", n, P, final_block, opt);
		if (run_ok(path, "mean_final", &fd, 1, opt, b, 4, 1, 1, 1))
			check_f32(label, &out[opt], &want_mean, 1, 1e-5, 0);
	}
	check_same("mean_partial", part[0], part[1], (size_t)(P + 1) * 4);
	check_same("mean_final", &out[0], &out[1], 4);
	free(x), free(part[0]), free(part[1]), free(want);
}

int main(void)
{
	int ns[] = {1, 255, 256, 1000, 5003};
	for (int i = 0; i < 5; i++) {
		atomic_case(ns[i], 1, 256, 400 + (uint64_t)i);
		atomic_case(ns[i], 3, 128, 410 + (uint64_t)i);
		partial_case(ns[i], 7, 128, 4, 420 + (uint64_t)i);
		partial_case(ns[i], 2, 512, 2, 430 + (uint64_t)i);
	}
	atomic_case(3000, 2, 4096, 440);
	return check_summary("mean");
}
