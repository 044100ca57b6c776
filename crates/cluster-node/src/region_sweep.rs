//! The region-directory sweep, the file side of HBase's `CatalogJanitor`: deletes region
//! directories under `tables/` that no region record and no procedure names, on every store a
//! region's files may live on (the shared root and the cold bucket of `--cold-root`).
//!
//! The procedures delete what they retire on the root (a dropped or truncated table's
//! directory, a split or merge parent once no daughter references its files, the daughters of
//! a split rolled back); their records go only after that. What they cannot reach is left
//! here: the parent's and the dropped table's files in the bucket (only the tier mover writes
//! there), and a daughter written by a stalled server after its split rolled back. So a
//! region's directory without a record is garbage: a split parent's record is deleted only
//! once neither daughter references it, a dropped table's regions' records only after its
//! files were deleted on the root.
//!
//! Safety, as [`crate::janitor`]'s: the sweep lists the stores *first*, then reads the
//! procedures, *then* the region records. A region's directory is created either by an open
//! (the region had a record then) or by a split or merge on the server (the daughters or the
//! merged region are named by the procedure, which exists from before the order until the
//! transaction that creates their records or rolls them back). So a directory listed before
//! the reads belongs to a region whose record the read returns, to a region a procedure read
//! before the records still names (both kept), or to a region whose record was deleted or
//! never committed (nothing opens it again: its name is never used again). Tables in a table
//! procedure (create, drop, truncate, …) are left to it and skipped. A procedure that cannot be
//! decoded stops the sweep before any deletion. Deleting is idempotent, so every master may
//! run the sweep at once.
//!
//! A place is one cluster's: the first sweep that finds region directories there writes
//! [`CLUSTER_MARKER`] naming its cluster (the layout's etcd prefix), and a sweep finding
//! another cluster's name there deletes nothing and says so. Two clusters given one root or
//! one cold bucket by mistake would otherwise each delete the other's regions, none of which
//! has a record in its own etcd prefix. (Two such clusters whose first sweeps run at the same
//! instant can both write the marker; the second writer's sweep goes on. Configuration, not
//! the protocol, has to keep roots apart.)

use std::collections::BTreeSet;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use strata_cluster::kv::{range_all, Kv};
use strata_cluster::layout::Layout;
use strata_cluster::record::Procedure;
use strata_model::schema::TableName;
use strata_storage::vfs::FileStore;

use crate::janitor::{live_region_ids, Swept};
use crate::names::region_id;

/// A store region directories may be in, and the path its `tables/` is under.
#[derive(Clone)]
pub struct Place {
    /// The store.
    pub files: Arc<dyn FileStore>,
    /// The root of the data directory (or the cold volume) in it.
    pub root: PathBuf,
}

/// The file, at a place's root, naming the cluster whose regions the place holds.
pub const CLUSTER_MARKER: &str = "CLUSTER";

/// Checks that `place` holds this cluster's regions: its marker names `layout`'s prefix, or
/// it has none yet (then it is written).
fn check_owner(place: &Place, layout: &Layout) -> Result<(), String> {
    let path = place.root.join(CLUSTER_MARKER);
    let me = layout.root().as_bytes();
    match place.files.read(&path) {
        Ok(owner) if owner == me => Ok(()),
        Ok(owner) => Err(format!(
            "{} names cluster {}, not this one ({}): its region directories are not deleted \
             (give each cluster a root and a cold root of its own)",
            place.files.url(&path),
            String::from_utf8_lossy(&owner),
            layout.root()
        )),
        Err(e) if e.kind() == io::ErrorKind::NotFound => write_marker(place, &path, me)
            .map_err(|e| format!("write {}: {e}", place.files.url(&path))),
        Err(e) => Err(format!("read {}: {e}", place.files.url(&path))),
    }
}

/// Writes the marker through a temporary file of this process's own: every master runs the
/// sweep, and two that find no marker at the same moment must not write the same temporary
/// file (on HDFS the second `create` takes the file from the first, and each then fails).
/// Both write the same bytes, so whichever rename lands last leaves the right marker.
fn write_marker(place: &Place, path: &Path, me: &[u8]) -> io::Result<()> {
    static WRITES: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    // Process id, a count within it and the clock's nanoseconds: distinct between processes
    // of one host and, short of a coincidence of all three, of different hosts.
    let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let tmp = path.with_file_name(format!(
        "{CLUSTER_MARKER}.{}-{n}-{nanos}.tmp",
        std::process::id()
    ));
    let files = place.files.as_ref();
    let written = files.write_atomic_through(path, &tmp, me);
    if written.is_err() {
        // Another master's marker may have landed meanwhile: it names the same cluster.
        if files.read(path).is_ok_and(|owner| owner == me) {
            return Ok(());
        }
    }
    written
}

/// A region directory found by the listing.
struct Found {
    place: usize,
    dir: PathBuf,
    table: TableDir,
    id: u64,
}

