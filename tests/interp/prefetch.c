/*
 * prefetch.c: loops that passes/prefetch.c rewrites (loads issued one
 * iteration ahead), run at opt 0 and opt 1, compared bit for bit with each
 * other and exactly with a C reference (the data are small integers, so
 * every sum is exact).  Covers zero-trip and one-trip loops, a lower bound
 * above 0 and a step past the end, a masked tail with a non-zero `other`,
 * a load with no mask, two loads in one loop, a loop-carried pointer, an
 * address computed after the current tile is used, a gather through a
 * loaded index, scalar loads, f16 loads, nested loops, and a loop that
 * stores what its next iteration loads (which the pass must leave alone).  The interpreter
 * checks every unmasked access against its buffer, so a peeled or next-
 * iteration load that strays out of bounds fails the run.
 */
#include "run.h"

static const char *src =
	"kernel stride(out: *f32, x: *f32, n: i32, BLOCK: const i32 = 16) {\n"
	"    let cols = arange(0, BLOCK);\n"
	"    var s = zeros([BLOCK], f32);\n"
	"    var m = full([BLOCK], -inf, f32);\n"
	"    for start in range(program_id(0) * BLOCK, n, num_programs(0) * BLOCK) {\n"
	"        let offs = start + cols;\n"
	"        s += load(x + offs, offs < n);\n"
	"        m = maximum(m, load(x + offs, offs < n, -inf));\n"
	"    }\n"
	"    store(out + 2 * program_id(0), sum(s, 0));\n"
	"    store(out + 2 * program_id(0) + 1, max(m, 0));\n"
	"}\n"
	"kernel carried(out: *f32, x: *f32, m: i32, BLOCK: const i32 = 16) {\n"
	"    var p = x + arange(0, BLOCK);\n"
	"    var acc = zeros([BLOCK], f32);\n"
	"    for i in range(0, m) {\n"
	"        acc += load(p);\n"
	"        p = p + BLOCK;\n"
	"    }\n"
	"    store(out + arange(0, BLOCK), acc);\n"
	"}\n"
	"kernel late(out: *f32, x: *f32, m: i32, span: i32, BLOCK: const i32 = 16) {\n"
	"    let cols = arange(0, BLOCK);\n"
	"    var off = 0;\n"
	"    var acc = zeros([BLOCK], f32);\n"
	"    for i in range(0, m) {\n"
	"        acc = acc * 0.5 + load(x + off + cols);\n"
	"        off = (off + 3 * BLOCK + i) % span;\n"
	"    }\n"
	"    store(out + cols, acc);\n"
	"}\n"
	"kernel gather(out: *f32, x: *f32, idx: *i32, m: i32) {\n"
	"    var acc = 0.0;\n"
	"    for i in range(0, m) {\n"
	"        let j = load(idx + i);\n"
	"        acc = acc * 2.0 + load(x + j);\n"
	"    }\n"
	"    store(out, acc);\n"
	"}\n"
	"kernel halves(out: *f32, x: *f16, lo: i32, hi: i32, step: i32, BLOCK: const i32 = 16) {\n"
	"    let c = arange(0, BLOCK);\n"
	"    var acc = zeros([BLOCK], f32);\n"
	"    for i in range(lo, hi, step) {\n"
	"        acc = acc * 3.0 + cast(load(x + i + c, i + c < hi, 1.0), f32);\n"
	"    }\n"
	"    store(out + c, acc);\n"
	"}\n"
	"kernel nested(out: *f32, x: *f32, w: *f32, rows: i32, cols: i32, BLOCK: const i32 = 16) {\n"
	"    let c = arange(0, BLOCK);\n"
	"    var total = zeros([BLOCK], f32);\n"
	"    for r in range(0, rows) {\n"
	"        let s = load(w + r);\n"
	"        var acc = zeros([BLOCK], f32);\n"
	"        for k in range(0, cols, BLOCK) {\n"
	"            acc += load(x + r * cols + k + c, k + c < cols);\n"
	"        }\n"
	"        total += acc * s;\n"
	"    }\n"
	"    store(out + c, total);\n"
	"}\n"
	"kernel scan(out: *f32, x: *f32, m: i32) {\n"
	"    for i in range(0, m) {\n"
	"        store(x + i + 1, load(x + i) + load(x + i + 1));\n"
	"    }\n"
	"    store(out, load(x + m));\n"
	"}\n";

enum { B = 16 };

