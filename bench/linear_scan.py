"""linear_scan.py: the linear recurrence h[t] = a[t] h[t-1] + b[t] along rows, tilec's
dsl_examples/linear_scan.tile against the same kernel in Triton (tl.associative_scan), one process.

    python3 bench/linear_scan.py [ROWS T [ROUNDS]]      # default: SHAPES below, 5 rounds

f32 a, b, h [rows, T], one program per row, BLOCK elements of it at a time (the scan composes the
steps' affine maps; each block starts from the h the one before ended with).  Both run the same
algorithm, each at its fastest (BLOCK, warps) of CONFIGS.  torch has no single operation for this
recurrence (a Python loop over T, or cumprod/cumsum of a ratio that overflows), so there is no torch
contestant.  Each round draws fresh a in [0.5, 1) and b in [-1, 1], fills h with NaN, checks every
contestant against the recurrence in f64 (within 1e-5 of the magnitude it carries), then times it
(median of REPS calls between CUDA events, L2 flushed).  GB/s counts a, b read and h written.
"""
import os
import statistics
import sys
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="linscan-triton-"))
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import tilec  # noqa: E402
from ptx_ab import exit_unless_close, fresh_rounds, pick_config, print_rates, rows_main  # noqa: E402

SHAPES = [(4096, 1024), (4096, 4096), (1024, 16384)]
CONFIGS = [(b, w) for b in (512, 1024, 2048, 4096) for w in (2, 4, 8, 16)]
REPS = 50
HERE = os.path.dirname(os.path.abspath(__file__))
SRC = open(os.path.join(HERE, "..", "dsl_examples", "linear_scan.tile")).read()


@triton.jit
def compose(a1, b1, a2, b2):
    return a2 * a1, a2 * b1 + b2


@triton.jit
def linear_recurrence(h_ptr, a_ptr, b_ptr, T, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    last = 0.0
    for start in range(0, T, BLOCK):
        t = start + offs
        m = t < T
        at = row * T + t
        pa, pb = tl.associative_scan((tl.load(a_ptr + at, m, 1.0), tl.load(b_ptr + at, m, 0.0)), 0, compose)
        hv = pa * last + pb
        tl.store(h_ptr + at, hv, m)
        last = tl.sum(tl.where(offs == BLOCK - 1, hv, 0.0), 0)


class Problem:
    def __init__(self, rows, t):
        self.rows, self.t = rows, t
        self.h = torch.empty(rows, t, device="cuda")
        self.draw()

    def draw(self):
        self.a = torch.rand(self.rows, self.t, device="cuda") * 0.5 + 0.5
        self.b = torch.rand(self.rows, self.t, device="cuda") * 2 - 1
        a, b = self.a.double(), self.b.double()
        ref, mag = torch.empty_like(a), torch.empty_like(a)
        x = torch.zeros(self.rows, dtype=torch.float64, device="cuda")
        m = torch.zeros_like(x)
        for i in range(self.t):
            x = a[:, i] * x + b[:, i]
            m = a[:, i] * m + b[:, i].abs()
            ref[:, i], mag[:, i] = x, m
        self.ref, self.mag = ref, mag
        torch.cuda.synchronize()

    def check(self, name, fn, out=None):
        self.h.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        exit_unless_close(name, self.h.double(), self.ref, 1e-5 * self.mag + 1e-6)

    def nbytes(self):
        return 3 * 4 * self.a.numel()


def tilec_fn(p, cfg):
    block, warps = cfg
    k = tilec.Kernel.compile(SRC, "linear_recurrence", defines={"BLOCK": block}, num_warps=warps)
    return lambda: k.launch(p.rows, p.h, p.a, p.b, p.t)


def triton_fn(p, cfg):
    block, warps = cfg
    return lambda: linear_recurrence[(p.rows,)](p.h, p.a, p.b, p.t, BLOCK=block, num_warps=warps)


def one(rows, t, rounds):
    p = Problem(rows, t)
    gbs = lambda ms: p.nbytes() / (ms * 1e-3) / 1e9  # noqa: E731
    configs = [c for c in CONFIGS if c[0] <= max(t, 512)]
    t_c = pick_config("tilec", configs, lambda c: tilec_fn(p, c), p.check, gbs, "GB/s")
    r_c = pick_config("triton", configs, lambda c: triton_fn(p, c), p.check, gbs, "GB/s")
    print(f"linear recurrence f32 rows={rows} T={t}: tilec (BLOCK, warps) {t_c}, triton {r_c}; "
          f"{rounds} rounds x {REPS} reps")
    runs = {"tilec": (tilec_fn(p, t_c), None), "triton": (triton_fn(p, r_c), None)}
    got = fresh_rounds(p, runs, lambda: {}, rounds, REPS)
    print_rates(got, "GB/s", "triton")
    print(f"ratio: tilec/triton {statistics.median(got['tilec']) / statistics.median(got['triton']):.3f}")


if __name__ == "__main__":
    rows_main(one, SHAPES)
