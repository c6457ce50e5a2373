/*
 * ir_parse.c: reads the text form that ir_print writes (docs/ir.md).
 *
 * A hand-written scanner over the characters and a recursive-descent
 * parser named after the grammar, with no backtracking: every choice is
 * made on the next character or word.  Lines matter in two places only:
 * an op's operands, types and attributes are on its own line (so an empty
 * `yield` does not swallow the next op), and a `//` comment on an op's
 * line names its results (the source names ir_print writes there).
 *
 * Names are scoped like the IR: a block's arguments and ops' results are
 * visible to later ops of the block and to nested blocks, so a use that
 * does not resolve is exactly a use its definition does not dominate.
 * Once the function is built, the verifier checks the rest; its complaint
 * is reported at the offending op's line in the IR text.
 *
 * Regions nested more than MAX_NESTING deep are an error, as in the source
 * parser: this parser, the passes and codegen all recurse on them.  The
 * header's num_warps and num_stages take the values the attributes and
 * flags take (compile.h).
 */
#include "ir.h"
#include "compile.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct Sym {
	const char *name;
	ValId v;
} Sym;

typedef struct OpAt {
	Op *op;
	Loc loc;
} OpAt;

typedef struct Parser {
	Arena *arena;
	Diag *d;
	const char *s;          /* the text; NUL-terminated */
	size_t pos, linestart;
	int line;
	int tok_line;           /* line of the last token consumed */
	const char *trail;      /* a // comment on tok_line, if skip() met one */
	size_t trail_len;
	Func *f;
	Sym *syms;
	int nsyms, capsyms;
	OpAt *ops;              /* where each op's line starts, for the verifier's errors */
	int nops, capops;
	Loc layout_use;         /* the highest #N used, to check against the table */
	int max_layout;
	int depth;              /* regions open around the current op */
} Parser;

static Loc here(Parser *p)
{
	return (Loc){.line = p->line, .col = (int)(p->pos - p->linestart) + 1};
}

/* Whitespace and comments.  A `//` comment on the line of the last token is kept in trail. */
static void skip(Parser *p)
{
	for (;;) {
		char c = p->s[p->pos];
		if (c == ' ' || c == '\t' || c == '\r') {
			p->pos++;
		} else if (c == '\n') {
			p->pos++;
			p->line++;
			p->linestart = p->pos;
		} else if (c == '/' && p->s[p->pos + 1] == '/') {
			size_t start = p->pos + 2;
			while (p->s[p->pos] && p->s[p->pos] != '\n')
				p->pos++;
			if (p->line == p->tok_line) {
				p->trail = p->s + start;
				p->trail_len = p->pos - start;
			}
		} else {
			return;
		}
	}
}

static bool is_word(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.';
}

/* Is the next token on the line of the last one? */
static bool same_line(Parser *p)
{
	skip(p);
	return p->line == p->tok_line && p->s[p->pos] != 0;
}

static bool peek(Parser *p, const char *t)
{
	size_t n = strlen(t);
	skip(p);
	if (strncmp(p->s + p->pos, t, n) != 0)
		return false;
	return !is_word(t[n - 1]) || !is_word(p->s[p->pos + n]);
}

static bool accept(Parser *p, const char *t)
{
	if (!peek(p, t))
		return false;
	p->pos += strlen(t);
	p->tok_line = p->line;
	return true;
}

static void expect(Parser *p, const char *t)
{
	if (!accept(p, t))
		error_at(p->d, here(p), "expected '%s'", t);
}

/* word = [A-Za-z0-9_.]+ ; also the text of numbers like -1.5e-3, inf */
static const char *word(Parser *p, const char *what)
{
	skip(p);
	size_t start = p->pos;
	if (p->s[p->pos] == '-' || p->s[p->pos] == '+')
		p->pos++;
	while (is_word(p->s[p->pos]) ||
	       ((p->s[p->pos] == '-' || p->s[p->pos] == '+') && (p->s[p->pos - 1] == 'e' || p->s[p->pos - 1] == 'E')))
		p->pos++;
	if (p->pos == start)
		error_at(p->d, here(p), "expected %s", what);
	p->tok_line = p->line;
	return arena_strndup(p->arena, p->s + start, p->pos - start);
}

