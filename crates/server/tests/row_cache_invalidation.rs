//! Every way a cached get result can go stale, through the region server's API: each test
//! warms the cache (and checks the next get is a hit), changes the row or the region, and
//! checks the next get sees the change.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use bytes::Bytes;
use strata_model::cell::Cell;
use strata_model::ops::{
    Append, CheckAndMutate, Condition, Delete, Get, Increment, Put, RowMutations, TimeRange,
};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName, Ttl};
use strata_server::{HostedRegion, RegionServer};
use strata_storage::manifest::RegionInfo;
use strata_testkit::fixtures;

struct Fixture {
    server: Arc<RegionServer>,
    _dir: tempfile::TempDir,
}

fn family() -> FamilyDescriptor {
    FamilyDescriptor::new("f")
        .with_row_cache(true)
        .with_versions(3)
}

fn table(f: FamilyDescriptor) -> TableDescriptor {
    TableDescriptor::new(TableName::parse("t").unwrap()).with_family(f)
}

fn start(t: &TableDescriptor) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let config = fixtures::server_config(dir.path(), 64);
    let server = fixtures::server(config, t, &[RegionInfo::whole("t", 1)]);
    Fixture { server, _dir: dir }
}

impl Fixture {
    fn hosted(&self, row: &str) -> HostedRegion {
        self.server.region_for("t", row.as_bytes()).unwrap()
    }

    fn write(&self, m: impl Into<strata_model::ops::Mutation>) {
        let m = m.into();
        let row = m.row().clone();
        let rm = RowMutations::new(row.clone()).with(m).unwrap();
        self.hosted(std::str::from_utf8(&row).unwrap())
            .mutate_row(&rm)
            .unwrap();
    }

    fn get(&self, get: &Get) -> Vec<Cell> {
        self.hosted(std::str::from_utf8(&get.row).unwrap())
            .get(get)
            .unwrap()
    }

    /// Gets twice; the second must be a hit with the same answer, which is also what the
    /// region answers without the cache. Returns the values.
    fn cached(&self, get: &Get) -> Vec<Bytes> {
        let first = self.get(get);
        let hits = self.server.row_cache_stats().hits;
        assert_eq!(self.get(get), first, "a hit returns what the miss read");
        assert_eq!(
            self.server.row_cache_stats().hits,
            hits + 1,
            "second get hits"
        );
        let row = std::str::from_utf8(&get.row).unwrap();
        assert_eq!(self.hosted(row).region.get(get).unwrap(), first);
        values(&first)
    }
}

fn values(cells: &[Cell]) -> Vec<Bytes> {
    cells.iter().map(|c| c.value.clone()).collect()
}

fn latest(row: &str) -> Get {
    Get::new(Bytes::copy_from_slice(row.as_bytes()))
}

fn b(s: &'static str) -> Bytes {
    Bytes::from_static(s.as_bytes())
}

#[test]
fn puts_and_deletes_invalidate() {
    let f = start(&table(family()));
    f.write(Put::new("r").add("f", "q", "v1"));
    assert_eq!(f.cached(&latest("r")), [b("v1")]);
    f.write(Put::new("r").add("f", "q", "v2"));
    assert_eq!(f.cached(&latest("r")), [b("v2")]);
    f.write(Delete::new("r").column("f", "q"));
    assert!(f.cached(&latest("r")).is_empty());
    // A delete masks puts of its own millisecond (HBase's rule): write the next one later.
    std::thread::sleep(std::time::Duration::from_millis(2));
    f.write(Put::new("r").add("f", "q", "v3"));
    assert_eq!(f.cached(&latest("r")), [b("v3")]);
    f.write(Delete::new("r"));
    assert!(f.get(&latest("r")).is_empty());
}

#[test]
fn increments_appends_and_batches_invalidate() {
    let f = start(&table(family()));
    f.write(Increment::new("c").add("f", "n", 5));
    assert_eq!(
        f.cached(&latest("c")),
        [Bytes::from(5i64.to_be_bytes().to_vec())]
    );
    f.write(Increment::new("c").add("f", "n", 2));
    assert_eq!(
        f.cached(&latest("c")),
        [Bytes::from(7i64.to_be_bytes().to_vec())]
    );
    f.write(Put::new("a").add("f", "s", "ab"));
    assert_eq!(f.cached(&latest("a")), [b("ab")]);
    f.write(Append::new("a").add("f", "s", "cd"));
    assert_eq!(f.cached(&latest("a")), [b("abcd")]);
    // An append stamps after the value it extends; let the clock pass it.
    std::thread::sleep(std::time::Duration::from_millis(2));
    let h = f.hosted("a");
    let rows = [
        RowMutations::new("a")
            .with(Put::new("a").add("f", "s", "x"))
            .unwrap(),
        RowMutations::new("c")
            .with(Delete::new("c").column("f", "n"))
            .unwrap(),
    ];
    assert!(h.batch(&rows).iter().all(Result::is_ok));
    assert_eq!(f.cached(&latest("a")), [b("x")]);
    assert!(f.cached(&latest("c")).is_empty());
}

