//! The embedded store keeps etcd's semantics as the cluster protocol uses them, and keeps every
//! acknowledged write across reopening.

#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::sync::Arc;

use strata_cluster::kv::{range_all, Compare, EventKind, Kv, KvError, Op, Txn};
use strata_embedded_kv::{EmbeddedKv, OpenError, Options};
use strata_storage::clock::ManualClock;
use strata_storage::vfs::Storage;

fn options(clock: &Arc<ManualClock>) -> Options {
    Options {
        clock: clock.clone(),
        ..Options::default()
    }
}

fn open(dir: &Path, clock: &Arc<ManualClock>) -> EmbeddedKv {
    EmbeddedKv::open(Storage::local(), dir, options(clock))
        .expect("open")
        .0
}

fn put(kv: &EmbeddedKv, key: &str, value: &str) -> i64 {
    kv.txn(Txn {
        compares: vec![],
        success: vec![Op::put(key, value)],
    })
    .expect("put")
    .revision
}

#[test]
fn guarded_transactions_advance_one_revision() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(0));
    let kv = open(dir.path(), &clock);
    let create = |v: &str| Txn {
        compares: vec![Compare::CreateRevision("a".into(), 0)],
        success: vec![Op::put("a", v), Op::put("b", v)],
    };
    let first = kv.txn(create("1")).unwrap();
    assert!(first.succeeded);
    assert_eq!(first.revision, 2);
    let second = kv.txn(create("2")).unwrap();
    assert!(!second.succeeded);
    assert_eq!(second.revision, 2, "a failed guard writes nothing");
    let a = kv.get("a").unwrap().unwrap();
    assert_eq!((a.create_revision, a.mod_revision), (2, 2));
    let too_many = Txn {
        compares: vec![],
        success: (0..=kv.max_txn_ops())
            .map(|i| Op::put(format!("k{i}"), "v"))
            .collect(),
    };
    assert!(matches!(kv.txn(too_many), Err(KvError::Invalid(_))));
    assert_eq!(kv.revision(), 2);
}

#[test]
fn writes_survive_reopening_with_their_revisions() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(0));
    {
        let kv = open(dir.path(), &clock);
        for i in 0..50 {
            put(&kv, &format!("t/{i:03}"), &format!("v{i}"));
        }
        kv.txn(Txn {
            compares: vec![],
            success: vec![Op::Delete("t/007".into()), Op::DeletePrefix("t/04".into())],
        })
        .unwrap();
    }
    let kv = open(dir.path(), &clock);
    assert_eq!(kv.revision(), 52);
    let all = range_all(&kv, "t/", 7).unwrap();
    assert_eq!(all.kvs.len(), 50 - 1 - 10);
    let k = kv.get("t/012").unwrap().unwrap();
    assert_eq!(
        (k.value.as_slice(), k.create_revision, k.mod_revision),
        (b"v12".as_slice(), 14, 14)
    );
    assert!(kv.get("t/007").unwrap().is_none());
    assert_eq!(put(&kv, "t/000", "again"), 53);
    assert_eq!(kv.get("t/000").unwrap().unwrap().create_revision, 2);
}

#[test]
fn leases_expire_by_the_clock_and_end_with_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(0));
    {
        let kv = open(dir.path(), &clock);
        let (lease, ttl) = kv.grant(2).unwrap();
        assert_eq!(ttl, 2);
        kv.txn(Txn {
            compares: vec![],
            success: vec![Op::put_leased("rs/a", "x", lease), Op::put("plain", "y")],
        })
        .unwrap();
        let w = kv.watch("rs/", 1).unwrap();
        assert_eq!(kv.poll(w).unwrap().len(), 1);
        clock.advance(1500);
        assert_eq!(kv.keep_alive(lease).unwrap(), Some(2));
        clock.advance(1999);
        assert!(kv.get("rs/a").unwrap().is_some(), "renewed at 1.5 s");
        clock.advance(1);
        assert!(kv.get("rs/a").unwrap().is_none(), "expired at 3.5 s");
        let ev = kv.poll(w).unwrap();
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0].kind, EventKind::Delete);
        let (lease, _) = kv.grant(60).unwrap();
        kv.txn(Txn {
            compares: vec![],
            success: vec![Op::put_leased("rs/b", "x", lease)],
        })
        .unwrap();
    }
    // The holder of rs/b's lease is gone with the run: reopening deletes it at a new revision.
    let before = 4;
    let (kv, recovery) =
        EmbeddedKv::open(Storage::local(), dir.path(), options(&clock)).expect("reopen");
    assert_eq!(recovery.leased_dropped, 1);
    assert_eq!(kv.revision(), before + 1);
    assert!(kv.get("rs/b").unwrap().is_none());
    assert!(kv.get("plain").unwrap().is_some());
    let (lease, _) = kv.grant(5).unwrap();
    assert!(lease > 0);
}

