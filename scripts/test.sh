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
# Headless Chromium for the web UI's browser test (crates/http/tests/ui_chromium.rs), which
# then fails rather than skips; as root, the full-volume flush test mounts its tmpfs.
./scripts/ui/install-chromium.sh && export STRATA_REQUIRE_CHROMIUM=1
if [ "$(id -u)" -eq 0 ]; then export STRATA_REQUIRE_MOUNT=1; fi
echo "== cargo test"
cargo test --workspace --locked --no-fail-fast
echo "== happybase's own test suite through the Thrift1 gateway (buffered and framed)"
./scripts/gateway/happybase-tests.sh
HAPPYBASE_TRANSPORT=framed ./scripts/gateway/happybase-tests.sh
echo "== all checks passed"
