/*
 * parse.c: recursive descent from tokens to the AST (ast.h).
 *
 * One function per grammar rule of docs/language.md, named after it and
 * headed by the rule (chibicc style).  The binary-operator levels share
 * one loop, chain(), that takes the next-tighter rule and the operators
 * of its level.  The parser reads the token array through a cursor,
 * p->tok; the array ends with TK_EOF, so one token of lookahead past any
 * non-EOF token is always safe.
 *
 * Errors go through error_at() at the offending token and stop the parse.
 * Two exceptions, as in clang: a missing ';' is reported just after the
 * previous token, where the ';' belongs, not at the next line's first
 * token; and so is an unexpected end of file, which has no text to show.
 * Nesting (blocks, parentheses, unary operators, else-if chains, and the
 * operators of one `a + b + ...` chain or the indexes of one `x[:][:]...`,
 * which make a deep tree) beyond
 * MAX_NESTING levels is an error, so no input can overflow the stack here or
 * in the passes that recurse on the tree.
 *
 * Node locations: literals and names at their token; unary and binary
 * expressions at the operator; calls at the function name; index and list
 * expressions at their '['; statements at their first token, except
 * `let`, `var` and assignments, which sit at the name they bind; an
 * attribute at its name.  A keyword argument `mask=e` moves e's location
 * to the keyword, which is what messages about the argument point at.
 */
#include <string.h>

#include "ast.h"
#include "ir.h"
#include "token.h"

typedef struct P {
	Arena *arena;
	Diag *diag;
	Token *tok;   /* current token */
	Token *first; /* the first token, which has none before it */
	int depth;
} P;

static Node *expr(P *p);
static Node *block(P *p);

/* ---- token helpers ---- */

static bool at(P *p, TokKind k) { return p->tok->kind == k; }

static bool consume(P *p, TokKind k)
{
	if (!at(p, k))
		return false;
	p->tok++;
	return true;
}

static char *spell(P *p, const Token *t) { return arena_strndup(p->arena, t->start, (size_t)t->len); }

/* "'text'" for messages, or "end of file". */
static const char *found(P *p, const Token *t)
{
	if (t->kind == TK_EOF)
		return "end of file";
	int n = t->len > 32 ? 32 : t->len;
	return arena_printf(p->arena, "'%.*s%s'", n, t->start, t->len > n ? "..." : "");
}

/* Just past the previous token: where a missing token belongs. */
static Loc after_prev(P *p)
{
	if (p->tok == p->first)
		return p->tok->loc;
	Token *prev = p->tok - 1;
	return (Loc){.line = prev->loc.line, .col = prev->loc.col + prev->len};
}

/*
 * `what` describes where the token is missing: "after expression".  The end
 * of the file has no text to point at, so that error points just past the
 * last token.
 */
static NORETURN void expected(P *p, const char *thing, const char *what)
{
	if (at(p, TK_EOF))
		error_at(p->diag, after_prev(p), "unexpected end of file, expected %s", thing);
	error_at(p->diag, p->tok->loc, "expected %s%s%s, found %s", thing, what ? " " : "", what ? what : "",
	         found(p, p->tok));
}

static Token *expect(P *p, TokKind k, const char *what)
{
	if (!at(p, k))
		expected(p, arena_printf(p->arena, "'%s'", tok_text[k]), what);
	return p->tok++;
}

static Token *expect_ident(P *p, const char *thing, const char *what)
{
	if (!at(p, TK_IDENT))
		expected(p, thing, what);
	return p->tok++;
}

/* A missing ';' is shown where it belongs: right after the previous token. */
static void expect_semi(P *p, const char *what)
{
	if (consume(p, TK_SEMI))
		return;
	if (at(p, TK_EOF))
		expected(p, "';'", what);
	error_at(p->diag, after_prev(p), "expected ';' %s", what);
}

static void enter(P *p)
{
	if (++p->depth > MAX_NESTING)
		error_at(p->diag, p->tok->loc, "nesting too deep (more than %d levels)", MAX_NESTING);
}

/*
 * A chain `a + b + c ...` is a loop here but a left-leaning tree for every
 * later pass, which recurses on it: each operator counts as a level.
 */
