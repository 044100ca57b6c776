//! [`TimeRange`]: the timestamps a read sees.

use super::OpError;
use crate::cell::Timestamp;

/// A half-open range of timestamps `[min, max)`, as HBase's `TimeRange`.
/// Requires: `0 <= min < max`. The default is every timestamp, `[0, i64::MAX)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimeRange {
    /// Smallest timestamp included.
    pub min: Timestamp,
    /// Smallest timestamp excluded.
    pub max: Timestamp,
}

impl TimeRange {
    /// Every timestamp.
    pub const ALL: TimeRange = TimeRange {
        min: 0,
        max: Timestamp::MAX,
    };

    /// `[min, max)`.
    ///
    /// # Errors
    /// [`OpError::InvalidTimeRange`] unless `0 <= min < max`.
    pub fn new(min: Timestamp, max: Timestamp) -> Result<TimeRange, OpError> {
        let range = TimeRange { min, max };
        range.validate()?;
        Ok(range)
    }

    /// Exactly one timestamp, `[ts, ts + 1)`.
    ///
    /// # Errors
    /// [`OpError::InvalidTimeRange`] for a negative `ts` or `i64::MAX`.
    pub fn at(ts: Timestamp) -> Result<TimeRange, OpError> {
        TimeRange::new(ts, ts.saturating_add(1))
    }

    /// Every timestamp from `min` on.
    ///
    /// # Errors
    /// [`OpError::InvalidTimeRange`] for a negative `min` or `i64::MAX`.
    pub fn since(min: Timestamp) -> Result<TimeRange, OpError> {
        TimeRange::new(min, Timestamp::MAX)
    }

    /// Every timestamp before `max`.
    ///
    /// # Errors
    /// [`OpError::InvalidTimeRange`] unless `max > 0`.
    pub fn before(max: Timestamp) -> Result<TimeRange, OpError> {
        TimeRange::new(0, max)
    }

    /// Checks `0 <= min < max`.
    ///
    /// # Errors
    /// [`OpError::InvalidTimeRange`].
    pub fn validate(&self) -> Result<(), OpError> {
        if 0 <= self.min && self.min < self.max {
            Ok(())
        } else {
            Err(OpError::InvalidTimeRange {
                min: self.min,
                max: self.max,
            })
        }
    }

    /// True if `ts` is in the range.
    pub fn contains(&self, ts: Timestamp) -> bool {
        self.min <= ts && ts < self.max
    }

    /// True for the default, unrestricted range.
    pub fn is_all(&self) -> bool {
        *self == TimeRange::ALL
    }

    /// True if some timestamp in the inclusive span `[first, last]` (a store file's min and
    /// max timestamps) is in the range; a read may skip the file otherwise.
    pub fn overlaps(&self, first: Timestamp, last: Timestamp) -> bool {
        first < self.max && last >= self.min
    }
}

impl Default for TimeRange {
    fn default() -> Self {
        TimeRange::ALL
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_half_open() {
        let r = TimeRange::new(10, 20).unwrap();
        assert!(r.contains(10) && r.contains(19) && !r.contains(20) && !r.contains(9));
        assert!(r.overlaps(0, 10) && r.overlaps(19, 30) && !r.overlaps(20, 30));
        assert!(!r.overlaps(0, 9));
        assert_eq!(TimeRange::at(5).unwrap(), TimeRange { min: 5, max: 6 });
        assert!(TimeRange::default().is_all());
    }

    #[test]
    fn bad_ranges_are_rejected() {
        assert_eq!(
            TimeRange::new(5, 5).unwrap_err().to_string(),
            "time range [5, 5) is invalid: requires 0 <= min < max"
        );
        assert!(TimeRange::new(-1, 5).is_err());
        assert!(TimeRange::at(i64::MAX).is_err());
        assert!(TimeRange::before(0).is_err());
        assert!(TimeRange::since(0).unwrap().is_all());
    }
}
