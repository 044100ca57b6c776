//! Discarded store files kept in their volume's archive (RFC 0025).
//!
//! A process that serves snapshots never deletes a store file in place: compaction inputs,
//! open's unlisted leftovers, the tier mover's sources and the files of removed regions and
//! tables move to `<volume>/archive/<path relative to the volume>`, a rename within one store.
//! One cleaner deletes archived files that no snapshot and no clone references. A reader of a
//! snapshot's or a clone's file looks for it at its live path, then at its archive path.

use std::io;
use std::path::{Path, PathBuf};

use crate::vfs::FileStore;

/// The archive's directory under a volume's root.
pub const ARCHIVE_DIR: &str = "archive";

/// The archive path of `path` on the volume rooted at `volume_root`; `None` when `path` is
/// not under it or is already archived.
pub fn archived_path(volume_root: &Path, path: &Path) -> Option<PathBuf> {
    let rel = path.strip_prefix(volume_root).ok()?;
    if rel.starts_with(ARCHIVE_DIR) || rel.as_os_str().is_empty() {
        return None;
    }
    Some(volume_root.join(ARCHIVE_DIR).join(rel))
}

/// Discards the store file `path` of the volume rooted at `volume_root`: moved to the
/// archive when `archive`, else removed. A file already gone is fine (the call is repeated
/// after a crash).
///
/// # Errors
/// The store refused the rename or the removal.
pub fn discard(
    files: &dyn FileStore,
    volume_root: &Path,
    path: &Path,
    archive: bool,
) -> io::Result<()> {
    let result = match archived_path(volume_root, path).filter(|_| archive) {
        Some(target) => {
            if let Some(parent) = target.parent() {
                files.create_dir_all(parent)?;
            }
            files.rename(path, &target)
        }
        None => files.remove_file(path),
    };
    match result {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// Removes the directory `dir` of the volume rooted at `volume_root` and everything under
/// it, moving its store files (`*.sst`) to the archive first when `archive`; manifests and
/// other files are deleted. A missing directory is fine. Returns how many files were
/// archived.
///
/// # Errors
/// Listing, renaming or removing failed; what was not yet moved stays where it was.
pub fn remove_tree(
    files: &dyn FileStore,
    volume_root: &Path,
    dir: &Path,
    archive: bool,
) -> io::Result<usize> {
    let mut archived = 0;
    if archive {
        archived = archive_files_under(files, volume_root, dir)?;
    }
    match files.remove_dir_all(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(archived),
        Err(e) => Err(e),
        Ok(()) => Ok(archived),
    }
}

fn archive_files_under(files: &dyn FileStore, volume_root: &Path, dir: &Path) -> io::Result<usize> {
    let mut moved = 0;
    for path in files_under(files, dir)? {
        if path.extension().is_some_and(|e| e == "sst") {
            discard(files, volume_root, &path, true)?;
            moved += 1;
        }
    }
    Ok(moved)
}

/// Every file under `dir`, recursively (none if it does not exist).
///
/// # Errors
/// A listing failed.
pub fn files_under(files: &dyn FileStore, dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let entries = match files.list(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        for e in entries {
            let path = dir.join(&e.name);
            if e.is_dir {
                dirs.push(path);
            } else {
                out.push(path);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vfs::Local;

    #[test]
    fn archived_path_keeps_the_relative_path() {
        let root = Path::new("/v");
        assert_eq!(
            archived_path(root, Path::new("/v/tables/default/t/01/f/a.sst")),
            Some(PathBuf::from("/v/archive/tables/default/t/01/f/a.sst"))
        );
        assert_eq!(archived_path(root, Path::new("/w/a.sst")), None);
        assert_eq!(archived_path(root, Path::new("/v/archive/x/a.sst")), None);
    }

    #[test]
    fn remove_tree_archives_store_files_and_deletes_the_rest() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let region = root.join("tables/default/t/01");
        std::fs::create_dir_all(region.join("f")).unwrap();
        std::fs::write(region.join("f/a.sst"), b"cells").unwrap();
        std::fs::write(region.join("MANIFEST-1"), b"m").unwrap();
        assert_eq!(remove_tree(&Local, root, &region, true).unwrap(), 1);
        assert!(!region.exists());
        let kept = root.join("archive/tables/default/t/01/f/a.sst");
        assert_eq!(std::fs::read(kept).unwrap(), b"cells");
        assert_eq!(remove_tree(&Local, root, &region, true).unwrap(), 0);
    }

    #[test]
    fn discard_removes_without_the_archive_and_tolerates_a_missing_file() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let file = root.join("tables/t/01/f/a.sst");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, b"x").unwrap();
        discard(&Local, root, &file, false).unwrap();
        assert!(!file.exists());
        assert!(!root.join(ARCHIVE_DIR).exists());
        discard(&Local, root, &file, true).unwrap();
    }
}
