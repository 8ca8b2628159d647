#!/usr/bin/env bash
# keyedarchive lint: one process over many files against one process per file (a shell loop).
#
#   Benchmarks/lint/run.sh [rounds]        # default 5 rounds; prints the median wall time of each side
#
# Sets: the 241 data files of Fixtures/ (renderings .expected.txt / .plist.json, notes and licenses left out),
# every file of Fixtures/ (714, renderings included: they fail as "not a plist"), and the data files given
# 10 times (2,410 arguments, one process). Both sides run in the same round, one after the other, on a warm
# page cache. Run from the repository root; builds the release executable first.
set -euo pipefail
rounds=${1:-5}
swift build -c release --product keyedarchive >/dev/null
bin=.build/release/keyedarchive
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
find Fixtures -type f ! -name '*.md' ! -name '*.txt' ! -name '*.json' ! -name 'COPYING*' ! -name 'LICENSE*' | sort >"$work/data"
find Fixtures -type f | sort >"$work/all"
for _ in 1 2 3 4 5 6 7 8 9 10; do cat "$work/data"; done >"$work/data10"

now() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

one_process() {  # $1: list file
    local start end files
    mapfile -t files <"$1"
    start=$(now)
    "$bin" lint "${files[@]}" >/dev/null || true  # 65: some fixtures are broken on purpose
    end=$(now)
    echo $(((end - start) / 1000))
}

per_file() {  # $1: list file
    local start end
    start=$(now)
    while IFS= read -r f; do "$bin" lint "$f" >/dev/null || true; done <"$1"
    end=$(now)
    echo $(((end - start) / 1000))
}

printf '%-8s %7s %16s %16s %8s %14s\n' set files "one process" "process per file" ratio "per file (one)"
for list in data all data10; do
    count=$(wc -l <"$work/$list")
    : >"$work/one.$list"
    : >"$work/loop.$list"
    for _ in $(seq "$rounds"); do
        one_process "$work/$list" >>"$work/one.$list"
        [ "$list" = data10 ] || per_file "$work/$list" >>"$work/loop.$list"
    done
    one=$(median <"$work/one.$list")
    if [ "$list" = data10 ]; then
        printf '%-8s %7d %13.1f ms %16s %8s %11.1f us\n' "$list" "$count" "$(echo "$one / 1000" | bc -l)" "-" "-" \
            "$(echo "$one / $count" | bc -l)"
    else
        loop=$(median <"$work/loop.$list")
        printf '%-8s %7d %13.1f ms %13.1f ms %7.0fx %11.1f us\n' "$list" "$count" "$(echo "$one / 1000" | bc -l)" \
            "$(echo "$loop / 1000" | bc -l)" "$(echo "$loop / $one" | bc -l)" "$(echo "$one / $count" | bc -l)"
    fi
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
