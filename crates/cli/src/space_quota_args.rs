//! `--space-quota-period-ms`: how often region servers report their usage for space quotas
//! and the active master decides the quotas' states (RFC 0029).

use std::time::Duration;

/// The space quota period, shared by `standalone`, `regionserver` and `master`.
#[derive(clap::Args, Debug, Clone)]
pub struct SpaceQuotaArgs {
    /// Milliseconds between a region server's reports of its tables' store file bytes, and
    /// between the active master's decisions of each space quota's state (HBase's
    /// region size and quota observer chores, a minute there by default). A write past a
    /// limit is refused within about two periods.
    #[arg(long, default_value_t = 10_000,
          value_parser = clap::value_parser!(u64).range(50..=3_600_000))]
    pub space_quota_period_ms: u64,
}

impl SpaceQuotaArgs {
    /// The period.
    pub fn period(&self) -> Duration {
        Duration::from_millis(self.space_quota_period_ms)
    }
}
