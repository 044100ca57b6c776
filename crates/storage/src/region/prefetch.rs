//! Reading store files into the block cache as they open, for families with
//! `PREFETCH_BLOCKS_ON_OPEN` (HBase's `PrefetchExecutor`): region opens, flushes, compactions
//! and bulk loads hand their new files to one process-wide thread, started on first use,
//! which reads them one after another at the process's CPU priority (unlike compactions: the
//! reads it saves are requests' own, and a prefetch at the lowest priority would barely
//! progress while requests keep the CPUs busy, as after a restart or a move under load).
//! Requests hold no file open: a file its store has let go of (compacted away, its region
//! closed or moved) is skipped, or stops being read at its next block. Reference and link
//! files (a split's daughters, a snapshot's clone) are not prefetched, as in HBase:
//! compactions rewrite them.

use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, OnceLock, Weak};
use std::time::Instant;

use super::store::FileHandle;

/// The prefetch thread's queue; `None` when the thread could not be started.
static LANE: OnceLock<Option<Sender<Weak<FileHandle>>>> = OnceLock::new();

/// Queues `file` to be read into the block cache.
pub(crate) fn request(file: &Arc<FileHandle>) {
    let lane = LANE.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Weak<FileHandle>>();
        let started = std::thread::Builder::new()
            .name("strata-prefetch".into())
            .spawn(move || {
                for file in rx {
                    prefetch(&file);
                }
            });
        match started {
            Ok(_) => Some(tx),
            Err(e) => {
                tracing::warn!(error = %e, "no prefetch thread: files open without prefetching");
                None
            }
        }
    });
    if let Some(tx) = lane {
        // The thread lives as long as the process, so the queue never closes.
        let _ = tx.send(Arc::downgrade(file));
    }
}

/// Reads one file's blocks, unless its store let go of it.
fn prefetch(file: &Weak<FileHandle>) {
    let Some(file) = file.upgrade() else {
        return;
    };
    // Only this thread holds the file once its store dropped it.
    let released = || Arc::strong_count(&file) == 1;
    if released() {
        return;
    }
    let started = Instant::now();
    match file.reader.prefetch(&released) {
        Ok(done) => tracing::debug!(
            file = %file.meta.name,
            blocks = done.blocks,
            bytes = done.bytes,
            complete = done.complete,
            ms = started.elapsed().as_millis() as u64,
            "prefetched"
        ),
        // A file closed meanwhile (its region moved, a shared store's lease lost) may fail to
        // read; a file still open that fails will fail its reads too, which report it.
        Err(e) if released() => {
            tracing::debug!(file = %file.meta.name, error = %e, "prefetch ended")
        }
        Err(e) => tracing::warn!(file = %file.meta.name, error = %e, "prefetch failed"),
    }
}
