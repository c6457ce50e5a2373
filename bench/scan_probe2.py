"""scan_probe2.py: a running f16 maximum of 512 over 4 warps, four ways, checked against torch.

    python3 bench/scan_probe2.py [VARIANT...]      # default: all; TILEC_JIT_OPT=0 for ptxas -O0

The reproducer of a wrong result on the H100 (CUDA 13.0's ptxas at -O3): f16 maxima
converted from f32 and written as max.NaN.f16, which ptxas fused into VHMNMX/HMNMX2,
came out wrong in about a third of the elements ("cast", "cast+vo"); a select
("cast-where"), an f16 load ("load16"), the scan in f32, or ptxas -O0 gave right ones.
Codegen now keeps f16/bf16 max and min in f32 (cg_binary); gpu_test's case scan16 is
the same kernel.  Prints the wrong count of each variant and where they are.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
import tilec  # noqa: E402

TEMPLATE = """fn m1(a, b) {{ return {combine}; }}
kernel p(vo: *f16, o0: *f16, x: *f32, x16: *f16, REV: const i32 = 1) {{
    let offs = program_id(0) * 512 + arange(0, 512);
    let v = {v};
    {store_v}store(o0 + offs, {scan});
}}"""
MAX, CAST, SCAN = "maximum(a, b)", "cast(load(x + offs), f16)", "associative_scan(v, 0, m1, REV)"
VARIANTS = {  # name: (combine, v, also store v, the scan)
    "cast+vo": (MAX, CAST, True, SCAN),
    "cast": (MAX, CAST, False, SCAN),
    "cast-where": ("where(a > b, a, b)", CAST, False, SCAN),
    "load16": (MAX, "load(x16 + offs)", False, SCAN),
    "cast-cummax-f32": (MAX, CAST, False, "cast(associative_scan(cast(v, f32), 0, m1, REV), f16)"),
}
SRCS = {name: TEMPLATE.format(combine=c, v=v, store_v="store(vo + offs, v);\n    " if sv else "", scan=sc)
        for name, (c, v, sv, sc) in VARIANTS.items()}

which = sys.argv[1:] or list(SRCS)
for name in which:
    for rev in (1, 0):
        k = tilec.Kernel.compile(SRCS[name], "p", defines={"REV": rev}, num_warps=4)
        progs = 5
        n = progs * 512
        x = torch.randn(n, device="cuda") * 4
        x16 = x.half()
        vo = torch.full((n,), float("nan"), device="cuda", dtype=torch.float16)
        o0 = torch.full((n,), float("nan"), device="cuda", dtype=torch.float16)
        k.launch(progs, vo, o0, x, x16)
        torch.cuda.synchronize()
        v = x16.view(progs, 512)
        if name == "cast+vo":
            print("  vo equals x.half():", bool((vo == x16).all().item()))
        w = v.flip(1) if rev else v
        m = torch.cummax(w.float(), 1).values.half()
        m = m.flip(1) if rev else m
        got = o0.view(progs, 512)
        bad = (got != m)
        print(f"{name} REV={rev}: {bad.sum().item()} wrong")
        for p in range(progs):
            idx = bad[p].nonzero().flatten().tolist()
            if idx:
                print(f"  program {p}: wrong at {idx[:6]}..{idx[-3:]} ({len(idx)}); first got {got[p, idx[0]].item()} want {m[p, idx[0]].item()}")
