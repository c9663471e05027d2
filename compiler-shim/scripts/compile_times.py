#!/usr/bin/env python3
"""Translation time and total compile time of joulecc vs the plain compiler.

    compiler-shim/scripts/compile_times.py BUILD_DIR [--repeat N]

For each program under tests/shim/programs/, measures (median of N runs):
  translate  joulecc --translate (Clang parse + analysis + code generation)
  plain      the compiler alone on the original file (pragmas ignored: serial code)
  joulecc    joulecc <compiler> on the same file (translate + compile the translation)
all with -O2 and -c (no link), and prints a Markdown table.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROGRAMS = os.path.join(ROOT, "tests", "shim", "programs")


def timed(cmd, cwd):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), r.stderr))
    return dt


def median_ms(cmd, cwd, repeat):
    return statistics.median(timed(cmd, cwd) for _ in range(repeat)) * 1000.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build_dir")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    joulecc = os.path.join(os.path.abspath(args.build_dir), "compiler-shim", "joulecc")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(os.listdir(PROGRAMS)):
            if name.startswith("mpi") or not name.endswith((".c", ".cpp")):
                continue
            src = os.path.join(PROGRAMS, name)
            cxx = name.endswith(".cpp")
            for cc in (["g++", "clang++"] if cxx else ["gcc", "clang"]):
                lines = sum(1 for _ in open(src))
                tr = median_ms([joulecc, "--translate", src, "-o", os.path.join(tmp, "t" + name)], tmp, args.repeat)
                plain = median_ms([cc, "-O2", "-c", "-w", src, "-o", "p.o"], tmp, args.repeat)
                full = median_ms([joulecc, cc, "-O2", "-c", "-w", src, "-o", "j.o"], tmp, args.repeat)
                rows.append((name, cc, lines, tr, plain, full))
    print("| program | compiler | lines | translate (ms) | plain -O2 -c (ms) | joulecc -O2 -c (ms) | joulecc / plain |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, cc, lines, tr, plain, full in rows:
        print("| %s | %s | %d | %.0f | %.0f | %.0f | %.2f |" % (name, cc, lines, tr, plain, full, full / plain))


if __name__ == "__main__":
    main()
