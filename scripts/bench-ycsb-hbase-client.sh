#!/usr/bin/env bash
# The same Java YCSB client and HBase 2 binding against HBase 2.6 and against Strata's HBase RPC
# listener, in one run, plus Strata through its own client (`strata bench ycsb`, via
# scripts/bench-ycsb.sh; the framed protocol, or gRPC with PROTOCOL=grpc) for comparison. Prints one markdown table.
#
#   HBASE_PEER=/path/to/hbase-harness RECORDS=200000 THREADS=8 DURATION=60 \
#     ./scripts/bench-ycsb-hbase-client.sh
#
# HBASE_PEER is a directory with an HBase standalone harness: setup.sh (fetches HBase, YCSB core
# and compiles its binding `peer.ycsb.HBase2Client` and `peer.PeerAdmin`), start.sh, stop.sh and
# env.sh (PEER_DIR, LIB_DIR, YCSB_LIB_DIR, TOOLS_DIR, CONF_DIR, JDK17_FLAGS, RUN_DIR). Both
# servers are driven by the very same java command line (binding, workload files, threads,
# record count); only the client's hbase-site.xml differs: HBase's is the harness's
# (ZooKeeper), Strata's names the RPC registry and Strata's listener as bootstrap server.
# `usertable` is created by the harness's `PeerAdmin create usertable family 10` through the
# Java Admin API on both, pre-split into 10 regions on YCSB's hashed key space.
#
# OLD_STRATA=/path/to/strata (optional): an older build's server, run first through the very
# same client, for before/after figures in one run.
#
# Phases: load, then WORKLOADS (default "workloada workloadc"), each run bounded by DURATION s.
# Columns: ops/s, read and update/insert latency (avg, p95, p99 µs), server CPU µs per op
# (utime+stime of the server process from /proc), operations that did not return OK.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
: "${HBASE_PEER:?set HBASE_PEER to an HBase standalone harness directory}"
: "${RECORDS:=200000}" "${THREADS:=8}" "${DURATION:=60}" "${WORKLOADS:=workloada workloadc}"
: "${OUT:=data/bench-ycsb-hbase-client}" "${STRATA_ARGS:=}" "${SKIP_GRPC:=0}" "${SKIP_HBASE:=0}"
: "${OLD_STRATA:=}"
[ -z "$OLD_STRATA" ] || OLD_STRATA=$(cd "$(dirname "$OLD_STRATA")" && pwd)/$(basename "$OLD_STRATA")
HBASE_PEER=$(cd "$HBASE_PEER" && pwd)
. scripts/lib/toolchain.sh
ensure_rust
cargo build --release --locked -q -p strata-cli --bin strata
STRATA="${CARGO_TARGET_DIR:-$ROOT/target}/release/strata"
rm -rf "$OUT"; mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
hz=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14+$15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# Appends "ServerCPUMicrosPerOp" to a YCSB report, given CPU ticks before and after.
cpu_line() { # report ticks0 ticks1
  local ops
  ops=$(grep -E '^\[(READ|UPDATE|INSERT|SCAN|READ-MODIFY-WRITE)\], Operations' "$1" | awk -F', ' '{s+=$3} END {print s+0}')
  awk -v c=$(($3 - $2)) -v hz="$hz" -v ops="$ops" 'BEGIN { printf "[PEER], ServerCPUMicrosPerOp, %.0f\n", (ops > 0 ? c / hz * 1e6 / ops : 0) }' >> "$1"
}

echo "== HBase harness setup"
( cd "$HBASE_PEER" && ./setup.sh > "$OUT/hbase-setup.log" 2>&1 ) || { tail -20 "$OUT/hbase-setup.log" >&2; exit 1; }
# shellcheck disable=SC1091
eval "$(cd "$HBASE_PEER" && . ./env.sh && declare -p PEER_DIR LIB_DIR YCSB_LIB_DIR TOOLS_DIR CONF_DIR RUN_DIR JDK17_FLAGS)"
JAVA_CP="$TOOLS_DIR/classes:$LIB_DIR/*:$YCSB_LIB_DIR/*"
WL_DIR="$PEER_DIR/workloads"