/* "text": no '"' or newline inside, as the language's string literals */
static const char *quoted(Parser *p)
{
	skip(p);
	if (p->s[p->pos] != '"')
		error_at(p->d, here(p), "expected a string in double quotes");
	size_t start = ++p->pos;
	while (p->s[p->pos] && p->s[p->pos] != '"' && p->s[p->pos] != '\n')
		p->pos++;
	if (p->s[p->pos] != '"')
		error_at(p->d, here(p), "unterminated string");
	p->tok_line = p->line;
	return arena_strndup(p->arena, p->s + start, p->pos++ - start);
}

static int64_t integer(Parser *p)
{
	Loc l = (skip(p), here(p));
	const char *w = word(p, "an integer");
	char *end;
	long long v = strtoll(w, &end, 10);
	if (*end)
		error_at(p->d, l, "expected an integer, found '%s'", w);
	return v;
}

/* ---- values ---- */

static Sym *lookup(Parser *p, const char *name)
{
	for (int i = p->nsyms - 1; i >= 0; i--)
		if (strcmp(p->syms[i].name, name) == 0)
			return &p->syms[i];
	return NULL;
}

/* val-name = "%" word */
static const char *val_name(Parser *p, Loc *loc)
{
	skip(p);
	*loc = here(p);
	if (p->s[p->pos] != '%')
		error_at(p->d, *loc, "expected a value (%%name)");
	p->pos++;
	if (!is_word(p->s[p->pos]))
		error_at(p->d, here(p), "expected a value name after '%%'");
	return word(p, "a value name");
}

static void define(Parser *p, const char *name, Loc loc, ValId v)
{
	if (lookup(p, name))
		error_at(p->d, loc, "redefinition of %%%s", name);
	p->syms = arena_grow(p->arena, p->syms, &p->capsyms, p->nsyms + 1, sizeof(Sym));
	p->syms[p->nsyms++] = (Sym){name, v};
}

static ValId use(Parser *p)
{
	Loc loc;
	const char *name = val_name(p, &loc);
	Sym *s = lookup(p, name);
	if (!s)
		error_at(p->d, loc, "use of undefined value %%%s", name);
	return s->v;
}

/* ---- types ---- */

/* elem = "*"? IDENT */
static void elem(Parser *p, Type *t)
{
	Loc l = (skip(p), here(p));
	bool ptr = accept(p, "*");
	const char *w = word(p, "a type");
	ElemKind e = elem_from_name(w, (int)strlen(w));
	if (e == TY_VOID)
		error_at(p->d, l, "unknown type '%s'", w);
	*t = type_with_elem(*t, ptr ? TY_PTR : e);
	t->pointee = ptr ? (uint8_t)e : 0;
}

/* type = elem | "tensor" "<" (INT "x")+ elem ">" */
static Type type(Parser *p)
{
	Type t = type_scalar(TY_VOID);
	if (!accept(p, "tensor<")) {
		elem(p, &t);
		return t;
	}
	while (isdigit((unsigned char)p->s[p->pos])) {
		Loc l = here(p);
		char *end;
		long n = strtol(p->s + p->pos, &end, 10);
		p->pos = (size_t)(end - p->s);
		if (t.rank == MAX_RANK || n <= 0 || !is_pow2(n))
			error_at(p->d, l, "tensor dimensions are 1 to %d powers of two", MAX_RANK);
		t.shape[t.rank++] = (int32_t)n;
		if (p->s[p->pos] != 'x')
			error_at(p->d, here(p), "expected 'x' after a dimension");
		p->pos++;
	}
	if (t.rank == 0)
		error_at(p->d, here(p), "expected a dimension");
	elem(p, &t);
	expect(p, ">");
	return t;
}

/* ---- ops ---- */

typedef struct OpText {
	Opcode code;
	Loc loc;                    /* where the op's line starts */
	const char *res[64];        /* result names */
	Loc resloc[64];
	int nres;
	ValId opnds[64 + 3];
	int nopnds;
	const char *args[64 + 1];   /* for: the body's argument names */
	Loc argloc[64 + 1];
	int nargs;
	int64_t iattr[2];
	const char *sattr;          /* print, assert: text= */
	const char *literal;        /* const */
	Loc litloc;
} OpText;

static void add_opnd(Parser *p, OpText *o)
{
	if (o->nopnds == (int)(sizeof o->opnds / sizeof o->opnds[0]))
		error_at(p->d, here(p), "too many operands");
	o->opnds[o->nopnds++] = use(p);
}

