#!/usr/bin/env bash
# Prefetch on open (RFC 0001): restarts a standalone server on a loaded YCSB data directory
# with PREFETCH_BLOCKS_ON_OPEN set to MODE on `usertable`'s family, runs YCSB workload C from
# the moment it answers, and samples the block cache every 2 s.
#
#   DATA=dir [STRATA_BIN=path] [DROP=1] [DUR=40] scripts/bench-prefetch-on-open.sh MODE OUT
#
# MODE is true or false; OUT a directory for the server log and the client's report. DATA
# holds a table loaded by `strata bench ycsb load -P workloada -p recordcount=1000000
# --regions 10` (then flushed and major-compacted). DROP=1 empties the OS page cache before
# the restart (as root), as on a server taking over regions. Alternate the modes and compare.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/toolchain.sh
mode="$1" out="$2"
DUR="${DUR:-40}"
release_strata
rm -rf "$out"; mkdir -p "$out"
pid=
start() {
  "$STRATA" standalone --data-dir "$DATA" --listen 127.0.0.1:26000 --no-thrift \
    --http-listen 127.0.0.1:26080 --block-cache-mib 2048 >"$out/server.log" 2>&1 &
  pid=$!
  for _ in $(seq 300); do curl -sf 127.0.0.1:26080/metrics >/dev/null 2>&1 && return; sleep 0.1; done
  echo "server did not start; see $out/server.log" >&2; return 1
}
stop() { [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; pid=; }
trap stop EXIT
start
echo "alter 'usertable', {NAME => 'family', PREFETCH_BLOCKS_ON_OPEN => '$mode'}" |
  "$STRATA" shell --server 127.0.0.1:26000 >"$out/alter.txt" 2>&1
stop
if [ "${DROP:-0}" = 1 ]; then sync; echo 3 >/proc/sys/vm/drop_caches; fi
start
"$STRATA" bench ycsb run -P workloadc -p recordcount=1000000 -p operationcount=1000000000 \
  -p maxexecutiontime="$DUR" --threads 8 --server 127.0.0.1:26000 --timeseries 5 \
  >"$out/run.txt" 2>&1 &
client=$!
ticks0=$(awk '{print $14+$15}' "/proc/$pid/stat")
for i in $(seq 1 $((DUR / 2))); do
  sleep 2
  echo "$((i * 2)) s: $(curl -s 127.0.0.1:26080/metrics |
    grep -E '^strata_block_cache_(bytes|misses_total\{kind="data"\}) ' | tr '\n' ' ')" >>"$out/cache.txt"
done
wait "$client"
ticks1=$(awk '{print $14+$15}' "/proc/$pid/stat")
ops=$(grep -E '^\[READ\], Operations' "$out/run.txt" | awk -F', ' '{print $3}')
tenths=$(( (ticks1 - ticks0) * 100000 / ops ))
echo "PREFETCH_BLOCKS_ON_OPEN=$mode: $ops gets, server CPU $((tenths / 10)).$((tenths % 10)) us per get"
grep -E 'Throughput|READ-TS' "$out/run.txt" | head -4
head -3 "$out/cache.txt"; tail -1 "$out/cache.txt"
