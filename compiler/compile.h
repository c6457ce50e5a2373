/*
 * compile.h: the compiler's one entry point, used by the CLI, the JIT
 * runtime and the tests.  pipeline.c holds compile_kernel(), the list of
 * passes from source to PTX, read top to bottom.
 */
#ifndef TILEC_COMPILE_H
#define TILEC_COMPILE_H

#include "ast.h"
#include "ir.h"

/* A constexpr's value from -D or the JIT; lower.c checks it against the parameter's type. */
typedef enum DefineKind { DEF_INT, DEF_FLOAT, DEF_BOOL } DefineKind;

typedef struct Define {
	const char *name;
	int64_t value;             /* DEF_INT; DEF_BOOL (true/false): 1 or 0 */
	DefineKind kind;
	double fvalue;             /* DEF_FLOAT: a decimal, from -D only */
} Define;

/* EMIT_IR: target-independent IR (what the interpreter runs);
 * EMIT_GPU_IR: the IR after the GPU passes, with layouts and shared memory;
 * EMIT_CHECK: the same passes, nothing written (c->func for the caller). */
typedef enum EmitKind { EMIT_TOKENS, EMIT_AST, EMIT_IR, EMIT_GPU_IR, EMIT_CHECK, EMIT_LLVM, EMIT_PTX } EmitKind;

typedef struct CompileOptions {
	const char *kernel;        /* NULL: the first kernel in the file */
	const Define *defines;     /* -D NAME=V: constexpr values */
	int ndefines;
	int num_warps;             /* 0: the kernel's @num_warps, else 4 */
	int num_stages;            /* 0: the kernel's @num_stages, else 3 */
	const char *arch;          /* "sm_90" when NULL */
	const char *div_hints;     /* "n=16,stride=16": integer args known divisible */
	EmitKind emit;
	int opt;                   /* 0: no optimisation passes (the interpreter's oracle); 1: all */
	const char *print_after;   /* pass name, or "all": print IR after it into `trace` */
	bool verify_each;          /* run the verifier after every pass */
	bool werror, nowarn;
	bool lineinfo;             /* .loc directives in PTX (default on in the CLI) */
} CompileOptions;

/* The values num_warps takes, from attributes, flags and the JIT's options alike (num_stages: ir.h's
 * num_stages_ok, which also checks a loop's own). */
static inline bool num_warps_ok(int64_t n) { return n >= 1 && n <= 32 && (n & (n - 1)) == 0; }

typedef struct Compilation {
	Arena *arena;
	Diag diag;                 /* diagnostics text lands in diag.out */
	Source src;
	Token *toks;
	int ntoks;
	Program *prog;
	Kernel *kernel;
	Func *func;                /* the IR after the passes the emit kind needs */
	StrBuf trace;              /* --print-after output */
	StrBuf out;                /* tokens / AST / IR / LLVM IR / PTX text */
	double ms_front, ms_passes, ms_codegen; /* timings of the last compile */
} Compilation;

/* Source text is copied; name is used in diagnostics. */
Compilation *compilation_new(const char *name, const char *text, size_t len);
void compilation_free(Compilation *c);

/*
 * Runs the pipeline up to what o->emit asks for and leaves the text in c->out
 * (and the IR in c->func).  Returns 0, or 1 after a user error, whose
 * message is in c->diag.out.
 */
int compile_kernel(Compilation *c, const CompileOptions *o);

/* lower.c: AST of one kernel -> IR, with constexprs bound (specialisation). */
Func *lower_kernel(Arena *a, Diag *d, const Program *p, const Kernel *k, const CompileOptions *o);

/* passes/ : each pass in its own file */
void pass_fold(Func *f);      /* constant folding */
void pass_cse(Func *f);       /* common subexpression elimination */
void pass_dce(Func *f);       /* dead code elimination */
void pass_licm(Func *f);      /* loop-invariant pure ops moved before their loop */
void pass_canon(Func *f);     /* canonicalisation: x+0, x*1, broadcast of splat, ... */
void pass_specialize(Func *f, const char *div_hints); /* divisibility hints on int params */
void pass_layout(Func *f);    /* distributed layouts + convert_layout where needed */
void pass_fuse(Func *f);      /* keep element-wise chains in their producer's layout */
void pass_smem(Func *f, int limit_bytes); /* shared-memory plan */
void pass_axis(Func *f);      /* contiguity / divisibility / constancy analysis */
int axis_access_vec(Func *f, ValId ptr, ValId mask, int eb, int most); /* elements one access moves */
void pass_pipeline(Func *f);  /* cp.async software pipelining of the loads feeding mma dots */
void pass_prefetch(Func *f);  /* loads in loops issued one iteration ahead (register double-buffering) */
void pass_strength(Func *f);  /* dot operands' pointer tiles stepped across iterations, not recomputed */
void pass_tail(Func *f);      /* loops over blocks: the full blocks without their bounds mask, then the tail */

/* codegen/ : LLVM IR and PTX for NVPTX.  cg_emit writes LLVM IR (emit ==
 * EMIT_LLVM) or PTX into out; returns 0, or reports a user error (unknown
 * arch, LLVM failure) through d. */
int cg_emit(Func *f, const char *arch, EmitKind emit, bool lineinfo, const char *file_name,
            StrBuf *out, Diag *d);
int cg_target_smem_limit(const char *arch); /* bytes; 0 for an unknown arch */
bool cg_arch_valid(const char *arch);
bool cg_target_wgmma(const char *arch);     /* the arch has wgmma (sm_90a) */
int cg_target_sm(const char *arch);         /* 90 for sm_90 and sm_90a; 0 for an unknown arch */

#endif
