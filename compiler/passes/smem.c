/*
 * passes/smem.c: pass_smem plans the shared-memory scratch of ops.
 *
 * Laid out like Triton's Allocation.cpp: find the buffers and their sizes,
 * give each a live interval, sort, place; then stamp op->smem_offset /
 * op->smem_bytes and f->smem_total (the launch's dynamic shared memory).
 *
 * Scratch is live only while its op runs: ops never share data through it.
 * An op's interval is [i, i+1) for its index i in program order; the
 * placement is the general one (first fit, largest buffer first, against
 * the placed buffers whose intervals intersect: the greedy Triton uses,
 * after Gergov, "Algorithms for compile-time memory optimization", SODA
 * 1999), so a buffer given a longer lifetime is placed correctly.
 *
 * Two buffers live longer:
 * - an async_ring (passes/pipeline.c), its slots written by cp.async and
 *   read across a whole loop, is live from its op to the end of the last op
 *   of its block that uses it (a loop, with all the ops nested in it);
 * - a small buffer (a reduction's slots, at most SMALL bytes) stays live
 *   until the next buffer's op has run, so the two lie apart.  Codegen puts
 *   a bar.sync before an op's write only where this thread's accesses since
 *   the last one may touch the same bytes (cg_smem_access): the second of
 *   two reductions in a row (softmax's max and sum) then needs none.
 */
#include "compile.h"

#include <stdlib.h>

enum { ALIGN = 16, WGMMA_ALIGN = 1024, SMALL = 1024 };

typedef struct Buffer {
	Op *op;
	int32_t size;     /* bytes, a multiple of ALIGN */
	int start, end;   /* live interval [start, end) in op indices */
	int32_t offset;
	int32_t align;    /* ALIGN, or WGMMA_ALIGN for a ring wgmma reads (its swizzle atoms) */
} Buffer;

typedef struct Plan {
	Buffer *bufs;
	int n, cap;
	int index;        /* ops numbered so far */
	Arena *arena;
} Plan;

/* How many warp columns of l lie in dimension axis's field. */
static int warps_in_axis(const Layout *l, int axis)
{
	int lo = 0, n = 0;
	for (int d = axis + 1; d < l->rank; d++)
		lo += ilog2((uint64_t)l->shape[d]);
	uint32_t field = ((uint32_t)l->shape[axis] - 1) << lo;
	for (int i = 0; i < l->nwarp; i++)
		n += (l->warp[i] & field) != 0;
	return n;
}

/*
 * Bytes of scratch op needs.
 * CONVERT_LAYOUT: the whole tile, numel x element bytes (pointers 8); none
 * when the two layouts put every element in the same thread (codegen then
 * renames registers).
 * CUMSUM and SCAN: the whole tile of each operand, numel x element bytes
 * rounded up to 8, for cg_scan.c's steps across warps (each element's
 * block sum at its flat index); none when every bit of the position along
 * the axis is a register or lane column of the layout (the scan stays
 * within each warp).
 * A reduction with w > 0 warp columns in the reduced axis (else shuffles
 * finish it in registers): one slot per (warp along the axis, result
 * element), 2^w x result numel (1 for a scalar) x slot, where the slot is
 * the element widened to at least 4 bytes, doubled for argmax/argmin (value
 * and i32 index).  This is at least codegen's cg_reduce_smem_bytes, which
 * packs the values and then the indices.  REDUCE: the same with a slot
 * of its k operands' elements, each widened to at least 4 bytes.  DOT:
 * none, its operands arrive through converts.
 * XORPERM: none where the mask's bits are register and lane columns (codegen
 * renames registers and shuffles), else the whole tile, as for a convert.
 * GATHER: the whole source tile.  HISTOGRAM: the result's counters, 4
 * bytes each.
 * An atomic whose old values are used: for a scalar, one element (thread
 * 0 does it and hands it on); for a tile whose layout holds copies of
 * elements in several lanes or warps, the whole tile (the owners hand
 * theirs on); else none.
 */
