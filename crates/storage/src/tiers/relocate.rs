//! Moving a directory's files to another volume while nothing has them open (the WAL, when
//! its storage policy changed between runs).

use std::fs::{self, File};
use std::io;
use std::path::Path;

/// Moves every file of `from` into `to` (created if missing), then removes `from`. Returns how
/// many files moved. Crash-safe: a file is removed from `from` only once its copy in `to` is
/// complete, synced and named ([`copy_synced`]), and a name already present in `to` with the same length is such
/// a copy (an earlier run stopped after the rename), so the source is just removed.
///
/// Requires: no process has the files open.
///
/// # Errors
/// Listing, copying, syncing or removing failed; files not yet moved stay in `from`.
pub fn relocate_dir(from: &Path, to: &Path) -> io::Result<usize> {
    let entries = match fs::read_dir(from) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    super::ensure_dir(to)?;
    let mut moved = 0;
    for entry in entries {
        let entry = entry?;
        if !entry.file_type()?.is_file() {
            continue;
        }
        let name = entry.file_name();
        let source = entry.path();
        let target = to.join(&name);
        let len = entry.metadata()?.len();
        let copied = fs::metadata(&target).is_ok_and(|m| m.len() == len);
        if !copied {
            copy_synced(&source, &target)?;
        }
        fs::remove_file(&source)?;
        moved += 1;
    }
    fs::remove_dir(from)?;
    if let Some(parent) = from.parent().filter(|p| !p.as_os_str().is_empty()) {
        File::open(parent)?.sync_all()?;
    }
    Ok(moved)
}

/// Copies `source` to `target` durably: into `target` + `.tmp`, synced, renamed, and the
/// directory synced; so `target` exists only complete. On error the temporary file is gone.
///
/// # Errors
/// Copying, syncing or renaming failed.
pub(crate) fn copy_synced(source: &Path, target: &Path) -> io::Result<()> {
    let mut tmp = target.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    let done = fs::copy(source, &tmp)
        .and_then(|_| File::open(&tmp)?.sync_all())
        .and_then(|()| fs::rename(&tmp, target));
    if let Err(e) = done {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    match target.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(dir) => File::open(dir)?.sync_all(),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_files_and_finishes_an_interrupted_move() {
        let root = tempfile::tempdir().unwrap();
        let from = root.path().join("a/wal");
        let to = root.path().join("b/wal");
        fs::create_dir_all(&from).unwrap();
        fs::write(from.join("1.log"), b"one").unwrap();
        fs::write(from.join("2.log"), b"two-two").unwrap();
        // An earlier run copied 1.log completely and stopped before removing the source; a
        // stale partial copy of 2.log (a different length) is replaced.
        fs::create_dir_all(&to).unwrap();
        fs::write(to.join("1.log"), b"one").unwrap();
        fs::write(to.join("2.log"), b"tw").unwrap();
        assert_eq!(relocate_dir(&from, &to).unwrap(), 2);
        assert!(!from.exists());
        assert_eq!(fs::read(to.join("1.log")).unwrap(), b"one");
        assert_eq!(fs::read(to.join("2.log")).unwrap(), b"two-two");
        assert_eq!(fs::read_dir(&to).unwrap().count(), 2);
        // Nothing to move is fine.
        assert_eq!(relocate_dir(&from, &to).unwrap(), 0);
    }
}
