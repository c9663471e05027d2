#!/usr/bin/env python3
"""Deprecated alias, kept for one release: `scripts/bench compile` (docs/build.md)."""
import os
import sys

print("compiler-shim/scripts/compile_times.py is deprecated: use scripts/bench compile", file=sys.stderr)
bench = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../scripts/bench")
os.execv(sys.executable, [sys.executable, bench, "compile"] + sys.argv[1:])
