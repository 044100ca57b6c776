//! A region server's background upkeep in cluster mode, as the standalone master's `upkeep`:
//! a split daughter that still reads its parent's files through references is compacted (so
//! the master's janitor can delete the parent, and the daughter can split again), and a region
//! whose largest store passed its table's split size is proposed for a split through the
//! master (`request/<id>` in etcd), then again [`RETRY`] after the master answered if the region
//! is still here under the same name (a split gives new names): the request was refused, or the
//! split failed and rolled back (the region server tries a failed split again only after a
//! back-off of its own, `RegionServerConfig::split_backoff_ms`). A region hot by its request
//! rate is proposed for a split at a row that balances its load the same way
//! ([`crate::load_upkeep`], RFC 0028).
//!
//! Every `compaction_check_every` (by default [`strata_server::host::COMPACTION_CHECK_EVERY`],
//! as standalone's master) it also queues a compaction check of every open region, so idle
//! regions get what comes due with time alone: periodic majors, the drop of files wholly past
//! their family's TTL, and tier moves. The decisions are the engine's
//! (`Region::run_requested_compaction`), the same as after a flush.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use strata_cluster::kv::Kv;
use strata_cluster::layout::{region_table, Layout};
use strata_cluster::master::{submit_request, take_result, AdminRequest, Switch};

use crate::host::StorageHost;
use crate::load_upkeep::LoadSplits;

/// How long after the master answered a split request the same region, still here and still
/// past its split size, is proposed again.
pub const RETRY: Duration = Duration::from_secs(30);

/// Upkeep state of one region server.
pub struct Upkeep<K: Kv> {
    host: StorageHost<K>,
    kv: Arc<K>,
    layout: Layout,
    name: String,
    /// Split requests made: region → (request id, when).
    requested: BTreeMap<String, (Option<String>, Instant)>,
    counter: u64,
    /// How often the open regions get a compaction check (zero: never).
    compaction_check_every: Duration,
    /// When they last got one (the upkeep's start at first).
    last_check: Instant,
    /// Splits by load.
    load: LoadSplits,
}

