# shellcheck shell=bash
# scripts/device-check: the machine, its topology, its frequency, energy and
# GPU interfaces, and the closing summary. Sourced by scripts/device-check
# (its helpers: note, kv, heading, launch, value, ...). Read-only: the one
# write is the current value of scaling_max_freq written back to itself, the
# only way to learn whether cpufreq takes writes (a read-only sysfs mount
# refuses even root).
#
# DEVICE_CHECK_SYS replaces /sys (a folder without spaces), so that the probes'
# branches can be tried here on a made-up tree of cpufreq and powercap files.
sys=${DEVICE_CHECK_SYS:-/sys}

machine() {
  heading "machine"
  local os=unknown
  [[ -r /etc/os-release ]] && os=$("${AWK[@]}" -F= '$1 == "PRETTY_NAME" {
    gsub(/"/, "", $2); print $2 }' /etc/os-release)
  kv "date" "$(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  kv "host" "$(uname -n), $(uname -srm)"
  kv "distribution" "$os"
  kv "glibc" "$(glibc_version); programs run on $glibc_use"
  kv "user" "uid $(id -u 2>/dev/null || echo '?')"
  kv "usable CPUs" "$ncpu ($("${AWK[@]}" '/^Cpus_allowed_list/ { print $2 }' /proc/self/status))"
  [[ -r $sys/fs/cgroup/cpu.max ]] && kv "cgroup cpu.max" "$(value "$sys"/fs/cgroup/cpu.max)"
  kv "memory" "$("${AWK[@]}" '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
  kv "load average at start" "$(cut -d' ' -f1-3 /proc/loadavg)"
  local virt=none
  grep -qw hypervisor /proc/cpuinfo && virt="hypervisor flag set"
  [[ -r $sys/class/dmi/id/sys_vendor ]] &&
    virt+="; $(value "$sys"/class/dmi/id/sys_vendor) $(value "$sys"/class/dmi/id/product_name)"
  kv "virtualisation" "$virt"
  local isolated
  isolated=$(value "$sys"/devices/system/cpu/isolated)
  [[ -n $isolated ]] && kv "isolated CPUs" "$isolated"
  if [[ $layout == bundle ]]; then
    kv "programs" "bundle $src ($("${AWK[@]}" '/^source:/ { $1 = ""; print substr($0, 2) }' "$src/MANIFEST"))"
  else
    kv "programs" "build folder $src"
  fi
  kv "source" "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo 'not a git checkout')"
  kv "mode" "$mode$([[ $quick -eq 1 ]] && echo ', quick'); time budget ${budget} s"
}

# Per CPU: package, core, NUMA node, SMT siblings, from sysfs (what lscpu reads).
cpu_map() {
  local d cpu node nd
  for d in "$sys"/devices/system/cpu/cpu[0-9]*; do
    cpu=${d##*cpu}
    [[ -r $d/topology/core_id ]] || continue
    node=-
    for nd in "$d"/node[0-9]*; do [[ -e $nd ]] && node=${nd##*node}; done
    printf '%s %s %s %s %s\n' "$cpu" "$(value "$d/topology/physical_package_id")" \
      "$(value "$d/topology/core_id")" "$node" "$(value "$d/topology/thread_siblings_list")"
  done
}

topology() {
  heading "CPU topology (/proc/cpuinfo, $sys/devices/system/cpu)"
  "${AWK[@]}" -F': *' '
    /^model name/ && !m { m = $2 } /^vendor_id/ && !v { v = $2 }
    /^cpu family/ && f == "" { f = $2 } /^model\t/ && mo == "" { mo = $2 }
    /^stepping/ && s == "" { s = $2 } /^flags/ && !fl { fl = " " $2 " " }
    END {
      printf "  %-26s %s\n  %-26s %s, family %s, model %s, stepping %s\n", "model name", m,
        "vendor", v, f, mo, s
      split("avx2 fma avx512f avx512_bf16 avx512_fp16 amx_tile", want, " ")
      for (i = 1; i in want; i++) if (index(fl, " " want[i] " ")) isa = isa " " want[i]
      printf "  %-26s%s\n", "vector ISA", isa == "" ? " (none of avx2/avx512/amx)" : isa
    }' /proc/cpuinfo | emit
  cpu_map >"$out/topology/cpus.txt"
  kv "CPUs online" "$(value "$sys"/devices/system/cpu/online)"
  "${AWK[@]}" '{ cpus++
      if (!($2 in pkg)) { pkg[$2]; np++ }
      if (!(($2 "/" $3) in core)) { core[$2 "/" $3]; nc++ }
      if ($4 != "-" && !($4 in node)) { node[$4]; nn++ } }
    END {
      printf "  %-26s %d\n  %-26s %d (%d per socket)\n  %-26s %d\n  %-26s %d\n", "sockets", np,
        "cores", nc, np ? nc / np : 0, "threads per core (SMT)", nc ? cpus / nc : 0,
        "NUMA nodes", nn }' "$out/topology/cpus.txt" | emit
  local nd
  for nd in "$sys"/devices/system/node/node[0-9]*; do
    [[ -d $nd ]] || continue
    kv "  node ${nd##*node}" "CPUs $(value "$nd/cpulist"), $("${AWK[@]}" '/MemTotal/ {
      printf "%.1f GiB", $4 / 1048576 }' "$nd/meminfo" 2>/dev/null)"
  done
  caches
  local f=$sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq
  [[ -r $f ]] && kv "max frequency" "$(($(value "$f") / 1000)) MHz (cpufreq)"
  if [[ $(wc -l <"$out/topology/cpus.txt") -le 64 ]]; then
    note "  per CPU (cpu: socket/core/node, SMT siblings):"
    "${AWK[@]}" '{ printf "%s%4s: %s/%s/%s %-7s", (NR % 4 == 1 ? "   " : ""), $1, $2, $3, $4, $5
      if (NR % 4 == 0) printf "\n" } END { if (NR % 4) printf "\n" }' \
      <(sort -n "$out/topology/cpus.txt") | emit
  fi
  command -v lscpu >/dev/null && { lscpu; echo; lscpu -e; } >"$out/topology/lscpu.txt" 2>&1
  cp /proc/cpuinfo "$out/topology/cpuinfo.txt" 2>/dev/null
  hwloc_summary
}

# Cache levels of cpu0 and how many instances of each the machine has.
caches() {
  local idx level type size inst
  for idx in "$sys"/devices/system/cpu/cpu0/cache/index[0-9]*; do
    [[ -r $idx/level ]] || continue
    level=$(value "$idx/level") type=$(value "$idx/type") size=$(value "$idx/size")
    inst=$(cat "$sys"/devices/system/cpu/cpu[0-9]*/cache/"${idx##*/}"/shared_cpu_list 2>/dev/null |
      sort -u | wc -l)
    kv "L$level ${type,,}" "$size x $inst"
  done
}

hwloc_summary() {
  if ! have lstopo-no-graphics; then
    kv "hwloc" "no lstopo-no-graphics here or in the bundle"
    return
  fi
  cap=30
  local synth
  if synth=$(launch lstopo-no-graphics --no-io --of synthetic 2>"$out/topology/lstopo.err"); then
    kv "hwloc (synthetic)" "$synth"
  else
    kv "hwloc (synthetic)" "not describable ($(first_line "$out/topology/lstopo.err"))"
  fi
  launch lstopo-no-graphics --no-io --of console >"$out/topology/lstopo.txt" 2>&1 ||
    problem "lstopo failed (topology/lstopo.txt)"
  launch lstopo-no-graphics --no-io --of xml - >"$out/topology/lstopo.xml" 2>/dev/null
  kv "hwloc (full)" "topology/lstopo.txt, topology/lstopo.xml"
}

# ---- probes --------------------------------------------------------------------------

probes() {
  cpufreq_probe
  energy_probe
  gpu_probe
  joule_view
}

# count_values FILE: the distinct values of cpu*/cpufreq/FILE, with how many CPUs have each.
count_values() {
  cat "$sys"/devices/system/cpu/cpu[0-9]*/cpufreq/"$1" 2>/dev/null | sort | uniq -c |
    "${AWK[@]}" '{ printf "%s%s (%s CPUs)", (NR > 1 ? ", " : ""), $2, $1 }'
}

cpufreq_probe() {
  heading "cpufreq ($sys/devices/system/cpu/cpu*/cpufreq)"
  local base=$sys/devices/system/cpu/cpu0/cpufreq
  if [[ ! -d $base ]]; then
    kv "cpufreq" "absent: no $base (no DVFS joule can drive)"
    return
  fi
  local pol
  pol=$(ls -d "$sys"/devices/system/cpu/cpufreq/policy[0-9]* 2>/dev/null | wc -l)
  kv "policies" "$pol"
  kv "driver" "$(count_values scaling_driver)"
  kv "governor" "$(count_values scaling_governor)"
  kv "available governors" "$(value "$base/scaling_available_governors")"
  kv "cpuinfo min / max" "$(value "$base/cpuinfo_min_freq") / $(value "$base/cpuinfo_max_freq") kHz"
  kv "scaling min / max (cpu0)" "$(value "$base/scaling_min_freq") / $(value "$base/scaling_max_freq") kHz"
  kv "current (cpu0)" "$(value "$base/scaling_cur_freq") kHz"
  [[ -r $base/scaling_available_frequencies ]] &&
    kv "available frequencies" "$(value "$base/scaling_available_frequencies")"
  [[ -r $base/energy_performance_preference ]] &&
    kv "energy/perf preference" "$(value "$base/energy_performance_preference")"
  local f
  for f in cpufreq/boost intel_pstate/status intel_pstate/no_turbo amd_pstate/status; do
    [[ -r $sys/devices/system/cpu/$f ]] && kv "$f" "$(value "$sys/devices/system/cpu/$f")"
  done
  local writable=()
  for f in scaling_governor scaling_min_freq scaling_max_freq scaling_setspeed; do
    [[ -w $base/$f ]] && writable+=("$f")
  done
  kv "writable (access)" "${writable[*]:-none}"
  if [[ -w $base/scaling_max_freq ]]; then
    local cur err
    cur=$(value "$base/scaling_max_freq")
    if err=$( { printf '%s\n' "$cur" >"$base/scaling_max_freq"; } 2>&1); then
      kv "write test" "scaling_max_freq <- its own value $cur: accepted"
    else
      kv "write test" "scaling_max_freq <- its own value: refused (${err##*: })"
    fi
  fi
  ls -l "$sys"/devices/system/cpu/cpu0/cpufreq/ >"$out/probes/cpufreq-cpu0.txt" 2>&1
}

energy_probe() {
  heading "energy counters (RAPL powercap, perf power events, MSR, hwmon)"
  local z found=0 e1 e2
  for z in "$sys"/class/powercap/*; do
    [[ -e $z/name ]] || continue
    found=1
    if e1=$(value "$z/energy_uj") && [[ -n $e1 ]]; then
      sleep 0.5
      e2=$(value "$z/energy_uj")
      kv "${z##*/}" "$(value "$z/name"): energy_uj readable, $("${AWK[@]}" -v a="$e1" -v b="$e2" \
        'BEGIN { printf "%.1f W over 0.5 s", (b - a) / 0.5e6 }')"
    else
      kv "${z##*/}" "$(value "$z/name"): energy_uj not readable by uid $(id -u)"
    fi
    [[ -e $z/constraint_0_power_limit_uw ]] &&
      kv "  power limit" "$(value "$z/constraint_0_power_limit_uw") uW, $([[ -w $z/constraint_0_power_limit_uw ]] && echo writable || echo read-only)"
  done
  [[ $found -eq 1 ]] || kv "powercap" "absent: no $sys/class/powercap/* (RAPL meter unavailable)"
  local pmu=$sys/bus/event_source/devices/power/events
  if [[ -d $pmu ]]; then
    local ev events=()
    for ev in "$pmu"/*; do [[ $ev == *.* ]] || events+=("${ev##*/}"); done
    kv "perf power events" "${events[*]}"
  else
    kv "perf power events" "absent (no $pmu)"
  fi
  kv "perf_event_paranoid" "$(value /proc/sys/kernel/perf_event_paranoid)"
  if [[ -e /dev/cpu/0/msr ]]; then
    kv "/dev/cpu/0/msr" "present, $([[ -r /dev/cpu/0/msr ]] && echo readable || echo not readable)"
  else
    kv "/dev/cpu/0/msr" "absent (msr module not loaded)"
  fi
  local names=()
  for z in "$sys"/class/hwmon/hwmon*; do [[ -r $z/name ]] && names+=("$(value "$z/name")"); done
  kv "hwmon" "${names[*]:-none}"
}

