#!/bin/sh
# Runs a program against a joule-card daemon started for it (JOULE_CARD=attach):
#   run_with_card_daemon.sh JOULE_CARD_EXE PROGRAM [ARGS...]
# The daemon gets a name of its own, is stopped with SIGTERM afterwards, and
# must leave neither its socket nor its segment behind. Exit status: the
# program's, or 1 when the daemon does not start or clean up.
set -u
card=$1; shift
name="shim-$$"
log=$(mktemp)
"$card" --name "$name" --topology "package:1 core:2 pu:2" >"$log" 2>&1 &
daemon=$!
i=0
until grep -q "joule-card: serving" "$log"; do
  i=$((i + 1))
  if [ $i -gt 300 ] || ! kill -0 $daemon 2>/dev/null; then cat "$log"; rm -f "$log"; exit 1; fi
  sleep 0.1
done
JOULE_CARD=attach JOULE_CARD_DAEMON="$name" "$@"
rc=$?
kill -TERM $daemon
wait $daemon
cat "$log"
rm -f "$log"
if [ -e "/tmp/joule-card.$name.sock" ] || [ -e "/dev/shm/joule-card.$name" ]; then
  echo "the daemon left its socket or segment behind"
  exit 1
fi
exit $rc
