/*
 * errors.c: the interpreter's run-time errors.  An unmasked out-of-bounds
 * load or store returns -1 with a message naming the .tile line:col, the
 * lane, the program and the buffer; a masked load at the buffer's edge
 * touches nothing and reads `other`; a `for` whose step is not positive is
 * an error naming its line; an error inside an fn names the calls it sits
 * in.  Each case runs at opt 0 and opt 1.
 */
#include "run.h"

/* Runs text on gx programs at level opt: it must stop with exactly the error want. */
static void expect_error(const char *what, const char *name, const char *text, KArg *a, int nargs, int gx, int opt,
			 const char *want)
{
	int rc = run_text(name, text, NULL, NULL, 0, opt, a, nargs, gx, 1, 1);
	CHECKF(rc == -1, "%s (opt %d): rc %d", what, opt, rc);
	CHECKF(strcmp(run_error, want) == 0, "%s (opt %d):\n got: %s\nwant: %s", what, opt, run_error, want);
}

/* program 1 reads rows at x[16], x[24], x[32], x[40]; x holds 38 floats, so row 3 is 8 bytes past the end */
static const char *oob_load =
	"kernel oob(x: *f32, out: *f32, BLOCK: const i32 = 4) {\n"
	"    let r = arange(0, BLOCK);\n"
	"    let p = x + program_id(0) * 16 + r[:, None] * 8 + r[None, :];\n"
	"    store(out + r[:, None] * 4 + r[None, :], load(p));\n"
	"}\n";

static void test_oob_load(int opt)
{
	float x[38] = {0}, out[16];
	KArg a[] = {kbuf(x, sizeof x), kbuf(out, sizeof out)};
	expect_error("oob load", "oob.tile", oob_load, a, 2, 3, opt,
		     "oob.tile:4:46: error: out-of-bounds load of f32 at element [3, 0] in program (1, 0, 0): "
		     "address is 8 bytes past the end of buffer 0 (152 bytes)");
}

/* store one element before out */
static const char *oob_store =
	"kernel before(x: *f32, out: *f32) {\n"
	"    store(out - 1, load(x));\n"
	"}\n";

static void test_oob_store(int opt)
{
	float x[4] = {1, 2, 3, 4}, out[4];
	KArg a[] = {kbuf(x, sizeof x), kbuf(out, sizeof out)};
	expect_error("oob store", "before.tile", oob_store, a, 2, 1, opt,
		     "before.tile:2:5: error: out-of-bounds store of f32 in program (0, 0, 0): "
		     "address is 4 bytes before the start of buffer 1 (16 bytes)");
}

/* the mask stops exactly at the end of x; masked lanes read 7 */
static const char *edge =
	"kernel edge(x: *f32, out: *f32, n: i32, BLOCK: const i32 = 16) {\n"
	"    let offs = arange(0, BLOCK);\n"
	"    store(out + offs, load(x + offs, offs < n, 7.0));\n"
	"}\n";

static void test_masked_edge(int opt)
{
	for (int n = 0; n <= 16; n += 5) {
		float *x = malloc((size_t)(n ? n : 1) * 4), out[16];
		for (int i = 0; i < n; i++)
			x[i] = (float)i + 0.5f;
		ref_poison_f32(out, 16);
		KArg a[] = {kbuf(x, (size_t)n * 4), kbuf(out, sizeof out), kint(n)};
		int rc = run_text("edge.tile", edge, NULL, NULL, 0, opt, a, 3, 1, 1, 1);
		if (CHECKF(rc == 0, "masked edge n=%d (opt %d): %s", n, opt, run_error))
			for (int i = 0; i < 16; i++)
				CHECKF(out[i] == (i < n ? (float)i + 0.5f : 7.0f), "masked edge n=%d: out[%d] = %g", n,
				       i, out[i]);
		free(x);
	}
}

static const char *loop =
	"kernel loop(out: *i32, lo: i32, hi: i32, step: i32) {\n"
	"    var acc = 0;\n"
	"    for i in range(lo, hi, step) {\n"
	"        acc += i;\n"
	"    }\n"
	"    store(out, acc);\n"
	"}\n";

static int run_loop(int opt, int lo, int hi, int step, int32_t *out)
{
	*out = REF_POISON_INT;
	KArg a[] = {kbuf(out, 4), kint(lo), kint(hi), kint(step)};
	return run_text("loop.tile", loop, NULL, NULL, 0, opt, a, 4, 1, 1, 1);
}

