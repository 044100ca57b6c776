//! The store's files in its directory (RFC 0019): `snapshot` (every key at one revision,
//! replaced atomically) and journal segments `journal.<seq>` (one framed record per revision
//! after it, appended and synced before a write is acknowledged).
//!
//! # Invariants
//! - Only the newest segment is appended to. A new segment is created only after a snapshot
//!   covering every record of the older ones is durable, so at any instant the state is the
//!   snapshot plus the newest segment's records past the snapshot's revision; older segments
//!   are garbage to remove.
//! - Records hold consecutive revisions: each is its predecessor plus one.
//! - A record is acknowledged only after the segment's `sync` returned. So a damaged frame at
//!   the end of the newest segment is a write that never finished (dropped on recovery), while
//!   a damaged frame followed by a valid one is corruption (recovery refuses to open).
//!
//! Thread safety: owned by one [`crate::EmbeddedKv`] behind its lock.

use std::io;
use std::path::{Path, PathBuf};

use strata_cluster::kv::{Event, Revision};
use strata_cluster::mem::MemStore;
use strata_storage::vfs::{LogFile, Storage};

use crate::codec::{self, Damage};

/// The snapshot's file name.
pub const SNAPSHOT: &str = "snapshot";

/// Prefix of a journal segment's name; the sequence number follows, zero-padded.
pub const SEGMENT_PREFIX: &str = "journal.";

/// What recovery found, for the open's log line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recovery {
    /// Revision of the snapshot read (0 without one).
    pub snapshot_revision: Revision,
    /// Keys in it.
    pub snapshot_keys: usize,
    /// Journal records replayed past it.
    pub replayed: usize,
    /// Bytes of an unfinished write dropped from the journal's end.
    pub torn_bytes: u64,
    /// Keys of leases of the previous run, deleted at open.
    pub leased_dropped: usize,
}

/// Errors of opening a store directory.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The storage failed.
    #[error("{what} {path}: {source}")]
    Io {
        /// What was being done.
        what: &'static str,
        /// The file or directory.
        path: String,
        /// The error.
        source: io::Error,
    },
    /// The files are damaged beyond an unfinished last write.
    #[error("coordination store {path} is damaged: {reason}")]
    Corrupt {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
}

/// The open journal: the newest segment, appended to.
pub struct Journal {
    storage: Storage,
    dir: PathBuf,
    seq: u64,
    log: Box<dyn LogFile>,
    written: u64,
}

