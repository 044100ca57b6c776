#!/usr/bin/env bash
# Records the comparison transcript (strata.hbase.Transcript) against a running HBase 2.6
# into scripts/hbase-client/expected/transcript.txt, the expected output that
# scripts/hbase-client-test.sh diffs Strata's answers against.
#
#   scripts/hbase-client-transcript.sh [HOST:PORT]   # an HBase region server's RPC address
#                                                    # (default 127.0.0.1:16020, the peer's)
#
# HBase's peer (see the project's peer scripts) or any HBase 2.6 with a fresh state serves.
# Needs what scripts/hbase-client-test.sh needs (JDK 17, Maven; its jar cache).
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/strata/hbase-client"
if [ ! -f "$CACHE/lib/.done" ]; then
  echo "run scripts/hbase-client-test.sh once first (it fetches the client's jars)" >&2; exit 2
fi
CLASSES=$(mktemp -d)
trap 'rm -rf "$CLASSES"' EXIT
javac -nowarn -d "$CLASSES" -cp "$CACHE/lib/*" $(find scripts/hbase-client/src/main/java -name '*.java')
JFLAGS="-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true \
 --add-opens java.base/java.nio=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED \
 --add-opens java.base/java.lang=ALL-UNNAMED --add-exports java.base/jdk.internal.misc=ALL-UNNAMED"
OUT=scripts/hbase-client/expected/transcript.txt
timeout 600 java $JFLAGS -cp "$CLASSES:$CACHE/lib/*" strata.hbase.Transcript "${1:-127.0.0.1:16020}" >"$OUT.new" \
  2>"$CLASSES/client.log" || { tail -20 "$CLASSES/client.log" >&2; rm -f "$OUT.new"; exit 1; }
mv "$OUT.new" "$OUT"
echo "recorded $(grep -c '^== ' "$OUT") cases into $OUT"
