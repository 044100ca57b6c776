//! Splitting a region: daughters read exactly their half of the parent through references,
//! refuse rows outside their range, compact their references into real files, reopen, and
//! let the parent go once nothing references it.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::sync::Arc;

use bytes::Bytes;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use strata_model::cell::Cell;
use strata_model::ops::{Delete, Get, Put, Scan};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use strata_storage::clock::ManualClock;
use strata_storage::compaction::exploring::MajorRequest;
use strata_storage::manifest::RegionInfo;
use strata_storage::region::region_dir_name;
use strata_storage::wal::{Wal, WalOptions};
use strata_storage::{ErrorKind, Region, RegionConfig};

/// A table directory with one WAL shared by its regions.
struct Table {
    root: PathBuf,
    clock: Arc<ManualClock>,
    table: TableDescriptor,
    wal: Arc<Wal>,
}

impl Table {
    fn new(root: &std::path::Path, block_size: u32) -> Table {
        let mut t = TableDescriptor::new(TableName::parse("t").unwrap());
        for name in ["f", "g"] {
            let mut f = FamilyDescriptor::new(name);
            f.versions = 3;
            f.block_size = block_size;
            t = t.with_family(f);
        }
        Table {
            root: root.to_owned(),
            clock: Arc::new(ManualClock::new(1_000_000)),
            table: t,
            wal: Arc::new(Wal::open(root.join("wal"), WalOptions::default()).unwrap()),
        }
    }

    /// Reopens the WAL (after every region was dropped: a process restart).
    fn restart(&mut self) {
        self.wal = Arc::new(Wal::open(self.root.join("wal"), WalOptions::default()).unwrap());
    }

    fn dir(&self, id: u64) -> PathBuf {
        self.root.join("t").join(region_dir_name(id))
    }

    fn open(&self, info: &RegionInfo) -> Region {
        Region::open(RegionConfig {
            dir: self.dir(info.region_id),
            table: self.table.clone(),
            info: info.clone(),
            wal: self.wal.clone(),
            cache: None,
            clock: self.clock.clone(),
            background: None,
            budget: None,
            volumes: None,
        })
        .unwrap()
    }
}

fn whole(id: u64) -> RegionInfo {
    RegionInfo {
        table: "t".into(),
        region_id: id,
        start_row: Bytes::new(),
        end_row: Bytes::new(),
    }
}

fn row(i: usize) -> String {
    format!("row{i:03}")
}

fn line(c: &Cell) -> String {
    format!(
        "{}/{}:{}@{} #{} = {}",
        String::from_utf8_lossy(&c.row),
        String::from_utf8_lossy(&c.family),
        String::from_utf8_lossy(&c.qualifier),
        c.timestamp,
        c.seq,
        String::from_utf8_lossy(&c.value)
    )
}

/// (row, cell line) of every cell a scan returns, in order.
fn scan(r: &Region, s: Scan) -> Vec<(String, String)> {
    let mut it = r.scan(&s).unwrap();
    let mut out = Vec::new();
    while let Some(cells) = it.next_row().unwrap() {
        for c in &cells {
            out.push((String::from_utf8_lossy(&c.row).into_owned(), line(c)));
        }
    }
    out
}

fn all_versions() -> Scan {
    Scan {
        max_versions: 10,
        ..Scan::new()
    }
}

fn reversed() -> Scan {
    Scan {
        max_versions: 10,
        reversed: true,
        ..Scan::new()
    }
}

/// 200 rows in two families, with versions and deletes, over several files and the memtable.
fn fill(r: &Region, rng: &mut StdRng) {
    for i in 0..600 {
        let row = row(rng.gen_range(0..200));
        let family = if rng.gen_bool(0.7) { "f" } else { "g" };
        let ts = rng.gen_range(1..6);
        if rng.gen_bool(0.8) {
            r.put(&Put::new(row).add_at(family, "q", ts, format!("v{i}")))
                .unwrap();
        } else {
            r.delete(&Delete::new(row).column_upto(family, "q", ts))
                .unwrap();
        }
        if i % 150 == 149 {
            r.flush().unwrap();
        }
    }
    // The last writes stay in the memtable: the split flushes them.
    r.put(&Put::new(row(199)).add_at("f", "q", 9, "unflushed"))
        .unwrap();
}

