/*
 * pipeline.c: compile_kernel(), the whole compiler read top to bottom.
 *
 *   source -> tokens -> AST -> lower (checks, constexprs bound) -> IR
 *     -> fold -> canon -> cse -> dce -> tail
 *     -> canon -> fold -> canon -> cse -> dce -> prefetch -> dce   (target-independent)
 *     -> specialize [-> fold -> canon -> cse -> dce]          (launch hints)
 *     -> axis -> layout -> fuse -> dce -> pipeline -> axis -> dce -> smem   (GPU)
 *     -> LLVM IR -> PTX
 *
 * A `.ir` input starts from the IR text instead of source.  Each pass is a
 * plain call; run() only adds the verifier (--verify-each) and the
 * --print-after trace around it.
 */
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "token.h"

Compilation *compilation_new(const char *name, const char *text, size_t len)
{
	Arena *a = arena_new();
	Compilation *c = NEW(a, Compilation);
	c->arena = a;
	c->src.name = arena_strdup(a, name);
	c->src.text = arena_strndup(a, text, len);
	c->src.len = len;
	c->diag.src = &c->src;
	return c;
}

void compilation_free(Compilation *c)
{
	if (!c)
		return;
	sb_free(&c->diag.out);
	sb_free(&c->trace);
	sb_free(&c->out);
	arena_free(c->arena);
}

typedef void (*PassFn)(Func *f);

static void trace_ir(Compilation *c, const char *after)
{
	sb_printf(&c->trace, "// -----// IR after %s //----- //\n", after);
	ir_print(&c->trace, c->func);
}

/* The tests set TILEC_VERIFY_EACH=1, so every pass is verified there. */
static bool verify_wanted(const CompileOptions *o)
{
	const char *e = getenv("TILEC_VERIFY_EACH");
	return o->verify_each || (e && *e && strcmp(e, "0") != 0);
}

static void after_pass(Compilation *c, const CompileOptions *o, const char *name)
{
	if (verify_wanted(o)) {
		const char *err = ir_verify(c->func);
		if (err)
			die("IR verification failed after %s: %s", name, err);
	}
	if (o->print_after && (!strcmp(o->print_after, name) || !strcmp(o->print_after, "all")))
		trace_ir(c, name);
}

static void run(Compilation *c, const CompileOptions *o, const char *name, PassFn pass)
{
	pass(c->func);
	after_pass(c, o, name);
}

/* The cleanup passes, run once after lowering and again after specialisation. */
static void simplify(Compilation *c, const CompileOptions *o)
{
	run(c, o, "fold", pass_fold);
	run(c, o, "canon", pass_canon);
	run(c, o, "cse", pass_cse);
	run(c, o, "licm", pass_licm);
	run(c, o, "dce", pass_dce);
}

static bool is_ir_file(const char *name)
{
	size_t n = strlen(name);
	return n > 3 && !strcmp(name + n - 3, ".ir");
}

static Kernel *find_kernel(Compilation *c, const char *name)
{
	Program *p = c->prog;
	if (p->nkernels == 0)
		error_plain(&c->diag, "%s: no kernel in this file", c->src.name);
	if (!name)
		return p->kernels[0];
	for (int i = 0; i < p->nkernels; i++)
		if (!strcmp(p->kernels[i]->name, name))
			return p->kernels[i];
	for (int i = 0; i < p->nfns; i++)
		if (!strcmp(p->fns[i]->name, name))
			error_plain(&c->diag, "'%s' is an fn, not a kernel: it can only be called from one", name);
	error_plain(&c->diag, "kernel '%s' not found", name);
}

