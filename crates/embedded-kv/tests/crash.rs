//! Crash safety at every sync point: what a power loss leaves at any instant of a workload
//! (the fault-injecting store's crash images) reopens with every acknowledged write, and at
//! most the one write in flight, never a torn or reordered state. Failed syncs stop the store
//! without losing what was acknowledged, until it resumes (also crash-safe at every sync).

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use strata_cluster::kv::{range_all, Compare, Kv, KvError, Op, Txn};
use strata_embedded_kv::{EmbeddedKv, OpenError, Options};
use strata_storage::clock::ManualClock;
use strata_storage::vfs::{Fault, FaultOp, Faulty, Local, Storage};

type State = BTreeMap<String, Vec<u8>>;

fn options() -> Options {
    Options {
        // Small, so the workload crosses several checkpoints.
        checkpoint_bytes: 300,
        clock: Arc::new(ManualClock::new(0)),
        ..Options::default()
    }
}

fn on(faulty: &Arc<Faulty<Local>>) -> Storage {
    Storage {
        files: faulty.clone(),
        logs: faulty.clone(),
    }
}

/// What a reopened store holds, leaving out what the store kept for itself.
fn read_state(kv: &EmbeddedKv) -> State {
    range_all(kv, "", 100)
        .unwrap()
        .kvs
        .into_iter()
        .map(|kv| (kv.key, kv.value))
        .collect()
}

/// Runs write `i` of the workload against `kv`, bringing `model` up to every acknowledged
/// step. On failure, also returns the state the failed step meant to reach.
fn write(kv: &EmbeddedKv, model: &mut State, i: usize) -> Result<(), (KvError, State)> {
    let key = format!("r/{:02}", i % 13);
    let value = format!("value {i}").into_bytes();
    let mut next = model.clone();
    match i % 5 {
        0..=2 => {
            next.insert(key.clone(), value.clone());
            next.insert("last".into(), value.clone());
            kv.txn(Txn {
                compares: vec![],
                success: vec![Op::put(&key, value.clone()), Op::put("last", value)],
            })
            .map_err(|e| (e, next.clone()))?;
        }
        3 => {
            // A guarded create that holds only when the key is absent.
            let absent = !model.contains_key(&key);
            if absent {
                next.insert(key.clone(), value.clone());
            }
            let out = kv
                .txn(Txn {
                    compares: vec![Compare::CreateRevision(key.clone(), 0)],
                    success: vec![Op::put(&key, value)],
                })
                .map_err(|e| (e, next.clone()))?;
            assert_eq!(out.succeeded, absent);
        }
        _ => {
            let prefix = format!("r/{}", i % 2);
            next.retain(|k, _| !k.starts_with(&prefix));
            kv.txn(Txn {
                compares: vec![],
                success: vec![Op::DeletePrefix(prefix)],
            })
            .map_err(|e| (e, next.clone()))?;
            model.clone_from(&next);
            // A leased key: never survives a restart, so it changes no state.
            let (lease, _) = kv.grant(30).map_err(|e| (e, next.clone()))?;
            kv.txn(Txn {
                compares: vec![],
                success: vec![Op::put_leased(format!("rs/{i}"), "x", lease)],
            })
            .map_err(|e| (e, next.clone()))?;
        }
    }
    *model = next;
    Ok(())
}

#[test]
fn every_crash_image_reopens_with_every_acknowledged_write() {
    let root = tempfile::tempdir().unwrap();
    let faulty = Arc::new(Faulty::with_crash_images(Local, root.path()).unwrap());
    faulty.record_crash_images(true);
    let dir = root.path().join("meta");
    let kv = EmbeddedKv::open(on(&faulty), &dir, options()).unwrap().0;
    let mut model = State::new();
    let mut states = vec![model.clone()];
    // acked[n] = writes acknowledged when image n was taken.
    let mut acked = vec![0; faulty.crash_image_count()];
    for i in 0..60 {
        write(&kv, &mut model, i).unwrap();
        states.push(model.clone());
        acked.resize(faulty.crash_image_count(), i);
    }
    let images = faulty.crash_images();
    assert!(images.len() > 100, "{} sync points", images.len());
    for (n, image) in images.iter().enumerate() {
        let restored = tempfile::tempdir().unwrap();
        image
            .write_to(&Local, root.path(), restored.path())
            .unwrap();
        let (kv, _) = EmbeddedKv::open(Storage::local(), &restored.path().join("meta"), options())
            .unwrap_or_else(|e| panic!("image {n} does not open: {e}"));
        let got = read_state(&kv);
        let a = acked[n];
        assert!(
            got == states[a] || got == states[a + 1],
            "image {n} (after {a} acknowledged writes) holds {got:?}"
        );
        // And the reopened store goes on from there.
        let r = kv.revision();
        kv.txn(Txn {
            compares: vec![],
            success: vec![Op::put("after", "crash")],
        })
        .unwrap();
        assert_eq!(kv.revision(), r + 1);
    }
}