/// The subdirectories of `dir` (none if it does not exist).
fn dirs(files: &dyn FileStore, dir: &Path) -> Result<Vec<String>, String> {
    match files.list(dir) {
        Ok(entries) => Ok(entries
            .into_iter()
            .filter(|e| e.is_dir)
            .map(|e| e.name)
            .collect()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(format!("list {}: {e}", files.url(dir))),
    }
}

/// Every `tables/<namespace>/<table>/<16 hex digits>` directory of every place.
fn list(places: &[Place]) -> Result<Vec<Found>, String> {
    let mut found = Vec::new();
    for (i, place) in places.iter().enumerate() {
        let files = place.files.as_ref();
        let tables = place.root.join("tables");
        for ns in dirs(files, &tables)? {
            for table in dirs(files, &tables.join(&ns))? {
                let table_dir = tables.join(&ns).join(&table);
                for region in dirs(files, &table_dir)? {
                    // Names the sweep did not write are not its business.
                    let Ok(id) = u64::from_str_radix(&region, 16) else {
                        continue;
                    };
                    if region.len() != 16 {
                        continue;
                    }
                    found.push(Found {
                        place: i,
                        dir: table_dir.join(&region),
                        table: (ns.clone(), table.clone()),
                        id,
                    });
                }
            }
        }
    }
    Ok(found)
}

/// A table's `(namespace, qualifier)`: its directory under `tables/`.
type TableDir = (String, String);

/// `(namespace, qualifier)` of a table name as region names spell it.
fn table_key(table: &str) -> Option<TableDir> {
    let name = TableName::parse(table).ok()?;
    Some((name.namespace().to_string(), name.qualifier().to_string()))
}

/// The regions procedures name (by storage id) and the tables in a table procedure.
fn in_procedures<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
) -> Result<(BTreeSet<u64>, BTreeSet<TableDir>), String> {
    let page =
        range_all(kv, &layout.procs(), 1000).map_err(|e| format!("read the procedures: {e}"))?;
    let (mut regions, mut tables) = (Vec::new(), Vec::new());
    for item in &page.kvs {
        let proc = Procedure::decode(&item.value)
            .map_err(|e| format!("procedure {}: {e}; nothing deleted", item.key))?;
        match proc {
            Procedure::Transit { region, .. } => regions.push(region),
            Procedure::Split {
                region, daughters, ..
            } => regions.extend([region, daughters.0, daughters.1]),
            Procedure::Merge {
                regions: (low, high),
                merged,
                ..
            } => regions.extend([low, high, merged]),
            Procedure::ServerCrash { .. } => {}
            Procedure::CreateTable { table, .. }
            | Procedure::DropTable { table, .. }
            | Procedure::DisableTable { table }
            | Procedure::EnableTable { table }
            | Procedure::ReopenTable { table, .. }
            | Procedure::TruncateTable { table, .. } => tables.push(table),
        }
    }
    let ids = regions
        .iter()
        .filter_map(|r| region_id(r))
        .map(|(_, id)| id)
        .collect();
    let tables = tables.iter().filter_map(|t| table_key(t)).collect();
    Ok((ids, tables))
}

