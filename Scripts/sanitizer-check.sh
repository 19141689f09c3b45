#!/usr/bin/env bash
# CI check of the sanitizer route (issue 30, Specs/sanitizers.md):
#
#     bash Scripts/sanitizer-check.sh /path/to/opconform
#
# Builds the corpus driver (Tests/CorpusDriver) with ThreadSanitizer into .build/tsan, then:
# (1) the careful class (careful-lock, an NSLock) gives no DATA-RACE in 300 cases, and the run
# exits 0 (Foundation's known divergences are known, not failures); (2) the class with plain
# flags and no lock (unsynchronised) gives DATA-RACE in at least 3 of 30 cases (issue 44: 12 to
# 16 measured), and the finding replays from its file. Then the same
# with the drivers of Examples/async-operation: the careful class clean, the blog post's caught;
# and with AddressSanitizer: the careful class clean, the timeout class's memory error caught.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: bash Scripts/sanitizer-check.sh /path/to/opconform" >&2; exit 2; }
opconform="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/sanitizer-check.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
fail() { printf '\nFAIL: %s\n' "$*" >&2; exit 1; }
# expect_clean NAME RULE WHO RUN-ARGS...: `opconform run RUN-ARGS` (output in $tmp/NAME.txt, findings
# in $tmp/NAME) must exit 0 and never report RULE; WHO names the class in the failure.
expect_clean() {
  local name=$1 rule=$2 who=$3 status=0
  shift 3
  "$opconform" run "$@" --out "$tmp/$name" > "$tmp/$name.txt" 2>&1 || status=$?
  grep -E '^(FAIL|no failure|  rules:)' "$tmp/$name.txt" || true
  grep -q "^FAIL $rule" "$tmp/$name.txt" && fail "$who showed $rule: $(grep -A1 "^FAIL $rule" "$tmp/$name.txt")"
  [ "$status" -eq 0 ] || fail "$who: the run exited $status"
}

swift build --product corpus-driver -Xswiftc -sanitize=thread --build-path .build/tsan
driver=.build/tsan/debug/corpus-driver

echo "-- careful-lock, 300 cases: no data race"
expect_clean careful DATA-RACE "the careful class" --impl "exec:$driver" --driver-arg --class --driver-arg careful-lock \
  --sanitize thread --count 300 --seed 1 --no-shrink

# Issue 44: at least 1 case in 10. A watcher thread reads the class's getters while its task runs
# (DriverContext.readWhileTheTaskRuns); before it, Foundation's locks ordered the driver's reads
# and the race showed in about 1 case of 100 to 300. Measured 2026-12-07, seeds 1 to 5, 30 cases
# each: 16, 13, 16, 13 and 12 cases.
echo "-- unsynchronised, 30 cases of seed 2: DATA-RACE in at least 3"
status=0
"$opconform" run --impl "exec:$driver" --driver-arg --class --driver-arg unsynchronised --sanitize thread \
  --count 30 --seed 2 --no-shrink --out "$tmp/racy" > "$tmp/racy.txt" 2>&1 || status=$?
grep -A2 '^FAIL DATA-RACE' "$tmp/racy.txt" | cut -c1-300 || true
[ "$status" -eq 1 ] || fail "the racy class's run exited $status, not 1"
races=$(sed -n 's/^  \([0-9]*\) of 30 cases ended in a thread sanitizer.s report.*/\1/p' "$tmp/racy.txt")
[ -n "$races" ] && [ "$races" -ge 3 ] || fail "DATA-RACE in ${races:-0} of 30 cases for the class with no lock (at least 3 wanted)"
echo "DATA-RACE in $races of 30 cases"
file=$(ls "$tmp"/racy/DATA-RACE-*.json | head -1)
"$opconform" replay "$file" > "$tmp/replay.txt" 2>&1 || true
grep -q 'replaying with --sanitize thread' "$tmp/replay.txt" || fail "replay did not set --sanitize thread by itself"
echo "replay of $(basename "$file"): $(grep -E 'DATA-RACE (broke again|did not break)' "$tmp/replay.txt")"
# The same route on the example a user would copy (Examples/async-operation): its careful class
# is clean, and the blog post's class, whose flags have no lock, is caught. Measured 2026-11-27:
# DATA-RACE in 3 of 5 runs of 300 (seeds 1, 4, 5: 5, 2 and 1 cases); 2026-12-07, with the kit's
# watcher (issue 44): 135 of 300 cases of seed 1.
echo "-- Examples/async-operation built with ThreadSanitizer"
example=Examples/async-operation
(cd "$example" && swift build -Xswiftc -sanitize=thread --build-path .build/tsan)
echo "-- the example's careful class, 300 cases: no data race"
expect_clean example-careful DATA-RACE "the example's careful class" \
  --impl "exec:$example/.build/tsan/debug/careful-operation-driver" --sanitize thread --count 300 --seed 1 --no-shrink
