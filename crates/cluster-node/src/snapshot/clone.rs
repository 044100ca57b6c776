//! The files of a clone or a restore (RFC 0025, "Clones: links, never copies"): each region
//! of the new table, created with the snapshot's boundaries and closed (the table is
//! disabled), gets a manifest edit adding a link to every file of the snapshot's region with
//! the same start row. A link owns no bytes; the region server reads the snapshot's file at
//! its live path or in the archive, and the region's first compaction rewrites it into a
//! file of its own, as a split daughter's references are.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use strata_cluster::kv::Kv;
use strata_cluster::layout::Layout;
use strata_proto::pb::{self, ErrorCode};
use strata_storage::manifest::{format, Link, Manifest, StoreFile, StoreFs, Version, VersionEdit};
use strata_storage::region::region_dir_name;
use strata_storage::vfs::FileStore;
use tonic::Status;

use super::take::{live_regions, table_dirs};

/// The region manifest a snapshot recorded for `region`, decoded; `None` for a region that
/// had not been opened yet (no files).
///
/// # Errors
/// `CORRUPTION` when it does not decode.
pub fn region_version(region: &pb::SnapshotRegion) -> Result<Option<Version>, Status> {
    if region.manifest.is_empty() {
        return Ok(None);
    }
    format::decode("snapshot region manifest", &region.manifest)
        .map(|(_, v)| Some(v))
        .map_err(|e| strata_proto::status(ErrorCode::Corruption, e.to_string()))
}

/// The entry a clone's manifest gets for `file` of the snapshot's `region`: a link to the
/// bytes it reads (the file itself, a split reference's parent file, or what a clone's own
/// link names), keeping a reference's half.
pub fn link_entry(region: &pb::SnapshotRegion, file: &StoreFile) -> StoreFile {
    let link = match (&file.link, &file.reference) {
        (Some(link), _) => link.clone(),
        (None, Some(r)) => Link {
            table_dir: region.table_dir.clone(),
            region_id: r.parent_region_id,
            file: r.parent_file.clone(),
        },
        (None, None) => Link {
            table_dir: region.table_dir.clone(),
            region_id: region.region_id,
            file: file.name.clone(),
        },
    };
    StoreFile {
        link: Some(link),
        ..file.clone()
    }
}

/// Adds links to the snapshot's files to the manifest of every region of `table`, which must
/// be disabled and have the snapshot's region boundaries. Idempotent: an entry already there
/// is kept. Answers how many links were added.
///
/// # Errors
/// A region without a counterpart in the snapshot, a manifest that cannot be read or
/// written, or the coordination store failed.
pub fn link_regions<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    files: &Arc<dyn FileStore>,
    root: &Path,
    manifest: &pb::SnapshotManifest,
    table: &str,
) -> Result<usize, Status> {
    let by_start: HashMap<&[u8], &pb::SnapshotRegion> = manifest
        .regions
        .iter()
        .map(|r| (r.start_row.as_ref(), r))
        .collect();
    let (_, table_dir) = table_dirs(root, table)?;
    let mut added = 0;
    for (name, id, rec) in live_regions(kv, layout, table)? {
        let source = by_start.get(rec.start.as_slice()).ok_or_else(|| {
            strata_proto::status(
                ErrorCode::Unavailable,
                format!(
                    "region {name} has no counterpart in snapshot {}",
                    manifest.name
                ),
            )
        })?;
        let Some(version) = region_version(source)? else {
            continue;
        };
        let dir = table_dir.join(region_dir_name(id));
        let io = |e: strata_storage::manifest::Error| {
            strata_proto::status(
                ErrorCode::Unavailable,
                format!("manifest of {name} in {}: {e}", files.url(&dir)),
            )
        };
        let mut target =
            Manifest::open(Arc::new(StoreFs::new(files.clone(), dir.clone()))).map_err(io)?;
        let current = target.current().clone();
        let mut edit = VersionEdit::new();
        for (family, ff) in version.families() {
            let Some(mine) = current.family(family) else {
                continue; // not in the snapshot's schema: cannot happen for a clone
            };
            for file in ff.files() {
                if mine.file(&file.name).is_none() {
                    edit = edit.add_file(family.clone(), link_entry(source, file));
                    added += 1;
                }
            }
        }
        if !edit.is_empty() {
            target.apply(&edit).map_err(io)?;
        }
    }
    Ok(added)
}
