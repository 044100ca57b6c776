#!/usr/bin/env bash
# Failover times on a local cluster (scripts/cluster.sh: with data on HDFS, or coordination only
# with STRATA_CLUSTER_NO_HDFS=1; RFC 0012):
#   - kill -9 of a region server until every region is open on a live server again (with data:
#     its WAL fenced and split, recovered edits replayed, the regions opened from HDFS);
#   - kill -9 of the active master until the standby carries out an admin request.
# TRIALS (default 10) of each; prints every trial, then median and worst. With WRITES=1 (the
# default), a YCSB workload A client (`strata bench ycsb`, 4 threads, 1,000 ops/s on 20,000
# records in 10 regions) runs through each region server failover, so the dead server leaves a
# WAL to fence and split; its operations, failures and longest call are printed per trial.
# STRATA_CLUSTER_TTL sets the leases (seconds; the processes' default is 3).
# STRATA_CLUSTER_RS_PORT and STRATA_CLUSTER_MASTER_PORT move the cluster's ports (cluster.sh).
# Also counts etcd's requests from its /metrics (gRPC messages received, every method: ranges,
# transactions, lease grants and keep-alives, watch requests): per second at rest (REST_SECS,
# default 20, after the cluster settled) and during each failover. Give the cluster an etcd of
# its own (STRATA_ETCD_PORT, STRATA_ETCD_PEER_PORT) so no other client is counted.
set -euo pipefail
cd "$(dirname "$0")/.."
TRIALS="${TRIALS:-10}"
export STRATA_ETCD_PORT="${STRATA_ETCD_PORT:-2379}"
export STRATA_CLUSTER_DIR="${STRATA_CLUSTER_DIR:-${TMPDIR:-/tmp}/strata-failover}"
BIN="${STRATA_BIN:-target/release/strata}"
RS_PORT="${STRATA_CLUSTER_RS_PORT:-16020}"
MASTER_PORT="${STRATA_CLUSTER_MASTER_PORT:-16000}"
export STRATA_BIN="$BIN"
ETCD="--etcd 127.0.0.1:$STRATA_ETCD_PORT --cluster local"
trap './scripts/cluster.sh down >/dev/null' EXIT
./scripts/cluster.sh up >/dev/null
"$BIN" cluster create-table t --splits "$(seq -s, -f 'r%02g' 1 29)" $ETCD >/dev/null
WRITES="${WRITES:-1}"
YCSB_LOG="$STRATA_CLUSTER_DIR/ycsb"
if [ "$WRITES" = 1 ]; then
  "$BIN" bench ycsb load -P workloada -p recordcount=20000 --threads 2 --regions 10 \
    --server "127.0.0.1:$RS_PORT" >"$YCSB_LOG.load" 2>&1 || { tail "$YCSB_LOG.load"; exit 1; }
fi
# A writer through the next failover, on a region server other than the one to be killed.
start_writer() {
  "$BIN" bench ycsb run -P workloada -p recordcount=20000 -p operationcount=1000000000 \
    -p maxexecutiontime="$1" --target 1000 --threads 4 --server "127.0.0.1:$2" \
    >"$YCSB_LOG.run" 2>&1 &
  WRITER=$!
}
writer_report() {
  wait "$WRITER" || echo "  the YCSB client failed: $(tail -3 "$YCSB_LOG.run")"
  awk -F', ' '/^\[(UPDATE|READ|UPDATE-FAILED|READ-FAILED)\], (Operations|MaxLatency\(us\))/ {
    printf "  %s %s %s\n", $1, $2, $3 }' "$YCSB_LOG.run"
}

ms() { date +%s%3N; }
# Milliseconds since the epoch of a log line's timestamp (2026-01-02T03:04:05.678901Z).
log_ms() { date -d "$1" +%s%3N; }
# The phases of the failover of the region server on port $1 killed at $2 (ms), from the logs:
# when the master started fencing its WAL (the rename; the lease's expiry and the master's
# noticing come before), fencing done (HDFS lease recovery), split done, and the last region
# opened on a live server; each after the previous.
phases() {
  local who="server=127.0.0.1:$1:" t0=$2 fs fd sd ro
  fs=$(grep -h "WAL directory moved away" "$STRATA_CLUSTER_DIR"/master*.log | grep -F "$who" | tail -1 | cut -d' ' -f1)
  fd=$(grep -h "WAL fence done" "$STRATA_CLUSTER_DIR"/master*.log | grep -F "$who" | tail -1 | cut -d' ' -f1)
  sd=$(grep -h "WAL split done" "$STRATA_CLUSTER_DIR"/master*.log | grep -F "$who" | tail -1 | cut -d' ' -f1)
  ro=$(grep -h "region open" "$STRATA_CLUSTER_DIR"/rs*.log | cut -d' ' -f1 | sort | tail -1)
  [ -n "$fs" ] && [ -n "$fd" ] && [ -n "$sd" ] && [ -n "$ro" ] || { echo "  phases: not found in the logs"; return 0; }
  fs=$(log_ms "$fs"); fd=$(log_ms "$fd"); sd=$(log_ms "$sd"); ro=$(log_ms "$ro")
  echo "  phases: to fence start $((fs - t0)) ms, fence $((fd - fs)) ms, split $((sd - fd)) ms, last region open $((ro - sd)) ms"
}
# settled with N live region servers
POLLS=0
settled() { local st; POLLS=$((POLLS + 1)); st=$("$BIN" cluster status $ETCD); grep -q "settled" <<<"$st" && grep -q "^$1 live" <<<"$st"; }
wait_settled() { until settled "${1:-3}"; do sleep 0.05; done; }
stats() { sort -n | awk '{a[NR]=$1} END {printf "median %d ms, worst %d ms over %d trials\n", a[int((NR+1)/2)], a[NR], NR}'; }

