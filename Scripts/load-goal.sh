#!/usr/bin/env bash
# The load goal of issue 29: correct code gives no FAIL in RUNS runs of CASES cases each while
# the machine is loaded to 4x its cores by unrelated busy loops (Scripts/load.sh).
#
#   Scripts/load-goal.sh [-r RUNS] [-n CASES] [-c CODES] OPCONFORM
#
# CODES is a comma-separated choice of: foundation (Foundation's own queue and operations, with
# its known divergences, Fixtures/expectations/foundation-linux.json),
# subclass (the careful subclass of the test suite, sample-subclass-driver, on Foundation's
# queue), queue (Examples/alternative-queue's AltQueue, its correct driver), python
# (Examples/python-driver, through its expectations). Default: all four, 10 runs of 300 cases,
# seeds 1 to RUNS. Build first: `swift build --build-tests` here, and `swift build` in
# Examples/alternative-queue. Prints a line per run (exit status, FAIL lines, how many rules
# were unconfirmed, cases a second, seconds) and at the end how many runs failed; exits 1 if
# any did.
set -euo pipefail
runs=10; cases=300; codes=foundation,subclass,queue,python
while [ $# -gt 1 ]; do
  case "$1" in
    -r) runs="$2"; shift 2 ;;
    -n) cases="$2"; shift 2 ;;
    -c) codes="$2"; shift 2 ;;
    *) break ;;
  esac
done
[ $# -eq 1 ] || { echo "usage: Scripts/load-goal.sh [-r RUNS] [-n CASES] [-c CODES] OPCONFORM" >&2; exit 2; }
opconform="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/load-goal.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

one() {  # code seed
  case "$1" in
    foundation) "$opconform" run --impl foundation --expectations Fixtures/expectations/foundation-linux.json \
                  --count "$cases" --seed "$2" --no-shrink --out "$tmp/f" ;;
    subclass) "$opconform" run --impl exec:.build/debug/sample-subclass-driver --count "$cases" --seed "$2" --no-shrink --out "$tmp/s" ;;
    queue) "$opconform" run --impl exec:Examples/alternative-queue/.build/debug/altqueue-driver --count "$cases" --seed "$2" \
             --no-shrink --out "$tmp/q" ;;
    python) "$opconform" gate --expectations Examples/python-driver/expectations.json --count "$cases" --seed "$2" --no-shrink \
              --out "$tmp/p" ;;
    *) echo "unknown code $1" >&2; return 2 ;;
  esac
}

export -f one
export opconform cases tmp
fails=0
for code in ${codes//,/ }; do
  for seed in $(seq 1 "$runs"); do
    started=$SECONDS
    status=0
    Scripts/load.sh -x 4 -- bash -c 'one "$0" "$1"' "$code" "$seed" > "$tmp/out.txt" 2>&1 || status=$?
    failing=$(grep -cE '^ *FAIL ' "$tmp/out.txt" || true)
    unconfirmed=$(sed -n '/^unconfirmed/,/^$/p' "$tmp/out.txt" | grep -c '^  [A-Z]' || true)
    rate=$(grep -o '[0-9.]* cases/s' "$tmp/out.txt" | head -1)
    echo "$code seed $seed: exit $status, $failing FAIL, $unconfirmed unconfirmed rules, $rate, $((SECONDS - started)) s"
    grep -E '^ *FAIL ' "$tmp/out.txt" | sed 's/^ */    /' || true
    [ "$status" -eq 0 ] || fails=$((fails + 1))
  done
done
echo "runs that failed: $fails"
[ "$fails" -eq 0 ]
