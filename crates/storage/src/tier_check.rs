//! The periodic tier check: every interval, each open region is asked whether a store file
//! sits on another tier than its placement asks for now (a date-tiered window that aged past
//! its warm or cold age), and the regions where one does get a tier move on the background
//! pool. Without it an idle region moved aged windows only at its next compaction check
//! (hours apart), a flush or a user `compact`.
//!
//! A check reads only the regions' file lists and the clock ([`Region::tier_moves_due`]): no
//! store is listed or read when nothing is due, so a short interval costs next to nothing.
//!
//! Thread safety: one thread of its own ([`Periodic`]) runs the checks; [`TierChecker`] is
//! `Send + Sync` and stopping it (or dropping it) wakes and joins that thread.

use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::periodic::Periodic;
use crate::region::Region;

/// The regions to check, asked for at every round (the server's open regions).
pub type RegionList = Arc<dyn Fn() -> Vec<Region> + Send + Sync>;

/// What the checks did since start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TierCheckStats {
    /// Rounds run.
    pub rounds: u64,
    /// Regions checked, over all rounds.
    pub regions_checked: u64,
    /// Regions that had a file to move and got a tier move.
    pub moves_requested: u64,
    /// Time spent checking, in nanoseconds (the moves themselves run on the pool).
    pub check_nanos: u64,
}

#[derive(Default)]
struct Counters {
    rounds: AtomicU64,
    regions_checked: AtomicU64,
    moves_requested: AtomicU64,
    check_nanos: AtomicU64,
}

/// A thread asking every open region for its due tier moves once per interval.
pub struct TierChecker {
    counters: Arc<Counters>,
    periodic: Periodic,
}

impl TierChecker {
    /// The interval servers use unless told otherwise: five minutes, so an aged window
    /// leaves its tier within minutes on an idle region.
    pub const DEFAULT_EVERY: Duration = Duration::from_secs(300);

    /// Starts checking `regions` every `every` (the first round one interval from now).
    ///
    /// # Errors
    /// `every` is zero, or the thread cannot be started.
    pub fn start(every: Duration, regions: RegionList) -> io::Result<TierChecker> {
        let counters = Arc::new(Counters::default());
        let c = counters.clone();
        let periodic = Periodic::start("strata-tier-check", every, move || {
            let started = Instant::now();
            let list = regions();
            let due = check_round(&list);
            let nanos = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
            c.check_nanos.fetch_add(nanos, Ordering::Relaxed);
            c.regions_checked
                .fetch_add(list.len() as u64, Ordering::Relaxed);
            c.moves_requested.fetch_add(due as u64, Ordering::Relaxed);
            // Last, so a caller that sees the round sees its figures.
            c.rounds.fetch_add(1, Ordering::Relaxed);
        })?;
        Ok(TierChecker { counters, periodic })
    }

    /// What the checks did so far.
    pub fn stats(&self) -> TierCheckStats {
        let c = &self.counters;
        TierCheckStats {
            rounds: c.rounds.load(Ordering::Relaxed),
            regions_checked: c.regions_checked.load(Ordering::Relaxed),
            moves_requested: c.moves_requested.load(Ordering::Relaxed),
            check_nanos: c.check_nanos.load(Ordering::Relaxed),
        }
    }

    /// Stops the checks and waits for a round in progress to end. Idempotent.
    pub fn stop(&self) {
        self.periodic.stop();
    }
}

/// Asks each of `regions` for its due tier moves; returns how many had some.
pub fn check_round(regions: &[Region]) -> usize {
    regions.iter().filter(|r| r.request_tier_moves()).count()
}
