#!/usr/bin/env bash
# Installs a joule build with `cmake --install BUILD_DIR --prefix <fresh temporary
# prefix>` (not the prefix it was configured with) and checks, with CMake's default
# generator, that the install is usable from there:
#   1. find_package(joule) consumer (main.cpp, this directory's CMakeLists.txt);
#   2. the README's pkg-config recipe: main.cpp with g++ and consumer.c with cc,
#      and nanos6_consumer.c (the Nanos6 API and ALPI headers);
#   3. programs built by the installed joulecc start without LD_LIBRARY_PATH
#      (run path), and with --joule-no-rpath need it;
#   4. a joule_ompss_sources() project (ompss/) built against the install.
# Steps 3 and 4 are skipped when the build has no joulecc (no LLVM/Clang 14).
#   tests/install/check.sh [BUILD_DIR]     (default: build/release)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build_dir=${1:-$root/build/release}

work=$(mktemp -d "${TMPDIR:-/tmp}/joule-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
log=$work/log

say() { echo "install check: $*"; }
fail() {
  echo "install check: FAIL: $*" >&2
  if [[ -s $log ]]; then tail -n 40 "$log" >&2; fi
  exit 1
}
# quiet CMD...: runs CMD with its output in $log (shown on failure).
quiet() { "$@" >"$log" 2>&1; }
# run_ok NAME CMD...: runs CMD with LD_LIBRARY_PATH unset (CMD may be
# `env LD_LIBRARY_PATH=... prog`); it must exit 0 and print OK.
run_ok() {
  local name=$1 out
  shift
  out=$(env -u LD_LIBRARY_PATH "$@" 2>&1) || fail "$name exited with $?: $out"
  echo "  $out"
  [[ $out == *OK* ]] || fail "$name: no OK in its output"
}
# cmake_project NAME SRC_DIR: configure (default generator) and build against the prefix.
cmake_project() {
  local name=$1 src=$2
  quiet cmake -S "$src" -B "$work/$name" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" || fail "configuring $name"
  say "  $name: generator $(sed -n 's/^CMAKE_GENERATOR:INTERNAL=//p' "$work/$name/CMakeCache.txt")"
  quiet cmake --build "$work/$name" -j 2 || fail "building $name"
}

say "installing $build_dir into $prefix (cmake --install --prefix)"
quiet cmake --install "$build_dir" --prefix "$prefix" || fail "cmake --install"
pc_file=$(find "$prefix" -name joule.pc -print -quit)
[[ -n $pc_file ]] || fail "no joule.pc under $prefix"
lib_dir=$(dirname "$(dirname "$pc_file")")

say "1. find_package(joule) consumer, default generator"
cmake_project consumer-cmake "$here"
run_ok consumer_cxx "$work/consumer-cmake/consumer_cxx"

PKG_CONFIG_PATH=$(dirname "$pc_file")
export PKG_CONFIG_PATH
say "2. pkg-config: PKG_CONFIG_PATH=$PKG_CONFIG_PATH"
pc_prefix=$(pkg-config --variable=prefix joule) || fail "pkg-config joule"
[[ $(realpath "$pc_prefix") == "$(realpath "$prefix")" ]] ||
  fail "joule.pc prefix is $pc_prefix, not the install prefix $prefix"
read -r -a pc_flags <<<"$(pkg-config --cflags --libs joule)"
echo "  ${CXX:-g++} -std=c++20 -O2 main.cpp ${pc_flags[*]}"
quiet "${CXX:-g++}" -std=c++20 -O2 "$here/main.cpp" "${pc_flags[@]}" -o "$work/sum" ||
  fail "g++ with pkg-config flags"
run_ok sum env LD_LIBRARY_PATH="$lib_dir" "$work/sum"
echo "  ${CC:-cc} -O2 consumer.c ${pc_flags[*]}"
quiet "${CC:-cc}" -O2 -Wall "$here/consumer.c" "${pc_flags[@]}" -o "$work/consumer_c" ||
  fail "cc with pkg-config flags"
run_ok consumer_c env LD_LIBRARY_PATH="$lib_dir" "$work/consumer_c"
# A program written against DLB, by DLB's header names (joule-dlb.pc; it runs
# in ctest's lending_dlb_example_test, which gives it a private CPU table).
read -r -a dlb_flags <<<"$(pkg-config --cflags --libs joule-dlb)"
echo "  ${CC:-cc} -std=c11 dlb_example.c ${dlb_flags[*]}"
quiet "${CC:-cc}" -std=c11 -O2 -Wall -Werror "$here/../lending/dlb_example.c" "${dlb_flags[@]}" \
  -o "$work/dlb_example" || fail "cc with pkg-config joule-dlb flags"
# The Nanos6 API and ALPI headers under the names OmpSs-2 code uses.
for h in joule/nanos6/nanos6.h joule/nanos6/nanos6/debug.h joule/alpi.h; do
  [[ -f $prefix/include/$h ]] || fail "$h is not installed in $prefix/include"
done
echo "  ${CC:-cc} -O2 -I<prefix>/include/joule/nanos6 nanos6_consumer.c ${pc_flags[*]}"
quiet "${CC:-cc}" -O2 -Wall -I"$prefix/include/joule/nanos6" "$here/nanos6_consumer.c" \
  "${pc_flags[@]}" -o "$work/nanos6_consumer" || fail "cc nanos6_consumer.c"
for w in 1 2; do
  run_ok nanos6_consumer env LD_LIBRARY_PATH="$lib_dir" JOULE_WORKERS=$w timeout 60 "$work/nanos6_consumer"
done
unset PKG_CONFIG_PATH

say "installed tools"
# The node service: the daemon in sbin, its units naming it, the example access file.
[[ -x $prefix/sbin/jouled ]] || fail "jouled is not installed in $prefix/sbin"
quiet "$prefix/sbin/jouled" --help || fail "jouled --help"
units=$prefix/share/joule/systemd
[[ -f $units/jouled.service && -f $units/jouled.socket ]] || fail "jouled's systemd units are not in $units"
grep -qx "ExecStart=$prefix/sbin/jouled --foreground" "$units/jouled.service" ||
  fail "jouled.service does not start $prefix/sbin/jouled"
[[ -f $prefix/share/joule/access.toml.example ]] || fail "no access.toml.example in $prefix/share/joule"
if command -v systemd-analyze >/dev/null 2>&1; then
  quiet systemd-analyze verify --man=no "$units/jouled.socket" "$units/jouled.service" ||
    fail "systemd-analyze verify rejects jouled's units"
  echo "  systemd-analyze verify: OK"
fi
echo "  jouled, its units and the example access file: OK"
for tool in joule-trace joule-ctl; do
  [[ -x $prefix/bin/$tool ]] || fail "$tool is not installed in $prefix/bin"
  quiet "$prefix/bin/$tool" --help || fail "$tool --help"
  echo "  $tool --help: OK"
done

joulecc=$prefix/bin/joulecc
if [[ ! -x $joulecc ]]; then
  say "3. and 4. skipped: the build has no joulecc"
  say "PASS"
  exit 0
fi

say "3. installed joulecc: run path"
for src in chain.cpp chain.c; do
  cc=g++
  [[ $src == *.c ]] && cc=gcc
  exe=$work/joulecc-${src/./-}
  echo "  joulecc $cc -O2 $src -o $(basename "$exe")"
  (cd "$work" && quiet "$joulecc" "$cc" -O2 -Wall "$here/ompss/$src" -o "$exe") ||
    fail "joulecc $cc $src"
  run_ok "$(basename "$exe")" "$exe"
done
# The one-word driver installed beside joulecc (a link to it), with a
# Mercurium flag, as a build system that took CXX=mcxx would call it.
[[ -x $prefix/bin/joulecc-g++ ]] || fail "joulecc-g++ is not installed beside joulecc"
echo "  joulecc-g++ --ompss-2 -O2 chain.cpp -o oneword"
(cd "$work" && quiet "$prefix/bin/joulecc-g++" --ompss-2 -O2 -Wall "$here/ompss/chain.cpp" \
  -o "$work/oneword") || fail "joulecc-g++ chain.cpp"
run_ok oneword "$work/oneword"
# joulecc finds <nanos6.h> in the install by itself (-I<prefix>/include/joule/nanos6).
echo "  joulecc gcc -O2 nanos6_consumer.c (no -I)"
(cd "$work" && quiet "$joulecc" gcc -O2 -Wall "$here/nanos6_consumer.c" -o "$work/joulecc-nanos6") ||
  fail "joulecc gcc nanos6_consumer.c"
run_ok joulecc-nanos6 timeout 60 "$work/joulecc-nanos6"
echo "  joulecc --joule-no-rpath g++ -O2 chain.cpp -o norpath"
(cd "$work" && quiet "$joulecc" --joule-no-rpath g++ -O2 "$here/ompss/chain.cpp" -o "$work/norpath") ||
  fail "joulecc --joule-no-rpath"
if out=$(env -u LD_LIBRARY_PATH "$work/norpath" 2>&1); then
  # Only possible when another joule is in the loader's default path.
  env -u LD_LIBRARY_PATH ldd "$work/norpath" | grep -q "$lib_dir" &&
    fail "--joule-no-rpath: the program found $lib_dir without LD_LIBRARY_PATH"
  echo "  note: started through a joule in the system library path: $out"
else
  echo "  without LD_LIBRARY_PATH (expected to fail): ${out%%$'\n'*}"
  [[ $out == *"cannot open shared object file"* ]] || fail "--joule-no-rpath: unexpected failure"
fi
run_ok norpath env LD_LIBRARY_PATH="$lib_dir" "$work/norpath"

say "4. joule_ompss_sources() project, default generator"
cmake_project consumer-ompss "$here/ompss"
run_ok ompss_chain_c "$work/consumer-ompss/ompss_chain_c"
run_ok ompss_chain_cxx "$work/consumer-ompss/ompss_chain_cxx"

say "PASS"
