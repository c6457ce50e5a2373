/*
 * jit_test.c: the JIT API without a GPU.
 *
 * Context creation on a machine without the driver fails cleanly with
 * TILEC_ERROR_NO_DRIVER and a message; tilec_compile_ptx makes PTX with no
 * driver at all and reports source errors as file:line:col; NULL and bad
 * arguments give TILEC_ERROR_INVALID, never a crash; the launch-argument
 * check, the specialisation key and the arch choice behave.  Run under
 * ASan/LSan by `make test`, so every path here must also free everything.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "cuda_api.h"
#include "tilec.h"

#include "../util/check.h"

static char *example(const char *name)
{
	char path[512];
	snprintf(path, sizeof path, "%s/dsl_examples/%s", TILEC_SOURCE_DIR, name);
	size_t len;
	char *s = read_file(path, &len);
	if (!s)
		fprintf(stderr, "jit_test.c: cannot read %s\n", path);
	return s;
}

static void one_program(const tilec_config *c, void *user, unsigned g[3])
{
	(void)c, (void)user;
	g[0] = 1;
}

static void test_no_driver(void)
{
	tilec_context *ctx = NULL;
	tilec_status st = tilec_context_create(0, &ctx);
	if (st == TILEC_OK) {
		printf("SKIP: a CUDA driver is present; the no-driver checks did not run\n");
		tilec_context_destroy(ctx);
		return;
	}
	CHECK(ctx != NULL);
	const char *msg = tilec_context_error(ctx);
	if (st == TILEC_ERROR_NO_DRIVER && strstr(msg, "libcuda.so.1")) {
		CHECK_HAS(msg, "libcuda.so.1 could not be loaded (");
		CHECK_HAS(msg, "): no NVIDIA driver on this machine");
	} else {
		/* A driver without a usable device: also NO_DRIVER, named by cuInit. */
		CHECK(st == TILEC_ERROR_NO_DRIVER);
		CHECK_HAS(msg, "failed: CUDA_ERROR_");
	}
	/* Every later call on the failed context repeats its status and keeps its message. */
	tilec_kernel *k = (tilec_kernel *)1;
	CHECK(tilec_compile(ctx, "kernel k() {}", NULL, NULL, &k) == st);
	CHECK(k == NULL);
	unsigned long long p = 7;
	CHECK(tilec_malloc(ctx, 16, &p) == st);
	CHECK(tilec_synchronize(ctx) == st);
	tilec_config cfg = {0};
	tilec_tuning tu = {.configs = &cfg, .nconfigs = 1, .grid = one_program};
	k = (tilec_kernel *)1;
	CHECK(tilec_autotune(ctx, "kernel k() {}", NULL, NULL, &tu, NULL, 0, NULL, NULL, &k) == st);
	CHECK(k == NULL);
	CHECK(strcmp(tilec_context_error(ctx), msg) == 0);
	tilec_context_destroy(ctx);
	/* A second create goes through the same once-only loader. */
	CHECK(tilec_context_create(0, &ctx) == st);
	tilec_context_destroy(ctx);
}

static void test_compile_ptx(void)
{
	char *src = example("vector_add.tile");
	if (!src) {
		CHECK(!"dsl_examples/vector_add.tile is readable");
		return;
	}
	char *ptx = NULL, *log = NULL;
	tilec_define d[] = {{"BLOCK", 256}};
	tilec_options o = {.defines = d, .ndefines = 1, .arch = "sm_90", .source_name = "vector_add.tile"};
	tilec_status st = tilec_compile_ptx(src, "vector_add", &o, &ptx, &log);
	CHECK(st == TILEC_OK);
	if (st != TILEC_OK)
		fprintf(stderr, "vector_add: %s\n", log ? log : "(no log)");
	CHECK_HAS(ptx, ".visible .entry vector_add");
	CHECK_HAS(ptx, ".target sm_90");
	CHECK(log == NULL);
	tilec_free_string(ptx);
	tilec_free_string(log);

	/* Default options, first kernel, only the PTX wanted. */
	ptx = NULL;
	CHECK(tilec_compile_ptx(src, NULL, NULL, &ptx, NULL) == TILEC_OK);
	CHECK_HAS(ptx, ".visible .entry vector_add");
	tilec_free_string(ptx);
	/* Neither output wanted is fine too. */
	CHECK(tilec_compile_ptx(src, NULL, NULL, NULL, NULL) == TILEC_OK);
	free(src);
}

