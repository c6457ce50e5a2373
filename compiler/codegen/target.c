/*
 * target.c: the GPUs codegen knows, as a table.  The PTX ISA version is the
 * lowest one LLVM 19 and ptxas accept for every feature we emit on that
 * architecture (sm_89 needs 7.8, sm_90 8.0; kernels with fp8 values FP8_PTX, cg.h); shared memory is the dynamic
 * maximum per block (cudaDevAttrMaxSharedMemoryPerBlockOptin).  wgmma
 * (cg_wgmma.c) needs the architecture-specific sm_90a, whose code runs only
 * on compute capability 9.0.
 */
#include <string.h>

#include "cg.h"

static const Target targets[] = {
	{"sm_80", 80, 78, 166912, 32, false},
	{"sm_86", 86, 78, 101376, 32, false},
	{"sm_89", 89, 78, 101376, 32, false},
	{"sm_90", 90, 80, 232448, 32, false},
	{"sm_90a", 90, 80, 232448, 32, true},
};
#define NTARGETS (int)(sizeof targets / sizeof targets[0])

const char *const nv_names[NV_COUNT] = {
#define NV(id, name) name,
#include "nvvm.def"
#undef NV
};

const Target *cg_target(const char *arch)
{
	if (!arch)
		arch = "sm_90";
	for (int i = 0; i < NTARGETS; i++)
		if (strcmp(targets[i].name, arch) == 0)
			return &targets[i];
	return NULL;
}

const char *cg_target_list(void)
{
	return "sm_80 sm_86 sm_89 sm_90 sm_90a";
}

bool cg_arch_valid(const char *arch)
{
	return cg_target(arch) != NULL;
}

bool cg_target_wgmma(const char *arch)
{
	const Target *t = cg_target(arch);
	return t && t->wgmma;
}

int cg_target_sm(const char *arch)
{
	const Target *t = cg_target(arch);
	return t ? t->sm : 0;
}

/* 0 for an unknown architecture (cg_emit reports it). */
int cg_target_smem_limit(const char *arch)
{
	const Target *t = cg_target(arch);
	return t ? t->smem_limit : 0;
}
