/*
 * cg.h: what the codegen files share (internal to compiler/codegen/).
 *
 * Codegen turns a Func whose tensors carry layouts (passes/layout.c) into an
 * LLVM module for NVPTX with the LLVM C API, one file per op family as in
 * Triton's TritonGPUToLLVM: cg_elementwise.c, cg_memory.c, cg_reduce.c,
 * cg_convert.c, cg_dot.c (cg_mma.c, cg_wgmma.c for tensor cores),
 * cg_async.c; cg_main.c owns the module, the kernel function,
 * control flow and the trip to PTX.
 *
 * A tensor value becomes an array of 2^nreg LLVM values, one per register of
 * its layout; a register whose index has a bit with a zero column holds the
 * same element as the register with that bit cleared, so ops compute only
 * canonical registers (r & zeromask == 0) and cg_fill_dups copies the
 * LLVMValueRef into the others.  A scalar is an array of one, uniform over
 * the program's threads.
 */
#ifndef TILEC_CG_H
#define TILEC_CG_H

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>

#include "compile.h"

/* One GPU target (target.c). */
typedef struct Target {
	const char *name;     /* "sm_90" */
	int sm;               /* 90 */
	int ptx;              /* PTX ISA version x10: 80 = 8.0 */
	int smem_limit;       /* bytes of dynamic shared memory a block may use */
	int warp_size;
	bool wgmma;           /* Hopper's warpgroup mma (sm_90a) */
} Target;
const Target *cg_target(const char *arch); /* arch NULL: sm_90; NULL if unknown */
/* The PTX version of a kernel with fp8 values (sm_89 and newer): cvt of fp8
 * on sm_89 needs 8.1, mma.sync of fp8 8.4. */
#define FP8_PTX 84
const char *cg_target_list(void);          /* "sm_80 sm_86 ..." */

/* NVVM intrinsics and PTX mnemonics, named once (nvvm.def). */
typedef enum NvName {
#define NV(id, name) NV_##id,
#include "nvvm.def"
#undef NV
	NV_COUNT
} NvName;
extern const char *const nv_names[NV_COUNT];

#define CG_MAX_TI 32
#define CG_MAX_SPANS 8

/*
 * Shared memory this thread's program has accessed since the last bar.sync
 * on the path being emitted (cg_smem_access): byte spans, and whether one
 * was a write.  all: some access is not tracked (a dot's operands, the
 * cp.async ring, a loop around accesses), so everything conflicts.
 */
typedef struct CgSpan {
	int32_t lo, hi;
	bool write;
} CgSpan;
typedef struct CgSpans {
	CgSpan s[CG_MAX_SPANS];
	int n;
	bool all;
} CgSpans;

enum { CG_MAX_PRINT_SLOTS = 16 };

typedef struct Cg {
	Func *f;
	const Target *t;
	int ptx;              /* the PTX version: t's, or FP8_PTX for a kernel with fp8 values */
	LLVMContextRef ctx;
	LLVMModuleRef mod;
	LLVMBuilderRef b;
	LLVMValueRef fn;
	LLVMValueRef **regs;   /* per ValId: its registers */
	Op **pending;          /* per ValId: its convert_layout, postponed to the dot that uses it */
	LLVMValueRef tid;      /* i32 thread index in the program */
	LLVMValueRef lane;     /* i32 tid % 32 */
	LLVMValueRef warp;     /* i32 tid / 32 */
	LLVMBuilderRef pre;    /* at the end of the entry block, before its branch */
	struct {               /* cg_thread_index's values, by the id bits' columns */
		uint32_t col[5 + 8];
		LLVMValueRef v;
	} ti[CG_MAX_TI];
	int nti;
	LLVMValueRef **words;  /* per ValId read by ldmatrix (cg_mma.c), or a loop phi of such:
	                          word p holds registers 2p, 2p+1 */
	bool *to_words;        /* per ValId: packed into words where made (cg_main.c, mark_word_inputs) */
	LLVMValueRef smem;     /* the extern shared array, or NULL */
	bool wgmma;            /* some ring is RING_WGMMA: waits fence the async proxy */
	CgSpans since_bar;     /* shared memory touched since the last barrier */
	LLVMDIBuilderRef dib;  /* NULL without line info */
	LLVMMetadataRef scope;
	LLVMTypeRef i1, i8, i16, i32, i64, f32;
	const char *file;      /* the source's name (device_assert's message) */
	LLVMValueRef print_slots[CG_MAX_PRINT_SLOTS]; /* cg_debug.c: vprintf's argument structs, one per type */
	int nprint_slots;
} Cg;

