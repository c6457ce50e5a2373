#!/usr/bin/env python3
"""gen.py: random tile kernels with their launches, inputs and expected outputs.

    python3 tests/diff/gen.py OUTDIR [--count N] [--seed S] [--only I] [--family dot|vec|...]

Writes OUTDIR/index.txt (one case directory a line) and, per case, OUTDIR/NNNN/:

    kernel.tile   one kernel
    case.txt      the launch, a line each: `kernel NAME`, `grid X Y Z`, `warps W E` (W for
                  the launch, 0: the kernel's @num_warps; E the count in effect),
                  `define NAME V`, `buffer NAME DTYPE COUNT in|out|inout`, then the
                  runtime arguments in order: `arg buffer NAME`, `arg i32|f32 V NAME`;
                  an f32 buffer that float atomic_max/min, atomic_cas or atomic_xchg
                  write, or that holds the old values they return, is shown as i32,
                  so its bits are compared (-0 is not +0; a NaN must be that NaN)
    NAME.bin      the bytes of an input (in, inout) buffer, little-endian
    NAME.want     an output's expected values, one f64 per element (the bits, as an
                  integer, for an f32 buffer shown as i32)
    NAME.tol      one f64 per element: |got - want| <= tol; a negative tol marks an
                  element that no store may touch (its poison must survive)

Kernels come in seven shapes of program -- 1-D blocks, 1-D loops (grid-stride
or a constexpr count of chunks), 2-D blocks, rows reduced in a loop,
softmax-like rows with -inf padding (one pass or online), 3-D blocks, and
matrix products (f16, bf16, f32, tf32 and integer dots of 16 to 128-wide
tiles, operands row- or column-major or transposed, a K loop with any
num_stages or one step, an epilogue, a second product of its result); any
of their loops may be written as a while (`var kk = 0; while kk < K { ...;
kk += BK; }`) --
filled with random expressions: element-wise math (+ - * / div_rn %, exp,
exp2, log, log2, sqrt, rsqrt, sigmoid, abs, sin, cos, tanh, erf, floor,
ceil), casts among f16, bf16, f32,
f64, i8, i16, i32 and i64, comparisons, where, maximum/minimum, reductions
along any axis broadcast back into the tile, reductions of reductions,
argmax/argmin, trans, if/else on runtime scalars and on constexpr flags;
a tile through reshape, split, join and interleave and back into its
shape (reshaped to rank 1 to 3 for random work there, or for a reduction
along an axis taken back off it, that reduction itself sometimes
reshaped, split and joined the other way round; `let a, b = split(...)`
of a reshape into [..., 2] or of trans of a [2, N] tile, the halves
changed, reshuffled again or swapped, then joined, interleaved or joined
and transposed back; a join or interleave with a scalar, reduced over the
pair or split again; a tile reshaped to rank 2 or 3, its axes permuted
for random work there and permuted back; shapes sometimes spelled with
the sizing constexprs, as [BLOCK / 4, 4]); pairs stored side by side (the values, computed
float or integer tiles, one perhaps a broadcast scalar, the masks and the
offsets or pointers all joined, interleaved, or joined and reshaped);
whole-tile reductions of a reshape (a 1-D tile as 2-D, a 2-D one
flattened, a 3-D one's last two axes merged);
while loops carrying tiles and scalars -- counted up to, or down from, a
trip count of 0 to 3 (a runtime argument, a constexpr, a literal, or one
that differs between programs), or run while a value the body computes
holds (a count of the lanes halved to 0, the largest |x| of a tile halved
below a limit, the reduction in the condition itself), or while a ticket
(a scalar atomic_add on the program's own counter, in the condition) is
below K; updates under an `if` in the body, stores of every trip into a
region of their own (those of trips that never run keep their poison);
masked loads with `other` through plain, reversed, gathered, strided,
shifted and broadcast index maps, masked stores with holes in the mask,
atomics as statements on many lanes to a few addresses (adds; integer
max, min, or, xor; f32 max and min over negative values, both zeros and
NaNs, whose final values are exact in any order) and atomics whose old
values are used where each lane, or each program for a scalar one, has an
address of its own (atomic_cas on i32 and f32 against the memory's value,
the other zero or a NaN; f32 and i32 max and min; i32 add; xchg; a scalar
one in every trip of a loop); cumsum along any axis, forward and
reversed; reduce and associative_scan with combine fns of their own
(written once each, before or after the kernel, some calling a helper fn
or taking a parameter past the 2k with its default), of a tile or a tuple
of tiles, broadcast rows and scalars of mixed types, along any axis of a
1-D to 3-D tile (a 1-D one, or a tile reshaped to 1-D, reduced to
scalars), scans forward or reversed (a literal, a keyword or a
constexpr), the combine a product of parts: add (f32, f64, i32, i64),
max and min (maximum, where, a helper), xor, or and and (integers, i1),
the min and max of one value, the sum and count of the values where a
condition holds, the largest or smallest value with its first (or last)
index, Welford's (mean, M2, count), and in scans the affine map
x -> a x + b composed in order (f32 with |a| <= 0.5, i32 with a = -1 or 1);
flip, sort (ascending or descending, a literal, keyword or constexpr) and
gather along an axis of a sub-expression (of floats, or of integers in
index arithmetic), the gather's index the positions scrambled, permuted
or reversed, or exact data truncated, all & (n - 1), i32, i64, i16 or i8,
as many positions as the source's length, or one, or (a broadcast by
gather) as many as the tile's where the source has one, or another count
reduced back; topk with k = 1 (broadcast back), all, or between (its sum,
max or min broadcast back); histograms (B bins for B the length of an
axis, as f32 broadcast along it) of exact data truncated or of scrambled
positions, some out of range, under a mask of exact data now and then;
bitcasts: a float's sign flipped, cleared or set through its integer
bits, the exponent or significand bits of exact data as integers, floats
built from integer bits (f32, f16, bf16, f64); and stored into outputs of
their own: tuple sorts and topks `let v, i = topk((keys, pos), K, dim)`
(keys exact data or integers, with many ties; pos the positions, a
broadcast row or the whole tile; a second payload now and then) with each
index checked by `where(gather(keys, i, dim) == v, v, nan)`, which any
order among equal keys passes, lone sorts and topks of any expression,
histograms of index arithmetic or exact data of any rank (the tile
reshaped) under masks that broadcast or none, the raw bits of exact data,
gathers of data-dependent indices;
tiles of 1 to 8192
elements (1x256, 256x2, 4x1x64, ...), grids over all three axes, 1 to 32
warps, constexprs given by default or by define.  While an expression is
built each value carries the interval its elements can take, so only
defined operations are generated (log of positives, division away from
zero, no overflow).

The reference is a second, independent evaluator of the same kernel in
Python.  Every element carries its exact value (f64) and a bound on how far
any correct implementation may be from it: 0 while the operation is exact
(loads, selections, add/sub/cast of exact values rounded to the type, fmod,
sums whose partial sums are all representable), else the propagated bound
plus the operation's own error (none for reshape, join, split, flip,
gather and a bitcast of the sign, which move values, or for sort and topk,
whose j-th result lies between the j-th of the elements' lower ends and
the j-th of their upper ends; a histogram and a bitcast to or from the
bits need exact values) -- half an ulp of the type for rounded
operations (a multiply stays inexact even when rounded, as the GPU may fuse
it into an add), 2 ulp for `/` (div.full), 2^-21 relative for
ex2/lg2/rsqrt.approx (plus |x| ulp for exp's scaling by log2 e), 2 ulp of
f32 for sin/cos/tanh/erf (docs/language.md) after the input's bound times
the function's steepest slope, floor/ceil exact (rejected where the bound
straddles an integer), and for
sums a count of roundings that covers any order the GPU reduces in (a
combine's float adds too; its Welford merges by the same depth, M2 through
Cauchy-Schwarz over the merges; its scans' as cumsum's butterfly, the
affine map's by the magnitudes of its terms); for a
dot, 3 (K + 16) f32 roundings of the sum of |a||b| (any order, tensor cores
that truncate) and 2^-10 of it more for tf32.  A
comparison, mask or argmax whose answer those bounds leave open is
rejected (the case is drawn again), as is anything that overflows, divides
near zero or makes the bound loose (over a twentieth of the output's
scale).  The tolerance written is twice the bound.  Loops, while loops
included, run trip by trip as written (a while past the trips the
generator promised is its own bug), and a carried value's interval is
that of every trip.  An atomic's value and compare must be exact in the
memory's type, so max, min, cas and xchg results are exact (tolerance 0).
"""
import argparse
import math
import operator
import os
import random
import re
import struct
import sys
from array import array

FLOATS = ('f32', 'f16', 'bf16', 'f64')
INTS = ('i1', 'i8', 'i16', 'i32', 'i64')
BITS = {'i1': 1, 'i8': 8, 'i16': 16, 'i32': 32, 'i64': 64}
# half an ulp, relative (f64: a whole one, as the reference itself rounds in f64)
U = {'f32': 2.0 ** -24, 'f16': 2.0 ** -11, 'bf16': 2.0 ** -8, 'f64': 2.0 ** -52}
FLOOR = {'f32': 2.0 ** -126, 'f16': 2.0 ** -24, 'bf16': 2.0 ** -126, 'f64': 2.0 ** -1000}  # subnormals
MAXF = {'f16': 65504.0, 'bf16': 3.3895e38, 'f32': 3.4028e38, 'f64': 1.7976e308}  # largest finite
CAP = {'f32': 1e6, 'f16': 2e4, 'bf16': 1e6, 'f64': 1e6, 'i64': 2 ** 40, 'i32': 2 ** 28, 'i16': 2 ** 14,
       'i8': 100, 'i1': 1}  # largest magnitude generated
APPROX = 2.0 ** -21
FRANK = {'f16': 1, 'bf16': 2, 'f32': 3, 'f64': 4}
LOOSE = 0.05        # a bound over LOOSE * (|want| + rms of the output) rejects the case
MAXBUF, MAXARG, MAXDEF = 16, 32, 8      # what diff_test.c reads of a case
SIZES = ('BLOCK', 'BM', 'BN', 'BK', 'A')   # constexprs that size tiles (a reshape's shape may name them)
SHAPES = 0.25       # how often body_exprs adds a value through reshape, split, join and interleave


class Reject(Exception):
    """The drawn kernel or inputs make no sharp test; draw again."""


# ---- numbers ----

def f16_list(v):
    try:
        return list(struct.unpack('<%de' % len(v), struct.pack('<%de' % len(v), *v)))
    except (OverflowError, struct.error):
        return [f16_one(x) for x in v]


def f16_one(x):
    try:
        return struct.unpack('<e', struct.pack('<e', x))[0]
    except (OverflowError, struct.error):
        return math.copysign(math.inf, x)


def bf16_bits(v):
    u = array('I', array('f', v).tobytes())
    return array('H', [(x >> 16) | 0x40 if (x & 0x7fffffff) > 0x7f800000 else
                       (x + 0x7fff + ((x >> 16) & 1)) >> 16 for x in u])


def bf16_one(x):
    """A finite x rounded to nearest even in bf16 (8 significant bits, f32's exponents), directly."""
    sh = max(math.frexp(x)[1] - 8, -133)
    y = math.ldexp(round(math.ldexp(x, -sh)), sh)
    return y if abs(y) < 2.0 ** 128 else math.copysign(math.inf, x)


def rounded(dt, v, direct=False):
    """v rounded to nearest even in dt; bf16 through f32, as its arithmetic (computed in f32 and
    rounded back), or, direct, straight from the value, as a cast (of an f64 value just past a bf16
    midpoint, which f32 would round onto it)."""
    if dt == 'f32':
        return array('f', v).tolist()
    if dt == 'f16':
        return f16_list(v)
    if dt == 'bf16':
        out = array('f', array('I', [b << 16 for b in bf16_bits(v)]).tobytes()).tolist()
        if not direct:
            return out
        f = array('f', v).tolist()
        return [o if y == x or x != x or math.isinf(x) else bf16_one(x) for x, y, o in zip(v, f, out)]
    return v


def to_bytes(dt, v):
    if dt in ('f64', 'i8', 'i16', 'i64'):
        return array({'f64': 'd', 'i8': 'b', 'i16': 'h', 'i64': 'q'}[dt], v).tobytes()
    if dt == 'f32':
        return array('f', v).tobytes()
    if dt == 'f16':
        return struct.pack('<%de' % len(v), *v)
    if dt == 'bf16':
        return bf16_bits(v).tobytes()
    return array('i', v).tobytes()


def bits32(x):
    """An f32's bits as a signed i32 (what a buffer shown as i32 holds)."""
    return struct.unpack('<i', struct.pack('<f', x))[0]