/* opnds = val ("," val)*, on the op's line */
static void operands(Parser *p, OpText *o)
{
	if (!same_line(p) || p->s[p->pos] != '%')
		return;
	add_opnd(p, o);
	while (accept(p, ","))
		add_opnd(p, o);
}

static void for_arg(Parser *p, OpText *o)
{
	if (o->nargs == (int)(sizeof o->args / sizeof o->args[0]))
		error_at(p->d, here(p), "too many loop-carried values");
	o->args[o->nargs] = val_name(p, &o->argloc[o->nargs]);
	o->nargs++;
}

/* for-head = val "=" val "to" val "step" val ("iter" "(" val "=" val ("," val "=" val)* ")")? */
/* iter(%arg = %init, ...), if there: a body argument and an operand each */
static void iters(Parser *p, OpText *o)
{
	if (!same_line(p) || !accept(p, "iter"))
		return;
	expect(p, "(");
	do {
		for_arg(p, o);
		expect(p, "=");
		add_opnd(p, o);
	} while (accept(p, ","));
	expect(p, ")");
}

static void for_head(Parser *p, OpText *o)
{
	for_arg(p, o);
	expect(p, "=");
	add_opnd(p, o);
	expect(p, "to");
	add_opnd(p, o);
	expect(p, "step");
	add_opnd(p, o);
	if (same_line(p) && accept(p, "tail"))
		o->iattr[0] = 1;
	if (same_line(p) && accept(p, "stages")) {
		expect(p, "=");
		Loc l = here(p);
		o->iattr[1] = integer(p);
		if (!num_stages_ok(o->iattr[1]))
			error_at(p->d, l, "num_stages must be from 1 to 8, got %lld", (long long)o->iattr[1]);
	}
	iters(p, o);
}

static const char *const pred_names[] = {"eq", "ne", "lt", "le", "gt", "ge"};

/* One of names[first .. n - 1], as a word; its index.  what: "a cmp predicate", for the errors. */
static int64_t name_index(Parser *p, const char *const *names, int first, int n, const char *what)
{
	Loc l = (skip(p), here(p));
	const char *w = word(p, what);
	for (int i = first; i < n; i++)
		if (strcmp(w, names[i]) == 0)
			return i;
	error_at(p->d, l, "unknown %s '%s'", strchr(what, ' ') + 1, w);
}