/* ---- cg_main.c: helpers for every op family ---- */
const Layout *cg_layout(Cg *c, ValId v);   /* NULL for scalars */
int cg_nregs(Cg *c, ValId v);               /* 2^nreg, or 1 for a scalar */
LLVMValueRef *cg_new_regs(Cg *c, ValId v);  /* allocates and records c->regs[v] */
uint32_t cg_zeromask(const uint32_t *cols, int n); /* bit i set when cols[i] == 0 */
uint32_t cg_reg_index(const Layout *l, uint32_t r); /* XOR of the register columns */
/* Per flat index relative to the thread (cg_reg_index's values): the register holding it, or -1. */
int32_t *cg_reg_of(Cg *c, const Layout *l);
LLVMValueRef cg_thread_index(Cg *c, const Layout *l); /* i32 XOR of the lane and warp columns */
/* The flat index of register r's element: ti (cg_thread_index of l) ^ cg_reg_index(l, r). */
LLVMValueRef cg_flat_index(Cg *c, const Layout *l, LLVMValueRef ti, uint32_t r);
uint32_t cg_thread_bits(const Layout *l);  /* the flat-index bits lane and warp columns can set */
/*
 * A thread's elements under a map from flat index to bytes that is linear
 * over GF(2) (a multiply by a power of two, the shared-memory swizzles):
 * f(ti ^ k) = f(ti) ^ f(k), ti the thread index, k a register's part.
 * cg_lin builds f(ti) once per op, at the op (LLVM's CSE merges it with a
 * dominating copy, such as a pipeline prologue's), and finds the bits f of a
 * thread index can set; cg_lin_at gives f(ti) XOR f(k)'s part in those bits,
 * and in *add the rest of f(k), disjoint from it: a constant to add last,
 * which ptxas folds into the access ([reg+imm]).  f(k) is the builder's
 * constant folding of f on a constant.
 */
typedef LLVMValueRef (*CgLinFn)(Cg *c, LLVMValueRef flat, int a0, int a1);
typedef struct CgLin {
	CgLinFn f;
	int a0, a1;
	const Layout *l;
	LLVMValueRef fti;
	uint32_t tmask;
} CgLin;
CgLin cg_lin(Cg *c, const Layout *l, CgLinFn f, int a0, int a1);
/* The same, f's thread part built from f's image of the lane and warp columns. */
CgLin cg_lin_columns(Cg *c, const Layout *l, CgLinFn f, int a0, int a1);
LLVMValueRef cg_lin_at(Cg *c, const CgLin *m, uint32_t r, uint32_t *add);
/* The same for the element at flat index ti ^ k, any k. */
LLVMValueRef cg_lin_at_index(Cg *c, const CgLin *m, uint32_t k, uint32_t *add);
/* i1: this thread is the first of the copies the lane/warp zero columns make. */
LLVMValueRef cg_is_owner(Cg *c, const Layout *l);
/* Code between these runs only in owners (cg_is_owner) of l's elements:
 * begin branches around it where lanes or warps repeat elements and returns
 * the join block (NULL: everyone owns, nothing emitted); end closes it. */
LLVMBasicBlockRef cg_owner_begin(Cg *c, const Layout *l);
LLVMBasicBlockRef cg_when(Cg *c, LLVMValueRef pred); /* the same where pred is true (NULL: always) */
void cg_owner_end(Cg *c, LLVMBasicBlockRef after);
void cg_fill_dups(Cg *c, ValId v);
/*
 * How many consecutive registers (a power of two, at most 16 bytes of
 * eb-byte elements) hold consecutive elements of the last dimension, with
 * no other column touching those low index bits.
 */