#[test]
fn a_failed_sync_stops_the_store_until_it_resumes_and_loses_nothing_acknowledged() {
    for fault in [Fault::EIO, Fault::ENOSPC] {
        for skip in 0..6 {
            let root = tempfile::tempdir().unwrap();
            let faulty = Arc::new(Faulty::new(Local));
            let dir = root.path().join("meta");
            let clock = Arc::new(ManualClock::new(0));
            let opts = Options {
                clock: clock.clone(),
                ..options()
            };
            let kv = EmbeddedKv::open(on(&faulty), &dir, opts).unwrap().0;
            let mut model = State::new();
            let mut intended = None;
            faulty.inject_after(FaultOp::Sync, fault, skip, Some(1));
            let mut failed_at = None;
            for i in 0..20 {
                if let Err((e, meant)) = write(&kv, &mut model, i) {
                    assert!(matches!(e, KvError::Unavailable(_)), "{e}");
                    failed_at = Some(i);
                    intended = Some(meant);
                    break;
                }
            }
            if let Some(at) = failed_at {
                // Stopped: calls fail until a resume is due, and a resume fails while the
                // disk still fails.
                assert!(matches!(kv.get("last"), Err(KvError::Unavailable(_))));
                assert!(kv.failure().is_some());
                faulty.inject(FaultOp::Sync, fault, None);
                clock.advance(1000);
                let err = kv.get("last").unwrap_err();
                assert!(err.to_string().contains("resuming failed"), "{err}");
                faulty.clear();
                assert!(matches!(kv.get("last"), Err(KvError::Unavailable(_))));
                // Once the disk works and a resume is due, the store serves again, the failed
                // write included (its fate was unknown; now it is durable).
                clock.advance(1000);
                assert_eq!(Some(read_state(&kv)), intended, "{fault:?} skip {skip}");
                assert!(kv.failure().is_none());
                model = intended.clone().unwrap();
                let i = at + 1;
                write(&kv, &mut model, i).unwrap();
            } else {
                // The fault hit a checkpoint's snapshot: postponed, the journal goes on.
                faulty.clear();
                assert!(kv.failure().is_none());
            }
            drop(kv);
            let kv = EmbeddedKv::open(Storage::local(), &dir, options())
                .unwrap()
                .0;
            assert_eq!(read_state(&kv), model, "{fault:?} skip {skip}");
        }
    }
}

#[test]
fn every_crash_image_of_a_resume_reopens_with_every_acknowledged_write() {
    let root = tempfile::tempdir().unwrap();
    let faulty = Arc::new(Faulty::with_crash_images(Local, root.path()).unwrap());
    let dir = root.path().join("meta");
    let clock = Arc::new(ManualClock::new(0));
    let opts = Options {
        clock: clock.clone(),
        ..options()
    };
    let kv = EmbeddedKv::open(on(&faulty), &dir, opts).unwrap().0;
    let mut model = State::new();
    for i in 0..4 {
        write(&kv, &mut model, i).unwrap();
    }
    faulty.inject(FaultOp::Sync, Fault::EIO, Some(1));
    let (_, intended) = write(&kv, &mut model, 4).unwrap_err();
    faulty.clear();
    faulty.record_crash_images(true);
    clock.advance(1000);
    assert_eq!(read_state(&kv), intended);
    faulty.record_crash_images(false);
    let images = faulty.crash_images();
    assert!(!images.is_empty());
    for (n, image) in images.iter().enumerate() {
        let restored = tempfile::tempdir().unwrap();
        image
            .write_to(&Local, root.path(), restored.path())
            .unwrap();
        let (kv, _) = EmbeddedKv::open(Storage::local(), &restored.path().join("meta"), options())
            .unwrap_or_else(|e| panic!("image {n} does not open: {e}"));
        let got = read_state(&kv);
        assert!(
            got == model || got == intended,
            "image {n} of the resume holds {got:?}"
        );
    }
}

#[test]
fn unreadable_or_damaged_files_are_clear_errors() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("meta");
    {
        let kv = EmbeddedKv::open(Storage::local(), &dir, options())
            .unwrap()
            .0;
        let mut model = State::new();
        for i in 0..3 {
            write(&kv, &mut model, i).unwrap();
        }
    }
    let faulty = Arc::new(Faulty::new(Local));
    faulty.inject(FaultOp::Read, Fault::EIO, None);
    let err = EmbeddedKv::open(on(&faulty), &dir, options()).unwrap_err();
    assert!(matches!(err, OpenError::Io { .. }), "{err}");
    // A snapshot changed after it was written.
    let snapshot = dir.join("snapshot");
    let mut bytes = std::fs::read(&snapshot).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&snapshot, &bytes).unwrap();
    let err = EmbeddedKv::open(Storage::local(), &dir, options()).unwrap_err();
    assert!(matches!(err, OpenError::Corrupt { .. }), "{err}");
    // Segments without their snapshot.
    std::fs::remove_file(&snapshot).unwrap();
    let err = EmbeddedKv::open(Storage::local(), &dir, options()).unwrap_err();
    assert!(err.to_string().contains("without a snapshot"), "{err}");
    assert!(
        !Path::new(&snapshot).exists(),
        "a refused open changes nothing"
    );
}
