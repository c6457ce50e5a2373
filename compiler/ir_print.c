/*
 * ir_print.c: the IR's text form (docs/ir.md describes it; ir_parse.c
 * reads it back, and print(parse(print(f))) == print(f)).
 *
 * Values are renumbered %0, %1, ... in the order they appear in the text
 * (an op's results, then its blocks' arguments, then the blocks' ops);
 * kernel parameters print under their names.  Everything that matters to
 * a later pass is printed in a form the parser reads: types, attributes,
 * layouts (#N, with the table after the function), shared-memory offsets,
 * source locations loc(L:C) and source names (the trailing // comment).
 */
#include "ir.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* layout.c may not be linked (unit tests of the IR alone). */
#pragma weak layout_str

typedef struct Printer {
	StrBuf *out;
	Func *f;
	int *num;            /* value -> printed number, -1 for parameters and unnumbered */
	int next;
} Printer;

static const char *pred_names[] = {"eq", "ne", "lt", "le", "gt", "ge"};

static void number_block(Printer *p, Block *b);

static void number_val(Printer *p, ValId v)
{
	if (p->num[v] < 0)
		p->num[v] = p->next++;
}

static void number_op(Printer *p, Op *op)
{
	for (int i = 0; i < op->nres; i++)
		number_val(p, op->res[i]);
	for (int i = 0; i < op->nblocks; i++)
		if (op->blocks[i])
			number_block(p, op->blocks[i]);
}

static void number_block(Printer *p, Block *b)
{
	for (int i = 0; i < b->nargs; i++)
		number_val(p, b->args[i]);
	for (Op *op = b->first; op; op = op->next)
		number_op(p, op);
}

/* The name a parameter prints under, or NULL to print it numbered (no name, a number, a duplicate). */
static const char *param_name(Func *f, int i)
{
	if (!f->param_names || i >= f->nparams || !f->param_names[i] || !f->param_names[i][0] ||
	    isdigit((unsigned char)f->param_names[i][0]))
		return NULL;
	for (int j = 0; j < i; j++)
		if (f->param_names[j] && strcmp(f->param_names[j], f->param_names[i]) == 0)
			return NULL;
	return f->param_names[i];
}

static void printer_init(Printer *p, StrBuf *out, Func *f)
{
	p->out = out;
	p->f = f;
	p->num = NEWN(f->arena, int, f->nvals);
	for (int v = 0; v < f->nvals; v++)
		p->num[v] = -1;
	p->next = 0;
	for (int i = 0; i < f->entry->nargs; i++)
		if (!param_name(f, i))
			number_val(p, f->entry->args[i]);
	for (Op *op = f->entry->first; op; op = op->next)
		number_op(p, op);
}

static void print_val(Printer *p, ValId v)
{
	Func *f = p->f;
	if (v <= 0 || v >= f->nvals) {
		sb_printf(p->out, "%%!bad%d", v);
		return;
	}
	Value *x = &f->vals[v];
	if (!x->def && x->block == f->entry && x->index < f->entry->nargs &&
	    f->entry->args[x->index] == v && param_name(f, x->index)) {
		sb_printf(p->out, "%%%s", param_name(f, x->index));
		return;
	}
	if (p->num[v] < 0)
		sb_printf(p->out, "%%!%d", v); /* not reachable from the entry: broken IR */
	else
		sb_printf(p->out, "%%%d", p->num[v]);
}

static void print_vals(Printer *p, const ValId *v, int n)
{
	for (int i = 0; i < n; i++) {
		if (i)
			sb_puts(p->out, ", ");
		print_val(p, v[i]);
	}
}

static void print_type(StrBuf *out, Type t)
{
	char buf[64];
	sb_puts(out, type_str(t, buf, sizeof buf));
}

/* The shortest decimal that reads back as the same double. */
static void print_float(StrBuf *out, double x)
{
	char buf[40];
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, x);
		if (strtod(buf, NULL) == x || x != x)
			break;
	}
	sb_puts(out, buf);
	if (!strpbrk(buf, ".eEn"))
		sb_puts(out, ".0"); /* 2 prints as 2.0, so the text shows it is a float */
}

