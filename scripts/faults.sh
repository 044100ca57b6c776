#!/usr/bin/env bash
# Hosts as Linux network namespaces on one machine, for fault tests of a cluster (RFC 0021).
# Every host is a namespace `sfh-<name>` with one veth on the bridge `sfh-br` and an address
# of 198.18.0.0/24 (the benchmarking range, used by these test hosts only); the root
# namespace has no address on the bridge, so nothing here can reach any other network.
# Faults are iptables rules inside a host's namespace; they go with it.
#
#   scripts/faults.sh run [--servers N] [--hold S] [--seed N] [--minutes M] [--rate R]
#                         [--kinds K1,K2,...] [--local-root]
#       Short run (root; about 4 minutes): builds the hosts, runs three etcd members, HDFS (a
#       NameNode and three DataNodes, each its own JVM on its own host; the cluster's root is
#       on it), two masters (active and standby) and N region servers (4) each on its host;
#       from the client host, runs the recorded workloads
#       (`strata bench history`: registers, compare-and-set, counters, lists; R operations/s,
#       100) all along and writes batches of rows through the shell between faults; injects
#       each fault kind once, in an order chosen by the seed, for S seconds (8), heals it,
#       checks that every region is served again and every acknowledged row is there. Then
#       checks the history for linearizability per row (tools/linearizability, Porcupine),
#       lost acknowledged writes, and from the region servers' logs that no region was served
#       by two servers at once; prints figures per fault kind. Fails (non-zero) on any anomaly
#       and prints the seed: `--seed N` replays the same schedule. Removes everything, also on
#       failure. `--kinds` injects only those kinds (in the seed's order; a kind may repeat);
#       `--local-root` puts the cluster's root in a local directory instead of HDFS (without
#       the three HDFS kinds).
#   scripts/faults.sh run --minutes 60   # the long run: fault kinds drawn from the seed, each
#       held S/2 to 3S/2 (S 10: 5-15 s), until M minutes have passed; the same checks
#   scripts/faults.sh down               # removes every namespace, link and process this
#       script made (after a run that was killed)
#
# Settings: STRATA_BIN (default: the debug build in cargo's target directory, built when
# missing), STRATA_FAULTS_DIR (work directory: logs, the cluster's root, history.jsonl, faults.jsonl, the checker's report and any
# visualization of a non-linearizable row; default a new one under $TMPDIR; after a run that
# passed, the bulky state (etcd's members' data, the cluster's local root) is removed and the
# logs, histories and report stay; STRATA_FAULTS_KEEP=1 keeps it all),
# STRATA_FAULTS_LIMIT (seconds after a heal within which every region must be served again;
# default 10), STRATA_FAULTS_PREFIX (the namespaces' and links' prefix, default sfh: two runs
# with different prefixes can share a machine, each on its own bridge). Needs Go for the
# checker (scripts/lib/toolchain.sh installs Debian's if absent), etcd and libfaketime
# (installed from Debian when missing), Java and Hadoop's jars (scripts/hdfs.sh install: the
# JDK and Maven from Debian when missing, the jars from Maven Central, cached).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/toolchain.sh
. scripts/lib/faults-etcd.sh
. scripts/lib/faults-clock.sh
. scripts/lib/faults-proxy.sh
. scripts/lib/faults-hdfs.sh

PREFIX="${STRATA_FAULTS_PREFIX:-sfh}"
BRIDGE="$PREFIX-br"
NET=198.18.0
BIN="${STRATA_BIN:-${CARGO_TARGET_DIR:-target}/debug/strata}"
LIMIT="${STRATA_FAULTS_LIMIT:-10}"
SERVERS=4
HOLD=""
SEED=""
MINUTES=0
RATE=100
HDFS=1
ONLY=""
# How far a region server's clock jumps (rs-clock-forward, rs-clock-back), in seconds. The
# checker tells lines logged on the stepped clock by their distance from the real time: a
# fault must be held for less than this.
JUMP=30
KINDS=(rs-from-etcd etcd-from-all rs-isolated master-isolated rs-to-etcd-one-way rs-paused
  etcd-minority etcd-member-killed master-killed rs-killed rs-clock-forward rs-clock-back rs-slow-link
  rs-from-clients master-paused etcd-to-rs-one-way rs-to-clients-one-way rs-link-reset rs-link-thin
  rs-link-stalled)