static void enter_operator(P *p)
{
	if (++p->depth > MAX_NESTING)
		error_at(p->diag, p->tok->loc, "expression too long or too deeply nested (more than %d levels)",
		         MAX_NESTING);
}

static void leave(P *p) { p->depth--; }

static Node *new_node(P *p, NodeKind k, Loc loc)
{
	Node *n = NEW(p->arena, Node);
	n->kind = k;
	n->loc = loc;
	return n;
}

/* Append to an arena array of Node pointers. */
static void push_node(P *p, Node ***v, int *n, int *cap, Node *x)
{
	*v = arena_grow(p->arena, *v, cap, *n + 1, sizeof(Node *));
	(*v)[(*n)++] = x;
}

static bool is_assign_op(TokKind k)
{
	return k == TK_ASSIGN || k == TK_PLUSEQ || k == TK_MINUSEQ || k == TK_STAREQ || k == TK_SLASHEQ ||
	       k == TK_PERCENTEQ;
}

/* ---- types ---- */

// type = "*" IDENT | IDENT
static TypeSpec type(P *p)
{
	TypeSpec ty = {.loc = p->tok->loc};
	ty.is_ptr = consume(p, TK_STAR);
	Token *name = expect_ident(p, "a type", ty.is_ptr ? "after '*'" : NULL);
	ty.elem = (int)elem_from_name(name->start, name->len);
	if (ty.elem == TY_VOID)
		error_at(p->diag, name->loc, "unknown type '%.*s'", name->len, name->start);
	return ty;
}

/* ---- expressions ---- */

// arg = (IDENT "=")? expr
static Node *arg(P *p)
{
	if (!at(p, TK_IDENT) || p->tok[1].kind != TK_ASSIGN)
		return expr(p);
	Token *kw = p->tok;
	p->tok += 2;
	Node *n = expr(p);
	n->argname = spell(p, kw);
	n->loc = kw->loc;
	return n;
}

// args = arg ("," arg)* ","?
// Parsed up to and including the closing ')'; an empty list is allowed
// here and refused by the caller where the grammar needs one.
static void args(P *p, Node *n, const char *what)
{
	int cap = 0;
	while (!at(p, TK_RPAREN)) {
		push_node(p, &n->args, &n->nargs, &cap, arg(p));
		if (!consume(p, TK_COMMA))
			break;
	}
	if (!at(p, TK_RPAREN))
		expected(p, "',' or ')'", what);
	p->tok++;
}

// index = ":" | "None"
static Node *index_(P *p)
{
	Token *t = p->tok;
	if (consume(p, TK_COLON))
		return new_node(p, ND_SLICE, t->loc);
	if (consume(p, TK_NONE))
		return new_node(p, ND_NONE, t->loc);
	if (at(p, TK_EOF))
		expected(p, "':' or 'None'", NULL);
	error_at(p->diag, t->loc, "an index is ':' or 'None' (tiles are not indexed by value), found %s",
	         found(p, t));
}

// list = "[" expr ("," expr)* "]"     (the shape form of primary)
static Node *list(P *p)
{
	Node *n = new_node(p, ND_LIST, p->tok->loc);
	int cap = 0;
	p->tok++;
	do
		push_node(p, &n->args, &n->nargs, &cap, expr(p));
	while (consume(p, TK_COMMA));
	if (!at(p, TK_RBRACK))
		expected(p, "',' or ']'", "in list");
	p->tok++;
	return n;
}

