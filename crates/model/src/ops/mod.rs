//! Mutations, get and scan specifications, filters: what clients ask of a table, as plain
//! data with cheap `validate()` checks (limits, ranges, operand shapes). Evaluation belongs to
//! the storage engine.
//!
//! - `mutation`: [`Put`], [`Delete`] (the four [`DeleteKind`]s), [`Increment`], [`Append`],
//!   and [`Mutation`], any of them; [`RowMutations`] groups them atomically on one row.
//! - [`Get`], [`Scan`] with [`Columns`] and [`TimeRange`].
//! - `filter`: [`Filter`] with [`CompareOp`] and [`Comparator`]; [`parse_filter`] reads HBase's
//!   filter language and `Display` writes it.
//! - [`CheckAndMutate`] with its [`Condition`].
//!
//! Durability per mutation is [`Durability`], shared with the table schema.

mod check;
mod check_and_mutate;
mod columns;
mod error;
mod filter;
mod get;
mod mutation;
mod row_mutations;
mod scan;
mod time_range;

pub use check::{check_family, check_qualifier, check_row, check_timestamp, check_value, escape};
pub use check_and_mutate::{CheckAndMutate, Condition};
pub use columns::Columns;
pub use error::OpError;
pub use filter::{
    parse_filter, BitOp, Chance, ColumnCondition, ColumnPagination, ColumnRange, Comparator,
    CompareOp, Decimal, DependentColumn, Filter, FilterList, FilterParseError, FuzzyKey, ListOp,
    RowRange, SingleColumnValue, MAX_FILTER_DEPTH,
};
pub use get::Get;
pub use mutation::{
    ttl_from_attribute, Append, AppendCell, Delete, DeleteKind, DeleteMarker, Increment,
    IncrementCell, Mutation, Put, PutCell, TTL_ATTRIBUTE,
};
pub use row_mutations::RowMutations;
pub use scan::{prefix_successor, Scan};
pub use time_range::TimeRange;

pub use crate::schema::Durability;
