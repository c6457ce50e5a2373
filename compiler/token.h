/* token.h: token kinds, shared by the re2c lexer (lex.re) and the parser. */
#ifndef TILEC_TOKEN_H
#define TILEC_TOKEN_H

#include "util.h"

#define TOKENS(X) \
	X(EOF, "end of file") X(IDENT, "identifier") X(INT, "integer literal") X(FLOAT, "float literal") X(STRING, "string literal") \
	/* keywords */ \
	X(KERNEL, "kernel") X(FN, "fn") X(LET, "let") X(VAR, "var") X(CONST, "const") X(FOR, "for") X(IN, "in") \
	X(IF, "if") X(ELSE, "else") X(WHILE, "while") X(RETURN, "return") X(TRUE, "true") X(FALSE, "false") X(NONE, "None") \
	/* punctuation */ \
	X(LPAREN, "(") X(RPAREN, ")") X(LBRACE, "{") X(RBRACE, "}") X(LBRACK, "[") X(RBRACK, "]") \
	X(COMMA, ",") X(SEMI, ";") X(COLON, ":") X(AT, "@") X(DOT, ".") \
	X(PLUS, "+") X(MINUS, "-") X(STAR, "*") X(SLASH, "/") X(PERCENT, "%") \
	X(AMP, "&") X(PIPE, "|") X(CARET, "^") X(BANG, "!") X(TILDE, "~") \
	X(SHL, "<<") X(SHR, ">>") X(ANDAND, "&&") X(OROR, "||") \
	X(EQ, "==") X(NE, "!=") X(LT, "<") X(LE, "<=") X(GT, ">") X(GE, ">=") \
	X(ASSIGN, "=") X(PLUSEQ, "+=") X(MINUSEQ, "-=") X(STAREQ, "*=") X(SLASHEQ, "/=") X(PERCENTEQ, "%=") \
	X(ARROW, "->")

typedef enum TokKind {
#define X(name, text) TK_##name,
	TOKENS(X)
#undef X
	TK_COUNT
} TokKind;

extern const char *const tok_text[TK_COUNT]; /* spelling or description, for messages */
extern const char *const tok_name[TK_COUNT]; /* "IDENT", "PLUS", ... for --emit=tokens */

struct Token {
	TokKind kind;
	Loc loc;
	const char *start; /* points into the source text */
	int len;
	int64_t ival;      /* TK_INT */
	double fval;       /* TK_FLOAT */
};

#endif