int cg_reg_vec(const Layout *l, int eb);
LLVMTypeRef cg_elem_type(Cg *c, ElemKind e);  /* register type; TY_PTR: ptr addrspace(1) */
LLVMTypeRef cg_mem_type(Cg *c, ElemKind e);   /* type in memory (i1 is a byte) */
LLVMValueRef cg_i32c(Cg *c, int64_t x);
LLVMValueRef cg_call(Cg *c, const char *name, LLVMTypeRef ret, LLVMValueRef *args, int n);
LLVMValueRef cg_nv(Cg *c, NvName id, LLVMTypeRef ret, LLVMValueRef *args, int n);
LLVMValueRef cg_pack_half2(Cg *c, LLVMValueRef lo, LLVMValueRef hi);
LLVMTypeRef cg_widened_from(LLVMValueRef x);  /* the type an fpext x widened, or NULL */
LLVMValueRef cg_asm(Cg *c, const char *text, const char *cons, LLVMTypeRef ret,
                    LLVMValueRef *args, int n, bool side_effect);
void cg_barrier(Cg *c);
/*
 * Before this thread reads (or writes) bytes [off, off + size) of shared
 * memory that other threads wrote (or may have touched) since the last
 * barrier: a bar.sync where an access since then may conflict, none where
 * all were to other bytes or only reads.  Then the access is recorded.
 */
void cg_smem_access(Cg *c, int32_t off, int32_t size, bool write);
LLVMValueRef cg_smem_ptr(Cg *c, int32_t offset, LLVMValueRef byte_index); /* ptr addrspace(3) */
LLVMValueRef cg_to_mem(Cg *c, LLVMValueRef v, ElemKind e);   /* i1 -> i8 */
LLVMValueRef cg_from_mem(Cg *c, LLVMValueRef v, ElemKind e); /* i8 -> i1 */

/* ---- per op family ---- */
void cg_const(Cg *c, Op *op);
void cg_splat(Cg *c, Op *op);
void cg_arange(Cg *c, Op *op);
void cg_program_info(Cg *c, Op *op);
void cg_elementwise(Cg *c, Op *op);
/* f16/bf16 are computed in f32 and rounded back. */
LLVMValueRef cg_cast(Cg *c, ElemKind from, ElemKind to, LLVMValueRef x); /* one element, as OP_CAST */
LLVMValueRef cg_to_f32(Cg *c, LLVMValueRef v, ElemKind e);
LLVMValueRef cg_from_f32(Cg *c, LLVMValueRef v, ElemKind e);
LLVMValueRef cg_binary(Cg *c, Opcode code, ElemKind e, LLVMValueRef a, LLVMValueRef b);
/* cg_math.c: f32 in, f32 out (cg_fmod: f32 or f64) */
LLVMValueRef cg_sin_cos(Cg *c, LLVMValueRef x, bool cos);
void cg_sin_and_cos(Cg *c, LLVMValueRef x, LLVMValueRef *s, LLVMValueRef *co);
LLVMValueRef cg_fmod(Cg *c, LLVMValueRef x, LLVMValueRef y); /* f32 or f64, exactly C's fmod */
LLVMValueRef cg_tanh(Cg *c, LLVMValueRef x);
LLVMValueRef cg_erf(Cg *c, LLVMValueRef x);
LLVMValueRef cg_log1p(Cg *c, LLVMValueRef x);
LLVMValueRef cg_expm1(Cg *c, LLVMValueRef x);
LLVMValueRef cg_pow(Cg *c, LLVMValueRef x, LLVMValueRef y);
LLVMValueRef cg_atan(Cg *c, LLVMValueRef x);
LLVMValueRef cg_atan2(Cg *c, LLVMValueRef y, LLVMValueRef x); /* the angle of (x, y) */

void cg_load(Cg *c, Op *op);
void cg_store(Cg *c, Op *op);
void cg_atomic(Cg *c, Op *op);

/*
 * Reductions need op->smem_bytes >= cg_reduce_smem_bytes(f, op) when a warp
 * column lies in the reduced axis (0 otherwise): one slot per result element
 * per combination of the axis's warp bits (argmax/argmin: value + i32 index).
 */
