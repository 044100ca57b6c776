//! `--memory-tuner` and its settings: the region server moves memory between the memtable
//! budget, the block cache and the row cache by load (RFC 0031), for `standalone` and
//! `regionserver`.

use std::time::Duration;

use strata_server::memory_tuner::{MemoryTunerConfig, ShareBounds};

/// The memory tuner's flags.
#[derive(clap::Args, Debug, Clone)]
pub struct MemoryTunerArgs {
    /// Moves memory between the memtable budget (--memtable-mib), the block cache
    /// (--block-cache-mib) and the row cache (--row-cache-mib) by load, keeping their sum:
    /// to memtables when writes wait or flushes come early for memory, to a cache that
    /// evicts when full; the sizes given are where the split starts. Off: they stay fixed.
    #[arg(long)]
    pub memory_tuner: bool,
    /// Milliseconds between the memory tuner's decisions (HBase's tuner period is a minute).
    #[arg(long, default_value_t = 10_000,
          value_parser = clap::value_parser!(u64).range(50..=3_600_000))]
    pub memory_tuner_period_ms: u64,
    /// The memory tuner's largest step, in percent of the three sizes' sum; steps halve
    /// each time the direction reverses.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u8).range(1..=50))]
    pub memory_tuner_step_percent: u8,
    /// The memtable budget's smallest share of the sum under the memory tuner, percent.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u8).range(0..=100))]
    pub memtable_min_percent: u8,
    /// The memtable budget's largest share of the sum under the memory tuner, percent.
    #[arg(long, default_value_t = 75, value_parser = clap::value_parser!(u8).range(0..=100))]
    pub memtable_max_percent: u8,
    /// The block cache's smallest share of the sum under the memory tuner, percent.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u8).range(0..=100))]
    pub block_cache_min_percent: u8,
    /// The block cache's largest share of the sum under the memory tuner, percent.
    #[arg(long, default_value_t = 70, value_parser = clap::value_parser!(u8).range(0..=100))]
    pub block_cache_max_percent: u8,
    /// The row cache's smallest share of the sum under the memory tuner, percent.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(0..=100))]
    pub row_cache_min_percent: u8,
    /// The row cache's largest share of the sum under the memory tuner, percent.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u8).range(0..=100))]
    pub row_cache_max_percent: u8,
}

impl MemoryTunerArgs {
    /// The tuner's settings (checked against the sizes when the server opens).
    pub fn config(&self) -> MemoryTunerConfig {
        MemoryTunerConfig {
            enabled: self.memory_tuner,
            period: Duration::from_millis(self.memory_tuner_period_ms),
            max_step_percent: self.memory_tuner_step_percent,
            memtables: ShareBounds {
                min_percent: self.memtable_min_percent,
                max_percent: self.memtable_max_percent,
            },
            block_cache: ShareBounds {
                min_percent: self.block_cache_min_percent,
                max_percent: self.block_cache_max_percent,
            },
            row_cache: ShareBounds {
                min_percent: self.row_cache_min_percent,
                max_percent: self.row_cache_max_percent,
            },
        }
    }
}
