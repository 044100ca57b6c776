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
