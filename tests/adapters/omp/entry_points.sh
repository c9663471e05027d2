#!/bin/sh
# Every entry point libgomp exports that gcc/gfortran emit for host
# execution (GOMP_* and omp_*; OpenACC's GOACC_*/acc_* and the plugin
# interface GOMP_PLUGIN_* are out of scope) must be defined by
# libjoule-omp, and each GOMP_* name must appear in docs/openmp.md's list
# of entry points with its status.
#
#   entry_points.sh LIBGOMP LIBJOULE_OMP OPENMP_MD
#
# Prints the counts; exits 1 naming every gap.
set -u
libgomp=$(readlink -f "$1") joule=$2 doc=$3
exports() {
  nm -D --defined-only "$1" | awk '$2 ~ /^[TWi]$/ {print $3}' | sed 's/@.*//' |
    grep -E '^(GOMP|omp)_' | grep -v '^GOMP_PLUGIN_' | sort -u
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
exports "$libgomp" >"$tmp/gomp"
exports "$joule" >"$tmp/joule"
[ -s "$tmp/gomp" ] || { echo "entry_points: no GOMP_/omp_ symbols in $libgomp"; exit 1; }
comm -23 "$tmp/gomp" "$tmp/joule" >"$tmp/missing"
: >"$tmp/undocumented"
grep '^GOMP_' "$tmp/gomp" | while read -r name; do
  grep -q "\`$name\`" "$doc" || echo "$name" >>"$tmp/undocumented"
done
echo "entry_points: $libgomp exports $(wc -l <"$tmp/gomp") GOMP_/omp_ entry points;" \
  "libjoule-omp defines $(comm -12 "$tmp/gomp" "$tmp/joule" | wc -l) of them"
status=0
for kind in missing undocumented; do
  if [ -s "$tmp/$kind" ]; then
    echo "entry_points: $kind ($(wc -l <"$tmp/$kind")):" $(cat "$tmp/$kind")
    status=1
  fi
done
[ $status = 0 ] && echo "entry_points: all present"
exit $status
