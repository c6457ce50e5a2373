/*
 * cg_convert.c: layout changes.
 *
 * expand_dims, broadcast and trans change only how register bits are read
 * (contract: registers map 1:1), so the result shares the source's array.
 *
 * convert_layout between layouts that hold every element in the same thread
 * (layout_same_threads) renames registers.  Otherwise it goes through the
 * op's shared-memory scratch as a row-major copy of the whole tile:
 *
 *     bar.sync 0;  smem[off + byte(flat(src reg r))] = x[r]  (canonical r; owner only)
 *     bar.sync 0;  y[r'] = smem[off + byte(flat(dst reg r'))]
 *
 * byte() (times, below) swizzles 16-byte chunks against bank conflicts.
 *
 * The first barrier protects a buffer the planner reused; runs of
 * consecutive registers on consecutive elements move as one vector access.
 *
 * xorperm (flip, sort's steps) is the same copy read back at each
 * element's flat index XOR the mask, or, where the mask's bits are
 * register and lane columns only, renamed registers and one shuffle.
 *
 * gather writes its source the same way and reads each element at an index
 * it computes; histogram counts into a tile of counters there with
 * shared-memory atomics.
 *
 * A convert whose only user is a later dot in the same block is left
 * pending: cg_dot writes both operand tiles at once and reads each element
 * from shared memory as it needs it (Triton's dot operands in shared
 * memory), instead of holding a K-wide slice of both operands in registers
 * across the whole product.
 */
#include "cg.h"

void cg_rename(Cg *c, Op *op)
{
	ValId src = op->opnds[0], res = op->res[0];
	if (cg_nregs(c, src) != cg_nregs(c, res))
		die("codegen: %s of %%%d changes the register count", op_info[op->code].text, src);
	c->regs[res] = c->regs[src];
}

/*
 * The last axis of 2 of join's result and split's source is register bit
 * k (layout_split_reg; layout_join makes it bit 0): register i of the
 * joined tile is register i without bit k of the part that bit names.
 */
static uint32_t part_reg(uint32_t i, int k)
{
	uint32_t low = (1u << k) - 1;
	return (i >> 1 & ~low) | (i & low);
}

/* The joined tile's register of part `side`'s register i: part_reg's inverse. */
static uint32_t whole_reg(uint32_t i, int k, uint32_t side)
{
	uint32_t low = (1u << k) - 1;
	return (i & ~low) << 1 | side << k | (i & low);
}

void cg_join(Cg *c, Op *op)
{
	ValId res = op->res[0];
	const Layout *l = cg_layout(c, res);
	int k = l ? layout_split_reg(l) : -1;
	if (k < 0 || cg_nregs(c, res) != 2 * cg_nregs(c, op->opnds[0]))
		die("codegen: join %%%d is not in its parts' layout", res);
	LLVMValueRef *r = cg_new_regs(c, res);
	for (uint32_t i = 0; i < (uint32_t)cg_nregs(c, res); i++)
		r[i] = c->regs[op->opnds[i >> k & 1]][part_reg(i, k)];
}

void cg_split(Cg *c, Op *op)
{
	ValId src = op->opnds[0], res = op->res[0];
	const Layout *l = cg_layout(c, src);
	int k = l ? layout_split_reg(l) : -1;
	if (k < 0 || cg_nregs(c, src) != 2 * cg_nregs(c, res))
		die("codegen: split of %%%d whose last axis is not in registers", src);
	LLVMValueRef *r = cg_new_regs(c, res);
	for (uint32_t i = 0; i < (uint32_t)cg_nregs(c, res); i++)
		r[i] = c->regs[src][whole_reg(i, k, (uint32_t)op->iattr[0])];
}

/*
 * The scratch's byte of a flat (row-major) index: flat * eb, and in a tile
 * whose rows hold whole 16-byte chunks, the chunk (byte bits 4-6) XORed
 * with the row's index mod 8, or for rows shorter than 128 bytes with the
 * 128-byte line's (bits `phase`.. of the byte, phase = log2 of the larger of
 * the row and the line).  Rows of 128 bytes or more otherwise start in the
 * same bank, so the 8 rows an MMA accumulator's warp writes at once (4 bytes
 * a lane) hit the same 4 banks 8 times; swizzled, they cover all 32.  The
 * map is linear over XOR (cg_lin's contract), a bijection on any
 * power-of-two tile, and keeps each access of up to 16 aligned bytes whole.
 * Phase 0 is flat * eb; scratch_phase says which converts swizzle.
 */
