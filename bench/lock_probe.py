#!/usr/bin/env python3
"""lock_probe.py: where the locked layer-norm backward's time goes, tilec beside Triton.

    python3 bench/lock_probe.py [ROWS N [ROUNDS]]     # default: 4096x8192 and 16384x8192, 5 rounds

Times the dx kernel of 05-layer-norm.py's backward alone (one program per row, f16 partial sums
under spin locks; the locks zeroed inside every timed call, for all): Triton's
`_layer_norm_bwd_dx_fused` and tilec's `layernorm_backward_locked` at the tutorial's BLOCK, warps and
GROUP_SIZE_M.  Every PTX text is loaded with cuModuleLoadData and launched by this script (ptx_ab's
RawKernel), so the launch path is the same for all.  Variants are text edits of tilec's PTX, each a
question:

  tilec            tilec's PTX as the JIT builds it (sm_90a, n and stride multiples of 16)
  tilec.regN       with `.maxnreg N`: fewer registers, more programs per SM while others spin
  tilec.nobar      without the bar.sync before each atomic_cas of the spin (unsafe in general: it
                   orders the program's earlier memory accesses before the lock; here it measures
                   what that barrier costs)
  triton.ptx       Triton's PTX
  tilec.jit        tilec's JIT launcher (tilec.Kernel), as a reference
  triton           Triton's launcher, as a reference

Printed per variant: registers, programs per SM (cuOccupancyMaxActiveBlocksPerMultiprocessor), and
the dx kernel's GB/s (both PTX texts are written to $OUT) (x, dout, dx, w, mean, rstd, and the partial rows read and written once each),
median over the rounds, min, max, ratio to `triton`.  Each variant's dx and partial sums are checked
against an f64 reference first.
"""
import ctypes
import os
import re
import statistics
import subprocess
import sys
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="lock-probe-triton-"))
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import tilec  # noqa: E402
import triton_kernels as tk  # noqa: E402
from probe import OUT, bench  # noqa: E402
from layernorm_backward import draw_inputs  # noqa: E402
from ptx_ab import CLI, EX, RawKernel, cu, exit_unless_close  # noqa: E402

SRC = os.path.join(EX, "layernorm_backward.tile")
REPS = 50
TOL = 2.0 ** -9
TOL_W = 2.0 ** -6


def tilec_ptx(block, group, warps):
    base = [CLI, SRC, "--kernel", "layernorm_backward_locked", "-D", f"BLOCK={block}", "-D", f"GROUP={group}",
            "--num-warps", str(warps), "--arch", "sm_90a", "--hints", "n=16,stride=16", "-o", "-"]
    ptx = subprocess.run(base, check=True, capture_output=True, text=True).stdout
    ir = subprocess.run(base + ["--emit=gpu-ir"], check=True, capture_output=True, text=True).stdout
    return ptx, int(re.search(r"smem_total=(\d+)", ir).group(1))


def maxnreg(ptx, n):
    return re.sub(r"(\.entry\s+\w+\s*\([^)]*\))", rf"\1\n.maxnreg {n}", ptx, count=1)


def no_spin_barrier(ptx):
    """Drop each `bar.sync 0;` that a cas follows within six instructions."""
    lines, out = ptx.split("\n"), []
    for i, line in enumerate(lines):
        if line.strip() == "bar.sync \t0;" or re.fullmatch(r"\s*bar\.sync\s+0;", line):
            ahead = [x for x in lines[i + 1:i + 16] if not x.strip().startswith(".loc")][:6]
            if any(".cas." in x for x in ahead):
                continue
        out.append(line)
    return "\n".join(out)


def attr(fn, which):
    v = ctypes.c_int()
    cu.cuFuncGetAttribute(ctypes.byref(v), which, fn)
    return v.value


def occupancy(fn, threads, smem):
    v = ctypes.c_int()
    cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(ctypes.byref(v), fn, threads, ctypes.c_size_t(smem))
    return v.value


class Problem:
    def __init__(self, rows, n):
        self.rows, self.n = rows, n
        self.group = tk.layer_norm_bwd_group(n)
        self.block, self.warps = tk.layer_norm_config(n, 2)
        self.dx = torch.empty(rows, n, device="cuda", dtype=torch.float16)
        self.locks = torch.zeros(2 * self.group, device="cuda", dtype=torch.int32)
        self.part_dw, self.part_db = (torch.empty(self.group, n, device="cuda", dtype=torch.float16)
                                      for _ in range(2))
        draw_inputs(self)

    def nbytes(self):
        parts = min(self.group, self.rows) * self.n * 2 * 2
        return 3 * 2 * self.rows * self.n + 2 * self.n + 8 * self.rows + 2 * parts

    def check(self, name, fn):
        self.dx.fill_(float("nan"))
        self.part_dw.fill_(float("nan"))
        self.part_db.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        exit_unless_close(f"{name}: dx", self.dx, self.ref[0], TOL * self.ref[0].abs().max())
        for what, part, ref in (("dw", self.part_dw, self.ref[1]), ("db", self.part_db, self.ref[2])):
            got = part[:min(self.group, self.rows)].double().sum(0)
            exit_unless_close(f"{name}: {what}", got, ref, TOL_W * ref.abs().max())


