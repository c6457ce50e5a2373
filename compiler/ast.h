/*
 * ast.h: the syntax tree the parser builds and lower.c turns into IR.
 *
 * The tree is untyped: names, literals and calls are resolved by lower.c,
 * which knows the constexpr values and so every shape.  Every node keeps
 * the location of the token that best names it (the operator of a binary
 * expression, the name of a call) for diagnostics.
 */
#ifndef TILEC_AST_H
#define TILEC_AST_H

#include "util.h"

typedef enum NodeKind {
	/* expressions */
	ND_INT,    /* ival; `suffix_type` if the literal had a suffix (unused now: TY_VOID) */
	ND_FLOAT,  /* fval */
	ND_STR,    /* name: a string literal's text, without the quotes (an atomic's sem= or scope=, static_assert's message) */
	ND_BOOL,   /* ival 0/1: `true`, `false` */
	ND_NONE,   /* `None` inside an index list */
	ND_SLICE,  /* `:` inside an index list */
	ND_NAME,   /* name: a variable, a parameter, `inf`, `nan`, or a type name like f32 */
	ND_TYPE,   /* a type written in type position: `*f32`, `i32` (ty) */
	ND_UNARY,  /* op (one of '-', '!', '~') lhs */
	ND_BINARY, /* op lhs rhs; op is a TokKind of the operator */
	ND_CALL,   /* name(args...) ; args may carry `argname` for keyword args */
	ND_INDEX,  /* lhs[args...] where args are ND_SLICE / ND_NONE */
	ND_LIST,   /* [a, b, ...]: a shape, permute's dims or expand_dims's axes */
	ND_TUPLE,  /* (a, b, ...): the several inputs of reduce, associative_scan, sort or topk; or a list */
	/* statements */
	ND_LET,    /* let name = lhs ; */
	ND_VAR,    /* var name = lhs ; */
	ND_ASSIGN, /* name op= lhs ; op is '=' or the compound operator's TokKind */
	ND_EXPR,   /* lhs ; */
	ND_FOR,    /* for name in range(args) body */
	ND_IF,     /* if lhs then_ else_ (else_ may be NULL, or an ND_IF for else-if) */
	ND_WHILE,  /* while lhs body */
	ND_BLOCK,  /* { stmts } */
	ND_UNPACK, /* let|var|(none) args... = lhs ; op is TK_LET, TK_VAR or TK_ASSIGN; args are ND_NAMEs */
	ND_RETURN, /* return lhs? ; or return args... ; with 2 or more values (only as the last statement
	              of a kernel or fn; values only in an fn) */
} NodeKind;

/* A written type: element name plus pointer flag. */
typedef struct TypeSpec {
	int elem;     /* ElemKind from ir.h (TY_I32, TY_F32, ...) of the element or pointee */
	bool is_ptr;  /* `*T` */
	Loc loc;
} TypeSpec;

typedef struct Node Node;
struct Node {
	NodeKind kind;
	Loc loc;
	int op;            /* ND_UNARY, ND_BINARY, ND_ASSIGN: operator TokKind; ND_FOR: 1 for static_range */
	const char *name;  /* ND_NAME, ND_CALL, ND_LET, ND_VAR, ND_ASSIGN, ND_FOR */
	const char *argname; /* keyword argument name when this node is a call argument, else NULL */
	int64_t ival;
	double fval;
	TypeSpec ty;       /* ND_TYPE */
	Node *lhs, *rhs;
	Node **args;       /* ND_CALL, ND_INDEX, ND_LIST, ND_TUPLE, ND_FOR (range arguments) */
	int nargs;
	Node **stmts;      /* ND_BLOCK */
	int nstmts;
	Node *body;        /* ND_FOR, ND_WHILE, ND_IF (then) */
	Node *else_;       /* ND_IF */
};

typedef struct Param {
	const char *name;
	Loc loc;
	TypeSpec ty;        /* none (TY_VOID) for an fn's parameter: it takes its argument's type */
	bool is_const;      /* `NAME: const i32 = 4` */
	Node *defval;       /* default of a const parameter (or of an fn's), or NULL */
} Param;

typedef struct Attr {       /* `@num_warps(8)` before `kernel` */
	const char *name;
	Loc loc;
	Node *arg;
} Attr;

/* A kernel, or an `fn` helper, which calls inline (lower.c). */
typedef struct Kernel {
	const char *name;
	Loc loc;
	bool is_fn;
	Param *params;
	int nparams;
	Attr *attrs;
	int nattrs;
	Node *body;         /* ND_BLOCK */
} Kernel;

typedef struct Program {
	Kernel **kernels;
	int nkernels;
	Kernel **fns;
	int nfns;
} Program;

/* ---- front end entry points ---- */
typedef struct Token Token;
/* Tokenize a whole source; the list ends with a TK_EOF token. */
Token *lex_source(Arena *a, Diag *d, const Source *src, int *ntok);
Program *parse_program(Arena *a, Diag *d, Token *toks, int ntok);
void ast_dump(StrBuf *out, const Program *p);
void tokens_dump(StrBuf *out, const Token *toks, int ntok);

#endif
