/*
 * layout_test.c: the layout math of compiler/layout.c, checked by brute
 * force over every (register, lane, warp) of small and large layouts, and
 * the axis analysis (passes/axis.c) on kernels compiled to GPU IR.
 * Each check prints what it saw when it fails; the program exits 1 after
 * any failure and prints a one-line summary either way.
 */
#include "compile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/check.h"

/* One check: the first n columns are want; names the first that is not. */
static void check_cols(const uint32_t *got, const uint32_t *want, int n, int line)
{
	int i = 0;
	while (i < n && got[i] == want[i])
		i++;
	check_at(i == n, __FILE__, line, "column %d is %u, want %u", i, i < n ? got[i] : 0, i < n ? want[i] : 0);
}
#define CHECK_COLS(g, ...)                                                                    \
	do {                                                                                  \
		uint32_t w_[] = {__VA_ARGS__};                                                \
		check_cols((g), w_, (int)(sizeof w_ / sizeof w_[0]), __LINE__);               \
	} while (0)

static uint32_t zero_mask(const uint32_t *cols, int n)
{
	uint32_t m = 0;
	for (int i = 0; i < n; i++)
		if (!cols[i])
			m |= 1u << i;
	return m;
}

static int64_t numel(const Layout *l)
{
	int64_t n = 1;
	for (int d = 0; d < l->rank; d++)
		n *= l->shape[d];
	return n;
}

/*
 * Every element is held exactly once by the canonical (register, lane,
 * warp) triples, those whose duplicate bits (zero columns) are clear.
 */
static bool covers_once(const Layout *l)
{
	int64_t n = numel(l);
	unsigned char *seen = calloc((size_t)n, 1);
	uint32_t zr = zero_mask(l->reg, l->nreg), zl = zero_mask(l->lane, l->nlane),
	         zw = zero_mask(l->warp, l->nwarp);
	bool ok = true;
	for (uint32_t w = 0; w < 1u << l->nwarp; w++)
		for (uint32_t ln = 0; ln < 1u << l->nlane; ln++)
			for (uint32_t r = 0; r < 1u << l->nreg; r++) {
				if ((r & zr) || (ln & zl) || (w & zw))
					continue;
				uint32_t x = layout_apply(l, r, ln, w);
				if (x >= n || seen[x]++)
					ok = false;
			}
	for (int64_t i = 0; i < n; i++)
		ok &= seen[i] == 1;
	free(seen);
	return ok;
}

static Layout blocked2(int m, int n, int warps, int vec)
{
	int32_t s[2] = {m, n};
	return layout_blocked(2, s, warps, vec);
}

static void test_blocked_1d(void)
{
	int32_t s = 1024;
	Layout l = layout_blocked(1, &s, 4, 4);
	CHECK(l.nreg == 3 && l.nlane == 5 && l.nwarp == 2);
	CHECK_COLS(l.reg, 1, 2, 512);
	CHECK_COLS(l.lane, 4, 8, 16, 32, 64);
	CHECK_COLS(l.warp, 128, 256);
	CHECK(covers_once(&l));
	/* smaller than the CTA: lanes and warps past the tile hold copies */
	s = 16;
	l = layout_blocked(1, &s, 4, 4);
	CHECK_COLS(l.reg, 1, 2);
	CHECK_COLS(l.lane, 4, 8, 0, 0, 0);
	CHECK_COLS(l.warp, 0, 0);
	CHECK(covers_once(&l));
	/* vec larger than the dim is capped by it */
	s = 2;
	l = layout_blocked(1, &s, 1, 8);
	CHECK(l.nreg == 1 && l.reg[0] == 1 && l.lane[0] == 0);
}