impl<K: Kv + Send + Sync + 'static> Upkeep<K> {
    /// Upkeep of the regions `host` serves for server `name`, requesting splits through `kv`.
    pub fn new(host: StorageHost<K>, kv: Arc<K>, layout: Layout, name: String) -> Self {
        Upkeep {
            host,
            kv,
            layout,
            name,
            requested: BTreeMap::new(),
            counter: 0,
            compaction_check_every: strata_server::host::COMPACTION_CHECK_EVERY,
            last_check: Instant::now(),
            load: LoadSplits::default(),
        }
    }

    /// Checks every open region for compactions due with time every `every` instead of
    /// [`strata_server::host::COMPACTION_CHECK_EVERY`]; zero turns the check off.
    #[must_use]
    pub fn with_compaction_checks(mut self, every: Duration) -> Self {
        self.compaction_check_every = every;
        self
    }

    /// Queues a compaction check of every open region once `compaction_check_every` passed
    /// since the last; answers whether it did.
    fn compaction_checks(&mut self) -> bool {
        let every = self.compaction_check_every;
        if every.is_zero() || self.last_check.elapsed() < every {
            return false;
        }
        self.last_check = Instant::now();
        self.host.server().request_compaction_checks();
        true
    }

    /// One round over the open regions; `report` gets a line per action.
    pub fn round(&mut self, report: &mut dyn FnMut(String)) {
        self.collect_results(report);
        if self.compaction_checks() {
            tracing::debug!("compaction check of every open region queued");
        }
        let server = self.host.server().clone();
        let open = self.host.open_regions();
        // While the cluster's split switch is off the master refuses every split: propose
        // none (one read a round; unreadable counts as on, and the master still decides).
        let splits_on = crate::switches::get(
            self.kv.as_ref(),
            &self.layout,
            crate::switches::Named::Procedure(Switch::Split),
        )
        .ok()
        .is_none_or(|r| r.on);
        let mut per_table: BTreeMap<&str, u32> = BTreeMap::new();
        for (name, _) in &open {
            *per_table.entry(region_table(name)).or_default() += 1;
        }
        for (name, id) in &open {
            let Ok(stats) = server.region_stats(*id) else {
                continue;
            };
            if stats.has_references {
                match server.compact_region(*id, None, false) {
                    Ok(()) => report(format!("compacted the split references of {name}")),
                    Err(e) => report(format!("compaction of {name} failed: {e}")),
                }
                continue;
            }
            let Ok(hosted) = server.hosted(*id) else {
                continue;
            };
            if !splits_on || !hosted.table.split_enabled {
                continue; // the switch, or `SPLIT_ENABLED => false`: neither by size nor load
            }
            // HBase's increasing policy counts the table's regions on this server.
            let generation = per_table
                .get(region_table(name))
                .map_or(0, |n| n.saturating_sub(1));
            let Some(limit) = hosted.table.split_size(generation) else {
                continue;
            };
            if self.requested.contains_key(name) {
                continue;
            }
            if stats.largest_store_bytes <= limit {
                let config = &server.config().load_split;
                if let Some((row, why)) = self.load.check(name, &hosted, &stats, config, report) {
                    if self.request_split(name, Some(row), why, report) {
                        self.load.asked(name);
                    }
                }
                continue;
            }
            let why = format!(
                "{name} has {} bytes in its largest store (split size {limit}): split requested",
                stats.largest_store_bytes
            );
            self.request_split(name, None, why, report);
        }
        // Forget regions no longer here (split or moved) once their request was answered.
        let open: Vec<&String> = open.iter().map(|(n, _)| n).collect();
        self.requested
            .retain(|r, (id, _)| id.is_some() || open.contains(&r));
        self.load.settle(&open, &server);
    }

    /// Asks the master to split `name` (at `row`, or its middle key); `why` is reported once
    /// the request is made. Answers whether it was.
    fn request_split(
        &mut self,
        name: &str,
        row: Option<Vec<u8>>,
        why: String,
        report: &mut dyn FnMut(String),
    ) -> bool {
        self.counter += 1;
        let id = format!(
            "split-{}-{}-{}",
            self.name.replace(':', "_"),
            std::process::id(),
            self.counter
        );
        let req = AdminRequest::Split {
            region: name.to_owned(),
            row,
        };
        match submit_request(self.kv.as_ref(), &self.layout, &id, &req) {
            Ok(()) => {
                report(why);
                self.requested
                    .insert(name.to_owned(), (Some(id), Instant::now()));
                true
            }
            Err(e) => {
                report(format!("split request for {name} failed: {e}"));
                false
            }
        }
    }

    /// Reads (and deletes) the master's answers to the split requests made; a region still
    /// here may be proposed again [`RETRY`] after the answer (refused, or accepted and rolled
    /// back).
    fn collect_results(&mut self, report: &mut dyn FnMut(String)) {
        let now = Instant::now();
        for (region, (id, when)) in &mut self.requested {
            if let Some(req) = id.clone() {
                if let Ok(Some(result)) = take_result(self.kv.as_ref(), &self.layout, &req) {
                    if result.starts_with("rejected") {
                        report(format!("split of {region}: {result}"));
                    }
                    self.load.answered(region, !result.starts_with("rejected"));
                    *when = now;
                    *id = None;
                }
            }
        }
        self.requested
            .retain(|_, (id, when)| id.is_some() || now < *when + RETRY);
    }
}

/// Runs [`Upkeep::round`] every `period` on a thread of its own until `stop` is set.
pub fn spawn<K: Kv + Send + Sync + 'static>(
    mut upkeep: Upkeep<K>,
    period: Duration,
    stop: Arc<AtomicBool>,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name("region-upkeep".into())
        .spawn(move || {
            let mut next = Instant::now() + period;
            while !stop.load(Ordering::Relaxed) {
                if Instant::now() >= next {
                    upkeep.round(&mut |line| tracing::info!("{line}"));
                    next = Instant::now() + period;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        })
}
