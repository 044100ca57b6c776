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
use crate::kv::{Kv, LeaseId};
use crate::lease::Millis;
use crate::master::Master;
use crate::regionserver::RegionServer;
use crate::wal::{Fence, WalError, WalFencer};

/// Interval between ticks.
pub const TICK: Duration = Duration::from_millis(100);
/// Interval between ticks of a master or region server whose work is flowing (it committed
/// or acknowledged something within [`BUSY_WINDOW_MS`]): a procedure's steps then follow
/// each other within milliseconds instead of one idle tick apart each.
pub const BUSY_TICK: Duration = Duration::from_millis(5);
/// How long after its last progress a master or region server keeps ticking at [`BUSY_TICK`].
pub const BUSY_WINDOW_MS: u64 = 300;

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

    fn region_metrics(&self) -> Vec<(String, crate::region_metrics::RegionMetrics)> {
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
        let now = millis(start);
        master.tick(now);
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
        std::thread::sleep(if master.busy(now) { BUSY_TICK } else { TICK });
    }
    master.resign();
    report("resigned");
}

/// Runs `rs` until `stop` is set (then it stops serving and revokes its lease, so its regions are
/// recovered at once). A server that aborts (its lease lost: etcd unreachable past the deadline,
/// or the process paused) serves nothing from that instant; the process stays up and, after a
/// back-off ([`Backoff`]), registers a new incarnation made by `next` (given the lost lease, for
/// [`RegionServer::succeeding`]), again and again until etcd answers.
///
/// A failure of `next` (etcd still unreachable) is reported and tried again after the next
/// back-off.
pub fn run_regionserver<K: Kv, H: RegionHost>(
    mut rs: RegionServer<K, H>,
    mut next: impl FnMut(Option<LeaseId>) -> Result<RegionServer<K, H>, String>,
    stop: &AtomicBool,
    mut report: impl FnMut(&str),
) {
    let start = Instant::now();
    let mut live = false;
    let mut serving = 0;
    let mut backoff = Backoff::default();
    while !stop.load(Ordering::Relaxed) {
        let now = millis(start);
        rs.tick(now);
        if let Some(why) = rs.aborted() {
            report(&format!(
                "aborted ({why}): serves nothing; registers again as a new server"
            ));
            let lease = rs.lease_id();
            live = false;
            serving = 0;
            rs = loop {
                backoff.sleep(stop);
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                match next(lease) {
                    Ok(successor) => break successor,
                    Err(e) => report(&format!("cannot register again yet: {e}")),
                }
            };
            report(&format!("registering as {}", rs.name()));
            continue;
        }
        if rs.is_live(now) != live {
            live = !live;
            report(if live { "registered" } else { "not registered" });
            if live {
                backoff.reset();
            }
        }
        let n = rs.served(now).len();
        if n != serving {
            serving = n;
            report(&format!("serving {n} regions"));
        }
        std::thread::sleep(if rs.busy(now) { BUSY_TICK } else { TICK });
    }
    rs.leave();
    report("left the cluster");
}

/// Exponential back-off between attempts to come back after losing etcd: from 200 ms,
/// doubling, at most 5 s, with up to a quarter of jitter so that servers cut off together do
/// not return in lockstep.
#[derive(Debug, Clone)]
pub struct Backoff {
    next: Duration,
}

impl Backoff {
    /// The first wait.
    pub const FIRST: Duration = Duration::from_millis(200);
    /// The longest wait.
    pub const MAX: Duration = Duration::from_secs(5);

    /// The next wait (then doubles).
    pub fn next_wait(&mut self) -> Duration {
        let base = self.next;
        self.next = (self.next * 2).min(Self::MAX);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let jitter = base / 4 * (nanos % 1000) / 1000;
        base + jitter
    }

    /// Starts again from [`Backoff::FIRST`] (after a success).
    pub fn reset(&mut self) {
        self.next = Self::FIRST;
    }

    /// Sleeps the next wait, in short steps, returning early once `stop` is set.
    pub fn sleep(&mut self, stop: &AtomicBool) {
        let until = Instant::now() + self.next_wait();
        while Instant::now() < until && !stop.load(Ordering::Relaxed) {
            std::thread::sleep(
                Duration::from_millis(20).min(until.saturating_duration_since(Instant::now())),
            );
        }
    }
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff { next: Self::FIRST }
    }
}

/// Connects to etcd for a long-running process (5 s per request).
///
/// # Errors
/// No endpoint answered.
pub fn connect(endpoints: &[String]) -> Result<EtcdKv, String> {
    EtcdKv::connect(endpoints, Duration::from_secs(5))
        .map_err(|e| format!("etcd {endpoints:?}: {e}"))
}

/// The addresses of the live region servers of a cluster, from etcd (for clients).
///
/// # Errors
/// etcd cannot be reached, or no region server is registered.
pub fn server_addresses(etcd: &[String], cluster: &str) -> Result<Vec<String>, String> {
    let kv = connect(etcd)?;
    let layout = crate::layout::Layout::new(&format!("/strata/{cluster}"));
    let page = crate::kv::range_all(&kv, &layout.servers(), 1000)
        .map_err(|e| format!("etcd {etcd:?}: {e}"))?;
    let addrs: Vec<String> = page
        .kvs
        .into_iter()
        .map(|kv| String::from_utf8_lossy(&kv.value).into_owned())
        .collect();
    if addrs.is_empty() {
        return Err(format!(
            "no region server of cluster {cluster} is registered in etcd {etcd:?}"
        ));
    }
    Ok(addrs)
}