/// Checks that `low` and `high` read exactly the parent's cells on their side of `split`.
fn check_halves(
    parent_all: &[(String, String)],
    parent_rev: &[(String, String)],
    low: &Region,
    high: &Region,
    split: &str,
) {
    let below = |v: &[(String, String)]| -> Vec<(String, String)> {
        v.iter()
            .filter(|(r, _)| r.as_str() < split)
            .cloned()
            .collect()
    };
    let above = |v: &[(String, String)]| -> Vec<(String, String)> {
        v.iter()
            .filter(|(r, _)| r.as_str() >= split)
            .cloned()
            .collect()
    };
    assert!(!below(parent_all).is_empty() && !above(parent_all).is_empty());
    assert_eq!(scan(low, all_versions()), below(parent_all));
    assert_eq!(scan(high, all_versions()), above(parent_all));
    assert_eq!(scan(low, reversed()), below(parent_rev));
    assert_eq!(scan(high, reversed()), above(parent_rev));
    // Bounded scans that cross the split row.
    let cross = Scan {
        max_versions: 10,
        ..Scan::range(row(50), row(150))
    };
    let in_cross = |r: &String| *r >= row(50) && *r < row(150);
    let want_low: Vec<_> = below(parent_all)
        .into_iter()
        .filter(|(r, _)| in_cross(r))
        .collect();
    let want_high: Vec<_> = above(parent_all)
        .into_iter()
        .filter(|(r, _)| in_cross(r))
        .collect();
    assert_eq!(scan(low, cross.clone()), want_low);
    assert_eq!(scan(high, cross), want_high);
    for i in 0..200 {
        let r = row(i);
        let (mine, other) = if r.as_str() < split {
            (low, high)
        } else {
            (high, low)
        };
        let want: Vec<String> = parent_all
            .iter()
            .filter(|(pr, _)| *pr == r)
            .map(|(_, l)| l.clone())
            .collect();
        let got: Vec<String> = mine
            .get(&Get::new(r.clone()).with_max_versions(10))
            .unwrap()
            .iter()
            .map(line)
            .collect();
        assert_eq!(got, want, "row {r}");
        let e = other.get(&Get::new(r.clone())).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::WrongRegion, "row {r}");
    }
}

#[test]
fn daughters_read_exactly_their_side_of_the_parent() {
    let dir = tempfile::tempdir().unwrap();
    let t = Table::new(dir.path(), 1024);
    let parent = t.open(&whole(1));
    fill(&parent, &mut StdRng::seed_from_u64(7));
    parent.flush().unwrap();
    let all = scan(&parent, all_versions());
    let rev = scan(&parent, reversed());

    let (low, high) = parent.split(Some(Bytes::from(row(100))), (2, 3)).unwrap();
    assert_eq!(
        (low.start_row.as_ref(), low.end_row.as_ref()),
        (&b""[..], row(100).as_bytes())
    );
    assert_eq!(
        (high.start_row.as_ref(), high.end_row.as_ref()),
        (row(100).as_bytes(), &b""[..])
    );
    assert_eq!(parent.sibling_dir(2), t.dir(2));
    let (low, high) = (t.open(&low), t.open(&high));
    check_halves(&all, &rev, &low, &high, &row(100));
}

#[test]
fn the_split_point_is_the_middle_key_of_the_largest_file() {
    let dir = tempfile::tempdir().unwrap();
    let t = Table::new(dir.path(), 1024);
    let parent = t.open(&whole(1));
    fill(&parent, &mut StdRng::seed_from_u64(11));
    parent.flush().unwrap();
    let all = scan(&parent, all_versions());
    let rev = scan(&parent, reversed());

    let (low, high) = parent.split(None, (2, 3)).unwrap();
    let split = String::from_utf8(low.end_row.to_vec()).unwrap();
    assert_eq!(high.start_row, low.end_row);
    assert!(split > row(0) && split <= row(199), "{split}");
    let (low, high) = (t.open(&low), t.open(&high));
    check_halves(&all, &rev, &low, &high, &split);
}

#[test]
fn writes_go_to_the_right_daughter_and_the_parent_is_closed() {
    let dir = tempfile::tempdir().unwrap();
    let t = Table::new(dir.path(), 4096);
    let parent = t.open(&whole(1));
    parent
        .put(&Put::new("a").add_at("f", "q", 1, "a1"))
        .unwrap();
    parent
        .put(&Put::new("m").add_at("f", "q", 1, "m1"))
        .unwrap();
    let (low, high) = parent.split(Some(Bytes::from("k")), (2, 3)).unwrap();

    let e = parent
        .put(&Put::new("a").add("f", "q", "late"))
        .unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::Unavailable,
        "the parent is closed: {e}"
    );
    let e = parent.compact(MajorRequest::User).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unavailable, "and never compacts: {e}");
    assert!(parent.split(None, (4, 5)).is_err());

    let (low, high) = (t.open(&low), t.open(&high));
    let e = low.put(&Put::new("k").add("f", "q", "x")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::WrongRegion);
    let e = high.put(&Put::new("j").add("f", "q", "x")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::WrongRegion);
    low.put(&Put::new("b").add_at("f", "q", 2, "b2")).unwrap();
    high.put(&Put::new("z").add_at("f", "q", 2, "z2")).unwrap();
    let rows =
        |r: &Region| -> Vec<String> { scan(r, Scan::new()).into_iter().map(|(r, _)| r).collect() };
    assert_eq!(rows(&low), ["a", "b"]);
    assert_eq!(rows(&high), ["m", "z"]);
    // A daughter's writes order after the parent's cells.
    let newest = high.get(&Get::new("m")).unwrap()[0].seq;
    let written = high
        .put(&Put::new("m").add_at("f", "q", 1, "m1'"))
        .unwrap()
        .seq;
    assert!(written > newest);
    assert_eq!(
        high.get(&Get::new("m")).unwrap()[0].value,
        Bytes::from("m1'"),
        "same timestamp: the newer write wins"
    );
}

