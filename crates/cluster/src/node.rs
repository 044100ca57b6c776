//! Running a master or a region server as a process: a loop that ticks the state machine every
//! 100 ms on a monotonic clock against etcd, reports changes, and leaves cleanly when asked.
//!
//! Until the shared log store and region opening on shared storage are wired in, a cluster runs
//! **coordination only**: region servers keep no WAL ([`NoWal`]: nothing to fence or split) and
//! hold no data ([`Unbacked`]: opening a region records it). Election, registration, leases,
//! assignment, moves and crash recovery all run for real.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::etcd::EtcdKv;
use crate::host::RegionHost;
use crate::kv::Kv;
use crate::lease::Millis;
use crate::master::Master;
use crate::regionserver::RegionServer;
use crate::wal::{Fence, WalError, WalFencer};

/// Interval between ticks.
pub const TICK: Duration = Duration::from_millis(100);

/// The fencer of a cluster whose region servers keep no WAL: there is nothing to fence or split.
pub struct NoWal;

impl WalFencer for NoWal {
    fn fence(&self, _server: &str, _now: Millis) -> Result<Fence, WalError> {
        Ok(Fence::Done)
    }

    fn split(&self, _server: &str) -> Result<(), WalError> {
        Ok(())
    }
}

/// A region host that holds no data: it records which regions are open.
#[derive(Default)]
pub struct Unbacked {
    open: Mutex<BTreeSet<String>>,
}

impl Unbacked {
    fn regions(&self) -> std::sync::MutexGuard<'_, BTreeSet<String>> {
        self.open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl RegionHost for Unbacked {
    fn open(&self, region: &str, _epoch: u64) -> Result<(), String> {
        self.regions().insert(region.to_string());
        Ok(())
    }

    fn close(&self, region: &str) -> Result<(), String> {
        self.regions().remove(region);
        Ok(())
    }

    fn abort(&self) {
        self.regions().clear();
    }

    fn try_open(&self, region: &str, epoch: u64) -> Option<Result<(), String>> {
        Some(self.open(region, epoch))
    }

    fn try_close(&self, region: &str) -> Option<Result<(), String>> {
        Some(self.close(region))
    }

    fn cancel_open(&self, _region: &str) {}

    fn try_split(
        &self,
        _region: &str,
        _epoch: u64,
        _daughters: &(String, String),
        _row: Option<&[u8]>,
    ) -> Option<Result<Vec<u8>, String>> {
        Some(Err("this region server cannot split regions".into()))
    }

    fn try_merge(&self, _low: &str, _high: &str, _merged: &str) -> Option<Result<(), String>> {
        Some(Err("this region server cannot merge regions".into()))
    }

    fn requests(&self) -> Vec<(String, crate::load::Accesses)> {
        Vec::new()
    }
}

fn millis(start: Instant) -> Millis {
    u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Runs `master` until `stop` is set, then resigns (a standby takes over at once).
/// `report` receives one line per change of role.
pub fn run_master<K: Kv, F: WalFencer>(
    mut master: Master<K, F>,
    stop: &AtomicBool,
    mut report: impl FnMut(&str),
) {
    let start = Instant::now();
    let mut epoch = None;
    report("standing by");
    while !stop.load(Ordering::Relaxed) {
        master.tick(millis(start));
        if master.epoch() != epoch {
            epoch = master.epoch();
            match epoch {
                Some(e) => report(&format!(
                    "active (epoch {e}), {} regions",
                    master.regions().len()
                )),
                None => report("standing by"),
            }
        }
        std::thread::sleep(TICK);
    }
    master.resign();
    report("resigned");
}

/// Runs `rs` until `stop` is set (then it stops serving and revokes its lease, so its regions are
/// recovered at once) or until it loses its lease.
///
/// # Errors
/// The server aborted (the reason): the process should exit; a restart registers under a new
/// start code.
pub fn run_regionserver<K: Kv, H: RegionHost>(
    mut rs: RegionServer<K, H>,
    stop: &AtomicBool,
    mut report: impl FnMut(&str),
) -> Result<(), String> {
    let start = Instant::now();
    let mut live = false;
    let mut serving = 0;
    while !stop.load(Ordering::Relaxed) {
        let now = millis(start);
        rs.tick(now);
        if let Some(why) = rs.aborted() {
            return Err(why.to_string());
        }
        if rs.is_live(now) != live {
            live = !live;
            report(if live { "registered" } else { "not registered" });
        }
        let n = rs.served(now).len();
        if n != serving {
            serving = n;
            report(&format!("serving {n} regions"));
        }
        std::thread::sleep(TICK);
    }
    rs.leave();
    report("left the cluster");
    Ok(())
}

/// Connects to etcd for a long-running process (5 s per request).
///
/// # Errors
/// No endpoint answered.
pub fn connect(endpoints: &[String]) -> Result<EtcdKv, String> {
    EtcdKv::connect(endpoints, Duration::from_secs(5))
        .map_err(|e| format!("etcd {endpoints:?}: {e}"))
}
