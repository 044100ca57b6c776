//! The archive's cleaner (RFC 0025, "File protection: the archive"). Every deleting path of
//! a cluster process moves store files to `<volume>/archive/`; a round of the master's
//! janitor deletes the archived files that no snapshot and no clone references:
//!
//! 1. list the archive on every place (first, as the recovered-edits janitor lists first);
//! 2. read the snapshot records: while one is being taken (deadline not passed) nothing is
//!    deleted; a `taking` record past its deadline is abandoned (record, then directory);
//! 3. the referenced set: the files every `done` snapshot's manifest names, and the files the
//!    regions of every table with a `link/` record link to;
//! 4. an archived file outside the set is deleted once a later round, at least `ttl` after
//!    the first, still finds it outside (a reader that resolved its live path just before
//!    the move keeps it meanwhile).
//!
//! Why nothing referenced is deleted: a snapshot reads live manifests after its `taking`
//! record exists, so a file archived before the listing of step 1 is either in a manifest a
//! `done` record names at step 3, or in one still `taking` at step 2 (no deletion), or in
//! none. A clone's links are written while the snapshot they come from exists, after its
//! `link/` record; a link record is only deleted once older than `ttl` and naming no link.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use strata_cluster::kv::{range_all, Compare, Kv, Op, Txn};
use strata_cluster::layout::Layout;
use strata_proto::pb;
use strata_storage::manifest::{read_current, StoreFile, Version};
use strata_storage::region::{family_dir_name, region_dir_name};
use strata_storage::tiers::archive::{files_under, ARCHIVE_DIR};
use strata_storage::vfs::{FileStore, Storage};

use super::clone::region_version;
use super::take::{abandon, live_regions, table_dirs};
use super::{now_ms, read_manifest, records, Record};
use crate::region_sweep::Place;

/// A store file wherever it is: table directory (`tables/<ns>/<q>`), region directory,
/// family directory, name.
pub type FileKey = (String, String, String, String);

/// What one round did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Cleaned {
    /// Archived files found.
    pub archived: usize,
    /// Of those, referenced by a snapshot or a clone.
    pub referenced: usize,
    /// Deleted this round.
    pub deleted: usize,
    /// Unfinished snapshots abandoned.
    pub abandoned: usize,
    /// Set when a snapshot being taken kept this round from deleting anything.
    pub waited: bool,
}

/// The cleaner's memory between rounds.
pub struct Cleaner {
    ttl: Duration,
    first_seen: HashMap<PathBuf, Instant>,
    /// The files of each `done` snapshot, by (name, token): manifests never change.
    by_snapshot: HashMap<(String, u64), Arc<HashSet<FileKey>>>,
}

/// The key of `file` of family `family` in `region` of the table at `table_dir`: the bytes
/// it reads.
pub fn file_key(table_dir: &str, region_id: u64, family: &[u8], file: &StoreFile) -> FileKey {
    let family = family_dir_name(&String::from_utf8_lossy(family));
    match (&file.link, &file.reference) {
        (Some(l), _) => (
            l.table_dir.clone(),
            region_dir_name(l.region_id),
            family,
            l.file.clone(),
        ),
        (None, Some(r)) => (
            table_dir.to_string(),
            region_dir_name(r.parent_region_id),
            family,
            r.parent_file.clone(),
        ),
        (None, None) => (
            table_dir.to_string(),
            region_dir_name(region_id),
            family,
            file.name.clone(),
        ),
    }
}

fn version_keys(
    table_dir: &str,
    region_id: u64,
    v: &Version,
    only_links: bool,
    out: &mut HashSet<FileKey>,
) {
    for (family, ff) in v.families() {
        for f in ff.files().filter(|f| !only_links || f.link.is_some()) {
            out.insert(file_key(table_dir, region_id, family, f));
        }
    }
}

/// The key of an archived file from its path relative to the archive
/// (`tables/<ns>/<q>/<region>/<family>/[<policy dir>/]<name>`).
pub fn archived_key(rel: &Path) -> Option<FileKey> {
    let parts: Vec<String> = rel
        .components()
        .map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect::<Option<_>>()?;
    if parts.len() < 6 || parts[0] != "tables" {
        return None;
    }
    Some((
        format!("{}/{}/{}", parts[0], parts[1], parts[2]),
        parts[3].clone(),
        parts[4].clone(),
        parts[parts.len() - 1].clone(),
    ))
}

impl Cleaner {
    /// A cleaner deleting unreferenced archived files seen for at least `ttl`.
    pub fn new(ttl: Duration) -> Cleaner {
        Cleaner {
            ttl,
            first_seen: HashMap::new(),
            by_snapshot: HashMap::new(),
        }
    }

