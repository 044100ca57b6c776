//! A region's manifest: the durable record of what the region is (table, id, row range,
//! families) and, per family, its store files and flushed sequence id.
//!
//! - [`Version`]: the recorded state, immutable; [`StoreFile`] entries, split
//!   [`Reference`]s.
//! - [`VersionEdit`]: changes applied all together or not at all.
//! - [`Manifest`]: applies edits durably; after a crash at any instant, reopening finds exactly
//!   the old or the new version. Design: `docs/rfcs/0004-manifest.md`.
//! - [`format`](mod@format): the byte format of a manifest file (`docs/format/manifest.md`).
//! - [`Fs`]: the file operations the manifest uses, with [`StoreFs`] for a directory of a file store
//!   and [`SimFs`], an in-memory double that simulates crashes.
//!
//! ```text
//!  flush / compaction / split ──VersionEdit──▶ Manifest::apply
//!        Version::apply (validate) ─▶ format::encode ─▶ MANIFEST-<n>.tmp ─sync─▶ rename
//!        ─▶ sync_dir (commit) ─▶ remove MANIFEST-<n-1> ─▶ new Arc<Version> for readers
//! ```

mod edit;
mod error;
pub mod format;
mod fs;
mod read;
mod sim_fs;
mod store;
mod version;

pub use edit::{Change, EditError, VersionEdit};
pub use error::{Error, ErrorKind, Result};
pub use fs::{Fs, StoreFs};
pub use read::{current_number, read_current};
pub use sim_fs::{SimFs, MAX_SUBSET_CHANGES};
pub use store::{file_name, Manifest};
pub use version::{
    FamilyFiles, Half, Link, Reference, RegionInfo, StoreFile, Version, MAX_NAME_LEN,
};
