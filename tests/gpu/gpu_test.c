/*
 * gpu_test.c: every example kernel, run on the GPU through the JIT, checked
 * against a plain C reference in double and, on the small shapes, against
 * the CPU interpreter running the same kernel.
 *
 *     gpu_test [--no-large] [--no-interp] [--seed N] [--examples DIR] [--only K1,K2]
 *
 * Each case draws fresh random inputs (from --seed, printed), fills every
 * output with 0xFF bytes (NaN for floats) before each run, so a lane that
 * is never written shows up, and compares with tolerances by dtype (f32:
 * 1e-5 relative, f16: 1e-2).  Shapes include ragged ones (not multiples of
 * the block) and ones that are multiples of 16, so both the generic and the
 * divisibility-specialised variants run.  One line per case, then
 * "N passed, N failed"; the exit status is 1 after any failure.
 * --no-large drops the 2^20+3 and 10^8 element cases (for compute-sanitizer,
 * which is slow); --interp-only runs the interpreter against the reference
 * without a GPU; --only runs the cases of the named kernels (softmax,
 * layernorm, matmul, ...; api for the JIT API's cases, autotune for
 * tilec_autotune's).  It also prints the C launch overhead (a line "launch
 * overhead: ... us per launch ...", read by bench/bench.py).
 *
 * On the GPU machine, from the root of the tree (examples are found in
 * dsl_examples/ there): build-bundle/bundle/gpu_test, and
 * compute-sanitizer --tool memcheck build-bundle/bundle/gpu_test --no-large.
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compile.h"
#include "interp.h"
#include "tilec.h"
#include "harness.h"

#include "../util/ref.h"

static tilec_context *ctx;
static bool large = true, use_interp = true, gpu = true;
static const char *arch; /* --arch: compile the examples for it instead of the device's own */
static uint64_t seed = 20240601;
static const char *examples_dir;
static int npassed, nfailed;

/* ---- host helpers: random numbers, f16 ---- */

static uint64_t rng;

static double uniform(double lo, double hi)
{
	rng ^= rng << 13; /* xorshift64 */
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return lo + (hi - lo) * (double)(rng >> 11) / 9007199254740992.0;
}

static void fill_f32(float *p, size_t n, double lo, double hi)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (float)uniform(lo, hi);
}

static void fill_i8(int8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (int8_t)floor(uniform(-128, 128));
}

static float half_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, u;
	if (e == 0x1f)
		u = sign | 0x7f800000 | (m << 13);
	else if (e != 0)
		u = sign | ((e + 112) << 23) | (m << 13);
	else {
		float f = ldexpf((float)m, -24);
		return sign ? -f : f;
	}
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static uint16_t f32_to_half(float x)
{
	uint32_t u;
	memcpy(&u, &x, 4);
	uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
	uint32_t a = u & 0x7fffffff;
	if (a > 0x7f800000)
		return sign | 0x7e00;
	if (a >= 0x477ff000)
		return sign | 0x7c00;
	if (a < 0x38800000) { /* subnormal: round x * 2^24 to an integer, ties to even */
		float s = fabsf(x) * 16777216.0f;
		float r = nearbyintf(s); /* default rounding mode: to nearest even */
		return sign | (uint16_t)r;
	}
	return sign | (uint16_t)((a + 0xfff + ((a >> 13) & 1) - 0x38000000) >> 13);
}

static void fill_f16(uint16_t *p, size_t n, double lo, double hi)
{
	for (size_t i = 0; i < n; i++)
		p[i] = f32_to_half((float)uniform(lo, hi));
}

/* ---- one case: its name, its verdict ---- */

typedef struct Case {
	char name[160];
	char why[1024];   /* first failure */
	bool failed;
	double maxerr;    /* worst error against the reference, in units of the tolerance */
} Case;

static void fail(Case *c, const char *fmt, ...) PRINTF(2, 3);
static void fail(Case *c, const char *fmt, ...)
{
	if (c->failed)
		return;
	c->failed = true;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->why, sizeof c->why, fmt, ap);
	va_end(ap);
}

static void finish(Case *c, bool interp_ran)
{
	if (c->failed) {
		nfailed++;
		printf("FAIL %s: %s\n", c->name, c->why);
	} else {
		npassed++;
		printf("ok   %s (worst error %.2f of tolerance%s)\n", c->name, c->maxerr,
		       interp_ran ? ", interpreter agrees" : "");
	}
	fflush(stdout);
}

/* got[i] against want[i] (double): |got - want| <= atol + rtol * |want|. */
typedef enum Dtype { F32, F16 } Dtype;

static double value_at(const void *p, Dtype t, size_t i)
{
	return t == F32 ? ((const float *)p)[i] : half_to_f32(((const uint16_t *)p)[i]);
}

static void compare(Case *c, const char *what, const void *got, Dtype t, const double *want,
                    size_t n, double rtol, double atol)
{
	for (size_t i = 0; i < n; i++) {
		double g = value_at(got, t, i), tol = atol + rtol * fabs(want[i]), d = fabs(g - want[i]);
		double e = d == 0 ? 0 : d / tol; /* exact is right even where the tolerance is 0 (want 0, atol 0) */
		if (!(e <= 1.0)) {
			fail(c, "%s[%zu] = %.9g, want %.9g (tolerance %.3g)", what, i, g, want[i], tol);
			return;
		}
		if (e > c->maxerr)
			c->maxerr = e;
	}
}

/* Two results of the same kernel (GPU and interpreter) agree within tolerance. */
static void agree(Case *c, const char *what, const void *gpu_out, const void *interp_out, Dtype t,
                  size_t n, double rtol, double atol)
{
	for (size_t i = 0; i < n; i++) {
		double g = value_at(gpu_out, t, i), w = value_at(interp_out, t, i);
		if (g == w || (isnan(g) && isnan(w))) /* the same infinity, or both NaN */
			continue;
		if (!(fabs(g - w) <= atol + rtol * fabs(w))) {
			fail(c, "%s[%zu]: GPU %.9g, interpreter %.9g", what, i, g, w);
			return;
		}
	}
}

/* ---- running a kernel on the GPU and in the interpreter ---- */

/* A buffer argument: host data in (IN), a result out (OUT, poisoned first),
 * or a result whose initial contents are the host data (INOUT, e.g. zeros). */
typedef enum Mode { IN, OUT, INOUT } Mode;
typedef struct Buf {
	void *host;   /* input data / where the result lands */
	size_t bytes;
	Mode mode;
} Buf;

/* A kernel argument: buffer index (kind 'b'), an i32 ('i') or an f32 ('f'). */
typedef struct Arg {
	char kind;
	int buf;
	long long i;
	double f;
} Arg;
#define ABUF(b) ((Arg){'b', (b), 0, 0})
#define AI32(v) ((Arg){'i', 0, (v), 0})
#define AF32(v) ((Arg){'f', 0, 0, (v)})

typedef struct Launch {
	const char *file;     /* in the examples directory */
	const char *src;      /* the source itself (file only names it), or NULL */
	const char *kernel;
	tilec_define defs[8];
	int ndefs;
	int num_warps;        /* 0: the kernel's own */
	int num_stages;       /* 0: the kernel's own */
	unsigned grid;
	unsigned grid_y, grid_z; /* 0 counts as 1 */
	Arg args[16];
	int nargs;
	Buf *bufs;
	int nbufs;
} Launch;

static char *read_example(const char *file);

static char *launch_source(const Launch *l)
{
	return l->src ? strdup(l->src) : read_example(l->file);
}

static char *read_example(const char *file)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", examples_dir, file);
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = xmalloc((size_t)n + 1);
	size_t got = fread(s, 1, (size_t)n, f);
	s[got] = 0;
	fclose(f);
	return s;
}

/* Runs l on the GPU; the OUT/INOUT buffers' results land in their host arrays. */
static bool run_gpu(Case *c, const Launch *l)
{
	char *src = launch_source(l);
	if (!src) {
		fail(c, "cannot read %s/%s", examples_dir, l->file);
		return false;
	}
	tilec_options o = {.defines = l->defs, .ndefines = l->ndefs, .num_warps = l->num_warps,
	                   .num_stages = l->num_stages, .arch = arch,
	                   .source_name = l->file};
	tilec_kernel *k = NULL;
	unsigned long long dev[16] = {0};
	bool ok = false;
	if (tilec_compile(ctx, src, l->kernel, &o, &k) != TILEC_OK) {
		fail(c, "compile: %s", tilec_context_error(ctx));
		goto out;
	}
	for (int i = 0; i < l->nbufs; i++) {
		const Buf *b = &l->bufs[i];
		if (tilec_malloc(ctx, b->bytes, &dev[i]) != TILEC_OK)
			goto cuda_error;
		void *init = b->host;
		if (b->mode == OUT) {
			init = xmalloc(b->bytes);
			memset(init, 0xFF, b->bytes);
		}
		tilec_status st = tilec_memcpy_htod(ctx, dev[i], init, b->bytes);
		if (init != b->host)
			free(init);
		if (st != TILEC_OK)
			goto cuda_error;
	}
	tilec_arg args[16];
	for (int i = 0; i < l->nargs; i++) {
		const Arg *a = &l->args[i];
		args[i] = a->kind == 'b' ? tilec_ptr(dev[a->buf])
		        : a->kind == 'i' ? tilec_i32((int32_t)a->i) : tilec_f32((float)a->f);
	}
	if (tilec_launch(k, l->grid, l->grid_y ? l->grid_y : 1, l->grid_z ? l->grid_z : 1, NULL, args, l->nargs) != TILEC_OK ||
	    tilec_synchronize(ctx) != TILEC_OK)
		goto cuda_error;
	for (int i = 0; i < l->nbufs; i++)
		if (l->bufs[i].mode != IN &&
		    tilec_memcpy_dtoh(ctx, l->bufs[i].host, dev[i], l->bufs[i].bytes) != TILEC_OK)
			goto cuda_error;
	ok = true;
	goto out;
cuda_error:
	fail(c, "%s", tilec_context_error(ctx));
out:
	for (int i = 0; i < l->nbufs; i++)
		tilec_free(ctx, dev[i]);
	tilec_kernel_destroy(k);
	free(src);
	return ok;
}

/*
 * Runs l in the interpreter.  results[i] receives OUT/INOUT buffer i's
 * result (malloc'ed; freed by the caller), inputs are read in place.
 */
static bool run_interp(Case *c, const Launch *l, void **results)
{
	char *src = launch_source(l);
	if (!src) {
		fail(c, "cannot read %s/%s", examples_dir, l->file);
		return false;
	}
	Define defs[8];
	for (int i = 0; i < l->ndefs; i++)
		defs[i] = (Define){.name = l->defs[i].name, .value = l->defs[i].value};
	Compilation *comp = compilation_new(l->file, src, strlen(src));
	CompileOptions o = {.kernel = l->kernel, .defines = defs, .ndefines = l->ndefs,
	                    .num_warps = l->num_warps, .num_stages = l->num_stages, .emit = EMIT_IR, .opt = 1};
	bool ok = false;
	Interp *it = NULL;
	if (compile_kernel(comp, &o) != 0) {
		fail(c, "interpreter compile: %s", comp->diag.out.s ? comp->diag.out.s : "failed");
		goto out;
	}
	it = interp_new(comp->func, l->file);
	uint64_t addr[16];
	for (int i = 0; i < l->nbufs; i++) {
		const Buf *b = &l->bufs[i];
		void *p = b->host;
		if (b->mode != IN) {
			p = results[i] = xmalloc(b->bytes);
			if (b->mode == OUT)
				memset(p, 0xFF, b->bytes);
			else
				memcpy(p, b->host, b->bytes);
		}
		addr[i] = interp_buffer(it, p, b->bytes);
	}
	InterpArg args[16];
	for (int i = 0; i < l->nargs; i++) {
		const Arg *a = &l->args[i];
		if (a->kind == 'b')
			args[i].ptr = addr[a->buf];
		else if (a->kind == 'i')
			args[i].i = a->i;
		else
			args[i].f = (double)(float)a->f;
	}
	int grid[3] = {(int)l->grid, l->grid_y ? (int)l->grid_y : 1, l->grid_z ? (int)l->grid_z : 1};
	if (interp_run(it, args, l->nargs, grid) != 0) {
		fail(c, "interpreter: %s", interp_error(it));
		goto out;
	}
	ok = true;
out:
	if (it)
		interp_free(it);
	compilation_free(comp);
	free(src);
	return ok;
}

/*
 * Run l on the GPU (unless --interp-only) and, when `small`, in the
 * interpreter.  *interp_res gets the interpreter's results (NULLs if it did
 * not run).  With --interp-only the interpreter's results are copied into
 * the host buffers, so the reference check applies to them.
 */
static bool run_both(Case *c, const Launch *l, bool small, void **interp_res)
{
	for (int i = 0; i < l->nbufs; i++)
		interp_res[i] = NULL;
	/* INOUT initial contents must survive the GPU run for the interpreter. */
	void *init[16] = {0};
	for (int i = 0; i < l->nbufs; i++)
		if (l->bufs[i].mode == INOUT) {
			init[i] = xmalloc(l->bufs[i].bytes);
			memcpy(init[i], l->bufs[i].host, l->bufs[i].bytes);
		}
	bool ok = true;
	if (gpu)
		ok = run_gpu(c, l);
	if (ok && (small || !gpu) && (use_interp || !gpu)) {
		Launch li = *l;
		Buf bufs[16];
		for (int i = 0; i < l->nbufs; i++) {
			bufs[i] = l->bufs[i];
			if (init[i])
				bufs[i].host = init[i];
		}
		li.bufs = bufs;
		ok = run_interp(c, &li, interp_res);
		if (ok && !gpu)
			for (int i = 0; i < l->nbufs; i++)
				if (interp_res[i])
					memcpy(l->bufs[i].host, interp_res[i], l->bufs[i].bytes);
	}
	for (int i = 0; i < l->nbufs; i++)
		free(init[i]);
	return ok;
}

static void free_results(void **r, int n)
{
	for (int i = 0; i < n; i++)
		free(r[i]);
}

/* An output of a launch: l->bufs[buf] (n elements of type t), named what, against want. */
typedef struct Out {
	int buf;
	const char *what;
	Dtype t;
	const double *want;
	size_t n;
	double rtol, atol;
} Out;

/*
 * Run a case on the GPU (and in the interpreter when small), check each
 * output against its want and against the interpreter's result, report,
 * free.
 */
static void check_outs(Case *c, const Launch *l, bool small, const Out *o, int nout)
{
	void *ir[16];
	if (run_both(c, l, small, ir))
		for (int i = 0; i < nout; i++) {
			const void *got = l->bufs[o[i].buf].host;
			compare(c, o[i].what, got, o[i].t, o[i].want, o[i].n, o[i].rtol, o[i].atol);
			if (ir[o[i].buf])
				agree(c, o[i].what, got, ir[o[i].buf], o[i].t, o[i].n, o[i].rtol, o[i].atol);
		}
	finish(c, ir[o[0].buf] != NULL && gpu);
	free_results(ir, l->nbufs);
}

/* A case with one output, buffer res. */
static void check_output(Case *c, const Launch *l, bool small, int res, const char *what, Dtype t,
                         const double *want, size_t n, double rtol, double atol)
{
	Out o = {res, what, t, want, n, rtol, atol};
	check_outs(c, l, small, &o, 1);
}

static void start(Case *c, const char *fmt, ...) PRINTF(2, 3);
static void start(Case *c, const char *fmt, ...)
{
	memset(c, 0, sizeof *c);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->name, sizeof c->name, fmt, ap);
	va_end(ap);
	rng = seed * 0x9E3779B97F4A7C15ull + (uint64_t)(npassed + nfailed + 1) * 0xD1B54A32D192ED03ull;
	if (!rng)
		rng = 1;
}

static int next_pow2(int n)
{
	int p = 1;
	while (p < n)
		p *= 2;
	return p;
}

static const double F32_RTOL = 1e-5, F32_ATOL = 1e-6, F16_RTOL = 1e-2, F16_ATOL = 1e-2;

static const char *only; /* --only: comma-separated kernel names, or NULL for all */

static bool want(const char *kernel)
{
	if (!only)
		return true;
	size_t n = strlen(kernel);
	for (const char *p = only; *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == n && strncmp(p, kernel, n) == 0)
			return true;
		p += len + (end != NULL);
	}
	return false;
}

/* ---- the cases ---- */

static void case_vector_add(int n)
{
	if (!want("vector_add"))
		return;
	Case c;
	start(&c, "vector_add n=%d", n);
	float *x = xmalloc(4 * (size_t)n), *y = xmalloc(4 * (size_t)n), *out = xmalloc(4 * (size_t)n);
	double *want = xmalloc(8 * (size_t)n);
	fill_f32(x, (size_t)n, -10, 10);
	fill_f32(y, (size_t)n, -10, 10);
	for (int i = 0; i < n; i++)
		want[i] = (double)(x[i] + y[i]); /* the f32 sum, exactly */
	Buf bufs[] = {{x, 4 * (size_t)n, IN}, {y, 4 * (size_t)n, IN}, {out, 4 * (size_t)n, OUT}};
	Launch l = {.file = "vector_add.tile", .kernel = "vector_add", .defs = {{"BLOCK", 1024}},
	            .ndefs = 1, .grid = (unsigned)((n + 1023) / 1024),
	            .args = {ABUF(0), ABUF(1), ABUF(2), AI32(n)}, .nargs = 4, .bufs = bufs, .nbufs = 3};
	bool small = n <= (1 << 16);
	check_output(&c, &l, small, 2, "out", F32, want, (size_t)n, 0, 1e-30);
	free(x), free(y), free(out), free(want);
}

static void softmax_ref(double *want, const float *x, int rows, int n, int stride)
{
	for (int r = 0; r < rows; r++)
		ref_softmax_row(want + (size_t)r * stride, x + (size_t)r * stride, n);
}

/* Compare only the n columns of each row (the rest of the stride is untouched). */
static void compare_rows(Case *c, const char *what, const void *got, Dtype t, const double *want,
                         int rows, int n, int stride, double rtol, double atol)
{
	for (int r = 0; r < rows && !c->failed; r++) {
		size_t off = (size_t)r * stride;
		const char *base = (const char *)got + off * (t == F32 ? 4 : 2);
		char label[64];
		snprintf(label, sizeof label, "%s row %d", what, r);
		compare(c, label, base, t, want + off, (size_t)n, rtol, atol);
	}
}

static void agree_rows(Case *c, const char *what, const void *a, const void *b, Dtype t, int rows,
                       int n, int stride, double rtol, double atol)
{
	size_t es = t == F32 ? 4 : 2;
	for (int r = 0; r < rows && !c->failed; r++) {
		size_t off = (size_t)r * stride * es;
		agree(c, what, (const char *)a + off, (const char *)b + off, t, (size_t)n, rtol, atol);
	}
}

/* softmax with one program per row (programs 0), or softmax_persistent:
 * `programs` programs walk the rows (fewer than the rows, one each, or more,
 * some idle), the next row loaded before this one is stored (num_stages=2). */
/*
 * sin, cos, tanh and erf against libm in double, in ulps of the f32 result:
 * every input an f32 with random bits (all exponents, both signs), then
 * uniform ones over the range where each function changes, and the f32
 * values nearest to multiples of pi/2 that are hardest for sin and cos's
 * reduction.  docs/language.md promises 2 ulp; the case fails above it.
 */
static const char *math_src =
	"kernel maths(o: *f32, x: *f32, n: i32, F: const i32 = 0) {\n"
	"    let offs = program_id(0) * 1024 + arange(0, 1024);\n"
	"    let m = offs < n;\n"
	"    let v = load(x + offs, m);\n"
	"    var r = v;\n"
	"    if F == 0 { r = sin(v); } else if F == 1 { r = cos(v); }\n"
	"    else if F == 2 { r = tanh(v); } else if F == 3 { r = erf(v); }\n"
	"    else if F == 4 { r = log1p(v); } else if F == 5 { r = expm1(v); } else { r = atan(v); }\n"
	"    store(o + offs, r, m);\n"
	"}\n";

static double ulp_f32(double y)
{
	y = fabs(y);
	if (y < 0x1p-126)
		return 0x1p-149;
	int e;
	frexp(y, &e); /* y = m 2^e, 0.5 <= m < 1 */
	return ldexp(1.0, e - 24);
}

