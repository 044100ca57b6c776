#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer, nightly toolchain) of the authentication front ends:
# `hbase_rpc_connection` (HBase RPC's preambles, SASL GSSAPI tokens against a real GSSAPI
# acceptor, the connection header and calls) and `tls_accept` (a mutual-TLS listener's accept).
# Each target runs from the corpus in fuzz/corpus/TARGET; inputs that reach new code are merged
# back into it (commit them: the crates' tests replay the corpus on stable in every test run).
# A crash or a hang stops the script with the input saved under fuzz/artifacts/.
#
#   scripts/fuzz.sh [SECONDS]        # each target for SECONDS (default 60)
#
# Settings: FUZZ_TARGETS (default both), FUZZ_JOBS (parallel fuzzing processes per target,
# default 1). Builds in $CARGO_TARGET_DIR/fuzz (or target/fuzz), apart from the stable build.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
secs="${1:-60}"
targets="${FUZZ_TARGETS:-hbase_rpc_connection tls_accept}"
jobs="${FUZZ_JOBS:-1}"
rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
command -v ktutil >/dev/null || { echo "fuzz.sh: needs ktutil (apt-get install krb5-user)" >&2; exit 2; }
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}/fuzz"
# What cargo-fuzz passes for libFuzzer's coverage (without a sanitizer: the code under test
# forbids unsafe code; the GSSAPI library is C and not instrumented).
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
# With an explicit target the flags reach the fuzzed code, not build scripts and proc macros.
host=$(rustc +nightly -vV | sed -n 's/^host: //p')
(cd fuzz && cargo +nightly build --release --locked --bins --target "$host")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A throwaway service key, so SASL tokens reach the GSSAPI acceptor (no KDC is needed to
# refuse them; none of them can be valid).
printf '[libdefaults]\n default_realm = FUZZ.TEST\n' > "$work/krb5.conf"
export KRB5_CONFIG="$work/krb5.conf" KRB5RCACHETYPE=none
printf 'addent -password -p strata/localhost@FUZZ.TEST -k 1 -e aes256-cts-hmac-sha1-96\nfuzz-only\nwkt %s\nquit\n' \
  "$work/fuzz.keytab" | ktutil > /dev/null
export STRATA_FUZZ_KEYTAB="$work/fuzz.keytab" STRATA_FUZZ_PRINCIPAL=strata/localhost@FUZZ.TEST

# Several fuzzing processes only when asked: libFuzzer then writes each one's log (fuzz-N.log).
parallel=()
[ "$jobs" -gt 1 ] && parallel=(-jobs="$jobs" -workers="$jobs")
for t in $targets; do
  bin="$CARGO_TARGET_DIR/$host/release/$t"
  mkdir -p "$work/$t" "fuzz/corpus/$t" fuzz/artifacts
  echo "== $t: ${secs}s from $(find "fuzz/corpus/$t" -type f | wc -l) corpus inputs"
  # From the scratch directory, where the jobs' logs go.
  if ! (cd "$work" && "$bin" -max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
      ${parallel[@]+"${parallel[@]}"} -artifact_prefix="$ROOT/fuzz/artifacts/$t-" -print_final_stats=1 \
      "$work/$t" "$ROOT/fuzz/corpus/$t") > "$work/$t.log" 2>&1; then
    tail -40 "$work/$t.log" >&2
    echo "fuzz.sh: $t failed; the input is in fuzz/artifacts/" >&2
    exit 1
  fi
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$work/$t.log" || tail -3 "$work/$t.log"
  before=$(find "fuzz/corpus/$t" -type f | wc -l)
  "$bin" -merge=1 "fuzz/corpus/$t" "$work/$t" >> "$work/$t.log" 2>&1
  echo "$t: corpus $before -> $(find "fuzz/corpus/$t" -type f | wc -l) inputs"
done
