//! `/metrics` of a server with 1,000 regions: every region's series are there, the text still
//! parses, and its size stays bounded (the figure RFC 0015 quotes is printed).
#![allow(clippy::unwrap_used)]

mod support;

use support::exposition::parse;
use support::{b, start, table};

/// Regions of the test table.
const REGIONS: usize = 1000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_regions_expose_bounded_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let run = start(dir.path()).await;
    let splits: Vec<_> = (1..REGIONS).map(|i| b(&format!("r{i:04}"))).collect();
    run.conn
        .admin()
        .create_table(&table("scale_t", &["f"]), &splits)
        .await
        .unwrap();
    let response = support::get_openmetrics(run.http.addr()).await;
    assert_eq!(response.status, 200);
    let m = parse(&response.body).unwrap();
    assert_eq!(m.sum("strata_regions", &[]), REGIONS as f64);
    assert_eq!(
        m.find("strata_memtable_bytes", &[("table", "scale_t")])
            .len(),
        REGIONS
    );
    assert_eq!(
        m.find("strata_store_files", &[("table", "scale_t")]).len(),
        REGIONS
    );
    let bytes = response.body.len();
    eprintln!(
        "/metrics with {REGIONS} regions of one family: {bytes} bytes, {} samples",
        m.samples.len()
    );
    // Five per-store series of about 80 bytes each per region, plus the fixed families.
    assert!(bytes < 600 * REGIONS, "{bytes} bytes");
    run.stop().await;
}
