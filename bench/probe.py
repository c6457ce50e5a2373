"""probe.py: side-by-side look at one workload, tilec vs Triton, for tuning.

    python3 bench/probe.py softmax 4096 16384      # dumps PTX of both, times both
    python3 bench/probe.py mean 100000000
    python3 bench/probe.py matmul 4096 4096 4096 128 256 32 8 4   # tilec, cuBLAS, Triton mma.sync
    python3 bench/probe.py matmul_block_ptr 4096 4096 4096 128 256 32 8 6  # matmul_block_ptr.tile vs
                                                                 # cuBLAS, matmul.tile and Triton's block-
                                                                 # pointer matmul (TRITON_MM's config)
    python3 bench/probe.py matmul_i8 4096 4096 4096 64 64 64 4 3  # dsl_examples/matmul_i8.tile vs
                                                                 # torch._int_mm (cuBLAS) + scaling
    python3 bench/probe.py attention 32 4096 64 128 64 8 3        # BH N D [BM BN WARPS STAGES]: tilec vs
                                                                 # torch's scaled_dot_product_attention
    python3 bench/probe.py linear_scan 4096 4096 4096 4           # ROWS T [BLOCK WARPS]: linear_scan.tile
                                                                 # vs bench/linear_scan.py's Triton kernel

In matmul, the third contestant is Triton's tutorial kernel compiled with
DISABLE_MMA_V3=1 (mma.sync, as tilec; config from TRITON_MM, default
"128 256 64 8 8 3" = BM BN BK GROUP_M WARPS STAGES); its PTX and cubin are
copied out of Triton's cache next to tilec's PTX.  TRITON_MMA=wgmma makes it
Triton's Hopper (wgmma) kernel instead; TILEC_ARCH=sm_90 compiles tilec's for
the mma.sync path (default: the device's arch, sm_90a = wgmma on an H100).

Writes $OUT/probe-<name>-{tilec,triton}.ptx (or bench/out/) and prints the
median time and GB/s of each (CUDA events, L2 flushed, fresh inputs).
"""
import os
import sys

import glob
import shutil
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="probe-triton-"))
import torch  # noqa: E402
import triton  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import tilec  # noqa: E402
import triton_kernels as tk  # noqa: E402

OUT = os.environ.get("OUT", os.path.join(os.path.dirname(__file__), "out"))
os.makedirs(OUT, exist_ok=True)
EX = os.path.join(os.path.dirname(__file__), "..", "dsl_examples")


