"""mm_ab.py: matmul PTX variants timed side by side, all launched the same way.

    python3 bench/mm_ab.py [M N K [BM BN BK WARPS STAGES [ROUNDS]]]
                                    # default 4096 4096 4096 128 256 32 8 6 5

The softmax A/B of ptx_ab.py for dsl_examples/matmul.tile (f16, f32
accumulation): tilec's PTX from the CLI (bundle/tilec, --arch sm_90a or
TILEC_ARCH, the JIT's hints for these sizes), text edits of it, and AB_PTX="name=file.ptx,..."
(PTX files with tilec's parameters), each loaded with cuModuleLoadData and
launched by ptx_ab.RawKernel; tilec's JIT, Triton's wgmma kernel (TRITON_MM,
default "128 256 64 8 8 3") and cuBLAS (torch.matmul) beside them.  Variants:

  tilec            tilec's PTX as it comes
  tilec.nofence    without the fence.proxy.async.shared::cta before the
                   loop's barrier (cp.async writes are generic-proxy writes
                   that the wgmma reads through the async proxy: the PTX
                   memory model asks for the fence; Triton leaves it out)
  tilec.blockptr   dsl_examples/matmul_block_ptr.tile's PTX, the same hints

AB_ONLY=REGEX times only the variants it matches (and cublas).  Rounds
interleave the variants; printed: TFLOP/s median over rounds, min, max and
the ratio to cuBLAS.  Every variant's result is checked against torch first.
"""
import os
import re
import subprocess
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(__file__))
import tilec  # noqa: E402
import triton_kernels as tk  # noqa: E402
from ptx_ab import CLI, EX, RawKernel, check_runs, rounds_table  # noqa: E402

REPS = 20
ARCH = os.environ.get("TILEC_ARCH", "sm_90a")


def tilec_ptx(cfg, M, N, K, example="matmul"):
    bm, bn, bk, warps, stages = cfg
    hints = [f"{p}=16" for p, v in (("M", M), ("N", N), ("K", K), ("stride_am", K), ("stride_bk", N),
                                    ("stride_cm", N)) if v % 16 == 0]
    hints += ["stride_ak=1", "stride_bn=1", "stride_cn=1"]
    base = [CLI, os.path.join(EX, example + ".tile"), "-D", f"BM={bm}", "-D", f"BN={bn}", "-D", f"BK={bk}",
            "--num-warps", str(warps), "--num-stages", str(stages), "--arch", ARCH,
            "--hints", ",".join(hints), "-o", "-"]
    ptx = subprocess.run(base, check=True, capture_output=True, text=True).stdout
    ir = subprocess.run(base + ["--emit=gpu-ir"], check=True, capture_output=True, text=True).stdout
    return ptx, int(re.search(r"smem_total=(\d+)", ir).group(1))


def no_loop_fence(ptx):
    """Drops the fence.proxy.async that precedes the loop's bar.sync (the first one in the loop); None: none."""
    loop = ptx.find("$L__BB0_2:")
    at = ptx.find("fence.proxy.async.shared::cta;", loop)
    return None if loop < 0 or at < 0 else ptx[:at] + ptx[at + len("fence.proxy.async.shared::cta;"):]


def main():
    a = [int(v) for v in sys.argv[1:]]
    M, N, K = a[0:3] if len(a) >= 3 else (4096, 4096, 4096)
    cfg = tuple(a[3:8]) if len(a) >= 8 else (128, 256, 32, 8, 6)
    rounds = a[8] if len(a) > 8 else 5
    torch.manual_seed(0)
    x = torch.randn(M, K, device="cuda", dtype=torch.float16)
    y = torch.randn(K, N, device="cuda", dtype=torch.float16)
    out = torch.empty(M, N, device="cuda", dtype=torch.float16)
    ref = torch.matmul(x.float(), y.float())
    ptx, smem = tilec_ptx(cfg, M, N, K)
    bm, bn, bk, warps, stages = cfg
    grid = triton.cdiv(M, bm) * triton.cdiv(N, bn)
    args = (out, x, y, M, N, K, x.stride(0), x.stride(1), y.stride(0), y.stride(1), out.stride(0), out.stride(1))
    edits = {"tilec": lambda p: p, "tilec.nofence": no_loop_fence}
    runs = {}
    for name, edit in edits.items():
        text = edit(ptx)
        if text is None:
            continue
        k = RawKernel(text, smem, 32 * warps)
        runs[name] = lambda k=k: k.launch(grid, *args)
    bp_ptx, bp_smem = tilec_ptx(cfg, M, N, K, "matmul_block_ptr")
    kb = RawKernel(bp_ptx, bp_smem, 32 * warps)
    runs["tilec.blockptr"] = lambda: kb.launch(grid, *args)
    for item in filter(None, os.environ.get("AB_PTX", "").split(",")):
        name, path = item.split("=", 1)
        k = RawKernel(open(path).read(), smem, 32 * warps)
        runs[name] = lambda k=k: k.launch(grid, *args)
    kj = tilec.Kernel.compile(os.path.join(EX, "matmul.tile"), "matmul", defines={"BM": bm, "BN": bn, "BK": bk},
                              num_warps=warps, num_stages=stages, arch=os.environ.get("TILEC_ARCH"))
    runs["tilec.jit"] = lambda: kj.launch(grid, *args)
    tcfg = tuple(int(v) for v in os.environ.get("TRITON_MM", "128 256 64 8 8 3").split())
    runs["triton"] = lambda: tk.matmul(x, y, out, tcfg)
    runs["cublas"] = lambda: torch.matmul(x, y, out=out)
    only = os.environ.get("AB_ONLY")
    if only:
        runs = {k: v for k, v in runs.items() if k == "cublas" or re.search(only, k)}
    print(f"matmul f16 {M}x{N}x{K}: tilec {cfg} smem {smem} B, Triton {tcfg}; {rounds} rounds x {REPS} reps")
    check_runs(runs, out, ref, 1e-2)
    flop = 2 * M * N * K
    rounds_table(runs, rounds, REPS, lambda ms: flop / (ms * 1e-3) / 1e12, "TFLOP/s", "cublas")


if __name__ == "__main__":
    main()
