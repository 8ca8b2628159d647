#!/usr/bin/env bash
# Counts the public symbols of each library module and prints them with their total: the size of the API a
# user of the package sees, to compare before and after a change.
#
# USAGE: Scripts/public-symbols.sh [--graphs DIR] [--list MODULE]
#
# 1. Symbol graphs of the package's build, public symbols only and without the members a type inherits from
#    the standard library or from a protocol's default implementation (Scripts/symbol-graphs.sh, as
#    Scripts/build-docs.sh gets them; after `swift build` this reuses its build). --graphs DIR reads the
#    graphs of an earlier run from DIR instead.
# 2. A symbol counts when it is declared by the module itself (<Module>.symbols.json): its types, their
#    members, its global functions and variables, and the members its extensions add to its own types.
#    Not counted: identifiers containing `::SYNTHESIZED::` (members a type gets without declaring them),
#    and the members the module adds to other modules' types (<Module>@Swift.symbols.json and the like: an
#    `IndexableValue` conformance's `indexValue` on `Int` or `Date`, `encodePolymorphic` on the Codable
#    containers). At 1b37189 this gives 244, 252, 13 and 110 for the four modules the query API left alone.
# 3. Prints one `<Module> <count>` line a module and `total <count>`; --list MODULE prints that module's
#    counted symbols instead, one `<kind> <path>` line each, sorted.
set -uo pipefail
cd "$(dirname "$0")/.."

modules=(BinaryPlist ArchiveModel KeyedArchive ArchiveInspection TypedStream ArchiveStore FormCache)
graphs=""
list=""
while [ $# -gt 0 ]; do
    case "$1" in
        --graphs) graphs=${2:?--graphs needs a directory}; shift 2 ;;
        --list) list=${2:?--list needs a module}; shift 2 ;;
        -h | --help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *)
            echo "Error: unknown argument '$1'" >&2
            echo "Usage: Scripts/public-symbols.sh [--graphs DIR] [--list MODULE]" >&2
            exit 64 ;;
    esac
done
command -v python3 >/dev/null || { echo "Error: python3 is needed to read the symbol graphs" >&2; exit 1; }

if [ -z "$graphs" ]; then
    graphs=$(Scripts/symbol-graphs.sh) || exit 1
fi
for module in "${modules[@]}"; do
    [ -f "$graphs/$module.symbols.json" ] || { echo "Error: no symbol graph for $module in $graphs" >&2; exit 1; }
done

python3 - "$graphs" "$list" "${modules[@]}" <<'EOF'
import json, sys

graphs, listed, modules = sys.argv[1], sys.argv[2], sys.argv[3:]

def counted(module):
    with open(f"{graphs}/{module}.symbols.json", encoding="utf-8") as f:
        symbols = json.load(f)["symbols"]
    return [s for s in symbols
            if s["accessLevel"] in ("public", "open") and "::SYNTHESIZED::" not in s["identifier"]["precise"]]

if listed:
    if listed not in modules:
        sys.exit(f"Error: {listed} is not one of {', '.join(modules)}")
    for line in sorted(f'{s["kind"]["identifier"]} {".".join(s["pathComponents"])}' for s in counted(listed)):
        print(line)
    sys.exit(0)
total = 0
for module in modules:
    count = len(counted(module))
    total += count
    print(f"{module} {count}")
print(f"total {total}")
EOF
