/*
 * attention.c: dsl_examples/attention.tile in the interpreter against a
 * double-precision softmax(Q K^T * scale) V of the same f16 inputs, for
 * several (batch * heads, sequence length) pairs, lengths on and off the
 * 32-row tiles (BM = BN = 32, D = 32 here), outputs poisoned first.  opt 0
 * and opt 1 agree bit for bit.
 */
#include <math.h>

#include "run.h"

enum { D = 32, BM = 32 };

static void reference(int bh, int n, const uint16_t *q, const uint16_t *k, const uint16_t *v, double scale,
                      double *want)
{
	double *s = malloc((size_t)n * sizeof *s);
	for (int h = 0; h < bh; h++) {
		size_t base = (size_t)h * n * D;
		for (int i = 0; i < n; i++) {
			double m = -INFINITY, l = 0;
			for (int j = 0; j < n; j++) {
				double x = 0;
				for (int d = 0; d < D; d++)
					x += (double)ref_f16_to_f32(q[base + (size_t)i * D + d]) *
					     ref_f16_to_f32(k[base + (size_t)j * D + d]);
				s[j] = x * scale;
				m = s[j] > m ? s[j] : m;
			}
			for (int j = 0; j < n; j++)
				l += s[j] = exp(s[j] - m);
			for (int d = 0; d < D; d++) {
				double o = 0;
				for (int j = 0; j < n; j++)
					o += s[j] * ref_f16_to_f32(v[base + (size_t)j * D + d]);
				want[base + (size_t)i * D + d] = o / l;
			}
		}
	}
	free(s);
}

static void one(int bh, int n, uint64_t seed)
{
	char label[96];
	size_t len = (size_t)bh * n * D;
	uint16_t *q = malloc(len * 2), *k = malloc(len * 2), *v = malloc(len * 2), *o[2];
	double *want = malloc(len * sizeof *want);
	RefRng r = ref_rng(seed);
	ref_fill_f16(&r, q, len, -2, 2);
	ref_fill_f16(&r, k, len, -2, 2);
	ref_fill_f16(&r, v, len, -1, 1);
	double scale = 1.0 / sqrt((double)D);
	/* the kernel gets scale as an f32 */
	reference(bh, n, q, k, v, (double)(float)scale, want);
	Define d[] = {{"BM", BM, DEF_INT, 0}, {"BN", 32, DEF_INT, 0}, {"D", D, DEF_INT, 0}};
	for (int opt = 0; opt < 2; opt++) {
		snprintf(label, sizeof label, "attention bh=%d n=%d opt=%d", bh, n, opt);
		o[opt] = malloc(len * 2);
		ref_poison_f16(o[opt], len);
		KArg args[] = {kbuf(o[opt], len * 2), kbuf(q, len * 2), kbuf(k, len * 2), kbuf(v, len * 2), kint(n),
			       kfloat(scale), kint((int64_t)n * D), kint(D)};
		if (!run_ok("dsl_examples/attention.tile", "attention", d, 3, opt, args, 8, cdiv(n, BM), bh, 1))
			continue;
		check_f16(label, o[opt], want, len, 1e-2, 1e-3);
	}
	check_same("attention opt 0 vs 1", o[0], o[1], len * 2);
	free(q), free(k), free(v), free(o[0]), free(o[1]), free(want);
}

int main(void)
{
	one(1, 32, 900);
	one(2, 100, 901);
	one(3, 7, 902);
	one(1, 64, 903);
	return check_summary("attention");
}
