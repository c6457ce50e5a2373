"""dropout.py: dsl_examples/dropout.tile against the same kernels in Triton and torch, in one process.

    python3 bench/dropout.py [N [P [ROUNDS]]]      # default: SHAPES below, 5 rounds

dropout      f32 x of N elements: out = where(rand(seed, i) > p, x / (1 - p), 0), as Triton's low-memory
             dropout tutorial (_seeded_dropout).  GB/s counts x read and out written (8 bytes an element).
dropout_add  f16 x and residual: out = residual + dropout(x) in f16 (6 bytes an element).

Contestants: tilec (the JIT), triton (triton_kernels.dropout: the same kernels line for line, tl.rand) and
torch (F.dropout, plus the residual add as a second kernel; torch draws from its own generator).  tilec
and triton each take the fastest of CONFIGS (BLOCK, warps).  Then ROUNDS rounds; each draws fresh x and
a fresh seed, fills the outputs with NaN, runs each contestant once and checks it, then times it: median
of REPS calls between CUDA events, L2 flushed before each.

The checks: tilec's and Triton's kept elements are exactly those where Philox4x32-10 of (i, seed),
computed here in torch's int64 arithmetic, maps above p, and the kept values are x / (1 - p) within
2 ulp; torch's zeros are p of the elements within 0.5% and its kept values the same quotient.  Also
printed: whether tilec's and Triton's outputs are equal bit for bit.
"""
import os
import sys
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="dropout-triton-"))
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import tilec  # noqa: E402
import triton_kernels as tk  # noqa: E402
from ptx_ab import fresh_rounds, pick_config, print_rates, ratio_line  # noqa: E402

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dsl_examples", "dropout.tile")
SHAPES = [("dropout", 1 << 27, 0.5), ("dropout", 1 << 22, 0.1), ("dropout_add", 1 << 27, 0.1)]
CONFIGS = [(512, 4), (1024, 4), (2048, 4), (2048, 8), (4096, 8), (4096, 16)]
REPS = 50
M32 = 0xFFFFFFFF


def philox_uniform(seed, n, rounds=10):
    """rand(seed, i) for i < n: Philox4x32 word 0 of counter (i, 0, 0, 0) and key (seed), then Triton's
    uint_to_uniform_float, in int64 tensors (a product's low 64 bits wrap; its high word is masked)."""
    c = [torch.arange(n, dtype=torch.int64, device="cuda"), None, None, None]
    z = torch.zeros_like(c[0])
    c[1] = c[2] = c[3] = z
    k0, k1 = seed & M32, (seed >> 32) & M32
    for _ in range(rounds):
        p0, p2 = c[0] * 0xD2511F53, c[2] * 0xCD9E8D57
        c = [((p2 >> 32) & M32) ^ c[1] ^ k0, p2 & M32, ((p0 >> 32) & M32) ^ c[3] ^ k1, p0 & M32]
        k0, k1 = (k0 + 0x9E3779B9) & M32, (k1 + 0xBB67AE85) & M32
    x = torch.where(c[0] >= 1 << 31, c[0] - (1 << 32), c[0])   # as i32
    x = torch.where(x < 0, -x - 1, x).to(torch.int32)
    return x.float() * 4.6566127342e-10


