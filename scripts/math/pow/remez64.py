"""Weighted discrete Remez (minimax) fit with mpmath, and the coefficients rounded to f64.

The weighted error of coefficients c (c[j] multiplies u^j) at a grid point u is
    w(u) * (sum_j c[j] u^j - g(u)),
and the fit minimises its maximum over a dense grid of [lo, hi] (Chebyshev
points, the endpoints included).
"""
import mpmath as mp

mp.mp.dps = 50


def f64(x):
    """x rounded to the nearest double (mpmath rounds to nearest, ties to even)."""
    return float(mp.mpf(x))


class Problem:
    """g and w sampled on n Chebyshev-Lobatto points of [lo, hi]."""

    def __init__(self, lo, hi, g, w, n=3000):
        lo, hi = mp.mpf(lo), mp.mpf(hi)
        self.u, self.g, self.w = [], [], []
        for i in range(n):
            u = (lo + hi) / 2 - (hi - lo) / 2 * mp.cos(mp.pi * i / (n - 1))
            wu = w(u)
            if wu != 0:
                self.u.append(u)
                self.g.append(g(u))
                self.w.append(wu)
        # powers u^d, built once
        self.pw = {}

    def powers(self, d):
        if d not in self.pw:
            self.pw[d] = [u ** d for u in self.u]
        return self.pw[d]


def evaluate(c, u):
    """sum c[j] u^j by Horner in mpmath (exact enough: 50 digits)."""
    r = mp.mpf(0)
    for cj in reversed(c):
        r = r * u + cj
    return r


def weighted_errors(P, c):
    return [P.w[i] * (evaluate(c, P.u[i]) - P.g[i]) for i in range(len(P.u))]


def remez(P, free, fixed, iters=80):
    """Minimax over the coefficients of degrees `free`, those of `fixed` (degree -> value) held.
    Returns (coefficients by degree, max weighted error on the grid)."""
    n = len(free)
    N = len(P.u)
    top = max(list(free) + list(fixed))
    rest = [P.g[i] - sum(v * P.powers(d)[i] for d, v in fixed.items()) for i in range(N)]
    ref = sorted(set(int(round((N - 1) * (1 - mp.cos(mp.pi * k / n)) / 2)) for k in range(n + 1)))
    best = None
    for _ in range(iters):
        A = mp.matrix(n + 1, n + 1)
        b = mp.matrix(n + 1, 1)
        for r, i in enumerate(ref):
            for j, d in enumerate(free):
                A[r, j] = P.w[i] * P.powers(d)[i]
            A[r, n] = (-1) ** r
            b[r] = P.w[i] * rest[i]
        sol = mp.lu_solve(A, b)
        lev = abs(sol[n])
        e = []
        for i in range(N):
            s = sum(sol[j] * P.powers(d)[i] for j, d in enumerate(free))
            e.append(P.w[i] * (s - rest[i]))
        emax = max(abs(v) for v in e)
        if best is None or emax < best[1]:
            best = ([sol[j] for j in range(n)], emax)
        if lev > 0 and emax / lev - 1 < mp.mpf('1e-9'):
            break
        # the new reference: the extremum of each run of one sign, trimmed to n + 1 from the smaller end
        runs = []
        for i in range(N):
            s = e[i] >= 0
            if not runs or runs[-1][0] != s:
                runs.append([s, i])
            elif abs(e[i]) > abs(e[runs[-1][1]]):
                runs[-1][1] = i
        pts = [r[1] for r in runs]
        while len(pts) > n + 1:
            if abs(e[pts[0]]) < abs(e[pts[-1]]):
                pts.pop(0)
            else:
                pts.pop()
        if len(pts) < n + 1:
            break
        ref = pts
    c = [mp.mpf(0)] * (top + 1)
    for d, v in fixed.items():
        c[d] = mp.mpf(v)
    for j, d in enumerate(free):
        c[d] = best[0][j]
    return c, best[1]


def fit_f64(P, deg, fixed=None):
    """Minimax of degree deg (the degrees in `fixed` held at their values), each coefficient then
    rounded to the nearest f64.  Returns (doubles by degree, max weighted error of the exact fit,
    max weighted error after rounding).

    Rounding to f64 moves each term by 2^-53 of itself, ten bits below these fits' errors, so the
    error hardly changes (tanh_erf's f32 coefficients needed remez.py's greedy rounding with
    refits; here the refits, with most coefficients held, converge worse than the rounding costs).
    """
    fixed = {d: mp.mpf(v) for d, v in (fixed or {}).items()}
    free = [d for d in range(deg + 1) if d not in fixed]
    c, e0 = remez(P, free, fixed)
    c = [mp.mpf(f64(v)) for v in c]
    e1 = max(abs(v) for v in weighted_errors(P, c))
    return [float(v) for v in c], e0, e1