/* iter(%arg = %init, ...): operands from `first` on, body arguments from `arg0` on */
static void print_iters(Printer *p, Op *op, int first, int arg0)
{
	Block *body = op->blocks[0];
	if (op->nopnds <= first)
		return;
	sb_puts(p->out, " iter(");
	for (int i = first; i < op->nopnds; i++) {
		if (i > first)
			sb_puts(p->out, ", ");
		if (body && arg0 + i - first < body->nargs)
			print_val(p, body->args[arg0 + i - first]);
		else
			sb_puts(p->out, "%!noarg");
		sb_puts(p->out, " = ");
		print_val(p, op->opnds[i]);
	}
	sb_puts(p->out, ")");
}

static void print_for_head(Printer *p, Op *op)
{
	Block *body = op->blocks[0];
	sb_puts(p->out, " ");
	if (body && body->nargs > 0)
		print_val(p, body->args[0]);
	else
		sb_puts(p->out, "%!noiv");
	sb_puts(p->out, " = ");
	print_val(p, op->opnds[0]);
	sb_puts(p->out, " to ");
	print_val(p, op->opnds[1]);
	sb_puts(p->out, " step ");
	print_val(p, op->opnds[2]);
	if (op->iattr[0])
		sb_puts(p->out, " tail");
	if (op->iattr[1])
		sb_printf(p->out, " stages=%lld", (long long)op->iattr[1]);
	print_iters(p, op, 3, 1);
}

