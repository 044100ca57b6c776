//! What a region's store files are and where they live: for `files` in the shell.

use strata_model::schema::CompactionPolicy;

use super::store::Store;
use super::Region;
use crate::compaction::date_tiered::incoming_window;
use crate::tiers::Tier;

/// One store file of a region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileListing {
    /// The family.
    pub family: String,
    /// The file's name in the manifest.
    pub name: String,
    /// Bytes on disk.
    pub size: u64,
    /// Cells in the file.
    pub cells: u64,
    /// Oldest and newest cell timestamps; `None` for an empty file.
    pub time_range: Option<(i64, i64)>,
    /// The newest sequence id the file holds.
    pub max_seq_id: u64,
    /// Written by a major compaction.
    pub major: bool,
    /// Half of a split parent's file, read through a reference.
    pub reference: bool,
    /// The storage type of the volume holding the file (`HDD`, `SSD`, ...); on a store that
    /// places files by policy (HDFS), the storage policy of the family's directory; on an
    /// object store, the store (`S3`).
    pub tier: String,
    /// The file's path (for a reference, the parent's file): a local path, or the URL of the
    /// file on a shared store (`hdfs://host:port/...`).
    pub path: String,
    /// For a date-tiered family, the window `[start, end)` holding the file's newest cell now.
    pub window: Option<(i64, i64)>,
}

impl Region {
    /// Every store file of the region, by family, newest first.
    pub fn file_listing(&self) -> Vec<FileListing> {
        let now = self.inner.config.clock.now_ms();
        self.inner
            .stores
            .values()
            .flat_map(|store| {
                store
                    .files()
                    .iter()
                    .map(|f| listing(store, &f.meta, now))
                    .collect::<Vec<_>>()
            })
            .collect()
    }
}

fn listing(store: &Store, meta: &crate::manifest::StoreFile, now: i64) -> FileListing {
    let tier = store.tier_of(&meta.tier).ok();
    let path = store
        .file_path(meta)
        .unwrap_or_else(|_| store.dir.join(&meta.name));
    let files = match tier {
        Some(t) => store.files_of(t),
        None => store.file_store(),
    };
    let (path, tier) = if files.places_by_policy() {
        // The policy the file's blocks were written under: its policy directory's, else the
        // family's.
        let policy = match tier {
            Some(Tier::Policy(p)) => p,
            _ => store.family.storage_policy,
        };
        (files.url(&path), policy.to_string())
    } else if files.scheme() == "file" {
        (
            path.display().to_string(),
            tier.map_or_else(|| meta.tier.clone(), |t| t.kind().name().to_owned()),
        )
    } else if let Some(Tier::Volume(kind)) = tier.filter(|t| store.is_remote(*t)) {
        // A volume on a store of its own (the ARCHIVE tier as a bucket): its URL and type.
        (files.url(&path), kind.name().to_owned())
    } else {
        // Remote stores without policies (S3): the file's URL, and the store as its tier (its
        // volumes are key prefixes in one bucket, not devices of a storage type).
        (files.url(&path), files.scheme().to_ascii_uppercase())
    };
    let time_range = (meta.cell_count > 0).then_some((meta.min_timestamp, meta.max_timestamp));
    let window = match (&store.family.compaction_policy, time_range) {
        (CompactionPolicy::DateTiered(dt), Some((_, max))) => {
            let w = incoming_window(dt, now).earlier_until(max);
            Some((w.start(), w.end()))
        }
        _ => None,
    };
    FileListing {
        family: store.family.name.clone(),
        name: meta.name.clone(),
        size: meta.size,
        cells: meta.cell_count,
        time_range,
        max_seq_id: meta.max_seq_id,
        major: meta.major,
        reference: meta.reference.is_some(),
        tier,
        path,
        window,
    }
}
