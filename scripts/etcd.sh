#!/usr/bin/env bash
# A single-member etcd for tests and local clusters, bound to 127.0.0.1 (or STRATA_ETCD_HOST).
#
#   scripts/etcd.sh start    # installs Debian's etcd-server if `etcd` is missing, starts, waits healthy
#   scripts/etcd.sh status   # exit 0 if it answers, 1 otherwise
#   scripts/etcd.sh stop     # stops it, even if it is still starting
#   scripts/etcd.sh resume   # starts it again keeping its data (after `stop`: an etcd outage)
#   scripts/etcd.sh endpoint # prints HOST:PORT (for STRATA_ETCD_ENDPOINTS)
#
# Settings (environment):
#   STRATA_ETCD_PORT          client port (default 2379)
#   STRATA_ETCD_PEER_PORT     peer port (default 2380)
#   STRATA_ETCD_HOST          address to bind (default 127.0.0.1; scripts/faults.sh gives a host's
#                             address inside its network namespace)
#   STRATA_ETCD_DIR           state directory: pid, log, data (default ${TMPDIR:-/tmp}/strata-etcd-PORT)
#   STRATA_ETCD_START_TIMEOUT seconds to wait for health (default 30)
#   STRATA_ETCD_TLS_DIR       serve clients over TLS and require client certificates
#                             (--client-cert-auth): the directory holds ca.pem, etcd.pem and
#                             etcd.key (etcd's certificate, valid for its address) and client.pem
#                             and client.key (what the health check presents), as made by
#                             `strata cert init DIR`, `strata cert issue DIR --name etcd --ip ADDR`
#                             and `strata cert issue DIR --name client`. Peers stay plaintext
#                             (one member).
#
# Test flags: --unsafe-no-fsync (the data dir is thrown away at every start but `resume`) and a 10 ms heartbeat
# with a 50 ms election timeout, which lower etcd's minimum lease TTL from 2 s to 1 s.
set -euo pipefail

PORT="${STRATA_ETCD_PORT:-2379}"
PEER_PORT="${STRATA_ETCD_PEER_PORT:-2380}"
DIR="${STRATA_ETCD_DIR:-${TMPDIR:-/tmp}/strata-etcd-$PORT}"
START_TIMEOUT="${STRATA_ETCD_START_TIMEOUT:-30}"
PIDFILE="$DIR/etcd.pid"
LOG="$DIR/etcd.log"
HOST="${STRATA_ETCD_HOST:-127.0.0.1}"
ENDPOINT="$HOST:$PORT"
TLS_DIR="${STRATA_ETCD_TLS_DIR:-}"
SCHEME=http
CLIENT_TLS=()
CTL_TLS=()
if [ -n "$TLS_DIR" ]; then
  SCHEME=https
  CLIENT_TLS=(--cert-file "$TLS_DIR/etcd.pem" --key-file "$TLS_DIR/etcd.key"
    --trusted-ca-file "$TLS_DIR/ca.pem" --client-cert-auth)
  CTL_TLS=(--cacert "$TLS_DIR/ca.pem" --cert "$TLS_DIR/client.pem" --key "$TLS_DIR/client.key")
fi

install_etcd() {
  command -v etcd >/dev/null 2>&1 && command -v etcdctl >/dev/null 2>&1 && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing etcd-server and etcd-client with apt-get" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq etcd-server etcd-client >/dev/null
  else
    echo "etcd is not installed: install Debian's etcd-server and etcd-client (as root)" >&2
    exit 2
  fi
}

running_pid() {
  [ -f "$PIDFILE" ] || return 1
  local pid
  pid="$(cat "$PIDFILE")"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

healthy() {
  ETCDCTL_API=3 timeout 5 etcdctl --endpoints="$SCHEME://$ENDPOINT" "${CTL_TLS[@]}" \
    --dial-timeout=1s --command-timeout=2s endpoint health >/dev/null 2>&1
}

start() {
  local keep="${1:-}"
  install_etcd
  if running_pid >/dev/null && healthy; then
    echo "etcd already running at $ENDPOINT (pid $(cat "$PIDFILE"))"
    return 0
  fi
  stop_quietly
  mkdir -p "$DIR"
  if [ "$keep" != keep ]; then
    rm -rf "$DIR/data"
  fi
  # setsid: its own process group, so `stop` can end it and nothing else.
  setsid etcd --name strata-test --data-dir "$DIR/data" \
    --listen-client-urls "$SCHEME://$ENDPOINT" --advertise-client-urls "$SCHEME://$ENDPOINT" \
    "${CLIENT_TLS[@]}" \
    --listen-peer-urls "http://$HOST:$PEER_PORT" \
    --initial-advertise-peer-urls "http://$HOST:$PEER_PORT" \
    --initial-cluster "strata-test=http://$HOST:$PEER_PORT" \
    --unsafe-no-fsync --heartbeat-interval 10 --election-timeout 50 \
    --logger zap --log-level warn >"$LOG" 2>&1 </dev/null &
  echo $! >"$PIDFILE"
  local deadline=$((SECONDS + START_TIMEOUT))
  until healthy; do
    if ! running_pid >/dev/null; then
      echo "etcd exited while starting; log $LOG:" >&2
      tail -20 "$LOG" >&2
      rm -f "$PIDFILE"
      exit 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "etcd not healthy after ${START_TIMEOUT}s; stopping it. log $LOG:" >&2
      tail -20 "$LOG" >&2
      stop_quietly
      exit 1
    fi
    sleep 0.2
  done
  echo "etcd running at $ENDPOINT (pid $(cat "$PIDFILE"), dir $DIR)"
}

stop_quietly() {
  local pid
  pid="$(running_pid)" || { rm -f "$PIDFILE"; return 0; }
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$PIDFILE"
}

case "${1:-}" in
  start) start ;;
  resume) start keep ;;
  stop) stop_quietly; echo "etcd at $ENDPOINT stopped" ;;
  status)
    if running_pid >/dev/null && healthy; then
      echo "etcd running at $ENDPOINT (pid $(cat "$PIDFILE"))"
    else
      echo "etcd not running at $ENDPOINT"
      exit 1
    fi
    ;;
  endpoint) echo "$ENDPOINT" ;;
  *) echo "usage: $0 start|stop|resume|status|endpoint" >&2; exit 2 ;;
esac