/* equal, both NaN, or both the same infinity (log1p(-1), expm1's overflow) */
static bool same_float(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

/* a double result as the f32 that rounding it gives past the f32 range:
 * the largest finite f32 up to the last half ulp, infinity beyond */
static double f32_range(double w)
{
	if (fabs(w) > 0x1.fffffep127)
		return fabs(w) >= 0x1.ffffffp127 ? copysign(INFINITY, w) : copysign(0x1.fffffep127, w);
	return w;
}

static void case_math(int f, int n, bool small)
{
	static const char *const names[] = {"sin", "cos", "tanh", "erf", "log1p", "expm1", "atan"};
	static const double span[] = {10.0, 10.0, 6.0, 4.5, 4.0, 20.0, 4.0};
	/* ulps: docs/language.md's promises (CUDA's 2 for sin .. erf; under 1 for the rest) */
	static const double bound[] = {2.0, 2.0, 2.0, 2.0, 1.0, 1.0, 1.0};
	/* the f32 nearest to multiples of pi/2 (scripts/math/sin_cos/hardcases.c), the
	 * switch between sin and cos's two reductions, the extremes */
	static const float hard[] = {0x1.f37c8ap+95f, 0x1.47d0fep+34f, 0x1.f9cbe2p+7f, 0x1.32ede2p+85f,
	                             0x1.628d4cp+40f, 0x1.13093p+76f, 0x1.b08c4ap+111f, 0x1.921fb6p+0f,
	                             0x1p+16f, 0x1.000002p+16f, 0x1.fffffep+127f, 0x1p-149f,
	                             INFINITY, NAN, 1.0f, 2.0f, 0.0f}; /* and the special values, both signs */
	if (!want("math"))
		return;
	Case c;
	start(&c, "math %s n=%d", names[f], n);
	float *x = xmalloc(4 * (size_t)n), *out = xmalloc(4 * (size_t)n);
	double *want = xmalloc(8 * (size_t)n);
	for (int i = 0; i < n; i++) {
		if (i < (int)(sizeof hard / sizeof hard[0]) * 2) {
			x[i] = i % 2 ? -hard[i / 2] : hard[i / 2];
		} else if (i % 2) { /* random bits, finite */
			uint32_t u = (uint32_t)(uniform(0, 4294967296.0));
			if ((u & 0x7f800000) == 0x7f800000)
				u &= 0xbfffffff;
			memcpy(&x[i], &u, 4);
		} else {
			x[i] = (float)uniform(f == 4 ? -1 : -span[f], span[f]);
		}
		double v = x[i];
		want[i] = f == 0 ? sin(v) : f == 1 ? cos(v) : f == 2 ? tanh(v) : f == 3 ? erf(v) : f == 4 ? log1p(v) : f == 5 ? expm1(v) : atan(v);
		want[i] = f32_range(want[i]);
	}
	Buf bufs[] = {{out, 4 * (size_t)n, OUT}, {x, 4 * (size_t)n, IN}};
	Launch l = {.file = "maths.tile", .src = math_src, .kernel = "maths", .defs = {{"F", f}}, .ndefs = 1,
	            .grid = (unsigned)((n + 1023) / 1024), .args = {ABUF(0), ABUF(1), AI32(n)}, .nargs = 3,
	            .bufs = bufs, .nbufs = 2};
	void *ir[2] = {NULL, NULL};
	if (run_both(&c, &l, small, ir)) {
		double worst = 0;
		int at = -1;
		for (int i = 0; i < n; i++) {
			double u = same_float(out[i], want[i]) ? 0 : fabs(out[i] - want[i]) / ulp_f32(want[i]);
			if (!(u <= worst)) /* NaN included */
				worst = u, at = i;
		}
		c.maxerr = worst / bound[f];
		if (!(worst <= bound[f]))
			fail(&c, "%s(%a) = %a, want %a: %.2f ulp", names[f], (double)x[at], (double)out[at], want[at], worst);
		else
			printf("  %s: at most %.3f ulp over %d inputs (at %a)\n", names[f], worst, n, at < 0 ? 0.0 : (double)x[at]);
		if (small && ir[0]) { /* sin .. erf are at most 1 in magnitude: an absolute bound */
			double rtol = f < 4 ? 0 : 0x1p-21, atol = f < 4 ? 3 * 0x1p-24 + 0x1p-126 : 0x1p-126;
			agree(&c, "out", out, ir[0], F32, (size_t)n, rtol, atol);
		}
	}
	finish(&c, true);
	free_results(ir, 2);
	free(x), free(out), free(want);
}

/*
 * pow(x, y) against libm's pow in double, in ulps of the f32 result
 * (docs/language.md promises 1): x of random bits (positive, and negative
 * with integer y), y such that x^y spans the f32 range and past it, then
 * every pair of the special values of C's pow (checked exactly against
 * libm's pow in double rounded to f32, NaN for NaN).
 */
static const char *pow_src =
	"kernel pows(o: *f32, x: *f32, y: *f32, n: i32) {\n"
	"    let offs = program_id(0) * 1024 + arange(0, 1024);\n"
	"    let m = offs < n;\n"
	"    store(o + offs, pow(load(x + offs, m), load(y + offs, m)), m);\n"
	"}\n";

static void case_pow(int n, bool small)
{
	static const float sv[] = {0.0f, -0.0f, 0x1p-149f, -0x1p-149f, 1.0f, -1.0f, 0.5f, -0.5f, 2.0f, -2.0f, 3.0f,
	                           -3.0f, -8.0f, 0x1p24f, 0x1.000002p24f, 1e10f, -149.5f, 127.9f, 0x1.fffffep127f,
	                           INFINITY, -INFINITY, NAN};
	int ns = (int)(sizeof sv / sizeof sv[0]);
	if (!want("pow"))
		return;
	Case c;
	start(&c, "math pow n=%d", n);
	float *x = xmalloc(4 * (size_t)n), *y = xmalloc(4 * (size_t)n), *out = xmalloc(4 * (size_t)n);
	for (int i = 0; i < n; i++) {
		if (i < ns * ns) {
			x[i] = sv[i / ns], y[i] = sv[i % ns];
			continue;
		}
		uint32_t u = (uint32_t)uniform(0, 2139095040.0); /* positive finite bits */
		memcpy(&x[i], &u, 4);
		double l2 = log2(x[i]);
		if (i % 4 == 0) { /* a negative x to an integer power */
			x[i] = -x[i];
			y[i] = (float)rint(uniform(-160, 135) / (l2 == 0 ? 1 : l2));
		} else if (i % 4 == 1 || l2 == 0) {
			u = (uint32_t)uniform(0, 4294967296.0);
			memcpy(&y[i], &u, 4);
			if (isnan(y[i]))
				y[i] = 0.5f;
		} else {
			y[i] = (float)(uniform(-160, 135) / l2);
		}
	}
	Buf bufs[] = {{out, 4 * (size_t)n, OUT}, {x, 4 * (size_t)n, IN}, {y, 4 * (size_t)n, IN}};
	Launch l = {.file = "pows.tile", .src = pow_src, .kernel = "pows", .grid = (unsigned)((n + 1023) / 1024),
	            .args = {ABUF(0), ABUF(1), ABUF(2), AI32(n)}, .nargs = 4, .bufs = bufs, .nbufs = 3};
	void *ir[3] = {NULL, NULL, NULL};
	if (run_both(&c, &l, small, ir)) {
		double worst = 0;
		int at = -1;
		for (int i = 0; i < n && !c.failed; i++) {
			if (i < ns * ns) {
				/* libm's powf is not always correctly rounded (pow(-149.5, 3), a tie, comes
				 * out an ulp off); libm's pow in double, rounded to f32, gives each of
				 * these pairs as the C model of the GPU's steps does (scripts/math/pow) */
				float w = (float)pow(x[i], y[i]);
				if (!(memcmp(&w, &out[i], 4) == 0 || (isnan(w) && isnan(out[i]))))
					fail(&c, "pow(%a, %a) = %a, want %a", (double)x[i], (double)y[i], (double)out[i], (double)w);
				continue;
			}
			double w = f32_range(pow(x[i], y[i]));
			double u = same_float(out[i], w) ? 0 : fabs(out[i] - w) / ulp_f32(w);
			if (!(u <= worst))
				worst = u, at = i;
		}
		c.maxerr = worst / 2;
		if (!(worst <= 1.0))
			fail(&c, "pow(%a, %a) = %a, want %a: %.2f ulp", (double)x[at], (double)y[at], (double)out[at],
			     pow(x[at], y[at]), worst);
		else if (!c.failed)
			printf("  pow: at most %.3f ulp over %d inputs (at %a, %a); %d special pairs exact\n", worst, n,
			       at < 0 ? 0.0 : (double)x[at], at < 0 ? 0.0 : (double)y[at], ns * ns);
		if (small && ir[0])
			agree(&c, "out", out, ir[0], F32, (size_t)n, 0x1p-21, 0x1p-126);
	}
	finish(&c, true);
	free_results(ir, 3);
	free(x), free(y), free(out);
}

/*
 * atan2(y, x) against libm's atan2 in double, in ulps of the f32 result
 * (docs/language.md promises under 1): every pair of a table of special
 * values first (where an operand is 0, infinite or NaN, C99 fixes the
 * result: the double atan2 rounded to f32 bit for bit, NaN for NaN), then
 * y and x of random bits (both signs, every exponent), pairs of nearby
 * magnitudes (|y/x| near 1, where the reduction switches), uniform ones.
 */
static const char *atan2_src =
	"kernel atan2s(o: *f32, y: *f32, x: *f32, n: i32) {\n"
	"    let offs = program_id(0) * 1024 + arange(0, 1024);\n"
	"    let m = offs < n;\n"
	"    store(o + offs, atan2(load(y + offs, m), load(x + offs, m)), m);\n"
	"}\n";

static void case_atan2(int n, bool small)
{
	static const float sv[] = {0.0f, -0.0f, 0x1p-149f, -0x1p-149f, 0x1p-126f, 1.0f, -1.0f, 0x1.fffffep-1f, 3.0f,
	                           -0x1.000002p0f, 1e30f, -1e-30f, 0x1.fffffep127f, -0x1.fffffep127f, INFINITY, -INFINITY,
	                           NAN, -0x1.fffffcp-127f, 0x1p+64f, -0x1.fffffep+63f, 0x1p+126f, 0x1p-12f, -0x1.921fb6p+0f};
	int ns = (int)(sizeof sv / sizeof sv[0]);
	if (!want("atan2"))
		return;
	Case c;
	start(&c, "math atan2 n=%d", n);
	float *y = xmalloc(4 * (size_t)n), *x = xmalloc(4 * (size_t)n), *out = xmalloc(4 * (size_t)n);
	for (int i = 0; i < n; i++) {
		if (i < ns * ns) {
			y[i] = sv[i / ns], x[i] = sv[i % ns];
			continue;
		}
		uint32_t u = (uint32_t)uniform(0, 4294967296.0), v = (uint32_t)uniform(0, 4294967296.0);
		if ((u & 0x7f800000) == 0x7f800000)
			u &= 0xbfffffff;
		if ((v & 0x7f800000) == 0x7f800000)
			v &= 0xbfffffff;
		if (i % 3 == 1) { /* a nearby magnitude: |y/x| within a factor of 4 of 1 */
			int64_t m = (int64_t)(u & 0x7fffffff) + (int64_t)uniform(-(1 << 24), 1 << 24);
			m = m < 0 ? 0 : m > 0x7f7fffff ? 0x7f7fffff : m;
			v = (uint32_t)m | (v & 0x80000000u);
		}
		memcpy(&y[i], &u, 4);
		memcpy(&x[i], &v, 4);
		if (i % 3 == 2)
			y[i] = (float)uniform(-4, 4), x[i] = (float)uniform(-4, 4);
	}
	Buf bufs[] = {{out, 4 * (size_t)n, OUT}, {y, 4 * (size_t)n, IN}, {x, 4 * (size_t)n, IN}};
	Launch l = {.file = "atan2s.tile", .src = atan2_src, .kernel = "atan2s", .grid = (unsigned)((n + 1023) / 1024),
	            .args = {ABUF(0), ABUF(1), ABUF(2), AI32(n)}, .nargs = 4, .bufs = bufs, .nbufs = 3};
	void *ir[3] = {NULL, NULL, NULL};
	if (run_both(&c, &l, small, ir)) {
		double worst = 0;
		int at = -1;
		for (int i = 0; i < n && !c.failed; i++) {
			if (i < ns * ns && !(isfinite(x[i]) && isfinite(y[i]) && x[i] != 0 && y[i] != 0)) {
				/* C99 fixes these: exactly the double atan2 rounded, NaN for NaN */
				float w = (float)atan2(y[i], x[i]);
				if (!(memcmp(&w, &out[i], 4) == 0 || (isnan(w) && isnan(out[i]))))
					fail(&c, "atan2(%a, %a) = %a, want %a", (double)y[i], (double)x[i], (double)out[i], (double)w);
				continue;
			}
			double w = atan2(y[i], x[i]);
			double u = same_float(out[i], w) ? 0 : fabs(out[i] - w) / ulp_f32(w);
			if (!(u <= worst))
				worst = u, at = i;
		}
		c.maxerr = worst;
		if (!(worst < 1.0))
			fail(&c, "atan2(%a, %a) = %a, want %a: %.2f ulp", (double)y[at], (double)x[at], (double)out[at],
			     atan2(y[at], x[at]), worst);
		else if (!c.failed)
			printf("  atan2: at most %.3f ulp over %d inputs (at %a, %a); the zero, infinite and NaN pairs exact\n",
			       worst, n, at < 0 ? 0.0 : (double)y[at], at < 0 ? 0.0 : (double)x[at]);
		if (small && ir[0])
			agree(&c, "out", out, ir[0], F32, (size_t)n, 0x1p-21, 0x1p-126);
	}
	finish(&c, true);
	free_results(ir, 3);
	free(y), free(x), free(out);
}

/*
 * trunc, rint and round (exact: checked against libm's truncf, rintf,
 * roundf bit for bit) and isnan, isinf, isfinite of f32 inputs of random
 * bits (NaNs and infinities among them), halves and their neighbours.
 */
static const char *rounding_src =
	"kernel roundings(o: *f32, k: *i32, x: *f32, n: i32) {\n"
	"    let offs = program_id(0) * 1024 + arange(0, 1024);\n"
	"    let m = offs < n;\n"
	"    let v = load(x + offs, m);\n"
	"    store(o + offs, trunc(v), m);\n"
	"    store(o + n + offs, rint(v), m);\n"
	"    store(o + 2 * n + offs, round(v), m);\n"
	"    store(k + offs, where(isnan(v), 1, 0) + where(isinf(v), 2, 0) + where(isfinite(v), 4, 0), m);\n"
	"}\n";

static void case_rounding(int n)
{
	if (!want("rounding"))
		return;
	Case c;
	start(&c, "math trunc rint round isnan isinf isfinite n=%d", n);
	float *x = xmalloc(4 * (size_t)n), *o = xmalloc(12 * (size_t)n);
	int32_t *k = xmalloc(4 * (size_t)n);
	for (int i = 0; i < n; i++) {
		if (i % 3 == 0) {
			uint32_t u = (uint32_t)uniform(0, 4294967296.0);
			if (i % 300 == 0) /* more infinities and NaNs */
				u |= 0x7f800000u;
			memcpy(&x[i], &u, 4);
		} else {
			float h = (float)rint(uniform(-1e6, 1e6)) + 0.5f; /* a half, or its neighbours */
			x[i] = i % 3 == 1 ? h : nextafterf(h, i % 2 ? INFINITY : -INFINITY);
		}
	}
	Buf bufs[] = {{o, 12 * (size_t)n, OUT}, {k, 4 * (size_t)n, OUT}, {x, 4 * (size_t)n, IN}};
	Launch l = {.file = "roundings.tile", .src = rounding_src, .kernel = "roundings",
	            .grid = (unsigned)((n + 1023) / 1024), .args = {ABUF(0), ABUF(1), ABUF(2), AI32(n)}, .nargs = 4,
	            .bufs = bufs, .nbufs = 3};
	void *ir[3] = {NULL, NULL, NULL};
	if (run_both(&c, &l, n <= (1 << 16), ir)) {
		for (int s = 0; s < 2; s++) {
			const float *r = s ? ir[0] : o;
			const int32_t *rk = s ? ir[1] : k;
			if (!r)
				continue;
			for (int i = 0; i < n && !c.failed; i++) {
				float w[3] = {truncf(x[i]), rintf(x[i]), roundf(x[i])};
				int32_t wk = (isnan(x[i]) ? 1 : 0) + (isinf(x[i]) ? 2 : 0) + (isfinite(x[i]) ? 4 : 0);
				for (int f = 0; f < 3; f++)
					if (!(memcmp(&w[f], &r[(size_t)f * n + i], 4) == 0 || (isnan(w[f]) && isnan(r[(size_t)f * n + i]))))
						fail(&c, "%s: %s(%a) = %a, want %a", s ? "interpreter" : "GPU",
						     f == 0 ? "trunc" : f == 1 ? "rint" : "round", (double)x[i],
						     (double)r[(size_t)f * n + i], (double)w[f]);
				if (rk[i] != wk)
					fail(&c, "%s: the classes of %a are %d, want %d", s ? "interpreter" : "GPU", (double)x[i],
					     rk[i], wk);
			}
		}
	}
	finish(&c, true);
	free_results(ir, 3);
	free(x), free(o), free(k);
}

/*
 * quant.tile: per-row int8 and fp8 quantization of f16 rows `pad` elements
 * longer than n.  The host does the kernel's f32 steps (amax, the IEEE
 * reciprocal, one product, rint or the fp8 rounding), so every byte and
 * scale must be equal; one row is all zeros.
 */
static unsigned f8_host_code(float x, bool e5);

static void case_quant(int rows, int n, int pad, int warps, bool f8)
{
	const char *kernel = f8 ? "quant_f8" : "quant_i8";
	if (!want(kernel))
		return;
	Case c;
	int block = next_pow2(n), stride = n + pad;
	start(&c, "%s rows=%d n=%d stride=%d BLOCK=%d warps=%d", kernel, rows, n, stride, block, warps);
	size_t total = (size_t)rows * stride;
	uint16_t *x = xmalloc(2 * total);
	uint8_t *q = xmalloc(total), *wq = xmalloc(total);
	float *sc = xmalloc(4 * (size_t)rows), *wsc = xmalloc(4 * (size_t)rows);
	fill_f16(x, total, -3, 3);
	for (int j = 0; j < n; j++)
		x[(size_t)(rows / 2) * stride + j] = j % 2 ? 0x8000 : 0; /* +-0 */
	float lim = f8 ? 448.0f : 127.0f;
	for (int r = 0; r < rows; r++) {
		float amax = 0;
		for (int j = 0; j < n; j++)
			amax = fmaxf(amax, fabsf(half_to_f32(x[(size_t)r * stride + j])));
		float inv = amax > 0 ? lim / amax : 0;
		wsc[r] = amax / lim;
		for (int j = 0; j < stride; j++) {
			float v = half_to_f32(x[(size_t)r * stride + j]) * inv;
			wq[(size_t)r * stride + j] = j >= n ? 0 : f8 ? (uint8_t)f8_host_code(v, false)
			                                           : (uint8_t)(int8_t)fminf(fmaxf(rintf(v), -127), 127);
		}
	}
	Buf bufs[] = {{q, total, OUT}, {sc, 4 * (size_t)rows, OUT}, {x, 2 * total, IN}};
	Launch l = {.file = "quant.tile", .kernel = kernel, .defs = {{"BLOCK", block}}, .ndefs = 1, .num_warps = warps,
	            .grid = (unsigned)rows, .args = {ABUF(0), ABUF(1), ABUF(2), AI32(n), AI32(stride), AI32(stride)},
	            .nargs = 6, .bufs = bufs, .nbufs = 3};
	void *ir[3] = {NULL, NULL, NULL};
	if (run_both(&c, &l, total <= (1 << 16), ir)) {
		for (int s = 0; s < 2; s++) {
			const uint8_t *rq = s ? ir[0] : q;
			const float *rs = s ? ir[1] : sc;
			if (!rq)
				continue;
			for (int r = 0; r < rows && !c.failed; r++) {
				if (memcmp(&rs[r], &wsc[r], 4) != 0)
					fail(&c, "%s: row %d scale %a, want %a", s ? "interpreter" : "GPU", r, (double)rs[r],
					     (double)wsc[r]);
				for (int j = 0; j < n && !c.failed; j++)
					if (rq[(size_t)r * stride + j] != wq[(size_t)r * stride + j])
						fail(&c, "%s: q[%d][%d] = 0x%02x, want 0x%02x (x = %a)", s ? "interpreter" : "GPU", r,
						     j, rq[(size_t)r * stride + j], wq[(size_t)r * stride + j],
						     (double)half_to_f32(x[(size_t)r * stride + j]));
			}
		}
	}
	finish(&c, true);
	free_results(ir, 3);
	free(x), free(q), free(wq), free(sc), free(wsc);
}

/*
 * randint4x, rand and randn against ref_philox (tests/util/ref.h, which
 * checks itself against Random123's known answer in tests/interp): the four
 * words and rand bit for bit, randn (Box-Muller through the GPU's fast log)
 * within 1e-4.  Seeds positive and negative (the key's high word all ones).
 */
static const char *random_src =
	"kernel rng(o: *i32, of: *f32, n: i32, seed: i32) {\n"
	"    let offs = program_id(0) * 1024 + arange(0, 1024);\n"
	"    let m = offs < n;\n"
	"    let a, b, c, d = randint4x(seed, offs);\n"
	"    store(o + offs, a, m);\n"
	"    store(o + n + offs, b, m);\n"
	"    store(o + 2 * n + offs, c, m);\n"
	"    store(o + 3 * n + offs, d, m);\n"
	"    store(of + offs, rand(seed, offs), m);\n"
	"    store(of + n + offs, randn(seed, offs), m);\n"
	"}\n";

static void case_random(int n, int32_t seed)
{
	if (!want("random"))
		return;
	Case c;
	start(&c, "random n=%d seed=%d", n, seed);
	uint32_t *o = xmalloc(16 * (size_t)n);
	float *of = xmalloc(8 * (size_t)n);
	Buf bufs[] = {{o, 16 * (size_t)n, OUT}, {of, 8 * (size_t)n, OUT}};
	Launch l = {.file = "random.tile", .src = random_src, .kernel = "rng", .grid = (unsigned)((n + 1023) / 1024),
	            .args = {ABUF(0), ABUF(1), AI32(n), AI32(seed)}, .nargs = 4, .bufs = bufs, .nbufs = 2};
	void *ir[2] = {NULL, NULL};
	bool small = n <= (1 << 16);
	if (run_both(&c, &l, small, ir)) {
		uint64_t key = (uint64_t)(int64_t)seed;
		double worst = 0;
		for (int i = 0; i < n && !c.failed; i++) {
			for (int w = 0; w < 4; w++)
				if (o[(size_t)w * n + i] != ref_philox((uint32_t)i, key, 10, w))
					fail(&c, "randint4x word %d at %d: 0x%08x, want 0x%08x", w, i, o[(size_t)w * n + i],
					     ref_philox((uint32_t)i, key, 10, w));
			float u = ref_rand_float(ref_philox((uint32_t)i, key, 10, 0));
			if (memcmp(&of[i], &u, 4) != 0)
				fail(&c, "rand at %d: %a, want %a", i, (double)of[i], (double)u);
			float u1 = fmaxf(u, 1e-7f), th = 6.283185307179586f * ref_rand_float(ref_philox((uint32_t)i, key, 10, 1));
			double z = sqrt(-2.0 * log(u1)) * cos(th);
			double e = fabs(of[n + i] - z) / 1e-4;
			if (!(e <= 1.0))
				fail(&c, "randn at %d: %.9g, want %.9g", i, (double)of[n + i], z);
			else if (e > worst)
				worst = e;
		}
		c.maxerr = worst;
		if (ir[0] && memcmp(ir[0], o, 16 * (size_t)n) != 0)
			fail(&c, "randint4x: the interpreter's words differ from the GPU's");
		if (ir[1])
			agree(&c, "rand and randn", of, ir[1], F32, 2 * (size_t)n, 0, 1e-4);
	}
	finish(&c, ir[0] != NULL && gpu);
	free_results(ir, 2);
	free(o), free(of);
}

/*
 * dropout.tile: the kept elements are exactly those with rand(seed, i) > p
 * (a wrong one is 0 where x / (1 - p) is wanted, or the reverse), scaled
 * within 2 ulp (div.full); about 1 - p of them are kept.  dropout_add adds
 * an f16 residual.
 */
static void case_dropout(bool add, int n, double p, int32_t seed)
{
	if (!want("dropout"))
		return;
	Case c;
	start(&c, "%s n=%d p=%g seed=%d", add ? "dropout_add" : "dropout", n, p, seed);
	size_t es = add ? 2 : 4;
	void *x = xmalloc(es * (size_t)n), *res = xmalloc(2 * (size_t)n), *out = xmalloc(es * (size_t)n);
	double *want = xmalloc(8 * (size_t)n);
	if (add) {
		fill_f16(x, (size_t)n, -4, 4);
		fill_f16(res, (size_t)n, -4, 4);
	} else {
		fill_f32(x, (size_t)n, -4, 4);
	}
	size_t kept = 0;
	float scale = 1.0f - (float)p;
	for (int i = 0; i < n; i++) {
		bool keep = ref_rand_float(ref_philox((uint32_t)i, (uint64_t)(int64_t)seed, 10, 0)) > (float)p;
		double xi = add ? half_to_f32(((uint16_t *)x)[i]) : ((float *)x)[i];
		want[i] = (keep ? xi / scale : 0.0) + (add ? half_to_f32(((uint16_t *)res)[i]) : 0.0);
		kept += keep;
	}
	Buf bufs[] = {{out, es * (size_t)n, OUT}, {x, es * (size_t)n, IN}, {res, 2 * (size_t)n, IN}};
	Launch l = {.file = "dropout.tile", .kernel = add ? "dropout_add" : "dropout",
	            .grid = (unsigned)((n + 1023) / 1024), .bufs = bufs, .nbufs = add ? 3 : 2};
	Arg a[] = {ABUF(0), ABUF(1), ABUF(2), AI32(n), AF32(p), AI32(seed)};
	for (int i = 0, k = 0; i < 6; i++)
		if (add || i != 2)
			l.args[k++] = a[i];
	l.nargs = add ? 6 : 5;
	double frac = (double)kept / n;
	if (n >= 100000 && fabs(frac - (1 - p)) > 0.01)
		fail(&c, "the reference keeps %.4f of the elements, want about %.4f", frac, 1 - p);
	check_output(&c, &l, n <= (1 << 16), 0, "out", add ? F16 : F32, want, (size_t)n, add ? 1e-3 : 3e-7, 0);
	free(x), free(res), free(out), free(want);
}

/*
 * atomic_max, min, and, or, xor of n i32 values into `buckets` slots each,
 * many lanes on one address (order does not matter: the result is exact),
 * three of them with a sem= or scope=; atomic_xchg of distinct f32
 * elements, its old values stored.
 */
static const char *atomics_src =
	"kernel atomics(o: *i32, f: *f32, x: *i32, n: i32, B: const i32 = 16) {\n"
	"    let i = program_id(0) * 1024 + arange(0, 1024);\n"
	"    let m = i < n;\n"
	"    let v = load(x + i, m);\n"
	"    let b = i % B;\n"
	"    atomic_max(o + b, v, m);\n"
	"    atomic_min(o + B + b, v, m);\n"
	"    atomic_and(o + 2 * B + b, v, m, sem=\"acq_rel\");\n"
	"    atomic_or(o + 3 * B + b, v, m, scope=\"sys\");\n"
	"    atomic_xor(o + 4 * B + b, v, m, sem=\"relaxed\", scope=\"gpu\");\n"
	"    store(f + n + i, atomic_xchg(f + i, cast(v, f32), m), m);\n"
	"}\n";

static void case_atomics(int n, int buckets)
{
	if (!want("atomics"))
		return;
	Case c;
	start(&c, "atomics n=%d buckets=%d", n, buckets);
	int32_t *x = xmalloc(4 * (size_t)n), *o = xmalloc(20 * (size_t)buckets), *want = xmalloc(20 * (size_t)buckets);
	float *f = xmalloc(8 * (size_t)n);
	for (int s = 0; s < buckets; s++) {
		o[s] = want[s] = INT32_MIN;
		o[buckets + s] = want[buckets + s] = INT32_MAX;
		o[2 * buckets + s] = want[2 * buckets + s] = -1;
		o[3 * buckets + s] = want[3 * buckets + s] = o[4 * buckets + s] = want[4 * buckets + s] = 0;
	}
	for (int i = 0; i < n; i++) {
		x[i] = (int32_t)(uint32_t)uniform(0, 4294967296.0);
		int s = i % buckets;
		want[s] = x[i] > want[s] ? x[i] : want[s];
		want[buckets + s] = x[i] < want[buckets + s] ? x[i] : want[buckets + s];
		want[2 * buckets + s] &= x[i], want[3 * buckets + s] |= x[i], want[4 * buckets + s] ^= x[i];
		f[i] = (float)i;
		f[n + i] = NAN;
	}
	Buf bufs[] = {{o, 20 * (size_t)buckets, INOUT}, {f, 8 * (size_t)n, INOUT}, {x, 4 * (size_t)n, IN}};
	Launch l = {.file = "atomics.tile", .src = atomics_src, .kernel = "atomics", .defs = {{"B", buckets}},
	            .ndefs = 1, .grid = (unsigned)((n + 1023) / 1024), .args = {ABUF(0), ABUF(1), ABUF(2), AI32(n)},
	            .nargs = 4, .bufs = bufs, .nbufs = 3};
	void *ir[3] = {NULL, NULL, NULL};
	if (run_both(&c, &l, n <= (1 << 16), ir)) {
		static const char *const kind[] = {"max", "min", "and", "or", "xor"};
		for (int s = 0; s < 5 * buckets && !c.failed; s++)
			if (o[s] != want[s] || (ir[0] && ((int32_t *)ir[0])[s] != want[s]))
				fail(&c, "atomic_%s slot %d: %d (interpreter %d), want %d", kind[s / buckets], s % buckets, o[s],
				     ir[0] ? ((int32_t *)ir[0])[s] : 0, want[s]);
		for (int i = 0; i < n && !c.failed; i++)
			if (f[i] != (float)x[i] || f[n + i] != (float)i)
				fail(&c, "atomic_xchg at %d: %g (old %g), want %g (old %d)", i, (double)f[i], (double)f[n + i],
				     (double)(float)x[i], i);
	}
	finish(&c, ir[0] != NULL && gpu);
	free_results(ir, 3);
	free(x), free(o), free(want), free(f);
}

/*
 * Programs that synchronise through memory: a spin lock (while atomic_cas,
 * sem="acquire", then atomic_xchg, sem="release") around a
 * read-modify-write of one row, as Triton's layer-norm backward
 * guards its partial sums (the first holder writes, the others add); a
 * ticket, the old value of a scalar atomic_add, which every thread uses as
 * an address; float atomic_max and atomic_min over every program (signed
 * zeros, negatives); a 32-element tile that every warp holds, whose old
 * values come back to all of them; and a while loop whose trip count is the
 * program's (Collatz steps of program_id + 1).  The inputs are small
 * integers, so the sums are exact in any order.
 */
static const char *sync_src =
	"kernel sync(state: *i32, acc: *f32, tickets: *i32, fm: *f32, olds: *i32, steps: *i32, x: *f32,\n"
	"            BLOCK: const i32 = 256) {\n"
	"    let pid = program_id(0);\n"
	"    let cols = arange(0, BLOCK);\n"
	"    let v = load(x + pid * BLOCK + cols);\n"
	"    while atomic_cas(state, 0, 1, sem=\"acquire\") == 1 {}\n"
	"    if load(state + 1) == 0 {\n"
	"        atomic_xchg(state + 1, 1);\n"
	"        store(acc + cols, v);\n"
	"    } else {\n"
	"        store(acc + cols, load(acc + cols) + v);\n"
	"    }\n"
	"    atomic_xchg(state, 0, sem=\"release\");\n"
	"    store(tickets + atomic_add(state + 2, 1), pid);\n"
	"    atomic_max(fm + cols % 32, v);\n"
	"    atomic_min(fm + 32 + cols % 32, v);\n"
	"    let i = arange(0, 32);\n"
	"    store(olds + pid * 32 + i, atomic_add(state + 3 + i, 1));\n"
	"    var m = pid + 1;\n"
	"    var s = 0;\n"
	"    while m != 1 {\n"
	"        if m % 2 == 0 { m = m / 2; } else { m = 3 * m + 1; }\n"
	"        s += 1;\n"
	"    }\n"
	"    store(steps + pid, s);\n"
	"}\n";

/* IEEE order with -0 below +0 (the order the GPU's float atomic_max keeps). */
static bool f32_above(float a, float b)
{
	return a > b || (a == b && !signbit(a) && signbit(b));
}

static void check_sync(Case *c, const char *who, int progs, int block, const float *x, void **r)
{
	const int32_t *state = r[0], *tickets = r[2], *olds = r[4], *steps = r[5];
	const float *acc = r[1], *fm = r[3];
	if (state[0] != 0 || state[1] != 1 || state[2] != progs)
		fail(c, "%s: lock %d, count %d, tickets %d; want 0, 1, %d", who, state[0], state[1], state[2], progs);
	for (int i = 0; i < 32 && !c->failed; i++)
		if (state[3 + i] != progs)
			fail(c, "%s: counter %d is %d, want %d", who, i, state[3 + i], progs);
	for (int j = 0; j < block && !c->failed; j++) {
		float want = 0;
		for (int p = 0; p < progs; p++)
			want += x[(size_t)p * block + j];
		if (acc[j] != want)
			fail(c, "%s: locked sum of column %d is %g, want %g", who, j, (double)acc[j], (double)want);
	}
	for (int k = 0; k < 32 && !c->failed; k++) {
		float hi = -INFINITY, lo = INFINITY;
		for (int p = 0; p < progs; p++)
			for (int j = k; j < block; j += 32) {
				float v = x[(size_t)p * block + j];
				hi = f32_above(v, hi) ? v : hi;
				lo = f32_above(lo, v) ? v : lo;
			}
		if (memcmp(&fm[k], &hi, 4) || memcmp(&fm[32 + k], &lo, 4))
			fail(c, "%s: float max/min of slot %d: %g and %g, want %g and %g", who, k, (double)fm[k],
			     (double)fm[32 + k], (double)hi, (double)lo);
	}
	char *seen = xmalloc((size_t)progs);
	for (int i = -1; i < 32 && !c->failed; i++) {
		memset(seen, 0, (size_t)progs);
		for (int p = 0; p < progs && !c->failed; p++) {
			int t = i < 0 ? tickets[p] : olds[p * 32 + i];
			if (t < 0 || t >= progs || seen[t]++)
				fail(c, "%s: %s %d of program %d is %d, twice or out of range", who, i < 0 ? "ticket" : "old value",
				     i, p, t);
		}
	}
	free(seen);
	for (int p = 0; p < progs && !c->failed; p++) {
		int s = 0;
		for (long long m = p + 1; m != 1; s++)
			m = m % 2 ? 3 * m + 1 : m / 2;
		if (steps[p] != s)
			fail(c, "%s: program %d took %d steps, want %d", who, p, steps[p], s);
	}
}

static void case_sync(int progs, int warps)
{
	if (!want("sync"))
		return;
	Case c;
	start(&c, "sync programs=%d warps=%d", progs, warps);
	const int block = 256;
	size_t n = (size_t)progs * block;
	int32_t *state = xmalloc(4 * 35), *tickets = xmalloc(4 * (size_t)progs), *olds = xmalloc(4 * 32 * (size_t)progs);
	int32_t *steps = xmalloc(4 * (size_t)progs);
	float *x = xmalloc(4 * n), *acc = xmalloc(4 * block), fm[64];
	memset(state, 0, 4 * 35);
	for (size_t i = 0; i < n; i++)
		x[i] = (float)(int)uniform(-1000, 1000);
	for (int p = 0; p < progs; p += 3) /* zeros of both signs meet negative values in slot 3 */
		x[(size_t)p * block + 3 + 32 * (p % 8)] = p % 2 ? 0.0f : -0.0f;
	for (int k = 0; k < 32; k++)
		fm[k] = -INFINITY, fm[32 + k] = INFINITY;
	Buf bufs[] = {{state, 4 * 35, INOUT}, {acc, 4 * block, OUT}, {tickets, 4 * (size_t)progs, OUT},
	              {fm, sizeof fm, INOUT}, {olds, 4 * 32 * (size_t)progs, OUT}, {steps, 4 * (size_t)progs, OUT},
	              {x, 4 * n, IN}};
	Launch l = {.file = "sync.tile", .src = sync_src, .kernel = "sync", .num_warps = warps, .grid = (unsigned)progs,
	            .args = {ABUF(0), ABUF(1), ABUF(2), ABUF(3), ABUF(4), ABUF(5), ABUF(6)}, .nargs = 7, .bufs = bufs,
	            .nbufs = 7};
	void *ir[7] = {NULL};
	if (run_both(&c, &l, progs <= 1000, ir)) {
		void *dev[7] = {state, acc, tickets, fm, olds, steps, x};
		if (gpu)
			check_sync(&c, "GPU", progs, block, x, dev);
		if (ir[0] && !c.failed)
			check_sync(&c, "interpreter", progs, block, x, ir);
	}
	finish(&c, ir[0] != NULL && gpu);
	free_results(ir, 7);
	free(state), free(tickets), free(olds), free(steps), free(x), free(acc);
}

/*
 * cumsum of an R x C tile along one axis, forward or reversed: f32 against
 * the running sums in double (within 4 ulp per step of log2 n of the prefix's
 * magnitude), i32 (8x the value, truncated) exactly; and cumprod: f32 of
 * factors 1 + t/1024 (t/1024 exact, so the GPU's fma of 1 + t * 2^-10 and
 * the interpreter's separate roundings agree), within one rounding per
 * factor, and i32 of signs exactly.
 * The interpreter combines in the GPU's order, so the two agree bit for bit.
 */
static const char *scan_src =
	"kernel scan(o: *f32, oi: *i32, op: *f32, os: *i32, x: *f32, R: const i32 = 1, C: const i32 = 1024,\n"
	"            AXIS: const i32 = 1, REV: const i32 = 0) {\n"
	"    let at = arange(0, R)[:, None] * C + arange(0, C)[None, :];\n"
	"    let t = load(x + at);\n"
	"    store(o + at, cumsum(t, AXIS, REV));\n"
	"    store(oi + at, cumsum(cast(t * 8.0, i32), axis = AXIS, reverse = REV));\n"
	"    store(op + at, cumprod(1.0 + t * 0.0009765625, AXIS, REV));\n"
	"    store(os + at, cumprod(where(t > 0.0, 1, -1), axis = AXIS, reverse = REV));\n"
	"}\n";

static void case_scan(int rows, int cols, int axis, int rev, int warps)
{
	if (!want("scan"))
		return;
	Case c;
	start(&c, "scan %dx%d axis=%d%s warps=%d", rows, cols, axis, rev ? " reverse" : "", warps);
	size_t n = (size_t)rows * cols;
	float *x = xmalloc(4 * n), *o = xmalloc(4 * n), *op = xmalloc(4 * n);
	int32_t *oi = xmalloc(4 * n), *os = xmalloc(4 * n);
	fill_f32(x, n, -1, 1);
	Buf bufs[] = {{o, 4 * n, OUT}, {oi, 4 * n, OUT}, {op, 4 * n, OUT}, {os, 4 * n, OUT}, {x, 4 * n, IN}};
	Launch l = {.file = "scan.tile", .src = scan_src, .kernel = "scan",
	            .defs = {{"R", rows}, {"C", cols}, {"AXIS", axis}, {"REV", rev}}, .ndefs = 4, .num_warps = warps,
	            .grid = 1, .args = {ABUF(0), ABUF(1), ABUF(2), ABUF(3), ABUF(4)}, .nargs = 5, .bufs = bufs,
	            .nbufs = 5};
	void *ir[5] = {NULL};
	if (run_both(&c, &l, true, ir)) {
		int len = axis ? cols : rows, steps = 0;
		while ((1 << steps) < len)
			steps++;
		double worst = 0;
		for (int a = 0; a < (axis ? rows : cols) && !c.failed; a++) {
			double s = 0, mag = 0, p = 1;
			int32_t si = 0, sp = 1;
			for (int k = 0; k < len && !c.failed; k++) {
				int j = rev ? len - 1 - k : k;
				size_t at = axis ? (size_t)a * cols + j : (size_t)j * cols + a;
				s += x[at], mag += fabs(x[at]), si += (int32_t)(x[at] * 8.0f);
				p *= (double)(1.0f + x[at] * 0x1p-10f), sp *= x[at] > 0 ? 1 : -1;
				/* a product of k + 1 factors, rounded k times in any order */
				if (!(fabs(op[at] - p) <= 1.01 * (k + 1) * 0x1p-24 * p))
					fail(&c, "cumprod f32 at %zu: %.9g, want %.9g", at, (double)op[at], p);
				if (os[at] != sp)
					fail(&c, "cumprod i32 at %zu: %d, want %d", at, os[at], sp);
				double tol = (4.0 * steps + 1) * 0x1p-24 * mag, e = fabs(o[at] - s) / tol;
				if (!(e <= 1.0) && tol > 0)
					fail(&c, "f32 at %zu: %.9g, want %.9g", at, (double)o[at], s);
				else if (tol > 0 && e > worst)
					worst = e;
				if (oi[at] != si)
					fail(&c, "i32 at %zu: %d, want %d", at, oi[at], si);
			}
		}
		c.maxerr = worst;
		if (ir[0] && (memcmp(ir[0], o, 4 * n) != 0 || memcmp(ir[1], oi, 4 * n) != 0 ||
		              memcmp(ir[2], op, 4 * n) != 0 || memcmp(ir[3], os, 4 * n) != 0))
			fail(&c, "the interpreter's running sums or products differ from the GPU's");
	}
	finish(&c, ir[0] != NULL && gpu);
	free_results(ir, 5);
	free(x), free(o), free(oi), free(op), free(os);
}

/*
 * flip, sort (up; and down of a (value, index) tuple) and topk of
 * (value, index) along one axis of an R x C tile.  The values repeat (steps
 * of 1/16) and hold NaNs, -0 and +0: a sort must give numbers in order with
 * the NaNs last (first, down) and the same bits as its input, and every
 * index must name an element with its value's bits; topk's values are the
 * K largest, largest first, and those of topk of the values alone (which
 * halves the tile at each level) the same bits.  And xor_sum of the values
 * times 16 as i32.
 * The interpreter runs the same network, so the two agree bit for bit.
 */
static const char *sort_src =
	"kernel sorts(o: *f32, f: *f32, d: *f32, di: *i32, t: *f32, ti: *i32, tk: *f32, xs: *i32, x: *f32, R: const i32 = 1,\n"
	"             C: const i32 = 1024, AXIS: const i32 = 1, K: const i32 = 8, TR: const i32 = 1,\n"
	"             TC: const i32 = 8) {\n"
	"    let at = arange(0, R)[:, None] * C + arange(0, C)[None, :];\n"
	"    let v = load(x + at);\n"
	"    store(o + at, sort(v, AXIS));\n"
	"    store(f + at, flip(v, dim = AXIS));\n"
	"    let idx = where(AXIS == 1, arange(0, C)[None, :], arange(0, R)[:, None]);\n"
	"    let dv, dj = sort((v, idx), AXIS, descending = true);\n"
	"    store(d + at, dv);\n"
	"    store(di + at, dj);\n"
	"    let tv, tj = topk((v, idx), K, dim = AXIS);\n"
	"    let tat = arange(0, TR)[:, None] * TC + arange(0, TC)[None, :];\n"
	"    store(t + tat, tv);\n"
	"    store(ti + tat, tj);\n"
	"    store(tk + tat, topk(v, K, AXIS));\n"
	"    store(xs + arange(0, TR * TC / K), xor_sum(cast(where(v == v, v * 16.0, 0.0), i32), AXIS));\n"
	"}\n";

static uint32_t f32_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

/* sort's order: numbers by value, NaN after them */
static int sort_cmp(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	return (x > y) - (x < y);
}

static int bits_cmp(const void *a, const void *b)
{
	uint32_t x = f32_bits(*(const float *)a), y = f32_bits(*(const float *)b);
	return (x > y) - (x < y);
}

static bool same_value(float a, float b)
{
	return a == b || (isnan(a) && isnan(b));
}

static void case_sort(int rows, int cols, int axis, int k, int warps)
{
	if (!want("sort"))
		return;
	Case c;
	start(&c, "sort %dx%d axis=%d k=%d warps=%d", rows, cols, axis, k, warps);
	size_t n = (size_t)rows * cols;
	int len = axis ? cols : rows, lines = axis ? rows : cols, tr = axis ? rows : k, tc = axis ? k : cols;
	size_t nk = (size_t)tr * tc;
	float *x = xmalloc(4 * n), *o = xmalloc(4 * n), *f = xmalloc(4 * n), *d = xmalloc(4 * n), *t = xmalloc(4 * nk),
	      *tk = xmalloc(4 * nk);
	int32_t *di = xmalloc(4 * n), *ti = xmalloc(4 * nk), *xs = xmalloc(4 * (size_t)lines);
	for (size_t i = 0; i < n; i++) {
		double u = uniform(0, 1);
		x[i] = u < 0.02 ? NAN : u < 0.04 ? -0.0f : u < 0.06 ? 0.0f : (float)floor(uniform(-64, 64)) / 16;
	}
	Buf bufs[] = {{o, 4 * n, OUT}, {f, 4 * n, OUT},   {d, 4 * n, OUT}, {di, 4 * n, OUT},
	              {t, 4 * nk, OUT}, {ti, 4 * nk, OUT}, {tk, 4 * nk, OUT}, {xs, 4 * (size_t)lines, OUT},
	              {x, 4 * n, IN}};
	Launch l = {.file = "sort.tile", .src = sort_src, .kernel = "sorts",
	            .defs = {{"R", rows}, {"C", cols}, {"AXIS", axis}, {"K", k}, {"TR", tr}, {"TC", tc}}, .ndefs = 6,
	            .num_warps = warps, .grid = 1,
	            .args = {ABUF(0), ABUF(1), ABUF(2), ABUF(3), ABUF(4), ABUF(5), ABUF(6), ABUF(7), ABUF(8)}, .nargs = 9,
	            .bufs = bufs, .nbufs = 9};
	void *ir[9] = {NULL};
	if (run_both(&c, &l, true, ir)) {
		float *in = xmalloc(4 * (size_t)len), *want_ = xmalloc(4 * (size_t)len), *got = xmalloc(4 * (size_t)len);
		for (int a = 0; a < lines && !c.failed; a++) {
			size_t at[4096];
			for (int j = 0; j < len; j++)
				at[j] = axis ? (size_t)a * cols + j : (size_t)j * cols + a;
			for (int j = 0; j < len; j++) {
				in[j] = want_[j] = x[at[j]];
				if (f32_bits(f[at[j]]) != f32_bits(x[at[len - 1 - j]]))
					fail(&c, "flip at %zu: %g, want %g", at[j], (double)f[at[j]], (double)x[at[len - 1 - j]]);
			}
			qsort(want_, (size_t)len, 4, sort_cmp);
			for (int j = 0; j < len && !c.failed; j++) {
				if (!same_value(o[at[j]], want_[j]))
					fail(&c, "sort at %zu: %g, want %g", at[j], (double)o[at[j]], (double)want_[j]);
				if (!same_value(d[at[j]], want_[len - 1 - j]))
					fail(&c, "sort descending at %zu: %g, want %g", at[j], (double)d[at[j]],
					     (double)want_[len - 1 - j]);
				int32_t s = di[at[j]];
				if (s < 0 || s >= len || f32_bits(x[at[s]]) != f32_bits(d[at[j]]))
					fail(&c, "sort descending's index at %zu: %d does not hold its value %g", at[j], s,
					     (double)d[at[j]]);
			}
			/* the same multisets of bits: nothing lost or doubled */
			qsort(in, (size_t)len, 4, bits_cmp);
			for (int pass = 0; pass < 2 && !c.failed; pass++) {
				for (int j = 0; j < len; j++)
					got[j] = (pass ? d : o)[at[j]];
				qsort(got, (size_t)len, 4, bits_cmp);
				if (memcmp(got, in, 4 * (size_t)len) != 0)
					fail(&c, "%s does not hold the input's elements", pass ? "sort descending" : "sort");
			}
			bool *seen = calloc((size_t)len, 1);
			for (int j = 0; j < k && !c.failed; j++) {
				size_t p = axis ? (size_t)a * k + j : (size_t)j * cols + a;
				int32_t s = ti[p];
				if (!same_value(t[p], want_[len - 1 - j]))
					fail(&c, "topk at %zu: %g, want %g", p, (double)t[p], (double)want_[len - 1 - j]);
				else if (s < 0 || s >= len || seen[s] || f32_bits(x[at[s]]) != f32_bits(t[p]))
					fail(&c, "topk's index at %zu: %d does not hold its value %g (or repeats)", p, s, (double)t[p]);
				else
					seen[s] = true;
			}
			free(seen);
			for (int j = 0; j < k && !c.failed; j++) {
				size_t p = axis ? (size_t)a * k + j : (size_t)j * cols + a;
				if (f32_bits(tk[p]) != f32_bits(t[p]))
					fail(&c, "topk of the values alone at %zu: %#x, the tuples' %#x", p, f32_bits(tk[p]), f32_bits(t[p]));
			}
			int32_t want_xor = 0;
			for (int j = 0; j < len; j++)
				want_xor ^= isnan(x[at[j]]) ? 0 : (int32_t)(x[at[j]] * 16.0f);
			if (xs[a] != want_xor)
				fail(&c, "xor_sum of line %d: %d, want %d", a, xs[a], want_xor);
		}
		free(in), free(want_), free(got);
		if (ir[0] && (memcmp(ir[0], o, 4 * n) != 0 || memcmp(ir[1], f, 4 * n) != 0 ||
		              memcmp(ir[2], d, 4 * n) != 0 || memcmp(ir[3], di, 4 * n) != 0 ||
		              memcmp(ir[4], t, 4 * nk) != 0 || memcmp(ir[5], ti, 4 * nk) != 0 ||
		              memcmp(ir[6], tk, 4 * nk) != 0 || memcmp(ir[7], xs, 4 * (size_t)lines) != 0))
			fail(&c, "the interpreter's sorts differ from the GPU's");
	}
	finish(&c, ir[0] != NULL && gpu);
	free_results(ir, 9);
	free(x), free(o), free(f), free(d), free(t), free(tk), free(di), free(ti), free(xs);
}

/*
 * sort of f16 (up) and bf16 (down) rows, whose keys go through the network
 * as i16: random bits, many of them NaNs of either sign with payloads, -0,
 * +0 and infinities.  The order is total on the bits (-0 below +0, the
 * NaNs after the numbers: positive, then negative, by payload), so the
 * host sorts the same way and the outputs must match it exactly; and
 * bitcast to i16 of both inputs, xored; and the top 2 along the middle
 * axis of the f16 rows as [R, C / 16, 16], of the values alone and with
 * their indices.
 */
static const char *sort16_src =
	"kernel sort16(oh: *f16, ob: *bf16, ox: *i16, ot: *f16, oti: *i32, h: *f16, b: *bf16, R: const i32 = 4,\n"
	"              C: const i32 = 256) {\n"
	"    let at = arange(0, R)[:, None] * C + arange(0, C)[None, :];\n"
	"    let x = load(h + at);\n"
	"    let y = load(b + at);\n"
	"    store(oh + at, sort(x, 1));\n"
	"    store(ob + at, sort(y, 1, descending = true));\n"
	"    store(ox + at, cast(x, i16, bitcast = true) ^ cast(y, i16, bitcast = true));\n"
	"    let x3 = reshape(x, [R, C / 16, 16]);\n"
	"    let j3 = reshape(arange(0, C)[None, :] + 0 * at, [R, C / 16, 16]);\n"
	"    let tat = reshape(arange(0, R * 32), [R, 2, 16]);\n"
	"    store(ot + tat, topk(x3, 2, 1));\n"
	"    let tv, ti = topk((x3, j3), 2, 1);\n"
	"    store(ot + R * 32 + tat, tv);\n"
	"    store(oti + tat, ti);\n"
	"}\n";

static int sort16_mant;

/* sort's order on 16-bit float bits: as i16, magnitude flipped under a set sign, less the NaNs of one sign */
static int16_t key16(uint16_t b)
{
	uint16_t k = b & 0x8000 ? b ^ 0x7fff : b;
	return (int16_t)(uint16_t)(k - ((1u << sort16_mant) - 1));
}

static int key16_cmp(const void *a, const void *b)
{
	int16_t x = key16(*(const uint16_t *)a), y = key16(*(const uint16_t *)b);
	return (x > y) - (x < y);
}

static void case_sort16(int rows, int cols, int warps)
{
	if (!want("sort16"))
		return;
	Case c;
	start(&c, "sort16 %dx%d warps=%d", rows, cols, warps);
	size_t n = (size_t)rows * cols;
	uint16_t *h = xmalloc(2 * n), *b = xmalloc(2 * n), *oh = xmalloc(2 * n), *ob = xmalloc(2 * n), *ox = xmalloc(2 * n);
	size_t nt = (size_t)rows * 32;
	uint16_t *ot = xmalloc(4 * nt);
	int32_t *oti = xmalloc(4 * nt);
	for (int t = 0; t < 2; t++) {
		uint16_t *x = t ? b : h, nan = t ? 0x7f80 : 0x7c00, m = t ? 0x7f : 0x3ff;
		for (size_t i = 0; i < n; i++) {
			double u = uniform(0, 1);
			uint16_t sign = uniform(0, 1) < 0.5 ? 0x8000 : 0, r = (uint16_t)uniform(0, 65536);
			x[i] = u < 0.1 ? sign | nan | ((r & m) ? (r & m) : 1) : u < 0.15 ? sign : u < 0.18 ? sign | nan
			       : u < 0.5 ? (uint16_t)(r & 0x80ff) : r;
		}
	}
	Buf bufs[] = {{oh, 2 * n, OUT}, {ob, 2 * n, OUT}, {ox, 2 * n, OUT}, {ot, 4 * nt, OUT}, {oti, 4 * nt, OUT},
	              {h, 2 * n, IN},   {b, 2 * n, IN}};
	Launch l = {.file = "sort16.tile", .src = sort16_src, .kernel = "sort16",
	            .defs = {{"R", rows}, {"C", cols}}, .ndefs = 2, .num_warps = warps, .grid = 1,
	            .args = {ABUF(0), ABUF(1), ABUF(2), ABUF(3), ABUF(4), ABUF(5), ABUF(6)}, .nargs = 7, .bufs = bufs,
	            .nbufs = 7};
	void *ir[7] = {NULL};
	if (run_both(&c, &l, true, ir)) {
		uint16_t *want_ = xmalloc(2 * (size_t)cols);
		for (int t = 0; t < 2; t++)
			for (int r = 0; r < rows && !c.failed; r++) {
				uint16_t *in = (t ? b : h) + (size_t)r * cols, *got = (t ? ob : oh) + (size_t)r * cols;
				memcpy(want_, in, 2 * (size_t)cols);
				sort16_mant = t ? 7 : 10;
				qsort(want_, (size_t)cols, 2, key16_cmp);
				for (int j = 0; j < cols && !c.failed; j++) {
					uint16_t w = want_[t ? cols - 1 - j : j];
					if (got[j] != w)
						fail(&c, "%s sort of row %d at %d: %#06x, want %#06x", t ? "bf16 descending" : "f16", r, j,
						     got[j], w);
				}
			}
		for (size_t i = 0; i < n && !c.failed; i++)
			if (ox[i] != (h[i] ^ b[i]))
				fail(&c, "bitcast at %zu: %#06x, want %#06x", i, ox[i], h[i] ^ b[i]);
		/* top 2 of x[r, :, c] as [R, C / 16, 16]: the largest key, then the next (the other position) */
		sort16_mant = 10;
		for (int r = 0; r < rows && !c.failed; r++)
			for (int q = 0; q < 16 && !c.failed; q++) {
				int best[2] = {-1, -1};
				for (int j = 0; j < cols / 16; j++) {
					int at = r * cols + j * 16 + q;
					if (best[0] < 0 || key16(h[at]) > key16(h[best[0]]))
						best[1] = best[0], best[0] = at;
					else if (best[1] < 0 || key16(h[at]) > key16(h[best[1]]))
						best[1] = at;
				}
				for (int i = 0; i < 2; i++) {
					size_t p = (size_t)r * 32 + (size_t)i * 16 + (size_t)q;
					uint16_t w = h[best[i]];
					if (ot[p] != w || ot[nt + p] != w)
						fail(&c, "topk along axis 1 at %zu: %#06x (values alone), %#06x (with indices), want %#06x",
						     p, ot[p], ot[nt + p], w);
					else if (oti[p] < 0 || oti[p] >= cols || oti[p] % 16 != q || h[r * cols + oti[p]] != w ||
					         (i == 1 && oti[p] == oti[p - 16]))
						fail(&c, "topk's index at %zu: %d does not hold its value %#06x", p, oti[p], w);
				}
			}
		free(want_);
		if (ir[0] && (memcmp(ir[0], oh, 2 * n) != 0 || memcmp(ir[1], ob, 2 * n) != 0 || memcmp(ir[2], ox, 2 * n) != 0 ||
		              memcmp(ir[3], ot, 4 * nt) != 0 || memcmp(ir[4], oti, 4 * nt) != 0))
			fail(&c, "the interpreter's 16-bit sorts differ from the GPU's");
	}
	finish(&c, ir[0] != NULL && gpu);
	free_results(ir, 7);
	free(h), free(b), free(oh), free(ob), free(ox), free(ot), free(oti);
}

/*
 * A running maximum of f16 values converted from f32, forward and
 * reversed, 512 of them over 4 warps (4 a thread): f16 maximum written as
 * max.NaN.f16 let ptxas -O3 fuse it into VHMNMX/HMNMX2 and got a third of
 * these wrong; codegen now keeps f16/bf16 max and min in f32.  Exact.
 */
static const char *scan16_src =
	"fn m1(a, b) { return maximum(a, b); }\n"
	"kernel scan16(o: *f16, x: *f32, REV: const i32 = 0) {\n"
	"    let offs = program_id(0) * 512 + arange(0, 512);\n"
	"    store(o + offs, associative_scan(cast(load(x + offs), f16), 0, m1, REV));\n"
	"}\n";

static void case_scan16(int rev)
{
	if (!want("scan16"))
		return;
	Case c;
	start(&c, "scan16 5x512 %s warps=4", rev ? "reverse" : "forward");
	size_t n = 5 * 512;
	float *x = xmalloc(4 * n);
	uint16_t *o = xmalloc(2 * n);
	fill_f32(x, n, -16, 16);
	Buf bufs[] = {{o, 2 * n, OUT}, {x, 4 * n, IN}};
	Launch l = {.file = "scan16.tile", .src = scan16_src, .kernel = "scan16", .defs = {{"REV", rev}}, .ndefs = 1,
	            .num_warps = 4, .grid = 5, .args = {ABUF(0), ABUF(1)}, .nargs = 2, .bufs = bufs, .nbufs = 2};
	void *ir[2] = {NULL};
	if (run_both(&c, &l, true, ir)) {
		for (int p = 0; p < 5 && !c.failed; p++) {
			float m = -INFINITY;
			for (int k = 0; k < 512 && !c.failed; k++) {
				size_t at = (size_t)p * 512 + (size_t)(rev ? 511 - k : k);
				float h = half_to_f32(f32_to_half(x[at]));
				m = h > m ? h : m;
				if (half_to_f32(o[at]) != m)
					fail(&c, "at %zu: %g, want %g", at, (double)half_to_f32(o[at]), (double)m);
			}
		}
		if (ir[0] && memcmp(ir[0], o, 2 * n) != 0)
			fail(&c, "the interpreter's running maxima differ from the GPU's");
	}
	finish(&c, ir[0] != NULL && gpu);
	free_results(ir, 2);
	free(x), free(o);
}

/*
 * gather and histogram on a program's R x C tile (several tiles of
 * programs over the grid, so every program sees its own data):
 *   - f32 src gathered along axis 1 by an i32 index of R x K (K != C),
 *   - f16 src gathered along axis 0 by an i64 index of C rows (a row
 *     permutation and repeats), stored as f16,
 *   - a 1-D gather of the flattened tile by i16 indices;
 *   - histogram of i32 values in [-8, B + 8) under a mask of the first n
 *     elements (values outside [0, B) and masked ones count nowhere), and
 *     of the i8 bytes of the same values into 256 counters (negative bytes
 *     count nowhere).
 * All exact; the interpreter agrees bit for bit.
 */
static const char *gather_src =
	"kernel gather_hist(o1: *f32, o2: *f16, o3: *f32, oh: *i32, ob: *i32, x: *f32, ia: *i32, ib: *i64,\n"
	"                   ic: *i16, v: *i32, n: i32, R: const i32 = 8, C: const i32 = 32, K: const i32 = 16,\n"
	"                   B: const i32 = 64) {\n"
	"    let p = program_id(0);\n"
	"    let rows = arange(0, R)[:, None];\n"
	"    let at = p * R * C + rows * C + arange(0, C)[None, :];\n"
	"    let src = load(x + at);\n"
	"    let ak = p * R * K + rows * K + arange(0, K)[None, :];\n"
	"    store(o1 + ak, gather(src, load(ia + ak), 1));\n"
	"    store(o2 + at, gather(cast(src, f16), load(ib + at), axis = 0));\n"
	"    let flat = p * R * C + arange(0, R * C);\n"
	"    store(o3 + flat, gather(reshape(src, [R * C]), load(ic + flat), 0));\n"
	"    let vals = load(v + at);\n"
	"    let m = arange(0, R)[:, None] * C + arange(0, C)[None, :] < n;\n"
	"    store(oh + p * B + arange(0, B), histogram(vals, B, mask = m));\n"
	"    store(ob + p * 256 + arange(0, 256), histogram(cast(vals * 37, i8), 256));\n"
	"}\n";

static void case_gather(int rows, int cols, int k, int bins, int warps)
{
	if (!want("gather"))
		return;
	Case c;
	start(&c, "gather %dx%d k=%d bins=%d warps=%d", rows, cols, k, bins, warps);
	int progs = 3, tile = rows * cols, masked = tile - tile / 3;
	size_t n = (size_t)progs * tile, nk = (size_t)progs * rows * k;
	float *x = xmalloc(4 * n), *o1 = xmalloc(4 * nk), *o3 = xmalloc(4 * n);
	uint16_t *o2 = xmalloc(2 * n);
	int32_t *ia = xmalloc(4 * nk), *v = xmalloc(4 * n), *oh = xmalloc(4 * (size_t)progs * bins),
		*ob = xmalloc(4 * (size_t)progs * 256);
	int64_t *ib = xmalloc(8 * n);
	int16_t *ic = xmalloc(2 * n);
	fill_f32(x, n, -100, 100);
	for (size_t i = 0; i < nk; i++)
		ia[i] = (int32_t)uniform(0, cols);
	for (size_t i = 0; i < n; i++) {
		ib[i] = (int64_t)uniform(0, rows);
		ic[i] = (int16_t)uniform(0, tile);
		v[i] = (int32_t)uniform(-8, bins + 8);
	}
	Buf bufs[] = {{o1, 4 * nk, OUT}, {o2, 2 * n, OUT}, {o3, 4 * n, OUT}, {oh, 4 * (size_t)progs * bins, OUT},
	              {ob, 4 * (size_t)progs * 256, OUT}, {x, 4 * n, IN}, {ia, 4 * nk, IN}, {ib, 8 * n, IN},
	              {ic, 2 * n, IN}, {v, 4 * n, IN}};
	Launch l = {.file = "gather.tile", .src = gather_src, .kernel = "gather_hist",
	            .defs = {{"R", rows}, {"C", cols}, {"K", k}, {"B", bins}}, .ndefs = 4, .num_warps = warps,
	            .grid = progs,
	            .args = {ABUF(0), ABUF(1), ABUF(2), ABUF(3), ABUF(4), ABUF(5), ABUF(6), ABUF(7), ABUF(8), ABUF(9),
	                     AI32(masked)},
	            .nargs = 11, .bufs = bufs, .nbufs = 10};
	void *ir[10] = {NULL};
	if (run_both(&c, &l, true, ir)) {
		for (int p = 0; p < progs && !c.failed; p++) {
			size_t base = (size_t)p * tile, kb = (size_t)p * rows * k;
			for (int r = 0; r < rows; r++)
				for (int j = 0; j < k; j++) {
					size_t at = kb + (size_t)r * k + j;
					float w = x[base + (size_t)r * cols + ia[at]];
					if (o1[at] != w && !c.failed)
						fail(&c, "axis-1 gather at %zu: %g, want %g", at, (double)o1[at], (double)w);
				}
			for (int r = 0; r < rows; r++)
				for (int j = 0; j < cols; j++) {
					size_t at = base + (size_t)r * cols + j;
					uint16_t w = f32_to_half(x[base + (size_t)ib[at] * cols + j]);
					if (o2[at] != w && !c.failed)
						fail(&c, "axis-0 f16 gather at %zu: %#06x, want %#06x", at, o2[at], w);
				}
			for (int i = 0; i < tile; i++) {
				float w = x[base + (size_t)ic[base + i]];
				if (o3[base + i] != w && !c.failed)
					fail(&c, "1-D gather at %zu: %g, want %g", base + i, (double)o3[base + i], (double)w);
			}
			int32_t *hist = calloc((size_t)bins + 256, 4), *bytes = hist + bins;
			for (int i = 0; i < tile; i++) {
				int32_t a = v[base + i];
				int8_t b = (int8_t)(uint8_t)((uint32_t)a * 37u);
				if (i < masked && a >= 0 && a < bins)
					hist[a]++;
				if (b >= 0)
					bytes[b]++;
			}
			for (int i = 0; i < bins && !c.failed; i++)
				if (oh[(size_t)p * bins + i] != hist[i])
					fail(&c, "program %d's histogram at %d: %d, want %d", p, i, oh[(size_t)p * bins + i], hist[i]);
			for (int i = 0; i < 256 && !c.failed; i++)
				if (ob[(size_t)p * 256 + i] != bytes[i])
					fail(&c, "program %d's i8 histogram at %d: %d, want %d", p, i, ob[(size_t)p * 256 + i], bytes[i]);
			free(hist);
		}
		if (ir[0] && (memcmp(ir[0], o1, 4 * nk) != 0 || memcmp(ir[1], o2, 2 * n) != 0 || memcmp(ir[2], o3, 4 * n) != 0 ||
		              memcmp(ir[3], oh, 4 * (size_t)progs * bins) != 0 || memcmp(ir[4], ob, 4 * (size_t)progs * 256) != 0))
			fail(&c, "the interpreter's gathers or histograms differ from the GPU's");
	}
	finish(&c, ir[0] != NULL && gpu);
	free_results(ir, 10);
	free(x), free(o1), free(o2), free(o3), free(ia), free(v), free(oh), free(ob), free(ib), free(ic);
}

/*
 * The front end's Triton built-ins on the GPU, exact: umulhi of random i32
 * and i64 bits (the unsigned high half); a copy through offsets rotated by
 * K rows modulo M = R * C, whose runs the hints give back to the compiler
 * (the rotation keeps runs of C from multiples of C); ravel of trans, cat
 * of a tile and its double, broadcast_to of expand_dims of each row's max,
 * and swizzle2d over zeros_like-broadcast indices in groups of 4 rows.
 */
static const char *builtins_src =
	"kernel builtins(o32: *i32, o64: *i64, of: *f32, x: *i32, y: *i64, f: *f32, K: i32, M: i32,\n"
	"                R: const i32 = 16, C: const i32 = 64) {\n"
	"    static_assert(R * C <= 4096, \"one tile\");\n"
	"    let i = arange(0, R * C);\n"
	"    let a = load(x + i);\n"
	"    store(o32 + i, umulhi(a, load(x + R * C + i)));\n"
	"    store(o64 + i, umulhi(load(y + i), load(y + R * C + i)));\n"
	"    let offs = max_contiguous(multiple_of((i + K * C) % M, C), C);\n"
	"    store(of + i, load(f + offs));\n"
	"    let t = reshape(load(f + i), [R, C]);\n"
	"    store(of + R * C + i, ravel(trans(t)));\n"
	"    store(of + 2 * R * C + arange(0, 2 * R * C), ravel(cat(t, t * 2.0)));\n"
	"    let ti = reshape(a, [R, C]);\n"
	"    store(o32 + R * C + i, ravel(broadcast_to(expand_dims(max(ti, 1), 1), [R, C])));\n"
	"    let si, sj = swizzle2d(arange(0, R)[:, None] + zeros_like(ti), arange(0, C)[None, :], R, C, 4);\n"
	"    store(o32 + 2 * R * C + i, ravel(si * C + sj));\n"
	"}\n";

static void case_builtins(int rows, int cols, int warps)
{
	if (!want("builtins"))
		return;
	Case c;
	start(&c, "builtins %dx%d warps=%d", rows, cols, warps);
	int n = rows * cols, k = 3 % rows;
	int32_t *x = xmalloc(8 * (size_t)n), *o32 = xmalloc(12 * (size_t)n);
	int64_t *y = xmalloc(16 * (size_t)n), *o64 = xmalloc(8 * (size_t)n);
	float *f = xmalloc(4 * (size_t)n), *of = xmalloc(16 * (size_t)n);
	for (int i = 0; i < 2 * n; i++) {
		x[i] = (int32_t)(uint32_t)uniform(0, 4294967296.0);
		y[i] = (int64_t)((uint64_t)uniform(0, 4294967296.0) << 32 | (uint64_t)uniform(0, 4294967296.0));
	}
	x[0] = -1, x[n] = -1, y[1] = INT64_MIN, y[n + 1] = -1;
	fill_f32(f, (size_t)n, -100, 100);
	Buf bufs[] = {{o32, 12 * (size_t)n, OUT}, {o64, 8 * (size_t)n, OUT}, {of, 16 * (size_t)n, OUT},
	              {x, 8 * (size_t)n, IN},    {y, 16 * (size_t)n, IN},   {f, 4 * (size_t)n, IN}};
	Launch l = {.file = "builtins.tile", .src = builtins_src, .kernel = "builtins",
	            .defs = {{"R", rows}, {"C", cols}}, .ndefs = 2, .num_warps = warps, .grid = 1,
	            .args = {ABUF(0), ABUF(1), ABUF(2), ABUF(3), ABUF(4), ABUF(5), AI32(k), AI32(n)}, .nargs = 8,
	            .bufs = bufs, .nbufs = 6};
	void *ir[6] = {NULL};
	if (run_both(&c, &l, true, ir)) {
		for (int i = 0; i < n && !c.failed; i++) {
			int r = i / cols, q = i % cols, rmax = INT32_MIN;
			for (int j = 0; j < cols; j++)
				rmax = x[r * cols + j] > rmax ? x[r * cols + j] : rmax;
			/* Triton's swizzle2d(r, q, rows, cols, 4) */
			int ij = r * cols + q, gj = 4 * cols, off = ij / gj * 4, g = rows - off < 4 ? rows - off : 4;
			int si = off + ij % gj % g, sj = ij % gj / g;
			int32_t hi32 = (int32_t)(uint32_t)((uint64_t)(uint32_t)x[i] * (uint32_t)x[n + i] >> 32);
			int64_t hi64 = (int64_t)(uint64_t)((unsigned __int128)(uint64_t)y[i] * (uint64_t)y[n + i] >> 64);
			if (o32[i] != hi32)
				fail(&c, "umulhi i32 at %d: %d, want %d", i, o32[i], hi32);
			else if (o64[i] != hi64)
				fail(&c, "umulhi i64 at %d: %lld, want %lld", i, (long long)o64[i], (long long)hi64);
			else if (of[i] != f[(i + k * cols) % n])
				fail(&c, "hinted copy at %d: %g, want %g", i, (double)of[i], (double)f[(i + k * cols) % n]);
			else if (of[n + i] != f[(i % rows) * cols + i / rows])
				fail(&c, "ravel(trans) at %d: %g", i, (double)of[n + i]);
			else if (of[2 * n + i] != f[i] || of[3 * n + i] != 2 * f[i])
				fail(&c, "cat at %d: %g and %g", i, (double)of[2 * n + i], (double)of[3 * n + i]);
			else if (o32[n + i] != rmax)
				fail(&c, "broadcast_to of the row max at %d: %d, want %d", i, o32[n + i], rmax);
			else if (o32[2 * n + i] != si * cols + sj)
				fail(&c, "swizzle2d at %d: %d, want %d", i, o32[2 * n + i], si * cols + sj);
		}
		if (ir[0] && (memcmp(ir[0], o32, 12 * (size_t)n) != 0 || memcmp(ir[1], o64, 8 * (size_t)n) != 0 ||
		              memcmp(ir[2], of, 16 * (size_t)n) != 0))
			fail(&c, "the interpreter's results differ from the GPU's");
	}
	finish(&c, ir[0] != NULL && gpu);
	free_results(ir, 6);
	free(x), free(o32), free(y), free(o64), free(f), free(of);
}

/*
 * reduce and associative_scan with combine fns, on an R x C tile along
 * both axes: a sum (f32, within the sum of magnitudes' rounding), the first
 * index of the largest value (i32 operand beside the f32 one, exact), the
 * min in f16 beside the max in bf16 (exact, both stored as f16; 16-bit
 * partials of two types side by side in scratch), the sum of the whole tile
 * reshaped to 1-D (a scalar), a running sum, and the affine recurrence
 * h = a h + b (combine not commutative) in i32 (a = +-1: exact, no
 * overflow, which is undefined on the GPU) along both axes and in f32.  The
 * interpreter scans in the GPU's order: scans agree bit for bit.
 */
static const char *combine_src =
	"fn add(a, b) { return a + b; }\n"
	"fn first_max(v1, k1, v2, k2) {\n"
	"    let take = v2 > v1 || (v2 == v1 && k2 < k1);\n"
	"    return where(take, v2, v1), where(take, k2, k1);\n"
	"}\n"
	"fn min_max(lo1, hi1, lo2, hi2) { return minimum(lo1, lo2), maximum(hi1, hi2); }\n"
	"fn affine(a1, b1, a2, b2) { return a2 * a1, a2 * b1 + b2; }  // x -> a1 x + b1, then a2 x + b2\n"
	"kernel combine(rs: *f32, ra: *i32, rh: *f16, sc: *f32, sa: *i32, sb: *i32, sf: *f32, x: *f32,\n"
	"               R: const i32 = 4, C: const i32 = 256, REV: const i32 = 0) {\n"
	"    let r = arange(0, R)[:, None];\n"
	"    let c = arange(0, C)[None, :];\n"
	"    let at = r * C + c;\n"
	"    let t = load(x + at);\n"
	"    store(rs + arange(0, R), reduce(t, 1, add));\n"
	"    store(rs + R + arange(0, C), reduce(t, 0, add));\n"
	"    store(rs + R + C, reduce(reshape(t, [R * C]), 0, add));\n"
	"    let _, k1 = reduce((t, c), 1, first_max);\n"
	"    store(ra + arange(0, R), k1);\n"
	"    let _, k0 = reduce((t, r), axis = 0, combine_fn = first_max);\n"
	"    store(ra + R + arange(0, C), k0);\n"
	"    let h = cast(t, f16);\n"
	"    let lo, hi = reduce((h, cast(t, bf16)), 1, min_max);\n"
	"    store(rh + arange(0, R), lo);\n"
	"    store(rh + R + arange(0, R), hi);\n"
	"    store(sc + at, associative_scan(t, 1, add, REV));\n"
	"    let ai = where(t > 0.0, 1, -1);\n"
	"    let bi = cast(t * 77.0, i32);\n"
	"    let _, b1 = associative_scan((ai, bi), 1, affine, REV);\n"
	"    store(sa + at, b1);\n"
	"    let _, b0 = associative_scan((ai, bi), 0, affine, reverse = REV);\n"
	"    store(sb + at, b0);\n"
	"    let _, f = associative_scan((t * 0.5, t), 1, affine, REV);\n"
	"    store(sf + at, f);\n"
	"}\n";

/* h = a h + b along one line of the tile (n elements, stride apart, from the end when rev); a = +-1, so no overflow. */
static void affine_ref(const int32_t *a, const int32_t *b, int32_t *h, int n, size_t stride, bool rev)
{
	int64_t acc = 0;
	for (int k = 0; k < n; k++) {
		size_t at = (size_t)(rev ? n - 1 - k : k) * stride;
		acc = a[at] * acc + b[at];
		h[at] = (int32_t)acc;
	}
}

static void case_combine(int rows, int cols, int rev, int warps)
{
	if (!want("combine"))
		return;
	Case c;
	start(&c, "combine %dx%d%s warps=%d", rows, cols, rev ? " reverse" : "", warps);
	size_t n = (size_t)rows * cols, nr = (size_t)rows + cols + 1;
	float *x = xmalloc(4 * n), *rs = xmalloc(4 * nr), *sc = xmalloc(4 * n), *sf = xmalloc(4 * n);
	int32_t *ra = xmalloc(4 * nr), *sa = xmalloc(4 * n), *sb = xmalloc(4 * n);
	int32_t *ai = xmalloc(4 * n), *bi = xmalloc(4 * n), *want_a = xmalloc(4 * n), *want_b = xmalloc(4 * n);
	uint16_t *rh = xmalloc(2 * 2 * (size_t)rows);
	fill_f32(x, n, -1, 1);
	Buf bufs[] = {{rs, 4 * nr, OUT}, {ra, 4 * nr, OUT}, {rh, 4 * (size_t)rows, OUT}, {sc, 4 * n, OUT},
	              {sa, 4 * n, OUT},  {sb, 4 * n, OUT},  {sf, 4 * n, OUT},             {x, 4 * n, IN}};
	Launch l = {.file = "combine.tile", .src = combine_src, .kernel = "combine",
	            .defs = {{"R", rows}, {"C", cols}, {"REV", rev}}, .ndefs = 3, .num_warps = warps, .grid = 1,
	            .args = {ABUF(0), ABUF(1), ABUF(2), ABUF(3), ABUF(4), ABUF(5), ABUF(6), ABUF(7)}, .nargs = 8,
	            .bufs = bufs, .nbufs = 8};
	void *ir[8] = {NULL};
	if (!run_both(&c, &l, true, ir))
		goto out;
	for (size_t i = 0; i < n; i++) {
		ai[i] = x[i] > 0 ? 1 : -1;
		bi[i] = (int32_t)(x[i] * 77.0f);
	}
	for (int i = 0; i < rows; i++)
		affine_ref(ai + (size_t)i * cols, bi + (size_t)i * cols, want_a + (size_t)i * cols, cols, 1, rev);
	for (int j = 0; j < cols; j++)
		affine_ref(ai + j, bi + j, want_b + j, rows, (size_t)cols, rev);
	/* reductions: each row (i < rows), each column, the whole tile */
	for (size_t q = 0; q < nr && !c.failed; q++) {
		bool row = q < (size_t)rows, all = q == nr - 1;
		int len = all ? (int)n : row ? cols : rows, best = 0;
		double s = 0, mag = 0;
		for (int k = 0; k < len; k++) {
			size_t at = all ? (size_t)k : row ? q * cols + k : (size_t)k * cols + (q - rows);
			s += x[at], mag += fabs(x[at]);
			size_t bat = row ? q * cols + best : (size_t)best * cols + (q - rows);
			if (!all && x[at] > x[bat])
				best = k;
		}
		double tol = 2e-6 * mag + 1e-30, e = fabs(rs[q] - s) / tol;
		if (!(e <= 1.0))
			fail(&c, "sum %zu: %.9g, want %.9g", q, (double)rs[q], s);
		else if (e > c.maxerr)
			c.maxerr = e;
		if (!all && ra[q] != best)
			fail(&c, "first_max %zu: index %d, want %d", q, ra[q], best);
	}
	for (int i = 0; i < rows && !c.failed; i++) {
		float lo = INFINITY, hi = -INFINITY;
		for (int k = 0; k < cols; k++) {
			float v = half_to_f32(f32_to_half(x[(size_t)i * cols + k]));
			float b = ref_bf16_to_f32(ref_f32_to_bf16(x[(size_t)i * cols + k]));
			lo = v < lo ? v : lo, hi = b > hi ? b : hi;
		}
		if (half_to_f32(rh[i]) != lo || half_to_f32(rh[rows + i]) != hi)
			fail(&c, "min_max of row %d: %g, %g, want %g, %g", i, (double)half_to_f32(rh[i]),
			     (double)half_to_f32(rh[rows + i]), (double)lo, (double)hi);
	}
	/* scans along the rows: the running sum and the f32 recurrence h = t/2 h + t */
	for (int i = 0; i < rows && !c.failed; i++) {
		double s = 0, mag = 0, hf = 0;
		for (int k = 0; k < cols && !c.failed; k++) {
			size_t at = (size_t)i * cols + (rev ? cols - 1 - k : k);
			s += x[at], mag += fabs(x[at]);
			hf = 0.5 * x[at] * hf + x[at];
			double tol = 2e-6 * mag + 1e-30;
			if (!(fabs(sc[at] - s) <= tol))
				fail(&c, "running sum at %zu: %.9g, want %.9g", at, (double)sc[at], s);
			if (!(fabs(sf[at] - hf) <= 1e-5 * (1 + fabs(hf))))
				fail(&c, "f32 recurrence at %zu: %.9g, want %.9g", at, (double)sf[at], hf);
		}
	}
	for (size_t i = 0; i < n && !c.failed; i++)
		if (sa[i] != want_a[i] || sb[i] != want_b[i])
			fail(&c, "i32 recurrence at %zu: %d and %d, want %d and %d", i, sa[i], sb[i], want_a[i], want_b[i]);
	if (ir[0] && !c.failed) {
		agree(&c, "sums", rs, ir[0], F32, nr, 4e-6, 1e-6);
		for (int b = 1; b <= 6 && !c.failed; b++)
			if (memcmp(ir[b], bufs[b].host, bufs[b].bytes) != 0)
				fail(&c, "buffer %d: the interpreter's results differ from the GPU's", b);
	}
out:
	finish(&c, ir[0] != NULL && gpu);
	free_results(ir, 8);
	free(x), free(rs), free(sc), free(sf), free(ra), free(sa), free(sb), free(ai), free(bi), free(want_a);
	free(want_b), free(rh);
}

/*
 * linear_scan.tile: h[t] = a[t] h[t-1] + b[t] along rows of T, a in
 * [0.5, 1), b in [-1, 1]: against the recurrence in double, within 1e-5 of
 * the magnitude it carries (the same recurrence on |a|, |b|).
 */
static void case_linear_scan(int rows, int T, int block, int warps)
{
	if (!want("linear_recurrence"))
		return;
	Case c;
	start(&c, "linear_recurrence rows=%d T=%d BLOCK=%d warps=%d", rows, T, block, warps);
	size_t n = (size_t)rows * T;
	float *a = xmalloc(4 * n), *b = xmalloc(4 * n), *h = xmalloc(4 * n);
	fill_f32(a, n, 0.5, 1);
	fill_f32(b, n, -1, 1);
	Buf bufs[] = {{h, 4 * n, OUT}, {a, 4 * n, IN}, {b, 4 * n, IN}};
	Launch l = {.file = "linear_scan.tile", .kernel = "linear_recurrence", .defs = {{"BLOCK", block}}, .ndefs = 1,
	            .num_warps = warps, .grid = (unsigned)rows, .args = {ABUF(0), ABUF(1), ABUF(2), AI32(T)}, .nargs = 4,
	            .bufs = bufs, .nbufs = 3};
	void *ir[3] = {NULL, NULL, NULL};
	if (run_both(&c, &l, n <= (1 << 16), ir)) {
		for (int r = 0; r < rows && !c.failed; r++) {
			double x = 0, mag = 0;
			for (int t = 0; t < T && !c.failed; t++) {
				size_t at = (size_t)r * T + t;
				x = a[at] * x + b[at];
				mag = a[at] * mag + fabs(b[at]);
				double tol = 1e-5 * mag + 1e-6, e = fabs(h[at] - x) / tol;
				if (!(e <= 1.0))
					fail(&c, "h[%d, %d] = %.9g, want %.9g", r, t, (double)h[at], x);
				else if (e > c.maxerr)
					c.maxerr = e;
			}
		}
		if (ir[0])
			agree(&c, "h", h, ir[0], F32, n, 1e-5, 1e-5);
	}
	finish(&c, ir[0] != NULL && gpu);
	free_results(ir, 3);
	free(a), free(b), free(h);
}

/*
 * rope.tile: tokens x heads rows of 2 * half, `per` to a program, positions up to maxpos (a
 * million and more reach sin and cos's long reduction).  The angle is the
 * kernel's one f32 product; the rest in double.  `inter`: rope_interleaved,
 * pair i at 2i and 2i + 1 (split and join), not at i and i + half.
 */
static void case_rope(int tokens, int heads, int half, int maxpos, int pad, int per, int warps, bool inter)
{
	const char *kernel = inter ? "rope_interleaved" : "rope";
	if (!want(kernel))
		return;
	Case c;
	int stride = 2 * half + pad, rows = tokens * heads;
	start(&c, "%s tokens=%d heads=%d HALF=%d positions<=%d stride=%d ROWS=%d warps=%d", kernel, tokens, heads, half,
	      maxpos, stride, per, warps);
	float *x = xmalloc(4 * (size_t)rows * stride), *out = xmalloc(4 * (size_t)rows * stride);
	float *inv = xmalloc(4 * (size_t)half);
	int32_t *pos = xmalloc(4 * (size_t)tokens);
	double *want = xmalloc(8 * (size_t)rows * stride);
	fill_f32(x, (size_t)rows * stride, -1, 1);
	for (int t = 0; t < tokens; t++)
		pos[t] = t == 0 ? maxpos : (int32_t)uniform(0, maxpos);
	for (int i = 0; i < half; i++)
		inv[i] = (float)pow(10000.0, -(double)i / half);
	for (int r = 0; r < rows; r++) {
		const float *xr = x + (size_t)r * stride;
		double *w = want + (size_t)r * stride;
		for (int i = 0; i < stride; i++)
			w[i] = xr[i]; /* the padding: compared below only up to 2 * half */
		for (int i = 0; i < half; i++) {
			double a = (float)((float)pos[r / heads] * inv[i]), co = cos(a), si = sin(a);
			int j = inter ? 2 * i : i, k = inter ? 2 * i + 1 : i + half;
			w[j] = xr[j] * co - xr[k] * si;
			w[k] = xr[k] * co + xr[j] * si;
		}
	}
	Buf bufs[] = {{out, 4 * (size_t)rows * stride, OUT}, {x, 4 * (size_t)rows * stride, IN},
	              {pos, 4 * (size_t)tokens, IN}, {inv, 4 * (size_t)half, IN}};
	Launch l = {.file = "rope.tile", .kernel = kernel, .defs = {{"HALF", half}, {"ROWS", per}}, .ndefs = 2,
	            .num_warps = warps, .grid = (unsigned)((rows + per - 1) / per),
	            .args = {ABUF(0), ABUF(1), ABUF(2), ABUF(3), AI32(rows), AI32(heads), AI32(stride)}, .nargs = 7,
	            .bufs = bufs, .nbufs = 4};
	bool small = rows * stride <= (1 << 16);
	void *ir[4] = {NULL, NULL, NULL, NULL};
	if (run_both(&c, &l, small, ir)) {
		compare_rows(&c, "out", out, F32, want, rows, 2 * half, stride, F32_RTOL, F32_ATOL);
		if (small && ir[0])
			agree_rows(&c, "out", out, ir[0], F32, rows, 2 * half, stride, F32_RTOL, F32_ATOL);
	}
	finish(&c, true);
	free_results(ir, 4);
	free(x), free(out), free(inv), free(pos), free(want);
}

static void case_softmax(int rows, int n, int stride, int programs, int num_warps)
{
	const char *kernel = programs ? "softmax_persistent" : "softmax";
	if (!want(kernel))
		return;
	Case c;
	int block = next_pow2(n);
	if (programs)
		start(&c, "%s rows=%d n=%d stride=%d programs=%d warps=%d BLOCK=%d", kernel, rows, n, stride, programs,
		      num_warps, block);
	else
		start(&c, "%s rows=%d n=%d stride=%d BLOCK=%d", kernel, rows, n, stride, block);
	size_t total = (size_t)rows * stride;
	float *x = xmalloc(4 * total), *out = xmalloc(4 * total);
	double *want = xmalloc(8 * total);
	fill_f32(x, total, -4, 4);
	softmax_ref(want, x, rows, n, stride);
	Buf bufs[] = {{out, 4 * total, OUT}, {x, 4 * total, IN}};
	Launch l = {.file = "softmax.tile", .kernel = kernel, .defs = {{"BLOCK", block}}, .ndefs = 1,
	            .num_warps = num_warps, .grid = (unsigned)(programs ? programs : rows),
	            .args = {ABUF(0), ABUF(1), AI32(stride), AI32(n)}, .nargs = 4, .bufs = bufs, .nbufs = 2};
	if (programs) { /* softmax_persistent(out, inp, rows, stride, n) */
		l.args[2] = AI32(rows), l.args[3] = AI32(stride), l.args[4] = AI32(n);
		l.nargs = 5;
	}
	void *ir[16];
	if (run_both(&c, &l, true, ir)) {
		compare_rows(&c, "out", out, F32, want, rows, n, stride, F32_RTOL, F32_ATOL);
		if (ir[0])
			agree_rows(&c, "out", out, ir[0], F32, rows, n, stride, F32_RTOL, F32_ATOL);
	}
	finish(&c, ir[0] != NULL && gpu);
	free_results(ir, 2);
	free(x), free(out), free(want);
}

static void case_softmax_backward(int rows, int n)
{
	if (!want("softmax_backward"))
		return;
	Case c;
	int block = next_pow2(n), stride = n;
	start(&c, "softmax_backward rows=%d n=%d BLOCK=%d", rows, n, block);
	size_t total = (size_t)rows * stride;
	float *dy = xmalloc(4 * total), *y = xmalloc(4 * total), *dx = xmalloc(4 * total), *t = xmalloc(4 * total);
	double *want = xmalloc(8 * total), *p = xmalloc(8 * total);
	fill_f32(dy, total, -1, 1);
	fill_f32(t, total, -4, 4);
	softmax_ref(p, t, rows, n, stride);
	for (size_t i = 0; i < total; i++)
		y[i] = (float)p[i];
	for (int r = 0; r < rows; r++) {
		size_t o = (size_t)r * stride;
		double s = 0;
		for (int i = 0; i < n; i++)
			s += (double)dy[o + i] * y[o + i];
		for (int i = 0; i < n; i++)
			want[o + i] = y[o + i] * (dy[o + i] - s);
	}
	Buf bufs[] = {{dx, 4 * total, OUT}, {dy, 4 * total, IN}, {y, 4 * total, IN}};
	Launch l = {.file = "softmax_backward.tile", .kernel = "softmax_backward",
	            .defs = {{"BLOCK", block}}, .ndefs = 1, .grid = (unsigned)rows,
	            .args = {ABUF(0), ABUF(1), ABUF(2), AI32(stride), AI32(n)}, .nargs = 5,
	            .bufs = bufs, .nbufs = 3};
	void *ir[16];
	if (run_both(&c, &l, true, ir)) {
		/* dx is a difference: absolute tolerance scaled by the row's y. */
		compare_rows(&c, "dx", dx, F32, want, rows, n, stride, F32_RTOL, 1e-6);
		if (ir[0])
			agree_rows(&c, "dx", dx, ir[0], F32, rows, n, stride, F32_RTOL, 1e-6);
	}
	finish(&c, ir[0] != NULL && gpu);
	free_results(ir, 3);
	free(dy), free(y), free(dx), free(t), free(want), free(p);
}

static void case_layernorm(int rows, int n)
{
	if (!want("layernorm"))
		return;
	Case c;
	int block = next_pow2(n), stride = n;
	const float eps = 1e-5f;
	start(&c, "layernorm rows=%d n=%d BLOCK=%d", rows, n, block);
	size_t total = (size_t)rows * stride;
	uint16_t *x = xmalloc(2 * total), *w = xmalloc(2 * (size_t)n), *b = xmalloc(2 * (size_t)n);
	uint16_t *out = xmalloc(2 * total);
	float *mean = xmalloc(4 * (size_t)rows), *rstd = xmalloc(4 * (size_t)rows);
	double *want = xmalloc(8 * total), *wmean = xmalloc(8 * (size_t)rows), *wrstd = xmalloc(8 * (size_t)rows);
	fill_f16(x, total, -2, 2);
	fill_f16(w, (size_t)n, 0.5, 1.5);
	fill_f16(b, (size_t)n, -0.5, 0.5);
	for (int r = 0; r < rows; r++) {
		const uint16_t *xr = x + (size_t)r * stride;
		double mu, rs;
		ref_row_stats_f16(xr, n, eps, &mu, &rs);
		wmean[r] = mu;
		wrstd[r] = rs;
		for (int i = 0; i < n; i++)
			want[(size_t)r * stride + i] = (half_to_f32(xr[i]) - mu) * rs * half_to_f32(w[i]) + half_to_f32(b[i]);
	}
	Buf bufs[] = {{out, 2 * total, OUT}, {mean, 4 * (size_t)rows, OUT}, {rstd, 4 * (size_t)rows, OUT},
	              {x, 2 * total, IN}, {w, 2 * (size_t)n, IN}, {b, 2 * (size_t)n, IN}};
	Launch l = {.file = "layernorm.tile", .kernel = "layernorm", .defs = {{"BLOCK", block}}, .ndefs = 1,
	            .grid = (unsigned)rows,
	            .args = {ABUF(0), ABUF(1), ABUF(2), ABUF(3), ABUF(4), ABUF(5), AI32(stride), AI32(n), AF32(eps)},
	            .nargs = 9, .bufs = bufs, .nbufs = 6};
	void *ir[16];
	if (run_both(&c, &l, true, ir)) {
		compare(&c, "mean", mean, F32, wmean, (size_t)rows, F32_RTOL, F32_ATOL);
		compare(&c, "rstd", rstd, F32, wrstd, (size_t)rows, F32_RTOL, F32_ATOL);
		compare_rows(&c, "out", out, F16, want, rows, n, stride, F16_RTOL, F16_ATOL);
		if (ir[0]) {
			agree(&c, "mean", mean, ir[1], F32, (size_t)rows, F32_RTOL, F32_ATOL);
			agree(&c, "rstd", rstd, ir[2], F32, (size_t)rows, F32_RTOL, F32_ATOL);
			agree_rows(&c, "out", out, ir[0], F16, rows, n, stride, F16_RTOL, F16_ATOL);
		}
	}
	finish(&c, ir[0] != NULL && gpu);
	free_results(ir, 6);
	free(x), free(w), free(b), free(out), free(mean), free(rstd), free(want), free(wmean), free(wrstd);
}

/*
 * layernorm_backward.tile: dx and each program's share of dw and db from
 * layernorm_backward_dx on `programs` programs (fewer or more than the
 * rows), then dw and db from layernorm_backward_dwdb on the GPU's shares.
 * locked: layernorm_backward_locked instead, one program per row, adding
 * row r's share into f16 share row r % programs under that row's spin lock
 * in the order the programs take it, then layernorm_backward_dwdb_f16: dw
 * and db within 2^-7 of their largest magnitude (f16 adds).
 * mean and rstd are the forward's (f32 of the double statistics).
 */
static void case_layernorm_backward(int rows, int n, int stride, int programs, int num_warps, bool locked)
{
	if (!want(locked ? "layernorm_backward_locked" : "layernorm_backward"))
		return;
	Case c;
	int block = next_pow2(n);
	start(&c, "layernorm_backward%s rows=%d n=%d stride=%d %s=%d warps=%d BLOCK=%d", locked ? "_locked" : "", rows,
	      n, stride, locked ? "GROUP" : "programs", programs, num_warps, block);
	size_t total = (size_t)rows * stride, parts = (size_t)programs * n;
	uint16_t *x = xmalloc(2 * total), *dy = xmalloc(2 * total), *w = xmalloc(2 * (size_t)n);
	uint16_t *dx = xmalloc(2 * total), *dw = xmalloc(2 * (size_t)n), *db = xmalloc(2 * (size_t)n);
	float *mean = xmalloc(4 * (size_t)rows), *rstd = xmalloc(4 * (size_t)rows);
	float *dw_part = xmalloc(4 * parts), *db_part = xmalloc(4 * parts);
	double *want = xmalloc(8 * total), *wpart = xmalloc(8 * 2 * parts), *wsum = xmalloc(8 * 2 * (size_t)n);
	fill_f16(x, total, -2, 2);
	fill_f16(dy, total, -1, 1);
	fill_f16(w, (size_t)n, -1.5, 1.5);
	memset(wpart, 0, 8 * 2 * parts);
	memset(wsum, 0, 8 * 2 * (size_t)n);
	for (int r = 0; r < rows; r++) {
		const uint16_t *xr = x + (size_t)r * stride, *gr = dy + (size_t)r * stride;
		double mu, rs, c1 = 0, c2 = 0;
		ref_row_stats_f16(xr, n, 1e-5, &mu, &rs);
		mean[r] = (float)mu;
		rstd[r] = (float)rs;
		double *pw = wpart + (size_t)(r % programs) * n, *pb = wpart + parts + (size_t)(r % programs) * n;
		for (int i = 0; i < n; i++) {
			double xhat = (half_to_f32(xr[i]) - mean[r]) * (double)rstd[r], g = half_to_f32(gr[i]);
			c1 += xhat * g * half_to_f32(w[i]), c2 += g * half_to_f32(w[i]);
			pw[i] += g * xhat, pb[i] += g;
			wsum[i] += g * xhat, wsum[n + i] += g;
		}
		c1 /= n, c2 /= n;
		for (int i = 0; i < n; i++) {
			double xhat = (half_to_f32(xr[i]) - mean[r]) * (double)rstd[r];
			want[(size_t)r * stride + i] = (half_to_f32(gr[i]) * half_to_f32(w[i]) - (xhat * c1 + c2)) * rstd[r];
		}
	}
	Buf b1[] = {{dx, 2 * total, OUT}, {dw_part, 4 * parts, OUT}, {db_part, 4 * parts, OUT},
	            {dy, 2 * total, IN}, {x, 2 * total, IN}, {w, 2 * (size_t)n, IN},
	            {mean, 4 * (size_t)rows, IN}, {rstd, 4 * (size_t)rows, IN}};
	Launch l1 = {.file = "layernorm_backward.tile", .kernel = "layernorm_backward_dx",
	             .defs = {{"BLOCK", block}}, .ndefs = 1, .num_warps = num_warps, .grid = (unsigned)programs,
	             .args = {ABUF(0), ABUF(1), ABUF(2), ABUF(3), ABUF(4), ABUF(5), ABUF(6), ABUF(7), AI32(rows),
	                      AI32(stride), AI32(n)},
	             .nargs = 11, .bufs = b1, .nbufs = 8};
	int32_t *locks = xmalloc(8 * (size_t)programs);
	memset(locks, 0, 8 * (size_t)programs);
	uint16_t *hw_part = xmalloc(2 * parts), *hb_part = xmalloc(2 * parts);
	Buf bl[] = {{dx, 2 * total, OUT}, {hw_part, 2 * parts, OUT}, {hb_part, 2 * parts, OUT},
	            {locks, 8 * (size_t)programs, INOUT}, {dy, 2 * total, IN}, {x, 2 * total, IN},
	            {w, 2 * (size_t)n, IN}, {mean, 4 * (size_t)rows, IN}, {rstd, 4 * (size_t)rows, IN}};
	if (locked)
		l1 = (Launch){.file = "layernorm_backward.tile", .kernel = "layernorm_backward_locked",
		              .defs = {{"BLOCK", block}, {"GROUP", programs}}, .ndefs = 2, .num_warps = num_warps,
		              .grid = (unsigned)rows, .args = {ABUF(0), ABUF(1), ABUF(2), ABUF(3), ABUF(4), ABUF(5), ABUF(6),
		                                              ABUF(7), ABUF(8), AI32(stride), AI32(n)},
		              .nargs = 11, .bufs = bl, .nbufs = 9};
	Buf b2[] = {{dw, 2 * (size_t)n, OUT}, {db, 2 * (size_t)n, OUT}, {dw_part, 4 * parts, IN},
	            {db_part, 4 * parts, IN}};
	if (locked)
		b2[2] = (Buf){hw_part, 2 * parts, IN}, b2[3] = (Buf){hb_part, 2 * parts, IN};
	Launch l2 = {.file = "layernorm_backward.tile",
	             .kernel = locked ? "layernorm_backward_dwdb_f16" : "layernorm_backward_dwdb",
	             .defs = {{"BLOCK_P", 32}, {"BLOCK_N", 128}}, .ndefs = 2, .grid = (unsigned)((n + 127) / 128),
	             .args = {ABUF(0), ABUF(1), ABUF(2), ABUF(3), AI32(programs), AI32(n)}, .nargs = 6,
	             .bufs = b2, .nbufs = 4};
	bool small = total <= 100000;
	void *ir[16] = {0}, *ir2[16] = {0};
	/* The second kernel runs on the first one's GPU result, in both. */
	double wtol[2] = {F16_ATOL, F16_ATOL};
	for (int k = 0; locked && k < 2; k++) {
		double most = 0;
		for (int i = 0; i < n; i++)
			most = fmax(most, fabs(wsum[(size_t)k * n + i]));
		wtol[k] = most * 0x1p-7;
	}
	if (locked && run_both(&c, &l1, small, ir)) {
		compare_rows(&c, "dx", dx, F16, want, rows, n, stride, F16_RTOL, 1e-3);
		if (ir[0])
			agree_rows(&c, "dx", dx, ir[0], F16, rows, n, stride, F16_RTOL, 1e-3);
		if (run_both(&c, &l2, small, ir2)) {
			compare(&c, "dw", dw, F16, wsum, (size_t)n, F16_RTOL, wtol[0]);
			compare(&c, "db", db, F16, wsum + n, (size_t)n, F16_RTOL, wtol[1]);
		}
	} else if (!locked && run_both(&c, &l1, small, ir)) {
		compare_rows(&c, "dx", dx, F16, want, rows, n, stride, F16_RTOL, 1e-3);
		/* a share sums a row in ~programs of dy * xhat (|xhat| < 4) in f32 */
		compare(&c, "dw share", dw_part, F32, wpart, parts, 1e-5, 1e-5);
		compare(&c, "db share", db_part, F32, wpart + parts, parts, 1e-5, 1e-5);
		if (ir[0]) {
			agree_rows(&c, "dx", dx, ir[0], F16, rows, n, stride, F16_RTOL, 1e-3);
			agree(&c, "dw share", dw_part, ir[1], F32, parts, 1e-5, 1e-5);
			agree(&c, "db share", db_part, ir[2], F32, parts, 1e-5, 1e-5);
		}
		if (run_both(&c, &l2, small, ir2)) {
			compare(&c, "dw", dw, F16, wsum, (size_t)n, F16_RTOL, F16_ATOL);
			compare(&c, "db", db, F16, wsum + n, (size_t)n, F16_RTOL, F16_ATOL);
			if (ir2[0]) {
				agree(&c, "dw", dw, ir2[0], F16, (size_t)n, F16_RTOL, F16_ATOL);
				agree(&c, "db", db, ir2[1], F16, (size_t)n, F16_RTOL, F16_ATOL);
			}
		}
	}
	finish(&c, ir[0] != NULL && gpu);
	free_results(ir, 9);
	free_results(ir2, 4);
	free(locks), free(hw_part), free(hb_part);
	free(x), free(dy), free(w), free(dx), free(dw), free(db), free(mean), free(rstd), free(dw_part), free(db_part);
	free(want), free(wpart), free(wsum);
}

/* Programs for the grid-stride mean kernels: enough to fill a GPU, never more than the blocks. */
static int mean_programs(long long n, int block)
{
	long long p = (n + block - 1) / block;
	return (int)(p < 528 ? p : 528);
}

static void case_mean(long long n, bool atomic)
{
	if (!want("mean"))
		return;
	Case c;
	start(&c, "mean_%s n=%lld", atomic ? "atomic" : "partial+final", n);
	float *x = xmalloc(4 * (size_t)n), out = 0;
	fill_f32(x, (size_t)n, 0, 1);
	double s = 0;
	for (long long i = 0; i < n; i++)
		s += x[i];
	float scale = (float)(1.0 / (double)n);
	int P = mean_programs(n, 4096);
	bool small = n <= 2000000;
	void *ir[16] = {0};
	if (atomic) {
		Buf bufs[] = {{&out, 4, INOUT}, {x, 4 * (size_t)n, IN}};
		Launch l = {.file = "mean.tile", .kernel = "mean_atomic", .defs = {{"BLOCK", 4096}}, .ndefs = 1,
		            .grid = (unsigned)P, .args = {ABUF(0), ABUF(1), AI32((int)n), AF32(scale)},
		            .nargs = 4, .bufs = bufs, .nbufs = 2};
		if (run_both(&c, &l, small, ir)) {
			/* (f32 scale: the reference uses the same rounded 1/n) */
			double w = s * (double)scale;
			compare(&c, "out", &out, F32, &w, 1, F32_RTOL, 0);
			if (ir[0])
				agree(&c, "out", &out, ir[0], F32, 1, F32_RTOL, 0);
		}
		finish(&c, ir[0] != NULL && gpu);
		free_results(ir, 2);
	} else {
		float *partial = xmalloc(4 * (size_t)P);
		Buf b1[] = {{partial, 4 * (size_t)P, OUT}, {x, 4 * (size_t)n, IN}};
		Launch l1 = {.file = "mean.tile", .kernel = "mean_partial", .defs = {{"BLOCK", 4096}}, .ndefs = 1,
		             .grid = (unsigned)P, .args = {ABUF(0), ABUF(1), AI32((int)n)}, .nargs = 3,
		             .bufs = b1, .nbufs = 2};
		Buf b2[] = {{&out, 4, OUT}, {partial, 4 * (size_t)P, IN}};
		Launch l2 = {.file = "mean.tile", .kernel = "mean_final", .defs = {{"BLOCK", 1024}}, .ndefs = 1,
		             .grid = 1, .args = {ABUF(0), ABUF(1), AI32(P), AF32(scale)}, .nargs = 4,
		             .bufs = b2, .nbufs = 2};
		void *ir2[16] = {0};
		/* The second stage runs on the first stage's GPU result, in both. */
		if (run_both(&c, &l1, small, ir) && run_both(&c, &l2, small, ir2)) {
			double w = s * (double)scale;
			compare(&c, "out", &out, F32, &w, 1, F32_RTOL, 0);
			if (ir[0])
				agree(&c, "partial", partial, ir[0], F32, (size_t)P, F32_RTOL, 1e-3);
			if (ir2[0])
				agree(&c, "out", &out, ir2[0], F32, 1, F32_RTOL, 0);
		}
		finish(&c, ir2[0] != NULL && gpu);
		free_results(ir, 2);
		free_results(ir2, 2);
		free(partial);
	}
	free(x);
}

/* matmul, matmul_relu or linear (act(alpha * A @ B + bias), bias of N f32). */
/* want[i, j] = sum over k of a[i, k] * b[k * sbk + j * sbn], f16 inputs, in double. */
static void f16_matmul_ref(double *want, const uint16_t *a, const uint16_t *b, int M, int N, int K, int sbk, int sbn)
{
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double s = 0;
			for (int k = 0; k < K; k++)
				s += (double)half_to_f32(a[(size_t)i * K + k]) * half_to_f32(b[(size_t)k * sbk + (size_t)j * sbn]);
			want[(size_t)i * N + j] = s;
		}
}

