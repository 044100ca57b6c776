#!/usr/bin/env bash
# Bulk-load throughput against loading the same data through the server (RFC 0027). One
# `strata standalone` on a scratch directory: YCSB's load phase writes RECORDS records (10
# fields of 100 B: 10 cells each) into `usertable` (8 regions) through the client with 8
# threads; then the table is truncated (regions kept) and the same number of records, as TSV,
# is prepared (`strata bulkload prepare`) and loaded (`strata bulkload load`). Cells per
# second of each, in the same run.
#
#   scripts/bench-bulkload.sh                              # RECORDS=100000 (1,000,000 cells)
#   STRATA_BIN=target/release/strata RECORDS=1000000 scripts/bench-bulkload.sh
set -euo pipefail
cd "$(dirname "$0")/.."
records="${RECORDS:-100000}"
port="${STRATA_BENCH_PORT:-26100}"
if [ -z "${STRATA_BIN:-}" ]; then
  cargo build -q -p strata-cli --bin strata
  STRATA_BIN=target/debug/strata
fi
S="$STRATA_BIN"
work=$(mktemp -d)
"$S" standalone --data-dir "$work/data" --listen "127.0.0.1:$port" \
  --http-listen "127.0.0.1:$((port + 10))" --hbase-rpc-listen "127.0.0.1:$((port + 20))" \
  --no-thrift >"$work/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do
  if echo "status" | "$S" shell --server "127.0.0.1:$port" >/dev/null 2>&1; then break; fi
  sleep 0.1
done
shell() { echo "$1" | "$S" shell --server "127.0.0.1:$port" 2>&1 | grep -E "ERROR" || true; }
ycsb=$("$S" bench ycsb load --server "127.0.0.1:$port" --regions 8 -p "recordcount=$records" \
  --threads 8 | grep -E "OVERALL\], Throughput" | awk -F', ' '{print $3}')
echo "YCSB load through the server: $records records, $ycsb ops/s = $(awk "BEGIN {printf \"%.0f\", $ycsb * 10}") cells/s"
shell "truncate_preserve 'usertable'"
# The same shape as YCSB's records: a row key and 10 fields of 100 bytes (keys permuted;
# 7919 is prime, so coprime to RECORDS unless it divides it).
awk -v n="$records" 'BEGIN {
  v = sprintf("%100s", ""); gsub(/ /, "x", v)
  for (i = 0; i < n; i++) {
    printf "user%d", (i * 7919) % n
    for (f = 0; f < 10; f++) printf "\t%s", v
    printf "\n"
  }
}' >"$work/records.tsv"
cols="HBASE_ROW_KEY"
for f in $(seq 0 9); do cols="$cols,family:field$f"; done
t0=$(date +%s%N)
"$S" bulkload prepare --table usertable --input "$work/records.tsv" --columns "$cols" \
  --out "$work/load" --server "127.0.0.1:$port"
t1=$(date +%s%N)
"$S" bulkload load --table usertable "$work/load" --server "127.0.0.1:$port"
t2=$(date +%s%N)
cells=$((records * 10))
echo "bulk load: prepare $(( (t1 - t0) / 1000000 )) ms, load $(( (t2 - t1) / 1000000 )) ms," \
  "together $(awk "BEGIN {printf \"%.0f\", $cells / (($t2 - $t0) / 1e9)}") cells/s"
