"""ptx_ab.py: softmax PTX variants timed side by side, all launched the same way.

    python3 bench/ptx_ab.py [ROWS N [ROUNDS]]        # default 4096 16384 5

tilec's PTX comes from the CLI (bundle/tilec, --arch sm_90a, the JIT's
divisibility hints); Triton's from its compiled kernel.  Every PTX text is
loaded with cuModuleLoadData and launched with cuLaunchKernel on torch's
current stream by this script, so the launch path is the same for all; the
JIT (tilec) and Triton's own launcher run beside them as references.
Variants are text edits of a PTX, each a question about the last percent:

  tilec            tilec's PTX as it comes
  tilec.st.cs      stores with the streaming hint (st.global.cs)
  tilec.ld.na      loads that do not allocate in L1 (ld.global.L1::no_allocate)
  tilec.ld.ef      loads with evict_first (ld.global.L1::evict_first)
  tilec.max        max.f32 for max.NaN.f32 (Triton's max does not propagate NaN)
  triton.ptx       Triton's PTX, through this script's launch
  tilec.jit        tilec's JIT (tilec.Kernel.launch)
  triton           Triton's launcher

AB_PTX="name=file.ptx,..." adds PTX files built elsewhere (tilec's parameters);
AB_ONLY=REGEX times only the variants it matches, and triton.
Rounds interleave the variants (each round times each variant once: median of
REPS event-timed calls, L2 flushed before each); printed: GB/s median over the
rounds, min, max, and the ratio to `triton`.  Every variant's output is checked
against torch.softmax first.
"""
import ctypes
import os
import re
import statistics
import subprocess
import sys
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="ptx-ab-triton-"))
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import tilec  # noqa: E402
import triton_kernels as tk  # noqa: E402
from probe import bench  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
EX = os.path.join(ROOT, "dsl_examples")
CLI = os.environ.get("TILEC", os.path.join(ROOT, "build-bundle", "bundle", "tilec"))
REPS = 50

cu = ctypes.CDLL("libcuda.so.1")


def check(r, what):
    if r != 0:
        name = ctypes.c_char_p()
        cu.cuGetErrorName(r, ctypes.byref(name))
        raise RuntimeError(f"{what}: {name.value.decode() if name.value else r}")


class RawKernel:
    """A PTX text loaded by hand; args matched to the .entry's params in order, missing ones 0."""

    def __init__(self, ptx, smem, threads):
        self.mod, self.fn = ctypes.c_void_p(), ctypes.c_void_p()
        check(cu.cuModuleLoadData(ctypes.byref(self.mod), ctypes.c_char_p(ptx.encode())), "cuModuleLoadData")
        entry = re.search(r"\.entry\s+(\w+)\s*\(([^)]*)\)", ptx)
        check(cu.cuModuleGetFunction(ctypes.byref(self.fn), self.mod, entry.group(1).encode()), "cuModuleGetFunction")
        self.types = re.findall(r"\.param\s+\.([usb]\d+)", entry.group(2))
        self.smem, self.threads = smem, threads
        if smem > 48 * 1024:  # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
            check(cu.cuFuncSetAttribute(self.fn, 8, smem), "cuFuncSetAttribute")

    def launch(self, grid, *args):
        vals = []
        for i, t in enumerate(self.types):
            a = args[i] if i < len(args) else 0
            a = a.data_ptr() if isinstance(a, torch.Tensor) else int(a)
            vals.append(ctypes.c_uint64(a) if t.endswith("64") else ctypes.c_uint32(a))
        params = (ctypes.c_void_p * len(vals))(*[ctypes.cast(ctypes.byref(v), ctypes.c_void_p) for v in vals])
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        check(cu.cuLaunchKernel(self.fn, grid, 1, 1, self.threads, 1, 1, self.smem, stream, params, None),
              "cuLaunchKernel")


def tilec_ptx(block, warps):
    """tilec's PTX and dynamic shared bytes for softmax, as the JIT builds it on an H100."""
    base = [CLI, os.path.join(EX, "softmax.tile"), "-D", f"BLOCK={block}", "--num-warps", str(warps),
            "--arch", "sm_90a", "--hints", "n=16,stride=16", "-o", "-"]
    ptx = subprocess.run(base, check=True, capture_output=True, text=True).stdout
    ir = subprocess.run(base + ["--emit=gpu-ir"], check=True, capture_output=True, text=True).stdout
    return ptx, int(re.search(r"smem_total=(\d+)", ir).group(1))