/* linear.tile's activations (ACT): 0 none, 1 ReLU, 2 GELU, 3 GELU's tanh form */
static double activation(int act, double s)
{
	switch (act) {
	case 1: return s < 0 ? 0 : s;
	case 2: return 0.5 * s * (1 + erf(s / sqrt(2.0)));
	case 3: return 0.5 * s * (1 + tanh(sqrt(2 / 3.14159265358979323846) * (s + 0.044715 * s * s * s)));
	default: return s;
	}
}

static void case_matmul_a(const char *kernel, int M, int N, int K, bool bt, int bm, int bn, int bk, int warps,
                          int stages, int act)
{
	if (!want(kernel))
		return;
	Case c;
	bool linear = strcmp(kernel, "linear") == 0;
	float alpha = linear ? 0.75f : 1.0f;
	if (!linear)
		act = strcmp(kernel, "matmul_relu") == 0;
	char act_s[24] = "";
	if (linear)
		snprintf(act_s, sizeof act_s, " ACT=%d", act);
	start(&c, "%s M=%d N=%d K=%d%s BM=%d BN=%d BK=%d warps=%d%s%.0d%s", kernel, M, N, K, bt ? " B^T" : "",
	      bm, bn, bk, warps ? warps : 8, stages ? " stages=" : "", stages, act_s);
	uint16_t *a = xmalloc(2 * (size_t)M * K), *b = xmalloc(2 * (size_t)K * N), *cm = xmalloc(2 * (size_t)M * N);
	double *want = xmalloc(8 * (size_t)M * N);
	float *bias = xmalloc(4 * (size_t)N);
	fill_f16(a, (size_t)M * K, -1, 1);
	fill_f16(b, (size_t)K * N, -1, 1);
	fill_f32(bias, (size_t)N, -2, 2);
	/* B is K x N row-major, or (bt) stored as N x K row-major and read transposed. */
	int sbk = bt ? 1 : N, sbn = bt ? K : 1;
	f16_matmul_ref(want, a, b, M, N, K, sbk, sbn);
	for (size_t i = 0; i < (size_t)M * N; i++) {
		double s = linear ? alpha * want[i] + bias[i % (size_t)N] : want[i];
		want[i] = activation(act, s);
	}
	Buf bufs[] = {{cm, 2 * (size_t)M * N, OUT}, {a, 2 * (size_t)M * K, IN}, {b, 2 * (size_t)K * N, IN},
	              {bias, 4 * (size_t)N, IN}};
	unsigned grid = (unsigned)(((M + bm - 1) / bm) * ((N + bn - 1) / bn));
	char file[64];
	snprintf(file, sizeof file, "%s.tile", kernel); /* matmul, matmul_relu, matmul_block_ptr, linear */
	Launch l = {.file = file, .kernel = kernel,
	            .defs = {{"BM", bm}, {"BN", bn}, {"BK", bk}, {"ACT", act}}, .ndefs = linear ? 4 : 3,
	            .num_warps = warps,
	            .num_stages = stages, .grid = grid,
	            .args = {ABUF(0), ABUF(1), ABUF(2), AI32(M), AI32(N), AI32(K), AI32(K), AI32(1),
	                     AI32(sbk), AI32(sbn), AI32(N), AI32(1)},
	            .nargs = 12, .bufs = bufs, .nbufs = 3};
	if (linear) {
		/* c, a, b, bias, alpha, then matmul's M ... stride_cn */
		memmove(&l.args[5], &l.args[3], 9 * sizeof l.args[0]);
		l.args[3] = ABUF(3);
		l.args[4] = AF32(alpha);
		l.nargs = 14;
		l.nbufs = 4;
	}
	check_output(&c, &l, true, 0, "c", F16, want, (size_t)M * N, F16_RTOL, F16_ATOL);
	free(a), free(b), free(cm), free(want), free(bias);
}