def c_div(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def c_rem(a, b):
    return a - b * c_div(a, b)


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def bshape(a, b):
    """numpy broadcasting of two shapes, or None."""
    r = max(len(a), len(b))
    a = (1,) * (r - len(a)) + a
    b = (1,) * (r - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            return None
        out.append(max(x, y))
    return tuple(out)


def promote(a, wa, b, wb):
    """The computation type of two operands (lower.c promote())."""
    if a == b:
        return a
    if wa != wb:
        strong, weak = (b, a) if wa else (a, b)
        if weak in FLOATS and strong not in FLOATS:
            return 'f32'
        return strong
    if a in FLOATS and b in FLOATS:
        if {a, b} == {'f16', 'bf16'}:
            return 'f32'
        return a if FRANK[a] > FRANK[b] else b
    if a in FLOATS:
        return a
    if b in FLOATS:
        return b
    return a if BITS[a] >= BITS[b] else b


def pretty(x):
    if isinstance(x, int):
        return str(x) if x >= 0 else '(%d)' % x
    if math.isinf(x):
        return 'inf' if x > 0 else '(-inf)'
    s = repr(float(x))
    return s if x >= 0 else '(%s)' % s


# ---- tiles ----

class T:
    """A tile's elements (flat, row-major): exact values v and bounds e (None: all exact)."""
    __slots__ = ('shape', 'dt', 'v', 'e')

    def __init__(self, shape, dt, v, e=None):
        self.shape, self.dt, self.v, self.e = shape, dt, v, e


_bidx = {}


def bcast_index(src, dst):
    key = (src, dst)
    if key not in _bidx:
        s = (1,) * (len(dst) - len(src)) + src
        strides, acc = [0] * len(dst), 1
        for d in range(len(dst) - 1, -1, -1):
            strides[d] = 0 if s[d] == 1 else acc
            acc *= s[d]
        idx = [0]
        for d in range(len(dst)):
            idx = [i + j * strides[d] for i in idx for j in range(dst[d])]
        _bidx[key] = idx
    return _bidx[key]


def bcast(t, shape):
    """(v, e) of t stretched to shape."""
    if t.shape == shape:
        return t.v, t.e
    n = numel(shape)
    if len(t.v) == 1:
        return t.v * n, (t.e * n if t.e else None)
    idx = bcast_index(t.shape, shape)
    v = [t.v[i] for i in idx]
    return v, ([t.e[i] for i in idx] if t.e else None)


def check_finite(dt, v, e, ins):
    """Reject overflow and NaN; -inf/inf must come from an exact infinite operand."""
    if dt not in FLOATS:
        return e
    m = max(map(abs, v))
    if m <= min(CAP[dt] * 4, 0.9 * MAXF[dt]):  # f16: 8e4 would round to inf
        return e
    if m != math.inf or not any(math.isinf(x) for t in ins for x in t.v):
        raise Reject('overflow or NaN')
    if any(x != x for x in v):
        raise Reject('NaN')
    if e is not None:
        e = [0.0 if math.isinf(x) else y for x, y in zip(v, e)]
    return e


def convert(t, dt):
    """cast(t, dt): floats round to nearest even, floats to ints truncate."""
    if t.dt == dt:
        return t
    if dt in FLOATS:
        v = t.v if t.dt in FLOATS else [float(x) for x in t.v]
        r = rounded(dt, v, direct=True)
        if t.e is None:
            check_finite(dt, r, None, [t])
            return T(t.shape, dt, r)
        u, fl = U[dt], FLOOR[dt]
        e = [x + (0.0 if a == b else u * abs(a) + fl) for x, a, b in zip(t.e, v, r)]
        return T(t.shape, dt, v, check_finite(dt, v, e, [t]))
    if dt == 'i1':
        if t.e is not None:
            raise Reject('inexact to i1')
        return T(t.shape, dt, [int(x != 0) for x in t.v])
    lim = 2 ** (BITS[dt] - 1)
    if t.dt in FLOATS:
        if any(math.isinf(x) for x in t.v):
            raise Reject('inf to int')
        r = [int(x) for x in t.v]
        e = None
        if t.e is not None:
            e = [float(max(int(x + y) - z, z - int(x - y))) for x, y, z in zip(t.v, t.e, r)]
    else:
        r, e = list(t.v), t.e
    if any(not -lim <= x < lim for x in r):
        raise Reject('out of range for %s' % dt)      # wraps in the interpreter, undefined on the GPU
    return T(t.shape, dt, r, e if e and any(e) else None)


# ---- expression nodes: source text, static range, evaluation ----
#
# Every node knows its shape, element type, whether it is a weak literal, and
# the interval [lo, hi] its elements lie in over every lane (masked ones too).

class Node:
    weak = False
    ninf = False    # some lanes may be -inf (a load with other=-inf)
    exact = False   # surely exact (a load, a parameter, a cast or [None] of one): its bits are known

    def setup(self, shape, dt, lo, hi):
        self.shape, self.dt, self.lo, self.hi = shape, dt, lo, hi
        return self


def like(shape, dt, lo, hi):
    """Static facts alone, for a name whose value the generator knows better (loop variables)."""
    return Node().setup(shape, dt, lo, hi)


class Name(Node):
    def __init__(self, name, like):
        self.name = name
        self.setup(like.shape, like.dt, like.lo, like.hi)
        self.ninf, self.exact = like.ninf, like.exact

    def src(self):
        return self.name

    def ev(self, cx):
        return cx.env[self.name]


class Lit(Node):
    weak = True

    def __init__(self, x):
        self.x = x
        self.setup((), 'i32' if isinstance(x, int) else 'f32', x, x)

    def src(self):
        return pretty(self.x)

    def ev(self, cx):
        return T((), self.dt, [self.x])


class Param(Node):
    """A runtime scalar parameter."""
    exact = True

    def __init__(self, name, dt, value):
        self.name, self.value = name, value
        self.setup((), dt, value, value)

    def src(self):
        return self.name

    def ev(self, cx):
        return T((), self.dt, [self.value])


class Const(Param):
    """A constexpr parameter (i32, i1 or f32); it folds like a literal of its type."""


class Pid(Node):
    def __init__(self, axis, count, grid_size):
        self.axis, self.count = axis, count
        self.setup((), 'i32', 0 if not count else grid_size, grid_size - 1 if not count else grid_size)

    def src(self):
        return '%s(%d)' % ('num_programs' if self.count else 'program_id', self.axis)

    def ev(self, cx):
        return T((), 'i32', [(cx.grid if self.count else cx.pid)[self.axis]])


class Arange(Node):
    """arange(lo, hi); `size` names the constexpr that sizes it, as in arange(0, BLOCK) or arange(8, 8 + BLOCK)."""

    def __init__(self, lo, hi, size=None):
        self.a, self.b, self.size = lo, hi, size
        self.setup((hi - lo,), 'i32', lo, hi - 1)

    def src(self):
        if self.size:
            return 'arange(%d, %s)' % (self.a, self.size if self.a == 0 else '%d + %s' % (self.a, self.size))
        return 'arange(%d, %d)' % (self.a, self.b)

    def ev(self, cx):
        return T(self.shape, 'i32', list(range(self.a, self.b)))


def interval(op, a, b):
    if op == '+':
        return a.lo + b.lo, a.hi + b.hi
    if op == '-':
        return a.lo - b.hi, a.hi - b.lo
    if op == '*':
        p = [x * y for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
        return min(p), max(p)
    if op == '/':
        if b.lo <= 0 <= b.hi:
            return -math.inf, math.inf
        p = [x / y for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
        return min(p), max(p)
    if op == '%':
        m = max(abs(b.lo), abs(b.hi))
        if a.dt not in FLOATS and b.dt not in FLOATS:
            m -= 1
        return (-m if a.lo < 0 else 0), (m if a.hi > 0 else 0)
    if op in ('&', '|', '^'):
        m = 1 << max(1, int(max(abs(a.lo), abs(a.hi), abs(b.lo), abs(b.hi)))).bit_length()
        return (-m if min(a.lo, b.lo) < 0 else 0), m
    if op == '>>':
        return min(a.lo, 0), max(a.hi, 0)
    if op == '<<':
        return a.lo * (1 << b.hi), a.hi * (1 << b.hi)
    return 0, 1


CMPS = ('<', '<=', '>', '>=', '==', '!=')


class Bin(Node):
    """a OP b with broadcasting and promotion; OP is arithmetic, bitwise or a comparison."""

    def __init__(self, op, a, b, rn=False):
        self.op, self.a, self.b, self.rn = op, a, b, rn
        shape = bshape(a.shape, b.shape)
        assert shape is not None, (a.shape, b.shape)
        e = promote(a.dt, a.weak, b.dt, b.weak)
        if op in ('&&', '||'):
            e = 'i1'
        elif e == 'i1' and op not in CMPS and op not in ('&', '|', '^'):
            e = 'i32'
        self.cdt = e
        lo, hi = interval(op, a, b)
        self.setup(shape, 'i1' if op in CMPS else e, lo, hi)
        self.weak = a.weak and b.weak
        if op in CMPS:
            self.lo, self.hi = 0, 1
        self.ninf = a.ninf or b.ninf

    def src(self):
        if self.rn:
            return 'div_rn(%s, %s)' % (self.a.src(), self.b.src())
        return '(%s %s %s)' % (self.a.src(), self.op, self.b.src())

    def ev(self, cx):
        A, B = convert(self.a.ev(cx), self.cdt), convert(self.b.ev(cx), self.cdt)
        av, ae = bcast(A, self.shape)
        bv, be = bcast(B, self.shape)
        op, dt = self.op, self.cdt
        if op in CMPS:
            return compare(op, self.shape, av, ae, bv, be)
        if dt not in FLOATS:
            if (ae or be) and op not in ('+', '-', '*'):
                raise Reject('inexact integer %s' % op)    # (ambiguous i1 included)
            v = int_op(op, av, bv)
            e = None
            if ae or be:
                ae, be = ae or [0.0] * len(v), be or [0.0] * len(v)
                e = [abs(x) * q + abs(y) * p + p * q if op == '*' else p + q
                     for x, y, p, q in zip(av, bv, ae, be)]
            return T(self.shape, self.dt, v, e)
        return T(self.shape, dt, *float_op(op, dt, self.rn, av, ae, bv, be, [A, B]))


def int_op(op, a, b):
    if op == '&&':
        return [x & y for x, y in zip(a, b)]
    if op == '||':
        return [x | y for x, y in zip(a, b)]
    if op == '+':
        return [x + y for x, y in zip(a, b)]
    if op == '-':
        return [x - y for x, y in zip(a, b)]
    if op == '*':
        return [x * y for x, y in zip(a, b)]
    if op == '/':
        return [c_div(x, y) for x, y in zip(a, b)]
    if op == '%':
        return [c_rem(x, y) for x, y in zip(a, b)]
    if op == '&':
        return [x & y for x, y in zip(a, b)]
    if op == '|':
        return [x | y for x, y in zip(a, b)]
    if op == '^':
        return [x ^ y for x, y in zip(a, b)]
    if op == '<<':
        return [x << y for x, y in zip(a, b)]
    if op == '>>':
        return [x >> y for x, y in zip(a, b)]
    raise AssertionError(op)


def float_op(op, dt, rn, av, ae, bv, be, ins):
    u, fl = U[dt], FLOOR[dt]
    if op == '/':
        if any(y == 0 for y in bv):
            raise Reject('division by zero')
        v = [x / y for x, y in zip(av, bv)]
        if ae is None and be is None and rn:
            return rounded(dt, v), None
        ae, be = ae or [0.0] * len(v), be or [0.0] * len(v)
        if any(abs(y) <= 2 * q for y, q in zip(bv, be)):
            raise Reject('division near zero')
        own = u if rn or dt == 'f64' else 4 * U['f32'] + (u if dt != 'f32' else 0)
        e = [(p + abs(r) * q) / (abs(y) - q) + own * abs(r) + fl for r, y, p, q in zip(v, bv, ae, be)]
        return v, check_finite(dt, v, e, ins)
    if op == '%':       # fmod: exact when its operands are
        if any(abs(y) <= 2 * q for y, q in zip(bv, be or [0.0] * len(bv))):
            raise Reject('fmod near zero')
        v = [math.fmod(x, y) for x, y in zip(av, bv)]
        if ae is None and be is None:
            return v, None
        ae, be = ae or [0.0] * len(v), be or [0.0] * len(v)
        e = []
        for x, y, p, q, z in zip(av, bv, ae, be, v):
            k = math.trunc(x / y)
            if any(math.trunc((x + s * p) / (y + t * q)) != k for s in (-1, 1) for t in (-1, 1)):
                raise Reject('fmod too close to a multiple')
            e.append(p + abs(k) * q + u * abs(z) + fl)
        return v, e
    if op == '+':
        v = [x + y for x, y in zip(av, bv)]
    elif op == '-':
        v = [x - y for x, y in zip(av, bv)]
    else:
        v = [x * y for x, y in zip(av, bv)]
    if ae is None and be is None:
        r = rounded(dt, v)
        if op != '*' or (r == v and dt != 'f64'):     # an f64 product is already rounded here
            check_finite(dt, r, None, ins)
            return r, None
        e = [0.0 if x == y else u * abs(x) + fl for x, y in zip(v, r)]
        return v, check_finite(dt, v, e, ins)
    ae, be = ae or [0.0] * len(v), be or [0.0] * len(v)
    if op == '*':
        e = [abs(x) * q + abs(y) * p + p * q + u * abs(r) + fl for r, x, y, p, q in zip(v, av, bv, ae, be)]
    else:
        e = [p + q + u * abs(r) + fl for r, p, q in zip(v, ae, be)]
    return v, check_finite(dt, v, e, ins)


def compare(op, shape, av, ae, bv, be):
    f = {'<': lambda x, y: x < y, '<=': lambda x, y: x <= y, '>': lambda x, y: x > y,
         '>=': lambda x, y: x >= y, '==': lambda x, y: x == y, '!=': lambda x, y: x != y}[op]
    v = [int(f(x, y)) for x, y in zip(av, bv)]
    if ae is None and be is None:
        return T(shape, 'i1', v)
    ae, be = ae or [0] * len(v), be or [0] * len(v)
    amb = [int(abs(x - y) <= p + q) for x, y, p, q in zip(av, bv, ae, be)]
    return T(shape, 'i1', v, amb if any(amb) else None)


def un_interval(fn, lo, hi):
    if fn == 'not':
        return 0, 1
    if fn == 'neg':
        return -hi, -lo
    if fn == 'abs':
        return (0 if lo <= 0 <= hi else min(abs(lo), abs(hi))), max(abs(lo), abs(hi))
    if fn == 'exp':
        return math.exp(lo), math.exp(hi)
    if fn == 'exp2':
        return 2.0 ** lo, 2.0 ** hi
    if fn == 'log':
        return math.log(lo), math.log(hi)
    if fn == 'log2':
        return math.log2(lo), math.log2(hi)
    if fn == 'sqrt':
        return math.sqrt(lo), math.sqrt(hi)
    if fn == 'rsqrt':
        return 1 / math.sqrt(hi), 1 / math.sqrt(lo)
    if fn in ('sin', 'cos'):
        return -1.0, 1.0
    if fn in ('tanh', 'erf', 'floor', 'ceil'):
        f = {'tanh': math.tanh, 'erf': math.erf, 'floor': math.floor, 'ceil': math.ceil}[fn]
        return float(f(lo)), float(f(hi))
    return 1 / (1 + math.exp(-lo)), 1 / (1 + math.exp(-hi))     # sigmoid


class Un(Node):
    """-x, abs, and the float math functions."""

    def __init__(self, fn, a):
        self.fn, self.a = fn, a
        try:
            lo, hi = un_interval(fn, a.lo, a.hi)
        except (ValueError, OverflowError, ZeroDivisionError):
            lo, hi = -math.inf, math.inf      # the generator never picks it; built on purpose
        self.setup(a.shape, a.dt, lo, hi)

    def src(self):
        if self.fn == 'neg':
            return '(-%s)' % self.a.src()
        if self.fn == 'not':
            return '(!%s)' % self.a.src()
        return '%s(%s)' % (self.fn, self.a.src())

    def ev(self, cx):
        A = self.a.ev(cx)
        return unary(self.fn, A)


def unary(fn, A):
    dt, v, e = A.dt, A.v, A.e
    if fn == 'not':
        return T(A.shape, dt, [1 - x for x in v], e)
    if fn == 'neg':
        return T(A.shape, dt, [-x for x in v], e)
    if fn == 'abs':
        return T(A.shape, dt, [abs(x) for x in v], e)
    if fn == 'sigmoid':     # as lowered: 1 / (1 + exp(-x))
        x = unary('exp', unary('neg', A))
        one = [1.0] * len(v)
        d = T(A.shape, dt, *float_op('+', dt, False, x.v, x.e, one, None, [x]))
        return T(A.shape, dt, *float_op('/', dt, False, one, None, d.v, d.e, [d]))
    u, fl = U[dt], FLOOR[dt]
    half = u if dt != 'f32' else 0.0
    ae = e or [0.0] * len(v)
    try:
        if fn in ('floor', 'ceil'):
            f = math.floor if fn == 'floor' else math.ceil
            if any(f(x - p) != f(x + p) for x, p in zip(v, ae)):
                raise Reject('%s of a value whose bound straddles an integer' % fn)
            return T(A.shape, dt, [float(f(x)) for x in v], e and [0.0] * len(v))
        if fn in ('sin', 'cos', 'tanh', 'erf'):
            f = {'sin': math.sin, 'cos': math.cos, 'tanh': math.tanh, 'erf': math.erf}[fn]
            slope = 2 / math.sqrt(math.pi) if fn == 'erf' else 1.0
            r = [f(x) for x in v]
            er = [slope * p + (4 * U['f32'] + half) * abs(y) + fl for y, p in zip(r, ae)]
            return T(A.shape, dt, r, er)
        if fn == 'sqrt':
            r = [math.sqrt(x) for x in v]
            if e is None:
                return T(A.shape, dt, rounded(dt, r))
            er = [min(math.sqrt(p), p / math.sqrt(x) if x > 0 else math.inf) + u * y + fl
                  for x, y, p in zip(v, r, ae)]
            return T(A.shape, dt, r, er)
        if fn in ('exp', 'exp2'):
            k = 1.0 if fn == 'exp' else math.log(2)
            r = [math.exp(x * k) if x != -math.inf else 0.0 for x in v]
            er = [0.0 if x == -math.inf else
                  y * (math.expm1(p * k + (abs(x) + p) * U['f32'] * 2) + APPROX + half) + fl
                  for x, y, p in zip(v, r, ae)]
            return T(A.shape, dt, r, check_finite(dt, r, er, [A]))
        if fn in ('log', 'log2'):
            if any(x <= p for x, p in zip(v, ae)):
                raise Reject('log of a non-positive')
            k = 1.0 if fn == 'log' else 1 / math.log(2)
            r = [math.log(x) * k for x in v]
            er = [k * p / (x - p) + APPROX * (1 + abs(y)) + (U['f32'] + half) * abs(y) + fl
                  for x, y, p in zip(v, r, ae)]
            return T(A.shape, dt, r, er)
        if fn == 'rsqrt':
            if any(x <= 2 * p for x, p in zip(v, ae)):
                raise Reject('rsqrt of a non-positive')
            r = [1 / math.sqrt(x) for x in v]
            er = [(1 / math.sqrt(x - p) - y) + (APPROX + half) * y + fl for x, y, p in zip(v, r, ae)]
            return T(A.shape, dt, r, er)
    except (ValueError, OverflowError):
        raise Reject('%s out of its domain' % fn)
    raise AssertionError(fn)


class MinMax(Node):
    def __init__(self, fn, a, b):
        self.fn, self.a, self.b = fn, a, b
        self.cdt = promote(a.dt, a.weak, b.dt, b.weak)
        f = max if fn == 'maximum' else min
        self.setup(bshape(a.shape, b.shape), self.cdt, f(a.lo, b.lo), f(a.hi, b.hi))
        self.ninf = a.ninf and b.ninf if fn == 'maximum' else a.ninf or b.ninf

    def src(self):
        return '%s(%s, %s)' % (self.fn, self.a.src(), self.b.src())

    def ev(self, cx):
        av, ae = bcast(convert(self.a.ev(cx), self.cdt), self.shape)
        bv, be = bcast(convert(self.b.ev(cx), self.cdt), self.shape)
        f = max if self.fn == 'maximum' else min
        v = [f(x, y) for x, y in zip(av, bv)]
        e = None
        if ae or be:
            ae, be = ae or [0.0] * len(v), be or [0.0] * len(v)
            e = [max(p, q) for p, q in zip(ae, be)]
        return T(self.shape, self.cdt, v, e)


class Where(Node):
    def __init__(self, c, a, b, kw=False):
        self.c, self.a, self.b, self.kw = c, a, b, kw
        self.cdt = promote(a.dt, a.weak, b.dt, b.weak)
        self.setup(bshape(bshape(c.shape, a.shape), b.shape), self.cdt, min(a.lo, b.lo), max(a.hi, b.hi))
        self.weak = a.weak and b.weak
        self.ninf = a.ninf or b.ninf

    def src(self):
        if self.kw:
            return 'where(cond=%s, a=%s, b=%s)' % (self.c.src(), self.a.src(), self.b.src())
        return 'where(%s, %s, %s)' % (self.c.src(), self.a.src(), self.b.src())

    def ev(self, cx):
        cv, ce = bcast(self.c.ev(cx), self.shape)
        av, ae = bcast(convert(self.a.ev(cx), self.cdt), self.shape)
        bv, be = bcast(convert(self.b.ev(cx), self.cdt), self.shape)
        v = [x if c else y for c, x, y in zip(cv, av, bv)]
        if ae is None and be is None and ce is None:
            return T(self.shape, self.cdt, v)
        n = len(v)
        ae, be, ce = ae or [0.0] * n, be or [0.0] * n, ce or [0] * n
        e = [(p if c else q) + (abs(x - y) + max(p, q) if a else 0.0)
             for c, a, x, y, p, q in zip(cv, ce, av, bv, ae, be)]
        if any(math.isinf(x) or x != x for x in e):
            raise Reject('ambiguous where over inf')
        return T(self.shape, self.cdt, v, e)


class Cast(Node):
    def __init__(self, a, dt):
        self.a = a
        lo, hi = a.lo, a.hi
        if dt not in FLOATS and a.dt in FLOATS:
            lo, hi = math.trunc(lo), math.trunc(hi)
        self.setup(a.shape, dt, lo, hi)
        self.exact = a.exact      # (convert rounds an exact value to what the GPU has)

    def src(self):
        return 'cast(%s, %s)' % (self.a.src(), self.dt)

    def ev(self, cx):
        return convert(self.a.ev(cx), self.dt)


class Index(Node):
    """x[:, None], x[None, :], s[None]"""

    def __init__(self, a, pattern):
        self.a, self.pattern = a, pattern
        shape, it = [], iter(a.shape)
        for p in pattern:
            shape.append(next(it) if p == ':' else 1)
        self.setup(tuple(shape), a.dt, a.lo, a.hi)
        self.ninf, self.exact = a.ninf, a.exact

    def src(self):
        return '%s[%s]' % (self.a.src(), ', '.join(':' if p == ':' else 'None' for p in self.pattern))

    def ev(self, cx):
        t = self.a.ev(cx)
        return T(self.shape, t.dt, t.v, t.e)


class Trans(Node):
    def __init__(self, a):
        self.a = a
        self.setup((a.shape[1], a.shape[0]), a.dt, a.lo, a.hi)

    def src(self):
        return 'trans(%s)' % self.a.src()

    def ev(self, cx):
        t = self.a.ev(cx)
        m, n = t.shape
        idx = [i * n + j for j in range(n) for i in range(m)]
        return T(self.shape, t.dt, [t.v[i] for i in idx], [t.e[i] for i in idx] if t.e else None)


class Permute(Node):
    """permute(x, [d0, ...]): axis i of the result is axis dims[i] of x; kw the keyword form."""

    def __init__(self, a, dims, kw=False):
        self.a, self.dims, self.kw = a, tuple(dims), kw
        self.setup(tuple(a.shape[d] for d in dims), a.dt, a.lo, a.hi)
        self.ninf = a.ninf

    def src(self):
        d = '[%s]' % ', '.join(str(x) for x in self.dims)
        return 'permute(x=%s, dims=%s)' % (self.a.src(), d) if self.kw else 'permute(%s, %s)' % (self.a.src(), d)

    def ev(self, cx):
        t = self.a.ev(cx)
        stride = [numel(t.shape[i + 1:]) for i in range(len(t.shape))]
        idx = []
        for flat in range(numel(self.shape)):
            rest, src = flat, 0
            for i in reversed(range(len(self.shape))):
                src += rest % self.shape[i] * stride[self.dims[i]]
                rest //= self.shape[i]
            idx.append(src)
        return T(self.shape, t.dt, [t.v[i] for i in idx], [t.e[i] for i in idx] if t.e else None)


class Reshape(Node):
    """reshape(x, [d0, ...]) (a rank-1 shape sometimes a bare constant): the same elements in row-major
    order; `names` spells the dimensions (constexpr arithmetic such as BLOCK / 4), kw the keyword form."""

    def __init__(self, a, shape, names=None, kw=False, bare=False):
        self.a, self.names, self.kw, self.bare = a, names, kw, bare
        assert numel(shape) == numel(a.shape) and a.shape, (a.shape, shape)
        self.setup(tuple(shape), a.dt, a.lo, a.hi)
        self.ninf = a.ninf

    def src(self):
        dims = self.names or [str(d) for d in self.shape]
        s = dims[0] if self.bare and len(dims) == 1 else '[%s]' % ', '.join(dims)
        if self.kw:
            return 'reshape(x=%s, shape=%s)' % (self.a.src(), s)
        return 'reshape(%s, %s)' % (self.a.src(), s)

    def ev(self, cx):
        t = self.a.ev(cx)
        return T(self.shape, t.dt, t.v, t.e)


class Join(Node):
    """join(a, b): a and b promoted and broadcast as where's operands, side by side along a new last
    axis of 2; interleave(a, b): that with its last two axes merged (a[i] at 2i, b[i] at 2i + 1).
    Two pointer tiles (Ptr) into one buffer join too: the node then stands for a pointer itself."""

    def __init__(self, a, b, inter=False, kw=False):
        self.a, self.b, self.inter, self.kw = a, b, inter, kw
        self.base = bshape(a.shape, b.shape)
        assert self.base, (a.shape, b.shape)
        shape = self.base[:-1] + (2 * self.base[-1],) if inter else self.base + (2,)
        assert len(shape) <= 3
        if a.dt == 'ptr':
            self.buf, self.cdt = a.buf, 'ptr'
        else:
            self.cdt = promote(a.dt, a.weak, b.dt, b.weak)
        self.setup(shape, self.cdt, min(a.lo, b.lo), max(a.hi, b.hi))
        self.ninf = a.ninf or b.ninf

    def src(self):
        f = 'interleave' if self.inter else 'join'
        if self.kw:
            return '%s(a=%s, b=%s)' % (f, self.a.src(), self.b.src())
        return '%s(%s, %s)' % (f, self.a.src(), self.b.src())

    def ev(self, cx):
        conv = (lambda t: t) if self.cdt == 'ptr' else (lambda t: convert(t, self.cdt))
        av, ae = bcast(conv(self.a.ev(cx)), self.base)
        bv, be = bcast(conv(self.b.ev(cx)), self.base)
        v = [x for p in zip(av, bv) for x in p]
        e = None
        if ae or be:
            e = [y for p in zip(ae or [0.0] * len(av), be or [0.0] * len(bv)) for y in p]
        return T(self.shape, 'i32' if self.cdt == 'ptr' else self.cdt, v, e)


class Full(Node):
    """zeros(shape, dt) or full(shape, value, dt); `names` spells the dimensions (constexprs)."""

    def __init__(self, shape, value, dt, zeros=False, names=None):
        self.value, self.zeros, self.names = value, zeros, names
        self.setup(shape, dt, value, value)
        self.ninf = value == -math.inf

    def src(self):
        dims = self.names or list(map(str, self.shape))
        s = '[%s]' % ', '.join(dims) if len(dims) > 1 or self.zeros else dims[0]
        if self.zeros:
            return 'zeros(%s, %s)' % (s, self.dt)
        return 'full(%s, %s, %s)' % (s, pretty(self.value), self.dt)

    def ev(self, cx):
        x = convert(T((), 'f32' if isinstance(self.value, float) else 'i32', [self.value]), self.dt).v[0]
        return T(self.shape, self.dt, [x] * numel(self.shape))


class Reduce(Node):
    """sum, max, min, argmax, argmin along an axis; the axis may be written negative or by keyword."""

    def __init__(self, fn, a, axis, style=0):
        self.fn, self.a, self.axis, self.style = fn, a, axis, style
        shape = a.shape[:axis] + a.shape[axis + 1:]
        n = a.shape[axis]
        dt = a.dt
        if fn == 'sum':
            dt = 'f32' if a.dt in ('f16', 'bf16') else 'i32' if a.dt in ('i1', 'i8', 'i16') else a.dt
            lo, hi = n * a.lo if a.lo < 0 else a.lo, n * a.hi if a.hi > 0 else a.hi
        elif fn in ('argmax', 'argmin'):
            dt, lo, hi = 'i32', 0, n - 1
        else:
            lo, hi = a.lo, a.hi
        self.setup(shape, dt, lo, hi)

    def src(self):
        ax = self.axis - len(self.a.shape) if self.style == 1 else self.axis
        if self.style == 2:
            return '%s(%s, axis=%d)' % (self.fn, self.a.src(), ax)
        return '%s(%s, %d)' % (self.fn, self.a.src(), ax)

    def ev(self, cx):
        t = self.a.ev(cx)
        if self.fn == 'sum':
            t = convert(t, self.dt)
        shape, ax = t.shape, self.axis
        n, inner = shape[ax], numel(shape[ax + 1:])
        v, e = [], []
        for o in range(numel(shape[:ax])):
            for i in range(inner):
                g = slice(o * n * inner + i, (o + 1) * n * inner, inner)
                x, y = reduce_group(self.fn, t.dt, t.v[g], t.e[g] if t.e else None, cx.warps, len(t.v))
                v.append(x)
                e.append(y)
        return T(self.shape, self.dt, v, e if any(e) else None)


def reduce_group(fn, dt, v, e, warps, tile_n):
    n = len(v)
    if fn in ('max', 'min'):
        f = max if fn == 'max' else min
        return f(v), (max(e) if e else 0.0)
    if fn in ('argmax', 'argmin'):
        best = 0
        for j in range(1, n):
            if (v[j] > v[best]) if fn == 'argmax' else (v[j] < v[best]):
                best = j
        if e:   # another index within the errors could win; an equal one too, unless both are exact
            x, p = v[best], e[best]
            for j in range(n):
                if j != best and abs(v[j] - x) <= p + e[j] and (v[j] != x or p + e[j] > 0):
                    raise Reject('argmax too close to call')
        return best, 0.0
    # sum
    if dt not in FLOATS:
        return sum(v), (sum(e) if e else 0.0)
    s = math.fsum(v)
    a = math.fsum(map(abs, v))
    if math.isinf(a):
        raise Reject('sum over inf')
    if not e:
        d = max(x.as_integer_ratio()[1] for x in v)
        if a * d < 2 ** (53 if dt == 'f64' else 24):
            return s, 0.0
    # any order: a thread's own elements in sequence, then a butterfly, then warps
    per_thread = min(n, max(8, -(-tile_n // 32)))
    k = per_thread + n.bit_length() + warps + 8
    return s, (math.fsum(e) if e else 0.0) + k * U[dt] * a + FLOOR[dt] * n


class Scan(Node):
    """cumsum along an axis, forward or reversed (keyword or positional), typed as sum."""

    def __init__(self, a, axis, rev, style=0):
        self.a, self.axis, self.rev, self.style = a, axis, rev, style
        n = a.shape[axis]
        dt = 'f32' if a.dt in ('f16', 'bf16') else 'i32' if a.dt in ('i1', 'i8', 'i16') else a.dt
        lo, hi = min(a.lo, n * a.lo), max(a.hi, n * a.hi)
        self.setup(a.shape, dt, lo, hi)

    def src(self):
        if self.style == 1:
            return 'cumsum(%s, axis=%d, reverse=%s)' % (self.a.src(), self.axis, 'true' if self.rev else 'false')
        return 'cumsum(%s, %d%s)' % (self.a.src(), self.axis, ', true' if self.rev else '')

    def ev(self, cx):
        t = convert(self.a.ev(cx), self.dt)
        shape, ax = t.shape, self.axis
        n, inner = shape[ax], numel(shape[ax + 1:])
        v, e = [0.0] * len(t.v), [0.0] * len(t.v)
        for o in range(numel(shape[:ax])):
            for i in range(inner):
                idx = [o * n * inner + j * inner + i for j in range(n)]
                if self.rev:
                    idx.reverse()
                for k in range(n):
                    pre = [t.v[j] for j in idx[:k + 1]]
                    v[idx[k]], e[idx[k]] = scan_prefix(self.dt, pre, [t.e[j] for j in idx[:k + 1]] if t.e else None, n)
        return T(self.shape, self.dt, v, e if any(e) else None)


def scan_prefix(dt, v, e, n):
    """One running sum of cumsum (the butterfly over log2 n bits, cg_scan.c): its value and error bound."""
    if dt not in FLOATS:
        return sum(v), (sum(e) if e else 0.0)
    a = math.fsum(map(abs, v))
    if math.isinf(a):
        raise Reject('cumsum over inf')
    s = math.fsum(v)
    if not e:
        d = max(x.as_integer_ratio()[1] for x in v)
        if a * d < 2 ** (53 if dt == 'f64' else 24):
            return s, 0.0
    return s, (math.fsum(e) if e else 0.0) + (2 * n.bit_length() + 4) * U[dt] * a + FLOOR[dt] * n


class Dot(Node):
    """dot(a, b[, acc][, allow_tf32=true]): [M, K] x [K, N] (+ [M, N]) in f32 (float inputs) or i32."""

    def __init__(self, a, b, acc=None, tf32=False, kw=False):
        self.a, self.b, self.acc, self.tf32, self.kw = a, b, acc, tf32, kw
        K = a.shape[1]
        dt = 'i32' if a.dt in INTS else 'f32'
        m = K * max(abs(a.lo), abs(a.hi)) * max(abs(b.lo), abs(b.hi))
        lo, hi = -m, m
        if acc is not None:
            lo, hi = lo + acc.lo, hi + acc.hi
        self.setup((a.shape[0], b.shape[1]), dt, lo, hi)

    def src(self):
        args = [self.a.src(), self.b.src()]
        if self.acc is not None:
            args.append(('acc=%s' if self.kw else '%s') % self.acc.src())
        if self.tf32:
            args.append('allow_tf32=true')
        return 'dot(%s)' % ', '.join(args)

    def ev(self, cx):
        A, B = self.a.ev(cx), self.b.ev(cx)
        (M, K), N = A.shape, B.shape[1]
        rows = [A.v[i * K:(i + 1) * K] for i in range(M)]
        cols = [B.v[j::N] for j in range(N)]
        v = [sum(map(operator.mul, r, c)) for r in rows for c in cols]
        e = None
        if self.dt == 'f32':
            # products exact, any order of f32 additions inside and between the
            # tensor-core steps (which may truncate): 3 (K + 16) roundings of the
            # magnitude; tf32 rounds each operand to 11 bits first
            ra = [list(map(abs, r)) for r in rows]
            ca = [list(map(abs, c)) for c in cols]
            mag = [sum(map(operator.mul, r, c)) for r in ra for c in ca]
            own = 3 * (K + 16) * U['f32'] + (2.0 ** -10 if self.tf32 else 0.0)
            e = [own * x + FLOOR['f32'] * (K + 1) for x in mag]
            if A.e or B.e:
                ea, eb = A.e or [0.0] * (M * K), B.e or [0.0] * (K * N)
                for i in range(M):
                    pa = ea[i * K:(i + 1) * K]
                    for j in range(N):
                        e[i * N + j] += sum(p * (y + q) + z * q for p, y, q, z in zip(pa, ca[j], eb[j::N], ra[i]))
        elif A.e or B.e:
            raise Reject('inexact integer dot')
        if self.acc is not None:
            C = self.acc.ev(cx)
            cv, ce = bcast(C, self.shape)
            v = [x + y for x, y in zip(v, cv)]
            if e is not None:
                e = [x + own * abs(y) + (q if ce else 0.0) for x, y, q in zip(e, cv, ce or cv)]
            elif ce:
                e = list(ce)
        if self.dt == 'i32' and any(abs(x) >= 2 ** 31 for x in v):
            raise Reject('i32 dot overflow')
        if e is not None:
            e = check_finite('f32', v, e, [A, B])
        return T(self.shape, self.dt, v, e)


# ---- flip, sort, topk, gather, histogram, bitcast ----
#
# flip, sort, topk and gather move values, so each carries its bound along.  A sort (or topk) of
# values known within bounds has its j-th result between the j-th of the lower ends and the j-th
# of the upper ends (an order statistic is monotone in every element): its bound is the larger
# distance to those.  A histogram counts exact integers; a bitcast needs its operand's bits, so
# exact values (the generator picks loads and casts of them: Node.exact), except where it only
# moves the sign bit (SignBits), which carries the bound as -x and abs(x) do.

SORTCOST = 1500     # sort_cost's most for one sort (about 6000 lines of PTX) ...
SORTBUDGET = 3000   # ... and for all of a kernel's
GATHERMAX = 32768   # the most bytes of gather's source (it goes through shared memory)
PERTHREAD = 64      # the most elements a thread has of a gather's or a histogram's tiles
IBITS = {'f32': 'i32', 'f16': 'i16', 'bf16': 'i16', 'f64': 'i64'}      # bitcast's integer of a float
SIGNBIT = {'i16': '(-32768)', 'i32': '(-2147483648)', 'i64': '((-9223372036854775807) - 1)'}
OTHERBITS = {'i16': '32767', 'i32': '2147483647', 'i64': '9223372036854775807'}


def float_bits(dt, x):
    """The bits of x (a value of dt) as a signed integer of its width."""
    if dt == 'bf16':
        b = struct.unpack('<I', struct.pack('<f', x))[0]
        assert b & 0xffff == 0, x
        return wrap('i16', b >> 16)
    f, i = {'f32': ('<f', '<i'), 'f16': ('<e', '<h'), 'f64': ('<d', '<q')}[dt]
    return struct.unpack(i, struct.pack(f, x))[0]


def bits_float(dt, b):
    """The float of dt whose bits are the integer b."""
    if dt == 'bf16':
        return struct.unpack('<f', struct.pack('<I', (b & 0xffff) << 16))[0]
    f, i = {'f32': ('<f', '<i'), 'f16': ('<e', '<h'), 'f64': ('<d', '<q')}[dt]
    return struct.unpack(f, struct.pack(i, b))[0]


def per_thread(shape, warps):
    """A thread's elements of a tile of shape (at least one)."""
    return max(1, numel(shape) // (32 * warps))


def sort_cost(shape, ax, dts, warps):
    """The size of a sort's (or topk's) unrolled network: a thread's elements (of 32 * warps lanes)
    times the compare-exchange steps along ax, times the members (64-bit ones twice)."""
    b = shape[ax].bit_length() - 1
    return per_thread(shape, warps) * b * (b + 1) // 2 * sum(2 if BYTES[d] == 8 else 1 for d in dts)


def lines_along(shape, ax):
    """The flat indices of each line of a tile of shape along axis ax, in order."""
    n, inner = shape[ax], numel(shape[ax + 1:])
    return [[o * n * inner + j * inner + i for j in range(n)]
            for o in range(numel(shape[:ax])) for i in range(inner)]


def order_stats(v, e, desc, k):
    """The first k of v sorted (desc: largest first) and their bounds (None: exact)."""
    s = sorted(v, reverse=desc)[:k]
    if not e or not any(e):
        return s, None
    lo = sorted([x - p for x, p in zip(v, e)], reverse=desc)[:k]
    hi = sorted([x + p for x, p in zip(v, e)], reverse=desc)[:k]
    return s, [max(b - x, x - a) for x, a, b in zip(s, lo, hi)]


def axis_text(ax, rank, neg):
    return str(ax - rank if neg else ax)


class Flip(Node):
    """flip(x, dim): x reversed along dim.  style: 0 dim left out where it is the last, 1 positional,
    2 negative, 3 keywords."""

    def __init__(self, a, ax, style=1):
        self.a, self.ax, self.style = a, ax, style
        self.setup(a.shape, a.dt, a.lo, a.hi)
        self.ninf, self.exact = a.ninf, a.exact

    def src(self):
        d = axis_text(self.ax, len(self.shape), self.style == 2)
        if self.style == 3:
            return 'flip(x=%s, dim=%s)' % (self.a.src(), d)
        if self.style == 0 and self.ax == len(self.shape) - 1:
            return 'flip(%s)' % self.a.src()
        return 'flip(%s, %s)' % (self.a.src(), d)

    def ev(self, cx):
        t = self.a.ev(cx)
        idx = list(range(len(t.v)))
        for line in lines_along(t.shape, self.ax):
            for j, q in zip(line, reversed(line)):
                idx[j] = q
        return T(t.shape, t.dt, [t.v[i] for i in idx], [t.e[i] for i in idx] if t.e else None)


class Sort(Node):
    """sort(x, dim, descending) of a lone tile, or topk(x, k, dim) (k given): along dim, largest first
    for topk.  style as Flip's; flag: a constexpr spelling descending (or k: kname, its spelling)."""

    def __init__(self, a, ax, desc=False, k=None, style=1, flag=None, kname=None):
        self.a, self.ax, self.desc, self.k, self.style, self.flag, self.kname = a, ax, desc, k, style, flag, kname
        shape = a.shape if k is None else a.shape[:ax] + (k,) + a.shape[ax + 1:]
        self.setup(shape, a.dt, a.lo, a.hi)
        self.exact = a.exact

    def src(self):
        x, rank = self.a.src(), len(self.shape)
        d = axis_text(self.ax, rank, self.style == 2)
        last = self.ax == rank - 1 and self.style == 0
        if self.k is not None:
            kk = self.kname or str(self.k)
            if self.style == 3:
                return 'topk(x=%s, k=%s, dim=%s)' % (x, kk, d)
            return 'topk(%s, %s)' % (x, kk) if last else 'topk(%s, %s, %s)' % (x, kk, d)
        flag = self.flag.name if self.flag is not None else 'true' if self.desc else 'false'
        if self.style == 3:
            shown = self.desc or self.flag is not None
            return 'sort(x=%s, dim=%s%s)' % (x, d, ', descending=%s' % flag if shown else '')
        if not self.desc and self.flag is None:
            return 'sort(%s)' % x if last else 'sort(%s, %s)' % (x, d)
        return 'sort(%s, %s, %s)' % (x, d, flag)

    def ev(self, cx):
        return self.order(self.a.ev(cx))

    def order(self, t):
        """The result of sorting t (a tile of a's shape)."""
        k = t.shape[self.ax] if self.k is None else self.k
        v, e = [None] * numel(self.shape), [0.0] * numel(self.shape)
        for src, dst in zip(lines_along(t.shape, self.ax), lines_along(self.shape, self.ax)):
            s, b = order_stats([t.v[i] for i in src], [t.e[i] for i in src] if t.e else None,
                               self.desc or self.k is not None, k)
            for j, i in enumerate(dst):
                v[i], e[i] = s[j], b[j] if b else 0.0
        return T(self.shape, t.dt, v, e if any(e) else None)


class Ordered(Node):
    """sort((keys, v1, ...), dim, descending) or topk((keys, v1, ...), k, dim), the inputs broadcast
    to one shape: the keys' result as Sort's; the values move with their keys in an order among
    equal keys that only the network knows, so the reference has no values for them (PickCheck
    tests where they came from).  kw: the keyword form."""

    def __init__(self, items, ax, desc=False, k=None, kw=False):
        self.items, self.ax, self.desc, self.k, self.kw = items, ax, desc, k, kw
        shape = ()
        for x in items:
            shape = bshape(shape, x.shape)
        self.full = shape
        rshape = shape if k is None else shape[:ax] + (k,) + shape[ax + 1:]
        self.res = [like(rshape, x.dt, x.lo, x.hi) for x in items]
        self.setup(rshape, items[0].dt, items[0].lo, items[0].hi)

    def src(self):
        x = '(%s)' % ', '.join(i.src() for i in self.items)
        if self.k is not None:
            return 'topk(x=%s, k=%d, dim=%d)' % (x, self.k, self.ax) if self.kw else \
                'topk(%s, %d, %d)' % (x, self.k, self.ax)
        if self.kw:
            return 'sort(x=%s, dim=%d, descending=%s)' % (x, self.ax, 'true' if self.desc else 'false')
        return 'sort(%s, %d%s)' % (x, self.ax, ', true' if self.desc else '')

    def ev_all(self, cx):
        keys = self.items[0].ev(cx)
        t = T(self.full, keys.dt, *bcast(keys, self.full))
        s = Sort(like(self.full, keys.dt, 0, 0), self.ax, self.desc, self.k).order(t)
        return [s] + [T(self.shape, x.dt, None) for x in self.items[1:]]


class PickCheck(Node):
    """where((gather(keys, i, dim) == v) & (gather(y, i, dim) == w) ..., v, FILL): v, the keys that a
    tuple sort or topk gave, where each index i it gave with them (a payload of positions along
    dim) points at a key equal to v (and at a y, another payload, equal to w), else FILL (NaN, or
    -1000 for integer keys).  Any order among equal keys passes; the reference's value is v's."""

    def __init__(self, v, keys, i, ax, pairs=(), kw=False):
        self.v, self.keys, self.i, self.ax, self.pairs, self.kw = v, keys, i, ax, list(pairs), kw
        self.setup(v.shape, v.dt, v.lo, v.hi)

    def src(self):
        g = 'gather(src=%s, index=%s, axis=%d)' if self.kw else 'gather(%s, %s, %d)'
        conds = ['(%s == %s)' % (g % (x.src(), self.i.src(), self.ax), y.src())
                 for x, y in [(self.keys, self.v)] + self.pairs]
        fill = 'nan' if self.dt in FLOATS else '(-1000)'
        return 'where(%s, %s, %s)' % (' & '.join(conds), self.v.src(), fill)

    def ev(self, cx):
        return self.v.ev(cx)


class Gather(Node):
    """gather(src, index, axis): src's element at index's value along axis, at index's coordinates
    along the others (index: exact integers in [0, src.shape[axis]), of src's shape off axis)."""

    def __init__(self, a, index, ax, kw=False):
        self.a, self.index, self.ax, self.kw = a, index, ax, kw
        assert len(index.shape) == len(a.shape) and all(
            d == ax or x == y for d, (x, y) in enumerate(zip(a.shape, index.shape))), (a.shape, index.shape, ax)
        self.setup(index.shape, a.dt, a.lo, a.hi)
        self.ninf, self.exact = a.ninf, a.exact

    def src(self):
        if self.kw:
            return 'gather(src=%s, index=%s, axis=%d)' % (self.a.src(), self.index.src(), self.ax)
        return 'gather(%s, %s, %d)' % (self.a.src(), self.index.src(), self.ax)

    def ev(self, cx):
        t, ix = self.a.ev(cx), self.index.ev(cx)
        iv = bcast(ix, self.shape)[0]
        if ix.e and any(ix.e):
            raise AssertionError('inexact gather index')
        n, L, inner = t.shape[self.ax], self.shape[self.ax], numel(self.shape[self.ax + 1:])
        src = []
        for p, j in enumerate(iv):
            if not 0 <= j < n:
                raise AssertionError('gather index %d of %d' % (j, n))
            o, rest = divmod(p, L * inner)
            src.append((o * n + j) * inner + rest % inner)
        return T(self.shape, t.dt, [t.v[q] for q in src], [t.e[q] for q in src] if t.e else None)


class Histogram(Node):
    """histogram(input, num_bins, mask): how many of input's integers (exact) equal 0 .. bins-1 where
    mask (broadcast to input) holds; others count nowhere.  An i32 tile of bins."""

    def __init__(self, a, bins, mask=None, kw=False):
        self.a, self.bins, self.mask, self.kw = a, bins, mask, kw
        self.setup((bins,), 'i32', 0, numel(a.shape))
        self.exact = True

    def src(self):
        if self.kw:
            m = ', mask=%s' % self.mask.src() if self.mask is not None else ''
            return 'histogram(input=%s, num_bins=%d%s)' % (self.a.src(), self.bins, m)
        m = ', %s' % self.mask.src() if self.mask is not None else ''
        return 'histogram(%s, %d%s)' % (self.a.src(), self.bins, m)

    def ev(self, cx):
        t = self.a.ev(cx)
        if t.e and any(t.e):
            raise Reject('histogram of inexact integers')
        m = [1] * len(t.v)
        if self.mask is not None:
            m, amb = bcast(self.mask.ev(cx), t.shape)
            if amb and any(amb):
                raise Reject('ambiguous histogram mask')
        h = [0] * self.bins
        for x, c in zip(t.v, m):
            if c and 0 <= x < self.bins:
                h[x] += 1
        return T(self.shape, 'i32', h)


class Bitcast(Node):
    """cast(x, dt, bitcast = true) between a float and the integer of its width, of exact values
    (their bits known); [lo, hi] what the caller knows of the result.  kw: the keyword form."""

    def __init__(self, a, dt, lo, hi, kw=False):
        self.a, self.kw = a, kw
        self.setup(a.shape, dt, lo, hi)
        self.exact = a.exact

    def src(self):
        if self.kw:
            return 'cast(x=%s, type=%s, bitcast=true)' % (self.a.src(), self.dt)
        return 'cast(%s, %s, bitcast = true)' % (self.a.src(), self.dt)

    def ev(self, cx):
        t = self.a.ev(cx)
        if t.e and any(t.e):
            raise Reject('the bits of an inexact value')
        if self.dt in FLOATS:
            v = [bits_float(self.dt, x) for x in t.v]
            assert all(math.isfinite(x) for x in v), 'bits of a NaN or inf'
        else:
            v = [float_bits(t.dt, x) for x in t.v]
        return T(self.shape, self.dt, v)


class SignBits(Node):
    """x's sign changed through its bits: cast(cast(x, I, bitcast = true) OP C, F, bitcast = true), I
    the integer of x's width: ^ the sign bit negates, & the other bits is abs, | the sign bit is
    -abs.  Bits moved, nothing rounded: x's bound carries (a zero's sign aside, which no output
    compares)."""

    def __init__(self, a, op, kw=False):
        self.a, self.op, self.kw = a, op, kw
        m, M = (0 if a.lo <= 0 <= a.hi else min(abs(a.lo), abs(a.hi))), max(abs(a.lo), abs(a.hi))
        lo, hi = {'^': (-a.hi, -a.lo), '&': (m, M), '|': (-M, -m)}[op]
        self.setup(a.shape, a.dt, lo, hi)
        self.ninf = a.ninf and op == '|'

    def src(self):
        it = IBITS[self.dt]
        c = OTHERBITS[it] if self.op == '&' else SIGNBIT[it]
        b = Bitcast(self.a, it, 0, 0, self.kw).src()
        return 'cast((%s %s %s), %s, bitcast = true)' % (b, self.op, c, self.dt)

    def ev(self, cx):
        t = self.a.ev(cx)
        f = {'^': operator.neg, '&': abs, '|': lambda x: -abs(x)}[self.op]
        return T(t.shape, t.dt, [f(x) for x in t.v], t.e)


# of a float's bits: (shift, mask) of the exponent and of some bits of the significand
FIELDS = {'f32': [(23, 255), (0, 1023), (13, 1023)], 'f16': [(10, 31), (0, 1023), (3, 127)],
          'bf16': [(7, 255), (0, 127)], 'f64': [(52, 2047), (0, 1023), (42, 1023)]}


class FloatField(Node):
    """(cast(x, I, bitcast = true) >> s) & m of exact x: its exponent or some bits of its significand,
    an integer from 0 to m (never the sign bit: a zero's sign may not be settled)."""

    def __init__(self, a, s, m, kw=False):
        self.a, self.s, self.m, self.kw = a, s, m, kw
        self.setup(a.shape, IBITS[a.dt], 0, m)
        self.exact = True

    def src(self):
        b = Bitcast(self.a, self.dt, 0, 0, self.kw).src()
        return '(%s & %d)' % (b if not self.s else '(%s >> %d)' % (b, self.s), self.m)

    def ev(self, cx):
        t = Bitcast(self.a, self.dt, 0, 0).ev(cx)
        return T(t.shape, t.dt, [(x >> self.s) & self.m for x in t.v])


def bits_float_node(dt, e, m, kw=False):
    """A float tile of dt in [1/8, 32) from the bits of two exact integer tiles: the exponent from
    e & 7, the significand's top bits m & 255 (127 for bf16), shifted into place, as an i32 (cast
    to i16 for f16 and bf16) or an i64 for f64, bitcast."""
    i32 = lambda x: x if x.dt == 'i32' else Cast(x, 'i32')
    base, se, mask, sm = {'f32': (124, 23, 255, 15), 'f16': (12, 10, 255, 2), 'bf16': (124, 7, 127, 0),
                          'f64': (1020, 52, 255, 44)}[dt]
    ex = Bin('+', Bin('&', i32(e), Lit(7)), Lit(base))
    mm = Bin('&', i32(m), Lit(mask))
    if dt == 'f64':
        ex, mm = Cast(ex, 'i64'), Cast(mm, 'i64')
    bits = Bin('|', Bin('<<', ex, Lit(se)), Bin('<<', mm, Lit(sm)) if sm else mm)
    if dt in ('f16', 'bf16'):
        bits = Cast(bits, 'i16')
    return Bitcast(bits, dt, 0.125, 32.0, kw)


class Ptr(Node):
    """buffer + offsets; written as `p + off`, or `p + a + b` when off = a + b."""

    def __init__(self, buf, off, split=False):
        self.buf, self.off, self.split = buf, off, split
        self.setup(off.shape, 'ptr', off.lo, off.hi)

    def src(self):
        o = self.off
        if self.split and isinstance(o, Bin) and o.op == '+':
            return '%s + %s + %s' % (self.buf.name, o.a.src(), o.b.src())
        return '%s + %s' % (self.buf.name, o.src())

    def ev(self, cx):
        t = self.off.ev(cx)
        if t.e:
            raise AssertionError('inexact offsets')
        return t


class Load(Node):
    exact = True

    def __init__(self, ptr, mask=None, other=None, kw=False):
        self.ptr, self.mask, self.other, self.kw = ptr, mask, other, kw
        b = ptr.buf
        lo, hi = b.lo, b.hi
        if other is not None:
            lo, hi = min(lo, other.lo), max(hi, other.hi)
        elif mask is not None:
            lo, hi = min(lo, 0), max(hi, 0)
        self.setup(ptr.shape, b.dt, lo, hi)
        self.ninf = other is not None and other.lo == -math.inf

    def src(self):
        p = self.ptr.src()
        if self.mask is None:
            return 'load(%s)' % p
        if self.kw:
            o = ', other=%s' % self.other.src() if self.other is not None else ''
            return 'load(%s, mask=%s%s)' % (p, self.mask.src(), o)
        o = ', %s' % self.other.src() if self.other is not None else ''
        return 'load(%s, %s%s)' % (p, self.mask.src(), o)

    def ev(self, cx):
        off = self.ptr.ev(cx).v
        b = self.ptr.buf
        data = b.data
        n = len(off)
        if self.mask is None:
            m = [1] * n
        else:
            m, amb = bcast(self.mask.ev(cx), self.shape)
            if amb:
                raise Reject('ambiguous load mask')
        if self.other is not None:
            o = convert(self.other.ev(cx), b.dt).v[0]
        else:
            o = 0.0 if b.dt in FLOATS else 0
        v = []
        for i, k in zip(off, m):
            if k:
                if not 0 <= i < b.size:
                    raise AssertionError('%s: load at %d of %d' % (b.name, i, b.size))
                v.append(data[i])
            else:
                v.append(o)
        return T(self.shape, b.dt, v)


def atomic_apply(kind, dt, old, x, cmp=None):
    """Memory after one atomic_KIND of x on old.  Float max and min order as IEEE with -0 below +0,
    and a NaN x changes nothing; cas compares bits (an f32's: -0 is not +0, a NaN may equal one)."""
    if kind == 'cas':
        return x if (bits32(old) == bits32(cmp) if dt in FLOATS else old == cmp) else old
    if kind == 'xchg':
        return x
    if kind == 'add':
        return old + x
    if dt in FLOATS:
        if x != x:
            return old
        a, b = (old, math.copysign(1.0, old)), (x, math.copysign(1.0, x))
        return x if (b > a if kind == 'max' else b < a) else old
    return {'max': max, 'min': min, 'or': operator.or_, 'xor': operator.xor}[kind](int(old), int(x))


class Atomic(Node):
    """atomic_KIND(ptr, value, mask) or atomic_cas(ptr, cmp, value, mask) whose old values are used.
    Each lane has an address of its own, which no other lane or program touches (ev asserts it), so
    the old values are deterministic: the memory's before the atomic.  A scalar atomic may come back
    to its address in a later iteration of the same program (program order: its old value is what
    the last one left).  A masked lane's old value is 0 here and undefined on the GPU: it is never
    used.  value and cmp must be exact in the memory's type (else the case is drawn again)."""

    def __init__(self, kind, ptr, value, mask=None, cmp=None, kw=False):
        self.kind, self.ptr, self.value, self.mask, self.cmp, self.kw = kind, ptr, value, mask, cmp, kw
        b = ptr.buf
        lo, hi = b.lo, b.hi
        if kind != 'add':       # what an earlier iteration of a scalar one may have left
            lo, hi = min(lo, value.lo), max(hi, value.hi)
        self.setup(ptr.shape, b.dt, lo, hi)

    def src(self):
        args = [self.ptr.src()] + ([self.cmp.src()] if self.cmp is not None else []) + [self.value.src()]
        if self.mask is not None:
            args.append(('mask=%s' if self.kw else '%s') % self.mask.src())
        return 'atomic_%s(%s)' % (self.kind, ', '.join(args))

    def ev(self, cx):
        b = self.ptr.buf
        off = self.ptr.ev(cx).v
        shape = self.ptr.shape

        def exact(node):
            t = convert(node.ev(cx), b.dt)
            if t.e and any(t.e):
                raise Reject('inexact atomic operand')
            return bcast(t, shape)[0]

        v = exact(self.value)
        c = exact(self.cmp) if self.cmp is not None else [None] * len(off)
        m, amb = bcast(self.mask.ev(cx), shape) if self.mask is not None else ([1] * len(off), None)
        if amb:
            raise Reject('ambiguous atomic mask')
        old = []
        for i, k, x, y in zip(off, m, v, c):
            if not k:
                old.append(0.0 if b.dt in FLOATS else 0)
                continue
            if not 0 <= i < b.size:
                raise AssertionError('%s: atomic at %d of %d' % (b.name, i, b.size))
            if i in b.owner and (b.owner[i] != cx.pid or shape != ()):
                raise AssertionError('%s[%d]: an atomic whose old value is used meets another' % (b.name, i))
            b.owner[i] = cx.pid
            old.append(b.want[i])
            b.want[i] = atomic_apply(self.kind, b.dt, b.want[i], x, y)
        return T(shape, b.dt, old)


# ---- statements ----

class Let:
    def __init__(self, name, node, var=False):
        self.name, self.node, self.var = name, node, var

    def lines(self, ind):
        return ['%s%s %s = %s;' % (ind, 'var' if self.var else 'let', self.name, self.node.src())]

    def run(self, cx):
        cx.env[self.name] = self.node.ev(cx)


class Split:
    """let a, b = split(node) (var: `var a, b`): a = node[..., 0], b = node[..., 1] of a tile of rank 2
    or 3 whose last axis is 2."""

    def __init__(self, names, node, var=False, kw=False):
        self.names, self.node, self.var, self.kw = names, node, var, kw

    def lines(self, ind):
        x = ('x=%s' if self.kw else '%s') % self.node.src()
        return ['%s%s %s = split(%s);' % (ind, 'var' if self.var else 'let', ', '.join(self.names), x)]

    def run(self, cx):
        t = self.node.ev(cx)
        for i, name in enumerate(self.names):
            cx.env[name] = T(t.shape[:-1], t.dt, t.v[i::2], t.e[i::2] if t.e else None)


class Assign:
    """name op= node; node's type is the variable's (checked)."""

    def __init__(self, name, op, node, like):
        self.name, self.op, self.node, self.like = name, op, node, like

    def lines(self, ind):
        return ['%s%s %s %s;' % (ind, self.name, self.op, self.node.src())]

    def run(self, cx):
        if self.op == '=':
            t = self.node.ev(cx)
        else:
            t = Bin(self.op[0], self.like, self.node).ev(cx)
        old = cx.env[self.name]
        if t.shape != old.shape:
            t = T(old.shape, t.dt, *bcast(t, old.shape))
        assert t.dt == old.dt, (self.name, t.dt, old.dt)
        cx.env[self.name] = t


class For:
    """stages: range's num_stages=N (None: not given); the interpreter's semantics do not depend on it."""

    def __init__(self, iv, lo, hi, step, body, stages=None):
        self.iv, self.lo, self.hi, self.step, self.body, self.stages = iv, lo, hi, step, body, stages

    def lines(self, ind):
        r = [self.lo.src(), self.hi.src()] if self.lo is not None else [self.hi.src()]
        if self.step is not None:
            r.append(self.step.src())
        if self.stages is not None:
            r.append('num_stages=%d' % self.stages)
        out = ['%sfor %s in range(%s) {' % (ind, self.iv, ', '.join(r))]
        for s in self.body:
            out += s.lines(ind + '    ')
        return out + [ind + '}']

    def run(self, cx):
        lo = self.lo.ev(cx).v[0] if self.lo is not None else 0
        hi = self.hi.ev(cx).v[0]
        step = self.step.ev(cx).v[0] if self.step is not None else 1
        i = lo
        while i < hi:
            cx.env[self.iv] = T((), 'i32', [i])
            for s in self.body:
                s.run(cx)
            i += step
            cx.iters += 1


class While:
    """while cond { body }: cond a scalar i1 or integer (its outer parentheses dropped, or not);
    `most` is the generator's promise of the largest trip count, which the model checks."""

    def __init__(self, cond, body, most, bare=True):
        self.cond, self.body, self.most, self.bare = cond, body, most, bare

    def lines(self, ind):
        c = self.cond.src()
        if self.bare and isinstance(self.cond, Bin) and not self.cond.rn:
            c = c[1:-1]
        out = ['%swhile %s {' % (ind, c)]
        for s in self.body:
            out += s.lines(ind + '    ')
        return out + [ind + '}']

    def run(self, cx):
        trips = 0
        while True:
            c = self.cond.ev(cx)
            if c.e:
                raise Reject('ambiguous while')
            if not c.v[0]:
                return
            if trips == self.most:
                raise AssertionError('while: more than %d trips' % self.most)
            for s in self.body:
                s.run(cx)
            trips += 1
            cx.iters += 1


class If:
    def __init__(self, cond, then, else_):
        self.cond, self.then, self.else_ = cond, then, else_

    def lines(self, ind):
        out = ['%sif %s {' % (ind, self.cond.src())]
        for s in self.then:
            out += s.lines(ind + '    ')
        if self.else_:
            out.append(ind + '} else {')
            for s in self.else_:
                out += s.lines(ind + '    ')
        return out + [ind + '}']

    def run(self, cx):
        c = self.cond.ev(cx)
        if c.e:
            raise Reject('ambiguous if')
        for s in (self.then if c.v[0] else self.else_):
            s.run(cx)


class Store:
    """store (or atomic_KIND, kind add, max, min, or, xor; max and min on f32 too) of node through ptr
    where mask holds; an atomic as a statement, its old values unused."""

    def __init__(self, ptr, node, mask=None, atomic=False, kw=False, kind='add'):
        self.ptr, self.node, self.mask, self.atomic, self.kw, self.kind = ptr, node, mask, atomic, kw, kind

    def lines(self, ind):
        f = 'atomic_' + self.kind if self.atomic else 'store'
        m = ''
        if self.mask is not None:
            m = (', mask=%s' if self.kw else ', %s') % self.mask.src()
        return ['%s%s(%s, %s%s);' % (ind, f, self.ptr.src(), self.node.src(), m)]

    def run(self, cx):
        b = self.ptr.buf
        off = self.ptr.ev(cx).v
        shape = self.ptr.shape
        t = convert(self.node.ev(cx), b.dt)
        v, e = bcast(t, shape)
        m, amb = bcast(self.mask.ev(cx), shape) if self.mask is not None else ([1] * len(off), None)
        if amb:
            raise Reject('ambiguous store mask')
        e = e or [0.0] * len(v)
        for i, k, x, y in zip(off, m, v, e):
            if not k:
                continue
            if not 0 <= i < b.size:
                raise AssertionError('%s: store at %d of %d' % (b.name, i, b.size))
            if self.atomic and self.kind != 'add':   # integers, float max and min: exact in any order
                if y:
                    raise Reject('inexact atomic %s' % self.kind)
                b.want[i] = atomic_apply(self.kind, b.dt, b.want[i], x)
            elif self.atomic:
                b.want[i] += x
                b.tol[i] += y
                b.adds[i] += 1
                b.mag[i] += abs(x)
            else:
                if b.tol[i] >= 0:
                    raise AssertionError('%s[%d] stored twice' % (b.name, i))
                b.want[i], b.tol[i] = x, y


def walk(body):
    for s in body:
        yield s
        for sub in (getattr(s, 'body', None), getattr(s, 'then', None), getattr(s, 'else_', None)):
            if sub:
                yield from walk(sub)


def drop(body, dead):
    out = []
    for s in body:
        if isinstance(s, Let) and s.name in dead or isinstance(s, Split) and s.names[0] in dead or s in dead:
            continue
        if isinstance(s, (For, While)):
            s.body = drop(s.body, dead)
        if isinstance(s, If):
            s.then, s.else_ = drop(s.then, dead), drop(s.else_, dead)
        out.append(s)
    return out


# ---- buffers and the case ----

class Buf:
    """view: 'i32' for an f32 buffer that case.txt shows as i32, so its bits are compared (-0, NaN):
    what float atomic_max/min, atomic_cas and atomic_xchg leave, and the old values they return."""

    def __init__(self, name, dt, size, mode, data=None, lo=0.0, hi=0.0):
        self.name, self.dt, self.size, self.mode = name, dt, size, mode
        self.data, self.lo, self.hi = data, lo, hi
        self.view, self.owner = None, {}
        if mode == 'out':
            self.want, self.tol = [0.0] * size, [-1.0] * size
        elif mode == 'inout':
            self.want, self.tol = list(data), [0.0] * size
            self.adds, self.mag = [0] * size, [abs(x) for x in data]


class Cx:
    def __init__(self, pid, grid, warps):
        self.env, self.pid, self.grid, self.warps = {}, pid, grid, warps
        self.iters = 0


# the values of an atomic's memory, values and compares ('signed'): few, so lanes and programs
# meet on them, with both zeros; one palette a buffer (negative, positive, mixed)
SIGNED = [[-0.0, 0.0, -1.0, -2.5, -0.25], [-0.0, 0.0, 0.5, 3.0], [-0.0, 0.0, -1.5, 2.0, -4.0, 0.75, 6.5]]


def draw_data(rng, dt, n, kind):
    """n values of dt: 'cont' uniform, 'int' small integers, 'pos' positive, 'tiny' integers
    from -2 to 2, 'signed' a palette of SIGNED ('nan': and a NaN in about one in eight)."""
    if dt in INTS:
        lo, hi = (-20, 20) if kind not in ('pos', 'tiny') else (1, 30) if kind == 'pos' else (-2, 2)
        return [rng.randint(lo, hi) for _ in range(n)], lo, hi
    if kind in ('signed', 'nan'):
        pal = rng.choice(SIGNED)
        v = [rng.choice(pal) if kind == 'signed' or rng.random() < 0.875 else math.nan for _ in range(n)]
        return v, min(pal), max(pal)
    if kind == 'int':
        lo, hi = -8.0, 8.0
        v = [float(rng.randint(-8, 8)) for _ in range(n)]
    elif kind == 'pos':
        lo, hi = 0.25, 4.0
        v = [rng.uniform(lo, hi) for _ in range(n)]
    else:
        lo, hi = -4.0, 4.0
        v = [rng.uniform(lo, hi) for _ in range(n)]
    return rounded(dt, v), lo, hi


# a second kernel in the file, which the launch must not pick
DECOY = ['kernel decoy(out: *f32, n: i32) {',
         '    let i = arange(0, 128);',
         '    store(out + i, 1.0 / cast(i, f32), i < n);   /* never launched */',
         '}']

LITS = [0.5, 0.25, 1.5, 2.0, 3.0, 0.75, 1.25, -1.0, 0.125, 4.0, -0.5, 10.0, 0.375, -2.0]


class Kernel:
    """One case: parameters, body, buffers, launch, and the expression generator."""

    def __init__(self, rng, name):
        self.rng, self.name = rng, name
        self.params = []      # source text of each parameter
        self.args = []        # ('buf', name) | ('i32', v, name) | ('f32', v, name), runtime parameters in order
        self.bufs = []
        self.defines = {}
        self.body = []
        self.attrs = []
        self.grid = [1, 1, 1]
        self.warps = 4
        self.warps_opt = 4    # 0: the kernel's @num_warps
        self.desc = []
        self.nid = 0
        self.sizes = {}       # constexprs that size tiles (BLOCK, BM, ...): spelled in reshape's shapes
        self.decoy = rng.choice([None, None, None, 'before', 'after', 'return'])
        self.fns = []         # the combine fns (CombineFn) reduce and associative_scan call
        self.fns_after = rng.random() < 0.3     # written after the kernel (a call may come before its fn)
        self.spent = 0        # the sort_cost of the sorts and topks drawn (afford)

    # -- parameters --
    def fresh(self, p='t'):
        self.nid += 1
        name = '%s%d' % (p, self.nid)
        if name in ('i1', 'i8', 'i16', 'i32', 'i64', 'f16', 'f32', 'f64'):     # type names
            return self.fresh(p)
        return name

    def buffer(self, name, dt, size, mode, kind='cont'):
        data, lo, hi = (None, 0.0, 0.0)
        if mode != 'out':
            data, lo, hi = draw_data(self.rng, dt, size, kind)
        b = Buf(name, dt, size, mode, data, lo, hi)
        self.bufs.append(b)
        self.params.append('%s: *%s' % (name, dt))
        self.args.append(('buf', name))
        return b

    def set_dt(self, b, dt):
        """An output's element type, known once the value stored into it is."""
        i = self.params.index('%s: *%s' % (b.name, b.dt))
        b.dt = dt
        self.params[i] = '%s: *%s' % (b.name, dt)

    def scalar(self, name, dt, value):
        self.params.append('%s: %s' % (name, dt))
        self.args.append((dt, value, name))
        return Param(name, dt, value)

    def const(self, name, value, dt='i32', other=None):
        """A constexpr of `value`: its default, or (given `other`, the default written
        instead) the launch's define."""
        shown = lambda x: pretty(x) if dt != 'i1' else ('true' if x else 'false')
        self.params.append('%s: const %s = %s' % (name, dt, shown(value if other is None else other)))
        if other is not None:
            self.defines[name] = int(value)
        if name in SIZES:
            self.sizes[name] = value
        return Const(name, dt, value)

    def let(self, node, var=False, p='t'):
        name = self.fresh(p)
        self.body.append(Let(name, node, var))
        n = Name(name, node)
        n.exact = n.exact and not var     # (a var may be assigned inexact values later)
        return n

    def split(self, node):
        """let a, b = split(node); the two halves' Names."""
        r = self.rng
        names = [self.fresh('a'), self.fresh('b')]
        self.body.append(Split(names, node, var=r.random() < 0.1, kw=r.random() < 0.15))
        half = like(node.shape[:-1], node.dt, node.lo, node.hi)
        half.ninf = node.ninf
        return [Name(x, half) for x in names]

    # -- random expressions --
    def leaf(self, leaves, fl=True):
        r = self.rng
        if r.random() < 0.15:
            return Lit(r.choice(LITS) if fl else r.randint(1, 5))
        return r.choice(leaves)

    def ok(self, n, shape):
        """n fits the target shape and its values stay moderate."""
        if n is None or bshape(n.shape, shape) != shape:
            return None
        cap = CAP.get(n.dt, 1)
        if not (-cap <= n.lo <= n.hi <= cap):
            return None
        return n

    def expr(self, leaves, shape, depth, reducible=True):
        """A random float expression over `leaves`, broadcastable to `shape`."""
        r = self.rng
        if depth <= 0 or r.random() < 0.2:
            return self.leaf(leaves)
        for _ in range(8):
            k = r.choices(['bin', 'un', 'minmax', 'where', 'cast', 'reduce', 'reduce2', 'idx', 'scan', 'move',
                           'topk', 'bits', 'hist'],
                          [30, 16, 7, 7, 6, 10 if reducible else 0, 3 if reducible and len(shape) >= 2 else 0,
                           2, 3 if reducible else 0, 3, 1 if reducible else 0, 2, 0.7 if reducible else 0])[0]
            n = self.try_expr(k, leaves, shape, depth, reducible)
            n = self.ok(n, shape)
            if n is not None:
                return n
        return self.leaf(leaves)

    def try_expr(self, k, leaves, shape, depth, reducible=True):
        r = self.rng
        sub = lambda: self.expr(leaves, shape, depth - 1)
        if k in ('move', 'topk'):
            return self.move(sub(), shape, leaves, k == 'topk', reducible)
        if k == 'bits':
            return self.bits(sub, shape, leaves)
        if k == 'hist':
            return self.hist(shape, leaves)
        if k == 'bin':
            a, b = sub(), sub()
            if a.weak and b.weak:
                return None
            op = r.choices(['+', '-', '*', '/', 'rn', '%'], [4, 3, 4, 2, 1, 1])[0]
            if op in ('/', 'rn', '%'):
                if not (b.lo > 0.25 or b.hi < -0.25) or promote(a.dt, a.weak, b.dt, b.weak) not in FLOATS:
                    return None
                return Bin('%' if op == '%' else '/', a, b, rn=op == 'rn')
            return Bin(op, a, b)
        if k == 'un':
            a = sub()
            if a.weak or a.dt not in FLOATS:
                return None
            fn = r.choice(['neg', 'abs', 'exp', 'exp2', 'log', 'log2', 'sqrt', 'rsqrt', 'sigmoid',
                           'sin', 'cos', 'tanh', 'erf', 'floor', 'ceil'])
            if a.dt == 'f64' and fn not in ('neg', 'abs', 'sqrt', 'floor', 'ceil'):
                return None     # no f64 exp/log/sin/... on the GPU (an error), rsqrt.approx.f64
            lim = 8.0 if a.dt == 'f16' else 12.0
            if fn in ('exp', 'exp2') and not (-60 < a.lo and a.hi < lim):
                return None
            if fn in ('log', 'log2', 'rsqrt') and a.lo < 0.05:
                return None
            if fn == 'sqrt' and a.lo < 0:
                return None
            if fn == 'sigmoid' and not (-lim < a.lo and a.hi < 60):
                return None
            return Un(fn, a)
        if k == 'minmax':
            a, b = sub(), sub()
            if a.weak and b.weak:
                return None
            return MinMax(r.choice(['maximum', 'minimum']), a, b)
        if k == 'where':
            a, b, c, d = sub(), sub(), sub(), sub()
            if c.weak and d.weak or a.weak and b.weak:
                return None
            if promote(c.dt, c.weak, d.dt, d.weak) not in FLOATS:
                return None
            return Where(Bin(r.choice(['<', '>', '<=', '>=']), c, d), a, b, kw=r.random() < 0.2)
        if k == 'cast':
            a = sub()
            if a.weak:
                return None
            dt = r.choice([d for d in FLOATS if d != a.dt])
            return Cast(a, dt)
        if k == 'idx' and len(shape) == 1:
            # a 1-element tile from a scalar: s[None]
            a = self.expr(leaves, (), depth - 1) if r.random() < 0.5 else None
            if a is None or a.shape != () or a.weak:
                return None
            return Index(a, [None])
        if k == 'scan' and len(shape) >= 1:
            a = sub()
            if a.weak or a.shape == () or a.ninf or numel(a.shape) > 1024:
                return None
            return Scan(a, r.randrange(len(a.shape)), r.random() < 0.3, r.choice([0, 1]))
        if k in ('reduce', 'reduce2') and len(shape) >= 1:
            a = sub()
            if a.weak or a.shape == () or a.ninf:
                return None
            fn = r.choices(['sum', 'max', 'min', 'argmax', 'argmin'], [5, 3, 3, 1, 1])[0]
            ax = r.randrange(len(a.shape))
            style = r.choice([0, 0, 1, 2])
            n = Reduce(fn, a, ax, style)
            if fn in ('argmax', 'argmin'):
                n = Cast(n, 'f32')
            if k == 'reduce2' and len(n.shape) >= 1:
                # a reduction of the reduction; both axes go back as None
                ax2 = r.randrange(len(n.shape))
                n = Reduce(r.choice(['sum', 'max', 'min']), n, ax2, style)
                if not n.shape:
                    return n
                pat = [':'] * (len(n.shape) + 2)
                pat[ax] = pat[ax2 if ax2 < ax else ax2 + 1] = None
                return Index(n, pat)
            if n.shape:
                pat = [':'] * len(n.shape)
                pat.insert(ax, None)
                n = Index(n, pat)
            return n
        return None

    def move(self, a, shape, leaves, topk=False, reducible=True):
        """a (broadcastable to shape) flipped, sorted or gathered along an axis of its own, or its
        topk: k = 1 (the largest, broadcast back), all (sorted, largest first), or between (then
        its sum, max or min, broadcast back).  A gather takes as many positions as a has along
        the axis, or one (broadcast back), or where a has one, as many as shape has there (a
        broadcast by gather), or another count (then reduced as topk's).  Sorts (not where
        reducible is false) within the kernel's budget (afford), gathers of tiles of at most
        PERTHREAD elements a thread."""
        r = self.rng
        if a.weak or not a.shape or bshape(a.shape, shape) != shape:
            return None
        S = a.shape
        axes = [i for i, d in enumerate(S) if d > 1]
        ax = r.choice(axes) if axes and r.random() < 0.9 else r.randrange(len(S))
        n, style = S[ax], r.choice([0, 0, 1, 2, 3])
        how = 'topk' if topk else r.choices(['flip', 'sort', 'gather'], [4, 3 if reducible else 0, 3])[0]
        big = a.ninf or how in ('sort', 'topk') and not self.afford(sort_cost(S, ax, [a.dt], self.warps))
        if how == 'flip':
            return Flip(a, ax, style)
        if how == 'sort':
            if big:
                return None
            desc, flag = r.random() < 0.4, None
            if r.random() < 0.1 and len(self.defines) < MAXDEF:     # a constexpr: its default or the define
                flag = self.const(self.fresh('DESC'), desc, 'i1', other=(not desc) if r.random() < 0.5 else None)
            return Sort(a, ax, desc, style=style, flag=flag)
        red = lambda t: Index(Reduce(r.choice(['sum', 'max', 'min']), t, ax), [None if i == ax else ':'
                                                                           for i in range(len(S))]) \
            if len(S) > 1 else Reduce(r.choice(['sum', 'max', 'min']), t, ax)
        if how == 'topk':
            if big:
                return None
            K = r.choice([1, n, pow2(r, 1, n)])
            names = dims(self, (K,)) if r.random() < 0.3 else None
            t = Sort(a, ax, k=K, style=style, kname=names[0] if names else None)
            return t if K in (1, n) else red(t)
        tl = shape[len(shape) - len(S) + ax]
        if n == tl:
            L = n if r.random() < 0.7 else 1 if r.random() < 0.3 else pow2(r, 1, 2 * n)
        else:
            L = tl if r.random() < 0.7 else 1
        ishape = S[:ax] + (L,) + S[ax + 1:]
        if max(per_thread(ishape, self.warps), per_thread(S, self.warps)) > PERTHREAD or \
                numel(S) * BYTES[a.dt] > GATHERMAX or a.ninf and L not in (1, tl):
            return None
        g = Gather(a, self.gather_index(ishape, ax, n, leaves), ax, kw=r.random() < 0.15)
        return g if L in (1, tl) else red(g)

    def gather_index(self, ishape, ax, n, leaves):
        """An index for gather along ax of a source of n there: an exact integer tile of ishape in
        [0, n): the positions scrambled (row-major index times an odd number, plus one, & (n - 1)),
        a permutation or reversal along the axis, or data (an exact float leaf truncated, plus the
        positions, & (n - 1)); mostly i32, else i64, i16 or i8."""
        r = self.rng
        flat = flat_offsets(ishape)
        pos = Arange(0, ishape[ax])
        if len(ishape) > 1:
            pos = Index(pos, [':' if i == ax else None for i in range(len(ishape))])
        data = [x for x in leaves if x.exact and x.dt in FLOATS and not x.ninf and x.shape and
                bshape(x.shape, ishape) == ishape]
        c = r.random()
        if c < 0.3 and data:
            e = Bin('+', Cast(r.choice(data), 'i32'), flat if r.random() < 0.5 else Lit(r.randint(0, 9)))
        elif c < 0.5:
            e = Bin('+', Bin('*', flat, Lit(r.choice([1, 3, 5, 7, 13]))), Lit(r.randint(0, 9)))
        elif c < 0.7:
            e = Bin('-', Lit(n - 1), pos)
        else:
            e = Bin('+', Bin('*', pos, Lit(r.choice([1, 3, 5, 7]))), Lit(r.randint(0, n)))
        e = Bin('&', e, Lit(n - 1))
        if e.shape != ishape:
            e = Bin('+', e, Full(ishape, 0, 'i32', zeros=True))
        c = r.random()
        if c < 0.12:
            e = Cast(e, 'i64')
        elif c < 0.2:
            e = Cast(e, 'i16' if n > 128 or r.random() < 0.5 else 'i8')
        return e

    def bits(self, sub, shape, leaves):
        """A float through its bits: its sign flipped, cleared or set (SignBits, any float); the
        exponent or some bits of the significand of an exact leaf (FloatField), as f32 or f16; or a
        float built from bits (bits_float_node) of the positions or of exact leaves truncated."""
        r = self.rng
        kw = r.random() < 0.15
        c = r.random()
        exact = [x for x in leaves if x.exact and x.dt in FLOATS and not x.weak and not x.ninf]
        if c < 0.45 or c < 0.7 and not exact:
            a = sub()
            if a.weak or a.dt not in FLOATS:
                return None
            return SignBits(a, r.choice(['^', '^', '&', '|']), kw)
        if c < 0.7:
            x = r.choice(exact)
            s, m = r.choice(FIELDS[x.dt])
            return Cast(FloatField(x, s, m, kw), r.choice(['f32', 'f32', 'f16']))
        if not shape:
            return None
        ints = [flat_offsets(shape)] + [Cast(x, 'i32') for x in exact if x.shape and bshape(x.shape, shape) == shape]
        e, m = r.choice(ints), r.choice(ints)
        if r.random() < 0.5:
            e = Bin('>>', e, Lit(r.randint(1, 4)))
        if r.random() < 0.5:
            m = Bin('*', m, Lit(r.choice([3, 5, 37])))
        return bits_float_node(r.choice(FLOATS), e, m, kw)

    def hist(self, shape, leaves):
        """histogram of exact integers (exact leaves truncated, or the positions scrambled), B bins
        for B the length of an axis of shape, under a comparison of exact data now and then; as f32,
        broadcast along that axis."""
        r = self.rng
        axes = [i for i, d in enumerate(shape) if d > 1]
        if not axes or per_thread(shape, self.warps) > PERTHREAD:
            return None
        ax = r.choice(axes)
        B = shape[ax]
        exact = [x for x in leaves if x.exact and x.dt in FLOATS and not x.ninf and x.shape]
        if exact and r.random() < 0.6:
            x = Cast(r.choice(exact), 'i32')
            if r.random() < 0.5:
                x = Bin(r.choice(['+', '*']), x, Lit(r.randint(1, 5)))
        else:
            x = Bin('%', Bin('+', Bin('*', flat_offsets(shape), Lit(r.choice([1, 3, 5, 7]))), Lit(r.randint(0, 9))),
                    Lit(r.choice([B // 2 + 1, B, B + 3, 2 * B])))
        m = None
        if exact and r.random() < 0.3:
            m = Bin(r.choice(['>', '<=']), r.choice(exact), Lit(r.choice([0.5, -1.0, 0.0, 2.0])))
            full = bshape(x.shape, m.shape)
            if full != x.shape:     # the mask broadcasts to the input, not the other way round
                x = Bin('+', x, Full(full, 0, 'i32', zeros=True))
        h = Cast(Histogram(x, B, m, kw=r.random() < 0.15), 'f32')
        return Index(h, [':' if i == ax else None for i in range(len(shape))]) if len(shape) > 1 else h

    def afford(self, cost):
        """Whether a sort of sort_cost `cost` fits SORTCOST and what is left of the kernel's
        SORTBUDGET (then spent, whether or not the sort is kept)."""
        if cost > SORTCOST or self.spent + cost > SORTBUDGET:
            return False
        self.spent += cost
        return True

    def int_expr(self, leaves, shape, depth):
        """A random i32 expression over integer leaves (index arithmetic); now and then one of them
        flipped, sorted or gathered."""
        r = self.rng
        if depth <= 0 or r.random() < 0.25:
            return self.leaf(leaves, fl=False)
        if r.random() < 0.04:
            n = self.ok(self.move(self.int_expr(leaves, shape, depth - 1), shape, []), shape)
            if n is not None:
                return n
        for _ in range(8):
            k = r.choice(['+', '-', '*', '%', '/', '&', '^', '>>', 'minmax', 'where', 'abs'])
            a, b = self.int_expr(leaves, shape, depth - 1), self.int_expr(leaves, shape, depth - 1)
            if a.weak and b.weak:
                continue
            if k in ('%', '/'):
                n = Bin(k, a, Lit(r.randint(2, 9)))
            elif k in ('&', '^'):
                n = Bin(k, a, Lit(r.choice([1, 3, 7, 15, 12])))
            elif k == '>>':
                n = Bin(k, a, Lit(r.randint(1, 3)))
            elif k == 'minmax':
                n = MinMax(r.choice(['maximum', 'minimum']), a, b)
            elif k == 'where':
                n = Where(Bin(r.choice(['<', '>=', '==', '!=']), a, b), a, b)
            elif k == 'abs':
                if a.weak:
                    continue
                n = Un('abs', a)
            else:
                n = Bin(k, a, b)
            if self.ok(n, shape) is not None:
                return n
        return self.leaf(leaves, fl=False)

    # -- the launch --
    def pick_warps(self):
        r = self.rng
        self.warps = r.choices([1, 2, 4, 8, 16, 32], [3, 3, 5, 3, 3, 1])[0]
        how = r.random()
        if how < 0.3:
            self.attrs.append('@num_warps(%d)' % self.warps)
            self.warps_opt = 0
        elif how < 0.4:
            self.attrs.append('@num_warps(%d)' % r.choice([1, 2, 8]))   # the launch option wins
            self.warps_opt = self.warps
        else:
            self.warps_opt = self.warps
        if r.random() < 0.15:
            self.attrs.append('@fp_fusion(false)')

    def kernel_lines(self):
        lines = self.attrs + ['kernel %s(%s) {' % (self.name, ', '.join(self.params))]
        for s in self.body:
            lines += s.lines('    ')
        if self.decoy == 'return':
            lines.append('    return;')
        return lines + ['}']

    def fn_lines(self, text):
        """The combine fns the kernel's text calls (and the helpers they call), each once."""
        out, used = [], set()
        for f in self.fns:
            if re.search(r'\b%s\b' % f.name, text):
                used.add(f.name)
                used.update(f.deps)
        for f in self.fns:
            if f.name in used:
                out += f.lines()
        return out

    def source(self):
        lines = ['// %s' % ' '.join(self.desc)]
        if self.decoy == 'before':
            lines += DECOY
        kern = self.kernel_lines()
        fns = self.fn_lines('\n'.join(kern))
        lines += (kern + fns) if self.fns_after else (fns + kern)
        if self.decoy == 'after':
            lines += DECOY
        return '\n'.join(lines) + '\n'

    def prune(self):
        """Drop the lets nothing reads (tilec would warn), until none is left; a result of a
        reduce or associative_scan nothing reads becomes `_` (the let goes when all do)."""
        while True:
            text = '\n'.join(self.kernel_lines())
            once = lambda x: len(re.findall(r'\b%s\b' % x, text)) == 1
            dead = {s.name for s in walk(self.body) if isinstance(s, Let) and not s.var and
                    not isinstance(s.node, Atomic) and once(s.name)}
            dead |= {s.names[0] for s in walk(self.body) if isinstance(s, Split) and
                     all(once(x) for x in s.names)}
            for s in walk(self.body):
                if isinstance(s, LetMulti):
                    s.names = ['_' if x != '_' and once(x) else x for x in s.names]
                    if all(x == '_' for x in s.names):
                        dead.add(s)
            if not dead:
                return
            self.body = drop(self.body, dead)

    def evaluate(self):
        gx, gy, gz = self.grid
        for z in range(gz):
            for y in range(gy):
                for x in range(gx):
                    cx = Cx((x, y, z), (gx, gy, gz), self.warps)
                    for s in self.body:
                        s.run(cx)

    def finish_outputs(self):
        """Tolerances from the bounds; atomics add their order's roundings; reject loose outputs."""
        for b in self.bufs:
            if b.mode == 'in':
                continue
            if b.mode == 'inout':
                for i in range(b.size):
                    if b.adds[i] and b.dt in FLOATS:
                        b.tol[i] += (b.adds[i] + 1) * U[b.dt] * b.mag[i] + FLOOR[b.dt]
            written = [(w, t) for w, t in zip(b.want, b.tol) if t >= 0]
            if b.dt not in FLOATS or b.view or not written:
                b.tol = [t if t < 0 else float(t) for t in b.tol]
                continue
            rms = math.sqrt(math.fsum(w * w for w, _ in written) / len(written))
            for w, t in written:
                if t > LOOSE * (abs(w) + rms):
                    raise Reject('loose bound %g for %g (rms %g)' % (t, w, rms))
            b.tol = [t if t <= 0 else 2 * t for t in b.tol]

    def write(self, d):
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, 'kernel.tile'), 'w') as f:
            f.write(self.source())
        lines = ['# %s' % ' '.join(self.desc),
                 'kernel %s' % self.name,
                 'grid %d %d %d' % tuple(self.grid),
                 'warps %d %d' % (self.warps_opt, self.warps)]
        for k, v in self.defines.items():
            lines.append('define %s %d' % (k, v))
        for b in self.bufs:
            lines.append('buffer %s %s %d %s' % (b.name, b.view or b.dt, b.size, b.mode))
            if b.view:
                b.want = [float(bits32(x)) for x in b.want]
            elif b.mode != 'in' and b.dt not in FLOATS:
                b.want = [float(x) for x in b.want]
            if b.mode != 'out':
                with open(os.path.join(d, b.name + '.bin'), 'wb') as f:
                    f.write(to_bytes(b.dt, b.data))
            if b.mode != 'in':
                with open(os.path.join(d, b.name + '.want'), 'wb') as f:
                    f.write(array('d', b.want).tobytes())
                with open(os.path.join(d, b.name + '.tol'), 'wb') as f:
                    f.write(array('d', b.tol).tobytes())
        for a in self.args:
            if a[0] == 'buf':
                lines.append('arg buffer %s' % a[1])
            else:
                lines.append('arg %s %r %s' % a)
        with open(os.path.join(d, 'case.txt'), 'w') as f:
            f.write('\n'.join(lines) + '\n')


# ---- reduce and associative_scan with combine fns ----
#
# reduce(input, axis, combine_fn) and associative_scan(input, axis, combine_fn, reverse) of a tile or
# a tuple of up to 16 tiles and scalars broadcast to one shape; the combine fn (emitted once per
# kernel, Kernel.fns) is a product of parts, each combining its own members:
#   Mono     add (f32, f64, i32, i64), max and min (maximum/minimum, where, a helper fn) on any type,
#            xor, or, and on integers and i1
#   Arg      (value, key): the largest (smallest) value, ties to the smaller key -- the first index
#   Welford  (mean, M2, count) of f32 values, the count f32 or i32 (reduce)
#   Affine   (a, b): x -> a x + b composed, earlier on the right (scan): f32 with |a| <= 0.5, or i32
#            bounded (a in -1, 1: signed overflow is undefined on the GPU)
# The reference combines each part along the axis in its own way: exactly where the part is exact
# (max, min, bitwise, argmax, integers), else with the bound of any order (reduce: the GPU folds a
# thread's elements, then a butterfly, then warps, as sum) or of the butterfly (scan, cg_scan.c).

# what a combine fn's names may not be: the types, the keywords, the built-ins (lower.c reserved_name)
RESERVED = set(FLOATS + INTS) | {
    'kernel', 'fn', 'let', 'var', 'const', 'for', 'in', 'if', 'else', 'while', 'return', 'true', 'false',
    'None', 'program_id', 'num_programs', 'arange', 'zeros', 'full', 'load', 'store', 'dot', 'sum', 'max',
    'min', 'argmax', 'argmin', 'cumsum', 'sigmoid', 'maximum', 'minimum', 'clamp', 'fma', 'where', 'div_rn',
    'cast', 'cdiv', 'trans', 'permute', 'reshape', 'join', 'split', 'interleave', 'rand', 'randn', 'randint',
    'randint4x', 'range', 'inf', 'nan', 'atomic_cas', 'reduce', 'associative_scan', 'exp', 'exp2', 'log',
    'log2', 'sqrt', 'rsqrt', 'abs', 'sin', 'cos', 'tanh', 'erf', 'floor', 'ceil', 'cumprod', 'xor_sum', 'flip',
    'sort', 'topk', 'gather', 'histogram'} | {
    'atomic_' + a for a in ('add', 'max', 'min', 'xchg', 'and', 'or', 'xor')}
COMBINE = 0.26      # how often a kernel of vec, mat, cube or dot adds reduce or associative_scan
BYTES = {'i1': 1, 'i8': 1, 'i16': 2, 'f16': 2, 'bf16': 2, 'i32': 4, 'f32': 4, 'i64': 8, 'f64': 8}


def wrap(dt, x):
    """x wrapped to the integer type dt (two's complement)."""
    m = 1 << BITS[dt]
    x %= m
    return x - m if x >= m >> 1 and dt != 'i1' else x


def in_range(dt, v):
    if dt in INTS and dt != 'i1':
        lim = 1 << (BITS[dt] - 1)
        return all(-lim <= x < lim for x in v)
    return True


class CombineFn:
    """fn NAME(params) { let ...; return ...; }: a combine fn, or a helper one calls (deps: the
    helpers this one calls, written with it)."""

    def __init__(self, name, params, lets, rets, deps=()):
        self.name, self.params, self.lets, self.rets, self.deps = name, params, lets, rets, list(deps)
        self.params_extra = []      # while built: parameters past the 2k, with defaults (Mono.body)
        for x in params + [x for x, _ in lets]:
            x = x.split(' = ')[0]
            assert x.isidentifier() and x not in RESERVED, x

    def lines(self):
        head = 'fn %s(%s) {' % (self.name, ', '.join(self.params))
        ret = 'return %s;' % ', '.join(self.rets)
        if not self.lets and len(head) + len(ret) < 110:
            return ['%s %s }' % (head, ret)]
        return [head] + ['    let %s = %s;' % x for x in self.lets] + ['    ' + ret, '}']


class Namer:
    """A combine fn's names: parameter pairs (earlier, later) from a base and the fn's suffixes, and
    its own lets, none twice, none reserved."""

    def __init__(self, rng):
        self.rng, self.used = rng, set()
        self.sfx = rng.choice([('1', '2'), ('1', '2'), ('1', '2'), ('_a', '_b'), ('0', '1'), ('L', 'R'),
                               ('_l', '_r')])

    def ok(self, *names):
        return all(x.isidentifier() and x not in RESERVED and x not in self.used for x in names)

    def pair(self, bases):
        for b in self.rng.sample(bases, len(bases)) + [bases[0] + c for c in 'xyzuvw']:
            a, c = b + self.sfx[0], b + self.sfx[1]
            if self.ok(a, c):
                self.used |= {a, c}
                return a, c
        raise AssertionError(bases)

    def local(self, base):
        for x in [base] + [base + c for c in 'xyzuvw'] + [base + str(i) for i in range(3, 99)]:
            if self.ok(x):
                self.used.add(x)
                return x
        raise AssertionError(base)


class Mono:
    """One member combined on its own: add, max, min, xor, or, and."""
    BASES = {'add': ['s', 'acc', 'tot', 'sum_', 'x', 'a'], 'max': ['m', 'hi', 'mx', 'max_', 'top'],
             'min': ['lo', 'mn', 'min_', 'low'], 'xor': ['h', 'bits', 'x', 'f'], 'or': ['any_', 'bits', 'o'],
             'and': ['all_', 'bits', 'msk']}

    def __init__(self, op, item):
        self.op, self.items = op, [item]

    def names(self, nm):
        a, b = nm.pair(self.BASES[self.op])
        return [a], [b]

    def body(self, k, nm, L, R, fn):
        r, op = k.rng, self.op
        a, b = L[0], R[0]
        if op == 'add':
            c = r.random()
            if c < 0.15:        # a parameter past the 2k with its default
                one = nm.local('one')
                fn.params_extra.append('%s = 1' % one)
                return [], ['%s + %s * %s' % (a, b, one)]
            return [], ['%s + %s' % ((a, b) if c < 0.8 else (b, a))]
        if op in ('xor', 'or', 'and'):
            return [], ['%s %s %s' % (a, {'xor': '^', 'or': '|', 'and': '&'}[op], b)]
        f = 'maximum' if op == 'max' else 'minimum'
        how = r.choices(['call', 'where', 'helper', 'let'], [5, 2, 1, 1])[0]
        if how == 'where':
            return [], ['where(%s %s %s, %s, %s)' % (a, '>' if op == 'max' else '<', b, a, b)]
        if how == 'helper':     # a combine fn may call another fn (inlined there too)
            h = k.fresh('pick')
            k.fns.append(CombineFn(h, ['u', 'v'], [], ['%s(u, v)' % f]))
            fn.deps.append(h)
            return [], ['%s(%s, %s)' % (h, a, b)]
        if how == 'let':
            t = nm.local('best' if op == 'max' else 'least')
            return [(t, '%s(%s, %s)' % (f, a, b))], [t]
        return [], ['%s(%s, %s)' % (f, a, b)]

    def static(self, n, scan):
        x = self.items[0]
        if self.op == 'add':
            return [(min(x.lo, n * x.lo), max(x.hi, n * x.hi))]
        if self.op in ('max', 'min'):
            return [(x.lo, x.hi)]
        if x.dt == 'i1':
            return [(0, 1)]
        return [interval('^', x, x)]

    def red(self, cols, n, warps, tile_n):
        (v, e), dt, op = cols[0], self.items[0].dt, self.op
        if op == 'add':
            if dt in FLOATS:
                return [reduce_group('sum', dt, v, e, warps, tile_n)]
            s = sum(v)
            if not in_range(dt, [s]):
                raise AssertionError('%s sum out of range' % dt)
            return [(s, sum(e) if e else 0.0)]
        if op in ('max', 'min'):
            return [((max if op == 'max' else min)(v), max(e) if e else 0.0)]
        if e and any(e):
            raise Reject('inexact %s' % op)
        f = {'xor': operator.xor, 'or': operator.or_, 'and': operator.and_}[op]
        acc = v[0]
        for x in v[1:]:
            acc = f(acc, x)
        return [(acc, 0.0)]

    def scan(self, cols, n):
        (v, e), dt, op = cols[0], self.items[0].dt, self.op
        out, err = [], []
        if op == 'add' and dt in FLOATS:
            # the butterfly's sums, as scan_prefix, running: exact where every partial sum is
            bits, s, a, se, d = n.bit_length(), 0.0, 0.0, 0.0, 1
            for j, x in enumerate(v):
                s, a, se = s + x, a + abs(x), se + (e[j] if e else 0.0)
                d = max(d, x.as_integer_ratio()[1])
                if math.isinf(a):
                    raise Reject('scan over inf')
                out.append(s)
                err.append(0.0 if not e and a * d < 2 ** 24 else
                           se + (2 * bits + 4) * U[dt] * a + FLOOR[dt] * n)
            return [(out, err)]
        if op in ('xor', 'or', 'and') and e and any(e):
            raise Reject('inexact %s' % op)
        f = {'add': operator.add, 'max': max, 'min': min, 'xor': operator.xor, 'or': operator.or_,
             'and': operator.and_}[op]
        acc, ae = v[0], (e[0] if e else 0.0)
        for j, x in enumerate(v):
            if j:
                acc = f(acc, x)
                p = e[j] if e else 0.0
                ae = ae + p if op == 'add' else max(ae, p)
            out.append(acc)
            err.append(ae)
        if not in_range(dt, out):
            raise AssertionError('%s running sum out of range' % dt)
        return [(out, err)]


class Arg:
    """(value, key): the largest (smallest) value, ties to the smaller key (an index along the axis,
    so the first one; reversed keys: the last one)."""

    def __init__(self, which, v, key):
        self.which, self.items = which, [v, key]

    def names(self, nm):
        v = nm.pair(['v', 'val', 'best', 'x'])
        key = nm.pair(['k', 'key', 'idx', 'at', 'pos'])
        return [v[0], key[0]], [v[1], key[1]]

    def body(self, k, nm, L, R, fn):
        r = k.rng
        (v1, k1), (v2, k2) = L, R
        c = '>' if self.which == 'max' else '<'
        if r.random() < 0.7:
            cond = '%s %s %s || (%s == %s && %s < %s)' % (v2, c, v1, v2, v1, k2, k1)
        else:
            cond = '(%s %s %s) | ((%s == %s) & (%s < %s))' % (v2, c, v1, v2, v1, k2, k1)
        if r.random() < 0.8:
            t = nm.local(r.choice(['take', 'later', 'swap']))
            return [(t, cond)], ['where(%s, %s, %s)' % (t, v2, v1), 'where(%s, %s, %s)' % (t, k2, k1)]
        return [], ['where(%s, %s, %s)' % (cond, v2, v1), 'where(%s, %s, %s)' % (cond, k2, k1)]

    def static(self, n, scan):
        v, key = self.items
        return [(v.lo, v.hi), (key.lo, key.hi)]

    def better(self, x, kx, y, ky):
        return (x > y if self.which == 'max' else x < y) or (x == y and kx < ky)

    def red(self, cols, n, warps, tile_n):
        (v, e), (key, ke) = cols
        if ke and any(ke):
            raise AssertionError('inexact keys')
        best = 0
        for j in range(1, n):
            if self.better(v[j], key[j], v[best], key[best]):
                best = j
        if e:   # another value within the bounds could win (an equal one too, unless both are exact)
            x, p = v[best], e[best]
            for j in range(n):
                if j != best and abs(v[j] - x) <= p + e[j] and (v[j] != x or p + e[j] > 0):
                    raise Reject('argmax too close to call')
        return [(v[best], e[best] if e else 0.0), (key[best], 0.0)]

    def scan(self, cols, n):
        (v, e), (key, ke) = cols
        if e and any(e):
            raise Reject('inexact running argmax')
        best, ov, ok_ = 0, [], []
        for j in range(n):
            if self.better(v[j], key[j], v[best], key[best]):
                best = j
            ov.append(v[best])
            ok_.append(key[best])
        return [(ov, [0.0] * n), (ok_, [0.0] * n)]


class Welford:
    """(mean, M2, count) of f32 values (the count f32 or i32), merged as Chan et al.:
    n = n1 + n2, d = m2 - m1, mean = m1 + d n2 / n, M2 = M2_1 + M2_2 + d^2 n1 n2 / n."""

    def __init__(self, x, m2, cnt):
        self.items = [x, m2, cnt]

    def names(self, nm):
        ps = [nm.pair(b) for b in (['mean', 'mu', 'm'], ['m2_', 'q', 'ss', 'var'], ['n', 'cnt', 'count', 'w'])]
        return [p[0] for p in ps], [p[1] for p in ps]

    def body(self, k, nm, L, R, fn):
        (m1, q1, n1), (m2, q2, n2) = L, R
        n, d, w = nm.local('n'), nm.local('d'), nm.local('w')
        if self.items[2].dt == 'f32':
            lets = [(n, '%s + %s' % (n1, n2)), (d, '%s - %s' % (m2, m1)), (w, '%s / %s' % (n2, n))]
            return lets, ['%s + %s * %s' % (m1, d, w), '%s + %s + %s * %s * (%s * %s)' % (q1, q2, d, d, n1, w), n]
        lets = [(n, '%s + %s' % (n1, n2)), (d, '%s - %s' % (m2, m1)),
                (w, 'cast(%s, f32) / cast(%s, f32)' % (n2, n))]
        return lets, ['%s + %s * %s' % (m1, d, w), '%s + %s + %s * %s * (cast(%s, f32) * %s)' % (q1, q2, d, d, n1, w),
                      n]

    def static(self, n, scan):
        x = self.items[0]
        return [(x.lo, x.hi), (0.0, n * (x.hi - x.lo) ** 2), (n, n)]

    def red(self, cols, n, warps, tile_n):
        (v, e), (z, _), (c, _) = cols
        assert all(x == 0 for x in z) and all(x == 1 for x in c)
        mean = math.fsum(v) / n
        m2 = math.fsum((x - mean) ** 2 for x in v)
        u, me = U['f32'], (max(e) if e else 0.0)
        X = max(map(abs, v)) + me
        # the merges' depth D as sum's (reduce_group); a mean's error a weighted average of its
        # parts' plus 13 roundings of X a merge; d's twice that.  The terms d^2 n1 n2 / n of all
        # merges add up to M2, and their n1 n2 / n to at most n (bits + 2) (a chain's 1 each, a
        # butterfly level's n / 2), so d's errors move M2 by at most 2 delta sqrt(M2 n (bits + 2))
        # (Cauchy-Schwarz) + n (bits + 2) delta^2; the terms' own roundings 8 u M2, the adds'
        # 2 u M2 a level (a subset's M2 is no larger than the whole's)
        D = min(n, max(8, -(-tile_n // 32))) + n.bit_length() + warps + 8
        eps = 13 * u * X * D + me
        delta = 2 * eps + 2 * u * X
        B = n * (n.bit_length() + 2)
        big = (math.sqrt(m2) + math.sqrt(n) * me) ** 2
        em2 = 2 * delta * math.sqrt(big * B) + B * delta * delta + (2 * D + 16) * u * big
        return [(mean, eps + FLOOR['f32'] * D), (m2, em2 + FLOOR['f32'] * n * D), (n, 0.0)]


class Affine:
    """(a, b), the map x -> a x + b; a later (a2, b2) after an earlier (a1, b1) is (a2 a1, a2 b1 + b2).
    Not commutative: scans only.  f32 with |a| <= 0.5 (bounded, the products fade), or i32 with a = +-1."""

    def __init__(self, a, b):
        self.items = [a, b]

    def names(self, nm):
        a = nm.pair(['a', 'mul', 'scale', 'g'])
        b = nm.pair(['b', 'off', 'c', 'y'])
        return [a[0], b[0]], [a[1], b[1]]

    def body(self, k, nm, L, R, fn):
        r = k.rng
        (a1, b1), (a2, b2) = L, R
        pa = '%s * %s' % ((a2, a1) if r.random() < 0.7 else (a1, a2))
        pb = '%s * %s + %s' % (a2, b1, b2) if r.random() < 0.7 else '%s + %s * %s' % (b2, a2, b1)
        return [], [pa, pb]

    def static(self, n, scan):
        a, b = self.items
        if a.dt == 'i32':
            big = 2 ** 31 if a.lo < -1 or a.hi > 1 else n * max(abs(b.lo), abs(b.hi))
            return [(min(a.lo, -1), max(a.hi, 1)) if big < 2 ** 31 else (-2 ** 31, 2 ** 31 - 1), (-big, big)]
        am = max(abs(a.lo), abs(a.hi))
        bm = max(abs(b.lo), abs(b.hi)) / (1 - am)
        return [(-am, am), (-bm, bm)]

    def scan(self, cols, n):
        (av, ae), (bv, be) = cols
        dt = self.items[0].dt
        if dt == 'i32':
            if ae and any(ae) or be and any(be):
                raise Reject('inexact i32 affine')
            A, B, oa, ob = 1, 0, [], []
            for a, b in zip(av, bv):
                A, B = a * A, a * B + b
                if max(abs(A), abs(B)) >= 2 ** 31:
                    raise Reject('i32 affine overflows')   # undefined on the GPU
                oa.append(A)
                ob.append(B)
            return [(oa, [0.0] * n), (ob, [0.0] * n)]
        assert dt == 'f32', dt
        # the butterfly: a term's product passes at most bits levels, each multiplying by a block's
        # product (as many roundings as the block's level) and adding; M (M') the magnitudes of the
        # sum's terms (with the inputs' bounds added), which bound the propagated error
        bits = n.bit_length()
        c = (bits * (bits + 1) / 2 + 2 * bits + 4) * U['f32']
        bmax = max(map(abs, bv)) + (max(be) if be else 0.0)
        A = B = 0.0
        P = P1 = M = M1 = 0.0
        oa, ea, ob, eb = [], [], [], []
        for j, (a, b) in enumerate(zip(av, bv)):
            pa, pb = (ae[j] if ae else 0.0), (be[j] if be else 0.0)
            if j == 0:
                A, B, P, P1, M, M1 = a, b, abs(a), abs(a) + pa, abs(b), abs(b) + pb
            else:
                A, B = a * A, a * B + b
                P, P1 = abs(a) * P, (abs(a) + pa) * P1
                M, M1 = abs(a) * M + abs(b), (abs(a) + pa) * M1 + abs(b) + pb
            fl = FLOOR['f32'] * 8 * (j + 1) * (1 + bmax)
            oa.append(A)
            ea.append((P1 - P) + c * P1 + fl)
            ob.append(B)
            eb.append((M1 - M) + c * M1 + fl)
        return [(oa, ea), (ob, eb)]


class Combine(Node):
    """reduce(input, axis, combine_fn) or associative_scan(input, axis, combine_fn[, reverse]): the
    parts' members, in order, the input (one tile, or a tuple); a result for each (reduce drops the
    axis).  style: bit 0 the axis counted from the end, bits 1-2 positional, keywords, or input= too;
    rev_src the reverse flag as written (None: from rev); one: a single member written (x,)."""

    def __init__(self, scan, parts, axis, fn, rev=False, style=0, rev_src=None, one=False):
        self.scan, self.parts, self.axis, self.fn, self.rev, self.one = scan, parts, axis, fn, rev, one
        self.style, self.rev_src = style, rev_src
        self.items = [x for p in parts for x in p.items]
        self.dts = [x.dt for x in self.items]
        shape = ()
        for x in self.items:
            shape = bshape(shape, x.shape)
        self.full = shape
        n = shape[axis]
        rshape = shape if scan else shape[:axis] + shape[axis + 1:]
        stat = [st for p in parts for st in p.static(n, scan)]
        self.res = [like(rshape, d, lo, hi) for d, (lo, hi) in zip(self.dts, stat)]
        self.setup(rshape, self.dts[0], *stat[0])

    def src(self):
        xs = [x.src() for x in self.items]
        inp = '(%s)' % ', '.join(xs) if len(xs) > 1 else '(%s,)' % xs[0] if self.one else xs[0]
        ax = self.axis - len(self.full) if self.style & 1 else self.axis
        form = (self.style >> 1) & 3
        if form == 0:
            args = [inp, str(ax), self.fn]
        elif form == 1:
            args = [inp, 'axis=%d' % ax, 'combine_fn=%s' % self.fn]
        else:
            args = ['input=%s' % inp, 'axis=%d' % ax, 'combine_fn=%s' % self.fn]
        if self.scan:
            if self.rev_src is not None:
                args.append(self.rev_src)
            elif form == 0 and self.rev:
                args.append('true')
            elif form and (self.rev or self.style & 8):
                args.append('reverse=%s' % ('true' if self.rev else 'false'))
        return '%s(%s)' % ('associative_scan' if self.scan else 'reduce', ', '.join(args))

    def ev(self, cx):
        return self.ev_all(cx)[0]

    def ev_all(self, cx):
        shape, ax = self.full, self.axis
        ts = [bcast(convert(x.ev(cx), d), shape) for x, d in zip(self.items, self.dts)]
        n, inner, outer = shape[ax], numel(shape[ax + 1:]), numel(shape[:ax])
        m = len(self.items)
        size = numel(shape) if self.scan else outer * inner
        ov, oe = [[None] * size for _ in range(m)], [[0.0] * size for _ in range(m)]
        for o in range(outer):
            for i in range(inner):
                idx = [o * n * inner + j * inner + i for j in range(n)]
                if self.rev:
                    idx.reverse()
                cols = [([v[j] for j in idx], [e[j] for j in idx] if e else None) for v, e in ts]
                pos = 0
                for p in self.parts:
                    c = cols[pos:pos + len(p.items)]
                    if self.scan:
                        for q, (rv, re_) in enumerate(p.scan(c, n)):
                            for jj, j in enumerate(idx):
                                ov[pos + q][j], oe[pos + q][j] = rv[jj], re_[jj]
                    else:
                        for q, (x, y) in enumerate(p.red(c, n, cx.warps, numel(shape))):
                            ov[pos + q][o * inner + i], oe[pos + q][o * inner + i] = x, y
                    pos += len(p.items)
        out = []
        for d, v, e, st in zip(self.dts, ov, oe, self.res):
            e = e if any(e) else None
            if d in FLOATS:
                e = check_finite(d, v, e, [])
            elif not in_range(d, v):
                raise AssertionError('%s result out of range' % d)
            out.append(T(st.shape, d, v, e))
        return out


class LetMulti:
    """let a, b, ... = reduce(...) or associative_scan(...) (a `_` drops that result)."""

    def __init__(self, names, node):
        self.names, self.node = names, node

    def lines(self, ind):
        return ['%slet %s = %s;' % (ind, ', '.join(self.names), self.node.src())]

    def run(self, cx):
        for name, t in zip(self.names, self.node.ev_all(cx)):
            if name != '_':
                cx.env[name] = t


def whole(e, shape):
    """e stretched to the whole tile (zeros of its own type added) when it is smaller; its type kept."""
    if e.shape == shape:
        return e
    if e.dt == 'i1':
        return Bin('!=', Bin('+', Cast(e, 'i32'), Full(shape, 0, 'i32', zeros=True)), Lit(0))
    return Bin('+', e, Full(shape, 0.0 if e.dt in FLOATS else 0, e.dt, zeros=True))


def flat_offsets(shape):
    """The row-major index of each element of a tile of shape (arange of each axis, broadcast)."""
    off = None
    for d in range(len(shape)):
        x = Arange(0, shape[d])
        if len(shape) > 1:
            x = Index(x, [':' if i == d else None for i in range(len(shape))])
        stride = numel(shape[d + 1:])
        t = x if stride == 1 else Bin('*', x, Lit(stride))
        off = t if off is None else Bin('+', off, t)
    return off


def draw_part(k, shape, ax, ints, exact, scan, kinds):
    """Parts of a combine along axis ax of shape (a list, empty where the draw fails), their kind
    appended to kinds; the members from the pool (floats), ints (exact integer tiles) and exact
    (exact float tiles)."""
    r = k.rng
    n, tile_n = shape[ax], numel(shape)
    along = lambda e: ((1,) * (len(shape) - len(e.shape)) + e.shape)[ax] == n

    def vary(e, cands, op):
        """e, or mostly (where e is the same all along the axis, a broadcast row) e op one of cands
        that varies along it: a combine of equal values hides too much."""
        cands = [x for x in cands if along(x) and not x.ninf and bshape(x.shape, shape) == shape]
        if n == 1 or along(e) or not cands or r.random() < 0.2:
            return e
        c = r.choice(cands)
        return Bin(op, e, c if op == '+' else Bin('&', c, Lit(15)))

    fexpr = lambda: vary(k.expr(k.pool, shape, r.randint(0, 2)), [x for x in k.pool + exact if x.dt in FLOATS], '+')
    iexpr = lambda: vary(k.int_expr(ints, shape, 2), [x for x in ints if x.dt in INTS], r.choice(['+', '^']))
    exactf = lambda: vary(r.choice(exact) if exact and r.random() < 0.85 else Cast(iexpr(), 'f32'), exact, '+')

    def boolexpr():
        if exact and r.random() < 0.5:
            x = r.choice(exact)
            return Bin(r.choice(['>', '<=']), x, Lit(r.choice([0.5, -1.0, 0.0, 2.0])))
        return Bin(r.choice(['==', '!=', '<']), Bin('&', iexpr(), Lit(3)), Lit(r.randint(0, 3)))

    welford = not scan and n <= 256 and tile_n <= 2048
    names = ['add_f', 'add_i', 'max', 'min', 'bits', 'arg', 'minmax', 'sumcount'] + \
        (['affine_f', 'affine_i'] if scan else ['welford'] * welford)
    weights = [5, 3, 3, 2, 3, 3, 2, 2] + ([4, 3] if scan else [3] * welford)
    kind = r.choices(names, weights)[0]
    kinds.append(kind)
    if kind == 'add_f':
        c = r.random()
        e = Lit(1.0) if c < 0.1 else Cast(boolexpr(), 'f32') if c < 0.2 else fexpr()
        if e.ninf:
            return []
        if e.dt in ('f16', 'bf16') or scan and e.dt == 'f64':
            e = Cast(e, 'f32')
        return [Mono('add', e)]
    if kind == 'add_i':
        c = r.random()
        e = Lit(1) if c < 0.15 else Cast(boolexpr(), 'i32') if c < 0.3 else iexpr()
        if e.dt not in ('i32', 'i64'):      # (an i8 or i16 load): no sum that wraps
            e = Cast(e, 'i32')
        if n * max(abs(e.lo), abs(e.hi)) >= 2 ** 31 or r.random() < 0.15:
            e = Cast(e, 'i64')
        return [Mono('add', e)]
    if kind in ('max', 'min', 'minmax'):
        c = r.random()
        e = iexpr() if c < 0.3 and kind != 'minmax' else fexpr()
        if e.ninf:
            return []
        if (c > 0.7 or kind == 'minmax' and c > 0.3) and e.dt in FLOATS:
            e = Cast(e, r.choice(['f16', 'bf16', 'f32']))
        if kind == 'minmax':        # both of one value: (lo, hi)
            return [Mono('min', e), Mono('max', e)]
        return [Mono(kind, e)]
    if kind == 'sumcount':          # the sum and the count of the values where a condition holds
        cond, x = boolexpr(), fexpr()
        if x.ninf:
            return []
        x = x if x.dt in ('f32', 'f64') else Cast(x, 'f32')
        return [Mono('add', Where(cond, x, Lit(0.0))), Mono('add', Cast(cond, r.choice(['i32', 'f32'])))]
    if kind == 'bits':
        op = r.choice(['xor', 'or', 'and'])
        c = r.random()
        if c < 0.25:
            return [Mono(op, boolexpr())]
        e = iexpr()
        if c < 0.4:
            e = Cast(Bin('&', e, Lit(127)), r.choice(['i8', 'i16']))
        elif c < 0.5:
            e = Cast(e, 'i64')
        return [Mono(op, e)]
    if kind == 'arg':
        v = exactf() if r.random() < 0.7 else fexpr()
        if v.ninf:
            return []
        if r.random() < 0.2 and v.dt in FLOATS:
            v = Cast(v, r.choice(['f16', 'bf16']))
        key = Arange(0, n)
        if len(shape) > 1:
            key = Index(key, [':' if i == ax else None for i in range(len(shape))])
        c = r.random()
        if c < 0.2:
            key = Bin('-', Lit(n - 1), key)         # from the end: ties to the last
        elif c < 0.35:
            key = Bin('+', key, Lit(r.randint(1, 100)))
        return [Arg(r.choice(['max', 'max', 'min']), v, key)]
    if kind == 'welford':
        x = exactf() if r.random() < 0.6 else fexpr()
        if x.ninf:
            return []
        if x.dt != 'f32':
            x = Cast(x, 'f32')
        z = Lit(0.0) if r.random() < 0.7 else Full(shape, 0.0, 'f32', zeros=True)
        return [Welford(x, z, Lit(1) if r.random() < 0.5 else Lit(1.0))]
    if kind == 'affine_f':
        a = fexpr()
        if a.ninf:
            return []
        a = a if a.dt == 'f32' else Cast(a, 'f32')
        am = max(abs(a.lo), abs(a.hi))
        if am > 0.5:
            a = Bin('*', a, Lit(2.0 ** -math.ceil(math.log2(am / 0.5))))
        if max(abs(a.lo), abs(a.hi)) > 0.5:
            return []
        b = Lit(r.choice([1.0, 0.5])) if r.random() < 0.15 else fexpr()
        if b.ninf:
            return []
        return [Affine(a, b if b.dt == 'f32' or b.weak else Cast(b, 'f32'))]
    # affine_i: a is -1 or 1, so h stays within the sum of |b| (signed overflow is undefined on the GPU)
    i32 = lambda e: e if e.dt == 'i32' else Cast(e, 'i32')
    a = Bin('-', Bin('&', i32(iexpr()), Lit(2)), Lit(1))
    return [Affine(a, i32(iexpr()))]


def add_combine(k, shape, lin, nprog, ints, exact, scan):
    """A reduce or associative_scan of one to four parts along a random axis of the tile, with a
    combine fn of its own; each result stored (the most buffers allow) into a buffer of its own, a
    region a program (lin of nprog); float results join the pool now and then."""
    r = k.rng
    axes = [i for i, d in enumerate(shape) if d > 1]
    ax = r.choice(axes) if axes and r.random() < 0.9 else r.randrange(len(shape))
    parts, kinds = [], []
    for _ in range(r.choices([1, 2, 3, 4], [6, 4, 2, 1])[0]):
        parts += draw_part(k, shape, ax, ints, exact, scan, kinds)
    # a scan's operands go through shared memory: a tile and all its members at most 32 KiB
    while scan and parts and numel(shape) * sum(BYTES[x.dt] for p in parts for x in p.items) > 32768:
        parts.pop()
    if not parts:
        return
    if all(x.shape != shape for p in parts for x in p.items):
        parts[0].items[0] = whole(parts[0].items[0], shape)
    if not scan and len(shape) > 1 and r.random() < 0.15:
        # the whole tile at once: every member reshaped to 1-D, reduced to scalars
        for p in parts:
            p.items = [Reshape(whole(x, shape), (numel(shape),), dims(k, (numel(shape),)),
                               bare=r.random() < 0.5) for x in p.items]
        shape, ax = (numel(shape),), 0
        kinds.append('flat')
    nm = Namer(r)
    fn = CombineFn(k.fresh(r.choice(['comb', 'merge', 'op', 'step'])), [], [], [])
    L, R = [], []
    for p in parts:
        a, b = p.names(nm)
        L += a
        R += b
    pos = 0
    for p in parts:
        m = len(p.items)
        lets, rets = p.body(k, nm, L[pos:pos + m], R[pos:pos + m], fn)
        fn.lets += lets
        fn.rets += rets
        pos += m
    fn = CombineFn(fn.name, L + R + fn.params_extra, fn.lets, fn.rets, fn.deps)      # (checks the names)
    k.fns.append(fn)
    rev, rev_src, style = False, None, r.choice([0, 0, 0, 1, 2, 3, 4])
    if scan:
        rev = r.random() < 0.4
        if r.random() < 0.15 and len(k.defines) < MAXDEF:
            dt = r.choice(['i1', 'i32'])
            c = k.const(k.fresh('REV'), int(rev) if dt == 'i32' else rev, dt,
                        other=(int(not rev) if dt == 'i32' else not rev) if r.random() < 0.5 else None)
            rev_src = c.name if (style >> 1) & 3 == 0 else 'reverse=%s' % c.name
        elif r.random() < 0.3:
            style |= 8      # reverse=false written out
    node = Combine(scan, parts, ax, fn.name, rev, style, rev_src, one=r.random() < 0.15)
    k.desc.append('%s(%s)' % ('scan' if scan else 'reduce', ','.join(kinds)))
    if len(node.items) == 1:
        res = [k.let(node, p='cr')]
    else:
        names = [k.fresh('cr') for _ in node.items]
        k.body.append(LetMulti(names, node))
        res = [Name(x, st) for x, st in zip(names, node.res)]
    room = max(0, MAXBUF - 2 - len(k.bufs))       # (leaving two for what the family adds later)
    rshape = node.shape
    at = Bin('+', Bin('*', lin, Lit(numel(rshape))), flat_offsets(rshape)) if rshape else lin
    order = list(range(len(res)))
    r.shuffle(order)
    for j in order[:room] if r.random() < 0.8 else order[:min(1, room)]:
        x = res[j]
        if x.dt == 'i1':
            x, dt = Cast(x, 'i32'), 'i32'
        elif x.dt in FLOATS:
            dt = r.choice([x.dt, x.dt, 'f32'])
        else:
            dt = x.dt
        b = k.buffer(k.fresh('oc'), dt, nprog * numel(rshape), 'out')
        k.body.append(Store(Ptr(b, at), x))
    for x in res:
        if x.dt in FLOATS and r.random() < 0.4 and k.ok(x, x.shape) is not None:
            if not scan and x.shape:
                k.pool.append(Index(x, [None if i == ax else ':' for i in range(len(shape))]))
            else:
                k.pool.append(x)


def add_combines(k, shape, lin, nprog, ints, exact):
    """One or two reduce and associative_scan with combine fns (COMBINE of the kernels)."""
    r = k.rng
    if r.random() >= COMBINE:
        return
    for _ in range(1 if r.random() < 0.75 else 2):
        add_combine(k, shape, lin, nprog, ints, exact, r.random() < 0.45)


# ---- tuple sort and topk, histogram, bits and gathers of data, stored ----

ORDERS = 0.3        # how often a kernel of vec, mat, cube or dot adds one or two of add_order's


def store_whole(k, x, lin, nprog, dt=None):
    """x (a tile, or a scalar) stored whole into an output of its own (of dt, else x's type), a
    region a program (lin of nprog)."""
    rshape = x.shape
    at = Bin('+', Bin('*', lin, Lit(numel(rshape))), flat_offsets(rshape)) if rshape else lin
    b = k.buffer(k.fresh('oo'), dt or x.dt, nprog * numel(rshape), 'out')
    k.body.append(Store(Ptr(b, at), x))


def to_pool(k, x, shape):
    """x (a float tile of rank 1, or one that broadcasts to shape) into the pool: as it is, or a 1-D
    one along an axis of shape of its length."""
    if x.dt not in FLOATS:
        x = Cast(x, 'f32')
    if bshape(x.shape, shape) == shape:
        k.pool.append(x)
        return
    if len(x.shape) == 1:
        axes = [i for i, d in enumerate(shape) if d == x.shape[0]]
        if axes:
            ax = k.rng.choice(axes)
            k.pool.append(Index(x, [':' if i == ax else None for i in range(len(shape))]))


def add_orders(k, shape, lin, nprog, ints, exact):
    """One or two of add_order (ORDERS of the kernels)."""
    r = k.rng
    if r.random() >= ORDERS:
        return
    for _ in range(1 if r.random() < 0.8 else 2):
        add_order(k, shape, lin, nprog, ints, exact)


def add_order(k, shape, lin, nprog, ints, exact):
    """Stored into outputs of their own (the reference knows them all), and now and then into the pool:
      pick    let v, i = sort((keys, pos), dim, desc) or topk((keys, pos), K, dim) (a third payload
              y and its w now and then): the keys (and y) exact data or integer index arithmetic
              (ties galore), pos the positions along dim (a row broadcast, or the whole tile, i32
              or i64); PickCheck's v, where gather(keys, i, dim) == v, stored
      lone    sort or topk of a random expression, the whole result stored
      hist    histogram of exact integers (index arithmetic, some out of range or negative, or
              in range by & (B - 1); exact data truncated), the tile or a reshape of it to another
              rank, under a mask or none (a comparison of positions or of exact data, broadcast)
      bits    the bits of exact data (or of its flip) stored as integers, or floats made of bits
      gather  a random expression gathered by an index of data (integer index arithmetic,
              & (n - 1)) or of positions, as many or another count of them along the axis"""
    r = k.rng
    if len(k.bufs) > MAXBUF - 3:
        return
    exf = [x for x in exact if x.dt in FLOATS and not x.ninf and not x.weak]
    axes = [i for i, d in enumerate(shape) if d > 1]
    ax = r.choice(axes) if axes and r.random() < 0.9 else r.randrange(len(shape))
    n = shape[ax]
    small = sort_cost(shape, ax, ['i32'], k.warps) <= min(SORTCOST, SORTBUDGET - k.spent)
    few = per_thread(shape, k.warps) <= PERTHREAD
    kind = r.choices(['pick', 'lone', 'hist', 'bits', 'gather'], [5 if small else 0, 2 if small else 0, 4 if few else 0,
                                                                 2, 2 if few else 0])[0]
    k.desc.append('order:' + kind)
    fexpr = lambda: as_tile(k.expr(k.pool, shape, r.randint(0, 2)), shape)
    i32 = lambda e: e if e.dt in ('i32', 'i64') else Cast(e, 'i32')     # (B - 1 may not fit an i8)

    def exact_tile():
        """Exact data, or integer index arithmetic (i32 or i64, or now and then cast to a float), as
        the whole tile: computed without rounding, so every use of it has the same bits."""
        if exf and r.random() < 0.55:
            return whole(r.choice(exf), shape)
        e = k.int_expr(ints, shape, 2)
        c = r.random()
        e = e if e.dt in ('i32', 'i64') and c < 0.8 else Cast(e, 'i32') if c < 0.8 else Cast(e, float_dt(r))
        return whole(e, shape)

    if kind in ('pick', 'lone'):
        # a pick's keys (and payload) exact: a float expression computed twice, in two layouts, might
        # be fused into multiply-adds differently, and gather(keys, i) == v would not hold
        keys = exact_tile() if kind == 'pick' else whole(r.choice(exf), shape) if exf and r.random() < 0.35 \
            else fexpr()
        if keys.ninf or kind == 'lone' and not k.afford(sort_cost(shape, ax, [keys.dt], k.warps)):
            return
        topk = r.random() < 0.6
        K = pow2(r, 1, n) if topk else None
        desc = not topk and r.random() < 0.5
        if kind == 'lone':
            x = Sort(keys, ax, desc, K, style=r.choice([0, 1, 2, 3]))
            store_whole(k, x, lin, nprog, x.dt if r.random() < 0.7 else 'f32')
            if r.random() < 0.4:
                to_pool(k, k.let(x, p='so'), shape)
            return
        keys = k.let(keys, p='key')
        pos = Arange(0, n)
        if len(shape) > 1:
            pos = Index(pos, [':' if i == ax else None for i in range(len(shape))])
        c = r.random()
        if c < 0.25:
            pos = whole(pos, shape)
        elif c < 0.4:
            pos = Cast(pos, 'i64')
        items = [keys, pos]
        if r.random() < 0.3:
            items.append(k.let(exact_tile(), p='y'))
        while not k.afford(sort_cost(shape, ax, [x.dt for x in items], k.warps)):
            if len(items) == 2:
                return
            items.pop()
        node = Ordered(items, ax, desc, K, kw=r.random() < 0.15)
        names = [k.fresh('v'), k.fresh('i')] + [k.fresh('w')] * (len(items) > 2)
        k.body.append(LetMulti(names, node))
        res = [Name(x, st) for x, st in zip(names, node.res)]
        pairs = [(items[2], res[2])] if len(items) > 2 else []
        chk = k.let(PickCheck(res[0], keys, res[1], ax, pairs, kw=r.random() < 0.15), p='pk')
        store_whole(k, chk, lin, nprog)
        if r.random() < 0.4:
            to_pool(k, chk, shape)
        return
    if kind == 'hist':
        B = r.choice([d for d in shape if d > 1] or [1]) if r.random() < 0.3 else pow2(r, 1, 256)
        c = r.random()
        if c < 0.35:
            x = k.int_expr(ints, shape, 2)
        elif c < 0.65:
            x = Bin('&', i32(k.int_expr(ints, shape, 2)), Lit(B - 1))
        elif exf:
            x = Cast(r.choice(exf), 'i32')
            if r.random() < 0.5:
                x = Bin('+', x, Lit(r.randint(0, B)))
        else:
            x = Bin('%', i32(k.int_expr(ints, shape, 2)), Lit(r.choice([3, 7, B + 1])))
        if x.dt not in INTS or x.dt == 'i1':
            return
        x = whole(x, shape)
        m = None
        c = r.random()
        if c < 0.3:
            m = Bin(r.choice(['!=', '==']), Bin('&', r.choice(ints), Lit(3)), Lit(r.randint(0, 3)))
        elif c < 0.5:
            m = Bin(r.choice(['<', '>=']), r.choice(ints), Lit(r.randint(1, 40)))
        elif c < 0.65 and exf:
            m = Bin(r.choice(['>', '<=']), r.choice(exf), Lit(r.choice([0.5, -1.0, 0.0, 2.0])))
        if len(shape) > 1 and r.random() < 0.3 or len(shape) == 1 and numel(shape) >= 4 and r.random() < 0.2:
            Q = factor(r, numel(shape), r.choice([1, 2, 3]))
            x = Reshape(x, Q, dims(k, Q))
            if m is not None:
                m = Reshape(whole(m, shape), Q)
        h = k.let(Histogram(x, B, m, kw=r.random() < 0.15), p='h')
        store_whole(k, h, lin, nprog)
        if r.random() < 0.4:
            to_pool(k, h, shape)
        return
    if kind == 'bits':
        if exf and r.random() < 0.6:
            x = whole(r.choice(exf), shape)
            if r.random() < 0.3:
                x = Flip(x, ax, r.choice([0, 1, 2, 3]))
            store_whole(k, Bitcast(x, IBITS[x.dt], 0, 0, kw=r.random() < 0.15), lin, nprog)
            return
        e = whole(r.choice(ints), shape)
        m = r.choice([flat_offsets(shape)] + [Cast(x, 'i32') for x in exf])
        x = bits_float_node(r.choice(FLOATS), e, Bin('*', m, Lit(r.choice([1, 3, 37]))), kw=r.random() < 0.15)
        store_whole(k, whole(x, shape), lin, nprog)
        if r.random() < 0.4:
            to_pool(k, k.let(whole(x, shape), p='fb'), shape)
        return
    # gather of a random expression by data (where the index has the tile's shape) or by positions
    if numel(shape) * 4 > GATHERMAX:
        return
    src = k.let(fexpr(), p='g')
    L = n if r.random() < 0.6 else pow2(r, 1, max(1, min(2 * n, 8192 * n // numel(shape))))
    ishape = shape[:ax] + (L,) + shape[ax + 1:]
    if L == n and r.random() < 0.6:
        e = k.int_expr(ints, shape, 2)
        e = Bin('&', i32(e), Lit(n - 1))
        idx = whole(e, shape)
    else:
        idx = k.gather_index(ishape, ax, n, exf)
    g = Gather(src, idx, ax, kw=r.random() < 0.15)
    store_whole(k, g, lin, nprog, g.dt if r.random() < 0.7 else 'f32')
    if L == n and r.random() < 0.4:
        to_pool(k, k.let(g, p='gt'), shape)


# ---- the shapes of program ----

def pow2(rng, lo, hi):
    """A power of two in [lo, hi], log-uniform."""
    a, b = lo.bit_length() - 1, hi.bit_length() - 1
    return 1 << rng.randint(a, b)


def ragged(rng, block, blocks):
    """A size that needs `blocks` blocks: ragged, a multiple of 16, or exact."""
    c = rng.random()
    if c < 0.6 or block == 1:
        return (blocks - 1) * block + rng.randint(1, block)
    if c < 0.8 and block >= 16:
        return (blocks - 1) * block + 16 * rng.randint(1, block // 16)
    return blocks * block


def float_dt(rng):
    return rng.choices(['f32', 'f16', 'bf16'], [5, 3, 2])[0]


def inputs(k, rng, nin, size, with_int=True):
    """nin input buffers x0.. of size elements; dtypes and data kinds drawn."""
    out = []
    for i in range(nin):
        dt = rng.choices(['f32', 'f16', 'bf16', 'f64', 'i32', 'i8', 'i16', 'i64'],
                         [10, 6, 4, 1] + ([2, 1, 1, 1] if with_int else [0, 0, 0, 0]))[0]
        kind = rng.choices(['cont', 'int', 'pos'], [5, 2, 2])[0]
        out.append(k.buffer('x%d' % i, dt, size, 'in', kind))
    return out


def other_for(rng, b):
    if rng.random() < 0.3:
        return None
    if b.dt in INTS:
        return Lit(rng.randint(-3, 3))
    return Lit(rng.choice([0.0, 1.0, -1.5, 0.5, 2.0, -0.25]))


def out_dt(rng, node):
    if node.dt in INTS:
        return rng.choice(['i32', 'i32', 'f32', 'i64', 'i16'])
    return float_dt(rng)


def place_axes(k, counts):
    """Put each logical grid dimension (counts) on a distinct program axis; returns the axes."""
    axes = k.rng.sample([0, 1, 2], len(counts))
    for a, c in zip(axes, counts):
        k.grid[a] = c
    return axes


def vec_index(k, b, base, offs, nn):
    """Where input b is read from: plainly, reversed, gathered, every other element, or
    four lanes to an element; every valid lane (offs < n) stays inside b."""
    r = k.rng
    how = r.choices(['plain', 'reverse', 'gather', 'spread', 'bcast', 'shift'], [6, 1, 1, 1, 1, 1])[0]
    k.desc.append('%s:%s' % (b.name, how))
    row = (lambda e: Bin('+', base, e)) if base is not None else (lambda e: e)
    if how == 'reverse':
        return row(Bin('-', Bin('-', nn, Lit(1)), offs))
    if how == 'gather':
        return row(Bin('%', Bin('*', offs, Lit(r.choice([3, 5, 7, 13]))), nn))
    if how == 'bcast':
        return row(Bin('/', offs, Lit(4)))
    if how == 'shift':      # contiguous, but off any alignment the sizes suggest
        b.size += 3
        b.data = draw_data(r, b.dt, b.size, 'cont')[0]
        return Bin('+', row(offs), Lit(r.randint(1, 3)))
    if how == 'spread':
        b.size = b.size * 2
        b.data = draw_data(r, b.dt, b.size, 'cont')[0]
        two = Bin('*', offs, Lit(2))
        return Bin('+', Bin('*', base, Lit(2)), Bin('+', two, Lit(1))) if base is not None else Bin('+', two, Lit(1))
    return row(offs)


def extra_mask(k, mask, offs, exact):
    """mask, or mask with holes: index arithmetic or a comparison of exact data, and, or, not."""
    r = k.rng
    if r.random() < 0.6:
        return mask
    c = r.choice([Bin('==', Bin('&', offs, Lit(1)), Lit(0)), Un('not', Bin('==', Bin('%', offs, Lit(3)), Lit(1))),
                  Bin('!=', Bin('%', offs, Lit(5)), Lit(2))] +
                 [Bin(r.choice(['>', '<=']), x, Lit(0.5)) for x in exact])
    return Bin(r.choice(['&', '&&']), mask, c) if r.random() < 0.8 else \
        Bin('&', mask, Bin('||', c, Bin('<', offs, Lit(r.randint(1, 9)))))


def fam_vec(k):
    """1-D blocks: program p of a batch b handles elements p*BLOCK ... of row b."""
    r = k.rng
    B = pow2(r, 1, 8192)
    blocks = r.randint(1, max(1, min(6, 8192 // B)))
    n = ragged(r, B, blocks)
    nb = r.choice([1, 1, 2, 3])
    ax, bx = place_axes(k, [blocks, nb])
    k.pick_warps()
    k.desc += ['vec', 'BLOCK=%d' % B, 'n=%d' % n, 'batch=%d' % nb]
    size = n * nb
    xs = inputs(k, r, r.randint(1, 3), size)
    sc = k.buffer('sc', float_dt(r), 5, 'in', 'pos') if r.random() < 0.25 else None
    outs = [k.buffer('out%d' % i, None, size + r.choice([0, 3, 40]), 'out') for i in range(r.randint(1, 2))]
    osc = k.buffer('osc', 'f32', blocks * nb + 3, 'out') if r.random() < 0.6 else None
    oix = k.buffer('oix', 'i32', size + 5, 'out') if r.random() < 0.3 else None
    opair = k.buffer('opair', None, 2 * size + r.choice([0, 6]), 'out') if B <= 4096 and r.random() < 0.1 else None
    hist, hkind = None, None
    if r.random() < 0.35:
        hdt = r.choice(['i32', 'f32'])
        hkind = r.choice(['add', 'add', 'max', 'min', 'or', 'xor'] if hdt == 'i32' else ['add', 'add', 'max', 'min'])
        hist = k.buffer('hist', hdt, 8, 'inout', 'signed' if hdt == 'f32' and hkind != 'add' else 'int')
        if hdt == 'f32' and hkind != 'add':
            hist.view = 'i32'
    nn = k.scalar('n', 'i32', n)
    alpha = k.scalar('alpha', 'f32', r.choice([0.5, 1.5, -0.75, 2.0])) if r.random() < 0.4 else None
    dflt = B if r.random() < 0.5 else None
    blk = k.const('BLOCK', B, other=(pow2(r, 1, 4096) if dflt is None else None))
    pid = k.let(Pid(ax, False, blocks), p='pid')
    lo = r.choice([0, 0, 0, 8, 64])
    start = Bin('*', pid, blk) if lo == 0 else Bin('-', Bin('*', pid, blk), Lit(lo))
    offs = k.let(Bin('+', start, Arange(lo, lo + B, 'BLOCK')), p='offs')
    base = None
    if nb > 1:
        base = k.let(Bin('*', Pid(bx, False, nb), nn), p='base')
    idx = Bin('+', base, offs) if base is not None else offs
    mask = k.let(Bin('<', offs, nn), p='mask')
    leaves, exact = [], []
    for b in xs:
        at = vec_index(k, b, base, offs, nn)
        m = extra_mask(k, mask, offs, exact)
        ld = Load(Ptr(b, at, split=r.random() < 0.5), m, other_for(r, b), kw=r.random() < 0.2)
        leaves.append(k.let(ld, p='x'))
        if m is mask:
            exact.append(leaves[-1])
    ints = [offs] + [x for x in leaves if x.dt in INTS]
    for _ in range(r.randint(0, 2)):
        leaves.append(k.let(Cast(k.int_expr(ints, (B,), 2), r.choice(FLOATS)), p='ix'))
    lin = Bin('+', Bin('*', Pid(bx, False, nb), Lit(blocks)), pid) if nb > 1 else pid
    olds = []
    if r.random() < 0.3:      # each lane its own address: old values deterministic
        olds.append(distinct_atomic(k, idx, mask, size, (B,), ints, offs))
    if r.random() < 0.2:      # a scalar one, on the program's own address
        olds.append(distinct_atomic(k, lin, None, blocks * nb, (), [pid]))
    leaves += [x for x in olds if x is not None]
    if alpha is not None:
        leaves.append(alpha)
    if sc is not None:
        at = Bin('%', pid, Lit(5))
        leaves.append(k.let(Load(Ptr(sc, at)) if r.random() < 0.5 else
                            Load(Ptr(sc, pid), Bin('<', pid, Lit(5)), Lit(1.0)), p='s'))
    if r.random() < 0.3:
        leaves.append(k.let(Cast(pid, 'f32'), p='fp'))
    fleaves = [x for x in leaves if x.dt in FLOATS] or [Cast(leaves[0], 'f32')]
    body_exprs(k, fleaves, (B,), r.randint(1, 3))
    add_combines(k, (B,), lin, blocks * nb, ints, exact)
    add_orders(k, (B,), lin, blocks * nb, ints, exact)
    if r.random() < 0.2:
        add_while(k, (B,), pid, [Reduce('sum', mask, 0), pid, Bin('%', nn, Lit(5))], exact, (idx, mask, size),
                  (lin, blocks * nb))
    if r.random() < 0.3:
        conds = [Bin('==', Bin('%', pid, Lit(2)), Lit(0)), Bin('>', nn, Lit(r.randint(1, 3000))),
                 Bin('>', Reduce('sum', as_tile(fleaves[0], (B,)), 0), Lit(0.0)), flag(k)]
        if alpha is not None:
            conds.append(Bin('<', alpha, Lit(0.0)))
        add_if(k, (B,), conds)
    for o in outs:
        e = k.expr(k.pool, (B,), r.randint(1, 4))
        k.set_dt(o, out_dt(r, e))
        at = Bin('+', idx, Lit(r.randint(1, 3))) if o.size >= size + 3 and r.random() < 0.3 else idx
        k.body.append(Store(Ptr(o, at), e, extra_mask(k, mask, offs, exact), kw=r.random() < 0.2))
    if osc is not None:
        fn = r.choice(['sum', 'max', 'min'])
        e = reduce_all(k, fn, as_tile(k.expr(k.pool, (B,), r.randint(1, 3), reducible=False), (B,)), r.choice([0, 1, 2]))
        k.body.append(Store(Ptr(osc, lin), e))
    if oix is not None:
        e = k.int_expr(ints, (B,), 3)
        k.body.append(Store(Ptr(oix, idx), e, mask))
    if opair is not None:
        pair_store(k, opair, idx, (B,), mask, lambda: extra_mask(k, mask, offs, exact), ints)
    if hist is not None:
        # many lanes of one atomic on the same few addresses
        keys = [Bin('&', offs, Lit(7)), Bin('%', Bin('*', offs, offs), Lit(8))] + \
            [Bin('&', x, Lit(7)) for x in leaves if x.dt in INTS]
        kind = hkind
        if kind != 'add' and hist.dt == 'f32':
            # signed values, both zeros, NaNs (which change nothing): the IEEE maximum or minimum
            v = atomic_value(k, 'f32', idx, mask, size, (B,), ints, offs, nan=r.random() < 0.3)
        elif kind != 'add':   # values from -31 to 32 (and int leaves): many lanes, one address, any order
            v = r.choice([Bin('-', Bin('&', Bin('*', offs, Lit(37)), Lit(63)), Lit(31))] +
                         [x for x in leaves if x.dt in ('i32', 'i16', 'i8')])
        else:
            v = Lit(1) if hist.dt == 'i32' else r.choice(exact + [Lit(0.5)])
        k.desc.append('hist:%s:%s' % (kind, hist.dt))
        k.body.append(Store(Ptr(hist, r.choice(keys)), v, extra_mask(k, mask, offs, exact), atomic=True,
                            kind=kind))


def as_tile(e, shape):
    """e stretched to the whole tile (plus a zeros tile of its own type) when it is smaller."""
    if e.shape == shape:
        return e
    return Bin('+', e, Full(shape, 0.0, e.dt if e.dt in FLOATS and not e.weak else 'f32', zeros=True))


def add_if(k, shape, conds):
    """var v = ...; if COND { v = ... } [else { v += ... }]: v joins the pool."""
    r = k.rng
    d = float_dt(r)

    def fit(e):
        e = as_tile(e, shape)
        return e if e.dt == d else Cast(e, d)

    v = k.let(fit(k.expr(k.pool, shape, 2)), var=True, p='v')
    a = fit(k.expr(k.pool, shape, 2))
    then = [Assign(v.name, '=', a, v)]
    else_, lo, hi = [], min(v.lo, a.lo), max(v.hi, a.hi)
    if r.random() < 0.6:
        op = r.choice(['+=', '-='])
        b = fit(k.expr(k.pool, shape, 2))
        else_ = [Assign(v.name, op, b, v)]
        both = Bin(op[0], v, b)
        lo, hi = min(lo, both.lo), max(hi, both.hi)
    k.body.append(If(r.choice(conds), then, else_))
    k.pool.append(Name(v.name, like(shape, d, lo, hi)))


def flag(k):
    """A constexpr i1, the launch's define or its default deciding."""
    r = k.rng
    value = r.random() < 0.5
    return k.const('FLAG', value, 'i1', other=(not value) if r.random() < 0.5 else None)


def body_exprs(k, leaves, shape, count):
    """A few lets of random expressions; they join the leaves (k.pool).  Now and then (SHAPES) one
    more among them: a tile of the pool through reshape, split, join and interleave (reshuffle)."""
    k.pool = list(leaves)
    at = k.rng.randint(0, count) if k.rng.random() < SHAPES else -1
    for i in range(count + 1):
        if i == at:
            add_reshuffle(k, shape)
        if i < count:
            k.pool.append(k.let(k.expr(k.pool, shape, k.rng.randint(1, 4)), p='y'))


# ---- reshape, permute, join, split, interleave ----

def factor(rng, n, rank):
    """A random shape of `rank` powers of two (1s too) whose product is n."""
    bits = n.bit_length() - 1
    cuts = sorted(rng.randint(0, bits) for _ in range(rank - 1))
    return tuple(1 << (b - a) for a, b in zip([0] + cuts, cuts + [bits]))


def dims(k, shape):
    """A reshape's dimensions as written: numbers (None), or now and then arithmetic of the
    constexprs that size the kernel's tiles, as BLOCK / 4 or BM * 2."""
    r = k.rng
    if not k.sizes or r.random() < 0.5:
        return None
    out = []
    for d in shape:
        opts = [str(d)]
        for name, v in sorted(k.sizes.items()):
            opts.append(name if v == d else '%s / %d' % (name, v // d) if v > d else '%s * %d' % (name, d // v))
        out.append(r.choice(opts))
    return out


def reshape(k, x, shape):
    """reshape(x, shape), or mostly x itself where the shapes are equal."""
    r = k.rng
    shape = tuple(shape)
    if shape == x.shape and r.random() < 0.8:
        return x
    return Reshape(x, shape, dims(k, shape), kw=r.random() < 0.1, bare=len(shape) == 1 and r.random() < 0.5)


def uses(e, x):
    return re.search(r'\b%s\b' % x.name, e.src()) is not None


def scalars(k):
    """The pool's float scalars (alpha, a loaded scale, ...)."""
    return [x for x in k.pool if x.shape == () and not x.weak and x.dt in FLOATS]


def halves(k, a, b, depth):
    """What split's halves a and b turn into before they are joined again: each as it is, a random
    expression of its own (with the pool's scalars), or (depth left) reshuffled once more; the
    two sometimes swapped, one sometimes reduced to a scalar (join broadcasts it)."""
    r = k.rng
    out = []
    for h in (a, b):
        c, y = r.random(), h
        if c < 0.25 and depth > 1 and numel(h.shape) >= 2:
            y = reshuffle(k, h, depth - 1)
        elif c < 0.7:
            e = k.expr([h] + scalars(k), h.shape, r.randint(1, 2))
            if uses(e, h):
                y = e
        out.append(y)
    if all(y.shape != a.shape for y in out):
        out[0] = as_tile(out[0], a.shape)
    return out[::-1] if r.random() < 0.3 else out


def reshuffle(k, x, depth):
    """x (a whole float tile, rank 1 to 3) through reshape, split, join and interleave, and back in
    its shape:
      view    reshaped (rank 1 to 3), a random expression there (reductions broadcast back too),
              reshaped back
      reduce  reshaped to rank 2 or 3, less its sum, max or min along an axis (that reduction
              sometimes reshaped to [..., 2], split, and joined back the other way round)
      pairs   split of x reshaped to [..., 2] (of x itself where its last axis is 2), the halves
              changed (halves) and joined or interleaved back
      trans   split of trans(x reshaped to [2, n/2]) (of trans(x) where x is [2, N]): the lanes'
              axis made the last, a layout conversion in the compiler; joined back, transposed
              back or interleaved
      scalar  join or interleave of x (or x reshaped to rank 1 or 2) and a scalar, either side,
              then its sum, max or min over the pair, or split into the two again and combined
      permute x reshaped to rank 2 or 3, its axes permuted, a random expression there, permuted
              back
    Joins double no tile past 8192 elements."""
    r = k.rng
    S, n = x.shape, numel(x.shape)
    pairs = 2 <= n <= 8192
    how = r.choices(['view', 'reduce', 'pairs', 'trans', 'scalar', 'permute'],
                    [2, 0 if x.ninf else 2, 3 if pairs else 0, 2 if pairs else 0, 2 if n <= 4096 else 0,
                     2 if n >= 4 else 0])[0]
    if how == 'permute':
        Q = factor(r, n, r.choice([2, 3]))
        order = list(range(len(Q)))
        while order == sorted(order):
            r.shuffle(order)
        p = k.let(Permute(reshape(k, x, Q), order, kw=r.random() < 0.1), p='q')
        z = k.expr([p] + scalars(k), p.shape, r.randint(1, 2))
        back = [order.index(i) for i in range(len(order))]
        return reshape(k, Permute(as_tile(z, p.shape) if uses(z, p) else p, back), S)
    if how == 'view':
        Q = factor(r, n, r.randint(1, 3))
        y = k.let(reshape(k, x, Q), p='r')
        z = k.expr([y] + scalars(k), Q, r.randint(1, 2))
        return reshape(k, as_tile(z, Q) if uses(z, y) else y, S)
    if how == 'reduce':
        Q = factor(r, n, r.choice([2, 2, 3]))
        m = k.let(reshape(k, x, Q), p='r')
        ax, fn = r.randrange(len(Q)), r.choice(['sum', 'max', 'min'])
        red = Reduce(fn, m, ax, r.choice([0, 0, 1, 2]))
        if numel(red.shape) >= 2 and r.random() < 0.4:
            red = k.let(red, p='s')
            lo, hi = k.split(reshape(k, red, factor(r, numel(red.shape) // 2, r.choice([1, 2])) + (2,)))
            red = reshape(k, Join(hi, lo, inter=r.random() < 0.5), red.shape)
        pat = [':'] * len(red.shape)
        pat.insert(ax, None)
        back = Index(red, pat)
        if fn == 'sum' or r.random() < 0.5:
            return reshape(k, Bin(r.choice(['-', '+']), m, back), S)
        return reshape(k, MinMax(r.choice(['maximum', 'minimum']), m, back), S)
    if how == 'pairs':
        if len(S) >= 2 and S[-1] == 2 and r.random() < 0.6:
            t = x
        elif len(S) <= 2 and S[-1] >= 2 and r.random() < 0.5:
            t = reshape(k, x, S[:-1] + (S[-1] // 2, 2))
        else:
            t = reshape(k, x, factor(r, n // 2, r.choice([1, 2])) + (2,))
        a, b = halves(k, *k.split(t), depth)
        return reshape(k, Join(a, b, inter=r.random() < 0.4, kw=r.random() < 0.1), S)
    if how == 'trans':
        t = Trans(x if len(S) == 2 and S[0] == 2 and r.random() < 0.6 else reshape(k, x, (2, n // 2)))
        a, b = halves(k, *k.split(t), depth)
        form = r.choice(['back', 'join', 'interleave'])
        j = Trans(Join(a, b)) if form == 'back' else Join(a, b, inter=form == 'interleave')
        return reshape(k, j, S)
    s = r.choice(scalars(k) + [Lit(r.choice(LITS))])
    y = x if len(S) <= 2 and r.random() < 0.6 else reshape(k, x, factor(r, n, r.choice([1, 2])))
    inter = r.random() < 0.35
    j = Join(*((y, s) if r.random() < 0.6 else (s, y)), inter=inter, kw=r.random() < 0.1)
    if inter:
        j = reshape(k, j, y.shape + (2,))
    if r.random() < 0.5:
        e = Reduce(r.choice(['sum', 'max', 'min']), j, len(y.shape), r.choice([0, 0, 1, 2]))
    else:
        a, b = k.split(j)
        e = Bin(r.choice(['+', '-', '*']), a, b) if r.random() < 0.6 else \
            MinMax(r.choice(['maximum', 'minimum']), a, b)
    return reshape(k, e, S)


def add_reshuffle(k, shape):
    """A let of a whole float tile of the pool reshuffled; it joins the pool."""
    xs = [x for x in k.pool if x.shape == shape and x.dt in FLOATS and not x.weak]
    if not xs:
        return
    y = k.ok(reshuffle(k, k.rng.choice(xs), 2), shape)
    if y is not None:
        k.pool.append(k.let(y, p='y'))


def pair_store(k, buf, at, shape, mask, holes, ints):
    """Two values an element, side by side: element i's pair at 2 at[i] and 2 at[i] + 1 of buf (a
    new output), where mask holds (the second of the pair where holes() does, a mask with holes
    or mask).  Pointer, mask and value all joined, or all interleaved, or all joined and reshaped
    to the interleaved shape; the pointer a join of integer offsets, or of two pointers.  The
    values random float expressions of the pool, or integer index arithmetic (ints), the second
    now and then a scalar that join broadcasts."""
    r = k.rng
    if r.random() < 0.25:
        vals = []
        for _ in range(2):
            e = k.int_expr(ints, shape, 2)
            vals.append(e if e.shape == shape else Bin('+', e, Full(shape, 0, 'i32', zeros=True)))
    else:
        vals = [as_tile(k.expr(k.pool, shape, r.randint(1, 3)), shape) for _ in range(2)]
    if r.random() < 0.2:
        vals[1] = r.choice(scalars(k) + [Lit(r.choice(LITS)) if vals[0].dt in FLOATS else Lit(r.randint(-5, 5))])
    form = r.choice(['join', 'interleave', 'reshape'])
    two = Bin('*', at, Lit(2))
    flat = shape[:-1] + (2 * shape[-1],)

    def pair(a, b):
        if form == 'reshape':
            return reshape(k, Join(a, b), flat)
        return Join(a, b, inter=form == 'interleave', kw=r.random() < 0.1)

    if r.random() < 0.3:
        ptr = pair(Ptr(buf, two), Ptr(buf, Bin('+', two, Lit(1))))
        if form == 'reshape':
            ptr.buf = buf
    else:
        ptr = Ptr(buf, pair(two, Bin('+', two, Lit(1))))
    m = pair(mask, holes() if r.random() < 0.5 else mask)
    v = pair(*vals)
    k.set_dt(buf, out_dt(r, v))
    k.desc.append('pairs:%s' % form)
    k.body.append(Store(ptr, v, m, kw=r.random() < 0.2))


def reduce_all(k, fn, t, style=0):
    """fn over the whole of a 1-D tile t: one reduction, or now and then two, of t reshaped to 2-D."""
    r = k.rng
    n = t.shape[0]
    if n >= 4 and r.random() < 0.12:
        R = pow2(r, 2, n // 2)
        return Reduce(fn, Reduce(fn, reshape(k, t, (R, n // R)), r.randrange(2), style), 0)
    return Reduce(fn, t, 0, style)


def fit_to(e, shape, d):
    """e as a whole tile of shape, of type d."""
    e = as_tile(e, shape)
    return e if e.dt == d else Cast(e, d)


def full_reduce(k, fn, e):
    """fn over every axis of e, one at a time in a random order: a scalar."""
    while e.shape:
        e = Reduce(fn, e, k.rng.randrange(len(e.shape)))
    return e


def counted(k, iv, lo, hi, step, body, most, stages=None, p=0.15):
    """for iv in range(lo, hi, step) { body } (lo None: range(hi); step None: 1), or (probability p)
    the same loop as a while: var iv = lo; while iv < hi { body; iv += step; }, `most` trips at most."""
    r = k.rng
    if not r.random() < p:
        return [For(iv, lo, hi, step, body, stages)]
    k.desc.append('while:' + iv)
    ivn = Name(iv, like((), 'i32', 0, hi.hi))
    tick = Assign(iv, '+=', step if step is not None else Lit(1), ivn)
    return [Let(iv, lo if lo is not None else Lit(0), var=True),
            While(Bin('<', ivn, hi), body + [tick], most, bare=r.random() < 0.8)]


def trip_count(k, pid):
    """K of `while w < K`, 0 to 3 trips: a runtime i32, a constexpr (its default or the launch's
    define), a literal, or pid % 3 (the programs differ); (K, its largest value)."""
    r = k.rng
    how = r.choice(['arg', 'arg', 'const', 'lit', 'pid'])
    if how == 'arg':
        n = k.scalar(k.fresh('nw'), 'i32', r.choice([0, 1, 2, 3]))
    elif how == 'const':
        n = k.const(k.fresh('NW'), r.randint(0, 3), other=r.randint(0, 3) if r.random() < 0.4 else None)
    elif how == 'lit':
        n = Lit(r.randint(0, 3))
    else:
        n = Bin('%', pid, Lit(3))
    return n, int(n.hi)


def loop_update(k, v, shape, most, leaves, gate=None):
    """Appends one trip's update of the carried tile v (a var of the pool's shape) for a loop of at
    most `most` trips: v = v * c + y (|c| < 1), v = maximum/minimum(v, y), or v += y, v -= y; y a random
    expression of the pool and `leaves` (the loop's own values), sometimes a let in the body, and the
    update sometimes under `if gate`.  Returns v's Name with the interval it keeps over every trip."""
    r = k.rng
    d = v.dt
    y = fit_to(k.expr(k.pool + leaves, shape, 2), shape, d)
    if r.random() < 0.3:
        y = k.let(y, p='y')
    form = r.choice(['decay', 'max', 'acc'])
    c, fn, op = r.choice([0.5, -0.5, 0.75, 0.25]), r.choice(['maximum', 'minimum']), r.choice(['+', '-'])

    def step(cur):
        if form == 'decay':
            return Bin('+', Bin('*', cur, Lit(c)), y)
        if form == 'max':
            return MinMax(fn, cur, y)
        return Bin(op, cur, y)

    lo, hi = v.lo, v.hi
    for _ in range(most):
        n = step(like(shape, d, lo, hi))
        lo, hi = min(lo, n.lo), max(hi, n.hi)
    cur = Name(v.name, like(shape, d, lo, hi))
    if k.ok(cur, shape) is None:
        raise Reject('a carried tile could grow too large')
    st = Assign(v.name, op + '=', y, cur) if form == 'acc' else Assign(v.name, '=', step(cur), cur)
    k.body.append(If(gate, [st], []) if gate is not None and r.random() < 0.25 else st)
    return cur


def add_while(k, shape, pid, counts, exact, at, slot):
    """var v = ...; while COND { updates of v (and a second tile); the condition's own update }:
    a counter up to K (0 to 3 trips, trip_count) or down from it, a count of `counts` (i32 scalars
    >= 0) halved, or cut by 1, to 0, the largest |x| of an exact float tile (of `exact`) halved
    below a limit -- a scalar var, or the tile itself, its reduction in the condition -- or a ticket:
    `while atomic_add(tk + P, 1) < K` on the program's own counter (slot: P and the count of programs;
    the memory in the condition, read once a test).  A counted loop may store v every trip into a
    region of its own of an output (at: the offsets, mask and size of the tile's elements; the
    regions no trip reaches keep their poison).  The tiles join the pool after the loop (the
    counter too)."""
    r = k.rng
    fl = [x for x in exact if x.dt in FLOATS and not x.ninf]
    room = len(k.bufs) <= MAXBUF - 2
    form = r.choices(['up', 'down', 'halve', 'shrink', 'tile', 'ticket'],
                     [4, 2, 2, 1 if fl else 0, 1 if fl else 0, 1 if room else 0])[0]
    vs = [k.let(fit_to(k.expr(k.pool, shape, 2), shape, float_dt(r)), var=True, p='v')
          for _ in range(1 if r.random() < 0.7 else 2)]
    k.desc.append('while:' + form)
    gate, after = None, []
    if form in ('up', 'down'):
        K, most = trip_count(k, pid)
        w = k.let(Lit(0) if form == 'up' else K, var=True, p='w')
        wn = Name(w.name, like((), 'i32', 0, most))
        if form == 'up':
            cond = r.choice([Bin('<', wn, K), Bin('>', K, wn), Bin('!=', wn, K), Bin('<=', Bin('+', wn, Lit(1)), K)])
            tick = Assign(w.name, '+=', Lit(1), wn) if r.random() < 0.7 else \
                Assign(w.name, '=', Bin('+', wn, Lit(1)), wn)
            after = [Cast(wn, 'f32')]
        else:
            cond = r.choice([Bin('>', wn, Lit(0)), Bin('!=', wn, Lit(0)), wn])
            tick = Assign(w.name, '-=', Lit(1), wn)
        gate = Bin('==', Bin('&', wn, Lit(1)), Lit(0))
        mine = [Cast(wn, 'f32')]
    elif form == 'halve':
        c0 = r.choice(counts)
        hi = int(c0.hi)
        c = k.let(c0, var=True, p='c')
        cn = Name(c.name, like((), 'i32', 0, hi))
        how = r.choice(['>>', '/', '-']) if hi <= 12 else r.choice(['>>', '/'])
        most = hi if how == '-' else hi.bit_length()
        cond = r.choice([Bin('>', cn, Lit(0)), Bin('!=', cn, Lit(0)), cn])
        tick = Assign(c.name, '=', Bin('>>', cn, Lit(1)), cn) if how == '>>' else \
            Assign(c.name, how + '=', Lit(1 if how == '-' else 2), cn)
        gate = Bin('>', cn, Lit(2))
        mine = [Cast(cn, 'f32')]
    elif form == 'ticket':
        K, most = trip_count(k, pid)
        tk = k.buffer(k.fresh('tk'), 'i32', slot[1], 'inout', 'tiny')
        most += 2       # from -2
        t = Atomic('add', Ptr(tk, slot[0]), Lit(1))
        cond = Bin('<', t, K) if r.random() < 0.7 else Bin('>', K, t)
        tick, mine = None, []
    else:
        x = r.choice([x for x in fl if x.shape == shape] or fl) if form == 'tile' else r.choice(fl)
        big = max(abs(x.lo), abs(x.hi))
        lim = r.choice([0.5, 1.0, 0.375])
        most = max(0, math.ceil(math.log2(big / lim))) + 1
        if form == 'shrink':
            m = k.let(full_reduce(k, 'max', Un('abs', x)), var=True, p='m')
            mn = Name(m.name, like((), x.dt, 0, big))
            cond = Bin(r.choice(['>', '>=']), mn, Lit(lim))
            mine = [mn]
            after = [Name(m.name, like((), x.dt, 0, big))]
        else:
            u = k.let(x, var=True, p='u')
            mn = Name(u.name, like(x.shape, x.dt, min(x.lo, 0.0), max(x.hi, 0.0)))
            cond = Bin(r.choice(['>', '>=']), full_reduce(k, 'max', Un('abs', mn)), Lit(lim))
            mine = after = [mn]
        tick = Assign(mn.name, '*=', Lit(0.5), mn) if r.random() < 0.5 else \
            Assign(mn.name, '=', Bin('*', mn, Lit(0.5)), mn)
    outer, k.body = k.body, []
    vs = [loop_update(k, v, shape, most, mine, gate) for v in vs]
    if form in ('up', 'down') and room and r.random() < 0.4:
        ptr, m, size = at
        ow = k.buffer(k.fresh('ow'), float_dt(r), max(most, 1) * size, 'out')
        trip = wn if form == 'up' else Bin('-', wn, Lit(1))
        k.body.append(Store(Ptr(ow, Bin('+', Bin('*', trip, Lit(size)), ptr)), vs[0], m))
    if tick is not None:
        k.body.append(tick)
    body, k.body = k.body, outer
    k.body.append(While(cond, body, most, bare=r.random() < 0.8))
    k.pool += vs + [a for a in after if r.random() < 0.5]


def atomic_value(k, dt, at, m, size, shape, ints, lanes, nan=False, raw=False):
    """An exact value for an atomic on dt memory at `at` (lanes under m): for f32 a load of a buffer
    of SIGNED values (NaNs too, given nan) as it is, negated (not where raw: the NaN's bits go to
    memory, and a negated NaN's are not defined), or -0 in every other lane (lanes: the lanes'
    indices), or a literal; for i32 index arithmetic or a literal."""
    r = k.rng
    if dt == 'i32':
        return k.int_expr(ints, shape, 2) if r.random() < 0.8 else Lit(r.randint(-2, 2))
    if r.random() < 0.15:
        return Lit(r.choice([-0.0, 0.0, -1.5, 2.0]))
    vb = k.buffer(k.fresh('av'), 'f32', size, 'in', 'nan' if nan else 'signed')
    x = Load(Ptr(vb, at), m)
    how = r.choice(['load', 'load', 'neg' if not (nan and raw) else 'load', 'zero' if lanes is not None else 'load'])
    if how == 'neg':
        return Un('neg', x)
    if how == 'zero':
        return Where(Bin('==', Bin('&', lanes, Lit(1)), Lit(0)), x, Lit(-0.0))
    return x


def cas_compare(k, mem, at, m):
    """atomic_cas's compare: a literal of the memory's values, or a load of a buffer that holds the
    memory's value in about half the lanes (for f32 in some the zero of the other sign: no match,
    and a NaN where the memory has one: a match, the bits being equal) and another elsewhere."""
    r = k.rng
    if r.random() < 0.25:
        return Lit(r.choice([x for x in mem.data if x == x] or [0]))
    g = k.buffer(k.fresh('ac'), mem.dt, mem.size, 'in', 'tiny' if mem.dt == 'i32' else 'signed')
    data = []
    for x, y in zip(mem.data, g.data):
        c = r.random()
        data.append(x if c < 0.5 else -x if c < 0.7 and x == 0 else y)
    g.data = data
    return Load(Ptr(g, at), m)


def distinct_atomic(k, at, m, size, shape, ints, lanes=None):
    """An atomic whose old values are used (Atomic), each lane under m on an address of its own among
    `size` (at: a tile of the lanes' own addresses, or a scalar one of the program's own): atomic_cas
    on i32 or f32 (cas_compare), atomic_max/min on f32 (NaN values too) or i32, an i32 add, an xchg.
    The old values are stored under m; returns them as a float leaf (0 in masked lanes), or None
    where a NaN may be among them (or where diff_test's 16 buffers leave no room for its 4)."""
    r = k.rng
    if len(k.bufs) > MAXBUF - 5:
        return None
    kind = r.choices(['cas', 'max', 'min', 'add', 'xchg'], [8, 4, 4, 1, 1])[0]
    dt = 'i32' if kind == 'add' else 'f32' if r.random() < 0.65 else 'i32'
    nan = dt == 'f32' and kind in ('cas', 'xchg') and r.random() < 0.3
    mem = k.buffer(k.fresh('am'), dt, size, 'inout', 'tiny' if dt == 'i32' else 'nan' if nan else 'signed')
    cmp = cas_compare(k, mem, at, m) if kind == 'cas' else None
    v = atomic_value(k, dt, at, m, size, shape, ints, lanes, nan=nan or kind in ('max', 'min') and r.random() < 0.3,
                     raw=kind in ('cas', 'xchg'))
    k.desc.append('atomic_%s:%s%s' % (kind, dt, '' if shape else ':scalar'))
    old = k.let(Atomic(kind, Ptr(mem, at), v, m, cmp, kw=r.random() < 0.2), p='old')
    out = k.buffer(k.fresh('ao'), dt, size, 'out')
    if dt == 'f32':
        mem.view = out.view = 'i32'
    k.body.append(Store(Ptr(out, at), old, m))
    if nan:
        return None
    leaf = old if m is None else Where(m, old, Lit(0.0 if dt == 'f32' else 0))
    return leaf if dt == 'f32' else Cast(leaf, 'f32')


def fam_loop(k):
    """1-D loops carrying accumulators: a grid-stride loop, or CH chunks a program (a constexpr
    count); reductions of the accumulators after the loop."""
    r = k.rng
    B = pow2(r, 1, 2048)
    chunks = r.random() < 0.4
    n = ragged(r, B, r.randint(1, max(1, min(8, 8192 // B))))
    if chunks:
        CH = r.randint(1, 4)
        nprog = -(-n // (B * CH))
    else:
        nprog = r.randint(1, 4)
    ax = place_axes(k, [nprog])[0]
    k.pick_warps()
    k.desc += ['loop', 'BLOCK=%d' % B, 'n=%d' % n, 'chunks=%d' % CH if chunks else 'grid-stride',
               'programs=%d' % nprog]
    xs = inputs(k, r, r.randint(1, 2), n)
    out = k.buffer('out0', float_dt(r), n + r.randint(0, 9), 'out') if r.random() < 0.6 else None
    osc = k.buffer('osc', 'f32', nprog, 'out')
    omx = k.buffer('omx', r.choice(['f32', 'f16']), nprog, 'out') if r.random() < 0.5 else None
    atom = k.buffer('acc', r.choice(['f32', 'i32']), 4, 'inout', 'int') if r.random() < 0.3 else None
    ocnt = k.buffer('ocnt', 'i32', nprog, 'out') if r.random() < 0.3 else None
    slot = None
    if r.random() < 0.25:   # a scalar atomic on the program's own slot, every trip: old values in program order
        skind = r.choice(['max', 'min', 'cas', 'xchg'])
        sdt = r.choice(['f32', 'f32', 'i32'])
        slot = k.buffer('slot', sdt, nprog, 'inout', 'signed' if sdt == 'f32' else 'tiny')
        oslot = k.buffer('oslot', sdt, nprog, 'out')
        if sdt == 'f32':
            slot.view = oslot.view = 'i32'
        k.desc.append('loop-atomic_%s:%s' % (skind, slot.dt))
    nn = k.scalar('n', 'i32', n)
    blk = k.const('BLOCK', B, other=B * 2 if r.random() < 0.3 else None)
    ch = k.const('CH', CH, other=CH + 1 if r.random() < 0.3 else None) if chunks else None
    cols = k.let(Arange(0, B, 'BLOCK'), p='cols')
    acc_dt = r.choice(['f32', 'f32', 'f16'])
    acc = k.let(Full((B,), 0.0, acc_dt, zeros=True, names=['BLOCK']), var=True, p='acc')
    mx = k.let(Lit(-1e4) if r.random() < 0.5 else Cast(Lit(-1000.0), 'f32'), var=True, p='mx') \
        if omx is not None else None
    cnt = k.let(Lit(0), var=True, p='cnt') if ocnt is not None else None
    pid = Pid(ax, False, nprog)
    if slot is not None:    # the last old value the atomic returned (cas compares with it)
        last = k.let(Lit(r.choice(slot.data) if slot.dt == 'i32' else r.choice([-0.0, 0.0, 2.0])), var=True,
                     p='last')
    outer, k.body = k.body, []
    iv = 'c' if chunks else 'start'
    if chunks:
        first = Bin('*', Bin('+', Bin('*', pid, ch), Name(iv, like((), 'i32', 0, CH - 1))), blk)
    else:
        first = Name(iv, like((), 'i32', 0, n))
    offs = k.let(Bin('+', first, cols), p='offs')
    mask = k.let(Bin('<', offs, nn), p='mask')
    leaves = [k.let(Load(Ptr(b, offs), mask, other_for(r, b)), p='x') for b in xs]
    fleaves = [Cast(x, 'f32') if x.dt in INTS else x for x in leaves]
    body_exprs(k, fleaves, (B,), r.randint(0, 2))
    e = as_tile(k.expr(k.pool, (B,), r.randint(1, 3), reducible=False), (B,))
    if e.dt != acc_dt:
        e = Cast(e, acc_dt)
    reps, K = r.choice([1, 1, 1, 2, 3]), None
    if r.random() < 0.25:   # the loop in the loop a while, 0 to 3 trips
        K, reps = trip_count(k, pid)
    if acc_dt == 'f16' and max(abs(e.lo), abs(e.hi)) * reps * n / B > 1e4:
        raise Reject('the f16 accumulator could overflow')
    add = Assign(acc.name, r.choice(['+=', '+=', '-=']), e, acc)
    if K is not None:
        k.desc.append('while:reps')
        j = k.let(Lit(0), var=True, p='j')
        jn = Name(j.name, like((), 'i32', 0, reps))
        k.body.append(While(Bin('<', jn, K), [add, Assign(j.name, '+=', Lit(1), jn)], reps, bare=r.random() < 0.8))
    else:
        k.body.append(add if reps == 1 else For('j', None, Lit(reps), None, [add]))     # a loop in the loop
    if cnt is not None:
        k.body.append(Assign(cnt.name, '+=', Reduce('sum', mask, 0), cnt))
    if mx is not None:
        m = Reduce('max', as_tile(k.expr(k.pool, (B,), 2, reducible=False), (B,)), 0)
        if m.dt != 'f32':
            m = Cast(m, 'f32')
        k.body.append(Assign(mx.name, '=', MinMax('maximum', mx, m), mx))
    if out is not None:
        k.body.append(Store(Ptr(out, offs), k.expr(k.pool, (B,), 2), mask))
    if atom is not None:
        v = Reduce('sum', Cast(leaves[0], atom.dt), 0)
        k.body.append(Store(Ptr(atom, Lit(r.randrange(4))), v, atomic=True))
    if slot is not None:
        if slot.dt == 'i32':
            v = Bin('-', Reduce('sum', mask, 0), Lit(r.randint(0, 3)))
        else:   # exact: no f64 (its rounding), no -0 among the inputs (a reduction's zero has no sign to trust)
            x = r.choice([x for x in fleaves if x.dt != 'f64'] or [Lit(1.5)])
            v = Reduce(r.choice(['max', 'min']), x, 0) if x.shape else x
            v = v if v.dt == 'f32' else Cast(v, 'f32')
        so = k.let(Atomic(skind, Ptr(slot, pid), v, cmp=last if skind == 'cas' else None), p='old')
        k.body.append(Assign(last.name, '=', so, last))
    body, k.body = k.body, outer
    # the loop's own num_stages: 2 or 3 prefetch its loads even past its stores and atomics, which
    # write out and acc, never an input it loads; 1 turns prefetch off
    stages = r.choice([None, None, 1, 2, 3])
    pw = 0.4 if stages is None else 0.0      # a while takes no num_stages: only a loop without one
    if chunks:
        k.body += counted(k, iv, None, ch, None, body, CH, stages, pw) if r.random() < 0.5 \
            else counted(k, iv, Lit(0), ch, Lit(1), body, CH, stages, pw)
    else:
        stride = Bin('*', Pid(ax, True, nprog), blk)
        k.body += counted(k, iv, Bin('*', pid, blk), nn, stride, body, -(-n // (nprog * B)), stages, pw)
    if slot is not None:
        k.body.append(Store(Ptr(oslot, pid), last))
    k.body.append(Store(Ptr(osc, pid), reduce_all(k, r.choice(['sum', 'max', 'min']), acc)))
    if mx is not None:
        k.body.append(Store(Ptr(omx, pid), mx))
    if cnt is not None:
        k.body.append(Store(Ptr(ocnt, pid), cnt))


def fam_mat(k):
    """2-D blocks [BM, BN] of an M x N matrix; reductions along both axes and of each other."""
    r = k.rng
    shapes = [(1, 256), (256, 2), (16, 64), (64, 16), (2, 2), (1, 1), (32, 32), (8, 128), (128, 8),
              (4, 4), (1, 64), (64, 1), (2, 1024), (1024, 2), (16, 16), (4, 512)]
    if r.random() < 0.5:
        BM, BN = r.choice(shapes)
    else:
        BM = pow2(r, 1, 256)
        BN = pow2(r, 1, max(1, 4096 // BM))
    gm = r.randint(1, max(1, min(4, 2048 // (BM * BN) + 1)))
    gn = r.randint(1, max(1, min(3, 2048 // (BM * BN) + 1)))
    M, N = ragged(r, BM, gm), ragged(r, BN, gn)
    stride = N + r.choice([0, 0, 3, 16 - N % 16])
    ar, ac = place_axes(k, [gm, gn])
    k.pick_warps()
    k.desc += ['mat', '%dx%d' % (BM, BN), 'M=%d N=%d stride=%d' % (M, N, stride)]
    xs = inputs(k, r, r.randint(1, 3), M * stride)
    bias = k.buffer('bias', float_dt(r), N, 'in') if r.random() < 0.4 else None
    rb = k.buffer('rowv', float_dt(r), M, 'in', 'pos') if r.random() < 0.3 else None
    out = k.buffer('out', None, M * stride + 5, 'out')
    ot = k.buffer('outt', float_dt(r), N * M, 'out') if r.random() < 0.2 else None
    orow = k.buffer('orow', None, M * gn, 'out') if r.random() < 0.6 else None
    ocol = k.buffer('ocol', None, N * gm, 'out') if r.random() < 0.5 else None
    osc = k.buffer('osc', 'f32', gm * gn, 'out') if r.random() < 0.5 else None
    oarg = k.buffer('oarg', 'i32', M * gn, 'out') if r.random() < 0.3 else None
    opair = k.buffer('opair', None, 2 * M * stride + r.choice([0, 4]), 'out') if BM * BN <= 4096 and r.random() < 0.1 \
        else None
    acol, akind = None, 'add'
    if r.random() < 0.35:
        adt = r.choice(['f32', 'i32'])
        akind = r.choice(['add', 'add', 'max', 'min']) if adt == 'f32' else 'add'
        acol = k.buffer('acol', adt, N + 2, 'inout', 'int' if akind == 'add' else 'signed')
        if akind != 'add':
            acol.view = 'i32'
    mm, nn = k.scalar('M', 'i32', M), k.scalar('N', 'i32', N)
    sn = k.scalar('stride', 'i32', stride)
    bm = k.const('BM', BM, other=pow2(r, 1, 64) if r.random() < 0.4 else None)
    bn = k.const('BN', BN, other=pow2(r, 1, 64) if r.random() < 0.4 else None)
    alpha = k.scalar('alpha', 'f32', r.choice([0.5, 1.5, -0.75])) if r.random() < 0.3 else None
    pr, pc = Pid(ar, False, gm), Pid(ac, False, gn)
    rows = k.let(Bin('+', Bin('*', pr, bm), Arange(0, BM, 'BM')), p='rows')
    cols = k.let(Bin('+', Bin('*', pc, bn), Arange(0, BN, 'BN')), p='cols')
    rmask, cmask = k.let(Bin('<', rows, mm), p='rm'), k.let(Bin('<', cols, nn), p='cm')
    mask = k.let(Bin('&', Index(rmask, [':', None]), Index(cmask, [None, ':'])), p='mask')
    shape = (BM, BN)
    leaves = []
    for b in xs:
        # row-major with the stride, column-major, or the row's first element throughout
        how = r.choices(['rows', 'cols', 'first'], [6, 2, 1])[0]
        k.desc.append('%s:%s' % (b.name, how))
        if how == 'cols':
            off = Bin('+', Bin('*', Index(cols, [None, ':']), mm), Index(rows, [':', None]))
        elif how == 'first':
            off = Bin('+', Bin('*', Index(rows, [':', None]), sn), Bin('*', Index(cols, [None, ':']), Lit(0)))
        else:
            off = Bin('+', Bin('*', Index(rows, [':', None]), sn), Index(cols, [None, ':']))
        ld = Load(Ptr(b, off, split=r.random() < 0.5), mask, other_for(r, b), kw=r.random() < 0.2)
        x = k.let(ld, p='x')
        leaves.append(Cast(x, 'f32') if x.dt in INTS and r.random() < 0.5 else x)
    if bias is not None:
        leaves.append(Index(k.let(Load(Ptr(bias, cols), cmask, Lit(0.0)), p='b'), [None, ':']))
    if rb is not None:
        leaves.append(Index(k.let(Load(Ptr(rb, rows), rmask, Lit(1.0)), p='rv'), [':', None]))
    if alpha is not None:
        leaves.append(alpha)
    exact = list(leaves)
    ints = [Index(rows, [':', None]), Index(cols, [None, ':'])]
    if r.random() < 0.4:
        leaves.append(k.let(Cast(k.int_expr(ints, shape, 2), r.choice(FLOATS)), p='ix'))
    at = Bin('+', Bin('*', Index(rows, [':', None]), sn), Index(cols, [None, ':']))
    if r.random() < 0.3:      # each element its own address: old values deterministic
        old = distinct_atomic(k, at, mask, M * stride, shape, ints, Index(cols, [None, ':']))
        if old is not None:
            leaves.append(old)
    fleaves = [x for x in leaves if x.dt in FLOATS] or [Cast(leaves[0], 'f32')]
    body_exprs(k, fleaves, shape, r.randint(1, 3))
    add_combines(k, shape, Bin('+', Bin('*', pr, Lit(gn)), pc), gm * gn, ints, exact)
    add_orders(k, shape, Bin('+', Bin('*', pr, Lit(gn)), pc), gm * gn, ints, exact)
    if r.random() < 0.15:
        add_while(k, shape, pr, [Reduce('sum', rmask, 0), pr, Bin('%', mm, Lit(4))], exact, (at, mask, M * stride),
                  (Bin('+', Bin('*', pr, Lit(gn)), pc), gm * gn))
    if r.random() < 0.25:
        conds = [Bin('!=', Bin('&', pr, Lit(1)), Lit(0)), Bin('<', pc, Lit(1)), Bin('>=', mm, Lit(r.randint(1, 99))),
                 flag(k)]
        add_if(k, shape, conds)
    e = k.expr(k.pool, shape, r.randint(1, 4))
    k.set_dt(out, out_dt(r, e))
    k.body.append(Store(Ptr(out, Bin('+', Bin('*', Index(rows, [':', None]), sn), Index(cols, [None, ':']))),
                        e, mask))
    if ot is not None:
        t = as_tile(k.expr(k.pool, shape, 2), shape)
        tm = Bin('&', Index(cmask, [':', None]), Index(rmask, [None, ':']))
        k.body.append(Store(Ptr(ot, Bin('+', Bin('*', Index(cols, [':', None]), mm), Index(rows, [None, ':']))),
                            Trans(t), tm))
    full = lambda: as_tile(k.expr(k.pool, shape, r.randint(1, 3), reducible=False), shape)
    rowred = None
    if orow is not None:
        rowred = Reduce(r.choice(['sum', 'max', 'min']), full(), 1, r.choice([0, 1, 2]))
        rowred = k.let(rowred, p='rr')
        k.set_dt(orow, float_dt(r))
        k.body.append(Store(Ptr(orow, Bin('+', Bin('*', pc, mm), rows)), rowred, rmask))
    if ocol is not None:
        c = Reduce(r.choice(['sum', 'max', 'min']), full(), 0)
        k.set_dt(ocol, float_dt(r))
        k.body.append(Store(Ptr(ocol, Bin('+', Bin('*', pr, nn), cols)), c, cmask))
    if osc is not None:
        if rowred is not None and r.random() < 0.5:
            s = Reduce(r.choice(['sum', 'max', 'min']), rowred, 0)
        else:
            fn = r.choice(['sum', 'max', 'min'])
            s = Reduce(fn, reshape(k, full(), (BM * BN,)), 0) if r.random() < 0.12 else \
                Reduce(fn, Reduce(r.choice(['sum', 'max', 'min']), full(), r.randrange(2)), 0)
        lin = Bin('+', Bin('*', pr, Pid(ac, True, gn)), pc)
        k.body.append(Store(Ptr(osc, lin), s))
    if oarg is not None:
        src = as_tile(r.choice([x for x in leaves if x.shape == shape] or [leaves[0]]), shape)
        k.body.append(Store(Ptr(oarg, Bin('+', Bin('*', pc, mm), rows)),
                            Reduce(r.choice(['argmax', 'argmin']), src, 1), rmask))
    if opair is not None:
        pair_store(k, opair, at, shape, mask, lambda: extra_mask(k, mask, Index(cols, [None, ':']), exact), ints)
    if acol is not None and akind != 'add':
        # every row of every row block on its column's address: the IEEE maximum or minimum
        v = atomic_value(k, 'f32', at, mask, M * stride, shape, ints, Index(rows, [':', None]),
                         nan=r.random() < 0.3)
        k.desc.append('acol:%s' % akind)
        col0 = Bin('+', Bin('*', Index(rows, [':', None]), Lit(0)), Index(cols, [None, ':']))
        k.body.append(Store(Ptr(acol, col0), v, mask, atomic=True, kind=akind))
    elif acol is not None:
        # column sums (or counts of the valid rows) from every row block, atomically
        if acol.dt == 'i32':
            v = Reduce('sum', mask, 0) if r.random() < 0.5 else Reduce('sum', Cast(as_tile(leaves[0], shape), 'i32'), 0)
        else:
            v = Reduce('sum', full(), 0)
        k.body.append(Store(Ptr(acol, cols), v, cmask, atomic=True))


def fam_rows(k):
    """Rows reduced across column chunks in a loop (two passes: statistics, then the output)."""
    r = k.rng
    BM = pow2(r, 1, 64)
    BN = pow2(r, 1, max(1, min(1024, 2048 // BM)))
    gm = r.randint(1, 3)
    M = ragged(r, BM, gm)
    chunks = r.randint(1, 4)
    N = ragged(r, BN, chunks)
    stride = N + r.choice([0, 5])
    k.grid[0] = gm
    k.pick_warps()
    k.desc += ['rows', '%dx%d' % (BM, BN), 'M=%d N=%d' % (M, N)]
    x = inputs(k, r, 1, M * stride, with_int=False)[0]
    out = k.buffer('out', float_dt(r), M * stride, 'out') if r.random() < 0.7 else None
    ost = k.buffer('stats', 'f32', 2 * M + 1, 'out')
    mm, nn, sn = k.scalar('M', 'i32', M), k.scalar('N', 'i32', N), k.scalar('stride', 'i32', stride)
    bn = k.const('BN', BN)
    bm = k.const('BM', BM)
    rows = k.let(Bin('+', Bin('*', Pid(0, False, gm), bm), Arange(0, BM, 'BM')), p='rows')
    rmask = k.let(Bin('<', rows, mm), p='rm')
    s1 = k.let(Full((BM, BN), 0.0, 'f32', zeros=True, names=['BM', 'BN']), var=True, p='s')
    m1 = k.let(Full((BM,), -10000.0, 'f32', names=['BM']), var=True, p='m')
    outer = k.body
    kk = Name('kk', like((), 'i32', 0, N))

    def chunk():
        cols = k.let(Bin('+', kk, Arange(0, BN, 'BN')), p='cols')
        mask = k.let(Bin('&', Index(rmask, [':', None]), Index(Bin('<', cols, nn), [None, ':'])), p='mask')
        p = Ptr(x, Bin('+', Bin('*', Index(rows, [':', None]), sn), Index(cols, [None, ':'])))
        return cols, mask, k.let(Load(p, mask, Lit(0.0)), p='x')

    k.body = []
    cols, mask, xv = chunk()
    body_exprs(k, [xv], (BM, BN), r.randint(0, 2))
    e = as_tile(k.expr(k.pool, (BM, BN), 2, reducible=False), (BM, BN))
    if e.dt != 'f32':
        e = Cast(e, 'f32')
    if r.random() < 0.5:  # the masked lanes add 0, not e(0): layer norm's where(cols < N, x - mean, 0)
        e = Where(mask, e, Lit(0.0))
    k.body.append(Assign(s1.name, '+=', e, s1))
    k.body.append(Assign(m1.name, '=', MinMax('maximum', m1, Cast(Reduce('max', xv, 1), 'f32')), m1))
    loop1 = k.body
    k.body = outer
    k.body += counted(k, 'kk', Lit(0), nn, bn, loop1, -(-N // BN))
    span = max(abs(e.lo), abs(e.hi)) * chunks
    tot = k.let(Reduce('sum', Name(s1.name, like((BM, BN), 'f32', -span, span)), 1), p='tot')
    k.body.append(Store(Ptr(ost, rows), tot, rmask))
    k.body.append(Store(Ptr(ost, Bin('+', rows, mm)), m1, rmask))
    if out is not None:
        k.body = []
        cols, mask, xv = chunk()
        mx = Name(m1.name, like((BM,), 'f32', min(x.lo, 0.0), max(x.hi, 0.0)))
        leaves = [xv, Index(mx, [':', None]), Index(tot, [':', None])]
        y = k.expr(leaves, (BM, BN), r.randint(1, 3))
        k.body.append(Store(Ptr(out, Bin('+', Bin('*', Index(rows, [':', None]), sn), Index(cols, [None, ':']))),
                            y, mask))
        loop2 = k.body
        k.body = outer
        k.body += counted(k, 'kk', Lit(0), nn, bn, loop2, -(-N // BN))


def fam_softmax(k):
    """Softmax-like rows: -inf in the masked lanes, max, exp, sum, divide; one pass, or online in a loop.

    Rows past M load row M-1 again (the row index is clamped), so no row is all -inf."""
    r = k.rng
    online = r.random() < 0.4
    flat = not online and r.random() < 0.3          # 1-D: one row per program
    BM = 1 if flat else pow2(r, 1, 16)
    BN = pow2(r, 1, max(1, min(2048, 4096 // BM)))
    gm = r.randint(1, 3)
    M = gm if flat else ragged(r, BM, gm)
    N = ragged(r, BN, r.randint(1, 3) if online else 1)
    ax = r.randrange(3)
    k.grid[ax] = gm
    k.pick_warps()
    k.desc += ['softmax', '1x%d rows' % BN if flat else '%dx%d' % (BM, BN), 'M=%d N=%d' % (M, N),
               'online' if online else 'one-pass']
    x = k.buffer('x', float_dt(r), M * N, 'in', r.choice(['cont', 'cont', 'int']))
    out = k.buffer('out', float_dt(r), M * N + 7, 'out')
    lse = k.buffer('lse', 'f32', M, 'out') if r.random() < 0.5 else None
    am = k.buffer('am', 'i32', M, 'out') if r.random() < 0.4 and not online else None
    mm, nn = k.scalar('M', 'i32', M), k.scalar('N', 'i32', N)
    scale = k.scalar('scale', 'f32', r.choice([1.0, 0.5, 2.0, 0.125])) if r.random() < 0.5 else None
    bn = k.const('BN', BN)
    pid = Pid(ax, False, gm)
    if flat:
        rows = k.let(pid, p='row')
    else:
        rows = k.let(Bin('+', Bin('*', pid, Lit(BM)), Arange(0, BM)), p='rows')
        rr = k.let(MinMax('minimum', rows, Bin('-', mm, Lit(1))), p='rr')
    col = (lambda c: c) if flat else (lambda c: Index(c, [None, ':']))
    row = (lambda c: c) if flat else (lambda c: Index(c, [':', None]))
    rmask = None if flat else Bin('<', rows, mm)
    omask = (lambda cols: Bin('<', cols, nn)) if flat else \
        (lambda cols: Bin('&', Index(rmask, [':', None]), Index(Bin('<', cols, nn), [None, ':'])))
    axis = 0 if flat else 1

    def load_row(cols):
        p = Ptr(x, Bin('+', Bin('*', rows if flat else Index(rr, [':', None]), nn), col(cols)))
        v = k.let(Load(p, col(Bin('<', cols, nn)), Lit(-math.inf)), p='x')
        z = Bin('*', v, scale) if scale is not None else v
        return v, k.let(z if z.dt == 'f32' else Cast(z, 'f32'), p='z')

    def out_ptr(cols):
        return Ptr(out, Bin('+', Bin('*', row(rows), nn), col(cols)))

    if not online:
        cols = k.let(Arange(0, BN, 'BN'), p='cols')
        xv, z = load_row(cols)
        m = k.let(Reduce('max', z, axis, r.choice([0, 1])), p='mx')
        if r.random() < 0.5:
            ex = k.let(Un('exp', Bin('-', z, row(m))), p='e')
        else:
            ex = k.let(Un('exp2', Bin('*', Bin('-', z, row(m)), Lit(1.4426950408889634))), p='e')
        s = k.let(Reduce('sum', ex, axis), p='sm')
        p = Bin('/', ex, row(s)) if r.random() < 0.7 else Bin('*', ex, row(Bin('/', Lit(1.0), s)))
        k.body.append(Store(out_ptr(cols), p, omask(cols)))
        if lse is not None:
            k.body.append(Store(Ptr(lse, rows), Bin('+', m, Un('log', s)), rmask))
        if am is not None:
            k.body.append(Store(Ptr(am, rows), Reduce('argmax', xv, axis), rmask))
        return
    m = k.let(Full((BM,), -math.inf, 'f32'), var=True, p='m')
    l = k.let(Full((BM,), 0.0, 'f32', zeros=True), var=True, p='l')
    kk = Name('kk', like((), 'i32', 0, N))
    outer, k.body = k.body, []
    cols = k.let(Bin('+', kk, Arange(0, BN, 'BN')), p='cols')
    xv, z = load_row(cols)
    mn = k.let(MinMax('maximum', m, Reduce('max', z, 1)), p='mn')
    k.body.append(Assign(l.name, '=', Bin('+', Bin('*', l, Un('exp', Bin('-', m, mn))),
                                          Reduce('sum', Un('exp', Bin('-', z, Index(mn, [':', None]))), 1)), l))
    k.body.append(Assign(m.name, '=', mn, m))
    loop1, k.body = k.body, outer
    k.body += counted(k, 'kk', Lit(0), nn, bn, loop1, -(-N // BN))
    outer, k.body = k.body, []
    cols = k.let(Bin('+', kk, Arange(0, BN, 'BN')), p='cols')
    xv, z = load_row(cols)
    k.body.append(Store(out_ptr(cols), Bin('/', Un('exp', Bin('-', z, Index(m, [':', None]))),
                                           Index(l, [':', None])), omask(cols)))
    loop2, k.body = k.body, outer
    k.body += counted(k, 'kk', Lit(0), nn, bn, loop2, -(-N // BN))
    if lse is not None:
        k.body.append(Store(Ptr(lse, rows), Bin('+', m, Un('log', l)), rmask))


def fam_cube(k):
    """3-D tiles [A, B, C] of a D0 x B x D2 array (ragged along the first and last axes);
    a [B, C] plane and an [A] vector broadcast into it; reductions along each axis."""
    r = k.rng
    A, B = pow2(r, 1, 16), pow2(r, 1, 16)
    C = pow2(r, 1, max(1, min(256, 2048 // (A * B))))
    ga = r.randint(1, 3)
    D0, D2 = ragged(r, A, ga), ragged(r, C, 1)
    S2 = D2 + r.choice([0, 0, 3])
    ax = place_axes(k, [ga])[0]
    k.pick_warps()
    k.desc += ['cube', '%dx%dx%d' % (A, B, C), 'D0=%d D2=%d' % (D0, D2)]
    shape = (A, B, C)
    xs = inputs(k, r, r.randint(1, 2), D0 * B * S2)
    plane = k.buffer('plane', float_dt(r), B * D2, 'in') if r.random() < 0.5 else None
    vec = k.buffer('vec', float_dt(r), D0, 'in', 'pos') if r.random() < 0.4 else None
    out = k.buffer('out', None, D0 * B * S2 + 3, 'out')
    o12 = k.buffer('o12', float_dt(r), D0 + 2, 'out') if r.random() < 0.5 else None
    o1 = k.buffer('o1', float_dt(r), D0 * D2, 'out') if r.random() < 0.5 else None
    o0 = k.buffer('o0', 'f32', ga * B * D2, 'out') if r.random() < 0.5 else None
    d0, d2 = k.scalar('D0', 'i32', D0), k.scalar('D2', 'i32', D2)
    s2 = k.scalar('S2', 'i32', S2)
    ca = k.const('A', A, other=pow2(r, 1, 16) if r.random() < 0.3 else None)
    pid = Pid(ax, False, ga)
    i = k.let(Bin('+', Bin('*', pid, ca), Arange(0, A, 'A')), p='i')
    j = k.let(Arange(0, B), p='j')
    c = k.let(Arange(0, C), p='c')
    I, J, K = Index(i, [':', None, None]), Index(j, [None, ':', None]), Index(c, [None, None, ':'])
    imask, cmask = k.let(Bin('<', i, d0), p='im'), k.let(Bin('<', c, d2), p='cm')
    mask = k.let(Bin('&', Index(imask, [':', None, None]), Index(cmask, [None, None, ':'])), p='mask')
    off = Bin('+', Bin('*', Bin('+', Bin('*', I, Lit(B)), J), s2), K)
    leaves = [k.let(Load(Ptr(b, off), mask, other_for(r, b)), p='x') for b in xs]
    leaves = [x if x.dt in FLOATS else Cast(x, 'f32') for x in leaves]
    if r.random() < 0.2:      # each element its own address: old values deterministic
        old = distinct_atomic(k, off, mask, D0 * B * S2, shape, [I, J, K], K)
        if old is not None:
            leaves.append(old)
    if plane is not None:
        pm = Index(Bin('<', c, d2), [None, ':'])
        p2 = Load(Ptr(plane, Bin('+', Bin('*', Index(j, [':', None]), d2), Index(c, [None, ':']))), pm, Lit(0.0))
        leaves.append(Index(k.let(p2, p='pl'), [None, ':', ':']))
    if vec is not None:
        leaves.append(Index(k.let(Load(Ptr(vec, i), imask, Lit(1.0)), p='v'), [':', None, None]))
    body_exprs(k, leaves, shape, r.randint(1, 3))
    add_combines(k, shape, pid, ga, [I, J, K], [x for x in leaves if x.dt in FLOATS and x.shape])
    add_orders(k, shape, pid, ga, [I, J, K], [x for x in leaves if x.dt in FLOATS and x.shape])
    if r.random() < 0.2:
        add_while(k, shape, pid, [Reduce('sum', imask, 0), pid], leaves, (off, mask, D0 * B * S2), (pid, ga))
    e = k.expr(k.pool, shape, r.randint(1, 4))
    k.set_dt(out, out_dt(r, e))
    k.body.append(Store(Ptr(out, off), e, mask))
    full = lambda: as_tile(k.expr(k.pool, shape, r.randint(1, 3), reducible=False), shape)
    red = lambda: r.choice(['sum', 'max', 'min'])
    if o12 is not None:     # [A]: over the last two axes (or over them merged by a reshape)
        if r.random() < 0.15:
            k.body.append(Store(Ptr(o12, i), Reduce(red(), reshape(k, full(), (A, B * C)), 1), imask))
        else:
            k.body.append(Store(Ptr(o12, i), Reduce(red(), Reduce(red(), full(), 2), 1), imask))
    if o1 is not None:      # [A, C]: over the middle axis
        k.body.append(Store(Ptr(o1, Bin('+', Bin('*', Index(i, [':', None]), d2), Index(c, [None, ':']))),
                            Reduce(red(), full(), 1, r.choice([0, 1, 2])),
                            Bin('&', Index(imask, [':', None]), Index(cmask, [None, ':']))))
    if o0 is not None:      # [B, C]: over the first axis, one plane a program
        at = Bin('+', Bin('*', pid, Lit(B * D2)), Bin('+', Bin('*', Index(j, [':', None]), d2), Index(c, [None, ':'])))
        k.body.append(Store(Ptr(o0, at), Reduce(red(), full(), 0), Index(cmask, [None, ':'])))


def fam_dot(k):
    """Matrix products: [BM, BK] x [BK, BN] tiles of A [M, K] and B [K, N] (each row- or
    column-major, or loaded the other way round and transposed), summed over K in a loop
    (pipelined where the loads feed the dot; offsets indexed or carried) or in one product;
    operands straight from memory, cast or scaled; an epilogue of random element-wise work and
    reductions on the accumulator, with a bias row, a row vector and a scalar; sometimes a
    second product of the epilogue's result (attention's P V)."""
    r = k.rng
    dt = r.choices(['f16', 'bf16', 'f32', 'tf32', 'i8', 'i16', 'i32'], [8, 5, 2, 2, 2, 1, 1])[0]
    tf32 = dt == 'tf32'
    dt = 'f32' if tf32 else dt
    # half the int8 products as sm_90a runs them on wgmma: a K loop over K-major A and B (B loaded
    # [N, K] and transposed), K and the leading dimensions mostly multiples of 16 (the JIT's hints),
    # a warpgroup's 64 rows or more
    wg8 = dt == 'i8' and r.random() < 0.5
    k.warps = r.choices([1, 2, 4, 8, 16], [1, 2, 5, 4, 1])[0] if not wg8 else r.choice([4, 8])
    if r.random() < 0.5:
        k.attrs.append('@num_warps(%d)' % k.warps)
        k.warps_opt = 0
    else:
        k.warps_opt = k.warps
    BM, BN, BK = pow2(r, 16, 128), pow2(r, 16, 128), pow2(r, 16, 64)
    if wg8:
        BM, BK = max(BM, 16 * k.warps), max(BK, 32)
    # CUDA cores (FMA): f32 without tf32, i16, i32, and i8 where BK is no multiple of mma's 32
    fma = dt in ('i16', 'i32') or (dt == 'i8' and BK % 32) or (dt == 'f32' and not tf32)
    # a quarter of what passes/layout.c lets CUDA cores unroll (8192 x 32 x warps): compiles stay short
    while fma and BM * BN * BK > 2048 * 32 * k.warps:
        if BK > 16:
            BK //= 2
        elif BM >= BN:
            BM //= 2
        else:
            BN //= 2
    loop = wg8 or r.random() < 0.75
    gm, gn, nk = r.randint(1, 3), r.randint(1, 3), r.randint(1, 4) if loop else 1
    while gm * gn * nk * BM * BN * BK > 1200000:         # the reference's patience
        if nk > 1:
            nk -= 1
        elif gm > 1:
            gm -= 1
        else:
            gn -= 1
    M, N, K = ragged(r, BM, gm), ragged(r, BN, gn), ragged(r, BK, nk)
    if wg8 and r.random() < 0.9:
        K = -(-K // 16) * 16
    src = r.choice(['f32', dt]) if dt in ('f16', 'bf16') and r.random() < 0.2 else dt
    how_a, how_b = r.choices(['row', 'col', 'trans'], [5, 2, 2], k=2)
    if wg8:
        how_a, how_b = 'row', 'trans'
    wrap = r.random() < 0.3
    carried = loop and r.random() < 0.4
    pa, pb = r.choice([0, 0, 3, 8]), r.choice([0, 0, 5, 8])
    if wg8:
        pa, pb = r.choice([0, 16, 16, 5]), r.choice([0, 16, 16, 5])
    lda = (K if how_a == 'row' else M) + pa
    ldb = (N if how_b == 'row' else K) + pb
    ax = place_axes(k, [gm, gn])
    k.desc += ['dot', dt + (' tf32' if tf32 else '') + ('' if src == dt else ' from ' + src),
               '%dx%dx%d' % (BM, BN, BK), 'M=%d N=%d K=%d' % (M, N, K), 'A:%s B:%s' % (how_a, how_b),
               'loop' if loop else 'one step'] + ['carried'] * carried + ['wrap'] * wrap
    stage = (BM * BK + BK * BN) * {'f16': 2, 'bf16': 2, 'i8': 1, 'i16': 2}.get(dt, 4)
    if loop and r.random() < 0.6:
        S = r.randint(3 if wg8 else 1, 5)
        while S > 1 and S * stage > 160 * 1024:
            S -= 1
        k.attrs.append('@num_stages(%d)' % S)
    if r.random() < 0.1:
        k.attrs.append('@fp_fusion(false)')
    kind = 'int' if r.random() < 0.3 else 'cont'
    a = k.buffer('a', src, (M if how_a == 'row' else K) * lda, 'in', kind)
    b = k.buffer('b', src, (N if how_b != 'row' else K) * ldb, 'in', kind)
    fl = dt in FLOATS
    bias = k.buffer('bias', float_dt(r), N, 'in') if fl and r.random() < 0.4 else None
    rowv = k.buffer('rowv', float_dt(r), M, 'in', 'pos') if fl and r.random() < 0.3 else None
    second = dt in ('f16', 'bf16') and r.random() < 0.25
    BD = pow2(r, 16, 64) if second else 0
    v = k.buffer('v', dt, N * BD, 'in') if second else None
    out = k.buffer('c', None, M * N + r.choice([0, 7]), 'out')
    out2 = k.buffer('o', 'f32', gn * M * BD, 'out') if second else None
    mm, nn, kd = k.scalar('M', 'i32', M), k.scalar('N', 'i32', N), k.scalar('K', 'i32', K)
    sa, sb = k.scalar('lda', 'i32', lda), k.scalar('ldb', 'i32', ldb)
    alpha = k.scalar('alpha', 'f32', r.choice([0.5, 1.5, -0.75])) if fl and r.random() < 0.3 else None
    bm, bn = k.const('BM', BM), k.const('BN', BN)
    bk = k.const('BK', BK, other=BK * 2 if r.random() < 0.3 else None)
    pm, pn = Pid(ax[0], False, gm), Pid(ax[1], False, gn)
    cm = k.let(Bin('+', Bin('*', pm, bm), Arange(0, BM, 'BM')), p='cm')
    cn = k.let(Bin('+', Bin('*', pn, bn), Arange(0, BN, 'BN')), p='cn')
    rm = k.let(Bin('%', cm, mm), p='rm') if wrap else cm
    rn = k.let(Bin('%', cn, nn), p='rn') if wrap else cn
    rk = k.let(Arange(0, BK, 'BK'), p='rk')
    row, col = (lambda x: Index(x, [':', None])), (lambda x: Index(x, [None, ':']))

    def both(m1, m2):   # the K mask, and the M or N mask unless rows wrap
        return m2 if wrap else Bin('&', m1, m2) if r.random() < 0.7 else Bin('&&', m1, m2)

    def tile(how, i, j, ld, mi, mj, k_first):
        """Offsets and mask of an [I, J] operand tile at index vectors i, j (in bounds where mi, mj):
        stored row-major with leading dimension ld, column-major, or column-major and loaded as the
        [J, I] tile ('trans'); the K index is i (k_first) or j."""
        if how == 'trans':
            off, mi, mj = Bin('+', Bin('*', row(j), ld), col(i)), col(mi), row(mj)
        else:
            off = Bin('+', Bin('*', row(i), ld), col(j)) if how == 'row' else Bin('+', row(i), Bin('*', col(j), ld))
            mi, mj = row(mi), col(mj)
        return off, both(mj, mi) if k_first else both(mi, mj)

    def offsets(kr):
        """A's and B's offsets and masks at K offset kr (an [BK] tile)."""
        oa, ma = tile(how_a, rm, kr, sa, Bin('<', rm, mm), Bin('<', kr, kd), False)
        ob, mb = tile(how_b, kr, rn, sb, Bin('<', kr, kd), Bin('<', rn, nn), True)
        return oa, ma, ob, mb

    zero = Lit(0.0) if fl else Lit(0)

    def operand(buf, off, mask, trans):
        x = k.let(Load(Ptr(buf, off), mask, zero if r.random() < 0.9 else None, kw=r.random() < 0.2), p='t')
        if trans:
            x = Trans(x)
        if src != dt:
            x = Cast(x, dt)
        elif fl and r.random() < 0.15:
            x = Bin('*', x, Lit(r.choice([2.0, 0.5, -1.0])))
        return x

    acc_dt = 'f32' if fl else 'i32'
    # |acc| <= K max|a| max|b|, times 4 for operands scaled by 2; integer sums are exact (Dot.ev
    # rejects i32 overflow), float ones must stay small enough for the epilogue's intervals
    bound = K * max(abs(a.lo), abs(a.hi)) * max(abs(b.lo), abs(b.hi)) * (4 if fl else 1) + 1
    if fl and bound > 1e4:
        raise Reject('products too large')
    if loop:
        acc = k.let(Full((BM, BN), 0.0, acc_dt, zeros=True, names=['BM', 'BN']), var=True, p='acc')
        acc = Name(acc.name, like((BM, BN), acc_dt, -bound, bound))
        kk = Name('kk', like((), 'i32', 0, K))
        if carried:
            oa0, _, ob0, _ = offsets(rk)
            va, vb = k.let(oa0, var=True, p='oa'), k.let(ob0, var=True, p='ob')
        outer, k.body = k.body, []
        kr = k.let(Bin('+', kk, rk), p='kr')
        oa, ma, ob, mb = offsets(kr)
        if carried:
            oa, ob = va, vb
        ta = operand(a, oa, ma, how_a == 'trans')
        tb = operand(b, ob, mb, how_b == 'trans')
        form = r.choice(['acc', 'kw', '+='])
        if form == '+=':
            k.body.append(Assign(acc.name, '+=', Dot(ta, tb, tf32=tf32), acc))
        else:
            k.body.append(Assign(acc.name, '=', Dot(ta, tb, acc, tf32, kw=form == 'kw'), acc))
        if carried:
            step_a = Bin('*', bk, sa) if how_a != 'row' else bk
            step_b = Bin('*', bk, sb) if how_b == 'row' else bk
            k.body.append(Assign(va.name, '+=', step_a, va))
            k.body.append(Assign(vb.name, '+=', step_b, vb))
        body, k.body = k.body, outer
        k.body += counted(k, 'kk', Lit(0), kd, bk, body, -(-K // BK))
    else:
        oa, ma, ob, mb = offsets(rk)
        ta = operand(a, oa, ma, how_a == 'trans')
        tb = operand(b, ob, mb, how_b == 'trans')
        acc = k.let(Dot(ta, tb, tf32=tf32), p='acc')
    leaves = [acc if fl else Cast(acc, 'f32')]
    leaves.append(Bin('*', leaves[0], Lit(1.0 / 64)))
    cmask = Bin('<', cn, nn)
    if bias is not None:
        leaves.append(col(k.let(Load(Ptr(bias, cn), cmask, Lit(0.0)), p='bias')))
    if rowv is not None:
        leaves.append(row(k.let(Load(Ptr(rowv, cm), Bin('<', cm, mm), Lit(1.0)), p='rv')))
    exact = leaves[2:]      # the loaded bias and row vector
    if alpha is not None:
        leaves.append(alpha)
    shape = (BM, BN)
    body_exprs(k, leaves, shape, r.randint(0, 2))
    add_combines(k, shape, Bin('+', Bin('*', pm, Lit(gn)), pn), gm * gn, [row(cm), col(cn)], exact)
    add_orders(k, shape, Bin('+', Bin('*', pm, Lit(gn)), pn), gm * gn, [row(cm), col(cn)], exact)
    e = acc
    for _ in range(8 if fl or r.random() < 0.5 else 0):       # an epilogue that reads the product
        x = as_tile(k.expr(k.pool, shape, r.randint(0, 3)), shape)
        if re.search(r'\b%s\b' % acc.name, x.src()):
            e = x
            break
    k.set_dt(out, out_dt(r, e))
    smask = k.let(both(row(Bin('<', cm, mm)), col(cmask)) if not wrap else
                  Bin('&', row(Bin('<', cm, mm)), col(cmask)), p='sm')
    k.body.append(Store(Ptr(out, Bin('+', Bin('*', row(cm), nn), col(cn))), e, smask))
    if second:
        pe = as_tile(k.expr(k.pool, shape, r.randint(0, 2)), shape)
        p = k.let(Cast(pe, dt), p='p')
        rd = Arange(0, BD)
        tv = k.let(Load(Ptr(v, Bin('+', Bin('*', row(cn), Lit(BD)), col(rd))), row(cmask), Lit(0.0)), p='tv')
        o = Dot(p, tv)
        at = Bin('+', Bin('*', Bin('+', Bin('*', pn, mm), row(cm)), Lit(BD)), col(rd))
        k.body.append(Store(Ptr(out2, at), o, row(Bin('<', cm, mm))))


FAMILIES = [(fam_vec, 4), (fam_loop, 2), (fam_mat, 4), (fam_rows, 1), (fam_softmax, 2), (fam_cube, 2),
            (fam_dot, 4)]


def make_case(rng, index, families=FAMILIES):
    for attempt in range(200):
        k = Kernel(rng, 'k%04d' % index)
        fam = rng.choices([f for f, _ in families], [w for _, w in families])[0]
        try:
            fam(k)
            if len(k.bufs) > MAXBUF or len(k.args) > MAXARG or len(k.defines) > MAXDEF:
                raise Reject('more buffers, arguments or defines than diff_test takes')
            k.prune()
            k.evaluate()
            k.finish_outputs()
        except Reject:
            continue
        text = k.source()
        used = [f for f in ('reshape', 'permute', 'split', 'join', 'interleave') if re.search(r'\b%s\(' % f, text)]
        if used:
            k.desc.append('shapes:' + ','.join(used))
        used = [f for f in ('flip', 'sort', 'topk', 'gather', 'histogram') if re.search(r'\b%s\(' % f, text)]
        if used or 'bitcast' in text:
            k.desc.append('moves:' + ','.join(used + ['bitcast'] * ('bitcast' in text)))
        k.desc.append('warps=%d' % k.warps)
        return k, attempt
    raise SystemExit('gen.py: case %d: no valid kernel in 200 draws' % index)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('outdir')
    ap.add_argument('--count', type=int, default=150)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--only', type=int, default=None, help='write only case I (same kernel as in the full run)')
    ap.add_argument('--family', choices=[f.__name__[4:] for f, _ in FAMILIES],
                    help='draw every case from one shape of program (other cases than the full run)')
    a = ap.parse_args()
    families = [(f, w) for f, w in FAMILIES if a.family in (None, f.__name__[4:])]
    os.makedirs(a.outdir, exist_ok=True)
    names, redraws = [], 0
    for i in range(a.count) if a.only is None else [a.only]:
        k, tries = make_case(random.Random(a.seed * 1000003 + i), i, families)
        redraws += tries
        d = '%04d' % i
        k.write(os.path.join(a.outdir, d))
        names.append(d)
    with open(os.path.join(a.outdir, 'index.txt'), 'w') as f:
        f.write('\n'.join(names) + '\n')
    print('gen.py: %d cases in %s (seed %d, %d redraws)' % (len(names), a.outdir, a.seed, redraws))


if __name__ == '__main__':
    if sys.byteorder != 'little':
        sys.exit('gen.py: writes little-endian files from a little-endian host only')
    main()