/* head = the opcode's own syntax, from ir_print.c's print_head */
static void head(Parser *p, OpText *o)
{
	switch (o->code) {
	case OP_CONST:
		skip(p);
		o->litloc = here(p);
		o->literal = word(p, "a constant");
		return;
	case OP_ARANGE:
		o->iattr[0] = integer(p);
		expect(p, ",");
		o->iattr[1] = integer(p);
		return;
	case OP_PROGRAM_ID:
	case OP_NUM_PROGRAMS:
		o->iattr[0] = integer(p);
		return;
	case OP_FOR:
		for_head(p, o);
		return;
	case OP_DO_WHILE:
		iters(p, o);
		return;
	case OP_CMP:
		o->iattr[0] = name_index(p, pred_names, 0, CMP_GE + 1, "a cmp predicate");
		break;
	case OP_ATOMIC:
		o->iattr[0] = name_index(p, atomic_names, 0, ATOM_COUNT, "an atomic kind");
		break;
	default:
		break;
	}
	operands(p, o);
	if (same_line(p) && accept(p, "axis")) {
		expect(p, "=");
		o->iattr[0] = integer(p);
	}
	if (same_line(p) && (accept(p, "tf32") || accept(p, "ieee") || accept(p, "wrap")))
		o->iattr[0] = 1;
	if (o->code == OP_PERMUTE && same_line(p) && accept(p, "dims")) {
		expect(p, "=");
		expect(p, "[");
		for (int i = 0;; i++) {
			Loc l = here(p);
			int64_t d = integer(p);
			if (i >= MAX_RANK || d < 0 || d >= MAX_RANK)
				error_at(p->d, l, "permute dims are at most %d axes from 0 to %d", MAX_RANK, MAX_RANK - 1);
			o->iattr[0] |= d << 2 * i;
			o->iattr[1] = i + 1;
			if (!accept(p, ","))
				break;
		}
		expect(p, "]");
	}
	if (ir_is_atomic(o->code) && same_line(p) && accept(p, "sem")) {
		expect(p, "=");
		o->iattr[1] |= name_index(p, sem_names, 1, SEM_COUNT, "a memory order");
	}
	if (ir_is_atomic(o->code) && same_line(p) && accept(p, "scope")) {
		expect(p, "=");
		o->iattr[1] |= name_index(p, scope_names, 1, SCOPE_COUNT, "a scope") << 4;
	}
	if (o->code == OP_XORPERM && same_line(p) && accept(p, "mask")) {
		expect(p, "=");
		o->iattr[1] = integer(p);
	}
	if ((o->code == OP_PRINT || o->code == OP_ASSERT) && same_line(p) && accept(p, "text")) {
		expect(p, "=");
		o->sattr = quoted(p);
	}
	if (o->code == OP_PRINT && same_line(p) && accept(p, "hex"))
		o->iattr[0] = 1;
	if (o->code == OP_ASSUME) {
		/* divis=D contig=C constancy=K, each optional, in that order */
		int64_t v[3] = {1, 1, 1};
		static const char *const names[3] = {"divis", "contig", "constancy"};
		for (int i = 0; i < 3; i++)
			if (same_line(p) && accept(p, names[i])) {
				expect(p, "=");
				Loc l = here(p);
				v[i] = integer(p);
				if (!is_pow2(v[i]) || v[i] > 1 << 30)
					error_at(p->d, l, "assume's %s is a power of two up to 2^30", names[i]);
			}
		o->iattr[0] = v[0];
		o->iattr[1] = v[1] | v[2] << 32;
	}
	if (o->code == OP_SPLIT && same_line(p) && accept(p, "index")) {
		expect(p, "=");
		o->iattr[0] = integer(p);
	}
	if ((o->code == OP_CUMSUM || o->code == OP_SCAN || o->code == OP_REDUCE) && same_line(p) && accept(p, "reverse"))
		o->iattr[1] = 1; /* on reduce, for the verifier to refuse */
	if ((o->code == OP_REDUCE || o->code == OP_SCAN) && same_line(p) && accept(p, "combine")) {
		/* the region's arguments: an earlier partial, then a later one */
		expect(p, "(");
		do
			for_arg(p, o);
		while (accept(p, ","));
		expect(p, ")");
	}
	if (o->code == OP_DOT && same_line(p) && accept(p, "async"))
		o->iattr[1] = DOT_ASYNC;
	else if (o->code == OP_DOT && same_line(p) && accept(p, "issue"))
		o->iattr[1] = DOT_ISSUE;
	if (o->code == OP_DOT_WAIT && same_line(p) && accept(p, "pending")) {
		expect(p, "=");
		o->iattr[0] = integer(p);
	}
	if (o->code == OP_LOCAL_LOAD) {
		/* a k-slice's first k; a slot holding B transposed ([N, K]) */
		if (same_line(p) && accept(p, "k0")) {
			expect(p, "=");
			o->iattr[0] = integer(p);
		}
		if (same_line(p) && accept(p, "trans"))
			o->iattr[1] |= LL_TRANS;
		if (same_line(p) && accept(p, "wgmma"))
			o->iattr[1] |= LL_WGMMA;
	}
	if (o->code == OP_ASYNC_RING && same_line(p) && accept(p, "wgmma"))
		o->iattr[0] = RING_WGMMA;
	if (o->code == OP_PHILOX) {
		expect(p, "rounds");
		expect(p, "=");
		o->iattr[0] = integer(p);
		expect(p, "word");
		expect(p, "=");
		o->iattr[1] = integer(p);
	}
}

static Opcode opcode(Parser *p)
{
	Loc l = (skip(p), here(p));
	const char *w = word(p, "an opcode");
	for (int i = 0; i < OP_COUNT; i++)
		if (strcmp(op_info[i].text, w) == 0)
			return (Opcode)i;
	error_at(p->d, l, "unknown opcode '%s'", w);
}

/* results = val ("," val)* "=" */
static void results(Parser *p, OpText *o)
{
	skip(p);
	if (p->s[p->pos] != '%')
		return;
	do {
		if (o->nres == 64)
			error_at(p->d, here(p), "too many results");
		o->res[o->nres] = val_name(p, &o->resloc[o->nres]);
		o->nres++;
	} while (accept(p, ","));
	expect(p, "=");
}

