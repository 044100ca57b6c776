//! Date-tiered windows placed by age on a store that places blocks by storage policy itself
//! (HDFS; here local files that say so and record the policies set): a window whose age asks
//! for another policy than the family's is written, or moved, into that policy's directory
//! under the family's directory, which carries the policy; the manifest names the policy.
//! The same steps on real HDFS blocks: `crates/cli/tests/standalone_hdfs.rs`.
#![allow(clippy::unwrap_used)]

mod region_support;

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;
use region_support::*;
use strata_model::ops::{Get, Scan};
use strata_model::schema::{
    CompactionPolicy, DateTiered, FamilyDescriptor, StoragePolicy, TableDescriptor, TableName,
};
use strata_storage::clock::Clock;
use strata_storage::compaction::exploring::MajorRequest;
use strata_storage::region::CompactionOptions;
use strata_storage::tiers::Volumes;
use strata_storage::vfs::{DirEntry, Faulty, FileStore, FileWriter, Local, Source};
use strata_storage::Region;

const H: i64 = 3_600_000;
const DAY: i64 = 24 * H;

/// Local files that place by policy, recording every policy set on a directory.
#[derive(Debug, Default)]
struct PolicyStore {
    set: Mutex<Vec<(PathBuf, StoragePolicy)>>,
}

impl FileStore for PolicyStore {
    fn url(&self, path: &Path) -> String {
        Local.url(path)
    }
    fn scheme(&self) -> &'static str {
        "file"
    }
    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        FileStore::create_dir_all(&Local, dir)
    }
    fn list(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        FileStore::list(&Local, dir)
    }
    fn len(&self, path: &Path) -> io::Result<Option<u64>> {
        Local.len(path)
    }
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        Local.read(path)
    }
    fn open(&self, path: &Path) -> io::Result<Arc<dyn Source>> {
        FileStore::open(&Local, path)
    }
    fn create(&self, path: &Path) -> io::Result<Box<dyn FileWriter>> {
        FileStore::create(&Local, path)
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        Local.rename(from, to)
    }
    fn remove_file(&self, path: &Path) -> io::Result<()> {
        Local.remove_file(path)
    }
    fn remove_dir_all(&self, dir: &Path) -> io::Result<()> {
        Local.remove_dir_all(dir)
    }
    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        FileStore::sync_dir(&Local, dir)
    }
    fn set_storage_policy(&self, dir: &Path, policy: StoragePolicy) -> io::Result<()> {
        self.set.lock().push((dir.to_owned(), policy));
        Ok(())
    }
    fn places_by_policy(&self) -> bool {
        true
    }
    fn lock(&self, path: &Path) -> io::Result<Box<dyn Send + Sync>> {
        Local.lock(path)
    }
}

impl PolicyStore {
    /// The policy last set on `dir`.
    fn policy_of(&self, dir: &Path) -> Option<StoragePolicy> {
        self.set
            .lock()
            .iter()
            .rev()
            .find(|(d, _)| d == dir)
            .map(|(_, p)| *p)
    }
}

/// Family `f` (STORAGE_POLICY HOT): hot windows ALL_SSD (one day), warm HOT (a week), cold
/// COLD.
fn env(root: &Path) -> Env {
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
    let env = Env::new(root, t);
    env.clock.set(100 * DAY);
    env
}

fn open(env: &Env, store: &Arc<impl FileStore + 'static>) -> Region {
    let files: Arc<dyn FileStore> = store.clone();
    let volumes = Arc::new(Volumes::single(&env.root).with_files(files));
    let r = env.open_on(Some(volumes)).unwrap();
    let mut o = CompactionOptions::default();
    o.exploring.major.period_ms = 0;
    o.exploring.blocking_file_count = 1000;
    r.set_compaction_options(o).unwrap();
    r
}

fn family_dir(root: &Path) -> PathBuf {
    root.join("t")
        .join(strata_storage::region::region_dir_name(1))
        .join("f")
}

