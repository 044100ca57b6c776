//! [`LogFencer`]: the master's [`WalFencer`] on the shared log store. Fencing moves the dead
//! server's WAL directory away (one rename) and recovers the lease of every file in it (HDFS
//! `recover_lease`), so the server can never append again, nor start a new log; splitting writes its edits out per region
//! ([`crate::recovered::split_wal`]). Both can take seconds on HDFS, longer than a master may
//! block its tick (its own lease must be renewed), so each runs on a thread of its own and
//! the master is answered "pending" until it finishes.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;
use strata_cluster::lease::Millis;
use strata_cluster::wal::{Fence, ParentFiles, WalError, WalFencer};
use strata_storage::tiers::archive;
use strata_storage::vfs::Storage;

use crate::names::{recovered_dir, region_id, splitting_dir, wal_dir};
use crate::recovered::{at_once, split_wal};

#[derive(Clone, Debug, PartialEq, Eq)]
enum Job {
    Running,
    Done,
    /// Finished without doing anything (a split parent still referenced): reported once.
    NotYet,
    Failed(String),
}

/// Fences and splits dead region servers' WALs under a shared root.
#[derive(Clone)]
pub struct LogFencer {
    storage: Storage,
    root: PathBuf,
    /// Local volumes beside the root (a one-process Strata's `--volume`s): a dropped table's,
    /// a removed split parent's and a rolled-back daughter's directories are deleted on each
    /// too.
    volumes: Vec<PathBuf>,
    /// Jobs by (`fence` | `split`, server).
    jobs: Arc<Mutex<HashMap<(&'static str, String), Job>>>,
}

impl LogFencer {
    /// A fencer for the WALs under `root` in `storage`.
    pub fn new(storage: Storage, root: PathBuf) -> LogFencer {
        LogFencer {
            storage,
            root,
            volumes: Vec::new(),
            jobs: Arc::default(),
        }
    }

    /// The same fencer, deleting dropped tables' directories on the local `volumes` too.
    #[must_use]
    pub fn with_volumes(mut self, volumes: Vec<PathBuf>) -> LogFencer {
        self.volumes = volumes;
        self
    }

    /// Runs `work` on its own thread once per (kind, server) until it succeeds; answers
    /// whether it is done, and a failure once (the next call starts it again).
    fn run(
        &self,
        kind: &'static str,
        server: &str,
        work: impl FnOnce(Storage, PathBuf, String) -> Result<(), String> + Send + 'static,
    ) -> Result<bool, WalError> {
        self.run_job(kind, server, move |storage, root, server| {
            work(storage, root, server).map(|()| true)
        })
        .map(|job| job == Some(true))
    }

    /// As [`LogFencer::run`] for work that may finish without doing anything (`Ok(false)`):
    /// answers `None` while it runs, then `Some(done)` once (a `Some(false)` is forgotten, so
    /// the next call starts the work again).
    fn run_job(
        &self,
        kind: &'static str,
        server: &str,
        work: impl FnOnce(Storage, PathBuf, String) -> Result<bool, String> + Send + 'static,
    ) -> Result<Option<bool>, WalError> {
        let key = (kind, server.to_string());
        let mut guard = self.jobs.lock();
        let jobs = &mut *guard;
        match jobs.get(&key).cloned() {
            Some(Job::Done) => return Ok(Some(true)),
            Some(Job::Running) => return Ok(None),
            Some(Job::NotYet) => {
                jobs.remove(&key);
                return Ok(Some(false));
            }
            Some(Job::Failed(why)) => {
                jobs.remove(&key);
                return Err(WalError(why));
            }
            None => {}
        }
        jobs.insert(key.clone(), Job::Running);
        let retry_key = key.clone();
        drop(guard);
        let (storage, root, jobs) = (self.storage.clone(), self.root.clone(), self.jobs.clone());
        let server = server.to_string();
        let spawned = std::thread::Builder::new()
            .name(format!("wal-{kind}"))
            .spawn(move || {
                let started = std::time::Instant::now();
                let outcome = work(storage, root, server.clone());
                match &outcome {
                    Ok(false) => {}
                    Ok(true) => tracing::info!(
                        server = %server,
                        ms = started.elapsed().as_millis() as u64,
                        "WAL {kind} done"
                    ),
                    Err(e) => tracing::warn!(server = %server, error = %e, "WAL {kind} failed"),
                }
                jobs.lock().insert(
                    key,
                    match outcome {
                        Ok(true) => Job::Done,
                        Ok(false) => Job::NotYet,
                        Err(e) => Job::Failed(e),
                    },
                );
            });
        if let Err(e) = spawned {
            self.jobs.lock().remove(&retry_key);
            return Err(WalError(format!("cannot start the WAL {kind}: {e}")));
        }
        Ok(None)
    }
}

/// The data directory of cluster region `region` under `root`, and its storage id.
fn region_dir(root: &Path, region: &str) -> Result<(PathBuf, u64), String> {
    let (table, id) = region_id(region).ok_or_else(|| format!("bad region name {region}"))?;
    let name = strata_model::schema::TableName::parse(&table).map_err(|e| e.to_string())?;
    let dir = strata_server::ServerConfig::new(root, String::new())
        .table_dir(&name)
        .join(strata_storage::region::region_dir_name(id));
    Ok((dir, id))
}

fn remove_dir(storage: &Storage, dir: &Path) -> Result<(), String> {
    match storage.files.remove_dir_all(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("delete {}: {e}", storage.files.url(dir))),
    }
}