# With HDFS (the default: the cluster's root on a NameNode and three DataNodes of their own hosts).
HDFS_KINDS=(rs-from-datanodes datanode-killed master-from-datanodes namenode-killed)

# host name -> last byte of its address
declare -A ADDR=([etcd1]=10 [etcd2]=11 [etcd3]=12 [master1]=15 [master2]=16 [client]=30)
MASTERS=(master1 master2)

log() { printf '%s faults: %s\n' "$(date +%T)" "$*" >&2; }

ns() { echo "$PREFIX-$1"; }
ip_of() { echo "$NET.${ADDR[$1]}"; }

# Every namespace and link of ours, whatever a previous run left.
down() {
  local pids
  if [ -n "${WORK:-}" ] && [ -d "$WORK/pids" ]; then
    for f in "$WORK"/pids/*; do
      [ -f "$f" ] || continue
      # setsid made each process its own group leader: end the group, nothing else.
      kill -TERM -- "-$(cat "$f")" 2>/dev/null || true
    done
    sleep 1
    for f in "$WORK"/pids/*; do
      [ -f "$f" ] || continue
      kill -KILL -- "-$(cat "$f")" 2>/dev/null || true
      wait "$(cat "$f")" 2>/dev/null || true
      rm -f "$f"
    done
  fi
  for n in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$PREFIX-" || true); do
    # Processes still inside (started by an earlier, killed run) go with their namespace.
    pids="$(ip netns pids "$n" 2>/dev/null || true)"
    [ -n "$pids" ] && kill -KILL $pids 2>/dev/null || true
    ip netns del "$n" 2>/dev/null || true
  done
  for l in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1 | grep "^$PREFIX-" || true); do
    ip link del "$l" 2>/dev/null || true
  done
}

add_host() {
  local name="$1" n
  n="$(ns "$name")"
  ip netns add "$n"
  ip link add "$PREFIX-${ADDR[$name]}" type veth peer name "$PREFIX-${ADDR[$name]}p"
  ip link set "$PREFIX-${ADDR[$name]}p" master "$BRIDGE" up
  ip link set "$PREFIX-${ADDR[$name]}" netns "$n"
  ip -n "$n" link set lo up
  ip -n "$n" link set "$PREFIX-${ADDR[$name]}" name eth0
  ip -n "$n" addr add "$(ip_of "$name")/24" dev eth0
  ip -n "$n" link set eth0 up
}

up() {
  ip link add "$BRIDGE" type bridge
  ip link set "$BRIDGE" up
  for h in "${!ADDR[@]}"; do add_host "$h"; done
}

# Starts `CMD...` in host $1 as its own process group, logging to $WORK/$2.log.
spawn() {
  local host="$1" tag="$2"
  shift 2
  # Appends: a process restarted after a kill -9 goes on in the same log.
  ip netns exec "$(ns "$host")" setsid "$@" >>"$WORK/$tag.log" 2>&1 </dev/null &
  echo $! >"$WORK/pids/$tag"
}

in_host() { local host="$1"; shift; ip netns exec "$(ns "$host")" "$@"; }

etcd_ep() { etcd_endpoints; }

# The environment of every Strata process (HDFS's client configuration with --hdfs).
STORE_ENV=()
start_master() {
  spawn "$1" "$1" "${STORE_ENV[@]}" "$BIN" master "${COMMON[@]}" --advertise "$(ip_of "$1"):16000"
}

# Starts region server $1 (rs1..rsN) on its host: every interface, announcing the host's
# address; all at once on the empty root at the start, again after rs-killed. JSON lines: the
# checker reads the regions' open and close lines from them.
start_rs() {
  local clock=() advertise
  # The last server's wall clock can be stepped (rs-clock-forward, rs-clock-back).
  [ "$1" = "rs$SERVERS" ] && read -r -a clock <<<"$(clock_env "$1")"
  # rs1 is reached through its host's Toxiproxy (rs-slow-link).
  advertise="$(ip_of "$1")"
  [ "$1" = "$PROXIED" ] && advertise="$advertise:$PROXY_PORT"
  spawn "$1" "$1" "${STORE_ENV[@]}" "${clock[@]}" "$BIN" regionserver "${COMMON[@]}" --listen 0.0.0.0:16020 \
    --advertise "$advertise" --memtable-mib 32 --block-cache-mib 8 --log-format json
}

# Prints the host of the active master (none when no master is active or etcd does not answer).
active_master() {
  local addr h
  addr="$(strata cluster status 2>/dev/null | sed -n 's/^active master: \([0-9.]*\):.*/\1/p')" || true
  for h in "${MASTERS[@]}"; do [ "$addr" = "$(ip_of "$h")" ] && echo "$h"; done
  return 0
}

