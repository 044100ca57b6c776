//! Policies read a manifest's family through `FileMeta`, and their plan maps back to a
//! `VersionEdit` the compactor will install.

use bytes::Bytes;
use strata_storage::compaction::exploring::{self, ExploringConfig, Mode};
use strata_storage::compaction::FileMeta;
use strata_storage::manifest::{Half, Reference, RegionInfo, StoreFile, Version, VersionEdit};

fn entry(name: &str, seq: u64, size: u64) -> StoreFile {
    StoreFile {
        name: name.to_owned(),
        size,
        max_seq_id: seq,
        min_timestamp: 100,
        max_timestamp: 200,
        cell_count: 10,
        created_at_ms: 1_000,
        major: seq == 1,
        tier: String::new(),
        reference: None,
        link: None,
        bulk: false,
    }
}

fn version(files: Vec<StoreFile>) -> Version {
    let region = RegionInfo {
        table: "t".to_owned(),
        region_id: 1,
        start_row: Bytes::new(),
        end_row: Bytes::new(),
    };
    let v = Version::new(region, [Bytes::from_static(b"cf")]).expect("valid");
    let edit = files
        .into_iter()
        .fold(VersionEdit::new(), |e, f| e.add_file("cf", f));
    v.apply(&edit).expect("applies")
}

fn metas(v: &Version, compacting: &[&str]) -> Vec<FileMeta> {
    let family = v.family(b"cf").expect("family");
    family
        .in_store_order()
        .into_iter()
        .map(|f| FileMeta::from_store_file(f, compacting.contains(&f.name.as_str())))
        .collect()
}

#[test]
fn a_family_plans_and_the_plan_becomes_an_edit() {
    let mb = 1 << 20;
    let v = version(vec![
        entry("z-old", 1, 900 * mb),
        entry("b", 2, 20 * mb),
        entry("a", 3, 10 * mb),
        entry("c", 4, 10 * mb),
    ]);
    let plan = exploring::select(
        &metas(&v, &[]),
        &ExploringConfig::default(),
        Mode::default(),
    )
    .expect("three small files qualify");
    let names: Vec<&str> = plan.files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        ["b", "a", "c"],
        "store order, the big old file left out"
    );
    assert!(!plan.major && !plan.all_files);
    assert_eq!(plan.input_size(), 40 * mb);

    let edit = plan
        .files
        .iter()
        .fold(VersionEdit::new(), |e, f| {
            e.remove_file("cf", f.name.clone())
        })
        .add_file("cf", entry("abc", 4, 40 * mb));
    let after = v.apply(&edit).expect("installs");
    assert_eq!(after.family(b"cf").map(|f| f.len()), Some(2));
}

#[test]
fn compacting_files_and_references_carry_over() {
    let mut reference = entry("ref", 5, 50);
    reference.reference = Some(Reference {
        parent_region_id: 9,
        parent_file: "p".to_owned(),
        half: Half::Bottom,
        split_row: Bytes::from_static(b"m"),
    });
    let mut empty = entry("empty", 6, 0);
    empty.cell_count = 0;
    let v = version(vec![entry("a", 1, 10), reference, empty]);
    let m = metas(&v, &["a"]);
    assert!(m[0].compacting && m[0].major);
    assert!(m[1].reference && !m[1].compacting);
    assert_eq!((m[2].min_timestamp, m[2].max_timestamp), (None, None));
    assert_eq!(m[1].min_timestamp, Some(100));
    // References force a compaction of everything after the compacting file.
    let plan = exploring::select(&m, &ExploringConfig::default(), Mode::default()).expect("plan");
    let names: Vec<&str> = plan.files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["ref", "empty"]);
    assert!(plan.after_split && !plan.major);
}