static void test_blocked_2d(void)
{
	/* [64, 64], 4 warps, vec 4, as drawn in layout.c */
	Layout l = blocked2(64, 64, 4, 4);
	CHECK_COLS(l.reg, 1, 2, 8 << 6, 16 << 6, 32 << 6);
	CHECK_COLS(l.lane, 4, 8, 16, 32, 1 << 6);
	CHECK_COLS(l.warp, 2 << 6, 4 << 6);
	/* every shape and warp count: each element exactly once */
	int dims[] = {1, 2, 4, 16, 32, 128, 256};
	int warps[] = {1, 2, 4, 8};
	int vecs[] = {1, 4, 8};
	bool all = true;
	for (int i = 0; i < 7; i++)
		for (int j = 0; j < 7; j++)
			for (int w = 0; w < 4; w++)
				for (int v = 0; v < 3; v++) {
					int vec = vecs[v] > dims[j] ? dims[j] : vecs[v];
					Layout b = blocked2(dims[i], dims[j], warps[w], vec);
					if (!covers_once(&b)) {
						fprintf(stderr, "blocked [%d,%d] w%d v%d\n", dims[i], dims[j], warps[w], vec);
						all = false;
					}
				}
	CHECK(all);
	int32_t s3[3] = {4, 8, 64};
	Layout l3 = layout_blocked(3, s3, 8, 4);
	CHECK(covers_once(&l3));
}

/* (m, n) of a flat index over [M, N]. */
static uint32_t row(uint32_t x, int N) { return x / (uint32_t)N; }
static uint32_t col(uint32_t x, int N) { return x % (uint32_t)N; }

/* A register k | r << kb holds A[m, k] and B[k, n] for the C element (m, n) of register r. */
static bool dot_identity(int M, int N, int K, int warps)
{
	Layout c = blocked2(M, N, warps, 4);
	Layout a = layout_dot_a(&c, K), b = layout_dot_b(&c, K);
	int kb = ilog2((uint64_t)K);
	if (a.shape[0] != M || a.shape[1] != K || b.shape[0] != K || b.shape[1] != N)
		return false;
	for (uint32_t w = 0; w < 1u << c.nwarp; w++)
		for (uint32_t l = 0; l < 32; l++)
			for (uint32_t r = 0; r < 1u << c.nreg; r++) {
				uint32_t x = layout_apply(&c, r, l, w);
				uint32_t m = row(x, N), n = col(x, N);
				for (uint32_t k = 0; k < (uint32_t)K; k++) {
					if (layout_apply(&a, k | r << kb, l, w) != m * (uint32_t)K + k)
						return false;
					if (layout_apply(&b, k | r << kb, l, w) != k * (uint32_t)N + n)
						return false;
				}
			}
	return true;
}

static void test_dot(void)
{
	CHECK(dot_identity(16, 16, 16, 1));
	CHECK(dot_identity(64, 32, 16, 4));
	CHECK(dot_identity(128, 64, 32, 8));
	CHECK(dot_identity(32, 128, 64, 2));
}

/* For every (r, l, w): f(apply(derived)) relates to apply(base) as `rel` says. */
enum { SLICE_ROWS, SLICE_COLS, UNB_ROWS, UNB_COLS, TRANS };
static bool shape_rule(const Layout *base, const Layout *derived, int rel)
{
	int M = base->shape[0], N = base->shape[1];
	if (base->nreg != derived->nreg || base->nwarp != derived->nwarp)
		return false;
	for (uint32_t w = 0; w < 1u << base->nwarp; w++)
		for (uint32_t l = 0; l < 32; l++)
			for (uint32_t r = 0; r < 1u << base->nreg; r++) {
				uint32_t x = layout_apply(base, r, l, w), y = layout_apply(derived, r, l, w);
				uint32_t m = row(x, N), n = col(x, N), want = 0;
				switch (rel) {
				case SLICE_ROWS: /* sum over axis 1 keeps m */
				case UNB_ROWS:   /* [M,1] source keeps m */
					want = m;
					break;
				case SLICE_COLS:
				case UNB_COLS:
					want = n;
					break;
				case TRANS:
					want = n * (uint32_t)M + m;
					break;
				}
				if (y != want)
					return false;
			}
	return true;
}

