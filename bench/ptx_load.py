"""ptx_load.py: how long the driver takes to load (compile) tilec's PTX and Triton's PTX of the same kernel.

    CUDA_CACHE_DISABLE=1 python3 bench/ptx_load.py [REPS]      # default 15

For softmax (the tutorial's one row a program, BLOCK 1024, 4 warps: bench.py's 4096x1024 row) and vector
add (BLOCK 1024, 4 warps), tilec's PTX (the CLI, sm_90a, the JIT's hints, no .loc lines, as the JIT
builds it) and Triton's (from its compiled kernel) are each loaded with cuModuleLoadData REPS times,
alternating, in one process; the driver's disk cache must be off (CUDA_CACHE_DISABLE=1, checked), so each
load compiles.  Prints the median and minimum of each, the PTX's size in lines and instructions, and
ptxas's register count.  A cold compile of a tilec kernel is mostly this load (docs/gpu.md).
"""
import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="ptx-load-triton-"))
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import triton_kernels as tk  # noqa: E402
from ptx_ab import CLI, EX, check, cu  # noqa: E402


def tilec_ptx(file, kernel, args):
    cmd = [CLI, os.path.join(EX, file), "--kernel", kernel, "--arch", "sm_90a", "--no-lineinfo", "-o", "-"] + args
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def load_ms(ptx):
    mod = ctypes.c_void_p()
    t = time.perf_counter()
    check(cu.cuModuleLoadData(ctypes.byref(mod), ctypes.c_char_p(ptx.encode())), "cuModuleLoadData")
    ms = (time.perf_counter() - t) * 1e3
    check(cu.cuModuleUnload(mod), "cuModuleUnload")
    return ms


def shape(ptx):
    lines = ptx.splitlines()
    body = [s.strip() for s in lines if s.strip() and not s.strip().startswith(("//", ".", "{", "}", "$", "@$"))]
    return f"{len(lines)} lines, {len(body)} instructions"


def main():
    if os.environ.get("CUDA_CACHE_DISABLE") != "1":
        sys.exit("ptx_load: set CUDA_CACHE_DISABLE=1, or the driver's cache makes every load after the first warm")
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    torch.cuda.init()
    x = torch.randn(4096, 1024, device="cuda")
    out = torch.empty_like(x)
    sm = tk.softmax_kernel[(4096,)](out, x, x.stride(0), out.stride(0), 1024, num_warps=4, BLOCK_SIZE=1024)
    v = torch.randn(1 << 20, device="cuda")
    add = tk.add_kernel[(1024,)](v, v, out, 1 << 20, BLOCK_SIZE=1024, num_warps=4)
    pairs = {
        "softmax 1024": (tilec_ptx("softmax.tile", "softmax", ["-D", "BLOCK=1024", "--hints", "n=16,stride=16"]),
                         sm.asm["ptx"]),
        "vector add": (tilec_ptx("vector_add.tile", "vector_add", ["-D", "BLOCK=1024", "--hints", "n=16"]),
                       add.asm["ptx"]),
    }
    print(f"{'kernel':<14} {'side':<7} {'median ms':>9} {'min ms':>7}  PTX")
    for name, (ours, theirs) in pairs.items():
        got = {"tilec": [], "triton": []}
        for _ in range(reps):
            got["tilec"].append(load_ms(ours))
            got["triton"].append(load_ms(theirs))
        for side, ptx in (("tilec", ours), ("triton", theirs)):
            t = got[side]
            print(f"{name:<14} {side:<7} {statistics.median(t):9.2f} {min(t):7.2f}  {shape(ptx)}")
        print(f"{name:<14} tilec/triton {statistics.median(got['tilec']) / statistics.median(got['triton']):.2f}")


if __name__ == "__main__":
    main()
