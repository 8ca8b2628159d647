#!/bin/sh
# The typedstream oracle: pytypedstream's reading of every fixture in Fixtures/typedstream/.
#
#   Scripts/typedstream-oracle.sh                 write <fixture>.pytypedstream.json beside every fixture
#   Scripts/typedstream-oracle.sh --check         re-read every fixture; exit 1 if a committed rendering differs
#   Scripts/typedstream-oracle.sh --compare BIN   compare `BIN decode <fixture>` with pytypedstream's reading,
#                                                 e.g. --compare .build/debug/keyedarchive
#   Scripts/typedstream-oracle.sh --self-test BIN check the --compare normalizer on keyed NSAttributedString
#                                                 fixtures (works before typedstream support exists)
#
# pytypedstream (PyPI, LGPL-3.0-or-later) is installed, pinned, into a virtual environment that is never a
# dependency of the package: $TYPEDSTREAM_ORACLE_VENV, or .build/typedstream-oracle-venv by default. The
# first run needs PyPI; later runs reuse the environment. See Scripts/typedstream-oracle.py for what is
# printed and compared. Not part of `swift test`.
set -eu

PYTYPEDSTREAM_VERSION=0.1.0
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${TYPEDSTREAM_ORACLE_VENV:-$root/.build/typedstream-oracle-venv}

if ! "$venv/bin/python" -c "import sys, typedstream; sys.exit(typedstream.__version__ != '$PYTYPEDSTREAM_VERSION')" \
    2>/dev/null; then
    echo "typedstream-oracle: installing pytypedstream==$PYTYPEDSTREAM_VERSION into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "pytypedstream==$PYTYPEDSTREAM_VERSION"
fi

exec "$venv/bin/python" "$root/Scripts/typedstream-oracle.py" --root "$root" "$@"
