#!/usr/bin/env bash
# The HDFS test engine: a MiniDFSCluster (NameNode + DataNodes in one JVM, every listener on
# 127.0.0.1) whose DataNodes each have a DISK, SSD, RAM_DISK and ARCHIVE volume, so storage
# policies can be checked on real block locations.
#
#   scripts/hdfs.sh start    # idempotent; prints the root URL to use (hdfs://127.0.0.1:PORT)
#   scripts/hdfs.sh stop     # stops it (SIGTERM, then SIGKILL) and removes its data
#   scripts/hdfs.sh status
#   scripts/hdfs.sh install  # only installs (JDK and Maven from Debian when missing, as root;
#                            # the jars); prints the directory of the jars
#   scripts/hdfs.sh stop-datanode [N]     # stops DataNode N (default 0): its pipelines die mid-write
#   scripts/hdfs.sh restart-datanode [N]  # starts it again, same ports and volumes
#   scripts/hdfs.sh stop-namenode         # stops the NameNode (DataNodes keep running)
#   scripts/hdfs.sh restart-namenode      # starts it again, same ports and metadata
#   scripts/hdfs.sh safemode-enter        # the NameNode enters safe mode (refuses every change)
#   scripts/hdfs.sh safemode-leave        # and leaves it
#   scripts/hdfs.sh pause    # SIGSTOP of the whole JVM: every connection stays open and nothing
#                            # answers (a log store cut off without a reset)
#   scripts/hdfs.sh resume   # SIGCONT
#
# Settings: STRATA_HDFS_PORT (NameNode RPC, default 9000), STRATA_HDFS_HTTP_PORT (9870),
# STRATA_HDFS_DATANODES (1), STRATA_HDFS_REPLICATION (replicas per block, 1), STRATA_HDFS_DIR (state, default $TMPDIR/strata-hdfs).
# Needs Java 17 and Maven; the Hadoop jars (~100 MB) are cached in ~/.cache/strata/hdfs-lib.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/proc.sh
port="${STRATA_HDFS_PORT:-9000}"
http="${STRATA_HDFS_HTTP_PORT:-9870}"
datanodes="${STRATA_HDFS_DATANODES:-1}"
replication="${STRATA_HDFS_REPLICATION:-1}"
state="${STRATA_HDFS_DIR:-${TMPDIR:-/tmp}/strata-hdfs}"
cache="${STRATA_CACHE_DIR:-$HOME/.cache/strata}/hdfs-lib"
pidfile="$state/minidfs.pid"
ready="$state/ready.json"

running() { [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }

# JDK 17 and Maven from Debian when missing (as root, as CI runs), as hbase-client-test.sh does.
ensure_java() {
  command -v javac >/dev/null 2>&1 && command -v mvn >/dev/null 2>&1 && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "hdfs.sh: installing openjdk-17-jdk-headless and maven with apt-get" >&2
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jdk-headless maven; } >/dev/null
  fi
  command -v javac >/dev/null 2>&1 || { echo "hdfs.sh: needs Java 17 and Maven (apt-get install openjdk-17-jdk-headless maven)" >&2; return 2; }
}

install() {
  ensure_java
  if [ ! -f "$cache/.complete" ]; then
    echo "hdfs.sh: fetching hadoop-client-minicluster into $cache" >&2
    mkdir -p "$cache/pom"
    cp scripts/hdfs/pom.xml "$cache/pom/pom.xml"
    (cd "$cache/pom" && mvn -B -q dependency:copy-dependencies -DoutputDirectory="$cache/lib") >&2
    touch "$cache/.complete"
  fi
  if [ ! -f "$cache/classes/MiniDfs.class" ] || [ scripts/hdfs/MiniDfs.java -nt "$cache/classes/MiniDfs.class" ]; then
    mkdir -p "$cache/classes"
    javac -nowarn -d "$cache/classes" -cp "$cache/lib/*" scripts/hdfs/MiniDfs.java >&2
  fi
}

start() {
  if running && [ -f "$ready" ]; then
    echo "hdfs://127.0.0.1:$port"
    return 0
  fi
  stop >/dev/null 2>&1 || true
  install
  # The JVM's temporary files (Jetty's web-app directories, one per start) stay in the state
  # directory, so `stop` removes them with it instead of leaving one in $TMPDIR per start.
  mkdir -p "$state/tmp"
  rm -f "$ready"
  nohup java -Xmx768m -Djava.io.tmpdir="$state/tmp" -cp "$cache/classes:$cache/lib/*" MiniDfs "$state/data" "$port" "$http" \
    "$datanodes" "$ready" "$replication" >"$state/minidfs.log" 2>&1 &
  echo $! >"$pidfile"
  for _ in $(seq 1 240); do
    if [ -f "$ready" ]; then
      echo "hdfs://127.0.0.1:$port"
      return 0
    fi
    if ! running; then
      echo "hdfs.sh: MiniDFSCluster exited; last lines of $state/minidfs.log:" >&2
      tail -20 "$state/minidfs.log" >&2
      return 1
    fi
    sleep 0.5
  done
  echo "hdfs.sh: MiniDFSCluster not ready after 120 s; see $state/minidfs.log" >&2
  stop >/dev/null 2>&1 || true
  return 1
}

stop() {
  stop_pidfile "$pidfile" 10
  rm -rf "$state"
}

# Sends a command to the running launcher and waits (60 s at most) for its answer.
datanode() {
  running && [ -f "$ready" ] || { echo "hdfs.sh: not running" >&2; return 1; }
  rm -f "$ready.done"
  echo "$1 ${2:-0}" >"$ready.cmd.tmp"
  mv "$ready.cmd.tmp" "$ready.cmd"
  for _ in $(seq 1 600); do
    if [ -f "$ready.done" ]; then
      answer="$(cat "$ready.done")"
      rm -f "$ready.done"
      [ "$answer" = ok ] && return 0
      echo "hdfs.sh: $1: $answer" >&2
      return 1
    fi
    sleep 0.1
  done
  echo "hdfs.sh: $1 not done after 60 s; see $state/minidfs.log" >&2
  return 1
}

case "${1:-}" in
  start) start ;;
  install) install && echo "$cache/lib" ;;
  stop) stop ;;
  stop-datanode | restart-datanode | stop-namenode | restart-namenode | safemode-enter | safemode-leave)
    datanode "$1" "${2:-}" ;;
  pause | resume)
    running || { echo "hdfs.sh: not running" >&2; exit 1; }
    if [ "$1" = pause ]; then kill -STOP "$(cat "$pidfile")"; else kill -CONT "$(cat "$pidfile")"; fi
    ;;
  status) if running && [ -f "$ready" ]; then echo "running: hdfs://127.0.0.1:$port (http 127.0.0.1:$http)"; else echo "stopped"; exit 1; fi ;;
  *) echo "usage: $0 start|stop|status|install|stop-datanode [N]|restart-datanode [N]|stop-namenode|restart-namenode|safemode-enter|safemode-leave|pause|resume" >&2; exit 2 ;;
esac