static LLVMValueRef times(Cg *c, LLVMValueRef flat, int eb, int phase)
{
	LLVMValueRef byte = LLVMBuildMul(c->b, flat, cg_i32c(c, eb), "");
	if (!phase)
		return byte;
	LLVMValueRef row = LLVMBuildLShr(c->b, byte, cg_i32c(c, phase - 4), "");
	return LLVMBuildXor(c->b, byte, LLVMBuildAnd(c->b, row, cg_i32c(c, 0x70), ""), "");
}

/* Address of register r's element: (thread index ^ register part) * eb. */
static LLVMValueRef elem_ptr(Cg *c, int32_t offset, const CgLin *at, uint32_t r)
{
	uint32_t add;
	LLVMValueRef byte = cg_lin_at(c, at, r, &add);
	return cg_smem_ptr(c, offset + (int32_t)add, byte);
}

CgLin cg_smem_lin(Cg *c, ValId v)
{
	return cg_lin(c, cg_layout(c, v), times, elem_bytes(vtype(c->f, v).elem), 0);
}

/*
 * The scratch's swizzle phase (times) for a convert of src: swizzled only
 * where src is an MMA accumulator, whose 8-row stores conflicted (the
 * epilogue's restaging).  Swizzling other converts too, such as attention's
 * Q on its way to wgmma registers, took that kernel from 126 to 159
 * registers (one program per SM instead of two) for conflicts paid once.
 */
static int scratch_phase(Cg *c, ValId src)
{
	Type t = vtype(c->f, src);
	int eb = elem_bytes(t.elem);
	int64_t row = t.rank == 2 ? t.shape[1] * eb : 0;
	if (row < 16 || type_numel(t) * eb <= 128 || !layout_is_mma_acc(cg_layout(c, src), c->f->num_warps))
		return 0;
	return row > 128 ? ilog2((uint64_t)row) : 7;
}

static CgLin scratch_lin(Cg *c, ValId v, int phase)
{
	if (!phase)
		return cg_smem_lin(c, v);
	return cg_lin_columns(c, cg_layout(c, v), times, elem_bytes(vtype(c->f, v).elem), phase);
}

/*
 * Every canonical register of v to its row-major place at offset.  Where
 * lanes or warps hold the same elements only the owner writes them (the
 * others would store the same bytes: a race, if a harmless one).
 */
static void write_tile(Cg *c, int32_t offset, ValId v, ElemKind e, int phase)
{
	const Layout *l = cg_layout(c, v);
	int eb = elem_bytes(e), vec = cg_reg_vec(l, eb);
	uint32_t zm = cg_zeromask(l->reg, l->nreg);
	LLVMTypeRef mt = cg_mem_type(c, e);
	CgLin at = scratch_lin(c, v, phase);
	LLVMBasicBlockRef after = cg_owner_begin(c, l);
	for (uint32_t r = 0; r < 1u << l->nreg; r += (uint32_t)vec) {
		if (r & zm)
			continue;
		LLVMValueRef x = cg_to_mem(c, c->regs[v][r], e), *rv = c->regs[v] + r;
		if (vec > 1 && (e == TY_F16 || e == TY_BF16)) {
			/* pairs as b32 words (cg_pack_half2: one cvt per pair where they were just rounded) */
			x = vec == 2 ? cg_pack_half2(c, rv[0], rv[1]) : LLVMGetUndef(LLVMVectorType(c->i32, (unsigned)vec / 2));
			for (int j = 0; vec > 2 && j < vec / 2; j++)
				x = LLVMBuildInsertElement(c->b, x, cg_pack_half2(c, rv[2 * j], rv[2 * j + 1]), cg_i32c(c, j), "");
		} else if (vec > 1) {
			x = LLVMGetUndef(LLVMVectorType(mt, (unsigned)vec));
			for (int j = 0; j < vec; j++)
				x = LLVMBuildInsertElement(c->b, x, cg_to_mem(c, c->regs[v][r + (uint32_t)j], e),
				                           cg_i32c(c, j), "");
		}
		LLVMSetAlignment(LLVMBuildStore(c->b, x, elem_ptr(c, offset, &at, r)), (unsigned)(vec * eb));
	}
	cg_owner_end(c, after);
}

