/*
 * matmul_more.c: dsl_examples/batched_matmul.tile (3-D grid, f16) and
 * matmul_f32.tile (IEEE, and with TF32 allowed, which the interpreter
 * computes in f32 too) in the interpreter against double products of the
 * same inputs, on shapes off the tile; and the int8 kernels, matmul_i8.tile
 * (B [K, N]) and linear_i8.tile (W [N, K], f16 out), against exact integer
 * sums.  Outputs poisoned first; opt 0 and opt 1 agree bit for bit.
 */
#include "run.h"

static void batched(int Z, int M, int N, int K, uint64_t seed)
{
	char label[128];
	size_t na = (size_t)Z * M * K, nb = (size_t)Z * K * N, nc = (size_t)Z * M * N;
	uint16_t *a = malloc(na * 2), *b = malloc(nb * 2), *c[2];
	double *want = malloc(nc * sizeof *want);
	RefRng r = ref_rng(seed);
	ref_fill_f16(&r, a, na, -1, 1);
	ref_fill_f16(&r, b, nb, -1, 1);
	for (int z = 0; z < Z; z++)
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				double acc = 0;
				for (int k = 0; k < K; k++)
					acc += (double)ref_f16_to_f32(a[((size_t)z * M + i) * K + k]) *
					       ref_f16_to_f32(b[((size_t)z * K + k) * N + j]);
				want[((size_t)z * M + i) * N + j] = acc;
			}
	Define d[] = {{"BM", 32, DEF_INT, 0}, {"BN", 32, DEF_INT, 0}, {"BK", 16, DEF_INT, 0}};
	for (int opt = 0; opt < 2; opt++) {
		snprintf(label, sizeof label, "batched_matmul %dx%dx%dx%d opt=%d", Z, M, N, K, opt);
		c[opt] = malloc(nc * 2);
		ref_poison_f16(c[opt], nc);
		KArg args[] = {kbuf(c[opt], nc * 2), kbuf(a, na * 2), kbuf(b, nb * 2), kint(M), kint(N), kint(K),
			       kint((int64_t)M * K), kint(K), kint(1), kint((int64_t)K * N), kint(N), kint(1),
			       kint((int64_t)M * N), kint(N), kint(1)};
		if (run_ok("dsl_examples/batched_matmul.tile", "batched_matmul", d, 3, opt, args, 15, cdiv(M, 32),
			   cdiv(N, 32), Z))
			check_f16(label, c[opt], want, nc, 1e-2, 1e-3);
	}
	check_same(label, c[0], c[1], nc * 2);
	free(a), free(b), free(c[0]), free(c[1]), free(want);
}

static void f32(int M, int N, int K, int tf32, uint64_t seed)
{
	char label[128];
	size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
	float *a = malloc(na * 4), *b = malloc(nb * 4), *c[2];
	double *want = malloc(nc * sizeof *want);
	RefRng r = ref_rng(seed);
	ref_fill_f32(&r, a, na, -1, 1);
	ref_fill_f32(&r, b, nb, -1, 1);
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double acc = 0;
			for (int k = 0; k < K; k++)
				acc += (double)a[(size_t)i * K + k] * b[(size_t)k * N + j];
			want[(size_t)i * N + j] = acc;
		}
	Define d[] = {{"BM", 32, DEF_INT, 0}, {"BN", 32, DEF_INT, 0}, {"BK", 16, DEF_INT, 0}, {"TF32", tf32, DEF_INT, 0}};
	for (int opt = 0; opt < 2; opt++) {
		snprintf(label, sizeof label, "matmul_f32 %dx%dx%d tf32=%d opt=%d", M, N, K, tf32, opt);
		c[opt] = malloc(nc * 4);
		ref_poison_f32(c[opt], nc);
		KArg args[] = {kbuf(c[opt], nc * 4), kbuf(a, na * 4), kbuf(b, nb * 4), kint(M), kint(N), kint(K),
			       kint(K), kint(1), kint(N), kint(1), kint(N), kint(1)};
		if (run_ok("dsl_examples/matmul_f32.tile", "matmul_f32", d, 4, opt, args, 12,
			   cdiv(M, 32) * cdiv(N, 32), 1, 1))
			check_f32(label, c[opt], want, nc, 1e-5, 1e-6);
	}
	check_same(label, c[0], c[1], nc * 4);
	free(a), free(b), free(c[0]), free(c[1]), free(want);
}

