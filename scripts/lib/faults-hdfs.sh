# Sourced by scripts/faults.sh (RFC 0021): HDFS as separate processes on their own hosts, a
# NameNode (host namenode) and three DataNodes (dn1..dn3), each its own JVM from Maven
# Central's Hadoop jars (the ones scripts/hdfs.sh fetches and caches), with Hadoop's own main
# classes and a generated core-site.xml/hdfs-site.xml per host. Uses the harness's helpers
# (ip_of, in_host, spawn, log, WORK, ADDR). Do not run it.

HDFS_NAMENODE=namenode
HDFS_DATANODES=(dn1 dn2 dn3)
HDFS_RPC_PORT=8020
HDFS_HTTP_PORT=9870
# Each JVM's heap: four of them share a small machine with the rest of the cluster.
HDFS_HEAP="${STRATA_FAULTS_HDFS_HEAP:-256m}"
HDFS_LIB=""

# The hosts' addresses (last byte), added to the harness's table when --hdfs is given.
hdfs_add_hosts() {
  ADDR[namenode]=40
  ADDR[dn1]=41
  ADDR[dn2]=42
  ADDR[dn3]=43
}

# Installs the JDK and the Hadoop jars when missing (cached: offline on the next run).
ensure_hdfs() {
  HDFS_LIB="$(scripts/hdfs.sh install)" || return 2
}

hdfs_url() { echo "hdfs://$(ip_of "$HDFS_NAMENODE"):$HDFS_RPC_PORT"; }

hdfs_prop() { printf '  <property><name>%s</name><value>%s</value></property>\n' "$1" "$2"; }

# hdfs_conf HOST: writes HOST's configuration directory and prints it.
hdfs_conf() {
  local h="$1" dir ip
  dir="$WORK/hdfs/$h"
  ip="$(ip_of "$h")"
  mkdir -p "$dir/conf"
  {
    echo '<?xml version="1.0"?><configuration>'
    hdfs_prop fs.defaultFS "$(hdfs_url)"
    hdfs_prop hadoop.tmp.dir "$dir/tmp"
    # A dead peer's port refuses at once: one retry, not Hadoop's ten a second apart, so a
    # block's recovery that asks a killed DataNode (the fencing of a WAL whose pipeline held
    # it) moves on in about a second rather than ten (HBase's MTTR advice for HDFS).
    hdfs_prop ipc.client.connect.max.retries 1
    hdfs_prop ipc.client.connect.retry.interval 200
    echo '</configuration>'
  } >"$dir/conf/core-site.xml"
  {
    echo '<?xml version="1.0"?><configuration>'
    hdfs_prop dfs.namenode.name.dir "$WORK/hdfs/$HDFS_NAMENODE/name"
    hdfs_prop dfs.datanode.data.dir "$dir/data"
    hdfs_prop dfs.namenode.rpc-address "$(ip_of "$HDFS_NAMENODE"):$HDFS_RPC_PORT"
    hdfs_prop dfs.namenode.http-address "$(ip_of "$HDFS_NAMENODE"):$HDFS_HTTP_PORT"
    hdfs_prop dfs.datanode.address "$ip:9866"
    hdfs_prop dfs.datanode.http.address "$ip:9864"
    hdfs_prop dfs.datanode.ipc.address "$ip:9867"
    # The hosts share the machine's host name: each DataNode names itself by its address,
    # and the NameNode does not look addresses up in DNS.
    hdfs_prop dfs.datanode.hostname "$ip"
    hdfs_prop dfs.namenode.datanode.registration.ip-hostname-check false
    hdfs_prop dfs.permissions.enabled false
    # Two replicas on three DataNodes: a killed DataNode leaves every block a live replica
    # and two live DataNodes for new pipelines.
    hdfs_prop dfs.replication 2
    # Dead DataNodes noticed in seconds (stale after 3 s, dead after 2*2 s + 10*1 s), and
    # stale ones avoided for reads and new pipelines.
    hdfs_prop dfs.heartbeat.interval 1
    hdfs_prop dfs.namenode.heartbeat.recheck-interval 2000
    hdfs_prop dfs.namenode.stale.datanode.interval 3000
    hdfs_prop dfs.namenode.avoid.read.stale.datanode true
    hdfs_prop dfs.namenode.avoid.write.stale.datanode true
    hdfs_prop dfs.namenode.safemode.extension 0
    hdfs_prop dfs.namenode.safemode.min.datanodes 0
    echo '</configuration>'
  } >"$dir/conf/hdfs-site.xml"
  echo "$dir/conf"
}

# The Strata processes' client configuration (their HADOOP_CONF_DIR), printed: a pipeline that
# loses a DataNode takes the third one in its place when it can (and goes on without when it
# cannot), so that a log's block does not end on a single DataNode after one death, where the
# next death would leave no replica to write to or recover from (Hadoop's DEFAULT policy
# replaces nothing below three replicas).
hdfs_client_conf() {
  local dir="$WORK/hdfs/client"
  mkdir -p "$dir"
  {
    echo '<?xml version="1.0"?><configuration>'
    hdfs_prop dfs.client.block.write.replace-datanode-on-failure.policy ALWAYS
    hdfs_prop dfs.client.block.write.replace-datanode-on-failure.best-effort true
    echo '</configuration>'
  } >"$dir/hdfs-site.xml"
  echo "$dir"
}

