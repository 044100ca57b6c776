//! The memory tuner: one memory budget for memtables, the block cache and the row cache,
//! moved between them by load (Hypertable's memory split between its cell cache and block
//! cache; HBase's `HeapMemoryManager` and `DefaultHeapMemoryTuner`). See
//! `docs/rfcs/0031-memory-tuner.md`.
//!
//! - [`decide`]: the decision rule, a pure function of the sizes, the bounds and one period's
//!   signals (flush pressure, blocked writes, cache evictions and misses) with the memory of
//!   the previous moves (step size, revert);
//! - [`run`]: the server's side: every period, read the counters, ask the rule, resize the
//!   parts (the shrinking one first), count and log the move.
//!
//! # Invariants
//! 1. The three sizes add up to the budget the server started with, at every period's end;
//!    within a move the donor shrinks before the receiver grows, so the sum never exceeds it.
//! 2. No part leaves its bounds (a share of the budget, [`MemoryTunerConfig`]).
//! 3. Shrinking the memtable budget never puts what the memtables held at the period's peak
//!    past the new budget's flush mark: a move itself neither blocks a writer nor asks for a
//!    flush (the tuner asks for flushes first, and moves a period later, when memtables hold
//!    idle data it wants).

pub mod decide;
pub mod run;

#[cfg(test)]
mod tests;

use std::time::Duration;

pub use decide::{Decider, Move, Part, PartSignal, Period, Reason};
pub use run::{MemoryTuner, MoveRecord, Parts, TunerStats};

/// Smallest and largest share of the budget one part may have, in percent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShareBounds {
    /// Smallest share, percent.
    pub min_percent: u8,
    /// Largest share, percent.
    pub max_percent: u8,
}

impl ShareBounds {
    /// Bounds of `min_percent`–`max_percent`.
    pub const fn new(min_percent: u8, max_percent: u8) -> ShareBounds {
        ShareBounds {
            min_percent,
            max_percent,
        }
    }
}

/// The memory tuner's settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryTunerConfig {
    /// Whether the tuner runs (`--memory-tuner`); off by default: the split stays as
    /// configured.
    pub enabled: bool,
    /// Time between decisions; default 10 s (HBase's `hbase.regionserver.heapmemory.tuner.period`
    /// is a minute).
    pub period: Duration,
    /// The largest step, percent of the budget (HBase's `autotuner.step.max`, 4%); default 5.
    /// Steps halve when the direction reverses, down to an eighth of this.
    pub max_step_percent: u8,
    /// Bounds of the memtable budget's share; default 20–75%.
    pub memtables: ShareBounds,
    /// Bounds of the block cache's share; default 10–70%.
    pub block_cache: ShareBounds,
    /// Bounds of the row cache's share; default 2–50%.
    pub row_cache: ShareBounds,
}

impl Default for MemoryTunerConfig {
    fn default() -> MemoryTunerConfig {
        MemoryTunerConfig {
            enabled: false,
            period: Duration::from_secs(10),
            max_step_percent: 5,
            memtables: ShareBounds::new(20, 75),
            block_cache: ShareBounds::new(10, 70),
            row_cache: ShareBounds::new(2, 50),
        }
    }
}

impl MemoryTunerConfig {
    /// The bounds of `part`.
    pub fn bounds(&self, part: Part) -> ShareBounds {
        match part {
            Part::Memtables => self.memtables,
            Part::BlockCache => self.block_cache,
            Part::RowCache => self.row_cache,
        }
    }

    /// Checks these settings against the sizes a server starts with (`sizes[part]`, zero
    /// for a disabled cache, which the tuner then leaves out).
    ///
    /// # Errors
    /// A message naming the setting: bounds out of order or over 100%, a step out of 1–50%,
    /// a zero period, a part starting outside its bounds, or bounds that cannot add up to the
    /// budget.
    pub fn check(&self, sizes: [u64; 3]) -> Result<(), String> {
        if self.period.is_zero() {
            return Err("memory tuner: the period must be above zero".into());
        }
        if !(1..=50).contains(&self.max_step_percent) {
            return Err(format!(
                "memory tuner: the step must be 1–50% of the budget, not {}%",
                self.max_step_percent
            ));
        }
        if sizes.iter().filter(|&&s| s > 0).count() < 2 || sizes[Part::Memtables.index()] == 0 {
            return Err(
                "memory tuner: it moves memory between the memtable budget and a cache; \
                 the server has no block cache and no row cache"
                    .into(),
            );
        }
        let total: u64 = sizes.iter().sum();
        let (mut mins, mut maxes) = (0u64, 0u64);
        for part in Part::ALL {
            let b = self.bounds(part);
            if b.min_percent > b.max_percent || b.max_percent > 100 {
                return Err(format!(
                    "memory tuner: the {} share's bounds {}–{}% are out of order or over 100%",
                    part.name(),
                    b.min_percent,
                    b.max_percent
                ));
            }
            let size = sizes[part.index()];
            if size == 0 {
                continue;
            }
            let share = size as f64 * 100.0 / total as f64;
            if share < f64::from(b.min_percent) || share > f64::from(b.max_percent) {
                return Err(format!(
                    "memory tuner: the {} starts at {share:.1}% of the budget, outside its \
                     bounds {}–{}%",
                    part.name(),
                    b.min_percent,
                    b.max_percent
                ));
            }
            mins += u64::from(b.min_percent);
            maxes += u64::from(b.max_percent);
        }
        if mins > 100 || maxes < 100 {
            return Err(format!(
                "memory tuner: the parts' minimum shares add up to {mins}% and their maximum \
                 shares to {maxes}%; the budget needs at most 100% and at least 100%"
            ));
        }
        Ok(())
    }
}