def bench(fn, nbytes, reps=100):
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    for _ in range(5):
        fn()
    ts = []
    for _ in range(reps):
        flush.zero_()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e))
    ts.sort()
    ms = ts[len(ts) // 2]
    return ms, nbytes / ms / 1e6


def main():
    what = sys.argv[1]
    extra = []
    torch.manual_seed(0)
    if what == "softmax":
        rows, n = int(sys.argv[2]), int(sys.argv[3])
        block, warps = tk.softmax_config(n)
        if len(sys.argv) > 4:
            warps = int(sys.argv[4])
        x = torch.randn(rows, n, device="cuda")
        o1, o2 = torch.empty_like(x), torch.empty_like(x)
        k = tilec.Kernel.compile(os.path.join(EX, "softmax.tile"), "softmax", defines={"BLOCK": block},
                                 num_warps=warps)
        t = lambda: k.launch(rows, o1, x, x.stride(0), n)  # noqa: E731
        tt = lambda: tk.softmax_kernel[(rows,)](o2, x, x.stride(0), o2.stride(0), n,  # noqa: E731
                                              num_warps=warps, BLOCK_SIZE=block)
        nbytes = 2 * x.numel() * 4
        ref = torch.softmax(x, 1)
    elif what == "mean":
        n = int(sys.argv[2])
        warps = int(sys.argv[3]) if len(sys.argv) > 3 else 4
        x = torch.randn(n, device="cuda") + 0.5
        o1, o2 = torch.zeros(1, device="cuda"), torch.zeros(1, device="cuda")
        p = 4 * torch.cuda.get_device_properties(0).multi_processor_count
        k = tilec.Kernel.compile(os.path.join(EX, "mean.tile"), "mean_atomic", defines={"BLOCK": 4096},
                                 num_warps=warps)
        t = lambda: (o1.zero_(), k.launch(p, o1, x, n, 1.0 / n))  # noqa: E731
        tt = lambda: (o2.zero_(), tk.mean_atomic_kernel[(p,)](o2, x, n, 1.0 / n, BLOCK=4096,  # noqa: E731
                                                               num_warps=warps))
        nbytes = n * 4
        ref = x.double().mean().float().reshape(1)
    elif what == "matmul":
        M, N, K = (int(v) for v in sys.argv[2:5])
        bm, bn, bk, warps, stages = (int(v) for v in (sys.argv[5:10] or [128, 128, 32, 8, 3]))
        a = torch.randn(M, K, device="cuda", dtype=torch.float16)
        b = torch.randn(K, N, device="cuda", dtype=torch.float16)
        o1 = torch.empty(M, N, device="cuda", dtype=torch.float16)
        o2 = torch.empty_like(o1)
        k = tilec.Kernel.compile(os.path.join(EX, "matmul.tile"), "matmul",
                                 defines={"BM": bm, "BN": bn, "BK": bk}, num_warps=warps, num_stages=stages,
                                 arch=os.environ.get("TILEC_ARCH"))
        grid = triton.cdiv(M, bm) * triton.cdiv(N, bn)
        t = lambda: k.launch(grid, o1, a, b, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),  # noqa
                             o1.stride(0), o1.stride(1))
        tt = lambda: torch.matmul(a, b, out=o2)  # noqa: E731
        o3 = torch.empty_like(o1)
        tcfg = tuple(int(v) for v in os.environ.get("TRITON_MM", "128 256 64 8 8 3").split())
        sync = os.environ.get("TRITON_MMA", "mma.sync") == "mma.sync"
        tm = lambda: tk.matmul(a, b, o3, tcfg, mma_sync=sync)  # noqa: E731
        extra = [("triton-mma.sync" if sync else "triton-wgmma", tm, o3)]
        nbytes = 2 * M * N * K / 1000  # reported "GB/s" column is then TFLOP/s
        ref = torch.matmul(a.float(), b.float())
    elif what == "matmul_block_ptr":
        M, N, K = (int(v) for v in sys.argv[2:5])
        bm, bn, bk, warps, stages = (int(v) for v in (sys.argv[5:10] or [128, 128, 32, 8, 3]))
        a = torch.randn(M, K, device="cuda", dtype=torch.float16)
        b = torch.randn(K, N, device="cuda", dtype=torch.float16)
        o1, o2, o3, o4 = (torch.empty(M, N, device="cuda", dtype=torch.float16) for _ in range(4))
        grid = triton.cdiv(M, bm) * triton.cdiv(N, bn)
        args = lambda o: (grid, o, a, b, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),  # noqa
                          o.stride(0), o.stride(1))
        ks = [tilec.Kernel.compile(os.path.join(EX, f + ".tile"), f, defines={"BM": bm, "BN": bn, "BK": bk},
                                   num_warps=warps, num_stages=stages, arch=os.environ.get("TILEC_ARCH"))
              for f in ("matmul_block_ptr", "matmul")]
        t = lambda: ks[0].launch(*args(o1))  # noqa: E731
        tt = lambda: torch.matmul(a, b, out=o2)  # noqa: E731
        tcfg = tuple(int(v) for v in os.environ.get("TRITON_MM", "128 256 64 8 8 3").split())
        extra = [("tilec-matmul", lambda: ks[1].launch(*args(o3)), o3),
                 ("triton-blockptr", lambda: tk.matmul_block_ptr(a, b, o4, tcfg), o4)]
        nbytes = 2 * M * N * K / 1000  # reported "GB/s" column is then TFLOP/s
        ref = torch.matmul(a.float(), b.float())
    elif what == "matmul_i8":
        M, N, K = (int(v) for v in sys.argv[2:5])
        bm, bn, bk, warps, stages = (int(v) for v in (sys.argv[5:10] or [64, 64, 64, 4, 3]))
        a = torch.randint(-128, 128, (M, K), device="cuda", dtype=torch.int8)
        b = torch.randint(-128, 128, (K, N), device="cuda", dtype=torch.int8)
        sa, sb = torch.rand(M, device="cuda") / 100, torch.rand(N, device="cuda") / 100
        o1 = torch.empty(M, N, device="cuda")
        k = tilec.Kernel.compile(os.path.join(EX, "matmul_i8.tile"), "matmul_i8",
                                 defines={"BM": bm, "BN": bn, "BK": bk}, num_warps=warps, num_stages=stages,
                                 arch=os.environ.get("TILEC_ARCH"))
        grid = triton.cdiv(M, bm) * triton.cdiv(N, bn)
        t = lambda: k.launch(grid, o1, a, b, sa, sb, M, N, K, K, N, N)  # noqa: E731
        box = [None]

        def tt():  # cuBLAS's int8 product, then the scaling as torch ops
            box[0] = torch._int_mm(a, b).float() * sa[:, None] * sb[None, :]
        o2 = lambda: box[0]  # noqa: E731
        o3 = torch.empty(M, N, device="cuda", dtype=torch.int32)
        bt = b.t().contiguous().t()  # B column-major: the layout cuBLAS's int8 kernels prefer
        extra = [("cublas-int8-only", lambda: torch._int_mm(a, b, out=o3), None),
                 ("cublas-int8-Bcol", lambda: torch._int_mm(a, bt, out=o3), None)]
        nbytes = 2 * M * N * K / 1000  # "GB/s" column = TOPS
        ref = (a.double() @ b.double()) * sa.double()[:, None] * sb.double()[None, :]
    elif what == "attention":
        bh, n, d = (int(v) for v in sys.argv[2:5])
        bm, bn, warps, stages = (int(v) for v in (sys.argv[5:9] or [128, 64, 8, 3]))
        q, k, v = (torch.randn(bh, n, d, device="cuda", dtype=torch.float16) for _ in range(3))
        o1 = torch.full_like(q, float("nan"))
        kern = tilec.Kernel.compile(os.path.join(EX, "attention.tile"), "attention",
                                    defines={"BM": bm, "BN": bn, "D": d}, num_warps=warps, num_stages=stages)
        scale = 1.0 / d ** 0.5
        t = lambda: kern.launch((triton.cdiv(n, bm), bh), o1, q, k, v, n, scale, n * d, d)  # noqa: E731

        box = [None]  # torch allocates its output: the check reads the last one

        def tt():
            box[0] = torch.nn.functional.scaled_dot_product_attention(q[None], k[None], v[None])[0]
        o2 = lambda: box[0]  # noqa: E731
        nbytes = 4 * bh * n * n * d / 1000  # "GB/s" column = TFLOP/s (two products)
        # Triton's tutorial kernel (triton_kernels.attention) at the tutorial's H100 configs
        for cfg in ((128, 64, 8, 3), (128, 64, 4, 3), (128, 128, 8, 3), (64, 64, 4, 3)):
            ot = torch.full_like(q, float("nan"))
            extra.append(("triton-" + "x".join(map(str, cfg)),
                          lambda ot=ot, cfg=cfg: tk.attention(ot, q, k, v, scale, cfg), ot))
        ref = torch.nn.functional.scaled_dot_product_attention(q[None].float(), k[None].float(), v[None].float())[0]
    elif what == "linear_scan":
        rows, n = int(sys.argv[2]), int(sys.argv[3])
        block, warps = (int(v) for v in (sys.argv[4:6] or [4096, 4]))
        import linear_scan as ls
        a = torch.rand(rows, n, device="cuda") * 0.5 + 0.5
        b = torch.rand(rows, n, device="cuda") * 2 - 1
        o1, o2 = torch.full_like(a, float("nan")), torch.full_like(a, float("nan"))
        k = tilec.Kernel.compile(os.path.join(EX, "linear_scan.tile"), "linear_recurrence",
                                 defines={"BLOCK": block}, num_warps=warps)
        t = lambda: k.launch(rows, o1, a, b, n)  # noqa: E731
        tt = lambda: ls.linear_recurrence[(rows,)](o2, a, b, n, BLOCK=block, num_warps=warps)  # noqa: E731
        nbytes = 3 * a.numel() * 4
        ref = torch.empty(rows, n, dtype=torch.float64, device="cuda")
        h = torch.zeros(rows, dtype=torch.float64, device="cuda")
        for i in range(n):
            h = a[:, i].double() * h + b[:, i].double()
            ref[:, i] = h
    else:
        sys.exit("probe.py softmax ROWS N [WARPS] | mean N [WARPS] | "
                 "matmul[_block_ptr] M N K [BM BN BK WARPS STAGES] | matmul_i8 M N K [BM BN BK WARPS STAGES] | "
                 "attention BH N D [BM BN WARPS STAGES] | linear_scan ROWS T [BLOCK WARPS]")
    other = {"matmul": "cublas", "matmul_block_ptr": "cublas", "matmul_i8": "cublas-int8+torch",
             "attention": "torch-sdpa"}.get(what, "triton")
    for name, fn, out in [("tilec", t, o1), (other, tt, o2)] + extra:
        fn()
        torch.cuda.synchronize()
        got = out() if callable(out) else out
        err = float("nan") if got is None else ((got.double() - ref.double()).norm() / ref.double().norm()).item()
        ms, gbs = bench(fn, nbytes)
        ms2, gbs2 = bench(fn, nbytes)
        print(f"{what} {name:15s} {ms * 1e3:9.1f} us {gbs:7.0f} GB/s (again: {gbs2:7.0f})  rel err {err:.2e}")
    # Triton's PTX from its cache, for reading side by side with tilec's
    for f in glob.glob(os.path.join(os.environ["TRITON_CACHE_DIR"], "*", "*.ptx")) + \
            glob.glob(os.path.join(os.environ["TRITON_CACHE_DIR"], "*", "*.cubin")):
        shutil.copy(f, os.path.join(OUT, "probe-triton-" + os.path.basename(f)))
        print("triton output:", os.path.basename(f))


if __name__ == "__main__":
    main()
