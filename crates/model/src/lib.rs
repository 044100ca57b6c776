//! Strata's data model, shared by every other crate. No I/O lives here.
//!
//! - [`cell`]: the [`Cell`], its [`CellType`] and the order of cells in a store.
//! - [`limits`]: size limits on rows, families, qualifiers and values.
//! - [`schema`]: table and column-family descriptors with HBase's setting names.
//! - [`ops`]: mutations, get and scan specifications, filters.

pub mod cell;
pub mod limits;
pub mod ops;
pub mod schema;

pub use cell::{Cell, CellKey, CellType, Timestamp};
