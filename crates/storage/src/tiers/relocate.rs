//! Moving a directory's files to another volume while nothing has them open (the WAL, when
//! its storage policy changed between runs).

use std::io::{self, Write};
use std::path::Path;

use crate::vfs::{FileStore, FileWriter};

/// Moves every file of `from` into `to` (created if missing), then removes `from`. Returns how
/// many files moved. Crash-safe: a file is removed from `from` only once its copy in `to` is
/// complete, synced and named ([`copy_synced`]), and a name already present in `to` with the
/// same length is such a copy (an earlier run stopped after the rename), so the source is just
/// removed.
///
/// Requires: no process has the files open.
///
/// # Errors
/// Listing, copying, syncing or removing failed; files not yet moved stay in `from`.
pub fn relocate_dir(files: &dyn FileStore, from: &Path, to: &Path) -> io::Result<usize> {
    let entries = match files.list(from) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    files.create_dir_all(to)?;
    let mut moved = 0;
    for entry in entries {
        if entry.is_dir {
            continue;
        }
        let source = from.join(&entry.name);
        let target = to.join(&entry.name);
        let copied = files.len(&target)? == Some(entry.len);
        if !copied {
            copy_synced(files, &source, &target)?;
        }
        files.remove_file(&source)?;
        moved += 1;
    }
    files.remove_dir_all(from)?;
    if let Some(parent) = from.parent().filter(|p| !p.as_os_str().is_empty()) {
        files.sync_dir(parent)?;
    }
    Ok(moved)
}

/// Copies `source` to `target` durably: into `target` + `.tmp`, synced, renamed, and the
/// directory synced; so `target` exists only complete. On error the temporary file is gone.
///
/// # Errors
/// Copying, syncing or renaming failed.
pub(crate) fn copy_synced(files: &dyn FileStore, source: &Path, target: &Path) -> io::Result<()> {
    copy_between(files, source, files, target)
}

/// As [`copy_synced`], from `source` in the store `from` to `target` in the store `to` (a
/// local volume to a bucket).
///
/// # Errors
/// Reading, writing, syncing or renaming failed.
pub(crate) fn copy_between(
    from: &dyn FileStore,
    source: &Path,
    to: &dyn FileStore,
    target: &Path,
) -> io::Result<()> {
    let mut tmp = target.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    let done = (|| {
        let src = from.open(source)?;
        let len = src.size()?;
        let mut out = to.create(&tmp)?;
        let mut at = 0u64;
        while at < len {
            let n = (len - at).min(4 << 20) as usize;
            out.write_all(&src.read_at(at, n)?)?;
            at += n as u64;
        }
        out.sync()?;
        FileWriter::close(out)?;
        to.rename(&tmp, target)
    })();
    if let Err(e) = done {
        let _ = to.remove_file(&tmp);
        return Err(e);
    }
    match target.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(dir) => to.sync_dir(dir),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

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
        assert_eq!(relocate_dir(&crate::vfs::Local, &from, &to).unwrap(), 2);
        assert!(!from.exists());
        assert_eq!(fs::read(to.join("1.log")).unwrap(), b"one");
        assert_eq!(fs::read(to.join("2.log")).unwrap(), b"two-two");
        assert_eq!(fs::read_dir(&to).unwrap().count(), 2);
        // Nothing to move is fine.
        assert_eq!(relocate_dir(&crate::vfs::Local, &from, &to).unwrap(), 0);
    }
}
