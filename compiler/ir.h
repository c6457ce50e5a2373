/*
 * ir.h: the SSA tile IR.
 *
 * A Func is one kernel specialised for its constexpr values.  Values are
 * small integer handles (ValId) into Func.vals; each is defined by exactly
 * one op result or block argument.  Types are scalars or tensors with
 * compile-time, power-of-two shapes.  Control flow is structured: an op may
 * own blocks (`for` has a body, `if` has then/else), and a block is an
 * ordered, doubly linked list of ops ending, inside a region, in `yield`.
 * The entry block's arguments are the kernel's runtime parameters.
 *
 * Opcodes and their properties are listed once, in ops.def.
 * The text form (ir_print / ir_parse) is documented in docs/ir.md.
 */
#ifndef TILEC_IR_H
#define TILEC_IR_H

#include "util.h"

typedef enum ElemKind {
	TY_VOID, TY_I1, TY_I8, TY_I16, TY_I32, TY_I64, TY_F16, TY_BF16, TY_F32, TY_F64,
	TY_F8E4M3, TY_F8E5M2, /* fp8 storage types: loaded, stored, cast, selected and multiplied by dot */
	TY_PTR, TY_COUNT
} ElemKind;

#define MAX_RANK 3
#define MAX_PHILOX_ROUNDS 16 /* rand()'s n_rounds; 10 is Philox4x32-10 */

/* A value's type: scalar when rank == 0.  Compare with type_eq. */
typedef struct Type {
	uint8_t elem;     /* ElemKind */
	uint8_t pointee;  /* ElemKind pointed to when elem == TY_PTR */
	uint8_t rank;
	uint8_t pad_;
	int32_t shape[MAX_RANK];
} Type;

typedef enum Opcode {
#define OP(name, text, n, flags) OP_##name,
#include "ops.def"
#undef OP
	OP_COUNT
} Opcode;

enum { F_PURE = 1, F_COMMUT = 2, F_ELTWISE = 4, F_REDUCE = 8, F_SIDE = 16, F_TERM = 32, F_REGION = 64, F_SMEM = 128 };

typedef struct OpInfo {
	const char *text;
	int nopnds;   /* -1: variable */
	unsigned flags;
} OpInfo;
extern const OpInfo op_info[OP_COUNT];
static inline bool op_has(int code, unsigned f) { return (op_info[code].flags & f) != 0; }

typedef enum CmpPred { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE } CmpPred;
/* What an atomic does with the old value `a` and the operand `b`: a + b,
 * max, min (signed), b (exchange), a & b, a | b, a ^ b. */
typedef enum AtomicKind { ATOM_ADD, ATOM_MAX, ATOM_MIN, ATOM_XCHG, ATOM_AND, ATOM_OR, ATOM_XOR, ATOM_COUNT } AtomicKind;
extern const char *const atomic_names[ATOM_COUNT]; /* "add", "max", ... */
bool atomic_elem_ok(AtomicKind k, ElemKind e);
bool atomic_cas_elem_ok(ElemKind e);
/* The operand a load (1), store or atomic (2) or atomic_cas (3) takes its mask at; -1 for other ops. */
int ir_mask_index(Opcode code);
static inline bool ir_is_atomic(Opcode code) { return code == OP_ATOMIC || code == OP_ATOMIC_CAS; }
/*
 * An atomic's memory order and scope, Triton's sem= and scope= (PTX's
 * atom.sem.scope); the defaults (0) are relaxed for a tile and acq_rel for
 * a scalar, at GPU scope (docs/language.md).  iattr[1] = sem | scope << 4.
 */
typedef enum MemSem { SEM_DEFAULT, SEM_RELAXED, SEM_ACQUIRE, SEM_RELEASE, SEM_ACQ_REL, SEM_COUNT } MemSem;
typedef enum MemScope { SCOPE_DEFAULT, SCOPE_CTA, SCOPE_GPU, SCOPE_SYS, SCOPE_COUNT } MemScope;
extern const char *const sem_names[SEM_COUNT];     /* "", "relaxed", ... */
extern const char *const scope_names[SCOPE_COUNT]; /* "", "cta", "gpu", "sys" */
#define ATOMIC_SEM(op) ((MemSem)((op)->iattr[1] & 15))
#define ATOMIC_SCOPE(op) ((MemScope)((op)->iattr[1] >> 4 & 15))
/* An assume's runs (ops.def): consecutive integers, equal elements. */
#define ASSUME_CONTIG(op) ((op)->iattr[1] & 0xffffffff)
#define ASSUME_CONSTANCY(op) ((op)->iattr[1] >> 32)

