"""linear_f8.py: the fp8 linear layer of dsl_examples/linear_f8.tile, tilec against the same kernel in
Triton and against cuBLASLt's fp8 product (torch._scaled_mm), in one process.

    python3 bench/linear_f8.py [ROUNDS]                  # the three problems below, 5 rounds each
    python3 bench/linear_f8.py M N K [ROUNDS]            # one problem

Y = (X @ W^T) * sx * sw: X [M, K] and W [N, K] float8_e4m3fn (K contiguous in both, so W^T is the
column-major B that _scaled_mm takes), sx and sw one-element f32 tensors, f32 sums, f16 Y.  Problems:
4096^3, 8192^3 and 4095x4000x4160 (M and N off the tiles; K a multiple of 16 as _scaled_mm needs, not of
128: the K tail is masked).  Contestants:

  tilec          the JIT (tilec.Kernel; sm_90a on an H100: wgmma.m64nNk32.f32.e4m3.e4m3; TILEC_ARCH=sm_90
                 compiles for the mma.sync.m16n8k32 path instead)
  triton         bench/triton_kernels.py's linear_f8_kernel, the same loop (tl.float8e4nv, tl.dot; on
                 sm_90 Triton's default max_num_imprecise_acc leaves the sums in wgmma's accumulator)
  torch          torch._scaled_mm(X, W.t(), scale_a=sx, scale_b=sw, out_dtype=f16): cuBLASLt, its partial
                 sums promoted to f32 every few products (use_fast_accum=False, the default)
  torch-fastacc  the same with use_fast_accum=True (sums left in the tensor cores' accumulator, as
                 Triton's and, unless tilec promotes, tilec's)

tilec and Triton each take the fastest of a short config list, per problem (every config checked, then
timed: median of 10 calls; a config that does not compile or fit is skipped, a wrong result ends the
run).  If torch._scaled_mm is missing, raises or is wrong, a WARNING line says so and its row is left
out; the others go on.  Then ROUNDS rounds, interleaved; each round draws fresh inputs and scales, fills
the output with NaN, runs each contestant once and checks every element against an f64 reference (the
products and sums of f8 values are exact in f64), within ATOL of the largest |Y| plus RTOL of the
element's own (exits on a miss), then times it: median of REPS calls between CUDA events, L2 flushed
before each.  Printed per problem: TFLOP/s (2MNK / time) median over the rounds, min, max, the ratio to
torch (to triton without torch's row), the ratios of tilec's median to the others', and each one's
largest error over the rounds.
"""
import os
import statistics
import sys
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="linear-f8-triton-"))
import torch  # noqa: E402
import triton  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import tilec  # noqa: E402
import triton_kernels as tk  # noqa: E402
from probe import bench  # noqa: E402
from ptx_ab import pick_config, print_rates  # noqa: E402

EX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dsl_examples")
REPS = 30
PROBLEMS = [(4096, 4096, 4096), (8192, 8192, 8192), (4095, 4000, 4160)]
# (BM, BN, BK, warps, stages) for tilec; (BM, BN, BK, GROUP_M, warps, stages) for Triton.  Shared memory
# per stage is (BM + BN) * BK bytes: 48 KiB at 128x256x128, so 4 stages fit the H100's 227 KiB.
TILEC_CONFIGS = [(128, 256, 128, 8, 4), (128, 256, 128, 8, 3), (256, 128, 128, 8, 3), (128, 128, 128, 8, 4),
                 (128, 128, 128, 4, 4), (64, 256, 128, 4, 4)]
TRITON_CONFIGS = [(128, 256, 128, 8, 8, 3), (128, 128, 128, 8, 8, 4), (128, 256, 64, 8, 8, 4),
                  (128, 128, 128, 8, 4, 4)]
