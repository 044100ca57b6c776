//! Region merges in cluster mode, as real processes on a real etcd and HDFS (see
//! `support/cluster.rs`; skipped without them unless `STRATA_REQUIRE_ETCD`/`HDFS`):
//! - adjacent regions merged under writers: two on one server through the Rust client's
//!   `Admin::merge`, two on different servers (the master moves one first) with
//!   `strata cluster merge` and their short names, then the two merged regions through the
//!   shell's `merge_region`: every acknowledged write readable afterwards, one region left,
//!   and each merged parent gone (record and directory) once the merged region compacted its
//!   references away;
//! - bad requests refused with a clear code and nothing changed;
//! - the active master killed (SIGKILL) while a merge is in flight: the standby finishes it.
#![allow(clippy::unwrap_used)]

#[path = "support/cluster.rs"]
mod cluster;
#[path = "support/cluster_admin.rs"]
mod cluster_admin;
mod support;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use strata_client::{Error, Table};
use strata_cluster::etcd::EtcdKv;
use strata_cluster::kv::{range_all, Kv, Op, Txn};
use strata_cluster::layout::Layout;
use strata_cluster::master::{take_result, AdminRequest};
use strata_cluster::record::{RegionRecord, RegionState};
use strata_model::ops::{Get, Put};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use strata_proto::pb::ErrorCode;

use cluster::{engines, Cluster};
use cluster_admin::{
    balancer_off, blocking, connect_with_table, etcd, region_dir, regions, request, standby,
    wait_for, writers,
};
use support::key;

/// The regions of `table` that serve rows (merged parents left out), by start row.
fn live(kv: &EtcdKv, layout: &Layout, table: &str) -> Vec<(String, RegionRecord)> {
    let mut all: Vec<_> = regions(kv, layout, table)
        .into_iter()
        .filter(|(_, r)| r.state != RegionState::Merged)
        .collect();
    all.sort_by(|a, b| a.1.start.cmp(&b.1.start));
    all
}

/// Moves `region` onto `server` (a full server name) and waits until it is open there.
fn move_to(kv: &EtcdKv, layout: &Layout, region: &str, server: &str) {
    let req = AdminRequest::Move {
        region: region.to_string(),
        target: Some(server.to_string()),
    };
    let id: String = region
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let result = request(kv, layout, &format!("move-{id}"), &req);
    assert!(result.starts_with("accepted"), "{result}");
    let table = strata_cluster::layout::region_table(region);
    wait_for("the move", Duration::from_secs(20), || {
        regions(kv, layout, table).iter().any(|(n, r)| {
            n == region
                && r.state == RegionState::Open
                && r.proc.is_none()
                && r.server.as_deref() == Some(server)
        })
    });
}

fn storage_id(region: &str) -> u64 {
    strata_cluster_node::names::region_id(region).unwrap().1
}

/// Writer `i`'s row: one row per write, spread over the whole key space (every region
/// takes writes).
fn wkey(i: u64) -> Bytes {
    Bytes::from(format!("row{:08}w{i}", (i * 7919) % 1_000_000))
}

async fn check_all(table: &Table, rows: &BTreeSet<u64>) {
    for i in rows {
        let row = if *i < 1_000_000 { key(*i) } else { wkey(*i) };
        let got = table.get(&Get::new(row)).await.unwrap();
        let value = got.into_iter().next().map(|c| c.value);
        assert_eq!(value, Some(Bytes::from(format!("v{i}"))), "write {i}");
    }
}