# The one java command line both servers see: conf dir first on the classpath.
# shellcheck disable=SC2086
admin() { local conf=$1; shift; timeout 300 java $JDK17_FLAGS -cp "$conf:$JAVA_CP" peer.PeerAdmin "$@"; }
# shellcheck disable=SC2086
ycsb() { # conf workload report extra-args...
  local conf=$1 wl=$2 out=$3; shift 3
  timeout $((DURATION + 1500)) java -Xmx2g $JDK17_FLAGS -cp "$conf:$JAVA_CP" site.ycsb.Client \
    -db peer.ycsb.HBase2Client -P "$WL_DIR/$wl" -p table=usertable -p columnfamily=family \
    -p recordcount="$RECORDS" -threads "$THREADS" -s "$@" > "$out" 2> "$out.err"
}
# Load and the workloads against one server: system-name conf-dir server-pid.
phases() {
  local sys=$1 conf=$2 pid=$3 c0
  admin "$conf" create usertable family 10 NONE > "$OUT/$sys-create.txt" 2>> "$OUT/$sys-admin.err"
  c0=$(cpu_ticks "$pid")
  ycsb "$conf" workloada "$OUT/$sys-load.txt" -load -p operationcount="$RECORDS" -p maxexecutiontime=1200
  cpu_line "$OUT/$sys-load.txt" "$c0" "$(cpu_ticks "$pid")"
  for wl in $WORKLOADS; do
    c0=$(cpu_ticks "$pid")
    ycsb "$conf" "$wl" "$OUT/$sys-$wl.txt" -t -p operationcount=1000000000 -p maxexecutiontime="$DURATION"
    cpu_line "$OUT/$sys-$wl.txt" "$c0" "$(cpu_ticks "$pid")"
  done
}

# --- 1. Strata through its HBase RPC listener, with the HBase Java client: OLD_STRATA (if
# given) first, then this checkout's build.
strata_hbase() { # system-name binary
  local sys=$1 bin=$2 conf="$OUT/$1-conf"
  echo "== $sys: Strata standalone, HBase RPC (Java YCSB, HBase 2 binding): $RECORDS records, $THREADS threads, ${DURATION}s per workload"
  HPORT=$(free_port); GPORT=$(free_port); WPORT=$(free_port)
  mkdir -p "$conf"
  cp "$CONF_DIR/client/log4j.properties" "$conf/" 2>/dev/null || true
  cat > "$conf/hbase-site.xml" <<XML
<?xml version="1.0"?>
<configuration>
  <property><name>hbase.client.registry.impl</name>
    <value>org.apache.hadoop.hbase.client.RpcConnectionRegistry</value></property>
  <property><name>hbase.client.bootstrap.servers</name><value>127.0.0.1:$HPORT</value></property>
</configuration>
XML
  # shellcheck disable=SC2086
  "$bin" standalone --data-dir "$OUT/$sys-data" --listen "127.0.0.1:$GPORT" --no-thrift \
    --hbase-rpc-listen "127.0.0.1:$HPORT" --http-listen "127.0.0.1:$WPORT" $STRATA_ARGS \
    > "$OUT/$sys.log" 2>&1 &
  pid=$!
  trap 'kill $pid 2>/dev/null || true' EXIT
  for _ in $(seq 200); do grep -q "HBase RPC on" "$OUT/$sys.log" 2>/dev/null && break; sleep 0.1; done
  grep -q "HBase RPC on" "$OUT/$sys.log" || { echo "strata standalone did not start:" >&2; cat "$OUT/$sys.log" >&2; exit 1; }
  phases "$sys" "$conf" "$pid"
  kill -TERM "$pid"; wait "$pid" || true; trap - EXIT
  rm -rf "$OUT/$sys-data"
}
if [ -n "$OLD_STRATA" ]; then
  strata_hbase strata-old-hbase "$OLD_STRATA"