def one(rows, n, rounds):
    p = Problem(rows, n)
    threads = 32 * p.warps
    tri = tk._layer_norm_bwd_dx_fused[(rows,)](p.dx, p.dy, p.part_dw, p.part_db, p.x, p.w, p.mean, p.rstd,
                                               p.locks, n, n, BLOCK_SIZE_N=p.block, GROUP_SIZE_M=p.group,
                                               num_warps=p.warps)
    runs = {}

    def zeroed(f):
        def run():
            p.locks.zero_()
            f()
        return run

    ptx, smem = tilec_ptx(p.block, p.group, p.warps)
    raws = {"tilec": RawKernel(ptx, smem, threads)}
    for r in (128, 96, 80):
        raws[f"tilec.reg{r}"] = RawKernel(maxnreg(ptx, r), smem, threads)
    nobar = no_spin_barrier(ptx)
    dropped = ptx.count("bar.sync") - nobar.count("bar.sync")
    raws["tilec.nobar"] = RawKernel(nobar, smem, threads)
    raws["triton.ptx"] = RawKernel(tri.asm["ptx"], tri.metadata.shared, threads)
    for side, text in (("tilec", ptx), ("triton", tri.asm["ptx"])):
        with open(os.path.join(OUT, f"lock_probe_{side}_{rows}x{n}.ptx"), "w") as f:
            f.write(text)
    for name, k in raws.items():
        if name.startswith("triton"):
            args = (p.dx, p.dy, p.part_dw, p.part_db, p.x, p.w, p.mean, p.rstd, p.locks, n, n)
        else:
            args = (p.dx, p.part_dw, p.part_db, p.locks, p.dy, p.x, p.w, p.mean, p.rstd, n, n)
        runs[name] = (k, zeroed(lambda k=k, args=args: k.launch(rows, *args)))
    jit = tilec.Kernel.compile(SRC, "layernorm_backward_locked", defines={"BLOCK": p.block, "GROUP": p.group},
                               num_warps=p.warps)
    runs["tilec.jit"] = (None, zeroed(lambda: jit.launch(rows, p.dx, p.part_dw, p.part_db, p.locks, p.dy, p.x,
                                                         p.w, p.mean, p.rstd, n, n)))
    runs["triton"] = (None, zeroed(lambda: tk._layer_norm_bwd_dx_fused[(rows,)](
        p.dx, p.dy, p.part_dw, p.part_db, p.x, p.w, p.mean, p.rstd, p.locks, n, n, BLOCK_SIZE_N=p.block,
        GROUP_SIZE_M=p.group, num_warps=p.warps)))
    for name, (_, f) in runs.items():
        p.check(name, f)
    print(f"locked layer-norm backward, dx kernel, f16 rows={rows} n={n}: BLOCK {p.block}, {p.warps} warps, "
          f"GROUP {p.group}; {rounds} rounds x {REPS} reps; tilec.nobar dropped {dropped} bar.sync; "
          f"Triton: {tri.n_regs} registers, {tri.n_spills} spills, {tri.metadata.shared} B shared")
    got = {name: [] for name in runs}
    for _ in range(rounds):
        for name, (_, f) in runs.items():
            got[name].append(bench(f, p.nbytes(), REPS)[1])
    base = statistics.median(got["triton"])
    print(f"  {'variant':<13} {'regs':>5} {'per SM':>6} {'GB/s':>7} {'min':>7} {'max':>7} {'/triton':>8}")
    for name, (k, _) in runs.items():
        regs = attr(k.fn, 4) if k else (tri.n_regs if name == "triton" else "")
        per_sm = occupancy(k.fn, threads, k.smem) if k else ""
        med = statistics.median(got[name])
        print(f"  {name:<13} {regs!s:>5} {per_sm!s:>6} {med:7.0f} {min(got[name]):7.0f} {max(got[name]):7.0f} "
              f"{med / base:8.2f}", flush=True)


def main():
    args = sys.argv[1:]
    shapes = [(int(args[0]), int(args[1]))] if len(args) >= 2 else [(4096, 8192), (16384, 8192)]
    rounds = int(args[2]) if len(args) >= 3 else 5
    for rows, n in shapes:
        one(rows, n, rounds)


if __name__ == "__main__":
    main()
