/*
 * diff_test.c: the random kernels of tests/diff/gen.py, each run in the CPU
 * interpreter and, where there is a GPU, through the JIT; both are checked
 * against the generator's own reference and against each other.
 *
 *     diff_test [--interp-only] [--require-gpu] [--arch SM] [--O0] [--only NAME] DIR
 *
 * DIR holds index.txt (one case directory a line) and the cases (gen.py
 * describes their files).  Before each run every output buffer is poisoned
 * (floats all ones, a NaN; integers 0xDEADBEEF), so an element a store
 * forgot keeps its poison, and one no store may touch (tolerance < 0) must
 * still hold it afterwards.  A written element passes when
 * |got - want| <= tol; GPU and interpreter agree when they are within tol of
 * each other (equal where tol is 0).  One line per case, PASS with the worst
 * error in units of the tolerance, or FAIL with the first bad element; then
 * a summary.  Exit status 1 after any failure (and, with --require-gpu, when
 * there is no GPU); 2 for bad usage or a missing index.txt.
 *
 * Without a GPU (or with --interp-only) only the interpreter runs, and the
 * output says so in capitals.  --O0 runs the interpreter on the IR before
 * the optimisation passes, to tell a pass's bug from the front end's.
 *
 * On the GPU machine, from the root of the tree:
 *     python3 tests/diff/gen.py /tmp/diff --count 400 && build-bundle/bundle/diff_test --require-gpu /tmp/diff
 */
#define _POSIX_C_SOURCE 200809L
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

enum { MAXBUF = 16, MAXARG = 32, MAXDEF = 8 };

typedef enum Dt { F32, F16, BF16, F64, I8, I16, I32, I64, NDT } Dt;
typedef enum Mode { IN, OUT, INOUT } Mode;

static const char *const dt_names[] = {"f32", "f16", "bf16", "f64", "i8", "i16", "i32", "i64"};
static const size_t dt_size[] = {4, 2, 2, 8, 1, 2, 4, 8};

typedef struct Buf {
	char name[32];
	Dt dt;
	size_t n;
	Mode mode;
	void *init;           /* IN and INOUT: NAME.bin */
	double *want, *tol;   /* OUT and INOUT: NAME.want, NAME.tol */
	void *res[2];         /* results: interpreter, GPU */
} Buf;

typedef struct Arg {
	char kind;            /* 'b' buffer, 'i' i32, 'f' f32 */
	int buf;
	long long i;
	double f;
} Arg;

typedef struct Case {
	char dir[1024], name[64], desc[256], kernel[64], file[1100];
	char *src;
	unsigned grid[3];
	int warps;            /* 0: the kernel's @num_warps */
	char defname[MAXDEF][32];
	tilec_define defs[MAXDEF];
	int ndefs;
	Buf bufs[MAXBUF];
	int nbufs;
	Arg args[MAXARG];
	int nargs;
	/* the verdict */
	bool failed;
	char why[1024];
	double worst;         /* largest |got - want| / tol over the passing elements */
} Case;

static tilec_context *ctx;
static bool gpu = true, opt0;
static const char *arch;

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

/* ---- reading a case ---- */

/* The whole file dir/name (NUL-terminated), or NULL; *len gets its size. */
static char *slurp(const char *dir, const char *name, size_t *len)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return ref_try_read(path, len);
}

/* dir/NAME.EXT holding exactly `bytes` bytes, or NULL with a message in c. */
static void *buffer_file(Case *c, const Buf *b, const char *ext, size_t bytes)
{
	char name[64];
	size_t len = 0;
	snprintf(name, sizeof name, "%s.%s", b->name, ext);
	char *p = slurp(c->dir, name, &len);
	if (!p)
		fail(c, "cannot read %s/%s", c->dir, name);
	else if (len != bytes) {
		fail(c, "%s/%s has %zu bytes, not %zu", c->dir, name, len, bytes);
		free(p);
		p = NULL;
	}
	return p;
}

static int find_buf(const Case *c, const char *name)
{
	for (int i = 0; i < c->nbufs; i++)
		if (!strcmp(c->bufs[i].name, name))
			return i;
	return -1;
}

