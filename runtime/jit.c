/*
 * jit.c: the public API of tilec.h: compile kernels from source strings,
 * cache them, launch them through the CUDA driver.
 *
 * A context owns a cache of *variants*: one compiled kernel for one key
 *
 *     (source, kernel name, defines, num_warps, num_stages, arch, spec)
 *
 * looked up by an FNV-1a hash of the source, then an exact compare of the
 * source and of the rest of the key written as text.  `spec` is the launch
 * specialisation (Triton's: integer arguments that are multiples of 16, and
 * those equal to 1): at each launch those facts form a bit mask; a variant
 * for that mask is compiled once with hints naming those parameters
 * ("n=16,stride=1"), so the compiler may vectorise on them.
 *
 * A kernel handle holds its key and the source checked by tilec_compile
 * (front end and IR passes: source errors show up there and the signature
 * is known; no LLVM, which runs once per specialisation at its first
 * launch, so a kernel compiled and launched once goes through LLVM once);
 * handles only point into the cache, which the context frees.  PTX becomes
 * a CUDA module at the first launch of a variant.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "cuda_api.h"

#define MAX_PARAMS 128
#define DEFAULT_SMEM_LIMIT (48 * 1024) /* dynamic shared memory allowed without opting in */

typedef struct Variant Variant;
struct Variant {
	Variant *next;
	uint64_t hash;
	char *source;
	char *key;          /* everything but the source, as text */
	char *entry;        /* PTX entry name = kernel name */
	char *ptx;          /* until the module is loaded */
	RtParam *params;
	char **names;
	int nparams;
	int num_warps;
	int smem;           /* bytes of dynamic shared memory */
	double ms[4];       /* front end, passes, codegen, module load */
	CUmodule mod;
	CUfunction fn;
};

struct tilec_context {
	tilec_status fail;  /* TILEC_OK once the device is ready; else what create returned */
	CUdevice dev;
	CUcontext cu;
	bool retained;
	char arch[16];
	char *err;
	Variant *cache;
	RtTuned *tuned;     /* tune.c's choices */
};

struct tilec_kernel {
	tilec_context *ctx;
	char *source;
	uint64_t hash;
	char *name;         /* as requested; NULL: the first kernel */
	char *source_name;
	Define *defines;
	int ndefines;
	int num_warps, num_stages;
	char *arch;
	char *base_key;     /* the key without the spec */
	Variant *generic;   /* the checked source: the signature (no PTX) */
	Variant *last;      /* the last variant launched, and its spec */
	uint64_t last_spec;
	double ms[4];
};

/* ---- errors ---- */

static _Thread_local char tls_err[1024];

void rt_set_error(tilec_context *ctx, const char *fmt, ...)
{
	va_list ap, ap2;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	char *s = (ctx && n >= 0) ? malloc((size_t)n + 1) : NULL;
	if (s) {
		vsnprintf(s, (size_t)n + 1, fmt, ap);
		free(ctx->err);
		ctx->err = s;
	} else {
		vsnprintf(tls_err, sizeof tls_err, fmt, ap);
	}
	va_end(ap);
}

static tilec_status cuda_err(tilec_context *ctx, const char *what, CUresult r)
{
	char msg[512];
	rt_cuda_msg(msg, sizeof msg, what, r);
	rt_set_error(ctx, "%s", msg);
	return TILEC_ERROR_CUDA;
}

const char *tilec_context_error(const tilec_context *ctx)
{
	if (!ctx)
		return tls_err;
	return ctx->err ? ctx->err : "";
}