strata() { in_host client "$BIN" "$@" --etcd "$(etcd_ep)" --cluster faults; }

# Waits until `strata cluster status` says every one of $1 regions is open on one of $2 live
# servers, nothing is in transition, a master is active with the other standing by, and every
# etcd member is healthy; prints the seconds it took; fails after $3 seconds.
wait_served() {
  local regions="$1" servers="$2" limit="$3" start=$SECONDS out
  while true; do
    out="$(strata cluster status 2>/dev/null || true)"
    if grep -q "settled" <<<"$out" && grep -q "^regions: $regions open$" <<<"$out" \
      && grep -q "^$servers live region servers" <<<"$out" \
      && grep -q "^active master: [0-9.:]*; standing by: [0-9]" <<<"$out" && etcd_healthy; then
      echo $((SECONDS - start))
      return 0
    fi
    if [ $((SECONDS - start)) -ge "$limit" ]; then
      log "not served within ${limit}s:"
      echo "$out" >&2
      return 1
    fi
    sleep 0.5
  done
}

ROWS=0
# Writes rows $ROWS.. +$1 through the shell from the client host; all must be acknowledged.
write_rows() {
  local n="$1" script="$WORK/put.hbase" i
  : >"$script"
  for ((i = ROWS; i < ROWS + n; i++)); do
    # A three-digit prefix: rows land in every region of the table split at 250, 500, 750.
    printf "put 't', '%03d-r%06d', 'f:q', 'v%d'\n" $((i * 7919 % 1000)) "$i" "$i" >>"$script"
  done
  if ! in_host client "$BIN" shell -n --etcd "$(etcd_ep)" --cluster faults <"$script" \
    >"$WORK/shell.log" 2>&1 || grep -qi "error" "$WORK/shell.log"; then
    log "a write was not acknowledged:"
    tail -5 "$WORK/shell.log" >&2
    return 1
  fi
  ROWS=$((ROWS + n))
}

check_rows() {
  local out
  out="$(echo "count 't'" | in_host client "$BIN" shell -n --etcd "$(etcd_ep)" --cluster faults 2>&1)" || true
  if ! grep -q "^$ROWS row" <<<"$out"; then
    log "expected $ROWS rows, the shell says: $out"
    return 1
  fi
}

# Fault kinds: each adds rules in one or more namespaces; heal flushes them.
drop_between() { # drop_between HOST ADDR_OR_NET: drops both directions inside HOST's namespace
  in_host "$1" iptables -A INPUT -s "$2" -j DROP
  in_host "$1" iptables -A OUTPUT -d "$2" -j DROP
}
drop_members() { # drop_members HOST: HOST drops every etcd member's address
  local m
  for m in "${ETCD_MEMBERS[@]}"; do drop_between "$1" "$(ip_of "$m")"; done
}
# kill_host HOST: SIGKILL of HOST's process group; heal starts it again.
KILLED=()
kill_host() {
  local pid
  pid="$(cat "$WORK/pids/$1")"
  kill -KILL -- "-$pid" || log "$1 (process group $pid) was not running"
  # Reaped here, so that bash does not report the job as killed.
  wait "$pid" 2>/dev/null || true
  KILLED+=("$1")
}
# pause_host HOST: SIGSTOP of HOST's process group; heal resumes it.
PAUSED=()
pause_host() {
  kill -STOP -- "-$(cat "$WORK/pids/$1")"
  PAUSED+=("$1")
}
heal() {
  local h
  for h in "${!ADDR[@]}"; do in_host "$h" iptables -F; done
  # A paused process (rs-paused, master-paused) resumes.
  for h in "${PAUSED[@]}"; do
    kill -CONT -- "-$(cat "$WORK/pids/$h")" 2>/dev/null || true
  done
  PAUSED=()
  clock_reset
  proxy_heal
  for h in "${KILLED[@]}"; do
    case "$h" in
      etcd*) etcd_start "$h" ;;
      master*) start_master "$h" ;;
      rs*) start_rs "$h" ;;
      dn* | "$HDFS_NAMENODE") hdfs_start_host "$h" ;;
    esac
  done
  # A restarted NameNode's JVM takes seconds to start; the heal counts from when it answers.
  for h in "${KILLED[@]}"; do
    if [ "$h" = "${HDFS_NAMENODE:-}" ]; then hdfs_wait_namenode 60 || true; fi
  done
  KILLED=()
}