impl Journal {
    /// Recovers the store kept in `dir` (created if missing), then checkpoints it: a new
    /// snapshot at the recovered revision (after deleting the keys of the previous run's
    /// leases) and a new, empty segment; older segments are removed.
    ///
    /// # Errors
    /// [`OpenError`]: storage failures, or damage other than an unfinished last write.
    pub fn open(
        storage: Storage,
        dir: &Path,
        min_ttl_secs: i64,
    ) -> Result<(Journal, MemStore, Recovery), OpenError> {
        let io_err = |what: &'static str, path: &Path, source: io::Error| OpenError::Io {
            what,
            path: storage.files.url(path),
            source,
        };
        // The journal is on the log store and the snapshot on the file store: on an S3 root
        // these are two places (the WAL root and the bucket), each needs the directory.
        storage
            .files
            .create_dir_all(dir)
            .and_then(|()| storage.logs.create_dir_all(dir))
            .map_err(|e| io_err("creating", dir, e))?;
        let snapshot_path = dir.join(SNAPSHOT);
        let mut recovery = Recovery::default();
        let snapshot = match storage.files.read(&snapshot_path) {
            Ok(bytes) => Some(
                codec::decode_snapshot(&bytes).map_err(|d| OpenError::Corrupt {
                    path: storage.files.url(&snapshot_path),
                    reason: damage(&d),
                })?,
            ),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(io_err("reading", &snapshot_path, e)),
        };
        let snapshot_found = snapshot.is_some();
        let (revision, keys) = snapshot.unwrap_or((1, Vec::new()));
        recovery.snapshot_revision = if snapshot_found { revision } else { 0 };
        recovery.snapshot_keys = keys.len();
        let segments = segments(&storage, dir).map_err(|e| io_err("listing", dir, e))?;
        if !snapshot_found && !segments.is_empty() {
            return Err(OpenError::Corrupt {
                path: storage.files.url(dir),
                reason: "journal segments without a snapshot".into(),
            });
        }
        let first_lease = 0x1000 + (revision << 16);
        let mut store = MemStore::restored(revision, keys, first_lease, min_ttl_secs);
        store.allow_txn_ops(crate::MAX_TXN_OPS);
        let newest = segments.last().copied();
        if let Some(seq) = newest {
            let path = segment_path(dir, seq);
            // A log the previous process left open is fenced first (a no-op on local files).
            storage
                .logs
                .recover_lease(&path)
                .map_err(|e| io_err("recovering the lease of", &path, e))?;
            let bytes = read_log(&storage, &path).map_err(|e| io_err("reading", &path, e))?;
            let (replayed, torn) =
                replay(&mut store, &bytes).map_err(|reason| OpenError::Corrupt {
                    path: storage.logs.url(&path),
                    reason,
                })?;
            recovery.replayed = replayed;
            recovery.torn_bytes = torn;
        }
        recovery.leased_dropped = store.drop_leased();
        let seq = newest.map_or(1, |s| s + 1);
        write_snapshot(&storage, dir, &store)
            .map_err(|e| io_err("writing the snapshot in", dir, e))?;
        let log = start_segment(&storage, dir, seq, &segments)
            .map_err(|e| io_err("starting a journal segment in", dir, e))?;
        Ok((
            Journal {
                storage,
                dir: dir.to_path_buf(),
                seq,
                log,
                written: 0,
            },
            store,
            recovery,
        ))
    }

    /// Appends one record per revision and syncs them: when this returns `Ok`, they survive a
    /// crash.
    ///
    /// Requires: `changes` are the store's changes after the last appended revision, in order.
    ///
    /// # Errors
    /// Any I/O error: the records may or may not be durable; the journal must not be appended
    /// to again before [`Journal::resume`] succeeds.
    pub fn append(&mut self, changes: &[Event]) -> io::Result<()> {
        let mut buf = Vec::new();
        for group in changes.chunk_by(|a, b| a.kv.mod_revision == b.kv.mod_revision) {
            let revision = group[0].kv.mod_revision;
            buf.extend_from_slice(&codec::frame(&codec::encode_record(revision, group)));
        }
        if buf.is_empty() {
            return Ok(());
        }
        self.log.append(&buf)?;
        self.log.sync()?;
        self.written += buf.len() as u64;
        Ok(())
    }

    /// Bytes appended to the current segment.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Writes a snapshot of `store` and starts a new segment, removing the old one.
    ///
    /// Requires: every change of `store` was appended.
    ///
    /// # Errors
    /// [`CheckpointError::Snapshot`]: nothing changed, the journal goes on in its segment.
    /// [`CheckpointError::Segment`]: whether the new segment exists is unknown, so the journal
    /// must not be appended to again before [`Journal::resume`] succeeds.
    pub fn checkpoint(&mut self, store: &MemStore) -> Result<(), CheckpointError> {
        write_snapshot(&self.storage, &self.dir, store).map_err(CheckpointError::Snapshot)?;
        let seq = self.seq + 1;
        let log = start_segment(&self.storage, &self.dir, seq, &[self.seq])
            .map_err(CheckpointError::Segment)?;
        let mut old = std::mem::replace(&mut self.log, log);
        let _ = old.close();
        self.seq = seq;
        self.written = 0;
        Ok(())
    }

    /// Starts over after a failed append or checkpoint: writes a snapshot of `store` (which
    /// holds every change, acknowledged or not) and a new segment after every one in the
    /// directory, then removes the older ones. The write whose append failed becomes durable
    /// with the snapshot: its fate was unknown to its caller, as with etcd.
    ///
    /// Requires: `store` holds every record any segment in the directory holds (true of the
    /// store this journal was appending for).
    ///
    /// # Errors
    /// Any I/O error: the journal stays unusable; call again later.
    pub fn resume(&mut self, store: &MemStore) -> io::Result<()> {
        write_snapshot(&self.storage, &self.dir, store)?;
        let mut old = segments(&self.storage, &self.dir)?;
        if !old.contains(&self.seq) {
            old.push(self.seq);
        }
        // A failed checkpoint may have left segment `seq + 1` behind: start after all of them.
        let seq = old.iter().max().map_or(1, |s| s + 1);
        let log = start_segment(&self.storage, &self.dir, seq, &old)?;
        let mut broken = std::mem::replace(&mut self.log, log);
        let _ = broken.close();
        self.seq = seq;
        self.written = 0;
        Ok(())
    }
}

