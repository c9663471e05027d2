#!/bin/sh
# Runs a command and checks its output (stdout and stderr together):
#
#   expect_output.sh REQUIRED FORBIDDEN COMMAND [ARGS...]
#
# REQUIRED: extended regular expressions separated by '%', each must match
# a line; FORBIDDEN: one that no line may match ("-" for none). Exits 1
# with the output when a check fails; the command's own status is ignored
# (ThreadSanitizer exits 66 when it reports).
set -u
required=$1 forbidden=$2
shift 2
out=$("$@" 2>&1)
status=$?
fail() { printf '%s\n--- exit status %s\nexpect_output: %s\n' "$out" "$status" "$1"; exit 1; }
old_ifs=$IFS
IFS='%'
for re in $required; do
  printf '%s\n' "$out" | grep -Eq -- "$re" || fail "missing: $re"
done
IFS=$old_ifs
if [ "$forbidden" != - ] && printf '%s\n' "$out" | grep -Eq -- "$forbidden"; then
  fail "forbidden: $forbidden"
fi
printf '%s\n' "$out" | tail -n 3
echo "expect_output: as expected"