static void test_shape_ops(void)
{
	Layout l = blocked2(64, 128, 4, 4);
	Layout s1 = layout_slice(&l, 1), s0 = layout_slice(&l, 0);
	CHECK(s1.rank == 1 && s1.shape[0] == 64 && s0.shape[0] == 128);
	CHECK(shape_rule(&l, &s1, SLICE_ROWS));
	CHECK(shape_rule(&l, &s0, SLICE_COLS));
	int32_t col1[2] = {64, 1}, row1[2] = {1, 128};
	Layout u1 = layout_unbroadcast(&l, col1), u0 = layout_unbroadcast(&l, row1);
	CHECK(u1.shape[0] == 64 && u1.shape[1] == 1 && u0.shape[0] == 1 && u0.shape[1] == 128);
	CHECK(shape_rule(&l, &u1, UNB_ROWS));
	CHECK(shape_rule(&l, &u0, UNB_COLS));
	/* the broadcast source and the sliced-then-expanded reduction result agree */
	Layout e = layout_expand(&s1, 1);
	CHECK(layout_eq(&e, &u1));
	Layout q = layout_squeeze(&e, 1);
	CHECK(layout_eq(&q, &s1));
	Layout t = layout_trans(&l);
	CHECK(t.shape[0] == 128 && t.shape[1] == 64);
	CHECK(shape_rule(&l, &t, TRANS));
	Layout tt = layout_trans(&t);
	CHECK(layout_eq(&tt, &l));
	CHECK(covers_once(&t));
}

static void test_intern_and_text(void)
{
	Arena *a = arena_new();
	Func *f = ir_new_func(a, "k");
	Layout x = blocked2(16, 16, 1, 4), y = blocked2(16, 16, 2, 4);
	int i = layout_add(f, &x), j = layout_add(f, &y), k = layout_add(f, &x);
	CHECK(i == 0 && j == 1 && k == 0 && f->nlayouts == 2);
	CHECK(!layout_eq(&x, &y));
	StrBuf s = {0};
	int32_t n = 16;
	Layout z = layout_blocked(1, &n, 1, 4);
	layout_str(&s, &z);
	CHECK(s.s && !strcmp(s.s, "linear<16 reg=[1,2] lane=[4,8,0,0,0] warp=[]>"));
	s.len = 0;
	Layout w = blocked2(2, 8, 2, 4);
	layout_str(&s, &w);
	CHECK(s.s && !strcmp(s.s, "linear<2x8 reg=[[0,1],[0,2]] lane=[[0,4],[1,0],[0,0],[0,0],[0,0]] warp=[[0,0]]>"));
	sb_free(&s);
	arena_free(a);
}

/* ---- the GPU contract, checked on whole kernels after the GPU passes ---- */

typedef struct Contract {
	const char *kernel;
	int bad;
} Contract;

static void violation(Contract *k, Op *op, const char *what)
{
	if (k->bad++ < 5)
		fprintf(stderr, "%s: %s at %d:%d: %s\n", k->kernel, op_info[op->code].text, op->loc.line, op->loc.col,
		        what);
}

static const Layout *lay_of(Func *f, ValId v)
{
	int i = val(f, v)->layout;
	return i >= 0 ? &f->layouts[i] : NULL;
}

/* Tensors have a layout of their shape, scalars none. */
static bool well_laid(Func *f, ValId v)
{
	Type t = vtype(f, v);
	const Layout *l = lay_of(f, v);
	if (t.rank == 0)
		return l == NULL;
	if (!l || l->rank != t.rank)
		return false;
	for (int d = 0; d < t.rank; d++)
		if (l->shape[d] != t.shape[d])
			return false;
	return true;
}

static bool same(Func *f, ValId a, ValId b)
{
	return val(f, a)->layout == val(f, b)->layout;
}

static bool same_cols(const Layout *a, const Layout *b)
{
	Layout x = *a;
	x.rank = b->rank;
	memcpy(x.shape, b->shape, sizeof x.shape);
	return layout_eq(&x, b);
}

