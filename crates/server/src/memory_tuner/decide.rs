//! The decision rule: from one period's signals, move one step of the budget from a part
//! that has enough to a part that is short, or nothing.
//!
//! A part is *short* when it is both busy and full: memtables when the budget asked for
//! flushes (or a writer waited) in the period and their peak held at least half their
//! budget; a cache when it evicted in the period and holds at least half its capacity
//! (HBase's `sufficient.memory.level`, 0.5). Every other part has *enough*.
//!
//! Which short part receives, by what its shortage costs a caller: a write that waited for
//! memory first (`blocked_writes`), then the cache whose misses made more reads wait for a
//! file or a region read (`cache_misses`), then memtables flushed early for memory pressure,
//! which no caller waits for but which make small files and more compaction
//! (`flush_pressure`). The donor is the part with enough that has the most unused bytes, and
//! gives at most what its bounds allow. Memtables never give below their period's peak use:
//! when memtables that are not short hold more than a step leaves them, the rule asks for
//! flushes down to that ([`Decider::flush_wanted`]) and moves the rest a period later, once
//! the memory is free, so no writer waits for a move. With no donor, only blocked writes move memory (from the cache with fewer misses), as HBase's
//! tuner does for blocked flushes.
//!
//! A move is reverted the next period when it made its donor short and did not lower the
//! receiver's shortage (HBase reverts a step that did not help). Steps start at the largest,
//! halve each time the direction reverses, and come back to the largest after
//! [`RESTART_AFTER`] periods without a move; below an eighth of the largest, nothing moves.

/// Periods without a move after which steps start again at the largest (HBase restarts at
/// its largest step when the recent periods were neutral).
pub const RESTART_AFTER: u32 = 3;

use strata_storage::background::FLUSH_MARK_PERCENT;

/// Percent of its size a part must use to count as full (HBase's sufficient memory level).
const FULL_PERCENT: u64 = 50;

/// A part of the budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Part {
    /// The memtable budget (`MemoryBudget`).
    Memtables,
    /// The block cache.
    BlockCache,
    /// The row cache.
    RowCache,
}

impl Part {
    /// Every part, in index order.
    pub const ALL: [Part; 3] = [Part::Memtables, Part::BlockCache, Part::RowCache];

    /// Its position in size and signal arrays.
    pub fn index(self) -> usize {
        match self {
            Part::Memtables => 0,
            Part::BlockCache => 1,
            Part::RowCache => 2,
        }
    }

    /// Its name in metrics and logs.
    pub fn name(self) -> &'static str {
        match self {
            Part::Memtables => "memtables",
            Part::BlockCache => "block_cache",
            Part::RowCache => "row_cache",
        }
    }
}

/// Why memory moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reason {
    /// Writers waited for memtable memory.
    BlockedWrites,
    /// A full cache evicted, and its misses made reads wait.
    CacheMisses,
    /// The memtable budget asked for flushes before regions reached their flush size.
    FlushPressure,
    /// The previous move made its donor short without helping its receiver.
    Revert,
}

impl Reason {
    /// Its name in metrics and logs.
    pub fn name(self) -> &'static str {
        match self {
            Reason::BlockedWrites => "blocked_writes",
            Reason::CacheMisses => "cache_misses",
            Reason::FlushPressure => "flush_pressure",
            Reason::Revert => "revert",
        }
    }
}

/// One move: `bytes` of the budget from one part to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    /// The part that shrinks.
    pub from: Part,
    /// The part that grows.
    pub to: Part,
    /// Bytes moved.
    pub bytes: u64,
    /// Why.
    pub reason: Reason,
}

/// One part's signals over a period.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PartSignal {
    /// Bytes in use: the memtables' peak in the period; a cache's bytes held at its end.
    pub used: u64,
    /// Memtables: times the budget asked for flushes; a cache: evictions.
    pub pressure: u64,
    /// Callers that waited because the part was short. Memtables: writes that waited for
    /// memory; a cache: misses.
    pub waits: u64,
}

