#!/usr/bin/env bash
# The instruction-count guard can fail: scripts/icount --check against a
# baseline of its own making passes, fails once the baseline says the count
# was 10 % lower (a growth), and passes with a note once it says 10 % higher.
#   icount_guard_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
icount=("$src/scripts/icount" --build-dir "$build" --workloads chain --workers 1 --tasks 1000
        --baseline "$tmp/baseline.json")

"${icount[@]}" --update --reason "guard test" >/dev/null
"${icount[@]}" --check >"$tmp/same.txt" 2>&1 || { cat "$tmp/same.txt"; echo "FAIL: unchanged count rejected"; exit 1; }

scale() {
  python3 - "$tmp/baseline.json" "$1" <<'PY'
import json, sys
p, f = sys.argv[1], float(sys.argv[2])
b = json.load(open(p))
b["counts"] = {k: v * f for k, v in b["counts"].items()}
json.dump(b, open(p, "w"))
PY
}
scale 0.9
if "${icount[@]}" --check >"$tmp/grew.txt" 2>&1; then
  cat "$tmp/grew.txt"; echo "FAIL: a growth of 11 % passed"; exit 1
fi
grep -q "FAILED: grew by more than 5 %.*chain/1w/1000" "$tmp/grew.txt" || { cat "$tmp/grew.txt"; exit 1; }
scale 1.2222  # 0.9 x 1.2222: the baseline 10 % above the count
"${icount[@]}" --check >"$tmp/fell.txt" 2>&1 || { cat "$tmp/fell.txt"; echo "FAIL: a gain was rejected"; exit 1; }
grep -q "chain/1w/1000 fell by more than 5 %" "$tmp/fell.txt" || { cat "$tmp/fell.txt"; exit 1; }
echo "icount guard: passes the same count, fails an 11 % growth, notes a 10 % gain"
