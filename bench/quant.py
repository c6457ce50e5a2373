"""quant.py: per-row (per-token) dynamic quantization, dsl_examples/quant.tile against the same kernel in
Triton and torch eager, one process.

    python3 bench/quant.py [ROWS N [ROUNDS]] [f8]      # default: SHAPES below, 5 rounds; f8: quant_f8

x [rows, N] f16; each row's largest magnitude amax gives q = x * (LIM / amax) rounded to int8 (rint, then
clamped to +-127; LIM 127) or, with `f8`, cast to float8_e4m3fn (LIM 448), and scale = amax / LIM.
tilec's quant_i8 / quant_f8 and Triton's triton_kernels.quant_kernel (the same kernel line for line,
libdevice.rint, .to(tl.float8e4nv)) each run at their fastest warps of WARPS; torch is the same f32 steps
in eager ops (abs, amax, where, divide, multiply, round, clamp, to).  Each round draws fresh x (one row all
zeros), fills the outputs with a poison byte, and checks every byte of q and every scale against that torch
computation: they must be equal, not close.  Then it times each (median of REPS calls between CUDA events,
L2 flushed).  GB/s counts x read, q written and the scales.
"""
import os
import sys
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="quant-triton-"))
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import tilec  # noqa: E402
import triton_kernels as tk  # noqa: E402
from ptx_ab import race_warps  # noqa: E402

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dsl_examples", "quant.tile")
SHAPES = [(4096, 4096), (4096, 8192), (16384, 8192), (4096, 1000)]
F8 = "f8" in sys.argv[1:]
LIM = 448.0 if F8 else 127.0
QTYPE = torch.float8_e4m3fn if F8 else torch.int8
WARPS = [1, 2, 4, 8, 16]
REPS = 50


def torch_quant(x):
    v = x.float()
    amax = v.abs().amax(1, keepdim=True)
    # tensor by tensor: torch divides by a Python number (and a Python number by a tensor) through its
    # reciprocal, two roundings; the kernels divide once, as IEEE division does
    lim = torch.full_like(amax, LIM)
    inv = torch.where(amax > 0, lim / amax, torch.zeros_like(amax))
    y = v * inv
    q = y.to(QTYPE) if F8 else y.round().clamp(-127, 127).to(torch.int8)
    return q, (amax / lim).squeeze(1)


class Problem:
    def __init__(self, rows, n):
        self.rows, self.n = rows, n
        self.q = torch.empty(rows, n, dtype=QTYPE, device="cuda")
        self.scale = torch.empty(rows, device="cuda")
        self.draw()

    def draw(self):
        self.x = (torch.randn(self.rows, self.n, device="cuda") * torch.rand(self.rows, 1, device="cuda") * 4).half()
        self.x[self.rows // 2].zero_()
        self.ref_q, self.ref_s = torch_quant(self.x)
        torch.cuda.synchronize()

    def check(self, name, fn, out=None):
        self.q.view(torch.uint8).fill_(0x7f)
        self.scale.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        q, s = out() if out else (self.q, self.scale)
        bad = q.view(torch.uint8) != self.ref_q.view(torch.uint8)
        if bad.any() or not torch.equal(s, self.ref_s):
            i = bad.nonzero()[0].tolist() if bad.any() else None
            sys.exit(f"{name}: {bad.sum().item()} bytes of q differ (first at {i}), scales equal: "
                     f"{torch.equal(s, self.ref_s)}")

    def nbytes(self):
        return 3 * self.x.numel() + 4 * self.rows


def tilec_fn(p, warps):
    k = tilec.Kernel.compile(SRC, "quant_f8" if F8 else "quant_i8", defines={"BLOCK": 1 << (p.n - 1).bit_length()},
                             num_warps=warps)
    return lambda: k.launch(p.rows, p.q, p.scale, p.x, p.n, p.x.stride(0), p.q.stride(0))


def triton_fn(p, warps):
    return lambda: tk.quant(p.q, p.scale, p.x, F8, warps)


def torch_fn(p):
    box = [None]

    def run():
        box[0] = torch_quant(p.x)
    return run, lambda: box[0]


def main():
    a = [int(v) for v in sys.argv[1:] if v != "f8"]
    rounds = a[2] if len(a) > 2 else 5
    torch.manual_seed(0)
    for rows, n in ([tuple(a[0:2])] if len(a) >= 2 else SHAPES):
        race_warps(Problem(rows, n), f"quant {'f8e4m3' if F8 else 'i8'} f16 rows={rows} n={n}", tilec_fn, triton_fn,
                   torch_fn, WARPS, rounds, REPS)


if __name__ == "__main__":
    main()