typedef int32_t ValId; /* index into Func.vals; 0 is "no value" */

typedef struct Op Op;
typedef struct Block Block;
typedef struct Func Func;

typedef struct Value {
	Type type;
	Op *def;          /* defining op, or NULL for a block argument */
	Block *block;     /* for block arguments: the owning block */
	int16_t index;    /* result number or argument number */
	int32_t layout;   /* index into Func.layouts; -1 until the layout pass runs */
	int32_t nuses;    /* filled by ir_fill_uses */
	const char *name; /* source name for printing, or NULL */
	/* axis analysis (passes/axis.c), along the last dimension; all 1 until it runs */
	int32_t contig;    /* runs of this many consecutive integers (v, v+1, ...) */
	int32_t divis;     /* the first element of each run is a multiple of this (pointers: in bytes) */
	int32_t constancy; /* runs of this many equal elements */
} Value;

struct Block {
	ValId *args;
	int nargs;
	Op *first, *last;
	Op *parent;       /* the op owning this block; NULL for the entry block */
};

struct Op {
	Opcode code;
	ValId *opnds;
	int nopnds;
	ValId *res;
	int nres;
	int64_t iattr[2];
	double fattr;
	const char *sattr; /* print's prefix, assert's message (no '"' or newline); else NULL */
	Block *blocks[2]; /* for: body; if: then, else */
	int nblocks;
	Loc loc;
	Op *prev, *next;
	Block *parent;
	int32_t smem_offset;  /* bytes, set by the shared-memory planner; -1 if none */
	int32_t smem_bytes;
};

/*
 * Distributed layout of a tensor over the threads of a program, as a
 * linear map over GF(2) (as in Triton's linear layouts): the element a
 * thread holds in register r, lane l, warp w has the row-major flat index
 *
 *     XOR over set bits i of r: reg[i]  ^  XOR over lane bits: lane[i]  ^  ...warp
 *
 * A zero column means that input bit does not move the element: the value is
 * duplicated (broadcast) across those registers, lanes or warps.  Every
 * shape dimension is a power of two, so the flat index's bits are the
 * concatenation of the coordinates' bits, last dimension lowest.
 */
#define LAYOUT_MAX_REG 16
typedef struct Layout {
	uint8_t rank;
	int32_t shape[MAX_RANK];
	uint8_t nreg, nlane, nwarp;   /* input bits; nlane = 5 */
	uint32_t reg[LAYOUT_MAX_REG];
	uint32_t lane[5];
	uint32_t warp[8];
} Layout;

struct Func {
	Arena *arena;
	const char *name;
	Value *vals;
	int nvals, capvals;
	Block *entry;
	/* compile options, resolved from source attributes, defaults and flags */
	int num_warps;
	int num_stages;
	int fp_fusion;    /* 1: a float multiply and the add of its result may become one fma (GPU) */
	int wgmma;        /* 1: the target has Hopper's wgmma (sm_90a); set from the arch, not printed */
	/* the kernel's runtime parameters, in order (= entry block args) */
	const char **param_names;
	int nparams;
	/* hints on integer parameters: divisibility (1 = none, 16 = multiple of 16) */
	int *param_div;
	Layout *layouts;
	int nlayouts, caplayouts;
	int32_t smem_total;   /* bytes of shared memory, set by the planner */
	Diag *diag;           /* for user errors raised by passes (e.g. shared memory over the limit) */
	/* while lower.c inlines an fn: the calls, innermost first; ir_new_op puts it in each op's loc.in */
	const DiagFrame *inlining;
};

