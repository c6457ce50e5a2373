"""ragged.py: row-wise kernels at row lengths that are not multiples of 16, one process: softmax f32
(dsl_examples/softmax.tile against Triton's tutorial kernel, triton_kernels.softmax_kernel, and
torch.softmax), and with `layernorm` the f16 layer norm forward (dsl_examples/layernorm.tile against
Triton's tutorial _layer_norm_fwd_fused and torch's F.layer_norm).

    python3 bench/ragged.py [ROWS N [ROUNDS]] [layernorm]     # default: SHAPES below, 5 rounds

At such lengths neither compiler may move more than one element per access (the row stride and the
mask are not known to be multiples of 16), so this measures the layout a kernel runs in when nothing
vectorises: tilec's (one element a run, consecutive lanes on consecutive elements, as Triton's Coalesce
picks) against Triton's.  Each side at its fastest warps of WARPS, BLOCK the next power of two; each
round draws fresh x, poisons the output with NaN and checks it against torch's (softmax: 1e-5
relative, both use ex2.approx; layer norm: 1e-2 absolute on outputs of magnitude about 1, f16); GB/s
counts x read and the result written (layer norm: also w, b, mean and rstd), median of REPS calls
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

EX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dsl_examples")
LN = "layernorm" in sys.argv[1:]
SHAPES = [(4096, 1000), (4096, 3000), (16384, 777)]
WARPS = [1, 2, 4, 8, 16]
REPS = 50


class Softmax:
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

    def tilec(self, warps):
        k = tilec.Kernel.compile(os.path.join(EX, "softmax.tile"), "softmax", defines={"BLOCK": self.block},
                                 num_warps=warps)
        return lambda: k.launch(self.rows, self.out, self.x, self.x.stride(0), self.n)

    def triton(self, warps):
        return lambda: tk.softmax_kernel[(self.rows,)](self.out, self.x, self.x.stride(0), self.out.stride(0),
                                                        self.n, BLOCK_SIZE=self.block, num_warps=warps)

    def torch(self):
        return lambda: torch.softmax(self.x, 1)


class LayerNorm:
    EPS = 1e-5

    def __init__(self, rows, n):
        self.rows, self.n = rows, n
        self.block = 1 << (n - 1).bit_length()
        self.out = torch.empty(rows, n, device="cuda", dtype=torch.float16)
        self.mean = torch.empty(rows, device="cuda")
        self.rstd = torch.empty(rows, device="cuda")
        self.draw()

    def draw(self):
        self.x = (torch.randn(self.rows, self.n, device="cuda") * 2 + 0.5).half()
        self.w = (torch.rand(self.n, device="cuda") + 0.5).half()
        self.b = (torch.randn(self.n, device="cuda") * 0.1).half()
        self.ref = self.layer_norm()
        torch.cuda.synchronize()

    def layer_norm(self):
        return torch.nn.functional.layer_norm(self.x, (self.n,), self.w, self.b, self.EPS)

    def check(self, name, fn, out=None):
        self.out.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        got = out() if out else self.out
        err = (got.float() - self.ref.float()).abs().max().item()
        if not err <= 1e-2:
            sys.exit(f"{name}: largest error {err:.3g} against torch's layer_norm")

    def nbytes(self):
        return 4 * self.x.numel() + 4 * self.n + 8 * self.rows

    def tilec(self, warps):
        k = tilec.Kernel.compile(os.path.join(EX, "layernorm.tile"), "layernorm", defines={"BLOCK": self.block},
                                 num_warps=warps)
        return lambda: k.launch(self.rows, self.out, self.mean, self.rstd, self.x, self.w, self.b,
                                self.x.stride(0), self.n, self.EPS)

    def triton(self, warps):
        return lambda: tk._layer_norm_fwd_fused[(self.rows,)](self.x, self.out, self.w, self.b, self.mean, self.rstd,
                                                              self.x.stride(0), self.n, self.EPS,
                                                              BLOCK_SIZE=self.block, num_warps=warps)

    def torch(self):
        return self.layer_norm


def torch_fn(p):
    box, f = [None], p.torch()

    def run():
        box[0] = f()
    return run, lambda: box[0]


def one(rows, n, rounds):
    p, what = (LayerNorm(rows, n), "layernorm f16") if LN else (Softmax(rows, n), "softmax f32")
    race_warps(p, f"{what} rows={rows} n={n}", lambda p, w: p.tilec(w), lambda p, w: p.triton(w), torch_fn, WARPS,
               rounds, REPS)


if __name__ == "__main__":
    if LN:
        sys.argv.remove("layernorm")
    rows_main(one, SHAPES)
