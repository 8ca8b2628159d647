#!/usr/bin/env bash
# The benchmarks' smoke run (what .ci/run runs): builds keyed-bench and runs every workload once at a small
# size, so that a workload that no longer runs fails CI. It checks that each runs, not how fast: the figures
# are printed but mean nothing at these sizes. No peer (Python, libplist, Rust) is installed or run; the SQLite
# comparisons need the system's SQLite (Scripts/ci-install.sh installs libsqlite3-dev) and fail here when
# it is missing, where keyed-bench alone would print SKIPPED.
#
#   Benchmarks/smoke.sh        CONFIG=debug|release (default debug: on the 2-core machine the debug build took
#                              77 s and its runs about 60, the release build 220 s)
#
# Output: one line per run, `SMOKE ok|FAILED <seconds> s keyed-bench <arguments>`, then a summary; the output
# of a failed run on stderr. Exit status: 0 all ran, 1 a workload failed, 2 the build failed.
# Left out: w1-scale (W1 at its fixed 100,000 and 1,000,000 shapes: the code of w1, too large for a smoke run).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
config="${CONFIG:-debug}"

echo "smoke: building keyed-bench ($config)" >&2
(cd "$here" && swift build -c "$config" --product keyed-bench >&2) || { echo "smoke: FAILED: building keyed-bench" >&2; exit 2; }
bench="$(cd "$here" && swift build -c "$config" --show-bin-path)/keyed-bench"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failed=0 runs=0

# One run: fails on a non-zero exit, on a run longer than 5 minutes, or when the workload says it skipped.
run() {
    local start end status
    runs=$((runs + 1))
    start=$(date +%s.%N)
    timeout 300 "$bench" "$@" >"$work/out" 2>&1
    status=$?
    end=$(date +%s.%N)
    if [ "$status" -eq 0 ] && grep -q 'SKIPPED' "$work/out"; then status=skipped; fi
    if [ "$status" = 0 ]; then
        printf 'SMOKE ok     %6.1f s keyed-bench %s\n' "$(echo "$end - $start" | bc)" "$*"
    else
        printf 'SMOKE FAILED %6.1f s keyed-bench %s (status %s)\n' "$(echo "$end - $start" | bc)" "$*" "$status"
        tail -30 "$work/out" >&2
        failed=$((failed + 1))
    fi
}

# Timed workloads, one round each.
run raw 2000 --rounds 1
run w1 500 --rounds 1
run w2 200 --rounds 1
run w1-memory 500
run w2-memory 200
run w1-codable 500 --rounds 1
run store 200 --rounds 1
run store-vs-sqlite 200 --rounds 1 --p99 20
run query-vs-sqlite 200 --rounds 1
run cache 2000 --rounds 1 --only ours,foundation-files --skip-1m --get-ops 2000 --set-ops 200 --sync-ops 20 \
    --mixed-ops 2000 --mixed-warmup 2000
run cache-open "$work/cache-open" 200
run cache-open "$work/cache-open" 200
run typedstream-synthetic "$work/synthetic" 1
run typedstream "$root/Fixtures/typedstream/crabstep/objects/HugeWithRefs" "$work/synthetic" --rounds 1

# Profiling workloads (fixed work, no timing), each operation once.
run raw-profile 2000 read --rounds 1 --save "$work/raw-2000.bplist"
for op in write tree-copy walk events; do run raw-profile 2000 "$op" --rounds 1; done
for op in encode decode; do
    run w1-profile 500 "$op" --rounds 1
    run w2-profile 200 "$op" --rounds 1
    run w1-codable-profile 500 "$op" --rounds 1
done
for op in encode decode add get list; do run store-profile "$op" 200 --rounds 1; done
for op in add0 add1 add3 top max; do run query-profile "$op" 200 20; done

# Our side of the peer benchmark (no peer runs): peer-inputs writes its full-size inputs (100,000 records);
# the plist operations read smaller ones (their 20 MB XML takes 40 s in a debug build), the keyed ones W1's.
run peer-inputs "$work/peers"
for op in binary-read binary-write; do run peer-driver "$op" "$work/raw-2000.bplist" 1; done
for op in xml-read xml-write; do run peer-driver "$op" "$root/Fixtures/keyed/dracula-terminal-app/embedded/Dracula.terminal" 1; done
for op in keyed-typed keyed-generic; do run peer-driver "$op" "$work/peers/w1.archive" 1; done
run peer-driver typedstream-decode "$root/Fixtures/typedstream/crabstep/objects" 1

if [ "$failed" -ne 0 ]; then
    echo "smoke: FAILED: $failed of $runs runs" >&2
    exit 1
fi
echo "smoke: $runs runs of keyed-bench ($config), all ok"
