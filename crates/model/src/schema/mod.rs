//! Table and column-family descriptors with HBase's setting names (ARCHITECTURE.md,
//! "Data model").
//!
//! Settings are typed, plain data with HBase's defaults and a `validate()`:
//! [`TableDescriptor`] holds the table settings and its [`FamilyDescriptor`]s. The shell and the
//! gateway reach them by name through `set(key, value)` and `settings()`, which speak HBase's
//! spellings case-insensitively and fail with a [`SchemaError`] naming the setting and the
//! values it accepts.
//!
//! - `codec`: store-file encodings read by `sstable` ([`DataBlockEncoding`], [`Compression`],
//!   [`BloomType`]).
//! - `settings`: the other family keywords ([`KeepDeletedCells`], [`CachedForm`],
//!   [`InMemoryCompaction`], [`StoragePolicy`]) and [`Ttl`].
//! - `compaction`: [`CompactionPolicy`] with the [`DateTiered`] parameters.
//! - `custom`: the `METADATA` and `CONFIGURATION` values kept as given.
//! - `family`, `table`: the descriptors; `table` also has [`TableName`], [`Durability`] and
//!   [`SplitPolicy`].

mod codec;
mod compaction;
mod custom;
mod error;
mod family;
mod settings;
mod table;
pub(crate) mod value;

pub use codec::{BloomType, Compression, DataBlockEncoding};
pub use compaction::{CompactionPolicy, DateTiered, WindowPolicy};
pub use custom::{FAMILY_RESERVED, MAX_CUSTOM_LEN, MAX_CUSTOM_VALUES, TABLE_RESERVED};
pub use error::SchemaError;
pub use family::{validate_family_name, FamilyDescriptor};
pub use settings::{CachedForm, InMemoryCompaction, KeepDeletedCells, StoragePolicy, Ttl};
pub use table::{Durability, SplitPolicy, TableDescriptor, TableName};
