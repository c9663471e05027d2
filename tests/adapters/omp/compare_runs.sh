#!/bin/sh
# Runs one OpenMP program on libgomp and on libjoule-omp and requires the
# same output, byte for byte (the program prints only deterministic results).
#
#   compare_runs.sh PRELOAD PROGRAM [ARGS...]
#       PROGRAM as is (linked with libgomp), then with LD_PRELOAD=PRELOAD
#   compare_runs.sh --mpi PRELOAD MPIEXEC NP PROGRAM [ARGS...]
#       MPIEXEC -np NP --oversubscribe PROGRAM, then the same with the ranks
#       (not mpirun itself) preloaded and JOULE_LENDING=node
#
# Team sizes come from the environment (OMP_NUM_THREADS), the same for both.
# The preloaded run also prints joule's report (JOULE_REPORT=1, on stderr):
# without it the preload did not take, and two libgomp runs prove nothing.
# Prints both outputs; exits 1 when they differ or either run fails.
set -u
report=$(mktemp)
trap 'rm -f "$report"' EXIT
if [ "$1" = "--mpi" ]; then
  preload=$2 mpiexec=$3 np=$4
  shift 4
  ref=$("$mpiexec" -np "$np" --oversubscribe "$@") || { echo "libgomp run failed: $ref"; exit 1; }
  got=$("$mpiexec" -np "$np" --oversubscribe -x "LD_PRELOAD=$preload" -x JOULE_LENDING=node \
    -x JOULE_REPORT=1 "$@" 2>"$report") ||
    { echo "libjoule-omp run failed: $got"; exit 1; }
else
  preload=$1
  shift
  ref=$("$@") || { echo "libgomp run failed: $ref"; exit 1; }
  got=$(env LD_PRELOAD="$preload" JOULE_REPORT=1 "$@" 2>"$report") ||
    { echo "libjoule-omp run failed: $got"; cat "$report"; exit 1; }
fi
if ! grep -q "tasks completed" "$report"; then
  echo "compare_runs: no joule report: the run did not use libjoule-omp"
  cat "$report"
  exit 1
fi
printf -- '--- libgomp\n%s\n--- libjoule-omp\n%s\n' "$ref" "$got"
if [ "$ref" != "$got" ]; then
  echo "compare_runs: the outputs differ"
  exit 1
fi
echo "compare_runs: identical"
