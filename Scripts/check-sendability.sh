#!/usr/bin/env bash
# The compile-time data-race check that .ci/run runs after `swift test` (which builds the debug modules).
# Two small clients in the Swift 6 language mode are type-checked against the package's modules:
#   Scripts/sendability/NonSendableValue.swift shares an ArchiveCache of a non-Sendable class across tasks and
#     must FAIL with a Sendable diagnostic (an ArchiveCache is Sendable only when its values are);
#   Scripts/sendability/SendableValue.swift does the same with a Sendable value, and with an actor, and must
#     build.
set -uo pipefail
cd "$(dirname "$0")/.."
modules="$(swift build --show-bin-path 2>/dev/null)/Modules"
if [ ! -f "$modules/ArchiveStore.swiftmodule" ]; then
    swift build --product formcache >/dev/null 2>&1 || { echo "sendability: cannot build the modules"; exit 1; }
fi
# Region-based isolation is checked on SIL, after type checking: emit SIL into a temporary file, never into
# /dev/null (a compiler that crashes while run as root has its output deleted, and that would be /dev/null).
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
check() { swiftc -emit-sil -o "$scratch/$1.sil" -swift-version 6 -I "$modules" "Scripts/sendability/$1" 2>&1; }

status=0
out=$(check NonSendableValue.swift)
if [ $? -eq 0 ]; then
    echo "sendability: FAIL: NonSendableValue.swift compiled; sharing ArchiveCache<Counter> across tasks must be an error"
    status=1
elif echo "$out" | grep -qiE "error: .*(non-sendable|sendable|sending '?cache'?|data race)"; then
    echo "sendability: ok: NonSendableValue.swift is refused: $(echo "$out" | grep -m1 -E 'error:' | sed 's/^.*error: //')"
else
    echo "sendability: FAIL: NonSendableValue.swift failed without a Sendable diagnostic:"
    echo "$out"
    status=1
fi
out=$(check SendableValue.swift)
if [ $? -eq 0 ]; then
    echo "sendability: ok: SendableValue.swift builds"
else
    echo "sendability: FAIL: SendableValue.swift must build:"
    echo "$out"
    status=1
fi
exit $status
