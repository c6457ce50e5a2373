"""attention_backward.py: the flash-attention backward pass of dsl_examples/attention_backward.tile,
tilec against the same kernels in Triton and against torch's scaled_dot_product_attention backward, in
one process.

    python3 bench/attention_backward.py [BH N D [ROUNDS]]      # default 32 4096 64 5

Given Q, K, V, dO (f16, contiguous [BH, N, D]) and the forward's row log-sum-exp, the backward is
delta = rowsum(O * dO), then dK and dV (one program per BN keys, walking the queries), then dQ (one
program per BM queries, walking the keys).  Contestants:

  tilec       the JIT (tilec.Kernel; sm_90a on an H100: every product on wgmma; TILEC_ARCH=sm_90
              compiles for the ldmatrix + mma.sync path instead): attention_bwd_pre,
              attention_bwd_dkdv, attention_bwd_dq
  triton      bench/triton_kernels.py's attention_bwd_* kernels, the same source line for line
  torch-sdpa  torch.autograd.grad of scaled_dot_product_attention (whichever backend torch picks; its
              own preprocessing included)

The backward of tilec and Triton reads O and lse from tilec's attention_fwd, run once per round, untimed.
Each of the two main kernels takes, on each side, the fastest of a short config list (BM, BN, warps,
stages; every config checked, then timed: median of 10 calls, printed as TFLOP/s of that kernel's own
products, four N x N x D per head for dK/dV, three for dQ; a config that does not compile or fit is
skipped, a wrong result ends the run).  Then ROUNDS rounds, interleaved; each round draws fresh inputs,
fills dQ, dK, dV with NaN, runs each contestant once and checks every element against an f64 reference
(within TOL of each gradient's largest magnitude), then times it: median of REPS calls between CUDA
events, L2 flushed before each.  Printed: TFLOP/s (10 BH N^2 D / time: the five N x N x D products,
as 06-fused-attention counts the backward) median over the rounds, min, max, and the ratio to torch;
and each kernel's time.
"""
import os
import statistics
import sys
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="attention-bwd-triton-"))
import torch  # noqa: E402
import triton  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import tilec  # noqa: E402
import triton_kernels as tk  # noqa: E402
from probe import bench  # noqa: E402
from ptx_ab import exit_unless_close, pick_config, print_rates  # noqa: E402

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dsl_examples", "attention_backward.tile")
REPS = 30
# (BM, BN, warps, stages), both sides, for each kernel
CONFIGS = [(32, 64, 4, 2), (32, 64, 4, 3), (32, 64, 4, 4), (64, 64, 4, 2), (64, 64, 4, 3), (64, 64, 4, 4),
           (32, 128, 8, 3), (64, 128, 8, 3), (128, 64, 8, 2), (128, 64, 8, 3), (128, 128, 8, 3)]
TOL = 2.0 ** -7  # of each gradient's largest magnitude: f16 P and dS (2^-11 each), ex2.approx, f32 sums


