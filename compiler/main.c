/*
 * main.c: the tilec command line.
 *
 *     tilec softmax.tile -o softmax.ptx
 *
 * Parses flags into CompileOptions, reads the file, calls compile_kernel()
 * and writes what was asked for.  Diagnostics go to stderr; any error exits 1.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"

#define VERSION "0.1.0"

static const char usage[] =
	"usage: tilec FILE [options]\n"
	"\n"
	"Compiles a .tile kernel (or .ir text) to PTX, or shows an earlier stage.\n"
	"\n"
	"options:\n"
	"  -o FILE               write the output to FILE (default: stdout)\n"
	"  --emit=KIND           tokens | ast | ir | gpu-ir | llvm | ptx (default: ptx)\n"
	"  -D NAME=VALUE         set a const parameter (constexpr) of the kernel\n"
	"  --kernel NAME         the kernel to compile (default: the first in the file)\n"
	"  --num-warps N         warps per program (default: the kernel's @num_warps, else 4)\n"
	"  --num-stages N        pipeline stages (default: the kernel's @num_stages, else 3)\n"
	"  --arch SM             sm_80 | sm_86 | sm_89 | sm_90 | sm_90a (default: sm_90)\n"
	"  --hints N=16,...      integer parameters known to be multiples of 16\n"
	"  -O0                   run no optimisation passes\n"
	"  --print-after=PASS    print the IR after PASS (or 'all') to stderr\n"
	"  --verify-each         verify the IR after every pass\n"
	"  --no-lineinfo         no .loc source lines in the PTX\n"
	"  --time                print the time of each compile stage to stderr\n"
	"  -Werror               treat warnings as errors\n"
	"  -w                    suppress warnings\n"
	"  --help, --version\n";

static void fail(const char *fmt, const char *arg)
{
	fprintf(stderr, "tilec: error: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(1);
}

static const char *value_of(int argc, char **argv, int *i, const char *flag)
{
	size_t n = strlen(flag);
	const char *a = argv[*i];
	if (a[n] == '=')
		return a + n + 1;
	if (a[n] == 0 && strcmp(flag, "-D") != 0) {
		if (*i + 1 >= argc)
			fail("option '%s' needs a value", flag);
		return argv[++*i];
	}
	if (!strcmp(flag, "-D")) {
		if (a[n])
			return a + n;
		if (*i + 1 >= argc)
			fail("option '%s' needs a value", flag);
		return argv[++*i];
	}
	fail("unknown option '%s'", a);
	return NULL;
}

static int int_value(const char *s, const char *flag)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 0);
	if (errno || *end || end == s || v <= 0 || v > 1024)
		fail("%s needs a positive integer", flag);
	return (int)v;
}

/* NAME=VALUE: an integer (0x hex too), true or false, or a decimal; lower.c checks it against the type. */
static Define parse_define(const char *s)
{
	Define d = {0};
	const char *eq = strchr(s, '='), *v = eq ? eq + 1 : NULL;
	if (!eq || eq == s)
		fail("-D needs NAME=VALUE, got '%s'", s);
	d.name = strndup(s, eq - s);
	if (!strcmp(v, "true") || !strcmp(v, "false")) {
		d.kind = DEF_BOOL;
		d.value = v[0] == 't';
		return d;
	}
	char *end;
	errno = 0;
	d.value = strtoll(v, &end, 0);
	if (end != v && !*end) {
		if (errno)
			fail("-D value is out of range, got '%s'", s);
		return d;
	}
	errno = 0;
	d.fvalue = strtod(v, &end);
	if (end == v || *end)
		fail("-D value must be a number, got '%s'", s);
	if (errno && isinf(d.fvalue))
		fail("-D value is out of range, got '%s'", s);
	d.kind = DEF_FLOAT;
	return d;
}

static EmitKind emit_kind(const char *s)
{
	static const struct { const char *name; EmitKind k; } kinds[] = {
		{"tokens", EMIT_TOKENS}, {"ast", EMIT_AST}, {"ir", EMIT_IR}, {"gpu-ir", EMIT_GPU_IR},
		{"llvm", EMIT_LLVM}, {"ptx", EMIT_PTX},
	};
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (!strcmp(s, kinds[i].name))
			return kinds[i].k;
	fail("unknown --emit kind '%s' (tokens, ast, ir, gpu-ir, llvm, ptx)", s);
	return EMIT_PTX;
}

