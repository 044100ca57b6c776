#!/usr/bin/env bash
# Runs the access matrix's data operations through happybase and `strata gateway`
# (crates/cli/tests/acl_matrix, test data_operations_through_happybase_follow_the_same_table):
# a server with --auth and client certificates, the gateway acting as its certificate's user,
# each case granted to that user, run by happybase and revoked. Exits with cargo's status.
#
# Needs Python 3 and access to PyPI once: the venv is the one scripts/gateway/happybase-tests.sh
# caches under ${XDG_CACHE_HOME:-~/.cache}/strata.
set -euo pipefail
cd "$(dirname "$0")/../.."
VERSION=1.3.0
VENV="${XDG_CACHE_HOME:-$HOME/.cache}/strata/happybase-venv"
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import happybase" 2>/dev/null; then
  if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    echo "python3 -m venv is unavailable: install python3-venv" >&2; exit 2
  fi
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check "happybase==$VERSION" pytest
fi
. scripts/lib/toolchain.sh
ensure_rust
export STRATA_HAPPYBASE_PYTHON="$VENV/bin/python" STRATA_REQUIRE_HAPPYBASE=1
timeout 600 bash -c '. scripts/lib/toolchain.sh
  workspace_test strata-cli acl_matrix data_operations_through_happybase --nocapture'

