//! A store wrapper that injects faults for tests: errors (EIO, ENOSPC, …) and latency on
//! chosen operations of the wrapped [`FileStore`] / [`LogStore`], for a number of calls or
//! until cleared. Errors are injected before the operation runs, so the wrapped store is left
//! as an operation that failed before touching anything would leave it.

use std::fmt;
use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;

use super::{DirEntry, FileStore, FileWriter, LogFile, LogStore, Source, StoragePolicy};

/// The operations a fault can hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FaultOp {
    /// Appends to a log.
    Append,
    /// Syncs (and flushes) of logs and files.
    Sync,
    /// Writes to a file being created, and file creation.
    Write,
    /// Reads of files and logs (positional and whole).
    Read,
    /// Renames, removals and directory syncs (namespace changes).
    Namespace,
}

/// What happens when a fault hits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The operation fails with this OS error number (`libc` values: 5 = EIO, 28 = ENOSPC).
    Errno(i32),
    /// The operation waits this long, then runs.
    Latency(Duration),
}

impl Fault {
    /// `EIO`.
    pub const EIO: Fault = Fault::Errno(5);
    /// `ENOSPC`: no space left on the device.
    pub const ENOSPC: Fault = Fault::Errno(28);
}

#[derive(Debug)]
struct Rule {
    op: FaultOp,
    fault: Fault,
    /// Calls left to hit; `None`: until cleared.
    left: Option<u32>,
}

#[derive(Debug, Default)]
struct Rules {
    rules: Mutex<Vec<Rule>>,
}

impl Rules {
    fn check(&self, op: FaultOp) -> io::Result<()> {
        let hit = {
            let mut rules = self.rules.lock();
            let Some(i) = rules.iter().position(|r| r.op == op) else {
                return Ok(());
            };
            let fault = rules[i].fault;
            if let Some(n) = &mut rules[i].left {
                *n -= 1;
                if *n == 0 {
                    rules.remove(i);
                }
            }
            fault
        };
        match hit {
            Fault::Errno(n) => Err(io::Error::from_raw_os_error(n)),
            Fault::Latency(d) => {
                std::thread::sleep(d);
                Ok(())
            }
        }
    }
}

/// A store whose operations fail or stall on demand.
///
/// Thread safety: as the wrapped store; rules are behind a mutex.
pub struct Faulty<S> {
    inner: S,
    rules: Arc<Rules>,
}

impl<S> fmt::Debug for Faulty<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Faulty")
            .field("rules", &self.rules)
            .finish()
    }
}

impl<S> Faulty<S> {
    /// Wraps `inner`, injecting nothing yet.
    pub fn new(inner: S) -> Faulty<S> {
        Faulty {
            inner,
            rules: Arc::default(),
        }
    }

    /// Makes the next `times` calls of `op` (all of them until [`clear`](Self::clear) when
    /// `None`) meet `fault`.
    pub fn inject(&self, op: FaultOp, fault: Fault, times: Option<u32>) {
        if times == Some(0) {
            return;
        }
        self.rules.rules.lock().push(Rule {
            op,
            fault,
            left: times,
        });
    }

    /// Removes every rule: the store works again.
    pub fn clear(&self) {
        self.rules.rules.lock().clear();
    }
}

/// A source whose reads meet the store's read faults.
struct FaultySource {
    inner: Arc<dyn Source>,
    rules: Arc<Rules>,
}

impl Source for FaultySource {
    fn read_at(&self, offset: u64, len: usize) -> io::Result<bytes::Bytes> {
        self.rules.check(FaultOp::Read)?;
        self.inner.read_at(offset, len)
    }

    fn size(&self) -> io::Result<u64> {
        self.inner.size()
    }
}

struct FaultyWriter {
    inner: Box<dyn FileWriter>,
    rules: Arc<Rules>,
}

impl Write for FaultyWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.rules.check(FaultOp::Write)?;
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl FileWriter for FaultyWriter {
    fn sync(&mut self) -> io::Result<()> {
        self.rules.check(FaultOp::Sync)?;
        self.inner.sync()
    }

    fn close(self: Box<Self>) -> io::Result<()> {
        self.inner.close()
    }
}

struct FaultyLog {
    inner: Box<dyn LogFile>,
    rules: Arc<Rules>,
}

impl LogFile for FaultyLog {
    fn append(&mut self, buf: &[u8]) -> io::Result<()> {
        self.rules.check(FaultOp::Append)?;
        self.inner.append(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.rules.check(FaultOp::Sync)?;
        self.inner.flush()
    }

    fn sync(&mut self) -> io::Result<()> {
        self.rules.check(FaultOp::Sync)?;
        self.inner.sync()
    }

    fn truncate(&mut self, len: u64) -> io::Result<()> {
        self.inner.truncate(len)
    }

    fn close(&mut self) -> io::Result<()> {
        self.inner.close()
    }
}

impl<S: FileStore> FileStore for Faulty<S> {
    fn url(&self, path: &Path) -> String {
        self.inner.url(path)
    }