/* ---- types ---- */
Type type_scalar(ElemKind e);
Type type_ptr(ElemKind pointee);
Type type_tensor(ElemKind e, int rank, const int32_t *shape);
Type type_with_elem(Type t, ElemKind e); /* same shape, other element */
bool type_eq(Type a, Type b);
bool type_same_shape(Type a, Type b); /* rank and dims, any element type */
int64_t type_numel(Type t);
int elem_bytes(ElemKind e);               /* TY_PTR: 8; TY_I1: 1 */
bool elem_is_float(ElemKind e);           /* f16 bf16 f32 f64: not the fp8 types */
bool elem_is_f8(ElemKind e);              /* f8e4m3 (no inf, max 448) and f8e5m2 (max 57344) */
bool elem_is_fp(ElemKind e);              /* a float or an fp8 type: its constants hold fattr */
bool elem_is_int(ElemKind e);             /* includes i1 */
int elem_bits(ElemKind e);
const char *elem_name(ElemKind e);        /* "f32", ... */
ElemKind elem_from_name(const char *s, int len); /* TY_VOID if not a type name */
double f8_round(ElemKind e, double x);    /* x in fp8 type e, as cvt.rn.satfinite (through f32) */
double f8_value(ElemKind e, unsigned bits); /* the fp8 byte's value */
unsigned f8_bits(ElemKind e, double x);   /* x rounded to fp8 type e, as a byte (NaN: 0x7f) */
/* Whether the GPU supports op on element type e, where it supports fewer types
 * than the op's type rule (exp of f64, dot of i64, ...). */
bool op_elem_ok(Opcode code, ElemKind e);
/* "tensor<128x64xf32>", "i32", "*f16", "tensor<64x*f32>"; returns buf */
char *type_str(Type t, char *buf, size_t n);

/* ---- building ---- */
Func *ir_new_func(Arena *a, const char *name);
ValId ir_new_value(Func *f, Type t);
Block *ir_new_block(Func *f, int nargs, const Type *argtypes);
/* Create an op (not yet in a block). Result types given in restypes. */
Op *ir_new_op(Func *f, Opcode code, const ValId *opnds, int nopnds, const Type *restypes, int nres, Loc loc);
void ir_append(Block *b, Op *op);
void ir_insert_before(Op *pos, Op *op);
void ir_remove(Op *op);                   /* unlink from its block */
/* Replace every use of `from` by `to` in all blocks of f. */
void ir_replace_uses(Func *f, ValId from, ValId to);
/*
 * Replacements a pass records as it walks, instead of one ir_replace_uses
 * (a walk of the function) each: fw_set notes from -> to, fw_opnds rewrites
 * an op's operands through them as the walk reaches it (uses follow their
 * definitions), and fw_apply rewrites every op once at the end.
 */
typedef struct Forward {
	ValId *to;   /* per ValId: its replacement, or 0 */
	int cap;
	bool any;
} Forward;
void fw_set(Func *f, Forward *w, ValId from, ValId to);
void fw_opnds(Forward *w, Op *op);
void fw_apply(Func *f, Forward *w);
static inline Value *val(Func *f, ValId v) { return &f->vals[v]; }
static inline Type vtype(Func *f, ValId v) { return f->vals[v].type; }

/*
 * Convenience builder used by lower.c and the passes: appends to `at`,
 * or inserts before `before` if set.
 */
typedef struct Builder {
	Func *f;
	Block *at;
	Op *before;
	Loc loc;
} Builder;
void b_place(Builder *b, Op *op); /* an op made elsewhere (one with blocks, or no result) */
ValId b_op1(Builder *b, Opcode code, Type rt, const ValId *opnds, int nopnds); /* single-result op */
ValId b_op2(Builder *b, Opcode code, Type rt, ValId x, ValId y);               /* b_op1 of two operands */
ValId b_const_int(Builder *b, ElemKind e, int64_t v);
ValId b_const_float(Builder *b, ElemKind e, double v);