fn code<T: std::fmt::Debug>(r: Result<T, Error>) -> ErrorCode {
    r.unwrap_err().code
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regions_merge_under_writers_together_and_apart() {
    let Some(e) = engines() else { return };
    let started = Instant::now();
    let c = Cluster::start(&e, "merge", 2);
    let (kv, layout) = etcd(&e, &c.name);
    balancer_off(&kv, &layout);
    let storage_root =
        strata_shared_storage::open_root(&c.root, Some(&e.http), Duration::from_secs(10)).unwrap();
    let (storage, root) = (storage_root.storage.clone(), storage_root.path.clone());
    let splits: Vec<Bytes> = [250_000, 500_000, 750_000].map(key).to_vec();
    let (conn, table) = connect_with_table(&c, &splits).await;
    let admin = conn.admin();
    for i in 0..400 {
        let put = Put::new(key(i * 2500)).add("f", "q", Bytes::from(format!("v{}", i * 2500)));
        table.put(&put).await.unwrap();
    }
    let mut acked: BTreeSet<u64> = (0..400).map(|i| i * 2500).collect();
    let r = live(&kv, &layout, "t");
    assert_eq!(r.len(), 4, "{r:?}");
    let server = |i: usize| r[i].1.server.clone().unwrap();
    // r0 and r1 together; r2 and r3 apart.
    if server(0) != server(1) {
        move_to(&kv, &layout, &r[1].0, &server(0));
    }
    if server(2) == server(3) {
        let other = r
            .iter()
            .filter_map(|(_, rec)| rec.server.clone())
            .find(|s| *s != server(2))
            .unwrap_or_else(|| {
                // Every region on one server: the other server is the one with none.
                let all = blocking(|| range_all(&kv, &layout.servers(), 10)).unwrap();
                all.kvs
                    .iter()
                    .filter_map(|kv| kv.key.strip_prefix(&layout.servers()))
                    .find(|s| *s != server(2))
                    .unwrap()
                    .to_string()
            });
        move_to(&kv, &layout, &r[3].0, &other);
    }
    let r = live(&kv, &layout, "t");
    assert_eq!(r[0].1.server, r[1].1.server);
    assert_ne!(r[2].1.server, r[3].1.server);

    // Bad requests: refused with a clear code, nothing changed.
    let before = regions(&kv, &layout, "t");
    let (id0, id2) = (storage_id(&r[0].0), storage_id(&r[2].0));
    assert_eq!(
        code(admin.merge("t", id0, id0).await),
        ErrorCode::InvalidArgument
    );
    assert_eq!(
        code(admin.merge("t", id0, id2).await),
        ErrorCode::InvalidArgument,
        "not adjacent"
    );
    assert_eq!(
        code(admin.merge("t", id0, 0xdead_beef_0000_0777).await),
        ErrorCode::RegionNotFound
    );
    assert_eq!(
        code(admin.merge("nope", id0, id2).await),
        ErrorCode::TableNotFound
    );
    let u = TableDescriptor::new(TableName::parse("u").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    admin.create_table(&u, &[key(5)]).await.unwrap();
    let ur = live(&kv, &layout, "u");
    let different = AdminRequest::Merge {
        a: r[0].0.clone(),
        b: ur[0].0.clone(),
    };
    let result = request(&kv, &layout, "bad-tables", &different);
    assert!(result.contains("different tables"), "{result}");
    // A move and a merge of the same region taken in one round: the merge finds the region
    // in transition.
    let mv = AdminRequest::Move {
        region: ur[1].0.clone(),
        target: None,
    };
    let mg = AdminRequest::Merge {
        a: ur[0].0.clone(),
        b: ur[1].0.clone(),
    };
    let both = Txn {
        compares: vec![],
        success: vec![
            Op::put(layout.request("busy-1"), mv.encode()),
            Op::put(layout.request("busy-2"), mg.encode()),
        ],
    };
    blocking(|| kv.txn(both)).unwrap();
    let mut result = None;
    wait_for("the merge answered", Duration::from_secs(20), || {
        result = blocking(|| take_result(&kv, &layout, "busy-2"))
            .ok()
            .flatten();
        result.is_some()
    });
    let result = result.unwrap();
    assert!(result.contains("in transition"), "{result}");
    wait_for("the move of u", Duration::from_secs(20), || {
        live(&kv, &layout, "u")
            .iter()
            .all(|(_, r)| r.state == RegionState::Open && r.proc.is_none())
    });
    let _ = blocking(|| take_result(&kv, &layout, "busy-1"));
    admin.disable_table("u").await.unwrap();
    let ur = live(&kv, &layout, "u");
    assert_eq!(
        code(
            admin
                .merge("u", storage_id(&ur[0].0), storage_id(&ur[1].0))
                .await
        ),
        ErrorCode::TableDisabled
    );
    assert_eq!(
        regions(&kv, &layout, "t"),
        before,
        "a refused merge changed nothing"
    );

    // Merges under writers.
    let stop = Arc::new(AtomicBool::new(false));
    let running = writers(&table, 1_000_000, 2, &stop, wkey);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let t0 = Instant::now();
    admin
        .merge("t", storage_id(&r[1].0), storage_id(&r[0].0))
        .await
        .unwrap();
    let together = t0.elapsed();
    let t0 = Instant::now();
    let short = |name: &str| name.rsplit_once('.').unwrap().1.to_string();
    let out = blocking(|| {
        std::process::Command::new(env!("CARGO_BIN_EXE_strata"))
            .args([
                "cluster",
                "merge",
                "--etcd",
                &e.etcd,
                "--cluster",
                &c.name,
                "t",
            ])
            .arg(format!("t,{}", short(&r[2].0)))
            .arg(short(&r[3].0))
            .output()
            .unwrap()
    });
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains(&format!("merged {} and {} into ", r[2].0, r[3].0)),
        "strata cluster merge failed: {text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let apart = t0.elapsed();
    let halves = live(&kv, &layout, "t");
    assert_eq!(halves.len(), 2, "{halves:?}");
    let t0 = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("merge.txt");
    std::fs::write(
        &script,
        format!("merge_region '{}', '{}'\n", halves[0].0, halves[1].0),
    )
    .unwrap();
    let out = blocking(|| {
        std::process::Command::new(env!("CARGO_BIN_EXE_strata"))
            .args(["shell", "-n", "--etcd", &e.etcd, "--cluster", &c.name])
            .arg(&script)
            .output()
            .unwrap()
    });
    assert!(
        out.status.success(),
        "shell merge_region failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let by_shell = t0.elapsed();
    tokio::time::sleep(Duration::from_millis(300)).await;
    stop.store(true, Ordering::Relaxed);
    for w in running {
        acked.extend(w.await.unwrap());
    }
    let written = acked.len();
    check_all(&table, &acked).await;
    let one = live(&kv, &layout, "t");
    assert_eq!(one.len(), 1, "{one:?}");
    assert_eq!(one[0].1.state, RegionState::Open);
    assert!(one[0].1.start.is_empty() && one[0].1.end.is_empty());
    assert_eq!(admin.regions("t").await.unwrap().len(), 1);

    // Each merged parent goes (record and directory) once the merged region compacted.
    let parents: Vec<String> = r
        .iter()
        .chain(halves.iter())
        .map(|(n, _)| n.clone())
        .collect();
    assert_eq!(parents.len(), 6, "{parents:?}");
    let t0 = Instant::now();
    wait_for("merged parents deleted", Duration::from_secs(40), || {
        regions(&kv, &layout, "t").len() == 1
    });
    let janitor = t0.elapsed();
    for p in &parents {
        let dir = region_dir(&root, p);
        assert!(!storage.files.exists(&dir).unwrap(), "{dir:?} still exists");
    }
    check_all(&table, &acked).await;
    eprintln!(
        "merges in cluster mode under 2 writers: on one server {:.2} s, apart (one moved \
         first) {:.2} s, by the shell {:.2} s; parents deleted {:.1} s later; {written} \
         acknowledged writes all read back; total {:.1} s",
        together.as_secs_f64(),
        apart.as_secs_f64(),
        by_shell.as_secs_f64(),
        janitor.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    let _ = storage.files.remove_dir_all(&root);
    blocking(move || drop(kv));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_standby_master_finishes_a_merge_when_the_active_one_is_killed() {
    let Some(e) = engines() else { return };
    let started = Instant::now();
    let mut c = Cluster::start(&e, "mergefail", 2);
    let standby = standby(&e, &c, "127.0.0.1:17998");
    let (kv, layout) = etcd(&e, &c.name);
    balancer_off(&kv, &layout);
    let (_conn, table) = connect_with_table(&c, &[key(500_000)]).await;
    for i in 0..2000 {
        let put = Put::new(key(i * 500)).add("f", "q", Bytes::from(format!("v{}", i * 500)));
        table.put(&put).await.unwrap();
    }
    let acked_before: BTreeSet<u64> = (0..2000).map(|i| i * 500).collect();
    let stop = Arc::new(AtomicBool::new(false));
    let running = writers(&table, 1_000_000, 2, &stop, wkey);

    // Submit the merge, and kill the active master as soon as it accepted it.
    let r = live(&kv, &layout, "t");
    let req = AdminRequest::Merge {
        a: r[0].0.clone(),
        b: r[1].0.clone(),
    };
    let result = request(&kv, &layout, "merge-under-kill", &req);
    assert!(result.starts_with("accepted"), "{result}");
    let killed_at = Instant::now();
    drop(std::mem::replace(&mut c.master, standby)); // SIGKILL
    let in_flight = !blocking(|| range_all(&kv, &layout.procs(), 100))
        .unwrap()
        .kvs
        .is_empty();

    let mut polls = 0;
    wait_for(
        "the standby finished the merge",
        Duration::from_secs(40),
        || {
            let all = regions(&kv, &layout, "t");
            polls += 1;
            if polls % 50 == 0 {
                let procs = blocking(|| range_all(&kv, &layout.procs(), 100)).unwrap();
                let procs: Vec<String> = procs
                    .kvs
                    .iter()
                    .map(|p| String::from_utf8_lossy(&p.value).into_owned())
                    .collect();
                eprintln!("regions {all:?}\nprocedures {procs:?}");
            }
            all.iter()
                .filter(|(_, r)| r.state == RegionState::Merged)
                .count()
                == 2
                && all
                    .iter()
                    .filter(|(_, r)| r.state != RegionState::Merged)
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
    assert_eq!(live(&kv, &layout, "t").len(), 1);
    eprintln!(
        "kill -9 of the active master {} the merge: the standby finished it {:.2} s after the \
         kill; {} acknowledged writes all read back; total {:.1} s",
        if in_flight { "during" } else { "right after" },
        finished.as_secs_f64(),
        acked.len(),
        started.elapsed().as_secs_f64()
    );
    blocking(move || drop(kv));
    assert!(
        in_flight,
        "the merge ended before the kill: nothing for the standby to finish"
    );
}
