//! Flushing memtables to store files.
//!
//! A flush cuts every family's memtable snapshot under the exclusive `updates` lock (an
//! instant: no write is between its sequence id and its memtable insert then), so every
//! mutation with a sequence id ≤ the cut's is in memory. It then writes each non-empty
//! snapshot to a new file, installs all files and each family's flushed sequence id in one
//! manifest edit, releases the snapshots, and lets the WAL drop what is now in files.
//!
//! A family's flushed sequence id is the cut's, unless cells stay in its memtable outside
//! the snapshot: a family with `hbase.hregion.compacting.memstore.flush.oldest` flushes only
//! its oldest in-memory segment, and a snapshot left pending by a failed flush is written
//! again without what came after it. Then it is one below the smallest sequence id still only
//! in memory (taken under the same lock), so WAL replay from it loses nothing (region
//! invariant 2). A mutation whose cells straddle that boundary is replayed whole; cells also
//! in a file are then identical copies, which reads show once.

use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::time::Instant;

use strata_sstable::WriterOptions;

use super::store::Store;
use super::Region;
use crate::error::{Error, Result};
use crate::events::{history, Work};
use crate::manifest::{StoreFile, VersionEdit};
use crate::memtable::FlushSnapshot;

/// Passes a closing region's flush makes at most: a snapshot left pending by a failed flush
/// is written first, then everything else.
const CLOSING_PASSES: usize = 3;

/// One pass of a flush.
struct Pass {
    /// The smallest flushed sequence id recorded for a family.
    flushed: u64,
    /// True when every family's memtable held nothing at or below the cut outside its
    /// snapshot.
    complete: bool,
}

impl Region {
    /// True when the memtables passed the table's `MEMSTORE_FLUSHSIZE`.
    pub fn needs_flush(&self) -> bool {
        self.memtable_bytes() >= self.inner.config.table.memstore_flushsize
    }

    /// Flushes the families' memtables to store files. Returns the flushed sequence id: every
    /// mutation up to it is in store files.
    ///
    /// A family with `hbase.hregion.compacting.memstore.flush.oldest` whose pipeline holds a
    /// segment flushes only its oldest segment (HBase's non-composite snapshot); every other
    /// family flushes its whole memtable. A closing region (close, split, merge) flushes
    /// everything, in up to [`CLOSING_PASSES`] passes.
    ///
    /// The memory budget learns the memtables' new size before this returns, whoever asked
    /// for the flush (a write, the budget, an admin call), so its gauges are true at once.
    ///
    /// # Errors
    /// I/O or manifest errors; the memtables keep their cells then and a retry writes them.
    pub fn flush(&self) -> Result<u64> {
        let flushed = self.flush_locked();
        // After the flush lock is released: accounting may ask for another flush. A closing
        // region's caller (close, split, merge) accounts once it knows whether it closed.
        if !self.inner.closed.load(Ordering::SeqCst) {
            self.account_memory();
        }
        flushed
    }

    /// [`Region::flush`] under the flush lock, without reporting to the budget.
    fn flush_locked(&self) -> Result<u64> {
        let inner = &self.inner;
        let _one = inner.flush_lock.lock();
        let closing = inner.closed.load(Ordering::SeqCst);
        let mut pass = self.flush_pass(closing)?;
        for _ in 1..CLOSING_PASSES {
            if !closing || pass.complete {
                break;
            }
            pass = self.flush_pass(true)?;
        }
        Ok(pass.flushed)
    }

    /// Cuts, writes and installs one snapshot per family: the whole memtable when `all`,
    /// else what the family's options say. Requires: the flush lock is held.
    fn flush_pass(&self, all: bool) -> Result<Pass> {
        let started = Instant::now();
        let inner = &self.inner;
        let cut = {
            let _quiet = inner.updates.write();
            let seq = inner.mvcc.last_seq();
            let snaps: Vec<(&Store, FlushSnapshot, u64)> = inner
                .stores
                .values()
                .map(|s| {
                    let snap = if all {
                        s.memtable.snapshot_all()
                    } else {
                        s.memtable.snapshot()
                    };
                    // Every id ≤ seq is in memory now; what stays outside the snapshot is
                    // not durable once it is written.
                    let durable = s
                        .memtable
                        .min_seq_outside_snapshot()
                        .map_or(seq, |m| seq.min(m.saturating_sub(1)));
                    (s, snap, durable)
                })
                .collect();
            // What stays in memory outside the snapshots counts as new from here: at worst it
            // waits one more age limit for a flush.
            let stays = snaps.iter().any(|(_, _, durable)| *durable < seq);
            let now = if stays {
                inner.config.clock.now_ms().max(1)
            } else {
                0
            };
            let before = inner.oldest_edit_ms.swap(now, Ordering::AcqRel);
            (seq, snaps, before)
        };
        let (seq, snapshots, stamp_before) = cut;
        let result = self.install_pass(started, seq, snapshots);
        if result.is_err() && stamp_before != 0 {
            // The cells are still in memory, as old as before.
            let _ = inner
                .oldest_edit_ms
                .fetch_update(Ordering::AcqRel, Ordering::Relaxed, |now| {
                    Some(if now == 0 {
                        stamp_before
                    } else {
                        now.min(stamp_before)
                    })
                });
        }
        result
    }

