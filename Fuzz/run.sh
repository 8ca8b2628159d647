#!/usr/bin/env bash
# Builds and runs one libFuzzer target over the BinaryPlist readers. Downloads nothing.
#
#   Fuzz/run.sh [binary|xml|json|cache|store|unarchiver|decoder|archive-json|diff|audit|typedstream|all] [seconds]  default: all, 600 seconds per target
#   Fuzz/run.sh regress [target...]     default: every target
#
# regress (what .ci/run runs): builds every target (or those named) without optimization under Fuzz/build/regress/
# (apart from the optimized fuzzers), then runs each once over its seed corpus only (a fresh
# Fuzz/build/regress/corpus-<target>/ holding the seeds, nothing a fuzzing run kept; libFuzzer -runs=0: every seed
# executed once, no mutation), failing on any crash, timeout or harness finding. Prints
#   REGRESS target=<t> seeds=<n> executions=<n> seconds=<s> exit=<libFuzzer status> findings=<new artifacts>
# and exits 1 when any target failed, 2 for a build error.
#
# Environment: MAX_LEN (default 8192), FUZZ_ARGS (extra libFuzzer flags, e.g. "-seed=1 -runs=1000").
# Output: Fuzz/build/<target> (the fuzzer), Fuzz/build/corpus-<target>/ (seeds from Fixtures/ plus what the
# fuzzer keeps), Fuzz/build/artifacts-<target>/ (crash-, timeout-, oom- files), Fuzz/build/<target>.log,
# and one line per target:
#   FUZZ target=<t> seconds=<s> executions=<n> findings=<new artifacts> artifacts=<path>
# Exit status: 0 when no target found anything, 1 otherwise, 2 for a build or usage error.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/Fuzz/build"
target="${1:-all}"
seconds="${2:-600}"
max_len="${MAX_LEN:-8192}"
# Fuzzing builds are optimized; regress builds its own copies (Fuzz/build/regress/) without optimization, which
# compiles about 2.7 times faster (KeyedArchive: 16 s of CPU against 43 s) and keeps assert() on.
optimize=-O
if [ "$target" = regress ]; then
    build="$root/Fuzz/build/regress"
    optimize=-Onone
fi

entry_file() {
    case "$1" in
        binary) echo "$root/Fuzz/BinaryPlistFuzz.swift" ;;
        xml) echo "$root/Fuzz/XMLPlistFuzz.swift" ;;
        json) echo "$root/Fuzz/PlistJSONFuzz.swift" ;;
        cache) echo "$root/Fuzz/CacheFuzz.swift" ;;
        store) echo "$root/Fuzz/StoreFuzz.swift" ;;
        unarchiver) echo "$root/Fuzz/UnarchiverFuzz.swift" ;;
        decoder) echo "$root/Fuzz/ArchiveDecoderFuzz.swift" ;;
        archive-json) echo "$root/Fuzz/ArchiveJSONFuzz.swift" ;;
        diff) echo "$root/Fuzz/DiffFuzz.swift" ;;
        audit) echo "$root/Fuzz/AuditFuzz.swift" ;;
        typedstream) echo "$root/Fuzz/TypedStreamFuzz.swift" ;;
        *) echo "Error: unknown target '$1' (binary, xml, json, cache, store, unarchiver, decoder, archive-json, diff, audit, typedstream or all)" >&2; exit 2 ;;
    esac
}

dictionary() {
    case "$1" in
        binary) echo "$root/Fuzz/bplist.dict" ;;
        xml) echo "$root/Fuzz/xml.dict" ;;
        json) echo "$root/Fuzz/json.dict" ;;
        cache) echo "$root/Fuzz/cache.dict" ;;
        store) echo "$root/Fuzz/store.dict" ;;
        unarchiver | decoder | diff | audit) echo "$root/Fuzz/unarchiver.dict" ;;
        archive-json) echo "$root/Fuzz/json.dict" ;;
        typedstream) echo "$root/Fuzz/typedstream.dict" ;;
    esac
}

