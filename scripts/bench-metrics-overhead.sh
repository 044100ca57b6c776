#!/usr/bin/env bash
# The cost of request metrics (the per-request latency histogram, heatmap and slow-operation
# check of RFC 0015) on the request path: YCSB workload C through Strata's gRPC client against
# `strata standalone`, alternately with request metrics on and off
# (`--no-request-metrics`), on the same data directory, in one run. Prints one markdown table.
#
#   RECORDS=100000 THREADS=8 DURATION=30 ROUNDS=2 ./scripts/bench-metrics-overhead.sh
#
# The table is loaded once (then flushed and major-compacted); each round restarts the server
# with metrics on, then off, runs a 10 s unreported warm-up and then C for DURATION s.
# Columns: ops/s, read avg / p99 µs, server CPU µs per operation (utime+stime from /proc).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${RECORDS:=100000}" "${THREADS:=8}" "${DURATION:=30}" "${ROUNDS:=2}"
: "${OUT:=data/bench-metrics-overhead}" "${PORT:=16150}" "${STRATA_ARGS:=--block-cache-mib 1024}"
. scripts/lib/toolchain.sh
ensure_rust
cargo build --release --locked -q -p strata-cli --bin strata
STRATA="${CARGO_TARGET_DIR:-target}/release/strata"
rm -rf "$OUT"; mkdir -p "$OUT"
hz=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14+$15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
server="127.0.0.1:$PORT"
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null || true' EXIT
start() { # extra flags...
  # shellcheck disable=SC2086
  "$STRATA" standalone --data-dir "$OUT/data" --listen "$server" --no-thrift --no-hbase-rpc \
    --no-http $STRATA_ARGS "$@" > "$OUT/strata.log" 2>&1 &
  pid=$!
  for _ in $(seq 300); do grep -q "serving on" "$OUT/strata.log" 2>/dev/null && return 0; sleep 0.1; done
  echo "strata standalone did not start:" >&2; cat "$OUT/strata.log" >&2; exit 1
}
stop() { kill -TERM "$pid"; wait "$pid" || true; pid=; }
ycsb() { # report phase args...
  local out=$1; shift
  "$STRATA" bench ycsb "$@" -P workloadc -p recordcount="$RECORDS" --threads "$THREADS" \
    --server "$server" > "$out" 2> "$out.err"
}

echo "== load $RECORDS records"
start
ycsb "$OUT/load.txt" load -p operationcount="$RECORDS"
printf "flush 'usertable'\nmajor_compact 'usertable'\n" | "$STRATA" shell --server "$server" -n > /dev/null
stop
for round in $(seq "$ROUNDS"); do
  for mode in on off; do
    echo "== round $round, request metrics $mode"
    if [ "$mode" = off ]; then start --no-request-metrics; else start; fi
    ycsb "$OUT/warmup.txt" run -p operationcount=1000000000 -p maxexecutiontime=10
    c0=$(cpu_ticks "$pid")
    f="$OUT/c-$mode-$round.txt"
    ycsb "$f" run -p operationcount=1000000000 -p maxexecutiontime="$DURATION"
    c1=$(cpu_ticks "$pid")
    ops=$(grep -E '^\[READ\], Operations' "$f" | awk -F', ' '{print $3}')
    awk -v c=$((c1 - c0)) -v hz="$hz" -v ops="$ops" \
      'BEGIN { printf "[PEER], ServerCPUMicrosPerOp, %.1f\n", (ops > 0 ? c / hz * 1e6 / ops : 0) }' >> "$f"
    stop
  done
done

field() { grep -E "^\[$2\], $3" "$1" | head -1 | awk -F', ' '{print $3}'; }
{
  echo "| round | request metrics | ops/s | read avg / p99 µs | server CPU µs/op |"
  echo "|---|---|---:|---:|---:|"
  for round in $(seq "$ROUNDS"); do
    for mode in on off; do
      f="$OUT/c-$mode-$round.txt"
      printf "| %s | %s | %.0f | %.0f / %.0f | %s |\n" "$round" "$mode" \
        "$(field "$f" OVERALL 'Throughput')" "$(field "$f" READ 'AverageLatency')" \
        "$(field "$f" READ '99th')" "$(field "$f" PEER 'ServerCPUMicrosPerOp')"
    done
  done
  for mode in on off; do
    cat "$OUT"/c-"$mode"-*.txt | grep -E '^\[PEER\], ServerCPUMicrosPerOp' | awk -F', ' -v m="$mode" \
      '{s+=$3; n++} END {printf "mean server CPU µs/op, metrics %s: %.1f\n", m, s/n}'
  done
} | tee "$OUT/summary.md"
