/*
 * util.c: arena, growable strings, diagnostics, small OS helpers.
 *
 * The arena is a list of chunks (chibicc's "never free", QBE's pools): an
 * allocation bumps a pointer in the newest chunk, a request too big for a
 * chunk gets a chunk of its own, and arena_free() releases the list at once.
 * Under AddressSanitizer a chunk's free bytes stay poisoned and every
 * allocation is followed by a poisoned gap, so reading or writing past an
 * array the arena handed out is reported as it would be past a malloc.
 *
 * Diagnostics are formatted the way gcc and clang do it:
 *
 *     softmax.tile:7:22: error: shapes do not broadcast
 *     	let y = x + bias;
 *     	          ^
 *
 * The caret line copies the tabs of the source line before the column, so
 * the caret sits under the right byte whatever the reader's tab width.
 * -w (nowarn) wins over -Werror, as in gcc.
 */
#define _POSIX_C_SOURCE 200809L
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- arena ---- */

#if defined(__SANITIZE_ADDRESS__)
#define ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_ASAN 1
#endif
#endif
#ifdef ARENA_ASAN
void __asan_poison_memory_region(void *addr, size_t size);
void __asan_unpoison_memory_region(void *addr, size_t size);
#define POISON(p, n) __asan_poison_memory_region((p), (n))
#define UNPOISON(p, n) __asan_unpoison_memory_region((p), (n))
enum { REDZONE = 16 };
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
enum { REDZONE = 0 };
#endif

enum { CHUNK_SIZE = 64 * 1024, ALIGN = 16 };

struct ArenaChunk {
	ArenaChunk *next;
	size_t size, used;
	_Alignas(ALIGN) unsigned char data[];
};

static ArenaChunk *chunk_new(size_t size)
{
	ArenaChunk *c = malloc(sizeof(ArenaChunk) + size);
	if (!c)
		die("out of memory (arena chunk of %zu bytes)", size);
	c->next = NULL;
	c->size = size;
	c->used = 0;
	POISON(c->data, size);
	return c;
}

Arena *arena_new(void)
{
	Arena *a = calloc(1, sizeof(Arena));
	if (!a)
		die("out of memory (arena)");
	return a;
}

void arena_free(Arena *a)
{
	if (!a)
		return;
	for (ArenaChunk *c = a->head, *next; c; c = next) {
		next = c->next;
		UNPOISON(c->data, c->size);
		free(c);
	}
	free(a);
}

/*
 * A big request gets its own chunk, linked behind the head so the head's
 * free space is not wasted.
 */
