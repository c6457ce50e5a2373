/*
 * cg_reuse_test.c: codegen reuses its LLVM TargetMachines (cg_main.c keeps
 * idle ones in a pool), and reuse must not show in the output.
 *
 * The same softmax compiled again gives byte-identical PTX; compiles for
 * sm_80 and sm_90 interleaved each get their own architecture's machine; four
 * threads compiling at once give what one thread gives.  It also prints the
 * codegen time of the first compile and the median of later ones (what a JIT
 * compiling many variants sees); the times are not checked.
 */
#define _POSIX_C_SOURCE 200809L
#include "compile.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/check.h"


static const char softmax[] =
	"kernel softmax(out: *f32, inp: *f32, stride: i32, n: i32, BLOCK: const i32 = 1024) {\n"
	"    let row  = program_id(0);\n"
	"    let cols = arange(0, BLOCK);\n"
	"    let mask = cols < n;\n"
	"    let x    = load(inp + row * stride + cols, mask, -inf);\n"
	"    let num  = exp(x - max(x, 0));\n"
	"    let den  = sum(num, 0);\n"
	"    store(out + row * stride + cols, num / den, mask);\n"
	"}\n";

/* The PTX for arch (malloc'ed, NULL on error); *ms gets the codegen time. */
static char *compile(const char *arch, double *ms)
{
	Compilation *c = compilation_new("softmax.tile", softmax, strlen(softmax));
	CompileOptions o = {.arch = arch, .emit = EMIT_PTX, .opt = 1, .lineinfo = true,
	                    .div_hints = "n=16,stride=16"};
	char *out = NULL;
	if (compile_kernel(c, &o) == 0 && c->out.s)
		out = strdup(c->out.s);
	if (ms)
		*ms = c->ms_codegen;
	compilation_free(c);
	return out;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static char *ref90, *ref80;

static void test_repeat(void)
{
	enum { N = 9 };
	double first, later[N];
	ref90 = compile("sm_90", &first);
	ref80 = compile("sm_80", NULL);
	CHECK(ref90 && ref80);
	if (!ref90 || !ref80)
		return;
	CHECK(strstr(ref90, ".target sm_90") != NULL);
	CHECK(strstr(ref80, ".target sm_80") != NULL);
	for (int i = 0; i < N; i++) {
		const char *arch = i % 2 ? "sm_80" : "sm_90";
		char *p = compile(arch, &later[i]);
		CHECK(p && strcmp(p, i % 2 ? ref80 : ref90) == 0);
		free(p);
	}
	qsort(later, N, sizeof later[0], cmp_double);
	printf("softmax codegen: first %.2f ms, later median %.2f ms\n", first, later[N / 2]);
}

static void *compile_thread(void *arg)
{
	int bad = 0;
	for (int i = 0; i < 3; i++) {
		bool is90 = ((intptr_t)arg + i) % 2 == 0;
		char *p = compile(is90 ? "sm_90" : "sm_80", NULL);
		bad += !p || strcmp(p, is90 ? ref90 : ref80) != 0;
		free(p);
	}
	return (void *)(intptr_t)bad;
}

static void test_threads(void)
{
	pthread_t t[4];
	for (intptr_t i = 0; i < 4; i++)
		CHECK(pthread_create(&t[i], NULL, compile_thread, (void *)i) == 0);
	for (int i = 0; i < 4; i++) {
		void *r;
		pthread_join(t[i], &r);
		CHECK(r == NULL);
	}
}

int main(void)
{
	test_repeat();
	if (ref90 && ref80)
		test_threads();
	free(ref90);
	free(ref80);
	return check_summary("cg_reuse_test");
}
