#!/usr/bin/env bash
# The new user's path of issue 31 (item 3): from a clean clone to the first printed finding,
# timed the way a newcomer meets it, with SwiftPM's caches empty (a HOME of its own).
#
#   Scripts/first-verdict.sh [REPO]
#
# REPO (default: this repository) is cloned afresh into a temporary folder for each route:
#   swift-test  the async-operation example's own tests: `cd Examples/async-operation && swift test`
#               builds the harness as a dependency and the three drivers, and prints the blog
#               post's class's findings;
#   cli         a release build of opconform (`swift build -c release --product opconform`), then
#               the python example's planted bug: `opconform run --impl exec:Examples/python-driver/
#               driver.py --driver-arg --bug --driver-arg add-ignores-suspension --count 100 --seed 1`,
#               until its minimised finding (the FAIL line) is printed.
# Prints, per route, the seconds from the clone to the first finding line and to the end.
# Takes about 4 minutes on a 2-core machine; needs the network for nothing.
set -euo pipefail
repo="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/first-verdict.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# Runs "$@" from folder $1, stamping each output line; prints when the first line matching
# $2 came, relative to $3, and the whole command's end.
timed() {
  local folder="$1" pattern="$2" start="$3"; shift 3
  local first=""
  while IFS= read -r line; do
    if [ -z "$first" ] && printf '%s\n' "$line" | grep -qE "$pattern"; then
      first="$(now)"
      printf '    first finding: %s\n' "$line" | cut -c1-160
    fi
  done < <(cd "$folder" && HOME="$tmp/home" "$@" 2>&1 || true)
  local end; end="$(now)"
  echo "    to the first finding: $([ -n "$first" ] && seconds "$start" "$first" || echo "none") s; to the end: $(seconds "$start" "$end") s"
}

mkdir -p "$tmp/home"
echo "route swift-test: clone, then swift test in Examples/async-operation"
start="$(now)"
git clone -q "$repo" "$tmp/a"
timed "$tmp/a/Examples/async-operation" '^↳ [A-Z-]+ \[' "$start" swift test

rm -rf "$tmp/home"; mkdir -p "$tmp/home"
echo "route cli: clone, swift build -c release --product opconform, then the python example's bug"
start="$(now)"
git clone -q "$repo" "$tmp/b"
(cd "$tmp/b" && HOME="$tmp/home" swift build -c release --product opconform > "$tmp/build.txt" 2>&1) || { cat "$tmp/build.txt"; exit 1; }
echo "    built in $(seconds "$start" "$(now)") s"
timed "$tmp/b" '^FAIL ' "$start" .build/release/opconform run --impl exec:Examples/python-driver/driver.py \
  --driver-arg --bug --driver-arg add-ignores-suspension --count 100 --seed 1 --out "$tmp/findings"
