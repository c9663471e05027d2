#!/usr/bin/env bash
# spank_joule.so under a real single-node Slurm: a private munged, slurmctld
# and slurmd, all in a temporary directory on free ports, so nothing touches
# /etc/slurm, /etc/munge or a system munged.
#
#   slurm_test.sh SPANK_SO [JOULED JOULE_CTL ENERGY_BENCH]
#
# Exit 77 (ctest's SKIP_RETURN_CODE) when not root or without slurmctld,
# slurmd, srun or munged. JOULED, JOULE_CTL and ENERGY_BENCH, when given,
# add the end-to-end run: jouled over a fake sysfs tree, a joule program
# submitted with --joule-energy changes frequencies through it, the job's
# record appears in `joule-ctl jobs`, and the tree is as found. Without
# them the backstop is checked against an absent service.
set -euo pipefail

spank_so=${1:?usage: slurm_test.sh SPANK_SO [JOULED] [JOULE_CTL]}
jouled=${2:-}
joule_ctl=${3:-}
energy_bench=${4:-}

if [[ $(id -u) -ne 0 ]]; then
  echo "SKIP: needs root (slurmd runs jobs as their user and the plugin's epilog as root)"
  exit 77
fi
for tool in munged slurmctld slurmd srun sbatch sinfo scontrol; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "SKIP: $tool not found (scripts/install-deps installs slurmctld slurmd slurm-client munge)"
    exit 77
  fi
done
[[ -f $spank_so ]] || { echo "FAIL: no plugin at $spank_so"; exit 1; }

# The job environment must come from the plugin, not from whoever runs ctest.
while read -r var; do unset "$var"; done < <(compgen -e | grep '^JOULE_' || true)

tmp=$(mktemp -d /tmp/joule-slurm.XXXXXX)
chmod 700 "$tmp"
pids=()

dump_logs() {
  local f
  for f in "$tmp"/munged.log "$tmp"/slurmctld.log "$tmp"/slurmd.log; do
    [[ -f $f ]] || continue
    echo "---- $f (last 40 lines)"
    tail -n 40 "$f"
  done
}

cleanup() {
  local rc=$? pid
  [[ $rc -ne 0 ]] && dump_logs
  # slurmd before slurmctld before munged: each needs the next to shut down cleanly.
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    pid=${pids[i]}
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$tmp"
  exit "$rc"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*"
  exit 1
}

# Free TCP ports: bound to port 0 by the kernel, then released.
free_ports() {
  python3 -c '
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))' "$1"
}

# ---- munge: its own key, socket, pid, log and seed files.
dd if=/dev/urandom of="$tmp/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge.key"
munge_sock=$tmp/munge.sock
munged --foreground --force --socket="$munge_sock" --key-file="$tmp/munge.key" \
  --pid-file="$tmp/munged.pid" --log-file="$tmp/munged.log" --seed-file="$tmp/munged.seed" &
pids+=($!)
for _ in $(seq 100); do [[ -S $munge_sock ]] && break; sleep 0.1; done
[[ -S $munge_sock ]] || fail "munged did not create $munge_sock"

