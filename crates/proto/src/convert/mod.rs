//! Conversions between the data model and the wire messages. `to_pb` never fails; `from_pb`
//! checks what the wire cannot (enum values, filter text, settings) and returns a
//! [`ConvertError`] naming the field. Requests are validated again by the model
//! (`validate`) on the server, so limits live in one place.

mod batch_decode;
#[cfg(test)]
mod batch_decode_tests;
mod batch_wire;
#[cfg(test)]
mod batch_wire_tests;
mod cell_block;
#[cfg(test)]
mod cell_block_tests;
mod cell_view;
mod ops;
mod page_block;
#[cfg(test)]
mod page_block_tests;
mod schema;
#[cfg(test)]
mod tests;

pub use batch_decode::{decode_put_batch, PutBatch};
pub use batch_wire::BatchBody;
pub use cell_block::{decode_cell_block, encode_cell_block};
pub use cell_view::{CellBlockIter, CellView};
pub use ops::*;
pub use page_block::{page_rows, PageBlockWriter, PageRow};
pub use schema::*;

/// A message that does not describe a valid model value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConvertError(pub String);

impl ConvertError {
    pub(crate) fn new(message: impl Into<String>) -> ConvertError {
        ConvertError(message.into())
    }
}