    /// Writes a pass's snapshots to files and installs them. Requires: the flush lock is held.
    fn install_pass(
        &self,
        started: Instant,
        seq: u64,
        snapshots: Vec<(&Store, FlushSnapshot, u64)>,
    ) -> Result<Pass> {
        let inner = &self.inner;
        // Nothing to write and every family's flushed id already recorded: no manifest edit (a
        // stop of 10,000 idle regions would otherwise sync 10,000 manifests).
        let recorded = {
            let manifest = inner.manifest.lock();
            let current = manifest.current();
            let unchanged = snapshots.iter().all(|(store, snap, durable)| {
                snap.is_empty()
                    && current
                        .family(&store.name)
                        .is_some_and(|f| f.flushed_seq_id() >= *durable)
            });
            unchanged.then(|| current.min_flushed_seq_id())
        };
        if let Some(min_flushed) = recorded {
            let flushed = snapshots.iter().map(|(_, _, d)| *d).min().unwrap_or(seq);
            for (store, snap, _) in snapshots {
                store
                    .memtable
                    .release(snap)
                    .map_err(|e| Error::InvalidArgument(e.to_string()))?;
            }
            inner
                .config
                .wal
                .mark_flushed(inner.config.info.region_id, min_flushed)?;
            return Ok(Pass {
                flushed,
                complete: flushed == seq,
            });
        }
        let mut edit = VersionEdit::new();
        let mut written = Vec::new();
        for (store, snap, durable) in &snapshots {
            if !snap.is_empty() {
                let meta = self
                    .write_snapshot(store, snap, *durable)
                    .inspect_err(|e| self.log_failure(Work::Flush, Some(&store.name), e))?;
                written.push((store, meta.clone()));
                edit = edit.add_file(store.name.clone(), meta);
            }
            edit = edit.set_flushed_seq_id(store.name.clone(), *durable);
        }
        let version = inner
            .manifest
            .lock()
            .apply(&edit)
            .map_err(Error::from)
            .inspect_err(|e| self.log_failure(Work::Flush, None, e))?;
        let bytes: u64 = written.iter().map(|(_, meta)| meta.size).sum();
        for (store, meta) in &written {
            history::record(history::WorkRecord {
                finished_ms: history::now_ms(),
                work: Work::Flush,
                table: inner.config.info.table.clone(),
                region: inner.config.info.region_id,
                family: String::from_utf8_lossy(&store.name).into_owned(),
                major: false,
                files_in: 0,
                files_out: 1,
                bytes_in: 0,
                bytes_out: meta.size,
                duration: started.elapsed(),
                error: None,
            });
        }
        inner
            .counters
            .flushed_bytes
            .fetch_add(bytes, Ordering::Relaxed);
        for (store, meta) in written {
            let handle = store
                .open_file(meta)
                .inspect_err(|e| self.log_failure(Work::Flush, Some(&store.name), e))?;
            let mut files: Vec<_> = store.files().iter().cloned().collect();
            files.push(handle);
            store.set_files(files);
        }
        let flushed = snapshots.iter().map(|(_, _, d)| *d).min().unwrap_or(seq);
        for (store, snap, _) in snapshots {
            store
                .memtable
                .release(snap)
                .map_err(|e| Error::InvalidArgument(e.to_string()))?;
        }
        inner
            .config
            .wal
            .mark_flushed(inner.config.info.region_id, version.min_flushed_seq_id())?;
        inner.counters.flushes.fetch_add(1, Ordering::Relaxed);
        Ok(Pass {
            flushed,
            complete: flushed == seq,
        })
    }

    fn write_snapshot(&self, store: &Store, snap: &FlushSnapshot, seq: u64) -> Result<StoreFile> {
        let now = self.inner.config.clock.now_ms();
        let tier = store.written_tier(store.flush_tier());
        let dir = store.prepare_dir(tier)?;
        let files = store.file_store().as_ref();
        // Flushes of single segments may repeat with the same sequence id and clock reading.
        let listed: HashSet<String> = store.files().iter().map(|f| f.meta.name.clone()).collect();
        let name = (0u64..)
            .map(|n| match n {
                0 => format!("{seq:016x}-{now:x}.sst"),
                n => format!("{seq:016x}-{now:x}-f{n:x}.sst"),
            })
            .find(|name| {
                !listed.contains(name) && !matches!(files.len(&dir.join(name)), Ok(Some(_)))
            })
            .unwrap_or_default();
        let path = dir.join(&name);
        let tmp = dir.join(format!("{name}.tmp"));
        let options = WriterOptions {
            created_at_ms: now,
            max_seq_id: seq,
            ..WriterOptions::for_family(&store.family)
        };
        let mut writer = super::sst_io::create(files, &tmp, options)?;
        let mut it = snap.iter();
        let mut ok = it.seek_to_first();
        let written = (|| {
            while ok {
                writer.add(&it.current())?;
                ok = it.next();
            }
            super::sst_io::finish(writer, &tmp)
        })();
        let info = match written {
            Ok(info) => info,
            Err(e) => {
                // Best effort: a leftover is unlisted and deleted when the region opens.
                let _ = files.remove_file(&tmp);
                return Err(e);
            }
        };
        files.rename(&tmp, &path).map_err(|e| Error::io(&path, e))?;
        sync_dir(files, &dir)?;
        let size = files
            .len(&path)
            .map_err(|e| Error::io(&path, e))?
            .ok_or_else(|| Error::io(&path, std::io::ErrorKind::NotFound.into()))?;
        Ok(StoreFile {
            name,
            size,
            max_seq_id: info.max_seq_id,
            min_timestamp: info.min_timestamp,
            max_timestamp: info.max_timestamp,
            cell_count: info.cell_count,
            created_at_ms: now,
            major: false,
            tier: store.tier_name(tier),
            reference: None,
            link: None,
            bulk: false,
        })
    }
}

/// Makes a directory's entries durable.
pub(crate) fn sync_dir(files: &dyn crate::vfs::FileStore, dir: &std::path::Path) -> Result<()> {
    files.sync_dir(dir).map_err(|e| Error::io(dir, e))
}
