"""round_check.py: tests/codegen/round-to-16-bit.tile's kernels on the GPU, against torch, bit for bit.

    python3 tests/gpu/round_check.py      # on the GPU machine, from the repository root (TILEC_LIB set)

Roundings to f16 or bf16 of ops on the other 16-bit type (and of frem), which LLVM 19 would narrow to the
wrong type: f16 bits stored as bf16, bf16 values rounded to f16 before an add (70144 - 70144 giving NaN).
Every element bit for bit, but zeros of either sign.
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
    """Bit for bit, but for the sign of a zero: the GPU's float % gives +0 where fmod gives -0 (docs/language.md)."""
    global ok
    zero = want == 0
    same = torch.equal(got[zero] == 0, torch.ones_like(got[zero], dtype=torch.bool)) and \
        torch.equal(got[~zero].view(torch.int16), want[~zero].view(torch.int16))
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
print("cross-type roundings:", "all ok" if ok else "WRONG")
sys.exit(0 if ok else 1)