# fault KIND: injects it; sets TARGET to the host it chose when the kind picks one (the etcd
# leader, the active master, the server whose clock jumps), for the log and the fault log.
TARGET=""
fault() {
  TARGET=""
  case "$1" in
    rs-from-etcd) drop_members rs1 ;;
    etcd-from-all) etcd_cut_from_all ;;
    rs-isolated) drop_between rs2 "$NET.0/24" ;;
    master-isolated) TARGET="$(active_master)" && drop_between "${TARGET:-master1}" "$NET.0/24" ;;
    # One way: rs1's packets to etcd vanish, etcd's to rs1 arrive.
    rs-to-etcd-one-way)
      local m
      for m in "${ETCD_MEMBERS[@]}"; do in_host rs1 iptables -A OUTPUT -d "$(ip_of "$m")" -j DROP; done
      ;;
    # The other way: the etcd members' packets to rs1 vanish, rs1's to them arrive (its
    # keepalives reach etcd until TCP stops sending unacknowledged data).
    etcd-to-rs-one-way)
      local m
      for m in "${ETCD_MEMBERS[@]}"; do in_host rs1 iptables -A INPUT -s "$(ip_of "$m")" -j DROP; done
      ;;
    # rs3's packets to the client host vanish, the client's arrive: requests are applied and
    # their answers lost (writes of unknown outcome, the clients' retries).
    rs-to-clients-one-way) TARGET=rs3 && in_host rs3 iptables -A OUTPUT -d "$(ip_of client)" -j DROP ;;
    # SIGSTOP past the lease (a stalled process), SIGCONT at heal.
    rs-paused) TARGET=rs3 && pause_host rs3 ;;
    # The active master stopped past its lease (the standby takes over), SIGCONT at the heal:
    # it must find itself deposed before it acts again.
    master-paused) TARGET="$(active_master)" && pause_host "${TARGET:-master1}" ;;
    # rs3 cut from the client host only: it keeps its lease and its regions (nothing to fail
    # over), clients' calls to it fail until the heal.
    rs-from-clients) TARGET=rs3 && drop_between rs3 "$(ip_of client)" ;;
    # The leader cut from the two other members (clients reach all three): it steps down, the
    # majority elects a new leader, requests sent to the minority member fail or hang.
    etcd-minority) TARGET="$(etcd_leader)" && etcd_split "$TARGET" ;;
    # The leader killed (SIGKILL); started again at the heal, with its data.
    etcd-member-killed) TARGET="$(etcd_leader)" && kill_host "$TARGET" ;;
    # The active master killed (SIGKILL): the standby takes over; started again at the heal.
    master-killed) TARGET="$(active_master)" && kill_host "${TARGET:-master1}" ;;
    # A region server killed (SIGKILL; drawn from the seed): its lease runs out, its WAL is
    # split and its regions reopen on the others; started again at the heal, a new incarnation.
    rs-killed) TARGET="rs$((1 + RANDOM % SERVERS))" && kill_host "$TARGET" ;;
    # The last region server's wall clock jumps ahead or back, and back again at the heal.
    rs-clock-forward) TARGET="rs$SERVERS" && clock_step "$TARGET" "$JUMP" ;;
    rs-clock-back) TARGET="rs$SERVERS" && clock_step "$TARGET" "-$JUMP" ;;
    # Everything to and from rs1's port waits 1 s +- 1 s each way (Toxiproxy).
    rs-slow-link) TARGET="$PROXIED" && proxy_slow ;;
    # Every connection to rs1 reset 300 ms after it opens; a 16 KB/s link; a stalled link
    # closed after 3 s (Toxiproxy's reset_peer, bandwidth and timeout toxics).
    rs-link-reset) TARGET="$PROXIED" && proxy_reset ;;
    rs-link-thin) TARGET="$PROXIED" && proxy_thin ;;
    rs-link-stalled) TARGET="$PROXIED" && proxy_stall ;;
    # rs2 cut from the three DataNodes only (it still reaches etcd, the NameNode, clients).
    rs-from-datanodes) TARGET=rs2 && drop_datanodes rs2 ;;
    # SIGKILL of a DataNode (drawn from the seed); started again at the heal with its blocks.
    datanode-killed) TARGET="${HDFS_DATANODES[RANDOM % ${#HDFS_DATANODES[@]}]}" && kill_host "$TARGET" ;;
    # SIGKILL of the NameNode; started again at the heal from its fsimage and edits. Open
    # WALs keep writing to their DataNode pipelines meanwhile; flushes, rolls and new files
    # wait for it.
    namenode-killed) TARGET="$HDFS_NAMENODE" && kill_host "$TARGET" ;;
    # The active master cut from the three DataNodes only.
    master-from-datanodes) TARGET="$(active_master)" && drop_datanodes "${TARGET:-master1}" ;;
    *) log "unknown fault $1"; return 1 ;;
  esac
}

