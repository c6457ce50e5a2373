/*
 * tilec.h: compile tile kernels from source strings and launch them on an
 * NVIDIA GPU, from C.
 *
 *     tilec_context *ctx;
 *     if (tilec_context_create(0, &ctx) != TILEC_OK) { ... tilec_context_error(ctx) ... }
 *     tilec_kernel *k;
 *     tilec_define d[] = {{"BLOCK", 1024}};
 *     tilec_options o = {.defines = d, .ndefines = 1};
 *     tilec_compile(ctx, src, "softmax", &o, &k);
 *     tilec_arg args[] = {tilec_ptr(out), tilec_ptr(in), tilec_i32(n), tilec_i32(n)};
 *     tilec_launch(k, rows, 1, 1, NULL, args, 4);
 *     tilec_kernel_destroy(k);
 *     tilec_context_destroy(ctx);
 *
 * The CUDA driver is loaded at run time (dlopen of libcuda.so.1): a program
 * built against tilec runs on machines without a GPU and gets
 * TILEC_ERROR_NO_DRIVER from tilec_context_create, with a message.
 * Every object has a destroy call; strings returned by tilec_compile_ptx are
 * freed with tilec_free_string.  A context is used from one thread at a time.
 */
#ifndef TILEC_H
#define TILEC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TILEC_VERSION "0.1.0"

typedef enum tilec_status {
	TILEC_OK = 0,
	TILEC_ERROR_INVALID,    /* a NULL or bad argument to the API itself */
	TILEC_ERROR_COMPILE,    /* the kernel source has errors; the message has file:line:col */
	TILEC_ERROR_ARGS,       /* launch arguments do not match the kernel's signature */
	TILEC_ERROR_NO_DRIVER,  /* libcuda.so.1 could not be loaded, or no device */
	TILEC_ERROR_CUDA,       /* a CUDA driver call failed; the message names the CUresult */
} tilec_status;

typedef struct tilec_context tilec_context;
typedef struct tilec_kernel tilec_kernel;

typedef struct tilec_define {
	const char *name;       /* a `const` parameter of the kernel */
	long long value;
} tilec_define;

typedef struct tilec_options {
	const tilec_define *defines;
	int ndefines;
	int num_warps;          /* 0: the kernel's @num_warps or 4; else a power of two, 1 to 32 */
	int num_stages;         /* 0: the kernel's @num_stages or 3; else 1 to 8 */
	const char *arch;       /* "sm_90", ...; NULL: the context's device (sm_90a on compute capability 9.0) */
	const char *source_name; /* file name shown in diagnostics; NULL: "<source>" */
} tilec_options;

typedef enum tilec_arg_kind {
	TILEC_ARG_I32, TILEC_ARG_I64, TILEC_ARG_F32, TILEC_ARG_F64, TILEC_ARG_PTR
} tilec_arg_kind;

typedef struct tilec_arg {
	tilec_arg_kind kind;
	union {
		int32_t i32;
		int64_t i64;
		float f32;
		double f64;
		unsigned long long ptr; /* a CUdeviceptr */
	} v;
} tilec_arg;

static inline tilec_arg tilec_i32(int32_t x) { tilec_arg a; a.kind = TILEC_ARG_I32; a.v.i32 = x; return a; }
static inline tilec_arg tilec_i64(int64_t x) { tilec_arg a; a.kind = TILEC_ARG_I64; a.v.i64 = x; return a; }
static inline tilec_arg tilec_f32(float x) { tilec_arg a; a.kind = TILEC_ARG_F32; a.v.f32 = x; return a; }
static inline tilec_arg tilec_f64(double x) { tilec_arg a; a.kind = TILEC_ARG_F64; a.v.f64 = x; return a; }
static inline tilec_arg tilec_ptr(unsigned long long p) { tilec_arg a; a.kind = TILEC_ARG_PTR; a.v.ptr = p; return a; }

/* ---- contexts ---- */
/* On failure *out is still set (unless out is NULL or memory ran out) to a
 * context that holds the message; destroy it like any other. */
tilec_status tilec_context_create(int device, tilec_context **out);
void tilec_context_destroy(tilec_context *ctx);
/* The last error of any call on ctx (or of its kernels); "" if none. */
const char *tilec_context_error(const tilec_context *ctx);