static char *dupstr(const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

/* ---- argument checks and specialisation (no GPU needed) ---- */

static const char *kind_name(int k)
{
	static const char *names[] = {"i32", "i64", "f32", "f64", "a pointer"};
	return k >= 0 && k <= TILEC_ARG_PTR ? names[k] : "an invalid kind";
}

/* How a parameter reads in a message: "i32", "i16 (passed as i32)", "a pointer". */
static const char *param_type_text(const RtParam *p)
{
	switch (p->elem) {
	case TY_I1: return "i1 (passed as i32)";
	case TY_I8: return "i8 (passed as i32)";
	case TY_I16: return "i16 (passed as i32)";
	case TY_F16: return "f16 (passed as f32)";
	case TY_BF16: return "bf16 (passed as f32)";
	default: return kind_name(p->kind);
	}
}

tilec_status rt_check_args(const char *kernel, const RtParam *params, int nparams,
                           const tilec_arg *args, int nargs, char *msg, size_t msglen)
{
	if (nargs != nparams || (nargs > 0 && !args)) {
		int n = snprintf(msg, msglen, "'%s' takes %d argument%s (", kernel, nparams,
		                 nparams == 1 ? "" : "s");
		for (int i = 0; i < nparams && n >= 0 && (size_t)n < msglen; i++)
			n += snprintf(msg + n, msglen - (size_t)n, "%s%s", i ? ", " : "", params[i].name);
		if (n >= 0 && (size_t)n < msglen)
			snprintf(msg + n, msglen - (size_t)n, "), got %d", args ? nargs : 0);
		return TILEC_ERROR_ARGS;
	}
	for (int i = 0; i < nargs; i++) {
		const RtParam *p = &params[i];
		if ((int)args[i].kind != (int)p->kind) {
			snprintf(msg, msglen, "argument %d of '%s' ('%s') is %s, got %s", i + 1, kernel,
			         p->name, param_type_text(p), kind_name((int)args[i].kind));
			return TILEC_ERROR_ARGS;
		}
		if (p->kind == TILEC_ARG_PTR && args[i].v.ptr % 16 != 0) {
			snprintf(msg, msglen, "argument %d of '%s' ('%s') is not 16-byte aligned (0x%llx); "
			         "tilec kernels assume aligned pointers", i + 1, kernel, p->name, args[i].v.ptr);
			return TILEC_ERROR_ARGS;
		}
	}
	return TILEC_OK;
}

uint64_t rt_spec_key(const RtParam *params, int nparams, const tilec_arg *args,
                     char *hints, size_t hintslen)
{
	uint64_t key = 0;
	size_t n = 0;
	if (hints && hintslen)
		hints[0] = 0;
	for (int i = 0; i < nparams && i < 32; i++) {
		int64_t v;
		if (params[i].elem == TY_I32)
			v = args[i].v.i32;
		else if (params[i].elem == TY_I64)
			v = args[i].v.i64;
		else
			continue;
		int bit = v == 1 ? 2 * i + 1 : v % 16 == 0 ? 2 * i : -1;
		if (bit < 0)
			continue;
		key |= 1ull << bit;
		if (hints && n < hintslen) {
			int w = snprintf(hints + n, hintslen - n, "%s%s=%d", n ? "," : "", params[i].name,
			                 v == 1 ? 1 : 16);
			n += w > 0 ? (size_t)w : 0;
		}
	}
	return key;
}

const char *rt_arch_for(int major, int minor)
{
	int cc = major * 10 + minor;
	if (cc == 90)
		return "sm_90a"; /* Hopper: wgmma, whose code runs on compute capability 9.0 only */
	if (cc > 90)
		return "sm_90";  /* newer GPUs run sm_90 PTX through the driver's JIT */
	if (cc >= 89)
		return "sm_89";
	if (cc >= 86)
		return "sm_86";
	if (cc >= 80)
		return "sm_80";
	return NULL;
}

/* ---- compiling ---- */

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static void signature_free(Variant *v)
{
	for (int i = 0; v->names && v->names[i]; i++)
		free(v->names[i]);
	free(v->names);
	free(v->params);
}

static void variant_free(Variant *v)
{
	if (!v)
		return;
	if (v->mod)
		rt_cu.ModuleUnload(v->mod);
	signature_free(v);
	free(v->source);
	free(v->key);
	free(v->entry);
	free(v->ptx);
	free(v);
}

/* i1/i8/i16 travel as i32, f16/bf16 as f32; other scalars as themselves. */
static int param_kind(int elem)
{
	switch (elem) {
	case TY_PTR: return TILEC_ARG_PTR;
	case TY_I1: case TY_I8: case TY_I16: case TY_I32: return TILEC_ARG_I32;
	case TY_I64: return TILEC_ARG_I64;
	case TY_F16: case TY_BF16: case TY_F32: return TILEC_ARG_F32;
	case TY_F64: return TILEC_ARG_F64;
	default: return -1;
	}
}

/* Copy the runtime signature out of the compiled Func. Returns 0 or an error text. */
static const char *take_signature(Variant *v, Func *f)
{
	Block *b = f->entry;
	int n = b ? b->nargs : 0;
	if (n > MAX_PARAMS)
		return "kernel has more than 128 runtime parameters";
	v->params = calloc((size_t)n + 1, sizeof *v->params);
	v->names = calloc((size_t)n + 1, sizeof *v->names);
	if (!v->params || !v->names)
		return "out of memory";
	for (int i = 0; i < n; i++, v->nparams++) {
		Type t = vtype(f, b->args[i]);
		char tmp[32];
		snprintf(tmp, sizeof tmp, "arg%d", i);
		const char *nm = (f->param_names && i < f->nparams && f->param_names[i]) ? f->param_names[i] : tmp;
		v->names[i] = dupstr(nm);
		if (!v->names[i])
			return "out of memory";
		v->params[i].name = v->names[i];
		v->params[i].elem = t.elem;
		int k = param_kind(t.elem);
		if (k < 0 || t.rank != 0)
			return "kernel has a parameter of a type the JIT cannot pass";
		v->params[i].kind = (tilec_arg_kind)k;
	}
	v->num_warps = f->num_warps > 0 ? f->num_warps : 4;
	v->smem = f->smem_total;
	return NULL;
}

/* What one compile needs: the kernel handle's key, plus the spec's hints. */
typedef struct Request {
	const char *source, *source_name, *kernel, *arch, *hints;
	const Define *defines;
	int ndefines, num_warps, num_stages;
	bool check;         /* front end and IR passes only: errors and signature, no PTX */
} Request;

/*
 * Source lines (.loc) in the JIT's PTX only when TILEC_LINEINFO=1: they let
 * Nsight show .tile lines but make the driver's PTX compile at module load
 * slower (about 20 ms for softmax), which is most of a cold compile.
 */
static bool lineinfo_wanted(void)
{
	const char *e = getenv("TILEC_LINEINFO");
	return e && *e && strcmp(e, "0") != 0;
}

/*
 * The driver's PTX optimisation level at module load (0-4; its default is 4)
 * from TILEC_JIT_OPT, or 5 for "not set": the default.
 */
static unsigned jit_opt_level(void)
{
	const char *e = getenv("TILEC_JIT_OPT");
	return e && e[0] >= '0' && e[0] <= '4' && !e[1] ? (unsigned)(e[0] - '0') : 5;
}

/*
 * Run the compiler to PTX (or, for a check, through the IR passes) and fill
 * v (ptx, entry, signature, timings).  On a user error, the diagnostics are
 * returned in *log (malloc'ed).
 */
static tilec_status run_compiler(const Request *rq, Variant *v, char **log)
{
	const char *name = rq->source_name ? rq->source_name : "<source>";
	Compilation *c = compilation_new(name, rq->source, strlen(rq->source));
	CompileOptions o = {
		.kernel = rq->kernel, .defines = rq->defines, .ndefines = rq->ndefines,
		.num_warps = rq->num_warps, .num_stages = rq->num_stages, .arch = rq->arch,
		.div_hints = rq->hints, .emit = rq->check ? EMIT_CHECK : EMIT_PTX, .opt = 1,
		.lineinfo = lineinfo_wanted(),
	};
	tilec_status st = TILEC_OK;
	const char *bad = NULL;
	if (compile_kernel(c, &o) != 0 || !c->func || (!rq->check && !c->out.s)) {
		st = TILEC_ERROR_COMPILE;
		*log = dupstr(c->diag.out.s && c->diag.out.len ? c->diag.out.s : "compilation failed\n");
	} else if ((bad = take_signature(v, c->func)) != NULL) {
		st = TILEC_ERROR_COMPILE;
		size_t n = strlen(name) + strlen(bad) + 16;
		*log = malloc(n);
		if (*log)
			snprintf(*log, n, "%s: error: %s\n", name, bad);
	} else {
		v->entry = dupstr(c->kernel ? c->kernel->name : c->func->name);
		v->ptx = rq->check ? NULL : dupstr(c->out.s);
		v->ms[0] = c->ms_front;
		v->ms[1] = c->ms_passes;
		v->ms[2] = c->ms_codegen;
		if (!v->entry || (!rq->check && !v->ptx))
			st = TILEC_ERROR_INVALID;
	}
	compilation_free(c);
	return st;
}

/* Load a variant's PTX into a module and find its entry. */
static tilec_status load_variant(tilec_context *ctx, Variant *v)
{
	char elog[16384] = "", ilog[4096] = "";
	CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
	                       CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_OPTIMIZATION_LEVEL};
	void *vals[] = {elog, (void *)(uintptr_t)sizeof elog, ilog, (void *)(uintptr_t)sizeof ilog, NULL};
	unsigned nopts = 4, level = jit_opt_level();
	if (level <= 4)
		vals[nopts++] = (void *)(uintptr_t)level;
	double t0 = now_seconds();
	CUresult r = rt_cu.CtxSetCurrent(ctx->cu);
	if (r != CUDA_SUCCESS)
		return cuda_err(ctx, "cuCtxSetCurrent", r);
	r = rt_cu.ModuleLoadDataEx(&v->mod, v->ptx, nopts, opts, vals);
	if (r != CUDA_SUCCESS) {
		char msg[512];
		v->mod = NULL;
		rt_cuda_msg(msg, sizeof msg, "cuModuleLoadDataEx", r);
		rt_set_error(ctx, "%s\n%s%s", msg, elog, ilog);
		return TILEC_ERROR_CUDA;
	}
	r = rt_cu.ModuleGetFunction(&v->fn, v->mod, v->entry);
	if (r != CUDA_SUCCESS)
		return cuda_err(ctx, "cuModuleGetFunction", r);
	if (v->smem > DEFAULT_SMEM_LIMIT) {
		r = rt_cu.FuncSetAttribute(v->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, v->smem);
		if (r != CUDA_SUCCESS)
			return cuda_err(ctx, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", r);
	}
	v->ms[3] = (now_seconds() - t0) * 1e3;
	free(v->ptx);
	v->ptx = NULL;
	return TILEC_OK;
}

static char *spec_key(const tilec_kernel *k, uint64_t spec, bool check)
{
	size_t n = strlen(k->base_key) + 24;
	char *s = malloc(n);
	if (s && check)
		snprintf(s, n, "%scheck", k->base_key);
	else if (s)
		snprintf(s, n, "%sspec=%llx", k->base_key, (unsigned long long)spec);
	return s;
}

static Variant *cache_find(tilec_context *ctx, uint64_t hash, const char *source, const char *key)
{
	for (Variant *v = ctx->cache; v; v = v->next)
		if (v->hash == hash && strcmp(v->key, key) == 0 && strcmp(v->source, source) == 0)
			return v;
	return NULL;
}

/*
 * The variant of k for spec: from the cache, or compiled and added to it.
 * check: the entry that only checks the source and holds the signature.
 */
static tilec_status get_variant(tilec_kernel *k, uint64_t spec, const char *hints, bool check, Variant **out)
{
	tilec_context *ctx = k->ctx;
	char *key = spec_key(k, spec, check);
	if (!key)
		return TILEC_ERROR_INVALID;
	Variant *v = cache_find(ctx, k->hash, k->source, key);
	if (v) {
		free(key);
		*out = v;
		return TILEC_OK;
	}
	v = calloc(1, sizeof *v);
	if (!v || !(v->source = dupstr(k->source))) {
		free(key);
		variant_free(v);
		rt_set_error(ctx, "out of memory");
		return TILEC_ERROR_INVALID;
	}
	v->key = key;
	v->hash = k->hash;
	Request rq = {k->source, k->source_name, k->name, k->arch, hints, k->defines,
	              k->ndefines, k->num_warps, k->num_stages, check};
	char *log = NULL;
	tilec_status st = run_compiler(&rq, v, &log);
	if (st != TILEC_OK) {
		rt_set_error(ctx, "%s", log ? log : "out of memory");
		free(log);
		variant_free(v);
		return st;
	}
	v->next = ctx->cache;
	ctx->cache = v;
	*out = v;
	return TILEC_OK;
}

/* ---- contexts ---- */

static tilec_status open_device(tilec_context *ctx, int device)
{
	char err[640];
	if (rt_cuda_load(err, sizeof err) != 0) {
		rt_set_error(ctx, "%s", err);
		return TILEC_ERROR_NO_DRIVER;
	}
	CUresult r = rt_cu.Init(0);
	if (r == CUDA_ERROR_NO_DEVICE) {
		cuda_err(ctx, "cuInit", r);
		return TILEC_ERROR_NO_DRIVER;
	}
	if (r != CUDA_SUCCESS)
		return cuda_err(ctx, "cuInit", r);
	int count = 0;
	if ((r = rt_cu.DeviceGetCount(&count)) != CUDA_SUCCESS)
		return cuda_err(ctx, "cuDeviceGetCount", r);
	if (device < 0 || device >= count) {
		rt_set_error(ctx, "CUDA device %d does not exist (this machine has %d)", device, count);
		return count ? TILEC_ERROR_INVALID : TILEC_ERROR_NO_DRIVER;
	}
	if ((r = rt_cu.DeviceGet(&ctx->dev, device)) != CUDA_SUCCESS)
		return cuda_err(ctx, "cuDeviceGet", r);
	int major = 0, minor = 0;
	if ((r = rt_cu.DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, ctx->dev)) ||
	    (r = rt_cu.DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, ctx->dev)))
		return cuda_err(ctx, "cuDeviceGetAttribute", r);
	const char *arch = rt_arch_for(major, minor);
	if (!arch) {
		rt_set_error(ctx, "CUDA device %d has compute capability %d.%d; tilec needs 8.0 or newer",
		        device, major, minor);
		return TILEC_ERROR_CUDA;
	}
	snprintf(ctx->arch, sizeof ctx->arch, "%s", arch);
	/* The primary context is the one the CUDA runtime (and so PyTorch) uses. */
	if ((r = rt_cu.DevicePrimaryCtxRetain(&ctx->cu, ctx->dev)) != CUDA_SUCCESS)
		return cuda_err(ctx, "cuDevicePrimaryCtxRetain", r);
	ctx->retained = true;
	if ((r = rt_cu.CtxSetCurrent(ctx->cu)) != CUDA_SUCCESS)
		return cuda_err(ctx, "cuCtxSetCurrent", r);
	return TILEC_OK;
}

