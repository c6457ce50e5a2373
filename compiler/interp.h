/*
 * interp.h: the CPU interpreter of the tile IR.
 *
 * Runs a Func over a grid of program ids, one program at a time, whole tiles
 * at a time, on host buffers the caller registers.  Pointers the kernel sees
 * are virtual addresses that the interpreter checks on every access: an
 * access outside the registered buffers is an error naming the .tile line,
 * never a wild memory access.  f16 and bf16 are emulated with round-to-
 * nearest-even after every operation, as the GPU computes them.
 */
#ifndef TILEC_INTERP_H
#define TILEC_INTERP_H

#include "ir.h"

#include <stdio.h>

typedef struct Interp Interp;

/* One kernel argument: `i` for integer and i1 parameters, `f` for floats,
 * `ptr` (an address from interp_buffer) for pointers. */
typedef union InterpArg {
	int64_t i;
	double f;
	uint64_t ptr;
} InterpArg;

Interp *interp_new(Func *f, const char *file_name);
void interp_free(Interp *it);
/* Register a host buffer; returns the base address the kernel is passed.
 * The buffer stays owned by the caller and is read and written in place. */
uint64_t interp_buffer(Interp *it, void *host, size_t bytes);
/* Run the whole grid. Returns 0, or -1 with the message in interp_error(). */
int interp_run(Interp *it, const InterpArg *args, int nargs, const int grid[3]);
const char *interp_error(const Interp *it);
/* Where device_print writes (stdout unless set). */
void interp_set_output(Interp *it, FILE *out);

#endif