static void test_loop_step(int opt)
{
	int32_t out;
	int rc = run_loop(opt, 0, 10, 3, &out);
	CHECKF(rc == 0 && out == 0 + 3 + 6 + 9, "range(0, 10, 3): rc %d, sum %d", rc, out);
	rc = run_loop(opt, 5, 5, 1, &out);
	CHECKF(rc == 0 && out == 0, "range(5, 5, 1): rc %d, sum %d", rc, out);
	rc = run_loop(opt, 4, 0, -1, &out);
	CHECKF(rc == 0 && out == 0, "range(4, 0, -1) runs no iteration: rc %d, sum %d", rc, out);
	rc = run_loop(opt, 2147483640, 2147483647, 4, &out);
	CHECKF(rc == 0 && out == (int32_t)(2147483640u + 2147483644u), "range near INT_MAX: rc %d, sum %d", rc, out);
	rc = run_loop(opt, 0, 10, 0, &out);
	const char *want = "loop.tile:3:5: error: for loop step is 0, not positive in program (0, 0, 0)";
	CHECKF(rc == -1 && strcmp(run_error, want) == 0, "range(0, 10, 0) (opt %d): rc %d\n got: %s\nwant: %s", opt, rc,
	       run_error, want);
	CHECKF(out == REF_POISON_INT, "range(0, 10, 0) stored %d", out);
}

/* the same load inside fns: the error names the load's line in `get`, then each call, innermost first */
static const char *oob_fn =
	"fn get(p, i) {\n"
	"    return load(p + i);\n"
	"}\n"
	"fn twice(p, i) {\n"
	"    return get(p, i) * 2.0;\n"
	"}\n"
	"kernel k(o: *f32, x: *f32) {\n"
	"    store(o, twice(x, 4));\n"
	"}\n";

static void test_oob_in_fn(int opt)
{
	float x[4] = {1, 2, 3, 4}, out[1];
	KArg a[] = {kbuf(out, sizeof out), kbuf(x, sizeof x)};
	expect_error("oob load in an fn", "fn.tile", oob_fn, a, 2, 1, opt,
		     "fn.tile:2:12: error: out-of-bounds load of f32 in program (0, 0, 0): "
		     "address is 0 bytes past the end of buffer 1 (16 bytes)\n"
		     "fn.tile:5:12: note: in this call to 'get'\n"
		     "fn.tile:8:14: note: in this call to 'twice'");
}

/*
 * Program 0 waits for program 1's ticket; programs run one after another
 * here, so the wait would never end: an error at the loop, not a hang.
 */
static const char *waits =
	"kernel waits(turn: *i32, out: *i32) {\n"
	"    let me = 1 - program_id(0);\n"
	"    while atomic_add(turn, 0) != me {}\n"
	"    store(out + me, me);\n"
	"    atomic_add(turn, 1);\n"
	"}\n";

static void test_wait_forever(int opt)
{
	int32_t turn[1] = {0}, out[2];
	KArg a[] = {kbuf(turn, sizeof turn), kbuf(out, sizeof out)};
	expect_error("a wait for a later program", "waits.tile", waits, a, 2, 2, opt,
		     "waits.tile:3:5: error: an iteration of this loop changed no value it carries and no memory "
		     "(programs run one after another here, so one that waits for a later program waits forever): "
		     "it never ends in program (0, 0, 0)");
}

/*
 * Hints are promises the interpreter checks: runs of 8 consecutive offsets
 * starting at multiples of 8, and a scalar multiple of 4.  % M breaks the
 * run where M is not a multiple of 8; sh moves the run starts; s may not
 * be a multiple of 4.
 */
static const char *hinted =
	"kernel hinted(x: *f32, out: *f32, s: i32, sh: i32, M: i32) {\n"
	"    let offs = (program_id(0) * 8 + arange(0, 8) + sh) % M;\n"
	"    let o = max_contiguous(multiple_of(offs, 8), [8]);\n"
	"    store(out + o, load(x + multiple_of(s, 4) + o));\n"
	"}\n";

static void test_hints(int opt)
{
	float x[24], out[16];
	for (int i = 0; i < 24; i++)
		x[i] = (float)i;
	KArg ok[] = {kbuf(x, sizeof x), kbuf(out, sizeof out), kint(4), kint(0), kint(16)};
	CHECKF(run_text("hinted.tile", hinted, NULL, NULL, 0, opt, ok, 5, 2, 1, 1) == 0, "hints that hold (opt %d): %s",
	       opt, run_error);
	for (int i = 0; i < 16; i++)
		CHECKF(out[i] == (float)(i + 4), "hints that hold (opt %d): out[%d] = %g", opt, i, (double)out[i]);
	KArg broken[] = {kbuf(x, sizeof x), kbuf(out, sizeof out), kint(4), kint(0), kint(12)};
	expect_error("max_contiguous", "hinted.tile", hinted, broken, 5, 2, opt,
		     "hinted.tile:3:13: error: max_contiguous(8) does not hold: element 4 is 0 after 11 in program (1, 0, 0)");
	KArg shifted[] = {kbuf(x, sizeof x), kbuf(out, sizeof out), kint(4), kint(2), kint(64)};
	expect_error("multiple_of of a run", "hinted.tile", hinted, shifted, 5, 1, opt,
		     "hinted.tile:3:13: error: multiple_of(8) does not hold: element 0, which starts a run, is 2 "
		     "in program (0, 0, 0)");
	KArg odd[] = {kbuf(x, sizeof x), kbuf(out, sizeof out), kint(6), kint(0), kint(16)};
	expect_error("multiple_of of a scalar", "hinted.tile", hinted, odd, 5, 1, opt,
		     "hinted.tile:4:29: error: multiple_of(4) does not hold: the value is 6 in program (0, 0, 0)");
}

/*
 * device_print writes a line per element (the program, the index, the
 * prefix and ": ", the value; integers in hex where asked, the bits of
 * their width); device_assert stops at its line, naming the element.
 */
static const char *debug_src =
	"kernel dbg(x: *f32, v: *i8, n: i32) {\n"
	"    let i = arange(0, 4);\n"
	"    let t = load(x + i);\n"
	"    device_print(\"t = \", t);\n"
	"    device_print(\"pair\", reshape(i, [2, 2]), n, hex = true);\n"
	"    device_print(\"bytes\", load(v + i), hex = true);\n"
	"    device_assert(t < 100.0, \"t is small\");\n"
	"    device_assert(n > 0, mask = n != 5);\n"
	"    device_print(\"100% \", n);\n"
	"}\n";

static void test_debug(int opt)
{
	float x[4] = {1.5f, -2, 1e-8f, 99};
	int8_t v[4] = {-1, 2, 127, -128};
	KArg a[] = {kbuf(x, sizeof x), kbuf(v, sizeof v), kint(18)};
	run_output = tmpfile();
	CHECKF(run_output && run_text("dbg.tile", debug_src, NULL, NULL, 0, opt, a, 3, 2, 1, 1) == 0,
	       "device_print (opt %d): %s", opt, run_error);
	char got[2048] = {0};
	if (run_output) {
		rewind(run_output);
		got[fread(got, 1, sizeof got - 1, run_output)] = 0;
		fclose(run_output);
		run_output = NULL;
	}
	const char *one =
		"pid (%d, 0, 0) idx (0) t = 1.5\n"
		"pid (%d, 0, 0) idx (1) t = -2\n"
		"pid (%d, 0, 0) idx (2) t = 9.99999994e-09\n"
		"pid (%d, 0, 0) idx (3) t = 99\n"
		"pid (%d, 0, 0) idx (0, 0) pair: (operand 0) 0x0\n"
		"pid (%d, 0, 0) idx (0, 1) pair: (operand 0) 0x1\n"
		"pid (%d, 0, 0) idx (1, 0) pair: (operand 0) 0x2\n"
		"pid (%d, 0, 0) idx (1, 1) pair: (operand 0) 0x3\n"
		"pid (%d, 0, 0) idx () pair: (operand 1) 0x12\n"
		"pid (%d, 0, 0) idx (0) bytes: 0xff\n"
		"pid (%d, 0, 0) idx (1) bytes: 0x2\n"
		"pid (%d, 0, 0) idx (2) bytes: 0x7f\n"
		"pid (%d, 0, 0) idx (3) bytes: 0x80\n"
		"pid (%d, 0, 0) idx () 100%% 18\n";
	char want[2048];
	int k = 0;
	for (int p = 0; p < 2; p++)
		k += snprintf(want + k, sizeof want - (size_t)k, one, p, p, p, p, p, p, p, p, p, p, p, p, p, p);
	CHECKF(strcmp(got, want) == 0, "device_print (opt %d):\n got:\n%s\nwant:\n%s", opt, got, want);
	x[2] = 100;
	run_output = tmpfile(); /* the prints before the asserts */
	expect_error("device_assert of a tile", "dbg.tile", debug_src, a, 3, 1, opt,
		     "dbg.tile:7:5: error: device_assert failed at element 2: t is small in program (0, 0, 0)");
	x[2] = 0;
	KArg neg[] = {kbuf(x, sizeof x), kbuf(v, sizeof v), kint(-3)};
	expect_error("device_assert of a scalar", "dbg.tile", debug_src, neg, 3, 1, opt,
		     "dbg.tile:8:5: error: device_assert failed: device_assert failed in program (0, 0, 0)");
	KArg masked[] = {kbuf(x, sizeof x), kbuf(v, sizeof v), kint(5)};
	CHECKF(run_text("dbg.tile", debug_src, NULL, NULL, 0, opt, masked, 3, 1, 1, 1) == 0,
	       "device_assert under a false mask (opt %d): %s", opt, run_error);
	if (run_output)
		fclose(run_output);
	run_output = NULL;
}

int main(void)
{
	for (int opt = 0; opt < 2; opt++) {
		test_oob_load(opt);
		test_oob_store(opt);
		test_masked_edge(opt);
		test_loop_step(opt);
		test_oob_in_fn(opt);
		test_wait_forever(opt);
		test_hints(opt);
		test_debug(opt);
	}
	return check_summary("errors");
}
