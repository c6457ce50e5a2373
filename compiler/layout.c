/*
 * layout.c: distributed layouts as linear maps over GF(2).
 *
 * A Layout (ir.h) sends the bits of (register, lane, warp) to the bits of an
 * element's row-major flat index: one column per input bit, XORed together.
 * Every dimension is a power of two, so dimension d owns a contiguous field
 * of the flat index's bits, the last dimension lowest:
 *
 *     shape [4, 8]:   flat = r r | c c c        (row field bits 3..4, column 0..2)
 *
 * Every layout built here has columns that are 0 or a single bit, which is
 * what lets a shape op move a column from one field to another or delete it
 * (slice, unbroadcast) without ever splitting a column.
 */
#include "ir.h"

#include <string.h>

static Layout empty(int rank, const int32_t *shape)
{
	Layout l;
	memset(&l, 0, sizeof l);
	l.rank = (uint8_t)rank;
	for (int d = 0; d < rank; d++)
		l.shape[d] = shape[d];
	l.nlane = 5;
	return l;
}

static int field_bits(const Layout *l, int d)
{
	return ilog2((uint64_t)l->shape[d]);
}

/* The lowest flat-index bit of dimension d's field. */
static int field_lo(const Layout *l, int d)
{
	int lo = 0;
	for (int e = d + 1; e < l->rank; e++)
		lo += field_bits(l, e);
	return lo;
}

static void push_reg(Layout *l, uint32_t col)
{
	if (l->nreg >= LAYOUT_MAX_REG)
		die("layout of %d dims needs more than %d register bits", l->rank, LAYOUT_MAX_REG);
	l->reg[l->nreg++] = col;
}

/* The next unmapped bit of dimension d as a column, or 0 when d is full. */
static uint32_t take_bit(const Layout *l, int *used, int d)
{
	if (used[d] >= field_bits(l, d))
		return 0;
	return 1u << (field_lo(l, d) + used[d]++);
}

static uint32_t take_from_last(const Layout *l, int *used)
{
	for (int d = l->rank - 1; d >= 0; d--)
		if (used[d] < field_bits(l, d))
			return take_bit(l, used, d);
	return 0;
}

static uint32_t take_from_first(const Layout *l, int *used)
{
	for (int d = 0; d < l->rank; d++)
		if (used[d] < field_bits(l, d))
			return take_bit(l, used, d);
	return 0;
}

/*
 * Triton's default blocked layout: sizePerThread = vec along the last dim,
 * the 32 lanes over the last dim first, the warps over the first dim first,
 * then what is left of the tile in repeated registers (last dim first).
 * Lanes or warps beyond the tile get zero columns: they hold copies.
 * For [64, 64], 4 warps, vec 4 (columns as (row, col)):
 *     reg  (0,1) (0,2) | (8,0) (16,0) (32,0)     the second group: repeats
 *     lane (0,4) (0,8) (0,16) (0,32) (1,0)
 *     warp (2,0) (4,0)
 */
Layout layout_blocked(int rank, const int32_t *shape, int num_warps, int vec)
{
	Layout l = empty(rank, shape);
	int used[MAX_RANK] = {0};
	l.nwarp = (uint8_t)ilog2((uint64_t)num_warps);
	if (rank == 0)
		return l;
	int vb = ilog2((uint64_t)(vec > 0 ? vec : 1));
	for (int i = 0; i < vb; i++) {
		uint32_t c = take_bit(&l, used, rank - 1);
		if (c)
			push_reg(&l, c);
	}
	for (int i = 0; i < l.nlane; i++)
		l.lane[i] = take_from_last(&l, used);
	for (int i = 0; i < l.nwarp; i++)
		l.warp[i] = take_from_first(&l, used);
	for (uint32_t c; (c = take_from_last(&l, used)) != 0;)
		push_reg(&l, c);
	return l;
}

