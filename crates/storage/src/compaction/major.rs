//! Periodic major compaction: when one is due, with HBase's deterministic jitter.
//!
//! Source: HBase `SortedCompactionPolicy.getNextMajorCompactTime`,
//! `RatioBasedCompactionPolicy.shouldPerformMajorCompaction` and
//! `StoreUtils.getDeterministicRandomSeed`. The jitter is seeded from the name of the store's
//! oldest file, so every store gets its own period (no cluster-wide major-compaction storm) and
//! a restart does not reshuffle it. The seed and the random draw are bit-for-bit Java's
//! (`String.hashCode`, `java.util.Random`), so a store reaches the same decision here as in
//! HBase for the same file names.

use super::plan::{sorted, FileMeta};

/// Settings of periodic major compaction for one family.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MajorConfig {
    /// `hbase.hregion.majorcompaction`: the period between major compactions, ms; 0 disables
    /// periodic majors. Default 7 days.
    pub period_ms: i64,
    /// `hbase.hregion.majorcompaction.jitter`: each store's period is drawn from
    /// `period ± period × jitter`. Default 0.5. An `f32`, as HBase reads it, so results match
    /// HBase's to the millisecond.
    pub jitter: f32,
    /// The family's TTL in ms, `None` for forever. Pass `None` when the family keeps
    /// `MIN_VERSIONS > 0` (HBase's `getStoreFileTtl`): expired cells then stay anyway.
    pub ttl_ms: Option<i64>,
}

impl Default for MajorConfig {
    fn default() -> Self {
        MajorConfig {
            // HConstants.DEFAULT_MAJOR_COMPACTION_PERIOD and DEFAULT_MAJOR_COMPACTION_JITTER.
            period_ms: 7 * 24 * 60 * 60 * 1000,
            jitter: 0.5,
            ttl_ms: None,
        }
    }
}

impl MajorConfig {
    /// Checks the settings.
    ///
    /// # Errors
    /// A message naming the bad setting.
    pub fn validate(&self) -> Result<(), String> {
        if self.period_ms < 0 {
            return Err(format!("major period {} ms is negative", self.period_ms));
        }
        if !(0.0..=1.0).contains(&self.jitter) {
            return Err(format!("major jitter {} is outside [0, 1]", self.jitter));
        }
        if self.ttl_ms.is_some_and(|t| t <= 0) {
            return Err("TTL must be positive".to_owned());
        }
        Ok(())
    }
}

/// This store's major-compaction period with its jitter applied, in ms; 0 means never
/// (periodic majors are off, or the store has no files).
pub fn jittered_period(files: &[FileMeta], config: &MajorConfig) -> i64 {
    jittered(&sorted(files), config)
}

pub(crate) fn jittered(files: &[&FileMeta], config: &MajorConfig) -> i64 {
    let mut period = config.period_ms;
    let jitter_pct = f64::from(config.jitter);
    if period > 0 && jitter_pct > 0.0 {
        let jitter = java_round(period as f64 * jitter_pct);
        match files.first() {
            Some(oldest) => {
                let rnd = java_random_next_double(java_string_hash(&oldest.name));
                period += jitter - java_round((2 * jitter) as f64 * rnd);
            }
            None => period = 0,
        }
    }
    period
}

/// Whether a periodic major compaction of `files` is due at `now_ms` (HBase's
/// `shouldPerformMajorCompaction`).
///
/// Due when the oldest file was written more than the jittered period ago and the store has
/// several files; a store of one file is due only when that file holds cells past the TTL
/// (recompacting it would otherwise only copy it).
pub fn major_due(files: &[FileMeta], config: &MajorConfig, now_ms: i64) -> bool {
    due(&sorted(files), config, now_ms)
}

/// [`major_due`] over files already in store order.
pub(crate) fn due(files: &[&FileMeta], config: &MajorConfig, now_ms: i64) -> bool {
    let period = jittered(files, config);
    if files.is_empty() || period == 0 {
        return false;
    }
    let lowest = files
        .iter()
        .map(|f| f.created_at_ms)
        .min()
        .unwrap_or(i64::MAX);
    if !(lowest > 0 && lowest < now_ms.saturating_sub(period)) {
        return false;
    }
    let [only] = files else {
        return true;
    };
    // Age of the oldest cell; i64::MIN for an empty file, as HBase's absent time range.
    let oldest = only
        .min_timestamp
        .map_or(i64::MIN, |ts| now_ms.saturating_sub(ts));
    // HBase skips a lone major result within its TTL (unless HDFS block locality is below
    // `min.locality.to.skip.major.compact`; Strata has no locality figure yet) and compacts a
    // lone file only for TTL: with a FOREVER TTL its `cfTTL != FOREVER && oldest > cfTTL` test
    // cannot hold. Both reduce to "some cell is past the TTL".
    config.ttl_ms.is_some_and(|ttl| oldest > ttl)
}

/// Java's `Math.round(double)`: half up, saturating.
fn java_round(x: f64) -> i64 {
    let floor = x.floor();
    let up = if x - floor >= 0.5 { 1.0 } else { 0.0 };
    (floor + up) as i64
}

/// Java's `String.hashCode` over UTF-16 code units.
pub(crate) fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// `new java.util.Random(seed).nextDouble()`: Java's 48-bit linear congruential generator.
pub(crate) fn java_random_next_double(seed: i32) -> f64 {
    const MULTIPLIER: i64 = 0x5_DEEC_E66D;
    const MASK: i64 = (1 << 48) - 1;
    let mut state = (i64::from(seed) ^ MULTIPLIER) & MASK;
    let mut next = |bits: u32| -> i64 {
        state = (state.wrapping_mul(MULTIPLIER).wrapping_add(0xB)) & MASK;
        state >> (48 - bits)
    };
    let high = next(26);
    let low = next(27);
    ((high << 27) + low) as f64 * (1.0 / (1u64 << 53) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected values printed by OpenJDK 17 (`new Random(s).nextDouble()`, `s.hashCode()`).
    #[test]
    fn java_random_matches_openjdk() {
        assert_eq!(java_random_next_double(0), 0.730967787376657);
        assert_eq!(java_random_next_double(42), 0.7275636800328681);
        assert_eq!(java_random_next_double(-7), 0.2691218093260761);
    }

    #[test]
    fn java_string_hash_matches_openjdk() {
        assert_eq!(java_string_hash("hello"), 99162322);
        assert_eq!(java_string_hash(""), 0);
        assert_eq!(java_string_hash("0000000000000000001-a1b2"), -1578227172);
        assert_eq!(java_string_hash("été"), 227742);
    }

    #[test]
    fn java_round_is_half_up() {
        assert_eq!(java_round(2.5), 3);
        assert_eq!(java_round(-2.5), -2);
        assert_eq!(java_round(2.4999), 2);
        assert_eq!(java_round(1e30), i64::MAX);
    }
}