static bool starts(const char *a, const char *flag)
{
	size_t n = strlen(flag);
	return !strncmp(a, flag, n) && (a[n] == 0 || a[n] == '=');
}

int main(int argc, char **argv)
{
	CompileOptions o = {.emit = EMIT_PTX, .opt = 1, .lineinfo = true};
	const char *input = NULL, *output = NULL;
	Define defs[64];
	bool timing = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(a, "--version")) {
			printf("tilec " VERSION "\n");
			return 0;
		} else if (!strcmp(a, "-o")) {
			output = value_of(argc, argv, &i, "-o");
		} else if (!strncmp(a, "-D", 2)) {
			if (o.ndefines == 64)
				fail("too many -D options (at most %s)", "64");
			defs[o.ndefines++] = parse_define(value_of(argc, argv, &i, "-D"));
		} else if (starts(a, "--emit")) {
			o.emit = emit_kind(value_of(argc, argv, &i, "--emit"));
		} else if (starts(a, "--kernel")) {
			o.kernel = value_of(argc, argv, &i, "--kernel");
		} else if (starts(a, "--num-warps")) {
			o.num_warps = int_value(value_of(argc, argv, &i, "--num-warps"), "--num-warps");
			if (!num_warps_ok(o.num_warps))
				fail("--num-warps must be a power of two from 1 to 32, got %s", argv[i]);
		} else if (starts(a, "--num-stages")) {
			o.num_stages = int_value(value_of(argc, argv, &i, "--num-stages"), "--num-stages");
			if (!num_stages_ok(o.num_stages))
				fail("--num-stages must be from 1 to 8, got %s", argv[i]);
		} else if (starts(a, "--arch")) {
			o.arch = value_of(argc, argv, &i, "--arch");
		} else if (starts(a, "--hints")) {
			o.div_hints = value_of(argc, argv, &i, "--hints");
		} else if (starts(a, "--print-after")) {
			o.print_after = value_of(argc, argv, &i, "--print-after");
		} else if (!strcmp(a, "-O0")) {
			o.opt = 0;
		} else if (!strcmp(a, "-O1") || !strcmp(a, "-O2") || !strcmp(a, "-O3")) {
			o.opt = 1;
		} else if (!strcmp(a, "--verify-each")) {
			o.verify_each = true;
		} else if (!strcmp(a, "--no-lineinfo")) {
			o.lineinfo = false;
		} else if (!strcmp(a, "--time")) {
			timing = true;
		} else if (!strcmp(a, "-Werror")) {
			o.werror = true;
		} else if (!strcmp(a, "-w")) {
			o.nowarn = true;
		} else if (a[0] == '-' && a[1]) {
			fail("unknown option '%s' (see tilec --help)", a);
		} else if (input) {
			fail("more than one input file ('%s')", a);
		} else {
			input = a;
		}
	}
	o.defines = defs;
	if (!input)
		fail("no input file (see %s)", "tilec --help");

	size_t len;
	char *text = read_file(input, &len);
	if (!text)
		fail("cannot read '%s'", input);
	Compilation *c = compilation_new(input, text, len);
	free(text);
	int rc = compile_kernel(c, &o);
	if (c->trace.len)
		fwrite(c->trace.s, 1, c->trace.len, stderr);
	if (c->diag.out.len)
		fwrite(c->diag.out.s, 1, c->diag.out.len, stderr);
	if (rc == 0) {
		FILE *out = stdout;
		if (output && strcmp(output, "-") && !(out = fopen(output, "w")))
			fail("cannot write '%s'", output);
		if (c->out.len)
			fwrite(c->out.s, 1, c->out.len, out);
		if (out != stdout && fclose(out))
			fail("cannot write '%s'", output);
	}
	if (timing)
		fprintf(stderr, "tilec: front end %.3f ms, passes %.3f ms, codegen %.3f ms\n", c->ms_front,
			c->ms_passes, c->ms_codegen);
	compilation_free(c);
	for (int i = 0; i < o.ndefines; i++)
		free((char *)defs[i].name);
	return rc ? 1 : 0;
}
