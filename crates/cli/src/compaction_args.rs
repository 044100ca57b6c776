//! `--compaction-throughput-lower-mib` and `--compaction-throughput-upper-mib`: the
//! process's compaction write-rate limit (HBase's
//! `hbase.hstore.compaction.throughput.{lower,higher}.bound`), which a configuration reload
//! changes without a restart.

use std::sync::{Arc, OnceLock};

use strata_server::compaction_throughput::CompactionThroughput;
use strata_storage::compaction::throughput::ThroughputConfig;

/// The process's one limit, shared by every region server it starts (a region server's
/// incarnations, a cluster of one) and by the configuration reload.
static SHARED: OnceLock<Arc<CompactionThroughput>> = OnceLock::new();

/// The compaction write-rate limit.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct CompactionThroughputArgs {
    /// MiB per second compactions write at when a store has few files (pressure 0); the
    /// rate rises with the store's file count to the upper bound. 0: no limit. Reloadable.
    #[arg(long, default_value_t = 50)]
    pub compaction_throughput_lower_mib: u64,
    /// MiB per second compactions write at once a store reaches its blocking file count
    /// (pressure 1); past it, no limit. Reloadable.
    #[arg(long, default_value_t = 100)]
    pub compaction_throughput_upper_mib: u64,
}

impl CompactionThroughputArgs {
    /// The limit these arguments give.
    pub fn config(self) -> ThroughputConfig {
        ThroughputConfig {
            lower_bytes_per_sec: self.compaction_throughput_lower_mib << 20,
            upper_bytes_per_sec: self.compaction_throughput_upper_mib << 20,
            enabled: self.compaction_throughput_lower_mib > 0,
        }
    }

    /// The process's limit, set from these arguments the first time it is asked for.
    pub fn shared(self) -> Arc<CompactionThroughput> {
        SHARED
            .get_or_init(|| CompactionThroughput::new(self.config()))
            .clone()
    }
}

/// The process's limit, if a region server of the process has asked for it.
pub fn shared() -> Option<Arc<CompactionThroughput>> {
    SHARED.get().cloned()
}