tilec_status tilec_context_create(int device, tilec_context **out)
{
	if (!out) {
		rt_set_error(NULL, "tilec_context_create: out is NULL");
		return TILEC_ERROR_INVALID;
	}
	tilec_context *ctx = calloc(1, sizeof *ctx);
	*out = ctx;
	if (!ctx) {
		rt_set_error(NULL, "tilec_context_create: out of memory");
		return TILEC_ERROR_INVALID;
	}
	ctx->fail = open_device(ctx, device);
	return ctx->fail;
}

void tilec_context_destroy(tilec_context *ctx)
{
	if (!ctx)
		return;
	if (ctx->retained)
		rt_cu.CtxSetCurrent(ctx->cu);
	while (ctx->cache) {
		Variant *v = ctx->cache;
		ctx->cache = v->next;
		variant_free(v);
	}
	rt_tuned_free(ctx->tuned);
	if (ctx->retained)
		rt_cu.DevicePrimaryCtxRelease(ctx->dev);
	free(ctx->err);
	free(ctx);
}

/* A usable context, or the status to return (the error text is already set). */
tilec_status rt_ready(tilec_context *ctx, const char *fn)
{
	if (!ctx) {
		rt_set_error(NULL, "%s: context is NULL", fn);
		return TILEC_ERROR_INVALID;
	}
	if (ctx->fail != TILEC_OK)
		return ctx->fail; /* the message from tilec_context_create stays */
	return TILEC_OK;
}

