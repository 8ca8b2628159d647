#!/usr/bin/env bash
# Ours against peer codecs and archivers, one table of ratios (Benchmarks/README.md, "Peers").
#
#   Benchmarks/peers/run.sh [passes]      # default 3 passes
#   ONLY='^xml-' Benchmarks/peers/run.sh  # only the rows whose operation matches the regex
#   PEER_TIMEOUT=300 Benchmarks/peers/run.sh  # seconds a program may take for one row (default 120; past it: "over N s")
#
# Installs what is missing: Debian's libplist-dev (libplist 2.2, C), librust-plist-dev (the rust plist crate
# 1.3, vendored) and cargo, built offline against /usr/share/cargo/registry; a venv under build/venv with
# bpylist2, nska-deserialize and pytypedstream from PyPI (plistlib is the interpreter's own). Builds
# keyed-bench (release) and one small driver per peer, writes the inputs under build/inputs, then runs
# every row's programs once per pass, each in a fresh process timing itself in-process on the same input
# bytes, the program order reversed every other pass. Prints the table on stdout (progress on stderr) and
# writes every measurement to build/results.tsv. Everything it makes is under Benchmarks/peers/build/
# (git-ignored); nothing here is a dependency of the package.
set -euo pipefail
passes=${1:-3}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$here/build
mkdir -p "$build/inputs"
say() { echo "run.sh: $*" >&2; }

# --- Install -------------------------------------------------------------------------------------------
missing=()
for package in libplist-dev librust-plist-dev cargo pkgconf gcc python3-venv; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
fi
venv=$build/venv
if ! "$venv/bin/python" -c 'import bpylist2, nska_deserialize, typedstream' 2>/dev/null; then
    say "creating $venv with bpylist2, nska-deserialize and pytypedstream"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check \
        bpylist2==4.1.1 nska-deserialize==1.5.1 pytypedstream==0.1.0
fi

# --- Build ---------------------------------------------------------------------------------------------
say "building keyed-bench (release)"
(cd "$root/Benchmarks" && swift build -c release --product keyed-bench >&2)
ours=$(cd "$root/Benchmarks" && swift build -c release --show-bin-path)/keyed-bench
say "building the libplist driver"
# shellcheck disable=SC2046
gcc -O2 -Wall -o "$build/libplist-driver" "$here/c/libplist_driver.c" $(pkg-config --cflags --libs libplist-2.0)
say "building the rust plist driver (Debian's cargo and rustc, offline, vendored crates)"
mkdir -p "$build/rust/.cargo"
cp -r "$here/rust/Cargo.toml" "$here/rust/src" "$build/rust/"
cat >"$build/rust/.cargo/config.toml" <<'TOML'
[source.crates-io]
replace-with = "debian-vendored"

[source.debian-vendored]
directory = "/usr/share/cargo/registry"
TOML
(cd "$build/rust" && RUSTC=/usr/bin/rustc /usr/bin/cargo build --release --offline --quiet >&2)

# --- Inputs --------------------------------------------------------------------------------------------
inputs=$build/inputs
if [ ! -f "$inputs/w1.archive" ]; then
    say "writing raw.bplist, raw.xml, w1.archive"
    "$ours" peer-inputs "$inputs" >&2
fi
if [ ! -f "$inputs/typedstream-10MB" ]; then
    "$ours" typedstream-synthetic "$inputs/typedstream-10MB" 10 >&2
fi
# The large binary plist rewritten by plistlib (object references of 1, 2, 4 or 8 bytes, scalars uniqued
# its way), so that a reader refusing our 3-byte references can be measured on the same tree.
if [ ! -f "$inputs/raw-by-plistlib.bplist" ]; then
    "$venv/bin/python" -c 'import plistlib, sys
open(sys.argv[2], "wb").write(plistlib.dumps(plistlib.loads(open(sys.argv[1], "rb").read()), fmt=plistlib.FMT_BINARY))' \
        "$inputs/raw.bplist" "$inputs/raw-by-plistlib.bplist"
fi
nib=$root/Fixtures/keyed/HexFiend-nib/FindReplaceBanner.keyedobjects.nib
# The largest keyed archive of the fixtures (no .sfl2 file is among them).
bignib=$root/Fixtures/keyed/Flycut-nib/MainMenu.keyedobjects.nib
messages=$root/Fixtures/typedstream/crabstep/messages