static void fill_i8(RefRng *r, int8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (int8_t)floor(ref_uniform(r, -128, 128));
}

/* matmul_i8 (B [K, N]) or linear_i8 (W [N, K] rows `pad` longer than K, bias, f16 out) */
static void int8(bool linear, int M, int N, int K, int pad, uint64_t seed)
{
	char label[128];
	int ld = K + pad;
	size_t na = (size_t)M * ld, nb = (size_t)N * ld, nc = (size_t)M * N, esz = linear ? 2 : 4;
	int8_t *a = malloc(na), *b = malloc(nb);
	float *sa = malloc(4 * (size_t)M), *sb = malloc(4 * (size_t)N), *bias = malloc(4 * (size_t)N);
	void *c[2];
	double *want = malloc(nc * sizeof *want);
	RefRng r = ref_rng(seed);
	fill_i8(&r, a, na);
	fill_i8(&r, b, nb);
	ref_fill_f32(&r, sa, (size_t)M, 0.0005, 0.002);
	ref_fill_f32(&r, sb, (size_t)N, 0.0005, 0.002);
	ref_fill_f32(&r, bias, (size_t)N, -2, 2);
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			int64_t s = 0;
			for (int k = 0; k < K; k++)
				s += a[(size_t)i * ld + k] * b[linear ? (size_t)j * ld + k : (size_t)k * N + j];
			float y = (float)s * sa[i] * sb[j];
			want[(size_t)i * N + j] = linear ? (double)(y + bias[j]) : (double)y;
		}
	Define d[] = {{"BM", 32, DEF_INT, 0}, {"BN", 32, DEF_INT, 0}, {"BK", 32, DEF_INT, 0}};
	for (int opt = 0; opt < 2; opt++) {
		snprintf(label, sizeof label, "%s %dx%dx%d pad=%d opt=%d", linear ? "linear_i8" : "matmul_i8", M, N, K,
		         pad, opt);
		c[opt] = malloc(nc * esz);
		if (linear) {
			ref_poison_f16(c[opt], nc);
			KArg args[] = {kbuf(c[opt], nc * 2),     kbuf(a, na),   kbuf(b, nb),  kbuf(sa, 4 * (size_t)M),
			               kbuf(sb, 4 * (size_t)N), kbuf(bias, 4 * (size_t)N), kint(M), kint(N), kint(K),
			               kint(ld),                kint(ld),      kint(N)};
			if (run_ok("dsl_examples/linear_i8.tile", "linear_i8", d, 3, opt, args, 12, cdiv(M, 32) * cdiv(N, 32),
			           1, 1))
				check_f16(label, c[opt], want, nc, 1e-2, 1e-2);
		} else {
			ref_poison_f32(c[opt], nc);
			KArg args[] = {kbuf(c[opt], nc * 4),    kbuf(a, na), kbuf(b, nb), kbuf(sa, 4 * (size_t)M),
			               kbuf(sb, 4 * (size_t)N), kint(M),     kint(N),     kint(K),
			               kint(ld),                kint(N),     kint(N)};
			if (run_ok("dsl_examples/matmul_i8.tile", "matmul_i8", d, 3, opt, args, 11, cdiv(M, 32) * cdiv(N, 32),
			           1, 1))
				check_f32(label, c[opt], want, nc, 1e-6, 0);
		}
	}
	check_same(label, c[0], c[1], nc * esz);
	free(a), free(b), free(sa), free(sb), free(bias), free(c[0]), free(c[1]), free(want);
}

int main(void)
{
	batched(3, 40, 36, 20, 700);
	batched(1, 32, 32, 32, 701);
	f32(45, 70, 33, 0, 710);
	f32(32, 32, 16, 1, 711);
	int8(false, 45, 70, 100, 0, 720);
	int8(true, 45, 70, 100, 12, 721);
	int8(true, 64, 32, 96, 0, 722);
	return check_summary("matmul_more");
}
