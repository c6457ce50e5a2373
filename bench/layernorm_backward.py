"""layernorm_backward.py: the layer-norm backward of dsl_examples/layernorm_backward.tile, tilec against
Triton and torch, in one process.

    python3 bench/layernorm_backward.py [ROWS N [ROUNDS]]      # default: four shapes, 5 rounds

Given dout, x, w (f16, [rows, n]) and the forward's mean and rstd (f32, from torch's native_layer_norm),
each contestant computes dx (f16), dw and db (f16).  Contestants:

  tilec           the JIT (tilec.Kernel): layernorm_backward_dx on `programs` programs that walk the rows,
                  each keeping its share of dw and db in registers, then layernorm_backward_dwdb
  tilec-stages1   the same at tilec's config with the row loop's num_stages=2 made 1: no loads of the
                  next row while this one is worked on (what the keyword buys)
  triton-same     the same two kernels in Triton, line for line (triton_kernels.layer_norm_bwd_same_*:
                  tl.range(..., num_stages=2))
  triton-stages1  the same at triton-same's config with num_stages=1
  triton-tutorial 05-layer-norm.py's backward as written there: one program per row, partial sums into
                  GROUP_SIZE_M rows of f16 under spin locks (zeroed on every call, as there), then the
                  column sums (triton_kernels.layer_norm_bwd)
  tilec-tutorial  layernorm_backward_locked, the tutorial's dx kernel in tilec line for line (f16 partial
                  rows, the same GROUP_SIZE_M and warps; locks zeroed on every call), then
                  layernorm_backward_dwdb_f16 over the GROUP_SIZE_M rows with tilec's column-sum shape
  torch           torch.ops.aten.native_layer_norm_backward (what autograd calls for F.layer_norm)

tilec and triton-same each take the fastest of CONFIGS (programs per SM, warps of the dx kernel), then
of DWDB_CONFIGS (the column sums' tile) with it: every config checked, then timed (median of 10 calls).  Then ROUNDS rounds; each draws fresh inputs, fills
dx, dw, db with NaN, runs each contestant once and checks every element against an f64 reference (dx
within TOL of its largest magnitude, dw and db within TOL_W of theirs: the tutorial sums in f16), then
times it: median of REPS calls between CUDA events, L2 flushed before each.  GB/s counts what any
backward must move: x, dout, dx (2 bytes each per element), w, dw, db (2 bytes per column), mean and rstd
(4 bytes per row).  Printed: GB/s median over the rounds, min, max, ratio to torch; each kernel's time.
"""
import os
import statistics
import sys
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="layernorm-bwd-triton-"))
import torch  # noqa: E402
import triton  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import tilec  # noqa: E402
import triton_kernels as tk  # noqa: E402
from probe import bench  # noqa: E402
from ptx_ab import exit_unless_close, pick_config, print_rates, row_loop_source, rows_main  # noqa: E402

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dsl_examples", "layernorm_backward.tile")
SHAPES = [(4096, 1024), (4096, 4096), (4096, 8192), (16384, 8192)]
CONFIGS = [(1, 4), (1, 8), (1, 16), (2, 4), (2, 8), (2, 16), (4, 4), (4, 8), (8, 4)]  # (programs per SM, warps)
DWDB_CONFIGS = [(128, 32), (64, 64), (32, 128), (128, 16), (256, 16), (256, 8)]  # (BLOCK_P, BLOCK_N), column sums
REPS = 50
TOL = 2.0 ** -9     # dx: f16 output (2^-11) and f32 sums
TOL_W = 2.0 ** -6   # dw, db: the tutorial rounds its partial sums to f16 on every add


def draw_inputs(p):
    """Fresh inputs into p (rows, n): x, dy, w, b in f16 as the tutorial's, the forward's mean and rstd, and
    p.ref, the f64 dx, dw and db."""
    rows, n = p.rows, p.n
    p.x = (-2.3 + 0.5 * torch.randn(rows, n, device="cuda")).half()
    p.dy = (0.1 * torch.randn(rows, n, device="cuda")).half()
    p.w = torch.rand(n, device="cuda").half()
    p.b = torch.rand(n, device="cuda").half()
    _, mean, rstd = torch.ops.aten.native_layer_norm(p.x, [n], p.w, p.b, 1e-5)
    p.mean, p.rstd = mean.view(rows).contiguous(), rstd.view(rows).contiguous()
    x, dy, w = p.x.double(), p.dy.double(), p.w.double()
    xhat = (x - p.mean.double()[:, None]) * p.rstd.double()[:, None]
    g = w * dy
    c1 = (xhat * g).sum(1, keepdim=True) / n
    c2 = g.sum(1, keepdim=True) / n
    p.ref = ((g - (xhat * c1 + c2)) * p.rstd.double()[:, None], (dy * xhat).sum(0), dy.sum(0))
    del x, dy, w, xhat, g
    torch.cuda.synchronize()


