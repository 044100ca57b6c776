//! The one-time upgrade of a root written by the standalone master of earlier releases (a
//! catalog file, `catalog/catalog`) into a cluster of one's (RFC 0019, "Upgrading a standalone
//! root"). It runs before the coordination store is opened, under the root's lock.
//!
//! 1. **Flush.** The catalog's regions are opened on a region server over the old WAL
//!    (`wal/`), which replays every edit not yet flushed; a daughter still reading its parent's
//!    files through references is compacted until it holds only files of its own; every region
//!    is flushed and closed. The old WAL's segments are then deleted and `upgrade/flushed` is
//!    written. From here on every row is in the store files of the catalog's serving regions.
//! 2. **Records.** The coordination store is written whole in `coordination.upgrading/`
//!    (rebuilt from nothing if a crash left one): per table its schema and table record
//!    (enabled or disabled, split points, no incarnation), per serving region a region record
//!    named `table,<seq>` in start-row order (offline: the master assigns it; closed for a
//!    disabled table), the explicitly created namespaces.
//! 3. **Directories.** Each serving region's directory is renamed, on every volume, from the
//!    catalog's id to the storage id of its new name ([`crate::names::region_id`]). A rename
//!    already done is skipped, so this step can be repeated.
//! 4. **Commit.** `coordination.upgrading/` is renamed to `coordination/`: from this instant
//!    the root is a cluster of one's. Then the catalog file and `upgrade/` are deleted. A start
//!    that finds both a coordination store and `upgrade/flushed` finishes this step.
//!
//! A crash at any instant leaves either the old root (steps 1–3 repeat: they are derived from
//! the catalog, which nothing changes before the commit) or the new one. Split parents get no
//! record: no daughter references them after step 1, and the janitor's sweep deletes their
//! directories as it deletes any directory no record names.

use std::io;
use std::path::Path;

use prost::Message;
use strata_cluster::kv::{Kv, Op, Txn};
use strata_cluster::layout::{region_id as region_name, Layout};
use strata_cluster::record::{RegionRecord, RegionState, TableRecord, TableState};
use strata_embedded_kv::{EmbeddedKv, Options};
use strata_model::schema::TableDescriptor;
use strata_proto::convert::{table_from_pb, table_to_pb};
use strata_proto::pb;
use strata_server::{RegionServer, ServerConfig};
use strata_storage::manifest::RegionInfo;
use strata_storage::region::region_dir_name;
use strata_storage::tiers::Volumes;
use strata_storage::vfs::FileStore;

use crate::single::COORDINATION_DIR;

/// The catalog file of an earlier release's standalone master, under the root.
pub const CATALOG_FILE: &str = "catalog/catalog";

/// The coordination store being written by an upgrade, under the root.
const STAGING_DIR: &str = "coordination.upgrading";

/// The upgrade's progress marker, under the root.
const FLUSHED_MARKER: &str = "upgrade/flushed";

/// The catalog file's magic: `STRCAT01` ‖ length u32 LE ‖ CRC32C u32 LE ‖ protobuf.
const MAGIC: &[u8; 8] = b"STRCAT01";

/// A table of the catalog: its schema, state and serving regions in start-row order.
struct OldTable {
    descriptor: TableDescriptor,
    enabled: bool,
    regions: Vec<RegionInfo>,
}

/// What an old catalog holds.
struct OldCatalog {
    tables: Vec<OldTable>,
    namespaces: Vec<String>,
}

/// What an upgrade did, for the start-up log.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Upgraded {
    /// Tables carried over.
    pub tables: usize,
    /// Serving regions carried over.
    pub regions: usize,
    /// Daughters compacted so they no longer read a parent's files.
    pub compacted: usize,
}

