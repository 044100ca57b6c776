//! Scans against the fake cluster: every row exactly once, in order, while regions split and
//! move between pages; forward and reversed, ranges, prefixes, limits; parallel scans.

#![allow(clippy::unwrap_used, missing_docs)]

mod support;

use strata_client::Table;
use strata_model::cell::Cell;
use strata_model::ops::Scan;
use support::{numbered, Cluster, TABLE};

fn keys(rows: &[Vec<Cell>]) -> Vec<String> {
    rows.iter()
        .map(|cells| String::from_utf8(cells[0].row.to_vec()).unwrap())
        .collect()
}

fn names(range: impl Iterator<Item = usize>) -> Vec<String> {
    range.map(|i| format!("r{i:02}")).collect()
}

fn paged(mut scan: Scan) -> Scan {
    scan.caching = Some(3);
    scan
}

async fn table(cluster: &Cluster) -> Table {
    cluster.connect().await.table(TABLE).unwrap()
}

#[tokio::test]
async fn forward_scan_returns_each_row_once_across_splits_and_moves() {
    let cluster = Cluster::start(2, &["r10"]).await;
    cluster.load(numbered(30));
    {
        let mut s = cluster.state.lock();
        // Ahead of the scan inside the region being read.
        s.after_page(2, |s| s.split(b"r07", 0));
        // In the next region, whose upper daughter moves: the cached location goes stale.
        s.after_page(5, |s| s.split(b"r20", 1));
    }
    let rows = table(&cluster)
        .await
        .scan_all(&paged(Scan::new()))
        .await
        .unwrap();
    assert_eq!(keys(&rows), names(0..30));
    assert_eq!(rows[29][0].value, "v29");
    // Both splits happened, and the stale location cost a second lookup.
    assert_eq!(cluster.state.lock().regions.len(), 4);
    assert!(cluster.state.lock().calls("locate") >= 2);
}

#[tokio::test]
async fn reversed_scan_returns_each_row_once_across_splits_and_moves() {
    let cluster = Cluster::start(2, &["r10"]).await;
    cluster.load(numbered(30));
    {
        let mut s = cluster.state.lock();
        s.after_page(2, |s| s.split(b"r15", 0));
        s.after_page(5, |s| s.split(b"r05", 1));
    }
    let scan = Scan {
        reversed: true,
        ..paged(Scan::new())
    };
    let rows = table(&cluster).await.scan_all(&scan).await.unwrap();
    assert_eq!(keys(&rows), names((0..30).rev()));
    assert_eq!(cluster.state.lock().regions.len(), 4);
    assert!(cluster.state.lock().calls("locate") >= 2);
}

#[tokio::test]
async fn ranges_stop_at_their_bounds_in_both_directions() {
    let cluster = Cluster::start(1, &["r05", "r10", "r15"]).await;
    cluster.load(numbered(20));
    let t = table(&cluster).await;
    let rows = t.scan_all(&paged(Scan::range("r03", "r17"))).await.unwrap();
    assert_eq!(keys(&rows), names(3..17));
    let reversed = Scan {
        reversed: true,
        ..paged(Scan::range("r17", "r03"))
    };
    let rows = t.scan_all(&reversed).await.unwrap();
    assert_eq!(keys(&rows), names((4..18).rev()));
    // A range ending at a region boundary reads no further region.
    let before = cluster.state.lock().calls("scan");
    let rows = t.scan_all(&Scan::range("r06", "r10")).await.unwrap();
    assert_eq!(keys(&rows), names(6..10));
    assert_eq!(cluster.state.lock().calls("scan") - before, 1);
    // An inclusive stop row (HBase's `withStopRow(row, true)`), on a region boundary, both ways.
    let inclusive = Scan {
        include_stop_row: true,
        ..paged(Scan::range("r06", "r10"))
    };
    assert_eq!(keys(&t.scan_all(&inclusive).await.unwrap()), names(6..11));
    let inclusive = Scan {
        reversed: true,
        include_stop_row: true,
        ..paged(Scan::range("r12", "r05"))
    };
    assert_eq!(
        keys(&t.scan_all(&inclusive).await.unwrap()),
        names((5..13).rev())
    );
}

#[tokio::test]
async fn limits_count_rows_across_regions() {
    let cluster = Cluster::start(1, &["r05", "r10"]).await;
    cluster.load(numbered(20));
    let t = table(&cluster).await;
    let scan = Scan {
        limit: Some(8),
        ..paged(Scan::new())
    };
    assert_eq!(keys(&t.scan_all(&scan).await.unwrap()), names(0..8));
    let scan = Scan {
        limit: Some(12),
        reversed: true,
        ..paged(Scan::new())
    };
    assert_eq!(
        keys(&t.scan_all(&scan).await.unwrap()),
        names((8..20).rev())
    );
}

