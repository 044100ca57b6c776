#!/usr/bin/env bash
# Installs Debian's headless-capable Chromium for the web UI's browser tests
# (crates/http/tests/ui_chromium.rs), unless a Chromium is already on the PATH.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-chromium: no apt-get here; install Chromium yourself to run the UI tests" >&2
  exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
timeout 600 $SUDO apt-get update -qq
timeout 900 $SUDO apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
chromium --version
