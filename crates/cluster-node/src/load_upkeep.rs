//! Splits by load in a region server's upkeep (RFC 0028): each look at the open regions asks
//! every region's [`Decider`] whether it has been hot for a whole window; a region that has,
//! is large enough and has a row that splits its sampled requests about evenly is proposed
//! for a split at that row, through the master as a split by size is (so the daughters are
//! opened, recorded and balanced as any). Splits the master accepted are counted in
//! `strata_load_splits_total` once the region is gone from this server.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::Ordering;
use std::time::Instant;

use strata_model::ops::escape;
use strata_server::load_split::{Decider, LoadSplitConfig, Look};
use strata_server::{HostedRegion, RegionServer, RegionStats};

use crate::upkeep::RETRY;

/// The load side of one region server's upkeep.
#[derive(Default)]
pub struct LoadSplits {
    deciders: HashMap<String, Decider>,
    /// Regions whose split by load is requested, until the master answers.
    asked: BTreeSet<String>,
    /// Regions whose split by load the master accepted, and when.
    accepted: BTreeMap<String, Instant>,
    /// Regions hot and not split, whose reason was logged (once per hot spell).
    told: BTreeSet<String>,
}

impl LoadSplits {
    /// Looks at `name`'s load at `now`; answers the row to split it at and why, when due.
    pub fn check(
        &mut self,
        name: &str,
        hosted: &HostedRegion,
        stats: &RegionStats,
        config: &LoadSplitConfig,
        report: &mut dyn FnMut(String),
    ) -> Option<(Vec<u8>, String)> {
        let now = Instant::now();
        let decider = self.deciders.entry(name.to_owned()).or_default();
        let (rate, hot_for) = match decider.look(now, &hosted.load, config) {
            Look::Due { rate, hot_for } => (rate, hot_for),
            Look::Cool { .. } => {
                self.told.remove(name);
                return None;
            }
            Look::Warming { .. } => return None,
        };
        let hot = format!(
            "{name} took {rate} requests/s for {} s (load split threshold {} requests/s)",
            hot_for.as_secs(),
            config.qps
        );
        let size = stats.store_bytes + stats.memtable_bytes;
        if size < config.min_bytes {
            if self.told.insert(name.to_owned()) {
                report(format!(
                    "{hot} but holds {size} bytes, less than the load split minimum of {}: \
                     not split",
                    config.min_bytes
                ));
            }
            decider.again(now, &hosted.load);
            return None;
        }
        let start = hosted.region.info().start_row.clone();
        let Some(choice) = hosted.load.split_choice(&start) else {
            if self.told.insert(name.to_owned()) {
                report(format!(
                    "{hot} but no row splits its load evenly ({}): not split",
                    hosted.load.why_none(&start)
                ));
            }
            decider.again(now, &hosted.load);
            return None;
        };
        hosted.load.stop_sampling();
        self.deciders.remove(name);
        self.told.remove(name);
        let why = format!(
            "{hot}: split by load requested at row '{}' ({}% of {} sampled requests below it)",
            escape(&choice.row),
            choice.lower_percent(),
            choice.below + choice.at_or_above
        );
        Some((choice.row, why))
    }

    /// The split of `name` by load was requested.
    pub fn asked(&mut self, name: &str) {
        self.asked.insert(name.to_owned());
    }

    /// The master answered a split request of `name` (`accepted` or not).
    pub fn answered(&mut self, name: &str, accepted: bool) {
        if self.asked.remove(name) && accepted {
            self.accepted.insert(name.to_owned(), Instant::now());
        }
    }

    /// After a look at `open` (this server's open regions): counts accepted splits whose
    /// region is gone into `server`'s counters, and forgets what concerns regions gone (and
    /// accepted splits of regions still here after [`RETRY`]: rolled back).
    pub fn settle(&mut self, open: &[&String], server: &RegionServer) {
        let here = |r: &String| open.contains(&r);
        let mut done = 0;
        self.accepted.retain(|r, at| {
            if !here(r) {
                done += 1;
                return false;
            }
            at.elapsed() < RETRY
        });
        server
            .counters()
            .load_splits
            .fetch_add(done, Ordering::Relaxed);
        self.deciders.retain(|r, _| here(r));
        self.told.retain(|r| here(r));
    }
}
