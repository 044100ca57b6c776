//! Fixtures for Strata's tests (a dev-dependency only). [`Single`] is `strata standalone` in
//! the test's own process: the cluster's master and one region server over the embedded
//! coordination store on a directory the test owns (RFC 0019, "A cluster of one"), with the
//! data and admin services, HBase RPC and the HTTP endpoint on free loopback ports.
//! [`fixtures`]: tables, regions, keys and a bare region server, as most tests want them.
//!
//! Fixtures that run the `strata` binary as processes (a standalone server, a cluster of
//! `strata master` and `strata regionserver` on etcd and HDFS, an etcd or HDFS of a test's
//! own) live beside the binary's tests, in `crates/cli/tests/support/`, since only that
//! crate's tests are given the binary's path.
#![allow(clippy::unwrap_used)]

pub mod fixtures;
mod logs;

pub use logs::Captured;

use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::Duration;

use strata_cluster_node::serve::Endpoints;
use strata_cluster_node::single::{self, SingleConfig};
use strata_server::{DataService, RegionServer, ServerConfig};

/// Settings for a [`Single`] on `dir`: ports picked by the system, every endpoint on, small
/// memory settings, no periodic janitor.
pub fn config(dir: &Path) -> SingleConfig {
    let mut server = ServerConfig::new(dir.to_path_buf(), String::new());
    server.memtable_budget_bytes = 64 << 20;
    server.block_cache_bytes = 8 << 20;
    let any: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let mut config = SingleConfig::new(server, any);
    config.endpoints = Endpoints {
        http: Some(any),
        hbase_rpc: Some(any),
        ..Endpoints::default()
    };
    config.janitor_every = Duration::ZERO;
    config
}

/// How long [`Single::start_with`] waits, once the server listens, for it to register.
const REGISTERED_WITHIN: Duration = Duration::from_secs(30);

/// A one-process Strata running on threads of the test's process; stopped (regions flushed
/// and closed) by [`Single::stop`] or when dropped.
pub struct Single {
    /// Where the data and admin services listen (gRPC and the framed protocol).
    pub addr: SocketAddr,
    /// Where HBase RPC listens, if it runs.
    pub hbase_rpc: Option<SocketAddr>,
    /// Where the HTTP endpoint listens, if it runs.
    pub http: Option<SocketAddr>,
    data: DataService,
    stop: Arc<AtomicBool>,
    running: Option<JoinHandle<Result<(), String>>>,
}

impl Single {
    /// Starts one on `dir` with [`config`]'s settings.
    ///
    /// # Panics
    /// It did not start.
    pub fn start(dir: &Path) -> Single {
        Single::start_with(config(dir)).unwrap()
    }

    /// Starts one with `config`, returning once it listens.
    ///
    /// # Errors
    /// Why it did not start (the root in use, a port taken, recovery).
    pub fn start_with(config: SingleConfig) -> Result<Single, String> {
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = mpsc::channel();
        let running = {
            let stop = stop.clone();
            std::thread::Builder::new()
                .name("single".into())
                .spawn(move || {
                    single::run(
                        config,
                        &stop,
                        |_| {},
                        |node| {
                            let _ = tx.send((
                                node.addr,
                                node.hbase_rpc,
                                node.http,
                                node.data().clone(),
                                node.gate(),
                            ));
                        },
                    )
                })
                .map_err(|e| e.to_string())?
        };
        match rx.recv() {
            Ok((addr, hbase_rpc, http, data, gate)) => {
                let single = Single {
                    addr,
                    hbase_rpc,
                    http,
                    data,
                    stop,
                    running: Some(running),
                };
                // Listening is not yet registered: until the first lease, the server is not
                // among the live ones (admin calls naming it would be refused) and serves
                // nothing. A test starts from a server that is up, as a user's `strata
                // standalone` is once it logs "registered".
                let deadline = std::time::Instant::now() + REGISTERED_WITHIN;
                while !gate.is_open() {
                    if std::time::Instant::now() > deadline {
                        return Err(format!(
                            "not registered within {}s of listening",
                            REGISTERED_WITHIN.as_secs()
                        ));
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
                Ok(single)
            }
            Err(_) => Err(running
                .join()
                .map_err(|_| "it panicked while starting".to_string())?
                .err()
                .unwrap_or_else(|| "it stopped while starting".into())),
        }
    }

    /// Where the data and admin services listen.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The address as clients spell it.
    pub fn address(&self) -> String {
        self.addr.to_string()
    }

    /// The HBase RPC listener's address.
    ///
    /// # Panics
    /// HBase RPC is off.
    pub fn hbase_rpc(&self) -> SocketAddr {
        self.hbase_rpc.expect("HBase RPC is on")
    }

    /// The HTTP endpoint's address.
    ///
    /// # Panics
    /// The HTTP endpoint is off.
    pub fn http(&self) -> SocketAddr {
        self.http.expect("the HTTP endpoint is on")
    }

    /// The data service (behind the region server's lease gate), for a front end in the
    /// test's process.
    pub fn data(&self) -> &DataService {
        &self.data
    }

    /// The region server.
    pub fn region_server(&self) -> &Arc<RegionServer> {
        self.data.region_server()
    }

    /// Stops it: every region flushed and closed, the master resigned.
    ///
    /// # Errors
    /// The clean shutdown failed (the reason).
    pub fn stop(mut self) -> Result<(), String> {
        self.finish()
    }

    fn finish(&mut self) -> Result<(), String> {
        self.stop.store(true, Ordering::SeqCst);
        match self.running.take() {
            Some(running) => running.join().map_err(|_| "it panicked".to_string())?,
            None => Ok(()),
        }
    }
}

impl Drop for Single {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}
