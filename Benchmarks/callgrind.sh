#!/usr/bin/env bash
# Noise-free figures for the codec: instructions (callgrind's Ir) per W1 shape (keyed encode and decode) and
# per plist object (raw read, walk, pull reader and write), counted on fixed sizes. Wall times on shared machines swing by
# 10-20%; these counts are the same on every run of the same binary.
#
#   Benchmarks/callgrind.sh [path/to/keyed-bench]     default: Benchmarks/.build/release/keyed-bench
#
# Environment: W1_SHAPES (default 10000), RAW_RECORDS (default 10000), KEEP=dir (keep the callgrind.out files
# there, for callgrind_annotate), OBJECT_COUNTER (a keyed-bench whose raw-profile has --save, default the one
# measured: give it when measuring an older build).
# Each figure is (instructions of 3 operations - instructions of 1) / 2 / items: the set-up (building the
# model, the first encode) is counted in both runs and cancels out. Output, one line per figure:
#   CALLGRIND op=<w1-encode|w1-decode|raw-write|raw-read|raw-walk|raw-events> items=<n> unit=<shape|object> instructions_per_item=<x>
# Installs valgrind from Debian's packages when it is missing.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
bench="${1:-$here/.build/release/keyed-bench}"
shapes="${W1_SHAPES:-10000}"
records="${RAW_RECORDS:-10000}"
keep="${KEEP:-}"

if ! command -v valgrind >/dev/null 2>&1; then
    echo "valgrind is missing: installing it with apt-get" >&2
    apt-get update -qq >&2 && apt-get install -y -qq valgrind >&2
fi
[ -x "$bench" ] || { echo "Error: no benchmark binary at $bench (cd Benchmarks && swift build -c release)" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Instructions of one run of `keyed-bench <args>`.
count() {
    local name="$1"; shift
    local out="$work/callgrind.out.$name"
    valgrind --tool=callgrind --callgrind-out-file="$out" "$bench" "$@" >/dev/null 2>"$work/$name.err" \
        || { cat "$work/$name.err" >&2; exit 1; }
    [ -n "$keep" ] && mkdir -p "$keep" && cp "$out" "$keep/"
    sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$work/$name.err"
}

# figure <op> <unit> <items> <profile args...>: per-item instructions of one operation.
figure() {
    local op="$1" unit="$2" items="$3"; shift 3
    local one three
    one="$(count "$op-1" "$@" --rounds 1)"
    three="$(count "$op-3" "$@" --rounds 3)"
    awk -v a="$one" -v b="$three" -v n="$items" -v op="$op" -v unit="$unit" 'BEGIN {
        printf "CALLGRIND op=%s items=%d unit=%s instructions_per_item=%.1f\n", op, n, unit, (b - a) / 2 / n }'
}

# The number of objects of the raw workload's plist (the same bytes from every build: the writer is
# deterministic), from its trailer.
"${OBJECT_COUNTER:-$bench}" raw-profile "$records" write --rounds 1 --save "$work/raw.plist" >/dev/null
[ -s "$work/raw.plist" ] || { echo "Error: $bench raw-profile has no --save: set OBJECT_COUNTER" >&2; exit 2; }
objects="$(tail -c 24 "$work/raw.plist" | head -c 8 | od -An -tu1 | awk '{ for (i = 1; i <= NF; i++) v = v * 256 + $i } END { print v }')"

figure w1-encode shape "$shapes" w1-profile "$shapes" encode
figure w1-decode shape "$shapes" w1-profile "$shapes" decode
figure raw-write object "$objects" raw-profile "$records" write
figure raw-read object "$objects" raw-profile "$records" read
figure raw-walk object "$objects" raw-profile "$records" walk
figure raw-events object "$objects" raw-profile "$records" events
