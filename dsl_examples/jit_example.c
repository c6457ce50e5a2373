/*
 * jit_example.c: embedding tilec in a C program.
 *
 * Compiles a row-wise softmax from a source string, runs it on random
 * input and compares with a plain C softmax.  Build (see docs/jit.md):
 *
 *     make device-bundle
 *     cc dsl_examples/jit_example.c -I runtime -L build-bundle/bundle -ltilec \
 *        -Wl,-rpath,"$PWD/build-bundle/bundle" -lm -o jit_example
 *     ./jit_example
 *
 * On a machine without an NVIDIA driver it prints why and exits with 1.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tilec.h"

static const char *softmax_src =
	"kernel softmax(out: *f32, inp: *f32, stride: i32, n: i32, BLOCK: const i32 = 1024) {\n"
	"    let row  = program_id(0);\n"
	"    let cols = arange(0, BLOCK);\n"
	"    let mask = cols < n;\n"
	"    let x    = load(inp + row * stride + cols, mask, -inf);\n"
	"    let e    = exp(x - max(x, 0));\n"
	"    store(out + row * stride + cols, e / sum(e, 0), mask);\n"
	"}\n";

/* The same computation on the host, in double. */
static void softmax_ref(double *out, const float *in, int rows, int n)
{
	for (int r = 0; r < rows; r++) {
		const float *x = in + (size_t)r * n;
		double m = -INFINITY, s = 0;
		for (int i = 0; i < n; i++)
			m = fmax(m, x[i]);
		for (int i = 0; i < n; i++)
			s += exp(x[i] - m);
		for (int i = 0; i < n; i++)
			out[(size_t)r * n + i] = exp(x[i] - m) / s;
	}
}

/* Print what failed and return 1 from main. */
#define TRY(call) do { if ((call) != TILEC_OK) { \
		fprintf(stderr, "%s failed:\n%s\n", #call, tilec_context_error(ctx)); goto fail; } } while (0)

int main(void)
{
	enum { ROWS = 512, N = 781, BLOCK = 1024 };
	size_t bytes = sizeof(float) * ROWS * N;
	float *in = malloc(bytes), *out = malloc(bytes);
	double *ref = malloc(sizeof(double) * ROWS * N);
	tilec_context *ctx = NULL;
	tilec_kernel *k = NULL;
	unsigned long long d_in = 0, d_out = 0;
	int status = 1;
	if (!in || !out || !ref)
		return 1;
	srand(1);
	for (size_t i = 0; i < (size_t)ROWS * N; i++)
		in[i] = 8.0f * (float)rand() / (float)RAND_MAX - 4.0f;

	/* A context on device 0; on failure it holds the reason. */
	TRY(tilec_context_create(0, &ctx));

	/* BLOCK is a constexpr: it sizes the tile, so it is fixed at compile time. */
	tilec_define defines[] = {{"BLOCK", BLOCK}};
	tilec_options opts = {.defines = defines, .ndefines = 1, .num_warps = 4, .source_name = "softmax.tile"};
	TRY(tilec_compile(ctx, softmax_src, "softmax", &opts, &k));

	TRY(tilec_malloc(ctx, bytes, &d_in));
	TRY(tilec_malloc(ctx, bytes, &d_out));
	TRY(tilec_memcpy_htod(ctx, d_in, in, bytes));

	/* One program per row; the runtime arguments in the kernel's order. */
	tilec_arg args[] = {tilec_ptr(d_out), tilec_ptr(d_in), tilec_i32(N), tilec_i32(N)};
	TRY(tilec_launch(k, ROWS, 1, 1, NULL, args, 4));
	TRY(tilec_synchronize(ctx));
	TRY(tilec_memcpy_dtoh(ctx, out, d_out, bytes));

	softmax_ref(ref, in, ROWS, N);
	double maxerr = 0;
	for (size_t i = 0; i < (size_t)ROWS * N; i++)
		maxerr = fmax(maxerr, fabs(out[i] - ref[i]) / fabs(ref[i]));
	double ms[4];
	tilec_kernel_compile_times(k, ms);
	printf("softmax %d x %d: max relative error %.3g\n", ROWS, N, maxerr);
	printf("compile: front end %.1f ms, passes %.1f ms, codegen %.1f ms, module load %.1f ms\n",
	       ms[0], ms[1], ms[2], ms[3]);
	status = maxerr < 1e-5 ? 0 : 1;
fail:
	if (d_in)
		tilec_free(ctx, d_in);
	if (d_out)
		tilec_free(ctx, d_out);
	tilec_kernel_destroy(k);
	tilec_context_destroy(ctx);
	free(in), free(out), free(ref);
	return status;
}