/* Parses one case.txt line into c; false (with c->why) if it makes no sense. */
static bool parse_line(Case *c, char *line)
{
	char w[4][64];
	int n = sscanf(line, "%63s %63s %63s %63s", w[0], w[1], w[2], w[3]);
	if (n <= 0 || w[0][0] == '#') {
		if (n > 0 && !c->desc[0])
			snprintf(c->desc, sizeof c->desc, "%s", line + 2);
		return true;
	}
	if (!strcmp(w[0], "kernel") && n == 2) {
		snprintf(c->kernel, sizeof c->kernel, "%s", w[1]);
	} else if (!strcmp(w[0], "grid") && n == 4) {
		for (int i = 0; i < 3; i++)
			c->grid[i] = (unsigned)strtoul(w[1 + i], NULL, 10);
	} else if (!strcmp(w[0], "warps") && n >= 2) {
		c->warps = atoi(w[1]);
	} else if (!strcmp(w[0], "define") && n == 3 && c->ndefs < MAXDEF) {
		snprintf(c->defname[c->ndefs], sizeof c->defname[0], "%.31s", w[1]);
		c->defs[c->ndefs] = (tilec_define){c->defname[c->ndefs], atoll(w[2])};
		c->ndefs++;
	} else if (!strcmp(w[0], "buffer") && c->nbufs < MAXBUF) {
		char mode[16];
		Buf *b = &c->bufs[c->nbufs];
		if (sscanf(line, "buffer %31s %63s %zu %15s", b->name, w[1], &b->n, mode) != 4)
			return false;
		int dt = 0;
		while (dt < NDT && strcmp(dt_names[dt], w[1]))
			dt++;
		b->dt = (Dt)dt;
		b->mode = !strcmp(mode, "in") ? IN : !strcmp(mode, "out") ? OUT : INOUT;
		if (dt == NDT || (b->mode == INOUT && strcmp(mode, "inout")))
			return false;
		c->nbufs++;
	} else if (!strcmp(w[0], "arg") && n >= 3 && c->nargs < MAXARG) {
		Arg *a = &c->args[c->nargs++];
		a->kind = !strcmp(w[1], "buffer") ? 'b' : !strcmp(w[1], "i32") ? 'i' : !strcmp(w[1], "f32") ? 'f' : 0;
		if (a->kind == 'b' && (a->buf = find_buf(c, w[2])) < 0)
			return false;
		a->i = atoll(w[2]);
		a->f = atof(w[2]);
		return a->kind != 0;
	} else {
		return false;
	}
	return true;
}

static bool load_case(Case *c, const char *root, const char *name)
{
	memset(c, 0, sizeof *c);
	snprintf(c->name, sizeof c->name, "%s", name);
	snprintf(c->dir, sizeof c->dir, "%s/%s", root, name);
	snprintf(c->file, sizeof c->file, "%s/kernel.tile", c->dir);
	c->grid[0] = c->grid[1] = c->grid[2] = 1;
	char *text = slurp(c->dir, "case.txt", NULL);
	c->src = slurp(c->dir, "kernel.tile", NULL);
	if (!text || !c->src) {
		fail(c, "cannot read %s/case.txt and kernel.tile", c->dir);
		free(text);
		return false;
	}
	char *save;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!parse_line(c, line)) {
			fail(c, "case.txt: cannot read \"%s\"", line);
			break;
		}
	free(text);
	for (int i = 0; i < c->nbufs && !c->failed; i++) {
		Buf *b = &c->bufs[i];
		if (b->mode != OUT)
			b->init = buffer_file(c, b, "bin", b->n * dt_size[b->dt]);
		if (b->mode != IN) {
			b->want = buffer_file(c, b, "want", b->n * 8);
			b->tol = buffer_file(c, b, "tol", b->n * 8);
		}
	}
	return !c->failed;
}

static void free_case(Case *c)
{
	for (int i = 0; i < c->nbufs; i++) {
		Buf *b = &c->bufs[i];
		free(b->init), free(b->want), free(b->tol), free(b->res[0]), free(b->res[1]);
	}
	free(c->src);
}