/* Walk every op of f in program order, descending into blocks (pre-order). */
typedef void (*OpFn)(Func *f, Op *op, void *ctx);
void ir_walk(Func *f, OpFn fn, void *ctx);
void ir_fill_uses(Func *f);
/* A store, atomic or other F_SIDE op anywhere in b, nested blocks included. */
bool ir_has_side_effect(Block *b);
/* The same for one op: F_SIDE itself, or such an op in one of its blocks. */
bool ir_op_has_side_effect(const Op *op);
/* v is the constant 0 (+0.0 for floats), as a scalar or a splat of one. */
bool ir_is_zero(Func *f, ValId v);
/*
 * A copy of op, its blocks cloned whole: operands v < nmap with map[v] set
 * read map[v]; every result and block argument of the copy is new, and
 * map[] (nmap entries) records it against the original.  Not placed.  The
 * copy keeps names and layouts, not the axis facts or shared-memory
 * offsets: for use before the axis and smem passes.
 */
Op *ir_clone(Func *f, const Op *op, ValId *map, int nmap);
/*
 * Appends a loop-carried value to the `for` loop, starting at init: a new
 * body argument (returned) and result; the body yields the argument until
 * its yield operand is set.  Body argument and result take init's layout.
 */
ValId ir_add_iter(Func *f, Op *loop, ValId init);
/* The first op in program order with an fp8 result (*elem its type), or NULL. */
Op *ir_first_fp8(Func *f, ElemKind *elem);
/* v is defined inside op: a result or block argument in one of its blocks, at any depth. */
bool ir_inside(Func *f, ValId v, const Op *op);

/*
 * Pipelining depth: the kernel's num_stages, or a loop's own
 * (`range(..., num_stages=N)`, OP_FOR's iattr[1], 0 when not given).
 * ir_stages(f, op) is the depth that governs op: that of the innermost
 * `for` holding it (op itself if it is one), else the kernel's.
 */
static inline bool num_stages_ok(int64_t n) { return n >= 1 && n <= 8; }
int ir_stages(const Func *f, const Op *op);

/* Every op of one opcode, in program order (an arena array of *n ops), so a
 * pass can rewrite them without walking a block it is changing. */
Op **ir_collect(Func *f, Opcode code, int *n);

/* ---- text form, verifier ---- */
void ir_print(StrBuf *out, Func *f);
/* Parse the text form; on error reports through d (positions in the IR text). */
Func *ir_parse(Arena *a, Diag *d, const Source *src);
/* Returns NULL when f is well formed, else a message (arena string) naming the op. */
const char *ir_verify(Func *f);
/* As ir_verify; also sets *bad to the offending op (NULL when none or not an op's fault). */
const char *ir_verify_at(Func *f, Op **bad);
/* One op's line (no body, no newline), numbered as ir_print numbers the whole function. */
void ir_print_op(StrBuf *out, Func *f, Op *op);

/* ---- layouts (layout.c) ---- */
int layout_add(Func *f, const Layout *l);
bool layout_eq(const Layout *a, const Layout *b);
/* Every element held by the same threads in a as in b (same lane and warp
 * columns, register columns spanning the same space, in any number):
 * converting between them only renames registers. */
bool layout_same_threads(const Layout *a, const Layout *b);
/* The index of the column that is exactly `col` among cols[0..n), or -1. */
int layout_column(const uint32_t *cols, int n, uint32_t col);
/* Every bit of the position along axis is one register or lane column of l:
 * a scan along it stays within each warp (cg_scan.c, passes/smem.c). */