#[test]
fn check_and_mutate_invalidates() {
    let f = start(&table(family()));
    f.write(Put::new("r").add("f", "q", "v1"));
    assert_eq!(f.cached(&latest("r")), [b("v1")]);
    let cam = CheckAndMutate::new(
        Condition::equals("f", "q", "v1"),
        RowMutations::new("r")
            .with(Put::new("r").add("f", "q", "v2"))
            .unwrap(),
    );
    assert!(f.hosted("r").check_and_mutate(&cam).unwrap());
    assert_eq!(f.cached(&latest("r")), [b("v2")]);
    // A failed check writes nothing; the answer stays right either way.
    assert!(!f.hosted("r").check_and_mutate(&cam).unwrap());
    assert_eq!(f.cached(&latest("r")), [b("v2")]);
}

#[test]
fn cells_past_their_ttl_are_not_served() {
    let f = start(&table(family().with_ttl(Ttl::Seconds(1))));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    // Expires 400 ms from now; a second column lives the full second.
    f.write(
        Put::new("r")
            .add_at("f", "old", now - 600, "x")
            .add_at("f", "new", now, "y"),
    );
    assert_eq!(f.cached(&latest("r")), [b("y"), b("x")]);
    std::thread::sleep(std::time::Duration::from_millis(700));
    assert_eq!(f.cached(&latest("r")), [b("y")]);
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(f.get(&latest("r")).is_empty());
}

#[test]
fn future_timestamps_and_time_ranges() {
    let f = start(&table(family()));
    let far = i64::MAX / 2;
    f.write(Put::new("r").add_at("f", "q", far, "future"));
    assert_eq!(f.cached(&latest("r")), [b("future")]);
    // An older version does not change the latest, but the cache still sees it.
    f.write(Put::new("r").add_at("f", "q", 100, "old"));
    assert_eq!(f.cached(&latest("r")), [b("future")]);
    let mut ranged = latest("r").with_column("f", "q");
    ranged.time_range = TimeRange::new(0, 1000).unwrap();
    assert_eq!(f.cached(&ranged), [b("old")]);
    let mut all = latest("r");
    all.max_versions = 3;
    assert_eq!(f.cached(&all), [b("future"), b("old")]);
    f.write(Put::new("r").add_at("f", "q", 200, "mid"));
    assert_eq!(f.cached(&ranged), [b("mid")]);
    assert_eq!(f.cached(&all), [b("future"), b("mid"), b("old")]);
    f.write(Delete::new("r").version_at("f", "q", far));
    assert_eq!(f.cached(&latest("r")), [b("mid")]);
}

#[test]
fn families_without_row_cache_and_filtered_gets_are_not_cached() {
    let t = table(family()).with_family(FamilyDescriptor::new("g"));
    let f = start(&t);
    f.write(Put::new("r").add("f", "q", "v").add("g", "q", "w"));
    let before = f.server.row_cache_stats();
    f.get(&latest("r")); // all families: "g" is not cached
    f.get(&latest("r").with_family("g"));
    let filtered = latest("r")
        .with_family("f")
        .with_filter(strata_model::ops::Filter::KeyOnly {
            len_as_value: false,
        });
    f.get(&filtered);
    let after = f.server.row_cache_stats();
    assert_eq!((after.hits, after.misses), (before.hits, before.misses));
    assert_eq!(f.cached(&latest("r").with_family("f")), [b("v")]);
}

#[test]
fn split_merge_close_truncate_and_alter_drop_the_region_entries() {
    let t = table(family());
    let f = start(&t);
    f.write(Put::new("a").add("f", "q", "1"));
    f.write(Put::new("z").add("f", "q", "1"));
    f.cached(&latest("a"));
    f.cached(&latest("z"));
    // Split: the parent's entries go, the daughters serve and cache afresh.
    let (low, high) = f.server.split_region(1, Some(b("m")), (2, 3)).unwrap();
    assert_eq!(f.server.row_cache_stats().entries, 0);
    f.server.open_region(&t, &low).unwrap();
    f.server.open_region(&t, &high).unwrap();
    assert_eq!(f.cached(&latest("a")), [b("1")]);
    f.write(Put::new("a").add("f", "q", "2"));
    assert_eq!(f.cached(&latest("a")), [b("2")]);
    // Close and reopen (a move, or an alter): a new opening starts empty.
    f.server.close_region(2, true).unwrap();
    assert_eq!(f.server.row_cache_stats().entries, 0);
    let mut altered = t.clone();
    altered.family_mut(b"f").unwrap().versions = 1;
    f.server.open_region(&altered, &low).unwrap();
    f.write(Put::new("a").add("f", "q", "3"));
    let mut all = latest("a");
    all.max_versions = 3;
    assert_eq!(f.cached(&all), [b("3")], "VERSIONS => 1 after the alter");
    // Truncate: the region is dropped and a new, empty one takes its range.
    f.server.close_region(2, false).unwrap();
    f.server
        .open_region(&t, &fixtures::region("t", 4, "", "m"))
        .unwrap();
    assert!(f.cached(&latest("a")).is_empty());
    // Merge: both parents' entries go.
    f.server.compact_region(3, None, true).unwrap(); // rewrite the split references
    f.cached(&latest("z"));
    let merged = f.server.merge_regions(4, 3, 5).unwrap();
    assert_eq!(f.server.row_cache_stats().entries, 0);
    f.server.open_region(&t, &merged).unwrap();
    f.write(Put::new("z").add("f", "q", "4"));
    assert_eq!(f.cached(&latest("z")), [b("4")]);
    assert!(f.server.row_cache_stats().invalidations >= 4);
}
