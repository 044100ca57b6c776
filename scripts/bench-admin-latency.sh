#!/usr/bin/env bash
# Create-table and split latency through `strata standalone`, as an operator sees them from the
# shell: N tables created one after another (each `create` returns once the table serves), then
# each split at a given row, timed from the `split` statement until `list_regions` shows both
# daughters. To compare builds, run it on each back to back (STRATA_BIN names the server's
# binary; the shell is CLIENT_BIN's, default the same).
#
#   scripts/bench-admin-latency.sh [N]                  # default 20; a release build
#   STRATA_BIN=old CLIENT_BIN=new scripts/bench-admin-latency.sh
#
# Prints one markdown row: median and worst of create and of split, in milliseconds.
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-20}"
if [ -n "${STRATA_BIN:-}" ]; then
  STRATA="$STRATA_BIN"
else
  cargo build --release --locked -q -p strata-cli --bin strata
  STRATA="${CARGO_TARGET_DIR:-target}/release/strata"
fi
CLIENT="${CLIENT_BIN:-$STRATA}"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
ms() { date +%s%3N; }
WORK=$(mktemp -d)
PID=
trap '[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null; rm -rf "$WORK"' EXIT
PORT=$(free_port)
"$STRATA" standalone --data-dir "$WORK/data" --listen "127.0.0.1:$PORT" --no-thrift \
  > "$WORK/log" 2>&1 &
PID=$!
for _ in $(seq 200); do grep -q "serving on" "$WORK/log" 2>/dev/null && break; sleep 0.05; done
grep -q "serving on" "$WORK/log" || { cat "$WORK/log" >&2; exit 1; }
shell() { "$CLIENT" shell --server "127.0.0.1:$PORT" -n; }

# Create: HBase's shell prints `Took S seconds` after each command that reached the server.
for i in $(seq "$N"); do echo "create 'c$i', 'f'"; done | shell > "$WORK/create.out"
grep -o 'Took [0-9.]* seconds' "$WORK/create.out" | awk '{printf "%.1f\n", $2 * 1000}' \
  > "$WORK/create.ms"

# Split: a table of 100 rows, flushed, split at row 50; until both daughters are listed.
: > "$WORK/split.ms"
for i in $(seq "$N"); do
  {
    echo "create 's$i', 'f'"
    for r in $(seq -w 0 99); do echo "put 's$i', 'row$r', 'f:q', 'v$r'"; done
    echo "flush 's$i'"
  } | shell > /dev/null
  t0=$(ms)
  echo "split 's$i', 'row50'" | shell > /dev/null
  for _ in $(seq 400); do
    n=$(echo "list_regions 's$i'" | shell 2>/dev/null | grep -c "s$i," || true)
    [ "$n" -ge 2 ] && break
    sleep 0.02
  done
  [ "$n" -ge 2 ] || { echo "table s$i did not split" >&2; exit 1; }
  echo $(($(ms) - t0)) >> "$WORK/split.ms"
done
kill -TERM "$PID"; wait "$PID" || true; PID=

stats() { sort -n "$1" | awk '{a[NR]=$1} END {printf "%.1f / %.1f", a[int((NR+1)/2)], a[NR]}'; }
echo "| server | create median / worst ms | split median / worst ms |"
echo "|---|---:|---:|"
echo "| $STRATA | $(stats "$WORK/create.ms") | $(stats "$WORK/split.ms") |"
