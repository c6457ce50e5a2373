/*
 * ir_test.c: the IR core through its C API.  Builds a kernel with the
 * builder (scalars, tiles, a for loop with loop-carried values, an if),
 * prints it, parses the text back and compares, runs the verifier on the
 * good IR and on broken copies, and runs the generic passes on builder IR.
 * Each check prints what it saw when it fails; exit 1 after any failure.
 */
#include "compile.h"
#include "ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/check.h"

static char *print(Func *f)
{
	StrBuf b = {0};
	ir_print(&b, f);
	return b.s;
}

/* Parses text; returns NULL and keeps the diagnostic in *err on a user error. */
static Func *parse(Arena *a, const char *text, char **err)
{
	Source src = {"test.ir", text, strlen(text)};
	Diag d = {0};
	jmp_buf jb;
	d.src = &src;
	d.jmp = &jb;
	*err = NULL;
	if (setjmp(jb)) {
		*err = d.out.s;
		return NULL;
	}
	Func *f = ir_parse(a, &d, &src);
	sb_free(&d.out);
	return f;
}

static void test_types(void)
{
	char buf[64];
	int32_t s2[] = {64, 32};
	CHECK_STR(type_str(type_scalar(TY_I32), buf, sizeof buf), "i32");
	CHECK_STR(type_str(type_ptr(TY_F32), buf, sizeof buf), "*f32");
	CHECK_STR(type_str(type_tensor(TY_F32, 1, s2), buf, sizeof buf), "tensor<64xf32>");
	Type tp = type_with_elem(type_tensor(TY_F32, 2, s2), TY_PTR);
	tp.pointee = TY_F16;
	CHECK_STR(type_str(tp, buf, sizeof buf), "tensor<64x32x*f16>");
	CHECK(elem_from_name("bf16", 4) == TY_BF16);
	CHECK(elem_from_name("i1", 2) == TY_I1);
	CHECK(elem_from_name("f3", 2) == TY_VOID);
	CHECK(elem_bytes(TY_PTR) == 8 && elem_bytes(TY_I1) == 1 && elem_bytes(TY_F16) == 2);
	CHECK(type_numel(type_tensor(TY_F32, 2, s2)) == 2048);
	CHECK(!type_eq(type_ptr(TY_F32), type_ptr(TY_F16)));
	CHECK(op_has(OP_ADD, F_COMMUT) && !op_has(OP_SUB, F_COMMUT) && op_has(OP_SUM, F_REDUCE));
	CHECK(strcmp(op_info[OP_RMAX].text, "reduce_max") == 0);
}

/*
 * row = program_id(0); cols = arange(0, 128); x = load(inp + cols, cols < n)
 * acc = for i in 0..n step 1 iter(a = 0.0) { yield a + sum(x) }
 * if row == 0 { store(out, acc) }
 */
static Func *build_kernel(Arena *a, Op **loop_out, Op **store_out)
{
	Func *f = ir_new_func(a, "k");
	Type pt[] = {type_ptr(TY_F32), type_ptr(TY_F32), type_scalar(TY_I32)};
	static const char *names[] = {"out", "inp", "n"};
	f->entry = ir_new_block(f, 3, pt);
	f->param_names = names;
	f->nparams = 3;
	ValId out = f->entry->args[0], inp = f->entry->args[1], n = f->entry->args[2];
	Builder b = {f, f->entry, NULL, {.line = 2, .col = 5}};
	int32_t s128[] = {128};
	Type ti = type_tensor(TY_I32, 1, s128), tf = type_tensor(TY_F32, 1, s128);
	Type tp = type_with_elem(tf, TY_PTR);
	tp.pointee = TY_F32;

	Op *pid = ir_new_op(f, OP_PROGRAM_ID, NULL, 0, &pt[2], 1, b.loc);
	ir_append(f->entry, pid);
	f->vals[pid->res[0]].name = "row";
	ValId row = pid->res[0];
	ValId cols = b_op1(&b, OP_ARANGE, ti, NULL, 0);
	f->entry->last->iattr[1] = 128;
	ValId nn = b_op1(&b, OP_SPLAT, ti, &n, 1);
	ValId m = b_op1(&b, OP_CMP, type_with_elem(ti, TY_I1), (ValId[]){cols, nn}, 2);
	f->entry->last->iattr[0] = CMP_LT;
	ValId pp = b_op1(&b, OP_SPLAT, tp, &inp, 1);
	ValId addr = b_op1(&b, OP_PTRADD, tp, (ValId[]){pp, cols}, 2);
	ValId x = b_op1(&b, OP_LOAD, tf, (ValId[]){addr, m}, 2);
	ValId lo = b_const_int(&b, TY_I32, 0), one = b_const_int(&b, TY_I32, 1);
	ValId zero = b_const_float(&b, TY_F32, 0.0);

	Type ft = type_scalar(TY_F32);
	Op *loop = ir_new_op(f, OP_FOR, (ValId[]){lo, n, one, zero}, 4, &ft, 1, b.loc);
	loop->blocks[0] = ir_new_block(f, 2, (Type[]){type_scalar(TY_I32), ft});
	loop->nblocks = 1;
	ir_append(f->entry, loop);
	Builder bb = {f, loop->blocks[0], NULL, {.line = 0}};
	ValId s = b_op1(&bb, OP_SUM, ft, &x, 1);
	ValId t = b_op1(&bb, OP_ADD, ft, (ValId[]){loop->blocks[0]->args[1], s}, 2);
	ir_append(loop->blocks[0], ir_new_op(f, OP_YIELD, &t, 1, NULL, 0, bb.loc));

	ValId z = b_const_int(&b, TY_I32, 0);
	ValId c = b_op1(&b, OP_CMP, type_scalar(TY_I1), (ValId[]){row, z}, 2);
	f->entry->last->iattr[0] = CMP_EQ;
	Op *iff = ir_new_op(f, OP_IF, &c, 1, NULL, 0, b.loc);
	iff->blocks[0] = ir_new_block(f, 0, NULL);
	iff->nblocks = 1;
	ir_append(f->entry, iff);
	Op *st = ir_new_op(f, OP_STORE, (ValId[]){out, loop->res[0]}, 2, NULL, 0, b.loc);
	ir_append(iff->blocks[0], st);
	ir_append(iff->blocks[0], ir_new_op(f, OP_YIELD, NULL, 0, NULL, 0, b.loc));
	*loop_out = loop;
	*store_out = st;
	return f;
}

