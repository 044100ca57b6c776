#!/usr/bin/env bash
# Seed 002's random reads at engine level, Strata's embedded region and RocksDB's db_bench
# readrandom (Debian's rocksdb-tools) in the same run, on the same shape: ROWS keys of 20
# bytes, 1 KB values, SNAPPY, 10-bit blooms, a 2 GiB block cache, THREADS readers. Prints each
# side's queries/s and, robust to other load on the machine, its process CPU per query
# (utime+stime over the read phase ÷ queries).
# Usage: scripts/bench-engine-read.sh [DIR]   (env: ROWS, THREADS, SECONDS_PER_RUN, STRATA)
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-data/bench-engine-read}
ROWS=${ROWS:-1000000}
THREADS=${THREADS:-8}
SECS=${SECONDS_PER_RUN:-10}
STRATA=${STRATA:-./target/release/strata}
if ! command -v db_bench >/dev/null 2>&1; then
  echo "installing RocksDB's db_bench (Debian rocksdb-tools)" >&2
  (apt-get install -y rocksdb-tools || (apt-get update && apt-get install -y rocksdb-tools)) >/dev/null
fi
[ -n "${STRATA_SKIP_BUILD:-}" ] || cargo build --release --locked -q -p strata-cli
mkdir -p "$DIR"
"$STRATA" bench engine-read --dir "$DIR" --rows "$ROWS" --threads "$THREADS" --seconds "$SECS"
rm -rf "$DIR/rocksdb"
common=(--num="$ROWS" --key_size=20 --value_size=1000 --compression_type=snappy --bloom_bits=10
  --cache_size=2147483648 --db="$DIR/rocksdb")
db_bench --benchmarks=fillrandom --threads=1 "${common[@]}" >/dev/null 2>&1
# Warm the cache, then measure; the reads per thread make a run of about SECS seconds at
# RocksDB's usual rate on two cores.
db_bench --benchmarks=readrandom --use_existing_db=1 --threads="$THREADS" \
  --reads=$(( ROWS / THREADS )) "${common[@]}" >/dev/null 2>&1
reads=$(( 60000 * SECS / THREADS ))
out=$(/usr/bin/time -f "cpu %U %S" -o "$DIR/cpu" db_bench --benchmarks=readrandom \
  --use_existing_db=1 --threads="$THREADS" --reads="$reads" --histogram=1 "${common[@]}" 2>/dev/null)
ops=$(echo "$out" | awk '/^readrandom/ {for (i=1;i<=NF;i++) if ($i=="ops/sec") print $(i-1)}')
n=$(echo "$out" | awk '/^readrandom/ {for (i=1;i<=NF;i++) if ($i=="operations;") print $(i-1)}')
pct=$(echo "$out" | awk '/^Percentiles:/ {print "p50 "$3" p99 "$7; exit}')
cpu=$(awk '/^cpu / {print $2 + $3}' "$DIR/cpu")
echo
echo "RocksDB readrandom: $ops queries/s, $pct µs, CPU $(python3 -c "print(f'{$cpu * 1e6 / $n:.2f}')") µs/query ($n queries, open included)"
rm -rf "$DIR/rocksdb" "$DIR/read" "$DIR/cpu"
