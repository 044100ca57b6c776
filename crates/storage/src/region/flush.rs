//! Flushing memtables to store files.
//!
//! A flush cuts every family's memtable snapshot under the exclusive `updates` lock (an
//! instant: no write is between its sequence id and its memtable insert then), so every
//! mutation with a sequence id ≤ the flush's is in the snapshots. It then writes each
//! non-empty snapshot to a new file, installs all files and the flushed sequence id in one
//! manifest edit, releases the snapshots, and lets the WAL drop what is now in files.

use std::sync::atomic::Ordering;

use strata_sstable::{Writer, WriterOptions};

use super::store::Store;
use super::Region;
use crate::error::{Error, Result};
use crate::manifest::{StoreFile, VersionEdit};
use crate::memtable::FlushSnapshot;

impl Region {
    /// True when the memtables passed the table's `MEMSTORE_FLUSHSIZE`.
    pub fn needs_flush(&self) -> bool {
        self.memtable_bytes() >= self.inner.config.table.memstore_flushsize
    }

    /// Flushes every family's memtable to store files. Returns the flushed sequence id.
    ///
    /// # Errors
    /// I/O or manifest errors; the memtables keep their cells then and a retry writes them.
    pub fn flush(&self) -> Result<u64> {
        let inner = &self.inner;
        let _one = inner.flush_lock.lock();
        let (seq, snapshots) = {
            let _quiet = inner.updates.write();
            let seq = inner.mvcc.last_seq();
            let snaps: Vec<(&Store, FlushSnapshot)> = inner
                .stores
                .values()
                .map(|s| (s, s.memtable.snapshot()))
                .collect();
            (seq, snaps)
        };
        let mut edit = VersionEdit::new();
        let mut written = Vec::new();
        for (store, snap) in &snapshots {
            if !snap.is_empty() {
                let meta = self.write_snapshot(store, snap, seq)?;
                written.push((store, meta.clone()));
                edit = edit.add_file(store.name.clone(), meta);
            }
            edit = edit.set_flushed_seq_id(store.name.clone(), seq);
        }
        let version = inner.manifest.lock().apply(&edit)?;
        let bytes: u64 = written.iter().map(|(_, meta)| meta.size).sum();
        inner
            .counters
            .flushed_bytes
            .fetch_add(bytes, Ordering::Relaxed);
        for (store, meta) in written {
            let handle = store.open_file(meta)?;
            let mut files: Vec<_> = store.files().iter().cloned().collect();
            files.push(handle);
            store.set_files(files);
        }
        for (store, snap) in snapshots {
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
        Ok(seq)
    }

    fn write_snapshot(&self, store: &Store, snap: &FlushSnapshot, seq: u64) -> Result<StoreFile> {
        let now = self.inner.config.clock.now_ms();
        let name = format!("{seq:016x}-{now:x}.sst");
        let path = store.dir.join(&name);
        let tmp = store.dir.join(format!("{name}.tmp"));
        let _ = std::fs::remove_file(&tmp);
        let options = WriterOptions {
            created_at_ms: now,
            max_seq_id: seq,
            ..WriterOptions::for_family(&store.family)
        };
        let mut writer = Writer::create(&tmp, options)?;
        let mut it = snap.iter();
        let mut ok = it.seek_to_first();
        while ok {
            writer.add(&it.current())?;
            ok = it.next();
        }
        let info = writer.finish_and_sync()?;
        std::fs::rename(&tmp, &path).map_err(|e| Error::io(&path, e))?;
        sync_dir(&store.dir)?;
        let size = std::fs::metadata(&path)
            .map_err(|e| Error::io(&path, e))?
            .len();
        Ok(StoreFile {
            name,
            size,
            max_seq_id: info.max_seq_id,
            min_timestamp: info.min_timestamp,
            max_timestamp: info.max_timestamp,
            cell_count: info.cell_count,
            created_at_ms: now,
            major: false,
            tier: String::new(),
            reference: None,
        })
    }
}

/// Makes a directory's entries durable.
pub(crate) fn sync_dir(dir: &std::path::Path) -> Result<()> {
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io(dir, e))
}