gpu_probe() {
  heading "GPU (nvidia-smi, NVML)"
  [[ -r /proc/driver/nvidia/version ]] && kv "driver" "$(first_line /proc/driver/nvidia/version)"
  if command -v nvidia-smi >/dev/null; then
    limited 30 nvidia-smi -q >"$out/probes/nvidia-smi-q.txt" 2>&1 ||
      problem "nvidia-smi -q failed (probes/nvidia-smi-q.txt)"
    limited 30 nvidia-smi --query-gpu=index,name,driver_version,pstate,power.draw,power.limit,clocks.sm,clocks.max.sm,temperature.gpu,persistence_mode,compute_mode \
      --format=csv 2>&1 | "${AWK[@]}" '{ print "  " $0 }' | emit
    limited 30 nvidia-smi topo -m >"$out/probes/nvidia-smi-topo.txt" 2>&1 &&
      "${AWK[@]}" 'NF { print "  " $0 }' "$out/probes/nvidia-smi-topo.txt" | emit
    kv "full" "probes/nvidia-smi-q.txt"
  else
    kv "nvidia-smi" "not on PATH"
  fi
  if have nvml_probe; then
    cap=30
    launch nvml_probe 2>&1 | "${AWK[@]}" '{ print "  " $0 }' | emit
  else
    kv "NVML" "nvml_probe not built"
  fi
}