/// Upgrades the root of `server` if it holds a catalog file (or finishes an upgrade that
/// committed); `None` if there is nothing to do.
///
/// # Errors
/// A damaged catalog, a region that fails to open, flush or compact (the root is left as it
/// was: the next start tries again), or storage failures.
pub fn upgrade_if_needed(
    server: &ServerConfig,
    layout: &Layout,
) -> Result<Option<Upgraded>, String> {
    let root = &server.data_dir;
    let files = server.storage.files.clone();
    let url = |p: &Path| files.url(p);
    let exists = |p: &Path| files.exists(p).map_err(|e| format!("{}: {e}", url(p)));
    let catalog_path = root.join(CATALOG_FILE);
    let marker = root.join(FLUSHED_MARKER);
    if exists(&root.join(COORDINATION_DIR))? {
        if exists(&marker)? {
            clean_up(files.as_ref(), root)?;
            tracing::info!(root = %url(root), "finished upgrading the root");
        } else if exists(&catalog_path)? {
            return Err(format!(
                "{} holds both a coordination store and a catalog file, and no upgrade was \
                 under way: it is not a root this release can open",
                url(root)
            ));
        }
        return Ok(None);
    }
    if !exists(&catalog_path)? {
        return Ok(None);
    }
    let started = std::time::Instant::now();
    let bytes = files
        .read(&catalog_path)
        .map_err(|e| format!("{}: {e}", url(&catalog_path)))?;
    let catalog = decode_catalog(&bytes).map_err(|e| format!("{}: {e}", url(&catalog_path)))?;
    tracing::info!(
        root = %url(root),
        tables = catalog.tables.len(),
        "upgrading a root written by the standalone master of an earlier release"
    );
    let mut done = Upgraded {
        tables: catalog.tables.len(),
        regions: catalog.tables.iter().map(|t| t.regions.len()).sum(),
        compacted: 0,
    };
    if !exists(&marker)? {
        done.compacted = flush_all(server, &catalog)?;
        remove_old_wal(server)?;
        files
            .create_dir_all(marker.parent().unwrap_or(root))
            .and_then(|()| files.write_atomic(&marker, b"flushed\n"))
            .map_err(|e| format!("{}: {e}", url(&marker)))?;
    }
    let staging = root.join(STAGING_DIR);
    if exists(&staging)? {
        files
            .remove_dir_all(&staging)
            .map_err(|e| format!("{}: {e}", url(&staging)))?;
    }
    write_records(server, &staging, layout, &catalog)?;
    rename_region_dirs(server, &catalog)?;
    let target = root.join(COORDINATION_DIR);
    files
        .rename(&staging, &target)
        .and_then(|()| files.sync_dir(root))
        .map_err(|e| format!("{}: {e}", url(&target)))?;
    clean_up(files.as_ref(), root)?;
    tracing::info!(
        root = %url(root),
        tables = done.tables,
        regions = done.regions,
        daughters_compacted = done.compacted,
        ms = started.elapsed().as_millis() as u64,
        "root upgraded: it is now a cluster of one's"
    );
    Ok(Some(done))
}

/// Decodes the catalog file.
fn decode_catalog(bytes: &[u8]) -> Result<OldCatalog, String> {
    if bytes.len() < 16 || &bytes[..8] != MAGIC {
        return Err("not a catalog file (bad magic or too short)".into());
    }
    let len = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
    let crc = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]);
    let payload = &bytes[16..];
    if payload.len() != len || crc32c::crc32c(payload) != crc {
        return Err("the catalog file is damaged (length or checksum)".into());
    }
    let msg = pb::Catalog::decode(payload).map_err(|e| format!("the catalog: {e}"))?;
    let mut tables = Vec::new();
    for t in msg.tables {
        let schema = t.schema.ok_or("a table without schema")?;
        let descriptor = table_from_pb(schema).map_err(|e| e.to_string())?;
        let name = descriptor.name.to_string();
        let mut regions: Vec<RegionInfo> = msg
            .regions
            .iter()
            .filter(|r| r.table == name && r.state == pb::CatalogRegionState::Open as i32)
            .map(|r| RegionInfo {
                table: name.clone(),
                region_id: r.region_id,
                start_row: r.start_row.clone(),
                end_row: r.end_row.clone(),
            })
            .collect();
        regions.sort_by(|a, b| a.start_row.cmp(&b.start_row));
        check_cover(&name, &regions)?;
        tables.push(OldTable {
            descriptor,
            enabled: t.state == pb::TableState::Enabled as i32,
            regions,
        });
    }
    Ok(OldCatalog {
        tables,
        namespaces: msg.namespaces,
    })
}

