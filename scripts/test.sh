#!/usr/bin/env bash
# Installs what the tests need, then checks formatting, lints, and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/toolchain.sh
ensure_rust
echo "== cargo fmt --check"
cargo fmt --all --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== cargo test"
cargo test --workspace --locked
echo "== all checks passed"
