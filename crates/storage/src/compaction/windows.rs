//! Epoch-aligned compaction windows that grow by tiers (HBase's
//! `ExponentialCompactionWindowFactory`).
//!
//! A window is `(width, position)` and covers `[width × position, width × (position + 1))`.
//! The incoming window has the base width and holds `now`. Stepping back, a window stays in its
//! tier while its position is not a multiple of `windows_per_tier`, or while promoting would
//! reach past the max-tier-age cutoff; otherwise the next window is `windows_per_tier` times
//! wider. Promotion happens only at multiples, so every tier stays aligned to the epoch.
//!
//! Arithmetic is Java's (truncating `/` and `%`; subtractions saturate where Java's would wrap), with two guards HBase lacks: a tier width
//! that would overflow `i64` is never promoted to, and [`Window::earlier_until`] jumps over
//! runs of same-width windows instead of visiting each, so a far-past timestamp cannot make
//! selection loop for billions of steps.

use std::cmp::Ordering;

/// One compaction window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    width: i64,
    position: i64,
    windows_per_tier: i64,
    max_tier_age_cutoff: i64,
}

impl Window {
    /// The incoming (newest) window at `now`: base width, holding `now` (HBase:
    /// `getIncomingWindow`). `base_ms` and `windows_per_tier` are clamped to at least 1 and 2.
    pub fn incoming(now: i64, base_ms: i64, windows_per_tier: u32, max_tier_age_ms: i64) -> Window {
        let width = base_ms.max(1);
        Window {
            width,
            position: now / width,
            windows_per_tier: i64::from(windows_per_tier.max(2)),
            // Overflow means "always promote" (HBase: Long.MIN_VALUE).
            max_tier_age_cutoff: now.checked_sub(max_tier_age_ms).unwrap_or(i64::MIN),
        }
    }

    /// The window's width in ms.
    pub fn width(&self) -> i64 {
        self.width
    }

    /// First millisecond of the window (`i64::MIN` on overflow, as HBase).
    pub fn start(&self) -> i64 {
        self.width.checked_mul(self.position).unwrap_or(i64::MIN)
    }

    /// First millisecond after the window (`i64::MAX` on overflow, as HBase).
    pub fn end(&self) -> i64 {
        self.position
            .checked_add(1)
            .and_then(|p| self.width.checked_mul(p))
            .unwrap_or(i64::MAX)
    }

    /// Where `ts` lies: `Equal` inside the window, `Greater` when the window is newer than `ts`
    /// (ts is older), `Less` when `ts` is newer (HBase's `compareToTimestamp`).
    pub fn compare_to_timestamp(&self, ts: i64) -> Ordering {
        self.position.cmp(&self.position_of(ts))
    }

    /// The position of the window of this width holding `ts` (floor division).
    fn position_of(&self, ts: i64) -> i64 {
        let ts = if ts < 0 {
            ts.checked_sub(self.width - 1).unwrap_or(i64::MIN)
        } else {
            ts
        };
        ts / self.width
    }

    /// The width of the next tier, `None` when it would overflow.
    fn next_width(&self) -> Option<i64> {
        self.width.checked_mul(self.windows_per_tier)
    }

    /// Whether the window before this one has the same width.
    fn stays_in_tier(&self) -> bool {
        let Some(next) = self.next_width() else {
            return true;
        };
        self.position % self.windows_per_tier > 0
            || self.start().saturating_sub(next) < self.max_tier_age_cutoff
    }

    /// The window just before this one (HBase's `nextEarlierWindow`).
    pub fn next_earlier(&self) -> Window {
        match self.next_width() {
            Some(width) if !self.stays_in_tier() => Window {
                width,
                position: self.position / self.windows_per_tier - 1,
                ..*self
            },
            _ => Window {
                position: self.position.saturating_sub(1),
                ..*self
            },
        }
    }

    /// Steps back with [`Window::next_earlier`] until the window is not newer than `ts`; the
    /// same window as stepping one by one, in O(tiers) steps.
    pub fn earlier_until(mut self, ts: i64) -> Window {
        while self.compare_to_timestamp(ts) == Ordering::Greater {
            let target = self.position_of(ts);
            if !self.stays_in_tier() {
                self = self.next_earlier();
                continue;
            }
            // Same width down to the next multiple of windows_per_tier (where promotion is
            // checked again), or all the way when promotion is off for good.
            let frozen = self
                .next_width()
                .is_none_or(|next| self.start().saturating_sub(next) < self.max_tier_age_cutoff);
            let rem = self.position % self.windows_per_tier;
            let stop = if frozen || rem <= 0 {
                target
            } else {
                (self.position - rem).max(target)
            };
            self.position = stop.min(self.position.saturating_sub(1));
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: i64 = 3_600_000;

    #[test]
    fn tiers_grow_and_stay_aligned() {
        // base 1 h, 4 per tier, now = 10.5 h: incoming [10h, 11h).
        let mut w = Window::incoming(10 * H + H / 2, H, 4, i64::MAX);
        let mut seen = vec![];
        for _ in 0..8 {
            seen.push((w.start() / H, w.width() / H));
            w = w.next_earlier();
        }
        // 10, 9, 8 (multiple of 4 → promote), [4h,8h), [0,4h), then 16 h wide: [-16h, 0)...
        assert_eq!(
            seen,
            vec![
                (10, 1),
                (9, 1),
                (8, 1),
                (4, 4),
                (0, 4),
                (-16, 16),
                (-64, 64),
                (-256, 256)
            ]
        );
    }

    #[test]
    fn negative_timestamps_floor() {
        // Incoming at 0 is position 0, a multiple of 4: the next window is [-4h, 0).
        let w = Window::incoming(0, H, 4, i64::MAX).next_earlier();
        assert_eq!((w.start(), w.end()), (-4 * H, 0));
        assert_eq!(w.compare_to_timestamp(-4 * H), Ordering::Equal);
        assert_eq!(w.compare_to_timestamp(-4 * H - 1), Ordering::Greater);
        assert_eq!(w.compare_to_timestamp(0), Ordering::Less);
        assert_eq!(w.compare_to_timestamp(i64::MIN), Ordering::Greater);
    }

    #[test]
    fn max_tier_age_stops_promotion() {
        // Cutoff at 6 h: windows whose promotion would start before it keep 1 h.
        let w = Window::incoming(10 * H, H, 4, 4 * H);
        let w = w.next_earlier().next_earlier(); // [8h, 9h)
        assert_eq!(w.next_earlier().width(), H);
    }

    #[test]
    fn jumping_equals_stepping() {
        for (now, age, ts) in [
            (1000 * H, i64::MAX, 3 * H),
            (1000 * H, 100 * H, -5000 * H),
            (7, i64::MAX, i64::MIN),
            (-50 * H, 10 * H, -900 * H),
        ] {
            let start = Window::incoming(now, H, 4, age);
            let mut step = start;
            let mut n = 0;
            while step.compare_to_timestamp(ts) == Ordering::Greater && n < 100_000 {
                step = step.next_earlier();
                n += 1;
            }
            if n < 100_000 {
                assert_eq!(start.earlier_until(ts), step, "{now} {age} {ts}");
            }
            assert_ne!(
                start.earlier_until(ts).compare_to_timestamp(ts),
                Ordering::Greater
            );
        }
    }
}
