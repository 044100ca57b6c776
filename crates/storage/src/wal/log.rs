//! [`Wal`]: the write-ahead log of a process, shared by all its regions. Thread safety and
//! invariants are documented on the type.
//!
//! Lock order: `queue` → `writer` → `segments`. The group-commit leader releases `queue`
//! before it takes `writer`, so appenders keep queueing while a batch is written; nothing
//! takes `queue` or `writer` while holding `segments`.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::thread::JoinHandle;

use parking_lot::{Condvar, Mutex};
use strata_model::schema::Durability;

use super::entry::{self, Entry};
use super::error::{Error, Result};
use super::group_commit::{Need, Queue};
use super::options::WalOptions;
use super::record;
use super::replay::Replay;
use super::segments::SegmentSet;
use super::stats::{Counters, WalStats};
use super::writer::Writer;
use crate::vfs::LogStore;

/// The write-ahead log: a directory of segment files `NNNNNNNNNNNNNNNNNNNN.wal`.
///
/// Thread safety: `Wal` is `Send + Sync`; share one (`Arc<Wal>`) across every region and
/// writer thread of a process. Concurrent appends are group-committed: one appender writes
/// the queued entries of all with one `write` and at most one `fdatasync` while the others
/// wait. One background thread (`wal-flusher`) writes `ASYNC_WAL` entries; it stops on
/// [`close`](Self::close) or drop.
///
/// Invariants:
/// - Entries appear in the log in the order their appends were queued; an entry is one
///   record, replayed whole or (after a failed write, or torn by a crash) not at all.
/// - An acknowledged `SYNC_WAL` entry has reached the OS; an acknowledged `FSYNC_WAL` entry,
///   and every entry logged before it, is on stable storage.
/// - A segment file is deleted only when it is not the active one and every region with
///   entries in it has flushed (or been forgotten) past its largest sequence id there.
pub struct Wal {
    pub(crate) shared: Arc<Shared>,
    /// Segments found on open, oldest first: what [`Wal::replay`] reads.
    pub(crate) recovered: Vec<(u64, PathBuf)>,
    flusher: Mutex<Option<JoinHandle<()>>>,
}

/// State shared by the WAL's callers and its flusher thread.
pub(crate) struct Shared {
    pub options: WalOptions,
    pub dir: PathBuf,
    pub fs: Arc<dyn LogStore>,
    /// The batch being filled. Taken first (lock order).
    pub queue: Mutex<Queue>,
    /// Signalled when a batch is finished; waiters of batch `b` wait on `batch_done[b % 2]`.
    pub batch_done: [Condvar; 2],
    /// Every batch with an id up to this one is finished. Written only by the leader with
    /// `queue` locked; followers also poll it without the lock before they sleep.
    pub finished: AtomicU64,
    /// Wakes the flusher: `ASYNC_WAL` records queued, or shutdown.
    pub flusher_wake: Condvar,
    /// The active segment. Held only by the group-commit leader while it writes.
    pub writer: Mutex<Writer>,
    /// Live segments and flushed sequence ids. Taken last.
    pub segments: Mutex<SegmentSet>,
    pub counters: Counters,
}

impl Wal {
    pub(crate) fn from_parts(shared: Arc<Shared>, recovered: Vec<(u64, PathBuf)>) -> Result<Wal> {
        let flusher_shared = Arc::clone(&shared);
        let flusher = std::thread::Builder::new()
            .name("wal-flusher".into())
            .spawn(move || flusher_shared.run_flusher())
            .map_err(|e| Error::io("create", Path::new("wal-flusher thread"), e))?;
        Ok(Wal {
            shared,
            recovered,
            flusher: Mutex::new(Some(flusher)),
        })
    }

    /// Logs one row mutation with `durability` (`USE_DEFAULT` means `SYNC_WAL`). Returns when
    /// the durability is met: at once for `SKIP_WAL` (nothing written) and `ASYNC_WAL`
    /// (written within `async_flush_interval`), after the OS has the bytes for `SYNC_WAL`,
    /// after `fdatasync` for `FSYNC_WAL`.
    ///
    /// Requires: `entry.seq` is the sequence id the region assigned; it is stored as given.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an entry over 1 GiB encoded; [`Error::Closed`] after
    /// close; [`Error::Io`] when the write or sync of the batch holding the entry failed (for
    /// example a full disk): the entry is then not in the log, and later appends work again
    /// once the cause is gone.
    pub fn append(&self, entry: &Entry, durability: Durability) -> Result<()> {
        self.append_batch(std::slice::from_ref(entry), durability)
    }

