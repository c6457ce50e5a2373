"""cumsum.py: row-wise running sums, tilec's cumsum against Triton's tl.cumsum and torch.cumsum, one process.

    python3 bench/cumsum.py [ROWS N [ROUNDS]]      # default: SHAPES below, 5 rounds

f32 x [rows, N], one program per row (the whole row a tile), out[r, :] = cumsum(x[r, :]).  tilec and
Triton run the same kernel, each at its fastest warps of WARPS; torch.cumsum(x, 1) is the third.  Each
round draws fresh x, fills the output with NaN, checks every contestant against the f64 running sums
(within 1e-5 of the prefix's magnitude), then times it (median of REPS calls between CUDA events, L2
flushed).  GB/s counts x read and out written.
"""
import os
import sys
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="cumsum-triton-"))
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import tilec  # noqa: E402
from ptx_ab import exit_unless_close, race_warps, rows_main  # noqa: E402

SHAPES = [(4096, 1024), (4096, 4096), (16384, 256)]
WARPS = [1, 2, 4, 8, 16]
REPS = 50
SRC = """
kernel row_cumsum(out: *f32, x: *f32, N: const i32 = 1024) {
    let at = program_id(0) * N + arange(0, N);
    store(out + at, cumsum(load(x + at)));
}
"""


@triton.jit
def row_cumsum(out_ptr, x_ptr, N: tl.constexpr):
    at = tl.program_id(0) * N + tl.arange(0, N)
    tl.store(out_ptr + at, tl.cumsum(tl.load(x_ptr + at), 0))


class Problem:
    def __init__(self, rows, n):
        self.rows, self.n = rows, n
        self.out = torch.empty(rows, n, device="cuda")
        self.draw()

    def draw(self):
        self.x = torch.randn(self.rows, self.n, device="cuda")
        x = self.x.double()
        self.ref, self.mag = x.cumsum(1), x.abs().cumsum(1)
        torch.cuda.synchronize()

    def check(self, name, fn, out=None):
        self.out.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        exit_unless_close(name, (out() if out else self.out).double(), self.ref, 1e-5 * self.mag + 1e-6)

    def nbytes(self):
        return 2 * 4 * self.x.numel()


def tilec_fn(p, warps):
    k = tilec.Kernel.compile(SRC, "row_cumsum", defines={"N": p.n}, num_warps=warps)
    return lambda: k.launch(p.rows, p.out, p.x)


def triton_fn(p, warps):
    return lambda: row_cumsum[(p.rows,)](p.out, p.x, N=p.n, num_warps=warps)


def torch_fn(p):
    box = [None]

    def run():
        box[0] = torch.cumsum(p.x, 1)
    return run, lambda: box[0]


def one(rows, n, rounds):
    race_warps(Problem(rows, n), f"cumsum f32 rows={rows} n={n}", tilec_fn, triton_fn, torch_fn, WARPS, rounds, REPS)


if __name__ == "__main__":
    rows_main(one, SHAPES)
