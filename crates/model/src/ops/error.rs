//! The error every operation's `validate()` returns.

/// Why a mutation, read or filter is malformed. Messages show binary rows escaped the way
/// HBase's `Bytes.toStringBinary` does (`\xHH` for non-printable bytes).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OpError {
    /// The row key is empty.
    #[error("row must not be empty")]
    EmptyRow,
    /// The column family is empty.
    #[error("column family must not be empty")]
    EmptyFamily,
    /// A row, family, qualifier or value exceeds its limit (see [`crate::limits`]).
    #[error("{what} is {len} bytes; at most {max} allowed")]
    TooLong {
        /// `row`, `column family`, `qualifier` or `value`.
        what: &'static str,
        /// Its length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// A timestamp is negative (HBase's timestamps are non-negative milliseconds).
    #[error("timestamp {0} is negative")]
    NegativeTimestamp(i64),
    /// A time range `[min, max)` that holds no timestamp or starts below 0.
    #[error("time range [{min}, {max}) is invalid: requires 0 <= min < max")]
    InvalidTimeRange {
        /// Lower bound (inclusive).
        min: i64,
        /// Upper bound (exclusive).
        max: i64,
    },
    /// A put, increment or append without any column.
    #[error("{op} has no columns")]
    NoColumns {
        /// `put`, `increment` or `append`.
        op: &'static str,
    },
    /// A count that must be positive is 0.
    #[error("{what} must be at least 1")]
    Zero {
        /// The field, e.g. `max_versions`.
        what: &'static str,
    },
    /// A delete marker misses a field its kind requires, or has one it must not have.
    #[error("{kind}: {reason}")]
    BadDelete {
        /// The marker kind, HBase's name.
        kind: &'static str,
        /// What is wrong.
        reason: &'static str,
    },
    /// A mutation in a row-atomic group names another row.
    #[error("mutation for row '{found}' in an atomic group for row '{expected}'")]
    RowMismatch {
        /// The group's row, escaped.
        expected: String,
        /// The mutation's row, escaped.
        found: String,
    },
    /// A row-atomic group without mutations.
    #[error("row mutations for row '{row}' are empty")]
    EmptyRowMutations {
        /// The group's row, escaped.
        row: String,
    },
    /// A malformed filter.
    #[error("invalid filter: {0}")]
    Filter(String),
    /// A malformed scan.
    #[error("invalid scan: {0}")]
    Scan(String),
    /// A malformed check-and-mutate condition.
    #[error("invalid condition: {0}")]
    Condition(String),
}
