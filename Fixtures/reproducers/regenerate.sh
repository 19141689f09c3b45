#!/bin/bash
# Fixtures/reproducers/regenerate.sh [OPCONFORM]: writes every committed reproducer again from its
# finding with `opconform export` (ReproducerExportTests fails when one is out of date):
#   gnustep/RULE.m                       every bug-kind entry of Fixtures/expectations/gnustep.json
#   foundation-linux/RULE.swift, RULE+XCTest.swift   every bug-kind entry of foundation-linux.json
#   faults/NAME.swift                    findings of the reference engine with a fault injected,
#                                        whose reproducers must pass on Foundation (.ci/reproducers.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
opconform=${1:-.build/debug/opconform}
bugs() { python3 -c "import json,sys; [print(e['rule']) for e in json.load(open(sys.argv[1]))['expected'] if e['kind'] == 'bug']" "$1"; }
for rule in $(bugs Fixtures/expectations/gnustep.json); do
    # A finding export refuses (it says why) has no reproducer: an old one is removed.
    "$opconform" export "Fixtures/expectations/gnustep/$rule.json" --as objc --out "Fixtures/reproducers/gnustep/$rule.m" \
        || rm -f "Fixtures/reproducers/gnustep/$rule.m"
done
for rule in $(bugs Fixtures/expectations/foundation-linux.json); do
    "$opconform" export "Fixtures/expectations/foundation-linux/$rule.json" --as swift-testing --out "Fixtures/reproducers/foundation-linux/$rule.swift"
    "$opconform" export "Fixtures/expectations/foundation-linux/$rule.json" --as xctest --out "Fixtures/reproducers/foundation-linux/$rule+XCTest.swift"
done
for finding in Fixtures/reproducers/faults/*.json; do
    "$opconform" export "$finding" --as swift-testing --out "${finding%.json}.swift"
done
