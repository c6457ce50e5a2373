"""Weighted discrete Remez (minimax) fitting with mpmath, plus greedy f32 coefficient rounding.

err(u) = w(u) * (sum_j c_j * u^j - g(u)),   minimize max |err| over a dense grid on [lo, hi].
"""
import struct
import mpmath as mp

mp.mp.dps = 40


def f32(x):
    """Round to nearest f32 (via double; double rounding is irrelevant at this precision)."""
    return struct.unpack('f', struct.pack('f', float(x)))[0]


def make_grid(lo, hi, N):
    lo, hi = mp.mpf(lo), mp.mpf(hi)
    pts = []
    for i in range(N):
        # Chebyshev-Lobatto points (include the endpoints)
        c = mp.cos(mp.pi * i / (N - 1))
        pts.append((lo + hi) / 2 - (hi - lo) / 2 * c)
    return pts


class Problem:
    def __init__(self, lo, hi, g, w, N=3000):
        u = make_grid(lo, hi, N)
        ww = [w(x) for x in u]
        keep = [i for i in range(N) if ww[i] != 0]
        self.u = [u[i] for i in keep]
        self.w = [ww[i] for i in keep]
        self.g = [g(x) for x in self.u]


def polyval(c, x):
    r = mp.mpf(0)
    for cj in reversed(c):
        r = r * x + cj
    return r


def errors(P, c, fixed):
    """fixed: dict degree->value; c: free coefficients list aligned with free degrees."""
    return [P.w[i] * (polyval(c, P.u[i]) - P.g[i]) for i in range(len(P.u))]


def remez(P, degs, fixed=None, iters=60, verbose=False):
    """Fit free coefficients for degrees 'degs' (list of ints); 'fixed' maps degree->value.
    Returns (coeff list indexed by degree up to max degree, max weighted error)."""
    fixed = fixed or {}
    n = len(degs)
    maxdeg = max(list(degs) + list(fixed.keys()))
    N = len(P.u)
    # target with fixed part removed
    gt = []
    for i in range(N):
        fx = sum(v * P.u[i] ** d for d, v in fixed.items()) if fixed else 0
        gt.append(P.g[i] - fx)
    # initial reference: n+1 points spread (Chebyshev-like index distribution)
    ref = [int(round((N - 1) * (1 - mp.cos(mp.pi * k / n)) / 2)) for k in range(n + 1)]
    ref = sorted(set(ref))
    best = None
    for it in range(iters):
        A = mp.matrix(n + 1, n + 1)
        bvec = mp.matrix(n + 1, 1)
        for r, i in enumerate(ref):
            for j, d in enumerate(degs):
                A[r, j] = P.w[i] * P.u[i] ** d
            A[r, n] = (-1) ** r
            bvec[r] = P.w[i] * gt[i]
        sol = mp.lu_solve(A, bvec)
        c = [sol[j] for j in range(n)]
        E = sol[n]
        # error on the grid
        e = []
        for i in range(N):
            x = P.u[i]
            p = mp.mpf(0)
            for j, d in enumerate(degs):
                p += c[j] * x ** d
            e.append(P.w[i] * (p - gt[i]))
        emax = max(abs(v) for v in e)
        if best is None or emax < best[1]:
            best = (c, emax)
        if verbose:
            print(it, mp.nstr(E, 8), mp.nstr(emax, 8))
        if abs(E) > 0 and emax / abs(E) - 1 < mp.mpf('1e-7'):
            break
        # new reference: extremum of each sign run
        runs = []
        cur = None
        for i in range(N):
            s = 1 if e[i] >= 0 else -1
            if cur is None or s != cur[0]:
                cur = [s, i]
                runs.append(cur)
            elif abs(e[i]) > abs(e[cur[1]]):
                cur[1] = i
        pts = [r[1] for r in runs]
        while len(pts) > n + 1:
            if abs(e[pts[0]]) < abs(e[pts[-1]]):
                pts.pop(0)
            else:
                pts.pop()
        if len(pts) < n + 1:
            # not enough alternations; keep old reference but add the global max
            break
        ref = pts
    c, emax = best
    full = [mp.mpf(0)] * (maxdeg + 1)
    for d, v in fixed.items():
        full[d] = mp.mpf(v)
    for j, d in enumerate(degs):
        full[d] = c[j]
    return full, emax


