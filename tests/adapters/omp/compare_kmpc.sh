#!/bin/sh
# Runs a clang-built OpenMP program (the LLVM runtime ABI) on libjoule-omp
# both ways a user would, and requires the reference output byte for byte:
#
#   compare_kmpc.sh LIBDIR JOULE_SO REFERENCE PROGRAM [ARGS...]
#
# REFERENCE: the command whose output is the expectation (the same binary
# on libomp, or the GCC build of the source on libgomp where libomp itself
# does not pass the program's checks). PROGRAM then runs with
# LD_LIBRARY_PATH=LIBDIR (whose libomp.so.5 is libjoule-omp) and with
# JOULE_SO preloaded; both must print joule's report (JOULE_REPORT=1 on
# stderr): without it the run did not use joule. Exits 1 on a difference.
set -u
libdir=$1 joule=$2 reference=$3
shift 3
report=$(mktemp)
trap 'rm -f "$report"' EXIT
ref=$($reference "$@") || { echo "reference run failed: $ref"; exit 1; }
check() {
  how=$1 got=$2 rc=$3
  if [ "$rc" != 0 ]; then echo "compare_kmpc: $how run failed: $got"; cat "$report"; exit 1; fi
  if ! grep -q "tasks completed" "$report"; then
    echo "compare_kmpc: $how: no joule report: the run did not use libjoule-omp"; cat "$report"; exit 1
  fi
  if [ "$ref" != "$got" ]; then
    printf -- '--- reference\n%s\n--- %s\n%s\n' "$ref" "$how" "$got"
    echo "compare_kmpc: $how: the outputs differ"
    exit 1
  fi
}
got=$(env LD_LIBRARY_PATH="$libdir" JOULE_REPORT=1 "$@" 2>"$report")
check library-path "$got" $?
got=$(env LD_PRELOAD="$joule" JOULE_REPORT=1 "$@" 2>"$report")
check preload "$got" $?
printf -- '--- reference\n%s\n' "$ref"
echo "compare_kmpc: identical"
