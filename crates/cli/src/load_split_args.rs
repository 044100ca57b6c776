//! `--load-split-qps`, `--load-split-secs` and `--load-split-min-mib`: when a region splits
//! because of its request rate (RFC 0028), for `standalone` and `regionserver`.

use std::time::Duration;

use strata_server::load_split::LoadSplitConfig;

/// When a region splits by load.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct LoadSplitArgs {
    /// Requests per second (gets, scan pages, mutated rows) at or above which a region is
    /// hot: one that stays hot for --load-split-secs splits at the row that balances its
    /// sampled requests, then the master balances the daughters. 0 turns splits by load off
    /// [default: 2500 for a region server; 0 for standalone, whose one server gains nothing
    /// from spreading a region's load].
    #[arg(long)]
    pub load_split_qps: Option<u64>,
    /// Seconds a region must stay at or above --load-split-qps before it splits by load.
    #[arg(long, default_value_t = LoadSplitConfig::DEFAULT_WINDOW.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub load_split_secs: u64,
    /// Regions smaller than this many MiB (store files and memtables) never split by load.
    #[arg(long, default_value_t = LoadSplitConfig::DEFAULT_MIN_BYTES >> 20)]
    pub load_split_min_mib: u64,
}

impl LoadSplitArgs {
    /// The settings these arguments give; `default_qps` when --load-split-qps is not given.
    pub fn config(self, default_qps: u64) -> LoadSplitConfig {
        LoadSplitConfig {
            qps: self.load_split_qps.unwrap_or(default_qps),
            window: Duration::from_secs(self.load_split_secs),
            min_bytes: self.load_split_min_mib.saturating_mul(1 << 20),
        }
    }
}
