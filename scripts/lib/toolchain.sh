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
