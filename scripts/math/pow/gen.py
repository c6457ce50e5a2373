"""Fit pow's two polynomials and round their coefficients to f64; print the constants for cg_math.h.

    python3 gen.py [LOG_DEG EXP_DEG] > consts.h      (defaults 15 9: what consts.h holds)

log2: with m = |x| 2^-k in [S, 2S), S = POW_SPLIT = 0x1.6a09e6p-1 (the f32 nearest sqrt(1/2); the
reduction compares bit patterns, so S's bits are the constant), f = m - 1 in [S - 1, 2S - 1]:
    log2(1 + f) ~ f Q(f),  Q of degree LOG_DEG,
fitted for the relative error of f Q(f) (weight 1/g on Q - g, g = log2(1 + f)/f), so that near x = 1
log2|x| keeps its relative accuracy (z = y log2|x| has error |z| times it).

exp2: 2^r ~ E(r) on r in [-1/2, 1/2], E(0) = 1 exactly (E's constant term held at 1, so
pow(2^j, n) is exact), degree EXP_DEG, relative error.

Each polynomial's maximum relative error (after rounding to f64) goes to stderr; the evaluation's own
roundings are measured by model.c's `parts` mode.
"""
import sys
import mpmath as mp
from remez64 import Problem, fit_f64

mp.mp.dps = 50
nq = int(sys.argv[1]) if len(sys.argv) > 1 else 15
ne = int(sys.argv[2]) if len(sys.argv) > 2 else 9
N = 2500

S = mp.mpf(float.fromhex('0x1.6a09e6p-1'))
assert float(S) == float.fromhex('0x1.6a09e6p-1')
split_bits = int.from_bytes(__import__('struct').pack('>d', float(S)), 'big')


def gq(f):
    if abs(f) < mp.mpf('1e-30'):
        return 1 / mp.log(2) - f / (2 * mp.log(2))
    return mp.log1p(f) / (f * mp.log(2))


P = Problem(S - 1, 2 * S - 1, gq, lambda f: 1 / gq(f), n=N)
cq, eq0, eq1 = fit_f64(P, nq)
print('log2(1+f) = f Q(f), f in [%s, %s], Q of degree %d: relative error 2^%.2f (f64 coefficients), '
      '2^%.2f (unrounded)' % (mp.nstr(S - 1, 8), mp.nstr(2 * S - 1, 8), nq, mp.log(eq1, 2), mp.log(eq0, 2)),
      file=sys.stderr)

P = Problem(-0.5, 0.5, lambda r: 2 ** r, lambda r: 2 ** -r, n=N)
ce, ee0, ee1 = fit_f64(P, ne, fixed={0: 1})
print('2^r = E(r), r in [-1/2, 1/2], degree %d: relative error 2^%.2f (f64 coefficients), 2^%.2f (unrounded)'
      % (ne, mp.log(ee1, 2), mp.log(ee0, 2)), file=sys.stderr)


def hexd(v):
    """v as a C hex double literal, trailing zeros of the mantissa dropped (0x1p+0, not 0x1.000...p+0)."""
    h = v.hex()
    mant, exp = h.split('p')
    if '.' in mant:
        mant = mant.rstrip('0').rstrip('.')
    out = mant + 'p' + exp
    assert float.fromhex(out) == v
    return out


def arr(name, c, what):
    head = 'static const double %s[] = {' % name
    items = [hexd(v) + (',' if i + 1 < len(c) else '};') for i, v in enumerate(c)]
    rows = [' '.join(items[i:i + 3]) for i in range(0, len(items), 3)]
    return '/* %s */\n%s%s' % (what, head, ('\n' + ' ' * len(head)).join(rows))


print('/* pow: log2|x| = k + f Q(f), f = |x| 2^-k - 1 with |x| 2^-k in [POW_SPLIT, 2 POW_SPLIT), k found')
print(' * by subtracting POW_SPLIT_BITS (POW_SPLIT as an f64) from |x|\'s f64 bits; then 2^z, z = y log2|x|')
print(' * clamped to +-POW_ZCLAMP, as 2^n E(z - n), n = rint(z).  Coefficients in f64, lowest degree first,')
print(' * fitted for relative error: Q 2^%.2f, E 2^%.2f (scripts/math/pow) */' % (mp.log(eq1, 2), mp.log(ee1, 2)))
print('#define POW_SPLIT %s' % hexd(float(S)))
print('#define POW_SPLIT_BITS 0x%016xull' % split_bits)
print('#define POW_ZCLAMP 0x1.4p+7')
print(arr('pow_log2_p', cq, 'Q(f) ~ log2(1 + f) / f, f in [POW_SPLIT - 1, 2 POW_SPLIT - 1]'))
print(arr('pow_exp2_p', ce, 'E(r) ~ 2^r, r in [-1/2, 1/2], E(0) = 1'))