CUresult rt_make_current(tilec_context *ctx)
{
	return rt_cu.CtxSetCurrent(ctx->cu);
}

RtTuned **rt_tuned_list(tilec_context *ctx)
{
	return &ctx->tuned;
}

/* ---- kernels ---- */

void tilec_kernel_destroy(tilec_kernel *k)
{
	if (!k)
		return;
	for (int i = 0; i < k->ndefines; i++)
		free((char *)k->defines[i].name);
	free(k->defines);
	free(k->source);
	free(k->name);
	free(k->source_name);
	free(k->arch);
	free(k->base_key);
	free(k);
}

/* The key text of everything but the source and the spec. */
static char *base_key(const tilec_kernel *k)
{
	StrBuf b = {0};
	sb_printf(&b, "%s\n%d\n%d\n%s\n", k->name ? k->name : "", k->num_warps, k->num_stages, k->arch);
	for (int i = 0; i < k->ndefines; i++)
		sb_printf(&b, "%s=%lld\n", k->defines[i].name, (long long)k->defines[i].value);
	return b.s;
}

static tilec_kernel *kernel_new(tilec_context *ctx, const char *source, const char *name,
                                const tilec_options *o)
{
	tilec_kernel *k = calloc(1, sizeof *k);
	if (!k)
		return NULL;
	k->ctx = ctx;
	k->source = dupstr(source);
	k->hash = fnv1a(source);
	k->name = dupstr(name);
	k->source_name = dupstr(o ? o->source_name : NULL);
	k->arch = dupstr(o && o->arch ? o->arch : ctx->arch);
	k->num_warps = o ? o->num_warps : 0;
	k->num_stages = o ? o->num_stages : 0;
	int nd = o && o->defines ? o->ndefines : 0;
	k->defines = calloc((size_t)nd + 1, sizeof *k->defines);
	bool ok = k->source && k->arch && k->defines && (!name || k->name) &&
	          (!o || !o->source_name || k->source_name);
	for (int i = 0; ok && i < nd; i++, k->ndefines++) {
		k->defines[i].name = dupstr(o->defines[i].name);
		k->defines[i].value = o->defines[i].value;
		ok = k->defines[i].name != NULL;
	}
	if (ok)
		ok = (k->base_key = base_key(k)) != NULL;
	if (!ok) {
		tilec_kernel_destroy(k);
		return NULL;
	}
	return k;
}

