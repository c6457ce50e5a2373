/*
 * matmul.c: dsl_examples/matmul.tile, matmul_relu.tile, linear.tile (relu
 * of alpha * product + bias) and matmul_nt.tile (A @ W^T, W stored [N, K])
 * in the interpreter, with BM = BN = 32, BK = 16,
 * GROUP_M = 2, against a double product of the same f16 inputs.  Shapes off the tile (70x50x40, 17x33x5,
 * 1x1x1) and on it (64x64x64); B both row-major and transposed (strides
 * swapped); C with a padded row stride whose padding must keep its poison.
 * opt 0 and opt 1 agree bit for bit.
 */
#include "run.h"

typedef struct Shape {
	int M, N, K;
	bool bt;   /* B stored as [N, K] */
} Shape;

enum { ALPHA_X4 = 3 }; /* linear's alpha = 0.75, exact in f32 */

static void reference(Shape s, const uint16_t *a, const uint16_t *b, int sbk, int sbn, bool relu,
                      const float *bias, double *want)
{
	for (int i = 0; i < s.M; i++)
		for (int j = 0; j < s.N; j++) {
			double acc = 0;
			for (int k = 0; k < s.K; k++)
				acc += (double)ref_f16_to_f32(a[(size_t)i * s.K + k]) *
				       ref_f16_to_f32(b[(size_t)k * sbk + (size_t)j * sbn]);
			if (bias)
				acc = acc * ALPHA_X4 / 4 + bias[j];
			want[(size_t)i * s.N + j] = relu && acc < 0 ? 0 : acc;
		}
}

static void one(const char *kernel, Shape s, uint64_t seed)
{
	char path[96], label[128];
	bool linear = strcmp(kernel, "linear") == 0;
	bool relu = linear || strcmp(kernel, "matmul_relu") == 0;
	snprintf(path, sizeof path, "dsl_examples/%s.tile", kernel);
	int ldc = s.N + 3, sbk = s.bt ? 1 : s.N, sbn = s.bt ? s.K : 1;
	size_t clen = (size_t)s.M * ldc;
	uint16_t *a = malloc((size_t)s.M * s.K * 2), *b = malloc((size_t)s.K * s.N * 2), *c[2];
	uint16_t *got = malloc((size_t)s.M * s.N * 2);
	double *want = malloc((size_t)s.M * s.N * sizeof *want);
	RefRng r = ref_rng(seed);
	ref_fill_f16(&r, a, (size_t)s.M * s.K, -1, 1);
	ref_fill_f16(&r, b, (size_t)s.K * s.N, -1, 1);
	float *bias = malloc((size_t)s.N * 4);
	ref_fill_f32(&r, bias, (size_t)s.N, -2, 2);
	reference(s, a, b, sbk, sbn, relu, linear ? bias : NULL, want);
	Define d[] = {{"BM", 32, DEF_INT, 0}, {"BN", 32, DEF_INT, 0}, {"BK", 16, DEF_INT, 0}, {"GROUP_M", 2, DEF_INT, 0}};
	int grid = cdiv(s.M, 32) * cdiv(s.N, 32);
	for (int opt = 0; opt < 2; opt++) {
		snprintf(label, sizeof label, "%s %dx%dx%d%s opt=%d", kernel, s.M, s.N, s.K, s.bt ? " (B transposed)" : "",
			 opt);
		c[opt] = malloc(clen * 2);
		ref_poison_f16(c[opt], clen);
		KArg args[] = {kbuf(c[opt], clen * 2), kbuf(a, (size_t)s.M * s.K * 2), kbuf(b, (size_t)s.K * s.N * 2),
			       kint(s.M), kint(s.N), kint(s.K), kint(s.K), kint(1), kint(sbk), kint(sbn), kint(ldc), kint(1)};
		KArg largs[] = {args[0], args[1], args[2], kbuf(bias, (size_t)s.N * 4), kfloat(ALPHA_X4 / 4.0),
				args[3], args[4], args[5], args[6], args[7], args[8], args[9], args[10], args[11]};
		if (!run_ok(path, kernel, d, 4, opt, linear ? largs : args, linear ? 14 : 12, grid, 1, 1))
			continue;
		unpad_rows(label, got, c[opt], 2, s.M, s.N, ldc);
		check_f16(label, got, want, (size_t)s.M * s.N, 1e-2, 1e-3);
	}
	check_same(label, c[0], c[1], clen * 2);
	free(a), free(b), free(c[0]), free(c[1]), free(got), free(want), free(bias);
}

static void one_nt(Shape s, uint64_t seed)
{
	char label[96];
	uint16_t *a = malloc((size_t)s.M * s.K * 2), *w = malloc((size_t)s.N * s.K * 2), *c[2];
	double *want = malloc((size_t)s.M * s.N * sizeof *want);
	RefRng r = ref_rng(seed);
	ref_fill_f16(&r, a, (size_t)s.M * s.K, -1, 1);
	ref_fill_f16(&r, w, (size_t)s.N * s.K, -1, 1);
	/* W^T read as B: element (k, n) at n * K + k */
	reference(s, a, w, 1, s.K, false, NULL, want);
	Define d[] = {{"BM", 32, DEF_INT, 0}, {"BN", 32, DEF_INT, 0}, {"BK", 16, DEF_INT, 0}};
	for (int opt = 0; opt < 2; opt++) {
		snprintf(label, sizeof label, "matmul_nt %dx%dx%d opt=%d", s.M, s.N, s.K, opt);
		c[opt] = malloc((size_t)s.M * s.N * 2);
		ref_poison_f16(c[opt], (size_t)s.M * s.N);
		KArg args[] = {kbuf(c[opt], (size_t)s.M * s.N * 2), kbuf(a, (size_t)s.M * s.K * 2),
			       kbuf(w, (size_t)s.N * s.K * 2), kint(s.M), kint(s.N), kint(s.K)};
		if (!run_ok("dsl_examples/matmul_nt.tile", "matmul_nt", d, 3, opt, args, 6, cdiv(s.M, 32), cdiv(s.N, 32), 1))
			continue;
		check_f16(label, c[opt], want, (size_t)s.M * s.N, 1e-2, 1e-3);
	}
	check_same(label, c[0], c[1], (size_t)s.M * s.N * 2);
	free(a), free(w), free(c[0]), free(c[1]), free(want);
}

int main(void)
{
	Shape shapes[] = {{70, 50, 40, false}, {64, 64, 64, false}, {17, 33, 5, false}, {1, 1, 1, false},
			  {70, 50, 40, true}, {100, 20, 33, false}};
	for (int i = 0; i < 6; i++) {
		one("matmul", shapes[i], 500 + (uint64_t)i);
		one("matmul_relu", shapes[i], 600 + (uint64_t)i);
		one("linear", shapes[i], 700 + (uint64_t)i);
		one_nt(shapes[i], 800 + (uint64_t)i);
	}
	return check_summary("matmul");
}