class Problem:
    def __init__(self, kind, n, p):
        self.kind, self.n, self.p = kind, n, p
        self.dt = torch.float16 if kind == "dropout_add" else torch.float32
        self.out = torch.empty(n, dtype=self.dt, device="cuda")
        self.draw()

    def draw(self):
        self.x = torch.randn(self.n, device="cuda").to(self.dt)
        self.res = torch.randn(self.n, device="cuda").to(self.dt) if self.kind == "dropout_add" else None
        self.seed = int(torch.randint(0, 1 << 31, (1,)).item())
        self.keep = philox_uniform(self.seed, self.n) > self.p
        q = self.x.float() / (1.0 - self.p)
        self.ref = torch.where(self.keep, q, 0.0)
        if self.res is not None:
            self.ref = self.ref + self.res.float()
        torch.cuda.synchronize()

    def check(self, name, fn, out=None):
        self.out.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        got = (out() if out else self.out).float()
        base = self.res.float() if self.res is not None else 0.0
        q = self.x.float() / (1.0 - self.p)
        if name.startswith("torch"):
            kept = (got - base) != 0
            frac = 1.0 - kept.float().mean().item()
            if abs(frac - self.p) > 0.005:
                sys.exit(f"{name}: {frac:.4f} of the elements dropped, want about {self.p}")
            ref = torch.where(kept, q + base, base)
        else:
            ref = self.ref
            if self.res is None:   # f32: a kept element is nonzero (x is), a dropped one 0
                wrong = (got != 0) != (self.keep & (self.x != 0))
                if wrong.any():
                    i = wrong.nonzero()[0].item()
                    sys.exit(f"{name}: {wrong.sum().item()} elements kept or dropped wrongly, e.g. {i}")
        # f32: 2 ulp; f16: an f16 ulp of the result or of the quotient (torch rounds it to f16 first)
        if self.dt == torch.float32:
            tol = 2.4e-7 * ref.abs()
        else:
            tol = 9.8e-4 * (ref.abs() + q.abs()) + 6e-8
        bad = ~((got.double() - ref.double()).abs() <= tol.double())
        if bad.any():
            i = bad.nonzero()[0].item()
            sys.exit(f"{name}: {bad.sum().item()} elements off, e.g. {i}: {got[i].item()} vs {ref[i].item()}")

    def nbytes(self):
        return self.x.numel() * self.x.element_size() * (3 if self.res is not None else 2)


def tilec_dropout(p, cfg):
    k = tilec.Kernel.compile(SRC, p.kind, defines={"BLOCK": cfg[0]}, num_warps=cfg[1])
    grid = (p.n + cfg[0] - 1) // cfg[0]
    if p.res is None:
        return lambda: k.launch(grid, p.out, p.x, p.n, p.p, p.seed)
    return lambda: k.launch(grid, p.out, p.x, p.res, p.n, p.p, p.seed)


def triton_dropout(p, cfg):
    return lambda: tk.dropout(p.out, p.x, p.p, p.seed, cfg, p.res)


def torch_dropout(p):
    box = [None]

    def run():
        y = F.dropout(p.x, p.p, training=True)
        box[0] = y if p.res is None else p.res + y
    return run, lambda: box[0]


def same_bits(p, cfg_t, cfg_r):
    """tilec's and Triton's outputs on this round's inputs, bit for bit."""
    outs = []
    for make, cfg in ((tilec_dropout, cfg_t), (triton_dropout, cfg_r)):
        p.out.fill_(float("nan"))
        make(p, cfg)()
        torch.cuda.synchronize()
        outs.append(p.out.view(torch.int16 if p.dt == torch.float16 else torch.int32).clone())
    return bool(torch.equal(outs[0], outs[1]))


def one(kind, n, prob, rounds):
    p = Problem(kind, n, prob)
    gbs = lambda ms: p.nbytes() / (ms * 1e-3) / 1e9  # noqa: E731
    t_w = pick_config("tilec", CONFIGS, lambda w: tilec_dropout(p, w), p.check, gbs, "GB/s")
    r_w = pick_config("triton", CONFIGS, lambda w: triton_dropout(p, w), p.check, gbs, "GB/s")
    print(f"{kind} {'f16' if p.dt == torch.float16 else 'f32'} n={n} p={prob}: tilec {t_w}, triton {r_w} "
          f"(BLOCK, warps); {rounds} rounds x {REPS} reps, fresh inputs and seed each")
    # the calls read p.x, p.res and p.seed when made, so they follow each round's draw
    runs = {"tilec": (tilec_dropout(p, t_w), None), "triton": (triton_dropout(p, r_w), None)}
    got = fresh_rounds(p, runs, lambda: {"torch": torch_dropout(p)}, rounds, REPS)
    print_rates(got, "GB/s", "torch")
    print(f"{ratio_line(got)}; tilec and triton equal bit for bit: {same_bits(p, t_w, r_w)}")


def main():
    a = sys.argv[1:]
    torch.manual_seed(0)
    rounds = int(a[2]) if len(a) > 2 else 5
    shapes = [("dropout", int(a[0]), float(a[1]) if len(a) > 1 else 0.5)] if a else SHAPES
    for shape in shapes:
        one(*shape, rounds)


if __name__ == "__main__":
    main()
