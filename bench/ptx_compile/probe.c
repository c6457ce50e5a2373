/*
 * probe.c: where the cold-compile time of a PTX module goes on the GPU
 * machine, and what an in-process PTX compiler would save.  For one PTX file:
 *
 *   driver   cuModuleLoadDataEx on the PTX (the driver compiles it; run with
 *            CUDA_CACHE_DISABLE=1 so nothing is reused), as tilec's runtime does
 *   nvptxc   nvPTXCompilerCompile (libnvptxcompiler_static.a from the CUDA
 *            toolkit) to a cubin, then cuModuleLoadDataEx on the cubin
 *
 * Each is run REPS times in this one process; the first run of each is the
 * cold one.  Built and run by run.sh; not part of tilec.
 */
#include <cuda.h>
#include <nvPTXCompiler.h>
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

static void check_ptxc(nvPTXCompileResult r, const char *what)
{
	if (r != NVPTXCOMPILE_SUCCESS) {
		fprintf(stderr, "probe: %s: nvPTXCompiler error %d\n", what, (int)r);
		exit(1);
	}
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
	for (int i = 0; i < REPS; i++) {
		nvPTXCompilerHandle c;
		const char *opts[] = {"--gpu-name=sm_90", optflag};
		double a = now_ms();
		check_ptxc(nvPTXCompilerCreate(&c, n, ptx), "create");
		nvPTXCompileResult r = nvPTXCompilerCompile(c, 2, opts);
		if (r != NVPTXCOMPILE_SUCCESS) {
			size_t ln = 0;
			nvPTXCompilerGetErrorLogSize(c, &ln);
			char *log = malloc(ln + 1);
			nvPTXCompilerGetErrorLog(c, log);
			fprintf(stderr, "probe: compile failed: %s\n", log);
			return 1;
		}
		size_t cn;
		check_ptxc(nvPTXCompilerGetCompiledProgramSize(c, &cn), "size");
		char *cubin = malloc(cn);
		check_ptxc(nvPTXCompilerGetCompiledProgram(c, cubin), "program");
		nvPTXCompilerDestroy(&c);
		double b = now_ms();
		CUmodule m;
		CUfunction fn;
		check_cu(cuModuleLoadDataEx(&m, cubin, 0, NULL, NULL), "cuModuleLoadDataEx(cubin)");
		check_cu(cuModuleGetFunction(&fn, m, argv[2]), "cuModuleGetFunction");
		double d = now_ms();
		cuModuleUnload(m);
		free(cubin);
		printf("nvptxc  run %d: PTX -> cubin %.2f ms (-O%s, %zu bytes), cubin -> loaded %.2f ms, total %.2f ms\n",
		       i, b - a, opt, cn, d - b, d - a);
	}
	cuDevicePrimaryCtxRelease(dev);
	return 0;
}
