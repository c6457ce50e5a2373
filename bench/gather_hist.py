"""gather_hist.py: row-wise gather and histogram, tilec against Triton's tl.gather/tl.histogram and torch, one process.

    python3 bench/gather_hist.py [ROWS N [ROUNDS]]      # default: SHAPES below, 5 rounds

One program per row of [rows, N] (the whole row a tile):
  gather:    out[r, j] = x[r, idx[r, j]], x f32, idx i32 uniform in [0, N); torch.gather(x, 1, idx);
  histogram: out[r, :] = histogram(v[r, :], BINS), v i32 uniform in [0, BINS); torch counts every row at
             once with one bincount of v + BINS * r.
tilec and Triton run the same kernels, each at its fastest warps of WARPS.  Each round draws fresh
inputs, fills the outputs with a poison (NaN, or -1 for counts), checks every contestant exactly
against torch's result, then times it (median of REPS calls between CUDA events, L2 flushed).  GB/s
counts the inputs read and the output written.
"""
import os
import sys
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="gather-triton-"))
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import tilec  # noqa: E402
from ptx_ab import exit_unless_close, race_warps, rows_main  # noqa: E402

SHAPES = [(4096, 256), (4096, 1024)]  # at 1024 x 4096 Triton's warps sweep outran a 5-minute run (compiles)
WARPS = [1, 2, 4, 8, 16]
REPS = 50
BINS = 256
SRC = """
kernel row_gather(out: *f32, x: *f32, idx: *i32, N: const i32 = 1024) {
    let at = program_id(0) * N + arange(0, N);
    store(out + at, gather(load(x + at), load(idx + at), 0));
}

kernel row_hist(out: *i32, v: *i32, N: const i32 = 1024, B: const i32 = 256) {
    let h = histogram(load(v + program_id(0) * N + arange(0, N)), B);
    store(out + program_id(0) * B + arange(0, B), h);
}
"""


@triton.jit
def row_gather(out_ptr, x_ptr, idx_ptr, N: tl.constexpr):
    at = tl.program_id(0) * N + tl.arange(0, N)
    tl.store(out_ptr + at, tl.gather(tl.load(x_ptr + at), tl.load(idx_ptr + at), 0))


@triton.jit
def row_hist(out_ptr, v_ptr, N: tl.constexpr, B: tl.constexpr):
    h = tl.histogram(tl.load(v_ptr + tl.program_id(0) * N + tl.arange(0, N)), B)
    tl.store(out_ptr + tl.program_id(0) * B + tl.arange(0, B), h)


class Problem:
    def __init__(self, rows, n, hist):
        self.rows, self.n, self.hist = rows, n, hist
        self.out = torch.empty(rows, BINS if hist else n, device="cuda", dtype=torch.int32 if hist else torch.float32)
        self.base = (torch.arange(rows, device="cuda") * BINS)[:, None]
        self.draw()

    def draw(self):
        if self.hist:
            self.v = torch.randint(0, BINS, (self.rows, self.n), device="cuda", dtype=torch.int32)
            self.ins = [self.v]
        else:
            self.x = torch.randn(self.rows, self.n, device="cuda")
            self.idx = torch.randint(0, self.n, (self.rows, self.n), device="cuda", dtype=torch.int32)
            self.ins = [self.x, self.idx]
        self.ref = torch_op(self)
        torch.cuda.synchronize()

    def check(self, name, fn, out=None):
        self.out.fill_(-1 if self.hist else float("nan"))
        fn()
        torch.cuda.synchronize()
        exit_unless_close(name, (out() if out else self.out).double(), self.ref.double(), 0.0)

    def nbytes(self):
        return 4 * (sum(t.numel() for t in self.ins) + self.out.numel())


def torch_op(p):
    if p.hist:
        return torch.bincount((p.v + p.base).flatten(), minlength=p.rows * BINS).view(p.rows, BINS)
    return torch.gather(p.x, 1, p.idx.long())


def tilec_fn(p, warps):
    if p.hist:
        k = tilec.Kernel.compile(SRC, "row_hist", defines={"N": p.n, "B": BINS}, num_warps=warps)
        return lambda: k.launch(p.rows, p.out, p.v)
    k = tilec.Kernel.compile(SRC, "row_gather", defines={"N": p.n}, num_warps=warps)
    return lambda: k.launch(p.rows, p.out, p.x, p.idx)


def triton_fn(p, warps):
    if p.hist:
        return lambda: row_hist[(p.rows,)](p.out, p.v, N=p.n, B=BINS, num_warps=warps)
    return lambda: row_gather[(p.rows,)](p.out, p.x, p.idx, N=p.n, num_warps=warps)


def torch_fn(p):
    box = [None]

    def run():
        box[0] = torch_op(p)
    return run, lambda: box[0]


def one(rows, n, rounds):
    for hist in (False, True):
        what = f"histogram i32 bins={BINS}" if hist else "gather f32 by i32"
        race_warps(Problem(rows, n, hist), f"{what} rows={rows} n={n}", tilec_fn, triton_fn, torch_fn, WARPS, rounds,
                   REPS)


if __name__ == "__main__":
    rows_main(one, SHAPES)