/// Checks that a table's serving regions cover its key space without gap or overlap.
fn check_cover(table: &str, regions: &[RegionInfo]) -> Result<(), String> {
    let mut expect: &[u8] = &[];
    for (i, r) in regions.iter().enumerate() {
        if r.start_row.as_ref() != expect || (r.end_row.is_empty() && i + 1 != regions.len()) {
            return Err(format!(
                "the catalog's regions of {table} do not cover its rows once each"
            ));
        }
        expect = r.end_row.as_ref();
    }
    if regions.is_empty() || !expect.is_empty() {
        return Err(format!(
            "the catalog's regions of {table} do not cover its rows"
        ));
    }
    Ok(())
}

/// Step 1: opens every serving region over the old WAL (replaying it), compacts daughters
/// until they read no parent's files, flushes and closes everything. Returns the number of
/// daughters compacted.
fn flush_all(server: &ServerConfig, catalog: &OldCatalog) -> Result<usize, String> {
    let mut config = server.clone();
    config.wal_subdir = None;
    let host = RegionServer::open(config).map_err(|e| format!("the old WAL: {e}"))?;
    let outcome = (|| {
        let mut compacted = 0;
        for t in &catalog.tables {
            for info in &t.regions {
                let id = info.region_id;
                let what = |e: strata_storage::Error| format!("region {id} of {}: {e}", info.table);
                host.open_region(&t.descriptor, info).map_err(what)?;
                if host.region_stats(id).map_err(what)?.has_references {
                    host.compact_region(id, None, true).map_err(what)?;
                    if host.region_stats(id).map_err(what)?.has_references {
                        return Err(format!(
                            "region {id} of {} still reads its parent's files after a major \
                             compaction",
                            info.table
                        ));
                    }
                    compacted += 1;
                }
            }
        }
        Ok(compacted)
    })();
    let closed = host
        .shutdown()
        .map_err(|e| format!("flushing before the upgrade: {e}"));
    let compacted = outcome?;
    closed?;
    Ok(compacted)
}

/// Deletes the old WAL's segments (files directly under `wal/`): every edit in them is in
/// store files now.
fn remove_old_wal(server: &ServerConfig) -> Result<(), String> {
    let logs = &server.storage.logs;
    let dir = server.data_dir.join(ServerConfig::WAL_DIR);
    let entries = match logs.list(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(format!("{}: {e}", logs.url(&dir))),
    };
    for entry in entries.iter().filter(|e| !e.is_dir) {
        let path = dir.join(&entry.name);
        logs.remove(&path)
            .map_err(|e| format!("{}: {e}", logs.url(&path)))?;
    }
    Ok(())
}

