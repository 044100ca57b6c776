#!/usr/bin/env bash
# Seed 001's experiment on one machine: YCSB load (random inserts) into `strata standalone`
# with the WAL and the store files on a RAM disk (tmpfs) or on the data directory's disk, and
# the mixed placements, one after the other; prints one markdown table.
#
#   RECORDS=500000 THREADS=8 ./scripts/bench-tiers.sh
#   RAM_DIR=/dev/shm PLACEMENTS="hdd wal-ram" ./scripts/bench-tiers.sh
#
# Placements (storage policies pick the volume; see docs/rfcs/0010-storage-tiers.md):
#   hdd       data directory on disk (HDD); WAL and files there (HOT)
#   ram       data directory on the RAM disk (--data-dir-type RAM_DISK): everything in memory
#   wal-ram   WAL on a RAM_DISK volume (--wal-storage-policy LAZY_PERSIST), store files on disk
#   data-ram  WAL on disk, store files on a RAM_DISK volume (family STORAGE_POLICY LAZY_PERSIST)
# Columns: insert ops/s, insert latency avg / p95 / p99 µs, MiB on each volume after the load.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${RECORDS:=500000}" "${THREADS:=8}" "${OUT:=data/bench-tiers}" "${PORT:=16200}"
: "${RAM_DIR:=/dev/shm}" "${PLACEMENTS:=hdd ram wal-ram data-ram}"
. scripts/lib/toolchain.sh
ensure_rust
cargo build --release --locked -q -p strata-cli --bin strata
STRATA="${CARGO_TARGET_DIR:-target}/release/strata"
RAM="$RAM_DIR/strata-bench-tiers.$$"
rm -rf "$OUT"; mkdir -p "$OUT"
trap 'rm -rf "$RAM"' EXIT
du_mib() { if [ -d "$1" ]; then du -sm "$1" | cut -f1; else echo 0; fi; }
field() { grep -E "^\[$2\], $3" "$1" | head -1 | awk -F', ' '{printf "%.0f", $3}'; }

run() { # placement
  local p=$1 disk="$OUT/$1-disk" ram="$RAM/$1" data args=() schema=()
  rm -rf "$disk" "$ram"; mkdir -p "$disk" "$ram"
  case $p in
    hdd) data="$disk" ;;
    ram) data="$ram"; args=(--data-dir-type RAM_DISK) ;;
    wal-ram) data="$disk"; args=(--volume "RAM_DISK=$ram" --wal-storage-policy LAZY_PERSIST) ;;
    data-ram) data="$disk"; args=(--volume "RAM_DISK=$ram"); schema=(--schema STORAGE_POLICY=LAZY_PERSIST) ;;
    *) echo "unknown placement $p" >&2; exit 2 ;;
  esac
  "$STRATA" standalone --data-dir "$data" --listen "127.0.0.1:$PORT" --no-thrift "${args[@]}" \
    > "$OUT/$p.log" 2>&1 &
  local pid=$!
  for _ in $(seq 100); do grep -q "serving on" "$OUT/$p.log" 2>/dev/null && break; sleep 0.1; done
  grep -q "serving on" "$OUT/$p.log" || { cat "$OUT/$p.log" >&2; kill $pid; exit 1; }
  "$STRATA" bench ycsb load -P workloada -p recordcount="$RECORDS" -p operationcount="$RECORDS" \
    --threads "$THREADS" --server "127.0.0.1:$PORT" "${schema[@]}" > "$OUT/$p.txt"
  printf "flush 'usertable'\n" | "$STRATA" shell --server "127.0.0.1:$PORT" -n > /dev/null
  printf "| %s | %s | %s / %s / %s | %s | %s |\n" "$p" \
    "$(field "$OUT/$p.txt" OVERALL Throughput)" "$(field "$OUT/$p.txt" INSERT AverageLatency)" \
    "$(field "$OUT/$p.txt" INSERT 95th)" "$(field "$OUT/$p.txt" INSERT 99th)" \
    "$(du_mib "$disk")" "$(du_mib "$ram")" >> "$OUT/rows.md"
  kill -TERM $pid; wait $pid || true
  rm -rf "$ram"
}

echo "== YCSB load, $RECORDS records, $THREADS threads; RAM disk under $RAM_DIR"
for p in $PLACEMENTS; do echo "-- $p"; run "$p"; done
{
  echo "| placement | insert ops/s | insert avg / p95 / p99 µs | MiB on disk | MiB on RAM disk |"
  echo "|---|---:|---:|---:|---:|"
  cat "$OUT/rows.md"
} | tee "$OUT/summary.md"
