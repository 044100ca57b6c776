#!/usr/bin/env bash
# Server cost per request where wall-clock latency is too noisy to compare (a busy machine):
# runs `strata standalone`, drives it with `strata bench server --connect` (sequential
# single-client puts, then gets of the same rows), and reads the server's counters between the
# phases.
#   TOOL=callgrind (default): user-space instructions per request, counted by valgrind's
#     callgrind (exact and repeatable; system calls and futex waits are not counted).
#   TOOL=cpu: server CPU time (utime + stime from /proc, kernel included) per request.
# Usage: scripts/bench-server-instructions.sh [SERVER_BIN [DRIVER_BIN]]
#   (env: TOOL, OPS, PORT, OUT). Give an older build as SERVER_BIN to compare two commits in
#   the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
TOOL=${TOOL:-callgrind}
OPS=${OPS:-$([ "$TOOL" = cpu ] && echo 20000 || echo 2000)}
PORT=${PORT:-16190}
OUT=${OUT:-data/server-instructions}
if [ $# -lt 2 ]; then cargo build --release --locked -q -p strata-cli; fi
SERVER=${1:-./target/release/strata}
DRIVER=${2:-./target/release/strata}
rm -rf "$OUT" && mkdir -p "$OUT"
SERVE=("$SERVER" standalone --no-thrift --listen "127.0.0.1:$PORT" --data-dir "$OUT/data")
if [ "$TOOL" = callgrind ]; then
  command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 1; }
  valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.%p" "${SERVE[@]}" \
    >"$OUT/server.log" 2>&1 &
else
  "${SERVE[@]}" >"$OUT/server.log" 2>&1 &
fi
PID=$!
trap 'kill -TERM $PID 2>/dev/null || true; wait $PID 2>/dev/null || true' EXIT
drive() { timeout 900 "$DRIVER" bench server --connect "127.0.0.1:$PORT" --ops "$1" --phase "$2"; }
for _ in $(seq 1 120); do drive 100 put >/dev/null 2>&1 && break; sleep 1; done
drive 100 get >/dev/null # warm: connections, region locations, first-use allocations
TICK=$(getconf CLK_TCK)
start() {
  if [ "$TOOL" = callgrind ]; then callgrind_control -z "$PID" >/dev/null
  else STARTED=$(awk '{print $14 + $15}' "/proc/$PID/stat"); fi
}
per_op() { # cost since start(), per request: instructions, or CPU nanoseconds
  if [ "$TOOL" = callgrind ]; then
    callgrind_control -d "$1" "$PID" >/dev/null
    local f; f=$(ls -t "$OUT"/callgrind.$PID* | head -1)
    awk -v n="$OPS" '/^summary:/ {printf "%d", $2 / n}' "$f"
  else
    awk -v s="$STARTED" -v t="$TICK" -v n="$OPS" '{printf "%.1f µs", ($14 + $15 - s) / t * 1e6 / n}' "/proc/$PID/stat"
  fi
}
start; drive "$OPS" put >/dev/null; puts=$(per_op puts)
start; drive "$OPS" get >/dev/null; gets=$(per_op gets)
what=$([ "$TOOL" = callgrind ] && echo "user-space instructions" || echo "CPU time")
echo "| server $what per request ($OPS sequential ops) | value |"
echo "|---|---:|"
echo "| put | $puts |"
echo "| get | $gets |"
if [ "$TOOL" = callgrind ]; then
  echo "profiles: $OUT/callgrind.$PID.* (callgrind_annotate --inclusive=yes FILE)" >&2
fi
