//! Version edits: what they change, what they refuse, and that refusals and failures leave the
//! manifest as it was.

use std::sync::Arc;

use bytes::Bytes;
use strata_storage::manifest::{
    EditError, Error, ErrorKind, Fs, Manifest, RegionInfo, SimFs, StoreFile, StoreFs, Version,
    VersionEdit,
};

fn file(name: &str, seq: u64, size: u64) -> StoreFile {
    StoreFile {
        name: name.to_owned(),
        size,
        max_seq_id: seq,
        min_timestamp: 1,
        max_timestamp: 2,
        cell_count: 3,
        created_at_ms: 4,
        major: false,
        tier: String::new(),
        reference: None,
        link: None,
        bulk: false,
    }
}

fn initial() -> Version {
    let region = RegionInfo {
        table: "t".to_owned(),
        region_id: 1,
        start_row: Bytes::new(),
        end_row: Bytes::new(),
    };
    Version::new(region, [Bytes::from_static(b"cf")]).expect("valid")
}

fn created() -> (SimFs, Manifest) {
    let fs = SimFs::new();
    let m = Manifest::create(Arc::new(fs.clone()), initial()).expect("create");
    (fs, m)
}

#[test]
fn flush_and_compaction_edits_change_files_atomically() {
    let (fs, mut m) = created();
    for (i, name) in ["a", "b", "c"].iter().enumerate() {
        let seq = 10 * (i as u64 + 1);
        let edit = VersionEdit::new()
            .add_file("cf", file(name, seq, 100))
            .set_flushed_seq_id("cf", seq);
        m.apply(&edit).expect("flush");
    }
    let compaction = VersionEdit::new()
        .remove_file("cf", "a")
        .remove_file("cf", "b")
        .add_file("cf", file("ab", 20, 200));
    let v = m.apply(&compaction).expect("compaction");
    let cf = v.family(b"cf").expect("family");
    let names: Vec<&str> = cf
        .in_store_order()
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(names, ["ab", "c"]);
    assert_eq!(cf.flushed_seq_id(), 30);
    assert_eq!(m.number(), 5);
    let reopened = Manifest::open(Arc::new(fs.clone())).expect("open");
    assert_eq!(reopened.current(), &v);
    assert_eq!(fs.files().len(), 1, "only the current manifest remains");
}

#[test]
fn refused_edits_change_nothing_and_write_nothing() {
    let (fs, mut m) = created();
    m.apply(
        &VersionEdit::new()
            .add_file("cf", file("a", 1, 1))
            .set_flushed_seq_id("cf", 5),
    )
    .expect("flush");
    let before = m.current().clone();
    let ops = fs.ops();
    let cases: Vec<(VersionEdit, EditError)> = vec![
        (
            VersionEdit::new()
                .add_file("cf", file("b", 2, 1))
                .add_file("cf", file("a", 3, 1)),
            EditError::FileExists {
                family: Bytes::from_static(b"cf"),
                name: "a".to_owned(),
            },
        ),
        (
            VersionEdit::new().remove_file("cf", "zz"),
            EditError::UnknownFile {
                family: Bytes::from_static(b"cf"),
                name: "zz".to_owned(),
            },
        ),
        (
            VersionEdit::new().add_file("nope", file("b", 2, 1)),
            EditError::UnknownFamily(Bytes::from_static(b"nope")),
        ),
        (
            VersionEdit::new().set_flushed_seq_id("cf", 4),
            EditError::FlushedSeqIdRegressed {
                family: Bytes::from_static(b"cf"),
                current: 5,
                requested: 4,
            },
        ),
    ];
    for (edit, expected) in cases {
        match m.apply(&edit) {
            Err(Error::Edit(e)) => assert_eq!(e, expected),
            other => panic!("{edit:?}: {other:?}"),
        }
    }
    let bad_name = VersionEdit::new().add_file("cf", file("x/y", 2, 1));
    let err = m.apply(&bad_name).expect_err("bad name");
    assert!(
        matches!(err, Error::Edit(EditError::InvalidFile(_))),
        "{err}"
    );
    assert_eq!(err.kind(), ErrorKind::Invalid);
    let dup = VersionEdit::new().add_family("cf");
    assert!(matches!(
        m.apply(&dup),
        Err(Error::Edit(EditError::BadFamily { .. }))
    ));

    assert_eq!(m.current(), &before);
    assert_eq!(fs.ops(), ops, "no file-system operation");
    assert!(m.apply(&VersionEdit::new()).is_ok(), "still usable");
    assert_eq!(fs.ops(), ops, "an empty edit writes nothing");
}