    /// One round over `places`; snapshot manifests and clones' regions are under `root` of
    /// `storage`.
    ///
    /// # Errors
    /// Listing, reading or the coordination store failed (nothing was deleted then), or a
    /// deletion failed.
    pub fn round<K: Kv + ?Sized>(
        &mut self,
        storage: &Storage,
        root: &Path,
        places: &[Place],
        kv: &K,
        layout: &Layout,
    ) -> Result<Cleaned, String> {
        let mut found = Vec::new();
        for (i, place) in places.iter().enumerate() {
            let archive = place.root.join(ARCHIVE_DIR);
            let paths = files_under(place.files.as_ref(), &archive)
                .map_err(|e| format!("list {}: {e}", place.files.url(&archive)))?;
            found.extend(paths.into_iter().map(|p| (i, p)));
        }
        let mut cleaned = Cleaned {
            archived: found.len(),
            ..Cleaned::default()
        };
        let now = now_ms();
        let mut referenced = HashSet::new();
        let mut live_snapshots = BTreeSet::new();
        for (name, rec, rev) in records(kv, layout).map_err(|e| e.message().to_string())? {
            match rec {
                Record::Taking { deadline_ms, .. } if deadline_ms > now => cleaned.waited = true,
                Record::Taking { .. } => {
                    abandon(kv, layout, storage.files.as_ref(), root, &name, rev);
                    tracing::warn!(snapshot = %name, "abandoned a snapshot not finished in time");
                    cleaned.abandoned += 1;
                }
                Record::Done { token, .. } => {
                    live_snapshots.insert((name.clone(), token));
                    let keys = self.snapshot_keys(storage.files.as_ref(), root, &name, token)?;
                    referenced.extend(keys.iter().cloned());
                }
            }
        }
        self.by_snapshot.retain(|k, _| live_snapshots.contains(k));
        if cleaned.waited {
            return Ok(cleaned);
        }
        self.linked_keys(storage.files.as_ref(), root, kv, layout, &mut referenced)?;
        let mut seen_now = HashSet::new();
        for (i, path) in found {
            let place = &places[i];
            let archive = place.root.join(ARCHIVE_DIR);
            let key = path.strip_prefix(&archive).ok().and_then(archived_key);
            if key.is_some_and(|k| referenced.contains(&k)) {
                cleaned.referenced += 1;
                continue;
            }
            seen_now.insert(path.clone());
            let first = *self
                .first_seen
                .entry(path.clone())
                .or_insert_with(Instant::now);
            if first.elapsed() < self.ttl {
                continue;
            }
            match place.files.remove_file(&path) {
                Ok(()) => cleaned.deleted += 1,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(format!("delete {}: {e}", place.files.url(&path))),
            }
            seen_now.remove(&path);
        }
        self.first_seen.retain(|p, _| seen_now.contains(p));
        Ok(cleaned)
    }

    fn snapshot_keys(
        &mut self,
        files: &dyn FileStore,
        root: &Path,
        name: &str,
        token: u64,
    ) -> Result<Arc<HashSet<FileKey>>, String> {
        let id = (name.to_string(), token);
        if let Some(keys) = self.by_snapshot.get(&id) {
            return Ok(keys.clone());
        }
        let manifest = read_manifest(files, root, name).map_err(|e| e.message().to_string())?;
        let keys = Arc::new(manifest_keys(&manifest).map_err(|e| e.message().to_string())?);
        self.by_snapshot.insert(id, keys.clone());
        Ok(keys)
    }

    /// Adds the targets of the links of every table with a `link/` record; deletes the
    /// records of tables gone or without links, once older than the ttl.
    fn linked_keys<K: Kv + ?Sized>(
        &self,
        files: &dyn FileStore,
        root: &Path,
        kv: &K,
        layout: &Layout,
        out: &mut HashSet<FileKey>,
    ) -> Result<(), String> {
        let prefix = layout.links();
        let page = range_all(kv, &prefix, 1000).map_err(|e| e.to_string())?;
        for item in page.kvs {
            let Some(table) = item.key.strip_prefix(&prefix) else {
                continue;
            };
            let (table_rel, table_dir) =
                table_dirs(root, table).map_err(|e| e.message().to_string())?;
            let mut links = HashSet::new();
            for (_, id, _) in
                live_regions(kv, layout, table).map_err(|e| e.message().to_string())?
            {
                let dir = table_dir.join(region_dir_name(id));
                if let Some((_, v)) =
                    read_current(files, &dir).map_err(|e| format!("{}: {e}", files.url(&dir)))?
                {
                    version_keys(&table_rel, id, &v, true, &mut links);
                }
            }
            let written_ms = std::str::from_utf8(&item.value)
                .ok()
                .and_then(|v| v.split(' ').nth(1))
                .and_then(|ms| ms.parse::<i64>().ok())
                .unwrap_or(0);
            let old = now_ms().saturating_sub(written_ms)
                > i64::try_from(self.ttl.as_millis()).unwrap_or(i64::MAX);
            if links.is_empty() && old {
                let _ = kv.txn(Txn {
                    compares: vec![Compare::ModRevision(item.key.clone(), item.mod_revision)],
                    success: vec![Op::Delete(item.key.clone())],
                });
            }
            out.extend(links);
        }
        Ok(())
    }
}

/// Every file a snapshot's manifest names.
///
/// # Errors
/// A region manifest in it does not decode.
pub fn manifest_keys(manifest: &pb::SnapshotManifest) -> Result<HashSet<FileKey>, tonic::Status> {
    let mut keys = HashSet::new();
    for region in &manifest.regions {
        if let Some(v) = region_version(region)? {
            version_keys(&region.table_dir, region.region_id, &v, false, &mut keys);
        }
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archived_paths_give_the_key_a_manifest_gives() {
        let key = archived_key(Path::new("tables/default/t/00000000000000ab/cf/1-2.sst"));
        assert_eq!(
            key,
            Some((
                "tables/default/t".to_string(),
                "00000000000000ab".to_string(),
                "cf".to_string(),
                "1-2.sst".to_string()
            ))
        );
        let policy = archived_key(Path::new("tables/ns/t/00000000000000ab/cf/ALL_SSD/1-2.sst"));
        assert_eq!(
            policy,
            key.map(|(_, r, f, n)| ("tables/ns/t".to_string(), r, f, n))
        );
        assert_eq!(archived_key(Path::new("other/a.sst")), None);
    }
}
