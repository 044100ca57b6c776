#!/usr/bin/env bash
# Builds Strata and runs its main job: `strata standalone` (master, region server and gRPC
# services in one process) on a local data directory (default ./data, kept across restarts),
# listening on 127.0.0.1:16000. Open a shell from another terminal with
#   ./target/release/strata shell
# Stop the server with Ctrl-C: it flushes every region before exiting.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/toolchain.sh
ensure_rust
cargo build --release --locked -q -p strata-cli --bin strata
exec "${CARGO_TARGET_DIR:-target}/release/strata" standalone --data-dir "${STRATA_DATA_DIR:-data}" "$@"
