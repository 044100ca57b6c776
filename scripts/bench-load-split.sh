#!/usr/bin/env bash
# Splits by load (RFC 0028) on a zipfian workload in a cluster of one master and three region
# servers on a local shared root: the table starts as one region (small enough never to split
# by size), so one server takes every request; with splits by load on, the hot region splits
# at the row that balances its load, the master's balancer moves daughters to the idle
# servers, and the daughters split again while they stay hot. Each mode runs on a fresh
# cluster, back to back: `off` (--load-split-qps 0, splits by size only, as HBase) and `on`.
#
#   STRATA_ETCD_ENDPOINTS=127.0.0.1:2379 ./scripts/bench-load-split.sh
#
# Settings: RECORDS (100000), DURATION (90 s), THREADS (8), WORKLOAD (workloada: 50% reads,
# 50% updates, scrambled zipfian), QPS (1000 requests/s: --load-split-qps), WINDOW (10 s:
# --load-split-secs), MIN_MIB (1: --load-split-min-mib), MODES ("off on"), STRATA_BIN
# (target/release/strata, built if missing). Every process is stopped on exit.
#
# CPU_QUOTA (cores, e.g. 0.3; default none, as root only) caps each region server at that
# much CPU in a cgroup of its own (cgroup v1 `cpu` or v2 `cpu.max`), so that one server's CPU,
# not the machine's, limits what the hot region serves: what servers on separate machines
# are, on a machine too small to give each its own cores. The cgroups are removed on exit.
#
# Per mode it prints the throughput of each 10 s of the run (from the driver's per-second
# status lines), the whole run's ops/s, the region servers' CPU per operation (utime+stime of
# the three processes from /proc over the run), and at the end each server's open regions
# and load splits (its /metrics).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${STRATA_ETCD_ENDPOINTS:?needs etcd: set STRATA_ETCD_ENDPOINTS (scripts/etcd.sh start)}"
BIN="${STRATA_BIN:-target/release/strata}"
[ -x "$BIN" ] || cargo build --release -p strata-cli --bin strata
RECORDS="${RECORDS:-100000}"
DURATION="${DURATION:-90}"
THREADS="${THREADS:-8}"
WORKLOAD="${WORKLOAD:-workloada}"
QPS="${QPS:-1000}"
WINDOW="${WINDOW:-10}"
MIN_MIB="${MIN_MIB:-1}"
MODES="${MODES:-off on}"
CPU_QUOTA="${CPU_QUOTA:-}"
DIR=$(mktemp -d)
PIDS=()
CGROUPS=()
stop_all() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  PIDS=()
}
remove_cgroups() {
  for g in "${CGROUPS[@]}"; do rmdir "$g" 2>/dev/null || true; done
  CGROUPS=()
}
trap 'stop_all; remove_cgroups; rm -rf "$DIR"' EXIT
# Puts process $1 in a new cgroup capped at CPU_QUOTA cores.
cap_cpu() {
  local quota period=100000 g
  quota=$(awk -v q="$CPU_QUOTA" 'BEGIN {printf "%d", q * 100000}')
  if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
    g=/sys/fs/cgroup/strata-loadsplit-$$-$1
    grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control || echo +cpu >/sys/fs/cgroup/cgroup.subtree_control
    mkdir "$g"; CGROUPS+=("$g")
    echo "$quota $period" >"$g/cpu.max"
  else
    g=/sys/fs/cgroup/cpu/strata-loadsplit-$$-$1
    mkdir "$g"; CGROUPS+=("$g")
    echo "$period" >"$g/cpu.cfs_period_us"
    echo "$quota" >"$g/cpu.cfs_quota_us"
  fi
  echo "$1" >"$g/cgroup.procs"
}
wait_line() { # file, text
  for _ in $(seq 600); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "no '$2' in $1 after 60 s" >&2; cat "$1" >&2; exit 1
}
hz=$(getconf CLK_TCK)
cpu_ticks() { local s=0; for p in "$@"; do s=$((s + $(awk '{print $14+$15}' "/proc/$p/stat"))); done; echo $s; }
metric() { # url, name: the value of an unlabelled sample
  curl -s "$1/metrics" | awk -v n="$2" '$1 == n {print $2; f = 1} END {if (!f) print "-"}'
}
for mode in $MODES; do
  cluster="loadsplit-$mode-$$-$(date +%s)"
  coord=(--etcd "$STRATA_ETCD_ENDPOINTS" --cluster "$cluster")
  root="$DIR/root-$mode"
  qps=$QPS; [ "$mode" = off ] && qps=0
  "$BIN" master "${coord[@]}" --root "$root" --http 127.0.0.1:0 >"$DIR/master-$mode.log" 2>&1 &
  PIDS+=($!)
  wait_line "$DIR/master-$mode.log" "active"
  rs_pids=()
  for i in 1 2 3; do
    "$BIN" regionserver "${coord[@]}" --root "$root" --listen 127.0.0.1:0 --http 127.0.0.1:0 \
      --load-split-qps "$qps" --load-split-secs "$WINDOW" --load-split-min-mib "$MIN_MIB" \
      >"$DIR/rs-$mode-$i.log" 2>&1 &
    PIDS+=($!); rs_pids+=($!)
    [ -z "$CPU_QUOTA" ] || cap_cpu "$!"
    wait_line "$DIR/rs-$mode-$i.log" "HTTP endpoint on"
  done
  rs=$(grep -o 'serving on [0-9.:]*' "$DIR/rs-$mode-1.log" | awk '{print $3}')
  echo "== load splits $mode (--load-split-qps $qps): $WORKLOAD, $RECORDS records, $THREADS threads, $DURATION s, 3 region servers${CPU_QUOTA:+ of $CPU_QUOTA cores each}"
  "$BIN" cluster create-table "${coord[@]}" usertable --families family >/dev/null
  "$BIN" bench ycsb load -P "$WORKLOAD" --server "$rs" --regions 0 --threads "$THREADS" \
    -p recordcount="$RECORDS" --status-interval 1000 2>/dev/null | grep -E "^\[OVERALL\], Throughput"
  c0=$(cpu_ticks "${rs_pids[@]}")
  "$BIN" bench ycsb run -P "$WORKLOAD" --server "$rs" --threads "$THREADS" -p recordcount="$RECORDS" \
    -p operationcount=1000000000 -p maxexecutiontime="$DURATION" --status-interval 1 \
    >"$DIR/run-$mode.txt" 2>"$DIR/status-$mode.txt"
  c1=$(cpu_ticks "${rs_pids[@]}")
  ops=$(grep -E '^\[(READ|UPDATE|INSERT|SCAN|READ-MODIFY-WRITE)\], Operations' "$DIR/run-$mode.txt" | awk -F', ' '{s+=$3} END {print s+0}')
  # Throughput per 10 s from the cumulative counts of the per-second status lines.
  awk '/ sec: / {t=$1; n=$3; b=int((t-1)/10); last[b]=n; if (!(b in first)) {first[b]=n; start[b]=t}}
       END {prev=0; for (b=0; b in last; b++) {printf "  %3d-%3d s: %8.0f ops/s\n", b*10, b*10+10, (last[b]-prev)/10; prev=last[b]}}' \
    "$DIR/status-$mode.txt"
  grep -E "^\[OVERALL\], Throughput" "$DIR/run-$mode.txt"
  awk -v c=$((c1 - c0)) -v hz="$hz" -v n="$ops" 'BEGIN {printf "  region servers CPU: %.1f us/op\n", (n > 0) ? c / hz * 1e6 / n : 0}'
  for i in 1 2 3; do
    url=$(grep -o 'HTTP endpoint on https\?://[0-9.:]*' "$DIR/rs-$mode-$i.log" | head -1 | awk '{print $4}')
    echo "  region server $i: $(metric "$url" strata_regions) regions, $(metric "$url" strata_load_splits_total) load splits"
  done
  grep -h "split by load requested\|no row splits its load" "$DIR"/rs-"$mode"-*.log | sed 's/^/  log: /' | cut -c1-260 || true
  stop_all
  remove_cgroups
done