static void case_matmul_s(const char *kernel, int M, int N, int K, bool bt, int bm, int bn, int bk, int warps,
                          int stages)
{
	case_matmul_a(kernel, M, N, K, bt, bm, bn, bk, warps, stages, 1);
}

static void case_matmul(const char *kernel, int M, int N, int K, bool bt, int bm, int bn, int bk, int warps)
{
	case_matmul_s(kernel, M, N, K, bt, bm, bn, bk, warps, 0);
}

/* matmul_nt.tile: C = A @ W^T with W stored [N, K]; grid (cdiv(M, BM), cdiv(N, BN)). */
static void case_matmul_nt(int M, int N, int K, int bm, int bn, int bk, int warps, int stages)
{
	if (!want("matmul_nt"))
		return;
	Case c;
	start(&c, "matmul_nt M=%d N=%d K=%d BM=%d BN=%d BK=%d warps=%d%s%.0d", M, N, K, bm, bn, bk, warps,
	      stages ? " stages=" : "", stages);
	uint16_t *a = xmalloc(2 * (size_t)M * K), *w = xmalloc(2 * (size_t)N * K), *cm = xmalloc(2 * (size_t)M * N);
	double *want = xmalloc(8 * (size_t)M * N);
	fill_f16(a, (size_t)M * K, -1, 1);
	fill_f16(w, (size_t)N * K, -1, 1);
	f16_matmul_ref(want, a, w, M, N, K, 1, K);
	Buf bufs[] = {{cm, 2 * (size_t)M * N, OUT}, {a, 2 * (size_t)M * K, IN}, {w, 2 * (size_t)N * K, IN}};
	Launch l = {.file = "matmul_nt.tile", .kernel = "matmul_nt", .defs = {{"BM", bm}, {"BN", bn}, {"BK", bk}},
	            .ndefs = 3, .num_warps = warps, .num_stages = stages, .grid = (unsigned)((M + bm - 1) / bm),
	            .grid_y = (unsigned)((N + bn - 1) / bn),
	            .args = {ABUF(0), ABUF(1), ABUF(2), AI32(M), AI32(N), AI32(K)}, .nargs = 6, .bufs = bufs, .nbufs = 3};
	check_output(&c, &l, true, 0, "c", F16, want, (size_t)M * N, F16_RTOL, F16_ATOL);
	free(a), free(w), free(cm), free(want);
}