static const char *kernel_text =
	"func @k(%out: *f32, %inp: *f32, %n: i32) num_warps=4 num_stages=3 {\n"
	"  %0 = program_id 0 : i32 loc(2:5)  // row\n"
	"  %1 = arange 0, 128 : tensor<128xi32> loc(2:5)\n"
	"  %2 = splat %n : tensor<128xi32> loc(2:5)\n"
	"  %3 = cmp lt %1, %2 : tensor<128xi1> loc(2:5)\n"
	"  %4 = splat %inp : tensor<128x*f32> loc(2:5)\n"
	"  %5 = ptradd %4, %1 : tensor<128x*f32> loc(2:5)\n"
	"  %6 = load %5, %3 : tensor<128xf32> loc(2:5)\n"
	"  %7 = const 0 : i32 loc(2:5)\n"
	"  %8 = const 1 : i32 loc(2:5)\n"
	"  %9 = const 0.0 : f32 loc(2:5)\n"
	"  %10 = for %11 = %7 to %n step %8 iter(%12 = %9) : f32 loc(2:5) {\n"
	"    %13 = sum %6 axis=0 : f32\n"
	"    %14 = add %12, %13 : f32\n"
	"    yield %14\n"
	"  }\n"
	"  %15 = const 0 : i32 loc(2:5)\n"
	"  %16 = cmp eq %0, %15 : i1 loc(2:5)\n"
	"  if %16 loc(2:5) {\n"
	"    store %out, %10 loc(2:5)\n"
	"    yield loc(2:5)\n"
	"  }\n"
	"}\n";

static void test_build_print_parse(void)
{
	Arena *a = arena_new();
	Op *loop, *st;
	Func *f = build_kernel(a, &loop, &st);
	CHECK(ir_verify(f) == NULL);
	char *text = print(f);
	CHECK_STR(text, kernel_text);
	char *err;
	Func *g = parse(a, text, &err);
	CHECK(g != NULL);
	if (g) {
		char *again = print(g);
		CHECK_STR(again, text);
		CHECK(g->nparams == 3 && strcmp(g->param_names[1], "inp") == 0);
		free(again);
	}
	ir_fill_uses(f);
	CHECK(f->vals[loop->res[0]].nuses == 1);
	CHECK(loop->blocks[0]->parent == loop && st->parent->parent != NULL);
	free(text);
	arena_free(a);
}