static void check_region(Contract *k, Func *f, Op *op)
{
	for (int b = 0; b < op->nblocks; b++) {
		Op *y = op->blocks[b] ? op->blocks[b]->last : NULL;
		for (int i = 0; i < op->nres; i++) {
			if (op->code == OP_FOR && !(same(f, op->res[i], op->blocks[0]->args[i + 1]) &&
			                            same(f, op->res[i], op->opnds[3 + i])))
				violation(k, op, "loop result, iter arg and init differ");
			if (y && y->code == OP_YIELD && !same(f, op->res[i], y->opnds[i]))
				violation(k, op, "result and yield differ");
		}
	}
}

static void check_op(Func *f, Op *op, void *ctx)
{
	Contract *k = ctx;
	for (int i = 0; i < op->nres; i++)
		if (!well_laid(f, op->res[i]))
			violation(k, op, "result layout does not fit its type");
	for (int b = 0; b < op->nblocks; b++)
		for (int i = 0; op->blocks[b] && i < op->blocks[b]->nargs; i++)
			if (!well_laid(f, op->blocks[b]->args[i]))
				violation(k, op, "block argument layout does not fit its type");
	if (op->nblocks) {
		check_region(k, f, op);
		return;
	}
	ValId r = op->nres ? op->res[0] : 0, s = op->nopnds ? op->opnds[0] : 0;
	if (op_has(op->code, F_ELTWISE)) {
		for (int i = 0; i < op->nopnds; i++)
			if (!same(f, op->opnds[i], r))
				violation(k, op, "element-wise operand in another layout");
	} else if (op->code == OP_LOAD || op->code == OP_STORE || op->code == OP_ATOMIC) {
		for (int i = 1; i < op->nopnds; i++)
			if (!same(f, op->opnds[i], s))
				violation(k, op, "memory operands in different layouts");
		if (r && !same(f, r, s))
			violation(k, op, "loaded value not in the pointer's layout");
	} else if (op->code == OP_EXPAND_DIMS) {
		if (!same_cols(lay_of(f, s), lay_of(f, r)))
			violation(k, op, "expand_dims changes columns");
	} else if (op->code == OP_BROADCAST) {
		Layout u = layout_unbroadcast(lay_of(f, r), vtype(f, s).shape);
		if (!layout_eq(&u, lay_of(f, s)))
			violation(k, op, "broadcast source is not the result minus the stretched dims");
	} else if (op->code == OP_TRANS) {
		Layout t = layout_trans(lay_of(f, s));
		if (!layout_eq(&t, lay_of(f, r)))
			violation(k, op, "trans does not swap fields");
	} else if (op_has(op->code, F_REDUCE) && vtype(f, s).rank > 1) {
		Layout sl = layout_slice(lay_of(f, s), (int)op->iattr[0]);
		if (!layout_eq(&sl, lay_of(f, r)))
			violation(k, op, "reduction result is not the source's slice");
	} else if (op->code == OP_DOT) {
		const Layout *c = lay_of(f, r);
		int K = vtype(f, s).shape[1];
		Layout a = layout_dot_a(c, K), b = layout_dot_b(c, K);
		MmaKind kind = layout_mma_kind(f, op);
		if (kind != MMA_NONE) { /* tensor cores: layout_mma.c */
			a = layout_mma_operand(kind, c, K, 0);
			b = layout_mma_operand(kind, c, K, 1);
		}
		if (!same(f, op->opnds[2], r) || !layout_eq(&a, lay_of(f, s)) || !layout_eq(&b, lay_of(f, op->opnds[1])))
			violation(k, op, "dot operands not in dot_a/dot_b of the accumulator");
	}
}

