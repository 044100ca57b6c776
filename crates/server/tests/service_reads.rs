//! Reads through the data service: answered inline from memtables and cached blocks, or, when
//! a block must come from disk, retried on a blocking thread; in either wire form (one
//! message per cell, or a cell block). The answers must be the same whichever path ran.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use bytes::Bytes;
use strata_model::cell::Cell;
use strata_model::ops::{Get, Put, RowMutations, Scan};
use strata_proto::convert::{decode_cell_block, get_to_pb, page_rows, result_from_pb, scan_to_pb};
use strata_proto::pb;
use strata_proto::pb::data_server::Data;
use strata_server::{DataService, RegionServer};
use strata_storage::manifest::RegionInfo;
use strata_testkit::fixtures;
use tonic::Request;

const ROWS: usize = 20;

fn row(i: usize) -> Bytes {
    Bytes::from(format!("row{i:03}"))
}

/// A server holding table `t` (families `a`, `b`), rows written and flushed to a store file;
/// `block_cache`: whether the server has a block cache at all.
fn start(block_cache: bool) -> (Arc<RegionServer>, DataService, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let mut config = fixtures::server_config(dir.path(), 64);
    if !block_cache {
        config.block_cache_bytes = 0;
    }
    let table = fixtures::table("t", &["a", "b"]);
    let server = fixtures::server(config, &table, &[RegionInfo::whole("t", 1)]);
    let hosted = server.region_for("t", b"row").unwrap();
    for i in 0..ROWS {
        let put = Put::new(row(i))
            .add_at("a", "x", 5, format!("ax{i}"))
            .add_at("a", "y", 5, format!("ay{i}"))
            .add_at("b", "z", 5, format!("bz{i}"));
        hosted
            .mutate_row(&RowMutations::new(row(i)).with(put).unwrap())
            .unwrap();
    }
    server.flush_region(1).unwrap();
    let service = DataService::new(server.clone());
    (server, service, dir)
}

fn expected(i: usize) -> Vec<Cell> {
    vec![
        Cell::put(row(i), "a", "x", 5, format!("ax{i}")),
        Cell::put(row(i), "a", "y", 5, format!("ay{i}")),
        Cell::put(row(i), "b", "z", 5, format!("bz{i}")),
    ]
}

async fn get(service: &DataService, i: usize, cell_block: bool) -> Vec<Cell> {
    let response = service
        .get(Request::new(pb::GetRequest {
            table: "t".into(),
            get: Some(get_to_pb(&Get::new(row(i)))),
            cell_block,
        }))
        .await
        .unwrap()
        .into_inner();
    let result = response.result.unwrap();
    assert_eq!(
        result.cell_block.is_empty(),
        !cell_block,
        "the form asked for"
    );
    result_from_pb(result).unwrap()
}

#[tokio::test]
async fn gets_that_need_the_disk_fall_back_to_a_blocking_thread() {
    let (_server, service, _dir) = start(false);
    for i in 0..ROWS {
        assert_eq!(get(&service, i, i % 2 == 0).await, expected(i), "row {i}");
    }
}

#[tokio::test]
async fn cold_then_cached_gets_answer_the_same() {
    let (server, service, _dir) = start(true);
    let cache = server.block_cache().unwrap().clone();
    let cold = get(&service, 3, true).await;
    let misses = cache.stats().data_misses;
    assert!(misses > 0, "the first get read the store file");
    let warm = get(&service, 3, false).await;
    assert_eq!(cold, expected(3));
    assert_eq!(warm, cold);
    assert_eq!(
        cache.stats().data_misses,
        misses,
        "the second get was served from cache"
    );
}

