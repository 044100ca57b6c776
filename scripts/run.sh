#!/usr/bin/env bash
# Builds Strata and runs its main job on a local data directory (default ./data).
# Until the server lands this is `strata demo`: it writes seed 003's table into store files with
# several encodings, reads them back, and prints footprint, scan and get figures.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/toolchain.sh
ensure_rust
exec cargo run --release --locked -q -p strata-cli --bin strata -- demo --data-dir "${STRATA_DATA_DIR:-data}" "$@"