uint32_t layout_apply(const Layout *l, uint32_t reg, uint32_t lane, uint32_t warp)
{
	uint32_t x = 0;
	for (int i = 0; i < l->nreg; i++)
		if (reg >> i & 1)
			x ^= l->reg[i];
	for (int i = 0; i < l->nlane; i++)
		if (lane >> i & 1)
			x ^= l->lane[i];
	for (int i = 0; i < l->nwarp; i++)
		if (warp >> i & 1)
			x ^= l->warp[i];
	return x;
}

static bool cols_eq(const uint32_t *a, const uint32_t *b, int n)
{
	return n == 0 || memcmp(a, b, sizeof(uint32_t) * (size_t)n) == 0;
}

/* The same shape and the same number of register, lane and warp columns. */
static bool same_frame(const Layout *a, const Layout *b)
{
	if (a->rank != b->rank || a->nreg != b->nreg || a->nlane != b->nlane || a->nwarp != b->nwarp)
		return false;
	for (int d = 0; d < a->rank; d++)
		if (a->shape[d] != b->shape[d])
			return false;
	return true;
}

bool layout_eq(const Layout *a, const Layout *b)
{
	return same_frame(a, b) && cols_eq(a->reg, b->reg, a->nreg) && cols_eq(a->lane, b->lane, a->nlane) &&
	       cols_eq(a->warp, b->warp, a->nwarp);
}

/* The rank over GF(2) of n columns (elimination on a basis keyed by the top bit). */
static int gf2_rank(const uint32_t *cols, int n)
{
	uint32_t basis[32] = {0};
	int rank = 0;
	for (int i = 0; i < n; i++) {
		uint32_t x = cols[i];
		for (int bit = 31; x && bit >= 0; bit--) {
			if (!(x >> bit & 1))
				continue;
			if (!basis[bit]) {
				basis[bit] = x;
				rank++;
				break;
			}
			x ^= basis[bit];
		}
	}
	return rank;
}

/*
 * The register columns may differ in number: a slice of an accumulator
 * whose columns reach more registers (attention's row max of a 64x32 S
 * against the 64x64 output) holds the same elements with more zero columns.
 */
bool layout_same_threads(const Layout *a, const Layout *b)
{
	if (a->rank != b->rank || a->nlane != b->nlane || a->nwarp != b->nwarp ||
	    !cols_eq(a->lane, b->lane, a->nlane) || !cols_eq(a->warp, b->warp, a->nwarp))
		return false;
	for (int d = 0; d < a->rank; d++)
		if (a->shape[d] != b->shape[d])
			return false;
	/* equal spans of the register columns: each rank equals the rank of both together */
	uint32_t both[2 * LAYOUT_MAX_REG];
	memcpy(both, a->reg, sizeof(uint32_t) * (size_t)a->nreg);
	memcpy(both + a->nreg, b->reg, sizeof(uint32_t) * (size_t)b->nreg);
	int r = gf2_rank(both, a->nreg + b->nreg);
	return gf2_rank(a->reg, a->nreg) == r && gf2_rank(b->reg, b->nreg) == r;
}

int layout_column(const uint32_t *cols, int n, uint32_t col)
{
	for (int i = 0; i < n; i++)
		if (cols[i] == col)
			return i;
	return -1;
}

bool layout_copies(const Layout *l)
{
	for (int i = 0; i < l->nlane; i++)
		if (!l->lane[i])
			return true;
	for (int i = 0; i < l->nwarp; i++)
		if (!l->warp[i])
			return true;
	return false;
}

bool layout_scan_in_warp(const Layout *l, int axis)
{
	int lo = 0;
	for (int d = axis + 1; d < l->rank; d++)
		lo += ilog2((uint64_t)l->shape[d]);
	for (int j = 0; j < ilog2((uint64_t)l->shape[axis]); j++)
		if (layout_column(l->reg, l->nreg, 1u << (lo + j)) < 0 && layout_column(l->lane, l->nlane, 1u << (lo + j)) < 0)
			return false;
	return true;
}

/*
 * The flat-index bits m as a XOR of columns, by elimination over GF(2):
 * register columns in *reg's bits, lane columns in *lane's, warp columns
 * in *warp's.  false where no XOR of columns gives m.
 */
