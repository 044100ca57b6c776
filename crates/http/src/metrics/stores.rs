//! Store-level figures the compactor acts on: the compaction throughput limit now in force
//! and store files per date-tiered window.

use std::collections::BTreeMap;

use strata_server::RegionServer;
use strata_storage::compaction::pressure::pressure;

use super::{gauge_of, one, Family, Labels};

/// `strata_compaction_throughput_limit_bytes_per_second`, `strata_compaction_pressure_ratio`
/// and `strata_window_store_files`.
pub(super) fn stores(f: &mut Family<'_, '_>, host: &RegionServer) -> std::fmt::Result {
    // The controller raises the limit with the highest pressure among the stores (HBase's
    // PressureAwareCompactionThroughputController): the limit a compaction started now gets.
    let mut highest = 0.0f64;
    let mut limit: Option<Option<u64>> = None;
    let mut windows: BTreeMap<(String, String, String), u64> = BTreeMap::new();
    for h in host.hosted_regions() {
        let options = h.region.compaction_options();
        let e = &options.exploring;
        for s in h.region.store_stats() {
            let p = pressure(s.files, e.min_files, e.blocking_file_count);
            if p >= highest {
                highest = p;
                limit = Some(options.throughput.rate(p));
            }
        }
        let table = h.region.info().table.clone();
        for file in h.region.file_listing() {
            if let Some((start, end)) = file.window {
                let width = (end.saturating_sub(start) / 1000).to_string();
                *windows
                    .entry((table.clone(), file.family.clone(), width))
                    .or_default() += 1;
            }
        }
    }
    if let Some(limit) = limit {
        // 0 = unlimited (the controller is off, or a store is past its blocking count).
        f.gauge(
            "strata_compaction_throughput_limit_bytes_per_second",
            "The compaction write-rate limit at the highest store pressure now (0: unlimited).",
            None,
            &one(gauge_of(limit.unwrap_or(0))),
        )?;
        f.ratio(
            "strata_compaction_pressure_ratio",
            "The highest store pressure (files between the compaction minimum and the \
             blocking count) as a ratio: 0 = at the minimum, 1 = at the blocking count.",
            highest,
        )?;
    }
    let rows: Vec<(Labels, i64)> = windows
        .into_iter()
        .map(|((table, family, width), n)| {
            (
                vec![
                    ("table", table),
                    ("family", family),
                    ("window_seconds", width),
                ],
                gauge_of(n),
            )
        })
        .collect();
    f.gauge(
        "strata_window_store_files",
        "Store files of date-tiered families per window width (seconds), by table and family.",
        None,
        &rows,
    )
}