typedef struct Tail {
	Type types[64];
	int layouts[64];
	int ntypes;
	int smem_offset, smem_bytes;
	Loc loc;
} Tail;

/* tail = (":" type ("#" INT)? ("," type ("#" INT)?)*)? ("smem_offset=" INT "smem_bytes=" INT)? ("loc(" INT ":" INT ")")? */
static void tail(Parser *p, Tail *t)
{
	t->ntypes = 0;
	t->smem_offset = -1;
	t->smem_bytes = 0;
	t->loc = (Loc){.line = 0, .col = 0};
	if (same_line(p) && accept(p, ":")) {
		do {
			if (t->ntypes == 64)
				error_at(p->d, here(p), "too many results");
			t->layouts[t->ntypes] = -1;
			t->types[t->ntypes] = type(p);
			if (same_line(p) && peek(p, "#")) {
				Loc l = here(p);
				expect(p, "#");
				t->layouts[t->ntypes] = (int)integer(p);
				if (t->layouts[t->ntypes] > p->max_layout)
					p->max_layout = t->layouts[t->ntypes], p->layout_use = l;
			}
			t->ntypes++;
		} while (accept(p, ","));
	}
	if (same_line(p) && accept(p, "smem_offset")) {
		expect(p, "=");
		t->smem_offset = (int)integer(p);
		expect(p, "smem_bytes");
		expect(p, "=");
		t->smem_bytes = (int)integer(p);
	}
	if (same_line(p) && accept(p, "loc")) {
		expect(p, "(");
		t->loc.line = (int)integer(p);
		expect(p, ":");
		t->loc.col = (int)integer(p);
		expect(p, ")");
	}
}

static void set_literal(Parser *p, Op *op, const OpText *o)
{
	Type t = vtype(p->f, op->res[0]);
	char *end;
	if (elem_is_fp(t.elem))
		op->fattr = strtod(o->literal, &end);
	else
		op->iattr[0] = strtoll(o->literal, &end, 10);
	if (*end || end == o->literal)
		error_at(p->d, o->litloc, "bad %s constant '%s'", elem_name(t.elem), o->literal);
}

/* names = "//" name ("," name)* on the op's line; "_" is no name */
static void names(Parser *p, Op *op)
{
	skip(p);
	if (!p->trail)
		return;
	const char *s = p->trail, *e = p->trail + p->trail_len;
	for (int i = 0; i < op->nres && s < e; i++) {
		while (s < e && (*s == ' ' || *s == ','))
			s++;
		const char *w = s;
		while (s < e && *s != ',' && *s != ' ')
			s++;
		if (s > w && !(s - w == 1 && *w == '_'))
			p->f->vals[op->res[i]].name = arena_strndup(p->arena, w, (size_t)(s - w));
	}
	p->trail = NULL;
}

static void record(Parser *p, Op *op, Loc l)
{
	p->ops = arena_grow(p->arena, p->ops, &p->capops, p->nops + 1, sizeof(OpAt));
	p->ops[p->nops++] = (OpAt){op, l};
}

static void block_body(Parser *p, Block *b);

/*
 * region = "{" op* "}" ("else" "{" op* "}")? ; a for's body gets iv and iter
 * arguments, a do_while's its iter arguments
 */
static void regions(Parser *p, Op *op, OpText *o)
{
	Func *f = p->f;
	Type at[64 + 1];
	bool combine = op->code == OP_REDUCE || op->code == OP_SCAN;
	int n = op->code == OP_FOR || op->code == OP_DO_WHILE || combine ? o->nargs : 0;
	if (combine && n != 2 * o->nopnds)
		error_at(p->d, o->loc, "%s of %d operands combines %d arguments, got %d", op_info[op->code].text,
			 o->nopnds, 2 * o->nopnds, n);
	for (int i = 0; i < n; i++)
		at[i] = combine ? type_scalar(vtype(f, op->opnds[i % o->nopnds]).elem)
		                : vtype(f, op->opnds[op->code == OP_DO_WHILE ? i : i == 0 ? 0 : i + 2]);
	if ((op->code == OP_FOR && o->nargs != o->nopnds - 2) || (op->code == OP_DO_WHILE && o->nargs != o->nopnds))
		die("loop head arguments out of step");
	op->blocks[0] = ir_new_block(f, n, at);
	op->nblocks = 1;
	int mark = p->nsyms;
	for (int i = 0; i < n; i++)
		define(p, o->args[i], o->argloc[i], op->blocks[0]->args[i]);
	block_body(p, op->blocks[0]);
	p->nsyms = mark;
	if (op->code == OP_IF && accept(p, "else")) {
		expect(p, "{");
		op->blocks[1] = ir_new_block(f, 0, NULL);
		op->nblocks = 2;
		block_body(p, op->blocks[1]);
	}
	for (int i = 0; i < op->nblocks; i++)
		op->blocks[i]->parent = op;
}