# What joule itself detects (DVFS backend, meter, thermal, counters), with
# JOULE_DVFS=auto but no energy policy: nothing is written.
joule_view() {
  heading "joule's view of the platform (JOULE_REPORT=1, JOULE_DVFS=auto, no policy)"
  local drv
  drv=$(blocked_driver joule) || { kv "joule" "no blocked_joule driver"; return; }
  cap=30
  JOULE_DVFS=auto JOULE_ENERGY_POLICY=none JOULE_REPORT=1 \
    launch "$drv" --app lu --n 256 --bs 64 --reps 1 --workers 1 >"$out/probes/joule-report.txt" 2>&1
  local rc=$?
  "${AWK[@]}" '/^platform:/ || /^policy:/ || /^frequency residency:/ { print "  " $0 }' \
    "$out/probes/joule-report.txt" | emit
  [[ $rc -eq 0 ]] || problem "joule's report run: $(status_text $rc) (probes/joule-report.txt)"
}

summary() {
  heading "summary"
  kv "elapsed" "$SECONDS s of a $budget s budget"
  kv "results" "$out"
  if [[ ${#skipped[@]} -eq 0 ]]; then
    kv "skipped" "nothing"
  else
    # One line per part: a budget cut can skip dozens of runs.
    printf '%s\n' "${skipped[@]}" >"$out/skipped.txt"
    note "  skipped (all of them in skipped.txt):"
    "${AWK[@]}" '{ key = $1; if (match($0, /\([^)]*\)$/)) key = key substr($0, RSTART)
        if (!(key in n)) { first[key] = $0; order[++k] = key }; n[key]++ }
      END { for (i = 1; i <= k; i++) printf "    %s%s\n", first[order[i]],
              (n[order[i]] > 1 ? sprintf(", and %d more like it", n[order[i]] - 1) : "") }' \
      "$out/skipped.txt" | emit
  fi
  if [[ ${#problems[@]} -eq 0 ]]; then
    kv "problems" "none"
  else
    note "  problems:"
    printf '    %s\n' "${problems[@]}" | emit
  fi
}
