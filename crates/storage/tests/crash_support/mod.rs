//! A region's whole life on one store, for the crash matrix and the fault matrix: FSYNC_WAL
//! puts (the WAL rolls every few dozen), flushes, a major compaction, a tier move after a
//! policy change, a split, the daughters' compactions and the parent's removal, a merge and
//! the merged region's compaction. Every acknowledged put is recorded with the number of
//! crash images taken before its acknowledgement, so an image knows which writes it must hold.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;
use strata_model::ops::{Get, Put, Scan};
use strata_model::schema::{
    Durability, FamilyDescriptor, StoragePolicy, TableDescriptor, TableName,
};
use strata_storage::clock::ManualClock;
use strata_storage::compaction::exploring::MajorRequest;
use strata_storage::manifest::RegionInfo;
use strata_storage::region::region_dir_name;
use strata_storage::tiers::{StorageType, Volume, Volumes};
use strata_storage::vfs::{FileStore, Local, LogStore};
use strata_storage::wal::{Wal, WalOptions};
use strata_storage::{Region, RegionConfig};

/// The row split point of the life's split.
pub const SPLIT_ROW: &str = "r25";

/// The `i`-th key the life writes: spread over `r00`..`r49` so both halves of a split get
/// rows.
pub fn key(i: usize) -> String {
    format!("r{:02}-{i:04}", (i * 7) % 50)
}

/// The value written at `key` (long enough that the WAL rolls every few dozen puts).
pub fn value(key: &str) -> String {
    format!("value of {key} {}", "x".repeat(100))
}

/// From which crash image on a set of regions is the one the owner holds.
#[derive(Clone, Debug)]
pub struct Phase {
    /// What the life does in this phase.
    pub name: &'static str,
    /// The first crash image taken in this phase.
    pub from_image: usize,
    /// The regions the owner opens after a crash in this phase.
    pub regions: Vec<RegionInfo>,
    /// The family's storage policy then.
    pub policy: StoragePolicy,
}

struct Acked {
    key: String,
    /// Crash images taken before the acknowledgement.
    images_before: usize,
}

/// The life of a region on `store`, whose files live under `root`.
pub struct Life<F> {
    root: PathBuf,
    store: Arc<F>,
    clock: Arc<ManualClock>,
    wal: Arc<Wal>,
    acked: Vec<Acked>,
    phases: Vec<Phase>,
    next_key: usize,
    images: Box<dyn Fn() -> usize>,
}

pub fn whole(id: u64) -> RegionInfo {
    RegionInfo {
        table: "t".into(),
        region_id: id,
        start_row: Bytes::new(),
        end_row: Bytes::new(),
    }
}

pub fn table(policy: StoragePolicy) -> TableDescriptor {
    let mut f = FamilyDescriptor::new("f");
    f.versions = 1;
    f.storage_policy = policy;
    let mut t = TableDescriptor::new(TableName::parse("t").unwrap()).with_family(f);
    t.durability = Durability::FsyncWal;
    t
}

pub fn wal_options() -> WalOptions {
    WalOptions {
        segment_size: 4096,
        ..WalOptions::default()
    }
}

/// The data directory (HDD, holding the WAL and the table), an SSD and an archive volume.
pub fn volumes(root: &Path, files: Arc<dyn FileStore>) -> Arc<Volumes> {
    let others = vec![
        Volume {
            kind: StorageType::Ssd,
            path: root.join("ssd"),
        },
        Volume {
            kind: StorageType::Archive,
            path: root.join("archive"),
        },
    ];
    Arc::new(
        Volumes::new(root.join("data"), StorageType::Hdd, others)
            .unwrap()
            .with_files(files)
            .with_warnings(Arc::new(|_| {})),
    )
}

pub fn region_dir(root: &Path, id: u64) -> PathBuf {
    root.join("data").join("t").join(region_dir_name(id))
}

/// Opens region `info` under `root` on `files`, with `wal`.
pub fn open_region(
    root: &Path,
    files: Arc<dyn FileStore>,
    wal: Arc<Wal>,
    clock: Arc<ManualClock>,
    info: &RegionInfo,
    policy: StoragePolicy,
) -> strata_storage::Result<Region> {
    Region::open(RegionConfig {
        dir: region_dir(root, info.region_id),
        table: table(policy),
        info: info.clone(),
        wal,
        cache: None,
        clock,
        background: None,
        budget: None,
        volumes: Some(volumes(root, files)),
    })
}

