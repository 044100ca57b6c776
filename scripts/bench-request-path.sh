#!/usr/bin/env bash
# Server CPU per operation through the request path, gRPC vs the framed protocol (RFC 0013,
# Decision 5), and optionally an older build, alternating in one run on one machine.
#
#   RECORDS=100000 THREADS=8 DURATION=20 ROUNDS=2 ./scripts/bench-request-path.sh [OLD_STRATA]
#
# Per round and per build (this checkout's release build, then OLD_STRATA if given): starts
# `strata standalone` on a fresh directory, loads RECORDS records of YCSB's 10 × 100 B fields
# (pre-split into 10 regions), then runs each of WORKLOADS (default "workloadc workloada")
# for DURATION seconds once per protocol in PROTOCOLS (default "grpc frames"; an old build
# without the framed protocol runs grpc only). The YCSB driver is always this checkout's.
# Server CPU is utime+stime of the server process from /proc over the phase, divided by the
# phase's operations. Prints one markdown table (also in $OUT/summary.md).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${RECORDS:=100000}" "${THREADS:=8}" "${DURATION:=20}" "${ROUNDS:=2}"
: "${WORKLOADS:=workloadc workloada}" "${PROTOCOLS:=grpc frames}"
: "${OUT:=data/bench-request-path}" "${PORT:=16480}"
if [ -z "${STRATA_SKIP_BUILD:-}" ]; then
  . scripts/lib/toolchain.sh
  ensure_rust
  cargo build --release --locked -q -p strata-cli --bin strata
fi
NEW="${CARGO_TARGET_DIR:-target}/release/strata"
OLD="${1:-}"
rm -rf "$OUT"; mkdir -p "$OUT"
hz=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
# The value of line "[KIND], NAME..." of a report, "-" if absent (no updates in workload C).
field() { awk -F', ' -v k="[$2]" -v n="$3" '$1 == k && index($2, n) == 1 {printf "%.0f", $3; f = 1; exit} END {if (!f) printf "-"}' "$1"; }
ops_of() { grep -E '^\[(READ|UPDATE|INSERT)\], Operations' "$1" | awk -F', ' '{s+=$3} END {print s+0}'; }
rows=()
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null || true' EXIT

one_build() { # label server_binary round
  local label=$1 bin=$2 round=$3 dir="$OUT/$1-$3"
  mkdir -p "$dir"
  "$bin" standalone --data-dir "$dir/data" --listen "127.0.0.1:$PORT" --no-thrift --no-http --no-hbase-rpc \
    > "$dir/server.log" 2>&1 &
  pid=$!
  for _ in $(seq 200); do grep -q "serving on" "$dir/server.log" 2>/dev/null && break; sleep 0.1; done
  grep -q "serving on" "$dir/server.log" || { cat "$dir/server.log" >&2; exit 1; }
  "$NEW" bench ycsb load -P workloada -p recordcount="$RECORDS" -p operationcount="$RECORDS" \
    --threads "$THREADS" --server "127.0.0.1:$PORT" > "$dir/load.txt"
  local protocols=$PROTOCOLS
  # An old build's accept loop hands every connection to gRPC: frames would fail.
  [ "$label" = old ] && protocols=grpc
  for wl in $WORKLOADS; do
    for proto in $protocols; do
      local f="$dir/$wl-$proto.txt" c0 c1 ops cpu
      c0=$(cpu_ticks $pid)
      "$NEW" bench ycsb run -P "$wl" -p recordcount="$RECORDS" -p operationcount=1000000000 \
        -p maxexecutiontime="$DURATION" --threads "$THREADS" --server "127.0.0.1:$PORT" \
        --protocol "$proto" > "$f"
      c1=$(cpu_ticks $pid)
      ops=$(ops_of "$f")
      cpu=$(awk -v c=$((c1 - c0)) -v hz="$hz" -v n="$ops" 'BEGIN {printf "%.1f", (n > 0) ? (c / hz * 1e6 / n) : 0}')
      rows+=("| $round | $label | $proto | $wl | $(field "$f" OVERALL Throughput) | $(field "$f" READ 50th) / $(field "$f" READ 99th) | $(field "$f" UPDATE 50th) / $(field "$f" UPDATE 99th) | $cpu |")
    done
  done
  kill -TERM $pid; wait $pid || true; pid=
}

for round in $(seq "$ROUNDS"); do
  one_build new "$NEW" "$round"
  [ -n "$OLD" ] && one_build old "$OLD" "$round"
done
{
  echo "| round | build | protocol | workload | ops/s | read p50 / p99 µs | update p50 / p99 µs | server CPU µs/op |"
  echo "|---:|---|---|---|---:|---:|---:|---:|"
  printf '%s\n' "${rows[@]}"
} | tee "$OUT/summary.md"