# etcd requests received so far (gRPC messages, all methods).
etcd_requests() {
  curl -s "http://127.0.0.1:$STRATA_ETCD_PORT/metrics" |
    awk '/^grpc_server_msg_received_total/ {n += $2} END {printf "%d\n", n}'
}
rate() { awk -v n="$1" -v ms="$2" 'BEGIN {printf "%.1f", n * 1000 / (ms > 0 ? ms : 1)}'; }
# The cluster's own requests between two counts: the total minus this script's status polls.
cluster_requests() { echo $(( $2 - $1 - (POLLS - $3) * POLL_COST )); }

wait_settled
p0=$(etcd_requests)
for _ in 1 2 3 4 5 6 7 8 9 10; do "$BIN" cluster status $ETCD >/dev/null; done
POLL_COST=$(( ($(etcd_requests) - p0) / 10 ))
echo "one status poll: $POLL_COST etcd requests (subtracted below)"
REST_SECS="${REST_SECS:-20}"
r0=$(etcd_requests); t0=$(ms)
sleep "$REST_SECS"
r1=$(etcd_requests); t1=$(ms)
rest_rate=$(rate $((r1 - r0)) $((t1 - t0)))
echo "etcd at rest (2 masters, 3 region servers, 30 regions): $rest_rate requests/s"
rs_rates=(); m_rates=()
rs_times=()
for t in $(seq 1 "$TRIALS"); do
  i=$(( (t - 1) % 3 ))
  if [ "$WRITES" = 1 ]; then
    start_writer 25 "$(( RS_PORT + (i + 1) % 3 ))"
    sleep 6
  fi
  r0=$(etcd_requests); q0=$POLLS
  start=$(ms)
  ./scripts/cluster.sh kill-rs "$i"
  wait_settled 2
  took=$(( $(ms) - start ))
  r1=$(etcd_requests)
  rs_times+=("$took")
  rs_rates+=("$(rate "$(cluster_requests "$r0" "$r1" "$q0")" "$took")")
  echo "region server kill -9 #$t: regions open again after $took ms; etcd ${rs_rates[-1]} requests/s meanwhile"
  phases "$(( RS_PORT + i ))" "$start"
  [ "$WRITES" = 1 ] && writer_report
  ./scripts/cluster.sh up >/dev/null
  wait_settled
done

m_times=()
for t in $(seq 1 "$TRIALS"); do
  active=$("$BIN" cluster status $ETCD | sed -n 's/^active master: \([^;]*\);.*/\1/p')
  name=$([ "$active" = "127.0.0.1:$MASTER_PORT" ] && echo master0 || echo master1)
  r0=$(etcd_requests); q0=$POLLS
  start=$(ms)
  kill -KILL "$(cat "$STRATA_CLUSTER_DIR/$name.pid")"
  "$BIN" cluster move "t,$(printf '%08x' $((t % 30)))" $ETCD >/dev/null
  wait_settled
  took=$(( $(ms) - start ))
  r1=$(etcd_requests)
  m_times+=("$took")
  m_rates+=("$(rate "$(cluster_requests "$r0" "$r1" "$q0")" "$took")")
  echo "master kill -9 #$t: standby carried out a move after $took ms; etcd ${m_rates[-1]} requests/s meanwhile"
  ./scripts/cluster.sh up >/dev/null
  wait_settled
done
echo "region server kill -9 → regions open again: $(printf '%s\n' "${rs_times[@]}" | stats)"
echo "active master kill -9 → request carried out: $(printf '%s\n' "${m_times[@]}" | stats)"
echo "etcd requests/s: at rest $rest_rate; during region server failovers $(printf '%s\n' "${rs_rates[@]}" | sort -n | tr '\n' ' '); during master failovers $(printf '%s\n' "${m_rates[@]}" | sort -n | tr '\n' ' ')"
