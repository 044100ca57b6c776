//! The timestamps a region gives the cells written without one: the clock's reading, but
//! never older than the newest stamp the region gave out or opened with.
//!
//! A wall clock can be stepped back (NTP correcting a clock that ran ahead), and a region
//! can move from a server whose clock runs ahead to one whose clock does not. Stamped by the
//! clock alone, a put after either would sort below the row's previous version, and reads
//! would answer the older value: an acknowledged write lost to readers, a stale read. So
//! the region keeps the newest stamp as a floor (ties are ordered by sequence id, newest
//! first, as for increments); while the clock reads earlier than the floor, writes share
//! the floor's stamp until the clock catches up.

use std::sync::atomic::Ordering;

use super::Region;

/// A timestamp further ahead of the opening server's clock than this is taken as the
/// client's own (a put at a chosen time), not a clock's, and does not raise the floor: a
/// client's far-future version would otherwise hold every later write at its stamp.
pub(crate) const MAX_CLOCK_AHEAD_MS: i64 = 5 * 60 * 1000;

impl Region {
    /// The timestamp of a write that names none (see the module's documentation).
    pub(crate) fn stamp_now(&self) -> i64 {
        let now = self.inner.config.clock.now_ms();
        let floor = self.inner.newest_stamp.fetch_max(now, Ordering::AcqRel);
        floor.max(now)
    }
}

/// The floor a region opens with: the newest of `stamps` (its files' newest timestamps, its
/// replayed edits' timestamps) that is not further than [`MAX_CLOCK_AHEAD_MS`] ahead of `now`.
pub(crate) fn opening_floor(now: i64, stamps: impl IntoIterator<Item = i64>) -> i64 {
    let bound = now.saturating_add(MAX_CLOCK_AHEAD_MS);
    stamps
        .into_iter()
        .filter(|&ts| ts <= bound)
        .fold(i64::MIN, i64::max)
}
