//! The active segment: appends batches, syncs, rolls to a new segment, and puts the file back
//! to its last good length when a write or sync fails.
//!
//! Invariants:
//! - `len` is the offset just past the last record of a successful batch; bytes a failed batch
//!   left past it are cut off (now, or through `truncate_to` before anything else is written).
//! - A segment is closed (a newer one created) only when it ends at a record boundary and has
//!   been fsync'd, so every segment but the newest is complete and durable. One exception: a
//!   segment whose sync failed and keeps failing (an HDFS writer whose DataNode died never
//!   recovers) is abandoned once the next segment exists and this writer has recovered the
//!   old one's lease itself. Everything acknowledged in it was synced before the failure; the
//!   bytes after that belong to failed batches, never acknowledged.
//! - A writer never abandons a segment someone else closed: that is another process fencing
//!   it (lease recovery), and from then on every roll fails.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;

use super::error::{Error, Result};
use super::record::{self, SEGMENT_HEADER_LEN};
use super::segments::SegmentSet;
use super::stats::Counters;
use crate::vfs::{LogFile, LogStore};

/// Records taken off the queue by a group-commit leader, written with one append.
#[derive(Debug, Default)]
pub(crate) struct Batch {
    /// Batch number; batches are written in this order.
    pub id: u64,
    /// Framed records.
    pub buf: Vec<u8>,
    /// (region, sequence id) of every entry in `buf`.
    pub regions: Vec<(u64, u64)>,
    /// Entries in `buf`.
    pub entries: u64,
    /// Some waiter needs the batch fsync'd (`FSYNC_WAL`, `Wal::sync`, close).
    pub sync: bool,
    /// Callers waiting for this batch, the leader included.
    pub waiters: usize,
}

/// The file name of segment `id`: its id in 20 decimal digits, so names sort as ids do.
pub(crate) fn segment_path(dir: &Path, id: u64) -> PathBuf {
    dir.join(format!("{id:020}.wal"))
}

