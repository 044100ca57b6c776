//! What filter seek hints save: cells read per cell returned by a `FuzzyRowFilter` and a
//! `ColumnPaginationFilter`, against scans that return the same cells without seeking.
//!
//! One region, `rows` rows (default 1,000,000) of 10 columns `c00`..`c09` in one family, row
//! keys `{user:04}{event:02}` (`users` × 100 events), flushed to store files. For each filter:
//! the filter with its hints; the same result without hints (`SKIP FuzzyRowFilter`, whose
//! wrapper drops the hints as HBase's `SkipFilter` does; `QualifierFilter(>=) AND
//! ColumnPaginationFilter(limit, 0)` for the column offset); and a plain scan with no filter
//! (the client keeps what it needs). Cells read are the cells the scan examined (offered to the
//! version and delete check, or stepped over): a seek passes cells without reading them.
//!
//! `cargo run --release -p strata-storage --example filter_seek_hints -- [rows]`
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use strata_model::ops::{ColumnPagination, Comparator, CompareOp, Filter, FuzzyKey, Put, Scan};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use strata_storage::clock::ManualClock;
use strata_storage::manifest::RegionInfo;
use strata_storage::wal::{Wal, WalOptions};
use strata_storage::{Region, RegionConfig};

const COLUMNS: usize = 10;

/// Rows and cells returned, cells read, milliseconds.
fn run(
    region: &Region,
    filter: Option<Filter>,
    keep: impl Fn(&[u8], &[u8]) -> bool,
) -> (u64, u64, u64, f64) {
    let scan = Scan {
        filter,
        cache_blocks: false,
        ..Scan::new()
    };
    let started = Instant::now();
    let mut scanner = region.scan(&scan).unwrap();
    let (mut rows, mut cells) = (0u64, 0u64);
    while let Some(row) = scanner.next_row().unwrap() {
        let kept = row.iter().filter(|c| keep(&c.row, &c.qualifier)).count() as u64;
        if kept > 0 {
            rows += 1;
            cells += kept;
        }
    }
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    (rows, cells, scanner.cells_examined(), ms)
}

fn report(name: &str, (rows, cells, read, ms): (u64, u64, u64, f64)) {
    println!(
        "  {name:<52} {rows:>8} rows {cells:>9} cells  {read:>10} read  {:>9.2} read/returned  \
         {ms:>8.1} ms",
        read as f64 / cells.max(1) as f64
    );
}

fn main() {
    let rows: usize = std::env::args()
        .nth(1)
        .map_or(1_000_000, |a| a.parse().unwrap());
    let users = rows.div_ceil(100);
    let tmp = tempfile::tempdir().unwrap();
    let wal = Arc::new(Wal::open(tmp.path().join("wal"), WalOptions::default()).unwrap());
    let table = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    let region = Region::open(RegionConfig {
        dir: tmp.path().join("region"),
        table,
        info: RegionInfo {
            table: "t".into(),
            region_id: 1,
            start_row: Bytes::new(),
            end_row: Bytes::new(),
        },
        wal: wal.clone(),
        cache: None,
        clock: Arc::new(ManualClock::new(1_700_000_000_000)),
        background: None,
        budget: None,
        volumes: None,
    })
    .unwrap();
    let started = Instant::now();
    let mut written = 0;
    'load: for user in 0..users {
        for event in 0..100 {
            if written == rows {
                break 'load;
            }
            let mut put = Put::new(Bytes::from(format!("{user:04}{event:02}")));
            for c in 0..COLUMNS {
                put = put.add_at(
                    Bytes::from_static(b"f"),
                    Bytes::from(format!("c{c:02}")),
                    1,
                    Bytes::from_static(b"value"),
                );
            }
            region.put(&put).unwrap();
            written += 1;
            if written % 200_000 == 0 {
                region.flush().unwrap();
            }
        }
    }
    region.flush().unwrap();
    println!(
        "{written} rows × {COLUMNS} columns loaded and flushed in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    // FuzzyRowFilter: event 07 of every user (1% of the rows).
    let fuzzy = Filter::FuzzyRow(vec![FuzzyKey::with_wildcard(b"????07", b'?')]);
    let event07 = |row: &[u8], _: &[u8]| row.ends_with(b"07");
    println!("FuzzyRowFilter('????07'):");
    report(
        "with seek hints",
        run(&region, Some(fuzzy.clone()), event07),
    );
    report(
        "SKIP FuzzyRowFilter (same result, no hints)",
        run(&region, Some(Filter::Skip(Box::new(fuzzy))), event07),
    );
    report(
        "no filter, client keeps event 07",
        run(&region, None, event07),
    );

    // ColumnPaginationFilter: 2 columns from c07 of every row.
    let page = |column_offset: Option<&'static [u8]>| {
        Filter::ColumnPagination(ColumnPagination {
            limit: 2,
            offset: 0,
            column_offset: column_offset.map(Bytes::from_static),
        })
    };
    let c07_c08 = |_: &[u8], q: &[u8]| q == b"c07" || q == b"c08";
    println!("ColumnPaginationFilter(2, 'c07'):");
    report(
        "with seek hints",
        run(&region, Some(page(Some(b"c07"))), c07_c08),
    );
    let no_hint = Filter::all(vec![
        Filter::Qualifier(
            CompareOp::GreaterOrEqual,
            Comparator::Binary(Bytes::from_static(b"c07")),
        ),
        page(None),
    ]);
    report(
        "QualifierFilter(>=, c07) AND ColumnPagination(2, 0)",
        run(&region, Some(no_hint), c07_c08),
    );
    report(
        "no filter, client keeps c07, c08",
        run(&region, None, c07_c08),
    );
    let by_offset = Filter::ColumnPagination(ColumnPagination {
        limit: 2,
        offset: 7,
        column_offset: None,
    });
    report(
        "ColumnPaginationFilter(2, 7) (by count)",
        run(&region, Some(by_offset), c07_c08),
    );
    region.close().unwrap();
    wal.close().unwrap();
}