// primary = INT | FLOAT | STRING | "true" | "false" | IDENT | IDENT "(" args? ")"
//         | "(" expr ("," expr)* ","? ")" | "[" expr ("," expr)* "]" | "*" IDENT
static Node *primary(P *p)
{
	Token *t = p->tok;
	Node *n;
	switch (t->kind) {
	case TK_INT:
	case TK_FLOAT:
	case TK_TRUE:
	case TK_FALSE:
		n = new_node(p, t->kind == TK_FLOAT ? ND_FLOAT : t->kind == TK_INT ? ND_INT : ND_BOOL, t->loc);
		n->ival = t->kind == TK_TRUE ? 1 : t->ival;
		n->fval = t->fval;
		p->tok++;
		return n;
	case TK_STRING:
		n = new_node(p, ND_STR, t->loc);
		n->name = arena_printf(p->arena, "%.*s", t->len - 2, t->start + 1);
		p->tok++;
		return n;
	case TK_IDENT:
		p->tok++;
		if (consume(p, TK_LPAREN)) {
			n = new_node(p, ND_CALL, t->loc);
			n->name = spell(p, t);
			args(p, n, arena_printf(p->arena, "in the arguments of '%s'", n->name));
			return n;
		}
		if (elem_from_name(t->start, t->len) != TY_VOID) {
			n = new_node(p, ND_TYPE, t->loc);
			n->ty = (TypeSpec){.elem = (int)elem_from_name(t->start, t->len), .loc = t->loc};
			n->name = spell(p, t);
			return n;
		}
		n = new_node(p, ND_NAME, t->loc);
		n->name = spell(p, t);
		return n;
	case TK_LPAREN: {
		p->tok++;
		n = expr(p);
		if (!at(p, TK_COMMA)) {
			expect(p, TK_RPAREN, "to close '('");
			return n;
		}
		Node *tup = new_node(p, ND_TUPLE, t->loc);
		int cap = 0;
		push_node(p, &tup->args, &tup->nargs, &cap, n);
		while (consume(p, TK_COMMA) && !at(p, TK_RPAREN)) /* (x,) is a tuple of one, as in Python */
			push_node(p, &tup->args, &tup->nargs, &cap, expr(p));
		if (!at(p, TK_RPAREN))
			expected(p, "',' or ')'", "in tuple");
		p->tok++;
		return tup;
	}
	case TK_LBRACK:
		return list(p);
	case TK_STAR:
		n = new_node(p, ND_TYPE, t->loc);
		n->ty = type(p);
		return n;
	case TK_NONE:
		error_at(p->diag, t->loc, "'None' is only allowed inside an index, as in x[:, None]");
	default:
		expected(p, "expression", NULL);
	}
}

// postfix = primary ("[" index ("," index)* "]")*
// Each index is a level of the tree, like an operator of a chain.
static Node *postfix(P *p)
{
	Node *n = primary(p);
	int depth0 = p->depth;
	for (;;) {
		if (at(p, TK_LPAREN))
			error_at(p->diag, p->tok->loc, "only a named function can be called");
		if (!at(p, TK_LBRACK)) {
			p->depth = depth0;
			return n;
		}
		enter_operator(p);
		Node *ix = new_node(p, ND_INDEX, p->tok->loc);
		int cap = 0;
		p->tok++;
		ix->lhs = n;
		do
			push_node(p, &ix->args, &ix->nargs, &cap, index_(p));
		while (consume(p, TK_COMMA));
		if (!at(p, TK_RBRACK))
			expected(p, "',' or ']'", "in index");
		p->tok++;
		n = ix;
	}
}

// unary = ("-" | "!" | "~") unary | postfix
static Node *unary(P *p)
{
	if (!at(p, TK_MINUS) && !at(p, TK_BANG) && !at(p, TK_TILDE))
		return postfix(p);
	Node *n = new_node(p, ND_UNARY, p->tok->loc);
	n->op = p->tok->kind;
	p->tok++;
	enter(p);
	n->lhs = unary(p);
	leave(p);
	return n;
}

/* One left-associative level: next (op next)*, ops ending in 0 (TK_EOF). */
static Node *chain(P *p, Node *(*next)(P *), const int *ops)
{
	Node *n = next(p);
	int depth0 = p->depth;
	for (;;) {
		const int *o = ops;
		while (*o && *o != (int)p->tok->kind)
			o++;
		if (!*o)
			break;
		enter_operator(p);
		Node *b = new_node(p, ND_BINARY, p->tok->loc);
		b->op = *o;
		p->tok++;
		b->lhs = n;
		b->rhs = next(p);
		n = b;
	}
	p->depth = depth0;
	return n;
}

