//! Crash consistency: for a crash after every single file-system operation of an update (and of
//! create and of open's cleanup), every state the disk may be left in reopens to exactly the old
//! or the new version, and to the new one whenever the update had returned `Ok`.
//!
//! `SimFs` keeps written bytes apart from durable bytes (after redb's crash_consistency test):
//! after a crash, any prefix of the unsynced name changes may survive, and every unsynced file
//! may hold its durable bytes, all its written bytes, or half of them.

use std::sync::Arc;

use bytes::Bytes;
use strata_storage::manifest::{
    Error, Half, Manifest, Reference, RegionInfo, SimFs, StoreFile, Version, VersionEdit,
};

fn file(name: &str, seq: u64) -> StoreFile {
    StoreFile {
        name: name.to_owned(),
        size: 1000 + seq,
        max_seq_id: seq,
        min_timestamp: 10,
        max_timestamp: 20,
        cell_count: 5,
        created_at_ms: 1_700_000_000_000,
        major: false,
        tier: "SSD".to_owned(),
        reference: None,
        link: None,
        bulk: false,
    }
}

fn initial() -> Version {
    let region = RegionInfo {
        table: "ns:t".to_owned(),
        region_id: 7,
        start_row: Bytes::from_static(b"b"),
        end_row: Bytes::from_static(b"m"),
    };
    Version::new(
        region,
        [Bytes::from_static(b"cf1"), Bytes::from_static(b"cf2")],
    )
    .expect("valid version")
}

/// A manifest with some history: several files, a flushed sequence id, an extra family.
fn setup() -> (SimFs, Manifest) {
    let fs = SimFs::new();
    let mut m = Manifest::create(Arc::new(fs.clone()), initial()).expect("create");
    let edits = [
        VersionEdit::new()
            .add_file("cf1", file("a", 10))
            .set_flushed_seq_id("cf1", 10),
        VersionEdit::new()
            .add_file("cf1", file("b", 20))
            .add_file("cf2", file("c", 20)),
        VersionEdit::new()
            .add_family("cf3")
            .add_file("cf3", file("d", 25)),
    ];
    for e in &edits {
        m.apply(e).expect("setup edit");
    }
    (fs, m)
}

fn scenarios() -> Vec<(&'static str, VersionEdit)> {
    let mut compacted = file("ab", 20);
    compacted.major = true;
    let mut reference = file("ref", 20);
    reference.reference = Some(Reference {
        parent_region_id: 3,
        parent_file: "parent-1".to_owned(),
        half: Half::Top,
        split_row: Bytes::from_static(b"g"),
    });
    vec![
        (
            "flush",
            VersionEdit::new()
                .add_file("cf1", file("e", 30))
                .set_flushed_seq_id("cf1", 30),
        ),
        (
            "compaction",
            VersionEdit::new()
                .remove_file("cf1", "a")
                .remove_file("cf1", "b")
                .add_file("cf1", compacted),
        ),
        ("reference", VersionEdit::new().add_file("cf2", reference)),
        (
            "families",
            VersionEdit::new().drop_family("cf3").add_family("cf4"),
        ),
    ]
}

/// Crash images of `fs` must all reopen to one of `allowed`; returns how many were checked.
/// Each image also survives a crash during open's own cleanup and accepts a further edit.
fn check_images(fs: &SimFs, allowed: &[&Version], context: &str) -> usize {
    let images = fs.crash_images();
    for (i, image) in images.iter().enumerate() {
        let why = || format!("{context}, image {i}, ops {:?}", fs.trace());
        let reopened = Manifest::open(Arc::new(image.fork()))
            .unwrap_or_else(|e| panic!("{}: reopen failed: {e}", why()));
        let found = reopened.current().as_ref();
        assert!(allowed.contains(&found), "{}: unexpected {found:?}", why());
        check_open_crashes(image, found, &why());
        check_usable(image, found, &why());
    }
    images.len()
}

/// Crashing during open (which deletes temporary and superseded files) changes nothing.
fn check_open_crashes(image: &SimFs, expected: &Version, why: &str) {
    let probe = image.fork();
    let _ = Manifest::open(Arc::new(probe.clone()));
    for k in 0..=probe.ops() {
        let fs = image.fork();
        fs.set_crash_after(Some(k));
        let _ = Manifest::open(Arc::new(fs.clone()));
        for again in fs.crash_images() {
            let m = Manifest::open(Arc::new(again))
                .unwrap_or_else(|e| panic!("{why}: open crash {k}: {e}"));
            assert_eq!(m.current().as_ref(), expected, "{why}: open crash {k}");
        }
    }
}

