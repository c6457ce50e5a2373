"""Fit and f32-round log1p's and expm1's polynomials; derive the other constants.

Usage:  python3 gen.py [LOG1P_DEG EXPM1_DEG] > consts.h     (defaults 8 4)

log1p(f) = f - f^2/2 + f^3 P(f),   f in [-1/3, 1/3]   (m = 1 + f in [2/3, 4/3))
expm1(f) = f + f^2/2 + f^3 Q(f),   |f| <= ln2/2 (+ the slack of an f32 log2(e) and of rint)

P and Q are minimax for the error they cause in the final result, relative to
that result: an error d in P moves log1p(x) = k ln2 + log1p(f) by f^3 d, and
the smallest |k ln2 + log1p(f)| over the k that occur with that f (k = 0, and
k = 1 where f < 0, k = -1 where f > 0) is what it is divided by; likewise
expm1(x) = 2^j e^f - 1 over j = -1, 0, 1.  Coefficients are rounded to f32 one
at a time, lowest degree first, refitting the rest (../tanh_erf/remez.py),
and each rounding tries the f32 neighbours too, keeping the one whose
refitted error, measured on the grid, is smallest.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tanh_erf'))
import mpmath as mp  # noqa: E402
from remez import Problem, arr, bits, f32, fmt, nb, round_greedy  # noqa: E402

mp.mp.dps = 40
NL = int(sys.argv[1]) if len(sys.argv) > 1 else 8
NE = int(sys.argv[2]) if len(sys.argv) > 2 else 4
N = 1200
LN2 = mp.log(2)


# ---- log1p ----
LA = mp.mpf(1) / 3 + mp.mpf(2) ** -22  # f = m - 1, m in [0x1.555556p-1, 0x1.555554p+0]


def g_log(f):
    if abs(f) < mp.mpf('1e-15'):
        return mp.mpf(1) / 3 - f / 4
    return (mp.log1p(f) - f + f * f / 2) / f ** 3


def w_log(f):
    l = abs(mp.log1p(f))
    return abs(f) ** 3 / min(l, LN2 - l)


P = Problem(-LA, LA, g_log, w_log, N=N)
cl, El, Xl = round_greedy(P, NL)
print('// log1p P: degree %d on [-1/3, 1/3]: minimax %.3g (2^%.2f), f32 coefficients %.3g (2^%.2f)'
      % (NL, Xl, mp.log(Xl, 2), El, mp.log(El, 2)), file=sys.stderr)

# ---- expm1 ----
LOG2E = f32(1 / LN2)
EA = mp.mpf('0.34658')  # |x - rint(x LOG2E) ln2| <= ln2 (1/2 + 128 |LOG2E - log2 e|) < 0.34658


def g_exp(f):
    if abs(f) < mp.mpf('1e-15'):
        return mp.mpf(1) / 6 + f / 24
    return (mp.expm1(f) - f - f * f / 2) / f ** 3


def w_exp(f):
    e = mp.exp(f)
    return abs(f) ** 3 * max(1 / abs(e - 1), 2 / abs(2 * e - 1), mp.mpf(0.5) / abs(0.5 * e - 1))


P = Problem(-EA, EA, g_exp, w_exp, N=N)
ce, Ee, Xe = round_greedy(P, NE)
print('// expm1 Q: degree %d on [-%s, %s]: minimax %.3g (2^%.2f), f32 coefficients %.3g (2^%.2f)'
      % (NE, EA, EA, Xe, mp.log(Xe, 2), Ee, mp.log(Ee, 2)), file=sys.stderr)

# ---- the other constants ----
# log1p: ln2 = LN2_HI + LN2_LO, LN2_HI of 17 bits so k LN2_HI is exact for |k| <= 128
e2 = mp.floor(mp.log(LN2, 2))
L1 = mp.nint(LN2 * 2 ** (16 - e2)) / 2 ** (16 - e2)
assert f32(L1) == L1
L2 = f32(LN2 - L1)
for k in range(-127, 129):
    assert float(k) * float(L1) == f32(float(k) * float(L1))
# expm1: ln2 = E_L1 + E_L2, E_L1 the f32 nearest (x - j E_L1 is exact with fma)
E1 = f32(LN2)
E2 = f32(LN2 - E1)
# the largest f32 x whose expm1 rounds to a finite f32: expm1(x) < 2^128 - 2^103 (that is a tie, to even: inf)
lim = mp.mpf(2) ** 128 - mp.mpf(2) ** 103
xm = f32(mp.log(lim + 1))
while mp.expm1(xm) >= lim:
    xm = nb(xm, -1)
while mp.expm1(nb(xm, 1)) < lim:
    xm = nb(xm, 1)
# below XMIN expm1 is -1 (it is from ln(2^-25) = -17.33 on); -32 keeps 2^j normal
XMIN = -32.0
assert mp.expm1(XMIN) + 1 < mp.mpf(2) ** -25


def hx(v):
    return fmt(v)[1][:-1]  # the hex literal, no f suffix


print('/* log1p: 1 + x = 2^k (m + c 2^-k), m in [2/3, 4/3) (its bits less LOG1P_M0 shifted right by 23 are k),')
print(' * f = m - 1; log1p(x) = k ln2 + f - f^2/2 + f^3 P(f) + c 2^-k / m, ln2 = LOG1P_LN2_HI + LOG1P_LN2_LO */')
print('#define LOG1P_M0 0x%08x' % bits(f32(mp.mpf(2) / 3)))
print('#define LOG1P_LN2_HI %s' % hx(float(L1)))
print('#define LOG1P_LN2_LO %s' % hx(L2))
print('#define LOG1P_TINY 0x1p-25')
print(arr('log1p_p', cl))
print('/* expm1: x = j ln2 + f, j = rint(x EXPM1_LOG2E), ln2 = EXPM1_LN2_HI + EXPM1_LN2_LO;')
print(' * expm1(x) = 2^j (1 + f + f^2/2 + f^3 Q(f)) - 1; x clamped to [EXPM1_XMIN, EXPM1_XMAX], +inf above */')
print('#define EXPM1_LOG2E %s' % hx(LOG2E))
print('#define EXPM1_LN2_HI %s' % hx(E1))
print('#define EXPM1_LN2_LO %s' % hx(E2))
print('#define EXPM1_XMAX %s' % hx(xm))
print('#define EXPM1_XMIN %s' % hx(XMIN))
print('#define EXPM1_TINY 0x1p-25')
print(arr('expm1_q', ce))
