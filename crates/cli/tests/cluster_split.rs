//! Region splits in cluster mode, as real processes on a real etcd and HDFS (see
//! `support/cluster.rs`; skipped without them unless `STRATA_REQUIRE_ETCD`/`HDFS`):
//! - a table split under writers, at a row through the admin service (what the shell's
//!   `split 't', 'row'` sends), then through the shell and `strata cluster split`: every
//!   acknowledged write readable afterwards, the daughters served, and each split parent gone
//!   (record and directory) once its daughters compacted their references away;
//! - a table with a small `MAX_FILESIZE` splits by itself once its store grows past it;
//! - the active master killed (SIGKILL) while a split is in flight: the standby finishes it.
#![allow(clippy::unwrap_used)]

#[path = "support/cluster.rs"]
mod cluster;
#[path = "support/cluster_admin.rs"]
mod cluster_admin;
mod support;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use strata_client::Table;
use strata_cluster::etcd::EtcdKv;
use strata_cluster::kv::range_all;
use strata_cluster::layout::Layout;
use strata_cluster::master::{submit_request, take_result, AdminRequest};
use strata_cluster::record::{RegionRecord, RegionState};
use strata_model::ops::{Get, Put};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use strata_storage::vfs::Storage;

use cluster::{engines, Cluster};
use cluster_admin::{
    balancer_off, blocking, connect_with_table, etcd, region_dir, regions, standby, wait_for,
    writers,
};
use support::key;

async fn check_all(table: &Table, rows: &BTreeSet<u64>) {
    for i in rows {
        let row = table.get(&Get::new(key(*i))).await.unwrap();
        let value = row.into_iter().next().map(|c| c.value);
        assert_eq!(value, Some(Bytes::from(format!("v{i}"))), "row {i}");
    }
}

