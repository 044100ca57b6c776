//! A store wrapper that injects faults for tests: errors (EIO, ENOSPC, …) and latency on
//! chosen operations of the wrapped [`FileStore`] / [`LogStore`], for a number of calls or
//! until cleared. Errors are injected before the operation runs, so the wrapped store is left
//! as an operation that failed before touching anything would leave it.
//!
//! Built with [`Faulty::with_crash_images`], it also models what a power loss would leave
//! ([`CrashImage`], see [`super::crash`]) and can take an image at every sync point.

use std::fmt;
use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;

use super::crash::{CrashImage, Tracker};
use super::{DirEntry, FileStore, FileWriter, LogFile, LogStore, Source, StoragePolicy};

/// The crash model of a store, shared with its open writers.
type Crash = Option<Arc<Mutex<Tracker>>>;

/// A writer's handle on its node in the crash model.
type CrashNode = Option<(Arc<Mutex<Tracker>>, u64)>;

/// Runs `f` on the crash model, if there is one.
fn on(crash: &Crash, f: impl FnOnce(&mut Tracker)) {
    if let Some(t) = crash {
        f(&mut t.lock());
    }
}

/// Runs `f` on a writer's node of the crash model, if there is one.
fn on_node(node: &CrashNode, f: impl FnOnce(&mut Tracker, u64)) {
    if let Some((t, id)) = node {
        f(&mut t.lock(), *id);
    }
}

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
    /// Calls to let through before hitting.
    skip: u32,
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
            if rules[i].skip > 0 {
                rules[i].skip -= 1;
                return Ok(());
            }
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
    crash: Crash,
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
            crash: None,
        }
    }

    /// Makes the next `times` calls of `op` (all of them until [`clear`](Self::clear) when
    /// `None`) meet `fault`.
    pub fn inject(&self, op: FaultOp, fault: Fault, times: Option<u32>) {
        self.inject_after(op, fault, 0, times);
    }

    /// Like [`inject`](Self::inject), but lets the next `skip` calls of `op` through first:
    /// a fault at the `skip + 1`-th call, so a test can fail each call of an operation in turn.
    pub fn inject_after(&self, op: FaultOp, fault: Fault, skip: u32, times: Option<u32>) {
        if times == Some(0) {
            return;
        }
        self.rules.rules.lock().push(Rule {
            op,
            fault,
            skip,
            left: times,
        });
    }

    /// True while some injected fault has calls left to hit.
    pub fn armed(&self) -> bool {
        !self.rules.rules.lock().is_empty()
    }

    /// Removes every rule: the store works again.
    pub fn clear(&self) {
        self.rules.rules.lock().clear();
    }

    /// Starts (`true`) or stops taking a crash image at every sync point: just before each
    /// `sync` of a file or log and each `sync_dir`. Does nothing without a crash model.
    pub fn record_crash_images(&self, on_off: bool) {
        on(&self.crash, |t| t.record(on_off));
    }

    /// How many crash images were taken at sync points so far.
    pub fn crash_image_count(&self) -> usize {
        self.crash.as_ref().map_or(0, |t| t.lock().images().len())
    }

    /// The crash images taken at sync points so far, oldest first.
    pub fn crash_images(&self) -> Vec<CrashImage> {
        self.crash
            .as_ref()
            .map_or_else(Vec::new, |t| t.lock().images().to_vec())
    }

    /// What a power loss now would leave; empty without a crash model.
    pub fn crash_image(&self) -> CrashImage {
        self.crash
            .as_ref()
            .map_or_else(CrashImage::default, |t| t.lock().image())
    }
}