void cg_smem_read(Cg *c, ValId v, int32_t offset, const CgLin *at, uint32_t r, int vec, LLVMValueRef *out)
{
	ElemKind e = vtype(c->f, v).elem;
	int eb = elem_bytes(e);
	LLVMTypeRef mt = cg_mem_type(c, e), t = vec > 1 ? LLVMVectorType(mt, (unsigned)vec) : mt;
	LLVMValueRef x = LLVMBuildLoad2(c->b, t, elem_ptr(c, offset, at, r), "");
	LLVMSetAlignment(x, (unsigned)(vec * eb));
	for (int j = 0; j < vec; j++)
		out[j] = cg_from_mem(c, vec > 1 ? LLVMBuildExtractElement(c->b, x, cg_i32c(c, j), "") : x, e);
}

/* Every canonical register of v from offset. */
static void read_tile(Cg *c, int32_t offset, ValId v, int phase)
{
	const Layout *l = cg_layout(c, v);
	int vec = cg_reg_vec(l, elem_bytes(vtype(c->f, v).elem));
	uint32_t zm = cg_zeromask(l->reg, l->nreg);
	LLVMValueRef *out = cg_new_regs(c, v);
	CgLin at = scratch_lin(c, v, phase);
	for (uint32_t r = 0; r < 1u << l->nreg; r += (uint32_t)vec)
		if (!(r & zm))
			cg_smem_read(c, v, offset, &at, r, vec, out + r);
	cg_fill_dups(c, v);
}

/* The only use of op's result is a dot later in this block, with no region in between. */
static bool feeds_dot(Cg *c, Op *op)
{
	ValId res = op->res[0];
	if (val(c->f, res)->nuses != 1)
		return false;
	for (Op *q = op->next; q; q = q->next) {
		if (q->code == OP_DOT)
			return q->opnds[0] == res || q->opnds[1] == res;
		if (q->nblocks)
			return false;
	}
	return false;
}

void cg_convert_write(Cg *c, ValId v, int32_t offset)
{
	Op *op = c->pending[v];
	write_tile(c, offset, op->opnds[0], vtype(c->f, v).elem, 0);
	c->pending[v] = NULL;
}

void cg_convert_read(Cg *c, ValId v, int32_t offset)
{
	read_tile(c, offset, v, 0);
}

void cg_share_owned(Cg *c, ValId v, int32_t offset, int32_t bytes)
{
	cg_smem_access(c, offset, bytes, true);
	write_tile(c, offset, v, vtype(c->f, v).elem, 0);
	cg_smem_access(c, offset, bytes, false);
	read_tile(c, offset, v, 0);
}

void cg_share_scalar(Cg *c, ValId v, LLVMValueRef own, int32_t offset)
{
	ElemKind e = vtype(c->f, v).elem;
	LLVMValueRef p = cg_smem_ptr(c, offset, cg_i32c(c, 0));
	cg_smem_access(c, offset, elem_bytes(e), true);
	LLVMBasicBlockRef after = cg_when(c, own);
	LLVMBuildStore(c->b, cg_to_mem(c, c->regs[v][0], e), p);
	cg_owner_end(c, after);
	cg_barrier(c);
	cg_smem_access(c, offset, elem_bytes(e), false);
	c->regs[v][0] = cg_from_mem(c, LLVMBuildLoad2(c->b, cg_mem_type(c, e), p, ""), e);
}

/* res's register r' is src's register holding the same element. */
static void rename_regs(Cg *c, ValId src, ValId res)
{
	const Layout *ls = cg_layout(c, src), *lr = cg_layout(c, res);
	LLVMValueRef *byidx = NEWN(c->f->arena, LLVMValueRef, (int64_t)type_numel(vtype(c->f, src)));
	for (uint32_t r = 0; r < 1u << ls->nreg; r++)
		byidx[cg_reg_index(ls, r)] = c->regs[src][r];
	LLVMValueRef *out = cg_new_regs(c, res);
	for (uint32_t r = 0; r < 1u << lr->nreg; r++)
		out[r] = byidx[cg_reg_index(lr, r)];
}

void cg_convert_layout(Cg *c, Op *op)
{
	ValId src = op->opnds[0], res = op->res[0];
	ElemKind e = vtype(c->f, res).elem;
	if (!cg_layout(c, src)) {
		c->regs[res] = c->regs[src];
		return;
	}
	if (layout_same_threads(cg_layout(c, src), cg_layout(c, res))) {
		rename_regs(c, src, res);
		return;
	}
	int64_t need = type_numel(vtype(c->f, res)) * elem_bytes(e);
	if (op->smem_bytes < need)
		die("codegen: convert_layout %%%d has %d bytes of scratch, needs %lld", res, op->smem_bytes,
		    (long long)need);
	if (feeds_dot(c, op)) {
		c->pending[res] = op;
		return;
	}
	cg_smem_access(c, op->smem_offset, op->smem_bytes, true);
	int phase = scratch_phase(c, src);
	write_tile(c, op->smem_offset, src, e, phase);
	cg_smem_access(c, op->smem_offset, op->smem_bytes, false);
	read_tile(c, op->smem_offset, res, phase);
}