static void test_compile_errors(void)
{
	const char *broken =
		"kernel k(x: *f32, n: i32) {\n"
		"    let a = arange(0, 100);\n"
		"    store(x + a, 1.0);\n"
		"}\n";
	char *ptx = (char *)1, *log = NULL;
	tilec_options o = {.source_name = "broken.tile"};
	CHECK(tilec_compile_ptx(broken, NULL, &o, &ptx, &log) == TILEC_ERROR_COMPILE);
	CHECK(ptx == NULL);
	CHECK_HAS(log, "broken.tile:2:13: error: arange size 100 is not a power of two");
	tilec_free_string(log);

	/* Without a source name the diagnostics still have line:col. */
	log = NULL;
	CHECK(tilec_compile_ptx(broken, NULL, NULL, NULL, &log) == TILEC_ERROR_COMPILE);
	CHECK_HAS(log, "<source>:2:13: error:");
	tilec_free_string(log);

	/* A syntax error, an unknown kernel, a define of no parameter. */
	log = NULL;
	CHECK(tilec_compile_ptx("kernel k( {", NULL, NULL, NULL, &log) == TILEC_ERROR_COMPILE);
	CHECK_HAS(log, "<source>:1:");
	tilec_free_string(log);
	log = NULL;
	CHECK(tilec_compile_ptx(broken, "nope", NULL, NULL, &log) == TILEC_ERROR_COMPILE);
	CHECK_HAS(log, "kernel 'nope' not found");
	tilec_free_string(log);
	log = NULL;
	tilec_define d[] = {{"FOO", 3}};
	tilec_options od = {.defines = d, .ndefines = 1};
	CHECK(tilec_compile_ptx("kernel k(x: *f32) { store(x, 1.0); }", NULL, &od, NULL, &log) ==
	      TILEC_ERROR_COMPILE);
	CHECK_HAS(log, "no const parameter named 'FOO'");
	tilec_free_string(log);
	/* Defines are checked as -D values are: one that does not fit, or an i1 other than 0 or 1. */
	const char *consts = "kernel k(x: *f32, B: const i32 = 16, F: const i1 = false) { store(x, 1.0); }";
	tilec_define wide[] = {{"B", 4294967312LL}}, flag[] = {{"F", 2}};
	tilec_options ow = {.defines = wide, .ndefines = 1}, of = {.defines = flag, .ndefines = 1};
	log = NULL;
	CHECK(tilec_compile_ptx(consts, NULL, &ow, NULL, &log) == TILEC_ERROR_COMPILE);
	CHECK_HAS(log, "<source>:1:19: error: -D B: 4294967312 does not fit in i32");
	tilec_free_string(log);
	log = NULL;
	CHECK(tilec_compile_ptx(consts, NULL, &of, NULL, &log) == TILEC_ERROR_COMPILE);
	CHECK_HAS(log, "constexpr 'F' is i1, got 2");
	tilec_free_string(log);
}

