"""round_check.py: tests/codegen/round-to-16-bit.tile's, fmod.tile's and fmod-f64.tile's kernels on the GPU,
against torch, bit for bit.

    python3 tests/gpu/round_check.py      # on the GPU machine, from the repository root (TILEC_LIB set)

Roundings to f16 or bf16 of ops on the other 16-bit type (and of frem), which LLVM 19 would narrow to the
wrong type: f16 bits stored as bf16, bf16 values rounded to f16 before an add (70144 - 70144 giving NaN).
And float % (fmod.tile, fmod-f64.tile): exact fmod, the sign of a zero kept, quotients past 2^24 (f32) and 2^53
(f64, up to 2^2098), subnormals, inf and NaN.
"""
import os
import sys

import torch

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "bench"))
import tilec  # noqa: E402

SRC = os.path.join(ROOT, "tests", "codegen", "round-to-16-bit.tile")
x16 = torch.tensor([1.25, -3.5, 0.75, 7.0] * 8, device="cuda", dtype=torch.float16)
xb = torch.tensor([70144.0, 3.0, 1e-3, -2.5] * 8, device="cuda", dtype=torch.bfloat16)
yb = torch.tensor([-70144.0, 2.0, 1e-3, 0.5] * 8, device="cuda", dtype=torch.bfloat16)
ok = True


def check(name, got, want):
    """Bit for bit (NaNs of any payload alike)."""
    global ok
    bits = {2: torch.int16, 4: torch.int32, 8: torch.int64}[got.element_size()]
    nan = torch.isnan(want)
    same = torch.equal(torch.isnan(got), nan) and torch.equal(got[~nan].view(bits), want[~nan].view(bits))
    ok &= same
    print(f"{name}: {'ok' if same else 'WRONG'} got {got[:4].tolist()} want {want[:4].tolist()}")


for k, want in (("f64_rem", torch.fmod(x16.double(), 0.5).to(torch.bfloat16)),
                ("f32_rem", torch.fmod(x16.float(), 0.5).to(torch.bfloat16))):
    out = torch.full((32,), float("nan"), device="cuda", dtype=torch.bfloat16)
    tilec.Kernel.compile(SRC, k).launch(1, out, x16)
    torch.cuda.synchronize()
    check(k, out, want)
out = torch.full((32,), float("nan"), device="cuda", dtype=torch.float16)
tilec.Kernel.compile(SRC, "bf_add_to_f16").launch(1, out, xb, yb)
torch.cuda.synchronize()
check("bf_add_to_f16", out, (xb.float() + yb.float()).half())
out.fill_(float("nan"))
tilec.Kernel.compile(SRC, "bf_rem_to_f16").launch(1, out, xb, yb)
torch.cuda.synchronize()
check("bf_rem_to_f16", out, torch.fmod(xb.float(), yb.float()).half())
xs = torch.tensor([1e10, -3.5, 7.0, 1e30, 5.0, float("inf"), 3.0, -0.0, 1e-40, -1e38, 0.75, 2.5e-41,
                   16777217.0, -1e20, 1.0, float("nan")], device="cuda")
ys = torch.tensor([3.0, 0.5, 0.0, 1e-30, float("inf"), 2.0, float("nan"), 1.0, 3e-41, 7.0, -0.5, 1e-45,
                   3.0, 0.1, 1e-38, 1.0], device="cuda")
out = torch.full((16,), float("nan"), device="cuda")
tilec.Kernel.compile(os.path.join(ROOT, "tests", "codegen", "fmod.tile"), "rem32").launch(1, out, xs, ys)
torch.cuda.synchronize()
check("fmod f32", out, torch.fmod(xs, ys))
xd = torch.tensor([1e308, -3.5, 7.0, 1e300, 5.0, float("inf"), 3.0, -0.0, 2.5e-320, -1e300, 0.75, 1e-310,
                   1e22, -1e200, 1.0, float("nan")], device="cuda", dtype=torch.float64)
yd = torch.tensor([3e-308, 0.5, 0.0, 1e-300, float("inf"), 2.0, float("nan"), 1.0, 3e-322, 7.0, -0.5, 5e-324,
                   3.0, 0.1, 2.2250738585072014e-308, 1.0], device="cuda", dtype=torch.float64)
out = torch.full((16,), float("nan"), device="cuda", dtype=torch.float64)
tilec.Kernel.compile(os.path.join(ROOT, "tests", "codegen", "fmod-f64.tile"), "rem64").launch(1, out, xd, yd)
torch.cuda.synchronize()
check("fmod f64", out, torch.fmod(xd, yd))
print("cross-type roundings and fmod:", "all ok" if ok else "WRONG")
sys.exit(0 if ok else 1)
