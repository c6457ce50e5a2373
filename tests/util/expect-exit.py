#!/usr/bin/env python3
"""expect-exit.py N CMD...: runs CMD and succeeds only if it exits with
status N (a signal never matches).  Lit tests reach it as %expect-exit."""
import subprocess
import sys

if len(sys.argv) < 3:
    sys.exit("usage: expect-exit.py N CMD...")
want = int(sys.argv[1])
rc = subprocess.call(sys.argv[2:])
if rc != want:
    sys.stderr.write("expect-exit: %s exited with %d, expected %d\n" % (sys.argv[2], rc, want))
    sys.exit(1)