/* attention.tile (causal: attention_causal.tile, key j <= query i only): softmax(Q K^T / sqrt(D)) V per
 * (batch * head), grid (cdiv(n, BM), bh). */
static void case_attention(int bh, int n, int D, int bm, int bn, int warps, bool causal)
{
	const char *name = causal ? "attention_causal" : "attention";
	if (!want(name))
		return;
	Case c;
	start(&c, "%s bh=%d n=%d D=%d BM=%d BN=%d warps=%d", name, bh, n, D, bm, bn, warps);
	size_t len = (size_t)bh * n * D;
	uint16_t *q = xmalloc(2 * len), *k = xmalloc(2 * len), *v = xmalloc(2 * len), *o = xmalloc(2 * len);
	double *want = xmalloc(8 * len), *s = xmalloc(8 * (size_t)n);
	fill_f16(q, len, -2, 2);
	fill_f16(k, len, -2, 2);
	fill_f16(v, len, -1, 1);
	float scale = (float)(1.0 / sqrt((double)D));
	for (int h = 0; h < bh; h++)
		for (int i = 0; i < n; i++) {
			size_t base = (size_t)h * n * D;
			int nk = causal ? i + 1 : n;
			double m = -INFINITY, l = 0;
			for (int j = 0; j < nk; j++) {
				double x = 0;
				for (int d = 0; d < D; d++)
					x += (double)half_to_f32(q[base + (size_t)i * D + d]) * half_to_f32(k[base + (size_t)j * D + d]);
				s[j] = x * scale;
				m = s[j] > m ? s[j] : m;
			}
			for (int j = 0; j < nk; j++)
				l += s[j] = exp(s[j] - m);
			for (int d = 0; d < D; d++) {
				double acc = 0;
				for (int j = 0; j < nk; j++)
					acc += s[j] * half_to_f32(v[base + (size_t)j * D + d]);
				want[base + (size_t)i * D + d] = acc / l;
			}
		}
	Buf bufs[] = {{o, 2 * len, OUT}, {q, 2 * len, IN}, {k, 2 * len, IN}, {v, 2 * len, IN}};
	Launch l = {.file = causal ? "attention_causal.tile" : "attention.tile", .kernel = name,
	            .defs = {{"BM", bm}, {"BN", bn}, {"D", D}},
	            .ndefs = 3, .num_warps = warps, .grid = (unsigned)((n + bm - 1) / bm), .grid_y = (unsigned)bh,
	            .args = {ABUF(0), ABUF(1), ABUF(2), ABUF(3), AI32(n), AF32(scale), AI32(n * D), AI32(D)},
	            .nargs = 8, .bufs = bufs, .nbufs = 4};
	check_output(&c, &l, len <= 100000, 0, "o", F16, want, len, F16_RTOL, F16_ATOL);
	free(q), free(k), free(v), free(o), free(want), free(s);
}

