//! [`Get`]: read one row.

use bytes::Bytes;

use super::check::check_row;
use super::{Columns, Filter, OpError, TimeRange};

/// Reads one row (HBase's `Get`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Get {
    /// The row.
    pub row: Bytes,
    /// Which columns; empty means all.
    pub columns: Columns,
    /// Only versions with timestamps in this range. Default: all.
    pub time_range: TimeRange,
    /// Most versions returned per column. Default 1; the family's `VERSIONS` still caps it.
    pub max_versions: u32,
    /// A server-side filter.
    pub filter: Option<Filter>,
    /// Let the blocks read be cached (HBase's `cacheBlocks`). Default true.
    pub cache_blocks: bool,
    /// Most cells returned per family (HBase's `maxResultsPerColumnFamily`), counted after
    /// versions and the filter; `None`: no limit.
    pub max_results_per_family: Option<u32>,
    /// Cells skipped at the start of each family (HBase's `rowOffsetPerColumnFamily`),
    /// counted as `max_results_per_family` counts. Default 0.
    pub offset_per_family: u32,
}

impl Get {
    /// A get of every column's latest version of `row`.
    pub fn new(row: impl Into<Bytes>) -> Get {
        Get {
            row: row.into(),
            columns: Columns::default(),
            time_range: TimeRange::ALL,
            max_versions: 1,
            filter: None,
            cache_blocks: true,
            max_results_per_family: None,
            offset_per_family: 0,
        }
    }

    /// Selects a whole family.
    #[must_use]
    pub fn with_family(mut self, family: impl Into<Bytes>) -> Self {
        self.columns.add_family(family);
        self
    }

    /// Selects one column.
    #[must_use]
    pub fn with_column(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> Self {
        self.columns.add_column(family, qualifier);
        self
    }

    /// Restricts timestamps.
    #[must_use]
    pub fn with_time_range(mut self, time_range: TimeRange) -> Self {
        self.time_range = time_range;
        self
    }

    /// Sets the most versions per column.
    #[must_use]
    pub fn with_max_versions(mut self, max_versions: u32) -> Self {
        self.max_versions = max_versions;
        self
    }

    /// Sets the filter.
    #[must_use]
    pub fn with_filter(mut self, filter: Filter) -> Self {
        self.filter = Some(filter);
        self
    }

    /// Sets whether blocks read may be cached.
    #[must_use]
    pub fn with_cache_blocks(mut self, cache_blocks: bool) -> Self {
        self.cache_blocks = cache_blocks;
        self
    }

    /// Returns at most `limit` cells per family, after skipping the first `offset`.
    #[must_use]
    pub fn with_per_family(mut self, limit: Option<u32>, offset: u32) -> Self {
        self.max_results_per_family = limit;
        self.offset_per_family = offset;
        self
    }

    /// Checks the row, columns, time range, version count and filter.
    ///
    /// # Errors
    /// The first problem found.
    pub fn validate(&self) -> Result<(), OpError> {
        check_row(&self.row)?;
        self.columns.validate()?;
        self.time_range.validate()?;
        if self.max_versions == 0 {
            return Err(OpError::Zero {
                what: "max_versions",
            });
        }
        if let Some(f) = &self.filter {
            f.validate()?;
        }
        Ok(())
    }
}