TORCH = {"torch": False, "torch-fastacc": True}  # name -> use_fast_accum
# |Y - ref| <= ATOL * max|ref| + RTOL * |ref|.  f16 rounding is 2^-11 of each element; the rest is the
# fp8 accumulator.  Sums left in wgmma's (Triton's default on sm_90, use_fast_accum) keep about 14 bits:
# modelled as each k32 step's products and accumulator aligned to the largest and truncated to 13 bits,
# these inputs come out within 2e-3 of max|ref| at K = 8192; ATOL leaves a margin of 7 over that.  A wrong
# kernel misses by far more: one BK block of 32 lost is an error of sigma/sqrt(32) = 0.18 sigma on every
# element, where max|ref| is about 6 sigma at these sizes and ATOL under 0.1 sigma.
ATOL = 2.0 ** -6
RTOL = 2.0 ** -8


class Problem:
    def __init__(self, M, N, K):
        self.M, self.N, self.K = M, N, K
        self.y = torch.empty(M, N, device="cuda", dtype=torch.float16)
        self.worst = {}  # contestant -> largest |Y - ref| / max|ref| seen
        self.draw()

    def draw(self):
        """Fresh X, W (x4 and /4 of randn: W reaches e4m3's subnormals, X stays far below 448) and scales."""
        M, N, K = self.M, self.N, self.K
        self.x = (torch.randn(M, K, device="cuda") * 4).to(torch.float8_e4m3fn)
        self.w = (torch.randn(N, K, device="cuda") / 4).to(torch.float8_e4m3fn)
        self.sx = torch.rand(1, device="cuda") * 0.75 + 0.25
        self.sw = torch.rand(1, device="cuda") * 0.75 + 0.25
        self.ref = (self.x.double() @ self.w.double().t()) * self.sx.double() * self.sw.double()
        self.big = self.ref.abs().max().item()

    def check(self, name, fn, out=None):
        """Runs fn once into the NaN-poisoned Y (out None) or reads out() after it; None if every element
        is within tolerance, else what is off."""
        if out is None:
            self.y.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        got = (self.y if out is None else out()).double()
        err = (got - self.ref).abs()
        bad = ~(err <= ATOL * self.big + RTOL * self.ref.abs())  # NaN fails
        if bad.any():
            i = tuple(bad.nonzero()[0].tolist())
            return (f"{bad.sum().item()} of {bad.numel()} elements off, e.g. {list(i)}: {got[i].item()} vs "
                    f"{self.ref[i].item()} (tolerance {ATOL} * {self.big:.4g} + {RTOL} * |ref|)")
        self.worst[name] = max(self.worst.get(name, 0.0), err.max().item() / self.big)
        return None

    def check_or_exit(self, name, fn, out=None):
        msg = self.check(name, fn, out)
        if msg:
            sys.exit(f"{name} {self.M}x{self.N}x{self.K}: {msg}")


def warn(name, what):
    print(f"*** WARNING: {name} (torch._scaled_mm, torch {torch.__version__}): {what}; its row is left out",
          flush=True)


def first_line(e):
    return (str(e) or type(e).__name__).splitlines()[0][:200]


def tilec_run(p, cfg):
    bm, bn, bk, warps, stages = cfg
    k = tilec.Kernel.compile(os.path.join(EX, "linear_f8.tile"), "linear_f8",
                             defines={"BM": bm, "BN": bn, "BK": bk}, num_warps=warps, num_stages=stages,
                             arch=os.environ.get("TILEC_ARCH"))
    grid = triton.cdiv(p.M, bm) * triton.cdiv(p.N, bn)
    return lambda: k.launch(grid, p.y, p.x, p.w, p.sx, p.sw, p.M, p.N, p.K, p.K, p.K, p.N)


def triton_run(p, cfg):
    return lambda: tk.linear_f8(p.y, p.x, p.w, p.sx, p.sw, cfg)


def torch_run(p, fast, into_y):
    """(run, out): _scaled_mm into p.y (into_y; out None: the check poisons and reads p.y), else into the
    tensor it allocates (out() reads the last)."""
    if into_y:
        return (lambda: torch._scaled_mm(p.x, p.w.t(), scale_a=p.sx, scale_b=p.sw, out_dtype=torch.float16,
                                         use_fast_accum=fast, out=p.y)), None
    box = [None]

    def run():
        r = torch._scaled_mm(p.x, p.w.t(), scale_a=p.sx, scale_b=p.sw, out_dtype=torch.float16,
                             use_fast_accum=fast)
        box[0] = r[0] if isinstance(r, tuple) else r  # (out, amax) in older torch
    return run, lambda: box[0]