#[tokio::test]
async fn reads_that_ask_not_to_cache_blocks_leave_data_blocks_out_of_the_cache() {
    let (server, service, _dir) = start(true);
    let cache = server.block_cache().unwrap().clone();
    let uncached_get = |i: usize| pb::GetRequest {
        table: "t".into(),
        get: Some(get_to_pb(&Get::new(row(i)).with_cache_blocks(false))),
        cell_block: true,
    };
    let first = service.get(Request::new(uncached_get(3))).await.unwrap();
    assert_eq!(
        result_from_pb(first.into_inner().result.unwrap()).unwrap(),
        expected(3)
    );
    let before = cache.stats();
    let again = service.get(Request::new(uncached_get(3))).await.unwrap();
    assert_eq!(
        result_from_pb(again.into_inner().result.unwrap()).unwrap(),
        expected(3)
    );
    let after = cache.stats();
    assert!(
        after.data_misses > before.data_misses,
        "{before:?} → {after:?}"
    );
    assert_eq!(
        after.inserts, before.inserts,
        "no block cached: {before:?} → {after:?}"
    );
    let scan = Scan {
        cache_blocks: false,
        ..Scan::default()
    };
    let rows: Vec<Vec<Cell>> = pages(&service, &scan, false, 1 << 20)
        .await
        .into_iter()
        .flat_map(|(rows, _)| rows)
        .collect();
    assert_eq!(rows, (0..ROWS).map(expected).collect::<Vec<_>>());
    assert_eq!(
        cache.stats().inserts,
        after.inserts,
        "the scan cached no block"
    );
    // The default get caches the block, and the one after it hits.
    assert_eq!(get(&service, 3, true).await, expected(3));
    let filled = cache.stats();
    assert!(filled.inserts > after.inserts, "{after:?} → {filled:?}");
    assert_eq!(get(&service, 3, true).await, expected(3));
    assert_eq!(cache.stats().data_misses, filled.data_misses);
}

