# shellcheck shell=bash
# scripts/device-check: node-scale decision costs on the 16-core machine:
# one energy-controller decision (queue-depth) at 16 workers on 16 per-core
# emulated DVFS domains, the owners' task-boundary check, and the lending
# session's acquire on a 16-CPU node table (apps/bench/node_scale_costs;
# docs/performance.md, "Node-scale decisions"). Sourced by
# scripts/device-check.

node_scale() {
  part "node scale"
  heading "node-scale decisions: 16 workers, 16 per-core emulated DVFS domains (wall clock, ns per call)"
  if ! have node_scale_costs; then
    skip "node scale: node_scale_costs not built"
    return
  fi
  local line rc
  cap_for 60
  line=$(launch node_scale_costs --n 16 --calls 20000 --decisions 2000 2>>"$out/node_scale.stderr.txt")
  rc=$?
  printf '%s\n' "$line" >"$out/node_scale.txt"
  [[ $rc -eq 0 ]] || problem "node scale: $(status_text $rc)"
  printf '%s\n' "$line" | awk '/^phase/ { printf "  %-14s %10s ns per call (n %s)\n", $2, $8, $4 }' | emit
}