// mul = unary (("*" | "/" | "%") unary)*
static Node *mul(P *p) { return chain(p, unary, (const int[]){TK_STAR, TK_SLASH, TK_PERCENT, 0}); }
// add = mul (("+" | "-") mul)*
static Node *add(P *p) { return chain(p, mul, (const int[]){TK_PLUS, TK_MINUS, 0}); }
// shift = add (("<<" | ">>") add)*
static Node *shift(P *p) { return chain(p, add, (const int[]){TK_SHL, TK_SHR, 0}); }
// relational = shift (("<" | "<=" | ">" | ">=") shift)*
static Node *relational(P *p) { return chain(p, shift, (const int[]){TK_LT, TK_LE, TK_GT, TK_GE, 0}); }
// equality = relational (("==" | "!=") relational)*
static Node *equality(P *p) { return chain(p, relational, (const int[]){TK_EQ, TK_NE, 0}); }
// bitand = equality ("&" equality)*
static Node *bitand(P *p) { return chain(p, equality, (const int[]){TK_AMP, 0}); }
// bitxor = bitand ("^" bitand)*
static Node *bitxor(P *p) { return chain(p, bitand, (const int[]){TK_CARET, 0}); }
// bitor = bitxor ("|" bitxor)*
static Node *bitor(P *p) { return chain(p, bitxor, (const int[]){TK_PIPE, 0}); }
// logand = bitor ("&&" bitor)*
static Node *logand(P *p) { return chain(p, bitor, (const int[]){TK_ANDAND, 0}); }
// logor = logand ("||" logand)*
static Node *logor(P *p) { return chain(p, logand, (const int[]){TK_OROR, 0}); }

// expr = logor
static Node *expr(P *p)
{
	enter(p);
	Node *n = logor(p);
	leave(p);
	return n;
}

/* ---- statements ---- */

// names = IDENT ("," IDENT)+ "=" expr ";"      (after `let`, `var` or nothing)
// The values an fn returns, one name each.
static Node *unpack(P *p, TokKind kw)
{
	Node *n = new_node(p, ND_UNPACK, p->tok->loc);
	n->op = kw;
	int cap = 0;
	do {
		Token *name = expect_ident(p, "a variable name", "after ','");
		Node *x = new_node(p, ND_NAME, name->loc);
		x->name = spell(p, name);
		push_node(p, &n->args, &n->nargs, &cap, x);
	} while (consume(p, TK_COMMA));
	expect(p, TK_ASSIGN, "after the names");
	n->lhs = expr(p);
	expect_semi(p, "after expression");
	return n;
}

// "let" IDENT "=" expr ";"  |  "var" IDENT "=" expr ";"  |  ("let" | "var") names
static Node *let_stmt(P *p)
{
	Token *kw = p->tok++;
	const char *what = arena_printf(p->arena, "after '%s'", tok_text[kw->kind]);
	Token *name = expect_ident(p, "a variable name", what);
	if (at(p, TK_COMMA)) {
		p->tok = name;
		return unpack(p, kw->kind);
	}
	Node *n = new_node(p, kw->kind == TK_LET ? ND_LET : ND_VAR, name->loc);
	n->name = spell(p, name);
	expect(p, TK_ASSIGN, arena_printf(p->arena, "after '%s %s'", tok_text[kw->kind], n->name));
	n->lhs = expr(p);
	expect_semi(p, "after expression");
	return n;
}

/* At `a, b, ... =`: a multiple assignment rather than an expression. */
static bool at_unpack(P *p)
{
	Token *t = p->tok;
	while (t->kind == TK_IDENT && t[1].kind == TK_COMMA)
		t += 2;
	return t != p->tok && t->kind == TK_IDENT && t[1].kind == TK_ASSIGN;
}

// IDENT ("=" | "+=" | "-=" | "*=" | "/=" | "%=") expr ";"
static Node *assign_stmt(P *p)
{
	Token *name = p->tok++;
	Node *n = new_node(p, ND_ASSIGN, name->loc);
	n->name = spell(p, name);
	n->op = p->tok->kind;
	p->tok++;
	n->lhs = expr(p);
	expect_semi(p, "after expression");
	return n;
}

