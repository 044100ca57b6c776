//! The decision rule on chosen periods: who gives, who takes, bounds, steps, reverts; and the
//! settings' checks.

use std::time::Duration;

use super::decide::RESTART_AFTER;
use super::*;

const MIB: u64 = 1 << 20;
/// A budget of 100 MiB: percentages are MiB.
const TOTAL: u64 = 100 * MIB;

fn config() -> MemoryTunerConfig {
    MemoryTunerConfig {
        enabled: true,
        ..MemoryTunerConfig::default()
    }
}

fn decider() -> Decider {
    Decider::new(TOTAL, &config())
}

/// One percent of the budget, as the decider computes shares.
fn pct(n: u64) -> u64 {
    TOTAL / 100 * n
}

/// A period at sizes (memtables, block cache, row cache) in percent, with no activity.
fn at(sizes: [u64; 3]) -> Period {
    Period {
        sizes: sizes.map(pct),
        signals: [PartSignal::default(); 3],
    }
}

/// Memtables flushed for pressure (and, with `blocked`, writers waited), at peak `used_pct`.
fn writes(mut p: Period, used_pct: u64, blocked: u64) -> Period {
    p.signals[0] = PartSignal {
        used: pct(used_pct),
        pressure: 3,
        waits: blocked,
    };
    p
}

/// `part`'s cache full and evicting, with `misses` misses.
fn reads(mut p: Period, part: Part, misses: u64) -> Period {
    p.signals[part.index()] = PartSignal {
        used: p.sizes[part.index()],
        pressure: misses / 2 + 1,
        waits: misses,
    };
    p
}

fn apply(p: &Period, mv: &Move) -> [u64; 3] {
    let mut s = p.sizes;
    s[mv.from.index()] -= mv.bytes;
    s[mv.to.index()] += mv.bytes;
    s
}

#[test]
fn a_quiet_server_moves_nothing() {
    let mut d = decider();
    assert_eq!(d.decide(&at([50, 30, 20])), None);
    // Busy but not full: a cache that evicts while under half used is not short.
    let mut p = at([50, 30, 20]);
    p.signals[1] = PartSignal {
        used: pct(10),
        pressure: 5,
        waits: 100,
    };
    assert_eq!(d.decide(&p), None);
}

#[test]
fn flush_pressure_takes_from_the_part_with_the_most_unused_memory() {
    let mut d = decider();
    let mut p = writes(at([50, 30, 20]), 48, 0);
    p.signals[1].used = pct(30); // the block cache is full (but does not evict)
    p.signals[2].used = pct(1); // the row cache is nearly empty
    let mv = d.decide(&p).expect("a move");
    assert_eq!(
        mv,
        Move {
            from: Part::RowCache,
            to: Part::Memtables,
            bytes: pct(5),
            reason: Reason::FlushPressure,
        }
    );
}

#[test]
fn cache_misses_take_from_idle_memtables() {
    let mut d = decider();
    let mut p = reads(at([50, 30, 20]), Part::BlockCache, 1000);
    p.signals[0].used = pct(5);
    p.signals[2].used = pct(19); // the row cache is full but does not evict
    let mv = d.decide(&p).expect("a move");
    assert_eq!(
        (mv.from, mv.to, mv.bytes, mv.reason),
        (
            Part::Memtables,
            Part::BlockCache,
            pct(5),
            Reason::CacheMisses
        )
    );
}

#[test]
fn blocked_writes_come_before_misses_and_misses_before_flush_pressure() {
    let mut d = decider();
    let base = writes(reads(at([50, 30, 20]), Part::BlockCache, 1000), 60, 0);
    let mv = d.decide(&base).expect("a move");
    assert_eq!((mv.to, mv.reason), (Part::BlockCache, Reason::CacheMisses));
    assert_eq!(mv.from, Part::RowCache, "the only part with enough");

    let mut d = decider();
    let blocked = writes(reads(at([50, 30, 20]), Part::BlockCache, 1000), 100, 7);
    let mv = d.decide(&blocked).expect("a move");
    assert_eq!((mv.to, mv.reason), (Part::Memtables, Reason::BlockedWrites));
}

#[test]
fn the_cache_with_more_misses_receives() {
    let mut d = decider();
    let p = reads(
        reads(at([50, 30, 20]), Part::BlockCache, 10),
        Part::RowCache,
        500,
    );
    let mv = d.decide(&p).expect("a move");
    assert_eq!((mv.from, mv.to), (Part::Memtables, Part::RowCache));
}