bool layout_xor_split(const Layout *l, uint32_t m, uint32_t *reg, uint32_t *lane, uint32_t *warp)
{
	uint32_t vec[32] = {0};
	uint64_t with[32] = {0}; /* basis vector b's columns: register i bit i, lane i bit 16 + i, warp i bit 24 + i */
	for (int i = 0; i < l->nreg + 5 + l->nwarp; i++) {
		uint32_t v = i < l->nreg ? l->reg[i] : i < l->nreg + 5 ? l->lane[i - l->nreg] : l->warp[i - l->nreg - 5];
		uint64_t w = (uint64_t)1 << (i < l->nreg ? i : i < l->nreg + 5 ? 16 + i - l->nreg : 24 + i - l->nreg - 5);
		for (int b = 31; b >= 0 && v; b--)
			if (v >> b & 1) {
				if (!vec[b]) {
					vec[b] = v, with[b] = w;
					v = 0;
				} else
					v ^= vec[b], w ^= with[b];
			}
	}
	uint64_t w = 0;
	for (int b = 31; b >= 0; b--)
		if (m >> b & 1) {
			if (!vec[b])
				return false;
			m ^= vec[b], w ^= with[b];
		}
	*reg = (uint32_t)(w & 0xffff), *lane = (uint32_t)(w >> 16 & 0x1f), *warp = (uint32_t)(w >> 24);
	return true;
}

uint32_t xorperm_bits(Type t, int axis, int64_t mask)
{
	int shift = 0;
	for (int d = t.rank - 1; d > axis; d--)
		shift += ilog2((uint64_t)t.shape[d]);
	return (uint32_t)mask << shift;
}

/* Layouts are interned: equal layouts get one index, so passes compare indices. */
int layout_add(Func *f, const Layout *l)
{
	for (int i = 0; i < f->nlayouts; i++)
		if (layout_eq(&f->layouts[i], l))
			return i;
	if (f->nlayouts >= f->caplayouts)
		f->layouts = arena_grow(f->arena, f->layouts, &f->caplayouts, f->nlayouts + 1, sizeof(Layout));
	f->layouts[f->nlayouts] = *l;
	return f->nlayouts++;
}

/* ---- dot operands (the contract in docs: A register k | r << kb holds A[m(r), k]) ---- */

Layout layout_dot_a(const Layout *c, int K)
{
	int32_t shape[2] = {c->shape[0], K};
	Layout a = empty(2, shape);
	int kb = ilog2((uint64_t)K), nb = ilog2((uint64_t)c->shape[1]);
	a.nwarp = c->nwarp;
	for (int i = 0; i < kb; i++)
		push_reg(&a, 1u << i);
	for (int i = 0; i < c->nreg; i++)
		push_reg(&a, (c->reg[i] >> nb) << kb);
	for (int i = 0; i < c->nlane; i++)
		a.lane[i] = (c->lane[i] >> nb) << kb;
	for (int i = 0; i < c->nwarp; i++)
		a.warp[i] = (c->warp[i] >> nb) << kb;
	return a;
}

Layout layout_dot_b(const Layout *c, int K)
{
	int32_t shape[2] = {K, c->shape[1]};
	Layout b = empty(2, shape);
	int kb = ilog2((uint64_t)K), nb = ilog2((uint64_t)c->shape[1]);
	uint32_t nmask = (uint32_t)c->shape[1] - 1;
	b.nwarp = c->nwarp;
	for (int i = 0; i < kb; i++)
		push_reg(&b, 1u << (nb + i));
	for (int i = 0; i < c->nreg; i++)
		push_reg(&b, c->reg[i] & nmask);
	for (int i = 0; i < c->nlane; i++)
		b.lane[i] = c->lane[i] & nmask;
	for (int i = 0; i < c->nwarp; i++)
		b.warp[i] = c->warp[i] & nmask;
	return b;
}

/* ---- shape ops ---- */

