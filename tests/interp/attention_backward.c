/*
 * attention_backward.c: dsl_examples/attention_backward.tile's four kernels
 * in the interpreter, in the order training runs them (forward with lse,
 * delta, dK/dV, dQ), against ref.h's double-precision backward of the same
 * f16 inputs.
 * Sequence lengths on and off the tiles (D = 32; BM = BN = 32, and BN =
 * 2 BM), outputs poisoned first; opt 0 and opt 1 agree bit for bit.
 */
#include <math.h>

#include "run.h"

enum { D = 32 };

static const char *path = "dsl_examples/attention_backward.tile";

static void one(int bh, int n, int bm, int bn, uint64_t seed)
{
	char label[128];
	size_t len = (size_t)bh * n * D, rows = (size_t)bh * n;
	uint16_t *q = malloc(len * 2), *k = malloc(len * 2), *v = malloc(len * 2), *dout = malloc(len * 2);
	RefAttention want = {malloc(len * 8), malloc(rows * 8), malloc(rows * 8), malloc(len * 8), malloc(len * 8),
	                     malloc(len * 8)};
	RefRng r = ref_rng(seed);
	ref_fill_f16(&r, q, len, -2, 2);
	ref_fill_f16(&r, k, len, -2, 2);
	ref_fill_f16(&r, v, len, -1, 1);
	ref_fill_f16(&r, dout, len, -1, 1);
	double scale = 1.0 / sqrt((double)D);
	ref_attention_backward(bh, n, D, q, k, v, dout, (double)(float)scale, &want);
	Define d[] = {{"BM", bm, DEF_INT, 0}, {"BN", bn, DEF_INT, 0}, {"D", D, DEF_INT, 0}};
	Define dpre[] = {{"BM", bm, DEF_INT, 0}, {"D", D, DEF_INT, 0}};
	uint16_t *out[2][4]; /* o, dq, dk, dv */
	float *lse[2], *delta[2];
	int64_t sh = (int64_t)n * D;
	for (int opt = 0; opt < 2; opt++) {
		for (int i = 0; i < 4; i++) {
			out[opt][i] = malloc(len * 2);
			ref_poison_f16(out[opt][i], len);
		}
		lse[opt] = malloc(rows * 4);
		delta[opt] = malloc(rows * 4);
		ref_poison_f32(lse[opt], rows);
		ref_poison_f32(delta[opt], rows);
		KArg o = kbuf(out[opt][0], len * 2), dq = kbuf(out[opt][1], len * 2), dk = kbuf(out[opt][2], len * 2),
		     dv = kbuf(out[opt][3], len * 2), kq = kbuf(q, len * 2), kk = kbuf(k, len * 2), kv = kbuf(v, len * 2),
		     kdo = kbuf(dout, len * 2), kl = kbuf(lse[opt], rows * 4), kd = kbuf(delta[opt], rows * 4);
		KArg fwd[] = {o, kl, kq, kk, kv, kint(n), kfloat(scale), kint(sh), kint(D)};
		KArg pre[] = {kd, o, kdo, kint(n), kint(sh), kint(D)};
		KArg dkdv[] = {dk, dv, kq, kk, kv, kdo, kl, kd, kint(n), kfloat(scale), kint(sh), kint(D)};
		KArg dqa[] = {dq, kq, kk, kv, kdo, kl, kd, kint(n), kfloat(scale), kint(sh), kint(D)};
		snprintf(label, sizeof label, "attention_backward bh=%d n=%d BM=%d BN=%d opt=%d", bh, n, bm, bn, opt);
		if (!run_ok(path, "attention_fwd", d, 3, opt, fwd, 9, cdiv(n, bm), bh, 1) ||
		    !run_ok(path, "attention_bwd_pre", dpre, 2, opt, pre, 6, cdiv(n, bm), bh, 1) ||
		    !run_ok(path, "attention_bwd_dkdv", d, 3, opt, dkdv, 12, cdiv(n, bn), bh, 1) ||
		    !run_ok(path, "attention_bwd_dq", d, 3, opt, dqa, 11, cdiv(n, bm), bh, 1))
			continue;
		char what[160];
		snprintf(what, sizeof what, "%s o", label);
		check_f16(what, out[opt][0], want.o, len, 1e-2, 1e-3);
		snprintf(what, sizeof what, "%s lse", label);
		check_f32(what, lse[opt], want.lse, rows, 1e-5, 1e-4);
		snprintf(what, sizeof what, "%s delta", label);
		check_f32(what, delta[opt], want.delta, rows, 1e-2, 1e-2 * ref_peak(want.delta, rows));
		double *wg[3] = {want.dq, want.dk, want.dv};
		const char *names[3] = {"dq", "dk", "dv"};
		for (int i = 0; i < 3; i++) {
			snprintf(what, sizeof what, "%s %s", label, names[i]);
			check_f16(what, out[opt][i + 1], wg[i], len, 2e-2, 1e-2 * ref_peak(wg[i], len));
		}
	}
	snprintf(label, sizeof label, "attention_backward n=%d BM=%d BN=%d opt 0 vs 1", n, bm, bn);
	for (int i = 0; i < 4; i++)
		check_same(label, out[0][i], out[1][i], len * 2);
	check_same(label, lse[0], lse[1], rows * 4);
	check_same(label, delta[0], delta[1], rows * 4);
	for (int opt = 0; opt < 2; opt++) {
		for (int i = 0; i < 4; i++)
			free(out[opt][i]);
		free(lse[opt]), free(delta[opt]);
	}
	free(q), free(k), free(v), free(dout);
	free(want.o), free(want.lse), free(want.delta), free(want.dq), free(want.dk), free(want.dv);
}

int main(void)
{
	one(1, 32, 32, 32, 950);
	one(2, 100, 32, 32, 951);
	one(3, 7, 32, 32, 952);
	one(1, 64, 32, 32, 953);
	one(2, 100, 32, 64, 954);
	one(1, 130, 32, 64, 955);
	return check_summary("attention_backward");
}