/* The opcode's own syntax: attributes that come first, then operands. */
static void print_head(Printer *p, Op *op)
{
	StrBuf *out = p->out;
	sb_puts(out, op_info[op->code].text);
	switch (op->code) {
	case OP_CONST:
		sb_puts(out, " ");
		if (op->nres == 1 && elem_is_fp(p->f->vals[op->res[0]].type.elem))
			print_float(out, op->fattr);
		else
			sb_printf(out, "%lld", (long long)op->iattr[0]);
		return;
	case OP_ARANGE:
		sb_printf(out, " %lld, %lld", (long long)op->iattr[0], (long long)op->iattr[1]);
		return;
	case OP_PROGRAM_ID:
	case OP_NUM_PROGRAMS:
		sb_printf(out, " %lld", (long long)op->iattr[0]);
		return;
	case OP_CMP:
		if (op->iattr[0] >= 0 && op->iattr[0] <= CMP_GE)
			sb_printf(out, " %s", pred_names[op->iattr[0]]);
		else
			sb_printf(out, " pred%lld", (long long)op->iattr[0]);
		break;
	case OP_ATOMIC:
		if (op->iattr[0] >= 0 && op->iattr[0] < ATOM_COUNT)
			sb_printf(out, " %s", atomic_names[op->iattr[0]]);
		else
			sb_printf(out, " kind%lld", (long long)op->iattr[0]);
		break;
	case OP_FOR:
		if (op->nopnds >= 3) {
			print_for_head(p, op);
			return;
		}
		break;
	case OP_DO_WHILE:
		if (op->nblocks == 1) {
			print_iters(p, op, 0, 0);
			return;
		}
		break;
	default:
		break;
	}
	if (op->nopnds > 0)
		sb_puts(out, " ");
	print_vals(p, op->opnds, op->nopnds);
	if (op->code == OP_SPLIT)
		sb_printf(out, " index=%lld", (long long)op->iattr[0]);
	if (ir_is_atomic(op->code) && ATOMIC_SEM(op) > 0 && ATOMIC_SEM(op) < SEM_COUNT)
		sb_printf(out, " sem=%s", sem_names[ATOMIC_SEM(op)]);
	if (ir_is_atomic(op->code) && ATOMIC_SCOPE(op) > 0 && ATOMIC_SCOPE(op) < SCOPE_COUNT)
		sb_printf(out, " scope=%s", scope_names[ATOMIC_SCOPE(op)]);
	if (op->code == OP_PERMUTE) {
		int rank = p->f->vals[op->res[0]].type.rank;
		for (int i = 0; i < rank; i++)
			sb_printf(out, "%s%lld", i ? ", " : " dims=[", (long long)(op->iattr[0] >> 2 * i & 3));
		sb_puts(out, "]");
	}
	bool combine = op->code == OP_REDUCE || op->code == OP_SCAN;
	if (op->code == OP_EXPAND_DIMS || op_has(op->code, F_REDUCE) || op->code == OP_CUMSUM || combine ||
	    op->code == OP_XORPERM || op->code == OP_GATHER)
		sb_printf(out, " axis=%lld", (long long)op->iattr[0]);
	if (op->code == OP_XORPERM)
		sb_printf(out, " mask=%lld", (long long)op->iattr[1]);
	if ((op->code == OP_CUMSUM || combine) && op->iattr[1])
		sb_puts(out, " reverse");
	if (combine && op->nblocks == 1) {
		sb_puts(out, " combine(");
		print_vals(p, op->blocks[0]->args, op->blocks[0]->nargs);
		sb_puts(out, ")");
	}
	if (op->code == OP_DOT && op->iattr[0])
		sb_puts(out, " tf32");
	if (op->code == OP_DOT && op->iattr[1])
		sb_puts(out, op->iattr[1] == DOT_ISSUE ? " issue" : " async");
	if (op->code == OP_DOT_WAIT && op->iattr[0])
		sb_printf(out, " pending=%lld", (long long)op->iattr[0]);
	if (op->code == OP_DIV && op->iattr[0])
		sb_puts(out, " ieee");
	if ((op->code == OP_ADD || op->code == OP_SUB) && op->iattr[0])
		sb_puts(out, " wrap");
	if (op->sattr)
		sb_printf(out, " text=\"%s\"", op->sattr);
	if (op->code == OP_PRINT && op->iattr[0])
		sb_puts(out, " hex");
	if (op->code == OP_ASSUME)
		sb_printf(out, " divis=%lld contig=%lld constancy=%lld", (long long)op->iattr[0],
			  (long long)ASSUME_CONTIG(op), (long long)ASSUME_CONSTANCY(op));
	if (op->code == OP_PHILOX)
		sb_printf(out, " rounds=%lld word=%lld", (long long)op->iattr[0], (long long)op->iattr[1]);
	if (op->code == OP_LOCAL_LOAD && op->iattr[0])
		sb_printf(out, " k0=%lld", (long long)op->iattr[0]);
	if (op->code == OP_LOCAL_LOAD && (op->iattr[1] & LL_TRANS))
		sb_puts(out, " trans");
	if ((op->code == OP_LOCAL_LOAD && (op->iattr[1] & LL_WGMMA)) ||
	    (op->code == OP_ASYNC_RING && op->iattr[0] == RING_WGMMA))
		sb_puts(out, " wgmma");
}

static void print_tail(Printer *p, Op *op)
{
	StrBuf *out = p->out;
	for (int i = 0; i < op->nres; i++) {
		sb_puts(out, i ? ", " : " : ");
		Value *x = &p->f->vals[op->res[i]];
		print_type(out, x->type);
		if (x->layout >= 0)
			sb_printf(out, " #%d", x->layout);
	}
	if (op->smem_offset >= 0 || op->smem_bytes != 0)
		sb_printf(out, " smem_offset=%d smem_bytes=%d", op->smem_offset, op->smem_bytes);
	if (op->loc.line > 0)
		sb_printf(out, " loc(%d:%d)", op->loc.line, op->loc.col);
}

static void print_names(Printer *p, Op *op)
{
	bool any = false;
	for (int i = 0; i < op->nres; i++)
		any |= p->f->vals[op->res[i]].name != NULL;
	if (!any)
		return;
	sb_puts(p->out, "  //");
	for (int i = 0; i < op->nres; i++) {
		const char *n = p->f->vals[op->res[i]].name;
		sb_printf(p->out, "%s %s", i ? "," : "", n ? n : "_");
	}
}

