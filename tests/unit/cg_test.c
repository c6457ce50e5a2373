/*
 * cg_test.c: codegen (compiler/codegen/) without a GPU.
 *
 * The target table and its errors; PTX and LLVM text for every architecture;
 * compiles from several threads at once (LLVM is initialised once, errors
 * are per thread); and, on IR built by hand with layouts and shared-memory
 * offsets chosen here, the three ways cg_dot stages its operands through
 * shared memory (counted by the barriers in the LLVM IR).
 */
#define _POSIX_C_SOURCE 200809L
#include "compile.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/check.h"


static int count(const char *s, const char *needle)
{
	int n = 0;
	for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static const char vector_add[] =
	"kernel vector_add(x: *f32, y: *f32, out: *f32, n: i32, BLOCK: const i32 = 1024) {\n"
	"    let offs = program_id(0) * BLOCK + arange(0, BLOCK);\n"
	"    let mask = offs < n;\n"
	"    store(out + offs, load(x + offs, mask) + load(y + offs, mask), mask);\n"
	"}\n";

/* Compiles src; returns the output text (malloc'ed) or NULL, with the diagnostics in *diag. */
static char *compile(const char *src, const char *arch, EmitKind emit, const char *hints, char **diag)
{
	Compilation *c = compilation_new("t.tile", src, strlen(src));
	CompileOptions o = {.arch = arch, .emit = emit, .opt = 1, .div_hints = hints};
	char *out = NULL;
	if (compile_kernel(c, &o) == 0)
		out = strdup(c->out.s ? c->out.s : "");
	if (diag)
		*diag = strdup(c->diag.out.s ? c->diag.out.s : "");
	compilation_free(c);
	return out;
}

static void test_targets(void)
{
	const char *ok[] = {"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"};
	for (int i = 0; i < 5; i++)
		CHECK(cg_arch_valid(ok[i]));
	CHECK(!cg_arch_valid("sm_75"));
	CHECK(!cg_arch_valid(""));
	CHECK(!cg_arch_valid("sm_900"));
	CHECK(cg_target_smem_limit("sm_90") == 232448);
	CHECK(cg_target_smem_limit("sm_90a") == 232448);
	CHECK(cg_target_smem_limit("sm_80") == 166912);
	CHECK(cg_target_smem_limit("sm_86") == 101376);
	CHECK(cg_target_smem_limit("sm_89") == 101376);
	CHECK(cg_target_smem_limit("sm_75") == 0);
}

static void test_ptx_per_arch(void)
{
	const char *arch[] = {"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"};
	const char *version[] = {".version 7.8", ".version 7.8", ".version 7.8", ".version 8.0", ".version 8.0"};
	for (int i = 0; i < 5; i++) {
		char target[32];
		snprintf(target, sizeof target, ".target %s\n", arch[i]);
		char *ptx = compile(vector_add, arch[i], EMIT_PTX, "n=16", NULL);
		CHECK(ptx && strstr(ptx, target) && strstr(ptx, version[i]));
		CHECK(ptx && count(ptx, "ld.global.v4.b32") == 4 && count(ptx, "st.global.v4.b32") == 2);
		CHECK(ptx && !strstr(ptx, ".local"));
		free(ptx);
	}
	char *ll = compile(vector_add, "sm_80", EMIT_LLVM, NULL, NULL);
	CHECK(ll && strstr(ll, "define ptx_kernel void @vector_add(ptr addrspace(1)"));
	CHECK(ll && strstr(ll, "!\"reqntidx\", i32 128}"));
	free(ll);
}

/* cg_emit itself rejects an unknown architecture with the supported list. */
static void test_unknown_arch(void)
{
	Compilation *c = compilation_new("t.tile", vector_add, strlen(vector_add));
	CompileOptions o = {.emit = EMIT_GPU_IR, .opt = 1};
	CHECK(compile_kernel(c, &o) == 0);
	jmp_buf jb;
	c->diag.jmp = &jb;
	StrBuf out = {0};
	bool raised = false;
	if (setjmp(jb))
		raised = true;
	else
		cg_emit(c->func, "sm_75", EMIT_PTX, true, "t.tile", &out, &c->diag);
	c->diag.jmp = NULL;
	CHECK(raised);
	CHECK(c->diag.out.s && strstr(c->diag.out.s, "unknown --arch 'sm_75'; supported: sm_80 sm_86 sm_89 sm_90 sm_90a"));
	CHECK(out.len == 0);
	sb_free(&out);
	compilation_free(c);
}

static const char softmax[] =
	"kernel softmax(out: *f32, inp: *f32, stride: i32, n: i32, BLOCK: const i32 = 1024) {\n"
	"    let cols = arange(0, BLOCK);\n"
	"    let mask = cols < n;\n"
	"    let x = load(inp + program_id(0) * stride + cols, mask, -inf);\n"
	"    let e = exp(x - max(x, 0));\n"
	"    store(out + program_id(0) * stride + cols, e / sum(e, 0), mask);\n"
	"}\n";

static void *compile_thread(void *arg)
{
	return compile(softmax, arg, EMIT_PTX, "n=16", NULL);
}

static void test_threads(void)
{
	char *serial = compile(softmax, "sm_90", EMIT_PTX, "n=16", NULL);
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		CHECK(pthread_create(&t[i], NULL, compile_thread, (void *)"sm_90") == 0);
	for (int i = 0; i < 4; i++) {
		void *r = NULL;
		pthread_join(t[i], &r);
		CHECK(r && serial && strcmp(r, serial) == 0);
		free(r);
	}
	CHECK(serial && count(serial, "shfl.sync.bfly.b32") == 10 && strstr(serial, "ex2.approx.ftz.f32"));
	free(serial);
}

/* ---- a dot on hand-built IR ---- */

static ValId with_layout(Func *f, ValId v, int layout)
{
	val(f, v)->layout = layout;
	return v;
}

/*
 * c[0] += every element of dot(convert(a), convert(b), 0) for 16x16 f32
 * tiles, with both converts given offset 0 (as a planner that sees scratch
 * live only during its op does) and f->smem_total as given.
 */
static Func *dot_func(Arena *ar, int32_t smem_total, int32_t off_b)
{
	Func *f = ir_new_func(ar, "dot16");
	Type pt = type_ptr(TY_F32);
	f->entry = ir_new_block(f, 1, &pt);
	f->nparams = 1;
	f->param_names = NEWN(ar, const char *, 1);
	f->param_names[0] = "c";
	int32_t shape[2] = {16, 16};
	Layout lc = layout_blocked(2, shape, 4, 1);
	Layout la = layout_dot_a(&lc, 16), lb = layout_dot_b(&lc, 16);
	int ic = layout_add(f, &lc), ia = layout_add(f, &la), ib = layout_add(f, &lb);
	Builder b = {f, f->entry, NULL, {.line = 1, .col = 1}};
	Type tt = type_tensor(TY_F32, 2, shape), tp = type_tensor(TY_PTR, 2, shape);
	tp.pointee = TY_F32;
	ValId one = b_const_float(&b, TY_F32, 1.0), zero = b_const_float(&b, TY_F32, 0.0);
	ValId a = with_layout(f, b_op1(&b, OP_SPLAT, tt, &one, 1), ic);
	ValId bb = with_layout(f, b_op1(&b, OP_SPLAT, tt, &one, 1), ic);
	ValId acc = with_layout(f, b_op1(&b, OP_SPLAT, tt, &zero, 1), ic);
	ValId ca = with_layout(f, b_op1(&b, OP_CONVERT_LAYOUT, tt, &a, 1), ia);
	ValId cb = with_layout(f, b_op1(&b, OP_CONVERT_LAYOUT, tt, &bb, 1), ib);
	Op *opa = val(f, ca)->def, *opb = val(f, cb)->def;
	opa->smem_offset = 0;
	opb->smem_offset = off_b;
	opa->smem_bytes = opb->smem_bytes = 1024;
	ValId ops[3] = {ca, cb, acc};
	ValId d = with_layout(f, b_op1(&b, OP_DOT, tt, ops, 3), ic);
	ValId ptr = with_layout(f, b_op1(&b, OP_SPLAT, tp, &f->entry->args[0], 1), ic);
	ValId st[2] = {ptr, d};
	with_layout(f, b_op1(&b, OP_ATOMIC, tt, st, 2), ic);
	f->smem_total = smem_total;
	return f;
}

static int dot_barriers(int32_t smem_total, int32_t off_b)
{
	Arena *ar = arena_new();
	Func *f = dot_func(ar, smem_total, off_b);
	Diag d = {0};
	StrBuf out = {0};
	int n = -1;
	if (cg_emit(f, "sm_90", EMIT_LLVM, false, "dot16.tile", &out, &d) == 0 && out.s) {
		n = count(out.s, "call void @llvm.nvvm.barrier0()");
		CHECK(strstr(out.s, "@llvm.fmuladd.f32") || strstr(out.s, "@llvm.fma.f32"));
	}
	sb_free(&out);
	sb_free(&d.out);
	arena_free(ar);
	return n;
}

static void test_dot_staging(void)
{
	/* the planner kept the buffers apart: both written between one pair of barriers */
	CHECK(dot_barriers(2048, 1024) == 2);
	/* same offset, room for both: placed side by side, one pair of barriers */
	CHECK(dot_barriers(2048, 0) == 2);
	/* same offset, room for one: `a` goes through registers first */
	CHECK(dot_barriers(1024, 0) == 4);
}

int main(void)
{
	test_targets();
	test_ptx_per_arch();
	test_unknown_arch();
	test_threads();
	test_dot_staging();
	return check_summary("cg_test");
}
