#!/usr/bin/env bash
# Checks `keyedarchive graph --format html` in a real browser: headless Chromium, no network. Loads the Flycut
# nib's page with the #selftest fragment, whose script expands the root, follows the deepest shared link and
# searches by class, then reads the outcome from the DOM (--dump-dom) and takes a screenshot.
#
#   Scripts/check-graph-html.sh [archive]     default: Fixtures/keyed/Flycut-nib/MainMenu.keyedobjects.nib
#
# Environment: SCREENSHOT (default /tmp/graph-screenshot.png), KEYEDARCHIVE (a built keyedarchive; default: built
# here with `swift build --product keyedarchive`).
# Environment: CI_REQUIRE_TOOLS=1 (set by .ci/run) makes a missing Chromium a failure instead of a skip.
# Exit status: 0 passed or skipped (prints "SKIPPED: ..." when Chromium is not installed and CI_REQUIRE_TOOLS is
# not 1), 1 failed (or Chromium missing under CI_REQUIRE_TOOLS=1), 2 setup error.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
archive="${1:-$root/Fixtures/keyed/Flycut-nib/MainMenu.keyedobjects.nib}"
screenshot="${SCREENSHOT:-/tmp/graph-screenshot.png}"

browser=""
for candidate in chromium chromium-browser google-chrome; do
    if command -v "$candidate" >/dev/null 2>&1; then browser="$candidate"; break; fi
done
if [ -z "$browser" ]; then
    if [ "${CI_REQUIRE_TOOLS:-}" = 1 ]; then
        echo "check-graph-html: FAILED: Chromium is not installed and CI_REQUIRE_TOOLS=1 (Scripts/ci-install.sh installs it)" >&2
        exit 1
    fi
    echo "check-graph-html: SKIPPED: Chromium is not installed (apt-get install -y chromium)"
    exit 0
fi

if [ -z "${KEYEDARCHIVE:-}" ]; then
    (cd "$root" && swift build --product keyedarchive >/dev/null) || { echo "check-graph-html: building keyedarchive failed" >&2; exit 2; }
    KEYEDARCHIVE="$(cd "$root" && swift build --product keyedarchive --show-bin-path)/keyedarchive"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
page="$work/graph.html"
"$KEYEDARCHIVE" graph --format html "$archive" --output "$page"

# No network: every host resolves nowhere and any proxy is a closed port; the page's CSP forbids loads anyway.
flags=(--headless --no-sandbox --disable-gpu --no-first-run --disable-extensions --disable-background-networking
       --host-resolver-rules="MAP * ~NOTFOUND" --proxy-server="127.0.0.1:9" --user-data-dir="$work/profile"
       --virtual-time-budget=10000 --window-size=1280,1000)
# Up to three tries for a DOM with the outcome in it: the first start of a freshly installed Chromium once dumped
# the DOM before the page's load handler had run (the screenshot taken after it showed SELFTEST PASS).
result=""
for attempt in 1 2 3; do
    dom="$(timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$page#selftest" 2>>"$work/browser.log" || true)"
    result="$(printf '%s' "$dom" | sed -n 's/.*<pre id="selftest">\([^<]*\)<\/pre>.*/\1/p' | head -1 | sed 's/\&gt;/>/g; s/\&lt;/</g; s/\&amp;/\&/g')"
    [ -z "$result" ] || break
    echo "check-graph-html: no result in the DOM (attempt $attempt of 3)" >&2
done
timeout 120 "$browser" "${flags[@]}" --screenshot="$screenshot" "file://$page#selftest" >>"$work/browser.log" 2>&1 || true

echo "check-graph-html: ${result:-no result in the DOM}"
if [ ! -s "$screenshot" ]; then
    echo "check-graph-html: FAILED: no screenshot at $screenshot" >&2
    tail -20 "$work/browser.log" >&2
    exit 1
fi
echo "check-graph-html: screenshot $screenshot ($(wc -c <"$screenshot") bytes)"
case "$result" in
    "SELFTEST PASS "*) echo "check-graph-html: PASSED"; exit 0 ;;
    *) echo "check-graph-html: FAILED" >&2; tail -20 "$work/browser.log" >&2; exit 1 ;;
esac
