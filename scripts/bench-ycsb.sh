#!/usr/bin/env bash
# YCSB side by side: Strata standalone, then (optionally) HBase standalone, same record count,
# threads and duration, one after the other on this machine; prints one markdown table.
#
#   RECORDS=1000000 THREADS=8 DURATION=60 ./scripts/bench-ycsb.sh
#   HBASE_PEER=/path/to/hbase-peer RECORDS=... ./scripts/bench-ycsb.sh   # also runs HBase
#   STRATA_ARGS="--block-cache-mib 3072" ...   # extra `strata standalone` flags (HBase's peer
#                                              # gives its block cache 0.4 × an 8 GiB heap)
#   STRATA_BIN=path CLIENT_BIN=path ...       # a given server binary (no build), and the YCSB
#                                              # client's (default: the server's)
#   PROTOCOL=grpc ...     # the YCSB client's data requests over gRPC instead of Strata's framed protocol
#                         # (default frames, the client's default; RFC 0013)
#
# HBASE_PEER is a directory with an HBase standalone harness (setup.sh, start.sh, stop.sh,
# ycsb.sh load|run <workload>, writing YCSB reports into $PEER_DIR/results). Without it only
# Strata runs. Workloads: load, then WORKLOADS (default "workloada workloadc").
# Columns: ops/s, read and update/insert latency (avg, p95, p99 µs), server CPU µs per op
# (utime+stime of the server process from /proc), peak RSS, disk use after load and after a
# major compaction.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${RECORDS:=1000000}" "${THREADS:=8}" "${DURATION:=60}" "${WORKLOADS:=workloada workloadc}"
: "${OUT:=data/bench-ycsb}" "${PORT:=16100}" "${PROTOCOL:=frames}"
. scripts/lib/toolchain.sh
release_strata
# The YCSB client and the shell (default: the server's binary). To compare two builds' servers,
# give both runs the same client: STRATA_BIN=old CLIENT_BIN=new, then STRATA_BIN=new.
CLIENT="${CLIENT_BIN:-$STRATA}"
rm -rf "$OUT"; mkdir -p "$OUT"
hz=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14+$15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
peak_rss_mib() { awk '/VmHWM/ {printf "%.0f", $2/1024}' "/proc/$1/status" 2>/dev/null || echo 0; }
# "-" when the data is not in a local directory (a --root on HDFS).
du_mib() { if [ -d "$1" ]; then du -sm "$1" | cut -f1; else echo "-"; fi; }

# Appends "ServerCPUMicrosPerOp" to a YCSB report, given CPU ticks before and after.
cpu_line() { # report ticks0 ticks1
  local ops
  ops=$(grep -E '^\[(READ|UPDATE|INSERT|SCAN|READ-MODIFY-WRITE)\], Operations' "$1" | awk -F', ' '{s+=$3} END {print s+0}')
  awk -v c=$(($3 - $2)) -v hz="$hz" -v ops="$ops" 'BEGIN { printf "[PEER], ServerCPUMicrosPerOp, %.0f\n", (ops > 0 ? c / hz * 1e6 / ops : 0) }' >> "$1"
}

echo "== Strata standalone: $RECORDS records, $THREADS threads, ${DURATION}s per workload"
# shellcheck disable=SC2086
"$STRATA" standalone --data-dir "$OUT/strata-data" --listen "127.0.0.1:$PORT" --no-thrift ${STRATA_ARGS:-} > "$OUT/strata.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q "serving on" "$OUT/strata.log" 2>/dev/null && break; sleep 0.1; done
grep -q "serving on" "$OUT/strata.log" || { echo "strata standalone did not start:" >&2; cat "$OUT/strata.log" >&2; exit 1; }
server="127.0.0.1:$PORT"
c0=$(cpu_ticks $pid)
"$CLIENT" bench ycsb load -P workloada -p recordcount="$RECORDS" -p operationcount="$RECORDS" \
  --threads "$THREADS" --server "$server" --protocol "$PROTOCOL" --plot "$OUT/strata-load.svg" \
  > "$OUT/strata-load.txt"