/* Option values the API rejects before compiling. */
const char *rt_bad_options(const tilec_options *o)
{
	if (!o)
		return NULL;
	if (o->ndefines < 0 || (o->ndefines > 0 && !o->defines))
		return "options: defines is NULL or ndefines is negative";
	for (int i = 0; i < o->ndefines; i++)
		if (!o->defines[i].name)
			return "options: a define has a NULL name";
	if (o->num_warps < 0 || o->num_stages < 0)
		return "options: num_warps and num_stages must not be negative";
	if (o->num_warps && !num_warps_ok(o->num_warps))
		return "options: num_warps must be 0 (the kernel's own) or a power of two from 1 to 32";
	if (o->num_stages && !num_stages_ok(o->num_stages))
		return "options: num_stages must be 0 (the kernel's own) or from 1 to 8";
	return NULL;
}

tilec_status tilec_compile(tilec_context *ctx, const char *source, const char *kernel_name,
                           const tilec_options *opts, tilec_kernel **out)
{
	tilec_status st = rt_ready(ctx, "tilec_compile");
	if (out)
		*out = NULL;
	if (st != TILEC_OK)
		return st;
	const char *bad = rt_bad_options(opts);
	if (!source || !out || bad) {
		rt_set_error(ctx, "tilec_compile: %s", bad ? bad : !source ? "source is NULL" : "out is NULL");
		return TILEC_ERROR_INVALID;
	}
	tilec_kernel *k = kernel_new(ctx, source, kernel_name, opts);
	if (!k) {
		rt_set_error(ctx, "tilec_compile: out of memory");
		return TILEC_ERROR_INVALID;
	}
	Variant *v;
	if ((st = get_variant(k, 0, NULL, true, &v)) != TILEC_OK) {
		tilec_kernel_destroy(k);
		return st;
	}
	k->generic = v;
	memcpy(k->ms, v->ms, sizeof k->ms);
	*out = k;
	return TILEC_OK;
}