/*
 * attention_backward.tile's four kernels, each on its own from the same
 * inputs: the forward (O, lse), delta from O rounded to f16, then dK/dV and
 * dQ from the reference lse and delta; against ref.h's double backward.
 */
static void case_attention_backward(int bh, int n, int D, int bm, int bn, int warps)
{
	if (!want("attention_backward"))
		return;
	size_t len = (size_t)bh * n * D, rows = (size_t)bh * n;
	uint16_t *q = xmalloc(2 * len), *k = xmalloc(2 * len), *v = xmalloc(2 * len), *dout = xmalloc(2 * len);
	uint16_t *o = xmalloc(2 * len), *o16 = xmalloc(2 * len), *dq = xmalloc(2 * len), *dk = xmalloc(2 * len),
	         *dv = xmalloc(2 * len);
	float *lse = xmalloc(4 * rows), *delta = xmalloc(4 * rows), *lse32 = xmalloc(4 * rows),
	      *delta32 = xmalloc(4 * rows);
	RefAttention w = {xmalloc(8 * len), xmalloc(8 * rows), xmalloc(8 * rows), xmalloc(8 * len), xmalloc(8 * len),
	                  xmalloc(8 * len)};
	double *wdelta = xmalloc(8 * rows);
	Case c;
	start(&c, "attention_fwd bh=%d n=%d D=%d BM=%d BN=%d warps=%d", bh, n, D, bm, bn, warps);
	fill_f16(q, len, -2, 2);
	fill_f16(k, len, -2, 2);
	fill_f16(v, len, -1, 1);
	fill_f16(dout, len, -1, 1);
	float scale = (float)(1.0 / sqrt((double)D));
	ref_attention_backward(bh, n, D, q, k, v, dout, scale, &w);
	for (size_t i = 0; i < len; i++)
		o16[i] = f32_to_half((float)w.o[i]);
	for (size_t r = 0; r < rows; r++) {
		double s = 0;
		for (int d = 0; d < D; d++)
			s += (double)half_to_f32(o16[r * D + d]) * half_to_f32(dout[r * D + d]);
		wdelta[r] = s;
		lse32[r] = (float)w.lse[r];
		delta32[r] = (float)w.delta[r];
	}
	bool small = len <= 100000;
	unsigned gm = (unsigned)((n + bm - 1) / bm), gn = (unsigned)((n + bn - 1) / bn);
	Arg common[] = {AI32(n), AF32(scale), AI32(n * D), AI32(D)};
	Buf fb[] = {{o, 2 * len, OUT}, {lse, 4 * rows, OUT}, {q, 2 * len, IN}, {k, 2 * len, IN}, {v, 2 * len, IN}};
	Launch l = {.file = "attention_backward.tile", .kernel = "attention_fwd",
	            .defs = {{"BM", bm}, {"BN", bn}, {"D", D}}, .ndefs = 3, .num_warps = warps, .grid = gm,
	            .grid_y = (unsigned)bh, .args = {ABUF(0), ABUF(1), ABUF(2), ABUF(3), ABUF(4), common[0],
	            common[1], common[2], common[3]}, .nargs = 9, .bufs = fb, .nbufs = 5};
	Out fo[] = {{0, "o", F16, w.o, len, 2e-2, F16_ATOL}, {1, "lse", F32, w.lse, rows, 2e-2, 1e-4}};
	check_outs(&c, &l, small, fo, 2);

	start(&c, "attention_bwd_pre bh=%d n=%d D=%d BM=%d", bh, n, D, bm);
	Buf pb[] = {{delta, 4 * rows, OUT}, {o16, 2 * len, IN}, {dout, 2 * len, IN}};
	l = (Launch){.file = "attention_backward.tile", .kernel = "attention_bwd_pre",
	             .defs = {{"BM", bm}, {"D", D}}, .ndefs = 2, .grid = gm, .grid_y = (unsigned)bh,
	             .args = {ABUF(0), ABUF(1), ABUF(2), AI32(n), AI32(n * D), AI32(D)}, .nargs = 6, .bufs = pb,
	             .nbufs = 3};
	Out po[] = {{0, "delta", F32, wdelta, rows, 2e-2, 1e-5 * ref_peak(wdelta, rows)}};
	check_outs(&c, &l, small, po, 1);

	start(&c, "attention_bwd_dkdv bh=%d n=%d D=%d BM=%d BN=%d warps=%d", bh, n, D, bm, bn, warps);
	Buf kb[] = {{dk, 2 * len, OUT}, {dv, 2 * len, OUT}, {q, 2 * len, IN}, {k, 2 * len, IN}, {v, 2 * len, IN},
	            {dout, 2 * len, IN}, {lse32, 4 * rows, IN}, {delta32, 4 * rows, IN}};
	l = (Launch){.file = "attention_backward.tile", .kernel = "attention_bwd_dkdv",
	             .defs = {{"BM", bm}, {"BN", bn}, {"D", D}}, .ndefs = 3, .num_warps = warps, .grid = gn,
	             .grid_y = (unsigned)bh, .args = {ABUF(0), ABUF(1), ABUF(2), ABUF(3), ABUF(4), ABUF(5), ABUF(6),
	             ABUF(7), common[0], common[1], common[2], common[3]}, .nargs = 12, .bufs = kb, .nbufs = 8};
	Out ko[] = {{0, "dk", F16, w.dk, len, 2e-2, 1e-2 * ref_peak(w.dk, len)},
	            {1, "dv", F16, w.dv, len, 2e-2, 1e-2 * ref_peak(w.dv, len)}};
	check_outs(&c, &l, small, ko, 2);

	start(&c, "attention_bwd_dq bh=%d n=%d D=%d BM=%d BN=%d warps=%d", bh, n, D, bm, bn, warps);
	Buf qb[] = {{dq, 2 * len, OUT}, {q, 2 * len, IN}, {k, 2 * len, IN}, {v, 2 * len, IN}, {dout, 2 * len, IN},
	            {lse32, 4 * rows, IN}, {delta32, 4 * rows, IN}};
	l = (Launch){.file = "attention_backward.tile", .kernel = "attention_bwd_dq",
	             .defs = {{"BM", bm}, {"BN", bn}, {"D", D}}, .ndefs = 3, .num_warps = warps, .grid = gm,
	             .grid_y = (unsigned)bh, .args = {ABUF(0), ABUF(1), ABUF(2), ABUF(3), ABUF(4), ABUF(5), ABUF(6),
	             common[0], common[1], common[2], common[3]}, .nargs = 11, .bufs = qb, .nbufs = 7};
	Out qo[] = {{0, "dq", F16, w.dq, len, 2e-2, 1e-2 * ref_peak(w.dq, len)}};
	check_outs(&c, &l, small, qo, 1);

	free(q), free(k), free(v), free(dout), free(o), free(o16), free(dq), free(dk), free(dv);
	free(lse), free(delta), free(lse32), free(delta32), free(wdelta);
	free(w.o), free(w.lse), free(w.delta), free(w.dq), free(w.dk), free(w.dv);
}

/* batched_matmul.tile on a 3-D grid: Z products of f16 matrices. */
static void case_batched_matmul(int Z, int M, int N, int K)
{
	if (!want("batched_matmul"))
		return;
	Case c;
	start(&c, "batched_matmul Z=%d M=%d N=%d K=%d", Z, M, N, K);
	size_t na = (size_t)Z * M * K, nb = (size_t)Z * K * N, nc = (size_t)Z * M * N;
	uint16_t *a = xmalloc(2 * na), *b = xmalloc(2 * nb), *cm = xmalloc(2 * nc);
	double *want = xmalloc(8 * nc);
	fill_f16(a, na, -1, 1);
	fill_f16(b, nb, -1, 1);
	for (int z = 0; z < Z; z++)
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				double s = 0;
				for (int k = 0; k < K; k++)
					s += (double)half_to_f32(a[((size_t)z * M + i) * K + k]) *
					     half_to_f32(b[((size_t)z * K + k) * N + j]);
				want[((size_t)z * M + i) * N + j] = s;
			}
	Buf bufs[] = {{cm, 2 * nc, OUT}, {a, 2 * na, IN}, {b, 2 * nb, IN}};
	Launch l = {.file = "batched_matmul.tile", .kernel = "batched_matmul", .ndefs = 0,
	            .grid = (unsigned)((M + 63) / 64), .grid_y = (unsigned)((N + 63) / 64), .grid_z = (unsigned)Z,
	            .args = {ABUF(0), ABUF(1), ABUF(2), AI32(M), AI32(N), AI32(K), AI32(M * K), AI32(K), AI32(1),
	                     AI32(K * N), AI32(N), AI32(1), AI32(M * N), AI32(N), AI32(1)},
	            .nargs = 15, .bufs = bufs, .nbufs = 3};
	check_output(&c, &l, true, 0, "c", F16, want, nc, F16_RTOL, F16_ATOL);
	free(a), free(b), free(cm), free(want);
}

