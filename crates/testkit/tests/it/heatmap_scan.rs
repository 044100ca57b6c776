//! The key-access heatmap credits a scan to the rows it read: a full-table scan shows as reads
//! across the whole key range, not at the table's first keys.
#![allow(clippy::unwrap_used)]

use std::time::Instant;

use crate::support::*;
use bytes::Bytes;
use strata_client::Protocol;
use strata_model::ops::{Put, Scan};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_scan_is_spread_over_the_key_range() {
    let dir = tempfile::tempdir().unwrap();
    let (server, conn) = start_with(dir.path(), Protocol::Frames).await;
    conn.admin()
        .create_table(&table("t", &["f"]), &[])
        .await
        .unwrap();
    let t = conn.table("t").unwrap();
    let rows = 3000u32;
    let puts: Vec<Put> = (0..rows)
        .map(|i| {
            Put::new(Bytes::from(format!("row{i:06}"))).add(
                Bytes::from_static(b"f"),
                Bytes::from_static(b"q"),
                Bytes::from_static(b"v"),
            )
        })
        .collect();
    t.put_many(&puts).await.unwrap();
    let mut scan = Scan::new();
    scan.caching = Some(200);
    let read = t.scan_all(&scan).await.unwrap();
    assert_eq!(read.len(), rows as usize);

    let view = server
        .region_server()
        .observer()
        .find("t")
        .unwrap()
        .heatmap(Instant::now())
        .unwrap();
    let per_band: Vec<u64> = view.reads.iter().map(|r| r.iter().sum()).collect();
    let total: u64 = per_band.iter().sum();
    assert_eq!(
        total,
        u64::from(rows),
        "every row read is counted: {per_band:?}"
    );
    // The reads reach the end of the table, and no band holds most of them.
    let last_start = view.band_starts.last().unwrap();
    assert!(
        last_start.as_slice() > b"row002".as_slice(),
        "{:?}",
        view.band_starts
    );
    assert!(
        per_band.iter().all(|&n| n * 4 < total),
        "{per_band:?} over {:?}",
        view.band_starts
    );
    server.stop().unwrap();
}