impl PartSignal {
    fn demand(&self) -> u64 {
        self.pressure + self.waits
    }
}

/// What the tuner saw in one period.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Period {
    /// Each part's size now, in bytes; zero for a part the server runs without (a disabled
    /// cache), which never gives or receives.
    pub sizes: [u64; 3],
    /// Each part's signals.
    pub signals: [PartSignal; 3],
}

impl Period {
    fn signal(&self, part: Part) -> &PartSignal {
        &self.signals[part.index()]
    }

    fn size(&self, part: Part) -> u64 {
        self.sizes[part.index()]
    }

    fn present(&self, part: Part) -> bool {
        self.size(part) > 0
    }

    /// Busy and full (see the module documentation).
    pub fn short(&self, part: Part) -> bool {
        let s = self.signal(part);
        self.present(part)
            && s.demand() > 0
            && s.used.saturating_mul(100) >= self.size(part).saturating_mul(FULL_PERCENT)
    }
}

/// The previous period's move, to judge it.
#[derive(Clone, Copy, Debug)]
struct Judged {
    mv: Move,
    donor_was_short: bool,
    receiver_demand: u64,
}

/// The rule with its memory of earlier periods.
#[derive(Clone, Debug)]
pub struct Decider {
    min: [u64; 3],
    max: [u64; 3],
    max_step: u64,
    min_step: u64,
    step: u64,
    /// The move of the period just before, if it moved.
    previous: Option<Judged>,
    /// The direction of the last move, until steps restart.
    last_direction: Option<(Part, Part)>,
    quiet_periods: u32,
    /// Memtable bytes the last decision wants flushed down to, so memtables can give.
    flush_wanted: Option<u64>,
}

impl Decider {
    /// A rule over a budget of `total` bytes, with each part's bounds in bytes and the
    /// largest step in bytes.
    pub fn new(total: u64, config: &super::MemoryTunerConfig) -> Decider {
        let share = |percent: u8| total / 100 * u64::from(percent);
        let mut min = [0; 3];
        let mut max = [0; 3];
        for part in Part::ALL {
            let b = config.bounds(part);
            min[part.index()] = share(b.min_percent);
            max[part.index()] = share(b.max_percent);
        }
        let max_step = share(config.max_step_percent).max(1);
        Decider {
            min,
            max,
            max_step,
            min_step: (max_step / 8).max(1),
            step: max_step,
            previous: None,
            last_direction: None,
            quiet_periods: 0,
            flush_wanted: None,
        }
    }

    /// After [`decide`](Self::decide): the memtable use, in bytes, that flushes should bring
    /// the memtables down to so that they can give a whole step next period (none when they
    /// are not the donor or have the room already).
    pub fn flush_wanted(&self) -> Option<u64> {
        self.flush_wanted
    }

    /// The step the next move would take, in bytes.
    pub fn step(&self) -> u64 {
        self.step
    }

    /// Decides this period's move, if any. The caller applies it (donor first).
    pub fn decide(&mut self, period: &Period) -> Option<Move> {
        self.flush_wanted = None;
        let previous = self.previous.take();
        let decided = previous
            .and_then(|judged| self.revert(period, judged))
            .or_else(|| self.choose(period));
        match decided {
            Some(mv) => {
                self.quiet_periods = 0;
                self.last_direction = Some((mv.from, mv.to));
                self.previous = Some(Judged {
                    mv,
                    donor_was_short: period.short(mv.from),
                    receiver_demand: period.signal(mv.to).demand(),
                });
            }
            None => {
                self.quiet_periods += 1;
                if self.quiet_periods >= RESTART_AFTER {
                    self.step = self.max_step;
                    self.last_direction = None;
                }
            }
        }
        decided
    }

