//! The compaction throughput limit of a process's region servers: a setting that changes at
//! run time (HBase's `update_config` of `hbase.hstore.compaction.throughput.*`).
//!
//! Every region server built from a [`crate::ServerConfig`] attaches itself to the config's
//! [`CompactionThroughput`]; [`CompactionThroughput::set`] then reaches every region those
//! servers hold, and a region opened later starts with the value in force. A compaction
//! reads the limit when it starts, so one already running keeps its rate.
//!
//! # Invariants
//! A region's limit is written only under `inner`'s lock, after the region is in its
//! server's map: a region opened while the limit changes ends with the new value either way.

use std::sync::{Arc, Weak};

use parking_lot::Mutex;
use strata_storage::compaction::throughput::ThroughputConfig;
use strata_storage::region::Region;

use crate::RegionServer;

/// The limit in force and the servers that follow it.
#[derive(Debug)]
pub struct CompactionThroughput {
    inner: Mutex<Inner>,
}

#[derive(Debug)]
struct Inner {
    config: ThroughputConfig,
    /// Held weakly: a server that is dropped (a region server's past incarnation) leaves.
    servers: Vec<Weak<RegionServer>>,
}

impl CompactionThroughput {
    /// A limit of `config`, followed by no server yet.
    pub fn new(config: ThroughputConfig) -> Arc<CompactionThroughput> {
        Arc::new(CompactionThroughput {
            inner: Mutex::new(Inner {
                config,
                servers: Vec::new(),
            }),
        })
    }

    /// The limit in force.
    pub fn get(&self) -> ThroughputConfig {
        self.inner.lock().config
    }

    /// Changes the limit of every region of every attached server, and of regions opened
    /// later.
    pub fn set(&self, config: ThroughputConfig) {
        let mut inner = self.inner.lock();
        inner.config = config;
        inner.servers.retain(|s| s.strong_count() > 0);
        for server in inner.servers.iter().filter_map(Weak::upgrade) {
            for hosted in server.hosted_regions() {
                apply(&hosted.region, config);
            }
        }
    }

    /// Makes `server` follow the limit.
    pub(crate) fn attach(&self, server: &Arc<RegionServer>) {
        let mut inner = self.inner.lock();
        inner.servers.retain(|s| s.strong_count() > 0);
        inner.servers.push(Arc::downgrade(server));
    }

    /// Gives a just-opened region the limit in force.
    pub(crate) fn apply_to(&self, region: &Region) {
        let inner = self.inner.lock();
        apply(region, inner.config);
    }
}

impl Default for CompactionThroughput {
    fn default() -> Self {
        CompactionThroughput {
            inner: Mutex::new(Inner {
                config: ThroughputConfig::default(),
                servers: Vec::new(),
            }),
        }
    }
}

fn apply(region: &Region, config: ThroughputConfig) {
    let mut options = region.compaction_options();
    if options.throughput == config {
        return;
    }
    options.throughput = config;
    // Only the throughput differs from settings the region already accepted.
    if let Err(e) = region.set_compaction_options(options) {
        tracing::warn!(region = region.info().region_id, error = %e, "compaction throughput not applied");
    }
}
