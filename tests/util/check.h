/*
 * check.h: the checks every C test uses.  Header only: each function is
 * static inline, so a test that includes it and uses half of it builds
 * without warnings.
 *
 *   CHECK(c)              c holds; else "file.c:LINE: check failed: c"
 *   CHECKF(c, fmt, ...)   the same with a printf-style message in place of
 *                         the expression (use it when the values matter)
 *   CHECK_STR(got, want)  strcmp(got, want) == 0 (a NULL got fails); prints
 *                         both strings between "---" lines
 *   CHECK_HAS(got, want)  got contains want; prints both
 *   check_summary(name)   prints "name: N checks, M failed" and returns the
 *                         exit status for main(): 1 after any failure
 *
 * The macros return whether the check held, so `if (CHECK(p != NULL))`
 * guards the checks that need p.  Every check counts one in nchecks and
 * every failed one in nfail; check_at, check_str_at and check_has_at take
 * the file and line themselves, for helpers that check on a caller's
 * behalf.  Messages name the file by the basename of __FILE__, so they
 * read the same whatever directory the build ran from.
 */
#ifndef TILEC_TEST_CHECK_H
#define TILEC_TEST_CHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int nchecks, nfail;

static inline const char *check_base(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static inline bool check_at(bool ok, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static inline bool check_at(bool ok, const char *file, int line, const char *fmt, ...)
{
	nchecks++;
	if (!ok) {
		va_list ap;
		nfail++;
		fprintf(stderr, "%s:%d: check failed: ", check_base(file), line);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	return ok;
}

static inline bool check_str_at(const char *got, const char *want, const char *file, int line)
{
	return check_at(got && strcmp(got, want) == 0, file, line, "got\n---\n%s---\nwant\n---\n%s---",
	                got ? got : "(null)\n", want);
}

static inline bool check_has_at(const char *got, const char *want, const char *file, int line)
{
	return check_at(got && strstr(got, want), file, line, "expected \"%s\" in:\n---\n%s\n---", want,
	                got ? got : "(null)");
}

static inline int check_summary(const char *test_name)
{
	printf("%s: %d checks, %d failed\n", test_name, nchecks, nfail);
	return nfail ? 1 : 0;
}

#define CHECK(c) check_at((c), __FILE__, __LINE__, "%s", #c)
#define CHECKF(c, ...) check_at((c), __FILE__, __LINE__, __VA_ARGS__)
#define CHECK_STR(got, want) check_str_at((got), (want), __FILE__, __LINE__)
#define CHECK_HAS(got, want) check_has_at((got), (want), __FILE__, __LINE__)

#endif