/// Why a checkpoint failed.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// The snapshot could not be written; the journal is intact.
    #[error("writing the snapshot: {0}")]
    Snapshot(io::Error),
    /// The new segment could not be started; the journal must be resumed before its next use.
    #[error("starting a journal segment: {0}")]
    Segment(io::Error),
}

/// Replaces the snapshot with `store`'s keys at its revision, atomically and durably.
fn write_snapshot(storage: &Storage, dir: &Path, store: &MemStore) -> io::Result<()> {
    let keys: Vec<_> = store.keys().collect();
    let snapshot = codec::encode_snapshot(store.revision(), keys.into_iter());
    storage.files.write_atomic(&dir.join(SNAPSHOT), &snapshot)
}

/// Creates segment `seq` durably, then removes the `old` segments (which the snapshot must
/// already cover: see the module's invariants).
fn start_segment(
    storage: &Storage,
    dir: &Path,
    seq: u64,
    old: &[u64],
) -> io::Result<Box<dyn LogFile>> {
    let log = storage.logs.create(&segment_path(dir, seq))?;
    storage.logs.sync_dir(dir)?;
    for &s in old {
        match storage.logs.remove(&segment_path(dir, s)) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            // Left for the next checkpoint: the snapshot covers it.
            Err(e) => tracing::warn!(segment = s, error = %e, "old journal segment not removed"),
        }
    }
    storage.logs.sync_dir(dir)?;
    Ok(log)
}

/// Applies the records of a segment past the store's revision. Returns how many were
/// replayed and how many bytes of an unfinished last write were dropped.
fn replay(store: &mut MemStore, bytes: &[u8]) -> Result<(usize, u64), String> {
    let mut at = 0usize;
    let mut replayed = 0;
    while at < bytes.len() {
        let (payload, used) = match codec::unframe(&bytes[at..]) {
            Ok(ok) => ok,
            Err(d) => {
                if let Some(next) = valid_frame_after(&bytes[at..]) {
                    return Err(format!(
                        "damaged record at byte {at} ({}) followed by a valid one at byte {}",
                        damage(&d),
                        at + next
                    ));
                }
                return Ok((replayed, (bytes.len() - at) as u64));
            }
        };
        let record = codec::decode_record(payload)
            .map_err(|d| format!("record at byte {at}: {}", damage(&d)))?;
        if record.revision > store.revision() {
            if record.revision != store.revision() + 1 {
                return Err(format!(
                    "record at byte {at} is revision {} after revision {}",
                    record.revision,
                    store.revision()
                ));
            }
            store.replay(record.revision, &record.changes);
            replayed += 1;
        }
        at += used;
    }
    Ok((replayed, 0))
}

/// Where a valid frame starts after the damaged one at the head of `rest`, judged by the
/// damaged frame's own length field: an unfinished write leaves nothing valid behind it.
fn valid_frame_after(rest: &[u8]) -> Option<usize> {
    if rest.len() < codec::FRAME_HEADER {
        return None;
    }
    let len = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
    let next = codec::FRAME_HEADER.checked_add(len)?;
    if next >= rest.len() {
        return None;
    }
    codec::unframe(&rest[next..])
        .ok()
        .filter(|(p, _)| codec::decode_record(p).is_ok())
        .map(|_| next)
}

fn damage(d: &Damage) -> String {
    match d {
        Damage::Truncated => "truncated".into(),
        Damage::Corrupt(why) => why.clone(),
    }
}

fn segment_path(dir: &Path, seq: u64) -> PathBuf {
    dir.join(format!("{SEGMENT_PREFIX}{seq:020}"))
}

/// The segments in `dir`, oldest first.
fn segments(storage: &Storage, dir: &Path) -> io::Result<Vec<u64>> {
    let mut out: Vec<u64> = storage
        .logs
        .list(dir)?
        .into_iter()
        .filter_map(|e| e.name.strip_prefix(SEGMENT_PREFIX)?.parse().ok())
        .collect();
    out.sort_unstable();
    Ok(out)
}

fn read_log(storage: &Storage, path: &Path) -> io::Result<Vec<u8>> {
    let source = storage.logs.open(path)?;
    let len = usize::try_from(source.size()?).map_err(|_| io::ErrorKind::InvalidData)?;
    Ok(source.read_at(0, len)?.to_vec())
}
