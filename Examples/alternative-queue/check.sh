#!/usr/bin/env bash
# CI for the alternative-queue example, run by .ci/run as
#   bash Examples/alternative-queue/check.sh /path/to/opconform
# Builds the example with warnings as errors, runs its tests (the queue conforms but for
# Foundation's known divergences; the planted width bug is caught), then replays the planted
# bug's finding from this folder, as a user would paste it, and requires it to break again.
set -euo pipefail
opconform="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
cd "$(dirname "$0")"
findings="$(mktemp -d)"
trap 'rm -rf "$findings"' EXIT

echo "-- build (warnings are errors)"
swift build --build-tests -Xswiftc -warnings-as-errors
echo "-- swift test"
swift test

echo "-- the CLI route: 60 cases of the buggy driver, then its finding replayed from this folder"
# The width bug shows only while the first operation still runs. The minimised case (two empty
# operations) keeps the race but loses it often (the run prints in how many of its attempts it
# broke), so it gets ten tries; the regenerated original case, whose operations work, breaks on
# most runs (--original), and gets ten more. Which case breaks first varies from run to run, and
# some first cases seldom break again: a queue of width 0 whose one operation waits for a
# dependency in another queue replayed 1 time in 5 in one fresh-clone CI run, and 0 in 20 in
# another (2026-11-27). So a run seed whose finding does not break again in twenty replays is
# followed by the next, up to three: the check is that a finding replays from this folder.
replay_breaks() {  # FILE: whether the finding breaks again in ten replays, or ten of its original
  local file=$1 try
  for try in 1 2 3 4 5 6 7 8 9 10; do
    "$opconform" replay "$file" > "$findings/replay.txt" 2>&1 || true
    if grep -q "QUEUE-MAX-CONCURRENT broke again" "$findings/replay.txt"; then
      echo "check: replayed from $(pwd): QUEUE-MAX-CONCURRENT broke again (minimised case, try $try)"
      return 0
    fi
  done
  for try in 1 2 3 4 5 6 7 8 9 10; do
    "$opconform" replay "$file" --original > "$findings/replay.txt" 2>&1 || true
    if grep -q "QUEUE-MAX-CONCURRENT broke again" "$findings/replay.txt"; then
      echo "check: replayed from $(pwd): QUEUE-MAX-CONCURRENT broke again (original case, try $try; the minimised one lost its race ten times)"
      return 0
    fi
  done
  return 1
}
for seed in 1 2 3; do
  set +e
  "$opconform" run --impl exec:.build/debug/altqueue-buggy-driver --count 60 --seed "$seed" --rules QUEUE-MAX-CONCURRENT \
    --profile class-reference --out "$findings/cli-$seed" > "$findings/run.txt" 2>&1
  status=$?
  set -e
  cat "$findings/run.txt"
  [ "$status" -eq 1 ] || { echo "check: the buggy queue's run should exit 1 (a rule broken), not $status" >&2; exit 1; }
  file="$(ls "$findings"/cli-"$seed"/QUEUE-MAX-CONCURRENT-*.json | head -1)"
  grep -q "replay: .*opconform replay $file" "$findings/run.txt" \
    || { echo "check: the run printed no replay line for $file" >&2; exit 1; }
  replay_breaks "$file" && exit 0
  cat "$findings/replay.txt"
  echo "check: $file (run seed $seed) did not break QUEUE-MAX-CONCURRENT again in ten replays of the minimised case and ten of the original"
done
echo "check: the findings of run seeds 1 to 3 did not break QUEUE-MAX-CONCURRENT again" >&2
exit 1
