//! Where the WAL lives: the volume its storage policy picks (RFC 0010), and moving a previous
//! run's segments there before replay.

use std::path::{Path, PathBuf};

use strata_model::schema::StoragePolicy;
use strata_storage::tiers::{relocate_dir, StorageType, Volumes};
use strata_storage::vfs::{FileStore, Storage};
use strata_storage::{Error, Result};

use crate::config::ServerConfig;

/// The file in the data directory naming the last run's WAL: its volume's storage type on the
/// first line, its directory on the second.
const WAL_LOCATION: &str = "WAL_LOCATION";

/// The WAL's directory on the volume `policy` picks. Segments a previous run left elsewhere
/// (the policy or the volumes changed) are moved there first, so replay sees them all: from
/// the other configured volumes, and from the directory `WAL_LOCATION` names when its volume
/// is no longer configured. A previous WAL that is gone (a RAM disk after a machine restart)
/// is warned about. `WAL_LOCATION` is then updated.
///
/// A WAL of its own under a shared root (`subdir`: a cluster region server's, named after the
/// server, new at each start) has no previous run to find: neither the marker, which every
/// process on the root would rewrite at once (they raced on its temporary file), nor the
/// relocation applies.
///
/// # Errors
/// Creating the directory, moving segments or writing `WAL_LOCATION` failed.
pub(crate) fn wal_dir(
    storage: &Storage,
    volumes: &Volumes,
    policy: StoragePolicy,
    subdir: Option<&str>,
) -> Result<PathBuf> {
    let mut rel = PathBuf::from(ServerConfig::WAL_DIR);
    if let Some(sub) = subdir {
        rel.push(sub);
    }
    let rel = rel.as_path();
    if !storage.is_local() {
        // A shared store places the WAL's blocks by the policy of its directory (seed 001).
        let dir = volumes.root().join(rel);
        storage
            .logs
            .create_dir_all(&dir)
            .and_then(|()| storage.logs.set_storage_policy(&dir, policy))
            .map_err(|e| io(&dir, e))?;
        return Ok(dir);
    }
    let files = storage.files.as_ref();
    let mut kind = volumes.place(policy);
    if volumes.is_remote(kind) {
        // A bucket cannot append or sync a log: the WAL stays on the data directory.
        kind = volumes.root_kind();
    }
    let dir = volumes.dir(kind, rel);
    files.create_dir_all(&dir).map_err(|e| io(&dir, e))?;
    let dir = dir.canonicalize().map_err(|e| io(&dir, e))?;
    if subdir.is_some() {
        return Ok(dir);
    }
    files
        .create_dir_all(volumes.root())
        .map_err(|e| io(volumes.root(), e))?;
    let marker = volumes.root().join(WAL_LOCATION);
    let previous = read_marker(files, &marker);
    let mut sources: Vec<PathBuf> = volumes
        .all()
        .filter(|v| !volumes.is_remote(v.kind))
        .map(|v| v.path.join(rel))
        .filter(|p| p.canonicalize().map_or(true, |c| c != dir))
        .collect();
    if let Some((was_kind, was_dir)) = &previous {
        // A type now on a remote store (a local ARCHIVE volume replaced by a bucket) is not
        // where the previous WAL is: take it from the directory the marker names.
        let still_configured =
            was_kind.is_some_and(|k| volumes.get(k).is_some() && !volumes.is_remote(k));
        if !still_configured && *was_dir != dir {
            if files.exists(was_dir).unwrap_or(false) {
                sources.push(was_dir.clone());
            } else {
                tracing::warn!(
                    "the previous WAL directory {} is gone (a RAM disk after a restart?): \
                     writes that were not yet flushed to store files are lost",
                    was_dir.display()
                );
            }
        }
    }
    for old in sources {
        relocate_dir(files, &old, &dir).map_err(|e| io(&old, e))?;
    }
    if previous != Some((Some(kind), dir.clone())) {
        let text = format!("{kind}\n{}\n", dir.display());
        files
            .write_atomic(&marker, text.as_bytes())
            .map_err(|e| io(&marker, e))?;
    }
    if kind == StorageType::RamDisk {
        tracing::warn!(
            "the WAL is on a RAM_DISK volume ({}): acknowledged writes survive a process \
             crash but not a machine restart",
            dir.display()
        );
    }
    Ok(dir)
}

/// The last run's WAL: (storage type if recorded, directory).
fn read_marker(files: &dyn FileStore, marker: &Path) -> Option<(Option<StorageType>, PathBuf)> {
    let text = String::from_utf8(files.read(marker).ok()?).ok()?;
    let mut lines = text.lines();
    let first = lines.next()?;
    Some(match lines.next() {
        Some(path) => (StorageType::parse(first), PathBuf::from(path)),
        None => (None, PathBuf::from(first)),
    })
}