/* matmul_f32.tile: IEEE f32 products (FMA), or TF32 allowed (looser tolerance). */
static void case_matmul_f32(int M, int N, int K, int tf32)
{
	if (!want("matmul_f32"))
		return;
	Case c;
	start(&c, "matmul_f32 M=%d N=%d K=%d tf32=%d", M, N, K, tf32);
	size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
	float *a = xmalloc(4 * na), *b = xmalloc(4 * nb), *cm = xmalloc(4 * nc);
	double *want = xmalloc(8 * nc);
	fill_f32(a, na, -1, 1);
	fill_f32(b, nb, -1, 1);
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double s = 0;
			for (int k = 0; k < K; k++)
				s += (double)a[(size_t)i * K + k] * b[(size_t)k * N + j];
			want[(size_t)i * N + j] = s;
		}
	Buf bufs[] = {{cm, 4 * nc, OUT}, {a, 4 * na, IN}, {b, 4 * nb, IN}};
	Launch l = {.file = "matmul_f32.tile", .kernel = "matmul_f32", .defs = {{"TF32", tf32}}, .ndefs = 1,
	            .grid = (unsigned)(((M + 63) / 64) * ((N + 63) / 64)),
	            .args = {ABUF(0), ABUF(1), ABUF(2), AI32(M), AI32(N), AI32(K), AI32(K), AI32(1), AI32(N), AI32(1),
	                     AI32(N), AI32(1)},
	            .nargs = 12, .bufs = bufs, .nbufs = 3};
	/* TF32 rounds each operand to 10 mantissa bits: for K = 64 products of [-1, 1] values the
	 * error reaches 2.6e-3 absolute (2.7e-4 of the norm), so entries near 0 need an atol */
	double rtol = tf32 ? 1e-3 : F32_RTOL, atol = tf32 ? 1e-2 : rtol * 0.1;
	check_output(&c, &l, true, 0, "c", F32, want, nc, rtol, atol);
	free(a), free(b), free(cm), free(want);
}

/* matmul_i8.tile: int8 products summed exactly in i32, scaled per row and column into f32. */
static void case_matmul_i8(int M, int N, int K)
{
	if (!want("matmul_i8"))
		return;
	Case c;
	start(&c, "matmul_i8 M=%d N=%d K=%d", M, N, K);
	size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
	int8_t *a = xmalloc(na), *b = xmalloc(nb);
	float *sa = xmalloc(4 * (size_t)M), *sb = xmalloc(4 * (size_t)N), *cm = xmalloc(4 * nc);
	double *want = xmalloc(8 * nc);
	fill_i8(a, na);
	fill_i8(b, nb);
	fill_f32(sa, (size_t)M, 0.001, 0.01);
	fill_f32(sb, (size_t)N, 0.001, 0.01);
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			int64_t s = 0;
			for (int k = 0; k < K; k++)
				s += a[(size_t)i * K + k] * b[(size_t)k * N + j];
			want[(size_t)i * N + j] = (double)(float)s * sa[i] * sb[j];
		}
	Buf bufs[] = {{cm, 4 * nc, OUT}, {a, na, IN}, {b, nb, IN}, {sa, 4 * (size_t)M, IN}, {sb, 4 * (size_t)N, IN}};
	Launch l = {.file = "matmul_i8.tile", .kernel = "matmul_i8", .grid = (unsigned)(((M + 63) / 64) * ((N + 63) / 64)),
	            .args = {ABUF(0), ABUF(1), ABUF(2), ABUF(3), ABUF(4), AI32(M), AI32(N), AI32(K), AI32(K), AI32(N),
	                     AI32(N)},
	            .nargs = 11, .bufs = bufs, .nbufs = 5};
	/* the i32 sum is exact; then a cast and two f32 multiplies */
	check_output(&c, &l, true, 0, "c", F32, want, nc, F32_RTOL, 0);
	free(a), free(b), free(sa), free(sb), free(cm), free(want);
}

/*
 * linear_i8.tile: Y = (X @ W^T) * sx[m] * sw[n] + bias[n] in f16, X [M, K] and W [N, K] int8 with
 * rows `pad` bytes longer than K (the strides); on sm_90a, K a multiple of 16, an int8 wgmma.
 */
static void case_linear_i8(int M, int N, int K, int pad, int bm, int bn, int bk, int warps, int stages)
{
	if (!want("linear_i8"))
		return;
	Case c;
	start(&c, "linear_i8 M=%d N=%d K=%d pad=%d BM=%d BN=%d BK=%d warps=%d stages=%d", M, N, K, pad, bm, bn, bk,
	      warps, stages);
	int ld = K + pad;
	size_t nx = (size_t)M * ld, nw = (size_t)N * ld, ny = (size_t)M * N;
	int8_t *x = xmalloc(nx), *w = xmalloc(nw);
	float *sx = xmalloc(4 * (size_t)M), *sw = xmalloc(4 * (size_t)N), *bias = xmalloc(4 * (size_t)N);
	uint16_t *y = xmalloc(2 * ny);
	double *want = xmalloc(8 * ny);
	fill_i8(x, nx);
	fill_i8(w, nw);
	fill_f32(sx, (size_t)M, 0.0005, 0.002);
	fill_f32(sw, (size_t)N, 0.0005, 0.002);
	fill_f32(bias, (size_t)N, -2, 2);
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			int64_t s = 0;
			for (int k = 0; k < K; k++)
				s += x[(size_t)i * ld + k] * w[(size_t)j * ld + k];
			want[(size_t)i * N + j] = (double)((float)s * sx[i] * sw[j] + bias[j]);
		}
	Buf bufs[] = {{y, 2 * ny, OUT},          {x, nx, IN},           {w, nw, IN},
	              {sx, 4 * (size_t)M, IN}, {sw, 4 * (size_t)N, IN}, {bias, 4 * (size_t)N, IN}};
	Launch l = {.file = "linear_i8.tile", .kernel = "linear_i8", .defs = {{"BM", bm}, {"BN", bn}, {"BK", bk}},
	            .ndefs = 3, .num_warps = warps, .num_stages = stages,
	            .grid = (unsigned)(((M + bm - 1) / bm) * ((N + bn - 1) / bn)),
	            .args = {ABUF(0), ABUF(1), ABUF(2), ABUF(3), ABUF(4), ABUF(5), AI32(M), AI32(N), AI32(K), AI32(ld),
	                     AI32(ld), AI32(N)},
	            .nargs = 12, .bufs = bufs, .nbufs = 6};
	/* the i32 sum is exact; then f32 scaling and the f16 rounding */
	check_output(&c, &l, true, 0, "y", F16, want, ny, F16_RTOL, F16_ATOL);
	free(x), free(w), free(sx), free(sw), free(bias), free(y), free(want);
}

/*
 * fp8 on the host, by brute force over the 256 codes (no formula shared with
 * the compiler's f8_round): the value of a code, and the code nearest x --
 * ties to the even code, finite values past the largest (and infinities) to
 * the largest, NaN to NaN, zero keeping x's sign -- as cvt.rn.satfinite.
 */
static double f8_host_value(unsigned b, bool e5)
{
	int mb = e5 ? 2 : 3, bias = e5 ? 15 : 7;
	unsigned ef = (b & 0x7f) >> mb, mf = b & ((1u << mb) - 1);
	double s = b & 0x80 ? -1 : 1;
	if (!e5 && ef == 15 && mf == 7)
		return NAN;
	if (e5 && ef == 31)
		return mf ? NAN : s * INFINITY;
	return s * (ef ? ldexp(1.0 + mf / (double)(1 << mb), (int)ef - bias) : ldexp(mf, 1 - bias - mb));
}

static unsigned f8_host_code(float x, bool e5)
{
	if (isnan(x))
		return 0x7f;
	double a = fabs((double)x), best = INFINITY;
	unsigned code = 0;
	for (unsigned b = 0; b < 0x80; b++) {
		double v = f8_host_value(b, e5);
		if (!isfinite(v))
			continue;
		double d = fabs(a - v);
		if (d < best || (d == best && !(b & 1)))
			best = d, code = b;
	}
	if (a >= f8_host_value(e5 ? 0x7b : 0x7e, e5))
		code = e5 ? 0x7b : 0x7e; /* the largest finite */
	return (signbit(x) ? 0x80u : 0) | code;
}

static bool f8_same(unsigned got, unsigned want, bool e5)
{
	return got == want || (isnan(f8_host_value(got, e5)) && isnan(f8_host_value(want, e5)));
}

/*
 * cast between f32 and both fp8 types: every code's value and its
 * neighbours, the midpoints between neighbours (ties to even) and the
 * floats just either side of them, the largest finite and past it,
 * infinities, NaN, subnormals of both formats, f32 subnormals, random
 * floats; each to fp8 (bytes, checked exactly), back to f32 and to f16.
 */
static const char *fp8_src =
	"kernel fp8(q4: *f8e4m3, q5: *f8e5m2, b4: *f32, b5: *f32, h4: *f16, x: *f32, n: i32) {\n"
	"    let offs = program_id(0) * 1024 + arange(0, 1024);\n"
	"    let m = offs < n;\n"
	"    let v = load(x + offs, m, 0.0);\n"
	"    let a = cast(v, f8e4m3);\n"
	"    let b = cast(v, f8e5m2);\n"
	"    store(q4 + offs, a, m);\n"
	"    store(q5 + offs, b, m);\n"
	"    store(b4 + offs, a, m);\n"
	"    store(b5 + offs, cast(b, f32), m);\n"
	"    store(h4 + offs, where(v > 0.0, a, cast(-1.5, f8e4m3)), m);\n"
	"}\n";

static void case_fp8_cast(int n)
{
	if (!want("fp8"))
		return;
	Case c;
	start(&c, "fp8 casts n=%d", n);
	float *x = xmalloc(4 * (size_t)n), *b4 = xmalloc(4 * (size_t)n), *b5 = xmalloc(4 * (size_t)n);
	uint8_t *q4 = xmalloc((size_t)n), *q5 = xmalloc((size_t)n);
	uint16_t *h4 = xmalloc(2 * (size_t)n);
	int k = 0;
	for (int e5 = 0; e5 < 2; e5++)
		for (unsigned b = 0; b < 0x80 && k + 16 < n; b++) {
			double v = f8_host_value(b, e5), w = f8_host_value(b + 1, e5);
			if (!isfinite(v))
				continue;
			float fv = (float)v, mid = isfinite(w) ? (float)((v + w) / 2) : (float)(v * 1.0625);
			float pts[] = {fv, nextafterf(fv, INFINITY), nextafterf(fv, 0), mid, nextafterf(mid, INFINITY),
			               nextafterf(mid, 0)};
			for (int i = 0; i < 6; i++) {
				x[k++] = pts[i];
				x[k++] = -pts[i];
			}
		}
	float special[] = {448, 449, 464, 465, 480, 57344, 59392, 61440, 1e30f, INFINITY, -INFINITY, NAN, 0x1p-130f,
	                   -0x1p-149f, 0x1p-10f, 0x1p-17f, 0x1.8p-17f, 0x1.8p-10f, 0.0f, -0.0f};
	for (size_t i = 0; i < sizeof special / sizeof special[0] && k < n; i++)
		x[k++] = special[i];
	while (k < n) {
		x[k] = (float)uniform(-600, 600) * (k % 3 ? 1.0f : 0x1p-12f);
		k++;
	}
	Buf bufs[] = {{q4, (size_t)n, OUT},     {q5, (size_t)n, OUT},     {b4, 4 * (size_t)n, OUT},
	              {b5, 4 * (size_t)n, OUT}, {h4, 2 * (size_t)n, OUT}, {x, 4 * (size_t)n, IN}};
	Launch l = {.file = "fp8.tile", .src = fp8_src, .kernel = "fp8", .grid = (unsigned)((n + 1023) / 1024),
	            .args = {ABUF(0), ABUF(1), ABUF(2), ABUF(3), ABUF(4), ABUF(5), AI32(n)}, .nargs = 7,
	            .bufs = bufs, .nbufs = 6};
	void *ir[6] = {NULL};
	if (run_both(&c, &l, true, ir)) {
		for (int who = 0; who < 2 && !c.failed; who++) {
			const uint8_t *g4 = who ? ir[0] : q4, *g5 = who ? ir[1] : q5;
			const float *f4 = who ? ir[2] : b4, *f5 = who ? ir[3] : b5;
			const uint16_t *g16 = who ? ir[4] : h4;
			const char *side = who ? "interpreter" : gpu ? "GPU" : "interpreter";
			if (!g4)
				continue;
			for (int i = 0; i < n && !c.failed; i++) {
				unsigned w4 = f8_host_code(x[i], false), w5 = f8_host_code(x[i], true);
				double v4 = f8_host_value(w4, false), v5 = f8_host_value(w5, true);
				double hv = x[i] > 0 ? v4 : -1.5;
				if (!f8_same(g4[i], w4, false))
					fail(&c, "%s: cast(%a, f8e4m3) = 0x%02x, want 0x%02x", side, (double)x[i], g4[i], w4);
				else if (!f8_same(g5[i], w5, true))
					fail(&c, "%s: cast(%a, f8e5m2) = 0x%02x, want 0x%02x", side, (double)x[i], g5[i], w5);
				else if (!(f4[i] == v4 || (isnan(f4[i]) && isnan(v4))) || !signbit(f4[i]) != !signbit(v4))
					fail(&c, "%s: f8e4m3 0x%02x as f32 = %a, want %a", side, w4, (double)f4[i], v4);
				else if (!(f5[i] == v5 || (isnan(f5[i]) && isnan(v5))) || !signbit(f5[i]) != !signbit(v5))
					fail(&c, "%s: f8e5m2 0x%02x as f32 = %a, want %a", side, w5, (double)f5[i], v5);
				else if (!(half_to_f32(g16[i]) == hv || (isnan(half_to_f32(g16[i])) && isnan(hv))))
					fail(&c, "%s: where(...) of f8e4m3 as f16 at %a = %a, want %a", side, (double)x[i],
					     (double)half_to_f32(g16[i]), hv);
			}
		}
	}
	finish(&c, ir[0] != NULL && gpu);
	free_results(ir, 6);
	free(x), free(b4), free(b5), free(q4), free(q5), free(h4);
}

/*
 * linear_f8.tile: Y = (X @ W^T) * sx * sw in f16, X [M, K] and W [N, K] in f8e4m3 with rows `pad`
 * bytes longer than K; on sm_90a, K a multiple of 16, an fp8 wgmma, on sm_90 mma.sync.
 */
static void case_linear_f8(int M, int N, int K, int pad, int bm, int bn, int bk, int warps, int stages)
{
	if (!want("linear_f8"))
		return;
	Case c;
	start(&c, "linear_f8 M=%d N=%d K=%d pad=%d BM=%d BN=%d BK=%d warps=%d stages=%d", M, N, K, pad, bm, bn, bk,
	      warps, stages);
	int ld = K + pad;
	size_t nx = (size_t)M * ld, nw = (size_t)N * ld, ny = (size_t)M * N;
	uint8_t *x = xmalloc(nx), *w = xmalloc(nw);
	double *vx = xmalloc(8 * nx), *vw = xmalloc(8 * nw);
	float sx = (float)uniform(0.25, 1), sw = (float)uniform(0.25, 1);
	uint16_t *y = xmalloc(2 * ny);
	double *want = xmalloc(8 * ny), peak = 0;
	for (size_t i = 0; i < nx; i++) {
		x[i] = (uint8_t)f8_host_code((float)uniform(-8, 8), false);
		vx[i] = f8_host_value(x[i], false);
	}
	for (size_t i = 0; i < nw; i++) {
		w[i] = (uint8_t)f8_host_code((float)uniform(-0.5, 0.5), false);
		vw[i] = f8_host_value(w[i], false);
	}
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double s = 0;
			for (int k = 0; k < K; k++)
				s += vx[(size_t)i * ld + k] * vw[(size_t)j * ld + k];
			want[(size_t)i * N + j] = s * sx * sw;
			peak = fmax(peak, fabs(s * sx * sw));
		}
	Buf bufs[] = {{y, 2 * ny, OUT}, {x, nx, IN}, {w, nw, IN}, {&sx, 4, IN}, {&sw, 4, IN}};
	Launch l = {.file = "linear_f8.tile", .kernel = "linear_f8", .defs = {{"BM", bm}, {"BN", bn}, {"BK", bk}},
	            .ndefs = 3, .num_warps = warps, .num_stages = stages,
	            .grid = (unsigned)(((M + bm - 1) / bm) * ((N + bn - 1) / bn)),
	            .args = {ABUF(0), ABUF(1), ABUF(2), ABUF(3), ABUF(4), AI32(M), AI32(N), AI32(K), AI32(ld), AI32(ld),
	                     AI32(N)},
	            .nargs = 11, .bufs = bufs, .nbufs = 5};
	/* products of fp8 are exact; the f32 sums round (the tensor cores' in their own order), then f16 */
	check_output(&c, &l, M * N * K <= (1 << 24), 0, "y", F16, want, ny, F16_RTOL, 2e-3 * peak);
	free(x), free(w), free(vx), free(vw), free(y), free(want);
}

/* The API around launches: signature, argument errors, compile errors, the cache. */
static void case_api(void)
{
	if (!want("api"))
		return;
	Case c;
	start(&c, "api: signature, bad arguments, compile errors, cache");
	char *src = read_example("softmax.tile");
	tilec_kernel *k = NULL, *k2 = NULL;
	tilec_define d[] = {{"BLOCK", 128}};
	tilec_options o = {.defines = d, .ndefines = 1, .source_name = "softmax.tile"};
	if (!src || tilec_compile(ctx, src, "softmax", &o, &k) != TILEC_OK) {
		fail(&c, "compile: %s", src ? tilec_context_error(ctx) : "cannot read softmax.tile");
		goto out;
	}
	if (tilec_kernel_num_params(k) != 4 || tilec_kernel_param_kind(k, 0) != TILEC_ARG_PTR ||
	    tilec_kernel_param_kind(k, 3) != TILEC_ARG_I32)
		fail(&c, "signature: %d params", tilec_kernel_num_params(k));
	/* compiling checked the source; LLVM waits for the first launch */
	double ms0[4];
	tilec_kernel_compile_times(k, ms0);
	if (!(ms0[0] > 0) || ms0[2] != 0 || ms0[3] != 0)
		fail(&c, "compile times before any launch %.3f %.3f %.3f %.3f ms", ms0[0], ms0[1], ms0[2], ms0[3]);
	unsigned long long buf = 0;
	if (tilec_malloc(ctx, 4096, &buf) != TILEC_OK) {
		fail(&c, "%s", tilec_context_error(ctx));
		goto out;
	}
	tilec_arg bad[] = {tilec_ptr(buf), tilec_ptr(buf), tilec_i32(128), tilec_f32(1)};
	if (tilec_launch(k, 1, 1, 1, NULL, bad, 4) != TILEC_ERROR_ARGS ||
	    !strstr(tilec_context_error(ctx), "argument 4 of 'softmax' ('n') is i32, got f32"))
		fail(&c, "wrong kind: \"%s\"", tilec_context_error(ctx));
	if (tilec_launch(k, 1, 1, 1, NULL, bad, 3) != TILEC_ERROR_ARGS)
		fail(&c, "wrong count accepted");
	bad[0] = tilec_ptr(buf + 4);
	bad[3] = tilec_i32(100);
	if (tilec_launch(k, 1, 1, 1, NULL, bad, 4) != TILEC_ERROR_ARGS)
		fail(&c, "misaligned pointer accepted");
	bad[0] = tilec_ptr(buf);
	if (tilec_launch(k, 0, 1, 1, NULL, bad, 4) != TILEC_OK)
		fail(&c, "empty grid: %s", tilec_context_error(ctx));
	if (tilec_launch(k, 2, 1, 1, NULL, bad, 4) != TILEC_OK || tilec_synchronize(ctx) != TILEC_OK)
		fail(&c, "launch: %s", tilec_context_error(ctx));
	double ms[4];
	tilec_kernel_compile_times(k, ms);
	if (!(ms[0] > 0 && ms[2] > 0 && ms[3] > 0))
		fail(&c, "compile times %.3f %.3f %.3f %.3f ms", ms[0], ms[1], ms[2], ms[3]);
	/* The same source and options again: from the cache, so fast. */
	double t0 = (double)clock() / CLOCKS_PER_SEC;
	if (tilec_compile(ctx, src, "softmax", &o, &k2) != TILEC_OK)
		fail(&c, "second compile: %s", tilec_context_error(ctx));
	double dt = (double)clock() / CLOCKS_PER_SEC - t0;
	if (dt > 0.5 * (ms[0] + ms[1] + ms[2]) / 1e3 && dt > 1e-3)
		fail(&c, "second compile took %.3f ms: the cache missed", dt * 1e3);
	tilec_kernel *k3 = NULL;
	tilec_options ob = {.source_name = "broken.tile"};
	if (tilec_compile(ctx, "kernel k(x: *f32) {\n    store(x, y);\n}\n", NULL, &ob, &k3) != TILEC_ERROR_COMPILE ||
	    !strstr(tilec_context_error(ctx), "broken.tile:2:14: error:"))
		fail(&c, "compile error: \"%s\"", tilec_context_error(ctx));
	tilec_kernel_destroy(k3);
	tilec_free(ctx, buf);
out:
	finish(&c, false);
	tilec_kernel_destroy(k);
	tilec_kernel_destroy(k2);
	free(src);
}

/* tilec_autotune: grid for matmul.tile, programs = cdiv(M, BM) * cdiv(N, BN). */
static void matmul_grid(const tilec_config *cfg, void *user, unsigned g[3])
{
	const int *mn = user;
	long long bm = 0, bn = 0;
	for (int i = 0; i < cfg->ndefines; i++) {
		if (strcmp(cfg->defines[i].name, "BM") == 0)
			bm = cfg->defines[i].value;
		if (strcmp(cfg->defines[i].name, "BN") == 0)
			bn = cfg->defines[i].value;
	}
	g[0] = (unsigned)(((mn[0] + bm - 1) / bm) * ((mn[1] + bn - 1) / bn));
}

/*
 * tilec_autotune over three matmul configurations, one over the shared-memory
 * limit (skipped): the winner computes the product; a second call comes from
 * the context's cache (the same medians, no launches); with only the bad
 * configuration the call fails and names it.
 */
