//! [`Scan`]: read a range of rows.

#[cfg(test)]
mod tests;

use std::ops::Bound;

use bytes::Bytes;

use super::check::check_row;
use super::{Columns, Filter, OpError, TimeRange};

/// Reads rows in order (HBase's `Scan`).
///
/// Row bounds follow HBase: `start_row` is inclusive and `stop_row` exclusive (inclusive with
/// `include_stop_row`), an empty one is open. In a **reversed** scan rows come in descending
/// order, so `start_row` is the *upper* (still inclusive) bound and `stop_row` the lower one. [`Scan::bounds`] gives the
/// range in ascending terms, with `prefix` applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scan {
    /// First row returned (inclusive); empty: from the start (the end, if reversed).
    pub start_row: Bytes,
    /// Row where the scan stops (exclusive unless `include_stop_row`); empty: to the end (the
    /// start, if reversed).
    pub stop_row: Bytes,
    /// Return `stop_row` itself too (HBase's `withStopRow(row, true)`), in either direction.
    pub include_stop_row: bool,
    /// Only rows starting with this prefix; empty: no restriction. Intersected with the
    /// start/stop bounds.
    pub prefix: Bytes,
    /// Descending row order.
    pub reversed: bool,
    /// Only versions with timestamps in this range. Default: all.
    pub time_range: TimeRange,
    /// Most versions returned per column. Default 1; the family's `VERSIONS` still caps it.
    pub max_versions: u32,
    /// Most rows returned in total; `None`: no limit.
    pub limit: Option<u64>,
    /// Rows fetched per round trip (HBase's `caching`); `None`: the server's default.
    pub caching: Option<u32>,
    /// Most cells per returned result, splitting wide rows (HBase's `batch`); `None`: whole
    /// rows. Not allowed with filters that need whole rows.
    pub batch: Option<u32>,
    /// Which columns; empty means all.
    pub columns: Columns,
    /// A server-side filter.
    pub filter: Option<Filter>,
    /// Let the blocks read be cached. Default true (set false for one-off full scans).
    pub cache_blocks: bool,
    /// Return delete markers and the cells they mask too (HBase's `raw`): every cell up to
    /// `max_versions` puts a column, which the family's `VERSIONS` does not cap. Selects
    /// whole families only.
    pub raw: bool,
    /// Most cells returned per family of each row (HBase's `maxResultsPerColumnFamily`),
    /// counted after versions and the filter; `None`: no limit.
    pub max_results_per_family: Option<u32>,
    /// Cells skipped at the start of each family of each row (HBase's
    /// `rowOffsetPerColumnFamily`). Default 0.
    pub offset_per_family: u32,
}

impl Default for Scan {
    fn default() -> Self {
        Scan {
            start_row: Bytes::new(),
            stop_row: Bytes::new(),
            include_stop_row: false,
            prefix: Bytes::new(),
            reversed: false,
            time_range: TimeRange::ALL,
            max_versions: 1,
            limit: None,
            caching: None,
            batch: None,
            columns: Columns::default(),
            filter: None,
            cache_blocks: true,
            raw: false,
            max_results_per_family: None,
            offset_per_family: 0,
        }
    }
}

impl Scan {
    /// A scan of the whole table.
    pub fn new() -> Scan {
        Scan::default()
    }

    /// A scan from `start_row` (inclusive) to `stop_row` (exclusive).
    pub fn range(start_row: impl Into<Bytes>, stop_row: impl Into<Bytes>) -> Scan {
        Scan {
            start_row: start_row.into(),
            stop_row: stop_row.into(),
            ..Scan::default()
        }
    }

    /// A scan of the rows starting with `prefix`.
    pub fn with_prefix(prefix: impl Into<Bytes>) -> Scan {
        Scan {
            prefix: prefix.into(),
            ..Scan::default()
        }
    }

