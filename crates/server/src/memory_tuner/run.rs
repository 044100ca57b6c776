//! The server's side of the tuner: each period, read the parts' counters, ask the rule
//! ([`super::decide`]), resize the parts, and keep what moved for metrics and logs.
//!
//! Thread safety: [`MemoryTuner::tick`] runs on the tuner's own thread (one at a time, under
//! a lock); the resizes it makes are safe while requests read and write (the caches evict
//! under their shards' locks, the memtable budget is an atomic limit).

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use strata_sstable::BlockCache;
use strata_storage::background::MemoryBudget;

use super::decide::{Decider, Move, Part, PartSignal, Period, Reason};
use super::MemoryTunerConfig;
use crate::row_cache::RowCache;

/// How many recent moves [`TunerStats::recent`] keeps.
const RECENT_MOVES: usize = 32;

/// One move as it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveRecord {
    /// Time since the tuner started.
    pub at: Duration,
    /// The move.
    pub mv: Move,
    /// The three sizes after it, in bytes.
    pub sizes: [u64; 3],
}

/// What the tuner did, for metrics and `status`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TunerStats {
    /// Whether it runs.
    pub enabled: bool,
    /// Periods decided.
    pub periods: u64,
    /// Moves so far, by (from, to, reason).
    pub moves: BTreeMap<(Part, Part, Reason), u64>,
    /// The latest moves, oldest first.
    pub recent: Vec<MoveRecord>,
}

/// Counter readings at a period's end.
#[derive(Clone, Copy, Debug, Default)]
struct Readings {
    pressure_flushes: u64,
    blocked_writes: u64,
    evictions: [u64; 2],
    misses: [u64; 2],
}

struct State {
    decider: Decider,
    last: Readings,
}

/// The memory tuner of one server.
pub struct MemoryTuner {
    config: MemoryTunerConfig,
    started: Instant,
    state: Mutex<State>,
    periods: AtomicU64,
    moves: Mutex<BTreeMap<(Part, Part, Reason), u64>>,
    recent: Mutex<VecDeque<MoveRecord>>,
}

/// The parts a tuner resizes.
pub struct Parts<'a> {
    /// The memtable budget.
    pub budget: &'a MemoryBudget,
    /// The block cache, if the server has one.
    pub block_cache: Option<&'a BlockCache>,
    /// The row cache, if the server has one.
    pub row_cache: Option<&'a RowCache>,
}

impl Parts<'_> {
    /// Each part's size now (zero for a missing cache).
    pub fn sizes(&self) -> [u64; 3] {
        [
            self.budget.limit(),
            self.block_cache.map_or(0, BlockCache::capacity),
            self.row_cache.map_or(0, |c| c.stats().capacity),
        ]
    }

    fn readings(&self) -> Readings {
        let b = self.block_cache.map(BlockCache::stats).unwrap_or_default();
        let r = self.row_cache.map(RowCache::stats).unwrap_or_default();
        Readings {
            pressure_flushes: self.budget.pressure_flushes(),
            blocked_writes: self.budget.blocked_writes(),
            evictions: [b.evictions, r.evictions],
            misses: [b.data_misses + b.meta_misses, r.misses],
        }
    }

    fn cache_used(&self) -> [u64; 2] {
        [
            self.block_cache.map_or(0, |c| c.stats().used),
            self.row_cache.map_or(0, |c| c.stats().bytes),
        ]
    }

    fn resize(&self, part: Part, bytes: u64) {
        match part {
            Part::Memtables => self.budget.set_limit(bytes),
            Part::BlockCache => {
                if let Some(c) = self.block_cache {
                    c.set_capacity(bytes);
                }
            }
            Part::RowCache => {
                if let Some(c) = self.row_cache {
                    c.set_capacity(bytes);
                }
            }
        }
    }
}

impl MemoryTuner {
    /// A tuner over `parts` as they are now (their sum is the budget it keeps).
    pub fn new(config: MemoryTunerConfig, parts: &Parts<'_>) -> MemoryTuner {
        let total = parts.sizes().iter().sum();
        MemoryTuner {
            config,
            started: Instant::now(),
            state: Mutex::new(State {
                decider: Decider::new(total, &config),
                last: parts.readings(),
            }),
            periods: AtomicU64::new(0),
            moves: Mutex::new(BTreeMap::new()),
            recent: Mutex::new(VecDeque::new()),
        }
    }

    /// Its settings.
    pub fn config(&self) -> &MemoryTunerConfig {
        &self.config
    }

    /// One period: reads the counters since the previous one, decides, and applies the
    /// move (the donor shrinks first). Returns the move made, if any.
    pub fn tick(&self, parts: &Parts<'_>) -> Option<Move> {
        let mut state = self.state.lock();
        let now = parts.readings();
        let last = std::mem::replace(&mut state.last, now);
        let used = parts.cache_used();
        let cache = |i: usize| PartSignal {
            used: used[i],
            pressure: now.evictions[i].saturating_sub(last.evictions[i]),
            waits: now.misses[i].saturating_sub(last.misses[i]),
        };
        let period = Period {
            sizes: parts.sizes(),
            signals: [
                PartSignal {
                    used: parts.budget.take_peak(),
                    pressure: now.pressure_flushes.saturating_sub(last.pressure_flushes),
                    waits: now.blocked_writes.saturating_sub(last.blocked_writes),
                },
                cache(0),
                cache(1),
            ],
        };
        self.periods.fetch_add(1, Ordering::Relaxed);
        let decided = state.decider.decide(&period);
        if let Some(target) = state.decider.flush_wanted() {
            parts.budget.flush_down_to(target);
        }
        let mv = decided?;
        let mut sizes = period.sizes;
        sizes[mv.from.index()] -= mv.bytes;
        sizes[mv.to.index()] += mv.bytes;
        parts.resize(mv.from, sizes[mv.from.index()]);
        parts.resize(mv.to, sizes[mv.to.index()]);
        drop(state);
        self.record(mv, sizes, &period);
        Some(mv)
    }

    fn record(&self, mv: Move, sizes: [u64; 3], period: &Period) {
        *self
            .moves
            .lock()
            .entry((mv.from, mv.to, mv.reason))
            .or_default() += 1;
        let mut recent = self.recent.lock();
        if recent.len() == RECENT_MOVES {
            recent.pop_front();
        }
        recent.push_back(MoveRecord {
            at: self.started.elapsed(),
            mv,
            sizes,
        });
        drop(recent);
        let [m, b, r] = period.signals;
        tracing::info!(
            from = mv.from.name(),
            to = mv.to.name(),
            bytes = mv.bytes,
            reason = mv.reason.name(),
            memtables = sizes[0],
            block_cache = sizes[1],
            row_cache = sizes[2],
            pressure_flushes = m.pressure,
            blocked_writes = m.waits,
            block_cache_evictions = b.pressure,
            block_cache_misses = b.waits,
            row_cache_evictions = r.pressure,
            row_cache_misses = r.waits,
            "memory tuner moved memory"
        );
    }

    /// Periods decided, moves so far and the latest ones.
    pub fn stats(&self) -> TunerStats {
        TunerStats {
            enabled: self.config.enabled,
            periods: self.periods.load(Ordering::Relaxed),
            moves: self.moves.lock().clone(),
            recent: self.recent.lock().iter().copied().collect(),
        }
    }
}
