#!/usr/bin/env bash
# Standalone's start time (a cluster of one, RFC 0019): an empty root, then a root holding one
# table of N regions (created through the shell, flushed by a graceful stop). Reports the time
# until the process listens and until every region is served again (a get answered in the last
# region). To compare builds, run it on each (STRATA_BIN names a binary; default: this tree's).
#
#   scripts/bench-standalone-start.sh [REGIONS]     # default 10000; a release build
#   STRATA_BENCH_PROFILE=dev scripts/bench-standalone-start.sh   # the test build
set -euo pipefail
cd "$(dirname "$0")/.."
REGIONS="${1:-10000}"
PROFILE="${STRATA_BENCH_PROFILE:-release}"
DIR=$PROFILE; [ "$PROFILE" = dev ] && DIR=debug
if [ -n "${STRATA_BIN:-}" ]; then
  STRATA="$STRATA_BIN"
else
  cargo build -q --profile "$PROFILE" -p strata-cli --bin strata
  STRATA="${CARGO_TARGET_DIR:-$PWD/target}/$DIR/strata"
fi
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
ms() { date +%s%3N; }
PID=
WORK=$(mktemp -d)
trap '[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null; rm -rf "$WORK"' EXIT

# Starts the server on $1 with flags $2; sets PID, PORT and LISTEN_MS (time to "serving on").
start() {
  PORT=$(free_port)
  local log="$WORK/log.$RANDOM" t0
  t0=$(ms)
  "$STRATA" standalone --data-dir "$1" --listen "127.0.0.1:$PORT" --no-thrift --no-http \
    --no-hbase-rpc $2 >"$log" 2>/dev/null &
  PID=$!
  until grep -q "serving on" "$log"; do sleep 0.005; done
  LISTEN_MS=$(( $(ms) - t0 ))
  START_T0=$t0
}
stop() { kill -TERM "$PID"; wait "$PID" 2>/dev/null || true; PID=; }
shell() { "$STRATA" shell -n --server "127.0.0.1:$PORT" >/dev/null; }

for mode in standalone; do
  flags=""
  dir="$WORK/$mode"
  start "$dir" "$flags"
  echo "$mode: empty root: listening after ${LISTEN_MS} ms"
  t0=$(ms)
  echo "create 't', 'f', {NUMREGIONS => $REGIONS, SPLITALGO => 'HexStringSplit'}" | shell
  echo "$mode: create a table of $REGIONS regions: $(( $(ms) - t0 )) ms"
  echo "put 't', 'ffffffff', 'f:q', 'v'" | shell
  stop
  start "$dir" "$flags"
  until echo "get 't', 'ffffffff'" | shell 2>/dev/null; do sleep 0.01; done
  echo "$mode: $REGIONS regions: listening after ${LISTEN_MS} ms, every region served after $(( $(ms) - START_T0 )) ms"
  t0=$(ms)
  echo "split 't', '00000001'" | shell
  echo "$mode: split request answered in $(( $(ms) - t0 )) ms"
  stop
done
