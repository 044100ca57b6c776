#!/usr/bin/env bash
# The memory tuner (RFC 0031) on a phased workload: write-heavy, then read-heavy over a
# working set larger than the default split's block cache but smaller than the whole memory
# budget, then write-heavy again. Each split runs on a fresh `strata standalone`, one after
# the other: the tuner on (starting from the default split), the default fixed split, and
# each fixed split of FIXED (the best of them is the "best fixed split").
#
#   ./scripts/bench-memory-tuner.sh
#   RECORDS=30000 DURATION=25 THREADS=4 ./scripts/bench-memory-tuner.sh
#   FIXED="16/36/4 24/28/4" ...   # fixed splits to try, memtables/block cache/row cache MiB
#   STRATA_BIN=path ...           # a given binary (no build)
#
# Settings: RECORDS (30000 rows of 10 × 100-byte fields, about 30 MiB), DURATION (25 s per
# phase), THREADS (4), SPLIT (32/16/8: the default split, memtables/block cache/row cache
# MiB, the CLI's default ratio of 4:2:1, 56 MiB in all), FIXED (fixed splits of the same sum
# to try), PERIOD_MS (1000: the tuner's period), PORT (16110) and HTTP_PORT (16111).
# Write-heavy phases are 95% updates of whole rows and 5% reads, the read-heavy phase 100%
# reads, both uniform over every row; the table does not use the row cache, so the row
# cache's share is the tuner's to move.
#
# Prints, per split, ops/s of each phase, the sizes (MiB) at each phase's end (from
# /metrics), and the ratio of the tuner's ops/s to the default and the best fixed split.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${RECORDS:=30000}" "${DURATION:=25}" "${THREADS:=4}" "${SPLIT:=32/16/8}"
: "${FIXED:=16/36/4 44/8/4}" "${PERIOD_MS:=1000}" "${PORT:=16110}" "${HTTP_PORT:=16111}"
: "${OUT:=data/bench-memory-tuner}"
. scripts/lib/toolchain.sh
release_strata
rm -rf "$OUT"; mkdir -p "$OUT"
server="127.0.0.1:$PORT"
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null || true' EXIT

# `M/B/R` → the three size flags.
size_flags() {
  local m b r
  IFS=/ read -r m b r <<< "$1"
  echo "--memtable-mib $m --block-cache-mib $b --row-cache-mib $r"
}

# memtables/block cache/row cache MiB now, from /metrics.
sizes_now() {
  curl -s "http://127.0.0.1:$HTTP_PORT/metrics" | awk '
    /^strata_memory_part_bytes\{part="memtables"\}/ {m=$2}
    /^strata_memory_part_bytes\{part="block_cache"\}/ {b=$2}
    /^strata_memory_part_bytes\{part="row_cache"\}/ {r=$2}
    END {printf "%.0f/%.0f/%.0f", m/1048576, b/1048576, r/1048576}'
}

ops() { grep -E '^\[OVERALL\], Throughput' "$1" | head -1 | awk -F', ' '{printf "%.0f", $3}'; }

phase() { # name file-prefix props...
  local name=$1 prefix=$2; shift 2
  "$STRATA" bench ycsb run -P workloada -p recordcount="$RECORDS" -p operationcount=1000000000 \
    -p maxexecutiontime="$DURATION" -p requestdistribution=uniform "$@" \
    --threads "$THREADS" --server "$server" > "$prefix-$name.txt"
  echo "$(ops "$prefix-$name.txt") $(sizes_now)" > "$prefix-$name.sum"
}

run_split() { # label extra-flags...
  local label=$1; shift
  local dir="$OUT/$label" prefix="$OUT/$label"
  echo "== $label: $*"
  # shellcheck disable=SC2068
  "$STRATA" standalone --data-dir "$dir-data" --listen "$server" --no-thrift --no-hbase-rpc \
    --http-listen "127.0.0.1:$HTTP_PORT" $@ > "$prefix.log" 2>&1 &
  pid=$!
  for _ in $(seq 200); do grep -q "serving on" "$prefix.log" 2>/dev/null && break; sleep 0.1; done
  grep -q "serving on" "$prefix.log" || { echo "strata standalone did not start:" >&2; cat "$prefix.log" >&2; exit 1; }
  "$STRATA" bench ycsb load -P workloada -p recordcount="$RECORDS" -p operationcount="$RECORDS" \
    --threads "$THREADS" --server "$server" > "$prefix-load.txt"
  echo "$(ops "$prefix-load.txt") $(sizes_now)" > "$prefix-load.sum"
  local writes=(-p readproportion=0.05 -p updateproportion=0.95 -p writeallfields=true)
  phase write1 "$prefix" "${writes[@]}"
  phase read "$prefix" -p readproportion=1 -p updateproportion=0
  phase write2 "$prefix" "${writes[@]}"
  grep -c "memory tuner moved memory" "$prefix.log" > "$prefix.moves" || true
  kill -TERM "$pid"; wait "$pid" || true; pid=""
  rm -rf "$dir-data"
}

labels=()
run_split tuner $(size_flags "$SPLIT") --memory-tuner --memory-tuner-period-ms "$PERIOD_MS"
labels+=(tuner)
run_split "default-${SPLIT//\//-}" $(size_flags "$SPLIT")
labels+=("default-${SPLIT//\//-}")
for s in $FIXED; do
  run_split "fixed-${s//\//-}" $(size_flags "$s")
  labels+=("fixed-${s//\//-}")
done

col() { awk '{print $1}' "$OUT/$1-$2.sum"; }
sz() { awk '{print $2}' "$OUT/$1-$2.sum"; }
{
  echo "$RECORDS records, $THREADS threads, ${DURATION}s per phase; sizes memtables/block cache/row cache MiB at each phase's end"
  echo
  echo "| split | load ops/s | write ops/s | read ops/s | write again ops/s | sum of the three phases | sizes after write / read / write again | moves |"
  echo "|---|---:|---:|---:|---:|---:|---|---:|"
  for l in "${labels[@]}"; do
    w1=$(col "$l" write1); r=$(col "$l" read); w2=$(col "$l" write2)
    moves=$(cat "$OUT/$l.moves" 2>/dev/null || echo 0)
    echo "| $l | $(col "$l" load) | $w1 | $r | $w2 | $((w1 + r + w2)) | $(sz "$l" write1) / $(sz "$l" read) / $(sz "$l" write2) | $moves |"
  done
  # The best fixed split: the highest sum of the three phases' ops/s among the fixed ones.
  best=""; best_sum=0
  for l in "${labels[@]:1}"; do
    s=$(( $(col "$l" write1) + $(col "$l" read) + $(col "$l" write2) ))
    if [ "$s" -gt "$best_sum" ]; then best=$l; best_sum=$s; fi
  done
  echo
  echo "| tuner ÷ | write | read | write again | sum |"
  echo "|---|---:|---:|---:|---:|"
  for l in "${labels[1]}" "$best"; do
    awk -v a="$(col tuner write1)" -v b="$(col "$l" write1)" \
        -v c="$(col tuner read)" -v d="$(col "$l" read)" \
        -v e="$(col tuner write2)" -v f="$(col "$l" write2)" -v l="$l" \
        'BEGIN {printf "| %s | %.2f | %.2f | %.2f | %.2f |\n", l, a/b, c/d, e/f, (a+c+e)/(b+d+f)}'
  done
  echo
  echo "best fixed split: $best"
} | tee "$OUT/summary.md"
