//! A cluster with data as real processes for the tests: `strata master` and `strata
//! regionserver`s on a real etcd (`STRATA_ETCD_ENDPOINTS`) and HDFS (`STRATA_HDFS_URL`), under
//! a cluster name and HDFS root unique to the test run.
#![allow(dead_code, clippy::unwrap_used)]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::support::Killed;

/// A cluster name of this test process and instant: `PREFIX-PID-NANOS`.
pub fn unique_name(prefix: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{prefix}-{}-{nanos}", std::process::id())
}

/// The flags of `strata CMD` (`master`, `regionserver`) in cluster `name` on etcd `etcd`, its
/// root `root`, with a 2 s lease, then `extra`.
pub fn node_args(cmd: &str, etcd: &str, name: &str, root: &str, extra: &[&str]) -> Vec<String> {
    [
        cmd,
        "--etcd",
        etcd,
        "--cluster",
        name,
        "--ttl",
        "2",
        "--root",
        root,
    ]
    .iter()
    .chain(extra)
    .map(|s| s.to_string())
    .collect()
}

/// Where the engines are.
pub struct Engines {
    /// etcd endpoints.
    pub etcd: String,
    /// `hdfs://host:port`.
    pub hdfs: String,
    /// The NameNode's HTTP address.
    pub http: String,
}

/// The engines from the environment; `None` (with a message) if one is missing, unless
/// `STRATA_REQUIRE_ETCD` / `STRATA_REQUIRE_HDFS` is set (then the test fails).
pub fn engines() -> Option<Engines> {
    let etcd = std::env::var("STRATA_ETCD_ENDPOINTS")
        .ok()
        .filter(|v| !v.is_empty());
    let hdfs = std::env::var("STRATA_HDFS_URL")
        .ok()
        .filter(|v| !v.is_empty());
    match (etcd, hdfs) {
        (Some(etcd), Some(hdfs)) => Some(Engines {
            etcd,
            hdfs,
            http: std::env::var("STRATA_HDFS_HTTP").unwrap_or_else(|_| "127.0.0.1:9870".into()),
        }),
        (etcd, hdfs) => {
            for (var, set) in [("ETCD", etcd.is_some()), ("HDFS", hdfs.is_some())] {
                assert!(
                    set || std::env::var_os(format!("STRATA_REQUIRE_{var}")).is_none(),
                    "STRATA_REQUIRE_{var} is set but the engine's address is not"
                );
            }
            eprintln!(
                "skipped: needs etcd and HDFS (scripts/etcd.sh start, scripts/hdfs.sh start; \
                 STRATA_ETCD_ENDPOINTS, STRATA_HDFS_URL)"
            );
            None
        }
    }
}

/// Starts `n` region servers on `common` (`regionserver` and its cluster flags), each on a free
/// loopback port with a 32 MiB memtable budget; returns each process and its address.
pub fn start_servers(common: &[String], n: usize) -> Vec<(Killed, String)> {
    (0..n)
        .map(|_| {
            let mut args = common.to_vec();
            args.extend(["--listen", "127.0.0.1:0", "--memtable-mib", "32"].map(String::from));
            let (child, line) = start(&args, "serving on ");
            let addr = line
                .split("serving on ")
                .nth(1)
                .and_then(|r| r.split_whitespace().next())
                .unwrap()
                .to_string();
            (child, addr)
        })
        .collect()
}

/// Starts `strata ARGS…` and waits for the stdout line containing `marker`; returns the
/// process (killed when dropped) and that line. Later output is drained.
pub fn start(args: &[String], marker: &str) -> (Killed, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let child = Killed(child);
    let (tx, rx) = std::sync::mpsc::channel();
    let wanted = marker.to_string();
    std::thread::spawn(move || {
        let mut sent = false;
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if !sent && line.contains(&wanted) {
                let _ = tx.send(line);
                sent = true;
            }
        }
    });
    let line = rx
        .recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("strata {args:?} did not print '{marker}' in 60 s"));
    (child, line)
}

/// A running cluster: one master and region servers.
pub struct Cluster {
    /// The cluster's name in etcd.
    pub name: String,
    /// Its HDFS root URL.
    pub root: String,
    /// The master process.
    pub master: Killed,
    /// Region server processes and their addresses.
    pub servers: Vec<(Killed, String)>,
    /// The arguments every region server starts with.
    server_args: Vec<String>,
}

impl Cluster {
    /// Starts a master and `n` region servers (lease TTL 2 s) under a fresh name `prefix-…`.
    pub fn start(e: &Engines, prefix: &str, n: usize) -> Cluster {
        Cluster::start_with(e, prefix, n, &[])
    }

    /// As [`Cluster::start`], with `server_args` added to every region server's.
    pub fn start_with(e: &Engines, prefix: &str, n: usize, server_args: &[String]) -> Cluster {
        Cluster::start_full(e, prefix, n, &[], server_args)
    }

    /// As [`Cluster::start_with`], with `master_args` added to the master's.
    pub fn start_full(
        e: &Engines,
        prefix: &str,
        n: usize,
        master_args: &[String],
        server_args: &[String],
    ) -> Cluster {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let name = format!("{prefix}-{}-{nanos}", std::process::id());
        let root = format!("{}/e2e/{name}", e.hdfs);
        let common = |cmd: &str| -> Vec<String> {
            [
                cmd,
                "--etcd",
                &e.etcd,
                "--cluster",
                &name,
                "--ttl",
                "2",
                "--root",
                &root,
                "--hdfs-http",
                &e.http,
            ]
            .iter()
            .map(|s| s.to_string())
            .collect()
        };
        let mut master_args_all = common("master");
        master_args_all.extend_from_slice(master_args);
        let (master, _) = start(&master_args_all, "active");
        let mut server_args_all = common("regionserver");
        server_args_all.extend_from_slice(server_args);
        let mut cluster = Cluster {
            name,
            root,
            master,
            servers: Vec::new(),
            server_args: server_args_all,
        };
        for _ in 0..n {
            cluster.add_server();
        }
        cluster
    }

    /// Starts one more region server (as the others) and returns its address.
    pub fn add_server(&mut self) -> String {
        let mut args = self.server_args.clone();
        args.extend(
            [
                "--listen",
                "127.0.0.1:0",
                "--memtable-mib",
                "32",
                "--block-cache-mib",
                "8",
            ]
            .map(String::from),
        );
        let (child, line) = start(&args, "serving on ");
        let addr = line
            .split("serving on ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .unwrap()
            .to_string();
        self.servers.push((child, addr.clone()));
        addr
    }

    /// The region servers' addresses.
    pub fn addrs(&self) -> Vec<String> {
        self.servers.iter().map(|(_, a)| a.clone()).collect()
    }
}