/* Runs `kernel` at opt 0 and 1 into out[0], out[1] (nout floats each, poisoned first). */
static void run_both(const char *kernel, KArg *args, int nargs, float *out[2], int nout, int grid)
{
	for (int opt = 0; opt < 2; opt++) {
		ref_poison_f32(out[opt], (size_t)nout);
		args[0] = kbuf(out[opt], (size_t)nout * 4);
		CHECKF(run_text("prefetch.tile", src, kernel, NULL, 0, opt, args, nargs, grid, 1, 1) == 0,
		       "%s (opt %d): %s", kernel, opt, run_error);
	}
}

static void expect(const char *label, float *out[2], const double *want, int n)
{
	char l[128];
	for (int opt = 0; opt < 2; opt++) {
		snprintf(l, sizeof l, "%s opt=%d", label, opt);
		check_f32(l, out[opt], want, (size_t)n, 0, 0);
	}
	check_same(label, out[0], out[1], (size_t)n * 4);
}

static void test_stride(int n, int P)
{
	float *x = ints_f32(n, 3), *out[2] = {malloc((size_t)P * 8), malloc((size_t)P * 8)};
	double *want = malloc((size_t)P * 2 * sizeof *want);
	for (int p = 0; p < P; p++) {
		double s = 0, m = -INFINITY;
		for (int start = p * B; start < n; start += P * B)
			for (int i = start; i < start + B; i++) {
				s += i < n ? x[i] : 0;
				m = fmax(m, i < n ? x[i] : -INFINITY);
			}
		want[2 * p] = s, want[2 * p + 1] = m;
	}
	KArg a[] = {{0}, kbuf(x, (size_t)(n > 0 ? n : 1) * 4), kint(n)};
	run_both("stride", a, 3, out, 2 * P, P);
	char l[64];
	snprintf(l, sizeof l, "stride n=%d P=%d", n, P);
	expect(l, out, want, 2 * P);
	free(x), free(out[0]), free(out[1]), free(want);
}

static void test_carried(int m)
{
	float *x = ints_f32(m * B, 5), *out[2] = {malloc(B * 4), malloc(B * 4)};
	double want[B] = {0};
	for (int i = 0; i < m; i++)
		for (int c = 0; c < B; c++)
			want[c] += x[i * B + c];
	KArg a[] = {{0}, kbuf(x, (size_t)(m > 0 ? m * B : 1) * 4), kint(m)};
	run_both("carried", a, 3, out, B, 1);
	char l[64];
	snprintf(l, sizeof l, "carried m=%d", m);
	expect(l, out, want, B);
	free(x), free(out[0]), free(out[1]);
}

static void test_late(int m, int span)
{
	float *x = ints_f32(span + B, 1), *out[2] = {malloc(B * 4), malloc(B * 4)};
	double want[B] = {0};
	for (int i = 0, off = 0; i < m; i++) {
		for (int c = 0; c < B; c++)
			want[c] = want[c] * 0.5 + x[off + c];
		off = (off + 3 * B + i) % span;
	}
	KArg a[] = {{0}, kbuf(x, (size_t)(span + B) * 4), kint(m), kint(span)};
	run_both("late", a, 4, out, B, 1);
	char l[64];
	snprintf(l, sizeof l, "late m=%d span=%d", m, span);
	expect(l, out, want, B);
	free(x), free(out[0]), free(out[1]);
}

static void test_gather(int m)
{
	float *x = ints_f32(37, 2), *out[2] = {malloc(4), malloc(4)};
	int32_t *idx = malloc((size_t)(m > 0 ? m : 1) * 4);
	double want = 0;
	for (int i = 0; i < m; i++) {
		idx[i] = (i * 11 + 4) % 37;
		want = want * 2.0 + x[idx[i]];
	}
	KArg a[] = {{0}, kbuf(x, 37 * 4), kbuf(idx, (size_t)(m > 0 ? m : 1) * 4), kint(m)};
	run_both("gather", a, 4, out, 1, 1);
	char l[64];
	snprintf(l, sizeof l, "gather m=%d", m);
	expect(l, out, &want, 1);
	free(x), free(idx), free(out[0]), free(out[1]);
}

static void test_halves(int lo, int hi, int step)
{
	int n = hi > 0 ? hi : 1;
	uint16_t *x = malloc((size_t)n * 2);
	float *out[2] = {malloc(B * 4), malloc(B * 4)};
	double want[B] = {0};
	for (int i = 0; i < n; i++)
		x[i] = ref_f32_to_f16((float)(i % 5 - 2));
	for (int i = lo; i < hi; i += step)
		for (int c = 0; c < B; c++)
			want[c] = want[c] * 3.0 + (i + c < hi ? ref_f16_to_f32(x[i + c]) : 1.0);
	KArg a[] = {{0}, kbuf(x, (size_t)n * 2), kint(lo), kint(hi), kint(step)};
	run_both("halves", a, 5, out, B, 1);
	char l[64];
	snprintf(l, sizeof l, "halves lo=%d hi=%d step=%d", lo, hi, step);
	expect(l, out, want, B);
	free(x), free(out[0]), free(out[1]);
}

