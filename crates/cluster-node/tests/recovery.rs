//! Crash recovery on local storage: a server's WAL is split per region and replayed by the
//! next opener, with every write and nothing twice; both steps are idempotent.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use strata_cluster_node::fencer::fence_wal;
use strata_cluster_node::names::{recovered_dir, region_id, server_dir, splitting_dir, wal_dir};
use strata_cluster_node::recovered::{replay_recovered, split_wal};
use strata_model::ops::{Get, Put};
use strata_model::schema::TableDescriptor;
use strata_server::RegionServer;
use strata_storage::manifest::RegionInfo;
use strata_storage::vfs::Storage;
use strata_testkit::fixtures;

fn server(root: &Path, name: &str) -> Arc<RegionServer> {
    let mut config = fixtures::server_config(root, 64);
    config.wal_subdir = Some(server_dir(name));
    RegionServer::open(config).unwrap()
}

fn table() -> TableDescriptor {
    fixtures::table("t", &["f"])
}

fn info(region: &str, start: &str, end: &str) -> RegionInfo {
    let (_, id) = region_id(region).unwrap();
    fixtures::region("t", id, start, end)
}

fn value(server: &RegionServer, id: u64, row: &str) -> Option<Bytes> {
    let cells = server
        .hosted(id)
        .unwrap()
        .region
        .get(&Get::new(row.to_string()))
        .unwrap();
    cells.first().map(|c| c.value.clone())
}

#[test]
fn a_dead_servers_edits_reach_the_next_opener_once() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let storage = Storage::local();
    let (low, high) = (info("t,00000000", "", "m"), info("t,00000001", "m", ""));

    // Server a writes to two regions, flushes one write of the low region, and dies.
    let a = server(root, "a:1:1");
    for i in [&low, &high] {
        a.open_region(&table(), i).unwrap();
    }
    let put = |id: u64, row: &str, v: &str| {
        let p = Put::new(row.to_string()).add("f", "q", Bytes::from(v.to_string()));
        a.hosted(id).unwrap().region.put(&p).unwrap();
    };
    put(low.region_id, "b", "old");
    a.hosted(low.region_id).unwrap().region.flush().unwrap();
    put(low.region_id, "b", "new");
    put(low.region_id, "c", "c1");
    put(high.region_id, "x", "x1");
    drop(a);

    // The master fences its WAL (moving the directory away: a rerun finds it moved) and
    // splits it; a second split finds nothing left to do.
    fence_wal(&storage, root, "a:1:1").unwrap();
    assert!(!wal_dir(root, "a:1:1").exists());
    assert!(splitting_dir(root, "a:1:1").exists());
    fence_wal(&storage, root, "a:1:1").unwrap();
    assert_eq!(split_wal(&storage, root, "a:1:1").unwrap(), 4);
    assert_eq!(split_wal(&storage, root, "a:1:1").unwrap(), 0);
    assert!(recovered_dir(root, low.region_id).join("a,1,1").exists());
    assert!(
        !splitting_dir(root, "a:1:1").exists(),
        "the split deletes the fenced WAL"
    );

    // Server b opens both regions: every write is there, the newest value wins.
    let b = server(root, "b:2:2");
    for i in [&low, &high] {
        assert_eq!(replay_recovered(&b, root, &table(), i).unwrap(), 1);
        assert_eq!(replay_recovered(&b, root, &table(), i).unwrap(), 0);
        b.open_region(&table(), i).unwrap();
    }
    assert_eq!(value(&b, low.region_id, "b").as_deref(), Some(&b"new"[..]));
    assert_eq!(value(&b, low.region_id, "c").as_deref(), Some(&b"c1"[..]));
    assert_eq!(value(&b, high.region_id, "x").as_deref(), Some(&b"x1"[..]));
    assert!(!recovered_dir(root, low.region_id).join("a,1,1").exists());
    b.shutdown().unwrap();
}

#[test]
fn an_interrupted_split_is_redone_from_the_whole_wal() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let storage = Storage::local();
    let low = info("t,00000000", "", "");
    let a = server(root, "a:1:1");
    a.open_region(&table(), &low).unwrap();
    let p = Put::new("r".to_string()).add("f", "q", Bytes::from_static(b"v"));
    a.hosted(low.region_id).unwrap().region.put(&p).unwrap();
    drop(a);
    // A split that died after writing part of a region's recovered edits left a stray file.
    let partial = recovered_dir(root, low.region_id).join("a,1,1");
    std::fs::create_dir_all(&partial).unwrap();
    std::fs::write(partial.join("00000000000000000009.wal"), b"torn").unwrap();
    assert_eq!(split_wal(&storage, root, "a:1:1").unwrap(), 1);
    assert!(!partial.join("00000000000000000009.wal").exists());
    let b = server(root, "b:2:2");
    replay_recovered(&b, root, &table(), &low).unwrap();
    b.open_region(&table(), &low).unwrap();
    assert_eq!(value(&b, low.region_id, "r").as_deref(), Some(&b"v"[..]));
    b.shutdown().unwrap();
}
