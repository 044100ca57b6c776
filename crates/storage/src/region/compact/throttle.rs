//! Write throttling while a store has too many files (HBase's blocking store files).

use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use bytes::Bytes;

use crate::compaction::exploring::MajorRequest;
use crate::compaction::too_many_files;
use crate::error::Result;
use crate::region::Region;

impl Region {
    /// True when some store has more files than the blocking count.
    pub fn has_too_many_files(&self) -> bool {
        self.crowded_store().is_some()
    }

    /// The first store with more files than the blocking count.
    fn crowded_store(&self) -> Option<&Bytes> {
        let blocking = self.compaction_options().exploring.blocking_file_count;
        self.inner
            .stores
            .iter()
            .find(|(_, s)| too_many_files(s.files.read().len(), blocking))
            .map(|(name, _)| name)
    }

    /// Waits until no store has more files than the blocking count, or `timeout`. Returns
    /// whether the pressure is gone. Compactions wake the waiters when they end.
    ///
    /// # Errors
    /// The region was closed.
    pub fn wait_for_compaction_pressure(&self, timeout: Duration) -> Result<bool> {
        let state = &self.inner.compactions;
        let deadline = Instant::now() + timeout;
        // Checked under the lock compactions notify with, so no wake-up falls between the
        // check and the wait.
        let mut guard = state.compacting.lock();
        loop {
            self.check_open()?;
            if !self.has_too_many_files() {
                return Ok(true);
            }
            if state
                .files_changed
                .wait_until(&mut guard, deadline)
                .timed_out()
            {
                return Ok(!self.has_too_many_files());
            }
        }
    }

    /// The write path's backpressure (HBase's blocking store files): while a store has too
    /// many files, the writer compacts it itself when no compaction is running there (as a
    /// flush runs on the writing thread without a background pool), then waits for
    /// compactions up to `blocking_wait`, then goes ahead: writes are slowed, never failed.
    ///
    /// Requires: no row lock held (compactions and other writers must progress).
    ///
    /// While compactions are off ([`Region::compactions_off`]) nothing could lower the file
    /// count, so writes go ahead at once (HBase instead delays each flush up to its blocking
    /// wait; RFC 0005).
    ///
    /// # Errors
    /// The region was closed.
    pub(crate) fn throttle_writes(&self) -> Result<()> {
        if self.compactions_off() {
            return Ok(());
        }
        let Some(family) = self.crowded_store() else {
            return Ok(());
        };
        let counters = &self.inner.compactions.counters;
        counters.writes_delayed.fetch_add(1, Ordering::Relaxed);
        let idle = {
            let compacting = self.inner.compactions.compacting.lock();
            compacting.get(family).is_none_or(HashSet::is_empty)
        };
        if idle {
            // A failed compaction must not fail the write; the wait below bounds the delay.
            let _ = self.compact_store(family, MajorRequest::None);
        }
        let wait = self.compaction_options().blocking_wait;
        if !self.wait_for_compaction_pressure(wait)? {
            counters
                .writes_delay_timeouts
                .fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    }
}
