#!/usr/bin/env bash
# ArchiveRepository beside SQLite at equal durability (journal_mode=WAL, synchronous=FULL), in one run.
#
#   Benchmarks/store/run.sh [sizes...]      default: 10000 1000000; KEYED_BENCH_ROUNDS (default 3)
#
# Installs Debian's libsqlite3-dev when no SQLite library loads (keyed-bench loads it at run time with dlopen,
# so nothing links against it and a machine without it only skips the comparison), builds keyed-bench in
# release, and runs `keyed-bench store-vs-sqlite N` for each size, pinned to one core when `taskset` exists
# (the repository's batches then use one core too: the comparison is core for core). Output: each run's table
# and RESULT lines on stdout; progress on stderr. The stores are built in the temporary directory (about
# 1 GB at 1,000,000 records, removed after each run).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
package="$(cd "$here/../.." && pwd)"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 1000000)

if ! ldconfig -p 2>/dev/null | grep -q 'libsqlite3\.so'; then
    echo "run.sh: installing libsqlite3-dev (Debian)" >&2
    if command -v apt-get >/dev/null; then
        apt-get install -y libsqlite3-dev >&2 || echo "run.sh: could not install libsqlite3-dev; keyed-bench will say so" >&2
    fi
fi

echo "run.sh: building keyed-bench (release)" >&2
(cd "$package/Benchmarks" && swift build -c release --product keyed-bench >&2)
bench="$(cd "$package/Benchmarks" && swift build -c release --show-bin-path)/keyed-bench"

pin=()
if command -v taskset >/dev/null && [ "${STORE_BENCH_ALL_CORES:-0}" != 1 ]; then pin=(taskset -c 1); fi
for n in "${sizes[@]}"; do
    echo "run.sh: store-vs-sqlite $n" >&2
    "${pin[@]}" "$bench" store-vs-sqlite "$n" --rounds "${KEYED_BENCH_ROUNDS:-3}"
done
