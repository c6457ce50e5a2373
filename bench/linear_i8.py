"""linear_i8.py: the w8a8 linear layer of dsl_examples/linear_i8.tile, tilec against the same kernel in
Triton and against cuBLAS's int8 product with torch's dequantizing epilogue, in one process.

    python3 bench/linear_i8.py [M N K [ROUNDS]]          # default 4096 4096 4096 5

Y = (X @ W^T) * sx[m] * sw[n] + bias[n]: X [M, K] and W [N, K] int8 (K contiguous in both, so W is the
column-major B that cuBLAS's int8 kernels take), i32 sums, f16 Y.  Contestants:

  tilec            the JIT (tilec.Kernel; sm_90a on an H100: wgmma.m64nNk32.s32.s8.s8)
  triton           bench/triton_kernels.py's linear_i8_kernel, the same loop
  cublas+torch     torch._int_mm(X, W.t()), then the scaling, bias and cast as torch ops (five more kernels)
  cublas-int8-only torch._int_mm alone (i32 out): the product without the epilogue

tilec and Triton each take the fastest of a short config list (every config checked, then timed: median
of 10 calls; a config that does not compile or fit is skipped, a wrong result ends the run).  Then ROUNDS
rounds, interleaved; each round draws fresh inputs, fills every output with NaN (the i32 one with -1),
runs each contestant once and checks it against an f64 reference (every element: the i32 product exact,
the f16 outputs within 2^-9 relative + 2^-9 of the largest; exits on a miss), then times it: median of
REPS calls between CUDA events, L2 flushed before each.  Printed: TOPS (2MNK / time) median over the
rounds, min, max, and the ratio to cublas+torch.
"""
import os
import sys
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="linear-i8-triton-"))
import torch  # noqa: E402
import triton  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import tilec  # noqa: E402
import triton_kernels as tk  # noqa: E402
from probe import bench  # noqa: E402
from ptx_ab import exit_unless_close, pick_config, print_rates  # noqa: E402

EX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dsl_examples")
REPS = 30
# (BM, BN, BK, warps, stages) for tilec; (BM, BN, BK, GROUP_M, warps, stages) for Triton
TILEC_CONFIGS = [(128, 128, 128, 8, 4), (128, 128, 128, 8, 5), (128, 128, 128, 8, 6), (128, 256, 128, 8, 3),
                 (128, 256, 128, 8, 4), (256, 128, 128, 8, 3), (256, 128, 128, 8, 4), (128, 128, 128, 4, 4),
                 (128, 128, 128, 4, 5), (128, 128, 256, 4, 3), (64, 256, 128, 4, 4), (128, 128, 64, 4, 5)]
TRITON_CONFIGS = [(128, 256, 128, 8, 8, 3), (128, 256, 128, 8, 8, 4), (256, 128, 128, 8, 8, 3),
                  (256, 128, 128, 8, 8, 4), (128, 128, 128, 8, 4, 4), (128, 128, 128, 8, 4, 5),
                  (128, 256, 64, 8, 8, 4), (128, 128, 64, 8, 4, 5)]
TOL = 2.0 ** -9  # f16 output: half an ulp is 2^-11 of each element; f32 scaling adds a few 2^-24


class Problem:
    def __init__(self, M, N, K):
        self.M, self.N, self.K = M, N, K
        self.y = torch.empty(M, N, device="cuda", dtype=torch.float16)
        self.y32 = torch.empty(M, N, device="cuda", dtype=torch.int32)
        self.draw()

    def draw(self):
        M, N, K = self.M, self.N, self.K
        self.x = torch.randint(-128, 128, (M, K), device="cuda", dtype=torch.int8)
        self.w = torch.randint(-128, 128, (N, K), device="cuda", dtype=torch.int8)
        self.sx = torch.rand(M, device="cuda") * 2e-3 + 5e-4
        self.sw = torch.rand(N, device="cuda") * 2e-3 + 5e-4
        self.bias = torch.rand(N, device="cuda") * 4 - 2
        self.prod = self.x.double() @ self.w.double().t()
        self.ref = self.prod * self.sx.double()[:, None] * self.sw.double()[None, :] + self.bias.double()[None, :]

    def check(self, name, fn, out, ref):
        out.fill_(float("nan") if out.is_floating_point() else -1)
        fn()
        torch.cuda.synchronize()
        close(name, out, ref)


def close(name, got, ref):
    """Every element: exact for an integer result, else within TOL relative + TOL of the largest."""
    if not got.is_floating_point():
        if not torch.equal(got.double(), ref):
            sys.exit(f"{name}: {(got.double() != ref).sum().item()} elements differ from the exact product")
        return
    exit_unless_close(name, got, ref, TOL * ref.abs().max(), TOL)


def tilec_run(p, cfg):
    bm, bn, bk, warps, stages = cfg
    k = tilec.Kernel.compile(os.path.join(EX, "linear_i8.tile"), "linear_i8",
                             defines={"BM": bm, "BN": bn, "BK": bk}, num_warps=warps, num_stages=stages)
    grid = triton.cdiv(p.M, bm) * triton.cdiv(p.N, bn)
    return lambda: k.launch(grid, p.y, p.x, p.w, p.sx, p.sw, p.bias, p.M, p.N, p.K, p.K, p.K, p.N)


def triton_run(p, cfg):
    return lambda: tk.linear_i8(p.y, p.x, p.w, p.sx, p.sw, p.bias, cfg)


def cublas_torch(p):
    box = [None]

    def run():
        box[0] = (torch._int_mm(p.x, p.w.t()).float() * p.sx[:, None] * p.sw[None, :] + p.bias).half()
    return run, box


def main():
    a = [int(v) for v in sys.argv[1:]]
    M, N, K = a[0:3] if len(a) >= 3 else (4096, 4096, 4096)
    rounds = a[3] if len(a) > 3 else 5
    torch.manual_seed(0)
    p = Problem(M, N, K)
    tops = lambda ms: 2 * M * N * K / (ms * 1e-3) / 1e12  # noqa: E731
    check = lambda label, fn: p.check(label, fn, p.y, p.ref)  # noqa: E731
    tc = pick_config("tilec", TILEC_CONFIGS, lambda c: tilec_run(p, c), check, tops, "TOPS")
    trc = pick_config("triton", TRITON_CONFIGS, lambda c: triton_run(p, c), check, tops, "TOPS")
    print(f"linear_i8 {M}x{N}x{K}: tilec {tc}, Triton {trc}; {rounds} rounds x {REPS} reps, fresh inputs each")
    got = {n: [] for n in ("tilec", "triton", "cublas+torch", "cublas-int8-only")}
    for _ in range(rounds):
        p.draw()
        ct, box = cublas_torch(p)
        runs = {"tilec": (tilec_run(p, tc), p.y, p.ref), "triton": (triton_run(p, trc), p.y, p.ref)}
        for name, (fn, out, ref) in runs.items():
            p.check(name, fn, out, ref)
        ct()
        torch.cuda.synchronize()
        close("cublas+torch", box[0], p.ref)
        only = lambda: torch._int_mm(p.x, p.w.t(), out=p.y32)  # noqa: E731
        p.check("cublas-int8-only", only, p.y32, p.prod)
        for name, fn in (("tilec", runs["tilec"][0]), ("triton", runs["triton"][0]), ("cublas+torch", ct),
                         ("cublas-int8-only", only)):
            got[name].append(tops(bench(fn, 1, REPS)[0]))
    print_rates(got, "TOPS", "cublas+torch", width=18)


if __name__ == "__main__":
    main()