/// The segment id a file name gives, if it is a segment's name.
pub(crate) fn parse_segment_name(name: &str) -> Option<u64> {
    let digits = name.strip_suffix(".wal")?;
    if digits.len() != 20 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Appends to the active segment. Owned by whoever holds the WAL's writer lock: the current
/// group-commit leader.
pub(crate) struct Writer {
    fs: Arc<dyn LogStore>,
    dir: PathBuf,
    segment_size: u64,
    id: u64,
    file: Box<dyn LogFile>,
    len: u64,
    /// Bytes were appended since the last successful sync.
    dirty: bool,
    /// A failed batch may have left bytes past this offset; cut them before the next write.
    truncate_to: Option<u64>,
    /// A sync failed: the page cache of this file is not to be trusted for later syncs, so
    /// the next batch starts a new segment.
    must_roll: bool,
    /// Writeback was started for the segment's bytes below this offset.
    written_back: u64,
}

/// Bytes appended between two [`LogFile::start_writeback`] hints. A roll syncs the whole old
/// segment before the next one starts and every writer waits for it: with the segment's
/// 64 MiB still in the page cache that sync took 50–220 ms on a virtual disk (each roll
/// stalled the writes in flight); started a mebibyte at a time, it finds little to write.
const WRITEBACK_BYTES: u64 = 1 << 20;

impl Writer {
    /// Creates segment `id` in `dir` (header written and synced) and returns its writer.
    ///
    /// # Errors
    /// [`Error::Io`] if the file cannot be created, written or synced; it is then removed.
    pub fn create(
        fs: Arc<dyn LogStore>,
        dir: &Path,
        id: u64,
        segment_size: u64,
        counters: &Counters,
    ) -> Result<Writer> {
        let file = create_segment(fs.as_ref(), dir, id, counters)?;
        Ok(Writer {
            fs,
            dir: dir.to_owned(),
            segment_size,
            id,
            file,
            len: SEGMENT_HEADER_LEN as u64,
            dirty: false,
            truncate_to: None,
            must_roll: false,
            written_back: SEGMENT_HEADER_LEN as u64,
        })
    }

    /// True when writing a batch without a sync is one quick append: the store appends
    /// locally and the batch needs no roll, no cut and no recovery from an earlier failure.
    pub fn is_quick(&self) -> bool {
        self.fs.quick_appends()
            && !self.must_roll
            && self.truncate_to.is_none()
            && self.len < self.segment_size
    }

    /// Writes `batch` (and syncs if it asks); returns whether a new segment was started.
    ///
    /// # Errors
    /// [`Error::Io`] if the write, sync or a needed roll fails. Nothing of the batch is then
    /// in the log, and the segment is left (or will be, before the next write) at its last
    /// good length.
    pub fn write(
        &mut self,
        batch: &Batch,
        segments: &Mutex<SegmentSet>,
        counters: &Counters,
    ) -> Result<bool> {
        if let Some(len) = self.truncate_to {
            self.file
                .truncate(len)
                .map_err(|e| Error::io("truncate", &self.path(), e))?;
            self.truncate_to = None;
        }
        let mut rolled = false;
        if self.must_roll || (self.len >= self.segment_size && !batch.buf.is_empty()) {
            match self.roll(segments, counters) {
                Ok(()) => rolled = true,
                Err(e) if self.must_roll => return Err(e),
                // A size roll can wait (the disk may be full): keep appending here.
                Err(_) => {}
            }
        }
        let start = self.len;
        if !batch.buf.is_empty() {
            if let Err(e) = self.file.append(&batch.buf) {
                self.rewind(start);
                return Err(Error::io("write", &self.path(), e));
            }
            self.len += batch.buf.len() as u64;
            self.dirty = true;
            if self.len - self.written_back >= WRITEBACK_BYTES {
                // A hint: a failure here changes nothing the sync below or a roll promises.
                let _ = self
                    .file
                    .start_writeback(self.written_back, self.len - self.written_back);
                self.written_back = self.len;
            }
            // SYNC_WAL's durability point: the bytes survive this process (HDFS hflush).
            if !batch.sync {
                if let Err(e) = self.file.flush() {
                    self.rewind(start);
                    self.must_roll = true;
                    return Err(Error::io("flush", &self.path(), e));
                }
            }
        }
        if batch.sync && self.dirty {
            if let Err(e) = crate::events::timed_wal_sync(|| self.file.sync()) {
                if !batch.buf.is_empty() {
                    self.rewind(start);
                }
                self.must_roll = true;
                return Err(Error::io("sync", &self.path(), e));
            }
            Counters::add(&counters.syncs, 1);
            self.dirty = false;
        }
        if batch.entries > 0 {
            segments
                .lock()
                .record_batch(self.id, &batch.regions, self.len);
            counters.batch_written(batch.entries);
        }
        Ok(rolled)
    }

    /// Closes the active segment (after a final sync by the caller).
    ///
    /// # Errors
    /// The store could not close it.
    pub fn close(&mut self) -> Result<()> {
        self.file
            .close()
            .map_err(|e| Error::io("close", &self.path(), e))
    }

    /// The active segment's file.
    pub fn path(&self) -> PathBuf {
        segment_path(&self.dir, self.id)
    }

    /// Cuts a failed batch off: now if possible, else before the next write.
    fn rewind(&mut self, to: u64) {
        self.len = to;
        self.written_back = self.written_back.min(to);
        match self.file.truncate(to) {
            Ok(()) => {}
            // A shared log cannot be cut while open: the failed batch stays in this segment
            // (never acknowledged; replay may bring it back, as with HBase) and the next
            // write goes to a new segment.
            Err(e) if e.kind() == std::io::ErrorKind::Unsupported => self.must_roll = true,
            Err(_) => self.truncate_to = Some(to),
        }
    }

    /// Closes the active segment (fsync'd) and starts the next one. On failure the current
    /// segment stays active; a retry reuses the same new id, replacing any partial file.
    fn roll(&mut self, segments: &Mutex<SegmentSet>, counters: &Counters) -> Result<()> {
        let started = std::time::Instant::now();
        let (old_id, old_len) = (self.id, self.len);
        // A roll after a failed sync may abandon the segment if its sync still fails.
        let after_failure = self.must_roll;
        let mut abandon = None;
        if self.dirty {
            if let Err(e) = crate::events::timed_wal_sync(|| self.file.sync()) {
                self.must_roll = true;
                let e = Error::io("sync", &self.path(), e);
                if !after_failure {
                    return Err(e);
                }
                abandon = Some(e);
            } else {
                Counters::add(&counters.syncs, 1);
                self.dirty = false;
            }
        }
        let id = self.id + 1;
        let next = create_segment(self.fs.as_ref(), &self.dir, id, counters)?;
        if let Some(sync_error) = abandon {
            // The store works again (the new segment is durable); the old segment's writer does
            // not. Reclaim it: `true` means this call closed it, so it was still ours. A log
            // someone else closed or is closing means this writer was fenced; a store without
            // leases (local files) keeps the old rule: no roll past a failed sync.
            let old = self.path();
            if !matches!(self.fs.reclaim(&old), Ok(true)) {
                let mut next = next;
                let _ = next.close();
                let _ = self.fs.remove(&segment_path(&self.dir, id));
                return Err(sync_error);
            }
            self.dirty = false;
        }
        // Best effort: a log left open is closed by lease recovery when the WAL is next opened.
        let _ = std::mem::replace(&mut self.file, next).close();
        self.id = id;
        self.len = SEGMENT_HEADER_LEN as u64;
        self.written_back = self.len;
        self.must_roll = false;
        segments.lock().activate(id, self.path(), self.len);
        Counters::add(&counters.rolls, 1);
        tracing::debug!(
            segment = old_id,
            bytes = old_len,
            ms = started.elapsed().as_millis() as u64,
            "WAL rolled to segment {id}"
        );
        Ok(())
    }
}

/// Creates segment `id`: header written and synced, directory synced.
fn create_segment(
    fs: &dyn LogStore,
    dir: &Path,
    id: u64,
    counters: &Counters,
) -> Result<Box<dyn LogFile>> {
    let path = segment_path(dir, id);
    let mut file = fs
        .create(&path)
        .map_err(|e| Error::io("create", &path, e))?;
    let written = file
        .append(&record::segment_header(id))
        .map_err(|e| Error::io("write", &path, e))
        .and_then(|()| {
            crate::events::timed_wal_sync(|| file.sync()).map_err(|e| Error::io("sync", &path, e))
        })
        .and_then(|()| fs.sync_dir(dir).map_err(|e| Error::io("sync", dir, e)));
    if let Err(e) = written {
        // Best effort: a partial file left behind is replaced by the retry, or on open found
        // to be an empty trailing segment.
        let _ = fs.remove(&path);
        return Err(e);
    }
    Counters::add(&counters.syncs, 2);
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_names_sort_as_ids_and_parse_back() {
        let p = segment_path(Path::new("/w"), 42);
        assert_eq!(p, Path::new("/w/00000000000000000042.wal"));
        let name = p.file_name().and_then(|n| n.to_str()).unwrap();
        assert_eq!(parse_segment_name(name), Some(42));
        assert_eq!(
            parse_segment_name(&format!("{:020}.wal", u64::MAX)),
            Some(u64::MAX)
        );
        for bad in [
            "42.wal",
            "0000000000000000004x.wal",
            "00000000000000000042.log",
        ] {
            assert_eq!(parse_segment_name(bad), None, "{bad}");
        }
    }
}
