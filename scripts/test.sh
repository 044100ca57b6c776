#!/usr/bin/env bash
# Installs what the tests need (Rust components; a Python venv with happybase and pytest; JDK 17,
# Maven and the HBase Java client's jars),
# then checks formatting, lints, and runs every test, including happybase's own suite.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/toolchain.sh
ensure_rust
echo "== cargo fmt --check"
cargo fmt --all --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== cargo test"
cargo test --workspace --locked --no-fail-fast
echo "== happybase's own test suite through the Thrift1 gateway (buffered and framed)"
./scripts/gateway/happybase-tests.sh
HAPPYBASE_TRANSPORT=framed ./scripts/gateway/happybase-tests.sh
echo "== the HBase Java client (hbase-client 2.6 from Maven Central) over HBase's native RPC"
./scripts/hbase-client-test.sh
echo "== all checks passed"