int tilec_kernel_num_params(const tilec_kernel *k)
{
	return k ? k->generic->nparams : -1;
}

tilec_arg_kind tilec_kernel_param_kind(const tilec_kernel *k, int i)
{
	if (!k || i < 0 || i >= k->generic->nparams) {
		rt_set_error(k ? k->ctx : NULL, "tilec_kernel_param_kind: no parameter %d", i);
		return TILEC_ARG_I32;
	}
	return k->generic->params[i].kind;
}

void tilec_kernel_compile_times(const tilec_kernel *k, double ms[4])
{
	if (!ms)
		return;
	for (int i = 0; i < 4; i++)
		ms[i] = k ? k->ms[i] : 0;
}

/* ---- launching ---- */

/* f32 -> f16 / bf16 bits, rounding to nearest even, for f16/bf16 parameters. */
static uint16_t f32_to_half_bits(float x, int elem)
{
	uint32_t u;
	memcpy(&u, &x, 4);
	if (elem == TY_BF16) {
		if ((u & 0x7fffffff) > 0x7f800000)
			return (uint16_t)((u >> 16) | 0x40);
		return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
	}
	uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
	uint32_t a = u & 0x7fffffff;
	if (a > 0x7f800000)
		return sign | 0x7e00;
	if (a >= 0x477ff000) /* rounds to >= 65520: inf */
		return sign | 0x7c00;
	if (a < 0x38800000) { /* subnormal half (or zero) */
		float f;
		memcpy(&f, &a, 4);
		float s = f * 16777216.0f; /* 2^24: units of the smallest subnormal */
		uint32_t m = (uint32_t)s;
		float rem = s - (float)m;
		if (rem > 0.5f || (rem == 0.5f && (m & 1)))
			m++;
		return sign | (uint16_t)m;
	}
	uint32_t r = a + 0xfff + ((a >> 13) & 1);
	return sign | (uint16_t)((r - 0x38000000) >> 13);
}

/* One 8-byte slot per parameter: cuLaunchKernel reads each as the PTX
 * parameter's size from the start, and the host is little-endian. */
