//! The manifest file's byte format, version 1 (`docs/format/manifest.md`).
//!
//! A manifest file is a complete snapshot of a [`Version`]: an 8-byte magic followed by
//! checksummed records (header, region, then each family followed by its files, then an end
//! record). Encoding is canonical: one version always gives the same bytes.
//!
//! Invariant: decoding either returns exactly the version that was encoded or an error; every
//! byte is covered by a record's CRC32C or the magic, every length is checked before use, and
//! nothing is allocated from a length read from the file.

mod decode;
mod encode;

pub use decode::decode;
pub use encode::encode;

#[cfg(doc)]
use super::Version;

/// First bytes of every manifest file.
pub const MAGIC: [u8; 8] = *b"STRATAMF";
/// The newest format version this build reads and writes. A manifest is written in version 1
/// unless it holds a link, which needs version 2 (version 2 is version 1 with the LINK flag),
/// or a bulk-loaded file, which needs version 3 (version 2 with the BULK flag): a build that
/// knows only an older version refuses such a manifest by its version, instead of reading
/// the files wrongly.
pub const FORMAT_VERSION: u32 = 3;

/// The first format version with links.
pub const LINK_VERSION: u32 = 2;

/// The first format version with bulk-loaded files.
pub const BULK_VERSION: u32 = 3;

/// Record kinds.
pub(crate) mod kind {
    pub const HEADER: u8 = 1;
    pub const REGION: u8 = 2;
    pub const FAMILY: u8 = 3;
    pub const FILE: u8 = 4;
    pub const END: u8 = 5;

    pub fn name(kind: u8) -> &'static str {
        match kind {
            HEADER => "header",
            REGION => "region",
            FAMILY => "family",
            FILE => "file",
            END => "end",
            _ => "unknown",
        }
    }
}

/// Bytes of a record's frame: kind u8, length u32 before the payload; CRC32C u32 after it.
pub(crate) const FRAME_HEAD: usize = 5;
pub(crate) const FRAME_TAIL: usize = 4;

/// `StoreFile` flag bits.
pub(crate) mod flag {
    pub const MAJOR: u8 = 1;
    pub const REFERENCE: u8 = 2;
    pub const LINK: u8 = 4;
    pub const BULK: u8 = 8;
    pub const KNOWN: u8 = MAJOR | REFERENCE | LINK | BULK;
}