/* op = results? opcode head tail ("{" region)? names? */
static void op_line(Parser *p, Block *b)
{
	OpText o = {0};
	Tail t;
	skip(p);
	o.loc = here(p);
	p->trail = NULL;
	results(p, &o);
	o.code = opcode(p);
	head(p, &o);
	tail(p, &t);
	if (t.ntypes != o.nres)
		error_at(p->d, o.loc, "%d results named but %d types given", o.nres, t.ntypes);
	Op *op = ir_new_op(p->f, o.code, o.opnds, o.nopnds, t.types, t.ntypes, t.loc);
	op->iattr[0] = o.iattr[0];
	op->iattr[1] = o.iattr[1];
	op->sattr = o.sattr;
	op->smem_offset = t.smem_offset;
	op->smem_bytes = t.smem_bytes;
	for (int i = 0; i < op->nres; i++)
		p->f->vals[op->res[i]].layout = t.layouts[i];
	if (o.code == OP_CONST)
		set_literal(p, op, &o);
	record(p, op, o.loc);
	ir_append(b, op);
	bool region = op_has(o.code, F_REGION);
	if (region)
		expect(p, "{");
	else if (same_line(p))
		error_at(p->d, here(p), "unexpected text after the op (one op per line; attributes go before ':')");
	names(p, op);
	if (region) {
		if (++p->depth > MAX_NESTING)
			error_at(p->d, o.loc, "nesting too deep (more than %d levels)", MAX_NESTING);
		regions(p, op, &o);
		p->depth--;
	}
	for (int i = 0; i < o.nres; i++)
		define(p, o.res[i], o.resloc[i], op->res[i]);
}

/* Ops up to the closing brace, which it consumes.  Names made inside stay inside. */
static void block_body(Parser *p, Block *b)
{
	int mark = p->nsyms;
	while (!accept(p, "}")) {
		if (!p->s[p->pos])
			error_at(p->d, here(p), "expected '}' before the end of the text");
		op_line(p, b);
	}
	p->nsyms = mark;
}

/* ---- function ---- */

typedef struct Params {
	const char *names[256];
	Loc locs[256];
	Type types[256];
	int div[256];
	int n;
} Params;

/* param = val ":" type ("div=" INT)? */
static void param(Parser *p, Params *ps)
{
	if (ps->n == 256)
		error_at(p->d, here(p), "too many parameters");
	int i = ps->n++;
	ps->names[i] = val_name(p, &ps->locs[i]);
	expect(p, ":");
	ps->types[i] = type(p);
	ps->div[i] = 1;
	if (accept(p, "div")) {
		expect(p, "=");
		ps->div[i] = (int)integer(p);
	}
}

static void bind_params(Parser *p, Params *ps)
{
	Func *f = p->f;
	f->entry = ir_new_block(f, ps->n, ps->types);
	f->nparams = ps->n;
	f->param_names = NEWN(p->arena, const char *, ps->n + 1);
	f->param_div = NEWN(p->arena, int, ps->n + 1);
	for (int i = 0; i < ps->n; i++) {
		f->param_names[i] = ps->names[i]; /* "3" for %3: ir_print numbers it again */
		f->param_div[i] = ps->div[i];
		define(p, ps->names[i], ps->locs[i], f->entry->args[i]);
	}
}

