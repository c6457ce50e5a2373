"""jit_opt_probe.py: what the driver's PTX optimisation level (TILEC_JIT_OPT,
CU_JIT_OPTIMIZATION_LEVEL) costs at module load and gives in bandwidth.

    for l in 4 3 2 1 0; do TILEC_JIT_OPT=$l CUDA_CACHE_DISABLE=1 python3 bench/jit_opt_probe.py; done

One line per kernel: load ms (the driver's PTX compile), median GB/s.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
import tilec  # noqa: E402
from probe import bench  # noqa: E402

EX = os.path.join(os.path.dirname(__file__), "..", "dsl_examples")


def main():
    level = os.environ.get("TILEC_JIT_OPT", "default")
    torch.manual_seed(0)
    rows, out = 4096, []
    for n, warps in ((1024, 4), (4096, 16), (16384, 16)):
        x = torch.randn(rows, n, device="cuda")
        o = torch.empty_like(x)
        k = tilec.Kernel.compile(os.path.join(EX, "softmax.tile"), "softmax", defines={"BLOCK": n},
                                 num_warps=warps)
        fn = lambda: k.launch(rows, o, x, n, n)  # noqa: E731
        fn()
        torch.cuda.synchronize()
        err = ((o - torch.softmax(x, 1)).norm() / torch.softmax(x, 1).norm()).item()
        ms, gbs = bench(fn, 8 * rows * n)
        out.append((f"softmax/{n}", k.compile_times()[3], gbs, err))
    n = 100_000_000
    x = torch.randn(n, device="cuda") + 0.5
    o = torch.zeros(1, device="cuda")
    p = 4 * torch.cuda.get_device_properties(0).multi_processor_count
    k = tilec.Kernel.compile(os.path.join(EX, "mean.tile"), "mean_atomic", defines={"BLOCK": 4096}, num_warps=4)
    fn = lambda: (o.zero_(), k.launch(p, o, x, n, 1.0 / n))  # noqa: E731
    fn()
    torch.cuda.synchronize()
    ms, gbs = bench(fn, 4 * n)
    out.append(("mean_atomic", k.compile_times()[3], gbs, abs(o.item() / x.double().mean().item() - 1)))
    for name, load, gbs, err in out:
        print(f"opt={level} {name:14s} load {load:6.1f} ms  {gbs:6.0f} GB/s  err {err:.1e}")


main()
