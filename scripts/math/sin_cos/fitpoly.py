# Weighted minimax fits (Lawson's algorithm on a dense grid) for the sin/cos core polynomials,
# then f32 rounding of the coefficients with sequential refitting (highest-impact first).
#   sin(r) ~ r + r*s*(a1 + a2*s + ... ), s = r*r     (relative error weight)
#   cos(r) ~ 1 - s/2 + s*s*(b2 + b3*s + ...)          (relative error weight)
import sys, struct
from mpmath import mp, mpf, sin, cos, sqrt, cos as mcos, pi, matrix, lu_solve
mp.prec = 120

def f32(x):
    return mpf(struct.unpack('<f', struct.pack('<f', float(x)))[0])

def lawson(S, G, W, n, fixed, iters=300):
    # minimize max_k |W_k*(sum_j a_j S_k^j - G_k)| with a_j = fixed[j] for j in fixed
    free = [j for j in range(n) if j not in fixed]
    N = len(S)
    lam = [mpf(1)/N]*N
    Gadj = [G[k] - sum(fixed[j]*S[k]**j for j in fixed) for k in range(N)]
    best = None
    for it in range(iters):
        A = matrix(len(free), len(free)); b = matrix(len(free), 1)
        for k in range(N):
            wk = lam[k]*W[k]**2
            ph = [S[k]**j for j in free]
            for u in range(len(free)):
                b[u] += wk*ph[u]*Gadj[k]
                for v in range(len(free)):
                    A[u, v] += wk*ph[u]*ph[v]
        x = lu_solve(A, b)
        a = dict(fixed); 
        for u, j in enumerate(free): a[j] = x[u]
        err = [W[k]*(sum(a[j]*S[k]**j for j in range(n)) - G[k]) for k in range(N)]
        m = max(abs(e) for e in err)
        if best is None or m < best[0]: best = (m, [a[j] for j in range(n)])
        tot = sum(lam[k]*abs(err[k]) for k in range(N))
        lam = [lam[k]*abs(err[k])/tot for k in range(N)]
    return best

def fit(kind, R, n, npts=400):
    R = mpf(R)
    S = [(R*R)*(1 - mcos(pi*(k + mpf(1)/2)/npts))/2 for k in range(npts)]  # Chebyshev-like in s
    S = [s for s in S if s > 0]
    if kind == 'sin':
        G = [(sin(sqrt(s)) - sqrt(s))/(s*sqrt(s)) for s in S]
        W = [s*sqrt(s)/sin(sqrt(s)) for s in S]
    else:
        G = [(cos(sqrt(s)) - 1 + s/2)/(s*s) for s in S]
        W = [s*s/cos(sqrt(s)) for s in S]
    fixed = {}
    m, a = lawson(S, G, W, n, fixed, 150)
    print(f"{kind} R={float(R)} n={n}: unrounded max rel err {float(m):.3e} (2^{float(mp.log(m,2)):.2f})", file=sys.stderr)
    for j in range(n):                      # round lowest-order (largest) coefficient first, refit the rest
        fixed[j] = f32(a[j])
        if j < n - 1:
            m, a = lawson(S, G, W, n, fixed, 150)
    a = [fixed[j] for j in range(n)]
    err = max(abs(W[k]*(sum(a[j]*S[k]**j for j in range(n)) - G[k])) for k in range(len(S)))
    print(f"   f32-rounded max rel err {float(err):.3e} (2^{float(mp.log(err,2)):.2f})", file=sys.stderr)
    return a

if __name__ == '__main__':
    kind, R, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    a = fit(kind, R, n)
    for j, c in enumerate(a):
        print(f"{kind}{j} {float(c).hex()} {float(c)!r}")