/* fattr = ("num_warps" | "num_stages" | "fp_fusion" | "smem_total") "=" INT */
static void func_attrs(Parser *p)
{
	Func *f = p->f;
	for (;;) {
		int *slot = accept(p, "num_warps") ? &f->num_warps
			  : accept(p, "num_stages") ? &f->num_stages
			  : accept(p, "fp_fusion") ? &f->fp_fusion
			  : accept(p, "smem_total") ? &f->smem_total : NULL;
		if (!slot)
			return;
		expect(p, "=");
		Loc l = (skip(p), here(p));
		int64_t v = integer(p);
		if (slot == &f->num_warps && !num_warps_ok(v))
			error_at(p->d, l, "num_warps must be a power of two from 1 to 32, got %lld", (long long)v);
		if (slot == &f->num_stages && !num_stages_ok(v))
			error_at(p->d, l, "num_stages must be from 1 to 8, got %lld", (long long)v);
		if (slot == &f->fp_fusion && v != 0 && v != 1)
			error_at(p->d, l, "fp_fusion must be 0 or 1, got %lld", (long long)v);
		if (slot == &f->smem_total && (v < 0 || v > INT32_MAX))
			error_at(p->d, l, "smem_total must be from 0 to %d, got %lld", INT32_MAX, (long long)v);
		*slot = (int)v;
	}
}

/* ints = INT ("," INT)* into v, at most max */
static int ints(Parser *p, uint32_t *v, int max, const char *close)
{
	int n = 0;
	if (accept(p, close))
		return 0;
	do {
		if (n == max)
			error_at(p->d, here(p), "too many entries (at most %d)", max);
		v[n++] = (uint32_t)integer(p);
	} while (accept(p, ","));
	expect(p, close);
	return n;
}

/* layout = "#" INT "=" "layout" "[" ints "]" "reg(" ints ")" "lane(" ints ")" "warp(" ints ")" */
static void layout_line(Parser *p)
{
	Func *f = p->f;
	Layout l = {0};
	uint32_t shape[MAX_RANK];
	Loc at = here(p);
	if (integer(p) != f->nlayouts)
		error_at(p->d, at, "layouts must be numbered #0, #1, ... in order");
	expect(p, "=");
	expect(p, "layout");
	expect(p, "[");
	l.rank = (uint8_t)ints(p, shape, MAX_RANK, "]");
	for (int i = 0; i < l.rank; i++)
		l.shape[i] = (int32_t)shape[i];
	expect(p, "reg");
	expect(p, "(");
	l.nreg = (uint8_t)ints(p, l.reg, LAYOUT_MAX_REG, ")");
	expect(p, "lane");
	expect(p, "(");
	l.nlane = (uint8_t)ints(p, l.lane, 5, ")");
	expect(p, "warp");
	expect(p, "(");
	l.nwarp = (uint8_t)ints(p, l.warp, 8, ")");
	f->layouts = arena_grow(p->arena, f->layouts, &f->caplayouts, f->nlayouts + 1, sizeof(Layout));
	f->layouts[f->nlayouts++] = l;
}

/* func = "func" "@" IDENT "(" (param ("," param)*)? ")" fattr* "{" op* "}" layout* */
static void func(Parser *p)
{
	Params *ps = NEW(p->arena, Params);
	expect(p, "func");
	expect(p, "@");
	p->f = ir_new_func(p->arena, word(p, "a function name"));
	expect(p, "(");
	if (!accept(p, ")")) {
		do
			param(p, ps);
		while (accept(p, ","));
		expect(p, ")");
	}
	bind_params(p, ps);
	func_attrs(p);
	expect(p, "{");
	block_body(p, p->f->entry);
	while (accept(p, "#"))
		layout_line(p);
	skip(p);
	if (p->s[p->pos])
		error_at(p->d, here(p), "expected the end of the text or a layout line (#N = layout ...)");
	if (p->max_layout >= p->f->nlayouts)
		error_at(p->d, p->layout_use, "layout #%d is not in the table", p->max_layout);
}

static void check(Parser *p)
{
	Op *bad;
	const char *msg = ir_verify_at(p->f, &bad);
	if (!msg)
		return;
	for (int i = 0; i < p->nops; i++)
		if (p->ops[i].op == bad)
			error_at(p->d, p->ops[i].loc, "%s", msg);
	error_at(p->d, (Loc){.line = 1, .col = 1}, "%s", msg);
}

Func *ir_parse(Arena *a, Diag *d, const Source *src)
{
	Parser *p = NEW(a, Parser);
	p->arena = a;
	p->d = d;
	p->s = src->text;
	p->line = 1;
	p->max_layout = -1;
	if (!d->src)
		d->src = src;
	func(p);
	check(p);
	return p->f;
}
