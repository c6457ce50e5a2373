/*
 * ast_dump.c: the text forms behind `tilec --emit=tokens` and `--emit=ast`.
 *
 * Tokens, one a line, as `line:col KIND 'text'`; literals also show the
 * value the lexer computed:
 *
 *     2:2 LET 'let'
 *     2:10 INT '0x1_0' 16
 *     2:18 FLOAT '.5' 0.5
 *     4:1 EOF ''
 *
 * The AST is an S-expression: statements one a line, indented two spaces
 * per level, each expression on its statement's line.  The dump is stable
 * (no addresses), so tests can FileCheck it.  For
 *
 *     @num_warps(8)
 *     kernel k(x: *f32, n: i32, B: const i32 = 64) {
 *         var acc = zeros([B], f32);
 *         for i in range(0, n, B) { acc += load(x + i + arange(0, B), mask=i < n); }
 *         if n > 0 { store(x, sum(acc, 0)); } else { return; }
 *     }
 *
 * it prints
 *
 *     (kernel k
 *       (attr num_warps (int 8))
 *       (param x *f32)
 *       (param n i32)
 *       (param B const i32 (int 64))
 *       (block
 *         (var acc (call zeros (list (name B)) f32))
 *         (for i (range (int 0) (name n) (name B))
 *           (block
 *             (assign acc += (call load (+ (+ (name x) (name i)) (call arange (int 0) (name B)))
 *                                        mask=(< (name i) (name n))))))      <- one line in fact
 *         (if (> (name n) (int 0))
 *           (block
 *             (expr (call store (name x) (call sum (name acc) (int 0)))))
 *           (block
 *             (return)))))
 *
 * Atoms: (int 8), (float 0.5) (always with a '.' or an exponent),
 * (bool true), (name x), a type name (f32, *f16), and `:` and `None`
 * inside (index e ...); (list e ...) is a shape; a keyword argument is
 * name=e.  Operators print as their spelling, a unary one with one
 * operand: (- (name x)).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "ir.h"
#include "token.h"

/* The shortest %g form that reads back as the same double, with a '.' or
 * an exponent so it never reads as an integer: 0.5, 2500.0, 1e-06. */
static void put_float(StrBuf *out, double v)
{
	char buf[64];
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (strchr(buf, 'e') && fabs(v) < 1e16 && v == (double)(int64_t)v)
		snprintf(buf, sizeof buf, "%.0f", v);
	sb_puts(out, buf);
	if (!strpbrk(buf, ".einf"))
		sb_puts(out, ".0");
}

void tokens_dump(StrBuf *out, const Token *toks, int ntok)
{
	for (int i = 0; i < ntok; i++) {
		const Token *t = &toks[i];
		sb_printf(out, "%d:%d %s '%.*s'", t->loc.line, t->loc.col, tok_name[t->kind], t->len, t->start);
		if (t->kind == TK_INT)
			sb_printf(out, " %lld", (long long)t->ival);
		if (t->kind == TK_FLOAT) {
			sb_puts(out, " ");
			put_float(out, t->fval);
		}
		sb_puts(out, "\n");
	}
}

static void put_type(StrBuf *out, TypeSpec ty)
{
	sb_printf(out, "%s%s", ty.is_ptr ? "*" : "", elem_name((ElemKind)ty.elem));
}

static void put_expr(StrBuf *out, const Node *n);

static void put_args(StrBuf *out, Node *const *args, int nargs)
{
	for (int i = 0; i < nargs; i++) {
		sb_puts(out, " ");
		if (args[i]->argname)
			sb_printf(out, "%s=", args[i]->argname);
		put_expr(out, args[i]);
	}
}

static void put_expr(StrBuf *out, const Node *n)
{
	switch (n->kind) {
	case ND_INT: sb_printf(out, "(int %lld)", (long long)n->ival); return;
	case ND_FLOAT: sb_puts(out, "(float "); put_float(out, n->fval); sb_puts(out, ")"); return;
	case ND_STR: sb_printf(out, "(str \"%s\")", n->name); return;
	case ND_BOOL: sb_puts(out, n->ival ? "(bool true)" : "(bool false)"); return;
	case ND_NONE: sb_puts(out, "None"); return;
	case ND_SLICE: sb_puts(out, ":"); return;
	case ND_NAME: sb_printf(out, "(name %s)", n->name); return;
	case ND_TYPE: put_type(out, n->ty); return;
	case ND_UNARY:
		sb_printf(out, "(%s ", tok_text[n->op]);
		put_expr(out, n->lhs);
		sb_puts(out, ")");
		return;
	case ND_BINARY:
		sb_printf(out, "(%s ", tok_text[n->op]);
		put_expr(out, n->lhs);
		sb_puts(out, " ");
		put_expr(out, n->rhs);
		sb_puts(out, ")");
		return;
	case ND_CALL: sb_printf(out, "(call %s", n->name); break;
	case ND_INDEX: sb_puts(out, "(index "); put_expr(out, n->lhs); break;
	case ND_LIST: sb_puts(out, "(list"); break;
	case ND_TUPLE: sb_puts(out, "(tuple"); break;
	default: die("put_expr: node kind %d is not an expression", n->kind);
	}
	put_args(out, n->args, n->nargs);
	sb_puts(out, ")");
}

