#!/bin/sh
# Every __kmpc_* entry point the clang-built objects call is implemented by
# libjoule-omp: defined, and not one of the entry points that stop the
# program (api/adapters/omp/kmpc_unsupported.inc).
#
#   kmpc_symbols.sh JOULE_SO UNSUPPORTED_INC OBJECT...
set -u
so=$1 inc=$2
shift 2
defined=$(nm -D --defined-only "$so" | awk '{print $3}' | sed 's/@.*//' | grep '^__kmpc_' | sort -u)
stubs=$(sed -n 's/^JOULE_KMPC_UNSUPPORTED(\(.*\))$/\1/p' "$inc" | sort -u)
used=$(nm -u "$@" | awk '{print $2}' | sed 's/@.*//' | grep '^__kmpc_' | sort -u)
fail=0
for s in $used; do
  if ! printf '%s\n' "$defined" | grep -qx "$s"; then echo "kmpc_symbols: $s: not defined"; fail=1; fi
  if printf '%s\n' "$stubs" | grep -qx "$s"; then echo "kmpc_symbols: $s: not implemented"; fail=1; fi
done
n=$(printf '%s\n' "$used" | grep -c .)
impl=$(printf '%s\n' "$defined" | grep -vxF "$stubs" | grep -c .)
echo "kmpc_symbols: the objects call $n entry points; libjoule-omp implements $impl"
[ $fail = 0 ] && echo "kmpc_symbols: all implemented"
exit $fail
