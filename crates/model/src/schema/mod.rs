//! Table and column-family descriptors with HBase's setting names (DESIGN §6).

mod codec;

pub use codec::{BloomType, Compression, DataBlockEncoding};
