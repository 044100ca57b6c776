# The cluster mode of scripts/hbase-client-test.sh (STRATA_HBASE_CLIENT_CLUSTER=1); sourced by
# it once the Java side is built ($CACHE, $JFLAGS, $STRATA set). Needs etcd at
# STRATA_ETCD_ENDPOINTS. Starts one `strata master` and two `strata regionserver`s with their
# HBase RPC listeners on a local shared root, creates a table pre-split in three, and runs
# strata.hbase.ClusterTest, which bootstraps from the region servers, reads and writes across
# them, and asks for a region to be moved (done here with `strata cluster move`) to check that
# the client re-locates it. Then strata.hbase.ClusterAdminTest bootstraps from the masters'
# HBase RPC listeners (an active and a standby master): Admin's table lifecycle with split
# keys, families, a region split and a merge, truncate, namespaces, getClusterMetrics(),
# partial results and heartbeats (the region servers' scan time limit is set low). Everything is stopped on exit; each Java
# run is bounded by `timeout`.

: "${STRATA_ETCD_ENDPOINTS:?cluster mode needs etcd: set STRATA_ETCD_ENDPOINTS (scripts/etcd.sh)}"
CLUSTER="hbase-client-$$-$(date +%s)"
CDIR=$(mktemp -d)
COORD=(--etcd "$STRATA_ETCD_ENDPOINTS" --cluster "$CLUSTER")
PIDS=()
cluster_cleanup() {
  "$STRATA" cluster drop-table "${COORD[@]}" client_cluster >/dev/null 2>&1 || true
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  if [ "${KEEP_LOG:-0}" = 1 ]; then echo "logs in $CDIR"; else rm -rf "$CDIR"; fi
}
trap cluster_cleanup EXIT
wait_line() { # file, text: waits up to 30 s for a line of the file containing text
  for _ in $(seq 300); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "no '$2' in $1 after 30 s:" >&2; cat "$1" >&2; exit 1
}
# Two masters (the first becomes active), each with an HBase RPC listener; their advertised
# addresses only name them (distinct, as the registry tells them apart by it).
MASTERS=()
for i in 0 1; do
  "$STRATA" master "${COORD[@]}" --ttl 2 --root "$CDIR/root" --advertise "127.0.0.1:1600$i" \
    --hbase-rpc 127.0.0.1:0 >"$CDIR/master$i.log" 2>&1 &
  PIDS+=($!)
  wait_line "$CDIR/master$i.log" "HBase RPC on"
  [ "$i" = 0 ] && wait_line "$CDIR/master0.log" "active"
  MASTERS+=("$(grep -o 'HBase RPC on [0-9.:]*' "$CDIR/master$i.log" | awk '{print $4}')")
done
BOOT=()
for i in 0 1; do
  "$STRATA" regionserver "${COORD[@]}" --ttl 2 --root "$CDIR/root" --listen 127.0.0.1:0 \
    --hbase-rpc 127.0.0.1:0 --hbase-rpc-scan-time-limit-ms 20 --memtable-mib 32 \
    --block-cache-mib 8 >"$CDIR/rs$i.log" 2>&1 &
  PIDS+=($!)
  wait_line "$CDIR/rs$i.log" "HBase RPC on"
  BOOT+=("$(grep -o 'HBase RPC on [0-9.:]*' "$CDIR/rs$i.log" | awk '{print $4}')")
done
"$STRATA" cluster create-table "${COORD[@]}" client_cluster --splits r100,r200 --families f \
  >"$CDIR/create.log" 2>&1 || { cat "$CDIR/create.log" >&2; exit 1; }
for _ in $(seq 300); do
  [ "$("$STRATA" cluster status "${COORD[@]}" | grep -c '^regions: 3 open')" = 1 ] && break
  sleep 0.1
done
OUT="$CDIR/client.out"
READY="$CDIR/moved"
timeout "${HBASE_CLIENT_TEST_TIMEOUT:-180}" java $JFLAGS -cp "$CACHE/classes:$CACHE/lib/*" \
  strata.hbase.ClusterTest "$(IFS=,; echo "${BOOT[*]}")" client_cluster "$READY" >"$OUT" 2>&1 &
JAVA=$!
moved=0
while kill -0 "$JAVA" 2>/dev/null; do
  if [ "$moved" = 0 ] && grep -q "^MOVE-REGION" "$OUT"; then
    read -r _ region _ code < <(grep "^MOVE-REGION" "$OUT")
    target=$("$STRATA" cluster status "${COORD[@]}" | grep -o "[0-9.]*:[0-9]*:$code" | head -1)
    "$STRATA" cluster move "${COORD[@]}" "$region" --to "$target" >>"$CDIR/move.log" 2>&1 || true
    for _ in $(seq 300); do
      "$STRATA" cluster status "${COORD[@]}" | grep -q "in progress; settled" && break
      sleep 0.1
    done
    touch "$READY"
    moved=1
  fi
  sleep 0.2
done
status=0
wait "$JAVA" || status=$?
grep -v "^MOVE-REGION" "$OUT"
if [ "$status" = 0 ]; then
  timeout "${HBASE_CLIENT_TEST_TIMEOUT:-180}" java $JFLAGS -cp "$CACHE/classes:$CACHE/lib/*" \
    strata.hbase.ClusterAdminTest "$(IFS=,; echo "${MASTERS[*]}")" "${MASTERS[1]}" 2 || status=$?
fi
# The comparison transcript against the cluster, bootstrapping from its region servers.
if [ "$status" = 0 ]; then
  run_transcript "$(IFS=,; echo "${BOOT[*]}")" || status=1
fi
if [ "$status" != 0 ]; then
  for f in "$CDIR"/*.log; do echo "--- $f (last 20 lines)"; tail -20 "$f"; done
fi
exit "$status"
