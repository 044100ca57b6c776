//! The crash matrix: a region's life (FSYNC_WAL puts, WAL rolls, flushes, a major compaction,
//! a tier move, a split, the daughters' compactions and the parent's removal, a merge) runs
//! on a fault-injecting store that takes a crash image at every sync point. Each image is
//! reopened as a new process would: the regions the owner holds at that instant open, every
//! write acknowledged before the image is there, no file is torn (every read succeeds), and
//! no cell is one that was never written.
#![allow(clippy::unwrap_used)]

mod crash_support;

use std::sync::Arc;

use crash_support::Life;
use strata_storage::vfs::{Faulty, Local};

#[test]
fn every_crash_image_reopens_with_every_acknowledged_write() {
    let tmp = tempfile::tempdir().unwrap();
    let live = tmp.path().join("live");
    let store = Arc::new(Faulty::with_crash_images(Local, &live).unwrap());
    store.record_crash_images(true);
    let counter = store.clone();
    let mut life = Life::new(
        &live,
        store.clone(),
        Box::new(move || counter.crash_image_count()),
    );
    life.run_all();

    let images = store.crash_images();
    let phases = life.phases();
    assert!(images.len() > 100, "too few sync points: {}", images.len());
    let mut checked_by_phase = vec![0usize; phases.len()];
    for (i, image) in images.iter().enumerate() {
        let at = phases
            .iter()
            .rposition(|p| p.from_image <= i)
            .expect("the first phase starts at image 0");
        let restored = tmp.path().join(format!("image-{i}"));
        image.write_to(&Local, &live, &restored).unwrap();
        life.check_image(&restored, &phases[at], i)
            .unwrap_or_else(|e| panic!("image {i} (phase {}): {e}", phases[at].name));
        std::fs::remove_dir_all(&restored).unwrap();
        checked_by_phase[at] += 1;
    }
    // Every phase had sync points of its own.
    for (p, n) in phases.iter().zip(&checked_by_phase) {
        eprintln!("{n:4} crash images while {}", p.name);
        assert!(*n > 0, "no image in phase {}", p.name);
    }
    // And the state after the whole life (no crash) reopens the same way.
    let last = phases.last().unwrap();
    let restored = tmp.path().join("final");
    store
        .crash_image()
        .write_to(&Local, &live, &restored)
        .unwrap();
    life.check_image(&restored, last, images.len()).unwrap();
    assert!(life.acked() > 60, "{} writes", life.acked());
}
