#!/usr/bin/env python3
"""not.py CMD...: runs CMD and succeeds only if it fails (LLVM's `not`).
With --crash first, succeeds only if CMD dies from a signal."""
import subprocess
import sys

args = sys.argv[1:]
crash = bool(args) and args[0] == "--crash"
if crash:
    args = args[1:]
if not args:
    sys.exit("usage: not.py [--crash] CMD...")
rc = subprocess.call(args)
if crash:
    sys.exit(0 if rc < 0 else 1)
sys.exit(0 if rc > 0 else 1)