#[test]
fn with_every_part_short_only_blocked_writes_move_memory() {
    let mut d = decider();
    let all = writes(
        reads(
            reads(at([50, 30, 20]), Part::BlockCache, 900),
            Part::RowCache,
            50,
        ),
        70,
        0,
    );
    assert_eq!(d.decide(&all), None, "no donor, nobody waits for memory");
    let blocked = writes(
        reads(
            reads(at([50, 30, 20]), Part::BlockCache, 900),
            Part::RowCache,
            50,
        ),
        100,
        4,
    );
    let mv = d.decide(&blocked).expect("a move");
    assert_eq!(
        (mv.from, mv.to, mv.reason),
        (Part::RowCache, Part::Memtables, Reason::BlockedWrites),
        "from the cache whose misses cost fewer reads"
    );
}

#[test]
fn bounds_hold_through_a_long_write_phase_and_a_long_read_phase() {
    let cfg = config();
    let mut d = decider();
    let mut sizes = [50, 30, 20].map(pct);
    for _ in 0..100 {
        let mut p = writes(
            Period {
                sizes,
                signals: [PartSignal::default(); 3],
            },
            0,
            0,
        );
        p.signals[0].used = sizes[0];
        if let Some(mv) = d.decide(&p) {
            sizes = apply(&p, &mv);
        }
    }
    assert_eq!(sizes[0], pct(u64::from(cfg.memtables.max_percent)));
    assert_eq!(sizes.iter().sum::<u64>(), pct(100));
    for part in Part::ALL {
        let b = cfg.bounds(part);
        assert!(
            sizes[part.index()] >= pct(u64::from(b.min_percent)),
            "{sizes:?}"
        );
        assert!(
            sizes[part.index()] <= pct(u64::from(b.max_percent)),
            "{sizes:?}"
        );
    }
    for _ in 0..100 {
        let mut p = reads(
            Period {
                sizes,
                signals: [PartSignal::default(); 3],
            },
            Part::BlockCache,
            1000,
        );
        p.signals[0].used = 0; // flushed, idle
        if let Some(mv) = d.decide(&p) {
            assert_eq!(mv.to, Part::BlockCache);
            sizes = apply(&p, &mv);
        }
    }
    assert_eq!(sizes[1], pct(u64::from(cfg.block_cache.max_percent)));
    assert_eq!(sizes.iter().sum::<u64>(), pct(100));
    for part in Part::ALL {
        let b = cfg.bounds(part);
        assert!(
            sizes[part.index()] >= pct(u64::from(b.min_percent)),
            "{sizes:?}"
        );
        assert!(
            sizes[part.index()] <= pct(u64::from(b.max_percent)),
            "{sizes:?}"
        );
    }
}

#[test]
fn a_move_that_made_its_donor_short_without_helping_is_reverted() {
    let mut d = decider();
    let mut p = reads(at([50, 30, 20]), Part::BlockCache, 1000);
    p.signals[0].used = pct(10);
    p.signals[2].used = pct(20); // full, no evictions: enough, but no room
    let first = d.decide(&p).expect("a move");
    assert_eq!((first.from, first.to), (Part::Memtables, Part::BlockCache));
    // Next period: memtables now flush for pressure, and the block cache misses as much.
    let sizes = apply(&p, &first);
    let next = writes(
        reads(
            Period {
                sizes,
                signals: [PartSignal::default(); 3],
            },
            Part::BlockCache,
            1000,
        ),
        40,
        0,
    );
    let step_before = d.step();
    let back = d.decide(&next).expect("a revert");
    assert_eq!(
        back,
        Move {
            from: Part::BlockCache,
            to: Part::Memtables,
            bytes: first.bytes,
            reason: Reason::Revert,
        }
    );
    assert_eq!(d.step(), step_before / 2, "a revert halves the step");
}

#[test]
fn a_move_that_helped_its_receiver_stays() {
    let mut d = decider();
    let mut p = reads(at([50, 30, 20]), Part::BlockCache, 1000);
    p.signals[0].used = pct(10);
    p.signals[2].used = pct(20);
    let first = d.decide(&p).expect("a move");
    let sizes = apply(&p, &first);
    // Memtables became short, but the cache's misses fell: no revert; the cache, still the
    // costlier shortage, keeps receiving (from the row cache: memtables are short now).
    let next = writes(
        reads(
            Period {
                sizes,
                signals: [PartSignal::default(); 3],
            },
            Part::BlockCache,
            100,
        ),
        40,
        0,
    );
    assert_ne!(d.decide(&next).map(|m| m.reason), Some(Reason::Revert));
}