    /// The previous move back, if it made its donor short and its receiver no better off.
    fn revert(&mut self, period: &Period, judged: Judged) -> Option<Move> {
        let Judged {
            mv,
            donor_was_short,
            receiver_demand,
        } = judged;
        let hurt = !donor_was_short && period.short(mv.from);
        let helped = period.signal(mv.to).demand() < receiver_demand;
        if mv.reason == Reason::Revert || !hurt || helped {
            return None;
        }
        self.step = (self.step / 2).max(1);
        let bytes = self
            .room(period, mv.to, mv.from, mv.bytes)
            .min(self.in_use_room(period, mv.to, u64::MAX));
        (bytes > 0).then_some(Move {
            from: mv.to,
            to: mv.from,
            bytes,
            reason: Reason::Revert,
        })
    }

    fn choose(&mut self, period: &Period) -> Option<Move> {
        let short: Vec<Part> = Part::ALL
            .into_iter()
            .filter(|&p| period.short(p) && period.size(p) < self.max[p.index()])
            .collect();
        let blocked = period.signal(Part::Memtables).waits > 0 && short.contains(&Part::Memtables);
        let cache = short
            .iter()
            .copied()
            .filter(|&p| p != Part::Memtables)
            .max_by_key(|&p| (period.signal(p).waits, std::cmp::Reverse(p.index())));
        let (to, reason) = if blocked {
            (Part::Memtables, Reason::BlockedWrites)
        } else if let Some(cache) = cache {
            (cache, Reason::CacheMisses)
        } else if short.contains(&Part::Memtables) {
            (Part::Memtables, Reason::FlushPressure)
        } else {
            return None;
        };
        let donor = Part::ALL
            .into_iter()
            .filter(|&p| {
                p != to
                    && period.present(p)
                    && !period.short(p)
                    && period.size(p) > self.min[p.index()]
            })
            .max_by_key(|&p| {
                let free = period.size(p).saturating_sub(period.signal(p).used);
                (free, std::cmp::Reverse(p.index()))
            });
        let from = match donor {
            Some(d) => d,
            // Every other part is short too: only writers waiting move memory, from the
            // cache whose misses cost fewer reads.
            None if reason == Reason::BlockedWrites => Part::ALL
                .into_iter()
                .filter(|&p| {
                    p != Part::Memtables
                        && period.present(p)
                        && period.size(p) > self.min[p.index()]
                })
                .min_by_key(|&p| (period.signal(p).waits, p.index()))?,
            None => return None,
        };
        if self.last_direction == Some((to, from)) {
            // The opposite of the last move: closing in on a balance, so smaller steps.
            self.step /= 2;
        }
        if self.step < self.min_step {
            return None;
        }
        let by_bounds = self.room(period, from, to, self.step);
        let bytes = self.in_use_room(period, from, by_bounds);
        if bytes < by_bounds {
            let size_after = period.size(from) - by_bounds;
            self.flush_wanted = Some(size_after / 100 * FLUSH_MARK_PERCENT);
        }
        (bytes > 0).then_some(Move {
            from,
            to,
            bytes,
            reason,
        })
    }

    /// At most `wanted` bytes that `from` can give and `to` can take within their bounds.
    fn room(&self, period: &Period, from: Part, to: Part, wanted: u64) -> u64 {
        let give = period.size(from).saturating_sub(self.min[from.index()]);
        let take = self.max[to.index()].saturating_sub(period.size(to));
        wanted.min(give).min(take)
    }

    /// At most `wanted` bytes, and for memtables no more than leaves their peak use below
    /// the budget's flush mark (so the move itself asks for no flush).
    fn in_use_room(&self, period: &Period, from: Part, wanted: u64) -> u64 {
        if from == Part::Memtables {
            let needed = period.signal(from).used.saturating_mul(100) / FLUSH_MARK_PERCENT;
            wanted.min(period.size(from).saturating_sub(needed))
        } else {
            wanted
        }
    }
}
