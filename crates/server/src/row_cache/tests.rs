//! The insert race of the RFC, replayed step by step: a reader reads the old row, a writer
//! writes and invalidates, then the reader inserts its (now stale) result.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use bytes::Bytes;
use strata_model::ops::{Get, Put, RowMutations};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use strata_storage::manifest::RegionInfo;

use super::shape::Shape;
use super::Key;
use crate::{HostedRegion, RegionServer, ServerConfig};

fn hosted(dir: &std::path::Path) -> (Arc<RegionServer>, HostedRegion) {
    let server = RegionServer::open(ServerConfig::new(dir, "test:0").with_memory_budget(64 << 20))
        .expect("server");
    let table = TableDescriptor::new(TableName::parse("t").expect("name"))
        .with_family(FamilyDescriptor::new("f").with_row_cache(true));
    let info = RegionInfo {
        table: "t".into(),
        region_id: 1,
        start_row: Bytes::new(),
        end_row: Bytes::new(),
    };
    server.open_region(&table, &info).expect("open");
    let h = server.region_for("t", b"r").expect("hosted");
    (server, h)
}

fn put(h: &HostedRegion, v: &'static str) {
    let rm = RowMutations::new("r")
        .with(Put::new("r").add("f", "q", v))
        .expect("rm");
    h.mutate_row(&rm).expect("put");
}

fn value(cells: &[strata_model::cell::Cell]) -> &[u8] {
    cells.first().map_or(&b""[..], |c| c.value.as_ref())
}

#[test]
fn a_result_read_before_a_write_is_never_served_after_it() {
    let dir = tempfile::tempdir().expect("dir");
    let (_server, h) = hosted(dir.path());
    put(&h, "old");
    let slot = h.row_cache.slot.clone().expect("enabled");
    let get = Get::new("r");
    // Reader: observes the stripe and reads the old row ...
    let state = slot.cache.stripe(slot.epoch, b"r").load(Ordering::SeqCst);
    let stale = h.region.get(&get).expect("get");
    assert_eq!(value(&stale), b"old");
    // ... a writer writes and invalidates (acknowledged) ...
    put(&h, "new");
    // ... then the reader inserts its stale result.
    let key = Key {
        epoch: slot.epoch,
        row: Bytes::from_static(b"r"),
        shape: Shape::of(&get),
    };
    assert!(slot.cache.insert(key, state, &stale, i64::MAX));
    assert_eq!(value(&h.get(&get).expect("get")), b"new");
    // The fresh result is cached and served.
    let hits = slot.cache.stats().hits;
    assert_eq!(value(&h.get(&get).expect("get")), b"new");
    assert_eq!(slot.cache.stats().hits, hits + 1);
}

#[test]
fn no_hit_while_a_write_to_the_row_is_in_flight() {
    let dir = tempfile::tempdir().expect("dir");
    let (_server, h) = hosted(dir.path());
    put(&h, "old");
    let get = Get::new("r");
    h.get(&get).expect("warm");
    let hits = h
        .row_cache
        .slot
        .as_ref()
        .expect("enabled")
        .cache
        .stats()
        .hits;
    // Inside the write: the new value is already visible in the region, not yet
    // acknowledged; a reader must not be handed the older cached one.
    h.row_cache.write(b"r", || {
        h.region
            .put(&Put::new("r").add("f", "q", "new"))
            .expect("put");
        assert_eq!(value(&h.get(&get).expect("get")), b"new");
    });
    let stats = h.row_cache.slot.as_ref().expect("enabled").cache.stats();
    assert_eq!(stats.hits, hits);
}

#[test]
fn a_retired_region_serves_and_keeps_nothing() {
    let dir = tempfile::tempdir().expect("dir");
    let (_server, h) = hosted(dir.path());
    put(&h, "v");
    h.get(&Get::new("r")).expect("warm");
    let cache = h.row_cache.slot.as_ref().expect("enabled").cache.clone();
    assert_eq!(cache.stats().entries, 1);
    h.row_cache.retire();
    assert_eq!(cache.stats().entries, 0);
    // A reader that still holds the handle reads the region and leaves no entry behind.
    h.get(&Get::new("r")).expect("get");
    assert_eq!(cache.stats().entries, 0);
}

#[test]
fn gets_with_a_per_family_limit_or_offset_are_not_cached() {
    let dir = tempfile::tempdir().expect("dir");
    let (_server, h) = hosted(dir.path());
    put(&h, "v");
    let slot = h.row_cache.slot.clone().expect("enabled");
    for get in [
        Get::new("r").with_per_family(Some(1), 0),
        Get::new("r").with_per_family(None, 1),
    ] {
        let before = slot.cache.stats();
        h.get(&get).expect("get");
        h.get(&get).expect("get");
        let after = slot.cache.stats();
        assert_eq!(after.hits, before.hits, "{get:?}");
    }
    let offset = Get::new("r").with_per_family(None, 1);
    assert!(h.get(&offset).expect("get").is_empty());
}
