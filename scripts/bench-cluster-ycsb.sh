#!/usr/bin/env bash
# YCSB workload A against a local cluster of one master and N region servers (N = 1 and 3 by
# default), on a local shared root, through `strata bench ycsb` (the Rust client, which follows
# regions to their servers); then the size and time of one /metrics scrape of the master and
# of a region server, with the table pre-split into REGIONS regions.
#
#   STRATA_ETCD_ENDPOINTS=127.0.0.1:2379 ./scripts/bench-cluster-ycsb.sh
#
# Settings: SERVERS ("1 3"), RECORDS (100000), DURATION (30 s), THREADS (16), REGIONS (12),
# STRATA_BIN (target/release/strata, built if missing). Every process is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${STRATA_ETCD_ENDPOINTS:?needs etcd: set STRATA_ETCD_ENDPOINTS (scripts/etcd.sh start)}"
BIN="${STRATA_BIN:-target/release/strata}"
[ -x "$BIN" ] || cargo build --release -p strata-cli --bin strata
SERVERS="${SERVERS:-1 3}"
RECORDS="${RECORDS:-100000}"
DURATION="${DURATION:-30}"
THREADS="${THREADS:-16}"
REGIONS="${REGIONS:-12}"
DIR=$(mktemp -d)
PIDS=()
stop_all() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  PIDS=()
}
trap 'stop_all; rm -rf "$DIR"' EXIT
wait_line() { # file, text
  for _ in $(seq 600); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "no '$2' in $1 after 60 s" >&2; cat "$1" >&2; exit 1
}
scrape() { # name, url
  local t0 t1 bytes
  t0=$(date +%s%N)
  bytes=$(curl -s "$2" | wc -c)
  t1=$(date +%s%N)
  echo "$1 /metrics: $bytes bytes in $(( (t1 - t0) / 1000000 )) ms"
}
for n in $SERVERS; do
  cluster="bench-$n-$$-$(date +%s)"
  coord=(--etcd "$STRATA_ETCD_ENDPOINTS" --cluster "$cluster")
  root="$DIR/root-$n"
  "$BIN" master "${coord[@]}" --root "$root" --http 127.0.0.1:0 >"$DIR/master-$n.log" 2>&1 &
  PIDS+=($!)
  wait_line "$DIR/master-$n.log" "active"
  for i in $(seq "$n"); do
    "$BIN" regionserver "${coord[@]}" --root "$root" --listen 127.0.0.1:0 --http 127.0.0.1:0 \
      >"$DIR/rs-$n-$i.log" 2>&1 &
    PIDS+=($!)
    wait_line "$DIR/rs-$n-$i.log" "HTTP endpoint on"
  done
  rs=$(grep -o 'serving on [0-9.:]*' "$DIR/rs-$n-1.log" | awk '{print $3}')
  echo "== $n region server(s): YCSB A, $RECORDS records, $THREADS threads, $DURATION s, $REGIONS regions"
  # The table, pre-split as `bench ycsb` splits (user<i * 2^63 / REGIONS>), keys sorted.
  splits=$(python3 -c "import sys; r=int(sys.argv[1]); print(','.join(sorted('user%d' % int(i * (2**63 - 1) / r) for i in range(1, r))))" "$REGIONS")
  "$BIN" cluster create-table "${coord[@]}" usertable --splits "$splits" --families family >/dev/null
  "$BIN" bench ycsb load -P workloada --server "$rs" --regions 0 --threads "$THREADS" \
    -p recordcount="$RECORDS" --status-interval 1000 2>/dev/null | grep -E "^\[OVERALL\]|^\[INSERT\], (Operations|AverageLatency)"
  "$BIN" bench ycsb run -P workloada --server "$rs" --threads "$THREADS" -p recordcount="$RECORDS" \
    -p operationcount=1000000000 -p maxexecutiontime="$DURATION" --status-interval 1000 2>/dev/null \
    | grep -E "^\[OVERALL\]|^\[(READ|UPDATE)\], (Operations|AverageLatency|99thPercentileLatency)"
  scrape "master" "$(grep -o 'http://[0-9.:]*' "$DIR/master-$n.log" | head -1)/metrics"
  scrape "region server 1" "$(grep -o 'http://[0-9.:]*' "$DIR/rs-$n-1.log" | head -1)/metrics"
  stop_all
done
