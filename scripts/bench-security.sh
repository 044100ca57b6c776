#!/usr/bin/env bash
# What security costs: YCSB A and C against `strata standalone` with security off, with TLS on
# every listener, and with mutual TLS plus access control (--auth), one configuration after the
# other on this machine (RFC 0024, RFC 0026). Prints one markdown table: ops/s, read and update
# p99, and the server's CPU per operation, each beside the plaintext run of the same round.
#
#   RECORDS=200000 THREADS=8 DURATION=30 ROUNDS=2 ./scripts/bench-security.sh
#   STRATA_BIN=path ...   # a given binary (no build)
#
# With --auth the workloads run as `ycsb`, a user with a grant of RW on usertable only (not a
# superuser, whom the checks let through at once), so every call is checked against the
# grants; the load runs as the superuser `admin`, which creates the table. Round 2 runs the
# configurations in the reverse order, so that a drift of the machine shows as a difference
# between the rounds rather than between the configurations.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${RECORDS:=200000}" "${THREADS:=8}" "${DURATION:=30}" "${ROUNDS:=2}"
: "${OUT:=data/bench-security}" "${PORT:=16140}"
. scripts/lib/toolchain.sh
release_strata
rm -rf "$OUT"; mkdir -p "$OUT"
CERTS="$OUT/certs"
"$STRATA" cert init "$CERTS" >/dev/null
"$STRATA" cert issue "$CERTS" --name server --ip 127.0.0.1 --dns localhost >/dev/null
for user in admin ycsb; do "$STRATA" cert issue "$CERTS" --name "$user" >/dev/null; done
hz=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14+$15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
server="127.0.0.1:$PORT"
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null || true' EXIT

# Server flags, and the client flags of the load (admin) and of the workloads, per configuration.
server_flags() {
  case "$1" in
    plain) ;;
    tls) echo "--tls-cert $CERTS/server.pem --tls-key $CERTS/server.key --tls-ca $CERTS/ca.pem" ;;
    auth) echo "--tls-cert $CERTS/server.pem --tls-key $CERTS/server.key --tls-ca $CERTS/ca.pem \
      --tls-client-ca $CERTS/ca.pem --auth --superuser admin" ;;
  esac
}
client_flags() { # config user
  case "$1" in
    plain) ;;
    tls) echo "--tls-ca $CERTS/ca.pem" ;;
    auth) echo "--tls-ca $CERTS/ca.pem --tls-client-cert $CERTS/$2.pem --tls-client-key $CERTS/$2.key" ;;
  esac
}

# One configuration: a fresh server, the load, then each workload; its reports in $OUT/$2-$1-*.
run_config() { # config round
  local config="$1" round="$2" data="$OUT/data-$1-$2" c0 wl
  # shellcheck disable=SC2046
  "$STRATA" standalone --data-dir "$data" --listen "$server" --no-thrift $(server_flags "$config") \
    >"$OUT/server-$config-$round.log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do grep -q "serving on" "$OUT/server-$config-$round.log" 2>/dev/null && break; sleep 0.1; done
  grep -q "serving on" "$OUT/server-$config-$round.log" || { cat "$OUT/server-$config-$round.log" >&2; exit 1; }
  # shellcheck disable=SC2046
  "$STRATA" bench ycsb load -P workloada -p recordcount="$RECORDS" -p operationcount="$RECORDS" \
    --threads "$THREADS" --server "$server" $(client_flags "$config" admin) >"$OUT/$round-$config-load.txt"
  if [ "$config" = auth ]; then
    # shellcheck disable=SC2046
    echo "grant 'ycsb', 'RW', 'usertable'" | "$STRATA" shell --server "$server" -n \
      $(client_flags "$config" admin) >/dev/null
  fi
  for wl in workloada workloadc; do
    c0=$(cpu_ticks "$pid")
    # shellcheck disable=SC2046
    "$STRATA" bench ycsb run -P "$wl" -p recordcount="$RECORDS" -p operationcount=1000000000 \
      -p maxexecutiontime="$DURATION" --threads "$THREADS" --server "$server" \
      $(client_flags "$config" ycsb) >"$OUT/$round-$config-$wl.txt"
    local ops
    ops=$(grep -E '^\[(READ|UPDATE)\], Operations' "$OUT/$round-$config-$wl.txt" | awk -F', ' '{s+=$3} END {print s+0}')
    awk -v c=$(($(cpu_ticks "$pid") - c0)) -v hz="$hz" -v ops="$ops" \
      'BEGIN { printf "[PEER], ServerCPUMicrosPerOp, %.1f\n", (ops > 0 ? c / hz * 1e6 / ops : 0) }' \
      >>"$OUT/$round-$config-$wl.txt"
  done
  kill -TERM "$pid"; wait "$pid" || true; pid=""
  rm -rf "$data"
}

field() { grep -E "^\[$2\], $3" "$1" | head -1 | awk -F', ' '{print $3}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
for ((r = 1; r <= ROUNDS; r++)); do
  order=(plain tls auth)
  [ $((r % 2)) = 0 ] && order=(auth tls plain)
  for c in "${order[@]}"; do
    echo "== round $r: $c" >&2
    run_config "$c" "$r"
  done
done
{
  echo "| round | workload | security | ops/s | read p99 µs | update p99 µs | server CPU µs/op | ops/s ÷ plain | CPU/op ÷ plain |"
  echo "|---|---|---|---:|---:|---:|---:|---:|---:|"
  for ((r = 1; r <= ROUNDS; r++)); do
    for wl in workloada workloadc; do
      base="$OUT/$r-plain-$wl.txt"
      for c in plain tls auth; do
        f="$OUT/$r-$c-$wl.txt"
        printf "| %s | %s | %s | %.0f | %s | %s | %s | %s | %s |\n" "$r" "$wl" \
          "$([ $c = auth ] && echo "mutual TLS + --auth" || echo "$c")" \
          "$(field "$f" OVERALL Throughput)" "$(field "$f" READ 99thPercentileLatency)" \
          "$(field "$f" UPDATE 99thPercentileLatency || true)" "$(field "$f" PEER ServerCPUMicrosPerOp)" \
          "$(ratio "$(field "$f" OVERALL Throughput)" "$(field "$base" OVERALL Throughput)")" \
          "$(ratio "$(field "$f" PEER ServerCPUMicrosPerOp)" "$(field "$base" PEER ServerCPUMicrosPerOp)")"
      done
    done
  done
} | tee "$OUT/summary.md"