/// Step 2: the coordination store's records, written in `staging`.
fn write_records(
    server: &ServerConfig,
    staging: &Path,
    layout: &Layout,
    catalog: &OldCatalog,
) -> Result<(), String> {
    let (kv, _) = EmbeddedKv::open(server.storage.clone(), staging, Options::default())
        .map_err(|e| format!("the coordination store: {e}"))?;
    let mut ops = Vec::new();
    for ns in &catalog.namespaces {
        ops.push(Op::put(layout.namespace(ns), Vec::new()));
    }
    for t in &catalog.tables {
        let name = t.descriptor.name.to_string();
        ops.push(Op::put(
            layout.schema(&name),
            table_to_pb(&t.descriptor).encode_to_vec(),
        ));
        let record = TableRecord {
            state: if t.enabled {
                TableState::Enabled
            } else {
                TableState::Disabled
            },
            splits: t.regions[1..]
                .iter()
                .map(|r| r.start_row.to_vec())
                .collect(),
            incarnation: String::new(),
            next_seq: 0,
        };
        ops.push(Op::put(layout.table(&name), record.encode()));
        for (seq, info) in t.regions.iter().enumerate() {
            let mut region = RegionRecord::new(info.start_row.to_vec(), info.end_row.to_vec());
            if !t.enabled {
                region.state = RegionState::Closed;
            }
            ops.push(Op::put(
                layout.region(&region_name(&name, seq_of(seq)?)),
                region.encode(),
            ));
        }
    }
    for chunk in ops.chunks(256) {
        kv.txn(Txn {
            compares: Vec::new(),
            success: chunk.to_vec(),
        })
        .map_err(|e| format!("the coordination store: {e}"))?;
    }
    Ok(())
}

/// A region's sequence number in its new name.
fn seq_of(i: usize) -> Result<u32, String> {
    u32::try_from(i).map_err(|_| "too many regions in one table".to_string())
}

/// Step 3: renames each serving region's directory to its new storage id, on every volume.
fn rename_region_dirs(server: &ServerConfig, catalog: &OldCatalog) -> Result<(), String> {
    let volumes = volumes(server)?;
    for t in &catalog.tables {
        let name = t.descriptor.name.to_string();
        let table_dir = server
            .table_dir(&t.descriptor.name)
            .strip_prefix(&server.data_dir)
            .map(Path::to_path_buf)
            .map_err(|e| e.to_string())?;
        for (seq, info) in t.regions.iter().enumerate() {
            let (_, new_id) = crate::names::region_id(&region_name(&name, seq_of(seq)?))
                .ok_or_else(|| format!("table name {name} makes no region name"))?;
            let from = table_dir.join(region_dir_name(info.region_id));
            let to = table_dir.join(region_dir_name(new_id));
            for volume in volumes.all() {
                rename_on(
                    volumes.files_of(volume.kind).as_ref(),
                    &volumes.dir(volume.kind, &from),
                    &volumes.dir(volume.kind, &to),
                )?;
            }
        }
    }
    Ok(())
}

/// Renames `from` to `to` unless that was done already (or `from` never existed here).
fn rename_on(files: &dyn FileStore, from: &Path, to: &Path) -> Result<(), String> {
    let err = |p: &Path, e: io::Error| format!("{}: {e}", files.url(p));
    let from_exists = files.exists(from).map_err(|e| err(from, e))?;
    if !from_exists {
        return Ok(());
    }
    if files.exists(to).map_err(|e| err(to, e))? {
        return Err(format!(
            "both {} and {} exist: the upgrade cannot tell which holds the region",
            files.url(from),
            files.url(to)
        ));
    }
    files.rename(from, to).map_err(|e| err(to, e))?;
    if let Some(parent) = to.parent() {
        files.sync_dir(parent).map_err(|e| err(parent, e))?;
    }
    Ok(())
}

/// The volumes region directories are on, as the region server places them.
fn volumes(server: &ServerConfig) -> Result<Volumes, String> {
    let mut volumes = Volumes::new(
        &server.data_dir,
        server.data_dir_type,
        server.volumes.clone(),
    )?
    .with_files(server.storage.files.clone());
    if let Some((volume, files)) = &server.cold_volume {
        volumes = volumes.with_remote(volume.clone(), files.clone())?;
    }
    Ok(volumes)
}

/// Step 4's end: the catalog's directory and the upgrade's marker go (in this order: a start
/// that finds the marker with a coordination store finishes the job).
fn clean_up(files: &dyn FileStore, root: &Path) -> Result<(), String> {
    for dir in ["catalog", "upgrade"] {
        let path = root.join(dir);
        match files.remove_dir_all(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("{}: {e}", files.url(&path))),
        }
    }
    Ok(())
}
