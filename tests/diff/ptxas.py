#!/usr/bin/env python3
"""ptxas.py: every kernel gen.py made compiles to PTX that ptxas accepts.

    python3 tests/diff/ptxas.py TILEC DIR [--arch sm_90] [--ptxas PATH] [-j N]

Each case of DIR is compiled by the CLI as the JIT would launch it: with the
case's defines and warps, once plainly and once with --hints for its i32
arguments that are multiples of 16 (the JIT's specialised variant), then
assembled by ptxas.  Prints a line per failure (the command and its error)
and a summary; exit status 1 after any failure, 77 (a skip, for ctest)
when ptxas is not installed.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor


def read_case(d):
    c = {'defines': [], 'warps': 0, 'hints': []}
    for line in open(os.path.join(d, 'case.txt')):
        w = line.split()
        if not w or w[0].startswith('#'):
            continue
        if w[0] == 'kernel':
            c['kernel'] = w[1]
        elif w[0] == 'warps':
            c['warps'] = int(w[1])
        elif w[0] == 'define':
            c['defines'] += ['-D', '%s=%s' % (w[1], w[2])]
        elif w[0] == 'arg' and w[1] == 'i32' and int(w[2]) % 16 == 0:
            c['hints'].append('%s=16' % w[3])
    return c


def check(tilec, ptxas, arch, root, name, tmp):
    """'' if every variant of the case assembles, else what went wrong."""
    d = os.path.join(root, name)
    c = read_case(d)
    variants = [[]] + ([['--hints', ','.join(c['hints'])]] if c['hints'] else [])
    for i, extra in enumerate(variants):
        ptx = os.path.join(tmp, '%s.%d.ptx' % (name, i))
        cmd = [tilec, os.path.join(d, 'kernel.tile'), '--kernel', c['kernel'], '--arch', arch, '-w', '-o', ptx] + \
            c['defines'] + extra
        if c['warps']:
            cmd += ['--num-warps', str(c['warps'])]
        for step in (cmd, [ptxas, '-arch=' + arch, ptx, '-o', ptx + '.cubin']):
            try:
                p = subprocess.run(step, capture_output=True, text=True, timeout=120)
            except subprocess.TimeoutExpired:
                return '%s\n    no answer in 120 s' % ' '.join(step)
            if p.returncode != 0:
                err = (p.stderr or p.stdout).strip().splitlines()
                return '%s\n    %s' % (' '.join(step), '\n    '.join(err[:8]))
        os.unlink(ptx)
        os.unlink(ptx + '.cubin')
    return ''


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('tilec')
    ap.add_argument('dir')
    ap.add_argument('--arch', default='sm_90')
    ap.add_argument('--ptxas', default=shutil.which('ptxas') or '/usr/local/cuda/bin/ptxas')
    ap.add_argument('-j', type=int, default=os.cpu_count() or 2)
    a = ap.parse_args()
    if not os.path.exists(a.ptxas):
        print('ptxas.py: no ptxas (%s): SKIPPED' % a.ptxas)
        sys.exit(77)
    names = [n for n in open(os.path.join(a.dir, 'index.txt')).read().split() if n]
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(a.j) as pool:
        errs = list(pool.map(lambda n: check(a.tilec, a.ptxas, a.arch, a.dir, n, tmp), names))
    bad = [(n, e) for n, e in zip(names, errs) if e]
    for n, e in bad:
        print('FAIL %s: %s' % (n, e))
    print('ptxas.py: %d of %d cases assemble for %s' % (len(names) - len(bad), len(names), a.arch))
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
