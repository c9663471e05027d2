# shellcheck shell=bash
# scripts/device-check: the "cuda" part. The tests labelled `cuda` (they need
# a real GPU: joule's CUDA device, tasks and NVML against the driver) and
# split-gpu (apps/split_gpu): CPU only, GPU only and the work splitter at
# energy, time and edp, one table with measured GPU energy (NVML) and the
# CPUs' (RAPL or the model, labelled). Without a GPU the part is skipped with
# split-gpu's "no CUDA device: <why>". Sourced by scripts/device-check.

cuda_part() {
  part "cuda"
  heading "cuda: GPU tests and the CPU/GPU work splitter (split-gpu)"
  mkdir -p "$out/cuda/tests"
  if ! have split-gpu; then
    note "  split-gpu not built (no CUDA toolkit at build time)"
    skip "cuda: split-gpu not built"
    return
  fi
  local line rc
  cap_for 60
  line=$(launch split-gpu --modes gpu --iters 1 --n 64 2>"$out/cuda/probe.err")
  rc=$?
  if [[ $rc -eq 77 ]]; then
    note "  ${line:-no CUDA device}"
    skip "cuda: ${line:-no CUDA device}"
    return
  fi
  if [[ $rc -ne 0 ]]; then
    problem "cuda: split-gpu on one iteration: $(status_text $rc) ($(first_line "$out/cuda/probe.err"))"
    return
  fi
  cuda_tests
  cuda_split
}

# The cuda-labelled tests: from the bundle's list (cuda-tests.txt: NAME
# PROGRAM ARGS...), or ctest -L cuda in a build folder.
cuda_tests() {
  local end
  end=$(section_end 50)
  if [[ $layout == build ]]; then
    cap_for $((end - SECONDS))
    limited "$cap" ctest --test-dir "$src" -L '^cuda$' --output-on-failure \
      >"$out/cuda/tests/ctest.txt" 2>&1 || problem "cuda: ctest -L cuda failed (cuda/tests/ctest.txt)"
    "${AWK[@]}" '/tests passed|Skipped|Failed|\*\*\*/ { print "  " $0 }' "$out/cuda/tests/ctest.txt" | emit
    return
  fi
  if [[ ! -s $src/cuda-tests.txt ]]; then
    note "  no cuda-labelled tests in this bundle"
    return
  fi
  local name exe args result rc passed=0 skipped_n=0 failed=0
  while read -r name exe args; do
    if [[ $SECONDS -ge $((end - 5)) ]]; then
      skip "cuda: test $name (time budget)"
      continue
    fi
    progress "cuda test $name"
    cap_for 120
    # shellcheck disable=SC2086 # the list's arguments are words
    launch "$exe" $args </dev/null >"$out/cuda/tests/$name.txt" 2>&1
    rc=$?
    if [[ $rc -eq 77 ]] || { [[ $rc -eq 0 ]] && grep -q '\[  SKIPPED \]' "$out/cuda/tests/$name.txt"; }; then
      result="skipped: $(grep -m1 -o 'no CUDA device.*' "$out/cuda/tests/$name.txt" || echo see log)"
      skipped_n=$((skipped_n + 1))
    elif [[ $rc -eq 0 ]]; then
      result=passed
      passed=$((passed + 1))
    else
      result="FAILED ($(status_text $rc))"
      failed=$((failed + 1))
      problem "cuda: test $name: $(status_text $rc) (cuda/tests/$name.txt)"
    fi
    kv "$name" "$result"
  done <"$src/cuda-tests.txt"
  kv "cuda tests" "$passed passed, $skipped_n skipped, $failed failed"
}

cuda_split() {
  local n=4096 iters=20
  [[ $mode == local ]] && n=1024 iters=8
  [[ $quick -eq 1 ]] && n=256 iters=4
  progress "split-gpu n $n, $iters iterations per mode"
  cap_for 240
  launch split-gpu --n "$n" --iters "$iters" --clocks auto --json-file "$out/cuda/split_gpu.json" \
    >"$out/cuda/split_gpu.txt" 2>"$out/cuda/split_gpu.err"
  rc=$?
  "${AWK[@]}" '{ print "  " $0 }' "$out/cuda/split_gpu.txt" | emit
  [[ $rc -eq 0 ]] ||
    problem "cuda: split-gpu: $(status_text "$rc") ($(first_line "$out/cuda/split_gpu.err"))"
}
