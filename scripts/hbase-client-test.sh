#!/usr/bin/env bash
# Runs the HBase Java client compatibility test (scripts/hbase-client: hbase-client 2.6 from
# Maven Central, nothing else) against `strata standalone` and its HBase RPC listener.
#
#   scripts/hbase-client-test.sh          # exits with the test program's status
#   STRATA_HBASE_CLIENT_CLUSTER=1 STRATA_ETCD_ENDPOINTS=127.0.0.1:2379 scripts/hbase-client-test.sh
#                                         # the same client against a 1 master + 2 RS cluster
#   STRATA_STANDALONE_FLAGS="--memtable-mib 16" scripts/hbase-client-test.sh
#                                         # standalone with more flags
#   STRATA_HBASE_CLIENT_TLS=1 scripts/hbase-client-test.sh   # (then access control, AclTest,
#                                         # and the access matrix, MatrixTest)
#                                         # TLS: a test CA from `strata cert`, the client with
#                                         # hbase.client.netty.tls.enabled (strata.hbase.TlsTest)
#   STRATA_HBASE_CLIENT_KERBEROS=1 scripts/hbase-client-test.sh
#                                         # Kerberos: a throwaway KDC (scripts/kdc.sh), the
#                                         # server with --auth --kerberos-keytab, the client
#                                         # with hbase.security.authentication=kerberos
#                                         # (strata.hbase.KerberosTest), then the Rust tests of
#                                         # the handshake against the same KDC
#
# Needs JDK 17 (javac) and Maven; the client's jars are fetched once with `mvn` into
# ${XDG_CACHE_HOME:-~/.cache}/strata/hbase-client (re-fetched when the pom changes), so later
# runs work offline. The whole run is bounded by `timeout`; the server is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/strata/hbase-client"
POM=scripts/hbase-client/pom.xml
mkdir -p "$CACHE"
if ! command -v javac >/dev/null || ! command -v mvn >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq && apt-get install -y -qq openjdk-17-jdk-headless maven >/dev/null
  else
    echo "javac or mvn is missing: install JDK 17 and Maven" >&2; exit 2
  fi
fi

# --- Java side: the client's jars (cached by the pom's checksum) and the test program.
SUM=$(cksum < "$POM")
if [ ! -f "$CACHE/lib/.done" ] || [ "$(cat "$CACHE/lib/.done")" != "$SUM" ]; then
  rm -rf "$CACHE/lib"
  timeout 900 mvn -B -q -f "$POM" dependency:copy-dependencies -DoutputDirectory="$CACHE/lib" \
    >"$CACHE/mvn.log" 2>&1 || { tail -30 "$CACHE/mvn.log" >&2; exit 1; }
  echo "$SUM" > "$CACHE/lib/.done"
fi
rm -rf "$CACHE/classes"; mkdir -p "$CACHE/classes"
javac -nowarn -d "$CACHE/classes" -cp "$CACHE/lib/*" \
  $(find scripts/hbase-client/src/main/java -name '*.java')

# --- Strata side: build, start standalone on free ports (HBase RPC on its own).
. scripts/lib/toolchain.sh
debug_strata
# The client's JVM flags for JDK 17 (its shaded netty reflects into java.nio).
JFLAGS="-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true \
 --add-opens java.base/java.nio=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED \
 --add-opens java.base/java.lang=ALL-UNNAMED --add-exports java.base/jdk.internal.misc=ALL-UNNAMED"