// "for" IDENT "in" ("range" | "static_range") "(" args ")" block
static Node *for_stmt(P *p)
{
	Node *n = new_node(p, ND_FOR, p->tok->loc);
	p->tok++;
	n->name = spell(p, expect_ident(p, "a loop variable", "after 'for'"));
	expect(p, TK_IN, arena_printf(p->arena, "after 'for %s'", n->name));
	bool plain = at(p, TK_IDENT) && p->tok->len == 5 && !memcmp(p->tok->start, "range", 5);
	n->op = at(p, TK_IDENT) && p->tok->len == 12 && !memcmp(p->tok->start, "static_range", 12);
	if (!plain && !n->op)
		error_at(p->diag, p->tok->loc, "'range' or 'static_range' expected after 'in', found %s", found(p, p->tok));
	const char *what = n->op ? "static_range" : "range";
	p->tok++;
	expect(p, TK_LPAREN, arena_printf(p->arena, "after '%s'", what));
	if (at(p, TK_RPAREN))
		expected(p, "expression", arena_printf(p->arena, "in '%s()'", what));
	args(p, n, arena_printf(p->arena, "in '%s(...)'", what));
	n->body = block(p);
	return n;
}

// if-stmt = "if" expr block ("else" (block | if-stmt))?
static Node *if_stmt(P *p)
{
	Node *n = new_node(p, ND_IF, p->tok->loc);
	p->tok++;
	enter(p);
	n->lhs = expr(p);
	n->body = block(p);
	if (consume(p, TK_ELSE))
		n->else_ = at(p, TK_IF) ? if_stmt(p) : block(p);
	leave(p);
	return n;
}

// "while" expr block
static Node *while_stmt(P *p)
{
	Node *n = new_node(p, ND_WHILE, p->tok->loc);
	p->tok++;
	enter(p);
	n->lhs = expr(p);
	n->body = block(p);
	leave(p);
	return n;
}

// stmt = "let" IDENT "=" expr ";"
//      | "var" IDENT "=" expr ";"
//      | ("let" | "var")? IDENT ("," IDENT)+ "=" expr ";"
//      | IDENT ("=" | "+=" | "-=" | "*=" | "/=" | "%=") expr ";"
//      | "for" IDENT "in" ("range" | "static_range") "(" args ")" block
//      | "if" expr block ("else" (block | if-stmt))?
//      | "while" expr block
//      | "return" (expr ("," expr)*)? ";"
//      | expr ";"
static Node *stmt(P *p)
{
	Token *t = p->tok;
	switch (t->kind) {
	case TK_LET:
	case TK_VAR:
		return let_stmt(p);
	case TK_FOR:
		return for_stmt(p);
	case TK_IF:
		return if_stmt(p);
	case TK_WHILE:
		return while_stmt(p);
	case TK_ELSE:
		error_at(p->diag, t->loc, "'else' without a matching 'if'");
	case TK_RETURN: {
		p->tok++;
		Node *n = new_node(p, ND_RETURN, t->loc);
		if (!at(p, TK_SEMI))
			n->lhs = expr(p);
		if (at(p, TK_COMMA)) {
			int cap = 0;
			push_node(p, &n->args, &n->nargs, &cap, n->lhs);
			while (consume(p, TK_COMMA))
				push_node(p, &n->args, &n->nargs, &cap, expr(p));
			n->lhs = NULL;
		}
		expect_semi(p, n->lhs || n->nargs ? "after the returned value" : "after 'return'");
		return n;
	}
	case TK_IDENT:
		if (is_assign_op(t[1].kind))
			return assign_stmt(p);
		if (at_unpack(p))
			return unpack(p, TK_ASSIGN);
		break;
	default:
		break;
	}
	Node *n = new_node(p, ND_EXPR, t->loc);
	n->lhs = expr(p);
	if (is_assign_op(p->tok->kind))
		error_at(p->diag, t->loc, "only a variable name can be assigned to");
	expect_semi(p, "after expression");
	return n;
}

// block = "{" stmt* "}"
static Node *block(P *p)
{
	Node *n = new_node(p, ND_BLOCK, p->tok->loc);
	int cap = 0;
	expect(p, TK_LBRACE, NULL);
	enter(p);
	while (!at(p, TK_RBRACE) && !at(p, TK_EOF))
		push_node(p, &n->stmts, &n->nstmts, &cap, stmt(p));
	expect(p, TK_RBRACE, NULL);
	leave(p);
	return n;
}

/* ---- kernels ---- */

