"""debug_check.py: device_print and device_assert on the GPU (GPU machine; torch and the bundle).

    python3 tests/gpu/debug_check.py

Runs each check in a child process, since a device assert ends its CUDA context:
  print:  the lines vprintf writes for two programs, sorted, must be the ones the interpreter
          writes (tests/interp/errors.c's test_debug, the same kernel and inputs);
  assert: a failing device_assert must fail the launch's synchronize with CUDA's device-side
          assert, after CUDA printed the message with the kernel's file and line.
Exits 1 on any difference.
"""
import os
import subprocess
import sys

SRC = """
kernel dbg(x: *f32, v: *i8, n: i32) {
    let i = arange(0, 4);
    let t = load(x + i);
    device_print("t = ", t);
    device_print("pair", reshape(i, [2, 2]), n, hex = true);
    device_print("bytes", load(v + i), hex = true);
    device_assert(t < 100.0, "t is small");
    device_assert(n > 0, mask = n != 5);
    device_print("100% ", n);
}
"""
ONE = """pid (%d, 0, 0) idx (0) t = 1.5
pid (%d, 0, 0) idx (1) t = -2
pid (%d, 0, 0) idx (2) t = 9.99999994e-09
pid (%d, 0, 0) idx (3) t = 99
pid (%d, 0, 0) idx (0, 0) pair: (operand 0) 0x0
pid (%d, 0, 0) idx (0, 1) pair: (operand 0) 0x1
pid (%d, 0, 0) idx (1, 0) pair: (operand 0) 0x2
pid (%d, 0, 0) idx (1, 1) pair: (operand 0) 0x3
pid (%d, 0, 0) idx () pair: (operand 1) 0x12
pid (%d, 0, 0) idx (0) bytes: 0xff
pid (%d, 0, 0) idx (1) bytes: 0x2
pid (%d, 0, 0) idx (2) bytes: 0x7f
pid (%d, 0, 0) idx (3) bytes: 0x80
pid (%d, 0, 0) idx () 100%% 18
"""


def child(mode):
    import torch
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
    import tilec
    x = torch.tensor([1.5, -2, 1e-8, 100 if mode == "assert" else 99], device="cuda")
    v = torch.tensor([-1, 2, 127, -128], dtype=torch.int8, device="cuda")
    k = tilec.Kernel.compile(SRC, "dbg", num_warps=4)
    k.launch(2, x, v, 18)
    try:
        tilec.context().synchronize()
    except tilec.TilecError as e:
        print(f"synchronize failed: {e}", file=sys.stderr)
        sys.exit(3)
    sys.exit(0)


def main():
    ok = True
    r = subprocess.run([sys.executable, __file__, "print"], capture_output=True, text=True)
    want = sorted("".join(ONE % ((p,) * 14) for p in range(2)).splitlines())
    got = sorted(r.stdout.splitlines())
    if r.returncode != 0 or got != want:
        ok = False
        print(f"print: exit {r.returncode}; {len(got)} lines, want {len(want)}; first difference: "
              f"{next(((g, w) for g, w in zip(got, want) if g != w), None)}\n{r.stderr[-2000:]}")
    else:
        print(f"print: {len(got)} lines, as the interpreter's")
    r = subprocess.run([sys.executable, __file__, "assert"], capture_output=True, text=True)
    text = r.stdout + r.stderr
    if r.returncode != 3 or "Assertion `t is small` failed" not in text or \
            not ("device-side assert" in text or "CUDA_ERROR_ASSERT" in text):
        ok = False
        print(f"assert: exit {r.returncode} (want 3, a failed synchronize); output:\n{text[-3000:]}")
    else:
        line = next(s for s in text.splitlines() if "Assertion" in s)
        print(f"assert: the launch failed with CUDA's device-side assert; CUDA printed: {line.strip()}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    child(sys.argv[1]) if len(sys.argv) > 1 else main()
