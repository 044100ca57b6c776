//! [`Replay`]: the entries of the segments found on open, in log order, for recovery.

use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use super::entry::Entry;
use super::error::{Error, Result};
use super::reader::{ReadOptions, SegmentReader};
use crate::vfs::LogStore;

/// Iterator over replayed entries; made by [`Wal::replay`](super::Wal::replay).
///
/// Yields `Err` at most once, then ends. A segment deleted while replaying (because every
/// region in it flushed past it) is passed over: nothing in it is needed.
///
/// Thread safety: a plain value; use from one thread at a time.
pub struct Replay<F> {
    store: Arc<dyn LogStore>,
    segments: std::vec::IntoIter<(u64, PathBuf)>,
    reader: Option<SegmentReader>,
    skip_corrupt: bool,
    flushed: F,
    done: bool,
}

impl<F: FnMut(u64) -> Option<u64>> Replay<F> {
    pub(crate) fn new(
        store: Arc<dyn LogStore>,
        segments: Vec<(u64, PathBuf)>,
        skip_corrupt: bool,
        flushed: F,
    ) -> Self {
        Replay {
            store,
            segments: segments.into_iter(),
            reader: None,
            skip_corrupt,
            flushed,
            done: false,
        }
    }

    fn fail(&mut self, e: Error) -> Option<Result<Entry>> {
        self.done = true;
        Some(Err(e))
    }
}

impl<F: FnMut(u64) -> Option<u64>> Iterator for Replay<F> {
    type Item = Result<Entry>;

    fn next(&mut self) -> Option<Result<Entry>> {
        while !self.done {
            let Some(reader) = &mut self.reader else {
                let Some((id, path)) = self.segments.next() else {
                    self.done = true;
                    break;
                };
                // Torn tails were cut on open, so every segment must now read cleanly.
                let options = ReadOptions {
                    tolerate_torn_tail: false,
                    skip_corrupt: self.skip_corrupt,
                };
                match SegmentReader::open_in(self.store.as_ref(), &path, Some(id), options) {
                    Ok(r) => self.reader = Some(r),
                    Err(Error::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => {}
                    Err(e) => return self.fail(e),
                }
                continue;
            };
            match reader.next_entry() {
                Ok(Some((_, entry))) => {
                    if (self.flushed)(entry.region).is_some_and(|f| entry.seq > f) {
                        return Some(Ok(entry));
                    }
                }
                Ok(None) => self.reader = None,
                Err(e) => return self.fail(e),
            }
        }
        None
    }
}
