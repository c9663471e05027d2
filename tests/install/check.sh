#!/usr/bin/env bash
# Installs a joule build into a temporary prefix and builds and runs two
# consumers against it: main.cpp through find_package(joule) and consumer.c
# through `pkg-config --cflags --libs joule`.
#   tests/install/check.sh [BUILD_DIR]     (default: build/release)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build_dir=${1:-$root/build/release}

prefix=$(mktemp -d "${TMPDIR:-/tmp}/joule-install.XXXXXX")
trap 'rm -rf "$prefix"' EXIT

echo "install check: installing $build_dir into $prefix"
cmake --install "$build_dir" --prefix "$prefix" >/dev/null

echo "install check: find_package(joule) consumer"
cmake -S "$here" -B "$prefix/consumer-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$prefix/consumer-build" >/dev/null
"$prefix/consumer-build/consumer_cxx"

echo "install check: pkg-config consumer"
pc_file=$(find "$prefix" -name joule.pc -print -quit)
if [[ -z $pc_file ]]; then
  echo "install check: no joule.pc under $prefix" >&2
  exit 1
fi
pc_dir=$(dirname "$pc_file")
lib_dir=$(dirname "$pc_dir")
# prefix= is written at configure time; point it at the temporary prefix.
read -r -a pc_flags <<<"$(PKG_CONFIG_PATH=$pc_dir pkg-config --define-variable=prefix="$prefix" \
  --cflags --libs joule)"
echo "  ${CC:-cc} consumer.c ${pc_flags[*]}"
"${CC:-cc}" -O2 -Wall "$here/consumer.c" "${pc_flags[@]}" -o "$prefix/consumer_c"
LD_LIBRARY_PATH="$lib_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$prefix/consumer_c"
echo "install check: PASS"
