//! Strata's store-file format (an "sstable"): one immutable, sorted file of one column family's
//! cells. The byte format is documented in `docs/format/sstable.md`.
//!
//! Module map:
//! - [`Writer`] writes a file from cells in store order; [`Reader`] opens one and serves
//!   point lookups ([`Reader::get_row`]) and iterators ([`Iter`]).
//! - `block`: framing (checksum, compression); `encoding`: data-block encodings;
//!   `decoded`: decoded blocks; `index`: the multi-level block index; `bloom`: chunked bloom
//!   filters; `file_info` and `trailer`: metadata.
//! - [`BlockCache`]: the process-wide cache of blocks in a chosen form.
//!
//! This crate knows nothing of regions, WALs or RPC.

pub mod block;
pub mod bloom;
pub mod cache;
pub mod cache_only;
pub mod cell_ref;
pub mod compression;
pub mod decoded;
pub(crate) mod dense_key;
pub(crate) mod encoding;
pub mod error;
pub mod file_info;
pub mod index;
pub(crate) mod key_codec;
pub mod reader;
pub mod source;
pub mod trailer;
pub(crate) mod varint;
pub mod writer;

pub use cache::{BlockCache, CacheStats, Evicted};
pub use cell_ref::{CellRef, KeyBuf};
pub use error::{Error, ErrorKind, Result};
pub use file_info::FileInfo;
pub use reader::{Iter, Prefetched, Reader, ReaderOptions, ReaderStats};
pub use source::Source;
pub use writer::{Writer, WriterOptions};
