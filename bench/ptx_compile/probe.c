/*
 * probe.c: where the cold-compile time of a PTX module goes on the GPU
 * machine, and what an in-process PTX compiler would save.  For one PTX file:
 *
 *   driver   cuModuleLoadDataEx on the PTX (the driver compiles it; run with
 *            CUDA_CACHE_DISABLE=1 so nothing is reused), as tilec's runtime
 *            does, at the driver's default optimisation level whatever
 *            OPT_LEVEL says (that applies to the two below)
 *   nvptxc   nvPTXCompilerCompile (libnvptxcompiler_static.a from the CUDA
 *            toolkit) to a cubin, then cuModuleLoadDataEx on the cubin
 *   jitlink  the same through nvJitLink (libnvJitLink.so, PTX input)
 *
 * (HAVE_NVPTXCOMPILER / HAVE_NVJITLINK: whichever the toolkit has.)
 * Each is run REPS times in this one process; the first run of each is the
 * cold one.  Built and run by run.sh; not part of tilec.
 */
#include <cuda.h>
#ifdef HAVE_NVPTXCOMPILER
#include <nvPTXCompiler.h>
#endif
#ifdef HAVE_NVJITLINK
#include <nvJitLink.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define REPS 5

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void check_cu(CUresult r, const char *what)
{
	if (r != CUDA_SUCCESS) {
		const char *s = "?";
		cuGetErrorName(r, &s);
		fprintf(stderr, "probe: %s: %s\n", what, s);
		exit(1);
	}
}

static void check_int(int r, const char *what)
{
	if (r != 0) {
		fprintf(stderr, "probe: %s: error %d\n", what, r);
		exit(1);
	}
}

/* cubin -> loaded module; the time it took */
static double load_cubin(const void *cubin, const char *kernel)
{
	CUmodule m;
	CUfunction fn;
	double a = now_ms();
	check_cu(cuModuleLoadDataEx(&m, cubin, 0, NULL, NULL), "cuModuleLoadDataEx(cubin)");
	check_cu(cuModuleGetFunction(&fn, m, kernel), "cuModuleGetFunction");
	double b = now_ms();
	cuModuleUnload(m);
	return b - a;
}

static char *read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	*n = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc(*n + 1);
	if (fread(s, 1, *n, f) != *n)
		exit(1);
	s[*n] = 0;
	fclose(f);
	return s;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: probe FILE.ptx KERNEL [OPT_LEVEL]\n");
		return 2;
	}
	size_t n;
	char *ptx = read_file(argv[1], &n);
	const char *opt = argc > 3 ? argv[3] : "3";
	char optflag[16];
	snprintf(optflag, sizeof optflag, "-O%s", opt);

	double t0 = now_ms();
	check_cu(cuInit(0), "cuInit");
	CUdevice dev;
	CUcontext ctx;
	check_cu(cuDeviceGet(&dev, 0), "cuDeviceGet");
	check_cu(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
	check_cu(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
	printf("probe: %s (%zu bytes of PTX), context %.1f ms\n", argv[1], n, now_ms() - t0);

	for (int i = 0; i < REPS; i++) {
		CUmodule m;
		CUfunction fn;
		double a = now_ms();
		check_cu(cuModuleLoadDataEx(&m, ptx, 0, NULL, NULL), "cuModuleLoadDataEx(ptx)");
		check_cu(cuModuleGetFunction(&fn, m, argv[2]), "cuModuleGetFunction");
		double b = now_ms();
		cuModuleUnload(m);
		printf("driver  run %d: PTX -> loaded %.2f ms\n", i, b - a);
	}
#ifdef HAVE_NVPTXCOMPILER
	for (int i = 0; i < REPS; i++) {
		nvPTXCompilerHandle c;
		const char *opts[] = {"--gpu-name=sm_90", optflag};
		double a = now_ms();
		check_int(nvPTXCompilerCreate(&c, n, ptx), "nvPTXCompilerCreate");
		check_int(nvPTXCompilerCompile(c, 2, opts), "nvPTXCompilerCompile");
		size_t cn;
		check_int(nvPTXCompilerGetCompiledProgramSize(c, &cn), "size");
		char *cubin = malloc(cn);
		check_int(nvPTXCompilerGetCompiledProgram(c, cubin), "program");
		nvPTXCompilerDestroy(&c);
		double b = now_ms();
		double l = load_cubin(cubin, argv[2]);
		free(cubin);
		printf("nvptxc  run %d: PTX -> cubin %.2f ms (-O%s, %zu bytes), cubin -> loaded %.2f ms, total %.2f ms\n",
		       i, b - a, opt, cn, l, b - a + l);
	}
#else
	printf("nvptxc  SKIPPED: no nvPTXCompiler in this toolkit\n");
#endif
#ifdef HAVE_NVJITLINK
	for (int i = 0; i < REPS; i++) {
		nvJitLinkHandle h;
		const char *opts[] = {"-arch=sm_90", optflag};
		double a = now_ms();
		check_int(nvJitLinkCreate(&h, 2, opts), "nvJitLinkCreate");
		check_int(nvJitLinkAddData(h, NVJITLINK_INPUT_PTX, ptx, n, "k.ptx"), "nvJitLinkAddData");
		check_int(nvJitLinkComplete(h), "nvJitLinkComplete");
		size_t cn;
		check_int(nvJitLinkGetLinkedCubinSize(h, &cn), "size");
		char *cubin = malloc(cn);
		check_int(nvJitLinkGetLinkedCubin(h, cubin), "cubin");
		nvJitLinkDestroy(&h);
		double b = now_ms();
		double l = load_cubin(cubin, argv[2]);
		free(cubin);
		printf("jitlink run %d: PTX -> cubin %.2f ms (-O%s, %zu bytes), cubin -> loaded %.2f ms, total %.2f ms\n",
		       i, b - a, opt, cn, l, b - a + l);
	}
#else
	printf("jitlink SKIPPED: no nvJitLink in this toolkit\n");
#endif
	cuDevicePrimaryCtxRelease(dev);
	return 0;
}