#[test]
fn steps_halve_on_each_reversal_and_restart_after_quiet_periods() {
    let mut d = decider();
    let max = d.step();
    assert_eq!(max, pct(5));
    let mut sizes = [50, 30, 20].map(pct);
    let mut expected = max;
    // Alternate a write period and a read period, each making the other part short only
    // after the move was judged (so no revert): each reversal halves the step.
    for round in 0..2 {
        let mut w = writes(
            Period {
                sizes,
                signals: [PartSignal::default(); 3],
            },
            30,
            0,
        );
        w.signals[2].used = sizes[2];
        let mv = d.decide(&w).expect("write move");
        assert_eq!((mv.from, mv.to), (Part::BlockCache, Part::Memtables));
        if round > 0 {
            expected /= 2;
        }
        assert_eq!(mv.bytes, expected, "round {round}");
        sizes = apply(&w, &mv);
        let mut r = reads(
            Period {
                sizes,
                signals: [PartSignal::default(); 3],
            },
            Part::BlockCache,
            1000,
        );
        r.signals[0].used = 0;
        r.signals[2].used = sizes[2];
        let mv = d.decide(&r).expect("read move");
        assert_eq!((mv.from, mv.to), (Part::Memtables, Part::BlockCache));
        expected /= 2;
        assert_eq!(mv.bytes, expected, "round {round}");
        sizes = apply(&r, &mv);
    }
    // Below an eighth of the largest step nothing moves ...
    let mut w = writes(
        Period {
            sizes,
            signals: [PartSignal::default(); 3],
        },
        30,
        0,
    );
    w.signals[2].used = sizes[2];
    assert_eq!(d.decide(&w), None);
    // ... until quiet periods restart the steps at the largest.
    for _ in 1..RESTART_AFTER {
        assert_eq!(d.decide(&at([50, 30, 20])), None);
    }
    assert_eq!(d.step(), max);
    assert_eq!(d.decide(&w).map(|m| m.bytes), Some(max));
}

#[test]
fn memtables_holding_idle_data_ask_for_flushes_before_they_give() {
    let mut d = decider();
    let mut p = reads(at([50, 30, 20]), Part::BlockCache, 1000);
    p.signals[0].used = pct(44); // idle data, no pressure
    p.signals[2].used = pct(20);
    let mv = d.decide(&p).expect("what the memtables can give now");
    assert_eq!((mv.from, mv.to), (Part::Memtables, Part::BlockCache));
    let after = pct(50) - mv.bytes;
    assert!(
        pct(44) * 100 / 90 <= after,
        "the peak stays under the new flush mark"
    );
    let wanted = d.flush_wanted().expect("flushes asked for");
    assert_eq!(
        wanted,
        pct(45) / 100 * 90,
        "down to the full step's flush mark"
    );
    // Once flushed, the rest moves.
    let mut later = reads(
        Period {
            sizes: apply(&p, &mv),
            signals: [PartSignal::default(); 3],
        },
        Part::BlockCache,
        1000,
    );
    later.signals[2].used = later.sizes[2];
    later.signals[0].used = pct(2);
    assert!(d.decide(&later).is_some());
    assert_eq!(d.flush_wanted(), None);
}

#[test]
fn a_missing_cache_never_gives_nor_takes() {
    let mut d = decider();
    let mut p = writes(at([70, 30, 0]), 60, 0);
    p.signals[1].used = pct(30);
    let mv = d.decide(&p).expect("from the block cache");
    assert_eq!(mv.from, Part::BlockCache);
}

#[test]
fn settings_are_checked_against_the_starting_split() {
    let c = config();
    assert_eq!(c.check([512 * MIB, 256 * MIB, 128 * MIB]), Ok(()));
    let err = c.check([90 * MIB, 5 * MIB, 5 * MIB]).expect_err("outside");
    assert!(err.contains("memtables starts at 90.0%"), "{err}");
    let err = c.check([100 * MIB, 0, 0]).expect_err("nothing to move");
    assert!(err.contains("no block cache and no row cache"), "{err}");
    let mut bad = config();
    bad.block_cache.min_percent = 80;
    let err = bad
        .check([50 * MIB, 30 * MIB, 20 * MIB])
        .expect_err("order");
    assert!(err.contains("out of order"), "{err}");
    let mut bad = config();
    bad.period = Duration::ZERO;
    assert!(bad.check([50 * MIB, 30 * MIB, 20 * MIB]).is_err());
    let mut bad = config();
    bad.memtables = ShareBounds::new(50, 50);
    bad.block_cache = ShareBounds::new(30, 30);
    bad.row_cache = ShareBounds::new(10, 10);
    let err = bad.check([50 * MIB, 30 * MIB, 10 * MIB]);
    // 50/90 = 55.6% is outside 50–50%.
    assert!(err.is_err());
}