/// After recovery the manifest takes edits and they survive a reopen.
fn check_usable(image: &SimFs, found: &Version, why: &str) {
    let fs = image.fork();
    let mut m = Manifest::open(Arc::new(fs.clone())).unwrap_or_else(|e| panic!("{why}: {e}"));
    let edit = VersionEdit::new().add_file("cf1", file("z-after", 99));
    let next = m
        .apply(&edit)
        .unwrap_or_else(|e| panic!("{why}: edit after recovery: {e}"));
    assert_eq!(*next, found.apply(&edit).expect("applies"));
    let again = Manifest::open(Arc::new(fs)).unwrap_or_else(|e| panic!("{why}: {e}"));
    assert_eq!(again.current(), &next, "{why}: reopen after recovery");
}

#[test]
fn crash_after_every_operation_of_an_update_yields_old_or_new() {
    let mut crash_points = 0;
    let mut images = 0;
    for (name, edit) in scenarios() {
        let (probe, mut m) = setup();
        let start = probe.ops();
        m.apply(&edit).expect("edit applies");
        let update_ops = probe.ops() - start;
        assert_eq!(update_ops, 5, "write, sync_file, rename, sync_dir, remove");

        for k in 0..=update_ops {
            let (fs, mut m) = setup();
            let old = m.current().as_ref().clone();
            let new = old.apply(&edit).expect("edit applies");
            fs.set_crash_after(Some(fs.ops() + k));
            let result = m.apply(&edit);
            let context = format!("{name}: crash after {k} of {update_ops} operations");
            match &result {
                Ok(v) => assert_eq!(v.as_ref(), &new, "{context}"),
                Err(e) => assert!(matches!(e, Error::Io { .. }), "{context}: {e}"),
            }
            // Acknowledged means durable: only the new version may come back.
            let allowed: Vec<&Version> = if result.is_ok() {
                vec![&new]
            } else {
                vec![&old, &new]
            };
            images += check_images(&fs, &allowed, &context);
            crash_points += 1;
            if result.is_err() {
                // The store is gone (crashed): the handle retries and fails again.
                assert!(matches!(m.apply(&edit), Err(Error::Io { .. })), "{context}");
            }
        }
    }
    eprintln!("{crash_points} crash points, {images} crash images reopened");
    assert_eq!(crash_points, 4 * 6);
    assert!(images >= 4 * 6 * 2, "{images} images");
}

#[test]
fn crash_during_create_leaves_nothing_or_the_first_version() {
    let probe = SimFs::new();
    Manifest::create(Arc::new(probe.clone()), initial()).expect("create");
    let create_ops = probe.ops();
    assert_eq!(create_ops, 5, "list, write, sync_file, rename, sync_dir");
    let first = initial();
    for k in 0..=create_ops {
        let fs = SimFs::new();
        fs.set_crash_after(Some(k));
        let created = Manifest::create(Arc::new(fs.clone()), initial()).is_ok();
        for image in fs.crash_images() {
            match Manifest::open(Arc::new(image.fork())) {
                Ok(m) => assert_eq!(m.current().as_ref(), &first, "crash {k}"),
                Err(Error::NotFound) => {
                    assert!(!created, "crash {k}: an acknowledged create was lost");
                    let again = image.fork();
                    Manifest::create(Arc::new(again.clone()), initial())
                        .unwrap_or_else(|e| panic!("crash {k}: create again: {e}"));
                    let m = Manifest::open(Arc::new(again)).expect("open");
                    assert_eq!(m.current().as_ref(), &first);
                    assert_eq!(m.number(), 1);
                }
                Err(e) => panic!("crash {k}: {e}"),
            }
        }
    }
}

#[test]
fn recovered_manifest_numbers_never_collide_with_leftovers() {
    // Crash right after the rename (not yet synced): the image where the rename survived and
    // the one where it did not must both keep counting from their own newest manifest.
    let (fs, mut m) = setup();
    let number = m.number();
    fs.set_crash_after(Some(fs.ops() + 3));
    assert!(m.apply(&scenarios()[0].1).is_err());
    let numbers: Vec<u64> = fs
        .crash_images()
        .into_iter()
        .map(|image| Manifest::open(Arc::new(image)).expect("open").number())
        .collect();
    assert!(
        numbers.contains(&number) && numbers.contains(&(number + 1)),
        "{numbers:?}"
    );
}
