//! [`read_fenced`]: the entries of a dead writer's log, read once and left as they are.
//!
//! Splitting a dead server's WAL needs its entries once, in log order. Opening it as a
//! [`Wal`](super::Wal) would read every segment twice (the scan on open, then the replay),
//! cut a torn tail and create a new segment in a directory that is about to be deleted; this
//! reads each segment once and writes nothing. A torn tail is tolerated where an open would
//! cut it (the last segment holding records, and any later one); damage elsewhere is
//! corruption.

use std::io;
use std::path::{Path, PathBuf};

use super::entry::Entry;
use super::error::{Error, Result};
use super::open::list_segments;
use super::reader::{ReadOptions, SegmentReader};
use super::record::SEGMENT_HEADER_LEN;
use super::writer::segment_path;
use crate::vfs::LogStore;

/// The entries of the log in `dir`, in log order, from the segments' lengths once their
/// leases are recovered (a no-op for closed ones: the log's writer must be fenced). A
/// missing directory is an empty log.
///
/// # Errors
/// [`Error::Io`] if the directory cannot be listed or a lease recovered. Reads and
/// corruption are reported by the iterator.
pub fn read_fenced<'a>(
    store: &'a dyn LogStore,
    dir: &Path,
    skip_corrupt: bool,
) -> Result<Fenced<'a>> {
    let found = match list_segments(store, dir) {
        Ok(found) => found,
        Err(Error::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e),
    };
    let last_with_records = found
        .iter()
        .rev()
        .find(|(_, len)| *len > SEGMENT_HEADER_LEN as u64)
        .map(|(id, _)| *id);
    let segments = found
        .iter()
        .map(|&(id, _)| {
            let options = ReadOptions {
                tolerate_torn_tail: last_with_records.is_none_or(|last| id >= last),
                skip_corrupt,
            };
            (id, segment_path(dir, id), options)
        })
        .collect::<Vec<_>>();
    Ok(Fenced {
        store,
        segments: segments.into_iter(),
        reader: None,
        done: false,
    })
}

/// Iterator over a fenced log's entries; made by [`read_fenced`]. Yields `Err` at most once,
/// then ends.
pub struct Fenced<'a> {
    store: &'a dyn LogStore,
    segments: std::vec::IntoIter<(u64, PathBuf, ReadOptions)>,
    reader: Option<SegmentReader>,
    done: bool,
}

impl Iterator for Fenced<'_> {
    type Item = Result<Entry>;

    fn next(&mut self) -> Option<Result<Entry>> {
        while !self.done {
            let Some(reader) = &mut self.reader else {
                let Some((id, path, options)) = self.segments.next() else {
                    self.done = true;
                    break;
                };
                match SegmentReader::open_in(self.store, &path, Some(id), options) {
                    Ok(r) => self.reader = Some(r),
                    Err(e) => {
                        self.done = true;
                        return Some(Err(e));
                    }
                }
                continue;
            };
            match reader.next_entry() {
                Ok(Some((_, entry))) => return Some(Ok(entry)),
                Ok(None) => self.reader = None,
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::sync::Arc;

    use strata_model::schema::Durability;

    use super::*;
    use crate::vfs::Local;
    use crate::wal::{Wal, WalOptions};

    fn entry(region: u64, seq: u64) -> Entry {
        Entry {
            region,
            seq,
            cells: Vec::new(),
            nonce: None,
        }
    }

    fn read(dir: &Path) -> Vec<(u64, u64)> {
        read_fenced(&Local, dir, false)
            .unwrap()
            .map(|e| e.map(|e| (e.region, e.seq)).unwrap())
            .collect()
    }

    #[test]
    fn reads_every_segment_once_in_order_and_writes_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let options = WalOptions {
            segment_size: 4096,
            ..WalOptions::default()
        };
        let wal = Wal::open_with(tmp.path(), options, Arc::new(Local)).unwrap();
        let written: Vec<(u64, u64)> = (1..=400).map(|s| (s % 3, s)).collect();
        for &(region, seq) in &written {
            wal.append(&entry(region, seq), Durability::SyncWal)
                .unwrap();
        }
        wal.close().unwrap();
        let before = std::fs::read_dir(tmp.path()).unwrap().count();
        assert!(before > 2, "the log rolled: {before} segments");
        assert_eq!(read(tmp.path()), written);
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), before);
    }

    #[test]
    fn a_torn_tail_of_the_last_segment_ends_the_log_and_stays() {
        let tmp = tempfile::tempdir().unwrap();
        let wal = Wal::open_with(tmp.path(), WalOptions::default(), Arc::new(Local)).unwrap();
        for seq in 1..=3 {
            wal.append(&entry(7, seq), Durability::SyncWal).unwrap();
        }
        wal.close().unwrap();
        let segment = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .max()
            .unwrap();
        let len = std::fs::metadata(&segment).unwrap().len();
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(&segment)
            .unwrap();
        file.set_len(len - 3).unwrap();
        assert_eq!(read(tmp.path()), vec![(7, 1), (7, 2)]);
        assert_eq!(std::fs::metadata(&segment).unwrap().len(), len - 3);
    }

    #[test]
    fn a_missing_directory_is_an_empty_log() {
        let tmp = tempfile::tempdir().unwrap();
        assert!(read(&tmp.path().join("gone")).is_empty());
    }

    #[test]
    fn damage_before_the_last_segment_is_corruption() {
        let tmp = tempfile::tempdir().unwrap();
        let options = WalOptions {
            segment_size: 4096,
            ..WalOptions::default()
        };
        let wal = Wal::open_with(tmp.path(), options, Arc::new(Local)).unwrap();
        for seq in 1..=400 {
            wal.append(&entry(1, seq), Durability::SyncWal).unwrap();
        }
        wal.close().unwrap();
        let mut segments: Vec<PathBuf> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        segments.sort();
        let first = &segments[0];
        let mut bytes = std::fs::read(first).unwrap();
        let at = bytes.len() - 2;
        bytes[at] ^= 0xff;
        std::fs::write(first, bytes).unwrap();
        let results: Vec<Result<Entry>> = read_fenced(&Local, tmp.path(), false).unwrap().collect();
        assert!(
            results.last().unwrap().is_err(),
            "damage in an older segment fails"
        );
    }
}
