"""gpu_sweep.py: tilec's generated log1p, expm1, atan, pow and atan2 on the GPU, measured in ulps of the f32 result.

    TILEC_LIB=build-bundle/bundle/libtilec.so python3 scripts/math/gpu_sweep.py [PAIRS_LOG2] [FUNCTION ...]

(all five without names).  log1p, expm1 and atan: every one of the 2^32 f32 bit patterns, through a
one-line tilec kernel (the JIT, as users run it), against torch's float64 log1p / expm1 / atan of the
same inputs on the GPU (CUDA's double functions, within an ulp of f64: 2^-29 of an f32 ulp).
atan2: 2^PAIRS_LOG2 pairs, a quarter each of random bits (every sign and exponent), of |y| and |x|
within 2^24 ulps of each other (the middle reduction), of y = x u with u of random bits in [2^-40, 1]
either way round, and of operands near 2^-126, 2^64 and FLT_MAX; against torch's float64 atan2.
pow: 2^PAIRS_LOG2 (default 30) random pairs:
x of random positive bits (every fourth negative, with an integer y), y = t / log2|x| with t uniform in
[-160, 135] (results across the whole f32 range, subnormals and overflow included), every eighth y of
random bits; against torch's float64 pow.

The ulp of a result is as gpu_test's ulp_f32 (2^-149 below 2^-126, else 2^(e-24) for |r| = m 2^e,
1/2 <= m < 1).  NaN against NaN and equal infinities count 0; an f64 result past FLT_MAX counts as the
f32 infinity where it rounds there.  Prints the largest error of each function, its input, and how
many results are over 0.5 and over 1 ulp.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import tilec  # noqa: E402

SRC = """
kernel unary(o: *f32, x: *f32, F: const i32 = 0) {
    let offs = program_id(0) * 1024 + arange(0, 1024);
    let v = load(x + offs);
    if F == 0 { store(o + offs, log1p(v)); } else if F == 1 { store(o + offs, expm1(v)); }
    else { store(o + offs, atan(v)); }
}
kernel binary(o: *f32, x: *f32, y: *f32, F: const i32 = 0) {
    let offs = program_id(0) * 1024 + arange(0, 1024);
    if F == 0 { store(o + offs, pow(load(x + offs), load(y + offs))); }
    else { store(o + offs, atan2(load(x + offs), load(y + offs))); }
}
"""
CHUNK = 1 << 26


def ulp_errors(got, want):
    """|got - want| in ulps of the f32 result (want in f64); NaN/NaN and equal infinities 0."""
    w = want.clone()
    big = w.abs() > 3.4028234663852886e38
    # past FLT_MAX: the f32 infinity where it rounds there (at or past FLT_MAX + half an ulp), else FLT_MAX
    w[big] = torch.where(w[big].abs() >= 3.4028235677973366e38, w[big].sign() * float("inf"),
                         w[big].sign() * 3.4028234663852886e38)
    g = got.double()
    a = w.abs()
    e = torch.frexp(a).exponent.double()
    ulp = torch.where(a < 2.0 ** -126, torch.full_like(a, 2.0 ** -149), torch.exp2(e - 24))
    err = (g - w).abs() / ulp
    same = (g == w) | (g.isnan() & w.isnan())
    err[same] = 0
    err[err.isnan()] = float("inf")
    return err


class Worst:
    def __init__(self, name):
        self.name, self.err, self.at, self.over05, self.over1, self.n = name, 0.0, None, 0, 0, 0

    def add(self, err, inputs):
        i = int(err.argmax())
        if err[i].item() > self.err:
            self.err, self.at = err[i].item(), tuple(float(t[i].item()) for t in inputs)
        self.over05 += int((err > 0.5).sum())
        self.over1 += int((err > 1).sum())
        self.n += err.numel()

    def report(self):
        at = ", ".join(v.hex() for v in self.at) if self.at else "-"
        print(f"{self.name}: at most {self.err:.4f} ulp (at {at}); over 0.5 ulp: {self.over05}, over 1 ulp: "
              f"{self.over1}, of {self.n} inputs", flush=True)


def sweep_unary(k, f, name, ref):
    w = Worst(name)
    out = torch.empty(CHUNK, device="cuda")
    for lo in range(0, 1 << 32, CHUNK):
        bits = torch.arange(lo, lo + CHUNK, device="cuda", dtype=torch.int64)
        x = (bits - (1 << 32) * (bits >= (1 << 31))).to(torch.int32).view(torch.float32)
        k.launch(CHUNK // 1024, out, x)
        w.add(ulp_errors(out, ref(x.double())), (x,))
    w.report()
    return w


def sweep_pow(k, pairs_log2):
    w = Worst("pow")
    out = torch.empty(CHUNK, device="cuda")
    g = torch.Generator(device="cuda")
    g.manual_seed(20261124)
    for _ in range(max(1, (1 << pairs_log2) // CHUNK)):
        xb = torch.randint(0, 0x7f800000, (CHUNK,), device="cuda", dtype=torch.int32, generator=g)
        x = xb.view(torch.float32).clone()
        l2 = torch.log2(x.double())
        l2 = torch.where(l2 == 0, torch.ones_like(l2), l2)
        t = torch.rand(CHUNK, device="cuda", dtype=torch.float64, generator=g) * 295 - 160
        y = (t / l2).float()
        idx = torch.arange(CHUNK, device="cuda")
        neg = idx % 4 == 0
        x[neg] = -x[neg]
        y[neg] = y[neg].round()
        rb = torch.randint(-(1 << 31), (1 << 31) - 1, (CHUNK,), device="cuda", dtype=torch.int32, generator=g)
        ry = rb.view(torch.float32)
        pick = (idx % 8 == 1) & ~ry.isnan()
        y[pick] = ry[pick]
        k.launch(CHUNK // 1024, out, x, y)
        w.add(ulp_errors(out, torch.pow(x.double(), y.double())), (x, y))
    w.report()
    return w


def sweep_atan2(k, pairs_log2):
    """atan2(y, x) on four classes of pairs, each a quarter of every chunk"""
    w = Worst("atan2")
    out = torch.empty(CHUNK, device="cuda")
    g = torch.Generator(device="cuda")
    g.manual_seed(20261125)

    def bits(lo, hi):
        return torch.randint(lo, hi, (CHUNK,), device="cuda", dtype=torch.int64, generator=g)

    def signed(mag):  # finite magnitudes' bits (int64), a random sign, as f32
        s = bits(0, 2) << 31
        return ((mag | s) - (1 << 32) * ((mag | s) >= (1 << 31))).to(torch.int32).view(torch.float32)

    for _ in range(max(1, (1 << pairs_log2) // CHUNK)):
        cls = torch.arange(CHUNK, device="cuda") % 4
        ym, xm = bits(0, 0x7f800000), bits(0, 0x7f800000)
        near = (ym + bits(-(1 << 24), 1 << 24)).clamp(0, 0x7f7fffff)  # |x| within 2^24 ulps of |y|
        xm = torch.where(cls == 1, near, xm)
        edge = torch.tensor([0x00800000, 0x5f800000, 0x7f7fffff], device="cuda")  # 2^-126, 2^64, FLT_MAX
        em = (edge[bits(0, 3)] + bits(-(1 << 22), 1 << 22)).clamp(0, 0x7f7fffff)
        ym = torch.where(cls == 3, em, ym)
        y, x = signed(ym), signed(xm)
        u = torch.exp2(-40 * torch.rand(CHUNK, device="cuda", dtype=torch.float64, generator=g))
        yu = (x.double() * u).float()  # y = x u, then either order
        swap = bits(0, 2) == 1
        y2, x2 = torch.where(swap, x, yu), torch.where(swap, yu, x)
        y, x = torch.where(cls == 2, y2, y), torch.where(cls == 2, x2, x)
        k.launch(CHUNK // 1024, out, y, x)
        w.add(ulp_errors(out, torch.atan2(y.double(), x.double())), (y, x))
    w.report()
    return w


def main():
    pairs_log2 = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    names = sys.argv[2:] or ["log1p", "expm1", "atan", "pow", "atan2"]
    bad = []
    for f, name, ref, limit in ((0, "log1p", torch.log1p, 1.0), (1, "expm1", torch.expm1, 1.0),
                                (2, "atan", torch.atan, 1.0)):
        if name in names:
            k = tilec.Kernel.compile(SRC, "unary", defines={"F": f})
            if sweep_unary(k, f, name, ref).err > limit:
                bad.append(name)
    if "pow" in names and sweep_pow(tilec.Kernel.compile(SRC, "binary", defines={"F": 0}), pairs_log2).err > 1.0:
        bad.append("pow")
    if "atan2" in names and sweep_atan2(tilec.Kernel.compile(SRC, "binary", defines={"F": 1}), pairs_log2).err > 1.0:
        bad.append("atan2")
    if bad:
        sys.exit(f"gpu_sweep: over the documented bound: {' '.join(bad)}")


if __name__ == "__main__":
    main()
