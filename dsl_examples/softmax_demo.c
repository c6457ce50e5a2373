/*
 * softmax_demo.c: what `make demo` runs.
 *
 * Compiles dsl_examples/softmax.tile and runs it on a 37 x 781 matrix
 * (rows not a multiple of anything, columns not a power of two): on the GPU
 * through the JIT API when a CUDA driver and device are present, otherwise
 * in the CPU interpreter, saying which.  The result is compared with a
 * plain C softmax in double precision.
 *
 *     build/softmax_demo [dsl_examples/softmax.tile]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "interp.h"
#include "tilec.h"

enum { ROWS = 37, COLS = 781, BLOCK = 1024 };

static void reference(double *ref, const float *x)
{
	for (int r = 0; r < ROWS; r++) {
		double m = -INFINITY, s = 0;
		for (int c = 0; c < COLS; c++)
			m = fmax(m, x[r * COLS + c]);
		for (int c = 0; c < COLS; c++)
			s += exp(x[r * COLS + c] - m);
		for (int c = 0; c < COLS; c++)
			ref[r * COLS + c] = exp(x[r * COLS + c] - m) / s;
	}
}

static double max_rel_error(const float *out, const double *ref)
{
	double worst = 0;
	for (int i = 0; i < ROWS * COLS; i++) {
		double e = fabs(out[i] - ref[i]) / fmax(fabs(ref[i]), 1e-30);
		if (!(e <= worst)) /* NaN counts as the worst */
			worst = isnan(e) ? INFINITY : e;
	}
	return worst;
}

static int run_gpu(tilec_context *ctx, const char *src, const float *x, float *out)
{
	size_t bytes = sizeof(float) * ROWS * COLS;
	tilec_define defs[] = {{"BLOCK", BLOCK}};
	tilec_options o = {.defines = defs, .ndefines = 1};
	tilec_kernel *k = NULL;
	unsigned long long dx = 0, dout = 0;
	int ok = tilec_compile(ctx, src, "softmax", &o, &k) == TILEC_OK &&
		 tilec_malloc(ctx, bytes, &dx) == TILEC_OK && tilec_malloc(ctx, bytes, &dout) == TILEC_OK &&
		 tilec_memcpy_htod(ctx, dx, x, bytes) == TILEC_OK;
	if (ok) {
		tilec_arg args[] = {tilec_ptr(dout), tilec_ptr(dx), tilec_i32(COLS), tilec_i32(COLS)};
		ok = tilec_launch(k, ROWS, 1, 1, NULL, args, 4) == TILEC_OK &&
		     tilec_memcpy_dtoh(ctx, out, dout, bytes) == TILEC_OK;
	}
	if (!ok)
		fprintf(stderr, "softmax_demo: %s\n", tilec_context_error(ctx));
	if (dx)
		tilec_free(ctx, dx);
	if (dout)
		tilec_free(ctx, dout);
	tilec_kernel_destroy(k);
	return ok ? 0 : 1;
}

static int run_interp(const char *path, const char *src, const float *x, float *out)
{
	Define d = {.name = "BLOCK", .value = BLOCK};
	CompileOptions o = {.emit = EMIT_IR, .opt = 1, .defines = &d, .ndefines = 1};
	Compilation *c = compilation_new(path, src, strlen(src));
	int rc = compile_kernel(c, &o);
	if (rc) {
		fprintf(stderr, "%s", c->diag.out.s);
		compilation_free(c);
		return 1;
	}
	Interp *it = interp_new(c->func, path);
	uint64_t px = interp_buffer(it, (void *)x, sizeof(float) * ROWS * COLS);
	uint64_t pout = interp_buffer(it, out, sizeof(float) * ROWS * COLS);
	InterpArg args[] = {{.ptr = pout}, {.ptr = px}, {.i = COLS}, {.i = COLS}};
	int grid[3] = {ROWS, 1, 1};
	rc = interp_run(it, args, 4, grid);
	if (rc)
		fprintf(stderr, "%s\n", interp_error(it));
	interp_free(it);
	compilation_free(c);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "dsl_examples/softmax.tile";
	size_t len;
	char *src = read_file(path, &len);
	if (!src) {
		fprintf(stderr, "softmax_demo: cannot read %s\n", path);
		return 1;
	}
	float *x = malloc(sizeof(float) * ROWS * COLS), *out = malloc(sizeof(float) * ROWS * COLS);
	double *ref = malloc(sizeof(double) * ROWS * COLS);
	unsigned s = 12345;
	for (int i = 0; i < ROWS * COLS; i++) {
		s = s * 1664525u + 1013904223u;
		x[i] = (float)((s >> 8) * (1.0 / 16777216.0) * 8.0 - 4.0);
		out[i] = NAN; /* poisoned: every element must be written */
	}
	reference(ref, x);

	tilec_context *ctx = NULL;
	int rc;
	if (tilec_context_create(0, &ctx) == TILEC_OK) {
		printf("softmax %dx%d on the GPU (JIT)\n", ROWS, COLS);
		rc = run_gpu(ctx, src, x, out);
	} else {
		printf("no GPU: %s\nsoftmax %dx%d in the interpreter instead\n", tilec_context_error(ctx), ROWS, COLS);
		rc = run_interp(path, src, x, out);
	}
	tilec_context_destroy(ctx);
	if (rc == 0) {
		double err = max_rel_error(out, ref);
		printf("max relative error against the C reference: %.3g -> %s\n", err, err < 1e-5 ? "MATCH" : "MISMATCH");
		rc = err < 1e-5 ? 0 : 1;
	}
	free(src);
	free(x);
	free(out);
	free(ref);
	return rc;
}