#[tokio::test]
async fn multi_gets_and_scans_in_both_forms() {
    for block_cache in [false, true] {
        let (_server, service, _dir) = start(block_cache);
        for cell_block in [false, true] {
            let gets = [2, 7, 99, 11]
                .iter()
                .map(|&i| get_to_pb(&Get::new(row(i))))
                .collect();
            let results = service
                .multi_get(Request::new(pb::MultiGetRequest {
                    table: "t".into(),
                    gets,
                    cell_block,
                }))
                .await
                .unwrap()
                .into_inner()
                .results;
            let cells: Vec<Vec<Cell>> = results
                .into_iter()
                .map(|r| result_from_pb(r).unwrap())
                .collect();
            assert_eq!(cells, [expected(2), expected(7), vec![], expected(11)]);

            for page_block in [false, true] {
                let page = service
                    .scan(Request::new(pb::ScanRequest {
                        table: "t".into(),
                        scan: Some(scan_to_pb(&Scan::new())),
                        after_row: None,
                        max_result_bytes: 0,
                        cell_block,
                        page_block,
                    }))
                    .await
                    .unwrap()
                    .into_inner();
                assert_eq!(page.rows.is_empty(), page_block);
                assert_eq!(page.page_block.is_empty(), !page_block);
                let rows: Vec<Vec<Cell>> = if page_block {
                    page_rows(&page.page_block)
                        .unwrap()
                        .into_iter()
                        .map(|r| decode_cell_block(&r.block).unwrap())
                        .collect()
                } else {
                    page.rows
                        .into_iter()
                        .map(|r| result_from_pb(r).unwrap())
                        .collect()
                };
                assert_eq!(rows, (0..ROWS).map(expected).collect::<Vec<_>>());
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_gets_inline_or_pooled_answer_the_same() {
    for block_cache in [false, true] {
        let (_server, service, _dir) = start(block_cache);
        let tasks: Vec<_> = (0..64)
            .map(|n| {
                let service = service.clone();
                tokio::spawn(async move {
                    let i = n % ROWS;
                    assert_eq!(get(&service, i, n % 3 == 0).await, expected(i), "row {i}");
                })
            })
            .collect();
        for t in tasks {
            t.await.unwrap();
        }
    }
}

/// Every page of `scan` (following `after_row` while the region has more): its rows and
/// whether more were announced.
async fn pages(
    service: &DataService,
    scan: &Scan,
    page_block: bool,
    max_result_bytes: u64,
) -> Vec<(Vec<Vec<Cell>>, bool)> {
    let mut out = Vec::new();
    let mut after: Option<Bytes> = None;
    loop {
        let page = service
            .scan(Request::new(pb::ScanRequest {
                table: "t".into(),
                scan: Some(scan_to_pb(scan)),
                after_row: after.clone(),
                max_result_bytes,
                cell_block: true,
                page_block,
            }))
            .await
            .unwrap()
            .into_inner();
        let rows: Vec<Vec<Cell>> = if page_block {
            assert!(page.rows.is_empty());
            page_rows(&page.page_block)
                .unwrap()
                .into_iter()
                .map(|r| decode_cell_block(&r.block).unwrap())
                .collect()
        } else {
            assert!(page.page_block.is_empty());
            page.rows
                .into_iter()
                .map(|r| result_from_pb(r).unwrap())
                .collect()
        };
        if let Some(last) = rows.last() {
            after = Some(last[0].row.clone());
        }
        let more = page.more_in_region;
        out.push((rows, more));
        if !more || out.len() > 100 {
            return out;
        }
    }
}

#[tokio::test]
async fn page_blocks_page_like_rows() {
    let (_server, service, _dir) = start(true);
    let mut scans = Vec::new();
    let mut paged = Scan::new();
    paged.caching = Some(3);
    scans.push((paged.clone(), 0));
    scans.push((paged.clone(), 1));
    let mut reversed = paged.clone();
    reversed.reversed = true;
    scans.push((reversed, 0));
    let mut batched = paged.clone();
    batched.batch = Some(2);
    scans.push((batched.clone(), 0));
    batched.reversed = true;
    scans.push((batched, 0));
    let mut limited = paged.clone();
    limited.limit = Some(5);
    scans.push((limited, 0));
    let mut filtered = paged.clone();
    filtered.filter = Some(strata_model::ops::Filter::FirstKeyOnly);
    scans.push((filtered, 0));
    let mut columns = paged.clone();
    columns.columns.add_family("b");
    scans.push((columns, 0));
    let mut later = paged;
    later.time_range = strata_model::ops::TimeRange::since(6).unwrap();
    scans.push((later, 0));
    for (scan, max_bytes) in &scans {
        let by_rows = pages(&service, scan, false, *max_bytes).await;
        let by_block = pages(&service, scan, true, *max_bytes).await;
        assert!(
            by_rows.len() > 1 || scan.limit.is_some() || !scan.time_range.is_all(),
            "{scan:?} pages"
        );
        assert_eq!(by_block, by_rows, "{scan:?}, {max_bytes} bytes a page");
    }
}

/// Filters travel as HBase's filter language: the seeking ones and the wrappers arrive whole.
#[tokio::test]
async fn seeking_and_wrapping_filters_travel_as_filter_text() {
    use strata_model::ops::{ColumnPagination, Filter, FuzzyKey};
    let (_server, service, _dir) = start(true);
    let mut scan = Scan::new();
    scan.filter = Some(Filter::all(vec![
        Filter::FuzzyRow(vec![FuzzyKey::with_wildcard(b"row??7", b'?')]),
        Filter::ColumnPagination(ColumnPagination {
            limit: 1,
            offset: 0,
            column_offset: Some(Bytes::from_static(b"y")),
        }),
    ]));
    let rows: Vec<Vec<Cell>> = pages(&service, &scan, false, 0)
        .await
        .into_iter()
        .flat_map(|(rows, _)| rows)
        .collect();
    let want: Vec<Vec<Cell>> = [7, 17]
        .into_iter()
        .map(|i| vec![expected(i)[1].clone()])
        .collect();
    assert_eq!(rows, want);
    let mut scan = Scan::new();
    scan.filter = Some(Filter::WhileMatch(Box::new(Filter::Row(
        strata_model::ops::CompareOp::Less,
        strata_model::ops::Comparator::Binary(row(3)),
    ))));
    let rows: usize = pages(&service, &scan, true, 0)
        .await
        .into_iter()
        .map(|(rows, _)| rows.len())
        .sum();
    assert_eq!(rows, 3);
}