    /// Logs several row mutations (each its own atomic entry) with one wait: what a
    /// multi-row batch needs. Entries of one call are contiguous in the log.
    ///
    /// # Errors
    /// As [`append`](Self::append); on error none of the entries are in the log.
    pub fn append_batch(&self, entries: &[Entry], durability: Durability) -> Result<()> {
        let Some(need) = self.need(entries, durability) else {
            return Ok(());
        };
        let (records, regions) = encode(entries)?;
        self.shared.submit(&records, &regions, need)
    }

    /// Logs `entry` as [`append`](Self::append) does, but only if that needs no wait for
    /// another thread: `SKIP_WAL` and `ASYNC_WAL` entries, and `SYNC_WAL` entries when the
    /// log's store appends locally and no batch is being written (the caller then writes the
    /// batch itself: one `write` system call). `None`: nothing was logged (a `FSYNC_WAL`
    /// entry, a batch in progress, a store across the network, a segment to roll); the
    /// caller appends the usual way, from a thread that may block.
    ///
    /// # Errors
    /// As [`append`](Self::append).
    pub fn try_append_now(&self, entry: &Entry, durability: Durability) -> Option<Result<()>> {
        let entries = std::slice::from_ref(entry);
        let Some(need) = self.need(entries, durability) else {
            return Some(Ok(()));
        };
        if need == Need::Synced || (need == Need::Written && !self.shared.fs.quick_appends()) {
            return None;
        }
        match encode(entries) {
            Ok((records, regions)) => self.shared.try_submit_now(&records, &regions, need),
            Err(e) => Some(Err(e)),
        }
    }

    /// Like [`try_append_now`](Self::try_append_now) for several entries of `SYNC_WAL` (the
    /// default durability), logged with one append: all or none of them. `None`: the append
    /// would wait (see `try_append_now`); nothing was queued.
    ///
    /// # Errors
    /// As [`append`](Self::append).
    pub fn try_append_written_now(&self, entries: &[&Entry]) -> Option<Result<()>> {
        if entries.is_empty() {
            return Some(Ok(()));
        }
        if !self.shared.fs.quick_appends() {
            return None;
        }
        match encode(entries.iter().copied()) {
            Ok((records, regions)) => self
                .shared
                .try_submit_now(&records, &regions, Need::Written),
            Err(e) => Some(Err(e)),
        }
    }

    /// What appending `entries` with `durability` waits for; `None` when nothing is to be
    /// written (`SKIP_WAL`, counted, or no entries).
    fn need(&self, entries: &[Entry], durability: Durability) -> Option<Need> {
        let need = match durability.resolve(Durability::UseDefault) {
            Durability::SkipWal => {
                Counters::add(&self.shared.counters.skipped_appends, entries.len() as u64);
                return None;
            }
            Durability::AsyncWal => Need::Buffered,
            Durability::FsyncWal => Need::Synced,
            Durability::SyncWal | Durability::UseDefault => Need::Written,
        };
        (!entries.is_empty()).then_some(need)
    }

    /// Writes every queued entry and fsyncs the active segment: afterwards everything
    /// appended before the call is on stable storage.
    ///
    /// # Errors
    /// [`Error::Closed`] after close; [`Error::Io`] if the write or sync failed.
    pub fn sync(&self) -> Result<()> {
        let mut q = self.shared.queue.lock();
        if q.closed {
            return Err(Error::Closed);
        }
        self.shared.flush(&mut q, true)
    }

    /// Records that `region`'s edits with sequence ids up to `seq` are in store files, and
    /// deletes segments no longer needed. Sequence ids only move forward: a lower `seq` than
    /// before is ignored.
    ///
    /// Requires: `seq` is the smallest flushed sequence id over all the region's families.
    ///
    /// # Errors
    /// [`Error::Io`] if an obsolete segment could not be deleted; it is retried next time.
    pub fn mark_flushed(&self, region: u64, seq: u64) -> Result<()> {
        self.shared.segments.lock().mark_flushed(region, seq);
        self.shared.delete_obsolete()
    }

    /// Forgets `region` for good (closed, dropped, or moved away after its edits were
    /// flushed): its entries no longer keep segments alive. Later appends for it count again.
    ///
    /// # Errors
    /// As [`mark_flushed`](Self::mark_flushed).
    pub fn forget_region(&self, region: u64) -> Result<()> {
        self.shared.segments.lock().forget_region(region);
        self.shared.delete_obsolete()
    }

    /// The regions with entries in live segments. After opening the regions it hosts, a
    /// server [forgets](Self::forget_region) the others (dropped tables, regions moved away
    /// and recovered elsewhere), or their entries keep segments forever.
    pub fn regions(&self) -> Vec<u64> {
        self.shared.segments.lock().regions()
    }

