"""sort.py: row-wise sort and top-k, tilec's sort/topk against Triton's tl.sort/tl.topk and torch, one process.

    python3 bench/sort.py [ROWS N [ROUNDS]]      # default: SHAPES below, 5 rounds

f32 x [rows, N], one program per row (the whole row a tile): out[r, :] = sort(x[r, :]) and
top[r, :] = topk(x[r, :], K), the K largest, largest first.  tilec and Triton run the same kernels,
each at its fastest warps of WARPS; torch.sort(x, 1) and torch.topk(x, K, 1) are the third.  Each
round draws fresh x, fills the outputs with NaN, checks every contestant against torch's sort of x
(exactly: the values are a permutation), then times it (median of REPS calls between CUDA events, L2
flushed).  GB/s counts x read and the output written.  Triton's topk is timed only where
triton.language has one.
"""
import os
import statistics
import sys
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="sort-triton-"))
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import tilec  # noqa: E402
from ptx_ab import exit_unless_close, fresh_rounds, pick_config, print_rates, ratio_line, rows_main  # noqa: E402

SHAPES = [(4096, 256), (4096, 1024), (1024, 4096)]
WARPS = [1, 2, 4, 8, 16]
REPS = 50
K = 8
SRC = """
kernel row_sort(out: *f32, x: *f32, N: const i32 = 1024) {
    let at = program_id(0) * N + arange(0, N);
    store(out + at, sort(load(x + at)));
}

kernel row_topk(out: *f32, x: *f32, N: const i32 = 1024, K: const i32 = 8) {
    let v = load(x + program_id(0) * N + arange(0, N));
    store(out + program_id(0) * K + arange(0, K), topk(v, K));
}
"""
HAS_TOPK = hasattr(tl, "topk")


@triton.jit
def row_sort(out_ptr, x_ptr, N: tl.constexpr):
    at = tl.program_id(0) * N + tl.arange(0, N)
    tl.store(out_ptr + at, tl.sort(tl.load(x_ptr + at)))


if HAS_TOPK:
    @triton.jit
    def row_topk(out_ptr, x_ptr, N: tl.constexpr, K: tl.constexpr):
        v = tl.load(x_ptr + tl.program_id(0) * N + tl.arange(0, N))
        tl.store(out_ptr + tl.program_id(0) * K + tl.arange(0, K), tl.topk(v, K))


class Problem:
    def __init__(self, rows, n, top):
        self.rows, self.n, self.top = rows, n, top
        self.out = torch.empty(rows, K if top else n, device="cuda")
        self.draw()

    def draw(self):
        self.x = torch.randn(self.rows, self.n, device="cuda")
        s = torch.sort(self.x, 1).values
        self.ref = s.flip(1)[:, :K].contiguous() if self.top else s
        torch.cuda.synchronize()

    def check(self, name, fn, out=None):
        self.out.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        exit_unless_close(name, (out() if out else self.out).double(), self.ref.double(), 0.0)

    def nbytes(self):
        return 4 * (self.x.numel() + self.out.numel())


def tilec_fn(p, warps):
    name, defs = ("row_topk", {"N": p.n, "K": K}) if p.top else ("row_sort", {"N": p.n})
    k = tilec.Kernel.compile(SRC, name, defines=defs, num_warps=warps)
    return lambda: k.launch(p.rows, p.out, p.x)


def triton_fn(p, warps):
    if p.top:
        return lambda: row_topk[(p.rows,)](p.out, p.x, N=p.n, K=K, num_warps=warps)
    return lambda: row_sort[(p.rows,)](p.out, p.x, N=p.n, num_warps=warps)


def torch_fn(p):
    box = [None]

    def run():
        box[0] = torch.topk(p.x, K, 1).values if p.top else torch.sort(p.x, 1).values
    return run, lambda: box[0]


def one(rows, n, rounds):
    for top in (False, True):
        p = Problem(rows, n, top)
        what = f"topk K={K}" if top else "sort"
        gbs = lambda ms: p.nbytes() / (ms * 1e-3) / 1e9  # noqa: E731
        t_w = pick_config("tilec", WARPS, lambda w: tilec_fn(p, w), p.check, gbs, "GB/s")
        runs = {"tilec": (tilec_fn(p, t_w), None)}
        line = f"{what} f32 rows={rows} n={n}: tilec {t_w} warps"
        if not top or HAS_TOPK:
            r_w = pick_config("triton", WARPS, lambda w: triton_fn(p, w), p.check, gbs, "GB/s")
            runs["triton"] = (triton_fn(p, r_w), None)
            line += f", triton {r_w} warps"
        else:
            line += ", triton has no tl.topk (SKIPPED)"
        print(f"{line}; {rounds} rounds x {REPS} reps")
        got = fresh_rounds(p, runs, lambda: {"torch": torch_fn(p)}, rounds, REPS)
        print_rates(got, "GB/s", "torch")
        if "triton" in got:
            print(ratio_line(got))
        else:
            print(f"ratios: tilec/torch {statistics.median(got['tilec']) / statistics.median(got['torch']):.3f}")


if __name__ == "__main__":
    rows_main(one, SHAPES)
