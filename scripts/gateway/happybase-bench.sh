#!/usr/bin/env bash
# Single-client happybase throughput through a Thrift1 gateway: puts/s (table.put of one
# 100-byte cell), gets/s (table.row of a random loaded row) and batch puts/s (table.batch of
# 1000). Against Strata (built here, started on free ports) unless THRIFT_PORT names a running
# gateway (e.g. HBase's). STRATA=path/to/strata runs that binary instead of building one.
#
#   scripts/gateway/happybase-bench.sh            # N=20000 by default
#   THRIFT_PORT=9090 scripts/gateway/happybase-bench.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
N="${N:-20000}"
VENV="${XDG_CACHE_HOME:-$HOME/.cache}/strata/happybase-venv"
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import happybase" 2>/dev/null; then
  python3 -m venv "$VENV"; "$VENV/bin/pip" install -q happybase==1.3.0 pytest
fi
PORT="${THRIFT_PORT:-}"
if [ -z "$PORT" ]; then
  if [ -z "${STRATA:-}" ]; then
    cargo build --release -q -p strata-cli --bin strata
    STRATA="${CARGO_TARGET_DIR:-$PWD/target}/release/strata"
  fi
  free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
  PORT=$(free_port); GRPC=$(free_port); DATA=$(mktemp -d)
  "$STRATA" standalone --data-dir "$DATA" --listen "127.0.0.1:$GRPC" --thrift-listen "127.0.0.1:$PORT" >"$DATA.log" 2>&1 &
  PID=$!
  trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$DATA" "$DATA.log"' EXIT
  for _ in $(seq 100); do grep -q "Thrift1 gateway on" "$DATA.log" && break; sleep 0.1; done
fi
"$VENV/bin/python" - "$PORT" "$N" <<'PY'
import random, sys, time, happybase
port, n = int(sys.argv[1]), int(sys.argv[2])
c = happybase.Connection('127.0.0.1', port)
name = b'gateway_bench'
if name in c.tables():
    c.delete_table(name, disable=True)
c.create_table(name, {'f': dict(max_versions=1, block_cache_enabled=True)})
t = c.table(name)
value = b'x' * 100
keys = [b'user%010d' % i for i in range(n)]
t0 = time.time()
for k in keys:
    t.put(k, {b'f:c': value})
puts = n / (time.time() - t0)
random.seed(7)
t0 = time.time()
for _ in range(n):
    assert t.row(random.choice(keys))
gets = n / (time.time() - t0)
t0 = time.time()
with t.batch(batch_size=1000) as b:
    for k in keys:
        b.put(k + b'b', {b'f:c': value})
batch = n / (time.time() - t0)
t0 = time.time()
rows = sum(1 for _ in t.scan(batch_size=1000))
scan = rows / (time.time() - t0)
print("happybase, 1 client, %d ops each: %.0f puts/s, %.0f gets/s, %.0f batched puts/s, %.0f scanned rows/s"
      % (n, puts, gets, batch, scan))
c.delete_table(name, disable=True)
PY