fn split_parents(kv: &EtcdKv, layout: &Layout, table: &str) -> Vec<String> {
    regions(kv, layout, table)
        .into_iter()
        .filter(|(_, r)| r.state == RegionState::Split)
        .map(|(n, _)| n)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tables_split_under_writers_and_by_size() {
    let Some(e) = engines() else { return };
    let started = Instant::now();
    let c = Cluster::start(&e, "split", 2);
    let (kv, layout) = etcd(&e, &c.name);
    balancer_off(&kv, &layout);
    let storage_root =
        strata_shared_storage::open_root(&c.root, Some(&e.http), Duration::from_secs(10)).unwrap();
    let (storage, root): (Storage, PathBuf) =
        (storage_root.storage.clone(), storage_root.path.clone());
    let (conn, table) = connect_with_table(&c, &[]).await;
    let admin = conn.admin();
    for i in 0..400 {
        let put = Put::new(key(i)).add("f", "q", Bytes::from(format!("v{i}")));
        table.put(&put).await.unwrap();
    }
    let mut acked: BTreeSet<u64> = (0..400).collect();

    // A split at a row while two writers write.
    let stop = Arc::new(AtomicBool::new(false));
    let running = writers(&table, 1_000_000, 2, &stop, key);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let t0 = Instant::now();
    admin.split("t", Some(key(200))).await.unwrap();
    let split_at_row = t0.elapsed();
    tokio::time::sleep(Duration::from_millis(300)).await;

    // Then the lower daughter at a row, through the shell as a user types it (a middle-key
    // split needs more than one block of data: the split by size below makes one).
    let t0 = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("split.txt");
    std::fs::write(&script, "split 't', 'row00000100'\n").unwrap();
    let out = blocking(|| {
        std::process::Command::new(env!("CARGO_BIN_EXE_strata"))
            .args(["shell", "-n", "--etcd", &e.etcd, "--cluster", &c.name])
            .arg(&script)
            .output()
            .unwrap()
    });
    assert!(
        out.status.success(),
        "shell split failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let split_by_shell = t0.elapsed();
    // And a region by its short name (`table,seq`) with `strata cluster split`.
    let upper = regions(&kv, &layout, "t")
        .into_iter()
        .find(|(_, r)| r.state == RegionState::Open && r.start == key(200).to_vec())
        .map(|(n, _)| n)
        .unwrap();
    let short = format!("t,{}", upper.rsplit_once('.').unwrap().1);
    let out = blocking(|| {
        std::process::Command::new(env!("CARGO_BIN_EXE_strata"))
            .args(["cluster", "split", "--etcd", &e.etcd, "--cluster", &c.name])
            .args([short.as_str(), "--row", "row00000300"])
            .output()
            .unwrap()
    });
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains(&format!("split {upper} into ")),
        "strata cluster split failed: {text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    stop.store(true, Ordering::Relaxed);
    for w in running {
        acked.extend(w.await.unwrap());
    }
    let written = acked.len();
    check_all(&table, &acked).await;
    let live: Vec<(String, RegionRecord)> = regions(&kv, &layout, "t")
        .into_iter()
        .filter(|(_, r)| r.state != RegionState::Split)
        .collect();
    assert!(live.len() >= 4, "regions after the splits: {live:?}");
    assert!(
        live.iter()
            .all(|(_, r)| r.state == RegionState::Open && r.server.is_some()),
        "{live:?}"
    );
    let located = admin.regions("t").await.unwrap();
    assert_eq!(located.len(), live.len(), "{located:?}");

    // Each parent goes (record and directory) once its daughters compacted their references.
    let parents = split_parents(&kv, &layout, "t");
    assert!(!parents.is_empty());
    wait_for("split parents deleted", Duration::from_secs(40), || {
        regions(&kv, &layout, "t")
            .iter()
            .all(|(_, r)| r.state != RegionState::Split)
    });
    for p in &parents {
        let dir = region_dir(&root, p);
        assert!(!storage.files.exists(&dir).unwrap(), "{dir:?} still exists");
    }
    check_all(&table, &acked).await;

    // A table with a 2 MiB split size splits by itself once flushed past it.
    let a = TableDescriptor::new(TableName::parse("a").unwrap())
        .with_family(FamilyDescriptor::new("f"))
        .with_max_filesize(2 << 20);
    admin.create_table(&a, &[]).await.unwrap();
    let big = conn.table("a").unwrap();
    let value = Bytes::from(vec![b'x'; 4096]);
    for i in 0..900 {
        let put = Put::new(key(i)).add("f", "q", value.clone());
        big.put(&put).await.unwrap();
    }
    admin.flush("a").await.unwrap();
    let t0 = Instant::now();
    wait_for("automatic split of a", Duration::from_secs(30), || {
        regions(&kv, &layout, "a")
            .iter()
            .filter(|(_, r)| r.state == RegionState::Open)
            .count()
            >= 2
    });
    let auto_split = t0.elapsed();
    for i in (0..900).step_by(7) {
        let row = big.get(&Get::new(key(i))).await.unwrap();
        assert_eq!(row.first().map(|c| c.value.clone()), Some(value.clone()));
    }
    eprintln!(
        "splits in cluster mode: at a row {:.2} s, by the shell {:.2} s, by size (middle key) \
         {:.2} s after the flush; {written} acknowledged writes all read back; total {:.1} s",
        split_at_row.as_secs_f64(),
        split_by_shell.as_secs_f64(),
        auto_split.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    let _ = storage.files.remove_dir_all(&root);
    blocking(move || drop(kv));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_standby_master_finishes_a_split_when_the_active_one_is_killed() {
    let Some(e) = engines() else { return };
    let started = Instant::now();
    let mut c = Cluster::start(&e, "splitfail", 2);
    let standby = standby(&e, &c, "127.0.0.1:17999");
    let (kv, layout) = etcd(&e, &c.name);
    let (_conn, table) = connect_with_table(&c, &[]).await;
    for i in 0..2000 {
        let put = Put::new(key(i)).add("f", "q", Bytes::from(format!("v{i}")));
        table.put(&put).await.unwrap();
    }
    let acked_before: BTreeSet<u64> = (0..2000).collect();
    let stop = Arc::new(AtomicBool::new(false));
    let running = writers(&table, 1_000_000, 2, &stop, key);

    // Submit the split, and kill the active master as soon as it accepted it.
    let (parent, _) = regions(&kv, &layout, "t").into_iter().next().unwrap();
    let req = AdminRequest::Split {
        region: parent.clone(),
        row: Some(key(1000).to_vec()),
    };
    blocking(|| submit_request(&kv, &layout, "split-under-kill", &req)).unwrap();
    wait_for("the split accepted", Duration::from_secs(20), || {
        matches!(
            blocking(|| take_result(&kv, &layout, "split-under-kill")),
            Ok(Some(_))
        )
    });
    let killed_at = Instant::now();
    drop(std::mem::replace(&mut c.master, standby)); // SIGKILL
    let in_flight = !blocking(|| range_all(&kv, &layout.procs(), 100))
        .unwrap()
        .kvs
        .is_empty();

    wait_for(
        "the standby finished the split",
        Duration::from_secs(40),
        || {
            let all = regions(&kv, &layout, "t");
            all.iter()
                .any(|(n, r)| *n == parent && r.state == RegionState::Split)
                && all
                    .iter()
                    .filter(|(_, r)| r.state != RegionState::Split)
                    .all(|(_, r)| r.state == RegionState::Open)
                && blocking(|| range_all(&kv, &layout.procs(), 100))
                    .unwrap()
                    .kvs
                    .is_empty()
        },
    );
    let finished = killed_at.elapsed();
    stop.store(true, Ordering::Relaxed);
    let mut acked = acked_before;
    for w in running {
        acked.extend(w.await.unwrap());
    }
    check_all(&table, &acked).await;
    eprintln!(
        "kill -9 of the active master {} the split: the standby finished it {:.2} s after the \
         kill; {} acknowledged writes all read back; total {:.1} s",
        if in_flight { "during" } else { "right after" },
        finished.as_secs_f64(),
        acked.len(),
        started.elapsed().as_secs_f64()
    );
    blocking(move || drop(kv));
    assert!(
        in_flight,
        "the split ended before the kill: nothing for the standby to finish"
    );
}
