#!/usr/bin/env bash
# Runs happybase's own test suite (tests/ of its PyPI source distribution) against
# `strata standalone` and its Thrift1 gateway. Exits with pytest's status.
#
#   scripts/gateway/happybase-tests.sh            # buffered transport (happybase's default)
#   HAPPYBASE_TRANSPORT=framed scripts/gateway/happybase-tests.sh
#
# Needs Python 3 and access to PyPI; the venv and the sdist are cached under
# ${XDG_CACHE_HOME:-~/.cache}/strata. Two harness fixes, test code untouched: the 1.3.0
# suite calls nose's `assert_raises` without importing it (shimmed with `pytest.raises`), and
# it passes HAPPYBASE_PORT on as a string, which current thriftpy2 refuses (made an int).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
VERSION=1.3.0
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/strata"
VENV="$CACHE/happybase-venv"
SRC="$CACHE/happybase-src"
TRANSPORT="${HAPPYBASE_TRANSPORT:-buffered}"
mkdir -p "$CACHE"

# --- Python side: venv with happybase + pytest, and the sdist's tests.
if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
  else
    echo "python3 -m venv is unavailable: install python3-venv" >&2; exit 2
  fi
fi
if [ ! -x "$VENV/bin/pytest" ] || ! "$VENV/bin/python" -c "import happybase" 2>/dev/null; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check "happybase==$VERSION" pytest
fi
if [ ! -f "$SRC/happybase-$VERSION/tests/test_api.py" ]; then
  rm -rf "$SRC"; mkdir -p "$SRC"
  (cd "$SRC" && "$VENV/bin/pip" download -q --disable-pip-version-check --no-deps \
     --no-binary :all: "happybase==$VERSION" -d . && tar xzf "happybase-$VERSION.tar.gz")
fi
TESTS="$SRC/happybase-$VERSION/tests"
cat > "$TESTS/conftest.py" <<'PY'
# Harness fixes only (see scripts/gateway/happybase-tests.sh).
import builtins
import pytest
import happybase

builtins.assert_raises = pytest.raises

_init = happybase.Connection.__init__

def _init_with_int_port(self, *args, **kwargs):
    if isinstance(kwargs.get("port"), str):
        kwargs["port"] = int(kwargs["port"])
    _init(self, *args, **kwargs)

happybase.Connection.__init__ = _init_with_int_port
PY

# --- Strata side: build, start standalone with the gateway on free ports.
. scripts/lib/toolchain.sh
debug_strata
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
GRPC_PORT=$(free_port)
THRIFT_PORT=$(free_port)
DATA=$(mktemp -d)
LOG="$DATA.log"
"$STRATA" standalone --data-dir "$DATA" --listen "127.0.0.1:$GRPC_PORT" \
  --thrift-listen "127.0.0.1:$THRIFT_PORT" >"$LOG" 2>&1 &
PID=$!
cleanup() {
  kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null || true
  rm -rf "$DATA" "$LOG"
}
trap cleanup EXIT
for _ in $(seq 100); do
  grep -q "Thrift1 gateway on" "$LOG" 2>/dev/null && break
  kill -0 "$PID" 2>/dev/null || { echo "strata standalone failed to start:" >&2; cat "$LOG" >&2; exit 1; }
  sleep 0.1
done

# --- The suite.
status=0
(cd "$TESTS" && HAPPYBASE_HOST=127.0.0.1 HAPPYBASE_PORT="$THRIFT_PORT" \
  HAPPYBASE_TRANSPORT="$TRANSPORT" timeout 600 "$VENV/bin/pytest" -q -p no:cacheprovider \
  test_api.py test_util.py) || status=$?
if [ "$status" != 0 ]; then echo "--- strata log" >&2; tail -30 "$LOG" >&2; fi
exit "$status"
