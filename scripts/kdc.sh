#!/usr/bin/env bash
# A throwaway MIT Kerberos KDC for tests, bound to 127.0.0.1: realm STRATA.TEST with the
# HBase RPC service principal and test users, and a second realm OTHER.TEST that trusts it
# (its users reach STRATA.TEST's services: "a user of another realm"). Nothing of the system's
# Kerberos configuration is read or changed: the KDC and clients use the files in its directory
# (KRB5_CONFIG, KRB5_KDC_PROFILE).
#
#   scripts/kdc.sh start   # installs Debian's krb5-kdc, krb5-admin-server (kadmin.local) and
#                          # krb5-user if missing, creates both realms, starts the KDC
#   scripts/kdc.sh env     # prints shell assignments: KRB5_CONFIG, STRATA_KDC_DIR, the realm,
#                          # the service principal and keytab paths (eval "$(scripts/kdc.sh env)")
#   scripts/kdc.sh status  # exit 0 if the KDC runs
#   scripts/kdc.sh stop    # stops it and removes its directory
#
# Principals and keytabs (in STRATA_KDC_DIR):
#   hbase/localhost@STRATA.TEST  hbase.keytab    the server (HBase's hbase/_HOST@REALM)
#   admin@STRATA.TEST            admin.keytab    a superuser in the tests
#   alice@STRATA.TEST, bob@STRATA.TEST           alice.keytab, bob.keytab
#   mallory@OTHER.TEST           mallory.keytab  a user of the other realm
#   carol@STRATA.TEST            carol.keytab    for short-lived tickets (kinit -l)
#
# Settings (environment):
#   STRATA_KDC_PORT   the KDC's port (default: a free port chosen at start)
#   STRATA_KDC_DIR    its directory (default ${TMPDIR:-/tmp}/strata-kdc-${STRATA_KDC_PORT:-auto})
#   STRATA_KDC_REALM  the main realm (default STRATA.TEST)
set -euo pipefail

REALM="${STRATA_KDC_REALM:-STRATA.TEST}"
OTHER="OTHER.TEST"
DIR="${STRATA_KDC_DIR:-${TMPDIR:-/tmp}/strata-kdc-${STRATA_KDC_PORT:-auto}}"
PIDFILE="$DIR/kdc.pid"
export KRB5_CONFIG="$DIR/krb5.conf"
export KRB5_KDC_PROFILE="$DIR/kdc.conf"

install_krb5() {
  command -v krb5kdc >/dev/null 2>&1 || [ -x /usr/sbin/krb5kdc ] || need=1
  command -v kadmin.local >/dev/null 2>&1 || [ -x /usr/sbin/kadmin.local ] || need=1
  command -v kinit >/dev/null 2>&1 || need=1
  [ "${need:-0}" = 1 ] || return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing krb5-kdc, krb5-admin-server and krb5-user with apt-get" >&2
    # The packages' own services stay off: nothing is started but this script's KDC.
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq krb5-kdc krb5-admin-server krb5-user \
      >/dev/null
  else
    echo "MIT Kerberos is not installed: install Debian's krb5-kdc, krb5-admin-server and" \
      "krb5-user (as root)" >&2
    exit 2
  fi
}
PATH="$PATH:/usr/sbin:/sbin"