. scripts/lib/hbase-transcript.sh
# STRATA_HBASE_CLIENT_CLUSTER=1: against a cluster of one master and two region servers
# instead (scripts/lib/hbase-client-cluster.sh; needs etcd at STRATA_ETCD_ENDPOINTS).
if [ "${STRATA_HBASE_CLIENT_CLUSTER:-0}" = 1 ]; then . scripts/lib/hbase-client-cluster.sh; fi
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
GRPC_PORT=$(free_port)
HBASE_PORT=$(free_port)
DATA=$(mktemp -d)
LOG="$DATA.log"
start_server() {
  STRATA_HBASE_RPC_TRACE="${STRATA_HBASE_RPC_TRACE:-0}" "$STRATA" standalone --data-dir "$DATA" \
    --listen "127.0.0.1:$GRPC_PORT" --no-thrift --hbase-rpc-listen "127.0.0.1:$HBASE_PORT" \
    ${STRATA_STANDALONE_FLAGS:-} >>"$LOG" 2>&1 &
  PID=$!
  for _ in $(seq 200); do
    [ "$(grep -c "HBase RPC on" "$LOG" 2>/dev/null)" -ge "$1" ] && return 0
    kill -0 "$PID" 2>/dev/null || { echo "strata standalone failed to start:" >&2; cat "$LOG" >&2; exit 1; }
    sleep 0.1
  done
  echo "strata standalone did not start in 20 s" >&2; exit 1
}
PID=
READY="$DATA.restarted"
KDC_DIR=
cleanup() {
  [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null || true
  if [ -n "$KDC_DIR" ]; then STRATA_KDC_DIR="$KDC_DIR" "$ROOT/scripts/kdc.sh" stop || true; fi
  if [ "${KEEP_LOG:-0}" = 1 ]; then echo "server log: $LOG"; else rm -f "$LOG"; fi
  rm -rf "$DATA" "$READY" "${OUT:-}"
}
trap cleanup EXIT
if [ "${STRATA_HBASE_CLIENT_TLS:-0}" = 1 ]; then
  # TLS on every listener, with a certificate for 127.0.0.1 from a test CA; the client is
  # configured as against HBase 2.6 with TLS (strata.hbase.TlsTest), then tried without.
  # Then again with client certificates required (--tls-client-ca), the client presenting
  # one from a PEM key store (its certificate and key in one file).
  CERTS="$DATA.certs"
  "$STRATA" cert init "$CERTS" >/dev/null
  "$STRATA" cert issue "$CERTS" --name server --ip 127.0.0.1 --dns localhost >/dev/null
  "$STRATA" cert issue "$CERTS" --name client >/dev/null
  cat "$CERTS/client.pem" "$CERTS/client.key" > "$CERTS/client-keystore.pem"
  FLAGS="${STRATA_STANDALONE_FLAGS:-}"
  STRATA_STANDALONE_FLAGS="$FLAGS --tls-cert $CERTS/server.pem --tls-key $CERTS/server.key \
    --tls-ca $CERTS/ca.pem"
  start_server 1
  status=0
  timeout "${HBASE_CLIENT_TEST_TIMEOUT:-300}" java $JFLAGS -cp "$CACHE/classes:$CACHE/lib/*" \
    strata.hbase.TlsTest "127.0.0.1:$HBASE_PORT" "$CERTS/ca.pem" || status=$?
  kill "$PID"; wait "$PID" 2>/dev/null || true
  STRATA_STANDALONE_FLAGS="$STRATA_STANDALONE_FLAGS --tls-client-ca $CERTS/ca.pem"
  start_server 2
  timeout "${HBASE_CLIENT_TEST_TIMEOUT:-300}" java $JFLAGS -cp "$CACHE/classes:$CACHE/lib/*" \
    strata.hbase.TlsTest "127.0.0.1:$HBASE_PORT" "$CERTS/ca.pem" "$CERTS/client-keystore.pem" \
    || status=$?
  kill "$PID"; wait "$PID" 2>/dev/null || true
  # Access control (RFC 0026): --auth, the superuser admin and alice, each with a key store.
  for user in admin alice; do
    "$STRATA" cert issue "$CERTS" --name "$user" >/dev/null
    cat "$CERTS/$user.pem" "$CERTS/$user.key" > "$CERTS/$user-keystore.pem"
  done
  STRATA_STANDALONE_FLAGS="$STRATA_STANDALONE_FLAGS --auth --superuser admin"
  start_server 3
  timeout "${HBASE_CLIENT_TEST_TIMEOUT:-300}" java $JFLAGS -cp "$CACHE/classes:$CACHE/lib/*" \
    strata.hbase.AclTest "127.0.0.1:$HBASE_PORT" "$CERTS/ca.pem" "$CERTS/admin-keystore.pem" \
    "$CERTS/alice-keystore.pem" || status=$?
  # The access matrix (strata.hbase.MatrixTest): operation x grant scope x permission, the
  # cases derived by crates/cli/tests/acl_matrix from its one table of what HBase's
  # AccessController asks, run as alice on the same server.
  CASES="$CERTS/matrix-cases.jsonl"
  STRATA_ACL_MATRIX_CASES="$CASES" workspace_test strata-cli acl_matrix \
    cases_of_the_java_client >/dev/null || status=$?
  timeout "${HBASE_CLIENT_TEST_TIMEOUT:-300}" java $JFLAGS -cp "$CACHE/classes:$CACHE/lib/*" \
    strata.hbase.MatrixTest "127.0.0.1:$HBASE_PORT" "$CERTS/ca.pem" "$CERTS/admin-keystore.pem" \
    "$CERTS/alice-keystore.pem" alice "$CASES" || status=$?
  rm -rf "$CERTS"
  if [ "$status" != 0 ]; then
    echo "--- strata server log (last 40 lines)"; tail -40 "$LOG"
  fi
  exit "$status"
fi
if [ "${STRATA_HBASE_CLIENT_KERBEROS:-0}" = 1 ]; then
  # Kerberos (RFC 0026): realm STRATA.TEST with the service principal hbase/localhost and the
  # users' keytabs, OTHER.TEST trusting it; carol's ticket lives 12 s (the expired ticket).
  KDC_DIR="$DATA.kdc"
  STRATA_KDC_DIR="$KDC_DIR" ./scripts/kdc.sh start >/dev/null
  eval "$(STRATA_KDC_DIR="$KDC_DIR" ./scripts/kdc.sh env)"
  CAROL_CACHE="$KDC_DIR/carol.ccache"
  KRB5CCNAME="FILE:$CAROL_CACHE" kinit -l 12s -k -t "$KDC_DIR/carol.keytab" \
    "carol@$STRATA_KDC_REALM"
  CAROL_EXPIRES=$(( $(date +%s) + 12 ))
  STRATA_STANDALONE_FLAGS="${STRATA_STANDALONE_FLAGS:-} --auth --superuser admin \
    --kerberos-keytab $STRATA_KDC_SERVICE_KEYTAB \
    --kerberos-principal hbase/_HOST@$STRATA_KDC_REALM"
  start_server 1
  status=0
  timeout "${HBASE_CLIENT_TEST_TIMEOUT:-300}" java $JFLAGS \
    -Djava.security.krb5.conf="$KRB5_CONFIG" -cp "$CACHE/classes:$CACHE/lib/*" \
    strata.hbase.KerberosTest "127.0.0.1:$HBASE_PORT" "$STRATA_KDC_REALM" "$KDC_DIR" \
    "$CAROL_CACHE" "$CAROL_EXPIRES" || status=$?
  if [ "$status" != 0 ]; then
    echo "--- strata server log (last 40 lines)"; tail -40 "$LOG"
  fi
  # The handshake from Rust against the same KDC: a replayed authenticator, bad bytes.
  timeout "${HBASE_CLIENT_TEST_TIMEOUT:-300}" bash -c '. scripts/lib/toolchain.sh; workspace_test strata-hbase-rpc kerberos' \
    || status=$?
  exit "$status"
fi
# Space quotas are decided every 300 ms here (strata.hbase.SpaceQuotaTest waits on them).
STRATA_STANDALONE_FLAGS="${STRATA_STANDALONE_FLAGS:-} --space-quota-period-ms 300"
start_server 1

# The program asks for a restart midway (a line RESTART-SERVER); the server is stopped
# gracefully and started again on the same directory and ports while the client keeps its
# connection object.
OUT=$(mktemp)
timeout "${HBASE_CLIENT_TEST_TIMEOUT:-300}" java $JFLAGS -cp "$CACHE/classes:$CACHE/lib/*" \
  strata.hbase.ClientTest "127.0.0.1:$HBASE_PORT" "$READY" >"$OUT" 2>&1 &
JAVA=$!
restarted=0
while kill -0 "$JAVA" 2>/dev/null; do
  if [ "$restarted" = 0 ] && grep -q "^RESTART-SERVER" "$OUT"; then
    kill "$PID"; wait "$PID" 2>/dev/null || true
    start_server 2
    touch "$READY"
    restarted=1
  fi
  sleep 0.2
done
status=0
wait "$JAVA" || status=$?
grep -v "^RESTART-SERVER" "$OUT"
# Namespaces (strata.hbase.NamespaceTest) against the same server, after the client test.
timeout "${HBASE_CLIENT_TEST_TIMEOUT:-300}" java $JFLAGS -cp "$CACHE/classes:$CACHE/lib/*" \
  strata.hbase.NamespaceTest "127.0.0.1:$HBASE_PORT" || status=$?
# Throttles (strata.hbase.QuotaTest, RFC 0029): Admin.setQuota, the client backing off.
timeout "${HBASE_CLIENT_TEST_TIMEOUT:-300}" java $JFLAGS -cp "$CACHE/classes:$CACHE/lib/*" \
  strata.hbase.QuotaTest "127.0.0.1:$HBASE_PORT" || status=$?
# Space quotas (strata.hbase.SpaceQuotaTest, RFC 0029): limitTableSpace, SpaceLimitingException.
timeout "${HBASE_CLIENT_TEST_TIMEOUT:-300}" java $JFLAGS -cp "$CACHE/classes:$CACHE/lib/*" \
  strata.hbase.SpaceQuotaTest "127.0.0.1:$HBASE_PORT" || status=$?
# The comparison transcript, diffed against HBase 2.6's (scripts/lib/hbase-transcript.sh).
run_transcript "127.0.0.1:$HBASE_PORT" || status=1
if [ "$status" != 0 ]; then
  echo "--- strata server log (last 40 lines)"; tail -40 "$LOG"
fi
exit "$status"
