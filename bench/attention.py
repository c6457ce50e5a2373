"""attention.py: the flash-attention forward pass of dsl_examples/attention.tile (or, with `causal`,
attention_causal.tile), tilec against the same kernel in Triton and against torch's
scaled_dot_product_attention, in one process.

    python3 bench/attention.py [BH N D [ROUNDS]] [causal]      # default 32 4096 64 5

O = softmax(Q K^T / sqrt(D)) V over BH (batch x heads) independent [N, D] f16 problems, Q, K, V and O
contiguous [BH, N, D]; causal: key j weighs only for queries i >= j.  Contestants:

  tilec         the JIT (tilec.Kernel; sm_90a on an H100: both products on wgmma; TILEC_ARCH=sm_90
                compiles for the ldmatrix + mma.sync path instead)
  triton        bench/triton_kernels.py's attention_kernel with the same source as tilec's kernel: one
                loop, every key block masked (VARIANT 0); causal: the blocks left of the diagonal, then the
                diagonal ones masked (VARIANT 2, as 06-fused-attention's stages)
  triton-split  (not causal) the same with the full key blocks unmasked and the partial one masked,
                written by hand (VARIANT 1): what tilec's tail pass does to the one-loop source
  torch-sdpa    torch.nn.functional.scaled_dot_product_attention (is_causal), whichever backend torch picks

tilec and Triton each take the fastest of a short config list (BM, BN, warps, stages; every config
checked, then timed: median of 10 calls; a config that does not compile or fit is skipped, a wrong result
ends the run).  Then ROUNDS rounds, interleaved; each round draws fresh inputs, fills the outputs with NaN,
runs each contestant once and checks every element against an f64 reference (within TOL of the largest
output: P is rounded to f16 before the second product, as all do), then times it: median of REPS calls
between CUDA events, L2 flushed before each.  Printed: TFLOP/s (4 BH N^2 D / time, half that causal)
median over the rounds, min, max, and the ratio to torch.
"""
import os
import sys
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="attention-triton-"))
import torch  # noqa: E402
import triton  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import tilec  # noqa: E402
import triton_kernels as tk  # noqa: E402
from probe import bench  # noqa: E402
from ptx_ab import exit_unless_close, pick_config, print_rates  # noqa: E402

EX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dsl_examples")
REPS = 30
# (BM, BN, warps, stages), both sides
TILEC_CONFIGS = [(128, 64, 4, 3), (128, 64, 4, 4), (128, 64, 4, 5), (128, 64, 8, 3), (128, 64, 8, 4),
                 (64, 64, 4, 3), (64, 64, 4, 4), (128, 128, 8, 4)]
TRITON_CONFIGS = [(128, 64, 4, 3), (128, 64, 4, 4), (128, 64, 8, 3), (128, 64, 8, 4), (64, 64, 4, 3),
                  (64, 64, 4, 4), (128, 128, 8, 3), (128, 128, 8, 4)]
TOL = 2.0 ** -8  # of the largest |O|: f16 P and O (2^-11 each), ex2.approx, f32 sums in any order


class Problem:
    def __init__(self, bh, n, d, causal):
        self.bh, self.n, self.d, self.causal = bh, n, d, causal
        self.scale = 1.0 / d ** 0.5
        self.o = torch.empty(bh, n, d, device="cuda", dtype=torch.float16)
        self.draw()

    def draw(self):
        bh, n, d = self.bh, self.n, self.d
        self.q, self.k, self.v = (torch.randn(bh, n, d, device="cuda", dtype=torch.float16) for _ in range(3))
        self.ref = torch.empty(bh, n, d, device="cuda", dtype=torch.float64)
        step = max(1, (1 << 28) // (n * n))  # heads per chunk: at most 2 GiB of f64 scores
        for h in range(0, bh, step):
            q, k, v = (t[h:h + step].double() for t in (self.q, self.k, self.v))
            s = q @ k.transpose(1, 2) * self.scale
            if self.causal:
                s.masked_fill_(torch.ones(n, n, dtype=torch.bool, device="cuda").triu(1), float("-inf"))
            self.ref[h:h + step] = torch.softmax(s, -1) @ v

    def check(self, name, fn, out=None):
        if out is None:
            self.o.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        got = self.o if out is None else out()
        exit_unless_close(name, got, self.ref, TOL * self.ref.abs().max())


def tilec_run(p, cfg):
    bm, bn, warps, stages = cfg
    name = "attention_causal" if p.causal else "attention"
    k = tilec.Kernel.compile(os.path.join(EX, name + ".tile"), name,
                             defines={"BM": bm, "BN": bn, "D": p.d}, num_warps=warps, num_stages=stages,
                             arch=os.environ.get("TILEC_ARCH"))
    grid = (triton.cdiv(p.n, bm), p.bh)
    return lambda: k.launch(grid, p.o, p.q, p.k, p.v, p.n, p.scale, p.n * p.d, p.d)


def triton_run(p, cfg, variant):
    return lambda: tk.attention(p.o, p.q, p.k, p.v, p.scale, cfg, variant)


def torch_sdpa(p):
    box = [None]

    def run():
        box[0] = torch.nn.functional.scaled_dot_product_attention(p.q[None], p.k[None], p.v[None],
                                                                  is_causal=p.causal)[0]
    return run, lambda: box[0]


def main():
    causal = "causal" in sys.argv[1:]
    a = [int(v) for v in sys.argv[1:] if v != "causal"]
    bh, n, d = a[0:3] if len(a) >= 3 else (32, 4096, 64)
    rounds = a[3] if len(a) > 3 else 5
    torch.manual_seed(0)
    p = Problem(bh, n, d, causal)
    rate = lambda ms: (2 if causal else 4) * bh * n * n * d / (ms * 1e-3) / 1e12  # noqa: E731
    variants = {"triton": 2} if causal else {"triton": 0, "triton-split": 1}
    cfgs = {"tilec": pick_config("tilec", TILEC_CONFIGS, lambda c: tilec_run(p, c), p.check, rate, "TFLOP/s")}
    for name, var in variants.items():
        cfgs[name] = pick_config(name, TRITON_CONFIGS, lambda c, var=var: triton_run(p, c, var), p.check, rate,
                                 "TFLOP/s")
    print(f"attention{' causal' if causal else ''} f16 bh={bh} n={n} d={d}: "
          + ", ".join(f"{k} {c}" for k, c in cfgs.items())
          + f" (BM, BN, warps, stages); {rounds} rounds x {REPS} reps, fresh inputs each")
    got = {name: [] for name in list(cfgs) + ["torch-sdpa"]}
    for _ in range(rounds):
        p.draw()
        ts, out = torch_sdpa(p)
        runs = {"tilec": tilec_run(p, cfgs["tilec"])}
        runs.update({name: triton_run(p, cfgs[name], var) for name, var in variants.items()})
        runs["torch-sdpa"] = ts
        for name, fn in runs.items():
            p.check(name, fn, out if name == "torch-sdpa" else None)
        for name, fn in runs.items():
            got[name].append(rate(bench(fn, 1, REPS)[0]))
    print_rates(got, "TFLOP/s", "torch-sdpa", width=13)


if __name__ == "__main__":
    main()