/* Compiles src (a file's text, with define d if given) to GPU IR and checks every rule codegen relies on. */
static void check_contract(const char *name, const char *src, int num_warps, const Define *d)
{
	Compilation *c = compilation_new(name, src, strlen(src));
	CompileOptions o = {0};
	o.emit = EMIT_GPU_IR;
	o.opt = 1;
	o.num_warps = num_warps;
	o.defines = d;
	o.ndefines = d != NULL;
	int rc = compile_kernel(c, &o);
	Contract k = {name, 0};
	if (rc == 0)
		ir_walk(c->func, check_op, &k);
	CHECKF(rc == 0 && k.bad == 0, "%s (num_warps %d): %s", name, num_warps,
	       rc ? (c->diag.out.s ? c->diag.out.s : "compile failed") : "layout contract broken (above)");
	compilation_free(c);
}

static const char *mixed_kernel =
	"kernel k(x: *f32, y: *f32, z: *i32, h: *f16, n: i32, flag: i32) {\n"
	"    let r = arange(0, 64)[:, None] * 32 + arange(0, 32)[None, :];\n"
	"    var t = load(x + r);\n"
	"    if flag > 0 { t = t * 2.0; } else { t = trans(load(x + trans(r))); }\n"
	"    var acc = zeros([64], f32);\n"
	"    for i in range(0, n) { acc = acc + sum(t, 1); }\n"
	"    store(y + arange(0, 64), acc);\n"
	"    store(z + arange(0, 32), argmax(t, 0));\n"
	"    let q = arange(0, 4)[:, None, None] * 256 + arange(0, 8)[None, :, None] * 32\n"
	"          + arange(0, 32)[None, None, :];\n"
	"    store(y + arange(0, 4)[:, None] * 8 + arange(0, 8)[None, :], sum(load(x + q), 2));\n"
	"    store(h + r, cast(t - max(t, 0)[None, :], f16), r < n);\n"
	"    atomic_add(y + r, t, r < n);\n"
	"}\n";

static void test_contract(void)
{
	/* matmul_f32 with TF32, matmul_i8 and linear_i8 take the tf32 and int8 mma fragments */
	const char *files[] = {"layernorm",        "matmul",     "matmul_relu", "linear",     "mean",     "softmax",
	                       "softmax_backward", "vector_add", "matmul_f32",  "matmul_f32", "matmul_i8", "linear_i8",
	                       "layernorm_backward"};
	static const Define tf32 = {.name = "TF32", .value = 1, .kind = DEF_BOOL};
	for (int i = 0; i < (int)(sizeof files / sizeof files[0]); i++) {
		char path[512];
		snprintf(path, sizeof path, "%s/dsl_examples/%s.tile", TILEC_SOURCE_DIR, files[i]);
		size_t len;
		char *text = read_file(path, &len);
		if (!CHECKF(text != NULL, "cannot read %s", path))
			continue;
		for (int w = 1; w <= 8; w *= 2)
			check_contract(path, text, w, i == 9 ? &tf32 : NULL);
		free(text);
	}
	for (int w = 1; w <= 16; w *= 2)
		check_contract("mixed.tile", mixed_kernel, w, NULL);
}

/* ---- axis analysis on compiled kernels ---- */

static Compilation *compile(const char *src, const char *hints)
{
	Compilation *c = compilation_new("axis.tile", src, strlen(src));
	CompileOptions o = {0};
	o.emit = EMIT_GPU_IR;
	o.opt = 1;
	o.div_hints = hints;
	int rc = compile_kernel(c, &o);
	CHECKF(rc == 0, "%s", c->diag.out.s ? c->diag.out.s : "compile failed");
	return c;
}

/* The n-th op with this code in program order (top level and nested). */
typedef struct Find {
	int code, n;
	Op *op;
} Find;
static void find_op(Func *f, Op *op, void *ctx)
{
	Find *x = ctx;
	(void)f;
	if ((int)op->code == x->code && x->n-- == 0)
		x->op = op;
}
static Op *nth(Func *f, int code, int n)
{
	Find x = {code, n, NULL};
	ir_walk(f, find_op, &x);
	return x.op;
}

