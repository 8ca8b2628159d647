#!/usr/bin/env bash
# Builds the DocC documentation of the library products into one static site, and fails on a broken
# link, an unknown symbol reference or a public symbol without a summary.
#
# USAGE: Scripts/build-docs.sh [--output DIR] [--hosting-base-path PATH]
#
# 1. Symbol graphs of the package's build, public symbols only and without the members a type inherits from
#    the standard library (Scripts/symbol-graphs.sh; after `swift test` this reuses its build).
# 2. `docc convert` of Sources/<Module>/<Module>.docc for each library with --warnings-as-errors and the
#    documentation coverage, which must be 100% of abstracts for Types, Members and Globals.
# 3. `docc merge` of the archives into one static site, DIR (default .build/docs/site): serve it with
#    `python3 -m http.server --directory .build/docs/site 8000` and open http://localhost:8000/documentation/.
#    --hosting-base-path is for a site served below a path (GitHub Pages: /<repository>).
set -uo pipefail
cd "$(dirname "$0")/.."

modules=(BinaryPlist ArchiveModel KeyedArchive ArchiveInspection TypedStream ArchiveStore FormCache)
output=.build/docs/site
base_path=""
while [ $# -gt 0 ]; do
    case "$1" in
        --output) output=${2:?--output needs a directory}; shift 2 ;;
        --hosting-base-path) base_path=${2:?--hosting-base-path needs a path}; shift 2 ;;
        -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *)
            echo "Error: unknown argument '$1'" >&2
            echo "Usage: Scripts/build-docs.sh [--output DIR] [--hosting-base-path PATH]" >&2
            exit 64 ;;
    esac
done

docc=$(command -v docc || true)
[ -n "$docc" ] || docc="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
[ -x "$docc" ] || { echo "Error: docc is not in the toolchain ($docc)" >&2; exit 1; }

# The output directory is replaced: refuse one that holds anything but a site this script wrote.
if [ -d "$output" ] && [ -n "$(ls -A "$output")" ] && [ ! -f "$output/index.html" ]; then
    echo "Error: $output is not empty and not a documentation site; remove it or choose another --output" >&2
    exit 64
fi
work=.build/docs
rm -rf "$work/symbol-graphs" "$work/archives" "$work/coverage" "$output"
mkdir -p "$work/symbol-graphs" "$work/archives" "$work/coverage" "$(dirname "$output")"

graphs=$(Scripts/symbol-graphs.sh) || exit 1

status=0
archives=()
for module in "${modules[@]}"; do
    graph_dir="$work/symbol-graphs/$module"
    mkdir -p "$graph_dir"
    # The module's own symbols and its extensions of other modules' types (<Module>@Swift.symbols.json).
    cp "$graphs/$module.symbols.json" "$graphs/$module"@*.symbols.json "$graph_dir/" 2>/dev/null
    [ -f "$graph_dir/$module.symbols.json" ] || { echo "Error: no symbol graph for $module" >&2; status=1; continue; }
    archive="$work/archives/$module.doccarchive"
    report=$("$docc" convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$graph_dir" \
        --fallback-display-name "$module" --fallback-bundle-identifier "$module" \
        --output-path "$archive" \
        --transform-for-static-hosting ${base_path:+--hosting-base-path "$base_path"} \
        --warnings-as-errors \
        --experimental-documentation-coverage --coverage-summary-level brief 2>&1)
    converted=$?
    if [ $converted -ne 0 ]; then
        printf '%s\n' "$report" >&2
        echo "Error: docc convert failed for $module" >&2
        status=1
        continue
    fi
    mv "$archive/documentation-coverage.json" "$work/coverage/$module.json"
    # The brief table: "Types | 100% (21/21) | ..." per row; the first column is the share with an abstract.
    table=$(printf '%s\n' "$report" | grep -E '^(Types|Members|Globals) +\|')
    echo "$module:"
    printf '%s\n' "$table" | cut -d'|' -f1,2 | sed 's/^/  /'
    missing=$(printf '%s\n' "$table" | awk -F'|' '{ if (match($2, /\(([0-9]+)\/([0-9]+)\)/)) {
        split(substr($2, RSTART + 1, RLENGTH - 2), n, "/"); if (n[1] != n[2]) print $1 } else print $1 }')
    if [ "$(printf '%s\n' "$table" | wc -l)" -ne 3 ] || [ -n "$missing" ]; then
        echo "Error: $module has public symbols without a summary (see $work/coverage/$module.json)" >&2
        status=1
    fi
    archives+=("$archive")
done
[ $status -eq 0 ] || exit $status

if ! merged=$("$docc" merge "${archives[@]}" --output-path "$output" \
    --synthesized-landing-page-name KeyedArchiveStore --synthesized-landing-page-topics-style list 2>&1); then
    printf '%s\n' "$merged" >&2
    echo "Error: docc merge failed" >&2
    exit 1
fi
echo "Documentation: $output ($(du -sh "$output" | cut -f1)); coverage: $work/coverage/"