def torch_setup(p):
    """name -> into_y for each torch row that runs and checks (out= first, else torch's own output)."""
    if not hasattr(torch, "_scaled_mm"):
        for name in TORCH:
            warn(name, "torch has no _scaled_mm")
        return {}
    forms = {}
    for name, fast in TORCH.items():
        errors = []
        for into_y in (True, False):
            try:
                msg = p.check(name, *torch_run(p, fast, into_y))
            except Exception as e:  # noqa: BLE001 - any failure of torch's side is reported, not fatal
                errors.append(("out=Y: " if into_y else "") + first_line(e))
                continue
            if msg:
                warn(name, "wrong result: " + msg)
            else:
                forms[name] = into_y
                if errors:
                    print(f"{name}: out=Y not taken ({errors[0]}): timed into its own output")
            break
        else:
            warn(name, "raised: " + " | ".join(errors))
    return forms


def ratios(got):
    med = {k: statistics.median(v) for k, v in got.items()}
    return "ratios: " + ", ".join(f"tilec/{k} {med['tilec'] / med[k]:.3f}" for k in med if k != "tilec")


def one(M, N, K, rounds):
    p = Problem(M, N, K)
    rate = lambda ms: 2 * M * N * K / (ms * 1e-3) / 1e12  # noqa: E731
    tc = pick_config("tilec", TILEC_CONFIGS, lambda c: tilec_run(p, c), p.check_or_exit, rate, "TFLOP/s")
    trc = pick_config("triton", TRITON_CONFIGS, lambda c: triton_run(p, c), p.check_or_exit, rate, "TFLOP/s")
    forms = torch_setup(p)
    p.worst.clear()
    arch = os.environ.get("TILEC_ARCH") or "the JIT's default"
    print(f"linear_f8 {M}x{N}x{K} (e4m3 in, f16 out; tilec arch {arch}):"
          f" tilec {tc} (BM, BN, BK, warps, stages), Triton {trc} (BM, BN, BK, GROUP_M, warps, stages);"
          f" {rounds} rounds x {REPS} reps, fresh inputs each")
    got = {n: [] for n in ["tilec", "triton"] + list(forms)}
    for _ in range(rounds):
        p.draw()
        runs = {"tilec": (tilec_run(p, tc), None), "triton": (triton_run(p, trc), None)}
        runs.update({name: torch_run(p, TORCH[name], into_y) for name, into_y in forms.items()})
        for name, (fn, out) in list(runs.items()):
            if name in TORCH:
                try:
                    msg = p.check(name, fn, out)
                except Exception as e:  # noqa: BLE001
                    msg = "raised: " + first_line(e)
                if msg:
                    warn(name, msg)
                    for d in (runs, got, forms):
                        del d[name]
            else:
                p.check_or_exit(name, fn, out)
        for name, (fn, _) in runs.items():
            got[name].append(rate(bench(fn, 1, REPS)[0]))
    print_rates(got, "TFLOP/s", "torch" if "torch" in got else "triton", width=14)
    print(ratios(got))
    print("largest |Y - ref| / max|ref| over the rounds: "
          + ", ".join(f"{k} {p.worst[k]:.2e}" for k in got if k in p.worst))


def main():
    a = [int(v) for v in sys.argv[1:]]
    if len(a) in (3, 4):
        problems, rounds = [tuple(a[0:3])], (a[3] if len(a) == 4 else 5)
    elif len(a) <= 1:
        problems, rounds = PROBLEMS, (a[0] if a else 5)
    else:
        sys.exit("usage: linear_f8.py [ROUNDS] | linear_f8.py M N K [ROUNDS]")
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, triton {triton.__version__}")
    torch.manual_seed(0)
    for M, N, K in problems:
        one(M, N, K, rounds)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