cpu_line "$OUT/strata-load.txt" "$c0" "$(cpu_ticks $pid)"
strata_disk_load=$(du_mib "$OUT/strata-data")
for wl in $WORKLOADS; do
  c0=$(cpu_ticks $pid)
  "$CLIENT" bench ycsb run -P "$wl" -p recordcount="$RECORDS" -p operationcount=1000000000 \
    -p maxexecutiontime="$DURATION" --threads "$THREADS" --server "$server" \
    --protocol "$PROTOCOL" --plot "$OUT/strata-$wl.svg" > "$OUT/strata-$wl.txt"
  cpu_line "$OUT/strata-$wl.txt" "$c0" "$(cpu_ticks $pid)"
done
printf "flush 'usertable'\nmajor_compact 'usertable'\n" | "$CLIENT" shell --server "$server" -n > /dev/null
strata_disk_compact=$(du_mib "$OUT/strata-data")
strata_rss=$(peak_rss_mib $pid)
kill -TERM $pid; wait $pid || true; trap - EXIT

if [ -n "${HBASE_PEER:-}" ]; then
  echo "== HBase standalone (peer harness)"
  ( cd "$HBASE_PEER" && ./setup.sh > /dev/null && ./start.sh > /dev/null )
  # shellcheck disable=SC1091
  peer_dir=$(cd "$HBASE_PEER" && . ./env.sh && echo "$PEER_DIR")
  hb_pid=$(cat "$peer_dir/run/hbase.pid" 2>/dev/null || pgrep -f HMaster | head -1)
  ( cd "$HBASE_PEER" && RECORDS=$RECORDS THREADS=$THREADS ./ycsb.sh load > /dev/null )
  cp "$(ls -t "$peer_dir"/results/load-*.txt | head -1)" "$OUT/hbase-load.txt"
  hbase_disk_load=$(du_mib "$peer_dir/data")
  for wl in $WORKLOADS; do
    ( cd "$HBASE_PEER" && RECORDS=$RECORDS THREADS=$THREADS DURATION=$DURATION ./ycsb.sh run "$wl" > /dev/null )
    cp "$(ls -t "$peer_dir"/results/run-"$wl"-*.txt | head -1)" "$OUT/hbase-$wl.txt"
  done
  hbase_rss=$(peak_rss_mib "$hb_pid")
  ( cd "$HBASE_PEER" && ./admin.sh flush usertable > /dev/null && ./admin.sh compact usertable > /dev/null ) || true
  hbase_disk_compact=$(du_mib "$peer_dir/data")
  ( cd "$HBASE_PEER" && ./stop.sh > /dev/null ) || true
fi

field() { grep -E "^\[$2\], $3" "$1" | head -1 | awk -F', ' '{printf "%.0f", $3}'; }
row() { # system phase file
  local f=$3 w="UPDATE"
  [ "$2" = load ] && w="INSERT"
  printf "| %s | %s | %s | %s / %s / %s | %s / %s / %s | %s |\n" "$1" "$2" \
    "$(field "$f" OVERALL 'Throughput')" \
    "$(field "$f" READ 'AverageLatency')" "$(field "$f" READ '95th')" "$(field "$f" READ '99th')" \
    "$(field "$f" $w 'AverageLatency')" "$(field "$f" $w '95th')" "$(field "$f" $w '99th')" \
    "$(field "$f" PEER 'ServerCPUMicrosPerOp')"
}
{
  echo "| system | phase | ops/s | read avg / p95 / p99 µs | write avg / p95 / p99 µs | server CPU µs/op |"
  echo "|---|---|---:|---:|---:|---:|"
  row Strata load "$OUT/strata-load.txt"
  for wl in $WORKLOADS; do row Strata "$wl" "$OUT/strata-$wl.txt"; done
  if [ -n "${HBASE_PEER:-}" ]; then
    row HBase load "$OUT/hbase-load.txt"
    for wl in $WORKLOADS; do row HBase "$wl" "$OUT/hbase-$wl.txt"; done
  fi
  echo
  echo "| system | peak RSS MiB | disk MiB after load | after major compaction |"
  echo "|---|---:|---:|---:|"
  echo "| Strata | $strata_rss | $strata_disk_load | $strata_disk_compact |"
  if [ -n "${HBASE_PEER:-}" ]; then
    echo "| HBase | $hbase_rss | $hbase_disk_load | $hbase_disk_compact |"
  fi
} | tee "$OUT/summary.md"