typedef union Slot {
	int32_t i32;
	int64_t i64;
	float f32;
	double f64;
	uint16_t h;
	unsigned long long ptr;
} Slot;

static void fill_slot(Slot *s, const RtParam *p, const tilec_arg *a)
{
	memset(s, 0, sizeof *s);
	switch (p->kind) {
	case TILEC_ARG_I32: s->i32 = a->v.i32; break;
	case TILEC_ARG_I64: s->i64 = a->v.i64; break;
	case TILEC_ARG_F64: s->f64 = a->v.f64; break;
	case TILEC_ARG_PTR: s->ptr = a->v.ptr; break;
	case TILEC_ARG_F32:
		if (p->elem == TY_F16 || p->elem == TY_BF16)
			s->h = f32_to_half_bits(a->v.f32, p->elem);
		else
			s->f32 = a->v.f32;
		break;
	}
}

static tilec_status pick_variant(tilec_kernel *k, const tilec_arg *args, Variant **out)
{
	Variant *g = k->generic;
	char hints[1024];
	uint64_t spec = rt_spec_key(g->params, g->nparams, args, NULL, 0);
	if (k->last && k->last_spec == spec) {
		*out = k->last;
		return TILEC_OK;
	}
	rt_spec_key(g->params, g->nparams, args, hints, sizeof hints);
	Variant *v;
	tilec_status st = get_variant(k, spec, spec ? hints : NULL, false, &v);
	if (st != TILEC_OK)
		return st;
	k->last = v;
	k->last_spec = spec;
	memcpy(k->ms, v->ms, sizeof k->ms);
	*out = v;
	return TILEC_OK;
}

tilec_status tilec_launch(tilec_kernel *k, unsigned gx, unsigned gy, unsigned gz, void *stream,
                          const tilec_arg *args, int nargs)
{
	if (!k) {
		rt_set_error(NULL, "tilec_launch: kernel is NULL");
		return TILEC_ERROR_INVALID;
	}
	tilec_context *ctx = k->ctx;
	Variant *g = k->generic, *v;
	char msg[1024];
	tilec_status st = rt_check_args(g->entry, g->params, g->nparams, args, nargs, msg, sizeof msg);
	if (st != TILEC_OK) {
		rt_set_error(ctx, "%s", msg);
		return st;
	}
	if (gx == 0 || gy == 0 || gz == 0)
		return TILEC_OK; /* an empty grid runs no program, as in Triton */
	if ((st = pick_variant(k, args, &v)) != TILEC_OK)
		return st;
	if (!v->fn) {
		if ((st = load_variant(ctx, v)) != TILEC_OK)
			return st;
		memcpy(k->ms, v->ms, sizeof k->ms);
	}
	Slot slots[MAX_PARAMS];
	void *ptrs[MAX_PARAMS];
	for (int i = 0; i < v->nparams; i++) {
		fill_slot(&slots[i], &v->params[i], &args[i]);
		ptrs[i] = &slots[i];
	}
	CUresult r = rt_cu.CtxSetCurrent(ctx->cu);
	if (r != CUDA_SUCCESS)
		return cuda_err(ctx, "cuCtxSetCurrent", r);
	r = rt_cu.LaunchKernel(v->fn, gx, gy, gz, 32u * (unsigned)v->num_warps, 1, 1, (unsigned)v->smem,
	                       (CUstream)stream, ptrs, NULL);
	if (r != CUDA_SUCCESS) {
		char m[512];
		rt_cuda_msg(m, sizeof m, "cuLaunchKernel", r);
		rt_set_error(ctx, "%s (kernel '%s', grid %u x %u x %u, %d threads, %d bytes of shared memory)",
		        m, v->entry, gx, gy, gz, 32 * v->num_warps, v->smem);
		return TILEC_ERROR_CUDA;
	}
	return TILEC_OK;
}

/* ---- device memory ---- */

static tilec_status mem_ready(tilec_context *ctx, const char *fn)
{
	tilec_status st = rt_ready(ctx, fn);
	if (st != TILEC_OK)
		return st;
	CUresult r = rt_cu.CtxSetCurrent(ctx->cu);
	return r == CUDA_SUCCESS ? TILEC_OK : cuda_err(ctx, "cuCtxSetCurrent", r);
}

