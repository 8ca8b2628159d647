#!/usr/bin/env bash
# Installs what .ci/run's checks need beyond the Swift toolchain, from Debian's (or Ubuntu's) package archive,
# and fails when it cannot. Installs only what is missing; on a machine that has it all, it changes nothing.
#
#   Scripts/ci-install.sh
#
#   chromium        Scripts/check-graph-html.sh (the graph page in headless Chromium)
#   graphviz        GraphCommandTests' DOT test (`dot -Tsvg`)
#   libsqlite3-dev  the SQLite that keyed-bench store-vs-sqlite and query-vs-sqlite load at run time
#
# The fuzz targets need only the toolchain (its libFuzzer and AddressSanitizer runtimes) and the benchmarks only
# the toolchain and SQLite: no Python, libplist or Rust peer is installed (CI runs no peer comparison).
# Needs root, or sudo without a password, when something is missing.
# Exit status: 0 everything present, 1 something missing that could not be installed.
set -uo pipefail

have_browser() { command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || command -v google-chrome >/dev/null 2>&1; }
have_dot() { command -v dot >/dev/null 2>&1; }
have_sqlite() { ldconfig -p 2>/dev/null | grep 'libsqlite3\.so\.0 ' >/dev/null; }  # not grep -q: with pipefail, ldconfig's SIGPIPE would fail it

missing() {
    have_browser || echo chromium
    have_dot || echo graphviz
    have_sqlite || echo libsqlite3-dev
}

packages=$(missing | tr '\n' ' ')
if [ -z "$packages" ]; then
    echo "ci-install: chromium, graphviz and libsqlite3-dev are present"
    exit 0
fi

echo "ci-install: installing $packages"
if ! command -v apt-get >/dev/null 2>&1; then
    echo "ci-install: FAILED: $packages missing and no apt-get here; install them by hand" >&2
    exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
    as_root=()
elif sudo -n true 2>/dev/null; then
    as_root=(sudo -n)
else
    echo "ci-install: FAILED: $packages missing, and installing needs root (or sudo without a password)" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
if ! "${as_root[@]}" apt-get install -y -q --no-install-recommends $packages; then
    # A fresh machine may have no package lists, or stale ones: fetch them and try once more.
    "${as_root[@]}" apt-get update -q || true
    # shellcheck disable=SC2086
    "${as_root[@]}" apt-get install -y -q --no-install-recommends $packages
fi

still=$(missing | tr '\n' ' ')
if [ -n "$still" ]; then
    echo "ci-install: FAILED: still missing after apt-get: $still" >&2
    exit 1
fi
echo "ci-install: installed $packages"
