"""Fit and f32-round atan's polynomial; derive the other constants of atan and atan2.

Usage:  python3 gen.py [DEG] > consts.h     (default 5)

Both functions reduce to r in [-1/2, 1/2] with one division (README.md):

    atan(r) = r + r t P(t),   t = r^2 in [0, 1/4],   P of degree DEG,
    P(t) ~ (atan(sqrt t) / sqrt t - 1) / t

P is minimax for the error it causes in the final result, relative to that
result. An error d in P moves atan(r) by |r t d|. The results built from
atan(r) are k pi/4 + atan(r), k = 0, ..., 4, with |r| <= 1/3 where k is odd;
the smallest of them is atan(|r|) itself (k = 0), so the weight is
r t / atan(r). Coefficients are rounded to f32 one at a time, lowest degree
first, refitting the rest (../tanh_erf/remez.py); each rounding tries the
f32 neighbours too and keeps the one whose refitted error, measured on the
grid, is smallest.

The other constants:
  ATAN_PIO4_HI, ATAN_PIO4_LO   pi/4 = HI + LO (to 2^-47), HI of 22 bits, so that k HI is exact for k <= 4
  ATAN_PIO2                    the f32 nearest pi/2 (atan's result for |x| >= ATAN_HUGE)
  ATAN_HUGE                    from here on atan(x) rounds to ATAN_PIO2
  ATAN_RCP_K                   bitcast(K - bits(h)) ~ 1/h for normal h, minimax relative
  ATAN2_BIG, ATAN2_DOWN, ATAN2_UP   atan2's scaling: the larger of |x|, |y| and the smaller are
                               multiplied by DOWN where the larger is >= BIG, else by UP
  ATAN2_TINY                   atan2 drops the division's correction where r^2 < TINY
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tanh_erf'))
import mpmath as mp  # noqa: E402
from remez import Problem, arr, bits, f32, fmt, fromb, round_greedy  # noqa: E402

mp.mp.dps = 40
DEG = int(sys.argv[1]) if len(sys.argv) > 1 else 5
N = 1200
TMAX = mp.mpf(1) / 4  # |r| <= 1/2


# ---- P ----
def g_atan(t):
    if t < mp.mpf('1e-20'):
        return -mp.mpf(1) / 3 + t / 5
    r = mp.sqrt(t)
    return (mp.atan(r) / r - 1) / t


def w_atan(t):
    if t == 0:
        return mp.mpf(0)  # dropped from the grid: the error is 0 there
    r = mp.sqrt(t)
    return r * t / mp.atan(r)


P = Problem(0, TMAX, g_atan, w_atan, N=N)
cp, Ep, Xp = round_greedy(P, DEG)
print('// atan P: degree %d in t = r^2 on [0, 1/4]: minimax %.3g (2^%.2f), f32 coefficients %.3g (2^%.2f)'
      % (DEG, Xp, mp.log(Xp, 2), Ep, mp.log(Ep, 2)), file=sys.stderr)

# ---- pi/4 in two parts, pi/2 ----
PIO4 = mp.pi / 4
e4 = mp.floor(mp.log(PIO4, 2))
H = mp.nint(PIO4 * 2 ** (21 - e4)) / 2 ** (21 - e4)  # 22 significant bits
assert f32(H) == H
L = f32(PIO4 - H)
for k in range(5):
    assert f32(k * float(H)) == k * float(H)
resid = PIO4 - H - mp.mpf(L)
assert abs(resid) < PIO4 * mp.mpf(2) ** -46
print('// pi/4 - (HI + LO) = %.3g' % resid, file=sys.stderr)
PIO2 = f32(mp.pi / 2)
# ATAN_HUGE: for a >= 2^26, pi/2 - atan(a) < 2^-26 is less than pi/2 less the midpoint below PIO2
mid_below = mp.mpf(PIO2) - mp.mpf(2) ** -24
assert mp.pi / 2 - mid_below > mp.mpf(2) ** -26 and PIO2 > mp.pi / 2
HUGE = 2.0 ** 26

# ---- the reciprocal's magic constant ----
# For h = (1 + m) 2^e, m in [0, 1), K - bits(h) has the bits of y with
#   y h = (1 + m)(1 + M - m) / 2      m <= M
#   y h = (1 + m)(2 + M - m) / 4      m >  M
# where K = 0x3f800000 + 0x3f000000 + M 2^23 (M in [0, 1)): at least (1 + M)/2, at most the
# larger of the two parabolas' tops. K minimises max |y h - 1|.


def rcp_err(Mi):
    M = mp.mpf(Mi) / 2 ** 23
    lo = (1 + M) / 2
    hi = max((1 + M / 2) ** 2 / 2, (3 + M) ** 2 / 16)
    return max(1 - lo, hi - 1)


lo_i, hi_i = 0, 2 ** 23 - 1
while hi_i - lo_i > 2:  # rcp_err is unimodal in M: ternary search
    a = lo_i + (hi_i - lo_i) // 3
    b = hi_i - (hi_i - lo_i) // 3
    if rcp_err(a) < rcp_err(b):
        hi_i = b
    else:
        lo_i = a
Mi = min(range(lo_i, hi_i + 1), key=rcp_err)
K = 0x3f800000 + 0x3f000000 + Mi
Ek = rcp_err(Mi)
# check on a sample of mantissas, with the f32 bit operations model.c does
worst = 0
for u in range(0x3f800000, 0x40000000, 97):
    y = fromb(K - u)
    worst = max(worst, abs(mp.mpf(y) * mp.mpf(fromb(u)) - 1))
assert worst <= Ek * (1 + mp.mpf(2) ** -20)
print('// ATAN_RCP_K = 0x%08x: |bitcast(K - bits(h)) h - 1| <= %.4f' % (K, Ek), file=sys.stderr)


def hx(v):
    return fmt(v)[1]  # the hex literal with its f suffix


print('/* atan(r) = r + r t P(t), t = r^2, |r| <= 1/2: P = atan_p[0] + atan_p[1] t + ..., degree %d,' % DEG)
print(' * minimax for the error relative to atan(r) (%.2g, 2^%.1f) */' % (Ep, mp.log(Ep, 2)))
print(arr('atan_p', cp))
print('/* pi/4 = ATAN_PIO4_HI + ATAN_PIO4_LO (to %.0e); HI has 22 bits, so k HI is exact for k = 0, ..., 4 */'
      % abs(resid))
print('static const float ATAN_PIO4_HI = %s;' % hx(float(H)))
print('static const float ATAN_PIO4_LO = %s;' % hx(L))
print('/* atan: |x| >= ATAN_HUGE gives ATAN_PIO2, the f32 nearest pi/2 (and atan(x) rounds to it there) */')
print('static const float ATAN_PIO2 = %s;' % hx(PIO2))
print('static const float ATAN_HUGE = %s;' % hx(HUGE))
print('/* bitcast(ATAN_RCP_K - bits(h)) ~ 1/h (within %.1f%%) for normal h: the correction\'s divisor */'
      % (100 * Ek))
print('#define ATAN_RCP_K 0x%08x' % K)
print('/* atan2: |x| and |y| are multiplied by ATAN2_DOWN where the larger is >= ATAN2_BIG, else by ATAN2_UP */')
print('static const float ATAN2_BIG = 0x1p+64f;')
print('static const float ATAN2_DOWN = 0x1p-32f;')
print('static const float ATAN2_UP = 0x1p+60f;')
print('/* atan2: t = r^2 < ATAN2_TINY (|r| < 2^-30, and where an operand is infinite) drops the correction */')
print('static const float ATAN2_TINY = 0x1p-60f;')
