#!/usr/bin/env bash
# Installs what the tests need (Rust components; a Python venv with happybase and pytest),
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
# etcd for the cluster crate's tests (strata-cluster), on test ports: started here, stopped on any exit.
export STRATA_ETCD_PORT=23790 STRATA_ETCD_PEER_PORT=23800; trap './scripts/etcd.sh stop' EXIT; ./scripts/etcd.sh start; export STRATA_ETCD_ENDPOINTS="$(./scripts/etcd.sh endpoint)"
cargo test --workspace --locked --no-fail-fast
echo "== happybase's own test suite through the Thrift1 gateway (buffered and framed)"
./scripts/gateway/happybase-tests.sh
HAPPYBASE_TRANSPORT=framed ./scripts/gateway/happybase-tests.sh
echo "== all checks passed"