/*
 * xorperm: element i along the axis from element i ^ mask.  The mask's
 * flat-index bits are a XOR of columns (layout_xor_split); without warp
 * columns, register r takes register r ^ R of the lane that differs in L
 * (shfl.sync.bfly, which the linear layout makes the right one).  With
 * them, the tile goes through scratch and each run of vec registers reads
 * back the aligned run holding its elements' partners, in XOR order.
 */
void cg_xorperm(Cg *c, Op *op)
{
	ValId src = op->opnds[0], res = op->res[0];
	Type t = vtype(c->f, src);
	const Layout *l = cg_layout(c, src);
	uint32_t m = xorperm_bits(t, (int)op->iattr[0], op->iattr[1]), R, L, W;
	if (!l || !layout_xor_split(l, m, &R, &L, &W))
		die("codegen: xorperm %%%d's mask is not in its layout's columns", res);
	if (cg_layout(c, res) != l && !layout_eq(cg_layout(c, res), l))
		die("codegen: xorperm %%%d is not in its operand's layout", res);
	uint32_t zm = cg_zeromask(l->reg, l->nreg);
	LLVMValueRef *out = cg_new_regs(c, res);
	if (!W) {
		for (uint32_t r = 0; r < 1u << l->nreg; r++)
			if (!(r & zm))
				out[r] = L ? cg_shfl_xor(c, c->regs[src][r ^ R], (int)L) : c->regs[src][r ^ R];
		cg_fill_dups(c, res);
		return;
	}
	ElemKind e = t.elem;
	int eb = elem_bytes(e), vec = cg_reg_vec(l, eb);
	int64_t need = type_numel(t) * eb;
	if (op->smem_bytes < need)
		die("codegen: xorperm %%%d has %d bytes of scratch, needs %lld", res, op->smem_bytes, (long long)need);
	cg_smem_access(c, op->smem_offset, op->smem_bytes, true);
	write_tile(c, op->smem_offset, src, e, 0);
	cg_smem_access(c, op->smem_offset, op->smem_bytes, false);
	CgLin at = cg_smem_lin(c, src);
	LLVMTypeRef mt = cg_mem_type(c, e), vt = vec > 1 ? LLVMVectorType(mt, (unsigned)vec) : mt;
	uint32_t low = m & (uint32_t)(vec - 1);
	for (uint32_t r = 0; r < 1u << l->nreg; r += (uint32_t)vec) {
		if (r & zm)
			continue;
		uint32_t add;
		LLVMValueRef byte = cg_lin_at_index(c, &at, cg_reg_index(l, r) ^ (m & ~low), &add);
		LLVMValueRef x = LLVMBuildLoad2(c->b, vt, cg_smem_ptr(c, op->smem_offset + (int32_t)add, byte), "");
		LLVMSetAlignment(x, (unsigned)(vec * eb));
		for (uint32_t j = 0; j < (uint32_t)vec; j++)
			out[r + j] = cg_from_mem(c, vec > 1 ? LLVMBuildExtractElement(c->b, x, cg_i32c(c, j ^ low), "") : x, e);
	}
	cg_fill_dups(c, res);
}

/*
 * gather: src goes to scratch row-major, as a convert writes it; each
 * result register then reads the element at its own flat index with the
 * axis's coordinate replaced by its index, masked to the axis's length
 * (an index outside it is undefined: it reads some element of the tile,
 * never past the scratch).  src and the result have one shape off the
 * axis, so only the axis's field of the flat index differs in width.
 */
