#!/usr/bin/env bash
# Snapshot time against table size, and export throughput against reading the store files
# (RFC 0025). One `strata standalone` on a scratch directory: YCSB loads RECORDS_SMALL, then
# RECORDS_LARGE records (1 KB each, 8 regions); after each load the table is flushed and
# snapshotted three times (the time includes the shell's start). Then the store files are read
# cold, and the larger snapshot is exported (cold) to a local directory, and to HDFS and S3
# when STRATA_HDFS_URL or STRATA_S3_ENDPOINT/STRATA_S3_BUCKET are set (scripts/hdfs.sh,
# scripts/s3.sh).
#
#   scripts/bench-snapshot.sh                      # RECORDS_SMALL=100000 RECORDS_LARGE=1000000
#   STRATA_BIN=target/release/strata scripts/bench-snapshot.sh
#
# Dropping the page cache needs root; without it the "cold" figures are warm.
set -euo pipefail
cd "$(dirname "$0")/.."
small="${RECORDS_SMALL:-100000}"
large="${RECORDS_LARGE:-1000000}"
port="${STRATA_BENCH_PORT:-26000}"
if [ -z "${STRATA_BIN:-}" ]; then
  cargo build -q -p strata-cli --bin strata
  STRATA_BIN=target/debug/strata
fi
S="$STRATA_BIN"
work=$(mktemp -d)
data="$work/data"
"$S" standalone --data-dir "$data" --listen "127.0.0.1:$port" --http-listen "127.0.0.1:$((port + 10))" \
  --hbase-rpc-listen "127.0.0.1:$((port + 20))" --no-thrift >"$work/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do
  if echo "status" | "$S" shell --server "127.0.0.1:$port" >/dev/null 2>&1; then break; fi
  sleep 0.1
done
shell() { echo "$1" | "$S" shell --server "127.0.0.1:$port" 2>&1 | grep -E "ERROR" || true; }
cold() { sync; echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || true; }
ms() { echo $(( ($2 - $1) / 1000000 )); }
for n in "$small" "$large"; do
  "$S" bench ycsb load --server "127.0.0.1:$port" --regions 8 -p "recordcount=$n" --threads 8 \
    | grep -E "OVERALL\], Throughput" || true
  shell "flush 'usertable'"
  echo "records $n: $(du -sm "$data/tables" | cut -f1) MiB of store files"
  for i in 1 2 3; do
    t0=$(date +%s%N); shell "snapshot 'usertable', 's$n-$i'"; t1=$(date +%s%N)
    echo "  snapshot $i: $(ms "$t0" "$t1") ms"
  done
done
cold
t0=$(date +%s%N); find "$data/tables" -name '*.sst' -exec cat {} + >/dev/null; t1=$(date +%s%N)
mib=$(du -sm "$data/tables" | cut -f1)
echo "read every store file (cold): $mib MiB in $(ms "$t0" "$t1") ms"
cold
"$S" snapshot export --snapshot "s$large-1" --from "$data" --to "$work/export" | head -1
if [ -n "${STRATA_HDFS_URL:-}" ]; then
  cold
  "$S" snapshot export --snapshot "s$large-1" --from "$data" --to "$STRATA_HDFS_URL/bench-snapshot-$$" \
    --hdfs-http "${STRATA_HDFS_HTTP:-127.0.0.1:9870}" | head -1
fi
if [ -n "${STRATA_S3_ENDPOINT:-}" ] && [ -n "${STRATA_S3_BUCKET:-}" ]; then
  cold
  "$S" snapshot export --snapshot "s$large-1" --from "$data" \
    --to "s3://$STRATA_S3_BUCKET/bench-snapshot-$$" --s3-endpoint "$STRATA_S3_ENDPOINT" | head -1
fi