/// Deletes the region directories of `places` that no region record and no procedure
/// names (see the module's safety argument).
///
/// # Errors
/// Listing a store or reading etcd failed, or a procedure could not be decoded (nothing was
/// deleted then), or a deletion failed.
pub fn sweep_region_dirs<K: Kv + ?Sized>(
    places: &[Place],
    kv: &K,
    layout: &Layout,
) -> Result<Swept, String> {
    // Listed first: see the module's safety argument.
    let found = list(places)?;
    if found.is_empty() {
        return Ok(Swept::default());
    }
    let mut checked = BTreeSet::new();
    for f in &found {
        if checked.insert(f.place) {
            check_owner(&places[f.place], layout)?;
        }
    }
    let (named, busy_tables) = in_procedures(kv, layout)?;
    let live = live_region_ids(kv, layout)?;
    let mut swept = Swept::default();
    for f in found {
        if live.contains(&f.id) || named.contains(&f.id) || busy_tables.contains(&f.table) {
            swept.kept += 1;
            continue;
        }
        let place = &places[f.place];
        let files = place.files.as_ref();
        // Store files go to the archive: a snapshot may name them (RFC 0025).
        strata_storage::tiers::archive::remove_tree(files, &place.root, &f.dir, true)
            .map_err(|e| format!("delete {}: {e}", files.url(&f.dir)))?;
        tracing::info!(
            dir = %files.url(&f.dir),
            "deleted the directory of a region that no longer exists"
        );
        swept.removed += 1;
    }
    Ok(swept)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::rc::Rc;

    use strata_cluster::kv::{Op, Txn};
    use strata_cluster::mem::{MemKv, MemStore, Perfect};
    use strata_cluster::record::SplitStep;
    use strata_storage::vfs::Local;

    use super::*;

    fn put(kv: &MemKv, key: String, value: Vec<u8>) {
        kv.txn(Txn {
            compares: Vec::new(),
            success: vec![Op::put(key, value)],
        })
        .unwrap();
    }

    fn dir(root: &Path, region: &str) -> PathBuf {
        let (table, id) = region_id(region).unwrap();
        strata_server::ServerConfig::new(root, String::new())
            .table_dir(&TableName::parse(&table).unwrap())
            .join(strata_storage::region::region_dir_name(id))
    }

    fn make(root: &Path, region: &str) -> PathBuf {
        let d = dir(root, region).join("f");
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("1.sst"), b"x").unwrap();
        dir(root, region)
    }

    #[test]
    fn only_directories_nothing_names_are_deleted_on_every_place() {
        let (hot, cold) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let files: Arc<dyn FileStore> = Arc::new(Local);
        let places = [
            Place {
                files: files.clone(),
                root: hot.path().to_owned(),
            },
            Place {
                files,
                root: cold.path().join("prefix"),
            },
        ];
        let kv = MemKv::new(MemStore::new(1), Rc::new(Perfect));
        let layout = Layout::new("c");
        assert_eq!(
            sweep_region_dirs(&places, &kv, &layout).unwrap(),
            Swept::default()
        );
        let (live, parent, daughter, dropped, busy) = (
            "t,1a-3.00000000",
            "t,1a-3.00000001",
            "t,1a-3.00000002",
            "gone,19-1.00000000",
            "ns:b,1b-1.00000000",
        );
        put(&kv, layout.region(live), b"region1 open".to_vec());
        // A split of `live` whose daughter's directory is written, not yet committed.
        let split = Procedure::Split {
            region: live.into(),
            daughters: (daughter.into(), "t,1a-3.00000003".into()),
            row: None,
            server: "s:1:1".into(),
            epoch: 1,
            step: SplitStep::Await,
        };
        put(&kv, layout.proc("p1"), split.encode());
        let drop = Procedure::DropTable {
            table: "ns:b".into(),
            step: strata_cluster::record::DropStep::Files,
        };
        put(&kv, layout.proc("p2"), drop.encode());
        let kept = [
            make(places[0].root.as_path(), live),
            make(places[1].root.as_path(), live),
            make(places[0].root.as_path(), daughter),
            make(places[1].root.as_path(), busy),
        ];
        let removed = [
            make(places[0].root.as_path(), parent),
            make(places[1].root.as_path(), parent),
            make(places[1].root.as_path(), dropped),
        ];
        let odd = places[0].root.join("tables/default/t/not-a-region");
        std::fs::create_dir_all(&odd).unwrap();
        let swept = sweep_region_dirs(&places, &kv, &layout).unwrap();
        assert_eq!(
            swept,
            Swept {
                kept: 4,
                removed: 3
            }
        );
        for d in &kept {
            assert!(d.exists(), "{}", d.display());
        }
        for d in &removed {
            assert!(!d.exists(), "{}", d.display());
        }
        assert!(odd.exists());
        for place in &places {
            let marker = std::fs::read(place.root.join(CLUSTER_MARKER)).unwrap();
            assert_eq!(marker, b"c/");
        }
        // Idempotent.
        assert_eq!(sweep_region_dirs(&places, &kv, &layout).unwrap().removed, 0);
        // Each place now names this cluster; another cluster's sweep there deletes nothing.
        let orphan = make(places[0].root.as_path(), "t,1a-3.00000009");
        let other = Layout::new("other");
        let refused = sweep_region_dirs(&places, &kv, &other).unwrap_err();
        assert!(refused.contains("names cluster c/"), "{refused}");
        assert!(orphan.exists());
        // A procedure it cannot read stops it before any deletion.
        put(&kv, layout.proc("p3"), b"proc9 what".to_vec());
        assert!(sweep_region_dirs(&places, &kv, &layout).is_err());
        assert!(orphan.exists());
    }
}

#[cfg(test)]
mod marker_race {
    use std::sync::{Arc, Barrier};

    use strata_cluster::layout::Layout;
    use strata_storage::vfs::{FileStore, Local};

    use super::{check_owner, Place, CLUSTER_MARKER};

    #[test]
    fn two_masters_writing_the_first_marker_at_once_both_succeed() {
        let dir = tempfile::tempdir().unwrap();
        let place = Place {
            files: Arc::new(Local) as Arc<dyn FileStore>,
            root: dir.path().to_path_buf(),
        };
        let layout = Layout::new("c");
        for _ in 0..30 {
            let _ = std::fs::remove_file(dir.path().join(CLUSTER_MARKER));
            let barrier = Arc::new(Barrier::new(2));
            let racers: Vec<_> = (0..2)
                .map(|_| {
                    let (place, layout, barrier) = (place.clone(), layout.clone(), barrier.clone());
                    std::thread::spawn(move || {
                        barrier.wait();
                        check_owner(&place, &layout)
                    })
                })
                .collect();
            for r in racers {
                r.join().unwrap().unwrap();
            }
            let marker = std::fs::read(dir.path().join(CLUSTER_MARKER)).unwrap();
            assert_eq!(marker, layout.root().as_bytes());
        }
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|n| n.to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }
}