def main():
    rows, n = (int(v) for v in sys.argv[1:3]) if len(sys.argv) > 2 else (4096, 16384)
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    block, warps = tk.softmax_config(n)
    torch.manual_seed(0)
    x = torch.randn(rows, n, device="cuda")
    ref = torch.softmax(x, 1)
    out = torch.empty_like(x)
    ptx, smem = tilec_ptx(block, warps)
    tri = tk.softmax_kernel[(rows,)](out, x, x.stride(0), out.stride(0), n, num_warps=warps, BLOCK_SIZE=block)
    edits = {
        "tilec": lambda p: p,
        "tilec.st.cs": lambda p: p.replace("st.global.v4", "st.global.cs.v4"),
        "tilec.ld.na": lambda p: p.replace("ld.global.v4", "ld.global.L1::no_allocate.v4"),
        "tilec.ld.ef": lambda p: p.replace("ld.global.v4", "ld.global.L1::evict_first.v4"),
        "tilec.max": lambda p: p.replace("max.NaN.f32", "max.f32"),
    }
    runs = {}
    for name, edit in edits.items():
        k = RawKernel(edit(ptx), smem, 32 * warps)
        runs[name] = lambda k=k: k.launch(rows, out, x, x.stride(0), n)
    # AB_PTX="name=file.ptx,...": more PTX files (tilec's parameters and shared bytes)
    for item in filter(None, os.environ.get("AB_PTX", "").split(",")):
        name, path = item.split("=", 1)
        k = RawKernel(open(path).read(), smem, 32 * warps)
        runs[name] = lambda k=k: k.launch(rows, out, x, x.stride(0), n)
    kt = RawKernel(tri.asm["ptx"], tri.metadata.shared, 32 * warps)
    runs["triton.ptx"] = lambda: kt.launch(rows, out, x, x.stride(0), out.stride(0), n)
    kj = tilec.Kernel.compile(os.path.join(EX, "softmax.tile"), "softmax", defines={"BLOCK": block},
                              num_warps=warps)
    runs["tilec.jit"] = lambda: kj.launch(rows, out, x, x.stride(0), n)
    runs["triton"] = lambda: tk.softmax_kernel[(rows,)](out, x, x.stride(0), out.stride(0), n,
                                                        num_warps=warps, BLOCK_SIZE=block)
    only = os.environ.get("AB_ONLY")  # a regex: time only the variants it matches (and triton)
    if only:
        runs = {k: v for k, v in runs.items() if k == "triton" or re.search(only, k)}
    print(f"softmax f32 {rows}x{n}: BLOCK {block}, {warps} warps, tilec smem {smem} B, "
          f"Triton smem {tri.metadata.shared} B; {rounds} rounds x {REPS} reps")
    check_runs(runs, out, ref, 1e-5)
    nbytes = 2 * x.numel() * 4
    rounds_table(runs, rounds, REPS, lambda ms: nbytes / ms / 1e6, "GB/s", "triton")


def check_runs(runs, out, ref, tol):
    """Runs each variant once into `out`, poisoned with NaN first; exits unless its error relative to
    `ref` (norm, in f64) is under tol."""
    for name, fn in runs.items():
        out.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        err = ((out.double() - ref.double()).norm() / ref.double().norm()).item()
        if not err < tol:
            sys.exit(f"{name}: rel err {err:.2e}")


def rounds_table(runs, rounds, reps, rate, unit, ref):
    """Times every run once per round (median of `reps` calls, L2 flushed), rounds interleaved;
    prints each run's rate (rate(ms)) as median, min, max over the rounds and its ratio to `ref`."""
    got = {name: [] for name in runs}
    for _ in range(rounds):
        for name, fn in runs.items():
            got[name].append(rate(bench(fn, 1, reps)[0]))
    print_rates(got, unit, ref)


def exit_unless_close(name, got, ref, atol, rtol=0.0):
    """Every element of got within atol + rtol * |ref| of ref (NaN fails); else exits naming the first off."""
    bad = ~((got.double() - ref).abs() <= rtol * ref.abs() + atol)
    if bad.any():
        i = bad.nonzero()[0].tolist()
        sys.exit(f"{name}: {bad.sum().item()} elements off, e.g. {i}: {got[tuple(i)].item()} vs "
                 f"{ref[tuple(i)].item()}")