# ---- Slurm: one node, this machine, every file in $tmp.
node=$(hostname -s)
read -r ctld_port slurmd_port < <(free_ports 2)
mem_mb=$(awk '/^MemTotal:/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
mkdir -p "$tmp/state" "$tmp/spool"
service_sock=$tmp/jouled.sock
write_plugstack() {
  echo "optional $spank_so $*" >"$tmp/plugstack.conf"
}
write_plugstack "socket=$service_sock"
export SLURM_CONF=$tmp/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=joule-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$munge_sock
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
SlurmdDebug=verbose
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
PlugStackConfig=$tmp/plugstack.conf
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$mem_mb State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=10 State=UP
EOF

slurmctld -D -i -f "$SLURM_CONF" >"$tmp/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$tmp/slurmd.out" 2>&1 &
pids+=($!)

state=""
for _ in $(seq 120); do
  state=$(sinfo -h -n "$node" -o %T 2>/dev/null || true)
  [[ $state == idle ]] && break
  sleep 0.5
done
[[ $state == idle ]] || fail "node $node not idle after 60 s (state '$state')"
echo "slurm up: node $node idle, slurmctld :$ctld_port, slurmd :$slurmd_port"

run_srun() { timeout 60 srun -N1 -n1 "$@"; }

# expect_var OUTPUT VAR VALUE: OUTPUT (env's) has VAR=VALUE exactly.
expect_var() {
  grep -qx "$2=$3" <<<"$1" || fail "expected $2=$3 in the job's environment; it has: $(grep '^JOULE_' <<<"$1" | tr '\n' ' ')"
}

# ---- the option is listed, and its allowed values with it.
help=$(srun --help 2>&1)
grep -q -- "--joule-energy" <<<"$help" || fail "srun --help does not list --joule-energy"
echo "ok: srun --help lists --joule-energy"

# ---- a policy: its name, DVFS on, the service socket from plugstack.conf.
out=$(run_srun --joule-energy=fg-energylb env)
expect_var "$out" JOULE_ENERGY_POLICY fg-energylb
expect_var "$out" JOULE_DVFS auto
expect_var "$out" JOULE_SERVICE_SOCKET "$service_sock"
echo "ok: --joule-energy=fg-energylb"

# ---- off: no frequency changes and no policy.
out=$(run_srun --joule-energy=off env)
expect_var "$out" JOULE_DVFS none
expect_var "$out" JOULE_ENERGY_POLICY none
echo "ok: --joule-energy=off"

# ---- a bad value fails in srun, before a job exists, naming the allowed values.
jobs_before=$(scontrol show jobs -o 2>/dev/null | grep -c JobId= || true)
rc=0
err=$(run_srun --joule-energy=bogus true 2>&1) || rc=$?
[[ $rc -ne 0 ]] || fail "srun --joule-energy=bogus succeeded"
grep -q "joule-energy=bogus" <<<"$err" || fail "the error does not name the option: $err"
grep -q "allowed values: auto, off, none, fg-energylb" <<<"$err" ||
  fail "the error does not list the allowed values: $err"
jobs_after=$(scontrol show jobs -o 2>/dev/null | grep -c JobId= || true)
[[ $jobs_after -eq $jobs_before ]] || fail "srun --joule-energy=bogus created a job"
echo "ok: --joule-energy=bogus rejected by srun: $(grep -m1 joule-energy <<<"$err")"

# ---- what the user exported wins.
out=$(JOULE_DVFS=none run_srun --joule-energy=auto env)
expect_var "$out" JOULE_DVFS none
echo "ok: the user's JOULE_DVFS=none kept under --joule-energy=auto"

# ---- sbatch (allocator context, then the batch step).
batch_out=$tmp/batch.out
timeout 60 sbatch --wait --joule-energy=queue-depth -o "$batch_out" --wrap env >/dev/null
out=$(cat "$batch_out")
expect_var "$out" JOULE_ENERGY_POLICY queue-depth
expect_var "$out" JOULE_DVFS auto
echo "ok: sbatch --joule-energy=queue-depth"

# ---- the site's defaults: default_policy for auto, default=off without the option.
write_plugstack "socket=$service_sock default_policy=cg-energylb"
out=$(run_srun --joule-energy=auto env)
expect_var "$out" JOULE_ENERGY_POLICY cg-energylb
write_plugstack "default=off"
out=$(run_srun env)
expect_var "$out" JOULE_DVFS none
grep -q '^JOULE_SERVICE_SOCKET=' <<<"$out" && fail "JOULE_SERVICE_SOCKET set without socket="
echo "ok: plugstack default_policy= and default=off"

# ---- bad plugstack arguments: the job still runs, slurmd's log names the argument.
write_plugstack "socket=$service_sock colour=blue"
out=$(run_srun --joule-energy=fg-energylb env) || fail "a job failed under a bad plugstack argument"
grep -q '^JOULE_ENERGY_POLICY=' <<<"$out" && fail "a disabled plugin still set the environment"
for _ in $(seq 50); do grep -q "colour=blue" "$tmp/slurmd.log" && break; sleep 0.1; done
grep "spank_joule" "$tmp/slurmd.log" | grep "colour=blue" | grep -q "allowed keys: socket, default_policy, default" ||
  fail "slurmd's log does not name the bad argument and the allowed keys"
echo "ok: bad plugstack argument logged, job unaffected"
write_plugstack "socket=$service_sock"

# ---- end to end: jouled over a fake tree, a joule job through Slurm.
# A fake cpufreq policy per CPU (userspace governor, four P-states) and one
# RAPL package whose counter a background loop advances while the job runs.
make_fake_tree() {
  local root=$1 c d
  for ((c = 0; c < $(nproc); c++)); do
    d=$root/sys/devices/system/cpu/cpu$c/cpufreq
    mkdir -p "$d" "$root/sys/devices/system/cpu/cpu$c/topology"
    echo 0 >"$root/sys/devices/system/cpu/cpu$c/topology/physical_package_id"
    echo acpi-cpufreq >"$d/scaling_driver"
    echo ondemand >"$d/scaling_governor"
    echo "conservative ondemand userspace powersave performance" >"$d/scaling_available_governors"
    echo "2400000 2000000 1600000 1200000 " >"$d/scaling_available_frequencies"
    echo "<unsupported>" >"$d/scaling_setspeed"
    echo 1200000 >"$d/scaling_min_freq"
    echo 2400000 >"$d/scaling_max_freq"
    echo 2400000 >"$d/scaling_cur_freq"
    echo 1200000 >"$d/cpuinfo_min_freq"
    echo 2400000 >"$d/cpuinfo_max_freq"
    echo "$c" >"$d/related_cpus"
    echo "$c" >"$d/affected_cpus"
  done
  d=$root/sys/class/powercap/intel-rapl:0
  mkdir -p "$d"
  echo package-0 >"$d/name"
  echo 5000000 >"$d/energy_uj"
  echo 262143328850 >"$d/max_energy_range_uj"
}

# Every file of the tree but the energy counter, with its contents.
tree_state() { (cd "$1" && find sys -type f ! -name energy_uj -print0 | sort -z | xargs -0 md5sum); }

end_to_end() {
  [[ -x $energy_bench ]] || fail "no energy_bench at '$energy_bench' for the end-to-end run"
  local fake=$tmp/fake counter=$tmp/fake/sys/class/powercap/intel-rapl:0/energy_uj
  make_fake_tree "$fake"
  local before
  before=$(tree_state "$fake")
  printf '[[allow]]\nusers = ["root"]\ncontrols = ["frequency", "energy"]\n' >"$tmp/access.toml"
  chmod 600 "$tmp/access.toml"
  "$jouled" --foreground --sysfs-root "$fake" --socket "$service_sock" --access "$tmp/access.toml" \
    --state-dir "$tmp/jstate" 2>"$tmp/jouled.log" &
  pids+=($!)
  for _ in $(seq 100); do [[ -S $service_sock ]] && break; sleep 0.1; done
  [[ -S $service_sock ]] || { cat "$tmp/jouled.log"; fail "jouled did not create $service_sock"; }
  # The package draws 1 J every 10 ms while the job runs.
  (while :; do
    e=$(<"$counter")
    echo $((e + 1000000)) >"$counter"
    sleep 0.01
  done) &
  local meter=$!
  local job out=$tmp/e2e.out
  job=$(timeout 120 sbatch --parsable --wait --joule-energy=fg-energylb -o "$out" \
    --wrap "JOULE_REPORT=1 JOULE_WORKERS=2 $energy_bench iter 60 3000") ||
    { cat "$out" "$tmp/jouled.log"; fail "the joule job failed"; }
  job=${job%%;*}
  kill "$meter" 2>/dev/null; wait "$meter" 2>/dev/null || true
  grep -q "auto: jouled at $service_sock" "$out" ||
    { cat "$out"; fail "the job did not use jouled (its report has no 'auto: jouled at $service_sock')"; }
  grep -q "job=$job .*file=" "$tmp/jouled.log" ||
    { cat "$tmp/jouled.log"; fail "jouled's audit log shows no change for job $job"; }
  echo "ok: job $job changed frequencies through jouled ($(grep -c "job=$job .*file=" "$tmp/jouled.log") audit lines)"
  # The record: written when the job's last lease ends; job-end (the epilog) closes the rest.
  local rec=""
  for _ in $(seq 100); do
    rec=$("$joule_ctl" jobs --socket "$service_sock" --job "$job" 2>&1 || true)
    grep -q "job=$job " <<<"$rec" && break
    sleep 0.1
  done
  grep -q "job=$job .*energy_j=" <<<"$rec" || fail "joule-ctl jobs has no record of job $job: $rec"
  local joules
  joules=$(grep -o 'energy_j=[0-9.]*' <<<"$rec" | head -1 | cut -d= -f2)
  awk -v j="$joules" 'BEGIN { exit !(j > 0) }' || fail "job $job's record has no energy: $rec"
  echo "ok: joule-ctl jobs: $rec"
  local line="spank_joule: job $job: jouled ended"
  for _ in $(seq 100); do grep -qF "$line" "$tmp/slurmd.log" && break; sleep 0.1; done
  grep -qF "$line" "$tmp/slurmd.log" || fail "no '$line' in slurmd's log (the backstop did not reach jouled)"
  echo "ok: backstop: $(grep -F "$line" "$tmp/slurmd.log" | tail -1 | sed 's/.*spank_joule/spank_joule/')"
  [[ $(tree_state "$fake") == "$before" ]] || fail "the fake tree differs after the job"
  echo "ok: the fake tree is as found"
}

# ---- the backstop at job end.
if [[ -z $jouled ]]; then
  # No service: the epilog says so in one info line; the job is unaffected.
  job=$(timeout 60 sbatch --parsable --wait --joule-energy=fg-energylb -o /dev/null --wrap true)
  job=${job%%;*}
  line="spank_joule: job $job: no jouled at $service_sock"
  for _ in $(seq 100); do grep -qF "$line" "$tmp/slurmd.log" && break; sleep 0.1; done
  grep -qF "$line" "$tmp/slurmd.log" || fail "no '$line' in slurmd's log (the epilog backstop did not run)"
  if grep "spank_joule" "$tmp/slurmd.log" | grep -q "job $job: .*refused"; then
    fail "the backstop logged an error without a service"
  fi
  echo "ok: backstop without jouled: '$line'"
  echo "end-to-end with jouled skipped: jouled not built in this tree"
else
  end_to_end
fi

echo "PASS"