#[tokio::test]
async fn prefix_scans_narrow_the_range_and_survive_splits() {
    let cluster = Cluster::start(2, &["r05", "r15"]).await;
    cluster.load(numbered(30));
    cluster.state.lock().after_page(1, |s| s.split(b"r13", 1));
    let t = table(&cluster).await;
    let rows = t.scan_all(&paged(Scan::with_prefix("r1"))).await.unwrap();
    assert_eq!(keys(&rows), names(10..20));
    let reversed = Scan {
        reversed: true,
        ..paged(Scan::with_prefix("r1"))
    };
    let rows = t.scan_all(&reversed).await.unwrap();
    assert_eq!(keys(&rows), names((10..20).rev()));
}

#[tokio::test]
async fn invalid_scans_fail_without_a_round_trip() {
    let cluster = Cluster::start(1, &[]).await;
    let t = table(&cluster).await;
    let err = t.scan_all(&Scan::range("b", "a")).await.unwrap_err();
    assert!(err.is_invalid_argument(), "{err}");
    assert_eq!(cluster.state.lock().calls("scan"), 0);
}

#[tokio::test]
async fn a_scan_that_makes_no_progress_fails_instead_of_spinning() {
    let cluster = Cluster::start(1, &[]).await;
    cluster.load(numbered(5));
    cluster.state.lock().stuck_scans = true;
    let t = table(&cluster).await;
    let err = t.scan_all(&Scan::new()).await.unwrap_err();
    assert!(err.message.contains("no progress"), "{err}");
    assert_eq!(cluster.state.lock().calls("scan"), 1);
}

#[tokio::test]
async fn parallel_scans_in_order_and_as_they_come() {
    let cluster = Cluster::start(2, &["r05", "r10", "r20"]).await;
    cluster.load(numbered(30));
    cluster.state.lock().move_region(b"r12", 1);
    let t = table(&cluster).await;
    for (ordered, reversed) in [(true, false), (true, true), (false, false), (false, true)] {
        let scan = Scan {
            reversed,
            ..paged(Scan::new())
        };
        let mut scanner = t.parallel_scan(&scan, 2, ordered).await.unwrap();
        let mut rows = Vec::new();
        while let Some(row) = scanner.next_row().await.unwrap() {
            rows.push(row);
        }
        let mut got = keys(&rows);
        let mut want = names(0..30);
        if reversed {
            want.reverse();
        }
        if !ordered {
            got.sort();
            want.sort();
        }
        assert_eq!(got, want, "ordered {ordered}, reversed {reversed}");
    }
}

#[tokio::test]
async fn parallel_scans_honour_range_limit_and_splits() {
    let cluster = Cluster::start(2, &["r05", "r10", "r20"]).await;
    cluster.load(numbered(30));
    cluster.state.lock().after_page(1, |s| s.split(b"r15", 1));
    let t = table(&cluster).await;
    let scan = paged(Scan::range("r03", "r25"));
    let mut scanner = t.parallel_scan(&scan, 3, true).await.unwrap();
    let mut rows = Vec::new();
    while let Some(row) = scanner.next_row().await.unwrap() {
        rows.push(row);
    }
    assert_eq!(keys(&rows), names(3..25));

    let scan = Scan {
        limit: Some(9),
        ..paged(Scan::new())
    };
    let mut scanner = t.parallel_scan(&scan, 4, true).await.unwrap();
    let mut rows = Vec::new();
    while let Some(row) = scanner.next_row().await.unwrap() {
        rows.push(row);
    }
    assert_eq!(keys(&rows), names(0..9));
}

#[tokio::test]
async fn prefetch_asks_for_at_most_one_page_ahead() {
    let cluster = Cluster::start(1, &[]).await;
    cluster.load(numbered(30));
    for (prefetch, calls) in [(true, 2), (false, 1)] {
        let before = cluster.state.lock().calls("scan");
        let options = strata_client::ClientOptions {
            scan_prefetch: prefetch,
            ..support::fast_options()
        };
        let conn = strata_client::Connection::connect_with(&cluster.addrs[0], options)
            .await
            .unwrap();
        let mut scanner = conn.table(TABLE).unwrap().scan(&paged(Scan::new()));
        let first = scanner.next_row().await.unwrap().unwrap();
        assert_eq!(first[0].row, "r00");
        // Wait for the prefetch to arrive, then a little longer: it must be the only page
        // asked for ahead.
        let asked = || cluster.state.lock().calls("scan") - before;
        for _ in 0..500 {
            if asked() >= calls {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        assert_eq!(asked(), calls);
        // The rest of the scan is whole and in order either way.
        let mut rest = vec![first];
        while let Some(row) = scanner.next_row().await.unwrap() {
            rest.push(row);
        }
        assert_eq!(keys(&rest), names(0..30));
    }
}
