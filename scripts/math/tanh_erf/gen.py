"""Fit + f32-round all polynomials. Usage: python3 gen.py T tanh_deg B erf_small_deg erf_large_deg [C]"""
import sys, mpmath as mp
from remez import Problem, f32, fmt, greedy_round

T = mp.mpf(sys.argv[1]); nt = int(sys.argv[2])
B = mp.mpf(sys.argv[3]); ns = int(sys.argv[4]); nl = int(sys.argv[5])
C = mp.mpf(sys.argv[6]) if len(sys.argv) > 6 else mp.mpf(4)
N = 1500

def gt(t):
    if t < mp.mpf('1e-30'): return -mp.mpf(1)/3
    a = mp.sqrt(t); return (mp.tanh(a)/a - 1)/t
def wt(t): return t/(1 + t*gt(t))
P = Problem(0, T**2, gt, wt, N=N)
ct, Et = greedy_round(P, nt, verbose=False)
print('// tanh small: T=%s deg %d, approx rel err (f32 coeffs) = %.3g = %.3g * 2^-24' % (T, nt, Et, Et/2**-24), file=sys.stderr)

def gs(t):
    if t < mp.mpf('1e-30'): return 2/mp.sqrt(mp.pi)-1
    a = mp.sqrt(t); return mp.erf(a)/a - 1
def ws(t): return 1/(1+gs(t))
P = Problem(0, B**2, gs, ws, N=N)
cs, Es = greedy_round(P, ns, verbose=False)
print('// erf small: B=%s deg %d, approx rel err = %.3g * 2^-24' % (B, ns, Es/2**-24), file=sys.stderr)

# large: s = a - B (exact in f32), a in [B, C]
gl = lambda s: mp.log(mp.erfc(s+B), 2)
wl = lambda s: mp.erfc(s+B)/mp.erf(s+B)*mp.log(2)
P = Problem(0, C-B, gl, wl, N=N)
cl, El = greedy_round(P, nl, verbose=False)
print('// erf large: deg %d on [%s,%s], approx rel err = %.3g * 2^-24' % (nl, B, C, El/2**-24), file=sys.stderr)

def arr(name, c):
    s = 'static const float %s[%d] = {\n' % (name, len(c))
    for i, v in enumerate(c):
        d, h = fmt(v)
        assert float.fromhex(h[:-1]) == v and f32(float(d[:-1])) == v, (v, d, h)
        s += '    %s, /* %s  c%d */\n' % (h, d, i)
    return s + '};\n'
print('#define TANH_T %sf' % fmt(f32(T))[0][:-1] if False else '#define TANH_T %s' % fmt(f32(T))[1])
print('#define TANH_N %d' % nt)
print(arr('TANH_P', ct))
print('#define ERF_B %s' % fmt(f32(B))[1])
print('#define ERF_C %s' % fmt(f32(C))[1])
print('#define ERF_NS %d' % ns)
print(arr('ERF_S', cs))
print('#define ERF_NL %d' % nl)
print(arr('ERF_L', cl))