class Problem:
    def __init__(self, rows, n):
        self.rows, self.n = rows, n
        self.sms = torch.cuda.get_device_properties(0).multi_processor_count
        self.dx = torch.empty(rows, n, device="cuda", dtype=torch.float16)
        self.dw, self.db = (torch.empty(n, device="cuda", dtype=torch.float16) for _ in range(2))
        most = max(c[0] for c in CONFIGS) * self.sms
        self.part_dw, self.part_db = (torch.empty(most, n, device="cuda", dtype=torch.float32) for _ in range(2))
        group = tk.layer_norm_bwd_group(n)
        self.locks = torch.zeros(2 * group, device="cuda", dtype=torch.int32)
        self.tut_dw, self.tut_db = (torch.empty(group, n, device="cuda", dtype=torch.float16) for _ in range(2))
        self.group = group
        self.block = triton.next_power_of_2(n)
        self.draw()

    def draw(self):
        draw_inputs(self)

    def check(self, name, fn, out=None):
        for t in (self.dx, self.dw, self.db):
            t.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        got = out() if out else (self.dx, self.dw, self.db)
        for what, g, ref, tol in zip(("dx", "dw", "db"), got, self.ref, (TOL, TOL_W, TOL_W)):
            exit_unless_close(f"{name}: {what}", g, ref, tol * ref.abs().max())

    def nbytes(self):
        return 3 * 2 * self.rows * self.n + 3 * 2 * self.n + 8 * self.rows


def tilec_kernels(p, cfg, dwdb=DWDB_CONFIGS[0], stages=2):
    dx = tilec.Kernel.compile(row_loop_source(SRC, stages), "layernorm_backward_dx", defines={"BLOCK": p.block},
                              num_warps=cfg[1])
    sums = tilec.Kernel.compile(SRC, "layernorm_backward_dwdb", defines={"BLOCK_P": dwdb[0], "BLOCK_N": dwdb[1]},
                                num_warps=4)
    return dx, sums


def tilec_steps(p, ks, cfg, dwdb=DWDB_CONFIGS[0]):
    """The two launches, apart."""
    programs = cfg[0] * p.sms
    return [lambda: ks[0].launch(programs, p.dx, p.part_dw, p.part_db, p.dy, p.x, p.w, p.mean, p.rstd, p.rows,
                                 p.n, p.n),
            lambda: ks[1].launch(triton.cdiv(p.n, dwdb[1]), p.dw, p.db, p.part_dw, p.part_db, programs, p.n)]


def triton_steps(p, cfg, dwdb=DWDB_CONFIGS[0], stages=2):
    programs = cfg[0] * p.sms
    return [lambda: tk.layer_norm_bwd_same_dx(p.dy, p.x, p.w, p.mean, p.rstd, p.dx, p.part_dw, p.part_db,
                                              (programs, cfg[1]), stages),
            lambda: tk.layer_norm_bwd_same_dwdb(p.dw, p.db, p.part_dw, p.part_db, programs, dwdb)]


def both(steps):
    return lambda: [f() for f in steps]


def triton_tutorial(p):
    return lambda: tk.layer_norm_bwd(p.dy, p.x, p.w, p.mean, p.rstd, p.dx, p.dw, p.db, p.locks, p.tut_dw,
                                     p.tut_db)


