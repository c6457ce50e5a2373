/*
 * cuda_api.h: the runtime's private interface.
 *
 * The CUDA driver is never linked: cuda.c dlopens libcuda.so.1 on first use
 * and resolves the entry points below into one table, `rt_cu`.  The types
 * and constants are cuda.h's when the build found it (TILEC_HAVE_CUDA_H;
 * cuda.c then checks that our numbers equal its), else our own copies, so
 * the runtime builds on machines without the CUDA toolkit.
 *
 * The second half declares the pieces of jit.c that tests reach without a
 * GPU: the launch-argument check, the specialisation key, the arch choice.
 */
#ifndef TILEC_CUDA_API_H
#define TILEC_CUDA_API_H

#include <stddef.h>
#include <stdint.h>

#include "tilec.h"

/* ---- driver types and constants: only the values the runtime uses ---- */
#define RT_CUDA_ENUMS(X) \
	X(CUDA_SUCCESS, 0) \
	X(CUDA_ERROR_INVALID_VALUE, 1) \
	X(CUDA_ERROR_NOT_INITIALIZED, 3) \
	X(CUDA_ERROR_NO_DEVICE, 100) \
	X(CUDA_ERROR_INVALID_PTX, 218) \
	X(CU_JIT_INFO_LOG_BUFFER, 3) \
	X(CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, 4) \
	X(CU_JIT_ERROR_LOG_BUFFER, 5) \
	X(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, 6) \
	X(CU_JIT_OPTIMIZATION_LEVEL, 7) \
	X(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 16) \
	X(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 75) \
	X(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 76) \
	X(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 8)

#ifdef TILEC_HAVE_CUDA_H
#include <cuda.h>
#else
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef int CUjit_option;
typedef int CUdevice_attribute;
typedef int CUfunction_attribute;
#define RT_ENUM_DEF(name, v) name = v,
enum { RT_CUDA_ENUMS(RT_ENUM_DEF) };
#undef RT_ENUM_DEF
#endif

/*
 * Every driver entry point the runtime calls, resolved by rt_cuda_load().
 * Fields drop the `cu` prefix so that cuda.h's renaming macros
 * (cuMemAlloc -> cuMemAlloc_v2) leave them alone: rt_cu.MemAlloc(...).
 */
typedef struct CudaApi {
	CUresult (*Init)(unsigned flags);
	CUresult (*DeviceGetCount)(int *count);
	CUresult (*DeviceGet)(CUdevice *dev, int ordinal);
	CUresult (*DeviceGetAttribute)(int *v, CUdevice_attribute attr, CUdevice dev);
	CUresult (*DeviceGetName)(char *name, int len, CUdevice dev);
	CUresult (*DevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev);
	CUresult (*DevicePrimaryCtxRelease)(CUdevice dev);
	CUresult (*CtxSetCurrent)(CUcontext ctx);
	CUresult (*CtxSynchronize)(void);
	CUresult (*ModuleLoadDataEx)(CUmodule *mod, const void *image, unsigned nopts,
	                             CUjit_option *opts, void **optvals);
	CUresult (*ModuleGetFunction)(CUfunction *fn, CUmodule mod, const char *name);
	CUresult (*ModuleUnload)(CUmodule mod);
	CUresult (*FuncSetAttribute)(CUfunction fn, CUfunction_attribute attr, int value);
	CUresult (*LaunchKernel)(CUfunction fn, unsigned gx, unsigned gy, unsigned gz,
	                         unsigned bx, unsigned by, unsigned bz, unsigned smem,
	                         CUstream stream, void **params, void **extra);
	CUresult (*MemAlloc)(CUdeviceptr *p, size_t bytes);
	CUresult (*MemFree)(CUdeviceptr p);
	CUresult (*MemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes);
	CUresult (*MemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);
	CUresult (*EventCreate)(CUevent *ev, unsigned flags);
	CUresult (*EventRecord)(CUevent ev, CUstream stream);
	CUresult (*EventSynchronize)(CUevent ev);
	CUresult (*EventElapsedTime)(float *ms, CUevent start, CUevent end);
	CUresult (*EventDestroy)(CUevent ev);
	CUresult (*GetErrorName)(CUresult r, const char **s);
	CUresult (*GetErrorString)(CUresult r, const char **s);
} CudaApi;

extern CudaApi rt_cu;

/*
 * Load libcuda.so.1 and resolve rt_cu, once per process.  Returns 0, or -1
 * with a message in `err` ("libcuda.so.1 could not be loaded (...): no
 * NVIDIA driver on this machine", or the missing symbol).
 */
int rt_cuda_load(char *err, size_t errlen);
/* "what failed: CUDA_ERROR_X (description)" into buf. */
void rt_cuda_msg(char *buf, size_t n, const char *what, CUresult r);

/* ---- jit.c internals reachable by tests ---- */

/* A kernel's runtime parameter, as launch sees it. */
typedef struct RtParam {
	const char *name;
	tilec_arg_kind kind;
	int elem;        /* ElemKind of the IR parameter (i1/i8/i16 travel as i32, f16/bf16 as f32) */
} RtParam;

/*
 * Check launch arguments against a signature.  Returns TILEC_OK, or
 * TILEC_ERROR_ARGS with a message such as
 * "argument 4 of 'softmax' ('n') is i32, got f32" in msg.  Pointers must
 * be 16-byte aligned: the compiler assumes it for vector loads.
 */
tilec_status rt_check_args(const char *kernel, const RtParam *params, int nparams,
                           const tilec_arg *args, int nargs, char *msg, size_t msglen);
/*
 * The specialisation of a launch: for integer argument i (i < 32), bit 2i
 * is set when it is a multiple of 16 and bit 2i+1 when it equals 1.  The
 * matching hints text ("stride=16,n=1") goes to hints when it is not NULL.
 */
uint64_t rt_spec_key(const RtParam *params, int nparams, const tilec_arg *args,
                     char *hints, size_t hintslen);
/* The codegen architecture for a compute capability ("sm_90"), or NULL before sm_80. */
const char *rt_arch_for(int major, int minor);

/*
 * What tilec_autotune rejects before any work, as a message ("tuning: grid
 * is NULL"); NULL if all is fine.  *which: the configuration at fault, or -1.
 */
const char *rt_bad_tuning(const tilec_options *opts, const tilec_tuning *t, int *which);

/* ---- between jit.c and tune.c ---- */

/* A usable context, or the status to return (its message already set). */
tilec_status rt_ready(tilec_context *ctx, const char *fn);
void rt_set_error(tilec_context *ctx, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
/* The context's CUDA context, made current. */
CUresult rt_make_current(tilec_context *ctx);
/* tune.c's cache of choices, which the context owns and frees with rt_tuned_free. */
typedef struct RtTuned RtTuned;
RtTuned **rt_tuned_list(tilec_context *ctx);
void rt_tuned_free(RtTuned *t);
/* Option values the API rejects, as a message; NULL if they are fine. */
const char *rt_bad_options(const tilec_options *o);

#endif
