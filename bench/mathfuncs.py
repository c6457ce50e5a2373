"""mathfuncs.py: element-wise log1p, expm1, pow, atan and atan2 over a vector, tilec's against Triton's
libdevice (CUDA's f32 functions) and torch's, one process.

    python3 bench/mathfuncs.py [N [ROUNDS]] [FUNCTION ...]      # default: 2^26 elements, 5 rounds, all five

o = f(x) or f(x, y), f32, BLOCK 1024, each side at its fastest warps of WARPS.  Inputs are drawn fresh
each round: log1p x in (-1, 4), expm1 x in (-20, 20), atan x uniform in (-8, 8) with every fourth of
random bits, pow x in (1/8, 8) and y in (-8, 8), atan2 y and x in (-4, 4) with every fourth pair of random
bits.  Before timing, every output (poisoned with NaN) is checked against torch's float64 function of the
same inputs: within 4 ulps of the f32 result (CUDA quotes 1 to 3 for these), NaN where it is NaN
(Triton's may give 0 for a subnormal result: its libdevice calls flush them).  GB/s
counts the inputs read and the output written.
"""
import os
import sys
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="math-triton-"))
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import tilec  # noqa: E402
import triton_kernels as tk  # noqa: E402
from ptx_ab import race_warps  # noqa: E402

FUNCS = ["log1p", "expm1", "pow", "atan", "atan2"]
BINARY = {"pow", "atan2"}
TORCH = {"log1p": torch.log1p, "expm1": torch.expm1, "pow": torch.pow, "atan": torch.atan, "atan2": torch.atan2}
WARPS = [2, 4, 8]
REPS = 50
SRC = """
kernel math(o: *f32, x: *f32, y: *f32, n: i32, F: const i32 = 0) {
    let offs = program_id(0) * 1024 + arange(0, 1024);
    let m = offs < n;
    let v = load(x + offs, m);
    if F == 0 { store(o + offs, log1p(v), m); }
    else if F == 1 { store(o + offs, expm1(v), m); }
    else if F == 2 { store(o + offs, pow(v, load(y + offs, m)), m); }
    else if F == 3 { store(o + offs, atan(v), m); }
    else { store(o + offs, atan2(v, load(y + offs, m)), m); }
}
"""


def random_bits(n):
    """normal f32 of random bits: every sign and exponent but the subnormal one (Triton's libdevice calls
    flush subnormal inputs, and results, to 0; gpu_test and scripts/math/gpu_sweep.py cover tilec's)"""
    b = torch.randint(-(1 << 31), (1 << 31) - 1, (n,), device="cuda", dtype=torch.int32)
    b = torch.where((b & 0x7f800000) == 0x7f800000, b & ~0x40000000, b)
    b = torch.where((b & 0x7f800000) == 0, b | 0x00800000, b)
    return b.view(torch.float32)


class Problem:
    def __init__(self, name, n):
        self.name, self.n, self.f = name, n, FUNCS.index(name)
        self.o = torch.empty(n, device="cuda")
        self.draw()

    def draw(self):
        u = lambda lo, hi: torch.empty(self.n, device="cuda").uniform_(lo, hi)  # noqa: E731
        self.y = u(-8, 8)
        if self.name == "log1p":
            self.x = u(-1, 4)
        elif self.name == "expm1":
            self.x = u(-20, 20)
        elif self.name == "pow":
            self.x = u(0.125, 8)  # x^y from 2^-24 to 2^24
        else:
            self.x = u(-8, 8) if self.name == "atan" else u(-4, 4)
            self.x[::4] = random_bits(len(self.x[::4]))
            if self.name == "atan2":
                self.y = u(-4, 4)
                self.y[::4] = random_bits(len(self.y[::4]))
        args = (self.x.double(), self.y.double()) if self.name in BINARY else (self.x.double(),)
        self.ref = TORCH[self.name](*args)
        torch.cuda.synchronize()

    def check(self, label, fn, out=None):
        self.o.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        got = (out() if out else self.o).double()
        w = self.ref
        a = w.abs().clamp(min=2.0 ** -126)
        ulp = torch.exp2(torch.frexp(a).exponent.double() - 24)
        wf = w.float().double()  # past FLT_MAX: the f32 infinity
        ok = ((got - w).abs() <= 4 * ulp) | (got == wf) | (got.isnan() & w.isnan())
        if label.startswith("triton"):  # libdevice as Triton calls it flushes subnormal results to 0
            ok |= (w.abs() < 2.0 ** -126) & (got == 0)
        if not ok.all():
            i = int((~ok).nonzero()[0])
            args = f"{self.x[i].item()!r}" + (f", {self.y[i].item()!r}" if self.name in BINARY else "")
            sys.exit(f"{label}: {int((~ok).sum())} of {self.n} off by more than 4 ulps, e.g. "
                     f"{self.name}({args}) = {got[i].item()!r}, want {w[i].item()!r}")

    def nbytes(self):
        return 4 * self.n * (3 if self.name in BINARY else 2)


def tilec_fn(p, warps):
    k = tilec.Kernel.compile(SRC, "math", defines={"F": p.f}, num_warps=warps)
    return lambda: k.launch((p.n + 1023) // 1024, p.o, p.x, p.y, p.n)


def triton_fn(p, warps):
    return lambda: tk.elementwise_math(p.o, p.x, p.y, p.f, warps)


def torch_fn(p):
    box = [None]
    f = TORCH[p.name]

    def run():
        box[0] = f(p.x, p.y) if p.name in BINARY else f(p.x)
    return run, lambda: box[0]


def main():
    a = [int(v) for v in sys.argv[1:] if v.isdigit()]
    names = [v for v in sys.argv[1:] if not v.isdigit()] or FUNCS
    n, rounds = (a[0] if a else 1 << 26), (a[1] if len(a) > 1 else 5)
    torch.manual_seed(0)
    for name in names:
        race_warps(Problem(name, n), f"{name} f32 n={n}", tilec_fn, triton_fn, torch_fn, WARPS, rounds, REPS)


if __name__ == "__main__":
    main()