/// Names of the files (not directories) in `dir`, sorted.
fn files_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|it| {
            it.map(|e| e.unwrap())
                .filter(|e| e.file_type().unwrap().is_file())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn rows(r: &Region) -> usize {
    let mut scanner = r.scan(&Scan::default()).unwrap();
    let mut n = 0;
    while scanner.next_row().unwrap().is_some() {
        n += 1;
    }
    n
}

#[test]
fn aged_windows_move_into_the_directory_of_their_policy() {
    let tmp = tempfile::tempdir().unwrap();
    let store = Arc::new(PolicyStore::default());
    let env = env(tmp.path());
    let r = open(&env, &store);
    for _ in 0..4 {
        let now = env.clock.now_ms();
        put(&r, &format!("s-{now:015}"), "f", "v", now, "x");
        env.clock.advance(H);
        r.flush().unwrap();
    }
    // Flushes hold the newest data: the hot policy's directory, which carries ALL_SSD.
    let fam = family_dir(tmp.path());
    let hot = fam.join("tier-all_ssd");
    assert_eq!(store.policy_of(&fam), Some(StoragePolicy::Hot));
    assert_eq!(store.policy_of(&hot), Some(StoragePolicy::AllSsd));
    let listing = r.file_listing();
    assert!(listing.iter().all(|f| f.tier == "ALL_SSD"), "{listing:?}");
    assert!(listing.iter().all(|f| f.path.contains("/f/tier-all_ssd/")));
    assert_eq!(files_in(&hot).len(), 4);
    assert!(files_in(&fam).is_empty());

    // Three days on the windows are warm: HOT is the family's own policy, so its directory.
    env.clock.advance(3 * DAY);
    assert_eq!(r.move_tiers().unwrap(), 4);
    let listing = r.file_listing();
    assert!(listing.iter().all(|f| f.tier == "HOT"), "{listing:?}");
    assert_eq!(files_in(&fam).len(), 4);
    assert!(
        files_in(&hot).is_empty(),
        "originals deleted after the move"
    );

    // Thirty days on, cold: rewritten into tier-cold, which carries COLD.
    env.clock.advance(30 * DAY);
    assert_eq!(r.move_tiers().unwrap(), 4);
    let cold = fam.join("tier-cold");
    assert_eq!(store.policy_of(&cold), Some(StoragePolicy::Cold));
    let listing = r.file_listing();
    assert!(listing.iter().all(|f| f.tier == "COLD"), "{listing:?}");
    assert_eq!(files_in(&cold).len(), 4);
    assert!(files_in(&fam).is_empty());
    assert_eq!(r.move_tiers().unwrap(), 0, "already where their age wants");
    assert_eq!(rows(&r), 4);
    r.close().unwrap();

    // The manifest names the policy: a reopen finds every file in its directory.
    let r = open(&env, &store);
    assert_eq!(r.file_listing().len(), 4);
    assert!(r.file_listing().iter().all(|f| f.tier == "COLD"));
    assert_eq!(r.move_tiers().unwrap(), 0);
    assert_eq!(rows(&r), 4);
    r.close().unwrap();
}

#[test]
fn a_major_compaction_writes_each_window_under_the_policy_of_its_age() {
    let tmp = tempfile::tempdir().unwrap();
    let store = Arc::new(PolicyStore::default());
    let env = env(tmp.path());
    let r = open(&env, &store);
    let now = env.clock.now_ms();
    // Cells sixty days old, three days old and fresh, in one flush.
    for (i, age) in [60 * DAY, 3 * DAY, H].into_iter().enumerate() {
        put(
            &r,
            &format!("row{i}"),
            "f",
            "q",
            now - age,
            &format!("v{i}"),
        );
    }
    r.flush().unwrap();
    r.compact_store(b"f", MajorRequest::User).unwrap().unwrap();
    let mut tiers: Vec<(i64, String)> = r
        .file_listing()
        .into_iter()
        .map(|f| (f.time_range.unwrap().1, f.tier))
        .collect();
    tiers.sort();
    assert_eq!(
        tiers,
        vec![
            (now - 60 * DAY, "COLD".to_owned()),
            (now - 3 * DAY, "HOT".to_owned()),
            (now - H, "ALL_SSD".to_owned()),
        ]
    );
    let fam = family_dir(tmp.path());
    assert_eq!(files_in(&fam.join("tier-cold")).len(), 1);
    assert_eq!(files_in(&fam.join("tier-all_ssd")).len(), 1);
    assert_eq!(files_in(&fam).len(), 1);
    for (i, age) in [60 * DAY, 3 * DAY, H].into_iter().enumerate() {
        assert_eq!(
            get(&r, Get::new(format!("row{i}").into_bytes())),
            vec![("f".into(), "q".into(), now - age, format!("v{i}"))]
        );
    }
    r.close().unwrap();
}

#[test]
fn leftovers_in_policy_directories_are_removed_on_open() {
    let tmp = tempfile::tempdir().unwrap();
    let store = Arc::new(PolicyStore::default());
    let env = env(tmp.path());
    let r = open(&env, &store);
    let now = env.clock.now_ms();
    put(&r, "a", "f", "q", now - 60 * DAY, "x");
    r.flush().unwrap();
    let listed = r.file_listing().remove(0);
    assert_eq!(listed.tier, "ALL_SSD");
    // A store placing by policy lists the file's URL.
    let path = PathBuf::from(listed.path.strip_prefix("file://").unwrap());
    r.close().unwrap();
    // A move that crashed after its copy (the manifest still names the hot copy), and a
    // compaction that crashed while writing into the cold directory.
    let cold = family_dir(tmp.path()).join("tier-cold");
    std::fs::create_dir_all(&cold).unwrap();
    std::fs::copy(&path, cold.join(&listed.name)).unwrap();
    std::fs::write(cold.join("00ff-1-c0.sst.tmp"), b"partial").unwrap();

    let r = open(&env, &store);
    assert!(files_in(&cold).is_empty(), "{:?}", files_in(&cold));
    assert!(path.exists());
    assert_eq!(
        get(&r, Get::new("a")),
        vec![("f".into(), "q".into(), now - 60 * DAY, "x".into())]
    );
    // The move runs again and completes.
    assert_eq!(r.move_tiers().unwrap(), 1);
    assert_eq!(files_in(&cold), vec![listed.name.clone()]);
    assert!(!path.exists());
    r.close().unwrap();
}

/// Every `.sst` file under the family's directory and its policy directories.
fn all_files(fam: &Path) -> Vec<String> {
    let mut all = files_in(fam);
    for e in std::fs::read_dir(fam).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            all.extend(files_in(&e.path()));
        }
    }
    all
}