/* Delete bits lo..lo+width-1 of a column: 0 if the column lies inside them. */
static uint32_t delete_field(uint32_t c, int lo, int width)
{
	uint32_t low = c & ((1u << lo) - 1);
	uint32_t mid = (c >> lo) & ((1u << width) - 1);
	uint32_t high = c >> (lo + width);
	if (mid && (low || high))
		die("layout column %#x straddles the field at bit %d", c, lo);
	return mid ? 0 : low | high << lo;
}

static void map_cols(Layout *l, uint32_t (*fn)(uint32_t, int, int), int a, int b)
{
	for (int i = 0; i < l->nreg; i++)
		l->reg[i] = fn(l->reg[i], a, b);
	for (int i = 0; i < l->nlane; i++)
		l->lane[i] = fn(l->lane[i], a, b);
	for (int i = 0; i < l->nwarp; i++)
		l->warp[i] = fn(l->warp[i], a, b);
}

/* Dimension d becomes size 1: its field's columns turn to 0. */
static void collapse_dim(Layout *l, int d)
{
	map_cols(l, delete_field, field_lo(l, d), field_bits(l, d));
	l->shape[d] = 1;
}

static void remove_dim(Layout *l, int d)
{
	if (l->shape[d] != 1)
		die("removing dimension %d of size %d", d, l->shape[d]);
	for (int e = d; e + 1 < l->rank; e++)
		l->shape[e] = l->shape[e + 1];
	l->rank--;
	l->shape[l->rank] = 0;
}

Layout layout_slice(const Layout *l, int axis)
{
	if (l->rank < 2 || axis < 0 || axis >= l->rank)
		die("slicing axis %d of a rank-%d layout", axis, l->rank);
	Layout s = *l;
	collapse_dim(&s, axis);
	remove_dim(&s, axis);
	return s;
}

Layout layout_unbroadcast(const Layout *res, const int32_t *src_shape)
{
	Layout s = *res;
	for (int d = 0; d < s.rank; d++)
		if (src_shape[d] == 1 && s.shape[d] != 1)
			collapse_dim(&s, d);
	return s;
}

Layout layout_expand(const Layout *src, int axis)
{
	if (src->rank >= MAX_RANK || axis < 0 || axis > src->rank)
		die("expanding a rank-%d layout at %d", src->rank, axis);
	Layout e = *src;
	for (int d = e.rank; d > axis; d--)
		e.shape[d] = e.shape[d - 1];
	e.shape[axis] = 1;
	e.rank++;
	return e;
}

Layout layout_squeeze(const Layout *res, int axis)
{
	Layout s = *res;
	remove_dim(&s, axis);
	return s;
}


/* A flat index of l's shape as the flat index of r, whose axis i is l's axis perm_i. */
static uint32_t permute_col(const Layout *l, const Layout *r, int64_t perm, uint32_t c)
{
	uint32_t out = 0;
	for (int i = 0; i < r->rank; i++) {
		int d = (int)(perm >> 2 * i & 3);
		uint32_t coord = c >> field_lo(l, d) & ((1u << field_bits(l, d)) - 1);
		out |= coord << field_lo(r, i);
	}
	return out;
}

Layout layout_permute(const Layout *l, int64_t perm)
{
	Layout r = *l;
	for (int i = 0; i < l->rank; i++)
		r.shape[i] = l->shape[perm >> 2 * i & 3];
	for (int i = 0; i < l->nreg; i++)
		r.reg[i] = permute_col(l, &r, perm, l->reg[i]);
	for (int i = 0; i < l->nlane; i++)
		r.lane[i] = permute_col(l, &r, perm, l->lane[i]);
	for (int i = 0; i < l->nwarp; i++)
		r.warp[i] = permute_col(l, &r, perm, l->warp[i]);
	return r;
}

Layout layout_trans(const Layout *l)
{
	if (l->rank != 2)
		die("transposing a rank-%d layout", l->rank);
	return layout_permute(l, 1); /* axis 0 is l's axis 1, axis 1 its axis 0 */
}