    /// The rows to read as ascending bounds: start/stop (swapped roles if reversed)
    /// intersected with the prefix's range.
    pub fn bounds(&self) -> (Bound<Bytes>, Bound<Bytes>) {
        let open_or = |row: &Bytes, bound: fn(Bytes) -> Bound<Bytes>| {
            if row.is_empty() {
                Bound::Unbounded
            } else {
                bound(row.clone())
            }
        };
        let stop: fn(Bytes) -> Bound<Bytes> = if self.include_stop_row {
            Bound::Included
        } else {
            Bound::Excluded
        };
        let (mut lower, mut upper) = if self.reversed {
            (
                open_or(&self.stop_row, stop),
                open_or(&self.start_row, Bound::Included),
            )
        } else {
            (
                open_or(&self.start_row, Bound::Included),
                open_or(&self.stop_row, stop),
            )
        };
        if !self.prefix.is_empty() {
            lower = tighter(lower, Bound::Included(self.prefix.clone()), true);
            let end = prefix_successor(&self.prefix).map_or(Bound::Unbounded, Bound::Excluded);
            upper = tighter(upper, end, false);
        }
        (lower, upper)
    }

    /// Checks rows, bounds order, counts, columns, time range and filter.
    ///
    /// # Errors
    /// The first problem found.
    pub fn validate(&self) -> Result<(), OpError> {
        for row in [&self.start_row, &self.stop_row, &self.prefix] {
            if !row.is_empty() {
                check_row(row)?;
            }
        }
        if !self.start_row.is_empty() && !self.stop_row.is_empty() {
            if !self.reversed && self.start_row > self.stop_row {
                return Err(OpError::Scan("start row sorts after stop row".into()));
            }
            if self.reversed && self.start_row < self.stop_row {
                return Err(OpError::Scan(
                    "reversed scan: start row must sort after stop row".into(),
                ));
            }
        }
        self.time_range.validate()?;
        for (what, n) in [
            ("max_versions", Some(u64::from(self.max_versions))),
            ("limit", self.limit),
            ("caching", self.caching.map(u64::from)),
            ("batch", self.batch.map(u64::from)),
        ] {
            if n == Some(0) {
                return Err(OpError::Zero { what });
            }
        }
        self.columns.validate()?;
        if self.raw && self.columns.families.values().any(Option::is_some) {
            // HBase's StoreScanner: "Cannot specify any column for a raw scan".
            return Err(OpError::Scan(
                "a raw scan selects whole families, not columns".into(),
            ));
        }
        if let Some(f) = &self.filter {
            f.validate()?;
            if self.batch.is_some() && f.needs_whole_row() {
                return Err(OpError::Scan(
                    "batch cannot split rows for a filter that needs whole rows \
                     (SingleColumnValue, Page)"
                        .into(),
                ));
            }
        }
        Ok(())
    }
}

/// The smallest row after every row starting with `prefix`, or `None` if there is none
/// (the prefix is empty or all `0xFF`).
pub fn prefix_successor(prefix: &[u8]) -> Option<Bytes> {
    let last = prefix.iter().rposition(|&b| b != 0xFF)?;
    let mut next = prefix[..=last].to_vec();
    next[last] += 1;
    Some(Bytes::from(next))
}

/// The stricter of two lower (`is_lower`) or upper bounds.
fn tighter(a: Bound<Bytes>, b: Bound<Bytes>, is_lower: bool) -> Bound<Bytes> {
    use Bound::{Excluded, Included, Unbounded};
    let key = |x: &Bound<Bytes>| match x {
        Included(k) | Excluded(k) => Some(k.clone()),
        Unbounded => None,
    };
    match (key(&a), key(&b)) {
        (None, _) => b,
        (_, None) => a,
        (Some(ka), Some(kb)) if ka == kb => {
            if matches!(a, Excluded(_)) {
                a
            } else {
                b
            }
        }
        (Some(ka), Some(kb)) => {
            if (ka > kb) == is_lower {
                a
            } else {
                b
            }
        }
    }
}
