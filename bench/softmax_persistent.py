"""softmax_persistent.py: dsl_examples/softmax.tile's two kernels against Triton's and torch's softmax, in
one process.

    python3 bench/softmax_persistent.py [ROWS N [ROUNDS]]      # default: bench.py's four shapes, 5 rounds

Each contestant computes softmax over the rows of an f32 [rows, n] matrix.  Contestants:

  tilec-persistent  the JIT (tilec.Kernel): softmax_persistent on `programs` programs that walk the rows,
                    the next row loaded while this one is worked on (range(..., num_stages=2))
  tilec-stages1     the same at tilec-persistent's config with num_stages=1 (what the keyword buys)
  tilec             softmax, one program per row, at the Triton tutorial's warps (bench.py's figure)
  triton-same       softmax_persistent in Triton, line for line (tl.range(..., num_stages=2);
                    triton_kernels.softmax_persistent_same)
  triton-stages1    the same at triton-same's config with num_stages=1
  triton-tutorial   02-fused-softmax.py as it stands: the same persistent loop with the tutorial's
                    host code (8 warps, num_stages 4 on an H100, programs from the kernel's occupancy)
  triton            the one-row-per-program kernel (bench.py's figure)
  torch             torch.softmax(x, dim=-1)

tilec-persistent and triton-same each take the fastest of CONFIGS (programs per SM, warps): every config
checked, then timed (median of 10 calls).  Then ROUNDS rounds; each draws fresh inputs, fills the output
with NaN, runs each contestant once and checks every element against an f64 reference, then times it:
median of REPS calls between CUDA events, L2 flushed before each.  GB/s counts a read and a write of
every element.  Printed: GB/s median over the rounds, min, max, ratio to torch, then tilec's ratios to
Triton's.
"""
import os
import statistics
import sys
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="softmax-persistent-triton-"))
import torch  # noqa: E402
import triton  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import tilec  # noqa: E402
import triton_kernels as tk  # noqa: E402
from ptx_ab import fresh_rounds, pick_config, print_rates, row_loop_source, rows_main  # noqa: E402

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dsl_examples", "softmax.tile")
SHAPES = [(4096, 1024), (4096, 4096), (4096, 16384), (16384, 8192)]
# (programs per SM, warps): at most 2048 threads an SM
CONFIGS = [(1, 4), (1, 8), (1, 16), (2, 4), (2, 8), (2, 16), (4, 4), (4, 8), (4, 16), (8, 4), (8, 8), (16, 4)]
REPS = 50
TOL = 1e-5          # relative to the row's largest value: f32 exp and sums


class Problem:
    def __init__(self, rows, n):
        self.rows, self.n = rows, n
        self.sms = torch.cuda.get_device_properties(0).multi_processor_count
        self.out = torch.empty(rows, n, device="cuda")
        self.block = triton.next_power_of_2(n)
        self.draw()

    def draw(self):
        self.x = 4 * torch.randn(self.rows, self.n, device="cuda")
        ref = torch.softmax(self.x.double(), dim=-1)
        self.ref, self.atol = ref, TOL * ref.abs().amax(dim=-1, keepdim=True)
        torch.cuda.synchronize()

    def check(self, name, fn, out=None):
        self.out.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        got = out() if out else self.out
        bad = ~((got.double() - self.ref).abs() <= self.atol)
        if bad.any():
            i = tuple(bad.nonzero()[0].tolist())
            sys.exit(f"{name}: {bad.sum().item()} elements off, e.g. {list(i)}: {got[i].item()} vs "
                     f"{self.ref[i].item()}")

    def nbytes(self):
        return 2 * 4 * self.rows * self.n


def tilec_persistent(p, cfg, stages=2):
    k = tilec.Kernel.compile(row_loop_source(SRC, stages), "softmax_persistent", defines={"BLOCK": p.block},
                             num_warps=cfg[1])
    programs = cfg[0] * p.sms
    return lambda: k.launch(programs, p.out, p.x, p.rows, p.n, p.n)


def tilec_rows(p):
    block, warps = tk.softmax_config(p.n)
    k = tilec.Kernel.compile(SRC, "softmax", defines={"BLOCK": block}, num_warps=warps)
    return lambda: k.launch(p.rows, p.out, p.x, p.n, p.n)


def triton_same(p, cfg, stages=2):
    return lambda: tk.softmax_persistent_same(p.x, p.out, (cfg[0] * p.sms, cfg[1]), stages)


def torch_softmax(p):
    box = [None]

    def run():
        box[0] = torch.softmax(p.x, dim=-1)
    return run, lambda: box[0]


def one(rows, n, rounds):
    p = Problem(rows, n)
    gbs = lambda ms: p.nbytes() / (ms * 1e-3) / 1e9  # noqa: E731
    t_cfg = pick_config("tilec-persistent", CONFIGS, lambda c: tilec_persistent(p, c), p.check, gbs, "GB/s")
    s_cfg = pick_config("triton-same", CONFIGS, lambda c: triton_same(p, c), p.check, gbs, "GB/s")
    print(f"softmax f32 rows={rows} n={n}: tilec-persistent {t_cfg}, triton-same {s_cfg} (programs per SM, "
          f"warps); {rounds} rounds x {REPS} reps, fresh inputs each")
    runs = {"tilec-persistent": tilec_persistent(p, t_cfg), "tilec-stages1": tilec_persistent(p, t_cfg, 1),
            "tilec": tilec_rows(p), "triton-same": triton_same(p, s_cfg),
            "triton-stages1": triton_same(p, s_cfg, 1), "triton-tutorial": lambda: tk.softmax_tutorial(p.x, p.out),
            "triton": lambda: tk.softmax(p.x, p.out)}
    runs = {name: (fn, None) for name, fn in runs.items()}
    got = fresh_rounds(p, runs, lambda: {"torch": torch_softmax(p)}, rounds, REPS)
    print_rates(got, "GB/s", "torch")
    med = {k: statistics.median(v) for k, v in got.items()}
    print("ratios: " + ", ".join(f"{a}/{b} {med[a] / med[b]:.3f}" for a, b in (
        ("tilec-persistent", "triton-same"), ("tilec-persistent", "triton-tutorial"),
        ("tilec-persistent", "triton"), ("tilec", "triton"))))


def main():
    rows_main(one, SHAPES)


if __name__ == "__main__":
    main()