/* Break a fresh kernel in one way; the verifier must say what and where. */
static void test_verifier(void)
{
	Arena *a = arena_new();
	Op *loop, *st;
	const char *msg;
	Op *bad;

	Func *f = build_kernel(a, &loop, &st);
	st->opnds[1] = loop->blocks[0]->args[1]; /* a loop-body value used after the loop */
	msg = ir_verify_at(f, &bad);
	CHECK_HAS(msg, "'store %out, %12 loc(2:5)': operand 1 is used where its definition does not dominate");
	CHECK(bad == st);

	f = build_kernel(a, &loop, &st);
	ir_remove(loop->blocks[0]->last); /* the body loses its yield */
	CHECK_HAS(ir_verify(f), "region does not end in yield");

	f = build_kernel(a, &loop, &st);
	f->vals[loop->res[0]].type = type_scalar(TY_F16);
	CHECK_HAS(ir_verify(f), "iter value 0: init, body argument and result differ");

	f = build_kernel(a, &loop, &st);
	Op *sum = loop->blocks[0]->first;
	sum->iattr[0] = 1;
	CHECK_HAS(ir_verify(f), "axis 1 out of range for rank 1");

	f = build_kernel(a, &loop, &st);
	Op *y = ir_new_op(f, OP_YIELD, NULL, 0, NULL, 0, (Loc){.line = 0, .col = 0});
	ir_insert_before(st, y);
	CHECK_HAS(ir_verify(f), "'yield': terminator in the middle of a block");

	f = build_kernel(a, &loop, &st);
	ir_append(f->entry, ir_new_op(f, OP_YIELD, NULL, 0, NULL, 0, (Loc){.line = 0, .col = 0}));
	CHECK_HAS(ir_verify(f), "yield outside a region");
	arena_free(a);
}

static void test_parse_errors(void)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{"func @k(%x: f32) num_warps=4 {\n  %a = add %x, %x, %x : f32\n}\n",
		 "test.ir:2:3: error: '%0 = add %x, %x, %x : f32': expects 2 operands, has 3"},
		{"func @k() {\n  %a = const 1 : i32\n", "test.ir:3:1: error: expected '}' before the end of the text"},
		{"func @k(%x: tensor<3xf32>) {\n}\n", "test.ir:1:20: error: tensor dimensions are 1 to 3 powers of two"},
		{"func @k(%x: i32) {\n  %a = cmp lt %x, %x : i1\n  %b = select %a, %x : i32\n}\n",
		 "test.ir:3:3: error: '%1 = select %0, %x : i32': expects 3 operands, has 2"},
	};
	Arena *a = arena_new();
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *err;
		CHECK(!parse(a, cases[i].text, &err));
		CHECK_HAS(err, cases[i].want);
		free(err);
	}
	arena_free(a);
}

/* The passes on builder IR: fold, canon, CSE and DCE leave the minimum. */
static void test_passes(void)
{
	Arena *a = arena_new();
	Func *f = ir_new_func(a, "p");
	Type pt[] = {type_ptr(TY_F16), type_scalar(TY_F16)};
	f->entry = ir_new_block(f, 2, pt);
	ValId p = f->entry->args[0], x = f->entry->args[1];
	Builder b = {f, f->entry, NULL, {.line = 0}};
	Type h = type_scalar(TY_F16);
	ValId c1 = b_const_float(&b, TY_F16, 1.0), c2 = b_const_float(&b, TY_F16, 1.0 / 3);
	ValId q = b_op1(&b, OP_ADD, h, (ValId[]){c1, c2}, 2);   /* folds to f16(4/3) */
	ValId y = b_op1(&b, OP_MUL, h, (ValId[]){c1, x}, 2);    /* canon: x */
	ValId y2 = b_op1(&b, OP_MUL, h, (ValId[]){x, c1}, 2);   /* canon: x */
	ValId s = b_op1(&b, OP_ADD, h, (ValId[]){y, y2}, 2);    /* add x, x */
	ValId s2 = b_op1(&b, OP_ADD, h, (ValId[]){y2, y}, 2);   /* CSE: the same */
	ValId r = b_op1(&b, OP_MUL, h, (ValId[]){s, s2}, 2);
	ValId r2 = b_op1(&b, OP_ADD, h, (ValId[]){r, q}, 2);
	b_op1(&b, OP_EXP, h, &r2, 1);                            /* DCE: unused */
	ir_append(f->entry, ir_new_op(f, OP_STORE, (ValId[]){p, r2}, 2, NULL, 0, b.loc));
	pass_fold(f);
	pass_canon(f);
	pass_cse(f);
	pass_dce(f);
	CHECK(ir_verify(f) == NULL);
	char *text = print(f);
	CHECK_STR(text, "func @p(%0: *f16, %1: f16) num_warps=4 num_stages=3 {\n"
			"  %2 = const 1.3330078125 : f16\n"
			"  %3 = add %1, %1 : f16\n"
			"  %4 = mul %3, %3 : f16\n"
			"  %5 = add %4, %2 : f16\n"
			"  store %0, %5\n"
			"}\n");
	free(text);
	arena_free(a);
}

int main(void)
{
	test_types();
	test_build_print_parse();
	test_verifier();
	test_parse_errors();
	test_passes();
	return check_summary("ir_test");
}
