/*
 * run.h: what the interpreter tests share.  A test compiles a kernel to IR
 * (compile_kernel with EMIT_IR, at opt 0 or 1), registers host buffers,
 * runs the grid in the interpreter and compares with a C reference from
 * ../util/ref.h.  Tests run from the source root (ctest's working directory),
 * so example paths are "dsl_examples/NAME.tile".
 *
 * Checks are ../util/check.h's (CHECKF mostly: the message names the case);
 * main() returns check_summary(), 1 after any failure.
 */
#ifndef TILEC_TEST_INTERP_RUN_H
#define TILEC_TEST_INTERP_RUN_H

#include "compile.h"
#include "interp.h"

#include "../util/check.h"
#include "../util/ref.h"

/* A kernel argument: a buffer (host != NULL), an integer or a float; which
 * field is used follows the kernel parameter's type. */
typedef struct KArg {
	void *host;
	size_t bytes;
	int64_t i;
	double f;
} KArg;

static inline KArg kbuf(void *p, size_t bytes) { KArg a = {p, bytes, 0, 0}; return a; }
static inline KArg kint(int64_t v) { KArg a = {NULL, 0, v, 0}; return a; }
static inline KArg kfloat(double v) { KArg a = {NULL, 0, 0, v}; return a; }

/* The last run's interpreter error, or "". */
static char run_error[1024];
/* Where device_print writes, if not stdout. */
static FILE *run_output;

/*
 * Compile kernel `kernel` of source `text` (diagnostic name `name`) with the
 * defines, at level opt, and run it on the grid.  Returns interp_run's
 * result; a compile error is a failed check and returns -2.
 */
static inline int run_text(const char *name, const char *text, const char *kernel, const Define *defs, int ndefs,
			   int opt, const KArg *args, int nargs, int gx, int gy, int gz)
{
	Compilation *c = compilation_new(name, text, strlen(text));
	CompileOptions o = {0};
	o.kernel = kernel;
	o.defines = defs;
	o.ndefines = ndefs;
	o.emit = EMIT_IR;
	o.opt = opt;
	o.nowarn = true;
	run_error[0] = 0;
	if (compile_kernel(c, &o) != 0 || !c->func) {
		CHECKF(false, "%s: kernel %s does not compile:\n%s", name, kernel ? kernel : "(first)",
		       c->diag.out.s ? c->diag.out.s : "");
		compilation_free(c);
		return -2;
	}
	Func *f = c->func;
	Interp *it = interp_new(f, name);
	if (run_output)
		interp_set_output(it, run_output);
	InterpArg ia[32];
	int rc = -2;
	if (!CHECKF(nargs == f->entry->nargs && nargs <= 32, "%s: %d arguments for %d parameters", name, nargs,
		    f->entry->nargs))
		goto out;
	for (int i = 0; i < nargs; i++) {
		int e = vtype(f, f->entry->args[i]).elem;
		if (e == TY_PTR)
			ia[i].ptr = interp_buffer(it, args[i].host, args[i].bytes);
		else if (e == TY_F16 || e == TY_BF16 || e == TY_F32 || e == TY_F64)
			ia[i].f = args[i].f;
		else
			ia[i].i = args[i].i;
	}
	int grid[3] = {gx, gy, gz};
	rc = interp_run(it, ia, nargs, grid);
	if (rc != 0)
		snprintf(run_error, sizeof run_error, "%s", interp_error(it));
out:
	interp_free(it);
	compilation_free(c);
	return rc;
}

static inline int run_file(const char *path, const char *kernel, const Define *defs, int ndefs, int opt,
			   const KArg *args, int nargs, int gx, int gy, int gz)
{
	char *text = ref_read_file(path, NULL);
	int rc = run_text(path, text, kernel, defs, ndefs, opt, args, nargs, gx, gy, gz);
	free(text);
	return rc;
}

/* run_file that must succeed */
static inline bool run_ok(const char *path, const char *kernel, const Define *defs, int ndefs, int opt,
			  const KArg *args, int nargs, int gx, int gy, int gz)
{
	int rc = run_file(path, kernel, defs, ndefs, opt, args, nargs, gx, gy, gz);
	return CHECKF(rc == 0, "%s (opt %d) failed to run: %s", path, opt, run_error);
}

static inline int next_pow2(int n)
{
	int p = 1;
	while (p < n)
		p *= 2;
	return p;
}

static inline int cdiv(int a, int b)
{
	return (a + b - 1) / b;
}

/* n small integers (-6 .. 6) as f32, so that sums of them stay exact; at least one element allocated. */
static inline float *ints_f32(int n, int seed)
{
	float *x = malloc((size_t)(n > 0 ? n : 1) * 4);
	for (int i = 0; i < n; i++)
		x[i] = (float)((i * 7 + seed) % 13 - 6);
	return x;
}

/* Checks n floats against a double reference; the label names the case. */
static inline void check_f32(const char *label, const float *got, const double *want, size_t n, double rtol,
			     double atol)
{
	double *g = malloc(n * sizeof *g);
	for (size_t i = 0; i < n; i++)
		g[i] = got[i];
	size_t bad = ref_check(label, g, want, n, rtol, atol);
	CHECKF(bad == 0, "%s: %zu of %zu values off", label, bad, n);
	free(g);
}

static inline void check_f16(const char *label, const uint16_t *got, const double *want, size_t n, double rtol,
			     double atol)
{
	double *g = malloc(n * sizeof *g);
	for (size_t i = 0; i < n; i++)
		g[i] = ref_f16_to_f32(got[i]);
	size_t bad = ref_check(label, g, want, n, rtol, atol);
	CHECKF(bad == 0, "%s: %zu of %zu values off", label, bad, n);
	free(g);
}

/* Does the element at p (4 bytes: f32, 2 bytes: f16) still hold ref.h's poison? */
static inline bool is_poison(const void *p, size_t esize)
{
	uint32_t w = 0;
	uint16_t h = 0;
	if (esize == 4) {
		memcpy(&w, p, 4);
		return w == (uint32_t)REF_POISON_F32_BITS;
	}
	memcpy(&h, p, 2);
	return h == REF_POISON_F16_BITS;
}

/*
 * Copies the first n elements of each of `rows` rows, `stride` elements
 * apart in out, into got packed (n apart), and checks that the padding
 * after each row's n kept its poison.  esize is 4 (f32) or 2 (f16).
 */
static inline void unpad_rows(const char *label, void *got, const void *out, size_t esize, int rows, int n,
			      int stride)
{
	for (int row = 0; row < rows; row++) {
		const char *src = (const char *)out + (size_t)row * stride * esize;
		memcpy((char *)got + (size_t)row * n * esize, src, (size_t)n * esize);
		for (int i = n; i < stride; i++)
			CHECKF(is_poison(src + (size_t)i * esize, esize), "%s: padding [%d, %d] was written", label,
			       row, i);
	}
}

/* opt 0 and opt 1 outputs must be bit-identical */
static inline void check_same(const char *label, const void *a, const void *b, size_t bytes)
{
	CHECKF(memcmp(a, b, bytes) == 0, "%s: outputs at opt 0 and opt 1 differ", label);
}

#endif