/// Removes a region's or a table's data directory `dir` under `root`, its store files moved
/// to the archive (a snapshot may name them, RFC 0025).
fn remove_data_dir(storage: &Storage, root: &Path, dir: &Path) -> Result<(), String> {
    archive::remove_tree(storage.files.as_ref(), root, dir, true)
        .map(drop)
        .map_err(|e| format!("delete {}: {e}", storage.files.url(dir)))
}

/// Deletes the directories and recovered edits of `regions` (daughters of a split rolled
/// back: never opened). Missing directories are fine.
///
/// # Errors
/// A bad region name, or a deletion failed.
pub fn remove_region_dirs(
    storage: &Storage,
    root: &Path,
    regions: &[String],
) -> Result<(), String> {
    for region in regions {
        let (dir, id) = region_dir(root, region)?;
        remove_data_dir(storage, root, &dir)?;
        remove_dir(storage, &recovered_dir(root, id))?;
    }
    Ok(())
}

/// Deletes split parent `parent`'s directory and recovered edits if none of `daughters`
/// references its files (`Region::remove_split_parent`); answers whether it did.
///
/// # Errors
/// A bad region name, or a deletion failed.
pub fn remove_unreferenced_parent(
    storage: &Storage,
    root: &Path,
    parent: &str,
    daughters: &[String],
) -> Result<bool, String> {
    let (dir, id) = region_dir(root, parent)?;
    let dirs = daughters
        .iter()
        .map(|d| region_dir(root, d).map(|(dir, _)| dir))
        .collect::<Result<Vec<_>, _>>()?;
    let gone = !storage
        .files
        .exists(&dir)
        .map_err(|e| format!("{}: {e}", storage.files.url(&dir)))?;
    if !gone
        && !strata_storage::Region::remove_split_parent_in(
            storage.files.as_ref(),
            Some(root),
            &dir,
            id,
            &dirs,
        )
        .map_err(|e| e.to_string())?
    {
        return Ok(false);
    }
    remove_dir(storage, &recovered_dir(root, id))?;
    Ok(true)
}

/// Fences `server`'s WAL: renames its directory to the splitting directory (atomic on the
/// NameNode), then recovers the lease of every file there. A log is never created with its
/// parents ([`strata_storage::vfs::LogStore::create`]), so once the rename is done the server
/// can neither append to a log it had open (its lease is recovered below) nor start a new one
/// the fencer would miss, however long it was paused. Returns the number of logs fenced.
/// Idempotent: a rerun finds the directory moved already.
///
/// # Errors
/// The rename or listing failed, or a lease was not recovered in time.
pub fn fence_wal(storage: &Storage, root: &Path, server: &str) -> Result<usize, String> {
    let live = wal_dir(root, server);
    let moved = splitting_dir(root, server);
    match storage.logs.rename_dir(&live, &moved) {
        Ok(()) => tracing::info!(
            server = %server,
            to = %storage.logs.url(&moved),
            "WAL directory moved away for fencing"
        ),
        // Moved by an earlier attempt, or the server never wrote a log.
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        // Both exist: cannot happen (a server creates its directory once, at start), but
        // fencing every log in both still stops every writer.
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => tracing::warn!(
            server = %server,
            "WAL directory found beside its splitting directory; fencing both"
        ),
        Err(e) => return Err(format!("move {} away: {e}", storage.logs.url(&live))),
    }
    let mut open = Vec::new();
    for dir in [moved, live] {
        let files = match storage.logs.list(&dir) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(format!("list {}: {e}", storage.logs.url(&dir))),
        };
        open.extend(
            files
                .iter()
                .filter(|f| !f.is_dir)
                .map(|f| dir.join(&f.name)),
        );
    }
    // Each recovery waits for a DataNode to recover the file's last block (its next
    // heartbeat): the files' recoveries run at once, not one after another.
    let n = open.len();
    at_once(open, |path| {
        storage
            .logs
            .recover_lease(&path)
            .map(drop)
            .map_err(|e| format!("recover the lease of {}: {e}", storage.logs.url(&path)))
    })?;
    Ok(n)
}

