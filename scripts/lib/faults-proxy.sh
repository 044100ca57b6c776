# Sourced by scripts/faults.sh (RFC 0021): a slow link through Toxiproxy (this kernel has no
# netem), with the harness's helpers (ip_of, in_host, spawn, log, WORK, SEED). Do not run it.
#
# rs1 announces port 16021 of its address, where a Toxiproxy on its host listens and forwards
# to the server's own 16020: every client, the master and the other servers reach rs1 through
# it. Its API listens on the host's loopback only. A fault adds toxics (latency, resets, a thin
# or stalled link), healed by removing them.

PROXIED=rs1
PROXY_PORT=16021

# proxy_start BINARY: starts Toxiproxy on rs1's host with its one proxy; waits for its API.
proxy_start() {
  local bin="$1" start=$SECONDS
  printf '[{"name":"%s","listen":"%s:%s","upstream":"127.0.0.1:16020","enabled":true}]\n' \
    "$PROXIED" "$(ip_of "$PROXIED")" "$PROXY_PORT" >"$WORK/toxiproxy.json"
  # Its jitter drawn from the run's seed.
  spawn "$PROXIED" toxiproxy "$bin" -host 127.0.0.1 -port 8474 -config "$WORK/toxiproxy.json" \
    -seed "$SEED"
  until proxy_api GET /proxies >/dev/null 2>&1; do
    if [ $((SECONDS - start)) -ge 20 ]; then
      log "Toxiproxy did not start:"
      tail -5 "$WORK/toxiproxy.log" >&2
      return 1
    fi
    sleep 0.2
  done
}

# proxy_api METHOD PATH [JSON]
proxy_api() {
  in_host "$PROXIED" curl -sf -X "$1" "http://127.0.0.1:8474$2" ${3:+-H 'Content-Type: application/json' -d "$3"}
}

# proxy_toxic TYPE ATTRIBUTES: a Toxiproxy toxic of TYPE (latency, reset_peer, bandwidth,
# timeout) in both directions of rs1's link, named after its type; healed by proxy_heal.
PROXY_TOXICS=(latency reset_peer bandwidth timeout)
proxy_toxic() {
  local dir
  for dir in upstream downstream; do
    proxy_api POST "/proxies/$PROXIED/toxics" \
      "{\"name\":\"$1-$dir\",\"type\":\"$1\",\"stream\":\"$dir\",\"attributes\":$2}" >/dev/null
  done
}

# The slow link: each direction's data waits 1 s ± 1 s, so that a round trip takes 0-4 s,
# around the clients' 2 s per attempt.
proxy_slow() { proxy_toxic latency '{"latency":1000,"jitter":1000}'; }
# Every connection through the link is reset (TCP RST) 300 ms after it opens: requests cut
# mid-way, in both directions, and reconnections cut again.
proxy_reset() { proxy_toxic reset_peer '{"timeout":300}'; }
# A thin link: 16 KB/s each way.
proxy_thin() { proxy_toxic bandwidth '{"rate":16}'; }
# A stalled link: nothing gets through, and each connection is closed after 3 s of it.
proxy_stall() { proxy_toxic timeout '{"timeout":3000}'; }

proxy_heal() {
  local dir t
  for t in "${PROXY_TOXICS[@]}"; do
    for dir in upstream downstream; do
      proxy_api DELETE "/proxies/$PROXIED/toxics/$t-$dir" >/dev/null 2>&1 || true
    done
  done
}
