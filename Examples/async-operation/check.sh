#!/usr/bin/env bash
# CI for the async-operation example, run by .ci/run as
#   bash Examples/async-operation/check.sh /path/to/opconform
# Builds the example with warnings as errors and runs its tests (the careful class conforms but
# for Foundation's known divergences; the blog post's class is caught), then runs the blog
# post's class from the command line, shrinks the finding and replays it from this folder, as a
# user would paste it: it must break again. (Replay output goes to a file before it is searched:
# with pipefail, `grep -q` closing a pipe early fails the pipeline even when it matched.)
set -euo pipefail
opconform="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
cd "$(dirname "$0")"
findings="$(mktemp -d)"
trap 'rm -rf "$findings"' EXIT

echo "-- build (warnings are errors)"
swift build --build-tests -Xswiftc -warnings-as-errors
echo "-- swift test"
swift test

echo "-- the CLI route: the blog post's class, 10 cases, CANCEL-BEFORE-START-FINISHES shrunk and replayed from this folder"
set +e
"$opconform" run --impl exec:.build/debug/blog-operation-driver --count 10 --seed 1 --rules CANCEL-BEFORE-START-FINISHES \
  --profile class-reference --out "$findings" > "$findings/run.txt" 2>&1
status=$?
set -e
grep -v ": not-observable" "$findings/run.txt"
[ "$status" -eq 1 ] || { echo "check: the blog post's class should break a rule (exit 1), not exit $status" >&2; exit 1; }
file="$(ls "$findings"/CANCEL-BEFORE-START-FINISHES-*.json | head -1)"
grep -q "replay: .*opconform replay $file" "$findings/run.txt" || { echo "check: the run printed no replay line for $file" >&2; exit 1; }
for try in 1 2 3; do
  "$opconform" replay "$file" > "$findings/replay.txt" 2>&1 || true
  if grep -q "CANCEL-BEFORE-START-FINISHES broke again" "$findings/replay.txt"; then
    echo "check: replayed from $(pwd): CANCEL-BEFORE-START-FINISHES broke again (try $try)"
    exit 0
  fi
done
cat "$findings/replay.txt"
echo "check: three replays of $file did not break CANCEL-BEFORE-START-FINISHES again" >&2
exit 1
