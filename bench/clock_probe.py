"""clock_probe.py: TFLOP/s of the 4096^3 f16 matmuls beside the SM clock and power they run at.

    python3 bench/clock_probe.py [SECONDS]      # default 2 s of back-to-back launches each

For each run -- a register-only mma.sync loop (no memory traffic: the ceiling of
the mma.sync path), tilec's mma.sync kernel (sm_90, 128x256x32 w8 s4), tilec's
wgmma kernel (sm_90a, 128x256x32 w8 s6) and cuBLAS (torch.matmul) -- the
kernel is launched back to back for SECONDS while nvidia-smi samples the SM
clock, the power draw and the active clock-event reasons every 20 ms.
Printed per run: TFLOP/s (CUDA events over the whole stretch), the median SM
clock and power of the samples taken while it ran (from a tenth of the way
in to its end, by timestamp), TFLOP/s per GHz, and the reasons seen.  The ratio of two runs' TFLOP/s per GHz says what
their code does at one clock; the clocks say what power costs each.
"""
import datetime
import os
import statistics
import subprocess
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(__file__))
import tilec  # noqa: E402
from ptx_ab import EX, RawKernel, check_runs  # noqa: E402

CHAINS = 8          # independent accumulators a warp keeps in flight
ITERS = 4096        # loop trips of the register-only kernel


def mma_loop_ptx():
    """A kernel of CHAINS independent m16n8k16 f16 -> f32 mma.sync chains per warp, ITERS trips;
    the operands come from the thread index (no loads), the sums are stored once (no dead code)."""
    acc = [f"%f{4 * c + i}" for c in range(CHAINS) for i in range(4)]
    body = []
    for c in range(CHAINS):
        d = ", ".join(acc[4 * c:4 * c + 4])
        body.append(f"\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {{{d}}}, {{%a0, %a1, %a2, %a3}}, "
                    f"{{%b0, %b1}}, {{{d}}};")
    adds = [f"\tadd.f32 %s, %s, {a};" for a in acc]
    return "\n".join([
        ".version 8.0", ".target sm_90", ".address_size 64", "",
        ".visible .entry mma_loop(.param .u64 out, .param .u32 iters)", "{",
        f"\t.reg .f32 %f<{4 * CHAINS}>;", "\t.reg .f32 %s;", "\t.reg .b32 %a<4>;", "\t.reg .b32 %b<2>;",
        "\t.reg .u32 %t, %n;", "\t.reg .u64 %p, %o;", "\t.reg .pred %q;",
        "\tmov.u32 %t, %tid.x;",
        "\tmov.b32 %a0, 0x3c003c00;", "\txor.b32 %a1, %t, 0x3c003c00;", "\tmov.b32 %a2, %a1;", "\tmov.b32 %a3, %a0;",
        "\tmov.b32 %b0, 0x3c003c00;", "\tmov.b32 %b1, %a1;",
    ] + [f"\tmov.f32 {a}, 0f00000000;" for a in acc] + [
        "\tld.param.u32 %n, [iters];",
        "$L_loop:",
    ] + body + [
        "\tsub.u32 %n, %n, 1;", "\tsetp.ne.u32 %q, %n, 0;", "\t@%q bra $L_loop;",
        "\tmov.f32 %s, 0f00000000;",
    ] + adds + [
        "\tld.param.u64 %p, [out];", "\tmov.u32 %t, %ctaid.x;", "\tmul.wide.u32 %o, %t, 4;",
        "\tadd.u64 %p, %p, %o;", "\tst.global.f32 [%p], %s;", "\tret;", "}", ""])


def stamp(text):
    """An nvidia-smi timestamp ("2026/11/22 23:10:04.123") as a datetime, or datetime.min."""
    try:
        return datetime.datetime.strptime(text.strip(), "%Y/%m/%d %H:%M:%S.%f")
    except ValueError:
        return datetime.datetime.min


def sampler():
    return subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active",
                             "--format=csv,noheader,nounits", "-lms", "20"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def stretch(fn, seconds):
    """Launches fn back to back for about `seconds`; returns (launches, ms by CUDA events, wall-clock
    start and end of the stretch)."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    one = max((time.perf_counter() - t0) / 10, 1e-5)
    n = max(10, int(seconds / one))
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start = datetime.datetime.now()
    a.record()
    for _ in range(n):
        fn()
    b.record()
    torch.cuda.synchronize()
    return n, a.elapsed_time(b), start, datetime.datetime.now()


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    M = N = K = 4096
    torch.manual_seed(0)
    x = torch.randn(M, K, device="cuda", dtype=torch.float16)
    y = torch.randn(K, N, device="cuda", dtype=torch.float16)
    out = torch.empty(M, N, device="cuda", dtype=torch.float16)
    ref = torch.matmul(x.float(), y.float())
    args = (out, x, y, M, N, K, x.stride(0), x.stride(1), y.stride(0), y.stride(1), out.stride(0), out.stride(1))
    path = os.path.join(EX, "matmul.tile")

    def jit(arch, stages):
        k = tilec.Kernel.compile(path, "matmul", defines={"BM": 128, "BN": 256, "BK": 32}, num_warps=8,
                                 num_stages=stages, arch=arch)
        return lambda: k.launch((M // 128) * (N // 256), *args)

    blocks = 132 * 4
    loop = RawKernel(mma_loop_ptx(), 0, 256)
    sink = torch.empty(blocks, device="cuda")
    loop_flop = blocks * 8 * CHAINS * ITERS * 2 * 16 * 8 * 16
    runs = [("mma.sync loop", lambda: loop.launch(blocks, sink, ITERS), loop_flop),
            ("tilec mma.sync", jit("sm_90", 4), 2 * M * N * K),
            ("tilec wgmma", jit("sm_90a", 6), 2 * M * N * K),
            ("cublas", lambda: torch.matmul(x, y, out=out), 2 * M * N * K)]
    check_runs({name: fn for name, fn, _ in runs[1:]}, out, ref, 1e-2)
    print(f"f16 {M}^3 matmuls and a register-only mma.sync loop ({blocks} CTAs x 8 warps x {CHAINS} chains x "
          f"{ITERS} trips), {seconds:.1f} s of launches each, nvidia-smi every 20 ms")
    print(f"{'run':<16} {'TFLOP/s':>8} {'SM MHz':>7} {'W':>6} {'TF/GHz':>7}  clock-event reasons (hex)")
    for name, fn, flop in runs:
        time.sleep(1.0)                      # let the clock settle between runs
        p = sampler()
        time.sleep(0.3)
        n, ms, start, end = stretch(fn, seconds)
        p.terminate()
        rows = [r.split(", ") for r in p.communicate()[0].strip().splitlines()]
        # the samples taken while the launches ran (after the first 10% of the stretch: the clock settles)
        settled = start + (end - start) / 10
        busy = [r for r in rows if len(r) == 4 and settled <= stamp(r[0]) <= end]
        mhz = statistics.median(float(r[1]) for r in busy) if busy else float("nan")
        watts = statistics.median(float(r[2]) for r in busy) if busy else float("nan")
        reasons = sorted({r[3] for r in busy})
        tf = flop * n / (ms * 1e-3) / 1e12
        print(f"{name:<16} {tf:8.1f} {mhz:7.0f} {watts:6.0f} {tf / (mhz / 1000):7.1f}  {' '.join(reasons)}"
              f"  ({len(busy)} samples)")


if __name__ == "__main__":
    main()