running_pid() {
  [ -f "$PIDFILE" ] || return 1
  local pid
  pid="$(cat "$PIDFILE")"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

write_config() {
  local port="$1"
  cat >"$KRB5_CONFIG" <<EOF
[libdefaults]
  default_realm = $REALM
  dns_lookup_realm = false
  dns_lookup_kdc = false
  rdns = false
  ignore_acceptor_hostname = false
  udp_preference_limit = 1
  forwardable = true
  default_ccache_name = FILE:$DIR/ccache-default

[realms]
  $REALM = {
    kdc = 127.0.0.1:$port
  }
  $OTHER = {
    kdc = 127.0.0.1:$port
  }

[domain_realm]
  localhost = $REALM

[capaths]
  $OTHER = {
    $REALM = .
  }
EOF
  cat >"$KRB5_KDC_PROFILE" <<EOF
[kdcdefaults]
  kdc_listen = 127.0.0.1:$port
  kdc_tcp_listen = 127.0.0.1:$port

[realms]
  $REALM = {
    database_name = $DIR/db-main
    key_stash_file = $DIR/stash-main
    acl_file = $DIR/kadm5.acl
    max_life = 1h
    max_renewable_life = 1h
    supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
  }
  $OTHER = {
    database_name = $DIR/db-other
    key_stash_file = $DIR/stash-other
    acl_file = $DIR/kadm5.acl
    max_life = 1h
    max_renewable_life = 1h
    supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
  }

[logging]
  kdc = FILE:$DIR/kdc.log
EOF
  : >"$DIR/kadm5.acl"
}

# A random password, never printed (the keytabs carry the keys).
secret() { head -c 24 /dev/urandom | base64 | tr -d '/+='; }

start() {
  install_krb5
  if running_pid >/dev/null; then
    echo "KDC already running (pid $(cat "$PIDFILE")), directory $DIR"
    return 0
  fi
  rm -rf "$DIR"
  mkdir -p "$DIR"
  chmod 700 "$DIR"
  local port="${STRATA_KDC_PORT:-$(free_port)}"
  echo "$port" >"$DIR/port"
  write_config "$port"
  kdb5_util -r "$REALM" -P "$(secret)" create -s >/dev/null 2>&1 ||
    { echo "kdb5_util create for $REALM failed" >&2; exit 1; }
  kdb5_util -r "$OTHER" -P "$(secret)" create -s >/dev/null 2>&1 ||
    { echo "kdb5_util create for $OTHER failed" >&2; exit 1; }
  local q=(kadmin.local -r "$REALM" -q)
  "${q[@]}" "addprinc -randkey hbase/localhost@$REALM" >/dev/null 2>&1
  "${q[@]}" "ktadd -k $DIR/hbase.keytab hbase/localhost@$REALM" >/dev/null 2>&1
  for user in admin alice bob carol; do
    "${q[@]}" "addprinc -randkey $user@$REALM" >/dev/null 2>&1
    "${q[@]}" "ktadd -k $DIR/$user.keytab $user@$REALM" >/dev/null 2>&1
  done
  # Trust: OTHER.TEST's users get tickets for STRATA.TEST's services (one shared key, in both
  # databases).
  local trust
  trust="$(secret)"
  "${q[@]}" "addprinc -pw $trust krbtgt/$REALM@$OTHER" >/dev/null 2>&1
  kadmin.local -r "$OTHER" -q "addprinc -pw $trust krbtgt/$REALM@$OTHER" >/dev/null 2>&1
  trust=
  kadmin.local -r "$OTHER" -q "addprinc -randkey mallory@$OTHER" >/dev/null 2>&1
  kadmin.local -r "$OTHER" -q "ktadd -k $DIR/mallory.keytab mallory@$OTHER" >/dev/null 2>&1
  setsid krb5kdc -n -r "$REALM" -r "$OTHER" -P "$PIDFILE" >"$DIR/kdc.out" 2>&1 </dev/null &
  echo $! >"$PIDFILE"
  # Ready when a user gets a ticket.
  for _ in $(seq 100); do
    if KRB5CCNAME="FILE:$DIR/ccache-probe" kinit -k -t "$DIR/alice.keytab" "alice@$REALM" \
      >/dev/null 2>&1; then
      rm -f "$DIR/ccache-probe"
      echo "KDC for $REALM and $OTHER on 127.0.0.1:$port (pid $(cat "$PIDFILE")), directory $DIR"
      return 0
    fi
    if ! running_pid >/dev/null; then
      echo "krb5kdc exited while starting:" >&2
      cat "$DIR/kdc.out" "$DIR/kdc.log" 2>/dev/null | tail -20 >&2
      exit 1
    fi
    sleep 0.1
  done
  echo "the KDC did not answer in 10 s; log:" >&2
  tail -20 "$DIR/kdc.log" >&2 || true
  stop
  exit 1
}

stop() {
  local pid
  if pid="$(running_pid)"; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -rf "$DIR"
}

env_vars() {
  [ -f "$DIR/port" ] || { echo "no KDC in $DIR (scripts/kdc.sh start)" >&2; exit 1; }
  cat <<EOF
export KRB5_CONFIG=$KRB5_CONFIG
export STRATA_KDC_DIR=$DIR
export STRATA_KDC_PORT=$(cat "$DIR/port")
export STRATA_KDC_REALM=$REALM
export STRATA_KDC_OTHER_REALM=$OTHER
export STRATA_KDC_SERVICE_PRINCIPAL=hbase/localhost@$REALM
export STRATA_KDC_SERVICE_KEYTAB=$DIR/hbase.keytab
EOF
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) running_pid >/dev/null ;;
  env) env_vars ;;
  *)
    echo "usage: $0 start|stop|status|env" >&2
    exit 2
    ;;
esac