void *arena_alloc(Arena *a, size_t n)
{
	size_t need = (n + REDZONE + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	if (need == 0)
		need = ALIGN;
	ArenaChunk *c = a->head;
	if (!c || c->size - c->used < need) {
		if (need > CHUNK_SIZE / 4) {
			c = chunk_new(need);
			if (a->head) {
				c->next = a->head->next;
				a->head->next = c;
			} else {
				a->head = c;
			}
		} else {
			c = chunk_new(CHUNK_SIZE);
			c->next = a->head;
			a->head = c;
		}
	}
	void *p = c->data + c->used;
	c->used += need;
	a->total += need;
	UNPOISON(p, n);
	memset(p, 0, n);
	return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *arena_strdup(Arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *arena_printf(Arena *a, const char *fmt, ...)
{
	va_list ap, ap2;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("arena_printf: bad format '%s'", fmt);
	char *p = arena_alloc(a, (size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap2);
	va_end(ap2);
	return p;
}

/* The old array stays in the arena; only the live copy is returned. */
void *arena_grow(Arena *a, void *p, int *cap, int need, size_t elem)
{
	if (need <= *cap)
		return p;
	int ncap = *cap < 8 ? 8 : *cap * 2;
	if (ncap < need)
		ncap = need;
	void *q = arena_alloc(a, elem * (size_t)ncap);
	if (p && *cap > 0)
		memcpy(q, p, elem * (size_t)*cap);
	*cap = ncap;
	return q;
}

/* ---- growable string ---- */

static void sb_reserve(StrBuf *b, size_t extra)
{
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	size_t ncap = b->cap < 64 ? 64 : b->cap;
	while (ncap < need)
		ncap *= 2;
	char *s = realloc(b->s, ncap);
	if (!s)
		die("out of memory (string of %zu bytes)", ncap);
	b->s = s;
	b->cap = ncap;
}

void sb_putn(StrBuf *b, const char *s, size_t n)
{
	sb_reserve(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void sb_puts(StrBuf *b, const char *s)
{
	sb_putn(b, s, strlen(s));
}

void sb_vprintf(StrBuf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		die("sb_vprintf: bad format '%s'", fmt);
	sb_reserve(b, (size_t)n);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void sb_printf(StrBuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(b, fmt, ap);
	va_end(ap);
}

void sb_free(StrBuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

/* ---- diagnostics ---- */

/*
 * Finds line `line` (1-based) of the source; false when there is none.  The
 * search starts from the last line found where that is nearer than the top
 * (diagnostics come in source order, or in reverse, as unused names do when
 * a scope closes: thousands of warnings are then one scan, not one each).
 */
static bool find_line(Diag *d, int line, const char **start, size_t *len)
{
	const Source *src = d->src;
	if (!src || !src->text || line < 1)
		return false;
	const char *p = src->text, *end = src->text + src->len;
	int i = 1;
	if (d->at_src == src && d->at_line > 0 && d->at_line - line < line) {
		i = d->at_line;
		p = d->at;
		for (; i > line; i--) /* back to the start of the line before */
			for (p--; p > src->text && p[-1] != '\n'; p--)
				;
	}
	for (; i < line; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return false;
		p = nl + 1;
	}
	d->at_src = src;
	d->at_line = line;
	d->at = p;
	if (p >= end)
		return false;
	const char *q = memchr(p, '\n', (size_t)(end - p));
	size_t n = q ? (size_t)(q - p) : (size_t)(end - p);
	if (n > 0 && p[n - 1] == '\r')
		n--;
	*start = p;
	*len = n;
	return true;
}

static void put_source_line(StrBuf *b, Diag *d, Loc loc)
{
	const char *s;
	size_t n;
	if (!find_line(d, loc.line, &s, &n))
		return;
	sb_putn(b, s, n);
	sb_puts(b, "\n");
	if (loc.col < 1)
		return;
	for (size_t i = 0; i + 1 < (size_t)loc.col; i++)
		sb_puts(b, i < n && s[i] == '\t' ? "\t" : " ");
	sb_puts(b, "^\n");
}

static void report(Diag *d, Loc loc, const char *kind, const char *fmt, va_list ap)
{
	const char *name = d->src && d->src->name ? d->src->name : "tilec";
	if (loc.line > 0 && loc.col > 0)
		sb_printf(&d->out, "%s:%d:%d: %s: ", name, loc.line, loc.col, kind);
	else if (loc.line > 0)
		sb_printf(&d->out, "%s:%d: %s: ", name, loc.line, kind);
	else
		sb_printf(&d->out, "%s: %s: ", name, kind);
	sb_vprintf(&d->out, fmt, ap);
	sb_puts(&d->out, "\n");
	put_source_line(&d->out, d, loc);
}

/* The calls an error or warning at loc sits in, innermost first (the first 16). */
static void report_frames(Diag *d, Loc loc)
{
	const char *name = d->src && d->src->name ? d->src->name : "tilec";
	int n = 0;
	for (const DiagFrame *f = loc.in ? loc.in : d->frames; f; f = f->up, n++) {
		if (n == 16) {
			int more = 0;
			for (; f; f = f->up)
				more++;
			sb_printf(&d->out, "%s: note: and %d more call%s\n", name, more, more == 1 ? "" : "s");
			return;
		}
		sb_printf(&d->out, "%s:%d:%d: note: in this call to '%s'\n", name, f->call.line, f->call.col, f->fn);
		put_source_line(&d->out, d, f->call);
	}
}

/* After an error: back to the entry point, or out of the program. */
NORETURN static void bail(Diag *d)
{
	if (d->jmp)
		longjmp(*d->jmp, 1);
	if (d->out.s)
		fputs(d->out.s, stderr);
	exit(1);
}

void error_at(Diag *d, Loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(d, loc, "error", fmt, ap);
	va_end(ap);
	report_frames(d, loc);
	d->nerrors++;
	bail(d);
}

void warn_at(Diag *d, Loc loc, const char *fmt, ...)
{
	if (d->nowarn)
		return;
	va_list ap;
	va_start(ap, fmt);
	report(d, loc, d->werror ? "error" : "warning", fmt, ap);
	va_end(ap);
	report_frames(d, loc);
	if (!d->werror) {
		d->nwarnings++;
		return;
	}
	d->nerrors++;
	bail(d);
}

/* Notes follow the warning they explain, so -w silences them too. */
void note_at(Diag *d, Loc loc, const char *fmt, ...)
{
	if (d->nowarn)
		return;
	va_list ap;
	va_start(ap, fmt);
	report(d, loc, "note", fmt, ap);
	va_end(ap);
}

void error_plain(Diag *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_puts(&d->out, "tilec: error: ");
	sb_vprintf(&d->out, fmt, ap);
	sb_puts(&d->out, "\n");
	va_end(ap);
	d->nerrors++;
	bail(d);
}

void die_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fflush(stdout);
	fprintf(stderr, "tilec: internal compiler error at %s:%d: ", file, line);
	vfprintf(stderr, fmt, ap);
	fputs("\n", stderr);
	va_end(ap);
	abort();
}

/* ---- small helpers ---- */

double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Reads in blocks, so pipes and /dev/stdin work as well as files. */
char *read_file(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (!f)
		return NULL;
	size_t n = 0, cap = 4096;
	char *buf = malloc(cap);
	while (buf) {
		if (cap - n < 2) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	bool bad = ferror(f) != 0;
	if (f != stdin)
		fclose(f);
	if (!buf || bad) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}