bool layout_scan_in_warp(const Layout *l, int axis);
/* Some element of l is held by several lanes or warps (a zero lane or warp column). */
bool layout_copies(const Layout *l);
/* Flat-index bits m as the XOR of register (*reg), lane (*lane) and warp (*warp) columns; false if none. */
bool layout_xor_split(const Layout *l, uint32_t m, uint32_t *reg, uint32_t *lane, uint32_t *warp);
/* xorperm's mask as flat-index bits of its operand's type t */
uint32_t xorperm_bits(Type t, int axis, int64_t mask);
/* Triton-style blocked default for a shape: `vec` contiguous elements per thread along the last dim. */
Layout layout_blocked(int rank, const int32_t *shape, int num_warps, int vec);
uint32_t layout_apply(const Layout *l, uint32_t reg, uint32_t lane, uint32_t warp);
void layout_str(StrBuf *out, const Layout *l);
/* Operand layouts of the CUDA-core dot for an accumulator layout c over [M,N] (see docs of DOT). */
Layout layout_dot_a(const Layout *c, int K);
Layout layout_dot_b(const Layout *c, int K);
/* Shape ops, as the layout pass and codegen need them (every column 0 or one bit). */
Layout layout_slice(const Layout *l, int axis);      /* reduction result: axis deleted (rank >= 2) */
Layout layout_unbroadcast(const Layout *res, const int32_t *src_shape); /* broadcast source */
Layout layout_expand(const Layout *src, int axis);   /* expand_dims result: new size-1 axis */
Layout layout_squeeze(const Layout *res, int axis);  /* expand_dims source: size-1 axis removed */
Layout layout_trans(const Layout *l);                /* 2-D transpose */
Layout layout_reshape(const Layout *l, int rank, const int32_t *shape); /* same columns, another shape */
Layout layout_permute(const Layout *l, int64_t perm); /* permute's result: axis i is l's axis (perm >> 2i) & 3 */
int64_t permute_inverse(int64_t perm, int rank);
Layout layout_join(const Layout *l);                 /* join's result: a last axis of 2 in register bit 0 */
int layout_split_reg(const Layout *l);               /* the register bit of a last axis of 2, or -1 */
Layout layout_split(const Layout *l);                /* split's result (layout_split_reg(l) >= 0) */
/*
 * Attributes of the pipelining ops (passes/pipeline.c).  local_load's
 * iattr[0] is the first k of a k-slice, iattr[1] these flags; an
 * async_ring's iattr[0] is RING_WGMMA when its slots use wgmma's layout.
 * A wgmma dot's iattr[1] says when it is waited for: 0 right after it,
 * DOT_ASYNC across the back edge, DOT_ISSUE by a dot_wait (whose iattr[0]
 * is the number of wgmma groups left in flight).
 */
enum {
	LL_TRANS = 1,   /* the slot holds B transposed, [N, K] */
	LL_WGMMA = 2,   /* the tile stays in shared memory: a wgmma dot reads it there */
	RING_WGMMA = 1, /* slots in 128-byte panels, 1024-byte aligned (cg_wgmma.c) */
	DOT_ASYNC = 1,  /* `dot ... async`: wait_group 1 after it, dot_wait after the loop */
	DOT_ISSUE = 2   /* `dot ... issue`: committed only; a later dot_wait */
};

/*
 * Tensor-core dot (layout_mma.c): how a dot runs on mma.sync -- MMA_HALF
 * m16n8k16 (f16/bf16 in, f32 acc), MMA_TF32 m16n8k8 (f32 in with
 * allow_tf32), MMA_S8 m16n8k32 (i8 in, i32 acc), MMA_F8 m16n8k32 (f8e4m3 or
 * f8e5m2 in, f32 acc; sm_89) -- or MMA_NONE (CUDA cores);
 * each has the accumulator layout_mma_acc over [M, N] and operands of it.
 */
typedef enum { MMA_NONE, MMA_HALF, MMA_TF32, MMA_S8, MMA_F8 } MmaKind;
MmaKind layout_mma_kind(Func *f, const Op *dot);
Layout layout_mma_acc(int M, int N, int num_warps);
Layout layout_mma_acc_rows(int M, int N, int num_warps); /* warps along M: for chained dots */
/* The dot may run as wgmma (sm_90a): warpgroups along M, each m64 x N (layout_mma_acc_rows);
 * b_kmajor: B is stored [N, K] (read through trans), else [K, N]; int8 needs b_kmajor. */
bool layout_wgmma_ok(Func *f, const Op *dot, bool b_kmajor);
/* MMA_HALF's operands (layout_mma_operand's), which the pipeliner and wgmma read from its ring */
Layout layout_mma_a(const Layout *c, int K);
Layout layout_mma_b(const Layout *c, int K);
/* Operand i (0: A, 1: B) of accumulator c in kind's fragments, and the register bits it needs
 * (at most LAYOUT_MAX_REG fit). */
Layout layout_mma_operand(MmaKind kind, const Layout *c, int K, int i);
int layout_mma_operand_bits(MmaKind kind, const Layout *c, int K, int i);
bool layout_is_mma_acc(const Layout *l, int num_warps);

#endif