def pick_config(name, configs, make, check, rate, unit):
    """The fastest config that compiles, launches and checks (median of 10 calls each): make(cfg) gives the
    call, check(label, fn) runs and checks it (exits on a wrong result), rate(ms) the figure printed."""
    best = None
    for cfg in configs:
        try:
            fn = make(cfg)
            fn()
        except Exception as e:  # a config that does not compile or fit is skipped; a wrong one exits in check
            print(f"{name} {cfg}: skipped ({(str(e) or type(e).__name__).splitlines()[0][:100]})")
            continue
        check(f"{name} {cfg}", fn)
        t = rate(bench(fn, 1, 10)[0])
        print(f"{name} {cfg}: {t:.1f} {unit}")
        if best is None or t > best[1]:
            best = (cfg, t)
    if best is None:
        sys.exit(f"{name}: no config ran")
    return best[0]


def print_rates(got, unit, ref, width=16):
    """got: name -> rates over the rounds; prints median, min, max and the median's ratio to ref's."""
    t = statistics.median(got[ref])
    print(f"{'variant':<{width}} {unit + ' med':>9} {'min':>7} {'max':>7} {'/' + ref:>{max(8, len(ref) + 1)}}")
    for name, v in got.items():
        m = statistics.median(v)
        print(f"{name:<{width}} {m:9.1f} {min(v):7.1f} {max(v):7.1f} {m / t:{max(8, len(ref) + 1)}.3f}")


def ratio_line(got):
    """'ratios: tilec/triton R, tilec/torch R' of the medians over the rounds in got (fresh_rounds')."""
    med = {k: statistics.median(v) for k, v in got.items()}
    return f"ratios: tilec/triton {med['tilec'] / med['triton']:.3f}, tilec/torch {med['tilec'] / med['torch']:.3f}"


def fresh_rounds(p, runs, per_round, rounds, reps):
    """`rounds` rounds, each on fresh inputs (p.draw()): every contestant checked once (p.check(name, fn,
    out)), then timed (probe.bench over p.nbytes(): GB/s, median of `reps` calls).  runs: name -> (fn, out);
    per_round() adds the contestants made anew each round (torch's, whose output is a new tensor: out()
    reads it).  Returns name -> GB/s over the rounds."""
    got = {}
    for _ in range(rounds):
        p.draw()
        calls = dict(runs)
        calls.update(per_round())
        for name, (fn, out) in calls.items():
            p.check(name, fn, out)
        for name, (fn, _) in calls.items():
            got.setdefault(name, []).append(bench(fn, p.nbytes(), reps)[1])
    return got


def race_warps(p, what, tilec_fn, triton_fn, torch_fn, warps, rounds, reps):
    """tilec's and Triton's kernels for problem p, each at its fastest of `warps` (fn(p, w) makes the call),
    then fresh_rounds of both with torch's (torch_fn(p): run, out) over `rounds` x `reps`; prints the
    picks under `what`, the GB/s table and the ratios."""
    gbs = lambda ms: p.nbytes() / (ms * 1e-3) / 1e9  # noqa: E731
    t_w = pick_config("tilec", warps, lambda w: tilec_fn(p, w), p.check, gbs, "GB/s")
    r_w = pick_config("triton", warps, lambda w: triton_fn(p, w), p.check, gbs, "GB/s")
    print(f"{what}: tilec {t_w} warps, triton {r_w} warps; {rounds} rounds x {reps} reps")
    runs = {"tilec": (tilec_fn(p, t_w), None), "triton": (triton_fn(p, r_w), None)}
    got = fresh_rounds(p, runs, lambda: {"torch": torch_fn(p)}, rounds, reps)
    print_rates(got, "GB/s", "torch")
    print(ratio_line(got))


def row_loop_source(path, stages):
    """The text of the example at path with its row loop's num_stages=2 made `stages` (a loop that ends in
    `num_programs(0), num_stages=2)`, once in the file)."""
    text, loop = open(path).read(), "num_programs(0), num_stages=2)"
    if text.count(loop) != 1:
        sys.exit(f"{path}: no single row loop ending in {loop}")
    return text.replace(loop, f"num_programs(0), num_stages={stages})")


def rows_main(one, shapes):
    """`script [ROWS N [ROUNDS]]`: one(rows, n, rounds) for the shape given, else for each of shapes;
    5 rounds unless given."""
    a = [int(v) for v in sys.argv[1:]]
    rounds = a[2] if len(a) > 2 else 5
    torch.manual_seed(0)
    for rows, n in ([tuple(a[0:2])] if len(a) >= 2 else shapes):
        one(rows, n, rounds)


if __name__ == "__main__":
    main()
