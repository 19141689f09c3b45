#!/bin/bash
# .ci/reproducers.sh: builds and runs every committed reproducer (Fixtures/reproducers/) the way
# an implementation's maintainer would, with nothing of OperationConformance:
#   gnustep/*.m           gcc + gnustep-config; a reproducer of a bug not marked rare in
#                         gnustep.json must fail (it stops at its first failing run); a rare
#                         one makes all its runs (REPRO_ALL=1) and the failures are counted
#   foundation-linux/*    a fresh package with a test target holding only these files; every
#                         test (Swift Testing and XCTest) must fail on this toolchain's Foundation
#   faults/*.swift        reproducers of reference-engine faults: each must pass on Foundation,
#                         which is faithful to their rules, so no assertion is vacuous
# Prints one line per reproducer: its size, and how many runs failed of how many.
set -uo pipefail
cd "$(dirname "$0")/.."
out=.build/reproducers
rm -rf "$out" && mkdir -p "$out/bin"
status=0

flags=$(gnustep-config --objc-flags | sed -e 's/-MMD//' -e 's/-MP//')
libs=$(gnustep-config --base-libs)
rare=$(python3 -c "import json; [print(e['rule']) for e in json.load(open('Fixtures/expectations/gnustep.json'))['expected'] if e['kind'] == 'bug' and 'rare' in e]")
echo "GNUstep reproducers (gcc, GNUstep Base only):"
for m in Fixtures/reproducers/gnustep/*.m; do
    rule=$(basename "$m" .m)
    lines=$(wc -l < "$m")
    if ! gcc $flags -Wall -o "$out/bin/$rule" "$m" $libs > "$out/$rule.build" 2>&1 || grep -q "warning:" "$out/$rule.build"; then
        echo "  $rule: does not build cleanly:"; sed 's/^/    /' "$out/$rule.build" | head -20; status=1; continue
    fi
    # A firm bug's reproducer stops at its first failing run; a rare one makes every run and
    # counts the failures.
    kind=firm; echo "$rare" | grep -qx "$rule" && kind=rare
    if [ "$kind" = rare ]; then export REPRO_ALL=1; else unset REPRO_ALL; fi
    timeout 600 "$out/bin/$rule" > "$out/$rule.out" 2> "$out/$rule.err"
    code=$?
    verdict=$(grep -E "^(FAILED on run|held in all|failed in)" "$out/$rule.out" | tail -1)
    printf '  %-30s %5s lines  %-5s %s\n' "$rule" "$lines" "$kind" "${verdict:-no verdict (exit $code)}"
    if [ "$kind" = firm ] && [ "$code" -ne 1 ]; then
        echo "    a reproducer of a firm bug must fail on GNUstep (exit 1); it exited $code"; status=1
    fi
done

pkg=$out/foundation
mkdir -p "$pkg/Sources/Placeholder" "$pkg/Tests/ReproducerTests"
cat > "$pkg/Package.swift" <<'PKG'
// swift-tools-version: 6.0
import PackageDescription
let package = Package(name: "Reproducers", targets: [
    .target(name: "Placeholder"),
    .testTarget(name: "ReproducerTests", dependencies: ["Placeholder"]),
])
PKG
echo "public let placeholder = 0" > "$pkg/Sources/Placeholder/Placeholder.swift"
cp Fixtures/reproducers/foundation-linux/*.swift Fixtures/reproducers/faults/*.swift "$pkg/Tests/ReproducerTests/"
echo "Foundation reproducers (a package of their own, Foundation + Testing/XCTest only):"
if ! (cd "$pkg" && swift build --build-tests > build.log 2>&1) || grep -q "warning:" "$pkg/build.log"; then
    echo "  the reproducers' package does not build cleanly:"; grep -E "error|warning" "$pkg/build.log" | head -20; exit 1
fi
check() {   # check FILE NAME WANT(fail|pass)
    local file=$1 name=$2 want=$3 code
    (cd "$pkg" && timeout 600 swift test --skip-build --filter "$name" > "../$name.log" 2>&1)
    code=$?
    local runs; runs=$(grep -aoE "failed on run [0-9]+ of [0-9]+" "$out/$name.log" | head -1)
    local got=pass; [ $code -ne 0 ] && got=fail
    printf '  %-58s %5s lines  must %-4s: %s\n' "$(basename "$file")" "$(wc -l < "$file")" "$want" "${runs:-$got}"
    if [ "$got" != "$want" ]; then echo "    it did not $want (exit $code); see $out/$name.log"; status=1; fi
}
for f in Fixtures/reproducers/foundation-linux/*.swift; do
    name=$(grep -oE "^func [A-Za-z0-9]+\(\)|^    func test[A-Za-z0-9]+\(\)" "$f" | tail -1 | sed -E 's/^ *func //; s/\(\)//')
    check "$f" "$name" fail
done
for f in Fixtures/reproducers/faults/*.swift; do
    name=$(grep -oE "^func [A-Za-z0-9]+\(\)" "$f" | tail -1 | sed -E 's/^func //; s/\(\)//')
    check "$f" "$name" pass
done
exit $status