static int64_t scratch_bytes(Func *f, Op *op)
{
	if (op->code == OP_ASYNC_RING) {
		Type t = vtype(f, op->res[0]);
		return val(f, op->opnds[0])->def->iattr[0] * type_numel(t) * elem_bytes(t.elem);
	}
	if (op->code == OP_CONVERT_LAYOUT) {
		Type t = vtype(f, op->res[0]);
		Value *src = val(f, op->opnds[0]), *res = val(f, op->res[0]);
		if (src->layout >= 0 && res->layout >= 0 &&
		    layout_same_threads(&f->layouts[src->layout], &f->layouts[res->layout]))
			return 0;
		return type_numel(t) * elem_bytes(t.elem);
	}
	if (op->code == OP_CUMSUM || op->code == OP_SCAN) {
		Value *src = val(f, op->opnds[0]);
		if (src->layout >= 0 && layout_scan_in_warp(&f->layouts[src->layout], (int)op->iattr[0]))
			return 0;
		int64_t n = 0;
		for (int i = 0; i < op->nopnds; i++)
			n += (type_numel(vtype(f, op->opnds[i])) * elem_bytes(vtype(f, op->opnds[i]).elem) + 7) & ~7;
		return n;
	}
	if (op->code == OP_XORPERM) {
		Type t = vtype(f, op->res[0]);
		Value *src = val(f, op->opnds[0]);
		uint32_t reg, lane, warp;
		if (src->layout >= 0 &&
		    layout_xor_split(&f->layouts[src->layout], xorperm_bits(t, (int)op->iattr[0], op->iattr[1]), &reg,
				     &lane, &warp) && !warp)
			return 0;
		return type_numel(t) * elem_bytes(t.elem);
	}
	if (op->code == OP_GATHER) {
		Type t = vtype(f, op->opnds[0]);
		return type_numel(t) * elem_bytes(t.elem);
	}
	if (op->code == OP_HISTOGRAM)
		return type_numel(vtype(f, op->res[0])) * 4;
	if (ir_is_atomic(op->code)) {
		Value *r = val(f, op->res[0]);
		Type t = r->type;
		if (r->nuses == 0 || (r->layout >= 0 && !layout_copies(&f->layouts[r->layout])))
			return 0;
		return type_numel(t) * elem_bytes(t.elem);
	}
	if (!op_has(op->code, F_REDUCE) && op->code != OP_REDUCE)
		return 0;
	Value *src = val(f, op->opnds[0]);
	int w = src->layout >= 0 ? warps_in_axis(&f->layouts[src->layout], (int)op->iattr[0]) : 0;
	if (w == 0)
		return 0;
	int64_t slot = 0;
	for (int i = 0; i < op->nopnds; i++) {
		int eb = elem_bytes(vtype(f, op->opnds[i]).elem);
		slot += eb < 4 ? 4 : eb;
	}
	if (op->code == OP_ARGMAX || op->code == OP_ARGMIN)
		slot *= 2;
	return ((int64_t)1 << w) * type_numel(vtype(f, op->res[0])) * slot;
}

/* Ops in op's subtree (op itself and every op nested in its blocks). */
static int subtree_size(Op *op)
{
	int n = 1;
	for (int i = 0; i < op->nblocks; i++)
		for (Op *q = op->blocks[i] ? op->blocks[i]->first : NULL; q; q = q->next)
			n += subtree_size(q);
	return n;
}

static bool subtree_uses(Op *op, ValId v)
{
	for (int i = 0; i < op->nopnds; i++)
		if (op->opnds[i] == v)
			return true;
	for (int i = 0; i < op->nblocks; i++)
		for (Op *q = op->blocks[i] ? op->blocks[i]->first : NULL; q; q = q->next)
			if (subtree_uses(q, v))
				return true;
	return false;
}

/* End of the live interval of the value op (at index i) defines, through its block's last user. */
static int live_end(Op *op, int i)
{
	int end = i + 1, idx = i + 1;
	for (Op *q = op->next; q; q = q->next) {
		int n = subtree_size(q);
		if (subtree_uses(q, op->res[0]))
			end = idx + n;
		idx += n;
	}
	return end;
}

