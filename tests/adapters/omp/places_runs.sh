#!/bin/sh
# Places and binding end to end, on a program linked with libgomp as usual
# (places.c), with libjoule-omp preloaded.
#
#   places_runs.sh usage PRELOAD PROGRAM BIND
#       `PROGRAM usage N` with OMP_PROC_BIND=BIND ("unset": not set) and each
#       OMP_PLACES form, then with GOMP_CPU_AFFINITY: N is the number of CPUs
#       of the mask, and every run must run its tasks on all of them, each
#       team member bound to a CPU of its own
#   places_runs.sh compare PRELOAD PROGRAM
#       `PROGRAM compare` (or `primary`) under each binding and places,
#       plain (libgomp) and preloaded: compare_runs.sh must find the same
#       places, bindings and members' places
#
# Prints one line per run; exits 1 when any fails.
set -u
mode=$1 preload=$2 program=$3
here=$(dirname "$0")
failed=0

# The mask's CPUs, one per line (Cpus_allowed_list: "0-3,6").
mask_cpus() {
  sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status | tr ',' '\n' |
    while IFS=- read -r a b; do seq "$a" "${b:-$a}"; done
}
cpus=$(mask_cpus)
n=$(echo "$cpus" | wc -l)
each=$(echo "$cpus" | sed 's/.*/{&}/' | paste -sd, -)        # {0},{1},...
one="{$(echo "$cpus" | paste -sd, -)}"                      # {0,1,...}
listed=$(echo "$cpus" | paste -sd' ' -)                     # 0 1 ...

run_usage() {  # run_usage WHAT VAR=VALUE...
  what=$1
  shift
  if out=$(env -u OMP_NUM_THREADS "$@" LD_PRELOAD="$preload" "$program" usage "$n" 2>&1); then
    echo "ok   $what: $(echo "$out" | head -1)"
  else
    echo "FAIL $what:"
    echo "$out"
    failed=1
  fi
}

run_compare() {  # run_compare WHAT ARG VAR=VALUE...
  what=$1 arg=$2
  shift 2
  if out=$(env -u OMP_NUM_THREADS "$@" sh "$here/compare_runs.sh" "$preload" "$program" "$arg" 2>&1) &&
    echo "$out" | grep -q "compare_runs: identical"; then
    echo "ok   $what"
  else
    echo "FAIL $what:"
    echo "$out"
    failed=1
  fi
}

if [ "$mode" = usage ]; then
  bind=$4
  set -- X=1
  [ "$bind" = unset ] || set -- "OMP_PROC_BIND=$bind"
  for places in unset threads cores sockets ll_caches numa_domains "$each" "$one"; do
    if [ "$places" = unset ]; then
      run_usage "OMP_PROC_BIND=$bind" "$@"
    else
      run_usage "OMP_PROC_BIND=$bind OMP_PLACES=$places" "$@" "OMP_PLACES=$places"
    fi
  done
  run_usage "OMP_PROC_BIND=$bind GOMP_CPU_AFFINITY=$listed" "$@" "GOMP_CPU_AFFINITY=$listed"
  # Synthetic machines over the same CPUs (libjoule only: libgomp reads
  # /sys): one core holding every CPU, and cores of two; places with several
  # CPUs still give each worker a CPU of its own.
  top=$(echo "$cpus" | tail -1)
  for machine in "pack:1 core:1 pu:$((top + 1))" "pack:1 core:$((top / 2 + 1)) pu:2"; do
    for places in cores sockets; do
      run_usage "OMP_PROC_BIND=$bind HWLOC_SYNTHETIC=$machine OMP_PLACES=$places" "$@" \
        "HWLOC_SYNTHETIC=$machine" HWLOC_THISSYSTEM=1 "OMP_PLACES=$places"
    done
  done
else
  for bind in true close spread spread,close false; do
    for places in unset threads cores sockets "$each"; do
      if [ "$places" = unset ]; then
        run_compare "OMP_PROC_BIND=$bind" compare "OMP_PROC_BIND=$bind"
      else
        run_compare "OMP_PROC_BIND=$bind OMP_PLACES=$places" compare "OMP_PROC_BIND=$bind" \
          "OMP_PLACES=$places"
      fi
    done
  done
  run_compare "GOMP_CPU_AFFINITY=$listed" compare "GOMP_CPU_AFFINITY=$listed"
  run_compare "OMP_PLACES=cores" compare OMP_PLACES=cores
  # primary: libgomp puts the whole team on the primary's place, joule puts
  # its workers on distinct CPUs (docs/openmp.md): only the primary compares.
  for places in threads cores; do
    run_compare "OMP_PROC_BIND=primary OMP_PLACES=$places (primary thread)" primary \
      OMP_PROC_BIND=primary "OMP_PLACES=$places"
  done
fi
[ "$failed" = 0 ] && echo "places_runs: all passed"
exit "$failed"