class Problem:
    def __init__(self, bh, n, d):
        self.bh, self.n, self.d = bh, n, d
        self.scale = 1.0 / d ** 0.5
        shape = (bh, n, d)
        self.o = torch.empty(shape, device="cuda", dtype=torch.float16)
        self.lse = torch.empty(bh, n, device="cuda", dtype=torch.float32)
        self.delta = torch.empty(bh, n, device="cuda", dtype=torch.float32)
        self.dq, self.dk, self.dv = (torch.empty(shape, device="cuda", dtype=torch.float16) for _ in range(3))
        self.fwd = tilec.Kernel.compile(SRC, "attention_fwd", defines={"BM": 128, "BN": 64, "D": d}, num_warps=8,
                                        num_stages=3)
        self.pre = tilec.Kernel.compile(SRC, "attention_bwd_pre", defines={"BM": 128, "D": d}, num_warps=4)
        self.draw()

    def draw(self):
        bh, n, d = self.bh, self.n, self.d
        self.q, self.k, self.v, self.do = (torch.randn(bh, n, d, device="cuda", dtype=torch.float16)
                                           for _ in range(4))
        self.fwd.launch((triton.cdiv(n, 128), bh), self.o, self.lse, self.q, self.k, self.v, n, self.scale, n * d, d)
        self.ref = [torch.empty(bh, n, d, device="cuda", dtype=torch.float64) for _ in range(3)]
        step = max(1, (1 << 27) // (n * n))  # heads per chunk: at most 1 GiB of f64 per n x n matrix
        for h in range(0, bh, step):
            q, k, v, do = (t[h:h + step].double() for t in (self.q, self.k, self.v, self.do))
            p = torch.softmax(q @ k.transpose(1, 2) * self.scale, -1)
            dp = do @ v.transpose(1, 2)
            ds = p * (dp - (p * dp).sum(-1, keepdim=True))
            self.ref[0][h:h + step] = ds @ k * self.scale
            self.ref[1][h:h + step] = ds.transpose(1, 2) @ q * self.scale
            self.ref[2][h:h + step] = p.transpose(1, 2) @ do
            del p, dp, ds
        torch.cuda.synchronize()

    def check(self, name, fn, which=(0, 1, 2), out=None):
        outs = (self.dq, self.dk, self.dv)
        if out is None:
            for i in which:
                outs[i].fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        got = outs if out is None else out()
        for i in which:
            ref = self.ref[i]
            exit_unless_close(f"{name}: {'dq dk dv'.split()[i]}", got[i], ref, TOL * ref.abs().max())


def tilec_kernels(p, cfg):
    bm, bn, warps, stages = cfg
    defs = {"BM": bm, "BN": bn, "D": p.d}
    return [tilec.Kernel.compile(SRC, name, defines=defs, num_warps=warps, num_stages=stages,
                                 arch=os.environ.get("TILEC_ARCH"))
            for name in ("attention_bwd_dkdv", "attention_bwd_dq")]


def tilec_pre(p):
    return lambda: p.pre.launch((triton.cdiv(p.n, 128), p.bh), p.delta, p.o, p.do, p.n, p.n * p.d, p.d)


def tilec_dkdv(p, k, cfg):
    return lambda: k.launch((triton.cdiv(p.n, cfg[1]), p.bh), p.dk, p.dv, p.q, p.k, p.v, p.do, p.lse, p.delta,
                            p.n, p.scale, p.n * p.d, p.d)


def tilec_dq(p, k, cfg):
    return lambda: k.launch((triton.cdiv(p.n, cfg[0]), p.bh), p.dq, p.q, p.k, p.v, p.do, p.lse, p.delta,
                            p.n, p.scale, p.n * p.d, p.d)


def triton_pre(p):
    return lambda: tk.attention_bwd_pre(p.delta, p.o, p.do)


def triton_dkdv(p, cfg):
    return lambda: tk.attention_bwd_dkdv(p.dk, p.dv, p.q, p.k, p.v, p.do, p.lse, p.delta, p.scale, cfg)


def triton_dq(p, cfg):
    return lambda: tk.attention_bwd_dq(p.dq, p.q, p.k, p.v, p.do, p.lse, p.delta, p.scale, cfg)


def torch_sdpa(p):
    q, k, v = (t.detach().requires_grad_() for t in (p.q, p.k, p.v))
    o = torch.nn.functional.scaled_dot_product_attention(q[None], k[None], v[None])[0]
    box = [None]

    def run():
        box[0] = torch.autograd.grad(o, (q, k, v), p.do, retain_graph=True)
    return run, lambda: box[0]


def main():
    a = [int(v) for v in sys.argv[1:]]
    bh, n, d = a[0:3] if len(a) >= 3 else (32, 4096, 64)
    rounds = a[3] if len(a) > 3 else 5
    torch.manual_seed(0)
    p = Problem(bh, n, d)
    rate = lambda ms: 10 * bh * n * n * d / (ms * 1e-3) / 1e12  # noqa: E731
    tilec_pre(p)()
    # each kernel's own products: dK/dV four N x N x D per head, dQ three
    dkdv_rate = lambda ms: 8 * bh * n * n * d / (ms * 1e-3) / 1e12  # noqa: E731
    dq_rate = lambda ms: 6 * bh * n * n * d / (ms * 1e-3) / 1e12  # noqa: E731
    check_dkdv = lambda label, fn: p.check(label, fn, (1, 2))  # noqa: E731
    check_dq = lambda label, fn: p.check(label, fn, (0,))  # noqa: E731
    cfg = {
        "tilec dkdv": pick_config("tilec dkdv", CONFIGS, lambda c: tilec_dkdv(p, tilec_kernels(p, c)[0], c),
                                  check_dkdv, dkdv_rate, "TFLOP/s"),
        "tilec dq": pick_config("tilec dq", CONFIGS, lambda c: tilec_dq(p, tilec_kernels(p, c)[1], c), check_dq,
                                dq_rate, "TFLOP/s"),
        "triton dkdv": pick_config("triton dkdv", CONFIGS, lambda c: triton_dkdv(p, c), check_dkdv, dkdv_rate,
                                   "TFLOP/s"),
        "triton dq": pick_config("triton dq", CONFIGS, lambda c: triton_dq(p, c), check_dq, dq_rate, "TFLOP/s"),
    }
    print(f"attention backward f16 bh={bh} n={n} d={d}: "
          + ", ".join(f"{k} {c}" for k, c in cfg.items())
          + f" (BM, BN, warps, stages); {rounds} rounds x {REPS} reps, fresh inputs each")
    kt = tilec_kernels(p, cfg["tilec dkdv"])[0], tilec_kernels(p, cfg["tilec dq"])[1]
    got = {name: [] for name in ("tilec", "triton", "torch-sdpa")}
    parts = {name: [] for name in ("tilec pre", "tilec dkdv", "tilec dq", "triton pre", "triton dkdv",
                                   "triton dq")}
    for _ in range(rounds):
        p.draw()
        steps = {
            "tilec": [tilec_pre(p), tilec_dkdv(p, kt[0], cfg["tilec dkdv"]), tilec_dq(p, kt[1], cfg["tilec dq"])],
            "triton": [triton_pre(p), triton_dkdv(p, cfg["triton dkdv"]), triton_dq(p, cfg["triton dq"])],
        }
        runs = {name: (lambda s=s: [f() for f in s]) for name, s in steps.items()}
        ts, out = torch_sdpa(p)
        runs["torch-sdpa"] = ts
        for name, fn in runs.items():
            p.check(name, fn, out=out if name == "torch-sdpa" else None)
        for name, fn in runs.items():
            got[name].append(rate(bench(fn, 1, REPS)[0]))
        for name, s in steps.items():
            for part, f in zip(("pre", "dkdv", "dq"), s):
                parts[f"{name} {part}"].append(bench(f, 1, REPS)[0] * 1e3)
    print_rates(got, "TFLOP/s", "torch-sdpa", width=12)
    print("per kernel, us (median over the rounds): "
          + ", ".join(f"{k} {statistics.median(v):.1f}" for k, v in parts.items()))


if __name__ == "__main__":
    main()