def max_err(P, full):
    return max(abs(P.w[i] * (polyval(full, P.u[i]) - P.g[i])) for i in range(len(P.u)))


def greedy_round(P, deg, order=None, verbose=True):
    """Round coefficients to f32 one at a time (in 'order'), refitting the rest each time."""
    order = order if order is not None else list(range(deg + 1))
    fixed = {}
    free = list(range(deg + 1))
    full, E = remez(P, free)
    if verbose:
        print('exact minimax err', mp.nstr(E, 6))
    for d in order:
        fixed[d] = mp.mpf(f32(full[d]))
        free.remove(d)
        if free:
            full, E = remez(P, free, fixed)
        else:
            full = [fixed[k] for k in range(deg + 1)]
            E = max_err(P, full)
        if verbose:
            print(' fixed deg', d, 'err', mp.nstr(E, 6))
    return [f32(v) for v in full], E


def bits(v):
    """the f32 v's bit pattern"""
    return struct.unpack('<I', struct.pack('<f', v))[0]


def fromb(b):
    return struct.unpack('<f', struct.pack('<I', b))[0]


def nb(v, d):
    """the f32 d steps from v (v != 0, same sign region)"""
    b = bits(v)
    return fromb(b + d if v > 0 else b - d)


def round_greedy(P, deg, tries=(0, 1, -1, 2, -2)):
    """Round the coefficients lowest first, trying the nearest f32 and its neighbours (tries, in steps)
    for each, refitting the rest each time, and keeping the choice whose measured error is smallest.
    Returns the f32 coefficients, their measured error and the unrounded minimax error."""
    fixed = {}
    free = list(range(deg + 1))
    full, E = remez(P, free)
    exact = E
    for d in range(deg + 1):
        free.remove(d)
        best = None
        for step in tries:
            v = mp.mpf(nb(f32(full[d]), step))
            fx = dict(fixed)
            fx[d] = v
            if free:
                cand, _ = remez(P, free, fx)
            else:
                cand = [fx[i] for i in range(deg + 1)]
            e = max_err(P, cand)  # measured, not the fitter's claim
            if best is None or e < best[0]:
                best = (e, v, cand)
        fixed[d] = best[1]
        full = best[2]
    c = [f32(full[i]) for i in range(deg + 1)]
    assert all(mp.mpf(c[i]) == fixed[i] for i in range(deg + 1))
    return c, max_err(P, [mp.mpf(v) for v in c]), exact


def fmt(c):
    """C literal with 9 significant digits + exact hex float."""
    s9 = '%.8e' % c  # 9 significant digits
    h = float(c).hex()  # exact since c is an f32 value
    # trim to 6 hex digits of mantissa
    sign = '-' if h.startswith('-') else ''
    h = h.lstrip('-')
    mant, exp = h[4:].split('p') if h.startswith('0x1.') else (None, None)
    if mant is None:
        hx = sign + h + 'f'
    else:
        mant = (mant + '000000')[:6]
        assert all(ch == '0' for ch in h[4:].split('p')[0][6:])
        hx = '%s0x1.%sp%sf' % (sign, mant, exp)
    return s9 + 'f', hx


def arr(name, c):
    """the C array of the f32 values c, in hex (each checked to read back as itself)"""
    body = ', '.join(fmt(v)[1] for v in c)
    for v in c:
        d, h = fmt(v)
        assert float.fromhex(h[:-1]) == v and f32(float(d[:-1])) == v
    return 'static const float %s[] = {%s};' % (name, body)
