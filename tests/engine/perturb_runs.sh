#!/usr/bin/env bash
# The schedule-perturbation sweep (docs/internals-scheduling.md, "Checking the
# sleep/wake protocol"): runs a test binary on the perturbation variant of
# libjoule once per seed and worker count, each run in its own process with
# a time limit. A run that hangs or fails is reported with its seed and the
# command that repeats it; the watchdog prints the runtime's state dump
# (what each worker and task waits for) into that run's output first.
#
#   perturb_runs.sh BINARY PERTURB_LIBDIR SEEDS "WORKERS..." TIMEOUT_S [FIRST_SEED] [-- ARGS...]
set -uo pipefail
bin=$1 libdir=$2 seeds=$3 workers=$4 limit=$5 first=${6:-1}
shift $(($# < 6 ? $# : 6))
[[ ${1:-} == -- ]] && shift
args=("$@")
if [[ ! -e $libdir/libjoule.so.0 ]]; then
  echo "perturb_runs: no perturbation variant at $libdir (configure with -DJOULE_PERTURB=ON)" >&2
  exit 2
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
failed=0 runs=0 points=0 start=$SECONDS
for ((seed = first; seed < first + seeds; ++seed)); do
  for w in $workers; do
    runs=$((runs + 1))
    env=(LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" JOULE_PERTURB_SEED=$seed
         JOULE_WORKERS=$w JOULE_SPIN_US=0 JOULE_LENDING=off JOULE_WATCHDOG=$((limit / 2 > 0 ? limit / 2 : 1)))
    timeout -s KILL "$limit" env "${env[@]}" "$bin" "${args[@]}" >"$log" 2>&1
    rc=$?
    # The variant prints its counts when the runtime stops: without that
    # line the run did not go through the points (the wrong library).
    line=$(grep -m1 "^joule: perturbation seed $seed:" "$log")
    if [[ $rc -ne 0 || -z $line ]]; then
      failed=$((failed + 1))
      if [[ $rc -eq 137 ]]; then what="HANG (no end within ${limit}s)"; else what="exit $rc"; fi
      [[ $rc -eq 0 ]] && what="no perturbation report (not the variant library?)"
      echo "perturb_runs: seed $seed, $w workers: $what"
      echo "  repeat: ${env[*]} $bin ${args[*]}"
      tail -n 150 "$log" | sed 's/^/  | /'
    else
      points=$((points + $(sed -E 's/.*; ([0-9]+) points.*/\1/' <<<"$line")))
    fi
  done
done
echo "perturb_runs: $(basename "$bin"): $runs runs (seeds $first..$((first + seeds - 1)), workers $workers)," \
     "$points perturbation points, $failed failed, $((SECONDS - start)) s"
[[ $failed -eq 0 ]]
