#!/usr/bin/env bash
# The portability check that .ci/run runs. It fails (exit 1, one line per finding) when:
#   - a Swift file imports FoundationEssentials without `#if canImport(FoundationEssentials)` and an
#     `import Foundation` fallback (Apple's SDKs have no FoundationEssentials);
#   - a library file other than the platform layer's Sources/ArchivePlatform/SystemCalls.swift imports Glibc,
#     Musl or Darwin (every C call, constant and struct conversion is written once, there);
#   - the platform layer's `#if canImport(Glibc)` chains lack a Musl or a Darwin branch;
#   - a library stores a closure whose type has typed throws (a `let`/`var` of such a type, or an `@escaping`
#     parameter of one): its runtime metadata needs `swift_getExtendedFunctionTypeMetadata`, which Apple's
#     platforms have only from macOS 15 / iOS 18, below the deployment targets (`darwin-link.sh` shows the
#     weak import; this catches it where no SDK is at hand);
#   - Package.swift declares no `platforms:`.
set -uo pipefail
cd "$(dirname "$0")/.."
failures=0
fail() { echo "portability: $1"; failures=$((failures + 1)); }

while IFS= read -r -d '' file; do
    awk -v file="$file" '
        /^[[:space:]]*#if[[:space:]]+canImport\(FoundationEssentials\)/ { guarded = 1; next }
        /^[[:space:]]*#else/ { if (guarded) fallback = 1; next }
        /^[[:space:]]*#endif/ { if (guarded && !sawFallbackImport) bad = bad " (no import Foundation fallback)"; guarded = 0; fallback = 0; sawFallbackImport = 0; next }
        /^[[:space:]]*import[[:space:]]+Foundation[[:space:]]*$/ { if (fallback) sawFallbackImport = 1; next }
        /^[[:space:]]*import[[:space:]]+FoundationEssentials([[:space:]]|$)/ { if (!guarded || fallback) bad = bad " line " NR }
        END { if (bad != "") { print file ":" bad; exit 1 } }
    ' "$file" >/dev/null || fail "$file imports FoundationEssentials without #if canImport(FoundationEssentials) ... #else import Foundation"
done < <(find Sources Tests Examples Benchmarks Fuzz -name '*.swift' -print0 2>/dev/null)

while IFS= read -r file; do
    case "$file" in Sources/ArchivePlatform/SystemCalls.swift) continue ;; esac
    fail "$file imports a C library module; system calls belong to Sources/ArchivePlatform/SystemCalls.swift"
done < <(grep -rlE '^[[:space:]]*import[[:space:]]+(Glibc|Musl|Darwin)\b' Sources 2>/dev/null)

for file in Sources/ArchivePlatform/*.swift; do
    if grep -qE 'canImport\(Glibc\)' "$file"; then
        grep -qE 'canImport\(Musl\)' "$file" || fail "$file has a Glibc branch without a Musl branch"
        grep -qE 'canImport\(Darwin\)' "$file" || fail "$file has a Glibc branch without a Darwin branch"
    fi
done

while IFS= read -r line; do
    fail "$line: a stored closure type with typed throws (needs a runtime of macOS 15 / iOS 18): use a protocol, an enum or untyped throws"
done < <(grep -rnE '((let|var)[[:space:]]+[A-Za-z_][A-Za-z0-9_]*[[:space:]]*:[^=]*\)[[:space:]]*throws\(|@escaping[^,)]*throws\()' Sources Examples 2>/dev/null | grep -vE '^[^:]+:[0-9]+:[[:space:]]*///')

grep -qE '^[[:space:]]*platforms:' Package.swift || fail "Package.swift declares no platforms:"

if [ "$failures" -gt 0 ]; then
    echo "portability: $failures finding(s)"
    exit 1
fi
echo "portability: ok (FoundationEssentials guarded everywhere, C library modules only in Sources/ArchivePlatform/SystemCalls.swift, no stored typed-throws closures, platforms declared)"
