//! Shared helpers for the WAL tests: entries whose content is a function of their sequence id,
//! replay helpers, and a file system that fails on demand.
#![allow(dead_code, clippy::unwrap_used)]

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use strata_model::cell::{Cell, CellType};
use strata_storage::vfs::{DirEntry, Local, Source};
use strata_storage::wal::{Entry, LogFile, LogStore, Wal, WalOptions};

/// An entry of `region` with sequence id `seq` and about `value_len` bytes of value; its
/// content is derived from (region, seq) so [`check`] can verify it.
pub fn entry(region: u64, seq: u64, value_len: usize) -> Entry {
    let value: Vec<u8> = (0..value_len)
        .map(|i| (seq as usize).wrapping_mul(31).wrapping_add(i) as u8)
        .collect();
    let mut cells = vec![Cell::put(
        format!("row-{region}-{seq:08}"),
        "cf",
        "q",
        seq as i64,
        value,
    )];
    if seq % 7 == 6 {
        cells.push(Cell::delete(
            format!("row-{region}-{seq:08}"),
            "cf",
            "old",
            seq as i64,
            CellType::DeleteColumn,
        ));
    }
    Entry {
        region,
        seq,
        cells,
        nonce: None,
    }
}

/// Panics unless `e` is exactly what [`entry`] makes for its region and seq.
pub fn check(e: &Entry, value_len: usize) {
    let mut want = entry(e.region, e.seq, value_len);
    for c in &mut want.cells {
        c.seq = e.seq;
    }
    assert_eq!(e, &want, "entry region {} seq {} damaged", e.region, e.seq);
}

/// Small options: 4 KiB segments so tests roll often.
pub fn small_segments() -> WalOptions {
    WalOptions {
        segment_size: 4096,
        ..WalOptions::default()
    }
}

/// Every entry the WAL in `dir` replays, opening it with `options`.
pub fn replay_dir(dir: &Path, options: WalOptions) -> Vec<Entry> {
    let wal = Wal::open(dir, options).unwrap();
    let entries = wal
        .replay(|_| Some(0))
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    wal.close().unwrap();
    entries
}

/// The segment files in `dir`, by name.
pub fn segment_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "wal"))
        .collect();
    files.sort();
    files
}

/// Switches for [`FaultyFs`]: while one is set, that operation fails with `ENOSPC`.
#[derive(Debug, Default)]
pub struct Faults {
    /// Appends write half their bytes, then fail.
    pub writes: AtomicBool,
    /// Syncs fail.
    pub syncs: AtomicBool,
    /// Truncates fail.
    pub truncates: AtomicBool,
    /// Creating a segment fails.
    pub creates: AtomicBool,
    /// Appends wait while this is set (to pile appenders up behind a leader).
    pub paused: AtomicBool,
    /// Appends waiting at the pause.
    pub waiting: AtomicUsize,
}

impl Faults {
    pub fn set(flag: &AtomicBool, on: bool) {
        flag.store(on, Ordering::SeqCst);
    }
}

fn enospc() -> io::Error {
    io::Error::from_raw_os_error(28)
}

/// The local file system with injectable failures.
#[derive(Debug, Default)]
pub struct FaultyFs {
    pub faults: Arc<Faults>,
    /// Reported as `LogStore::quick_appends` (a local disk's store says true).
    pub quick: bool,
}

impl LogStore for FaultyFs {
    fn url(&self, path: &Path) -> String {
        Local.url(path)
    }

    fn quick_appends(&self) -> bool {
        self.quick
    }

    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        LogStore::create_dir_all(&Local, dir)
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        LogStore::list(&Local, dir)
    }

    fn open(&self, path: &Path) -> io::Result<Arc<dyn Source>> {
        LogStore::open(&Local, path)
    }

    fn cut(&self, path: &Path, len: u64) -> io::Result<()> {
        Local.cut(path, len)
    }

    fn create(&self, path: &Path) -> io::Result<Box<dyn LogFile>> {
        if self.faults.creates.load(Ordering::SeqCst) {
            return Err(enospc());
        }
        Ok(Box::new(FaultyFile {
            inner: LogStore::create(&Local, path)?,
            faults: Arc::clone(&self.faults),
        }))
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        Local.remove(path)
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        LogStore::sync_dir(&Local, dir)
    }
}

struct FaultyFile {
    inner: Box<dyn LogFile>,
    faults: Arc<Faults>,
}

impl LogFile for FaultyFile {
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }

    fn append(&mut self, buf: &[u8]) -> io::Result<()> {
        if self.faults.paused.load(Ordering::SeqCst) {
            self.faults.waiting.fetch_add(1, Ordering::SeqCst);
            while self.faults.paused.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(1));
            }
            self.faults.waiting.fetch_sub(1, Ordering::SeqCst);
        }
        if self.faults.writes.load(Ordering::SeqCst) {
            // A partial write, as a filling disk gives.
            self.inner.append(&buf[..buf.len() / 2])?;
            return Err(enospc());
        }
        self.inner.append(buf)
    }

    fn sync(&mut self) -> io::Result<()> {
        if self.faults.syncs.load(Ordering::SeqCst) {
            return Err(enospc());
        }
        self.inner.sync()
    }

    fn truncate(&mut self, len: u64) -> io::Result<()> {
        if self.faults.truncates.load(Ordering::SeqCst) {
            return Err(enospc());
        }
        self.inner.truncate(len)
    }
}