# The schedule comes from the seed (bash's RANDOM, seeded, read in this shell only: a
# subshell reseeds it), so that a seed replays the same faults in the same order with the
# same holds. The short run shuffles every kind once into ORDER; the long run draws a kind
# and a hold per fault.
shuffle_kinds() {
  local i j t
  ORDER=("${KINDS[@]}")
  for ((i = ${#ORDER[@]} - 1; i > 0; i--)); do
    j=$((RANDOM % (i + 1)))
    t="${ORDER[i]}" && ORDER[i]="${ORDER[j]}" && ORDER[j]="$t"
  done
}

now_ns() { date +%s%N; }

# Starts the recorded workloads from the client host on table w; they stop when $WORK/stop
# appears, then read every row once more.
start_workload() {
  spawn client workload "$BIN" bench history --etcd "$(etcd_ep)" --cluster faults --table w \
    --out "$WORK/history.jsonl" --seed "$SEED" --rate "$RATE" --stop-file "$WORK/stop"
}

stop_workload() {
  local pid waited=0
  pid="$(cat "$WORK/pids/workload")"
  touch "$WORK/stop"
  # Operations in flight end within their timeout (10 s); the final reads retry up to 60 s.
  while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt 600 ]; do sleep 0.5; waited=$((waited + 1)); done
  if ! wait "$pid"; then
    log "the workload failed:"
    tail -5 "$WORK/workload.log" >&2
    return 1
  fi
  rm -f "$WORK/pids/workload"
  tail -1 "$WORK/workload.log" >&2
}

one_fault() {
  local kind="$1" hold="$2" injected in_effect healed t
  injected="$(now_ns)"
  fault "$kind"
  # The injection's commands have returned (a killed process is reaped): the checker ends a
  # killed region server's serving intervals here.
  in_effect="$(now_ns)"
  log "fault $kind${TARGET:+ on $TARGET} for ${hold}s"
  sleep "$hold"
  heal
  healed="$(now_ns)"
  printf '{"kind":"%s","target":"%s","injected_unix_ns":%s,"in_effect_unix_ns":%s,"healed_unix_ns":%s,"hold_s":%s}\n' \
    "$kind" "$TARGET" "$injected" "$in_effect" "$healed" "$hold" >>"$WORK/faults.jsonl"
  if ! t="$(wait_served 8 "$SERVERS" "$LIMIT")"; then
    # A long run goes on after a slow heal (its figures are the point), and fails at the end.
    if [ "$MINUTES" -gt 0 ] && t="$(wait_served 8 "$SERVERS" 120)"; then
      t=$((t + LIMIT))
      SLOW+=("$kind (${hold}s, at $(date +%T)): every region served only ${t}s after healing")
      log "SLOW: ${SLOW[-1]}"
    else
      log "FAILED: $kind did not heal (work directory $WORK); replay: scripts/faults.sh run --seed $SEED"
      return 1
    fi
  fi
  # A killed DataNode's JVM takes seconds to start and register again: HDFS whole again is
  # waited for apart (60 s at most), not counted in the cluster's time to be served.
  if [ "$HDFS" = 1 ] && ! hdfs_wait_healthy 60; then
    log "FAILED: HDFS not whole again after $kind (work directory $WORK)"
    return 1
  fi
  write_rows 100
  check_rows
  RESULTS+=("$kind (${hold}s): every region served ${t}s after healing, $ROWS rows all there")
  log "${RESULTS[-1]}"
}

RESULTS=()
SLOW=()
run() {
  [ "$(id -u)" = 0 ] || { echo "faults.sh: run as root (network namespaces)" >&2; exit 2; }
  # A fresh Debian machine lacks iptables: install it, as the other engines' scripts install theirs.
  if ! command -v iptables >/dev/null && command -v apt-get >/dev/null; then
    { apt-get update -qq && apt-get install -y -qq iptables; } >/dev/null 2>&1 || true
  fi
  command -v iptables >/dev/null || { echo "faults.sh: needs iptables (apt-get install iptables)" >&2; exit 2; }
  ensure_etcd
  ensure_faketime
  if [ "$HDFS" = 1 ]; then
    ensure_hdfs
    hdfs_add_hosts
    KINDS+=("${HDFS_KINDS[@]}")
  fi
  if [ -n "$ONLY" ]; then
    local k known
    IFS=, read -r -a known <<<"$ONLY"
    for k in "${known[@]}"; do
      [[ " ${KINDS[*]} " == *" $k "* ]] || { echo "faults.sh: --kinds: unknown kind $k (known: ${KINDS[*]})" >&2; exit 2; }
    done
    KINDS=("${known[@]}")
  fi
  # The short run holds each fault 8 s (its length stays about 3 minutes with every kind), a
  # long run draws holds around 10 s; both past the lease (TTL 2 s), short of the clock jump.
  [ -n "$HOLD" ] || { [ "$MINUTES" -gt 0 ] && HOLD=10 || HOLD=8; }
  if [ $((HOLD * 3 / 2)) -ge "$JUMP" ]; then
    echo "faults.sh: --hold $HOLD: faults must be held for less than the clock jump (${JUMP}s)" >&2
    exit 2
  fi
  [ "$SERVERS" -ge 3 ] || { echo "faults.sh: --servers must be at least 3 (faults target rs1-rs3 and the last)" >&2; exit 2; }
  if [ ! -x "$BIN" ] && [ -z "${STRATA_BIN:-}" ]; then cargo build -q -p strata-cli --bin strata; fi
  [ -x "$BIN" ] || { echo "faults.sh: no $BIN (cargo build -p strata-cli)" >&2; exit 2; }
  [ -n "$SEED" ] || SEED=$((($(date +%s%N) / 1000) % 1000000))
  local checker toxiproxy
  checker="$(build_linearizability)"
  toxiproxy="$(build_toxiproxy)"
  for ((i = 1; i <= SERVERS; i++)); do ADDR[rs$i]=$((20 + i)); done
  WORK="${STRATA_FAULTS_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/strata-faults.XXXXXX")}"
  mkdir -p "$WORK/pids" "$WORK/root"
  rm -f "$WORK/stop" "$WORK"/linearizability-*.html "$WORK"/*.log "$WORK/clock.jsonl"
  rm -rf "$WORK"/etcd*.data
  trap 'down' EXIT
  trap 'exit 1' INT TERM
  down
  up
  log "seed $SEED; hosts up in $WORK: $(for h in "${!ADDR[@]}"; do printf '%s=%s ' "$h" "$(ip_of "$h")"; done)"

  local h
  for h in "${ETCD_MEMBERS[@]}"; do etcd_start "$h"; done
  etcd_wait_healthy 30
  log "etcd members healthy at $(etcd_endpoints); leader $(etcd_leader)"
  local root="$WORK/root"
  if [ "$HDFS" = 1 ]; then
    hdfs_start
    root="$(hdfs_url)/strata"
    STORE_ENV=(env "HADOOP_CONF_DIR=$(hdfs_client_conf)")
    log "HDFS up: NameNode $(ip_of "$HDFS_NAMENODE"), DataNodes $(for h in "${HDFS_DATANODES[@]}"; do printf '%s ' "$(ip_of "$h")"; done)"
  fi
  # The test hosts' addresses are not loopback; the harness tests faults, not access control.
  COMMON=(--etcd "$(etcd_ep)" --cluster faults --ttl 2 --root "$root" --insecure)
  for h in "${MASTERS[@]}"; do start_master "$h"; done
  proxy_start "$toxiproxy"
  local logs=()
  for ((i = 1; i <= SERVERS; i++)); do
    start_rs "rs$i"
    logs+=("$WORK/rs$i.log")
  done
  sleep 2
  local t
  strata cluster create-table t --splits 250,500,750 --families f >&2
  strata cluster create-table w --splits 250,500,750 --families f >&2
  t="$(wait_served 8 "$SERVERS" 60)"
  log "8 regions served on $SERVERS servers after ${t}s"
  write_rows 200
  : >"$WORK/faults.jsonl"
  start_workload
  sleep 5

  RANDOM=$SEED
  if [ "$MINUTES" -gt 0 ]; then
    local end=$((SECONDS + MINUTES * 60)) lo=$(((HOLD + 1) / 2))
    while [ "$SECONDS" -lt "$end" ]; do
      one_fault "${KINDS[RANDOM % ${#KINDS[@]}]}" $((lo + RANDOM % (HOLD + 1)))
      sleep 5
    done
  else
    local kind
    shuffle_kinds
    for kind in "${ORDER[@]}"; do
      one_fault "$kind" "$HOLD"
      sleep 3
    done
  fi
  stop_workload
  printf '%s\n' "${RESULTS[@]}"
  local logs_csv
  logs_csv="$(IFS=,; echo "${logs[*]}")"
  touch "$WORK/clock.jsonl"
  if ! "$checker" -history "$WORK/history.jsonl" -faults "$WORK/faults.jsonl" -logs "$logs_csv" \
    -clock-shifts "$WORK/clock.jsonl" -out "$WORK" | tee "$WORK/check.txt"; then
    log "FAILED: anomalies above (work directory $WORK); replay: scripts/faults.sh run --seed $SEED"
    return 1
  fi
  if [ "${#SLOW[@]}" -gt 0 ]; then
    printf '%s\n' "${SLOW[@]}" >&2
    log "FAILED: ${#SLOW[@]} faults not healed within ${LIMIT}s (work directory $WORK); replay: scripts/faults.sh run --seed $SEED"
    return 1
  fi
  if [ "${STRATA_FAULTS_KEEP:-0}" != 1 ]; then
    # Passed: the stores' data (~250 MB, mostly etcd's preallocated logs) is of no further use.
    down
    rm -rf "$WORK"/etcd*.data "$WORK/root"
  fi
  log "passed (seed $SEED)"
}

case "${1:-}" in
  run)
    shift
    while [ $# -gt 0 ]; do
      case "$1" in
        --servers) SERVERS="$2"; shift 2 ;;
        --hold) HOLD="$2"; shift 2 ;;
        --seed) SEED="$2"; shift 2 ;;
        --minutes) MINUTES="$2"; shift 2 ;;
        --rate) RATE="$2"; shift 2 ;;
        --hdfs) HDFS=1; shift ;;
        --local-root) HDFS=0; shift ;;
        --kinds) ONLY="$2"; shift 2 ;;
        *) echo "faults.sh: unknown flag $1" >&2; exit 2 ;;
      esac
    done
    run
    ;;
  down) down ;;
  *) echo "usage: $0 run [--servers N] [--hold S] [--seed N] [--minutes M] [--rate R] [--kinds K,...] [--local-root] | down" >&2; exit 2 ;;
esac