static void collect_buffer(Func *f, Op *op, void *ctx)
{
	Plan *p = ctx;
	int i = p->index++;
	op->smem_offset = -1;
	op->smem_bytes = 0;
	int64_t n = scratch_bytes(f, op);
	if (n == 0)
		return;
	if (n > INT32_MAX / 2)
		error_at(f->diag, op->loc, "shared memory: %s needs %lld bytes", op_info[op->code].text, (long long)n);
	if (p->n >= p->cap)
		p->bufs = arena_grow(p->arena, p->bufs, &p->cap, p->n + 1, sizeof(Buffer));
	int end = op->code == OP_ASYNC_RING ? live_end(op, i) : i + 1;
	int32_t align = op->code == OP_ASYNC_RING && op->iattr[0] == RING_WGMMA ? WGMMA_ALIGN : ALIGN;
	p->bufs[p->n++] = (Buffer){op, (int32_t)((n + ALIGN - 1) / ALIGN * ALIGN), i, end, -1, align};
}

static int by_size(const void *a, const void *b)
{
	const Buffer *x = a, *y = b;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->start - y->start;
}

static bool overlap(const Buffer *a, const Buffer *b)
{
	return a->start < b->end && b->start < a->end;
}

/* First fit: the lowest offset clear of every placed buffer live at the same time. */
static void place_buffers(Plan *p)
{
	for (int i = 0; i < p->n; i++) {
		Buffer *b = &p->bufs[i];
		int32_t off = 0;
		for (bool moved = true; moved;) {
			moved = false;
			for (int j = 0; j < i; j++) {
				Buffer *q = &p->bufs[j];
				if (overlap(b, q) && off < q->offset + q->size && q->offset < off + b->size) {
					off = (q->offset + q->size + b->align - 1) / b->align * b->align;
					moved = true;
				}
			}
		}
		b->offset = off;
	}
}

static int32_t stamp_offsets(Plan *p)
{
	int32_t total = 0;
	for (int i = 0; i < p->n; i++) {
		Buffer *b = &p->bufs[i];
		b->op->smem_offset = b->offset;
		b->op->smem_bytes = b->size;
		if (b->offset + b->size > total)
			total = b->offset + b->size;
	}
	return total;
}

/* The error names the buffers live alongside the one that reaches highest. */
static void report_overflow(Func *f, Plan *p, int32_t total, int limit)
{
	Buffer *top = &p->bufs[0];
	for (int i = 1; i < p->n; i++)
		if (p->bufs[i].offset + p->bufs[i].size > top->offset + top->size)
			top = &p->bufs[i];
	StrBuf list = {0};
	const char *file = f->diag && f->diag->src ? f->diag->src->name : "?";
	for (int i = 0; i < p->n; i++) {
		Buffer *b = &p->bufs[i];
		if (!overlap(b, top))
			continue;
		sb_printf(&list, "%s%s at %s:%d:%d (%d bytes)", list.len ? ", " : "", op_info[b->op->code].text, file,
		          b->op->loc.line, b->op->loc.col, b->size);
	}
	char *msg = arena_strdup(f->arena, list.s);
	sb_free(&list);
	error_at(f->diag, top->op->loc, "shared memory: %d bytes needed, the target has %d: %s", total, limit, msg);
}

void pass_smem(Func *f, int limit_bytes)
{
	Plan p = {.arena = f->arena};
	ir_fill_uses(f);
	ir_walk(f, collect_buffer, &p);
	for (int i = 0; i + 1 < p.n; i++)
		if (p.bufs[i].size <= SMALL && p.bufs[i].end <= p.bufs[i + 1].start)
			p.bufs[i].end = p.bufs[i + 1].start + 1;
	if (p.n > 1)
		qsort(p.bufs, (size_t)p.n, sizeof(Buffer), by_size);
	place_buffers(&p);
	int32_t total = stamp_offsets(&p);
	f->smem_total = total;
	if (limit_bytes > 0 && total > limit_bytes)
		report_overflow(f, &p, total, limit_bytes);
}