static void test_invalid(void)
{
	char *log = NULL;
	CHECK(tilec_compile_ptx(NULL, NULL, NULL, NULL, &log) == TILEC_ERROR_INVALID);
	CHECK_HAS(log, "source is NULL");
	tilec_free_string(log);
	tilec_options bad = {.defines = NULL, .ndefines = 2};
	CHECK(tilec_compile_ptx("kernel k() {}", NULL, &bad, NULL, NULL) == TILEC_ERROR_INVALID);
	tilec_define nameless[] = {{NULL, 1}};
	tilec_options bad2 = {.defines = nameless, .ndefines = 1};
	CHECK(tilec_compile_ptx("kernel k() {}", NULL, &bad2, NULL, NULL) == TILEC_ERROR_INVALID);
	tilec_options bad3 = {.num_warps = -1};
	CHECK(tilec_compile_ptx("kernel k() {}", NULL, &bad3, NULL, NULL) == TILEC_ERROR_INVALID);
	tilec_options bad4 = {.num_warps = 3};
	CHECK(tilec_compile_ptx("kernel k() {}", NULL, &bad4, NULL, &log) == TILEC_ERROR_INVALID);
	CHECK_HAS(log, "power of two");
	tilec_free_string(log);
	tilec_options bad5 = {.num_warps = 64};
	CHECK(tilec_compile_ptx("kernel k() {}", NULL, &bad5, NULL, NULL) == TILEC_ERROR_INVALID);
	tilec_options bad6 = {.num_stages = 9};
	CHECK(tilec_compile_ptx("kernel k() {}", NULL, &bad6, NULL, &log) == TILEC_ERROR_INVALID);
	CHECK_HAS(log, "num_stages");
	tilec_free_string(log);

	CHECK(tilec_context_create(0, NULL) == TILEC_ERROR_INVALID);
	CHECK_HAS(tilec_context_error(NULL), "out is NULL");
	tilec_kernel *k = (tilec_kernel *)1;
	CHECK(tilec_compile(NULL, "kernel k() {}", NULL, NULL, &k) == TILEC_ERROR_INVALID);
	CHECK(k == NULL);
	CHECK_HAS(tilec_context_error(NULL), "context is NULL");
	CHECK(tilec_launch(NULL, 1, 1, 1, NULL, NULL, 0) == TILEC_ERROR_INVALID);
	k = (tilec_kernel *)1;
	CHECK(tilec_autotune(NULL, "kernel k() {}", NULL, NULL, NULL, NULL, 0, NULL, NULL, &k) == TILEC_ERROR_INVALID);
	CHECK(k == NULL);
	CHECK_HAS(tilec_context_error(NULL), "tilec_autotune: context is NULL");
	unsigned long long p;
	CHECK(tilec_malloc(NULL, 4, &p) == TILEC_ERROR_INVALID);
	CHECK(tilec_free(NULL, 0) == TILEC_ERROR_INVALID);
	CHECK(tilec_memcpy_htod(NULL, 0, NULL, 4) == TILEC_ERROR_INVALID);
	CHECK(tilec_memcpy_dtoh(NULL, NULL, 0, 4) == TILEC_ERROR_INVALID);
	CHECK(tilec_synchronize(NULL) == TILEC_ERROR_INVALID);
	CHECK(tilec_kernel_num_params(NULL) == -1);
	tilec_kernel_param_kind(NULL, 0);
	double ms[4] = {1, 1, 1, 1};
	tilec_kernel_compile_times(NULL, ms);
	CHECK(ms[0] == 0 && ms[3] == 0);
	tilec_kernel_compile_times(NULL, NULL);
	tilec_kernel_destroy(NULL);
	tilec_context_destroy(NULL);
	tilec_free_string(NULL);
	CHECK(tilec_context_error(NULL) != NULL);
}

/* softmax(out: *f32, inp: *f32, stride: i32, n: i32) as launch sees it. */
static const RtParam softmax_sig[] = {
	{"out", TILEC_ARG_PTR, TY_PTR},
	{"inp", TILEC_ARG_PTR, TY_PTR},
	{"stride", TILEC_ARG_I32, TY_I32},
	{"n", TILEC_ARG_I32, TY_I32},
};

