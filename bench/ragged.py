"""ragged.py: softmax f32 at row lengths that are not multiples of 16, dsl_examples/softmax.tile against
Triton's tutorial kernel (triton_kernels.softmax_kernel) and torch.softmax, one process.

    python3 bench/ragged.py [ROWS N [ROUNDS]]      # default: SHAPES below, 5 rounds

At such lengths neither compiler may move more than one element per access (the row stride and the
mask are not known to be multiples of 16), so this measures the layout a kernel runs in when nothing
vectorises: tilec's (one element a run, consecutive lanes on consecutive elements, as Triton's Coalesce
picks) against Triton's.  Each side at its fastest warps of WARPS, BLOCK the next power of two; each
round draws fresh x, poisons the output with NaN and checks it against torch.softmax (1e-5 relative:
both use ex2.approx); GB/s counts x read and the result written, median of REPS calls
between CUDA events, L2 flushed.
"""
import os
import sys
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="ragged-triton-"))
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import tilec  # noqa: E402
import triton_kernels as tk  # noqa: E402
from ptx_ab import race_warps, rows_main  # noqa: E402

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dsl_examples", "softmax.tile")
SHAPES = [(4096, 1000), (4096, 3000), (16384, 777)]
WARPS = [1, 2, 4, 8, 16]
REPS = 50


class Problem:
    def __init__(self, rows, n):
        self.rows, self.n = rows, n
        self.block = 1 << (n - 1).bit_length()
        self.out = torch.empty(rows, n, device="cuda")
        self.draw()

    def draw(self):
        self.x = torch.randn(self.rows, self.n, device="cuda") * 4
        self.ref = torch.softmax(self.x, 1)
        torch.cuda.synchronize()

    def check(self, name, fn, out=None):
        self.out.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        got = out() if out else self.out
        err = ((got - self.ref).abs() / self.ref.abs().clamp_min(1e-30)).max().item()
        if not err <= 1e-5:
            sys.exit(f"{name}: largest relative error {err:.3g} against torch.softmax")

    def nbytes(self):
        return 8 * self.x.numel()


def tilec_fn(p, warps):
    k = tilec.Kernel.compile(SRC, "softmax", defines={"BLOCK": p.block}, num_warps=warps)
    return lambda: k.launch(p.rows, p.out, p.x, p.x.stride(0), p.n)


def triton_fn(p, warps):
    return lambda: tk.softmax_kernel[(p.rows,)](p.out, p.x, p.x.stride(0), p.out.stride(0), p.n,
                                                 BLOCK_SIZE=p.block, num_warps=warps)


def torch_fn(p):
    box = [None]

    def run():
        box[0] = torch.softmax(p.x, 1)
    return run, lambda: box[0]


def one(rows, n, rounds):
    race_warps(Problem(rows, n), f"softmax f32 rows={rows} n={n}", tilec_fn, triton_fn, torch_fn, WARPS, rounds,
               REPS)


if __name__ == "__main__":
    rows_main(one, SHAPES)
