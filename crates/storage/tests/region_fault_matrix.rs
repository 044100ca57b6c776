//! The fault matrix: every operation of a region's life (an FSYNC_WAL put, a flush, a major
//! compaction, a tier move, a split, a merge) runs with an injected error at its first call
//! of one kind (appends, syncs, writes, reads, namespace changes), then at its second, and so
//! on until the operation no longer reaches the fault. Each time the operation fails cleanly
//! or succeeds; once the fault clears the regions hold every acknowledged write, the
//! operation works when run again, and a crash image taken then reopens with every
//! acknowledged write.
#![allow(clippy::unwrap_used)]

mod crash_support;

use std::sync::Arc;

use bytes::Bytes;
use crash_support::{whole, Life, Phase, SPLIT_ROW};
use strata_model::schema::StoragePolicy;
use strata_storage::compaction::exploring::MajorRequest;
use strata_storage::manifest::RegionInfo;
use strata_storage::vfs::{Fault, FaultOp, Faulty, Local};
use strata_storage::Region;

type Store = Faulty<Local>;

/// The regions an operation works on.
struct Open {
    regions: Vec<Region>,
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Put,
    Flush,
    Compact,
    MoveTiers,
    Split,
    Merge,
}

/// Brings a new life to the point where `op` runs; returns its open regions.
fn prepare(life: &mut Life<Store>, op: Op) -> Open {
    let r1 = whole(1);
    let policy = match op {
        Op::MoveTiers | Op::Split | Op::Merge => StoragePolicy::AllSsd,
        _ => StoragePolicy::Hot,
    };
    let region = life.open(&r1, StoragePolicy::Hot);
    for _ in 0..3 {
        life.put(&region, 6);
        region.flush().unwrap();
    }
    life.put(&region, 4);
    let region = if policy == StoragePolicy::Hot {
        region
    } else {
        region.close().unwrap();
        drop(region);
        life.open(&r1, policy)
    };
    let regions = match op {
        Op::Merge => {
            let (lo, hi) = region
                .split(Some(Bytes::from_static(SPLIT_ROW.as_bytes())), (2, 3))
                .unwrap();
            drop(region);
            let (low, high) = (life.open(&lo, policy), life.open(&hi, policy));
            life.put(&low, 3);
            life.put(&high, 3);
            // No references left, so they can merge.
            low.compact(MajorRequest::User).unwrap();
            high.compact(MajorRequest::User).unwrap();
            vec![low, high]
        }
        _ => vec![region],
    };
    Open { regions }
}

/// Runs `op` once; returns the owner's regions' infos if it succeeded.
fn run(life: &mut Life<Store>, open: &Open, op: Op) -> Result<Vec<RegionInfo>, String> {
    let r = &open.regions[0];
    let same = || open.regions.iter().map(|r| r.info().clone()).collect();
    match op {
        Op::Put => {
            let key = life.next_key(r);
            life.try_put(r, &key).map(|()| same())
        }
        Op::Flush => r.flush().map(|_| same()),
        Op::Compact => r.compact(MajorRequest::User).map(|_| same()),
        Op::MoveTiers => r.move_tiers().map(|_| same()),
        Op::Split => r
            .split(Some(Bytes::from_static(SPLIT_ROW.as_bytes())), (2, 3))
            .map(|(a, b)| vec![a, b]),
        Op::Merge => Region::merge(r, &open.regions[1], 4).map(|m| vec![m]),
    }
    .map_err(|e| e.to_string())
}

/// One cell of the matrix: `op` with `fault` at the `skip + 1`-th call of `kind`. Returns
/// whether the fault was hit.
fn cell(op: Op, kind: FaultOp, fault: Fault, skip: u32) -> bool {
    let tmp = tempfile::tempdir().unwrap();
    let live = tmp.path().join("live");
    let store = Arc::new(Faulty::with_crash_images(Local, &live).unwrap());
    let mut life = Life::new(&live, store.clone(), Box::new(|| 0));
    let open = prepare(&mut life, op);
    let what = format!("{op:?} with {fault:?} at call {} of {kind:?}", skip + 1);

    store.inject_after(kind, fault, skip, Some(1));
    let first = run(&mut life, &open, op);
    let hit = !store.armed();
    store.clear();
    if first.is_ok() && !hit {
        return false;
    }
    // The fault cleared: the operation succeeds now (at once, or when run again after a
    // failure), and the regions the owner then holds have every acknowledged write.
    let infos = match first {
        Ok(infos) => infos,
        Err(e) => {
            life.check_live(&open.regions.iter().collect::<Vec<_>>())
                .unwrap_or_else(|e2| panic!("{what}: failed ({e}), then {e2}"));
            run(&mut life, &open, op).unwrap_or_else(|e2| {
                panic!("{what}: failed ({e}), and again once the fault cleared: {e2}")
            })
        }
    };
    let owned: Vec<Region> = if matches!(op, Op::Split | Op::Merge) {
        drop(open);
        infos
            .iter()
            .map(|i| life.open(i, open_policy(op)))
            .collect()
    } else {
        open.regions
    };
    life.check_live(&owned.iter().collect::<Vec<_>>())
        .unwrap_or_else(|e| panic!("{what}: after the retry: {e}"));

    // A crash now: the image reopens with every acknowledged write.
    let restored = tmp.path().join("image");
    store
        .crash_image()
        .write_to(&Local, &live, &restored)
        .unwrap();
    let phase = Phase {
        name: "after the fault",
        from_image: 0,
        regions: infos,
        policy: open_policy(op),
    };
    life.check_image(&restored, &phase, usize::MAX)
        .unwrap_or_else(|e| panic!("{what}: crash image: {e}"));
    hit
}

fn open_policy(op: Op) -> StoragePolicy {
    match op {
        Op::MoveTiers | Op::Split | Op::Merge => StoragePolicy::AllSsd,
        _ => StoragePolicy::Hot,
    }
}

fn matrix(op: Op) {
    for (kind, fault) in [
        (FaultOp::Append, Fault::EIO),
        (FaultOp::Sync, Fault::ENOSPC),
        (FaultOp::Write, Fault::ENOSPC),
        (FaultOp::Read, Fault::EIO),
        (FaultOp::Namespace, Fault::EIO),
    ] {
        let mut skip = 0;
        while cell(op, kind, fault, skip) {
            skip += 1;
            assert!(skip < 200, "{op:?}: more than 200 calls of {kind:?}");
        }
    }
}

#[test]
fn a_put_fails_cleanly_at_every_fault() {
    matrix(Op::Put);
}

#[test]
fn a_flush_fails_cleanly_at_every_fault() {
    matrix(Op::Flush);
}

#[test]
fn a_compaction_fails_cleanly_at_every_fault() {
    matrix(Op::Compact);
}

#[test]
fn a_tier_move_fails_cleanly_at_every_fault() {
    matrix(Op::MoveTiers);
}

#[test]
fn a_split_fails_cleanly_at_every_fault() {
    matrix(Op::Split);
}

#[test]
fn a_merge_fails_cleanly_at_every_fault() {
    matrix(Op::Merge);
}
