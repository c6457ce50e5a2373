/*
 * parse_fuzz_test.c: the lexer and parser never crash, whatever the bytes.
 *
 * A few kernels are mutated at random (fixed seed, so a failure
 * reproduces): bytes replaced by syntax characters or any byte (NUL
 * included), deleted, inserted, or chunks duplicated.  Each mutant is
 * lexed, parsed and, if it parses, dumped; an error is fine, it must come
 * back through d.jmp with a message.  Built with ASan (build-asan/), this
 * also catches reads past the source.  Pathological inputs (very deep
 * nesting, long unary chains, huge literals) are checked explicitly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "token.h"

#include "../util/check.h"

static const char *const seeds[] = {
	"@num_warps(8)\n"
	"kernel softmax(out: *f32, inp: *f32, stride: i32, n: i32, BLOCK: const i32 = 1024) {\n"
	"    let row  = program_id(0);\n"
	"    let cols = arange(0, BLOCK);\n"
	"    let mask = cols < n;\n"
	"    let x    = load(inp + row * stride + cols, mask, -inf);\n"
	"    let e    = exp(x - max(x, 0));\n"
	"    store(out + row * stride + cols, e / sum(e, 0), mask);\n"
	"}\n",
	"kernel mm(c: *f16, a: *f16, b: *f16, K: i32, BM: const i32 = 64, BK: const i32 = 32) {\n"
	"    let rm = arange(0, BM);\n"
	"    var pa = a + rm[:, None] * K + arange(0, BK)[None, :];\n"
	"    var acc = zeros([BM, BM], f32); /* accumulator */\n"
	"    for k in range(0, K, BK) {\n"
	"        acc = dot(load(pa, mask=k < K, other=0.0), load(b), acc);\n"
	"        pa += BK;\n"
	"    }\n"
	"    if K > 0x10 { store(c, cast(acc, f16)); } else if K == 0b1 { return; }\n"
	"}\n",
	"kernel k(x: *f32, n: i32,) { let y = -~!x[:, None] | 1_000 ^ 2.5e3 && .5 || 1e-6; } // end\n",
};

static const char syntax[] = "(){}[],;:@.+-*/%&|^!~<>=_0123456789aeExbf. \n\t\"'$\\";

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

/* Lex, parse and dump one source; returns 0 if it parsed, 1 after an error. */
static int run_one(const char *text, size_t len)
{
	Source src = {"fuzz.tile", text, len};
	Diag d = {.src = &src};
	jmp_buf jb;
	d.jmp = &jb;
	Arena *a = arena_new();
	StrBuf out = {0};
	volatile int failed = 0;
	if (setjmp(jb) == 0) {
		int ntok;
		Token *toks = lex_source(a, &d, &src, &ntok);
		tokens_dump(&out, toks, ntok);
		Program *p = parse_program(a, &d, toks, ntok);
		ast_dump(&out, p);
	} else {
		failed = 1;
		if (d.nerrors != 1 || !d.out.s || !strstr(d.out.s, "fuzz.tile:")) {
			fprintf(stderr, "error without a message for input:\n%.*s\n", (int)len, text);
			exit(1);
		}
	}
	sb_free(&out);
	sb_free(&d.out);
	arena_free(a);
	return failed;
}

static size_t mutate(char *buf, size_t len, size_t cap)
{
	int n = 1 + (int)(next() % 4);
	for (int i = 0; i < n && len > 0; i++) {
		size_t at = next() % len;
		switch (next() % 5) {
		case 0: buf[at] = syntax[next() % (sizeof syntax - 1)]; break;
		case 1: buf[at] = (char)(next() & 0xff); break;
		case 2: memmove(buf + at, buf + at + 1, len - at - 1); len--; break;
		case 3:
			if (len + 1 < cap) {
				memmove(buf + at + 1, buf + at, len - at);
				buf[at] = syntax[next() % (sizeof syntax - 1)];
				len++;
			}
			break;
		default: {
			size_t from = next() % len, n2 = next() % 16;
			if (from + n2 > len)
				n2 = len - from;
			if (len + n2 < cap) {
				memmove(buf + at + n2, buf + at, len - at);
				memmove(buf + at, buf + from + (from >= at ? n2 : 0), n2);
				len += n2;
			}
		}
		}
	}
	buf[len] = 0;
	return len;
}

/* `prefix` + `unit` * times + `suffix`, run through the front end. */
static int run_repeated(const char *prefix, const char *unit, int times, const char *suffix)
{
	size_t pl = strlen(prefix), ul = strlen(unit), sl = strlen(suffix);
	size_t len = pl + ul * (size_t)times + sl;
	char *s = malloc(len + 1);
	memcpy(s, prefix, pl);
	for (int i = 0; i < times; i++)
		memcpy(s + pl + ul * (size_t)i, unit, ul);
	memcpy(s + len - sl, suffix, sl + 1);
	int r = run_one(s, len);
	free(s);
	return r;
}

int main(void)
{
	int nseeds = (int)(sizeof seeds / sizeof seeds[0]);
	for (int i = 0; i < nseeds; i++)
		CHECKF(run_one(seeds[i], strlen(seeds[i])) == 0, "seed kernel %d parses", i);

	CHECKF(run_repeated("kernel k() { let y = ", "(", 100000, "1); }") == 1, "deep parens");
	CHECKF(run_repeated("kernel k() { let y = ", "-", 100000, "1; }") == 1, "long unary chain");
	CHECKF(run_repeated("kernel k() { ", "if 1 { ", 100000, "") == 1, "deep blocks");
	CHECKF(run_repeated("kernel k() { if 1 {} ", "else if 1 {} ", 100000, "}") == 1, "long else-if chain");
	CHECKF(run_repeated("kernel k() { let y = ", "[", 100000, "") == 1, "deep lists");
	CHECKF(run_repeated("kernel k() { let y = ", "f(", 100000, "") == 1, "deep calls");
	CHECKF(run_repeated("kernel k() { let y = ", "9", 5000, "; }") == 1, "huge literal");
	CHECKF(run_repeated("kernel k() { let y = ", "1 + ", 200, "1; }") == 0, "a sum of 200 terms");
	CHECKF(run_repeated("kernel k() { let y = ", "1 + ", 100000, "1; }") == 1, "too long a sum");
	CHECKF(run_repeated("kernel k() { let y = ", "(", 200, "1" ) == 1, "unclosed parens");
	static const char nul[] = "kernel k() { /* \0 */ }";
	CHECKF(run_one(nul, sizeof nul - 1) == 1, "NUL inside a comment");
	CHECKF(run_one("", 0) == 0, "empty source");

	enum { ITERS = 6000, CAP = 4096 };
	char *buf = malloc(CAP);
	int nerr = 0;
	for (int it = 0; it < ITERS; it++) {
		const char *s = seeds[next() % (unsigned)nseeds];
		size_t len = strlen(s);
		memcpy(buf, s, len + 1);
		len = mutate(buf, len, CAP);
		nerr += run_one(buf, len);
	}
	free(buf);
	printf("parse_fuzz: %d mutants, %d rejected with an error, %d parsed\n", ITERS, nerr, ITERS - nerr);
	CHECKF(nerr > 0 && nerr < ITERS, "mutants both parse and fail");
	return check_summary("parse_fuzz_test");
}