    /// When more than `max_segments` segment files are live, the regions whose unflushed
    /// entries keep the oldest of them: flushing those lets the files go. Empty when the log
    /// is within the limit. A server asks this periodically, so a region written once and
    /// then left alone does not keep every segment after its write forever.
    pub fn regions_holding_oldest(&self, max_segments: usize) -> Vec<u64> {
        self.shared
            .segments
            .lock()
            .regions_holding_oldest(max_segments)
    }

    /// Reads the entries of the segments found on open, in log order, keeping those of
    /// regions for which `flushed(region)` is `Some(s)` with a sequence id above `s`; entries
    /// of regions mapped to `None` are passed over. Entries appended since open are not
    /// included. Torn tails were cut on open; with `skip_corrupt`, bad records are skipped.
    pub fn replay<F: FnMut(u64) -> Option<u64>>(&self, flushed: F) -> Replay<F> {
        Replay::new(
            self.shared.fs.clone(),
            self.recovered.clone(),
            self.shared.options.skip_corrupt,
            flushed,
        )
    }

    /// The directory of the segment files.
    pub fn dir(&self) -> &Path {
        &self.shared.dir
    }

    /// A snapshot of the counters.
    pub fn stats(&self) -> WalStats {
        let (segments, bytes) = self.shared.segments.lock().count_and_bytes();
        self.shared.counters.snapshot(segments, bytes)
    }

    /// Stops accepting appends, writes and fsyncs everything queued, and stops the flusher.
    /// The active segment is closed like the others: once closed cleanly, every segment whose
    /// regions' entries are all flushed is deleted, so a server that flushed its regions
    /// before closing its log (a clean stop) leaves nothing to split or replay. A segment with
    /// an unflushed entry stays (an abort, a failed flush). Later calls return `Ok` and do
    /// nothing.
    ///
    /// # Errors
    /// [`Error::Io`] if the final write or sync failed: queued `ASYNC_WAL` entries may be lost.
    pub fn close(&self) -> Result<()> {
        let result = {
            let mut q = self.shared.queue.lock();
            if q.closed {
                Ok(())
            } else {
                q.closed = true;
                let mut result = self.shared.flush(&mut q, true);
                if result.is_ok() {
                    result = self.shared.writer.lock().close();
                }
                q.shutdown = true;
                self.shared.flusher_wake.notify_all();
                result
            }
        };
        if let Some(handle) = self.flusher.lock().take() {
            // The flusher has no panicking paths; a panic would already have been reported.
            let _ = handle.join();
        }
        if result.is_ok() && self.shared.segments.lock().close_active() {
            // A segment that cannot be deleted now stays, to be split or replayed as any
            // other: nothing is lost by keeping it.
            let _ = self.shared.delete_obsolete();
        }
        result
    }
}

impl Drop for Wal {
    fn drop(&mut self) {
        // Errors here have no one to go to; callers who care call close() first.
        let _ = self.close();
    }
}

/// Framed log records, and the (region, sequence id) of each entry in them.
type Encoded = (Vec<u8>, Vec<(u64, u64)>);

/// Frames `entries` as log records.
///
/// # Errors
/// [`Error::InvalidArgument`] for an entry over 1 GiB encoded.
fn encode<'e, I>(entries: I) -> Result<Encoded>
where
    I: IntoIterator<Item = &'e Entry> + Clone,
{
    // Sized exactly up front: a mini-batch's entry can be hundreds of KiB, and growing the
    // buffer by doubling faulted in fresh pages at every step.
    let (size, count) = entries
        .clone()
        .into_iter()
        .fold((0, 0), |(size, count), e| {
            (
                size + record::RECORD_HEADER_LEN + entry::encoded_len(e),
                count + 1,
            )
        });
    let mut records = Vec::with_capacity(size);
    let mut regions = Vec::with_capacity(count);
    for e in entries {
        record::put_record_with(&mut records, |out| entry::encode(e, out))
            .map_err(Error::InvalidArgument)?;
        regions.push((e.region, e.seq));
    }
    Ok((records, regions))
}

impl Shared {
    /// Deletes obsolete segment files; segments that could not be deleted stay listed.
    ///
    /// # Errors
    /// The first [`Error::Io`] met.
    pub(crate) fn delete_obsolete(&self) -> Result<()> {
        let obsolete = self.segments.lock().take_obsolete();
        let mut first_error = None;
        for (id, segment) in obsolete {
            match self.fs.remove(&segment.path) {
                Ok(()) => Counters::add(&self.counters.deleted_segments, 1),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    first_error.get_or_insert(Error::io("remove", &segment.path, e));
                    self.segments.lock().restore(id, segment);
                }
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}
