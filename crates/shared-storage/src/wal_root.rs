//! A WAL kept apart from the rest of the root (`--root s3://… --wal-root DIR`): the engine
//! puts its WAL under the root path, and [`Rebased`] moves every log path under that root to
//! the same place under the WAL root, in the WAL root's own log store (local files or HDFS).

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use strata_storage::vfs::{DirEntry, LogFile, LogStore, Source, StoragePolicy};

/// A log store whose paths under `from` live under `to` in `inner`.
pub struct Rebased {
    inner: Arc<dyn LogStore>,
    from: PathBuf,
    to: PathBuf,
}

impl Rebased {
    /// Logs under `from` kept under `to` in `inner`.
    pub fn new(
        inner: Arc<dyn LogStore>,
        from: impl Into<PathBuf>,
        to: impl Into<PathBuf>,
    ) -> Rebased {
        Rebased {
            inner,
            from: from.into(),
            to: to.into(),
        }
    }

    fn map(&self, path: &Path) -> PathBuf {
        match path.strip_prefix(&self.from) {
            Ok(rest) if rest.as_os_str().is_empty() => self.to.clone(),
            Ok(rest) => self.to.join(rest),
            Err(_) => path.to_owned(),
        }
    }
}

impl LogStore for Rebased {
    fn url(&self, path: &Path) -> String {
        self.inner.url(&self.map(path))
    }

    fn quick_appends(&self) -> bool {
        self.inner.quick_appends()
    }

    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        self.inner.create_dir_all(&self.map(dir))
    }

    fn create(&self, path: &Path) -> io::Result<Box<dyn LogFile>> {
        self.inner.create(&self.map(path))
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        self.inner.list(&self.map(dir))
    }

    fn open(&self, path: &Path) -> io::Result<Arc<dyn Source>> {
        self.inner.open(&self.map(path))
    }

    fn cut(&self, path: &Path, len: u64) -> io::Result<()> {
        self.inner.cut(&self.map(path), len)
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        self.inner.remove(&self.map(path))
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        self.inner.sync_dir(&self.map(dir))
    }

    fn rename_dir(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.inner.rename_dir(&self.map(from), &self.map(to))
    }

    fn recover_lease(&self, path: &Path) -> io::Result<bool> {
        self.inner.recover_lease(&self.map(path))
    }

    fn reclaim(&self, path: &Path) -> io::Result<bool> {
        self.inner.reclaim(&self.map(path))
    }

    fn set_storage_policy(&self, dir: &Path, policy: StoragePolicy) -> io::Result<()> {
        self.inner.set_storage_policy(&self.map(dir), policy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_storage::vfs::Local;

    #[test]
    fn logs_under_the_root_live_under_the_wal_root() {
        let tmp = tempfile::tempdir().unwrap();
        let logs = Rebased::new(Arc::new(Local), "/bucket-prefix", tmp.path());
        let dir = Path::new("/bucket-prefix/wal");
        logs.create_dir_all(dir).unwrap();
        let mut log = logs.create(&dir.join("1.log")).unwrap();
        log.append(b"abc").unwrap();
        log.sync().unwrap();
        assert_eq!(std::fs::read(tmp.path().join("wal/1.log")).unwrap(), b"abc");
        assert_eq!(logs.list(dir).unwrap()[0].len, 3);
        assert!(logs.url(dir).ends_with("/wal"), "{}", logs.url(dir));
    }
}
