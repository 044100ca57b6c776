//! Storage tiers end to end: families placed on volumes by STORAGE_POLICY, date-tiered windows
//! placed by age and moved as compactions rewrite them over simulated days, leftovers of
//! interrupted moves, and a missing volume.
#![allow(clippy::unwrap_used)]

mod region_support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use region_support::*;
use strata_model::ops::Get;
use strata_model::schema::{
    CompactionPolicy, DateTiered, FamilyDescriptor, StoragePolicy, TableDescriptor, TableName,
};
use strata_storage::clock::Clock;
use strata_storage::compaction::exploring::MajorRequest;
use strata_storage::region::{CompactionOptions, FileListing};
use strata_storage::tiers::{StorageType, Volume, Volumes};
use strata_storage::Region;

const H: i64 = 3_600_000;
const DAY: i64 = 24 * H;

struct Dirs {
    _tmp: tempfile::TempDir,
    data: PathBuf,
    ssd: PathBuf,
    archive: PathBuf,
}

fn dirs() -> Dirs {
    let tmp = tempfile::tempdir().unwrap();
    let d = Dirs {
        data: tmp.path().join("data"),
        ssd: tmp.path().join("ssd"),
        archive: tmp.path().join("archive"),
        _tmp: tmp,
    };
    std::fs::create_dir_all(&d.data).unwrap();
    d
}

fn volumes(d: &Dirs, with_ssd: bool) -> Arc<Volumes> {
    let mut others = vec![Volume {
        kind: StorageType::Archive,
        path: d.archive.clone(),
    }];
    if with_ssd {
        others.push(Volume {
            kind: StorageType::Ssd,
            path: d.ssd.clone(),
        });
    }
    Arc::new(
        Volumes::new(&d.data, StorageType::Hdd, others)
            .unwrap()
            .with_warnings(Arc::new(|_| {})),
    )
}

/// A table whose one family `f` has STORAGE_POLICY ALL_SSD.
fn ssd_table() -> (FamilyDescriptor, TableDescriptor) {
    let mut f = FamilyDescriptor::new("f");
    f.storage_policy = StoragePolicy::AllSsd;
    let t = TableDescriptor::new(TableName::parse("t").unwrap()).with_family(f.clone());
    (f, t)
}

fn no_periodic_major(r: &Region) {
    let mut o = CompactionOptions::default();
    o.exploring.major.period_ms = 0;
    o.exploring.blocking_file_count = 1000;
    r.set_compaction_options(o).unwrap();
}