static void case_autotune(void)
{
	if (!want("autotune"))
		return;
	enum { M = 512, N = 384, K = 256 };
	Case c;
	start(&c, "autotune: matmul M=%d N=%d K=%d, 3 configurations", M, N, K);
	char *src = read_example("matmul.tile");
	uint16_t *a = xmalloc(2 * (size_t)M * K), *b = xmalloc(2 * (size_t)K * N), *cm = xmalloc(2 * (size_t)M * N);
	double *want = xmalloc(8 * (size_t)M * N);
	fill_f16(a, (size_t)M * K, -1, 1);
	fill_f16(b, (size_t)K * N, -1, 1);
	f16_matmul_ref(want, a, b, M, N, K, N, 1);
	unsigned long long da = 0, db = 0, dc = 0;
	tilec_kernel *k = NULL, *k2 = NULL;
	if (!src || tilec_malloc(ctx, 2 * (size_t)M * K, &da) != TILEC_OK ||
	    tilec_malloc(ctx, 2 * (size_t)K * N, &db) != TILEC_OK || tilec_malloc(ctx, 2 * (size_t)M * N, &dc) != TILEC_OK ||
	    tilec_memcpy_htod(ctx, da, a, 2 * (size_t)M * K) != TILEC_OK ||
	    tilec_memcpy_htod(ctx, db, b, 2 * (size_t)K * N) != TILEC_OK) {
		fail(&c, "%s", src ? tilec_context_error(ctx) : "cannot read matmul.tile");
		goto out;
	}
	tilec_define small[] = {{"BM", 64}, {"BN", 64}, {"BK", 32}}, big[] = {{"BM", 128}, {"BN", 128}, {"BK", 32}},
	             huge[] = {{"BM", 256}, {"BN", 256}, {"BK", 256}};
	tilec_config cfgs[] = {{small, 3, 4, 3}, {big, 3, 8, 3}, {huge, 3, 8, 8}};
	int mn[2] = {M, N};
	tilec_tuning t = {.configs = cfgs, .nconfigs = 3, .grid = matmul_grid, .user = mn, .reps = 5};
	tilec_arg args[] = {tilec_ptr(dc), tilec_ptr(da), tilec_ptr(db), tilec_i32(M), tilec_i32(N), tilec_i32(K),
	                    tilec_i32(K), tilec_i32(1), tilec_i32(N), tilec_i32(1), tilec_i32(N), tilec_i32(1)};
	tilec_options o = {.source_name = "matmul.tile"};
	int best = -1, best2 = -1;
	double ms[3], ms2[3];
	if (tilec_autotune(ctx, src, "matmul", &o, &t, args, 12, &best, ms, &k) != TILEC_OK) {
		fail(&c, "%s", tilec_context_error(ctx));
		goto out;
	}
	printf("     autotune: %.4f / %.4f / %.0f ms, best %d\n", ms[0], ms[1], ms[2], best);
	if (best < 0 || best > 1 || !(ms[0] > 0 && ms[1] > 0) || ms[2] != -1 || ms[best] > ms[1 - best])
		fail(&c, "best %d, ms %g %g %g", best, ms[0], ms[1], ms[2]);
	/* the winner, launched as any kernel, on a poisoned output */
	memset(cm, 0xff, 2 * (size_t)M * N);
	unsigned g[3] = {1, 1, 1};
	matmul_grid(&cfgs[best < 0 ? 0 : best], mn, g);
	if (tilec_memcpy_htod(ctx, dc, cm, 2 * (size_t)M * N) != TILEC_OK ||
	    tilec_launch(k, g[0], 1, 1, NULL, args, 12) != TILEC_OK ||
	    tilec_memcpy_dtoh(ctx, cm, dc, 2 * (size_t)M * N) != TILEC_OK) {
		fail(&c, "%s", tilec_context_error(ctx));
		goto out;
	}
	compare(&c, "c", cm, F16, want, (size_t)M * N, F16_RTOL, F16_ATOL);
	/* again: the cached choice, its medians as they were */
	if (tilec_autotune(ctx, src, "matmul", &o, &t, args, 12, &best2, ms2, &k2) != TILEC_OK)
		fail(&c, "second call: %s", tilec_context_error(ctx));
	else if (best2 != best || memcmp(ms, ms2, sizeof ms) != 0)
		fail(&c, "second call timed again: best %d, ms %g %g", best2, ms2[0], ms2[1]);
	tilec_kernel_destroy(k2);
	k2 = NULL;
	/* only the configuration that cannot compile */
	t.configs = &cfgs[2];
	t.nconfigs = 1;
	if (tilec_autotune(ctx, src, "matmul", &o, &t, args, 12, &best2, ms2, &k2) != TILEC_ERROR_COMPILE || k2 ||
	    !strstr(tilec_context_error(ctx), "tilec_autotune: no configuration ran:\n  config 0: ") || ms2[0] != -1)
		fail(&c, "bad configuration: \"%s\"", tilec_context_error(ctx));
out:
	finish(&c, false);
	tilec_kernel_destroy(k);
	tilec_kernel_destroy(k2);
	tilec_free(ctx, da), tilec_free(ctx, db), tilec_free(ctx, dc);
	free(a), free(b), free(cm), free(want), free(src);
}

/*
 * The driver's own floor: microseconds per bare cuLaunchKernel of the same
 * vector_add (PTX from tilec_compile_ptx, loaded by hand) on the current
 * context, timed like host_launch_cost.  Negative if it cannot be measured.
 */
static double driver_launch_cost(const unsigned long long *bufs, int n, int launches)
{
	typedef int (*LoadData)(void **, const void *);
	typedef int (*GetFunction)(void **, void *, const char *);
	typedef int (*Launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
	                      void **, void **);
	typedef int (*Unload)(void *);
	void *lib = dlopen("libcuda.so.1", RTLD_NOW);
	char *ptx = NULL, *src = read_example("vector_add.tile");
	double us = -1;
	if (!lib || !src || tilec_compile_ptx(src, "vector_add", NULL, &ptx, NULL) != TILEC_OK)
		goto out;
	LoadData load = (LoadData)dlsym(lib, "cuModuleLoadData");
	GetFunction get = (GetFunction)dlsym(lib, "cuModuleGetFunction");
	Launch launch = (Launch)dlsym(lib, "cuLaunchKernel");
	Unload unload = (Unload)dlsym(lib, "cuModuleUnload");
	void *mod = NULL, *fn = NULL;
	if (!load || !get || !launch || !unload || load(&mod, ptx) || get(&fn, mod, "vector_add"))
		goto out;
	void *params[] = {(void *)&bufs[0], (void *)&bufs[1], (void *)&bufs[2], &n};
	double t0 = seconds();
	for (int i = 0; i < launches; i++)
		if (launch(fn, 1, 1, 1, 128, 1, 1, 0, NULL, params, NULL))
			goto out;
	us = (seconds() - t0) * 1e6 / launches;
	tilec_synchronize(ctx);
	unload(mod);
out:
	tilec_free_string(ptx);
	free(src);
	if (lib)
		dlclose(lib);
	return us;
}

/* Microseconds of host time per tilec_launch while the GPU is busy elsewhere. */
static double host_launch_cost(tilec_kernel *k, const tilec_arg *small, Case *c, double *driver_us)
{
	enum { BIG = 1 << 26, LAUNCHES = 200 };
	unsigned long long big = 0;
	double us = -1;
	if (tilec_malloc(ctx, 3ull * 4 * BIG, &big) != TILEC_OK) {
		fail(c, "%s", tilec_context_error(ctx));
		return us;
	}
	tilec_arg args[] = {tilec_ptr(big), tilec_ptr(big + 4ull * BIG), tilec_ptr(big + 8ull * BIG), tilec_i32(BIG)};
	for (int i = 0; i < 16 && !c->failed; i++) /* about 5 ms of GPU work, queued */
		if (tilec_launch(k, BIG / 1024, 1, 1, NULL, args, 4) != TILEC_OK)
			fail(c, "%s", tilec_context_error(ctx));
	double t0 = seconds();
	for (int i = 0; i < LAUNCHES && !c->failed; i++)
		if (tilec_launch(k, 1, 1, 1, NULL, small, 4) != TILEC_OK)
			fail(c, "%s", tilec_context_error(ctx));
	us = (seconds() - t0) * 1e6 / LAUNCHES;
	if (tilec_synchronize(ctx) != TILEC_OK)
		fail(c, "%s", tilec_context_error(ctx));
	/* the same again for the bare driver call, behind the same queue of work */
	for (int i = 0; i < 16 && !c->failed; i++)
		if (tilec_launch(k, BIG / 1024, 1, 1, NULL, args, 4) != TILEC_OK)
			fail(c, "%s", tilec_context_error(ctx));
	unsigned long long sb[3] = {small[0].v.ptr, small[1].v.ptr, small[2].v.ptr};
	*driver_us = driver_launch_cost(sb, small[3].v.i32, LAUNCHES);
	tilec_free(ctx, big);
	return us;
}

/*
 * Launch overhead from C, host clock.  First the host's own cost: 500
 * launches of vector_add with n = 1024 (one program) enqueued behind 5 ms of
 * GPU work, so no launch waits for the GPU.  Then 10,000 back-to-back
 * launches: "enqueue" stops when the last launch returns, "total" when the
 * GPU is done (this rate is bounded by the GPU's own launch processing).
 * bench/bench.py reads the line.
 */
static void case_launch_overhead(void)
{
	if (!want("api"))
		return;
	enum { LAUNCHES = 10000, N = 1024 };
	Case c;
	start(&c, "launch overhead");
	char *src = read_example("vector_add.tile");
	tilec_kernel *k = NULL;
	unsigned long long buf = 0;
	tilec_options o = {.source_name = "vector_add.tile"};
	if (!src || tilec_compile(ctx, src, "vector_add", &o, &k) != TILEC_OK ||
	    tilec_malloc(ctx, 3 * 4 * N, &buf) != TILEC_OK) {
		fail(&c, "%s", src ? tilec_context_error(ctx) : "cannot read vector_add.tile");
		goto out;
	}
	tilec_arg args[] = {tilec_ptr(buf), tilec_ptr(buf + 4 * N), tilec_ptr(buf + 8 * N), tilec_i32(N)};
	/* The first launch compiles the n % 16 == 0 variant and loads it. */
	if (tilec_launch(k, 1, 1, 1, NULL, args, 4) != TILEC_OK || tilec_synchronize(ctx) != TILEC_OK) {
		fail(&c, "%s", tilec_context_error(ctx));
		goto out;
	}
	double driver_us = -1, host_us = host_launch_cost(k, args, &c, &driver_us);
	double t0 = seconds(), t1 = 0;
	for (int i = 0; i < LAUNCHES && !c.failed; i++)
		if (tilec_launch(k, 1, 1, 1, NULL, args, 4) != TILEC_OK)
			fail(&c, "%s", tilec_context_error(ctx));
	t1 = seconds();
	if (tilec_synchronize(ctx) != TILEC_OK)
		fail(&c, "%s", tilec_context_error(ctx));
	double t2 = seconds();
	if (!c.failed)
		printf("launch overhead: %.2f us per launch on the host (GPU busy; a bare cuLaunchKernel: %.2f us); "
		       "back to back %.2f us per launch enqueued, %.2f us until done (%d launches of vector_add n=%d, "
		       "C API)\n", host_us, driver_us, (t1 - t0) * 1e6 / LAUNCHES, (t2 - t0) * 1e6 / LAUNCHES, LAUNCHES, N);
out:
	finish(&c, false);
	tilec_free(ctx, buf);
	tilec_kernel_destroy(k);
	free(src);
}

/* ---- driver ---- */

static bool exists(const char *dir)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/vector_add.tile", dir);
	FILE *f = fopen(path, "rb");
	if (f)
		fclose(f);
	return f != NULL;
}

/* The examples: --examples, $TILEC_EXAMPLES, or dsl_examples/ near here or the program. */
static const char *find_examples(const char *argv0)
{
	static char buf[1024];
	const char *env = getenv("TILEC_EXAMPLES");
	if (env && exists(env))
		return env;
	const char *rel[] = {"dsl_examples", "../dsl_examples", "../../dsl_examples", "../../../dsl_examples"};
	for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++)
		if (exists(rel[i]))
			return rel[i];
	const char *slash = strrchr(argv0, '/');
	if (slash) {
		for (size_t i = 1; i < sizeof rel / sizeof rel[0]; i++) {
			snprintf(buf, sizeof buf, "%.*s/%s", (int)(slash - argv0), argv0, rel[i]);
			if (exists(buf))
				return buf;
		}
	}
#ifdef TILEC_SOURCE_DIR
	if (exists(TILEC_SOURCE_DIR "/dsl_examples"))
		return TILEC_SOURCE_DIR "/dsl_examples";
#endif
	return NULL;
}

static void run_all(void)
{
	if (gpu) {
		case_api();
		case_autotune();
		case_launch_overhead();
	}
	int va[] = {1, 1000, 4096, 1 << 20, (1 << 20) + 3};
	for (size_t i = 0; i < sizeof va / sizeof va[0]; i++)
		if (large || va[i] < (1 << 20))
			case_vector_add(va[i]);
	for (int f = 0; f < 7; f++) { /* sin, cos, tanh, erf, log1p, expm1, atan */
		case_math(f, 4096, true);
		if (large)
			case_math(f, 1 << 22, false);
	}
	case_pow(4096, true);
	case_atan2(4096, true);
	if (large) {
		case_pow(1 << 22, false);
		case_atan2(1 << 22, false);
	}
	case_rounding(5000);
	if (large)
		case_rounding(1 << 22);
	for (int f8 = 0; f8 < 2; f8++) {
		case_quant(5, 1000, 24, 4, f8);
		case_quant(3, 64, 0, 1, f8);
		if (large)
			case_quant(4096, 8192, 0, 8, f8);
	}
	case_random(5000, 12345);
	case_random(3000, -7);
	if (large)
		case_random(1 << 22, 20261123);
	case_scan(1, 1024, 1, 0, 4);
	case_sort(1, 1024, 1, 8, 4);
	case_sort(1, 32, 1, 4, 1);
	case_sort(16, 64, 1, 16, 4);
	case_sort(64, 32, 0, 4, 8);
	case_sort(4, 256, 1, 256, 2);
	case_sort(128, 8, 0, 1, 4);
	case_sort(2, 4096, 1, 32, 8);
	case_sort(512, 2, 0, 2, 4);
	case_scan16(0);
	case_scan16(1);
	case_sort16(8, 256, 2);
	case_sort16(2, 1024, 4);
	case_sort16(64, 32, 1);
	case_sort16(1, 2048, 8);
	case_gather(8, 32, 16, 64, 4);
	case_gather(2, 16, 4, 8, 4);
	case_gather(64, 64, 128, 1024, 8);
	case_gather(16, 128, 8, 256, 1);
	case_builtins(16, 64, 4);
	case_builtins(8, 16, 2);
	case_builtins(32, 128, 8);
	case_scan(1, 1024, 1, 1, 4);
	case_scan(1, 4096, 1, 0, 8);
	case_scan(1, 32, 1, 0, 1);
	case_scan(16, 64, 1, 0, 4);
	case_scan(16, 64, 0, 1, 4);
	case_scan(64, 32, 0, 0, 8);
	case_scan(4, 256, 1, 1, 2);
	case_combine(4, 256, 0, 4);
	case_combine(4, 256, 1, 4);
	case_combine(2, 1024, 0, 4);
	case_combine(2, 2048, 1, 8);
	case_combine(32, 32, 0, 4);
	case_combine(64, 16, 1, 8);
	case_combine(1, 32, 0, 1);
	case_combine(128, 2, 1, 2);
	case_linear_scan(4, 1024, 1024, 4);
	case_linear_scan(3, 3000, 1024, 8);
	case_linear_scan(5, 77, 128, 4);
	case_linear_scan(2, 100, 32, 1);
	if (large)
		case_linear_scan(4096, 4096, 2048, 8);
	case_atomics(5000, 16);
	case_atomics(1 << 16, 1);
	if (large)
		case_atomics(1 << 22, 1024);
	case_sync(300, 4);
	case_sync(97, 8);
	case_sync(1, 1);
	if (large)
		case_sync(20000, 4);
	case_dropout(false, 5000, 0.5, 123);
	case_dropout(false, 1 << 16, 0.1, -99);
	case_dropout(true, 4099, 0.25, 7);
	if (large) {
		case_dropout(false, 1 << 24, 0.3, 42);
		case_dropout(true, 1 << 24, 0.5, 42);
	}
	for (int inter = 0; inter < 2; inter++) {
		case_rope(5, 3, 64, 4096, 0, 1, 1, inter);
		case_rope(5, 3, 64, 4096, 0, 4, 4, inter);  /* a partial last block of rows */
		case_rope(7, 2, 32, 3000000, 16, 8, 2, inter); /* angles past sin and cos's short reduction */
		if (large)
			case_rope(4096, 32, 64, 1 << 20, 0, 8, 4, inter);
	}
	case_rope(3, 5, 8, 100, 0, 2, 4, true); /* 32 pairs to 128 threads: copies in lanes and warps */

	int sn[] = {1, 100, 781, 1024, 4000};
	for (size_t i = 0; i < sizeof sn / sizeof sn[0]; i++)
		case_softmax(37, sn[i], sn[i], 0, 0);
	case_softmax(5, 781, 800, 0, 0);   /* padded rows: stride is a multiple of 16, n is not */
	case_softmax(1, 4096, 4096, 0, 0);
	/* persistent: fewer programs than rows, one each, idle programs; warps 4, 8, 16; padded rows */
	for (size_t i = 0; i < sizeof sn / sizeof sn[0]; i++) {
		case_softmax(37, sn[i], sn[i], 5, 4);
		case_softmax(9, sn[i], sn[i], 9, 8);
		case_softmax(6, sn[i], (sn[i] + 31) / 16 * 16, 40, 16);
	}
	if (large)
		case_softmax(4096, 4096, 4096, 528, 16);

	for (size_t i = 0; i < sizeof sn / sizeof sn[0]; i++)
		case_softmax_backward(13, sn[i]);
	for (size_t i = 0; i < sizeof sn / sizeof sn[0]; i++)
		case_layernorm(7, sn[i]);
	/* fewer programs than rows, one each, idle programs; warps 4, 8, 16; padded rows */
	for (size_t i = 0; i < sizeof sn / sizeof sn[0]; i++) {
		case_layernorm_backward(37, sn[i], sn[i], 5, 4, false);
		case_layernorm_backward(9, sn[i], sn[i] + 8, 9, 8, false);
		case_layernorm_backward(37, sn[i], sn[i] + 8, 5, 4, true);
		case_layernorm_backward(6, sn[i], (sn[i] + 31) / 16 * 16, 40, 16, false);
	}
	if (large) {
		case_layernorm_backward(4096, 8192, 8192, 264, 8, false);
		case_layernorm_backward(4096, 8192, 8192, 64, 8, true);
	}

	long long mn[] = {1, 1000, 1000007, 100000000};
	for (size_t i = 0; i < sizeof mn / sizeof mn[0]; i++)
		if (large || mn[i] < 10000000) {
			case_mean(mn[i], true);
			case_mean(mn[i], false);
		}

	const char *mk[] = {"matmul", "matmul_relu", "matmul_block_ptr"};
	for (int r = 0; r < 3; r++) {
		case_matmul(mk[r], 64, 64, 64, false, 128, 128, 32, 0);
		case_matmul(mk[r], 100, 70, 50, false, 128, 128, 32, 0);
		case_matmul(mk[r], 256, 192, 96, true, 128, 128, 32, 0);
		case_matmul(mk[r], 70, 50, 40, false, 32, 32, 16, 4);
	}
	case_matmul("matmul", 33, 17, 5, true, 64, 64, 32, 4);
	case_matmul("matmul_block_ptr", 33, 17, 5, true, 64, 64, 32, 4);
	case_matmul("matmul", 128, 256, 64, false, 64, 128, 32, 4);
	case_matmul("linear", 100, 70, 50, false, 128, 128, 32, 0);
	for (int act = 0; act <= 3; act++) /* none, ReLU, GELU, GELU's tanh form */
		case_matmul_a("linear", 200, 136, 72, false, 64, 64, 32, 4, 0, act);
	case_matmul("linear", 256, 192, 96, true, 128, 256, 32, 8);
	case_batched_matmul(3, 100, 70, 50);
	/* W read transposed through the ring: x4 and (BN 16 on 8 warps: one n-tile per warp) x2 ldmatrix */
	case_matmul_nt(256, 192, 96, 128, 64, 32, 8, 0);
	case_matmul_nt(100, 70, 50, 64, 16, 32, 8, 0);
	case_matmul_nt(64, 48, 64, 32, 32, 16, 4, 0);
	/* shapes the JIT hints (multiples of 16), so that on sm_90a the dots run as
	 * wgmma with their loads 2 and 4 iterations ahead; K tails of 16 and 48 */
	case_matmul_s("matmul", 256, 512, 208, false, 128, 256, 64, 8, 4);
	case_matmul_s("matmul_relu", 384, 256, 1040, false, 128, 256, 32, 8, 6);
	case_matmul_s("linear", 256, 256, 176, false, 256, 128, 32, 8, 5);
	case_matmul_s("matmul", 128, 128, 4096, false, 128, 128, 128, 4, 3);
	case_matmul_s("matmul_block_ptr", 256, 512, 208, false, 128, 256, 64, 8, 4);
	case_matmul_s("matmul_block_ptr", 384, 256, 1040, true, 128, 256, 32, 8, 6);
	case_matmul_nt(256, 256, 208, 128, 128, 64, 8, 4);
	case_matmul_nt(128, 192, 96, 64, 64, 16, 4, 5);
	case_attention(2, 100, 64, 64, 64, 4, false);
	case_attention(3, 256, 64, 128, 64, 8, false);
	case_attention(1, 77, 32, 64, 32, 4, false);
	case_attention(2, 300, 64, 128, 64, 8, true);
	case_attention(3, 256, 64, 64, 64, 4, true);
	case_attention(1, 77, 32, 32, 64, 2, true);
	case_attention_backward(2, 100, 64, 64, 64, 4);
	case_attention_backward(3, 256, 64, 64, 64, 4);
	case_attention_backward(1, 77, 32, 32, 64, 2);
	case_attention_backward(2, 1024, 64, 128, 128, 8);
	case_matmul_f32(100, 70, 50, 0);
	case_matmul_f32(128, 64, 64, 1);
	case_matmul_i8(100, 70, 200);
	case_matmul_i8(256, 128, 512);
	/* K 200: no hint, mma.sync (strides hinted or not); the rest wgmma on sm_90a: N 256, 128, 32, 16;
	 * K tails of 32, 48 and 16; BK 256, two 128-byte panels a slot row */
	case_linear_i8(100, 70, 200, 0, 128, 128, 128, 8, 4);
	case_linear_i8(100, 70, 200, 8, 128, 128, 128, 8, 4);
	case_linear_i8(256, 256, 512, 16, 128, 128, 128, 8, 4);
	case_linear_i8(384, 256, 1056, 0, 128, 256, 64, 8, 3);
	case_linear_i8(192, 80, 176, 32, 64, 16, 64, 4, 5);
	case_linear_i8(130, 160, 240, 0, 128, 32, 32, 4, 3);
	case_linear_i8(256, 192, 512, 0, 64, 64, 256, 4, 3);
	case_fp8_cast(8192);
	/* K 200: mma.sync; the rest wgmma on sm_90a: N 256, 128, 64, 16; K tails of 64, 32 and 16 */
	case_linear_f8(100, 70, 200, 0, 128, 128, 128, 8, 4);
	case_linear_f8(256, 512, 576, 16, 128, 256, 128, 8, 4);
	case_linear_f8(384, 256, 1056, 0, 128, 128, 128, 8, 3);
	case_linear_f8(192, 80, 176, 32, 64, 64, 64, 4, 5);
	case_linear_f8(130, 160, 240, 0, 128, 16, 32, 4, 3);
}

int main(int argc, char **argv)
{
	const char *dir = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--no-large") == 0)
			large = false;
		else if (strcmp(argv[i], "--no-interp") == 0)
			use_interp = false;
		else if (strcmp(argv[i], "--interp-only") == 0)
			gpu = false, large = false;
		else if (strcmp(argv[i], "--arch") == 0 && i + 1 < argc)
			arch = argv[++i];
		else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "--examples") == 0 && i + 1 < argc)
			dir = argv[++i];
		else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
			only = argv[++i];
		else {
			fprintf(stderr, "usage: gpu_test [--no-large] [--no-interp] [--interp-only] [--arch SM] [--seed N] "
			                "[--examples DIR] [--only K1,K2]\n");
			return 2;
		}
	}
	examples_dir = dir ? dir : find_examples(argv[0]);
	if (!examples_dir) {
		fprintf(stderr, "gpu_test: cannot find dsl_examples/ (give --examples DIR)\n");
		return 2;
	}
	if (gpu && tilec_context_create(0, &ctx) != TILEC_OK) {
		fprintf(stderr, "gpu_test: no GPU: %s\n", tilec_context_error(ctx));
		tilec_context_destroy(ctx);
		return 1;
	}
	printf("gpu_test: examples in %s, seed %llu%s%s\n", examples_dir, (unsigned long long)seed,
	       large ? "" : ", no large cases", gpu ? "" : ", interpreter only");
	run_all();
	tilec_context_destroy(ctx);
	printf("%d passed, %d failed\n", npassed, nfailed);
	return nfailed ? 1 : 0;
}
