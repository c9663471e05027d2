#!/bin/sh
# Every blocked driver given must have each kernel at the start of a page
# (apps/bench/blocked/CMakeLists.txt: -falign-functions=4096), so that all
# drivers of one compiler run their kernels' loops at the same alignment.
# Usage: kernel_layout_test.sh DRIVER...
set -eu
kernels="lub::lu0 lub::fwd lub::bdiv lub::bmod blocked::potrf blocked::trsm blocked::syrk blocked::gemm"
status=0
for driver in "$@"; do
  for k in $kernels; do
    addr=$(nm -C "$driver" | awk -v k="$k(" 'index($0, k) && $2 ~ /^[Tt]$/ {print $1; exit}')
    if [ -z "$addr" ]; then
      echo "FAIL: $driver has no $k"
      status=1
    elif [ $((0x$addr % 4096)) -ne 0 ]; then
      echo "FAIL: $driver: $k at 0x$addr, not on a 4096-byte boundary"
      status=1
    fi
  done
done
[ $status -eq 0 ] && echo "kernels page-aligned in $# driver(s)"
exit $status
