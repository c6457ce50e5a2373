/*
 * util.h: what every part of the compiler shares.
 *
 * Memory policy: a compilation allocates from one Arena (tokens, AST, IR,
 * layouts) and frees it whole when the PTX or the interpreter run is done.
 * Nothing in the compiler calls free() on arena memory.
 *
 * Errors: a user's mistake goes through error_at(), which formats
 * "file:line:col: error: msg", the source line and a caret into the
 * compilation's diagnostic buffer and longjmps back to the compile entry
 * point (so the JIT never exits the host program).  A compiler bug goes
 * through die(), which prints where and aborts.
 */
#ifndef TILEC_UTIL_H
#define TILEC_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define PRINTF(a, b) __attribute__((format(printf, a, b)))
#define NORETURN __attribute__((noreturn))
#else
#define PRINTF(a, b)
#define NORETURN
#endif

/* ---- arena ---- */
typedef struct ArenaChunk ArenaChunk;
typedef struct Arena {
	ArenaChunk *head;
	size_t total;
} Arena;

Arena *arena_new(void);
void arena_free(Arena *a);
void *arena_alloc(Arena *a, size_t n); /* zeroed, 16-byte aligned */
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...) PRINTF(2, 3);
/* Grow an arena array of elements of size `elem` from cap to at least need. */
void *arena_grow(Arena *a, void *p, int *cap, int need, size_t elem);
#define NEW(a, T) ((T *)arena_alloc((a), sizeof(T)))
#define NEWN(a, T, n) ((T *)arena_alloc((a), sizeof(T) * (size_t)(n)))

/* ---- growable string (malloc'ed; used for diagnostics and emitted text) ---- */
typedef struct StrBuf {
	char *s;
	size_t len, cap;
} StrBuf;
void sb_puts(StrBuf *b, const char *s);
void sb_putn(StrBuf *b, const char *s, size_t n);
void sb_printf(StrBuf *b, const char *fmt, ...) PRINTF(2, 3);
void sb_vprintf(StrBuf *b, const char *fmt, va_list ap);
void sb_free(StrBuf *b);

/* ---- source locations and diagnostics ---- */
struct DiagFrame;
typedef struct Loc {
	int line, col; /* 1-based; 0 = unknown */
	/* IR ops only: the fn calls inlined around the op, innermost first (lower.c); NULL: none */
	const struct DiagFrame *in;
} Loc;

typedef struct Source {
	const char *name; /* file name shown in diagnostics */
	const char *text; /* NUL-terminated */
	size_t len;
} Source;

/* A call being inlined (lower.c): errors and warnings inside it end with a
 * note at each call, innermost first, so a mistake in a helper shows the
 * call that led to it. */
typedef struct DiagFrame {
	const char *fn;
	Loc call;
	const struct DiagFrame *up;
} DiagFrame;

/*
 * One compilation's error state.  `jmp` is set by the entry point with
 * setjmp; error_at() longjmps to it after recording the message.
 */
typedef struct Diag {
	const Source *src;
	StrBuf out;     /* all diagnostics, formatted */
	int nerrors, nwarnings;
	bool werror;    /* warnings count as errors */
	bool nowarn;    /* suppress warnings */
	jmp_buf *jmp;   /* where error_at() returns to; NULL = exit(1) */
	const DiagFrame *frames; /* the calls being inlined, innermost first (a Loc's own `in` wins) */
	const Source *at_src; /* the source, line and start of the last excerpt */
	int at_line;
	const char *at;
} Diag;

NORETURN void error_at(Diag *d, Loc loc, const char *fmt, ...) PRINTF(3, 4);
void warn_at(Diag *d, Loc loc, const char *fmt, ...) PRINTF(3, 4);
void note_at(Diag *d, Loc loc, const char *fmt, ...) PRINTF(3, 4);
/* An error with no source position (bad option, missing kernel, ...). */
NORETURN void error_plain(Diag *d, const char *fmt, ...) PRINTF(2, 3);

/* Compiler bugs. */
NORETURN void die_at(const char *file, int line, const char *fmt, ...) PRINTF(3, 4);
#define die(...) die_at(__FILE__, __LINE__, __VA_ARGS__)
#define ensure(c) ((c) ? (void)0 : die("ensure failed: %s", #c))

/* ---- small helpers ---- */
/* How deep source expressions and statements (parse.c) and IR text's
 * regions (ir_parse.c) may nest: deeper is a located error, so nothing
 * recursing on them overflows the stack. */
enum { MAX_NESTING = 256 };
static inline bool is_pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }
static inline int ilog2(uint64_t x) { int n = 0; while (x > 1) { x >>= 1; n++; } return n; }
double now_seconds(void);
char *read_file(const char *path, size_t *len); /* malloc'ed, NUL-terminated; NULL on failure */

#endif