int cg_reduce_smem_bytes(Func *f, Op *op);
void cg_reduce(Cg *c, Op *op);  /* sum ... argmin, and reduce */
void cg_scan(Cg *c, Op *op);    /* cumsum and scan */
/* reduce's or scan's region on scalars: out = a combine b, k values each (cg_main.c) */
void cg_combine(Cg *c, Op *op, const LLVMValueRef *a, const LLVMValueRef *b, LLVMValueRef *out);
LLVMValueRef cg_shfl_xor(Cg *c, LLVMValueRef v, int lane_mask);

void cg_convert_layout(Cg *c, Op *op);
/* A pending convert's source tile to shared memory, row-major at offset (no barriers). */
void cg_convert_write(Cg *c, ValId v, int32_t offset);
/* All of v's registers from a row-major tile at offset (no barriers). */
void cg_convert_read(Cg *c, ValId v, int32_t offset);
/* v's elements, written by their owners only, to every thread holding a copy, through bytes of scratch at offset */
void cg_share_owned(Cg *c, ValId v, int32_t offset, int32_t bytes);
/* scalar v, set only where own is true (one thread), to every thread through scratch at offset; ends in bar.sync */
void cg_share_scalar(Cg *c, ValId v, LLVMValueRef own, int32_t offset);
/* Where v's elements lie in such a row-major tile (bytes from its start). */
CgLin cg_smem_lin(Cg *c, ValId v);
/* Registers r .. r+vec-1 of v from the tile at offset; at = cg_smem_lin(c, v). */
void cg_smem_read(Cg *c, ValId v, int32_t offset, const CgLin *at, uint32_t r, int vec, LLVMValueRef *out);
void cg_rename(Cg *c, Op *op);  /* expand_dims, broadcast, trans, reshape */
void cg_join(Cg *c, Op *op);
void cg_split(Cg *c, Op *op);
void cg_xorperm(Cg *c, Op *op);
void cg_gather(Cg *c, Op *op);
void cg_print(Cg *c, Op *op);  /* cg_debug.c */
void cg_assert(Cg *c, Op *op);
void cg_histogram(Cg *c, Op *op);

void cg_dot(Cg *c, Op *op);
/* cg_mma.c: tensor cores, when the dot carries the layout_mma_* layouts (cg_dot dispatches). */
bool cg_is_mma(Cg *c, Op *op);
void cg_mma(Cg *c, Op *op);
/* Byte offset of element `flat` (i32) in the swizzled tile of 16-bit elements cg_mma reads with ldmatrix. */
LLVMValueRef cg_swizzle(Cg *c, LLVMValueRef flat, int rowbits);
/* v (an mma operand layout) from the swizzled tile at offset off + dyn bytes, by ldmatrix. */
void cg_mma_local_load(Cg *c, ValId v, int32_t off, LLVMValueRef dyn);
/* Word p (registers 2p, 2p+1 of a 16-bit operand) of v: ldmatrix's, or packed from the registers. */
LLVMValueRef cg_word(Cg *c, ValId v, uint32_t p);
void cg_unpack_words(Cg *c, ValId v);  /* v's registers from c->words[v] */
/* wgmma's A in registers: the 4 b32 words of each 16x16 tile at relative flat origin origins[i]. */
void cg_mma_a_words(Cg *c, ValId a, const uint32_t *origins, int n, LLVMValueRef *out);

/* cg_wgmma.c: wgmma (sm_90a) on operands a pipelined loop keeps in shared memory; such
 * an operand (local_load ... wgmma) has one register: its slot's i32 shared address */
bool cg_is_wgmma(Cg *c, Op *op);
void cg_wgmma(Cg *c, Op *op);
void cg_wgmma_wait(Cg *c, Op *op);  /* dot_wait */
/* Byte offset of element `flat` (i32) in a RING_WGMMA slot of `rows` rows of 2^rowbits 16-bit elements. */
LLVMValueRef cg_wgmma_offset(Cg *c, LLVMValueRef flat, int rowbits, int rows);  /* a CgLinFn, 16-bit */
LLVMValueRef cg_wgmma_offset8(Cg *c, LLVMValueRef flat, int rowbits, int rows); /* a CgLinFn, 8-bit */

/* cg_async.c: software pipelining (passes/pipeline.c) */
void cg_async(Cg *c, Op *op);

#endif