int64_t permute_inverse(int64_t perm, int rank)
{
	int64_t inv = 0;
	for (int i = 0; i < rank; i++)
		inv |= (int64_t)i << 2 * (perm >> 2 * i & 3);
	return inv;
}

/* Row-major order is the flat index: a reshape keeps every column. */
Layout layout_reshape(const Layout *l, int rank, const int32_t *shape)
{
	Layout r = *l;
	r.rank = (uint8_t)rank;
	for (int d = 0; d < MAX_RANK; d++)
		r.shape[d] = d < rank ? shape[d] : 0;
	return r;
}

/*
 * join's result: the parts' flat index moves up a bit, and the new last
 * axis (size 2, flat bit 0) is register bit 0, so a thread holds both
 * parts of an element side by side.
 */
Layout layout_join(const Layout *l)
{
	if (l->rank >= MAX_RANK || l->nreg >= LAYOUT_MAX_REG)
		die("joining a rank-%d layout of %d register bits", l->rank, l->nreg);
	Layout j = *l;
	j.shape[j.rank++] = 2;
	j.reg[0] = 1;
	for (int i = 0; i < l->nreg; i++)
		j.reg[i + 1] = l->reg[i] << 1;
	j.nreg = (uint8_t)(l->nreg + 1);
	for (int i = 0; i < l->nlane; i++)
		j.lane[i] = l->lane[i] << 1;
	for (int i = 0; i < l->nwarp; i++)
		j.warp[i] = l->warp[i] << 1;
	return j;
}

int layout_split_reg(const Layout *l)
{
	if (l->rank < 2 || l->shape[l->rank - 1] != 2)
		return -1;
	for (int i = 0; i < l->nreg; i++)
		if (l->reg[i] == 1)
			return i;
	return -1;
}

Layout layout_split(const Layout *l)
{
	int k = layout_split_reg(l);
	if (k < 0)
		die("splitting a layout whose last axis is not in registers");
	Layout s = *l;
	s.shape[--s.rank] = 0;
	s.nreg = (uint8_t)(l->nreg - 1);
	for (int i = 0, j = 0; i < l->nreg; i++)
		if (i != k)
			s.reg[j++] = l->reg[i] >> 1;
	s.reg[s.nreg] = 0;
	for (int i = 0; i < l->nlane; i++)
		s.lane[i] = l->lane[i] >> 1;
	for (int i = 0; i < l->nwarp; i++)
		s.warp[i] = l->warp[i] >> 1;
	return s;
}

/* ---- text ---- */

/* A column as coordinates: "3" for rank 1, "[0,4]" otherwise. */
static void put_col(StrBuf *out, const Layout *l, uint32_t c)
{
	if (l->rank == 1) {
		sb_printf(out, "%u", c);
		return;
	}
	sb_puts(out, "[");
	for (int d = 0; d < l->rank; d++) {
		uint32_t x = (c >> field_lo(l, d)) & ((1u << field_bits(l, d)) - 1);
		sb_printf(out, "%s%u", d ? "," : "", x);
	}
	sb_puts(out, "]");
}

static void put_cols(StrBuf *out, const Layout *l, const char *name, const uint32_t *c, int n)
{
	sb_printf(out, " %s=[", name);
	for (int i = 0; i < n; i++) {
		if (i)
			sb_puts(out, ",");
		put_col(out, l, c[i]);
	}
	sb_puts(out, "]");
}

/* "linear<64x64 reg=[[0,1],[0,2]] lane=[...] warp=[...]>": columns as coordinates. */
void layout_str(StrBuf *out, const Layout *l)
{
	sb_puts(out, "linear<");
	for (int d = 0; d < l->rank; d++)
		sb_printf(out, "%s%d", d ? "x" : "", l->shape[d]);
	put_cols(out, l, "reg", l->reg, l->nreg);
	put_cols(out, l, "lane", l->lane, l->nlane);
	put_cols(out, l, "warp", l->warp, l->nwarp);
	sb_puts(out, ">");
}
