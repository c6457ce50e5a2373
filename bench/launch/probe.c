/*
 * probe.c: what one cuLaunchKernel costs the host, by launch path, with no
 * tilec in between: tilec's vector_add (PTX from the CLI) launched with one
 * program, 10,000 times back to back and 500 times behind 5 ms of queued
 * work, on the NULL stream, a non-blocking and a blocking stream and the
 * per-thread default stream, with the arguments as kernelParams or as one
 * packed buffer (`extra`), and with the cuCtxGetCurrent/SetCurrent pair
 * tilec_launch makes.  Seven interleaved rounds; medians and minima, in µs.
 *
 *   bench/launch/run.sh      (GPU machine; builds this against the CUDA toolkit)
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CK(x) check((x), #x)

enum { SMALL = 1024, BIG = 1 << 26, ROUNDS = 7 };

static CUfunction fn;
static CUdeviceptr buf, big;
static void *params[4];
static int n = SMALL, bign = BIG;
static unsigned char packed[32];
static size_t packed_size = 28;

static void check(CUresult r, const char *what)
{
	if (r != CUDA_SUCCESS) {
		const char *s = "?";
		cuGetErrorName(r, &s);
		fprintf(stderr, "%s: %s\n", what, s);
		exit(1);
	}
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* about 5 ms of GPU work ahead of the timed launches */
static void queue_work(CUstream s)
{
	void *p[4] = {&big, &big, &big, &bign};
	for (int i = 0; i < 16; i++)
		CK(cuLaunchKernel(fn, BIG / 1024, 1, 1, 128, 1, 1, 0, s, p, NULL));
}

/* µs per launch; mode 0 kernelParams, 1 packed buffer, 2 kernelParams after cuCtxGetCurrent/SetCurrent */
static double time_launches(CUstream s, int mode, int launches, int busy)
{
	void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &packed_size,
	                 CU_LAUNCH_PARAM_END};
	if (busy)
		queue_work(s);
	else
		CK(cuCtxSynchronize());
	double t0 = now();
	for (int i = 0; i < launches; i++) {
		if (mode == 2) {
			CUcontext c;
			CK(cuCtxGetCurrent(&c));
			CK(cuCtxSetCurrent(c));
		}
		CK(cuLaunchKernel(fn, 1, 1, 1, 128, 1, 1, 0, s, mode == 1 ? NULL : params, mode == 1 ? extra : NULL));
	}
	double us = (now() - t0) * 1e6 / launches;
	CK(cuCtxSynchronize());
	return us;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: probe VECTOR_ADD.ptx\n");
		return 2;
	}
	static char ptx[1 << 20];
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	ptx[fread(ptx, 1, sizeof ptx - 1, f)] = 0;
	fclose(f);
	CUdevice d;
	CUcontext ctx;
	CUmodule mod;
	CK(cuInit(0));
	CK(cuDeviceGet(&d, 0));
	CK(cuDevicePrimaryCtxRetain(&ctx, d));
	CK(cuCtxSetCurrent(ctx));
	CK(cuModuleLoadData(&mod, ptx));
	CK(cuModuleGetFunction(&fn, mod, "vector_add"));
	CK(cuMemAlloc(&buf, 3 * 4 * SMALL));
	CK(cuMemAlloc(&big, 4ull * BIG));
	CUdeviceptr y = buf + 4 * SMALL, out = buf + 8 * SMALL;
	params[0] = &buf, params[1] = &y, params[2] = &out, params[3] = &n;
	memcpy(packed, &buf, 8), memcpy(packed + 8, &y, 8), memcpy(packed + 16, &out, 8), memcpy(packed + 24, &n, 4);
	CUstream nonblocking, blocking;
	CK(cuStreamCreate(&nonblocking, CU_STREAM_NON_BLOCKING));
	CK(cuStreamCreate(&blocking, CU_STREAM_DEFAULT));
	const struct {
		const char *name;
		CUstream s;
		int mode;
	} paths[] = {
		{"NULL stream, kernelParams", NULL, 0},
		{"NULL stream, packed buffer", NULL, 1},
		{"NULL stream, kernelParams, ctx get/set", NULL, 2},
		{"non-blocking stream, kernelParams", nonblocking, 0},
		{"non-blocking stream, packed buffer", nonblocking, 1},
		{"blocking stream, kernelParams", blocking, 0},
		{"per-thread stream, kernelParams", CU_STREAM_PER_THREAD, 0},
	};
	enum { NPATHS = sizeof paths / sizeof paths[0] };
	for (int busy = 0; busy < 2; busy++) {
		int launches = busy ? 500 : 10000;
		double t[NPATHS][ROUNDS];
		for (int r = 0; r < ROUNDS; r++)
			for (int p = 0; p < NPATHS; p++)
				t[p][r] = time_launches(paths[p].s, paths[p].mode, launches, busy);
		printf("%s: %d launches, median of %d interleaved rounds (minimum), us per launch\n",
		       busy ? "behind 5 ms of queued work" : "back to back", launches, ROUNDS);
		for (int p = 0; p < NPATHS; p++) {
			qsort(t[p], ROUNDS, sizeof t[p][0], by_value);
			printf("  %-40s %6.3f (%6.3f)\n", paths[p].name, t[p][ROUNDS / 2], t[p][0]);
		}
	}
	return 0;
}