# hdfs_java HOST CLASS ARGS...: the command line of a Hadoop daemon on HOST.
hdfs_java() {
  local h="$1" class="$2" conf
  shift 2
  conf="$(hdfs_conf "$h")"
  # Jetty's web-app directories go to java.io.tmpdir: keep them with the host's state.
  mkdir -p "$WORK/hdfs/$h/java-tmp"
  echo java "-Xmx$HDFS_HEAP" -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -Dorg.slf4j.simpleLogger.defaultLogLevel="${STRATA_FAULTS_HDFS_LOG:-warn}" \
    -Dorg.slf4j.simpleLogger.showDateTime=true \
    -Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS -Dhadoop.log.dir="$WORK/hdfs/$h" \
    -Djava.io.tmpdir="$WORK/hdfs/$h/java-tmp" -cp "$conf:$HDFS_LIB/*" "$class" "$@"
}

# hdfs_start_host HOST: starts the NameNode or that DataNode on its host (same data as before
# a kill: a killed DataNode comes back with its blocks).
hdfs_start_host() {
  local h="$1" cmd
  if [ "$h" = "$HDFS_NAMENODE" ]; then
    read -r -a cmd <<<"$(hdfs_java "$h" org.apache.hadoop.hdfs.server.namenode.NameNode)"
  else
    read -r -a cmd <<<"$(hdfs_java "$h" org.apache.hadoop.hdfs.server.datanode.DataNode)"
  fi
  spawn "$h" "$h" "${cmd[@]}"
}

# hdfs_wait_namenode SECONDS: waits until the NameNode takes connections on its RPC port (from
# the client host), so that a heal's clock starts once the NameNode's JVM is up: the fault
# harness measures the cluster's return, not the JVM's start. Fails after SECONDS.
hdfs_wait_namenode() {
  local limit="$1" start=$SECONDS addr
  addr="$(ip_of "$HDFS_NAMENODE")"
  until in_host client timeout 1 bash -c "exec 3<>/dev/tcp/$addr/$HDFS_RPC_PORT" 2>/dev/null; do
    if [ $((SECONDS - start)) -ge "$limit" ]; then
      log "the NameNode took no connection on $addr:$HDFS_RPC_PORT within ${limit}s"
      return 1
    fi
    sleep 0.2
  done
}

# Formats the NameNode, starts it and the DataNodes; waits (90 s at most) until every
# DataNode is live and the NameNode out of safe mode.
hdfs_start() {
  local cmd h start=$SECONDS
  rm -rf "$WORK/hdfs"
  read -r -a cmd <<<"$(hdfs_java "$HDFS_NAMENODE" org.apache.hadoop.hdfs.server.namenode.NameNode \
    -format -force -nonInteractive)"
  if ! in_host "$HDFS_NAMENODE" "${cmd[@]}" >"$WORK/namenode-format.log" 2>&1; then
    log "formatting the NameNode failed:"
    tail -20 "$WORK/namenode-format.log" >&2
    return 1
  fi
  hdfs_start_host "$HDFS_NAMENODE"
  for h in "${HDFS_DATANODES[@]}"; do hdfs_start_host "$h"; done
  until [ "$(hdfs_live_datanodes)" = "${#HDFS_DATANODES[@]}" ] && hdfs_out_of_safe_mode; do
    if [ $((SECONDS - start)) -ge 90 ]; then
      log "HDFS not up within 90s (live DataNodes: $(hdfs_live_datanodes)):"
      tail -5 "$WORK/namenode.log" "$WORK"/dn*.log >&2
      return 1
    fi
    sleep 0.5
  done
}

# The NameNode's JMX, asked from the client host.
hdfs_jmx() {
  in_host client curl -sf --max-time 2 \
    "http://$(ip_of "$HDFS_NAMENODE"):$HDFS_HTTP_PORT/jmx?qry=$1" 2>/dev/null
}

hdfs_live_datanodes() {
  hdfs_jmx 'Hadoop:service=NameNode,name=FSNamesystemState' \
    | sed -n 's/.*"NumLiveDataNodes" *: *\([0-9]*\).*/\1/p'
}

hdfs_out_of_safe_mode() {
  hdfs_jmx 'Hadoop:service=NameNode,name=NameNodeInfo' | grep -q '"Safemode" *: *""'
}

# Whether HDFS is whole again after a heal: every DataNode live and heard from within the
# last 2 s (a killed DataNode stays "live" to the NameNode until its heartbeats expire; the
# one started again at the heal is heard from once it has registered).
hdfs_healthy() {
  local fresh
  fresh="$(hdfs_jmx 'Hadoop:service=NameNode,name=NameNodeInfo' \
    | grep -o 'lastContact[^0-9]*[0-9]*' | grep -c '[^0-9][0-2]$')" || true
  [ "$(hdfs_live_datanodes)" = "${#HDFS_DATANODES[@]}" ] && [ "$fresh" = "${#HDFS_DATANODES[@]}" ]
}

# hdfs_wait_healthy SECONDS: fails when a DataNode is still not live by then.
hdfs_wait_healthy() {
  local limit="$1" start=$SECONDS
  until hdfs_healthy; do
    if [ $((SECONDS - start)) -ge "$limit" ]; then
      log "live DataNodes: $(hdfs_live_datanodes) of ${#HDFS_DATANODES[@]} after ${limit}s"
      return 1
    fi
    sleep 0.5
  done
}

# drop_datanodes HOST: HOST drops every DataNode's address (the NameNode stays reachable).
drop_datanodes() {
  local d
  for d in "${HDFS_DATANODES[@]}"; do drop_between "$1" "$(ip_of "$d")"; done
}
