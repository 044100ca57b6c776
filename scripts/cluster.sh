#!/usr/bin/env bash
# A local cluster on 127.0.0.1 with data (RFC 0012): etcd (scripts/etcd.sh), HDFS
# (scripts/hdfs.sh, a MiniDFSCluster), 2 masters and 3 region servers keeping their data under
# hdfs://127.0.0.1:PORT/strata-local; the region servers serve gRPC on 127.0.0.1:16020-16022.
#
#   scripts/cluster.sh up        # builds strata, starts everything, waits until a master is
#                                # active and the region servers are live (STRATA_CLUSTER_WAIT s)
#   scripts/cluster.sh status    # strata cluster status
#   scripts/cluster.sh shell     # strata shell on the cluster (through etcd)
#   scripts/cluster.sh down      # stops the processes, HDFS and etcd (HDFS's data is removed)
#   scripts/cluster.sh kill-rs N # kill -9 region server N (0-2); `up` again restarts it
#
# Then, in the shell: create 't', 'f', SPLITS => ['g', 'p'] / put / get / scan.
# Settings: STRATA_ETCD_PORT (default 2379), STRATA_HDFS_PORT (9000), STRATA_HDFS_HTTP_PORT
# (9870), STRATA_CLUSTER_RS_PORT (the first region server's port, 16020), STRATA_CLUSTER_MASTER_PORT
# (the first master's advertised address's port, 16000), STRATA_CLUSTER_DIR (default
# ${TMPDIR:-/tmp}/strata-cluster); STRATA_CLUSTER_TTL (leases, s); STRATA_CLUSTER_NO_HDFS=1
# runs coordination only (region servers hold no data); STRATA_CLUSTER_RS_MEMORY (each region
# server's memory flags, "--memtable-mib 256 --block-cache-mib 128 --row-cache-mib 128").
set -euo pipefail
cd "$(dirname "$0")/.."
export STRATA_ETCD_PORT="${STRATA_ETCD_PORT:-2379}"
DIR="${STRATA_CLUSTER_DIR:-${TMPDIR:-/tmp}/strata-cluster}"
BIN="${STRATA_BIN:-target/release/strata}"
ETCD="--etcd 127.0.0.1:$STRATA_ETCD_PORT --cluster local"

alive() { [ -f "$DIR/$1.pid" ] && kill -0 "$(cat "$DIR/$1.pid")" 2>/dev/null; }

start() { # name, args...
  local name=$1; shift
  alive "$name" && return 0
  setsid "$BIN" "$@" $ETCD >"$DIR/$name.log" 2>&1 </dev/null &
  echo $! >"$DIR/$name.pid"
}

stop() {
  local name=$1
  alive "$name" || { rm -f "$DIR/$name.pid"; return 0; }
  local pid; pid="$(cat "$DIR/$name.pid")"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$DIR/$name.pid"
}

# Waits (at most STRATA_CLUSTER_WAIT seconds, default 60) until a master is active and every
# region server started here is registered (live in `strata cluster status`), saying so; a
# process that exited or a deadline passed is reported with the end of its log, and fails.
wait_live() { # first region server port
  local limit="${STRATA_CLUSTER_WAIT:-60}" status="" want=0 live
  local deadline=$((SECONDS + limit))
  for i in 0 1 2; do alive "rs$i" && want=$((want + 1)); done
  while :; do
    for n in master0 master1 rs0 rs1 rs2; do
      if [ -f "$DIR/$n.pid" ] && ! alive "$n"; then
        echo "cluster.sh: $n exited; last lines of $DIR/$n.log:" >&2
        tail -20 "$DIR/$n.log" >&2
        return 1
      fi
    done
    status="$("$BIN" cluster status $ETCD 2>/dev/null || true)"
    live="$(printf '%s\n' "$status" | sed -n 's/^\([0-9][0-9]*\) live region servers$/\1/p')"
    if printf '%s\n' "$status" | grep -q "^active master" && [ "${live:-0}" -ge "$want" ]; then
      echo "cluster.sh: a master is active and $live of $want region servers are live"
      return 0
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "cluster.sh: after ${limit} s, ${live:-0} of $want region servers are live" \
        "(STRATA_CLUSTER_WAIT sets the wait); status:" >&2
      printf '%s\n' "$status" >&2
      for i in 0 1 2; do
        printf '%s\n' "$status" | grep -q "^  127.0.0.1:$(($1 + i)):" && continue
        echo "--- last lines of $DIR/rs$i.log:" >&2
        tail -5 "$DIR/rs$i.log" >&2
      done
      return 1
    fi
    sleep 0.2
  done
}

case "${1:-}" in
  up)
    mkdir -p "$DIR"
    if [ "$BIN" = target/release/strata ]; then
      . scripts/lib/toolchain.sh
      ensure_rust
      cargo build --release -p strata-cli
    fi
    ./scripts/etcd.sh start
    ROOT=()
    if [ -z "${STRATA_CLUSTER_NO_HDFS:-}" ]; then
      url="$(./scripts/hdfs.sh start)"
      ROOT=(--root "$url/strata-local" --hdfs-http "127.0.0.1:${STRATA_HDFS_HTTP_PORT:-9870}")
    fi
    # STRATA_CLUSTER_TTL: every process's lease in seconds (how long a dead one goes unnoticed).
    [ -n "${STRATA_CLUSTER_TTL:-}" ] && ROOT+=(--ttl "$STRATA_CLUSTER_TTL")
    mport="${STRATA_CLUSTER_MASTER_PORT:-16000}"
    start master0 master --advertise "127.0.0.1:$mport" "${ROOT[@]}"
    start master1 master --advertise "127.0.0.1:$((mport + 1))" "${ROOT[@]}"
    base="${STRATA_CLUSTER_RS_PORT:-16020}"
    # Three region servers share this one machine: each gets fixed sizes instead of the
    # default budget (a quarter of the machine's memory each). STRATA_CLUSTER_RS_MEMORY
    # overrides them.
    read -r -a rs_memory <<< "${STRATA_CLUSTER_RS_MEMORY:---memtable-mib 256 --block-cache-mib 128 --row-cache-mib 128}"
    for i in 0 1 2; do
      port=$((base + i))
      start "rs$i" regionserver --advertise "127.0.0.1:$port" --listen "127.0.0.1:$port" \
        "${rs_memory[@]}" "${ROOT[@]}"
    done
    wait_live "$base"
    "$BIN" cluster status $ETCD
    echo "logs in $DIR"
    ;;
  status) "$BIN" cluster status $ETCD ;;
  shell) "$BIN" shell $ETCD ;;
  kill-rs)
    name="rs${2:?region server number}"
    alive "$name" && kill -KILL "$(cat "$DIR/$name.pid")"
    rm -f "$DIR/$name.pid"
    ;;
  down)
    for n in rs0 rs1 rs2 master0 master1; do stop "$n"; done
    [ -n "${STRATA_CLUSTER_NO_HDFS:-}" ] || ./scripts/hdfs.sh stop
    ./scripts/etcd.sh stop
    ;;
  *) echo "usage: $0 up|status|shell|down|kill-rs N" >&2; exit 2 ;;
esac
