//! The compaction throughput controller: a compaction ahead of its rate pauses (counted),
//! one with the controller off never does.
#![allow(clippy::unwrap_used)]

mod region_support;

use std::sync::atomic::Ordering;

use bytes::Bytes;
use region_support::{table, Env};
use strata_model::ops::Put;
use strata_storage::compaction::exploring::MajorRequest;
use strata_storage::compaction::throughput::ThroughputConfig;

fn throttled_ms(throughput: ThroughputConfig) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let env = Env::new(dir.path(), table(&["f"]));
    let r = env.open();
    let mut options = r.compaction_options();
    options.throughput = throughput;
    r.set_compaction_options(options).unwrap();
    for batch in 0..3u64 {
        for i in 0..600u64 {
            let row = Bytes::from(format!("row{:06}", batch * 600 + i));
            r.put(&Put::new(row).add("f", "q", Bytes::from(vec![b'x'; 1000])))
                .unwrap();
        }
        r.flush().unwrap();
    }
    let reports = r.compact(MajorRequest::User).unwrap();
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0].cells_out, 1800);
    r.compaction_counters().throttled_ms.load(Ordering::Relaxed)
}

#[test]
fn a_compaction_ahead_of_its_rate_pauses_and_an_unlimited_one_does_not() {
    let slow = ThroughputConfig {
        lower_bytes_per_sec: 1 << 20,
        upper_bytes_per_sec: 1 << 20,
        enabled: true,
    };
    assert!(throttled_ms(slow) >= 300, "1.8 MB at 1 MiB/s must pause");
    let off = ThroughputConfig {
        enabled: false,
        ..slow
    };
    assert_eq!(throttled_ms(off), 0);
}
