#!/usr/bin/env bash
# CI check of the Python driver example:
#
#     bash Examples/python-driver/check.sh /path/to/opconform
#
# Asserts that (1) driver-check passes every check; (2) the gate passes on 100 cases (no
# divergence beyond expectations.json); (3) the run with the planted bug exits 1 and breaks
# QUEUE-SUSPENDED and nothing else; (4) the finding's printed replay line, run from
# Examples/python-driver/, breaks the rule again, and so does its --seed line.
# Findings go to a temporary folder, removed at the end; nothing is written into the repository.
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: bash Examples/python-driver/check.sh /path/to/opconform" >&2
    exit 2
fi
opconform=$1
case $opconform in
    /*) ;;
    */*) opconform="$(cd "$(dirname "$opconform")" && pwd)/$(basename "$opconform")" ;;
    *) opconform="$(command -v "$opconform" || true)" ;;
esac
if [ -z "$opconform" ] || [ ! -x "$opconform" ]; then
    echo "no opconform executable at '$1'" >&2
    exit 2
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/python-driver-check.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
cd "$root"

bug=add-ignores-suspension
rule=QUEUE-SUSPENDED
started=$SECONDS

check() { printf '\n== %s\n' "$*"; }
fail() { printf '\nFAIL: %s\n' "$*" >&2; exit 1; }
show() { sed 's/^/   | /' "$1"; }

check "driver.py is an executable Python 3 script"
command -v python3 >/dev/null || fail "python3 is not on PATH"
[ -x Examples/python-driver/driver.py ] || fail "Examples/python-driver/driver.py is not executable (chmod +x, and commit the mode)"
echo "ok"

check "opconform driver-check Examples/python-driver/driver.py: every check passes"
status=0
"$opconform" driver-check Examples/python-driver/driver.py > "$tmp/driver-check.txt" 2>&1 || status=$?
show "$tmp/driver-check.txt"
[ "$status" -eq 0 ] || fail "driver-check exited $status"
grep -Eq '^[0-9]+ passed, 0 failed$' "$tmp/driver-check.txt" || fail "driver-check did not report 0 failed"
if grep -q '^FAIL ' "$tmp/driver-check.txt"; then fail "driver-check has a failing check"; fi

check "opconform gate --expectations Examples/python-driver/expectations.json --count 100 --seed 1: passes"
status=0
"$opconform" gate --expectations Examples/python-driver/expectations.json --count 100 --seed 1 \
    --out "$tmp/gate" > "$tmp/gate.txt" 2>&1 || status=$?
show "$tmp/gate.txt"
[ "$status" -eq 0 ] || fail "the gate exited $status"
grep -q '^gate passed$' "$tmp/gate.txt" || fail "the gate did not say 'gate passed'"
grep -q 'endings: complete 100$' "$tmp/gate.txt" || fail "not every case ended complete"

check "run with --bug $bug: exits 1, breaking $rule and nothing else"
status=0
"$opconform" run --impl exec:Examples/python-driver/driver.py --driver-arg --bug --driver-arg "$bug" \
    --count 100 --seed 1 --out "$tmp/bug" > "$tmp/bug.txt" 2>&1 || status=$?
show "$tmp/bug.txt"
[ "$status" -eq 1 ] || fail "the buggy run exited $status, not 1"
grep -q "^FAIL $rule: " "$tmp/bug.txt" || fail "the buggy run did not break $rule"
# A story's knock-ons are indented under its root: count them too.
others="$(grep -E '^ *FAIL ' "$tmp/bug.txt" | grep -v "^FAIL $rule: " || true)"
[ -z "$others" ] || fail "the buggy run broke other rules too: $others"
replay="$(sed -n 's/^  replay: //p' "$tmp/bug.txt" | head -n 1)"
seed_replay="$(sed -n 's/^     or: //p' "$tmp/bug.txt" | head -n 1)"
[ -n "$replay" ] || fail "no replay line printed"
[ -n "$seed_replay" ] || fail "no --seed replay line printed"
ls "$tmp/bug"/"$rule"-*.json > /dev/null 2>&1 || fail "no finding file written for $rule"

check "the printed replay line, from Examples/python-driver/: $replay"
status=0
(cd Examples/python-driver && eval "$replay") > "$tmp/replay.txt" 2>&1 || status=$?
tail -n 6 "$tmp/replay.txt" | show /dev/stdin
if [ "$status" -eq 127 ]; then
    fail "the printed replay line does not start an opconform this shell finds (opconform names itself by its own file name; give check.sh an executable named opconform)"
fi
[ "$status" -eq 1 ] || fail "the replay exited $status, not 1"
grep -q "^$rule broke again$" "$tmp/replay.txt" || fail "the replay did not print '$rule broke again'"

check "the printed --seed line, from Examples/python-driver/: $seed_replay"
status=0
(cd Examples/python-driver && eval "$seed_replay") > "$tmp/seed-replay.txt" 2>&1 || status=$?
[ "$status" -eq 1 ] || fail "the --seed replay exited $status, not 1"
grep -q "^$rule: " "$tmp/seed-replay.txt" || fail "the --seed replay did not break $rule"
echo "ok: $(grep -c "^$rule: " "$tmp/seed-replay.txt") violation(s) of $rule"

printf '\nall checks passed in %d s\n' "$((SECONDS - started))"
