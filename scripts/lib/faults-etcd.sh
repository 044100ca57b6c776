# Sourced by scripts/faults.sh (RFC 0021): etcd as three members, each on its own host
# (etcd1..etcd3), with the harness's helpers (ip_of, in_host, spawn, WORK). Do not run it.

ETCD_MEMBERS=(etcd1 etcd2 etcd3)

# Installs Debian's etcd (server and client) when missing, as scripts/etcd.sh does.
ensure_etcd() {
  command -v etcd >/dev/null 2>&1 && command -v etcdctl >/dev/null 2>&1 && return 0
  if command -v apt-get >/dev/null 2>&1; then
    echo "installing etcd-server and etcd-client with apt-get" >&2
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq etcd-server etcd-client; } >/dev/null
  fi
  command -v etcd >/dev/null 2>&1 || { echo "faults.sh: needs etcd (apt-get install etcd-server etcd-client)" >&2; return 2; }
}

# The client endpoints, comma-separated: what every Strata process is given.
etcd_endpoints() {
  local h eps=()
  for h in "${ETCD_MEMBERS[@]}"; do eps+=("$(ip_of "$h"):2379"); done
  (IFS=,; echo "${eps[*]}")
}

etcd_initial_cluster() {
  local h peers=()
  for h in "${ETCD_MEMBERS[@]}"; do peers+=("$h=http://$(ip_of "$h"):2380"); done
  (IFS=,; echo "${peers[*]}")
}

# etcd_start HOST: starts that member on its host. Its data directory is kept, so that a
# member killed with SIGKILL comes back with its log and rejoins. Test settings: no fsync (a
# killed process loses nothing the kernel has), a 50 ms heartbeat and a 500 ms election
# timeout (a leader lost is replaced within about a second; the minimum lease TTL is 1 s).
# `--pre-vote` (etcd 3.5's default, off in Debian's 3.4): without it a member back from a
# partition, its term raised by its lone campaigns, deposes the leader, and every request is
# refused ("no leader") for a second or more after the heal.
etcd_start() {
  local h="$1" ip
  ip="$(ip_of "$h")"
  spawn "$h" "$h" etcd --name "$h" --data-dir "$WORK/$h.data" \
    --listen-client-urls "http://$ip:2379" --advertise-client-urls "http://$ip:2379" \
    --listen-peer-urls "http://$ip:2380" --initial-advertise-peer-urls "http://$ip:2380" \
    --initial-cluster "$(etcd_initial_cluster)" --initial-cluster-state new \
    --initial-cluster-token strata-faults --unsafe-no-fsync \
    --heartbeat-interval 50 --election-timeout 500 --pre-vote --logger zap --log-level warn
}

etcdctl_all() {
  in_host client env ETCDCTL_API=3 timeout 5 etcdctl --endpoints="$(etcd_endpoints)" \
    --dial-timeout=1s --command-timeout=2s "$@"
}

# Whether every member answers healthy (a member without a leader does not).
etcd_healthy() { etcdctl_all endpoint health >/dev/null 2>&1; }

# etcd_wait_healthy SECONDS: fails when the members are not all healthy by then.
etcd_wait_healthy() {
  local limit="$1" start=$SECONDS
  until etcd_healthy; do
    if [ $((SECONDS - start)) -ge "$limit" ]; then
      log "etcd members not all healthy within ${limit}s:"
      etcdctl_all endpoint health >&2 2>&1 || true
      return 1
    fi
    sleep 0.3
  done
}

# Prints the host of the current etcd leader (the first member when none answers as leader).
etcd_leader() {
  local ep h
  ep="$(etcdctl_all endpoint status -w simple 2>/dev/null | awk -F', ' '$5 == "true" {print $1; exit}')" || true
  for h in "${ETCD_MEMBERS[@]}"; do
    [ "$ep" = "$(ip_of "$h"):2379" ] && { echo "$h"; return 0; }
  done
  echo "${ETCD_MEMBERS[0]}"
}

# etcd_split HOST: HOST (a member) and the two others cannot reach each other; clients still
# reach every member. HOST is the minority: it loses its leadership or its follower's place.
etcd_split() {
  local h="$1" m
  for m in "${ETCD_MEMBERS[@]}"; do
    [ "$m" = "$h" ] || drop_between "$h" "$(ip_of "$m")"
  done
}

# Every member cut from every host but the other members: etcd as a whole unreachable.
etcd_cut_from_all() {
  local h m
  for h in "${ETCD_MEMBERS[@]}"; do
    for m in "${ETCD_MEMBERS[@]}"; do
      [ "$m" = "$h" ] && continue
      in_host "$h" iptables -A INPUT -s "$(ip_of "$m")" -j ACCEPT
      in_host "$h" iptables -A OUTPUT -d "$(ip_of "$m")" -j ACCEPT
    done
    drop_between "$h" "$NET.0/24"
  done
}
