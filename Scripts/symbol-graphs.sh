#!/usr/bin/env bash
# Writes the symbol graphs of the package's build and prints their directory: public symbols only, without the
# members a type inherits from the standard library or a protocol's default implementation (`swift package
# dump-symbol-graph --skip-synthesized-members --minimum-access-level public`; after `swift build` or
# `swift test` this reuses that build). Scripts/build-docs.sh and Scripts/public-symbols.sh read them.
#
# USAGE: Scripts/symbol-graphs.sh     (the directory on stdout; the tool's log on stderr when it fails)
set -uo pipefail
cd "$(dirname "$0")/.."
log=$(swift package dump-symbol-graph --skip-synthesized-members --minimum-access-level public 2>&1)
graphs=$(printf '%s\n' "$log" | sed -n 's/^Files written to //p' | tail -n 1)
if [ -z "$graphs" ] || [ ! -d "$graphs" ]; then
    printf '%s\n' "$log" >&2
    echo "Error: swift package dump-symbol-graph wrote no symbol graphs" >&2
    exit 1
fi
printf '%s\n' "$graphs"
