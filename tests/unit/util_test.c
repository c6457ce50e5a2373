/*
 * util_test.c: the arena, StrBuf and diagnostic formatting of util.c.
 * Each check prints what it saw when it fails; the program exits 1 after
 * any failure and prints a one-line summary either way.
 */
#define _POSIX_C_SOURCE 200809L
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/check.h"

static void test_arena(void)
{
	Arena *a = arena_new();
	bool aligned = true, zero = true;
	for (int i = 0; i < 10000; i++) {
		unsigned char *p = arena_alloc(a, (size_t)(i % 37) + 1);
		aligned &= ((uintptr_t)p & 15) == 0;
		for (int j = 0; j < i % 37 + 1; j++)
			zero &= p[j] == 0;
		memset(p, 0xab, (size_t)(i % 37) + 1);
	}
	CHECK(aligned);
	CHECK(zero);
	char *big = arena_alloc(a, 1 << 20);
	CHECK(big[0] == 0 && big[(1 << 20) - 1] == 0);
	memset(big, 1, 1 << 20);
	CHECK(a->total >= (1 << 20));

	CHECK_STR(arena_strdup(a, "hello"), "hello");
	CHECK_STR(arena_strndup(a, "hello", 3), "hel");
	CHECK_STR(arena_printf(a, "%s-%d", "x", 42), "x-42");

	int cap = 0, *v = NULL;
	for (int i = 0; i < 1000; i++) {
		v = arena_grow(a, v, &cap, i + 1, sizeof(int));
		v[i] = i * 3;
	}
	CHECK(cap >= 1000);
	bool same = true;
	for (int i = 0; i < 1000; i++)
		same &= v[i] == i * 3;
	CHECK(same);
	int *w = arena_grow(a, v, &cap, 10, sizeof(int));
	CHECK(w == v);
	arena_free(a);
}

static void test_strbuf(void)
{
	StrBuf b = {0};
	sb_puts(&b, "ab");
	sb_putn(&b, "cdef", 2);
	sb_printf(&b, "[%d,%s]", 7, "x");
	CHECK_STR(b.s, "abcd[7,x]");
	CHECK(b.len == strlen("abcd[7,x]"));
	for (int i = 0; i < 5000; i++)
		sb_printf(&b, "%d", i % 10);
	CHECK(b.len == 9 + 5000 && b.s[b.len] == '\0');
	sb_free(&b);
	CHECK(b.s == NULL && b.len == 0);
}

static const char *SRC =
	"kernel k(x: *f32) {\n"
	"\tlet y = x + bias;\n"
	"  \tz\r\n"
	"last";

enum { ERR, PLAIN, WARN };

/*
 * Reports one diagnostic of `kind` into a fresh Diag and returns it; the
 * setjmp lives here, alone, so no local of the callers can be clobbered.
 * *returned says whether the call came back normally instead of by longjmp.
 */
static Diag diag_one(int kind, Loc loc, const char *msg, bool werror, bool *returned)
{
	static Source src;
	static jmp_buf jb;
	static Diag d;
	src = (Source){"t.tile", SRC, strlen(SRC)};
	d = (Diag){.src = &src, .jmp = &jb, .werror = werror};
	*returned = false;
	if (setjmp(jb) == 0) {
		if (kind == ERR)
			error_at(&d, loc, "%s", msg);
		else if (kind == PLAIN)
			error_plain(&d, "%s", msg);
		else
			warn_at(&d, loc, "%s", msg);
		*returned = true;
	}
	return d;
}

static void expect(int kind, Loc loc, const char *msg, bool werror, const char *want, int line)
{
	bool returned;
	Diag d = diag_one(kind, loc, msg, werror, &returned);
	bool fatal = kind != WARN || werror;
	check_at(returned != fatal, __FILE__, line, "%s", fatal ? "longjmp taken" : "returned");
	check_at(d.nerrors == (fatal ? 1 : 0), __FILE__, line, "nerrors");
	check_str_at(d.out.s, want, __FILE__, line);
	sb_free(&d.out);
}

