/*
 * cuda.c: loading the CUDA driver at run time.
 *
 * libcuda.so.1 is dlopened once per process (pthread_once) and every entry
 * point the runtime uses is resolved into `rt_cu`, preferring the versioned
 * names the driver exports (cuMemAlloc_v2, ...), which are what cuda.h's
 * macros call.  A machine without the driver gets a message, never a crash
 * or a link error.  Driver errors are turned into text with the driver's own
 * cuGetErrorName / cuGetErrorString.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "cuda_api.h"

#ifdef TILEC_HAVE_CUDA_H
/* Our numbers are cuda.h's. */
#define RT_ENUM_CHECK(name, v) _Static_assert((int)(name) == (v), #name " differs from cuda.h");
RT_CUDA_ENUMS(RT_ENUM_CHECK)
#undef RT_ENUM_CHECK
_Static_assert(sizeof(CUdeviceptr) == sizeof(unsigned long long), "CUdeviceptr is 64-bit");
#endif

CudaApi rt_cu;

/* Field of rt_cu and the symbol names to try, newest first. */
typedef struct Sym {
	void **slot;
	const char *names[2];
} Sym;

#define SLOT(f) ((void **)(void *)&rt_cu.f)
static const Sym syms[] = {
	{SLOT(Init), {"cuInit"}},
	{SLOT(DeviceGetCount), {"cuDeviceGetCount"}},
	{SLOT(DeviceGet), {"cuDeviceGet"}},
	{SLOT(DeviceGetAttribute), {"cuDeviceGetAttribute"}},
	{SLOT(DeviceGetName), {"cuDeviceGetName"}},
	{SLOT(DevicePrimaryCtxRetain), {"cuDevicePrimaryCtxRetain"}},
	{SLOT(DevicePrimaryCtxRelease), {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"}},
	{SLOT(CtxSetCurrent), {"cuCtxSetCurrent"}},
	{SLOT(CtxSynchronize), {"cuCtxSynchronize"}},
	{SLOT(ModuleLoadDataEx), {"cuModuleLoadDataEx"}},
	{SLOT(ModuleGetFunction), {"cuModuleGetFunction"}},
	{SLOT(ModuleUnload), {"cuModuleUnload"}},
	{SLOT(FuncSetAttribute), {"cuFuncSetAttribute"}},
	{SLOT(LaunchKernel), {"cuLaunchKernel"}},
	{SLOT(MemAlloc), {"cuMemAlloc_v2", "cuMemAlloc"}},
	{SLOT(MemFree), {"cuMemFree_v2", "cuMemFree"}},
	{SLOT(MemcpyHtoD), {"cuMemcpyHtoD_v2", "cuMemcpyHtoD"}},
	{SLOT(MemcpyDtoH), {"cuMemcpyDtoH_v2", "cuMemcpyDtoH"}},
	{SLOT(EventCreate), {"cuEventCreate"}},
	{SLOT(EventRecord), {"cuEventRecord"}},
	{SLOT(EventSynchronize), {"cuEventSynchronize"}},
	{SLOT(EventElapsedTime), {"cuEventElapsedTime_v2", "cuEventElapsedTime"}},
	{SLOT(EventDestroy), {"cuEventDestroy_v2", "cuEventDestroy"}},
	{SLOT(GetErrorName), {"cuGetErrorName"}},
	{SLOT(GetErrorString), {"cuGetErrorString"}},
};

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_err[512];
static int load_status = -1;

static int resolve(void *lib, const Sym *s)
{
	for (int i = 0; i < 2 && s->names[i]; i++) {
		void *p = dlsym(lib, s->names[i]);
		if (p) {
			*s->slot = p;
			return 0;
		}
	}
	snprintf(load_err, sizeof load_err,
	         "libcuda.so.1 has no symbol %s: the NVIDIA driver is too old", s->names[0]);
	return -1;
}

static void load(void)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *e = dlerror();
		snprintf(load_err, sizeof load_err,
		         "libcuda.so.1 could not be loaded (%s): no NVIDIA driver on this machine",
		         e ? e : "unknown reason");
		return;
	}
	for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++)
		if (resolve(lib, &syms[i]) != 0) {
			memset(&rt_cu, 0, sizeof rt_cu);
			dlclose(lib);
			return;
		}
	/* The library stays loaded for the life of the process, as CUDA's own runtime does. */
	load_status = 0;
}

int rt_cuda_load(char *err, size_t errlen)
{
	pthread_once(&load_once, load);
	if (load_status != 0 && err && errlen)
		snprintf(err, errlen, "%s", load_err);
	return load_status;
}

void rt_cuda_msg(char *buf, size_t n, const char *what, CUresult r)
{
	const char *name = NULL, *desc = NULL;
	if (rt_cu.GetErrorName && rt_cu.GetErrorName(r, &name) != CUDA_SUCCESS)
		name = NULL;
	if (rt_cu.GetErrorString && rt_cu.GetErrorString(r, &desc) != CUDA_SUCCESS)
		desc = NULL;
	if (name)
		snprintf(buf, n, "%s failed: %s (%s)", what, name, desc ? desc : "no description");
	else
		snprintf(buf, n, "%s failed: CUresult %d", what, r);
}
