//! Opening a WAL: scan every segment, cut the torn tail of the last one, rebuild what each
//! segment holds per region, and start a fresh active segment.
//!
//! Only the last segment that holds more than a header may end torn: older segments were
//! complete and fsync'd before a newer one was created, so damage in them is corruption.
//! Later, header-only (or shorter) segments are left-overs of an open or a roll that a crash
//! interrupted, and hold nothing.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use parking_lot::{Condvar, Mutex};

use super::error::{Error, Result};
use super::group_commit::Queue;
use super::log::{Shared, Wal};
use super::options::WalOptions;
use super::reader::{ReadOptions, SegmentReader};
use super::record::SEGMENT_HEADER_LEN;
use super::segments::{Segment, SegmentSet};
use super::stats::Counters;
use super::writer::{parse_segment_name, segment_path, Writer};
use crate::vfs::{Local, LogStore};

impl Wal {
    /// Opens (creating if needed) the WAL in `dir` on the local file system.
    ///
    /// # Errors
    /// As [`open_with`](Self::open_with).
    pub fn open(dir: impl AsRef<Path>, options: WalOptions) -> Result<Wal> {
        Wal::open_with(dir, options, Arc::new(Local))
    }

    /// Opens (creating if needed) the WAL in `dir`, writing through `fs`. Checks every
    /// segment, cuts a torn tail off the last one (physically, before anything is appended),
    /// and starts a new segment for appends. Entries found are read with
    /// [`replay`](Self::replay).
    ///
    /// Requires: no other `Wal` has `dir` open, in this process or another.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for bad options; [`Error::Corruption`] naming the file and
    /// offset of a bad record that is not a torn tail (unless `options.skip_corrupt`);
    /// [`Error::Io`] if the directory cannot be listed or a segment read, cut or created.
    pub fn open_with(
        dir: impl AsRef<Path>,
        options: WalOptions,
        fs: Arc<dyn LogStore>,
    ) -> Result<Wal> {
        options.validate()?;
        let dir = dir.as_ref().to_owned();
        fs.create_dir_all(&dir)
            .map_err(|e| Error::io("create", &dir, e))?;
        let found = list_segments(fs.as_ref(), &dir)?;
        let last_with_records = found
            .iter()
            .rev()
            .find(|(_, len)| *len > SEGMENT_HEADER_LEN as u64)
            .map(|(id, _)| *id);

        let counters = Counters::default();
        let mut segments = SegmentSet::default();
        let mut recovered = Vec::new();
        for &(id, _) in &found {
            let path = segment_path(&dir, id);
            let read = ReadOptions {
                tolerate_torn_tail: last_with_records.is_none_or(|last| id >= last),
                skip_corrupt: options.skip_corrupt,
            };
            match recover_segment(fs.as_ref(), &path, id, read, &counters)? {
                Some(segment) => {
                    recovered.push((id, path));
                    segments.insert_closed(id, segment);
                }
                None => fs
                    .remove(&path)
                    .map_err(|e| Error::io("remove", &path, e))?,
            }
        }

        let next_id = found.last().map_or(1, |(id, _)| id + 1);
        let writer = Writer::create(
            Arc::clone(&fs),
            &dir,
            next_id,
            options.segment_size,
            &counters,
        )?;
        segments.activate(next_id, writer.path(), SEGMENT_HEADER_LEN as u64);
        let shared = Arc::new(Shared {
            options,
            dir,
            fs,
            queue: Mutex::new(Queue::new()),
            batch_done: [Condvar::new(), Condvar::new()],
            finished: AtomicU64::new(0),
            flusher_wake: Condvar::new(),
            writer: Mutex::new(writer),
            segments: Mutex::new(segments),
            counters,
        });
        // Segments without entries are not needed by anyone. Best effort: one that cannot be
        // deleted now is retried at the next flush mark.
        let _ = shared.delete_obsolete();
        Wal::from_parts(shared, recovered)
    }
}

/// The segment files in `dir` as (id, length), by id. Other files are ignored. A dead
/// writer's logs are fenced first, so their lengths are final.
pub(super) fn list_segments(fs: &dyn LogStore, dir: &Path) -> Result<Vec<(u64, u64)>> {
    let mut found = Vec::new();
    for item in fs.list(dir).map_err(|e| Error::io("list", dir, e))? {
        let Some(id) = parse_segment_name(&item.name) else {
            continue;
        };
        found.push((id, item.len));
    }
    found.sort_unstable();
    if found.is_empty() {
        return Ok(found);
    }
    // A previous writer may have left segments open (it died, or a roll could not close the
    // old one): fence them so their lengths are final. A no-op for closed logs.
    let mut reopened = false;
    for &(id, _) in &found {
        let path = segment_path(dir, id);
        reopened |= fs
            .recover_lease(&path)
            .map_err(|e| Error::io("recover the lease of", &path, e))?;
    }
    if !reopened {
        return Ok(found);
    }
    let lengths: HashMap<u64, u64> = fs
        .list(dir)
        .map_err(|e| Error::io("list", dir, e))?
        .into_iter()
        .filter_map(|e| Some((parse_segment_name(&e.name)?, e.len)))
        .collect();
    for (id, len) in &mut found {
        if let Some(l) = lengths.get(id) {
            *len = *l;
        }
    }
    Ok(found)
}

/// Scans one segment: the newest sequence id per region, a torn tail cut off. `None` when the
/// segment holds nothing (torn before its header was complete) and should be removed.
fn recover_segment(
    fs: &dyn LogStore,
    path: &Path,
    id: u64,
    read: ReadOptions,
    counters: &Counters,
) -> Result<Option<Segment>> {
    let mut reader = SegmentReader::open_in(fs, path, Some(id), read)?;
    let mut max_seq: HashMap<u64, u64> = HashMap::new();
    while let Some((_, entry)) = reader.next_entry()? {
        let max = max_seq.entry(entry.region).or_insert(entry.seq);
        *max = (*max).max(entry.seq);
    }
    Counters::add(&counters.corrupt_skipped, reader.corrupt_skipped());
    let len = reader.file_len();
    let Some(torn_at) = reader.torn_at() else {
        return Ok(Some(Segment {
            path: path.to_owned(),
            bytes: len,
            max_seq,
        }));
    };
    Counters::add(&counters.truncated_bytes, len - torn_at);
    if torn_at < SEGMENT_HEADER_LEN as u64 {
        return Ok(None);
    }
    fs.cut(path, torn_at)
        .map_err(|e| Error::io("truncate", path, e))?;
    Ok(Some(Segment {
        path: PathBuf::from(path),
        bytes: torn_at,
        max_seq,
    }))
}