static void test_check_args(void)
{
	char msg[256];
	tilec_arg ok[] = {tilec_ptr(0x7000), tilec_ptr(0x8000), tilec_i32(1024), tilec_i32(1000)};
	CHECK(rt_check_args("softmax", softmax_sig, 4, ok, 4, msg, sizeof msg) == TILEC_OK);

	CHECK(rt_check_args("softmax", softmax_sig, 4, ok, 3, msg, sizeof msg) == TILEC_ERROR_ARGS);
	CHECK_HAS(msg, "'softmax' takes 4 arguments (out, inp, stride, n), got 3");
	CHECK(rt_check_args("softmax", softmax_sig, 4, NULL, 4, msg, sizeof msg) == TILEC_ERROR_ARGS);
	CHECK_HAS(msg, "got 0");

	tilec_arg kind[] = {tilec_ptr(0x7000), tilec_ptr(0x8000), tilec_i32(1024), tilec_f32(1000)};
	CHECK(rt_check_args("softmax", softmax_sig, 4, kind, 4, msg, sizeof msg) == TILEC_ERROR_ARGS);
	CHECK_HAS(msg, "argument 4 of 'softmax' ('n') is i32, got f32");
	kind[3] = tilec_i64(1000);
	CHECK(rt_check_args("softmax", softmax_sig, 4, kind, 4, msg, sizeof msg) == TILEC_ERROR_ARGS);
	CHECK_HAS(msg, "argument 4 of 'softmax' ('n') is i32, got i64");
	tilec_arg ptr[] = {tilec_i32(5), tilec_ptr(0x8000), tilec_i32(1024), tilec_i32(1000)};
	CHECK(rt_check_args("softmax", softmax_sig, 4, ptr, 4, msg, sizeof msg) == TILEC_ERROR_ARGS);
	CHECK_HAS(msg, "argument 1 of 'softmax' ('out') is a pointer, got i32");
	tilec_arg junk[] = {tilec_ptr(0x7000), tilec_ptr(0x8000), tilec_i32(1024), tilec_i32(1)};
	junk[2].kind = (tilec_arg_kind)42;
	CHECK(rt_check_args("softmax", softmax_sig, 4, junk, 4, msg, sizeof msg) == TILEC_ERROR_ARGS);
	CHECK_HAS(msg, "('stride') is i32, got an invalid kind");

	tilec_arg misaligned[] = {tilec_ptr(0x7004), tilec_ptr(0x8000), tilec_i32(1024), tilec_i32(1)};
	CHECK(rt_check_args("softmax", softmax_sig, 4, misaligned, 4, msg, sizeof msg) == TILEC_ERROR_ARGS);
	CHECK_HAS(msg, "argument 1 of 'softmax' ('out') is not 16-byte aligned (0x7004)");

	/* Narrow types travel as i32 / f32 and say so. */
	RtParam narrow[] = {{"flag", TILEC_ARG_I32, TY_I1}, {"h", TILEC_ARG_F32, TY_F16}};
	tilec_arg na[] = {tilec_i32(1), tilec_f32(0.5f)};
	CHECK(rt_check_args("k", narrow, 2, na, 2, msg, sizeof msg) == TILEC_OK);
	na[1] = tilec_f64(0.5);
	CHECK(rt_check_args("k", narrow, 2, na, 2, msg, sizeof msg) == TILEC_ERROR_ARGS);
	CHECK_HAS(msg, "argument 2 of 'k' ('h') is f16 (passed as f32), got f64");

	/* No parameters; a tiny buffer truncates but does not overflow. */
	CHECK(rt_check_args("k", NULL, 0, NULL, 0, msg, sizeof msg) == TILEC_OK);
	char tiny[8];
	CHECK(rt_check_args("softmax", softmax_sig, 4, ok, 1, tiny, sizeof tiny) == TILEC_ERROR_ARGS);
	CHECK(strlen(tiny) == 7);
}

static void test_spec_key(void)
{
	char hints[64];
	tilec_arg a[] = {tilec_ptr(0x7000), tilec_ptr(0x8000), tilec_i32(1024), tilec_i32(1000)};
	CHECK(rt_spec_key(softmax_sig, 4, a, hints, sizeof hints) == 1ull << 4);
	CHECK(strcmp(hints, "stride=16") == 0);
	a[3] = tilec_i32(4096);
	CHECK(rt_spec_key(softmax_sig, 4, a, hints, sizeof hints) == ((1ull << 4) | (1ull << 6)));
	CHECK(strcmp(hints, "stride=16,n=16") == 0);
	a[2] = tilec_i32(1); /* equal to 1: its own bit and an "=1" hint */
	CHECK(rt_spec_key(softmax_sig, 4, a, hints, sizeof hints) == ((1ull << 5) | (1ull << 6)));
	CHECK(strcmp(hints, "stride=1,n=16") == 0);
	a[2] = tilec_i32(7);
	a[3] = tilec_i32(-3);
	CHECK(rt_spec_key(softmax_sig, 4, a, hints, sizeof hints) == 0);
	CHECK(hints[0] == 0);
	CHECK(rt_spec_key(softmax_sig, 4, a, NULL, 0) == 0);
	/* i64 counts; i16 and floats do not. */
	RtParam mixed[] = {{"big", TILEC_ARG_I64, TY_I64}, {"small", TILEC_ARG_I32, TY_I16},
	                   {"f", TILEC_ARG_F32, TY_F32}};
	tilec_arg m[] = {tilec_i64(1ll << 40), tilec_i32(32), tilec_f32(16.0f)};
	CHECK(rt_spec_key(mixed, 3, m, hints, sizeof hints) == 1u);
	CHECK(strcmp(hints, "big=16") == 0);
}