fn io(path: &Path, e: std::io::Error) -> Error {
    Error::Io {
        path: path.display().to_string(),
        source: e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_storage::tiers::Volume;

    #[test]
    fn a_moved_data_directory_is_not_a_lost_wal() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        let first = Volumes::new(&a, StorageType::Hdd, Vec::new()).unwrap();
        let wal = wal_dir(&Storage::local(), &first, StoragePolicy::Hot, None).unwrap();
        std::fs::write(wal.join("segment"), b"x").unwrap();
        // The whole data directory moves; its WAL moves with it.
        std::fs::rename(&a, &b).unwrap();
        let second = Volumes::new(&b, StorageType::Hdd, Vec::new()).unwrap();
        let wal = wal_dir(&Storage::local(), &second, StoragePolicy::Hot, None).unwrap();
        assert_eq!(std::fs::read(wal.join("segment")).unwrap(), b"x");
        let marker = std::fs::read_to_string(b.join(WAL_LOCATION)).unwrap();
        assert!(
            marker.starts_with("HDD\n") && marker.contains("/b/wal"),
            "{marker}"
        );
    }

    #[test]
    fn servers_sharing_a_root_start_at_once_without_touching_the_marker() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        // As separate processes on one root: volumes of their own.
        let starts: Vec<_> = (0..8)
            .map(|i| {
                let root = root.clone();
                std::thread::spawn(move || {
                    let volumes = Volumes::new(&root, StorageType::Hdd, Vec::new()).unwrap();
                    let sub = format!("h,{i},1");
                    wal_dir(&Storage::local(), &volumes, StoragePolicy::Hot, Some(&sub))
                })
            })
            .collect();
        for (i, start) in starts.into_iter().enumerate() {
            let dir = start.join().unwrap().unwrap();
            assert!(dir.ends_with(format!("wal/h,{i},1")), "{dir:?}");
        }
        assert!(!root.join(WAL_LOCATION).exists());
    }

    #[test]
    fn a_wal_on_a_volume_no_longer_configured_is_moved() {
        let tmp = tempfile::tempdir().unwrap();
        let (data, ram) = (tmp.path().join("data"), tmp.path().join("ram"));
        let ram_volume = Volume {
            kind: StorageType::RamDisk,
            path: ram.clone(),
        };
        let first = Volumes::new(&data, StorageType::Hdd, vec![ram_volume]).unwrap();
        let wal = wal_dir(&Storage::local(), &first, StoragePolicy::LazyPersist, None).unwrap();
        assert!(wal.starts_with(ram.canonicalize().unwrap()));
        std::fs::write(wal.join("segment"), b"y").unwrap();
        let second = Volumes::new(&data, StorageType::Hdd, Vec::new()).unwrap();
        let wal = wal_dir(&Storage::local(), &second, StoragePolicy::Hot, None).unwrap();
        assert_eq!(std::fs::read(wal.join("segment")).unwrap(), b"y");
        assert!(!ram.join("wal").exists());
    }

    #[test]
    fn the_wal_never_goes_to_a_remote_archive_and_leaves_a_replaced_local_one() {
        let tmp = tempfile::tempdir().unwrap();
        let (data, archive, bucket) = (
            tmp.path().join("data"),
            tmp.path().join("archive"),
            tmp.path().join("bucket"),
        );
        let local_archive = Volume {
            kind: StorageType::Archive,
            path: archive.clone(),
        };
        let first = Volumes::new(&data, StorageType::Hdd, vec![local_archive]).unwrap();
        let wal = wal_dir(&Storage::local(), &first, StoragePolicy::Cold, None).unwrap();
        assert!(wal.starts_with(archive.canonicalize().unwrap()));
        std::fs::write(wal.join("segment"), b"z").unwrap();
        // The ARCHIVE tier becomes a bucket (here a second store on local files): the WAL
        // stays on the data directory and the previous one is moved there.
        let remote: std::sync::Arc<dyn strata_storage::vfs::FileStore> =
            std::sync::Arc::new(strata_storage::vfs::Local);
        let bucket_volume = Volume {
            kind: StorageType::Archive,
            path: bucket.clone(),
        };
        let second = Volumes::new(&data, StorageType::Hdd, Vec::new())
            .unwrap()
            .with_remote(bucket_volume, remote)
            .unwrap();
        let wal = wal_dir(&Storage::local(), &second, StoragePolicy::Cold, None).unwrap();
        assert!(wal.starts_with(data.canonicalize().unwrap()), "{wal:?}");
        assert_eq!(std::fs::read(wal.join("segment")).unwrap(), b"z");
        assert!(!archive.join("wal").exists());
        assert!(!bucket.exists());
    }
}
