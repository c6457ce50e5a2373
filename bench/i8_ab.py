"""i8_ab.py: dsl_examples/matmul_i8.tile's PTX variants timed side by side, all launched the same way.

    AB_PTX="name=file.ptx,..." python3 bench/i8_ab.py [M N K [BM BN BK WARPS [ROUNDS]]]
                                                # default 4096 4096 4096 128 128 32 4 5

tilec's PTX from the CLI (bundle/tilec, --arch sm_90a or TILEC_ARCH, the JIT's hints
for these sizes) and each AB_PTX file (PTX of the same kernel, e.g. from another
build of tilec), loaded with cuModuleLoadData and launched by ptx_ab.RawKernel, beside
cuBLAS's int8 product (torch._int_mm) with B column-major, the layout its int8 kernels
take.  Every variant's result is checked against an f64 product first.  Rounds
interleave the variants; printed: TOPS median over rounds, min, max, ratio to cuBLAS.
"""
import os
import re
import subprocess
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(__file__))
from ptx_ab import CLI, EX, RawKernel, check_runs, rounds_table  # noqa: E402

REPS = 20
ARCH = os.environ.get("TILEC_ARCH", "sm_90a")


def tilec_ptx(cfg, M, N, K):
    bm, bn, bk, warps = cfg
    hints = [f"{p}=16" for p, v in (("M", M), ("N", N), ("K", K), ("stride_am", K), ("stride_bk", N),
                                    ("stride_cm", N)) if v % 16 == 0]
    base = [CLI, os.path.join(EX, "matmul_i8.tile"), "-D", f"BM={bm}", "-D", f"BN={bn}", "-D", f"BK={bk}",
            "--num-warps", str(warps), "--arch", ARCH, "--hints", ",".join(hints), "-o", "-"]
    ptx = subprocess.run(base, check=True, capture_output=True, text=True).stdout
    ir = subprocess.run(base + ["--emit=gpu-ir"], check=True, capture_output=True, text=True).stdout
    return ptx, int(re.search(r"smem_total=(\d+)", ir).group(1))


def main():
    a = [int(v) for v in sys.argv[1:]]
    M, N, K = a[0:3] if len(a) >= 3 else (4096, 4096, 4096)
    cfg = tuple(a[3:7]) if len(a) >= 7 else (128, 128, 32, 4)
    rounds = a[7] if len(a) > 7 else 5
    torch.manual_seed(0)
    x = torch.randint(-128, 128, (M, K), device="cuda", dtype=torch.int8)
    y = torch.randint(-128, 128, (K, N), device="cuda", dtype=torch.int8)
    yc = y.t().contiguous().t()
    sa, sb = torch.rand(M, device="cuda") / 100, torch.rand(N, device="cuda") / 100
    out = torch.empty(M, N, device="cuda")
    o32 = torch.empty(M, N, device="cuda", dtype=torch.int32)
    ref = (x.double() @ y.double()) * sa.double()[:, None] * sb.double()[None, :]
    ptx, smem = tilec_ptx(cfg, M, N, K)
    bm, bn, bk, warps = cfg
    grid = triton.cdiv(M, bm) * triton.cdiv(N, bn)
    args = (out, x, y, sa, sb, M, N, K, K, N, N)
    runs = {}
    for name, text in [("tilec", ptx)] + [(i.split("=", 1)[0], open(i.split("=", 1)[1]).read())
                                           for i in filter(None, os.environ.get("AB_PTX", "").split(","))]:
        k = RawKernel(text, smem, 32 * warps)
        runs[name] = lambda k=k: k.launch(grid, *args)
    print(f"matmul_i8 {M}x{N}x{K}: tilec {cfg} smem {smem} B; {rounds} rounds x {REPS} reps")
    check_runs(runs, out, ref, 1e-5)
    runs["cublas"] = lambda: torch._int_mm(x, yc, out=o32)
    rounds_table(runs, rounds, REPS, lambda ms: 2 * M * N * K / (ms * 1e-3) / 1e12, "TOPS", "cublas")


if __name__ == "__main__":
    main()