impl<S: FileStore> Faulty<S> {
    /// Wraps `inner` like [`new`](Self::new) and models what a crash would leave of the files
    /// and logs under `root`; what is there now counts as durable.
    ///
    /// Requires: every change under `root` goes through this store (one `Faulty` serves as
    /// both the file store and the log store).
    ///
    /// # Errors
    /// Reading the present content of `root` failed.
    pub fn with_crash_images(inner: S, root: &Path) -> io::Result<Faulty<S>> {
        let tracker = Tracker::adopt(&inner, root)?;
        Ok(Faulty {
            inner,
            rules: Arc::default(),
            crash: Some(Arc::new(Mutex::new(tracker))),
        })
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
    crash: CrashNode,
}

impl Write for FaultyWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.rules.check(FaultOp::Write)?;
        let n = self.inner.write(buf)?;
        on_node(&self.crash, |t, id| t.wrote(id, &buf[..n]));
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl FileWriter for FaultyWriter {
    fn sync(&mut self) -> io::Result<()> {
        on_node(&self.crash, |t, _| t.sync_point());
        self.rules.check(FaultOp::Sync)?;
        self.inner.sync()?;
        on_node(&self.crash, Tracker::synced);
        Ok(())
    }

    fn close(self: Box<Self>) -> io::Result<()> {
        self.inner.close()
    }
}

struct FaultyLog {
    inner: Box<dyn LogFile>,
    rules: Arc<Rules>,
    crash: CrashNode,
}

impl LogFile for FaultyLog {
    fn append(&mut self, buf: &[u8]) -> io::Result<()> {
        self.rules.check(FaultOp::Append)?;
        self.inner.append(buf)?;
        on_node(&self.crash, |t, id| t.wrote(id, buf));
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.rules.check(FaultOp::Sync)?;
        self.inner.flush()
    }

    fn sync(&mut self) -> io::Result<()> {
        on_node(&self.crash, |t, _| t.sync_point());
        self.rules.check(FaultOp::Sync)?;
        self.inner.sync()?;
        on_node(&self.crash, Tracker::synced);
        Ok(())
    }

    fn truncate(&mut self, len: u64) -> io::Result<()> {
        self.inner.truncate(len)?;
        on_node(&self.crash, |t, id| t.truncated(id, len));
        Ok(())
    }

    fn close(&mut self) -> io::Result<()> {
        self.inner.close()
    }
}

impl<S> Faulty<S> {
    /// Records a file or log created at `path` in the crash model; its writer's node.
    fn created(&self, path: &Path) -> CrashNode {
        let t = self.crash.as_ref()?;
        let id = t.lock().created(path)?;
        Some((t.clone(), id))
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
        self.inner.create_dir_all(dir)?;
        on(&self.crash, |t| t.created_dir(dir));
        Ok(())
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
        let inner = self.inner.create(path)?;
        Ok(Box::new(FaultyWriter {
            inner,
            rules: self.rules.clone(),
            crash: self.created(path),
        }))
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.rules.check(FaultOp::Namespace)?;
        self.inner.rename(from, to)?;
        on(&self.crash, |t| t.renamed(from, to));
        Ok(())
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        self.rules.check(FaultOp::Namespace)?;
        self.inner.remove_file(path)?;
        on(&self.crash, |t| t.removed(path));
        Ok(())
    }

    fn remove_dir_all(&self, dir: &Path) -> io::Result<()> {
        self.rules.check(FaultOp::Namespace)?;
        self.inner.remove_dir_all(dir)?;
        on(&self.crash, |t| t.removed_dir(dir));
        Ok(())
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        on(&self.crash, Tracker::sync_point);
        self.rules.check(FaultOp::Sync)?;
        self.inner.sync_dir(dir)?;
        on(&self.crash, |t| t.synced_dir(dir));
        Ok(())
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
        self.inner.create_dir_all(dir)?;
        on(&self.crash, |t| t.created_dir(dir));
        Ok(())
    }

    fn create(&self, path: &Path) -> io::Result<Box<dyn LogFile>> {
        self.rules.check(FaultOp::Write)?;
        let inner = self.inner.create(path)?;
        Ok(Box::new(FaultyLog {
            inner,
            rules: self.rules.clone(),
            crash: self.created(path),
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
        self.inner.cut(path, len)?;
        on(&self.crash, |t| t.cut(path, len));
        Ok(())
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        self.rules.check(FaultOp::Namespace)?;
        self.inner.remove(path)?;
        on(&self.crash, |t| t.removed(path));
        Ok(())
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        on(&self.crash, Tracker::sync_point);
        self.rules.check(FaultOp::Sync)?;
        self.inner.sync_dir(dir)?;
        on(&self.crash, |t| t.synced_dir(dir));
        Ok(())
    }

    fn rename_dir(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.rules.check(FaultOp::Namespace)?;
        self.inner.rename_dir(from, to)?;
        on(&self.crash, |t| t.renamed(from, to));
        Ok(())
    }

    fn recover_lease(&self, path: &Path) -> io::Result<bool> {
        self.inner.recover_lease(path)
    }

    fn reclaim(&self, path: &Path) -> io::Result<bool> {
        self.inner.reclaim(path)
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
