# shellcheck shell=bash
# scripts/device-check: the measurements (per-task cost, creation throughput,
# task reductions, NUMA placement, blocked LU / tiled Cholesky, the knapsack
# branch and bound). Sourced by
# scripts/device-check. Each runs one process per cell group, so that a crash
# or a timeout costs one group, and checks the time budget before each.

# blocked_driver RUNTIME: the driver's name (g++'s, else clang++'s).
blocked_driver() {
  local tag
  for tag in gcc clang; do
    have "blocked_$1_$tag" && { echo "blocked_$1_$tag"; return 0; }
  done
  return 1
}

# ---- per-task cost: the Google Benchmark micro-benchmarks ---------------------------

# Google Benchmark JSON (one key per line) -> CSV runtime,workload,workers,ns,status:
# the median over repetitions (the single run when there is one repetition).
micro_parse='
  function val(line) { sub(/^[^:]*: */, "", line); sub(/,$/, "", line); gsub(/"/, "", line); return line }
  /^    {/ { name = agg = msg = ""; ns = ""; err = 0 }
  /"run_name":/ { name = val($0) }
  /"aggregate_name":/ { agg = val($0) }
  /"error_occurred": true/ { err = 1 }
  /"error_message":/ { msg = val($0); gsub(/,/, ";", msg) }
  /"ns_per_task":/ { ns = val($0) + 0 }
  /^    }/ {
    split(name, part, "/"); wl = part[1]
    if (err) { res[wl] = ""; st[wl] = "error: " msg }
    else if (agg == "median" || (agg == "" && !(wl in res))) { res[wl] = ns; st[wl] = "ok" }
  }
  END {
    n = split(wls, want, " ")
    for (i = 1; i <= n; i++) {
      w = want[i]
      if (w in st) print rt "," w "," workers "," res[w] "," st[w]
      else print rt "," w "," workers ",," (rc == 124 ? "timed out" : rc ? "failed (exit " rc ")" : "missing")
    }
  }'

micro() {
  part "per-task cost"
  heading "per-task cost: ns per task (wall / tasks), median of $reps repetitions of >= ${min_time} s"
  note "  one process per runtime and worker count; defaults of each runtime (joule pins its"
  note "  workers, libgomp and libomp do not); lower is better; ratios below 1: joule faster"
  local rts=() rt w
  for rt in joule libgomp libomp tbb; do
    if have "bench_$rt"; then rts+=("$rt"); else skip "micro: bench_$rt absent"; fi
  done
  local csv=$out/micro.csv pattern
  echo "runtime,workload,workers,ns_per_task,status" >"$csv"
  pattern=$(IFS='|'; echo "${workloads[*]}")
  local end
  end=$(section_end 40)
  for w in "${workers[@]}"; do
    for rt in "${rts[@]}"; do
      if [[ $SECONDS -ge $end ]]; then
        skip "micro: $rt at $w workers (time budget)"
        continue
      fi
      progress "micro: $rt, $w workers"
      cap_for 45
      local base=$out/micro/$rt-w$w
      BENCH_WORKERS=$w OMP_NUM_THREADS=$w launch "bench_$rt" \
        --benchmark_filter="^($pattern)/workers:$w/" --benchmark_min_time="$min_time" \
        --benchmark_repetitions="$reps" --benchmark_report_aggregates_only=true \
        --benchmark_format=json >"$base.json" 2>"$base.err"
      local rc=$?
      [[ $rc -eq 0 ]] || problem "micro: $rt at $w workers: $(status_text $rc) (micro/${base##*/}.err)"
      "${AWK[@]}" -v rt="$rt" -v workers="$w" -v rc="$rc" -v wls="${workloads[*]}" \
        "$micro_parse" "$base.json" >>"$csv"
    done
  done
  micro_table "$csv" "${rts[*]}" | emit
  "${AWK[@]}" -F, 'NR > 1 && $5 ~ /^error/ { print "  " $1 " " $2 " " $3 " workers: " $5 }' "$csv" | emit
}

# The table: one row per workload and worker count, one column per runtime,
# then joule / libgomp and joule / the fastest peer.
micro_table() {
  "${AWK[@]}" -F, -v rts="$2" -v wls="${workloads[*]}" '
    function ratio(r) { return sprintf(r < 0.1 ? "%.3f" : "%.2f", r) }
    function cell(v, s) {
      if (s != "ok") return s ~ /^error/ ? "error" : s ~ /timed/ ? "timeout" : "failed"
      return v >= 100 ? sprintf("%.0f", v) : sprintf("%.1f", v)
    }
    NR > 1 { v[$1, $2, $3] = $4; s[$1, $2, $3] = $5; if (!($3 in seen)) { seen[$3]; ws[++nw] = $3 } }
    END {
      nr = split(rts, rt, " "); nl = split(wls, wl, " ")
      printf "  %-12s %7s", "workload", "workers"
      for (i = 1; i <= nr; i++) printf " %9s", rt[i]
      printf " %14s %16s\n", "joule/libgomp", "joule/best peer"
      for (l = 1; l <= nl; l++) for (k = 1; k <= nw; k++) {
        w = ws[k]; printf "  %-12s %7s", wl[l], w
        best = ""
        for (i = 1; i <= nr; i++) {
          key = rt[i] SUBSEP wl[l] SUBSEP w
          printf " %9s", (key in s) ? cell(v[key], s[key]) : "-"
          if (rt[i] != "joule" && s[key] == "ok" && (best == "" || v[key] < best)) best = v[key]
        }
        j = "joule" SUBSEP wl[l] SUBSEP w; g = "libgomp" SUBSEP wl[l] SUBSEP w
        ok = s[j] == "ok"
        printf " %14s", ok && s[g] == "ok" ? ratio(v[j] / v[g]) : "-"
        printf " %16s\n", ok && best != "" ? ratio(v[j] / best) : "-"
      }
    }' "$1"
}

# ---- creation throughput: one producer ---------------------------------------------

# One creator, kProducerTasks tasks of 2 us each, one wait (workloads.hpp
# "producer"): tasks created per second by that thread, and completed per
# second, against the worker count; one process per runtime and count.
producer() {
  part "creation throughput"
  heading "one producer: tasks created / completed per second (millions), 2-us tasks"
  note "  created: the creation loop alone; completed: first creation to the end of the wait"
  local rt w end line
  end=$(section_end 15)
  printf '  %-8s %7s %12s %14s\n' runtime workers created_M/s completed_M/s | emit
  for rt in joule libgomp tbb; do
    have "bench_$rt" || { skip "producer: bench_$rt absent"; continue; }
    for w in "${workers[@]}"; do
      if [[ $SECONDS -ge $end ]]; then
        skip "producer: $rt at $w workers (time budget)"
        continue
      fi
      progress "producer: $rt, $w workers"
      cap_for 30
      line=$(BENCH_WORKERS=$w BENCH_OVERSUB_WORKERS=0 OMP_NUM_THREADS=$w launch "bench_$rt" \
        --benchmark_filter="^producer/workers:$w/" --benchmark_min_time="$min_time" 2>/dev/null |
        grep '^producer/')
      [[ -n $line ]] || { problem "producer: $rt at $w workers: no result"; continue; }
      "${AWK[@]}" -v rt="$rt" -v w="$w" '{
        for (i = 1; i <= NF; i++) {
          split($i, kv, "=")
          v = kv[2]; m = 1
          if (v ~ /k$/) m = 1e3; else if (v ~ /M$/) m = 1e6
          sub(/[kM]$/, "", v)
          if (kv[1] == "created_per_s") c = v * m / 1e6
          if (kv[1] == "completed_per_s") d = v * m / 1e6
        }
        printf "  %-8s %7s %12.2f %14.3f\n", rt, w, c, d }' <<<"$line" | emit
    done
  done
}

# ---- task reductions and NUMA placement ---------------------------------------------

# 16 reducing tasks of 100 us per round, with an operator (private copies,
# bodies overlap) and without (commutative, one at a time), interleaved
# (apps/bench/reduction_overlap); the target on 16 cores is ~0.1 ms a round.
reductions() {
  part "task reductions"
  heading "16 reducing tasks of 100 us a round: private copies vs one at a time (median of $runs x 20 rounds)"
  have reduction_overlap || { skip "reductions: reduction_overlap absent"; return; }
  local w line end
  end=$(section_end 10)
  for w in "${workers[@]}"; do
    [[ $w -ge 2 ]] || continue
    if [[ $SECONDS -ge $end ]]; then
      skip "reductions: $w workers (time budget)"
      continue
    fi
    progress "reductions: $w workers"
    cap_for 30
    line=$(JOULE_WORKERS=$w launch reduction_overlap $((runs * 20)) 2>>"$out/reductions.stderr.txt")
    [[ -n $line ]] || { problem "reductions: $w workers: no result"; continue; }
    printf '  %s\n' "$line" | emit
  done
}

# A memory-bound sweep with the array first-touched by the main thread
# (placed=0) and placed by joule_alloc next to the workers that sweep it
# (placed=1), interleaved (apps/bench/numa_sweep); 256 MiB, 10 sweeps.
numa() {
  part "numa placement"
  heading "memory-bound sweep, 256 MiB x 10, $wide workers: main-thread first touch vs joule_alloc by key (ms)"
  have numa_sweep || { skip "numa: numa_sweep absent"; return; }
  local r placed line end
  end=$(section_end 10)
  for ((r = 0; r < runs; r++)); do
    for placed in 0 1; do
      [[ $SECONDS -lt $end ]] || { skip "numa: run $r placed=$placed (time budget)"; continue; }
      cap_for 30
      line=$(JOULE_WORKERS=$wide launch numa_sweep $placed 256 10 2>>"$out/numa.stderr.txt")
      [[ -n $line ]] || { problem "numa: placed=$placed: no result"; continue; }
      printf '  %s\n' "$line" | emit
    done
  done
}

# ---- blocked LU and tiled Cholesky -------------------------------------------------

blocked() {
  part "blocked LU / Cholesky"
  heading "blocked LU / tiled Cholesky: n $order, $wide workers, GFLOP/s (median of $rounds rounds x $block_reps reps)"
  note "  apps/bench/blocked drivers (g++ kernels, one warm-up rep per process), runtimes"
  note "  rotated every round; best OpenMP = the faster of libgomp and libomp"
  local rts=() drv=() rt d
  for rt in joule libgomp libomp tbb; do
    if d=$(blocked_driver "$rt"); then rts+=("$rt"); drv+=("$d"); else skip "blocked: no $rt driver"; fi
  done
  local raw=$out/blocked/raw.txt end round app bs i k
  : >"$raw"
  end=$(section_end 60)
  for ((round = 0; round < rounds; round++)); do
    for app in lu cholesky; do
      for bs in 128 32; do
        for ((k = 0; k < ${#rts[@]}; k++)); do
          i=$(((k + round) % ${#rts[@]}))
          if [[ $SECONDS -ge $end ]]; then
            skip "blocked: $app bs $bs ${rts[i]}, round $((round + 1)) (time budget)"
            continue
          fi
          progress "blocked: $app, bs $bs, ${rts[i]}, round $((round + 1))"
          cap_for 90
          local log=$out/blocked/${rts[i]}-$app-$bs-r$round
          OMP_NUM_THREADS=$wide launch "${drv[i]}" --app "$app" --n "$order" --bs "$bs" \
            --workers "$wide" --reps "$block_reps" --warmup 1 >"$log.out" 2>"$log.err"
          local rc=$?
          grep '^result ' "$log.out" >>"$raw"
          [[ $rc -eq 0 ]] || problem "blocked: ${rts[i]} $app bs $bs: $(status_text $rc) (blocked/${log##*/}.err)"
        done
      done
    done
  done
  "${AWK[@]}" 'BEGIN { print "runtime,compiler,app,n,bs,workers,rep,tasks,wall_s,body_s,gflops" }
    { for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
      print f["runtime"] "," f["compiler"] "," f["app"] "," f["n"] "," f["bs"] "," f["workers"] \
        "," f["rep"] "," f["tasks"] "," f["wall_s"] "," f["body_s"] "," f["gflops"] }' \
    "$raw" >"$out/blocked.csv"
  blocked_table "$out/blocked.csv" "${rts[*]}" | emit
}

blocked_table() {
  "${AWK[@]}" -F, -v rts="$2" '
    function median(key,   n, i, j, t, a) {
      n = cnt[key]; for (i = 1; i <= n; i++) a[i] = g[key, i]
      for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    NR > 1 { key = $3 SUBSEP $5 SUBSEP $1; g[key, ++cnt[key]] = $11; tasks[$3, $5] = $8 }
    END {
      nr = split(rts, rt, " ")
      printf "  %-9s %4s %7s", "app", "bs", "tasks"
      for (i = 1; i <= nr; i++) printf " %9s", rt[i]
      printf " %18s %10s\n", "joule/best OpenMP", "joule/tbb"
      split("lu cholesky", apps, " "); split("128 32", sizes, " ")
      for (a = 1; a <= 2; a++) for (b = 1; b <= 2; b++) {
        app = apps[a]; bs = sizes[b]
        if (!((app, bs) in tasks)) continue
        printf "  %-9s %4s %7s", app, bs, tasks[app, bs]
        delete m
        for (i = 1; i <= nr; i++) {
          key = app SUBSEP bs SUBSEP rt[i]
          if (key in cnt) { m[rt[i]] = median(key); printf " %9.1f", m[rt[i]] } else printf " %9s", "-"
        }
        omp = ""
        if ("libgomp" in m) omp = m["libgomp"]
        if ("libomp" in m && (omp == "" || m["libomp"] > omp)) omp = m["libomp"]
        printf " %18s", ("joule" in m) && omp != "" ? sprintf("%.2f", m["joule"] / omp) : "-"
        printf " %10s\n", ("joule" in m) && ("tbb" in m) ? sprintf("%.2f", m["joule"] / m["tbb"]) : "-"
      }
    }' "$1"
}

# ---- knapsack: branch and bound on libgomp and libjoule-omp --------------------------

knapsack() {
  part "knapsack"
  heading "knapsack branch and bound: $items items, cutoff 12, $runs run(s) each, median (min-max)"
  note "  one gcc -fopenmp binary (libgomp), run as is and with LD_PRELOAD=libjoule-omp.so;"
  note "  nodes explored depend on the order tasks run in (apps/bench/knapsack/knapsack.c)"
  if ! have knapsack; then
    skip "knapsack: not built"
    return
  fi
  local rts=(libgomp)
  if [[ -f $joule_omp ]]; then rts+=(libjoule-omp); else skip "knapsack: no libjoule-omp.so"; fi
  local csv=$out/knapsack.csv t run rt line rc
  echo "runtime,threads,run,best,nodes,seconds,status" >"$csv"
  for t in "${threads[@]}"; do
    for ((run = 1; run <= runs; run++)); do
      for rt in "${rts[@]}"; do
        if [[ $SECONDS -ge $((deadline - 5)) ]]; then
          skip "knapsack: $rt, $t threads, run $run (time budget)"
          continue
        fi
        progress "knapsack: $rt, $t threads, run $run"
        cap_for 60
        local pre=()
        [[ $rt == libjoule-omp ]] && pre=(--preload "$joule_omp")
        line=$(OMP_NUM_THREADS=$t launch "${pre[@]}" knapsack "$items" 12 1 2>>"$out/knapsack/stderr.txt")
        rc=$?
        printf '%s %s %s: %s\n' "$rt" "$t" "$run" "$line" >>"$out/knapsack/raw.txt"
        [[ $rc -eq 0 ]] || problem "knapsack: $rt, $t threads: $(status_text $rc)$(
          [[ $rc -eq 1 ]] && echo ', best value differs from dynamic programming')"
        "${AWK[@]}" -v rt="$rt" -v t="$t" -v run="$run" -v rc="$rc" '
          $1 == "best" { printf "%s,%s,%s,%s,%s,%s,%s\n", rt, t, run, $2, $4, $6,
                         rc ? "exit " rc : $8 == t ? "ok" : "ran " $8 " threads"; done = 1 }
          END { if (!done) printf "%s,%s,%s,,,,%s\n", rt, t, run, rc == 124 ? "timed out" : "exit " rc }' \
          <<<"$line" >>"$csv"
      done
    done
  done
  knapsack_table "$csv" | emit
}

knapsack_table() {
  "${AWK[@]}" -F, '
    function sorted(key, what,   n, i, j, t) {
      n = cnt[key]; for (i = 1; i <= n; i++) a[i] = d[key, what, i]
      for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
      return n
    }
    function summary(key, what, fmt,   n, med) {
      n = sorted(key, what); med = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
      m[key, what] = med
      return sprintf(fmt " (" fmt "-" fmt ")", med, a[1], a[n])
    }
    NR > 1 {
      key = $2 SUBSEP $1
      if (!($2 in seen)) { seen[$2]; ts[++nt] = $2 }
      if ($7 != "ok") { bad[key] = bad[key] " " $7; next }
      c = ++cnt[key]; d[key, "nodes", c] = $5; d[key, "s", c] = $6
    }
    END {
      printf "  %7s %-13s %-32s %-26s %s\n", "threads", "runtime", "nodes explored", "seconds", "failed runs"
      split("libgomp libjoule-omp", rt, " ")
      for (k = 1; k <= nt; k++) for (i = 1; i <= 2; i++) {
        key = ts[k] SUBSEP rt[i]
        if (!(key in cnt) && !(key in bad)) continue
        printf "  %7s %-13s", ts[k], rt[i]
        if (key in cnt) printf " %-32s %-26s", summary(key, "nodes", "%.0f"), summary(key, "s", "%.4f")
        else printf " %-32s %-26s", "-", "-"
        printf " %s\n", (key in bad) ? substr(bad[key], 2) : ""
      }
      for (k = 1; k <= nt; k++) {
        j = ts[k] SUBSEP "libjoule-omp"; g = ts[k] SUBSEP "libgomp"
        if ((j, "nodes") in m && (g, "nodes") in m && m[g, "nodes"] > 0 && m[g, "s"] > 0)
          printf "  %s threads: libjoule-omp / libgomp: nodes %.2f, seconds %.2f\n", ts[k],
            m[j, "nodes"] / m[g, "nodes"], m[j, "s"] / m[g, "s"]
      }
    }' "$1"
}
