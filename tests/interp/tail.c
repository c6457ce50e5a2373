/*
 * tail.c: loops that passes/tail.c splits (the full blocks without their
 * bounds mask, then the partial block), run at opt 0 and opt 1, compared
 * bit for bit with each other and exactly with a C reference (small
 * integers: every sum is exact).  The masked lanes read 0 but add 1 where
 * the mask were wrongly true (where(m, x + 1, 0)), so a full-block loop that
 * ran the partial block would show.  Covers zero-trip and one-trip loops,
 * lengths on and off the block, a lower bound above 0 and one above the
 * upper bound, bounds whose difference overflows i32 (the split point is
 * computed in i64), a 2-D mask and'ed with a row mask (attention's form),
 * loops nested in a split loop, and constant bounds (the mask made true in
 * place).  test_fires checks that the pass does split each kernel.
 */
#include "run.h"

static const char *src =
	"kernel sum1(out: *f32, x: *f32, lo: i32, n: i32, B: const i32 = 16) {\n"
	"    var s = zeros([B], f32);\n"
	"    for j in range(lo, n, B) {\n"
	"        let cols = j + arange(0, B);\n"
	"        let m = cols < n;\n"
	"        s += where(m, load(x + cols, m, 0.0) + 1.0, 0.0);\n"
	"    }\n"
	"    store(out, sum(s, 0));\n"
	"}\n"
	"kernel rows(out: *f32, x: *f32, r: i32, n: i32, R: const i32 = 8, B: const i32 = 16) {\n"
	"    let rr = arange(0, R);\n"
	"    var s = zeros([R, B], f32);\n"
	"    for j in range(0, n, B) {\n"
	"        let cols = j + arange(0, B);\n"
	"        let m = rr[:, None] < r && cols[None, :] < n;\n"
	"        let v = load(x + rr[:, None] * n + cols[None, :], m, 0.0);\n"
	"        s += where(cols[None, :] < n, v + 1.0, 0.0);\n"
	"    }\n"
	"    store(out + rr, sum(s, 1));\n"
	"}\n"
	"kernel nest(out: *f32, x: *f32, n: i32, k: i32, B: const i32 = 16) {\n"
	"    var s = zeros([B], f32);\n"
	"    for j in range(0, n, B) {\n"
	"        let cols = j + arange(0, B);\n"
	"        for i in range(0, k, B) {\n"
	"            let c2 = i + arange(0, B);\n"
	"            s += where(c2 < k, load(x + c2, c2 < k, 0.0) + 1.0, 0.0);\n"
	"        }\n"
	"        s += where(cols < n, load(x + cols, cols < n, 0.0) + 1.0, 0.0);\n"
	"    }\n"
	"    store(out, sum(s, 0));\n"
	"}\n"
	"kernel fixed(out: *f32, x: *f32, B: const i32 = 16) {\n"
	"    var s = zeros([B], f32);\n"
	"    for j in range(0, 64, B) {\n"
	"        let cols = j + arange(0, B);\n"
	"        s += where(cols < 64, load(x + cols) + 1.0, 0.0);\n"
	"    }\n"
	"    store(out, sum(s, 0));\n"
	"}\n";

enum { B = 16, R = 8 };

/* Runs `kernel` at opt 0 and 1 into out[0], out[1] (nout floats each, poisoned first) and checks them. */
static void run_check(const char *label, const char *kernel, KArg *args, int nargs, const double *want, int nout)
{
	float *out[2] = {malloc((size_t)nout * 4), malloc((size_t)nout * 4)};
	char l[128];
	for (int opt = 0; opt < 2; opt++) {
		ref_poison_f32(out[opt], (size_t)nout);
		args[0] = kbuf(out[opt], (size_t)nout * 4);
		snprintf(l, sizeof l, "%s opt=%d", label, opt);
		if (CHECKF(run_text("tail.tile", src, kernel, NULL, 0, opt, args, nargs, 1, 1, 1) == 0, "%s: %s", l,
		           run_error))
			check_f32(l, out[opt], want, (size_t)nout, 0, 0);
	}
	check_same(label, out[0], out[1], (size_t)nout * 4);
	free(out[0]), free(out[1]);
}

static void test_sum1(int lo, int n)
{
	int len = n > 0 ? n : 1;
	float *x = ints_f32(len, 3);
	double want = 0;
	for (int64_t j = lo; j < n; j += B)
		for (int64_t i = j; i < j + B; i++)
			want += i < n ? x[i] + 1.0 : 0;
	KArg a[] = {{0}, kbuf(x, (size_t)len * 4), kint(lo), kint(n)};
	char l[64];
	snprintf(l, sizeof l, "sum1 lo=%d n=%d", lo, n);
	run_check(l, "sum1", a, 4, &want, 1);
	free(x);
}