#[test]
fn daughters_reopen_compact_their_references_and_release_the_parent() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Table::new(dir.path(), 1024);
    let parent = t.open(&whole(1));
    fill(&parent, &mut StdRng::seed_from_u64(3));
    let (li, hi) = parent.split(Some(Bytes::from(row(120))), (2, 3)).unwrap();
    drop(parent);
    let (low, high) = (t.open(&li), t.open(&hi));
    low.put(&Put::new(row(5)).add_at("f", "q", 8, "after split"))
        .unwrap();
    high.put(&Put::new(row(150)).add_at("g", "q", 8, "after split"))
        .unwrap();
    let low_before = scan(&low, all_versions());
    let high_before = scan(&high, all_versions());

    // Reopen with references (a restart: the daughters' writes come back from the WAL).
    drop((low, high));
    t.restart();
    let (low, high) = (t.open(&li), t.open(&hi));
    assert_eq!(scan(&low, all_versions()), low_before);
    assert_eq!(scan(&high, all_versions()), high_before);

    let daughter_dirs = [t.dir(2), t.dir(3)];
    let reports = low.compact(MajorRequest::None).unwrap();
    assert_eq!(reports.len(), 2, "both families: {reports:?}");
    assert!(reports.iter().all(|r| r.after_split && r.output.is_some()));
    assert_eq!(scan(&low, all_versions()), low_before);
    assert!(
        !Region::remove_split_parent(&strata_storage::vfs::Local, &t.dir(1), 1, &daughter_dirs)
            .unwrap(),
        "the top daughter still references the parent"
    );
    assert!(t.dir(1).exists());

    high.flush().unwrap();
    let reports = high.compact(MajorRequest::None).unwrap();
    assert!(reports.iter().all(|r| r.after_split));
    assert!(
        Region::remove_split_parent(&strata_storage::vfs::Local, &t.dir(1), 1, &daughter_dirs)
            .unwrap()
    );
    assert!(!t.dir(1).exists());
    assert_eq!(scan(&low, all_versions()), low_before);
    assert_eq!(scan(&high, all_versions()), high_before);

    // Without the parent, the daughters reopen from their own files.
    drop((low, high));
    t.restart();
    let (low, high) = (t.open(&li), t.open(&hi));
    assert_eq!(scan(&low, all_versions()), low_before);
    assert_eq!(scan(&high, all_versions()), high_before);
    assert_eq!(scan(&high, reversed()).len(), high_before.len());

    // With no references left, a daughter can split in turn.
    let (a, b) = low.split(Some(Bytes::from(row(60))), (4, 5)).unwrap();
    let (a, b) = (t.open(&a), t.open(&b));
    let mut both = scan(&a, all_versions());
    both.extend(scan(&b, all_versions()));
    assert_eq!(both, low_before);
}

#[test]
fn bad_splits_are_refused_and_leave_the_region_open() {
    let dir = tempfile::tempdir().unwrap();
    let t = Table::new(dir.path(), 4096);
    let parent = t.open(&whole(1));
    parent.put(&Put::new("m").add_at("f", "q", 1, "v")).unwrap();
    for (split, ids) in [
        (Some(Bytes::new()), (2, 3)),
        (Some(Bytes::from("m")), (2, 2)),
        (Some(Bytes::from("m")), (1, 3)),
        // One row in one block: no middle key to split at.
        (None, (2, 3)),
    ] {
        let e = parent.split(split.clone(), ids).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Invalid, "{split:?} {ids:?}: {e}");
        assert!(!t.dir(2).exists() && !t.dir(3).exists());
        parent
            .put(&Put::new("n").add("f", "q", "still open"))
            .unwrap();
    }
    // A daughter's row range bounds its split rows too.
    let (low, _) = parent.split(Some(Bytes::from("m")), (2, 3)).unwrap();
    let low = t.open(&low);
    for split in ["m", "z"] {
        let e = low.split(Some(Bytes::from(split)), (4, 5)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Invalid, "{split}: {e}");
    }
    // An existing directory is never overwritten.
    std::fs::create_dir_all(t.dir(9)).unwrap();
    low.put(&Put::new("c").add_at("f", "q", 1, "v")).unwrap();
    low.compact(MajorRequest::User).unwrap();
    let e = low.split(Some(Bytes::from("b")), (8, 9)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Invalid, "{e}");
    assert!(t.dir(9).exists() && !t.dir(8).exists());
}