def tilec_tutorial(p, dwdb=DWDB_CONFIGS[0]):
    """layernorm_backward_locked at the tutorial's (BLOCK, warps), then the column sums of its GROUP rows."""
    block, warps = tk.layer_norm_config(p.n, 2)
    dx = tilec.Kernel.compile(SRC, "layernorm_backward_locked", defines={"BLOCK": block, "GROUP": p.group},
                              num_warps=warps)
    sums = tilec.Kernel.compile(SRC, "layernorm_backward_dwdb_f16",
                                defines={"BLOCK_P": dwdb[0], "BLOCK_N": dwdb[1]}, num_warps=4)
    parts = min(p.group, p.rows)

    def run():
        p.locks.zero_()
        dx.launch(p.rows, p.dx, p.tut_dw, p.tut_db, p.locks, p.dy, p.x, p.w, p.mean, p.rstd, p.n, p.n)
        sums.launch(triton.cdiv(p.n, dwdb[1]), p.dw, p.db, p.tut_dw, p.tut_db, parts, p.n)
    return run


def torch_aten(p):
    box = [None]
    mean, rstd = p.mean.view(p.rows, 1), p.rstd.view(p.rows, 1)

    def run():
        box[0] = torch.ops.aten.native_layer_norm_backward(p.dy, p.x, [p.n], mean, rstd, p.w, p.b,
                                                           [True, True, True])
    return run, lambda: box[0]


def one(rows, n, rounds):
    p = Problem(rows, n)
    gbs = lambda ms: p.nbytes() / (ms * 1e-3) / 1e9  # noqa: E731
    # the dx kernel's config with the first column-sum shape, then the column sums' shape with that config
    t_cfg = pick_config("tilec", CONFIGS, lambda c: both(tilec_steps(p, tilec_kernels(p, c), c)), p.check, gbs,
                        "GB/s")
    t_sum = pick_config("tilec", DWDB_CONFIGS,
                        lambda d: both(tilec_steps(p, tilec_kernels(p, t_cfg, d), t_cfg, d)), p.check, gbs, "GB/s")
    s_cfg = pick_config("triton-same", CONFIGS, lambda c: both(triton_steps(p, c)), p.check, gbs, "GB/s")
    s_sum = pick_config("triton-same", DWDB_CONFIGS, lambda d: both(triton_steps(p, s_cfg, d)), p.check, gbs,
                        "GB/s")
    print(f"layernorm backward f16 rows={rows} n={n}: tilec {t_cfg} {t_sum}, triton-same {s_cfg} {s_sum} "
          f"((programs per SM, warps) (BLOCK_P, BLOCK_N)); {rounds} rounds x {REPS} reps, fresh inputs each")
    ks = tilec_kernels(p, t_cfg, t_sum)
    k1 = tilec_kernels(p, t_cfg, t_sum, stages=1)
    tut = tilec_tutorial(p, t_sum)
    got = {name: [] for name in ("tilec", "tilec-stages1", "triton-same", "triton-stages1", "triton-tutorial",
                                 "tilec-tutorial", "torch")}
    parts = {name: [] for name in ("tilec dx", "tilec dwdb", "tilec-stages1 dx", "triton-same dx",
                                   "triton-same dwdb", "triton-stages1 dx")}
    for _ in range(rounds):
        p.draw()
        t_run, t_out = torch_aten(p)
        steps = {"tilec": tilec_steps(p, ks, t_cfg, t_sum), "tilec-stages1": tilec_steps(p, k1, t_cfg, t_sum),
                 "triton-same": triton_steps(p, s_cfg, s_sum), "triton-stages1": triton_steps(p, s_cfg, s_sum, 1)}
        runs = {name: (both(s), None) for name, s in steps.items()}
        runs["triton-tutorial"] = (triton_tutorial(p), None)
        runs["tilec-tutorial"] = (tut, None)
        runs["torch"] = (t_run, t_out)
        for name, (fn, out) in runs.items():
            p.check(name, fn, out)
        for name, (fn, _) in runs.items():
            got[name].append(bench(fn, p.nbytes(), REPS)[1])
        for name, s in steps.items():
            for part, f in zip(("dx", "dwdb"), s):
                if f"{name} {part}" in parts:  # the stages1 variants' column sums are the same kernels
                    parts[f"{name} {part}"].append(bench(f, 1, REPS)[0] * 1e3)
    print_rates(got, "GB/s", "torch")
    print("per kernel, us (median over the rounds): "
          + ", ".join(f"{k} {statistics.median(v):.1f}" for k, v in parts.items()))


def main():
    rows_main(one, SHAPES)


if __name__ == "__main__":
    main()