static void test_rows(int r, int n)
{
	int len = R * (n > 0 ? n : 1);
	float *x = ints_f32(len, 5);
	double want[R] = {0};
	for (int i = 0; i < R; i++)
		for (int j = 0; j < n; j += B)
			for (int c = j; c < j + B && c < n; c++)
				want[i] += (i < r ? x[i * n + c] : 0) + 1.0;
	KArg a[] = {{0}, kbuf(x, (size_t)len * 4), kint(r), kint(n)};
	char l[64];
	snprintf(l, sizeof l, "rows r=%d n=%d", r, n);
	run_check(l, "rows", a, 4, want, R);
	free(x);
}

static void test_nest(int n, int k)
{
	int len = (n > k ? n : k) > 0 ? (n > k ? n : k) : 1;
	float *x = ints_f32(len, 7);
	double inner = 0, want = 0;
	for (int i = 0; i < k; i++)
		inner += x[i] + 1.0;
	for (int j = 0; j < n; j += B) {
		want += inner;
		for (int c = j; c < j + B && c < n; c++)
			want += x[c] + 1.0;
	}
	KArg a[] = {{0}, kbuf(x, (size_t)len * 4), kint(n), kint(k)};
	char l[64];
	snprintf(l, sizeof l, "nest n=%d k=%d", n, k);
	run_check(l, "nest", a, 4, &want, 1);
	free(x);
}

static void test_fixed(void)
{
	float *x = ints_f32(64, 9);
	double want = 0;
	for (int i = 0; i < 64; i++)
		want += x[i] + 1.0;
	KArg a[] = {{0}, kbuf(x, 64 * 4)};
	run_check("fixed", "fixed", a, 2, &want, 1);
	free(x);
}

/* Loops (tail loops) in b, nested ones included. */
static void count_loops(Block *b, int *loops, int *tails)
{
	for (Op *op = b->first; op; op = op->next) {
		if (op->code == OP_FOR)
			++*loops, *tails += op->iattr[0] != 0;
		for (int k = 0; k < op->nblocks; k++)
			if (op->blocks[k])
				count_loops(op->blocks[k], loops, tails);
	}
}

/* After the passes: `loops` loops, `tails` of them tail loops, and (clean) no select left in the first loop. */
static void test_fires(const char *kernel, int want_loops, int want_tails, bool clean)
{
	Compilation *c = compilation_new("tail.tile", src, strlen(src));
	CompileOptions o = {0};
	o.kernel = kernel;
	o.emit = EMIT_IR;
	o.opt = 1;
	o.num_stages = 1; /* no prefetch */
	o.verify_each = true;
	if (CHECKF(compile_kernel(c, &o) == 0, "%s: %s", kernel, c->diag.out.s ? c->diag.out.s : "")) {
		int loops = 0, tails = 0, selects = 0;
		count_loops(c->func->entry, &loops, &tails);
		Op *first = NULL;
		for (Op *op = c->func->entry->first; op && !first; op = op->next)
			first = op->code == OP_FOR ? op : NULL;
		for (Op *op = first ? first->blocks[0]->first : NULL; op; op = op->next)
			selects += op->code == OP_SELECT;
		CHECKF(loops == want_loops && tails == want_tails, "%s: %d loops, %d tail loops; want %d, %d", kernel,
		       loops, tails, want_loops, want_tails);
		CHECKF(!clean || selects == 0, "%s: %d selects left in the full-block loop", kernel, selects);
	}
	compilation_free(c);
}

int main(void)
{
	int ns[] = {0, 1, 15, 16, 17, 100, 256};
	for (int i = 0; i < 7; i++) {
		test_sum1(0, ns[i]);
		test_sum1(5, ns[i]);
		test_rows(3, ns[i]);
		test_rows(R, ns[i]);
	}
	test_sum1(40, 17);                          /* lo above hi: nothing runs */
	test_sum1(2147483600, -2147483610);         /* hi - lo wraps in i32: still nothing */
	test_nest(0, 5);
	test_nest(17, 0);
	test_nest(40, 33);
	test_nest(32, 16);
	test_fixed();
	/* the outer loop of nest has a tail loop inside (the inner one, split first): not split again */
	test_fires("sum1", 2, 1, true);
	test_fires("rows", 2, 1, true);
	test_fires("nest", 3, 1, false);
	test_fires("fixed", 1, 0, true);
	return check_summary("tail");
}
