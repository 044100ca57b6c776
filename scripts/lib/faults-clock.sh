# Sourced by scripts/faults.sh (RFC 0021): a region server's wall clock the harness can step,
# through Debian's libfaketime, with the harness's helpers (log, WORK). Do not run it.
#
# The server runs with libfaketime preloaded, reading its offset from a file on every call
# (FAKETIME_NO_CACHE): "+0" normally, "+30" or "-30" (seconds) while a clock jump is held.
# Only the wall clock (CLOCK_REALTIME) moves, as when NTP steps a clock: CLOCK_MONOTONIC,
# which leases, timeouts and timers read, does not (FAKETIME_DONT_FAKE_MONOTONIC).

FAKETIME_LIB=/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1

ensure_faketime() {
  [ -f "$FAKETIME_LIB" ] && return 0
  if command -v apt-get >/dev/null 2>&1; then
    echo "installing faketime (libfaketime) with apt-get" >&2
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq faketime; } >/dev/null
  fi
  [ -f "$FAKETIME_LIB" ] || { echo "faults.sh: needs $FAKETIME_LIB (apt-get install faketime)" >&2; return 2; }
}

# clock_env HOST: the command prefix that gives HOST's process its steppable clock.
clock_env() {
  echo "+0" >"$WORK/clock-$1"
  echo env "LD_PRELOAD=$FAKETIME_LIB" "FAKETIME_TIMESTAMP_FILE=$WORK/clock-$1" \
    FAKETIME_NO_CACHE=1 FAKETIME_DONT_FAKE_MONOTONIC=1
}

now_us() { echo $(($(date +%s%N) / 1000)); }

# clock_step HOST SECONDS: HOST's wall clock jumps by SECONDS (signed). Remembers where its
# log was, so that the checker takes the times logged meanwhile back to the real clock.
CLOCK_STEPPED=""
clock_step() {
  local h="$1" s="$2"
  CLOCK_FROM="$(stat -c %s "$WORK/$h.log")"
  CLOCK_AT="$(now_us)"
  CLOCK_OFFSET="$s"
  CLOCK_STEPPED="$h"
  if [ "$s" -ge 0 ]; then echo "+$s" >"$WORK/clock-$h"; else echo "$s" >"$WORK/clock-$h"; fi
}

# Steps a stepped clock back to the real time and logs the shift (for `-clock-shifts`).
clock_reset() {
  [ -n "$CLOCK_STEPPED" ] || return 0
  local h="$CLOCK_STEPPED"
  echo "+0" >"$WORK/clock-$h"
  printf '{"log":"%s","from_byte":%s,"to_byte":%s,"offset_us":%s,"injected_unix_us":%s,"healed_unix_us":%s}\n' \
    "$WORK/$h.log" "$CLOCK_FROM" "$(stat -c %s "$WORK/$h.log")" $((CLOCK_OFFSET * 1000000)) \
    "$CLOCK_AT" "$(now_us)" >>"$WORK/clock.jsonl"
  CLOCK_STEPPED=""
}
