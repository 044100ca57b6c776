# Shared by the test-engine scripts (hdfs.sh, s3.sh). Source it; do not run it.

# stop_pidfile PIDFILE SECONDS: sends SIGTERM to the process named in PIDFILE, waits up to
# SECONDS for it to exit, then sends SIGKILL. Does nothing if PIDFILE is missing.
stop_pidfile() {
  local pidfile="$1" seconds="$2" pid
  [ -f "$pidfile" ] || return 0
  pid="$(cat "$pidfile")"
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 $((seconds * 2))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  kill -9 "$pid" 2>/dev/null || true
}