static void test_axis(void)
{
	const char *src = "kernel k(x: *f32, y: *f32, n: i32, stride: i32) {\n"
	                  "    let offs = program_id(0) * 1024 + arange(0, 1024);\n"
	                  "    let v = load(x + offs, offs < n);\n"
	                  "    let r = arange(0, 16)[:, None] * stride + arange(0, 64)[None, :];\n"
	                  "    store(y + offs, v, offs < n);\n"
	                  "    store(y + r, cast(r, f32), r < n);\n"
	                  "}\n";
	Compilation *c = compile(src, "n=16,stride=16");
	Func *f = c->func;
	Op *ld = nth(f, OP_LOAD, 0);
	CHECK(ld != NULL);
	if (ld) {
		Value *p = val(f, ld->opnds[0]), *m = val(f, ld->opnds[1]);
		CHECK(p->contig == 1024 && p->divis == 16);
		CHECK(m->constancy == 16);
	}
	Op *st = nth(f, OP_STORE, 1);
	CHECK(st != NULL);
	if (st) {
		/* r < n: runs of 64 consecutive values from multiples of 16, n a multiple of 16 */
		Value *p = val(f, st->opnds[0]), *m = val(f, st->opnds[2]);
		CHECK(p->contig == 64 && p->divis == 16);
		CHECK(m->constancy == 16);
	}
	compilation_free(c);
	/* without hints the row stride is unknown: the 2-D pointer is aligned to 4 bytes only */
	c = compile(src, NULL);
	st = nth(c->func, OP_STORE, 1);
	CHECK(st && val(c->func, st->opnds[0])->divis == 4 && val(c->func, st->opnds[0])->contig == 64);
	compilation_free(c);
}

/* Loop-carried pointers: the init joined with what the body yields. */
static void test_axis_loop(void)
{
	const char *src = "kernel k(x: *f32, y: *f32, n: i32) {\n"
	                  "    var p = x + arange(0, 256);\n"
	                  "    var q = x + arange(0, 256);\n"
	                  "    var acc = zeros([256], f32);\n"
	                  "    for i in range(0, n) {\n"
	                  "        acc += load(p) + load(q);\n"
	                  "        p = p + 256;\n"
	                  "        q = q + 1;\n"
	                  "    }\n"
	                  "    store(y + arange(0, 256), acc);\n"
	                  "}\n";
	Compilation *c = compile(src, NULL);
	/* loads 0 and 1 are the ones prefetch peels before the loop; 2 and 3 are in the body */
	Op *lp = nth(c->func, OP_LOAD, 2), *lq = nth(c->func, OP_LOAD, 3);
	CHECK(lp && val(c->func, lp->opnds[0])->contig == 256 && val(c->func, lp->opnds[0])->divis == 16);
	CHECK(lq && val(c->func, lq->opnds[0])->contig == 256 && val(c->func, lq->opnds[0])->divis == 4);
	compilation_free(c);
}

static void test_hint_errors(void)
{
	const char *src = "kernel k(x: *f32, n: i32) { store(x + arange(0, 16), 1.0, arange(0, 16) < n); }\n";
	const char *bad[] = {"m=16", "x=16", "n=3", "n", "n=16,,"};
	bool want_fail[] = {true, true, true, true, false};
	for (int i = 0; i < 5; i++) {
		Compilation *c = compilation_new("hints.tile", src, strlen(src));
		CompileOptions o = {0};
		o.emit = EMIT_GPU_IR;
		o.opt = 1;
		o.div_hints = bad[i];
		int rc = compile_kernel(c, &o);
		CHECKF((rc != 0) == want_fail[i], "hints '%s': rc %d: %s", bad[i], rc,
		       c->diag.out.s ? c->diag.out.s : "");
		compilation_free(c);
	}
}

int main(void)
{
	test_blocked_1d();
	test_blocked_2d();
	test_dot();
	test_shape_ops();
	test_intern_and_text();
	test_contract();
	test_axis();
	test_axis_loop();
	test_hint_errors();
	return check_summary("layout_test");
}