    fn scheme(&self) -> &'static str {
        self.inner.scheme()
    }

    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        self.rules.check(FaultOp::Namespace)?;
        self.inner.create_dir_all(dir)
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        self.rules.check(FaultOp::Read)?;
        self.inner.list(dir)
    }

    fn len(&self, path: &Path) -> io::Result<Option<u64>> {
        self.inner.len(path)
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.rules.check(FaultOp::Read)?;
        self.inner.read(path)
    }

    fn open(&self, path: &Path) -> io::Result<Arc<dyn Source>> {
        self.rules.check(FaultOp::Read)?;
        Ok(Arc::new(FaultySource {
            inner: self.inner.open(path)?,
            rules: self.rules.clone(),
        }))
    }

    fn create(&self, path: &Path) -> io::Result<Box<dyn FileWriter>> {
        self.rules.check(FaultOp::Write)?;
        Ok(Box::new(FaultyWriter {
            inner: self.inner.create(path)?,
            rules: self.rules.clone(),
        }))
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.rules.check(FaultOp::Namespace)?;
        self.inner.rename(from, to)
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        self.rules.check(FaultOp::Namespace)?;
        self.inner.remove_file(path)
    }

    fn remove_dir_all(&self, dir: &Path) -> io::Result<()> {
        self.rules.check(FaultOp::Namespace)?;
        self.inner.remove_dir_all(dir)
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        self.rules.check(FaultOp::Sync)?;
        self.inner.sync_dir(dir)
    }

    fn set_storage_policy(&self, dir: &Path, policy: StoragePolicy) -> io::Result<()> {
        self.inner.set_storage_policy(dir, policy)
    }

    fn places_by_policy(&self) -> bool {
        self.inner.places_by_policy()
    }

    fn lock(&self, path: &Path) -> io::Result<Box<dyn Send + Sync>> {
        self.inner.lock(path)
    }
}

impl<S: LogStore> LogStore for Faulty<S> {
    fn url(&self, path: &Path) -> String {
        self.inner.url(path)
    }

    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        self.rules.check(FaultOp::Namespace)?;
        self.inner.create_dir_all(dir)
    }

    fn create(&self, path: &Path) -> io::Result<Box<dyn LogFile>> {
        self.rules.check(FaultOp::Write)?;
        Ok(Box::new(FaultyLog {
            inner: self.inner.create(path)?,
            rules: self.rules.clone(),
        }))
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        self.rules.check(FaultOp::Read)?;
        self.inner.list(dir)
    }

    fn open(&self, path: &Path) -> io::Result<Arc<dyn Source>> {
        self.rules.check(FaultOp::Read)?;
        Ok(Arc::new(FaultySource {
            inner: self.inner.open(path)?,
            rules: self.rules.clone(),
        }))
    }

    fn cut(&self, path: &Path, len: u64) -> io::Result<()> {
        self.rules.check(FaultOp::Write)?;
        self.inner.cut(path, len)
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        self.rules.check(FaultOp::Namespace)?;
        self.inner.remove(path)
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        self.rules.check(FaultOp::Sync)?;
        self.inner.sync_dir(dir)
    }

    fn recover_lease(&self, path: &Path) -> io::Result<bool> {
        self.inner.recover_lease(path)
    }

    fn set_storage_policy(&self, dir: &Path, policy: StoragePolicy) -> io::Result<()> {
        self.inner.set_storage_policy(dir, policy)
    }
}

#[cfg(test)]
mod tests {
    use super::super::Local;
    use super::*;

    #[test]
    fn injects_counted_and_standing_faults() {
        let dir = tempfile::tempdir().unwrap();
        let store = Faulty::new(Local);
        let path = dir.path().join("f");
        store.inject(FaultOp::Sync, Fault::ENOSPC, Some(1));
        let err = store.write_atomic(&path, b"x").unwrap_err();
        assert_eq!(err.raw_os_error(), Some(28));
        assert_eq!(FileStore::len(&store, &path).unwrap(), None);
        store.write_atomic(&path, b"x").unwrap();
        store.inject(FaultOp::Read, Fault::EIO, None);
        assert!(FileStore::read(&store, &path).is_err());
        assert!(FileStore::read(&store, &path).is_err());
        store.clear();
        assert_eq!(FileStore::read(&store, &path).unwrap(), b"x");
        let mut log = LogStore::create(&store, &dir.path().join("log")).unwrap();
        store.inject(FaultOp::Append, Fault::EIO, Some(2));
        assert!(log.append(b"a").is_err());
        assert!(log.append(b"a").is_err());
        log.append(b"a").unwrap();
    }
}