static void indent(StrBuf *out, int depth)
{
	sb_printf(out, "\n%*s", 2 * depth, "");
}

static void put_stmt(StrBuf *out, const Node *n, int depth)
{
	indent(out, depth);
	switch (n->kind) {
	case ND_LET:
	case ND_VAR:
		sb_printf(out, "(%s %s ", n->kind == ND_LET ? "let" : "var", n->name);
		put_expr(out, n->lhs);
		break;
	case ND_ASSIGN:
		sb_printf(out, "(assign %s %s ", n->name, tok_text[n->op]);
		put_expr(out, n->lhs);
		break;
	case ND_UNPACK:
		sb_printf(out, "(unpack %s", n->op == TK_ASSIGN ? "=" : tok_text[n->op]);
		put_args(out, n->args, n->nargs);
		sb_puts(out, " ");
		put_expr(out, n->lhs);
		break;
	case ND_EXPR:
		sb_puts(out, "(expr ");
		put_expr(out, n->lhs);
		break;
	case ND_RETURN:
		sb_puts(out, "(return");
		if (n->lhs) {
			sb_puts(out, " ");
			put_expr(out, n->lhs);
		}
		put_args(out, n->args, n->nargs);
		break;
	case ND_FOR:
		sb_printf(out, "(for %s (%s", n->name, n->op ? "static_range" : "range");
		put_args(out, n->args, n->nargs);
		sb_puts(out, ")");
		put_stmt(out, n->body, depth + 1);
		break;
	case ND_IF:
		sb_puts(out, "(if ");
		put_expr(out, n->lhs);
		put_stmt(out, n->body, depth + 1);
		if (n->else_)
			put_stmt(out, n->else_, depth + 1);
		break;
	case ND_WHILE:
		sb_puts(out, "(while ");
		put_expr(out, n->lhs);
		put_stmt(out, n->body, depth + 1);
		break;
	case ND_BLOCK:
		sb_puts(out, "(block");
		for (int i = 0; i < n->nstmts; i++)
			put_stmt(out, n->stmts[i], depth + 1);
		break;
	default: die("put_stmt: node kind %d is not a statement", n->kind);
	}
	sb_puts(out, ")");
}

static void put_kernel(StrBuf *out, const Kernel *k)
{
	sb_printf(out, "(%s %s", k->is_fn ? "fn" : "kernel", k->name);
	for (int i = 0; i < k->nattrs; i++) {
		sb_printf(out, "\n  (attr %s ", k->attrs[i].name);
		put_expr(out, k->attrs[i].arg);
		sb_puts(out, ")");
	}
	for (int i = 0; i < k->nparams; i++) {
		const Param *pm = &k->params[i];
		sb_printf(out, "\n  (param %s", pm->name);
		if (!k->is_fn) {
			sb_printf(out, " %s", pm->is_const ? "const " : "");
			put_type(out, pm->ty);
		}
		if (pm->defval) {
			sb_puts(out, " ");
			put_expr(out, pm->defval);
		}
		sb_puts(out, ")");
	}
	put_stmt(out, k->body, 1);
	sb_puts(out, ")\n");
}

/* Kernels and fns in the order of the source. */
void ast_dump(StrBuf *out, const Program *p)
{
	int i = 0, j = 0;
	while (i < p->nkernels || j < p->nfns) {
		bool fn = i == p->nkernels || (j < p->nfns && (p->fns[j]->loc.line < p->kernels[i]->loc.line ||
							      (p->fns[j]->loc.line == p->kernels[i]->loc.line &&
							       p->fns[j]->loc.col < p->kernels[i]->loc.col)));
		put_kernel(out, fn ? p->fns[j++] : p->kernels[i++]);
	}
}