# What the seed choice asks of a fixture, found once per invocation (every target asks it of the same 700 files;
# asking again cost `all` and `regress` about 40 seconds of processes): sets $fact to
# "<size> <starts bplist0: 0|1> <starts with < after a BOM and spaces: 0|1> <first byte 4: 0|1>".
declare -A fixture_facts=()
fixture_fact() {
    local file="$1" bplist=0 xml=0 typedstream=0
    fact="${fixture_facts[$file]:-}"
    [ -z "$fact" ] || return 0
    [ "$(head -c 7 "$file")" = "bplist0" ] && bplist=1
    head -c 64 "$file" | LC_ALL=C grep -q '^\(\xEF\xBB\xBF\)\?[[:space:]]*<' && xml=1
    [ "$(head -c 1 "$file" | od -An -tu1 | tr -d ' ')" = 4 ] && typedstream=1
    fact="$(wc -c <"$file") $bplist $xml $typedstream"
    fixture_facts[$file]="$fact"
}

# Whether a fixture belongs in the seed corpus of a target (after fixture_fact on it).
is_seed() {
    local target="$1" file="$2" size bplist xml typedstream
    read -r size bplist xml typedstream <<<"$fact"
    case "$target" in
        binary) [ "$bplist" = 1 ] ;;
        xml) [ "$xml" = 1 ] ;;
        json) case "$file" in *.plist.json) true ;; *) false ;; esac ;;
        decoder) false ;;       # seeded from Fuzz/seeds-decoder (archives ArchiveEncoder wrote) and the keyed fixtures
        archive-json) false ;;  # seeded from Fuzz/seeds-archive-json (keyedarchive decode of the archives in Fuzz/seeds-decoder)
        diff | audit) case "$file" in "$root"/Fixtures/inspector/*) true ;; *) is_seed unarchiver "$file" ;; esac ;;
        unarchiver) case "$file" in "$root"/Fixtures/keyed/*) [ "$bplist" = 1 ] || [ "$xml" = 1 ] ;; *) false ;; esac ;;
        cache | store) false ;;  # seeded by seed_cache_corpus / seed_store_corpus
        typedstream) case "$file" in "$root"/Fixtures/typedstream/*) [ "$typedstream" = 1 ] ;; *) false ;; esac ;;
    esac
}

# Modules built by this invocation: every target links the same instrumented libraries, so each is built once
# per run (not once per target).
declare -A built_modules=()

# A static library and module of one package target, instrumented for the fuzzer.
build_module() {
    local name="$1" modules="$build/modules"
    shift
    [ -z "${built_modules[$name]:-}" ] || return 0
    echo "building module $name" >&2
    mkdir -p "$modules"
    # A fresh archive: `ar` keeps the members of files since moved or deleted, which would link twice.
    rm -f "$build/lib$name.a"
    swiftc -sanitize=fuzzer,address -parse-as-library "$optimize" -g -module-name "$name" -package-name KeyedArchiveStore \
        -I "$modules" -emit-module -emit-module-path "$modules/$name.swiftmodule" -emit-library -static \
        -o "$build/lib$name.a" "$@" >"$build/$name.build.log" 2>&1 \
        || { cat "$build/$name.build.log" >&2; echo "Error: building module $name failed" >&2; exit 2; }
    built_modules[$name]=1
}

build_target() {
    local target="$1" entry binary
    entry="$(entry_file "$target")"
    binary="$build/$target"
    mkdir -p "$build"
    # Rebuild only when a source is newer than the fuzzer.
    if [ -x "$binary" ] && [ -z "$(find "$root/Sources" "$root/Fuzz" -name '*.swift' -newer "$binary")" ]; then
        return
    fi
    echo "building $binary" >&2
    if [ "$target" = cache ] || [ "$target" = store ]; then
        # The cache's and the store's readers live in ArchiveStore, which imports KeyedArchive (and its ArchiveModel) and BinaryPlist: build those as
        # libraries, then ArchiveStore's sources and the entry file as one module, so internals are reachable.
        build_module BinaryPlist "$root"/Sources/BinaryPlist/*.swift
    build_module ArchiveModel $(find "$root/Sources/ArchiveModel" -name '*.swift')
        build_module KeyedArchive $(find "$root/Sources/KeyedArchive" -name '*.swift')
        build_module ArchivePlatform "$root"/Sources/ArchivePlatform/*.swift
        swiftc -sanitize=fuzzer,address -parse-as-library "$optimize" -g -module-name ArchiveStore -package-name KeyedArchiveStore \
            -I "$build/modules" $(find "$root/Sources/ArchiveStore" -name '*.swift') "$root/Fuzz/FuzzFiles.swift" "$entry" \
            -L "$build" -lArchivePlatform -lKeyedArchive -lArchiveModel -lBinaryPlist -lm -o "$binary" >"$build/$target.build.log" 2>&1 \
            || { cat "$build/$target.build.log" >&2; echo "Error: building $binary failed" >&2; exit 2; }
        return
    fi
    if [ "$target" = diff ] || [ "$target" = audit ]; then
        # The inspector's walks: its sources and the entry file as one module (internals reachable), the layers
        # below as instrumented libraries.
        build_module BinaryPlist "$root"/Sources/BinaryPlist/*.swift
    build_module ArchiveModel $(find "$root/Sources/ArchiveModel" -name '*.swift')
        build_module KeyedArchive $(find "$root/Sources/KeyedArchive" -name '*.swift')
        build_module ArchiveInspection "$root"/Sources/ArchiveInspection/*.swift
        build_module TypedStream $(find "$root/Sources/TypedStream" -name '*.swift')
        build_module ArchivePlatform "$root"/Sources/ArchivePlatform/*.swift
        build_module CommandLineSupport "$root"/Sources/CommandLineSupport/*.swift
        build_module ArchiveStore $(find "$root/Sources/ArchiveStore" -name '*.swift')
        swiftc -sanitize=fuzzer,address -parse-as-library "$optimize" -g -module-name InspectorCLI -package-name KeyedArchiveStore \
            -I "$build/modules" $(find "$root/Sources/InspectorCLI" -name '*.swift') "$entry" \
            -L "$build" -lArchiveStore -lCommandLineSupport -lArchivePlatform -lArchiveInspection -lTypedStream -lKeyedArchive -lArchiveModel -lBinaryPlist -lm -o "$binary" >"$build/$target.build.log" 2>&1 \
            || { cat "$build/$target.build.log" >&2; echo "Error: building $binary failed" >&2; exit 2; }
        return
    fi
    if [ "$target" = typedstream ]; then
        # The typedstream reader and writer through their public API: the four layers as instrumented libraries.
        build_module BinaryPlist "$root"/Sources/BinaryPlist/*.swift
    build_module ArchiveModel $(find "$root/Sources/ArchiveModel" -name '*.swift')
        build_module KeyedArchive $(find "$root/Sources/KeyedArchive" -name '*.swift')
        build_module TypedStream $(find "$root/Sources/TypedStream" -name '*.swift')
        swiftc -sanitize=fuzzer,address -parse-as-library "$optimize" -g -module-name TypedStreamFuzz -package-name KeyedArchiveStore \
            -I "$build/modules" "$entry" \
            -L "$build" -lTypedStream -lKeyedArchive -lArchiveModel -lBinaryPlist -lm -o "$binary" >"$build/$target.build.log" 2>&1 \
            || { cat "$build/$target.build.log" >&2; echo "Error: building $binary failed" >&2; exit 2; }
        return
    fi
    if [ "$target" = unarchiver ] || [ "$target" = decoder ] || [ "$target" = archive-json ]; then
        # The keyed unarchiver through its public API (archive-JSON through ArchiveInspection's): BinaryPlist,
        # KeyedArchive and ArchiveInspection as instrumented libraries.
        build_module BinaryPlist "$root"/Sources/BinaryPlist/*.swift
    build_module ArchiveModel $(find "$root/Sources/ArchiveModel" -name '*.swift')
        build_module KeyedArchive $(find "$root/Sources/KeyedArchive" -name '*.swift')
        build_module ArchiveInspection "$root"/Sources/ArchiveInspection/*.swift
        swiftc -sanitize=fuzzer,address -parse-as-library "$optimize" -g -module-name "$(echo "$target" | tr -d -)Fuzz" -package-name KeyedArchiveStore -I "$build/modules" "$entry" \
            -L "$build" -lArchiveInspection -lKeyedArchive -lArchiveModel -lBinaryPlist -lm -o "$binary" >"$build/$target.build.log" 2>&1 \
            || { cat "$build/$target.build.log" >&2; echo "Error: building $binary failed" >&2; exit 2; }
        return
    fi
    # The plist readers and plist-JSON (ArchiveInspection's) as instrumented libraries; the entry file and its
    # support reach their package declarations.
    build_module BinaryPlist "$root"/Sources/BinaryPlist/*.swift
    build_module ArchiveModel $(find "$root/Sources/ArchiveModel" -name '*.swift')
    build_module KeyedArchive $(find "$root/Sources/KeyedArchive" -name '*.swift')
    build_module ArchiveInspection "$root"/Sources/ArchiveInspection/*.swift
    swiftc -sanitize=fuzzer,address -parse-as-library "$optimize" -g -module-name "FuzzPlist" -package-name KeyedArchiveStore \
        -I "$build/modules" "$root/Fuzz/FuzzSupport.swift" "$entry" \
        -L "$build" -lArchiveInspection -lKeyedArchive -lArchiveModel -lBinaryPlist -lm -o "$binary" \
        >"$build/$target.build.log" 2>&1 || { cat "$build/$target.build.log" >&2; echo "Error: building $binary failed" >&2; exit 2; }
}

# Where a target's corpus lives: Fuzz/build/corpus-<target> (seeds plus what the fuzzer keeps), or, for
# regress, Fuzz/build/regress/corpus-<target> (the seeds alone: emptied before each run).
corpus_dir() { echo "$build/corpus-$1"; }

seed_corpus() {
    local target="$1" corpus file name
    corpus="$(corpus_dir "$target")"
    mkdir -p "$corpus"
    while IFS= read -r -d '' file; do
        fixture_fact "$file"
        [ "${fact%% *}" -le "$max_len" ] || continue
        if is_seed "$target" "$file"; then
            name="${file#"$root"/Fixtures/}"
            cp -n "$file" "$corpus/seed-${name//\//_}"
        fi
    done < <(find "$root/Fixtures" -type f ! -name '*.md' ! -name '*.txt' -print0)
}

# Seeds for the cache target: Fuzz/seeds-cache holds a table (header and live slots), a segment and a large
# entry file that the cache wrote itself (joined by "|||", in both modes), plus two hand-made minimal ones and
# the inputs of fixed findings (regression-*).
seed_cache_corpus() {
    local corpus file
    corpus="$(corpus_dir cache)"
    mkdir -p "$corpus"
    for file in "$root"/Fuzz/seeds-cache/*; do
        [ -f "$file" ] && cp -n "$file" "$corpus/"
    done
    printf '\x01ACTABLE1|||\x18\x00\x00\x00|||bplist00' >"$corpus/seed-minimal"
    printf '\xf8|||H|||bplist00' >"$corpus/seed-directory"
}

# Seeds for the store target: Fuzz/seeds-store holds record logs and indexes that the repository wrote
# itself (log, "|||", index).
seed_store_corpus() {
    local corpus file
    corpus="$(corpus_dir store)"
    mkdir -p "$corpus"
    for file in "$root"/Fuzz/seeds-store/*; do
        [ -f "$file" ] && cp -n "$file" "$corpus/"
    done
}

# Seeds kept in Fuzz/seeds-<target> (decoder, archive-json, typedstream: streams our writer made), plus the keyed
# fixtures for the decoder.
seed_directory_corpus() {
    local target="$1" corpus file
    corpus="$(corpus_dir "$target")"
    mkdir -p "$corpus"
    for file in "$root"/Fuzz/seeds-"$target"/*; do
        [ -f "$file" ] && cp -n "$file" "$corpus/"
    done
    if [ "$target" = decoder ]; then
        while IFS= read -r -d '' file; do
            [ "$(wc -c <"$file")" -le "$max_len" ] && [ "$(head -c 7 "$file")" = "bplist0" ] \
                && cp -n "$file" "$corpus/seed-$(basename "$file")"
        done < <(find "$root/Fixtures/keyed" -type f -print0)
    fi
    return 0
}

# Seeds for the diff target beside the single archives: pairs "A|||B" of the binary and XML forms of one graph
# (Fixtures/keyed/kiler129-NSKeyedUnarchiver) and of two different graphs.
seed_diff_corpus() {
    local corpus dir="$root/Fixtures/keyed/kiler129-NSKeyedUnarchiver" file xml previous=""
    corpus="$(corpus_dir diff)"
    mkdir -p "$corpus"
    for file in "$dir"/*.bin.plist; do
        xml="$dir/xml/$(basename "$file" .bin.plist).xml.plist"
        [ -f "$xml" ] || continue
        { cat "$file"; printf '|||'; cat "$xml"; } >"$corpus/pair-$(basename "$file")"
        [ -z "$previous" ] || { cat "$previous"; printf '|||'; cat "$file"; } >"$corpus/two-$(basename "$file")"
        previous="$file"
    done
}

seed_all() {
    local target="$1"
    seed_corpus "$target"
    [ "$target" != cache ] || seed_cache_corpus
    [ "$target" != store ] || seed_store_corpus
    [ "$target" != diff ] || seed_diff_corpus
    case "$target" in decoder | archive-json | typedstream) seed_directory_corpus "$target" ;; esac
}

run_target() {
    local target="$1" artifacts="$build/artifacts-$1" log="$build/$1.log" before after executions status
    build_target "$target"
    seed_all "$target"
    mkdir -p "$artifacts"
    before=$(find "$artifacts" -type f | wc -l)
    set +e
    # No Swift backtracer on a trap: libFuzzer's own report and the artifact are what count, and fast.
    # shellcheck disable=SC2086
    SWIFT_BACKTRACE=enable=no "$build/$target" "$(corpus_dir "$target")" \
        -dict="$(dictionary "$target")" -max_len="$max_len" -max_total_time="$seconds" \
        -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$artifacts/" ${FUZZ_ARGS:-} >"$log" 2>&1
    status=$?
    set -e
    after=$(find "$artifacts" -type f | wc -l)
    executions=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    if [ -z "$executions" ]; then  # no final stats (killed): the last status line's count
        executions=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
    fi
    echo "FUZZ target=$target seconds=$seconds executions=${executions:-0} findings=$((after - before)) exit=$status artifacts=$artifacts"
    [ "$after" -eq "$before" ]
}

# One regression run of a built target over its seeds alone: every seed executed once (-runs=0), the same
# limits as a fuzzing run. Fails on a non-zero libFuzzer exit (a crash, leak, timeout or trap in the harness),
# on a new artifact, or when fewer inputs ran than there are seeds.
regress_target() {
    local target="$1" artifacts="$build/artifacts-$1" log="$build/$1.log" corpus seeds before after executions status start seconds
    corpus="$(corpus_dir "$target")"
    rm -rf "$corpus"
    seed_all "$target"
    seeds=$(find "$corpus" -type f | wc -l)
    mkdir -p "$artifacts"
    before=$(find "$artifacts" -type f | wc -l)
    start=$(date +%s)
    set +e
    # shellcheck disable=SC2086
    SWIFT_BACKTRACE=enable=no "$build/$target" "$corpus" -runs=0 \
        -max_len="$max_len" -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$artifacts/" ${FUZZ_ARGS:-} >"$log" 2>&1
    status=$?
    set -e
    seconds=$(($(date +%s) - start))
    after=$(find "$artifacts" -type f | wc -l)
    executions=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    echo "REGRESS target=$target seeds=$seeds executions=${executions:-0} seconds=$seconds exit=$status findings=$((after - before))"
    if [ "$status" -ne 0 ] || [ "$after" -ne "$before" ] || [ "${executions:-0}" -lt 1 ] || [ "$seeds" -lt 1 ]; then
        echo "REGRESS target=$target FAILED (log: $log)" >&2
        grep -E 'FUZZ FINDING|ERROR: |SUMMARY: |Fatal error|deadly signal' "$log" | head -20 >&2
        return 1
    fi
}

command -v swiftc >/dev/null || { echo "Error: swiftc not found" >&2; exit 2; }
all_targets=(binary xml json cache store unarchiver decoder archive-json diff audit typedstream)
if [ "$target" = regress ]; then
    shift
    targets=("$@")
    [ "${#targets[@]}" -gt 0 ] || targets=("${all_targets[@]}")
    for t in "${targets[@]}"; do entry_file "$t" >/dev/null; done
    # Every target built first (a build error stops here, status 2), then every regression run.
    for t in "${targets[@]}"; do
        start=$(date +%s)
        build_target "$t"
        echo "REGRESS target=$t built in $(($(date +%s) - start)) s" >&2
    done
    failed=0
    for t in "${targets[@]}"; do regress_target "$t" || failed=1; done
    [ "$failed" -eq 0 ] && echo "REGRESS passed: ${#targets[@]} targets over their seeds" || echo "REGRESS FAILED" >&2
    exit "$failed"
fi
if [ "$target" = all ]; then
    failed=0
    for t in binary xml json cache store unarchiver decoder archive-json diff audit typedstream; do run_target "$t" || failed=1; done  # one after another: shared cores
    exit "$failed"
fi
entry_file "$target" >/dev/null
run_target "$target" || exit 1