static void test_nested(int rows, int cols)
{
	float *x = ints_f32(rows * cols, 4), *w = ints_f32(rows, 9), *out[2] = {malloc(B * 4), malloc(B * 4)};
	double want[B] = {0};
	for (int r = 0; r < rows; r++) {
		double acc[B] = {0};
		for (int k = 0; k < cols; k += B)
			for (int c = 0; c < B; c++)
				acc[c] += k + c < cols ? x[r * cols + k + c] : 0;
		for (int c = 0; c < B; c++)
			want[c] += acc[c] * w[r];
	}
	KArg a[] = {{0}, kbuf(x, (size_t)(rows * cols > 0 ? rows * cols : 1) * 4),
		    kbuf(w, (size_t)(rows > 0 ? rows : 1) * 4), kint(rows), kint(cols)};
	run_both("nested", a, 5, out, B, 1);
	char l[64];
	snprintf(l, sizeof l, "nested rows=%d cols=%d", rows, cols);
	expect(l, out, want, B);
	free(x), free(w), free(out[0]), free(out[1]);
}

/* A loop that stores what its next iteration loads (left alone by the pass). */
static void test_scan(int m)
{
	float *x[2] = {ints_f32(m + 1, 6), ints_f32(m + 1, 6)}, *out[2] = {malloc(4), malloc(4)};
	double want = 0;
	for (int i = 0; i <= m; i++)
		want += x[0][i];
	for (int opt = 0; opt < 2; opt++) {
		ref_poison_f32(out[opt], 1);
		KArg a[] = {kbuf(out[opt], 4), kbuf(x[opt], (size_t)(m + 1) * 4), kint(m)};
		CHECKF(run_text("prefetch.tile", src, "scan", NULL, 0, opt, a, 3, 1, 1, 1) == 0, "scan (opt %d): %s",
		       opt, run_error);
	}
	char l[64];
	snprintf(l, sizeof l, "scan m=%d", m);
	expect(l, out, &want, 1);
	check_same(l, x[0], x[1], (size_t)(m + 1) * 4);
	free(x[0]), free(x[1]), free(out[0]), free(out[1]);
}

/* Loads (at any depth) that sit outside every loop at opt 1: the peeled ones. */
static int count_peeled(Block *b, bool in_loop)
{
	int n = 0;
	for (Op *op = b->first; op; op = op->next) {
		n += op->code == OP_LOAD && !in_loop;
		for (int i = 0; i < op->nblocks; i++)
			if (op->blocks[i])
				n += count_peeled(op->blocks[i], in_loop || op->code == OP_FOR);
	}
	return n;
}

/* The pass does fire on these kernels (the outer loop of `nested` peels w's load and x's first tile). */
static void test_fires(const char *kernel, int want)
{
	Compilation *c = compilation_new("prefetch.tile", src, strlen(src));
	CompileOptions o = {0};
	o.kernel = kernel;
	o.emit = EMIT_IR;
	o.opt = 1;
	o.verify_each = true;
	if (CHECKF(compile_kernel(c, &o) == 0, "%s: %s", kernel, c->diag.out.s ? c->diag.out.s : "")) {
		int n = count_peeled(c->func->entry, false);
		CHECKF(n == want, "%s: %d loads peeled out of loops, want %d", kernel, n, want);
	}
	compilation_free(c);
}

int main(void)
{
	int ns[] = {0, 1, 15, 16, 17, 100, 257};
	for (int i = 0; i < 7; i++) {
		test_stride(ns[i], 1);
		test_stride(ns[i], 3);
	}
	for (int m = 0; m < 4; m++) {
		test_carried(m);
		test_gather(m);
		test_late(m, 50);
	}
	test_carried(9);
	test_gather(20);
	test_late(12, 70);
	test_halves(0, 0, 1);
	test_halves(5, 4, 2);
	test_halves(3, 20, 16);
	test_halves(3, 20, 17);
	test_halves(1, 60, 7);
	test_nested(0, 40);
	test_nested(1, 0);
	test_nested(3, 5);
	test_nested(4, 40);
	test_scan(0);
	test_scan(1);
	test_scan(10);
	test_fires("stride", 2);
	test_fires("carried", 1);
	test_fires("late", 1);
	test_fires("gather", 2);
	test_fires("halves", 1);
	test_fires("nested", 1);
	test_fires("scan", 1); /* the load after the loop */
	return check_summary("prefetch");
}
