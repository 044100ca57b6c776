#!/usr/bin/env bash
# Seed 002's random-write test at engine level, Strata's embedded region side by side with
# RocksDB (Debian's db_bench) in the same run: same value sizes, key size, thread count,
# SNAPPY, bloom filters, WAL written but not fsync'd (Strata SYNC_WAL = RocksDB sync=false).
# Usage: scripts/bench-engine.sh [DIR]   (env: SIZES, BYTES, MAX_CELLS, THREADS)
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-data/bench-engine}
SIZES=${SIZES:-10000,1000,100,10}
BYTES=${BYTES:-1000000000}
MAX_CELLS=${MAX_CELLS:-2000000}
THREADS=${THREADS:-8}
if ! command -v db_bench >/dev/null 2>&1; then
  echo "installing RocksDB's db_bench (Debian rocksdb-tools)" >&2
  (apt-get install -y rocksdb-tools || (apt-get update && apt-get install -y rocksdb-tools)) >/dev/null
fi
mkdir -p "$DIR"
cargo build --release --locked -q -p strata-cli
STRATA_OUT=$(./target/release/strata bench engine-write --dir "$DIR" --sizes "$SIZES" \
  --bytes "$BYTES" --max-cells "$MAX_CELLS" --threads "$THREADS" --durability SYNC_WAL,ASYNC_WAL)
echo "$STRATA_OUT"
ROCKS=""
for size in ${SIZES//,/ }; do
  cells=$(( BYTES / (20 + size) )); [ "$cells" -gt "$MAX_CELLS" ] && cells=$MAX_CELLS
  rm -rf "$DIR/rocksdb"
  out=$(db_bench --benchmarks=fillrandom --num=$(( cells / THREADS )) --threads="$THREADS" \
    --key_size=20 --value_size="$size" --compression_type=snappy --bloom_bits=10 \
    --cache_size=2147483648 --sync=false --histogram=1 --db="$DIR/rocksdb" 2>&1)
  ops=$(echo "$out" | awk '/^fillrandom/ {for (i=1;i<=NF;i++) if ($i=="ops/sec") print $(i-1)}')
  # "Percentiles: P50: a P75: b P99: c P99.9: d P99.99: e": fields 7 and 9 are P99 and P99.9.
  pct=$(echo "$out" | awk '/^Percentiles:/ {print $7" / "$9; exit}')
  ROCKS+="$size $ops $pct"$'\n'
  rm -rf "$DIR/rocksdb"
done
python3 - "$ROCKS" <<'PY' "$STRATA_OUT"
import sys
rocks = {}
for line in sys.argv[1].strip().splitlines():
    size, ops, p99, _, p999 = line.split()
    rocks[size] = (float(ops), float(p99), float(p999))
strata = {}
for line in sys.argv[2].splitlines():
    cells = [c.strip() for c in line.strip().strip('|').split('|')]
    if len(cells) == 9 and cells[0].isdigit() and cells[1] == "SYNC_WAL":
        p = [x.strip() for x in cells[6].split('/')]
        strata[cells[0]] = (float(cells[5]), int(p[1]), int(p[2]), cells[4])
print("\n## Strata (SYNC_WAL) vs RocksDB (db_bench fillrandom, sync=false), same run\n")
print("| value B | Strata ops/s | RocksDB ops/s | Strata/RocksDB | Strata MB/s | put p99 / p99.9 µs Strata | RocksDB |")
print("|---:|---:|---:|---:|---:|---|---|")
for size, (ops, p99, p999, mb) in strata.items():
    r = rocks.get(size)
    if r:
        print(f"| {size} | {ops:.0f} | {r[0]:.0f} | {ops / r[0]:.2f} | {mb} | {p99} / {p999} | {r[1]:.0f} / {r[2]:.0f} |")
PY
