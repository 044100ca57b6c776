# Sourced by the scripts: makes sure a Rust toolchain with rustfmt and clippy is present.
ensure_rust() {
  if ! command -v cargo >/dev/null 2>&1; then
    if [ -x "$HOME/.cargo/bin/cargo" ]; then
      export PATH="$HOME/.cargo/bin:$PATH"
    else
      echo "installing Rust with rustup" >&2
      curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
      export PATH="$HOME/.cargo/bin:$PATH"
    fi
  fi
  if command -v rustup >/dev/null 2>&1; then
    for c in rustfmt clippy; do
      rustup component list --installed 2>/dev/null | grep -q "^$c" || rustup component add "$c"
    done
  fi
}

# Sets STRATA, the benchmarks' server binary: $STRATA_BIN when given (no build), else the
# release build of this tree, built first.
release_strata() {
  if [ -n "${STRATA_BIN:-}" ]; then
    STRATA="$STRATA_BIN"
  else
    ensure_rust
    cargo build --release --locked -q -p strata-cli --bin strata
    STRATA="${CARGO_TARGET_DIR:-target}/release/strata"
  fi
}

# Sets STRATA, the test scripts' server binary: $STRATA_BIN when given (no build;
# scripts/test.sh passes the one its `cargo test --workspace` built), else the debug build of
# this tree, built first.
debug_strata() {
  if [ -n "${STRATA_BIN:-}" ]; then
    STRATA="$STRATA_BIN"
  else
    ensure_rust
    cargo build -q -p strata-cli --bin strata
    STRATA="${CARGO_TARGET_DIR:-$PWD/target}/debug/strata"
  fi
}

# workspace_test PACKAGE TARGET [TEST ARGS...]: runs one integration-test target. After
# scripts/test.sh's `cargo test --workspace` (STRATA_WORKSPACE_TESTS=1) it runs that build's
# own binary of it, from its package's directory as cargo does: asking cargo for one package
# (`-p`) or one target resolves dependencies' features differently and rebuilds a share of the
# workspace (minutes on two cores). Otherwise `cargo test -p PACKAGE --test TARGET`.
workspace_test() {
  local pkg="$1" target="$2" found exe
  shift 2
  if [ "${STRATA_WORKSPACE_TESTS:-0}" != 1 ]; then
    cargo test -q --locked -p "$pkg" --test "$target" -- "$@"
    return
  fi
  found="$(cargo test --workspace --locked --no-run --message-format=json 2>/dev/null |
    python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    t = m.get("target") or {}
    if (m.get("reason") == "compiler-artifact" and t.get("name") == sys.argv[1]
            and t.get("kind") == ["test"] and m.get("executable")):
        print(m["executable"])
        print(m["manifest_path"])
        break
' "$target")"
  exe="$(sed -n 1p <<<"$found")"
  if [ -z "$exe" ]; then
    echo "workspace_test: no test target $target in the workspace's test build" >&2
    return 2
  fi
  (cd "$(dirname "$(sed -n 2p <<<"$found")")" && "$exe" "$@")
}

# Makes sure `go` is on PATH: /usr/local/go's if present, else Debian's golang-go (as root).
ensure_go() {
  command -v go >/dev/null 2>&1 && return 0
  if [ -x /usr/local/go/bin/go ]; then
    export PATH="/usr/local/go/bin:$PATH"
  elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing golang-go with apt-get" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq golang-go >/dev/null
  else
    echo "go is not installed: install Debian's golang-go (as root)" >&2
    return 2
  fi
}

# Builds tools/linearizability (its module from the Go module proxy, pinned by go.sum) into
# the cache unless built from the same sources already; prints the binary's path.
build_linearizability() {
  local cache="${STRATA_CACHE_DIR:-$HOME/.cache/strata}" sum bin
  ensure_go || return 2
  sum="$(cat tools/linearizability/go.* tools/linearizability/*.go | sha256sum | cut -c1-16)"
  bin="$cache/linearizability-$sum"
  if [ ! -x "$bin" ]; then
    mkdir -p "$cache"
    (cd tools/linearizability && GOFLAGS=-mod=readonly timeout 300 go build -o "$bin.tmp" .) >&2
    mv "$bin.tmp" "$bin"
  fi
  echo "$bin"
}

# Builds Toxiproxy's server (github.com/Shopify/toxiproxy/v2 at a pinned version, from the Go
# module proxy, checked against Go's checksum database) into the cache unless built; prints
# the binary's path.
build_toxiproxy() {
  local cache="${STRATA_CACHE_DIR:-$HOME/.cache/strata}" version=v2.9.0 bin
  ensure_go || return 2
  bin="$cache/toxiproxy-$version"
  if [ ! -x "$bin" ]; then
    mkdir -p "$cache/toxiproxy-build"
    (cd "$cache" && env -u GOFLAGS GOBIN="$cache/toxiproxy-build" timeout 300 \
      go install "github.com/Shopify/toxiproxy/v2/cmd/server@$version") >&2
    mv "$cache/toxiproxy-build/server" "$bin"
  fi
  echo "$bin"
}