/* ---- elements ---- */

static bool is_float(Dt t)
{
	return t <= F64;
}

/* Poison: floats all ones (a NaN), integers the low bytes of 0xDEADBEEFDEADBEEF. */
static void poison(const Buf *b, void *p)
{
	static const unsigned char ones[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
	static const unsigned char dead[8] = {0xEF, 0xBE, 0xAD, 0xDE, 0xEF, 0xBE, 0xAD, 0xDE};
	size_t sz = dt_size[b->dt];
	for (size_t i = 0; i < b->n; i++)
		memcpy((char *)p + i * sz, is_float(b->dt) ? ones : dead, sz);
}

/* An output's starting contents: poison, or the INOUT buffer's initial data. */
static void *fresh_output(const Buf *b)
{
	void *p = xmalloc(b->n * dt_size[b->dt]);
	if (b->mode == OUT)
		poison(b, p);
	else
		memcpy(p, b->init, b->n * dt_size[b->dt]);
	return p;
}

static double value_at(const Buf *b, const void *p, size_t i)
{
	const char *q = (const char *)p + dt_size[b->dt] * i;
	union { float f; double d; uint16_t h; int8_t i8; int16_t i16; int32_t i32; int64_t i64; } u;
	memcpy(&u, q, dt_size[b->dt]);
	switch (b->dt) {
	case F32: return u.f;
	case F16: return ref_f16_to_f32(u.h);
	case BF16: return ref_bf16_to_f32(u.h);
	case F64: return u.d;
	case I8: return u.i8;
	case I16: return u.i16;
	case I32: return u.i32;
	default: return (double)u.i64;
	}
}

static bool is_poison(const Buf *b, const void *p, size_t i)
{
	unsigned char want[8];
	size_t sz = dt_size[b->dt];
	poison(&(Buf){.dt = b->dt, .n = 1}, want);
	return memcmp((const char *)p + sz * i, want, sz) == 0;
}

/* Element i for a message: its value, or that it still holds the poison. */
static const char *show(const Buf *b, const void *p, size_t i, char *buf, size_t n)
{
	if (is_poison(b, p, i))
		snprintf(buf, n, "poison (never written)");
	else
		snprintf(buf, n, "%.9g", value_at(b, p, i));
	return buf;
}

/* Each output of `who` against want and tol; the first bad element goes into c->why. */
static void check_outputs(Case *c, int who)
{
	const char *name = who ? "GPU" : "interpreter";
	for (int k = 0; k < c->nbufs; k++) {
		const Buf *b = &c->bufs[k];
		if (b->mode == IN || !b->res[who])
			continue;
		size_t bad = 0, first = 0;
		for (size_t i = 0; i < b->n; i++) {
			double t = b->tol[i];
			bool ok;
			if (t < 0) {
				ok = is_poison(b, b->res[who], i);
			} else {
				double g = value_at(b, b->res[who], i), e = fabs(g - b->want[i]);
				ok = g == b->want[i] || e <= t;
				if (ok && t > 0 && e / t > c->worst)
					c->worst = e / t;
			}
			if (!ok && bad++ == 0)
				first = i;
		}
		if (bad) {
			char got[64];
			if (b->tol[first] < 0)
				fail(c, "%s %s[%zu] = %s, want it untouched (poison); %zu of %zu elements wrong", name, b->name,
				     first, show(b, b->res[who], first, got, sizeof got), bad, b->n);
			else
				fail(c, "%s %s[%zu] = %s, want %.9g (tolerance %.3g); %zu of %zu elements wrong", name, b->name,
				     first, show(b, b->res[who], first, got, sizeof got), b->want[first], b->tol[first], bad,
				     b->n);
		}
	}
}

/* GPU and interpreter within tol of each other, equal where tol is 0, poison where it is negative. */
static void check_agree(Case *c)
{
	for (int k = 0; k < c->nbufs; k++) {
		const Buf *b = &c->bufs[k];
		if (b->mode == IN || !b->res[0] || !b->res[1])
			continue;
		for (size_t i = 0; i < b->n; i++) {
			double t = b->tol[i], g = value_at(b, b->res[1], i), w = value_at(b, b->res[0], i);
			bool ok = t < 0 ? is_poison(b, b->res[0], i) == is_poison(b, b->res[1], i) : g == w || fabs(g - w) <= t;
			if (!ok) {
				char s1[64], s2[64];
				fail(c, "%s[%zu]: GPU %s, interpreter %s (tolerance %.3g)", b->name, i,
				     show(b, b->res[1], i, s1, sizeof s1), show(b, b->res[0], i, s2, sizeof s2), t);
				return;
			}
		}
	}
}

/* ---- running ---- */

static bool run_interp(Case *c)
{
	Define defs[MAXDEF];
	for (int i = 0; i < c->ndefs; i++)
		defs[i] = (Define){.name = c->defs[i].name, .value = c->defs[i].value};
	Compilation *comp = compilation_new(c->file, c->src, strlen(c->src));
	CompileOptions o = {.kernel = c->kernel, .defines = defs, .ndefines = c->ndefs, .num_warps = c->warps,
	                    .emit = EMIT_IR, .opt = opt0 ? 0 : 1, .nowarn = true};
	Interp *it = NULL;
	bool ok = false;
	if (compile_kernel(comp, &o) != 0) {
		fail(c, "interpreter compile: %s", comp->diag.out.s ? comp->diag.out.s : "failed");
		goto out;
	}
	it = interp_new(comp->func, c->file);
	uint64_t addr[MAXBUF];
	for (int i = 0; i < c->nbufs; i++) {
		Buf *b = &c->bufs[i];
		void *p = b->init;
		if (b->mode != IN)
			p = b->res[0] = fresh_output(b);
		addr[i] = interp_buffer(it, p, b->n * dt_size[b->dt]);
	}
	InterpArg args[MAXARG];
	for (int i = 0; i < c->nargs; i++) {
		const Arg *a = &c->args[i];
		if (a->kind == 'b')
			args[i].ptr = addr[a->buf];
		else if (a->kind == 'i')
			args[i].i = a->i;
		else
			args[i].f = (double)(float)a->f;
	}
	int grid[3] = {(int)c->grid[0], (int)c->grid[1], (int)c->grid[2]};
	if (interp_run(it, args, c->nargs, grid) != 0) {
		fail(c, "interpreter: %s", interp_error(it));
		goto out;
	}
	ok = true;
out:
	interp_free(it);
	compilation_free(comp);
	return ok;
}

static bool run_gpu(Case *c)
{
	tilec_options o = {.defines = c->defs, .ndefines = c->ndefs, .num_warps = c->warps, .arch = arch,
	                   .source_name = c->file};
	tilec_kernel *k = NULL;
	unsigned long long dev[MAXBUF] = {0};
	bool ok = false;
	if (tilec_compile(ctx, c->src, c->kernel, &o, &k) != TILEC_OK) {
		fail(c, "GPU compile: %s", tilec_context_error(ctx));
		goto out;
	}
	for (int i = 0; i < c->nbufs; i++) {
		Buf *b = &c->bufs[i];
		size_t bytes = b->n * dt_size[b->dt];
		void *p = b->init;
		if (b->mode != IN)
			p = b->res[1] = fresh_output(b);
		if (tilec_malloc(ctx, bytes, &dev[i]) != TILEC_OK || tilec_memcpy_htod(ctx, dev[i], p, bytes) != TILEC_OK)
			goto cuda_error;
	}
	tilec_arg args[MAXARG];
	for (int i = 0; i < c->nargs; i++) {
		const Arg *a = &c->args[i];
		args[i] = a->kind == 'b' ? tilec_ptr(dev[a->buf]) : a->kind == 'i' ? tilec_i32((int32_t)a->i)
		        : tilec_f32((float)a->f);
	}
	if (tilec_launch(k, c->grid[0], c->grid[1], c->grid[2], NULL, args, c->nargs) != TILEC_OK ||
	    tilec_synchronize(ctx) != TILEC_OK)
		goto cuda_error;
	for (int i = 0; i < c->nbufs; i++) {
		Buf *b = &c->bufs[i];
		if (b->mode != IN && tilec_memcpy_dtoh(ctx, b->res[1], dev[i], b->n * dt_size[b->dt]) != TILEC_OK)
			goto cuda_error;
	}
	ok = true;
	goto out;
cuda_error:
	fail(c, "GPU: %s", tilec_context_error(ctx));
out:
	for (int i = 0; i < c->nbufs; i++)
		if (dev[i])
			tilec_free(ctx, dev[i]);
	tilec_kernel_destroy(k);
	return ok;
}

/* ---- driver ---- */

static int npassed, nfailed;
static double t_interp, t_gpu;

static void run_case(const char *root, const char *name)
{
	Case *c = xmalloc(sizeof *c);
	if (load_case(c, root, name)) {
		double t0 = seconds();
		if (run_interp(c))
			check_outputs(c, 0);
		double t1 = seconds();
		t_interp += t1 - t0;
		if (gpu) {
			if (run_gpu(c)) {
				check_outputs(c, 1);
				check_agree(c);
			}
			t_gpu += seconds() - t1;
		}
	}
	if (c->failed) {
		nfailed++;
		printf("FAIL %s %s (%s): %s\n", c->name, c->kernel, c->desc, c->why);
		printf("     kernel: %s\n", c->file);
	} else {
		npassed++;
		printf("PASS %s %s (%s): worst %.2f of tolerance%s\n", c->name, c->kernel, c->desc, c->worst,
		       gpu ? ", GPU and interpreter agree" : "");
	}
	fflush(stdout);
	free_case(c);
	free(c);
}

static void say_no_gpu(const char *why)
{
	printf("diff_test: ******************************************************************\n"
	       "diff_test: THE GPU HALF IS SKIPPED: %s\n"
	       "diff_test: only the interpreter runs, checked against the generator's reference\n"
	       "diff_test: ******************************************************************\n", why);
}

int main(int argc, char **argv)
{
	const char *dir = NULL, *only = NULL;
	bool interp_only = false, require_gpu = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--interp-only"))
			interp_only = true;
		else if (!strcmp(argv[i], "--require-gpu"))
			require_gpu = true;
		else if (!strcmp(argv[i], "--O0"))
			opt0 = true;
		else if (!strcmp(argv[i], "--arch") && i + 1 < argc)
			arch = argv[++i];
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
		else if (argv[i][0] != '-' && !dir)
			dir = argv[i];
		else
			dir = NULL, argc = 0;
	}
	if (!dir) {
		fprintf(stderr, "usage: diff_test [--interp-only] [--require-gpu] [--arch SM] [--O0] [--only NAME] DIR\n");
		return 2;
	}
	char *index = slurp(dir, "index.txt", NULL);
	if (!index) {
		fprintf(stderr, "diff_test: cannot read %s/index.txt (make the cases with tests/diff/gen.py)\n", dir);
		return 2;
	}
	gpu = !interp_only;
	if (gpu && tilec_context_create(0, &ctx) != TILEC_OK) {
		char why[512];
		snprintf(why, sizeof why, "no GPU (%s)", tilec_context_error(ctx));
		tilec_context_destroy(ctx);
		ctx = NULL;
		gpu = false;
		say_no_gpu(why);
		if (require_gpu) {
			free(index);
			return 1;
		}
	} else if (!gpu) {
		say_no_gpu("--interp-only");
	}
	printf("diff_test: cases in %s, interpreter at -O%d%s\n", dir, opt0 ? 0 : 1, gpu ? ", GPU through the JIT" : "");
	double t0 = seconds();
	char *save;
	for (char *name = strtok_r(index, "\n", &save); name; name = strtok_r(NULL, "\n", &save))
		if (*name && (!only || !strcmp(name, only)))
			run_case(dir, name);
	free(index);
	tilec_context_destroy(ctx);
	printf("diff_test: %d passed, %d failed in %.1f s (interpreter %.1f s, GPU %.1f s)%s\n", npassed, nfailed,
	       seconds() - t0, t_interp, t_gpu, gpu ? "" : "; GPU HALF SKIPPED");
	return nfailed ? 1 : 0;
}