tilec_status tilec_malloc(tilec_context *ctx, size_t bytes, unsigned long long *dptr)
{
	tilec_status st = mem_ready(ctx, "tilec_malloc");
	if (st != TILEC_OK)
		return st;
	if (!dptr || bytes == 0) {
		rt_set_error(ctx, "tilec_malloc: %s", dptr ? "size is 0" : "dptr is NULL");
		return TILEC_ERROR_INVALID;
	}
	CUdeviceptr p = 0;
	CUresult r = rt_cu.MemAlloc(&p, bytes);
	if (r != CUDA_SUCCESS) {
		char m[512];
		rt_cuda_msg(m, sizeof m, "cuMemAlloc", r);
		rt_set_error(ctx, "%s (%zu bytes)", m, bytes);
		return TILEC_ERROR_CUDA;
	}
	*dptr = p;
	return TILEC_OK;
}

tilec_status tilec_free(tilec_context *ctx, unsigned long long dptr)
{
	tilec_status st = mem_ready(ctx, "tilec_free");
	if (st != TILEC_OK || dptr == 0)
		return st;
	CUresult r = rt_cu.MemFree(dptr);
	return r == CUDA_SUCCESS ? TILEC_OK : cuda_err(ctx, "cuMemFree", r);
}

tilec_status tilec_memcpy_htod(tilec_context *ctx, unsigned long long dst, const void *src, size_t bytes)
{
	tilec_status st = mem_ready(ctx, "tilec_memcpy_htod");
	if (st != TILEC_OK || bytes == 0)
		return st;
	if (!src || !dst) {
		rt_set_error(ctx, "tilec_memcpy_htod: %s is NULL", src ? "dst" : "src");
		return TILEC_ERROR_INVALID;
	}
	CUresult r = rt_cu.MemcpyHtoD(dst, src, bytes);
	return r == CUDA_SUCCESS ? TILEC_OK : cuda_err(ctx, "cuMemcpyHtoD", r);
}

tilec_status tilec_memcpy_dtoh(tilec_context *ctx, void *dst, unsigned long long src, size_t bytes)
{
	tilec_status st = mem_ready(ctx, "tilec_memcpy_dtoh");
	if (st != TILEC_OK || bytes == 0)
		return st;
	if (!src || !dst) {
		rt_set_error(ctx, "tilec_memcpy_dtoh: %s is NULL", src ? "dst" : "src");
		return TILEC_ERROR_INVALID;
	}
	CUresult r = rt_cu.MemcpyDtoH(dst, src, bytes);
	return r == CUDA_SUCCESS ? TILEC_OK : cuda_err(ctx, "cuMemcpyDtoH", r);
}

tilec_status tilec_synchronize(tilec_context *ctx)
{
	tilec_status st = mem_ready(ctx, "tilec_synchronize");
	if (st != TILEC_OK)
		return st;
	CUresult r = rt_cu.CtxSynchronize();
	return r == CUDA_SUCCESS ? TILEC_OK : cuda_err(ctx, "cuCtxSynchronize", r);
}

/* ---- no GPU needed ---- */

tilec_status tilec_compile_ptx(const char *source, const char *kernel_name, const tilec_options *opts,
                               char **ptx, char **log)
{
	if (ptx)
		*ptx = NULL;
	if (log)
		*log = NULL;
	const char *bad = rt_bad_options(opts);
	if (!source || bad) {
		if (log)
			*log = dupstr(bad ? bad : "tilec_compile_ptx: source is NULL");
		return TILEC_ERROR_INVALID;
	}
	Define *defs = NULL;
	int nd = opts ? opts->ndefines : 0;
	if (nd > 0 && !(defs = calloc((size_t)nd, sizeof *defs))) {
		if (log)
			*log = dupstr("tilec_compile_ptx: out of memory");
		return TILEC_ERROR_INVALID;
	}
	for (int i = 0; i < nd; i++) {
		defs[i].name = opts->defines[i].name;
		defs[i].value = opts->defines[i].value;
	}
	Request rq = {source, opts ? opts->source_name : NULL, kernel_name, opts ? opts->arch : NULL,
	              NULL, defs, nd, opts ? opts->num_warps : 0, opts ? opts->num_stages : 0, false};
	Variant v = {0};
	char *err = NULL;
	tilec_status st = run_compiler(&rq, &v, &err);
	if (st == TILEC_OK && ptx) {
		*ptx = v.ptx;
		v.ptx = NULL;
	}
	if (log)
		*log = err;
	else
		free(err);
	free(v.entry);
	free(v.ptx);
	signature_free(&v);
	free(defs);
	return st;
}

void tilec_free_string(char *s)
{
	free(s);
}