// param = IDENT ":" ("const" type ("=" expr)? | type)     (a kernel's)
//       | IDENT ("=" expr)?                             (an fn's)
static Param param(P *p, bool fn)
{
	Token *name = expect_ident(p, "a parameter name", NULL);
	Param pm = {.name = spell(p, name), .loc = name->loc, .ty = {.elem = TY_VOID, .loc = name->loc}};
	if (fn) {
		if (at(p, TK_COLON))
			error_at(p->diag, p->tok->loc,
				 "an fn's parameters have no type: '%s' takes the type of its argument", pm.name);
		if (consume(p, TK_ASSIGN))
			pm.defval = expr(p);
		return pm;
	}
	if (!consume(p, TK_COLON))
		error_at(p->diag, p->tok->loc, "expected ':' and a type after parameter '%s'", pm.name);
	pm.is_const = consume(p, TK_CONST);
	pm.ty = type(p);
	if (at(p, TK_ASSIGN) && !pm.is_const)
		error_at(p->diag, p->tok->loc, "only a const parameter can have a default ('%s: const ...')",
		         pm.name);
	if (consume(p, TK_ASSIGN))
		pm.defval = expr(p);
	return pm;
}

// params = param ("," param)* ","?
// Parsed up to and including the closing ')'.
static void params(P *p, Kernel *k)
{
	int cap = 0;
	while (!at(p, TK_RPAREN)) {
		k->params = arena_grow(p->arena, k->params, &cap, k->nparams + 1, sizeof(Param));
		k->params[k->nparams++] = param(p, k->is_fn);
		if (!consume(p, TK_COMMA))
			break;
	}
	if (!at(p, TK_RPAREN))
		expected(p, "',' or ')'", "in the parameter list");
	p->tok++;
}

// attr = "@" IDENT "(" expr ")"
static Attr attr(P *p)
{
	p->tok++;
	Token *name = expect_ident(p, "an attribute name", "after '@'");
	Attr a = {.name = spell(p, name), .loc = name->loc};
	expect(p, TK_LPAREN, arena_printf(p->arena, "after '@%s'", a.name));
	a.arg = expr(p);
	expect(p, TK_RPAREN, arena_printf(p->arena, "to close '@%s('", a.name));
	return a;
}

// kernel = attr* "kernel" IDENT "(" params? ")" block
static Kernel *kernel(P *p)
{
	Kernel *k = NEW(p->arena, Kernel);
	int cap = 0;
	while (at(p, TK_AT)) {
		k->attrs = arena_grow(p->arena, k->attrs, &cap, k->nattrs + 1, sizeof(Attr));
		k->attrs[k->nattrs++] = attr(p);
	}
	if (at(p, TK_FN) && k->nattrs)
		error_at(p->diag, k->attrs[0].loc, "attributes apply to kernels, not to an fn");
	k->is_fn = consume(p, TK_FN);
	if (!k->is_fn && !k->nattrs && !at(p, TK_KERNEL))
		expected(p, "'kernel' or 'fn'", "at top level");
	if (!k->is_fn)
		expect(p, TK_KERNEL, "after attributes");
	const char *what = k->is_fn ? "fn" : "kernel";
	Token *name = expect_ident(p, arena_printf(p->arena, "a%s %s name", k->is_fn ? "n" : "", what),
				   arena_printf(p->arena, "after '%s'", what));
	k->name = spell(p, name);
	k->loc = name->loc;
	expect(p, TK_LPAREN, arena_printf(p->arena, "after '%s %s'", what, k->name));
	params(p, k);
	k->body = block(p);
	return k;
}

// program = (kernel | fn)*
// fn      = "fn" IDENT "(" params? ")" block
Program *parse_program(Arena *a, Diag *d, Token *toks, int ntok)
{
	ensure(ntok > 0 && toks[ntok - 1].kind == TK_EOF);
	P p = {.arena = a, .diag = d, .tok = toks, .first = toks};
	Program *prog = NEW(a, Program);
	int kcap = 0, fcap = 0;
	while (!at(&p, TK_EOF)) {
		Kernel *k = kernel(&p);
		if (k->is_fn) {
			prog->fns = arena_grow(a, prog->fns, &fcap, prog->nfns + 1, sizeof(Kernel *));
			prog->fns[prog->nfns++] = k;
		} else {
			prog->kernels = arena_grow(a, prog->kernels, &kcap, prog->nkernels + 1, sizeof(Kernel *));
			prog->kernels[prog->nkernels++] = k;
		}
	}
	return prog;
}
