#!/usr/bin/env bash
# Seed 000's in-memory compaction experiment through the server: 128,000 records of one 1 KB
# field, 10 client threads, 50% reads / 50% updates (YCSB workloada's mix), zipfian and
# uniform keys, one table per IN_MEMORY_COMPACTION policy with MEMSTORE_FLUSHSIZE=$FLUSH; a
# fresh `strata standalone` per run. Prints ops/s, read p50/p99 over the run, read p99 over
# time (min / median / max of the p99s of the run's 10 s intervals, from `--timeseries 10`; the
# last interval may be partial), disk flushes, bytes written by flushes and by compactions,
# memtable bytes at the end and the server's peak RSS. Per run, $OUT/<policy>-<keys>.txt holds
# the report with its [READ-TS] lines and .svg its plot.
#
#   OPS=2000000 FLUSH=32MB ./scripts/bench-imc.sh
#   MIX="-p readproportion=0 -p updateproportion=0.99 -p scanproportion=0.01" ...  # long scans
#   MIX="-p readproportion=0.5 -p updateproportion=0.25 -p deleteproportion=0.25" ...  # tombstones
#   STRATA=path/to/strata ...  # a given binary (say, one built before a change), nothing built
set -euo pipefail
cd "$(dirname "$0")/.."
: "${RECORDS:=128000}" "${OPS:=1000000}" "${THREADS:=10}" "${FLUSH:=32MB}"
: "${POLICIES:=NONE BASIC EAGER ADAPTIVE}" "${DISTS:=zipfian uniform}"
: "${OUT:=data/bench-imc}" "${PORT:=16200}"
if [ -z "${STRATA:-}" ]; then
  . scripts/lib/toolchain.sh
  ensure_rust
  cargo build --release --locked -q -p strata-cli --bin strata
  STRATA="${CARGO_TARGET_DIR:-target}/release/strata"
fi
rm -rf "$OUT"; mkdir -p "$OUT"
field() { grep -E "^\[$1\], $2" "$3" | head -1 | awk -F', ' '{print $3}'; }
# "min / median / max" of a `[KIND], P99OverTime(us), min=.., median=.., max=..` line.
over_time() {
  grep -E "^\[$1\], P99OverTime" "$2" | head -1 |
    awk -F', ' '{ sub("min=", "", $3); sub("median=", "", $4); sub("max=", "", $5); print $3 " / " $4 " / " $5 }'
}
{
echo "| policy | keys | ops/s | read p50 / p99 µs | read p99 over time min / median / max µs | flushes | flushed MiB | compacted MiB | memtable MiB at end | peak RSS MiB |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for dist in $DISTS; do
  for policy in $POLICIES; do
    run="$OUT/$policy-$dist"
    "$STRATA" standalone --data-dir "$run.data" --listen "127.0.0.1:$PORT" --no-thrift > "$run.log" 2>&1 &
    pid=$!
    for _ in $(seq 100); do grep -q "serving on" "$run.log" 2>/dev/null && break; sleep 0.1; done
    grep -q "serving on" "$run.log" || { echo "strata standalone did not start:" >&2; cat "$run.log" >&2; exit 1; }
    common=(-p recordcount="$RECORDS" -p fieldcount=1 -p fieldlength=1000 --threads "$THREADS" --server "127.0.0.1:$PORT" --status-interval 30)
    "$STRATA" bench ycsb load -P workloada "${common[@]}" --regions 1 \
      --schema IN_MEMORY_COMPACTION="$policy" --schema MEMSTORE_FLUSHSIZE="$FLUSH" > "$run.load.txt" 2> /dev/null
    # shellcheck disable=SC2086
    "$STRATA" bench ycsb run -P workloada "${common[@]}" -p requestdistribution="$dist" ${MIX:-} \
      -p operationcount="$OPS" -p writeallfields=true --timeseries 10 --plot "$run.svg" > "$run.txt" 2> /dev/null
    rss=$(awk '/VmHWM/ {printf "%.0f", $2/1024}' "/proc/$pid/status")
    kill -TERM $pid; wait $pid || true
    mib() { awk -v b="$1" 'BEGIN { printf "%.0f", b / 1048576 }'; }
    printf "| %s | %s | %.0f | %s / %s | %s | %s | %s | %s | %s | %s |\n" "$policy" "$dist" \
      "$(field OVERALL 'Throughput' "$run.txt")" \
      "$(field READ '50thPercentileLatency' "$run.txt")" "$(field READ '99thPercentileLatency' "$run.txt")" \
      "$(over_time READ "$run.txt")" \
      "$(field STRATA 'Flushes' "$run.txt")" "$(mib "$(field STRATA 'FlushedBytes' "$run.txt")")" \
      "$(mib "$(field STRATA 'CompactedBytes' "$run.txt")")" "$(mib "$(field STRATA 'MemtableBytes' "$run.txt")")" "$rss"
  done
done
} | tee "$OUT/summary.md"
