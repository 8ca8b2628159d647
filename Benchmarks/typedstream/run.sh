#!/usr/bin/env bash
# Typedstream decode throughput, ours against pytypedstream, in one run.
#
#   Benchmarks/typedstream/run.sh [rounds]    # default 7 rounds
#
# Files: the largest typedstream fixture (Fixtures/typedstream/crabstep/objects/HugeWithRefs, 67 KB of custom
# objects with shared references) and a synthetic ~10 MB stream of Messages-style bodies that our writer makes
# (keyed-bench typedstream-synthetic). Ours: keyed-bench typedstream (release), each file read whole with
# unknown classes kept. pytypedstream 0.1.0 (PyPI, LGPL-3.0-or-later), installed by this script into a venv
# ($TYPEDSTREAM_BENCH_VENV, default .build/typedstream-bench-venv; never a dependency of the package):
# Unarchiver.from_data(data).decode_all(), the same rounds, median. Both sides alternate, round by round, on
# the same machine. Run from the repository root.
set -euo pipefail
rounds=${1:-7}
root=$(cd "$(dirname "$0")/../.." && pwd)
venv=${TYPEDSTREAM_BENCH_VENV:-$root/.build/typedstream-bench-venv}
if ! "$venv/bin/python" -c "import typedstream" 2>/dev/null; then
    echo "installing pytypedstream==0.1.0 into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "pytypedstream==0.1.0"
fi
(cd "$root/Benchmarks" && swift build -c release --product keyed-bench >/dev/null)
bench=$root/Benchmarks/.build/release/keyed-bench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bench" typedstream-synthetic "$work/synthetic-10MB" 10
files=("$root/Fixtures/typedstream/crabstep/objects/HugeWithRefs" "$work/synthetic-10MB")

"$bench" typedstream "${files[@]}" --rounds "$rounds" | tee "$work/ours"
"$venv/bin/python" - "$rounds" "${files[@]}" <<'PY' | tee "$work/theirs"
import os, statistics, sys, time
from typedstream.archiving import Unarchiver
rounds = int(sys.argv[1])
for path in sys.argv[2:]:
    data = open(path, "rb").read()
    repeats = max(1, 8_000_000 // len(data) // 20)  # Python is slower: fewer repeats per round
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(repeats):
            Unarchiver.from_data(data).decode_all()
        samples.append((time.perf_counter() - start) * 1000 / repeats)
    ms = statistics.median(samples)
    print(f"TYPEDSTREAM impl=pytypedstream file={os.path.basename(path)} bytes={len(data)} ms={ms:.3f} MB/s={len(data) / 1e6 / (ms / 1000):.1f}")
PY
python3 - "$work/ours" "$work/theirs" <<'PY'
import re, sys
def read(path):
    out = {}
    for line in open(path):
        m = re.match(r"TYPEDSTREAM impl=(\S+) file=(\S+) bytes=(\d+) ms=([\d.]+)", line)
        if m: out[m.group(2)] = float(m.group(4))
    return out
ours, theirs = read(sys.argv[1]), read(sys.argv[2])
for name in ours:
    if name in theirs:
        print(f"RATIO file={name} ours_ms={ours[name]:.3f} pytypedstream_ms={theirs[name]:.3f} speedup={theirs[name] / ours[name]:.1f}x")
PY