#[test]
fn families_can_be_added_and_dropped() {
    let (_fs, mut m) = created();
    let v = m
        .apply(
            &VersionEdit::new()
                .add_family("new")
                .add_file("new", file("n", 1, 1)),
        )
        .expect("add");
    assert_eq!(v.family(b"new").map(|f| f.len()), Some(1));
    let v = m
        .apply(&VersionEdit::new().drop_family("new"))
        .expect("drop");
    assert!(v.family(b"new").is_none());
    assert_eq!(v.families().count(), 1);
}

#[test]
fn min_flushed_seq_id_is_the_laggard_family() {
    let mut v = initial();
    v = v
        .apply(
            &VersionEdit::new()
                .add_family("b")
                .set_flushed_seq_id("b", 40),
        )
        .expect("applies");
    assert_eq!(v.min_flushed_seq_id(), 0);
    v = v
        .apply(&VersionEdit::new().set_flushed_seq_id("cf", 25))
        .expect("applies");
    assert_eq!(v.min_flushed_seq_id(), 25);
}

#[test]
fn region_and_family_names_are_validated() {
    let bad_range = RegionInfo {
        table: "t".to_owned(),
        region_id: 1,
        start_row: Bytes::from_static(b"m"),
        end_row: Bytes::from_static(b"c"),
    };
    assert!(Version::new(bad_range, []).is_err());
    let region = initial().region().clone();
    assert!(Version::new(region.clone(), [Bytes::new()]).is_err());
    let twice = [Bytes::from_static(b"a"), Bytes::from_static(b"a")];
    assert!(Version::new(region, twice).is_err());
}

#[test]
fn create_twice_and_open_nothing_are_refused() {
    let (fs, _m) = created();
    let err = Manifest::create(Arc::new(fs), initial()).expect_err("exists");
    assert!(matches!(err, Error::AlreadyExists { .. }), "{err}");
    let err = Manifest::open(Arc::new(SimFs::new())).expect_err("missing");
    assert!(matches!(err, Error::NotFound), "{err}");
}

#[test]
fn an_io_failure_keeps_the_old_version_and_the_next_apply_retries() {
    // Regression (crash matrix): a failed write used to poison the handle until the region
    // was reopened, so one full disk stopped every later flush and compaction.
    let (fs, mut m) = created();
    fs.set_crash_after(Some(fs.ops() + 1));
    let edit = VersionEdit::new().add_file("cf", file("a", 1, 1));
    let err = m.apply(&edit).expect_err("sync fails");
    assert_eq!(err.kind(), ErrorKind::Unavailable);
    assert!(err.to_string().contains(".tmp"), "{err}");
    assert_eq!(m.current().as_ref(), &initial());
    fs.set_crash_after(None);
    let v = m.apply(&edit).expect("retried once the fault cleared");
    let reopened = Manifest::open(Arc::new(fs.clone())).expect("reopen");
    assert_eq!(reopened.current(), &v);

    // A failed directory sync (the new manifest named, maybe not durably): the next apply
    // goes past it and wins on reopen.
    let (fs, mut m) = created();
    fs.set_crash_after(Some(fs.ops() + 3));
    let edit = VersionEdit::new().add_file("cf", file("b", 1, 1));
    m.apply(&edit).expect_err("sync_dir fails");
    assert_eq!(m.current().as_ref(), &initial());
    fs.set_crash_after(None);
    let edit = VersionEdit::new().add_file("cf", file("c", 2, 2));
    let v = m.apply(&edit).expect("retried once the fault cleared");
    assert!(v.family(b"cf").unwrap().files().all(|f| f.name != "b"));
    let reopened = Manifest::open(Arc::new(fs)).expect("reopen");
    assert_eq!(reopened.current(), &v);
}

#[test]
fn local_directory_round_trip() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fs: Arc<dyn Fs> = Arc::new(StoreFs::local(dir.path()));
    let mut m = Manifest::create(Arc::clone(&fs), initial()).expect("create");
    let v = m
        .apply(
            &VersionEdit::new()
                .add_file("cf", file("a", 1, 10))
                .set_flushed_seq_id("cf", 1),
        )
        .expect("apply");
    std::fs::write(
        dir.path().join("MANIFEST-00000000000000000009.tmp"),
        b"junk",
    )
    .expect("w");
    let reopened = Manifest::open(Arc::clone(&fs)).expect("open");
    assert_eq!(reopened.current(), &v);
    let mut names = fs.list().expect("list");
    names.sort();
    assert_eq!(names, ["MANIFEST-00000000000000000002"]);
}
