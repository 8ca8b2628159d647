#!/usr/bin/env bash
# Issue 9: ArchiveCache against python-diskcache 5.6 and one NSKeyedArchiver file per key, in one run.
#
#   Benchmarks/cache/run.sh [keyed-bench cache options...]     e.g. --skip-1m, --only ours,diskcache
#
# Creates Benchmarks/cache/.venv with diskcache==5.6.3 from PyPI when missing (or $CACHE_BENCH_VENV),
# builds keyed-bench in release, runs `keyed-bench cache` (which runs the Python peer on the same plan)
# and prints every RESULT line and the ratio summary on stdout; progress goes to stderr.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
package="$(cd "$here/../.." && pwd)"
venv="${CACHE_BENCH_VENV:-$here/.venv}"

if ! "$venv/bin/python" -c 'import diskcache, sys; sys.exit(0 if diskcache.__version__ == "5.6.3" else 1)' 2>/dev/null; then
    echo "run.sh: creating $venv with diskcache 5.6.3" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check diskcache==5.6.3
fi

echo "run.sh: building keyed-bench (release)" >&2
(cd "$package" && swift build -c release --product keyed-bench >&2)
bin="$(cd "$package" && swift build -c release --show-bin-path)"

exec "$bin/keyed-bench" cache --python "$venv/bin/python" --peer "$here/diskcache_peer.py" "$@"
