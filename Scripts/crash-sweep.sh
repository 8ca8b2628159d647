#!/usr/bin/env bash
# Runs the full crash sweep: every crash point of every repository and cache operation (both durabilities),
# with every state the power-cut model allows where a point has at most 512, else all-kept, all-dropped, each
# uncertain call varied alone and 48 drawn with the fixed seed 28 (`swift test` runs a bounded sweep of the
# same points). Prints the counts of each operation and their total; exits 1 on any failure.
#
# USAGE: Scripts/crash-sweep.sh
#
# The model is the README's (Durability): unsynced writes kept, dropped, torn at 512-byte sectors or zeroed;
# unsynced creates, renames and unlinks lost, in any combination, unless their directory was synced.
set -uo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests >/dev/null || exit 1
log=$(mktemp)
CRASH_SWEEP=full swift test --skip-build --filter 'RepositoryCrashTests|CacheCrashTests' >"$log" 2>&1
tests=$?
grep -E '^crash sweep ' "$log" | sed 's/^crash sweep //' | sort
grep -E '^crash sweep ' "$log" | awk '
    { for (i = 1; i <= NF; i++) {
        if ($(i + 1) == "crash") points += $i
        if ($(i + 1) == "states") states += $i
        if ($(i + 1) ~ /^failures/) failures += $i
    } }
    END { printf "total: %d operations, %d crash points, %d states, %d failures\n", NR, points, states, failures }'
if [ "$tests" -ne 0 ]; then
    grep -E 'Expectation failed|error:' "$log" | head -20
    echo "crash sweep failed (log: $log)"
    exit 1
fi
rm -f "$log"
