"""fuzz_pipeline.py: the whole compiler never crashes on a broken kernel.

    python3 tests/cli/fuzz_pipeline.py TILEC [MUTANTS] [SEED]

Each mutant is an example from dsl_examples/ with one to three token-level
edits (mostly a number swapped for another or a name for another name of
the file, which still parse; else a token dropped, duplicated or replaced
by punctuation), compiled by the CLI
to target-independent IR, then to PTX for sm_90 and sm_90a.  Each run must
end with status 0, or 1 with an "error:" line that names a file position
(`-:L:C: error:`, stdin being `-`, or a plain `tilec: error:` for faults
not in the source);
a signal, another status, a time-out or an "internal" message fails the
test.  Fixed seed: a failure reproduces, and the failing source is printed.
"""
import glob
import os
import random
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
TOKEN = re.compile(r"//[^\n]*|\s+|[A-Za-z_][A-Za-z0-9_]*|0x[0-9a-fA-F]+|[0-9]+\.?[0-9]*(?:e[-+]?[0-9]+)?|\S")
NUMBERS = ["0", "1", "2", "3", "7", "8", "16", "-1", "1024", "4096", "65536", "0.5", "1e30", "2147483647"]
PUNCT = list("()[]{},:;+-*/%<>=!&|^~.") + ["==", "<=", "None", "..."]
MODES = (["--emit=ir"], ["--arch", "sm_90"], ["--arch", "sm_90a"])
LOCATED = re.compile(r"^(-:\d+:\d+|tilec): error: ", re.M)


def mutate(rng, src):
    """Mostly same-class swaps (they parse, and reach the checks, layouts and code generation), some breakage."""
    toks = TOKEN.findall(src)
    idx = [i for i, t in enumerate(toks) if not t.isspace() and not t.startswith("//")]
    nums = [i for i in idx if re.match(r"[0-9]", toks[i])]
    ids = [i for i in idx if re.match(r"[A-Za-z_]", toks[i])]
    names = sorted({toks[i] for i in ids})
    for _ in range(rng.randint(1, 3)):
        r = rng.random()
        if r < 0.4 and nums:
            toks[rng.choice(nums)] = rng.choice(NUMBERS)
        elif r < 0.7 and ids:
            toks[rng.choice(ids)] = rng.choice(names)
        elif r < 0.8:
            toks[rng.choice(idx)] = ""
        elif r < 0.9:
            i = rng.choice(idx)
            toks[i] = toks[i] + " " + toks[rng.choice(idx)]
        else:
            toks[rng.choice(idx)] = rng.choice(PUNCT + NUMBERS + names)
    return "".join(toks)


def main():
    tilec = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 120
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
    files = sorted(glob.glob(os.path.join(ROOT, "dsl_examples", "*.tile")))
    runs = errors = 0
    for k in range(n):
        f = rng.choice(files)
        src = mutate(rng, open(f).read())
        for mode in MODES:
            runs += 1
            try:
                p = subprocess.run([tilec, "-", "-o", os.devnull] + mode, input=src.encode(), capture_output=True,
                                   timeout=60)
            except subprocess.TimeoutExpired:
                sys.exit(f"FAIL mutant {k} of {os.path.basename(f)} {mode}: no answer in 60 s\n{src}")
            err = p.stderr.decode(errors="replace")
            ok = p.returncode == 0 or (p.returncode == 1 and LOCATED.search(err))
            if not ok or re.search(r"internal|LLVM ERROR|Assertion|Sanitizer", err):
                sys.exit(f"FAIL mutant {k} of {os.path.basename(f)} {mode}: status {p.returncode}\n"
                         f"--- stderr\n{err}--- source\n{src}")
            errors += p.returncode != 0
    print(f"fuzz_pipeline: {n} mutants, {runs} compiles, {errors} located errors, {runs - errors} compiled, "
          f"no crash")


if __name__ == "__main__":
    main()
