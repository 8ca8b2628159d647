#!/usr/bin/env bash
# ArchiveCache against python-diskcache 5.6 and one NSKeyedArchiver file per key, in one run.
#
#   Benchmarks/cache/run.sh [--after-deleting N] [keyed-bench cache options...]     e.g. --skip-1m, --only ours,diskcache
#
# Creates Benchmarks/cache/.venv with diskcache==5.6.3 from PyPI when missing (or $CACHE_BENCH_VENV),
# builds keyed-bench and keyedarchive in release, runs `keyed-bench cache` (which runs the Python peer on the
# same plan) and prints every RESULT line and the ratio summary on stdout; progress goes to stderr. Then four
# `keyedarchive cache exercise` processes share one directory with a 256 KiB byte limit, and its `du` is
# printed (the target: at most 320 KiB, 1.25x the limit).
#
# --after-deleting N first creates and deletes N empty files in the temporary directory's file system (as
# the README's run 2 did: on ext4, creating files right after a mass deletion is slow).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
package="$(cd "$here/../.." && pwd)"
venv="${CACHE_BENCH_VENV:-$here/.venv}"

if ! "$venv/bin/python" -c 'import diskcache, sys; sys.exit(0 if diskcache.__version__ == "5.6.3" else 1)' 2>/dev/null; then
    echo "run.sh: creating $venv with diskcache 5.6.3" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check diskcache==5.6.3
fi

churn=0
if [ "${1:-}" = "--after-deleting" ]; then
    churn="${2:?--after-deleting needs a count}"
    shift 2
fi

echo "run.sh: building keyed-bench and keyedarchive (release)" >&2
# keyed-bench is in the benchmarks' own package (Benchmarks/Package.swift), keyedarchive in the root one.
(cd "$package/Benchmarks" && swift build -c release --product keyed-bench >&2)
(cd "$package" && swift build -c release --product keyedarchive >&2)
bench="$(cd "$package/Benchmarks" && swift build -c release --show-bin-path)"
bin="$(cd "$package" && swift build -c release --show-bin-path)"

if [ "$churn" -gt 0 ]; then
    scratch="$(mktemp -d)"
    echo "run.sh: creating and deleting $churn files in $scratch" >&2
    "$venv/bin/python" - "$scratch" "$churn" <<'PY'
import os, sys, time
folder, count = sys.argv[1], int(sys.argv[2])
start = time.monotonic()
for i in range(count):
    os.close(os.open(os.path.join(folder, str(i)), os.O_CREAT | os.O_WRONLY, 0o600))
for i in range(count):
    os.unlink(os.path.join(folder, str(i)))
print(f"INFO churn files={count} seconds={time.monotonic() - start:.1f}", flush=True)
PY
    rmdir "$scratch"
fi

"$bench/keyed-bench" cache --python "$venv/bin/python" --peer "$here/diskcache_peer.py" "$@"

shared="$(mktemp -d)"
echo "run.sh: four 'keyedarchive cache exercise' processes on $shared, byte limit 256k" >&2
for writer in 1 2 3 4; do
    "$bin/keyedarchive" cache exercise "$shared" --writer "$writer" --operations 20000 --keys 5000 --value-bytes 200 \
        --byte-limit 256k --seed 7 >"$shared.$writer.out" &
done
wait
wrong=$(cat "$shared".?.out | grep -c -v ' wrong=0$' || true)
du_bytes=$(du -s --block-size=1 "$shared" | cut -f1)
entries=$("$bin/keyedarchive" cache stats "$shared" | sed -n 's/^entries: //p')
echo "RESULT impl=ours op=exercise-4-processes du=$du_bytes limit=262144 bound=327680 entries=$entries runs_with_wrong_values=$wrong"
rm -rf "$shared" "$shared".?.out