echo "-- the example's blog-post class (no lock), runs of 60 cases from seeds 1 to 5 until one shows DATA-RACE"
found=""
for seed in 1 2 3 4 5; do
  "$opconform" run --impl "exec:$example/.build/tsan/debug/blog-operation-driver" --sanitize thread \
    --count 60 --seed "$seed" --no-shrink --out "$tmp/example-blog" > "$tmp/example-blog.txt" 2>&1 || true
  if grep -q '^FAIL DATA-RACE' "$tmp/example-blog.txt"; then
    grep -A1 '^FAIL DATA-RACE' "$tmp/example-blog.txt" | cut -c1-300
    found=$seed
    break
  fi
  echo "seed $seed: no DATA-RACE in 60 cases"
done
[ -n "$found" ] || fail "no DATA-RACE for the example's blog-post class in 5 runs of 60 cases"
rm -rf "$example/.build/tsan"

# AddressSanitizer on the same example: the careful class is clean, and TimeoutAsyncOperation,
# whose timer holds the operation unretained, reads freed memory. Measured 2026-11-27 (seed 1,
# 200 cases): 24 and 25 cases of 200 ended in a report; the finding shrank to 1 operation and
# replayed 6 of 6 once a sanitized driver was watched after each case (ChildProcessImplementation
# .sanitizerSettle); the careful class: no report in 300 cases.
echo "-- Examples/async-operation built with AddressSanitizer"
(cd "$example" && swift build -Xswiftc -sanitize=address --build-path .build/asan)
echo "-- the example's careful class, 200 cases: no memory error"
expect_clean asan-careful MEMORY-ERROR "the example's careful class under AddressSanitizer" \
  --impl "exec:$example/.build/asan/debug/careful-operation-driver" --sanitize address --count 200 --seed 1 --no-shrink
echo "-- the timeout class (its timer holds the operation unretained), 200 cases: MEMORY-ERROR, shrunk and replayed"
status=0
"$opconform" run --impl "exec:$example/.build/asan/debug/timeout-operation-driver" --sanitize address \
  --count 200 --seed 1 --out "$tmp/asan-timeout" > "$tmp/asan-timeout.txt" 2>&1 || status=$?
grep -A3 '^FAIL MEMORY-ERROR' "$tmp/asan-timeout.txt" | cut -c1-300 || true
grep -q '^FAIL MEMORY-ERROR' "$tmp/asan-timeout.txt" || fail "no MEMORY-ERROR for the timeout class in 200 cases"
[ "$status" -eq 1 ] || fail "the timeout class's run showed MEMORY-ERROR but exited $status, not 1"
grep -q 'TimeoutA9OperationC12timeoutFired' "$tmp/asan-timeout.txt" || fail "the MEMORY-ERROR's stack does not name timeoutFired"
file=$(ls "$tmp"/asan-timeout/MEMORY-ERROR-*.json | head -1)
broke=0
for try in 1 2 3; do
  "$opconform" replay "$file" > "$tmp/asan-replay.txt" 2>&1 || true
  grep -q 'MEMORY-ERROR broke again' "$tmp/asan-replay.txt" && broke=$((broke + 1))
done
grep -q 'replaying with --sanitize address' "$tmp/asan-replay.txt" || fail "replay did not set --sanitize address by itself"
echo "replay of $(basename "$file"): broke again in $broke of 3"
[ "$broke" -ge 1 ] || fail "the MEMORY-ERROR finding did not break again in 3 replays"
rm -rf "$example/.build/asan"

# The GNUstep driver built by gcc with AddressSanitizer: GNUstep's known divergences only, no
# memory error (measured 2026-11-27: 100 cases, 20 s, none). ThreadSanitizer is not run here:
# libgnustep-base reports a lock-order inversion of its own at start-up (Specs/sanitizers.md).
echo "-- the GNUstep driver built with -fsanitize=address, 100 cases: no memory error"
if command -v gnustep-config >/dev/null 2>&1; then
  GNUSTEP_DRIVER_CFLAGS="-fsanitize=address -fno-omit-frame-pointer" sh Drivers/gnustep/build.sh "$tmp/gnustep-asan"
  expect_clean gnustep-asan-run MEMORY-ERROR "the GNUstep driver under AddressSanitizer" --impl "exec:$tmp/gnustep-asan" \
    --sanitize address --profile gnustep --expectations Fixtures/expectations/gnustep.json --count 100 --seed 1 --no-shrink
else
  fail "gnustep-config not found: .ci/run installs GNUstep Base before this check"
fi
echo "sanitizer check: passed"