/* Source (or IR text) to target-independent IR in c->func. */
static int front_end(Compilation *c, const CompileOptions *o)
{
	if (is_ir_file(c->src.name)) {
		/* what selects or specialises a source kernel means nothing to IR text */
		if (o->ndefines)
			error_plain(&c->diag, "-D does not apply to .ir input");
		if (o->kernel)
			error_plain(&c->diag, "--kernel does not apply to .ir input");
		if (o->emit == EMIT_TOKENS || o->emit == EMIT_AST)
			error_plain(&c->diag, "--emit=%s does not apply to .ir input", o->emit == EMIT_TOKENS ? "tokens" : "ast");
		c->func = ir_parse(c->arena, &c->diag, &c->src);
		c->func->diag = &c->diag;
		if (o->num_warps)
			c->func->num_warps = o->num_warps;
		if (o->num_stages)
			c->func->num_stages = o->num_stages;
		return 0;
	}
	c->toks = lex_source(c->arena, &c->diag, &c->src, &c->ntoks);
	if (o->emit == EMIT_TOKENS) {
		tokens_dump(&c->out, c->toks, c->ntoks);
		return 1;
	}
	c->prog = parse_program(c->arena, &c->diag, c->toks, c->ntoks);
	if (o->emit == EMIT_AST) {
		ast_dump(&c->out, c->prog);
		return 1;
	}
	c->kernel = find_kernel(c, o->kernel);
	c->func = lower_kernel(c->arena, &c->diag, c->prog, c->kernel, o);
	return 0;
}

/* fp8 values need the conversions and tensor-core instructions of sm_89 and newer. */
static void check_fp8(Compilation *c, Func *f, const char *arch)
{
	ElemKind e;
	Op *first = cg_target_sm(arch) >= 89 ? NULL : ir_first_fp8(f, &e);
	if (first)
		error_at(&c->diag, first->loc, "%s values need sm_89 or newer (fp8 conversions and tensor cores); the "
			 "target is %s", elem_name(e), arch);
}

int compile_kernel(Compilation *c, const CompileOptions *o)
{
	jmp_buf jb;
	c->diag.jmp = &jb;
	c->diag.werror = o->werror;
	c->diag.nowarn = o->nowarn;
	c->out.len = 0;
	if (setjmp(jb)) {
		c->diag.jmp = NULL;
		c->diag.frames = NULL; /* the calls lower.c was inlining */
		return 1;
	}
	const char *arch = o->arch ? o->arch : "sm_90";
	if (o->emit >= EMIT_GPU_IR && !cg_arch_valid(arch))
		error_plain(&c->diag, "unknown --arch '%s'; supported: sm_80 sm_86 sm_89 sm_90 sm_90a", arch);

	double t0 = now_seconds();
	if (front_end(c, o)) {
		c->diag.jmp = NULL;
		return 0;
	}
	after_pass(c, o, "lower");
	double t1 = now_seconds();
	c->ms_front = (t1 - t0) * 1e3;

	if (o->opt) {
		simplify(c, o);
		run(c, o, "tail", pass_tail);
		/* the masks it made true: canon makes their reshapes splats and
		 * drops them from loads, then fold takes the selects of them */
		run(c, o, "canon", pass_canon);
		simplify(c, o);
		run(c, o, "strength", pass_strength);
		run(c, o, "prefetch", pass_prefetch);
		run(c, o, "dce", pass_dce);
	}
	if (o->emit == EMIT_IR) {
		ir_print(&c->out, c->func);
		c->ms_passes = (now_seconds() - t1) * 1e3;
		c->diag.jmp = NULL;
		return 0;
	}

	Func *f = c->func;
	check_fp8(c, f, arch);
	f->wgmma = cg_target_wgmma(arch);
	pass_specialize(f, o->div_hints);
	after_pass(c, o, "specialize");
	if (o->div_hints && o->opt) /* parameters that became constants fold away */
		simplify(c, o);
	run(c, o, "axis", pass_axis);
	run(c, o, "layout", pass_layout);
	run(c, o, "fuse", pass_fuse);
	run(c, o, "dce", pass_dce); /* the pipeliner counts the wgmma dots that run */
	run(c, o, "pipeline", pass_pipeline);
	run(c, o, "axis", pass_axis);
	run(c, o, "dce", pass_dce);
	pass_smem(f, cg_target_smem_limit(arch));
	after_pass(c, o, "smem");
	double t2 = now_seconds();
	c->ms_passes = (t2 - t1) * 1e3;
	if (o->emit == EMIT_GPU_IR || o->emit == EMIT_CHECK) {
		if (o->emit == EMIT_GPU_IR)
			ir_print(&c->out, f);
		c->diag.jmp = NULL;
		return 0;
	}

	int rc = cg_emit(f, arch, o->emit, o->lineinfo, c->src.name, &c->out, &c->diag);
	c->ms_codegen = (now_seconds() - t2) * 1e3;
	c->diag.jmp = NULL;
	return rc;
}