#[test]
fn watches_see_every_change_in_order_and_lose_compacted_history() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(0));
    let kv = EmbeddedKv::open(
        Storage::local(),
        dir.path(),
        Options {
            keep_events: 10,
            ..options(&clock)
        },
    )
    .unwrap()
    .0;
    let w = kv.watch("w/", 2).unwrap();
    let mut seen = Vec::new();
    for i in 0..15 {
        put(&kv, &format!("w/{i}"), "v");
        put(&kv, &format!("other/{i}"), "v");
        seen.extend(kv.poll(w).unwrap());
    }
    assert_eq!(seen.len(), 15, "every change under the prefix");
    assert!(seen
        .windows(2)
        .all(|p| p[0].kv.mod_revision < p[1].kv.mod_revision));
    assert!(kv.poll(w).unwrap().is_empty());
    let stale = kv.watch("w/", 2).unwrap();
    assert!(matches!(kv.poll(stale), Err(KvError::WatchLost(_))));
    kv.cancel(stale);
}

#[test]
fn checkpoints_keep_everything_and_leave_one_segment() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(0));
    let opts = Options {
        checkpoint_bytes: 512,
        ..options(&clock)
    };
    {
        let kv = EmbeddedKv::open(Storage::local(), dir.path(), opts.clone())
            .unwrap()
            .0;
        for i in 0..300 {
            put(&kv, &format!("k/{}", i % 40), &format!("{i:0>40}"));
        }
    }
    let segments = std::fs::read_dir(dir.path())
        .unwrap()
        .filter(|e| {
            let e = e.as_ref().unwrap();
            e.file_name().to_string_lossy().starts_with("journal.")
        })
        .count();
    assert_eq!(segments, 1);
    let (kv, rec) = EmbeddedKv::open(Storage::local(), dir.path(), opts).unwrap();
    assert!(rec.snapshot_revision > 1);
    assert_eq!(kv.revision(), 301);
    let last = kv.get("k/19").unwrap().unwrap();
    assert_eq!(last.value, format!("{:0>40}", 299).into_bytes());
}

#[test]
fn a_torn_last_record_is_dropped_and_corruption_refused() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(0));
    {
        let kv = open(dir.path(), &clock);
        put(&kv, "a", "1");
        put(&kv, "b", "2");
        put(&kv, "c", "3");
    }
    let segment = |d: &Path| {
        std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("journal.")
            })
            .unwrap()
    };
    // An unfinished write: half a record at the end.
    let torn = tempfile::tempdir().unwrap();
    copy_dir(dir.path(), torn.path());
    {
        let kv = open(torn.path(), &clock);
        put(&kv, "d", "4");
    }
    let seg = segment(torn.path());
    let bytes = std::fs::read(&seg).unwrap();
    std::fs::write(&seg, &bytes[..bytes.len() - 5]).unwrap();
    let (kv, rec) = EmbeddedKv::open(Storage::local(), torn.path(), options(&clock)).unwrap();
    assert!(rec.torn_bytes > 0);
    assert!(kv.get("d").unwrap().is_none());
    assert_eq!(kv.get("c").unwrap().unwrap().value, b"3");
    drop(kv);
    // A flipped byte inside an earlier record, with valid records after it: refused.
    let bad = tempfile::tempdir().unwrap();
    copy_dir(dir.path(), bad.path());
    {
        let kv = open(bad.path(), &clock);
        put(&kv, "d", "4");
        put(&kv, "e", "5");
    }
    let seg = segment(bad.path());
    let mut bytes = std::fs::read(&seg).unwrap();
    bytes[12] ^= 0xff;
    std::fs::write(&seg, &bytes).unwrap();
    let err = EmbeddedKv::open(Storage::local(), bad.path(), options(&clock)).unwrap_err();
    assert!(matches!(err, OpenError::Corrupt { .. }), "{err}");
    assert!(err.to_string().contains("followed by a valid one"), "{err}");
}

fn copy_dir(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

#[test]
fn a_transaction_as_large_as_the_store_allows_is_one_revision_and_survives_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(0));
    let kv = open(dir.path(), &clock);
    let max = kv.max_txn_ops();
    assert_eq!(max, strata_embedded_kv::MAX_TXN_OPS);
    assert!(max > strata_cluster::kv::MAX_TXN_OPS, "more than etcd's");
    let before = put(&kv, "start", "x");
    let value = "v".repeat(150);
    let outcome = kv
        .txn(Txn {
            compares: (0..max)
                .map(|i| Compare::ModRevision(format!("k/{i:05}"), 0))
                .collect(),
            success: (0..max)
                .map(|i| Op::put(format!("k/{i:05}"), value.clone()))
                .collect(),
        })
        .unwrap();
    assert!(outcome.succeeded);
    assert_eq!(outcome.revision, before + 1);
    drop(kv);
    let kv = open(dir.path(), &clock);
    let page = range_all(&kv, "k/", 1000).unwrap();
    assert_eq!(page.kvs.len(), max);
    assert!(page.kvs.iter().all(|kv| kv.value == value.as_bytes()));
}