# --- Programs and rows ---------------------------------------------------------------------------------
py=$here/python
declare -A program=(
    [ours]="$ours peer-driver"
    [libplist]="$build/libplist-driver"
    [rust-plist]="$build/rust/target/release/rust-plist-driver"
    [plistlib]="$venv/bin/python $py/plistlib_driver.py"
    [bpylist2]="$venv/bin/python $py/bpylist2_driver.py"
    [nska-deserialize]="$venv/bin/python $py/nska_driver.py"
    [pytypedstream]="$venv/bin/python $py/typedstream_driver.py"
)
codecs="ours libplist rust-plist plistlib"
archivers="ours bpylist2 nska-deserialize"
# operation | input label | input path | in-process samples | operations per sample | programs
# A count may name exceptions for programs too slow for it: "3 libplist=1" (libplist 2.2's binary writer
# takes time quadratic in the object count: about 0.8 s at 10,000 records, 3.1 s at 20,000).
rows=(
    "binary-read|raw.bplist (ours)|$inputs/raw.bplist|3|1|$codecs"
    "binary-read|raw.bplist (by plistlib)|$inputs/raw-by-plistlib.bplist|3|1|$codecs"
    "binary-read|nib 10.9 KB|$nib|3|10000 plistlib=1000|$codecs"
    "binary-write|raw.bplist (ours)|$inputs/raw.bplist|3 libplist=1|1|$codecs"
    "binary-write|raw.bplist (by plistlib)|$inputs/raw-by-plistlib.bplist|3|1|ours rust-plist plistlib"
    "xml-read|raw.xml|$inputs/raw.xml|3|1|$codecs"
    "xml-write|raw.xml|$inputs/raw.xml|3|1|$codecs"
    "keyed-typed|w1.archive|$inputs/w1.archive|3|1|$archivers"
    "keyed-generic|w1.archive|$inputs/w1.archive|3|1|$archivers"
    "keyed-generic|nib 10.9 KB|$nib|3|1000 nska-deserialize=1|$archivers"
    "keyed-generic|nib 62.4 KB (largest)|$bignib|3|300 nska-deserialize=1|$archivers"
    "typedstream-decode|Messages bodies ($(ls "$messages" | grep -vc "\.json$") files)|$messages|3|100 pytypedstream=10|ours pytypedstream"
    "typedstream-decode|typedstream-10MB|$inputs/typedstream-10MB|3|1|ours pytypedstream"
)

# The count for program $1 from "default [name=count]...".
count_for() {
    local name=$1 count=$2 exception
    shift 2
    for exception in "$@"; do [ "${exception%%=*}" = "$name" ] && count=${exception#*=}; done
    echo "$count"
}

# --- Passes --------------------------------------------------------------------------------------------
results=$build/results.tsv
printf 'pass\toperation\tinput\tinput_bytes\tprogram\tsamples\tops_per_sample\tstatus\tseconds\tpeak_kb\tnote\n' >"$results"
for ((pass = 1; pass <= passes; pass++)); do
    for row in "${rows[@]}"; do
        IFS='|' read -r op label path samples counts names <<<"$row"
        # ONLY=<regex>: run only the rows whose operation matches (e.g. ONLY='^xml-' for the XML rows).
        [ -n "${ONLY:-}" ] && ! [[ "$op" =~ $ONLY ]] && continue
        read -r -a order <<<"$names"
        if ((pass % 2 == 0)); then  # reversed every other pass
            for ((i = 0, j = ${#order[@]} - 1; i < j; i++, j--)); do
                t=${order[i]}; order[i]=${order[j]}; order[j]=$t
            done
        fi
        for name in "${order[@]}"; do
            repeats=$(count_for "$name" $samples)
            inner=$(count_for "$name" $counts)
            say "pass $pass/$passes: $op $label: $name ($repeats x $inner)"
            status=0
            # shellcheck disable=SC2086
            out=$(timeout "${PEER_TIMEOUT:-120}" ${program[$name]} "$op" "$path" "$repeats" "$inner" 2>"$build/stderr") || status=$?
            note=$(head -c 300 "$build/stderr" | tr '\t\n' '  ')
            if [ $status -eq 0 ]; then
                seconds=$(sed -n 's/.*seconds=\([^ ]*\).*/\1/p' <<<"$out")
                peak=$(sed -n 's/.*peak_kb=\([^ ]*\).*/\1/p' <<<"$out")
                bytes=$(sed -n 's/.*input_bytes=\([^ ]*\).*/\1/p' <<<"$out")
                printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\tok\t%s\t%s\t\n' "$pass" "$op" "$label" "$bytes" "$name" "$repeats" "$inner" \
                    "$seconds" "$peak" >>"$results"
            else
                case $status in 1) kind=refuses ;; 3) kind=n/a ;; 124) kind="over ${PEER_TIMEOUT:-120} s" ;; *) kind="fails (exit $status)" ;; esac
                printf '%s\t%s\t%s\t\t%s\t%s\t%s\t%s\t\t\t%s\n' "$pass" "$op" "$label" "$name" "$repeats" "$inner" "$kind" "${note:-exit status $status}" >>"$results"
            fi
        done
    done
done
rm -f "$build/stderr"
say "raw results: $results"
python3 "$here/table.py" "$results"
