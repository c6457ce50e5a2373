/*
 * attention.c: dsl_examples/attention.tile in the interpreter against a
 * double-precision softmax(Q K^T * scale) V of the same f16 inputs, for
 * several (batch * heads, sequence length) pairs, lengths on and off the
 * 32-row tiles (BM = BN = 32, D = 32 here), outputs poisoned first.  opt 0
 * and opt 1 agree bit for bit.  The same for attention_causal.tile (key j
 * <= query i only), also with BN = 2 BM, whose diagonal blocks start before
 * the program's first query.
 */
#include <math.h>

#include "run.h"

enum { D = 32, BM = 32 };

static void reference(int bh, int n, bool causal, const uint16_t *q, const uint16_t *k, const uint16_t *v,
                      double scale, double *want)
{
	double *s = malloc((size_t)n * sizeof *s);
	for (int h = 0; h < bh; h++) {
		size_t base = (size_t)h * n * D;
		for (int i = 0; i < n; i++) {
			int nk = causal ? i + 1 : n;
			double m = -INFINITY, l = 0;
			for (int j = 0; j < nk; j++) {
				double x = 0;
				for (int d = 0; d < D; d++)
					x += (double)ref_f16_to_f32(q[base + (size_t)i * D + d]) *
					     ref_f16_to_f32(k[base + (size_t)j * D + d]);
				s[j] = x * scale;
				m = s[j] > m ? s[j] : m;
			}
			for (int j = 0; j < nk; j++)
				l += s[j] = exp(s[j] - m);
			for (int d = 0; d < D; d++) {
				double o = 0;
				for (int j = 0; j < nk; j++)
					o += s[j] * ref_f16_to_f32(v[base + (size_t)j * D + d]);
				want[base + (size_t)i * D + d] = o / l;
			}
		}
	}
	free(s);
}

static void one(int bh, int n, bool causal, int bn, uint64_t seed)
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
	reference(bh, n, causal, q, k, v, (double)(float)scale, want);
	Define d[] = {{"BM", BM, DEF_INT, 0}, {"BN", bn, DEF_INT, 0}, {"D", D, DEF_INT, 0}};
	const char *name = causal ? "attention_causal" : "attention";
	char file[64];
	snprintf(file, sizeof file, "dsl_examples/%s.tile", name);
	for (int opt = 0; opt < 2; opt++) {
		snprintf(label, sizeof label, "%s bh=%d n=%d BN=%d opt=%d", name, bh, n, bn, opt);
		o[opt] = malloc(len * 2);
		ref_poison_f16(o[opt], len);
		KArg args[] = {kbuf(o[opt], len * 2), kbuf(q, len * 2), kbuf(k, len * 2), kbuf(v, len * 2), kint(n),
			       kfloat(scale), kint((int64_t)n * D), kint(D)};
		if (!run_ok(file, name, d, 3, opt, args, 8, cdiv(n, BM), bh, 1))
			continue;
		check_f16(label, o[opt], want, len, 1e-2, 1e-3);
	}
	snprintf(label, sizeof label, "%s n=%d BN=%d opt 0 vs 1", name, n, bn);
	check_same(label, o[0], o[1], len * 2);
	free(q), free(k), free(v), free(o[0]), free(o[1]), free(want);
}

int main(void)
{
	one(1, 32, false, 32, 900);
	one(2, 100, false, 32, 901);
	one(3, 7, false, 32, 902);
	one(1, 64, false, 32, 903);
	one(2, 100, true, 32, 904);
	one(1, 7, true, 32, 905);
	one(1, 130, true, 64, 906);
	return check_summary("attention");
}