fn in_range(info: &RegionInfo, key: &str) -> bool {
    let k = key.as_bytes();
    k >= info.start_row.as_ref() && (info.end_row.is_empty() || k < info.end_row.as_ref())
}

impl<F: FileStore + LogStore + 'static> Life<F> {
    /// A life on `store` under `root`; `images` counts the crash images taken so far.
    pub fn new(root: &Path, store: Arc<F>, images: Box<dyn Fn() -> usize>) -> Life<F> {
        FileStore::create_dir_all(store.as_ref(), &root.join("data")).unwrap();
        let first = Phase {
            name: "the WAL opens",
            from_image: images(),
            regions: Vec::new(),
            policy: StoragePolicy::Hot,
        };
        let wal = Arc::new(
            Wal::open_with(root.join("data").join("wal"), wal_options(), store.clone()).unwrap(),
        );
        Life {
            root: root.to_owned(),
            store,
            clock: Arc::new(ManualClock::new(1_000_000)),
            wal,
            acked: Vec::new(),
            phases: vec![first],
            next_key: 0,
            images,
        }
    }

    /// The phases so far.
    pub fn phases(&self) -> &[Phase] {
        &self.phases
    }

    /// How many puts were acknowledged.
    pub fn acked(&self) -> usize {
        self.acked.len()
    }

    fn phase(&mut self, name: &'static str, regions: &[&RegionInfo], policy: StoragePolicy) {
        self.phases.push(Phase {
            name,
            from_image: (self.images)(),
            regions: regions.iter().map(|r| (*r).clone()).collect(),
            policy,
        });
    }

    /// Opens region `info` on the life's store and WAL.
    pub fn open(&self, info: &RegionInfo, policy: StoragePolicy) -> Region {
        open_region(
            &self.root,
            self.store.clone(),
            self.wal.clone(),
            self.clock.clone(),
            info,
            policy,
        )
        .unwrap()
    }

    /// The key of the next put into `region`.
    pub fn next_key(&mut self, region: &Region) -> String {
        loop {
            let key = key(self.next_key);
            self.next_key += 1;
            if in_range(region.info(), &key) {
                return key;
            }
        }
    }

    /// Puts `n` new rows into `region`, recording each acknowledgement.
    pub fn put(&mut self, region: &Region, n: usize) {
        for _ in 0..n {
            let key = self.next_key(region);
            self.try_put(region, &key).unwrap();
        }
    }

    /// Puts row `key`; records it when acknowledged.
    pub fn try_put(&mut self, region: &Region, key: &str) -> strata_storage::Result<()> {
        region.put(&Put::new(Bytes::from(key.to_owned())).add_at(
            "f",
            "q",
            1,
            Bytes::from(value(key)),
        ))?;
        self.acked.push(Acked {
            key: key.to_owned(),
            images_before: (self.images)(),
        });
        Ok(())
    }

    /// The whole life, phase by phase.
    pub fn run_all(&mut self) {
        let r1 = whole(1);
        self.phase("WAL appends and flushes", &[&r1], StoragePolicy::Hot);
        let region = self.open(&r1, StoragePolicy::Hot);
        for _ in 0..3 {
            self.put(&region, 15);
            region.flush().unwrap();
        }
        self.phase("major compaction", &[&r1], StoragePolicy::Hot);
        region.compact(MajorRequest::User).unwrap();
        self.put(&region, 5);
        region.close().unwrap();
        drop(region);

        // The family's policy becomes ALL_SSD: its file moves to the SSD volume.
        self.phase("tier move", &[&r1], StoragePolicy::AllSsd);
        let region = self.open(&r1, StoragePolicy::AllSsd);
        assert!(region.move_tiers().unwrap() >= 1);
        self.put(&region, 5);

        self.phase("split", &[&r1], StoragePolicy::AllSsd);
        let (lo, hi) = region
            .split(Some(Bytes::from_static(SPLIT_ROW.as_bytes())), (2, 3))
            .unwrap();
        drop(region);

        self.phase(
            "daughters compact and release the parent",
            &[&lo, &hi],
            StoragePolicy::AllSsd,
        );
        let (low, high) = (
            self.open(&lo, StoragePolicy::AllSsd),
            self.open(&hi, StoragePolicy::AllSsd),
        );
        self.put(&low, 5);
        self.put(&high, 5);
        low.compact(MajorRequest::User).unwrap();
        high.compact(MajorRequest::User).unwrap();
        let daughters = [region_dir(&self.root, 2), region_dir(&self.root, 3)];
        assert!(Region::remove_split_parent(
            self.store.as_ref(),
            &region_dir(&self.root, 1),
            1,
            &daughters
        )
        .unwrap());

        self.phase("merge", &[&lo, &hi], StoragePolicy::AllSsd);
        let merged = Region::merge(&low, &high, 4).unwrap();
        drop((low, high));

        self.phase(
            "merged region compacts and releases its parents",
            &[&merged],
            StoragePolicy::AllSsd,
        );
        let region = self.open(&merged, StoragePolicy::AllSsd);
        self.put(&region, 5);
        region.compact(MajorRequest::User).unwrap();
        let merged_dir = [region_dir(&self.root, 4)];
        for (dir, id) in [(&daughters[0], 2), (&daughters[1], 3)] {
            assert!(
                Region::remove_split_parent(self.store.as_ref(), dir, id, &merged_dir).unwrap()
            );
        }
        self.put(&region, 3);
        region.close().unwrap();
    }

    /// Opens the regions of `phase` from the files under `root` (a restored image, on the
    /// local file system) and checks them against the writes acknowledged before image
    /// `image` was taken.
    ///
    /// # Errors
    /// What was wrong, for the test's message.
    pub fn check_image(&self, root: &Path, phase: &Phase, image: usize) -> Result<(), String> {
        let wal = Arc::new(
            Wal::open(root.join("data").join("wal"), wal_options())
                .map_err(|e| format!("WAL does not open: {e}"))?,
        );
        for info in &phase.regions {
            let region = open_region(
                root,
                Arc::new(Local),
                wal.clone(),
                self.clock.clone(),
                info,
                phase.policy,
            )
            .map_err(|e| format!("region {} does not open: {e}", info.region_id))?;
            check_region(&region, self.must_hold(info, image))
                .map_err(|e| format!("region {}: {e}", info.region_id))?;
        }
        Ok(())
    }

    /// The keys of `info` acknowledged before image `image`.
    pub fn must_hold(&self, info: &RegionInfo, image: usize) -> Vec<&str> {
        self.acked
            .iter()
            .filter(|a| a.images_before <= image && in_range(info, &a.key))
            .map(|a| a.key.as_str())
            .collect()
    }

    /// Checks the live regions of the last phase on the live store.
    pub fn check_live(&self, regions: &[&Region]) -> Result<(), String> {
        for region in regions {
            check_region(region, self.must_hold(region.info(), usize::MAX))?;
        }
        Ok(())
    }

    /// The WAL shared by the life's regions.
    pub fn wal(&self) -> &Arc<Wal> {
        &self.wal
    }

    /// The life's clock.
    pub fn clock(&self) -> &Arc<ManualClock> {
        &self.clock
    }
}

/// Every key in `must` is in `region` with its value; every cell a scan returns is one that
/// was written (its value matches its key, it is in the region's range); no read fails.
pub fn check_region(region: &Region, must: Vec<&str>) -> Result<(), String> {
    for key in must {
        let cells = region
            .get(&Get::new(Bytes::from(key.to_owned())))
            .map_err(|e| format!("get {key}: {e}"))?;
        match cells.first() {
            Some(c) if c.value == value(key).as_bytes() => {}
            Some(c) => {
                return Err(format!(
                    "{key} holds {:?}",
                    String::from_utf8_lossy(&c.value)
                ))
            }
            None => return Err(format!("acknowledged {key} is missing")),
        }
    }
    let mut it = region
        .scan(&Scan::new())
        .map_err(|e| format!("scan: {e}"))?;
    while let Some(cells) = it.next_row().map_err(|e| format!("scan: {e}"))? {
        for c in &cells {
            let key = String::from_utf8_lossy(&c.row).into_owned();
            if !in_range(region.info(), &key) || c.value != value(&key).as_bytes() {
                return Err(format!("scan returned a cell never written: {key}"));
            }
        }
    }
    Ok(())
}
