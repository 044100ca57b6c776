#!/usr/bin/env bash
# Failover times on a local cluster (scripts/cluster.sh: with data on HDFS, or coordination only
# with STRATA_CLUSTER_NO_HDFS=1; RFC 0012):
#   - kill -9 of a region server until every region is open on a live server again (with data:
#     its WAL fenced and split, recovered edits replayed, the regions opened from HDFS);
#   - kill -9 of the active master until the standby carries out an admin request.
# TRIALS (default 10) of each; prints every trial, then median and worst.
set -euo pipefail
cd "$(dirname "$0")/.."
TRIALS="${TRIALS:-10}"
export STRATA_ETCD_PORT="${STRATA_ETCD_PORT:-2379}"
export STRATA_CLUSTER_DIR="${STRATA_CLUSTER_DIR:-${TMPDIR:-/tmp}/strata-failover}"
BIN="${STRATA_BIN:-target/release/strata}"
export STRATA_BIN="$BIN"
ETCD="--etcd 127.0.0.1:$STRATA_ETCD_PORT --cluster local"
trap './scripts/cluster.sh down >/dev/null' EXIT
./scripts/cluster.sh up >/dev/null
"$BIN" cluster create-table t --splits "$(seq -s, -f 'r%02g' 1 29)" $ETCD >/dev/null

ms() { date +%s%3N; }
# settled with N live region servers
settled() { local st; st=$("$BIN" cluster status $ETCD); grep -q "settled" <<<"$st" && grep -q "^$1 live" <<<"$st"; }
wait_settled() { until settled "${1:-3}"; do sleep 0.05; done; }
stats() { sort -n | awk '{a[NR]=$1} END {printf "median %d ms, worst %d ms over %d trials\n", a[int((NR+1)/2)], a[NR], NR}'; }

wait_settled
rs_times=()
for t in $(seq 1 "$TRIALS"); do
  i=$(( (t - 1) % 3 ))
  start=$(ms)
  ./scripts/cluster.sh kill-rs "$i"
  wait_settled 2
  took=$(( $(ms) - start ))
  rs_times+=("$took")
  echo "region server kill -9 #$t: regions open again after $took ms"
  ./scripts/cluster.sh up >/dev/null
  wait_settled
done

m_times=()
for t in $(seq 1 "$TRIALS"); do
  active=$("$BIN" cluster status $ETCD | sed -n 's/^active master: \([^;]*\);.*/\1/p')
  name=$([ "$active" = 127.0.0.1:16000 ] && echo master0 || echo master1)
  start=$(ms)
  kill -KILL "$(cat "$STRATA_CLUSTER_DIR/$name.pid")"
  "$BIN" cluster move "t,$(printf '%08x' $((t % 30)))" $ETCD >/dev/null
  wait_settled
  took=$(( $(ms) - start ))
  m_times+=("$took")
  echo "master kill -9 #$t: standby carried out a move after $took ms"
  ./scripts/cluster.sh up >/dev/null
  wait_settled
done
echo "region server kill -9 → regions open again: $(printf '%s\n' "${rs_times[@]}" | stats)"
echo "active master kill -9 → request carried out: $(printf '%s\n' "${m_times[@]}" | stats)"
