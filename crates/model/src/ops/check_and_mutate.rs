//! [`CheckAndMutate`]: apply row mutations only if a condition on the row holds.

use bytes::Bytes;

use super::check::{check_column, check_row, check_value, escape};
use super::{CompareOp, Filter, OpError, RowMutations, TimeRange};

/// What a [`CheckAndMutate`] tests, atomically with the write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Condition {
    /// The latest value of `family:qualifier` within the time range compares to `expected`.
    ///
    /// With `expected: Some(v)` it holds when **`v op actual`** — HBase's order, the expected
    /// value on the left: `LESS` holds when the expected value is less than the stored one.
    /// With `expected: None` it holds when the column has no value (HBase's `ifNotExists`);
    /// `op` must then be `EQUAL`.
    Column {
        /// Column family.
        family: Bytes,
        /// Column qualifier.
        qualifier: Bytes,
        /// The operator.
        op: CompareOp,
        /// The value to compare with, or `None` for "absent".
        expected: Option<Bytes>,
    },
    /// The row, read with the time range, passes the filter (has at least one cell left).
    Filter(Filter),
}

impl Condition {
    /// `family:qualifier` equals `value`.
    pub fn equals(
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        value: impl Into<Bytes>,
    ) -> Condition {
        Condition::Column {
            family: family.into(),
            qualifier: qualifier.into(),
            op: CompareOp::Equal,
            expected: Some(value.into()),
        }
    }

    /// `family:qualifier` has no value.
    pub fn absent(family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> Condition {
        Condition::Column {
            family: family.into(),
            qualifier: qualifier.into(),
            op: CompareOp::Equal,
            expected: None,
        }
    }
}

/// Applies `mutations` atomically if `condition` holds on `row` (HBase's `CheckAndMutate`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckAndMutate {
    /// The row tested and written.
    pub row: Bytes,
    /// The test.
    pub condition: Condition,
    /// Only versions in this range are tested. Default: all.
    pub time_range: TimeRange,
    /// The writes, all to `row`.
    pub mutations: RowMutations,
}

impl CheckAndMutate {
    /// A check-and-mutate of `mutations.row`, testing every version's time range.
    pub fn new(condition: Condition, mutations: impl Into<RowMutations>) -> CheckAndMutate {
        let mutations = mutations.into();
        CheckAndMutate {
            row: mutations.row.clone(),
            condition,
            time_range: TimeRange::ALL,
            mutations,
        }
    }

    /// Checks the row, the condition, the time range and the mutations.
    ///
    /// # Errors
    /// The first problem found.
    pub fn validate(&self) -> Result<(), OpError> {
        check_row(&self.row)?;
        if self.mutations.row != self.row {
            return Err(OpError::RowMismatch {
                expected: escape(&self.row),
                found: escape(&self.mutations.row),
            });
        }
        match &self.condition {
            Condition::Column {
                family,
                qualifier,
                op,
                expected,
            } => {
                check_column(family, qualifier)?;
                match expected {
                    Some(v) => check_value(v)?,
                    None if *op != CompareOp::Equal => {
                        return Err(OpError::Condition(format!(
                            "an absent-column check takes only =, not {op}"
                        )));
                    }
                    None => {}
                }
            }
            Condition::Filter(f) => f.validate()?,
        }
        self.time_range.validate()?;
        self.mutations.validate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::{Comparator, Delete, Mutation, Put};

    #[test]
    fn conditions_and_rows_are_checked() {
        let put = Mutation::from(Put::new("r").add("cf", "q", "v"));
        let cam = CheckAndMutate::new(Condition::absent("cf", "q"), put.clone());
        assert_eq!(cam.row.as_ref(), b"r");
        assert_eq!(cam.validate(), Ok(()));

        let cam = CheckAndMutate::new(Condition::equals("cf", "q", "old"), put.clone());
        assert_eq!(cam.validate(), Ok(()));

        let mut cam = CheckAndMutate::new(Condition::absent("cf", "q"), put.clone());
        if let Condition::Column { op, .. } = &mut cam.condition {
            *op = CompareOp::Less;
        }
        assert_eq!(
            cam.validate().unwrap_err().to_string(),
            "invalid condition: an absent-column check takes only =, not <"
        );

        let mut cam = CheckAndMutate::new(Condition::absent("cf", "q"), put.clone());
        cam.row = Bytes::from_static(b"other");
        assert!(matches!(cam.validate(), Err(OpError::RowMismatch { .. })));

        let cam = CheckAndMutate::new(Condition::absent("", "q"), put);
        assert_eq!(cam.validate(), Err(OpError::EmptyFamily));

        let bad_filter = Filter::Value(CompareOp::Less, Comparator::Regex("a.*".into()));
        let del = Mutation::from(Delete::new("r").family("cf"));
        let cam = CheckAndMutate::new(Condition::Filter(bad_filter), del);
        assert!(matches!(cam.validate(), Err(OpError::Filter(_))));
    }
}
