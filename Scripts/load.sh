#!/usr/bin/env bash
# Runs a command while the machine is loaded by unrelated CPU hogs, as a busy CI machine is.
#
#   Scripts/load.sh [-x FACTOR] -- COMMAND [ARG...]
#
# Starts FACTOR (default 4) busy loops per core, runs COMMAND, stops the loops and exits with
# COMMAND's status. The loops are niced to 0 like the command, so they compete as equals; they
# are killed however the command ends (an interrupt, a failure). The load test of issue 29
# (correct code gives no FAIL under 4x load) uses it; `.ci/run` runs a short form.
set -euo pipefail
factor=4
while [ $# -gt 0 ]; do
  case "$1" in
    -x) factor="$2"; shift 2 ;;
    --) shift; break ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "usage: Scripts/load.sh [-x FACTOR] -- COMMAND [ARG...]" >&2; exit 2; }
cores=$(nproc 2>/dev/null || echo 2)
hogs=()
cleanup() { for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM
for _ in $(seq 1 $((factor * cores))); do
  ( while :; do :; done ) &
  hogs+=($!)
done
echo "load: $((factor * cores)) busy loops on $cores cores" >&2
status=0
"$@" || status=$?
exit $status