fi
strata_hbase strata-hbase "$STRATA"

# --- 2. Strata through its own client (Rust YCSB; the framed protocol unless PROTOCOL=grpc).
if [ "$SKIP_GRPC" != 1 ]; then
  echo "== Strata standalone, its own client (strata bench ycsb, ${PROTOCOL:-frames})"
  # (without HBASE_PEER: that script would run HBase too)
  env -u HBASE_PEER RECORDS="$RECORDS" THREADS="$THREADS" DURATION="$DURATION" WORKLOADS="$WORKLOADS" \
    OUT="$OUT/grpc" PORT="$(free_port)" STRATA_ARGS="$STRATA_ARGS" ./scripts/bench-ycsb.sh \
    > "$OUT/grpc.log" 2>&1 \
    || { tail -20 "$OUT/grpc.log" >&2; exit 1; }
  rm -rf "$OUT/grpc/strata-data"
fi

# --- 3. HBase 2.6 standalone, same java command line.
if [ "$SKIP_HBASE" != 1 ]; then
  echo "== HBase standalone (harness), same Java YCSB"
  ( cd "$HBASE_PEER" && ./start.sh > "$OUT/hbase-start.log" 2>&1 ) || { tail -20 "$OUT/hbase-start.log" >&2; exit 1; }
  trap '( cd "$HBASE_PEER" && ./stop.sh > /dev/null 2>&1 ) || true' EXIT
  hb_pid=$(cat "$RUN_DIR/hbase.pid")
  phases hbase "$CONF_DIR/client" "$hb_pid"
  ( cd "$HBASE_PEER" && ./stop.sh > /dev/null 2>&1 ) || true
  trap - EXIT
fi

field() { grep -E "^\[$2\], $3" "$1" 2>/dev/null | head -1 | awk -F', ' '{printf "%.0f", $3}'; }
lat() { # file kind: avg / p95 / p99, or a dash without that kind
  grep -q "^\[$2\], AverageLatency" "$1" || { echo "–"; return; }
  echo "$(field "$1" "$2" 'AverageLatency') / $(field "$1" "$2" '95th') / $(field "$1" "$2" '99th')"
}
errors() { grep -E '^\[[A-Z-]+\], Return=' "$1" 2>/dev/null | grep -v 'Return=OK' | awk -F', ' '{s+=$3} END {print s+0}'; }
row() { # system phase file
  local f=$3 w="UPDATE"
  [ "$2" = load ] && w="INSERT"
  [ -f "$f" ] || return 0
  printf "| %s | %s | %s | %s | %s | %s | %s |\n" "$1" "$2" \
    "$(field "$f" OVERALL 'Throughput')" "$(lat "$f" READ)" "$(lat "$f" "$w")" \
    "$(field "$f" PEER 'ServerCPUMicrosPerOp')" "$(errors "$f")"
}
{
  echo "| system (client) | phase | ops/s | read avg / p95 / p99 µs | write avg / p95 / p99 µs | server CPU µs/op | not OK |"
  echo "|---|---|---:|---:|---:|---:|---:|"
  for phase in load $WORKLOADS; do
    row "HBase 2.6 (Java YCSB)" "$phase" "$OUT/hbase-$phase.txt"
    row "Strata HBase RPC, OLD_STRATA (Java YCSB)" "$phase" "$OUT/strata-old-hbase-$phase.txt"
    row "Strata HBase RPC (Java YCSB)" "$phase" "$OUT/strata-hbase-$phase.txt"
    [ "$phase" = load ] && g="$OUT/grpc/strata-load.txt" || g="$OUT/grpc/strata-$phase.txt"
    row "Strata own client, ${PROTOCOL:-frames} (Rust YCSB)" "$phase" "$g"
  done
} | tee "$OUT/summary.md"
