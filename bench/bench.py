#!/usr/bin/env python3
"""bench.py: tilec against Triton and torch on memory-bound workloads, one process.

    python3 bench/bench.py [--reps N] [--warmup N] [--seed N] [--only NAME,...]
    python3 bench/bench.py --selftest      # fake numbers: table, JSON, plot; no GPU, no torch

Three parts, in this order, then a table printed last:
  1. compile time: tilec's cold compile (source -> PTX -> loaded module; the
     source gets a unique trailing comment so the context's cache misses, and
     CUDA_CACHE_DISABLE=1 keeps the driver from reusing an earlier PTX compile) and
     Triton's cold first call (TRITON_CACHE_DIR is a fresh temporary folder set
     before Triton is imported), each timed with a host clock around the
     compile and the first launch, synchronised.  Each side is primed first
     with a kernel of its own that nothing else uses, so one-time process
     costs (LLVM target set-up; Triton's driver helpers) are reported apart.
  2. launch overhead: 10,000 back-to-back launches of vector_add, n = 1024, host
     clock, per launch (ours through the ctypes binding, so ctypes is in it).
  3. bandwidth: for each workload, tilec, Triton and torch.  Per METHOD.md:
     fresh torch.randn inputs seeded per workload; outputs filled with NaN, one
     run, compared with a float64 reference by ||out - ref|| / ||ref|| (FAIL
     past the tolerance of the output's dtype, and on any NaN); then warm-up,
     and `reps` timed calls, each between two CUDA events, each after writing
     a 256 MB buffer (outside the events) to flush L2; the MEDIAN is reported.
     GB/s = (bytes each input read once + bytes each output written once) /
     median.  The copy ceiling is torch's copy_ of a 1 GiB tensor, timed the
     same way, counting read plus write.
Mean, two rows: "mean atomic" zeroes the output inside the timed region for
all three (torch: zero_, then torch.mean(x, 0, out=out)); "mean 2-stage" times
mean_partial + mean_final (Triton: the same two kernels) against torch.mean.
Both grids are 4 x SM count, BLOCK 4096.
  4. matmul (last): fp16 4096^3 and 8192^3, bf16 4096^3, matmul+ReLU fp16
     4096^3; tilec (dsl_examples/matmul.tile, matmul_relu.tile; bf16 = the
     same source with every f16 replaced by bf16) vs cuBLAS (torch.matmul;
     ReLU unfused after it) vs Triton's tutorial kernel.  tilec and Triton are
     each autotuned over a short config list (each config checked first, then
     timed with a few reps; configs that fail to compile or to check are
     skipped; a time cap per problem), the fastest is re-checked and timed
     like the rest with --matmul-reps reps.  Reference: torch.matmul on the
     f32-upcast inputs, TF32 off; tolerance 1e-2.  TFLOP/s = 2MNK / median.
     Then ragged shapes, tilec only, correctness only.

Writes bench.json, bench.png and bench_matmul.png into $OUT, or bench/out/ when OUT is unset.
Exit status 1 if any tilec result is wrong or missing (the rest still runs).
"""
import argparse
import datetime
import json
import math
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
EXAMPLES = os.path.join(ROOT, "dsl_examples")
IMPLS = ("tilec", "triton", "torch")
TOL = {"f32": 1e-5, "f16": 2e-3}   # ||out - ref|| / ||ref|| against float64
MEAN_TOL = 1e-5                   # one missed block of 4096 in 10^8 is 4e-5
FLUSH_BYTES = 256 << 20
COPY_BYTES = 1 << 30
MM_TOL = 1e-2                     # ||out - ref|| / ||ref||, f16/bf16 out, against f32 cuBLAS
# tilec: the JIT's choice for the GPU (sm_90a on an H100: wgmma); tilec_mma: tilec compiled for
# sm_90 (ldmatrix + mma.sync); triton_mma: Triton compiled with DISABLE_MMA_V3=1 (mma.sync too)
MM_IMPLS = ("tilec", "tilec_mma", "triton", "triton_mma", "cublas")
# (BM, BN, BK, num_warps, num_stages) tried for tilec; GROUP_M is 8 throughout.
MM_CONFIGS = [(128, 256, 32, 8, 6), (128, 256, 32, 8, 5), (128, 256, 64, 8, 4),
              (256, 128, 32, 8, 5), (128, 128, 32, 8, 6), (128, 256, 32, 8, 4)]
# the same for tilec on the mma.sync path (sm_90): its best configs
MM_CONFIGS_MMA = [(128, 256, 32, 8, 4), (256, 128, 32, 8, 4)]
MM_GROUP_M = 8
MM_TUNE_REPS = 5                  # timed calls per config while tuning (median)
MM_TUNE_CAP_S = 30.0              # seconds per implementation per problem for tuning
# (M, N, K, B transposed): correctness only, tilec only.
MM_RAGGED = [(1000, 1000, 1000, False), (4095, 257, 129, False), (512, 512, 100, False),
             (4095, 257, 129, True)]


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="tilec vs Triton vs torch (GB/s, compile time, launch overhead)")
    p.add_argument("--selftest", action="store_true", help="fake numbers through the table/JSON/plot code; no GPU")
    p.add_argument("--reps", type=int, default=100, help="timed calls per implementation (median reported)")
    p.add_argument("--warmup", type=int, default=10, help="untimed calls before timing")
    p.add_argument("--seed", type=int, default=1234, help="base seed; workload i uses seed + i")
    p.add_argument("--launches", type=int, default=10000, help="launches timed for the launch overhead")
    p.add_argument("--only", default="", help="comma-separated workload name prefixes to run")
    p.add_argument("--skip-compile", action="store_true", help="skip the compile-time part")
    p.add_argument("--skip-matmul", action="store_true", help="skip the matmul part")
    p.add_argument("--matmul-reps", type=int, default=20, help="timed calls for each matmul winner")
    p.add_argument("--gpu-test-log", default=None,
                   help="gpu_test's log, searched for a C launch-overhead line (default: $OUT/gpu_test.log)")
    p.add_argument("--out", default=None, help="output folder (default: $OUT, else bench/out)")
    a = p.parse_args(argv)
    if a.reps < 1 or a.warmup < 0 or a.launches < 1 or a.matmul_reps < 1:
        p.error("--reps, --matmul-reps and --launches must be >= 1, --warmup >= 0")
    return a


def out_dir(args):
    d = args.out or os.environ.get("OUT") or os.path.join(HERE, "out")
    os.makedirs(d, exist_ok=True)
    return d


def cdiv(a, b):
    return (a + b - 1) // b


def next_pow2(n):
    return 1 << (n - 1).bit_length()


def softmax_warps(block):
    """Triton's fused-softmax tutorial: 4 warps, 8 from BLOCK 2048, 16 from 4096."""
    return 16 if block >= 4096 else 8 if block >= 2048 else 4