static void op_line(Printer *p, Op *op)
{
	if (op->nres > 0) {
		print_vals(p, op->res, op->nres);
		sb_puts(p->out, " = ");
	}
	print_head(p, op);
	print_tail(p, op);
}

static void indent(StrBuf *out, int depth)
{
	for (int i = 0; i < depth; i++)
		sb_puts(out, "  ");
}

static void print_block(Printer *p, Block *b, int depth);

static void print_op(Printer *p, Op *op, int depth)
{
	indent(p->out, depth);
	op_line(p, op);
	if (op->nblocks == 0) {
		print_names(p, op);
		sb_puts(p->out, "\n");
		return;
	}
	sb_puts(p->out, " {");
	print_names(p, op);
	sb_puts(p->out, "\n");
	for (int i = 0; i < op->nblocks; i++) {
		if (i > 0) {
			indent(p->out, depth);
			sb_puts(p->out, "} else {\n");
		}
		if (op->blocks[i])
			print_block(p, op->blocks[i], depth + 1);
	}
	indent(p->out, depth);
	sb_puts(p->out, "}\n");
}

static void print_block(Printer *p, Block *b, int depth)
{
	for (Op *op = b->first; op; op = op->next)
		print_op(p, op, depth);
}

static void print_header(Printer *p)
{
	Func *f = p->f;
	StrBuf *out = p->out;
	sb_printf(out, "func @%s(", f->name ? f->name : "kernel");
	for (int i = 0; i < f->entry->nargs; i++) {
		ValId v = f->entry->args[i];
		if (i)
			sb_puts(out, ", ");
		print_val(p, v);
		sb_puts(out, ": ");
		print_type(out, f->vals[v].type);
		if (f->param_div && i < f->nparams && f->param_div[i] > 1)
			sb_printf(out, " div=%d", f->param_div[i]);
	}
	sb_printf(out, ") num_warps=%d num_stages=%d", f->num_warps, f->num_stages);
	if (!f->fp_fusion)
		sb_puts(out, " fp_fusion=0");
	if (f->smem_total)
		sb_printf(out, " smem_total=%d", f->smem_total);
	sb_puts(out, " {\n");
}

static void print_ints(StrBuf *out, const char *name, const uint32_t *v, int n)
{
	sb_printf(out, " %s(", name);
	for (int i = 0; i < n; i++)
		sb_printf(out, "%s%u", i ? ", " : "", v[i]);
	sb_puts(out, ")");
}

/*
 * The layout table: the raw basis vectors (what the parser reads back),
 * then layout_str's rendering as a comment.
 */
static void print_layouts(Func *f, StrBuf *out)
{
	for (int i = 0; i < f->nlayouts; i++) {
		const Layout *l = &f->layouts[i];
		sb_printf(out, "#%d = layout [", i);
		for (int d = 0; d < l->rank; d++)
			sb_printf(out, "%s%d", d ? ", " : "", l->shape[d]);
		sb_puts(out, "]");
		print_ints(out, "reg", l->reg, l->nreg);
		print_ints(out, "lane", l->lane, l->nlane);
		print_ints(out, "warp", l->warp, l->nwarp);
		if (layout_str) {
			StrBuf s = {0};
			layout_str(&s, l);
			for (size_t k = 0; k < s.len; k++)
				if (s.s[k] == '\n' || s.s[k] == '\r')
					s.s[k] = ' ';
			sb_printf(out, "  // %s", s.s ? s.s : "");
			sb_free(&s);
		}
		sb_puts(out, "\n");
	}
}

void ir_print(StrBuf *out, Func *f)
{
	Printer p;
	printer_init(&p, out, f);
	print_header(&p);
	print_block(&p, f->entry, 1);
	sb_puts(out, "}\n");
	print_layouts(f, out);
}

void ir_print_op(StrBuf *out, Func *f, Op *op)
{
	Printer p;
	printer_init(&p, out, f);
	op_line(&p, op);
}