void cg_gather(Cg *c, Op *op)
{
	ValId src = op->opnds[0], idx = op->opnds[1], res = op->res[0];
	Type ts = vtype(c->f, src), tr = vtype(c->f, res);
	int ax = (int)op->iattr[0], eb = elem_bytes(ts.elem), low = 0;
	for (int d = ax + 1; d < ts.rank; d++)
		low += ilog2((uint64_t)ts.shape[d]);
	int rbits = ilog2((uint64_t)tr.shape[ax]), sbits = ilog2((uint64_t)ts.shape[ax]);
	int64_t need = type_numel(ts) * eb;
	if (op->smem_bytes < need)
		die("codegen: gather %%%d has %d bytes of scratch, needs %lld", res, op->smem_bytes, (long long)need);
	const Layout *l = cg_layout(c, res);
	if (!l || !layout_eq(cg_layout(c, idx), l))
		die("codegen: gather %%%d is not in its index's layout", res);
	cg_smem_access(c, op->smem_offset, op->smem_bytes, true);
	write_tile(c, op->smem_offset, src, ts.elem, 0);
	cg_smem_access(c, op->smem_offset, op->smem_bytes, false);
	LLVMValueRef ti = cg_thread_index(c, l), *out = cg_new_regs(c, res);
	LLVMTypeRef mt = cg_mem_type(c, ts.elem);
	uint32_t zm = cg_zeromask(l->reg, l->nreg);
	for (uint32_t r = 0; r < 1u << l->nreg; r++) {
		if (r & zm)
			continue;
		LLVMValueRef flat = cg_flat_index(c, l, ti, r);
		LLVMValueRef outer = LLVMBuildLShr(c->b, flat, cg_i32c(c, low + rbits), "");
		LLVMValueRef inner = LLVMBuildAnd(c->b, flat, cg_i32c(c, (1 << low) - 1), "");
		LLVMValueRef k = LLVMBuildIntCast2(c->b, c->regs[idx][r], c->i32, true, "");
		k = LLVMBuildAnd(c->b, k, cg_i32c(c, (1 << sbits) - 1), "");
		LLVMValueRef at = LLVMBuildOr(c->b, LLVMBuildShl(c->b, outer, cg_i32c(c, sbits), ""), k, "");
		at = LLVMBuildOr(c->b, LLVMBuildShl(c->b, at, cg_i32c(c, low), ""), inner, "");
		LLVMValueRef byte = LLVMBuildMul(c->b, at, cg_i32c(c, eb), "");
		LLVMValueRef x = LLVMBuildLoad2(c->b, mt, cg_smem_ptr(c, op->smem_offset, byte), "");
		LLVMSetAlignment(x, (unsigned)eb);
		out[r] = cg_from_mem(c, x, ts.elem);
	}
	cg_fill_dups(c, res);
}

/*
 * histogram: the result tile's counters in scratch, zeroed by writing a
 * tile of zeros as a convert would; each owner of an operand element adds
 * 1 to its counter with a shared-memory atomic where the value is one of
 * the counters; the result reads them back.
 */
void cg_histogram(Cg *c, Op *op)
{
	ValId x = op->opnds[0], res = op->res[0];
	int64_t bins = type_numel(vtype(c->f, res));
	if (op->smem_bytes < bins * 4)
		die("codegen: histogram %%%d has %d bytes of scratch, needs %lld", res, op->smem_bytes,
		    (long long)bins * 4);
	const Layout *l = cg_layout(c, x), *lr = cg_layout(c, res);
	LLVMValueRef *zero = cg_new_regs(c, res);
	for (uint32_t r = 0; r < 1u << lr->nreg; r++)
		zero[r] = cg_i32c(c, 0);
	cg_smem_access(c, op->smem_offset, op->smem_bytes, true);
	write_tile(c, op->smem_offset, res, TY_I32, 0);
	cg_smem_access(c, op->smem_offset, op->smem_bytes, true);
	uint32_t zm = cg_zeromask(l->reg, l->nreg);
	LLVMBasicBlockRef owned = cg_owner_begin(c, l);
	for (uint32_t r = 0; r < 1u << l->nreg; r++) {
		if (r & zm)
			continue;
		LLVMValueRef v = LLVMBuildSExt(c->b, c->regs[x][r], c->i64, ""); /* negatives are no counter */
		LLVMValueRef in = LLVMBuildICmp(c->b, LLVMIntULT, v, LLVMConstInt(c->i64, (uint64_t)bins, 0), "");
		LLVMBasicBlockRef after = cg_when(c, in);
		LLVMValueRef byte = LLVMBuildMul(c->b, LLVMBuildIntCast2(c->b, v, c->i32, false, ""), cg_i32c(c, 4), "");
		LLVMBuildAtomicRMW(c->b, LLVMAtomicRMWBinOpAdd, cg_smem_ptr(c, op->smem_offset, byte), cg_i32c(c, 1),
		                   LLVMAtomicOrderingMonotonic, 0);
		cg_owner_end(c, after);
	}
	cg_owner_end(c, owned);
	cg_smem_access(c, op->smem_offset, op->smem_bytes, false);
	read_tile(c, op->smem_offset, res, 0);
}
