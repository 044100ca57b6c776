//! Strata's store-file format (an "sstable"): one immutable, sorted file of one column family's
//! cells.
//!
//! Module map:
//! - [`encoding`]: data-block encodings (NONE, PREFIX, DIFF, FAST_DIFF, ROW_INDEX).
//! - `cell_ref`: the borrowed cell view that decoders and iterators hand out.
//! - `varint`: LEB128 helpers.

pub mod cell_ref;
pub(crate) mod encoding;
pub(crate) mod varint;

pub use cell_ref::CellRef;