/* What tilec_autotune rejects before it compiles anything. */
static void test_tuning_check(void)
{
	int which = 7;
	tilec_define bm[] = {{"BM", 64}}, many[65];
	for (int i = 0; i < 65; i++)
		many[i] = (tilec_define){"X", i};
	tilec_config cfgs[] = {{.defines = bm, .ndefines = 1, .num_warps = 4}, {.num_warps = 8, .num_stages = 4}};
	tilec_tuning t = {.configs = cfgs, .nconfigs = 2, .grid = one_program};
	CHECK(rt_bad_tuning(NULL, &t, &which) == NULL && which == -1);
	CHECK_HAS(rt_bad_tuning(NULL, NULL, &which), "tuning is NULL");
	t.nconfigs = 0;
	CHECK_HAS(rt_bad_tuning(NULL, &t, &which), "nconfigs is not from 1 to 256");
	t.nconfigs = 257;
	CHECK_HAS(rt_bad_tuning(NULL, &t, &which), "nconfigs is not from 1 to 256");
	t.nconfigs = 2;
	t.grid = NULL;
	CHECK_HAS(rt_bad_tuning(NULL, &t, &which), "tuning: grid is NULL");
	t.grid = one_program;
	t.reps = -1;
	CHECK_HAS(rt_bad_tuning(NULL, &t, &which), "reps must not be negative");
	t.reps = 0;
	cfgs[1].num_warps = 3;
	CHECK_HAS(rt_bad_tuning(NULL, &t, &which), "power of two");
	CHECK(which == 1);
	cfgs[1].num_warps = 0;
	cfgs[1].num_stages = 9;
	CHECK_HAS(rt_bad_tuning(NULL, &t, &which), "num_stages");
	cfgs[1] = (tilec_config){.defines = NULL, .ndefines = 1};
	CHECK_HAS(rt_bad_tuning(NULL, &t, &which), "defines is NULL");
	cfgs[1] = (tilec_config){.defines = many, .ndefines = 65};
	CHECK_HAS(rt_bad_tuning(NULL, &t, &which), "from 0 to 64");
	tilec_define nameless[] = {{NULL, 1}};
	cfgs[1] = (tilec_config){.defines = nameless, .ndefines = 1};
	CHECK_HAS(rt_bad_tuning(NULL, &t, &which), "NULL name");
	CHECK(which == 1);
	/* the options are checked too, and a configuration's warps replace theirs */
	cfgs[1] = (tilec_config){.num_warps = 16};
	tilec_options o = {.num_warps = 3};
	CHECK_HAS(rt_bad_tuning(&o, &t, &which), "power of two");
	CHECK(which == -1);
	o.num_warps = 2;
	CHECK(rt_bad_tuning(&o, &t, &which) == NULL);
}

static void test_arch(void)
{
	CHECK(strcmp(rt_arch_for(9, 0), "sm_90a") == 0);
	CHECK(strcmp(rt_arch_for(10, 0), "sm_90") == 0);
	CHECK(strcmp(rt_arch_for(8, 9), "sm_89") == 0);
	CHECK(strcmp(rt_arch_for(8, 6), "sm_86") == 0);
	CHECK(strcmp(rt_arch_for(8, 7), "sm_86") == 0);
	CHECK(strcmp(rt_arch_for(8, 0), "sm_80") == 0);
	CHECK(rt_arch_for(7, 5) == NULL);
}

int main(void)
{
	test_no_driver();
	test_invalid();
	test_check_args();
	test_spec_key();
	test_tuning_check();
	test_arch();
	test_compile_errors();
	test_compile_ptx();
	return check_summary("jit_test");
}