static void test_error_caret_after_tab(void)
{
	expect(ERR, (Loc){.line = 2, .col = 12}, "cannot add tensors", false,
		"t.tile:2:12: error: cannot add tensors\n"
		"\tlet y = x + bias;\n"
		"\t          ^\n", __LINE__);
	/* CR stripped; space then tab kept in the caret line. */
	expect(ERR, (Loc){.line = 3, .col = 4}, "bad", false, "t.tile:3:4: error: bad\n  \tz\n  \t^\n", __LINE__);
	/* Last line without a newline; caret at column 1. */
	expect(ERR, (Loc){.line = 4, .col = 1}, "here", false, "t.tile:4:1: error: here\nlast\n^\n", __LINE__);
}

static void test_odd_locations(void)
{
	expect(ERR, (Loc){.line = 0, .col = 0}, "no place", false, "t.tile: error: no place\n", __LINE__);
	expect(ERR, (Loc){.line = 99, .col = 3}, "past the end", false, "t.tile:99:3: error: past the end\n", __LINE__);
	/* A column past the end of the line still puts a caret. */
	expect(ERR, (Loc){.line = 4, .col = 6}, "eof", false, "t.tile:4:6: error: eof\nlast\n     ^\n", __LINE__);
	expect(PLAIN, (Loc){.line = 0, .col = 0}, "no kernel named 'k2'", false,
		"tilec: error: no kernel named 'k2'\n", __LINE__);
}

static void test_warnings(void)
{
	Source src = {"t.tile", SRC, strlen(SRC)};
	Diag d = {.src = &src};
	warn_at(&d, (Loc){.line = 1, .col = 8}, "unused %s", "x");
	note_at(&d, (Loc){.line = 1, .col = 1}, "declared here");
	CHECK(d.nwarnings == 1 && d.nerrors == 0);
	CHECK_STR(d.out.s,
		"t.tile:1:8: warning: unused x\n"
		"kernel k(x: *f32) {\n"
		"       ^\n"
		"t.tile:1:1: note: declared here\n"
		"kernel k(x: *f32) {\n"
		"^\n");
	sb_free(&d.out);

	/* -Werror: the warning is an error and returns through jmp. */
	expect(WARN, (Loc){.line = 1, .col = 8}, "unused", true,
		"t.tile:1:8: error: unused\nkernel k(x: *f32) {\n       ^\n", __LINE__);

	/* -w: nothing at all. */
	d = (Diag){.src = &src, .nowarn = true};
	warn_at(&d, (Loc){.line = 1, .col = 8}, "unused");
	note_at(&d, (Loc){.line = 1, .col = 1}, "declared here");
	CHECK(d.out.s == NULL && d.nwarnings == 0 && d.nerrors == 0);
}

static void test_helpers(void)
{
	double t0 = now_seconds(), t1 = now_seconds();
	CHECK(t0 > 0 && t1 >= t0);
	CHECK(is_pow2(64) && !is_pow2(0) && !is_pow2(12));
	CHECK(ilog2(1) == 0 && ilog2(1024) == 10);

	char path[] = "/tmp/tilec_util_testXXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	FILE *f = fdopen(fd, "w");
	for (int i = 0; i < 3000; i++)
		fputs("0123456789", f);
	fclose(f);
	size_t len = 0;
	char *s = read_file(path, &len);
	CHECK(s && len == 30000 && s[30000] == '\0' && s[29999] == '9');
	free(s);
	remove(path);
	CHECK(read_file("/nonexistent/tilec/file", &len) == NULL);
}

int main(void)
{
	test_arena();
	test_strbuf();
	test_error_caret_after_tab();
	test_odd_locations();
	test_warnings();
	test_helpers();
	return check_summary("util_test");
}
