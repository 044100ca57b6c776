//! Strata's data model, shared by every other crate. No I/O lives here.
//!
//! - [`cell`]: the [`Cell`], its [`CellType`] and the order of cells in a store.
//! - [`limits`]: size limits on rows, families, qualifiers and values.
//! - [`schema`]: [`schema::TableDescriptor`] and [`schema::FamilyDescriptor`], typed settings
//!   with HBase's names and defaults, parsed from the shell's strings by `set(key, value)`.
//! - [`ops`]: mutations ([`ops::Mutation`], [`ops::RowMutations`]), [`ops::Get`],
//!   [`ops::Scan`], [`ops::Filter`] and [`ops::CheckAndMutate`], as plain data with
//!   `validate()`.

pub mod cell;
pub mod limits;
pub mod ops;
pub mod schema;

pub use cell::{Cell, CellKey, CellType, Timestamp};
