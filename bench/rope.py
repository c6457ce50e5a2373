"""rope.py: dsl_examples/rope.tile against the same kernel in Triton and torch's rotate_half, in one
process.

    python3 bench/rope.py [TOKENS HEADS HALF MAXPOS [ROUNDS]] [interleaved]   # default: SHAPES below, 5 rounds

x and out are f32 [tokens, heads, 2 * HALF]; pos[t] is token t's position, inv_freq[i] = 10000^(-i / HALF).
MAXPOS 0 gives positions 0 .. tokens - 1 (a prompt); else positions are drawn from 0 .. MAXPOS (tokens of a
long context, where the angles pos * inv_freq reach MAXPOS radians and sin and cos need their long
reduction).  Contestants:

  tilec   the JIT (tilec.Kernel), ROWS (token, head) rows per program
  triton  triton_kernels.rope: the same kernel line for line (tl.cos, tl.sin: libdevice's cosf, sinf)
  torch   the rotate_half form of the Llama and GPT-NeoX modules: angles, cos, sin, then
          cat(x1 cos - x2 sin, x2 cos + x1 sin), eager

With `interleaved`, pair i of a row is (x[2i], x[2i + 1]) (GPT-J's form): tilec's rope_interleaved and
Triton's rope_interleaved_kernel, line for line (the row loaded whole, reshaped to [.., HALF, 2], split,
joined back), and torch's x.unflatten(-1, (HALF, 2)), then stack(..., -1).flatten(-2).

tilec and triton each take the fastest of CONFIGS (rows per program, warps; every config checked, then
timed).  Then ROUNDS rounds;
each draws fresh inputs, fills the output with NaN, runs each contestant once and checks every element
against f64 (the angle rounded to f32 as the kernels compute it), then times it: median of REPS calls
between CUDA events, L2 flushed before each.  GB/s counts x read and out written.
"""
import os
import sys
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="rope-triton-"))
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import tilec  # noqa: E402
import triton_kernels as tk  # noqa: E402
from ptx_ab import exit_unless_close, fresh_rounds, pick_config, print_rates, ratio_line  # noqa: E402

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dsl_examples", "rope.tile")
SHAPES = [(4096, 32, 64, 0), (16384, 32, 64, 0), (4096, 32, 64, 1 << 20), (4096, 8, 32, 0)]
INTERLEAVED = "interleaved" in sys.argv[1:]
CONFIGS = [(1, 1), (2, 1), (4, 1), (4, 2), (8, 2), (8, 4), (16, 4), (16, 8), (32, 8)]
REPS = 50
TOL = 1e-5


def halves(x, half):
    """The two elements of every pair: x[..., i] and x[..., i + half], or x[..., 2i] and x[..., 2i + 1]."""
    if INTERLEAVED:
        x = x.unflatten(-1, (half, 2))
        return x[..., 0], x[..., 1]
    return x[..., :half], x[..., half:]


def together(y1, y2):
    return torch.stack([y1, y2], dim=-1).flatten(-2) if INTERLEAVED else torch.cat([y1, y2], dim=-1)


class Problem:
    def __init__(self, tokens, heads, half, maxpos):
        self.tokens, self.heads, self.half, self.maxpos = tokens, heads, half, maxpos
        self.inv_freq = torch.pow(10000.0, -torch.arange(half, dtype=torch.float64) / half).float().cuda()
        self.out = torch.empty(tokens, heads, 2 * half, device="cuda")
        self.draw()

    def draw(self):
        self.x = torch.randn(self.tokens, self.heads, 2 * self.half, device="cuda")
        if self.maxpos:
            self.pos = torch.randint(0, self.maxpos + 1, (self.tokens,), dtype=torch.int32, device="cuda")
        else:
            self.pos = torch.arange(self.tokens, dtype=torch.int32, device="cuda")
        a = (self.pos.float()[:, None] * self.inv_freq[None, :]).double()[:, None, :]
        x1, x2 = halves(self.x.double(), self.half)
        self.ref = together(x1 * a.cos() - x2 * a.sin(), x2 * a.cos() + x1 * a.sin())
        torch.cuda.synchronize()

    def check(self, name, fn, out=None):
        self.out.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        exit_unless_close(name, out() if out else self.out, self.ref, TOL, TOL)

    def nbytes(self):
        return 2 * 4 * self.x.numel()


def tilec_rope(p, cfg):
    k = tilec.Kernel.compile(SRC, "rope_interleaved" if INTERLEAVED else "rope", defines={"HALF": p.half, "ROWS": cfg[0]}, num_warps=cfg[1])
    rows = p.tokens * p.heads
    return lambda: k.launch((rows + cfg[0] - 1) // cfg[0], p.out, p.x, p.pos, p.inv_freq, rows, p.heads, 2 * p.half)


def triton_rope(p, cfg):
    f = tk.rope_interleaved if INTERLEAVED else tk.rope
    return lambda: f(p.out, p.x, p.pos, p.inv_freq, p.heads, cfg)


def torch_rope(p):
    box = [None]

    def run():
        a = (p.pos.float()[:, None] * p.inv_freq[None, :])[:, None, :]
        c, s = a.cos(), a.sin()
        x1, x2 = halves(p.x, p.half)
        box[0] = together(x1 * c - x2 * s, x2 * c + x1 * s)
    return run, lambda: box[0]


def one(tokens, heads, half, maxpos, rounds):
    p = Problem(tokens, heads, half, maxpos)
    gbs = lambda ms: p.nbytes() / (ms * 1e-3) / 1e9  # noqa: E731
    t_w = pick_config("tilec", CONFIGS, lambda w: tilec_rope(p, w), p.check, gbs, "GB/s")
    r_w = pick_config("triton", CONFIGS, lambda w: triton_rope(p, w), p.check, gbs, "GB/s")
    print(f"rope{' interleaved' if INTERLEAVED else ''} f32 tokens={tokens} heads={heads} HALF={half} positions "
          f"{'0..tokens-1' if not maxpos else f'<= {maxpos}'}: tilec {t_w}, triton {r_w} (rows, warps); "
          f"{rounds} rounds x {REPS} reps, fresh inputs each")
    runs = {"tilec": (tilec_rope(p, t_w), None), "triton": (triton_rope(p, r_w), None)}
    got = fresh_rounds(p, runs, lambda: {"torch": torch_rope(p)}, rounds, REPS)
    print_rates(got, "GB/s", "torch")
    print(ratio_line(got))


def main():
    a = [int(v) for v in sys.argv[1:] if v != "interleaved"]
    torch.manual_seed(0)
    rounds = a[4] if len(a) > 4 else 5
    for shape in ([tuple(a[0:4])] if len(a) >= 4 else SHAPES):
        one(*shape, rounds)


if __name__ == "__main__":
    main()