fn sst_names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|it| {
            it.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn store_dir(root: &Path) -> PathBuf {
    root.join("t")
        .join(strata_storage::region::region_dir_name(1))
        .join("f")
}

#[test]
fn family_storage_policy_places_flushes_and_compactions_and_survives_reopen() {
    let d = dirs();
    let (_, t) = ssd_table();
    let env = Env::new(&d.data, t);
    let r = env.open_on(Some(volumes(&d, true))).unwrap();
    no_periodic_major(&r);
    for i in 0..3 {
        put(&r, &format!("row{i}"), "f", "q", 1000 + i, &format!("v{i}"));
        r.flush().unwrap();
    }
    let listing = r.file_listing();
    assert_eq!(listing.len(), 3);
    for file in &listing {
        assert_eq!(file.tier, "SSD");
        assert!(file.path.starts_with(&*d.ssd.to_string_lossy()), "{file:?}");
        assert!(std::path::Path::new(&file.path).exists());
        assert_eq!(file.window, None);
    }
    assert_eq!(sst_names(&store_dir(&d.data)), Vec::<String>::new());
    r.compact_store(b"f", MajorRequest::User).unwrap().unwrap();
    let listing = r.file_listing();
    assert_eq!(listing.len(), 1);
    assert_eq!(listing[0].tier, "SSD");
    assert_eq!(sst_names(&store_dir(&d.ssd)).len(), 1, "inputs removed");
    r.close().unwrap();

    let r = env.open_on(Some(volumes(&d, true))).unwrap();
    for i in 0..3 {
        let got = get(&r, Get::new(format!("row{i}").into_bytes()));
        assert_eq!(
            got,
            vec![("f".into(), "q".into(), 1000 + i, format!("v{i}"))]
        );
    }
    r.close().unwrap();

    // The SSD volume left the configuration: opening says which volume to declare.
    let err = env.open_on(Some(volumes(&d, false))).err().unwrap();
    assert!(err.to_string().contains("declare the SSD volume"), "{err}");
}

fn date_tiered_env(d: &Dirs) -> Env {
    let mut f = FamilyDescriptor::new("f");
    f.versions = 1;
    f.compaction_policy = CompactionPolicy::DateTiered(DateTiered {
        base_window_ms: 6 * H,
        windows_per_tier: 4,
        incoming_window_min: 2,
        storage_policy_enable: true,
        hot_window_age_ms: DAY,
        hot_window_storage_policy: StoragePolicy::AllSsd,
        warm_window_age_ms: 7 * DAY,
        warm_window_storage_policy: StoragePolicy::Hot,
        cold_window_storage_policy: StoragePolicy::Cold,
        ..DateTiered::default()
    });
    let t = TableDescriptor::new(TableName::parse("t").unwrap()).with_family(f);
    let env = Env::new(&d.data, t);
    env.clock.set(100 * DAY);
    env
}

/// Tier each file is on, by the age of its window's start, checked against the policy.
fn check_placement(listing: &[FileListing], now: i64) -> BTreeMap<String, usize> {
    let mut per_tier = BTreeMap::new();
    for f in listing {
        let (start, _) = f.window.unwrap();
        let want = if start >= now - DAY {
            "SSD"
        } else if start >= now - 7 * DAY {
            "HDD"
        } else {
            "ARCHIVE"
        };
        assert_eq!(f.tier, want, "{f:?} at {now}");
        assert!(std::path::Path::new(&f.path).exists(), "{f:?}");
        *per_tier.entry(f.tier.clone()).or_insert(0) += 1;
    }
    per_tier
}

#[test]
fn date_tiered_windows_move_tier_as_they_age_over_simulated_days() {
    let d = dirs();
    let env = date_tiered_env(&d);
    let vols = volumes(&d, true);
    let r = env.open_on(Some(vols.clone())).unwrap();
    no_periodic_major(&r);
    // Ten days of a time series, one flush every six hours.
    let mut written = 0;
    for _ in 0..40 {
        for m in 0..6 {
            let now = env.clock.now_ms();
            put(&r, &format!("s-{now:015}"), "f", "v", now, &format!("{m}"));
            written += 1;
            env.clock.advance(H);
        }
        r.flush().unwrap();
        // Flushes hold the newest data: the hot policy's volume.
        let newest = r.file_listing().into_iter().max_by_key(|f| f.max_seq_id);
        assert_eq!(newest.unwrap().tier, "SSD");
        while r.compact_store(b"f", MajorRequest::None).unwrap().is_some() {}
    }
    r.compact_store(b"f", MajorRequest::User).unwrap().unwrap();
    let now = env.clock.now_ms();
    let before = check_placement(&r.file_listing(), now);
    assert!(before.get("SSD").copied().unwrap_or(0) >= 1, "{before:?}");
    assert!(before.get("HDD").copied().unwrap_or(0) >= 1, "{before:?}");
    assert!(
        before.get("ARCHIVE").copied().unwrap_or(0) >= 1,
        "{before:?}"
    );

    // Thirty days later every window is cold: a major compaction moves them all to archive,
    // and the hot and warm volumes keep no file of the store.
    env.clock.advance(30 * DAY);
    r.compact_store(b"f", MajorRequest::User).unwrap().unwrap();
    let after = check_placement(&r.file_listing(), env.clock.now_ms());
    assert_eq!(
        after.keys().collect::<Vec<_>>(),
        vec!["ARCHIVE"],
        "{after:?}"
    );
    assert!(sst_names(&store_dir(&d.ssd)).is_empty());
    assert!(sst_names(&store_dir(&d.data)).is_empty());
    r.close().unwrap();

    let r = env.open_on(Some(vols)).unwrap();
    let cells: usize = r
        .file_listing()
        .iter()
        .map(|f| usize::try_from(f.cells).unwrap())
        .sum();
    assert_eq!(cells, written);
    r.close().unwrap();
}

#[test]
fn leftovers_of_interrupted_moves_are_removed_on_open() {
    let d = dirs();
    let (_, t) = ssd_table();
    let env = Env::new(&d.data, t);
    let r = env.open_on(Some(volumes(&d, true))).unwrap();
    put(&r, "a", "f", "q", 5, "x");
    r.flush().unwrap();
    let listed = r.file_listing().remove(0);
    r.close().unwrap();
    // A compaction that crashed after writing its output to another volume (the manifest
    // never named it), and a copy of a listed file on a volume the manifest does not say.
    let archive_store = store_dir(&d.archive);
    std::fs::create_dir_all(&archive_store).unwrap();
    std::fs::write(archive_store.join("00ff-1-c0.sst.tmp"), b"partial").unwrap();
    std::fs::copy(&listed.path, archive_store.join(&listed.name)).unwrap();

    let r = env.open_on(Some(volumes(&d, true))).unwrap();
    assert!(sst_names(&archive_store).is_empty());
    assert!(std::path::Path::new(&listed.path).exists());
    assert_eq!(
        get(&r, Get::new("a")),
        vec![("f".into(), "q".into(), 5, "x".into())]
    );
    r.close().unwrap();
}

#[test]
fn files_move_without_a_rewrite_when_their_policy_changes_or_their_window_ages() {
    let d = dirs();
    let (mut f, t) = ssd_table();
    let mut env = Env::new(&d.data, t);
    let r = env.open_on(Some(volumes(&d, true))).unwrap();
    for i in 0..3 {
        put(&r, &format!("row{i}"), "f", "q", 1000 + i, &format!("v{i}"));
        r.flush().unwrap();
    }
    assert_eq!(r.move_tiers().unwrap(), 0, "already where the policy wants");
    r.close().unwrap();

    // The family's policy becomes COLD (an alter): the files move to the archive volume,
    // byte for byte, without a compaction.
    f.storage_policy = StoragePolicy::Cold;
    env.table = TableDescriptor::new(TableName::parse("t").unwrap()).with_family(f);
    let r = env.open_on(Some(volumes(&d, true))).unwrap();
    let before: Vec<(String, u64)> = r
        .file_listing()
        .iter()
        .map(|f| (f.name.clone(), f.size))
        .collect();
    assert_eq!(r.move_tiers().unwrap(), 3);
    let listing = r.file_listing();
    assert!(listing
        .iter()
        .all(|f| f.tier == "ARCHIVE" && std::path::Path::new(&f.path).exists()));
    let after: Vec<(String, u64)> = listing.iter().map(|f| (f.name.clone(), f.size)).collect();
    assert_eq!(before, after);
    assert!(sst_names(&store_dir(&d.ssd)).is_empty());
    assert_eq!(
        r.compaction_counters()
            .compactions
            .load(std::sync::atomic::Ordering::Relaxed),
        0
    );
    for i in 0..3 {
        let got = get(&r, Get::new(format!("row{i}").into_bytes()));
        assert_eq!(
            got,
            vec![("f".into(), "q".into(), 1000 + i, format!("v{i}"))]
        );
    }
    r.close().unwrap();
    let r = env.open_on(Some(volumes(&d, true))).unwrap();
    assert_eq!(r.file_listing().len(), 3);
    assert_eq!(r.move_tiers().unwrap(), 0);
    r.close().unwrap();
}

#[test]
fn aged_date_tiered_windows_move_to_their_tier_without_a_compaction() {
    let d = dirs();
    let env = date_tiered_env(&d);
    let r = env.open_on(Some(volumes(&d, true))).unwrap();
    no_periodic_major(&r);
    for _ in 0..4 {
        let now = env.clock.now_ms();
        put(&r, &format!("s-{now:015}"), "f", "v", now, "x");
        env.clock.advance(H);
        r.flush().unwrap();
    }
    assert!(r.file_listing().iter().all(|f| f.tier == "SSD"));
    // Three days on, the windows are warm (HOT: the data directory); thirty, cold.
    env.clock.advance(3 * DAY);
    assert_eq!(r.move_tiers().unwrap(), 4);
    assert!(
        r.file_listing().iter().all(|f| f.tier == "HDD"),
        "{:?}",
        r.file_listing()
    );
    env.clock.advance(30 * DAY);
    assert_eq!(r.move_tiers().unwrap(), 4);
    assert!(r.file_listing().iter().all(|f| f.tier == "ARCHIVE"));
    let mut scanner = r.scan(&strata_model::ops::Scan::default()).unwrap();
    let mut rows = 0;
    while scanner.next_row().unwrap().is_some() {
        rows += 1;
    }
    assert_eq!(rows, 4);
    drop(scanner);
    r.close().unwrap();
}