/// Deletes the data directory of `table` under `root` and the recovered edits of its
/// `regions` (cluster names). Missing directories are fine.
///
/// # Errors
/// A bad table name, or a deletion failed.
pub fn remove_table_files(
    storage: &Storage,
    root: &Path,
    table: &str,
    regions: &[String],
) -> Result<(), String> {
    let name = strata_model::schema::TableName::parse(table).map_err(|e| e.to_string())?;
    let dir = strata_server::ServerConfig::new(root, String::new()).table_dir(&name);
    remove_data_dir(storage, root, &dir)?;
    let mut dirs = Vec::new();
    dirs.extend(
        regions
            .iter()
            .filter_map(|r| region_id(r))
            .map(|(_, id)| recovered_dir(root, id)),
    );
    for dir in dirs {
        match storage.files.remove_dir_all(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("delete {}: {e}", storage.files.url(&dir))),
        }
    }
    Ok(())
}

impl WalFencer for LogFencer {
    fn fence(&self, server: &str, _now: Millis) -> Result<Fence, WalError> {
        let done = self.run("fence", server, |storage, root, server| {
            fence_wal(&storage, &root, &server).map(|_| ())
        })?;
        Ok(if done { Fence::Done } else { Fence::Pending })
    }

    fn working(&self) -> bool {
        self.jobs.lock().values().any(|job| *job == Job::Running)
    }

    fn split(&self, server: &str) -> Result<(), WalError> {
        let done = self.run("split", server, |storage, root, server| {
            let started = std::time::Instant::now();
            split_wal(&storage, &root, &server).map(|entries| {
                tracing::info!(
                    %server,
                    entries,
                    ms = started.elapsed().as_millis() as u64,
                    "WAL entries split into recovered edits"
                );
            })
        })?;
        if done {
            Ok(())
        } else {
            Err(WalError(format!("the split of {server}'s WAL is running")))
        }
    }

    fn remove_table(&self, table: &str, regions: &[String]) -> Result<Fence, WalError> {
        let regions = regions.to_vec();
        let volumes = self.volumes.clone();
        let done = self.run("remove", table, move |storage, root, table| {
            remove_table_files(&storage, &root, &table, &regions)?;
            for volume in &volumes {
                remove_table_files(&storage, volume, &table, &[])?;
            }
            Ok(())
        })?;
        if done {
            // A table of this name created and dropped later is deleted again.
            self.jobs.lock().remove(&("remove", table.to_string()));
            Ok(Fence::Done)
        } else {
            Ok(Fence::Pending)
        }
    }

    fn remove_regions(&self, regions: &[String]) -> Result<Fence, WalError> {
        let key = regions.join(" ");
        let list = regions.to_vec();
        let volumes = self.volumes.clone();
        let done = self.run("remove-regions", &key, move |storage, root, _| {
            remove_region_dirs(&storage, &root, &list)?;
            for volume in &volumes {
                remove_region_dirs(&storage, volume, &list)?;
            }
            Ok(())
        })?;
        if done {
            self.jobs.lock().remove(&("remove-regions", key));
            Ok(Fence::Done)
        } else {
            Ok(Fence::Pending)
        }
    }

    fn remove_split_parent(
        &self,
        parent: &str,
        daughters: &[String],
    ) -> Result<ParentFiles, WalError> {
        let list = daughters.to_vec();
        let volumes = self.volumes.clone();
        let job = self.run_job("remove-parent", parent, move |storage, root, parent| {
            let removed = remove_unreferenced_parent(&storage, &root, &parent, &list)?;
            if removed {
                // No daughter reads the parent's files any more, wherever they are.
                for volume in &volumes {
                    remove_dir(&storage, &region_dir(volume, &parent)?.0)?;
                }
            }
            Ok(removed)
        })?;
        Ok(match job {
            None => ParentFiles::Pending,
            Some(false) => ParentFiles::Referenced,
            Some(true) => {
                self.jobs
                    .lock()
                    .remove(&("remove-parent", parent.to_string()));
                ParentFiles::Removed
            }
        })
    }
}