/* ---- compiling and launching ---- */
/*
 * Compile `kernel_name` (NULL: the first kernel) from `source`: every source
 * error is reported here, and the signature is known.  Integer arguments
 * are specialised at launch on divisibility by 16 (and on being 1); each
 * specialisation is generated (LLVM, PTX) once, at its first launch.
 * Results are cached in the context by source, options and architecture.
 */
tilec_status tilec_compile(tilec_context *ctx, const char *source, const char *kernel_name,
                           const tilec_options *opts, tilec_kernel **out);
/* Launch on a grid of programs; stream is a CUstream or NULL. */
tilec_status tilec_launch(tilec_kernel *k, unsigned gx, unsigned gy, unsigned gz, void *stream,
                          const tilec_arg *args, int nargs);
void tilec_kernel_destroy(tilec_kernel *k);
/* Number and kinds of the kernel's runtime parameters. */
int tilec_kernel_num_params(const tilec_kernel *k);
tilec_arg_kind tilec_kernel_param_kind(const tilec_kernel *k, int i);

/* ---- autotuning ---- */
/* One configuration to try: defines laid over the options' own (a name in
 * both takes this value), and num_warps / num_stages (0: the options'). */
typedef struct tilec_config {
	const tilec_define *defines;
	int ndefines;
	int num_warps;
	int num_stages;
} tilec_config;

/* The grid for one configuration: set grid[0..2] (each starts at 1). */
typedef void (*tilec_grid_fn)(const tilec_config *config, void *user, unsigned grid[3]);

typedef struct tilec_tuning {
	const tilec_config *configs;
	int nconfigs;           /* 1 to 256 */
	tilec_grid_fn grid;
	void *user;             /* handed to grid */
	void *stream;           /* CUstream or NULL */
	int warmup;             /* untimed launches per configuration; 0: 3 */
	int reps;               /* timed launches per configuration, median kept; 0: 10 */
} tilec_tuning;

/*
 * Launch every configuration on `args` and return the fastest as *out (a
 * kernel like tilec_compile's, with that configuration's options).  Each
 * configuration is compiled and launched once; one that fails to compile
 * (say, over the shared-memory limit) or to launch is skipped.  The rest run
 * `warmup` launches, then `reps` launches timed one by one with CUDA events.
 * The choice is cached in the context by source, kernel, options,
 * configurations and the values of every integer and float argument (not
 * the pointers): a later call with the same ones compiles the winner (from
 * the cache) and launches nothing.  Trial launches write the kernel's
 * outputs, many times: a kernel that accumulates into memory needs its
 * buffers reset afterwards.  best (may be NULL): the winner's index; ms (may
 * be NULL, else nconfigs long): each configuration's median milliseconds,
 * -1 where it was skipped.  If every configuration is skipped the call
 * fails with each one's error in the message.
 */
tilec_status tilec_autotune(tilec_context *ctx, const char *source, const char *kernel_name,
                            const tilec_options *opts, const tilec_tuning *tuning,
                            const tilec_arg *args, int nargs, int *best, double *ms, tilec_kernel **out);

/* ---- device memory, so simple programs need not include cuda.h ---- */
tilec_status tilec_malloc(tilec_context *ctx, size_t bytes, unsigned long long *dptr);
tilec_status tilec_free(tilec_context *ctx, unsigned long long dptr);
tilec_status tilec_memcpy_htod(tilec_context *ctx, unsigned long long dst, const void *src, size_t bytes);
tilec_status tilec_memcpy_dtoh(tilec_context *ctx, void *dst, unsigned long long src, size_t bytes);
tilec_status tilec_synchronize(tilec_context *ctx);

/* ---- no GPU needed ---- */
/*
 * Compile to PTX text.  On success *ptx is set (free with tilec_free_string);
 * on failure *log holds the diagnostics (free with tilec_free_string).
 * Either pointer may be NULL if the caller does not want it.
 */
tilec_status tilec_compile_ptx(const char *source, const char *kernel_name, const tilec_options *opts,
                               char **ptx, char **log);
void tilec_free_string(char *s);

/*
 * Milliseconds the compile of the kernel's current variant took: front end,
 * IR passes, code generation, CUDA module load (the last two 0 until its
 * first launch).  A variant found in the context's cache reports the times
 * of its compile.
 */
void tilec_kernel_compile_times(const tilec_kernel *k, double ms[4]);

#ifdef __cplusplus
}
#endif
#endif
