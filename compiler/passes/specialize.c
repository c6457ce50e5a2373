/*
 * passes/specialize.c: pass_specialize applies launch hints on integer
 * parameters, as Triton specialises on its arguments.  "n=16,stride=16":
 * the caller promises n and stride are multiples of 16 (recorded in
 * f->param_div, where the axis analysis reads them).  "stride=1": the
 * parameter *is* 1 (a divisibility of 1 would say nothing): its uses are
 * replaced by the constant, so `k * stride` folds and a unit-stride tile is
 * seen to be contiguous.  A hint is a promise made for this compiled kernel;
 * the runtime makes it only for arguments that keep it.  A hint is a power of
 * two; an unknown or non-integer parameter, one named twice, or a malformed
 * list, is a user error.
 */
#include "compile.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static int find_param(Func *f, const char *name, size_t len)
{
	for (int i = 0; i < f->nparams; i++) {
		const char *p = f->param_names ? f->param_names[i] : NULL;
		if (p && strlen(p) == len && !strncmp(p, name, len))
			return i;
	}
	return -1;
}

/* Parameter i is known to be 1: every use of it becomes a constant 1. */
static void replace_by_one(Func *f, int i)
{
	ValId arg = f->entry->args[i];
	Builder b = {.f = f, .at = f->entry, .before = f->entry->first};
	ValId one = b_const_int(&b, (ElemKind)vtype(f, arg).elem, 1);
	ir_replace_uses(f, arg, one);
}

/* One "name=value" item of s[0..len); seen[i]: parameter i had an item before. */
static void hint(Func *f, const char *s, size_t len, bool *seen)
{
	while (len && isspace((unsigned char)*s))
		s++, len--;
	const char *eq = memchr(s, '=', len);
	if (!eq)
		error_plain(f->diag, "--hints: expected NAME=VALUE, got '%.*s'", (int)len, s);
	size_t nlen = (size_t)(eq - s);
	while (nlen && isspace((unsigned char)s[nlen - 1]))
		nlen--;
	int i = find_param(f, s, nlen);
	if (i < 0)
		error_plain(f->diag, "--hints: kernel '%s' has no parameter '%.*s'", f->name ? f->name : "?", (int)nlen,
		            s);
	if (seen[i])
		error_plain(f->diag, "--hints: parameter '%.*s' is given more than once", (int)nlen, s);
	seen[i] = true;
	Type t = vtype(f, f->entry->args[i]);
	if (t.rank != 0 || t.elem == TY_I1 || !elem_is_int(t.elem))
		error_plain(f->diag, "--hints: parameter '%.*s' is not an integer", (int)nlen, s);
	char buf[32];
	size_t vlen = (size_t)(s + len - (eq + 1));
	if (vlen >= sizeof buf)
		vlen = sizeof buf - 1;
	memcpy(buf, eq + 1, vlen);
	buf[vlen] = 0;
	char *end;
	long v = strtol(buf, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (end == buf || *end || v < 1 || v > (1L << 30) || !is_pow2(v))
		error_plain(f->diag, "--hints: '%.*s' needs a power of two, got '%s'", (int)nlen, s, buf);
	if (v == 1)
		replace_by_one(f, i);
	else
		f->param_div[i] = (int)v;
}

void pass_specialize(Func *f, const char *div_hints)
{
	if (!f->param_div) {
		f->param_div = NEWN(f->arena, int, f->nparams + 1);
		for (int i = 0; i < f->nparams; i++)
			f->param_div[i] = 1;
	}
	if (!div_hints)
		return;
	bool *seen = NEWN(f->arena, bool, f->nparams + 1);
	for (const char *s = div_hints; *s;) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		if (len)
			hint(f, s, len, seen);
		s += len + (comma ? 1 : 0);
	}
}