#[test]
fn a_crash_at_any_sync_point_of_a_move_loses_nothing_and_leaves_one_copy() {
    let tmp = tempfile::tempdir().unwrap();
    let live = tmp.path().join("live");
    let store = Arc::new(Faulty::with_crash_images(PolicyStore::default(), &live).unwrap());
    let env = env(&live);
    let r = open(&env, &store);
    let now = env.clock.now_ms();
    for i in 0..20 {
        put(&r, &format!("row{i:02}"), "f", "q", now - 60 * DAY, "old");
    }
    // Every cell is in a store file before the images start (the WAL is not in them).
    r.flush().unwrap();
    store.record_crash_images(true);
    env.clock.advance(H);
    assert_eq!(r.move_tiers().unwrap(), 1);
    store.record_crash_images(false);
    r.close().unwrap();

    let images = store.crash_images();
    assert!(images.len() >= 3, "too few sync points: {}", images.len());
    for (i, image) in images.iter().enumerate() {
        let restored = tmp.path().join(format!("image-{i}"));
        image.write_to(&Local, &live, &restored).unwrap();
        let env = self::env(&restored);
        env.clock.set(now + H);
        let r = open(&env, &Arc::new(PolicyStore::default()));
        assert_eq!(rows(&r), 20, "image {i}");
        let listing = r.file_listing();
        assert_eq!(listing.len(), 1, "image {i}: {listing:?}");
        let path = PathBuf::from(listing[0].path.strip_prefix("file://").unwrap());
        assert!(path.exists(), "image {i}: {path:?}");
        // The unlisted copy (the new one before the edit, the old one after) is gone.
        assert_eq!(all_files(&family_dir(&restored)).len(), 1, "image {i}");
        // And the move completes from any of them.
        r.move_tiers().unwrap();
        assert_eq!(r.file_listing()[0].tier, "COLD", "image {i}");
        assert_eq!(rows(&r), 20, "image {i}");
        r.close().unwrap();
        std::fs::remove_dir_all(&restored).unwrap();
    }
}
