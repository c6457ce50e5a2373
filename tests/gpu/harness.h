/*
 * harness.h: what gpu_test.c and diff_test.c both need from the host (they
 * define _POSIX_C_SOURCE before any include, for clock_gettime).
 * Header only: every function is static inline.
 */
#ifndef TILEC_TEST_HARNESS_H
#define TILEC_TEST_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Zeroed memory, or exit 2: a test that cannot allocate has nothing to say. */
static inline void *xmalloc(size_t n)
{
	void *p = calloc(n ? n : 1, 1);
	if (!p) {
		fprintf(stderr, "out of host memory (%zu bytes)\n", n);
		exit(2);
	}
	return p;
}

/* A monotonic clock, in seconds. */
static inline double seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif
