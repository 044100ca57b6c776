#!/usr/bin/env bash
# Records the HBase RPC wire fixture: the bytes of real exchanges between the unchanged Java
# hbase-client 2.6 and a real HBase 2.6 server (connection preambles and headers, registry
# calls, meta lookups, a Put, a Get, a Scan, and a TableExistsException), written to
# crates/hbase-rpc/tests/fixtures/hbase-2.6/ and decoded by crates/hbase-rpc/tests/hbase_fixture.rs
# with Strata's own codec. Needs root (a raw packet socket on the loopback interface).
#
#   HBASE_PEER=/path/to/hbase-harness ./scripts/hbase-wire-fixture.sh
#
# The harness (setup.sh, start.sh, stop.sh, env.sh) must start HBase with its master on
# MASTER_PORT (16000) and region server on RS_PORT (16020), bound to 127.0.0.1. The client's
# jars are those of scripts/hbase-client-test.sh (its cache), fetched with `mvn` if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${HBASE_PEER:?set HBASE_PEER to an HBase standalone harness directory}"
HBASE_PEER=$(cd "$HBASE_PEER" && pwd)
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/strata/hbase-client"
FIXTURE=crates/hbase-rpc/tests/fixtures/hbase-2.6
if [ ! -f "$CACHE/lib/.done" ]; then
  mkdir -p "$CACHE"
  timeout 900 mvn -B -q -f scripts/hbase-client/pom.xml dependency:copy-dependencies \
    -DoutputDirectory="$CACHE/lib" > "$CACHE/mvn.log" 2>&1
  cksum < scripts/hbase-client/pom.xml > "$CACHE/lib/.done"
fi
eval "$(cd "$HBASE_PEER" && . ./env.sh && declare -p MASTER_PORT RS_PORT)"
WORK=$(mktemp -d)
SNIFF=
cleanup() {
  [ -n "$SNIFF" ] && kill "$SNIFF" 2>/dev/null || true
  ( cd "$HBASE_PEER" && ./stop.sh > /dev/null 2>&1 ) || true
  rm -rf "$WORK"
}
trap cleanup EXIT
javac -nowarn -d "$WORK/classes" -cp "$CACHE/lib/*" scripts/hbase-wire-fixture/src/strata/hbase/WireFixture.java
( cd "$HBASE_PEER" && ./setup.sh > /dev/null && ./start.sh > /dev/null )
python3 scripts/hbase-wire-fixture/sniff.py "$WORK/streams" "$MASTER_PORT" "$RS_PORT" &
SNIFF=$!
sleep 1
JFLAGS="-Djava.net.preferIPv4Stack=true -Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true \
 --add-opens java.base/java.nio=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED \
 --add-opens java.base/java.lang=ALL-UNNAMED --add-exports java.base/jdk.internal.misc=ALL-UNNAMED"
# shellcheck disable=SC2086
timeout 300 java $JFLAGS -cp "$WORK/classes:$CACHE/lib/*" strata.hbase.WireFixture "127.0.0.1:$RS_PORT"
sleep 1
kill -TERM "$SNIFF"; wait "$SNIFF" || true; SNIFF=
rm -rf "$FIXTURE"; mkdir -p "$FIXTURE"
cp "$WORK"/streams/*.bin "$FIXTURE/"
ls -l "$FIXTURE"