def layernorm_warps(block):
    """Triton's layer-norm tutorial: min(max(BLOCK // 256, 1), 8)."""
    return min(max(block // 256, 1), 8)


# ---------------------------------------------------------------- report --

def clean(x):
    """JSON-safe: non-finite floats become strings."""
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    if isinstance(x, dict):
        return {k: clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [clean(v) for v in x]
    return x


def cell_gbs(r):
    if r is None:
        return "-"
    if r.get("status") == "ok":
        return f"{r['gbs']:.0f}"
    return r.get("status", "ERR")


def ratio(a, b):
    if not a or not b or a.get("status") != "ok" or b.get("status") != "ok":
        return "-"
    return f"{a['gbs'] / b['gbs']:.2f}"


def format_table(res):
    rows = [("workload", "tilec GB/s", "Triton GB/s", "torch GB/s", "tilec/Triton", "tilec/torch")]
    for w in res["workloads"]:
        i = w["impls"]
        rows.append((w["name"], cell_gbs(i.get("tilec")), cell_gbs(i.get("triton")), cell_gbs(i.get("torch")),
                     ratio(i.get("tilec"), i.get("triton")), ratio(i.get("tilec"), i.get("torch"))))
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    lines = []
    for n, r in enumerate(rows):
        lines.append(" | ".join(s.ljust(widths[c]) if c == 0 else s.rjust(widths[c]) for c, s in enumerate(r)))
        if n == 0:
            lines.append("-+-".join("-" * w for w in widths))
    c = res.get("copy") or {}
    if c.get("status") == "ok":
        lines.append(f"copy ceiling (torch copy_ of 1 GiB, read + write): {c['gbs']:.0f} GB/s")
    else:
        lines.append(f"copy ceiling: {c.get('status', 'not measured')}")
    return "\n".join(lines)


def fmt_ms(r, key="wall_ms"):
    if not r:
        return "-"
    if r.get("status") != "ok":
        return r.get("status", "ERR")
    return f"{r[key]:.1f}"


def format_compile(res):
    comp = res.get("compile") or {}
    if not comp.get("kernels"):
        return "compile time: not measured"
    lines = ["cold compile, ms (host clock: compile + first launch, synchronised)",
             f"  primes (one-time process costs): tilec {fmt_ms(comp.get('tilec_prime'))}, "
             f"Triton {fmt_ms(comp.get('triton_prime'))}; tilec context create "
             f"{comp.get('tilec_context_ms', float('nan')):.1f}"]
    w = max(len(k["kernel"]) for k in comp["kernels"])
    lines.append(f"  {'kernel'.ljust(w)} | {'tilec':>8} | {'Triton':>8} | tilec phases: front/passes/codegen/load")
    for k in comp["kernels"]:
        t = k.get("tilec") or {}
        ph = "/".join(f"{p:.1f}" for p in t.get("phases_ms", [])) or "-"
        lines.append(f"  {k['kernel'].ljust(w)} | {fmt_ms(t):>8} | {fmt_ms(k.get('triton')):>8} | {ph}")
    return "\n".join(lines)


def format_launch(res):
    la = res.get("launch") or {}
    if not la.get("impls"):
        return "launch overhead: not measured"
    lines = [f"launch overhead, us per launch ({la.get('launches')} back-to-back vector_add n=1024, host clock;"
             " enqueue = until the last launch returns, total = until the GPU is done)"]
    for name, r in la["impls"].items():
        if r.get("status") == "ok":
            lines.append(f"  {name:<28} enqueue {r['enqueue_us']:7.2f}   total {r['total_us']:7.2f}")
        else:
            lines.append(f"  {name:<28} {r.get('status')}: {r.get('error', '')}")
    lines.append(f"  pure C (gpu_test): {la.get('c_gpu_test') or 'gpu_test printed no launch-overhead line'}")
    return "\n".join(lines)


def cell_tf(r):
    if r is None:
        return "-"
    if r.get("status") == "ok":
        return f"{r['tflops']:.0f}"
    return r.get("status", "ERR")


def ratio_tf(a, b):
    if not a or not b or a.get("status") != "ok" or b.get("status") != "ok":
        return "-"
    return f"{a['tflops'] / b['tflops']:.2f}"


def fmt_cfg(c):
    """(BM, BN, BK, ..., warps, stages) -> '128x128x32 w8 s3'."""
    if not c:
        return "-"
    return f"{c[0]}x{c[1]}x{c[2]} w{c[-2]} s{c[-1]}"


def format_matmul(res):
    mm = res.get("matmul") or {}
    if not mm.get("problems"):
        return "matmul: not measured"
    rows = [("matmul", "tilec TF/s", "tilec mma.sync", "Triton TF/s", "Triton mma.sync", "cuBLAS TF/s",
             "ours/cuBLAS", "ours/Triton", "mma.sync ours/cuBLAS", "mma.sync ours/Triton", "Triton/cuBLAS")]
    for w in mm["problems"]:
        i = w["impls"]
        t, t2, tr, tm, cb = (i.get(k) for k in ("tilec", "tilec_mma", "triton", "triton_mma", "cublas"))
        rows.append((w["name"], cell_tf(t), cell_tf(t2), cell_tf(tr), cell_tf(tm), cell_tf(cb), ratio_tf(t, cb),
                     ratio_tf(t, tr), ratio_tf(t2, cb), ratio_tf(t2, tm), ratio_tf(tr, cb)))
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    lines = [f"matmul, TFLOP/s = 2MNK / median ({mm.get('reps', '?')} reps, L2 flushed, tolerance {MM_TOL:g} "
             "against f32 cuBLAS, TF32 off; tilec = the JIT's arch for the GPU (sm_90a: wgmma), tilec mma.sync = "
             "tilec for sm_90, Triton mma.sync = Triton with DISABLE_MMA_V3=1, no wgmma)"]
    for n, r in enumerate(rows):
        lines.append(" | ".join(s.ljust(widths[c]) if c == 0 else s.rjust(widths[c]) for c, s in enumerate(r)))
        if n == 0:
            lines.append("-+-".join("-" * w for w in widths))
    lines.append("winning configs (BMxBNxBK warps stages; GROUP_M 8), rel err of the winner:")
    for w in mm["problems"]:
        parts = []
        for impl in ("tilec", "tilec_mma", "triton", "triton_mma"):
            r = w["impls"].get(impl) or {}
            err = r.get("rel_err", [None])[0]
            tried = r.get("tried", [])
            parts.append(f"{impl} {fmt_cfg(r.get('config'))} ({len(tried)} tried"
                         + (f", err {err:.1e}" if isinstance(err, float) else "") + ")")
        cb = (w["impls"].get("cublas") or {}).get("rel_err", [None])[0]
        parts.append("cuBLAS" + (f" err {cb:.1e}" if isinstance(cb, float) else " -"))
        lines.append(f"  {w['name']}: " + "; ".join(parts))
    for w in mm["problems"]:
        skipped = [f"{fmt_cfg(t['config'])}: {t['status']}" for t in (w["impls"].get("tilec") or {}).get("tried", [])
                   if t.get("status") != "ok"]
        if skipped:
            lines.append(f"  {w['name']}: tilec configs skipped: " + "; ".join(skipped))
    if mm.get("ragged"):
        lines.append("ragged shapes, tilec, correctness only (outputs NaN-poisoned first):")
        for c in mm["ragged"]:
            err = c.get("rel_err")
            lines.append(f"  {c['status']:<4} {c['name']:<34} {fmt_cfg(c.get('config')):<18} "
                         + (f"rel err {err:.2e}" if isinstance(err, float) else
                            f"rel err {err}" if err is not None else c.get("error", "")))
    return "\n".join(lines)


def plot_matmul(res, path, plt):
    """Grouped bars of TFLOP/s per matmul problem, one bar per implementation."""
    probs = (res.get("matmul") or {}).get("problems") or []
    if not probs:
        return False
    fig, ax = plt.subplots(figsize=(max(7, 1.6 * len(probs) + 2), 5))
    width = 0.8 / len(MM_IMPLS)
    colors = {"tilec": "tab:blue", "tilec_mma": "tab:cyan", "triton": "tab:orange", "triton_mma": "tab:red",
              "cublas": "tab:green"}
    top = 1.0
    for j, impl in enumerate(MM_IMPLS):
        for i, w in enumerate(probs):
            r = w["impls"].get(impl)
            x = i + (j - (len(MM_IMPLS) - 1) / 2) * width
            if r and r.get("status") == "ok":
                ax.bar(x, r["tflops"], width, color=colors[impl], label=impl if i == 0 else None)
                top = max(top, r["tflops"])
            else:
                ax.text(x, 0, r.get("status", "ERR") if r else "-", rotation=90, ha="center", va="bottom",
                        fontsize=8, color="red")
    ax.set_xticks(range(len(probs)))
    ax.set_xticklabels([w["name"] for w in probs], rotation=15, ha="right", fontsize=8)
    ax.set_ylabel("TFLOP/s (2MNK / median time)")
    ax.set_title(f"matmul: tilec vs Triton vs cuBLAS on {res.get('meta', {}).get('device', '?')}")
    ax.set_ylim(0, top * 1.18)
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(fontsize=8, ncol=3, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def plot(res, path):
    """Grouped bars of GB/s per workload, one bar per implementation, copy ceiling as a line."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        print(f"bench: no plot ({e})")
        return False
    names = [w["name"] for w in res["workloads"]]
    fig, ax = plt.subplots(figsize=(max(8, 1.3 * len(names) + 2), 5))
    width = 0.8 / len(IMPLS)
    colors = {"tilec": "tab:blue", "triton": "tab:orange", "torch": "tab:green"}
    for j, impl in enumerate(IMPLS):
        xs, ys, bad = [], [], []
        for i, w in enumerate(res["workloads"]):
            r = w["impls"].get(impl)
            x = i + (j - (len(IMPLS) - 1) / 2) * width
            if r and r.get("status") == "ok":
                xs.append(x)
                ys.append(r["gbs"])
            else:
                bad.append((x, r.get("status", "ERR") if r else "-"))
        ax.bar(xs, ys, width, label=impl, color=colors[impl])
        for x, s in bad:
            ax.text(x, 0, s, rotation=90, ha="center", va="bottom", fontsize=8, color="red")
    c = res.get("copy") or {}
    if c.get("status") == "ok":
        ax.axhline(c["gbs"], color="black", linestyle="--", linewidth=1,
                   label=f"copy ceiling {c['gbs']:.0f} GB/s")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=25, ha="right", fontsize=8)
    ax.set_ylabel("GB/s (bytes read + written / median time)")
    meta = res.get("meta", {})
    ax.set_title(f"tilec vs Triton vs torch on {meta.get('device', '?')}")
    top = max([c.get("gbs", 0) if c.get("status") == "ok" else 0]
              + [r["gbs"] for w in res["workloads"] for r in w["impls"].values()
                 if r and r.get("status") == "ok"] + [1])
    ax.set_ylim(0, top * 1.18)
    ax.legend(fontsize=8, ncol=4, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    plot_matmul(res, os.path.join(os.path.dirname(path), "bench_matmul.png"), plt)
    return True


def write_outputs(res, d):
    jpath, ppath = os.path.join(d, "bench.json"), os.path.join(d, "bench.png")
    with open(jpath, "w") as f:
        json.dump(clean(res), f, indent=1, sort_keys=False, allow_nan=False)
    plotted = plot(res, ppath)
    print(f"bench: wrote {jpath}" + (f", {ppath} and bench_matmul.png" if plotted else ""))


def print_report(res):
    print()
    print(format_compile(res))
    print()
    print(format_launch(res))
    print()
    print(format_table(res))
    print()
    print(format_matmul(res))


def tilec_failures(res):
    mm = res.get("matmul") or {}
    bad = [f"{w['name']}: {w['impls'].get('tilec', {}).get('status', 'missing')}"
           for w in res["workloads"] + mm.get("problems", []) if (w["impls"].get("tilec") or {}).get("status") != "ok"]
    bad += [f"{c['name']}: {c['status']}" for c in mm.get("ragged", []) if c.get("status") != "ok"]
    if res.get("aborted"):
        bad.append(f"aborted: {res['aborted']}")
    return bad


# ------------------------------------------------------------- selftest --

def fake_results():
    """Plausible numbers, with a FAIL and an ERR, through the same structures."""
    def ok(gbs, nbytes):
        ms = nbytes / gbs / 1e6
        return {"status": "ok", "gbs": gbs, "median_ms": ms, "p10_ms": ms * 0.98, "p90_ms": ms * 1.03,
                "rel_err": [1e-7], "tol": [1e-5], "reps": 100}
    ws = []
    for i, (name, nbytes) in enumerate(workload_list()):
        im = {"tilec": ok(2400 + 50 * i, nbytes), "triton": ok(2600, nbytes), "torch": ok(2500 - 30 * i, nbytes)}
        if i == 2:
            im["tilec"] = {"status": "FAIL", "rel_err": [float("nan")], "tol": [1e-5], "gbs": 1.0,
                           "median_ms": 1.0}
        if i == 3:
            im["triton"] = {"status": "ERR", "error": "RuntimeError: fake"}
        ws.append({"name": name, "bytes": nbytes, "impls": im})
    kernels = [{"kernel": k, "tilec": {"status": "ok", "wall_ms": 40.0 + i, "phases_ms": [1.0, 2.0, 30.0, 5.0]},
                "triton": {"status": "ok", "wall_ms": 300.0 + 10 * i}} for i, k in enumerate(
                    ["vector_add", "softmax/1024", "layernorm/8192", "mean_atomic"])]
    probs = []
    for i, (name, m, n, k, dt, relu) in enumerate(matmul_list()):
        def okm(tf, cfg, **kw):
            ms = 2 * m * n * k / tf / 1e9
            r = {"status": "ok", "tflops": tf, "median_ms": ms, "p10_ms": ms, "p90_ms": ms, "rel_err": [3e-4],
                 "tol": [MM_TOL], "config": cfg}
            r.update(kw)
            return r
        tried = [{"config": c, "status": "ok", "median_ms": 1.0} for c in MM_CONFIGS[:5]]
        tried.append({"config": MM_CONFIGS[5], "status": "compile: shared memory 240 KB over the 227 KB limit"})
        im = {"tilec": okm(500 + 10 * i, MM_CONFIGS[0], tried=tried),
              "tilec_mma": okm(450, MM_CONFIGS_MMA[0], tried=[]),
              "triton": okm(600, (128, 256, 64, 8, 8, 3), tried=[]),
              "triton_mma": okm(480, (128, 256, 64, 8, 8, 3), tried=[]), "cublas": okm(700, None)}
        if i == 3:
            im["triton"] = {"status": "ERR", "error": "fake"}
        probs.append({"name": name, "shape": [m, n, k], "dtype": dt, "relu": relu, "flops": 2 * m * n * k,
                      "impls": im})
    ragged = [{"name": mm_ragged_name("matmul", "f16", *r), "status": "ok", "rel_err": 2e-4,
               "config": MM_CONFIGS[0]} for r in MM_RAGGED]
    ragged[1].update(status="FAIL", rel_err=float("nan"))
    return {
        "matmul": {"reps": 20, "problems": probs, "ragged": ragged},
        "meta": {"device": "fake GPU (selftest)", "date": datetime.datetime.now().isoformat(timespec="seconds"),
                 "selftest": True},
        "copy": {"status": "ok", "gbs": 3000.0, "median_ms": 0.7158},
        "workloads": ws,
        "compile": {"tilec_prime": {"status": "ok", "wall_ms": 80.0}, "triton_prime": {"status": "ok", "wall_ms": 900.0},
                    "tilec_context_ms": 12.0, "kernels": kernels},
        "launch": {"launches": 10000, "c_gpu_test": None,
                   "impls": {"tilec (binding)": {"status": "ok", "enqueue_us": 6.1, "total_us": 6.3},
                             "triton": {"status": "ERR", "error": "fake"}}},
    }


def selftest(args):
    res = fake_results()
    d = out_dir(args)
    write_outputs(res, d)
    with open(os.path.join(d, "bench.json")) as f:
        back = json.load(f)
    assert back["workloads"][2]["impls"]["tilec"]["rel_err"] == ["nan"], "non-finite floats must become strings"
    assert len(back["workloads"]) == len(workload_list())
    table = format_table(back)
    assert "FAIL" in table and "ERR" in table and "copy ceiling" in table
    assert c_launch_line("x\nlaunch overhead: 3.2 us per launch\n") == "launch overhead: 3.2 us per launch"
    assert c_launch_line("3 passed, 0 failed\n") is None
    assert next_pow2(1000) == 1024 and next_pow2(1024) == 1024 and softmax_warps(16384) == 16
    assert layernorm_warps(8192) == 8 and cdiv(10, 4) == 3
    mt = format_matmul(back)
    assert "ERR" in mt and "FAIL" in mt and "shared memory" in mt and fmt_cfg(MM_CONFIGS[5]) in mt, mt
    assert len(back["matmul"]["problems"]) == len(matmul_list()) == 4
    assert tilec_failures(back) == [f"{back['workloads'][2]['name']}: FAIL", f"{back['matmul']['ragged'][1]['name']}: FAIL"]
    assert bf16_source("let x: *f16 = cast(y, f16);") == "let x: *bf16 = cast(y, bf16);"
    assert mm_flops(4096, 4096, 4096) == 2 * 4096 ** 3
    print_report(back)
    print("bench: selftest passed")
    return 0


# ------------------------------------------------------------ workloads --

def workload_list():
    """(name, bytes moved); the same list drives the GPU run and the selftest."""
    out = [("vector_add f32 2^27", 3 * 4 * (1 << 27))]
    for m, n in ((4096, 1024), (4096, 4096), (4096, 16384), (16384, 8192)):
        out.append((f"softmax f32 {m}x{n}", 2 * 4 * m * n))
    m, n = 4096, 8192
    out.append((f"layernorm f16 {m}x{n}", 2 * 2 * m * n + 2 * 2 * n + 2 * 4 * m))
    out.append(("mean atomic f32 1e8", 4 * 10**8 + 4))
    out.append(("mean 2-stage f32 1e8", 4 * 10**8 + 4))
    return out


def matmul_list():
    """(name, M, N, K, dtype, relu) of the timed matmul problems."""
    return [("matmul f16 4096^3", 4096, 4096, 4096, "f16", False),
            ("matmul f16 8192^3", 8192, 8192, 8192, "f16", False),
            ("matmul bf16 4096^3", 4096, 4096, 4096, "bf16", False),
            ("matmul+relu f16 4096^3", 4096, 4096, 4096, "f16", True)]


def mm_ragged_name(kernel, dt, m, n, k, bt):
    return f"{kernel} {dt} {m}x{n}x{k}" + (" B^T" if bt else "")


def mm_flops(m, n, k):
    return 2 * m * n * k


def bf16_source(src):
    """The f16 kernel's source with every f16 made bf16 (the JIT takes source text)."""
    return src.replace("f16", "bf16")


def c_launch_line(text):
    """A launch-overhead line printed by gpu_test, if any."""
    for line in text.splitlines():
        if re.search(r"launch", line, re.I) and re.search(r"\b(us|µs|usec|microseconds?)\b", line):
            return line.strip()
    return None


class Gpu:
    """Everything that needs torch, Triton and the tilec binding."""

    def __init__(self, args):
        os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench-triton-cache-")
        # tilec's modules are PTX that the driver compiles at load; its on-disk
        # cache of those compiles would make a "cold" load warm
        os.environ["CUDA_CACHE_DISABLE"] = "1"
        import torch
        import triton
        sys.path.insert(0, HERE)
        import tilec
        import triton_kernels
        self.torch, self.triton, self.tilec, self.tk = torch, triton, tilec, triton_kernels
        self.args = args
        self.dev = torch.device("cuda")
        props = torch.cuda.get_device_properties(0)
        self.sms = props.multi_processor_count
        self.props = props
        self.flush = torch.empty(FLUSH_BYTES, dtype=torch.int8, device=self.dev)
        self.mean_programs = 4 * self.sms
        self.dead = None  # the error after which the CUDA context is unusable

    # ---- helpers ----

    def sync(self):
        self.torch.cuda.synchronize()

    def alive(self):
        try:
            self.sync()
            return True
        except Exception as e:  # a sticky CUDA error: nothing more can run
            self.dead = f"{type(e).__name__}: {e}"
            return False

    def kernel(self, file, name, defines, num_warps, source_suffix="", num_stages=0, dtype="f16", arch=None):
        path = os.path.join(EXAMPLES, file)
        src = path
        if source_suffix or dtype == "bf16":
            with open(path) as f:
                src = f.read() + source_suffix
            if dtype == "bf16":
                src = bf16_source(src)
        return self.tilec.Kernel.compile(src, name, defines=defines, num_warps=num_warps, num_stages=num_stages,
                                         arch=arch)

    def randn(self, *shape):
        return self.torch.randn(*shape, device=self.dev, dtype=self.torch.float32)

    def time_ms(self, run, reps=None, warmup=None):
        """Median and spread of `reps` event-timed calls, L2 flushed before each."""
        torch, a = self.torch, self.args
        reps = reps or a.reps
        for _ in range(a.warmup if warmup is None else warmup):
            run()
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
        for s, e in zip(starts, ends):
            self.flush.zero_()
            s.record()
            run()
            e.record()
        self.sync()
        ts = sorted(s.elapsed_time(e) for s, e in zip(starts, ends))
        return statistics.median(ts), ts[len(ts) // 10], ts[(len(ts) * 9) // 10]

    def rel_err(self, out, ref):
        d = (out.double() - ref).norm().item()
        r = ref.norm().item()
        return d / r if r else d

    def measure(self, nbytes, make, refs, tols, reps=None, warmup=None, flops=None):
        """make() -> (run, outputs); check against refs, then time."""
        res = {}
        try:
            run, outs = make()
            for o in outs:
                o.fill_(float("nan"))
            run()
            self.sync()
            errs = [self.rel_err(o, r) for o, r in zip(outs, refs)]
            ok = all(e <= t for e, t in zip(errs, tols))   # NaN compares false: FAIL
            med, p10, p90 = self.time_ms(run, reps, warmup)
            res = {"status": "ok" if ok else "FAIL", "rel_err": errs, "tol": list(tols),
                   "median_ms": med, "p10_ms": p10, "p90_ms": p90, "reps": reps or self.args.reps,
                   "gbs": nbytes / (med * 1e-3) / 1e9}
            if flops:
                res["tflops"] = flops / (med * 1e-3) / 1e12
        except Exception as e:
            res = {"status": "ERR", "error": f"{type(e).__name__}: {e}"}
            self.alive()
        return res

    # ---- the workloads: each returns refs, tolerances, and a maker per implementation ----

    def case_vector_add(self, n):
        torch, tk = self.torch, self.tk
        x, y = self.randn(n), self.randn(n)
        refs = [x.double() + y.double()]

        def ours():
            k = self.kernel("vector_add.tile", "vector_add", {"BLOCK": 1024}, 4)
            out = torch.empty_like(x)
            return (lambda: k.launch(cdiv(n, 1024), x, y, out, n)), [out]

        def triton():
            out = torch.empty_like(x)
            return (lambda: tk.add(x, y, out)), [out]

        def torch_():
            out = torch.empty_like(x)
            return (lambda: torch.add(x, y, out=out)), [out]
        return refs, [TOL["f32"]], {"tilec": ours, "triton": triton, "torch": torch_}

    def case_softmax(self, m, n):
        torch, tk = self.torch, self.tk
        x = self.randn(m, n)
        refs = [torch.softmax(x.double(), dim=-1)]
        block = next_pow2(n)
        warps = softmax_warps(block)

        def ours():
            k = self.kernel("softmax.tile", "softmax", {"BLOCK": block}, warps)
            out = torch.empty_like(x)
            return (lambda: k.launch(m, out, x, x.stride(0), n)), [out]

        def triton():
            out = torch.empty_like(x)
            return (lambda: tk.softmax(x, out)), [out]

        def torch_():
            box = [torch.softmax(x, dim=-1)]

            def run():
                box[0] = torch.softmax(x, dim=-1)
            return run, _Lazy(box)
        return refs, [TOL["f32"]], {"tilec": ours, "triton": triton, "torch": torch_}

    def case_layernorm(self, m, n, eps=1e-5):
        torch, tk, F = self.torch, self.tk, self.torch.nn.functional
        f16 = torch.float16
        x = (-2.3 + 0.5 * self.randn(m, n)).to(f16)   # as the tutorial's test
        w = torch.rand(n, device=self.dev).to(f16)
        b = torch.rand(n, device=self.dev).to(f16)
        xd = x.double()
        mean_ref = xd.mean(dim=1)
        var_ref = xd.var(dim=1, correction=0)
        rstd_ref = 1.0 / torch.sqrt(var_ref + eps)
        y_ref = (xd - mean_ref[:, None]) * rstd_ref[:, None] * w.double() + b.double()
        refs = [y_ref, mean_ref, rstd_ref]
        tols = [TOL["f16"], TOL["f32"], TOL["f32"]]
        block = next_pow2(n)
        warps = layernorm_warps(block)

        def outs():
            return (torch.empty_like(x), torch.empty(m, device=self.dev), torch.empty(m, device=self.dev))

        def ours():
            k = self.kernel("layernorm.tile", "layernorm", {"BLOCK": block}, warps)
            y, mu, rs = outs()
            return (lambda: k.launch(m, y, mu, rs, x, w, b, x.stride(0), n, eps)), [y, mu, rs]

        def triton():
            y, mu, rs = outs()
            return (lambda: tk.layer_norm(x, w, b, eps, y, mu, rs)), [y, mu, rs]

        def torch_():
            box = [F.layer_norm(x, (n,), w, b, eps)]

            def run():
                box[0] = F.layer_norm(x, (n,), w, b, eps)
            return run, _Lazy(box)
        # torch's output is checked alone: F.layer_norm does not return mean and rstd.
        return refs, tols, {"tilec": ours, "triton": triton, "torch": torch_}

    def case_mean(self, n, two_stage):
        torch, tk = self.torch, self.tk
        x = self.randn(n) + 0.5   # a mean far from 0, so the relative error means something
        refs = [x.double().mean()]
        p = self.mean_programs

        def scalar():
            return torch.empty((), device=self.dev)

        def ours():
            out = scalar()
            if two_stage:
                kp = self.kernel("mean.tile", "mean_partial", {"BLOCK": 4096}, 4)
                kf = self.kernel("mean.tile", "mean_final", {"BLOCK": 1024}, 4)
                part = torch.empty(p, device=self.dev)

                def run():
                    kp.launch(p, part, x, n)
                    kf.launch(1, out, part, p, 1.0 / n)
                return run, [out]
            k = self.kernel("mean.tile", "mean_atomic", {"BLOCK": 4096}, 4)

            def run_atomic():
                out.zero_()
                k.launch(p, out, x, n, 1.0 / n)
            return run_atomic, [out]

        def triton():
            out = scalar()
            if two_stage:
                part = torch.empty(p, device=self.dev)
                return (lambda: tk.mean_two_stage(x, out, part)), [out]

            def run():
                out.zero_()
                tk.mean_atomic(x, out, p)
            return run, [out]

        def torch_():
            out = scalar()
            if two_stage:
                return (lambda: torch.mean(x, 0, out=out)), [out]

            def run():
                out.zero_()
                torch.mean(x, 0, out=out)
            return run, [out]
        return refs, [MEAN_TOL], {"tilec": ours, "triton": triton, "torch": torch_}

    def cases(self):
        """(name, bytes, builder) in workload_list() order."""
        names = workload_list()
        builders = [lambda: self.case_vector_add(1 << 27)]
        for m, n in ((4096, 1024), (4096, 4096), (4096, 16384), (16384, 8192)):
            builders.append(lambda m=m, n=n: self.case_softmax(m, n))
        builders.append(lambda: self.case_layernorm(4096, 8192))
        builders.append(lambda: self.case_mean(10**8, False))
        builders.append(lambda: self.case_mean(10**8, True))
        return [(nm, nb, bl) for (nm, nb), bl in zip(names, builders)]

    def run_workloads(self):
        only = [s.strip() for s in self.args.only.split(",") if s.strip()]
        results = []
        for i, (name, nbytes, build) in enumerate(self.cases()):
            if only and not any(name.startswith(o) for o in only):
                continue
            w = {"name": name, "bytes": nbytes, "impls": {}}
            results.append(w)
            if self.dead:
                w["impls"] = {k: {"status": "ERR", "error": "CUDA context lost earlier"} for k in IMPLS}
                continue
            try:
                self.torch.manual_seed(self.args.seed + i)
                refs, tols, makers = build()
            except Exception as e:
                w["impls"] = {k: {"status": "ERR", "error": f"inputs: {type(e).__name__}: {e}"} for k in IMPLS}
                print(f"  {name:<24} inputs: {type(e).__name__}: {e}", flush=True)
                self.alive()
                continue
            for impl in IMPLS:
                if self.dead:
                    w["impls"][impl] = {"status": "ERR", "error": "CUDA context lost earlier"}
                    continue
                r = self.measure(nbytes, makers[impl], refs, tols)
                w["impls"][impl] = r
                print(f"  {name:<24} {impl:<6} {cell_gbs(r):>6} GB/s  "
                      + (f"median {r['median_ms']:.4f} ms, rel err {max(r['rel_err']):.2e}"
                         if "median_ms" in r else r.get("error", "")), flush=True)
            del refs, makers
            self.torch.cuda.empty_cache()
        return results

    def copy_ceiling(self):
        torch = self.torch
        try:
            src = torch.randn(COPY_BYTES // 4, device=self.dev)
            dst = torch.empty_like(src)
            med, p10, p90 = self.time_ms(lambda: dst.copy_(src))
            ok = bool(torch.equal(dst, src))
            return {"status": "ok" if ok else "FAIL", "bytes": 2 * COPY_BYTES, "median_ms": med,
                    "p10_ms": p10, "p90_ms": p90, "gbs": 2 * COPY_BYTES / (med * 1e-3) / 1e9}
        except Exception as e:
            self.alive()
            return {"status": "ERR", "error": f"{type(e).__name__}: {e}"}

    # ---- matmul ----

    def mm_inputs(self, m, n, k, dt, relu, bt=False):
        """a [m,k], b [k,n] (b a transposed view when bt), the f32 reference, TF32 off."""
        torch = self.torch
        tdt = torch.bfloat16 if dt == "bf16" else torch.float16
        a = self.randn(m, k).to(tdt)
        b = self.randn(n, k).to(tdt).t() if bt else self.randn(k, n).to(tdt)
        torch.backends.cuda.matmul.allow_tf32 = False
        ref = torch.matmul(a.float(), b.float())
        return a, b, torch.relu(ref) if relu else ref

    def mm_tilec(self, dt, relu, cfg, arch=None):
        bm, bn, bk, warps, stages = cfg
        file, name = ("matmul_relu.tile", "matmul_relu") if relu else ("matmul.tile", "matmul")
        return self.kernel(file, name, {"BM": bm, "BN": bn, "BK": bk, "GROUP_M": MM_GROUP_M}, warps,
                           num_stages=stages, dtype=dt, arch=arch)

    def mm_ours_run(self, k, cfg, a, b, c):
        (m, kk), n = a.shape, b.shape[1]
        grid = cdiv(m, cfg[0]) * cdiv(n, cfg[1])
        return lambda: k.launch(grid, c, a, b, m, n, kk, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                c.stride(0), c.stride(1))

    def mm_tune(self, configs, runner, a, b, ref):
        """Check then time each config (a few reps); (fastest config, its run, every try)."""
        tried, best = [], None
        t0 = time.perf_counter()
        for cfg in configs:
            if time.perf_counter() - t0 > MM_TUNE_CAP_S:
                tried.append({"config": cfg, "status": f"skipped: tuning cap {MM_TUNE_CAP_S:.0f} s"})
                continue
            c = self.torch.empty(ref.shape, dtype=a.dtype, device=self.dev)
            try:
                run = runner(cfg, c)
                c.fill_(float("nan"))
                run()
                self.sync()
                err = self.rel_err(c, ref)
                if not err <= MM_TOL:
                    tried.append({"config": cfg, "status": f"FAIL rel err {err:.2e}"})
                    continue
                med = self.time_ms(run, MM_TUNE_REPS, 1)[0]
                tried.append({"config": cfg, "status": "ok", "median_ms": med, "rel_err": err})
                if best is None or med < best[2]:
                    best = (cfg, runner, med)
            except self.tilec.TilecError as e:
                tried.append({"config": cfg, "status": f"compile: {e.message.strip()[:160]}"})
            except Exception as e:
                tried.append({"config": cfg, "status": f"ERR {type(e).__name__}: {str(e)[:160]}"})
                if not self.alive():
                    break
        return best, tried

    def mm_problem(self, name, m, n, k, dt, relu, seed):
        torch, tk = self.torch, self.tk
        w = {"name": name, "shape": [m, n, k], "dtype": dt, "relu": relu, "flops": mm_flops(m, n, k),
             "impls": {}}
        torch.manual_seed(seed)
        a, b, ref = self.mm_inputs(m, n, k, dt, relu)
        nbytes = a.element_size() * (m * k + k * n + m * n)
        reps, warm = self.args.matmul_reps, 3

        def tuned(impl, configs, runner):
            best, tried = self.mm_tune(configs, runner, a, b, ref)
            if best is None:
                return {"status": "ERR", "error": "no config compiled and passed", "tried": tried}
            cfg, run_of, _ = best

            def make():
                c = torch.empty(m, n, dtype=a.dtype, device=self.dev)
                return run_of(cfg, c), [c]
            r = self.measure(nbytes, make, [ref], [MM_TOL], reps, warm, mm_flops(m, n, k))
            r.update(config=list(cfg), tried=tried)
            return r

        def ours(cfg, c):
            return self.mm_ours_run(self.mm_tilec(dt, relu, cfg), cfg, a, b, c)

        def ours_mma(cfg, c):
            return self.mm_ours_run(self.mm_tilec(dt, relu, cfg, arch="sm_90"), cfg, a, b, c)

        def triton(cfg, c):
            return lambda: tk.matmul(a, b, c, cfg, "relu" if relu else "")

        def triton_mma(cfg, c):
            act = "relu" if relu else ""
            ptx = tk.matmul(a, b, c, cfg, act, mma_sync=True).asm.get("ptx", "")
            if "wgmma" in ptx or "mma.sync" not in ptx:
                raise RuntimeError("Triton did not compile to mma.sync with DISABLE_MMA_V3=1")
            return lambda: tk.matmul(a, b, c, cfg, act, mma_sync=True)

        def cublas():
            c = torch.empty(m, n, dtype=a.dtype, device=self.dev)
            if relu:
                def run():
                    torch.matmul(a, b, out=c)
                    torch.relu_(c)
                return run, [c]
            return (lambda: torch.matmul(a, b, out=c)), [c]

        for impl in MM_IMPLS:
            if self.dead:
                w["impls"][impl] = {"status": "ERR", "error": "CUDA context lost earlier"}
                continue
            if impl == "tilec":
                r = tuned(impl, MM_CONFIGS, ours)
            elif impl == "tilec_mma":
                r = tuned(impl, MM_CONFIGS_MMA, ours_mma)
            elif impl == "triton":
                r = tuned(impl, tk.MATMUL_CONFIGS, triton)
            elif impl == "triton_mma":
                r = tuned(impl, tk.MATMUL_CONFIGS, triton_mma)
            else:
                r = self.measure(nbytes, cublas, [ref], [MM_TOL], reps, warm, mm_flops(m, n, k))
            w["impls"][impl] = r
            print(f"  {name:<24} {impl:<6} {cell_tf(r):>5} TF/s  " +
                  (f"median {r['median_ms']:.4f} ms, rel err {r['rel_err'][0]:.2e}, config {fmt_cfg(r.get('config'))}"
                   if "median_ms" in r else r.get("error", "")), flush=True)
        del a, b, ref
        torch.cuda.empty_cache()
        return w

    def mm_ragged(self, winners):
        """tilec on ragged shapes with each kernel's winning config; NaN-poisoned output."""
        out = []
        kinds = [("matmul", "f16", False), ("matmul", "bf16", False), ("matmul_relu", "f16", True)]
        for i, (kname, dt, relu) in enumerate(kinds):
            cfg = tuple(winners.get((dt, relu)) or MM_CONFIGS[0])
            for j, (m, n, k, bt) in enumerate(MM_RAGGED):
                name = mm_ragged_name(kname, dt, m, n, k, bt)
                c = {"name": name, "config": list(cfg)}
                if self.dead:
                    out.append(dict(c, status="ERR", error="CUDA context lost earlier"))
                    continue
                try:
                    self.torch.manual_seed(self.args.seed + 100 + 10 * i + j)
                    a, b, ref = self.mm_inputs(m, n, k, dt, relu, bt)
                    o = self.torch.empty(m, n, dtype=a.dtype, device=self.dev)
                    o.fill_(float("nan"))
                    self.mm_ours_run(self.mm_tilec(dt, relu, cfg), cfg, a, b, o)()
                    self.sync()
                    err = self.rel_err(o, ref)
                    c.update(status="ok" if err <= MM_TOL else "FAIL", rel_err=err)
                except Exception as e:
                    c.update(status="ERR", error=f"{type(e).__name__}: {str(e)[:200]}")
                    self.alive()
                out.append(c)
                print(f"  ragged {name:<34} {c['status']:<4} " +
                      (f"rel err {c['rel_err']:.2e}" if "rel_err" in c else c.get("error", "")), flush=True)
        return out

    def run_matmul(self, res):
        """Fills res (the JSON's "matmul") as it goes, so a time cap still leaves what was done."""
        only = [s.strip() for s in self.args.only.split(",") if s.strip()]
        res.update(reps=self.args.matmul_reps, tune_reps=MM_TUNE_REPS, tune_cap_s=MM_TUNE_CAP_S,
                   tol=MM_TOL, problems=[], ragged=[])
        winners = {}
        for i, (name, m, n, k, dt, relu) in enumerate(matmul_list()):
            if only and not any(name.startswith(o) for o in only):
                continue
            w = self.mm_problem(name, m, n, k, dt, relu, self.args.seed + 50 + i)
            res["problems"].append(w)
            t = w["impls"].get("tilec") or {}
            if t.get("config") and (dt, relu) not in winners:
                winners[(dt, relu)] = t["config"]
        if res["problems"] or not only:
            res["ragged"] = self.mm_ragged(winners)

    # ---- compile time ----

    def timed_first(self, fn):
        """Host milliseconds of fn() then a synchronize."""
        try:
            self.sync()
            t0 = time.perf_counter()
            extra = fn()
            self.sync()
            r = {"status": "ok", "wall_ms": (time.perf_counter() - t0) * 1e3}
            if extra:
                r.update(extra)
            return r
        except Exception as e:
            self.alive()
            return {"status": "ERR", "error": f"{type(e).__name__}: {e}"}

    def tilec_cold(self, file, name, defines, warps, launch, stages=0):
        """Compile a source the context has never seen, launch it once."""
        suffix = f"\n// bench cold compile {uuid.uuid4().hex}\n"

        def go():
            k = self.kernel(file, name, defines, warps, source_suffix=suffix, num_stages=stages)
            launch(k)
            self.sync()
            return {"phases_ms": list(k.compile_times())}
        return self.timed_first(go)

    def compile_times(self):
        torch, tk = self.torch, self.tk
        dev, p = self.dev, self.mean_programs
        comp = {"note": "wall = compile + first launch + synchronize, host clock; tilec cache bypassed by a "
                        "unique trailing comment; Triton with a fresh TRITON_CACHE_DIR"}
        t0 = time.perf_counter()
        self.tilec.context()
        comp["tilec_context_ms"] = (time.perf_counter() - t0) * 1e3
        small = torch.randn(16 * 1024, device=dev)
        o = torch.empty_like(small)
        comp["tilec_prime"] = self.tilec_cold("vector_add.tile", "vector_add", {"BLOCK": 256}, 4,
                                              lambda k: k.launch(64, small, small, o, 16 * 1024))
        comp["triton_prime"] = self.timed_first(lambda: tk.prime(o) and None)
        kernels = []

        def both(label, file, name, defines, warps, ours, theirs, stages=0):
            kernels.append({"kernel": label, "tilec": self.tilec_cold(file, name, defines, warps, ours, stages),
                            "triton": self.timed_first(lambda: theirs() and None)})
            print(f"  compile {label:<16} tilec {fmt_ms(kernels[-1]['tilec'])} ms, "
                  f"Triton {fmt_ms(kernels[-1]['triton'])} ms", flush=True)

        n = 16 * 1024
        x, y, out = torch.randn(n, device=dev), torch.randn(n, device=dev), torch.empty(n, device=dev)
        both("vector_add", "vector_add.tile", "vector_add", {"BLOCK": 1024}, 4,
             lambda k: k.launch(cdiv(n, 1024), x, y, out, n), lambda: tk.add(x, y, out))
        for cols in (1024, 4096, 16384, 8192):
            blk, wp = next_pow2(cols), softmax_warps(next_pow2(cols))
            a, b = torch.randn(4, cols, device=dev), torch.empty(4, cols, device=dev)
            both(f"softmax/{blk}", "softmax.tile", "softmax", {"BLOCK": blk}, wp,
                 lambda k, a=a, b=b, cols=cols: k.launch(4, b, a, cols, cols),
                 lambda a=a, b=b: tk.softmax(a, b))
        cols = 8192
        xa = torch.randn(4, cols, device=dev).half()
        wa, ba = torch.rand(cols, device=dev).half(), torch.rand(cols, device=dev).half()
        ya, mu, rs = torch.empty_like(xa), torch.empty(4, device=dev), torch.empty(4, device=dev)
        both("layernorm/8192", "layernorm.tile", "layernorm", {"BLOCK": 8192}, layernorm_warps(8192),
             lambda k: k.launch(4, ya, mu, rs, xa, wa, ba, cols, cols, 1e-5),
             lambda: tk.layer_norm(xa, wa, ba, 1e-5, ya, mu, rs))
        nm = 4096 * 64
        xm, om, part = torch.randn(nm, device=dev), torch.zeros((), device=dev), torch.empty(p, device=dev)
        both("mean_atomic", "mean.tile", "mean_atomic", {"BLOCK": 4096}, 4,
             lambda k: k.launch(p, om, xm, nm, 1.0 / nm), lambda: tk.mean_atomic(xm, om, p))
        both("mean_partial", "mean.tile", "mean_partial", {"BLOCK": 4096}, 4,
             lambda k: k.launch(p, part, xm, nm),
             lambda: tk.mean_partial_kernel[(p,)](part, xm, nm, BLOCK=4096, num_warps=4))
        both("mean_final", "mean.tile", "mean_final", {"BLOCK": 1024}, 4,
             lambda k: k.launch(1, om, part, p, 1.0 / nm),
             lambda: tk.mean_final_kernel[(1,)](om, part, p, 1.0 / nm, BLOCK=1024, num_warps=4))
        # matmul: one config for both, 128x128x32, GROUP_M 8, 8 warps, 3 stages, f16, 512^3.
        if not self.args.skip_matmul:
            mm = 512
            am, bmat = torch.randn(mm, mm, device=dev).half(), torch.randn(mm, mm, device=dev).half()
            cm = torch.empty(mm, mm, device=dev).half()
            cfg = (128, 128, 32, 8, 3)
            both("matmul/128x128x32", "matmul.tile", "matmul", {"BM": 128, "BN": 128, "BK": 32, "GROUP_M": 8}, 8,
                 lambda k: self.mm_ours_run(k, cfg, am, bmat, cm)(),
                 lambda: tk.matmul(am, bmat, cm, (128, 128, 32, 8, 8, 3)), stages=3)
        comp["kernels"] = kernels
        return comp

    # ---- launch overhead ----

    def launch_overhead(self):
        torch, tk = self.torch, self.tk
        n, iters = 1024, self.args.launches
        x, y, out = torch.randn(n, device=self.dev), torch.randn(n, device=self.dev), torch.empty(n, device=self.dev)
        impls = {}

        def host(fn):
            for _ in range(100):
                fn()
            self.sync()
            t0 = time.perf_counter()
            for _ in range(iters):
                fn()
            t1 = time.perf_counter()
            self.sync()
            t2 = time.perf_counter()
            return {"status": "ok", "enqueue_us": (t1 - t0) / iters * 1e6, "total_us": (t2 - t0) / iters * 1e6}

        def attempt(label, make):
            try:
                impls[label] = host(make())
                assert torch.allclose(out, x + y), "wrong result"
            except Exception as e:
                impls[label] = {"status": "ERR", "error": f"{type(e).__name__}: {e}"}
                self.alive()

        k = None
        try:
            k = self.kernel("vector_add.tile", "vector_add", {"BLOCK": 1024}, 4)
        except Exception as e:
            impls["tilec (binding)"] = {"status": "ERR", "error": f"{type(e).__name__}: {e}"}
        if k is not None:
            attempt("tilec (binding)", lambda: (lambda: k.launch(1, x, y, out, n)))
            stream = torch.cuda.current_stream().cuda_stream
            attempt("tilec (binding, stream given)", lambda: (lambda: k.launch(1, x, y, out, n, stream=stream)))
        attempt("triton", lambda: (lambda: tk.add(x, y, out)))
        attempt("torch add(out=)", lambda: (lambda: torch.add(x, y, out=out)))
        return {"launches": iters, "n": n, "impls": impls}

    # ---- meta ----

    def meta(self):
        torch = self.torch
        m = {"device": torch.cuda.get_device_name(0), "sm_count": self.sms,
             "l2_bytes": getattr(self.props, "L2_cache_size", None),
             "total_memory": self.props.total_memory,
             "torch": torch.__version__, "torch_cuda": torch.version.cuda, "triton": self.triton.__version__,
             "python": platform.python_version(), "date": datetime.datetime.now().isoformat(timespec="seconds"),
             "tilec_lib": os.environ.get("TILEC_LIB") or os.path.join(ROOT, "build-bundle", "bundle", "libtilec.so"),
             "reps": self.args.reps, "warmup": self.args.warmup, "seed": self.args.seed,
             "flush_bytes": FLUSH_BYTES, "mean_programs": self.mean_programs,
             "tolerances": {"f32": TOL["f32"], "f16": TOL["f16"], "mean": MEAN_TOL}}
        m["driver"] = _run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"])
        m["git"] = _run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"])
        return m


class _Lazy(list):
    """Outputs of an implementation that allocates them (torch): the current one in box[0].
    fill_ poisons a tensor that the next run replaces, so poisoning is moot there, and the
    check reads whatever the last run returned."""

    def __init__(self, box):
        super().__init__()
        self.box = box

    def __iter__(self):
        return iter(self.box[:1])


def _run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=20).stdout.strip() or None
    except Exception:
        return None


def gpu_main(args):
    d = out_dir(args)
    res = {"meta": {}, "workloads": [], "copy": {}, "compile": {}, "launch": {}, "matmul": {}}
    try:
        g = Gpu(args)
        res["meta"] = g.meta()
    except Exception as e:
        res["aborted"] = f"set-up: {type(e).__name__}: {e}"
        print(f"bench: {res['aborted']}")
        write_outputs(res, d)
        return 1
    print(f"bench: {res['meta']['device']}, {g.sms} SMs, torch {res['meta']['torch']}, "
          f"triton {res['meta']['triton']}, reps {args.reps}, out {d}", flush=True)
    try:
        if not args.skip_compile:
            print("bench: compile time", flush=True)
            res["compile"] = g.compile_times()
        if not g.dead:
            print("bench: launch overhead", flush=True)
            res["launch"] = g.launch_overhead()
            log = args.gpu_test_log or os.path.join(d, "gpu_test.log")
            if os.path.exists(log):
                with open(log, errors="replace") as f:
                    res["launch"]["c_gpu_test"] = c_launch_line(f.read())
        if not g.dead:
            print("bench: copy ceiling", flush=True)
            res["copy"] = g.copy_ceiling()
            g.torch.cuda.empty_cache()
        print("bench: workloads", flush=True)
        res["workloads"] = g.run_workloads()
        if not args.skip_matmul and not g.dead:
            print("bench: matmul", flush=True)
            res["matmul"] = {}
            g.run_matmul(res["matmul"])
    finally:
        if g.dead:
            res["aborted"] = g.dead
        write_outputs(res, d)
        print_report(res)
    bad = tilec_failures(res)
    if bad:
        print("bench: tilec problems: " + "; ".join(bad))
        return 1
    return 0


def main(argv=None):
    args = parse_args(argv)
    # A time cap's SIGTERM unwinds through gpu_main's finally: the JSON is still written.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(124))
    if args.selftest:
        return selftest(args)
    return gpu_main(args)


if __name__ == "__main__":
    sys.exit(main())
