//! The store-file settings the `sstable` crate reads: encoding, compression, bloom type.

use std::fmt;

/// `DATA_BLOCK_ENCODING`: how cells inside a data block are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum DataBlockEncoding {
    /// Every cell written whole.
    #[default]
    None,
    /// Each key stores only what differs from the previous key.
    Prefix,
    /// Prefix plus field-wise deltas (lengths, timestamp, type).
    Diff,
    /// Like DIFF with fewer flag bytes: same-length, same-timestamp and repeated values cost no bytes.
    FastDiff,
    /// Cells written whole plus per-row offsets, so a seek binary-searches inside the block.
    RowIndex,
}

impl DataBlockEncoding {
    /// Every encoding.
    pub const ALL: [DataBlockEncoding; 5] = [
        DataBlockEncoding::None,
        DataBlockEncoding::Prefix,
        DataBlockEncoding::Diff,
        DataBlockEncoding::FastDiff,
        DataBlockEncoding::RowIndex,
    ];

    /// HBase's spelling.
    pub fn name(self) -> &'static str {
        match self {
            DataBlockEncoding::None => "NONE",
            DataBlockEncoding::Prefix => "PREFIX",
            DataBlockEncoding::Diff => "DIFF",
            DataBlockEncoding::FastDiff => "FAST_DIFF",
            DataBlockEncoding::RowIndex => "ROW_INDEX_V1",
        }
    }

    /// The id stored in store files.
    pub fn id(self) -> u8 {
        match self {
            DataBlockEncoding::None => 0,
            DataBlockEncoding::Prefix => 1,
            DataBlockEncoding::Diff => 2,
            DataBlockEncoding::FastDiff => 3,
            DataBlockEncoding::RowIndex => 4,
        }
    }

    /// The encoding for a stored id.
    pub fn from_id(id: u8) -> Option<DataBlockEncoding> {
        Self::ALL.into_iter().find(|e| e.id() == id)
    }

    /// Parses HBase's spelling (case-insensitive; `ROW_INDEX` and `ROW_INDEX_V1` both accepted).
    pub fn parse(s: &str) -> Option<DataBlockEncoding> {
        let s = s.trim().to_ascii_uppercase();
        if s == "ROW_INDEX" {
            return Some(DataBlockEncoding::RowIndex);
        }
        Self::ALL.into_iter().find(|e| e.name() == s)
    }
}

impl fmt::Display for DataBlockEncoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `COMPRESSION`: the codec applied to each block after encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Compression {
    /// Blocks stored as encoded.
    #[default]
    None,
    /// Snappy (raw format).
    Snappy,
    /// LZ4 block format.
    Lz4,
    /// Zstandard.
    Zstd,
    /// DEFLATE in gzip framing (HBase's `GZ`).
    Gz,
}

impl Compression {
    /// Every codec.
    pub const ALL: [Compression; 5] = [
        Compression::None,
        Compression::Snappy,
        Compression::Lz4,
        Compression::Zstd,
        Compression::Gz,
    ];

    /// HBase's spelling.
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "NONE",
            Compression::Snappy => "SNAPPY",
            Compression::Lz4 => "LZ4",
            Compression::Zstd => "ZSTD",
            Compression::Gz => "GZ",
        }
    }

    /// The id stored in store files.
    pub fn id(self) -> u8 {
        match self {
            Compression::None => 0,
            Compression::Snappy => 1,
            Compression::Lz4 => 2,
            Compression::Zstd => 3,
            Compression::Gz => 4,
        }
    }

    /// The codec for a stored id.
    pub fn from_id(id: u8) -> Option<Compression> {
        Self::ALL.into_iter().find(|c| c.id() == id)
    }

    /// Parses HBase's spelling (case-insensitive; `GZIP` accepted for `GZ`).
    pub fn parse(s: &str) -> Option<Compression> {
        let s = s.trim().to_ascii_uppercase();
        if s == "GZIP" {
            return Some(Compression::Gz);
        }
        Self::ALL.into_iter().find(|c| c.name() == s)
    }
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `BLOOMFILTER`: which key a store file's bloom filter holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum BloomType {
    /// No bloom filter.
    None,
    /// The row key (HBase's default).
    #[default]
    Row,
    /// Row and qualifier.
    RowCol,
    /// The first `prefix_len` bytes of the row (`BLOOMFILTER_PARAM` / `RowPrefixBloomFilter.prefix_length`).
    RowPrefixFixedLength(u16),
}

impl BloomType {
    /// HBase's spelling (without the prefix length).
    pub fn name(self) -> &'static str {
        match self {
            BloomType::None => "NONE",
            BloomType::Row => "ROW",
            BloomType::RowCol => "ROWCOL",
            BloomType::RowPrefixFixedLength(_) => "ROWPREFIX_FIXED_LENGTH",
        }
    }

    /// The id stored in store files (the prefix length is stored beside it).
    pub fn id(self) -> u8 {
        match self {
            BloomType::None => 0,
            BloomType::Row => 1,
            BloomType::RowCol => 2,
            BloomType::RowPrefixFixedLength(_) => 3,
        }
    }

    /// The bloom type for a stored id and prefix length.
    pub fn from_id(id: u8, prefix_len: u16) -> Option<BloomType> {
        match id {
            0 => Some(BloomType::None),
            1 => Some(BloomType::Row),
            2 => Some(BloomType::RowCol),
            3 if prefix_len > 0 => Some(BloomType::RowPrefixFixedLength(prefix_len)),
            _ => None,
        }
    }

    /// The prefix length for `ROWPREFIX_FIXED_LENGTH`, else 0.
    pub fn prefix_len(self) -> u16 {
        match self {
            BloomType::RowPrefixFixedLength(n) => n,
            _ => 0,
        }
    }
}

impl fmt::Display for BloomType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BloomType::RowPrefixFixedLength(n) => write!(f, "ROWPREFIX_FIXED_LENGTH({n})"),
            other => f.write_str(other.name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_names_round_trip() {
        for e in DataBlockEncoding::ALL {
            assert_eq!(DataBlockEncoding::from_id(e.id()), Some(e));
            assert_eq!(DataBlockEncoding::parse(e.name()), Some(e));
        }
        for c in Compression::ALL {
            assert_eq!(Compression::from_id(c.id()), Some(c));
            assert_eq!(Compression::parse(&c.name().to_lowercase()), Some(c));
        }
        for b in [
            BloomType::None,
            BloomType::Row,
            BloomType::RowCol,
            BloomType::RowPrefixFixedLength(4),
        ] {
            assert_eq!(BloomType::from_id(b.id(), b.prefix_len()), Some(b));
        }
        assert_eq!(Compression::parse("gzip"), Some(Compression::Gz));
        assert_eq!(
            DataBlockEncoding::parse("row_index"),
            Some(DataBlockEncoding::RowIndex)
        );
        assert_eq!(DataBlockEncoding::parse("LZO"), None);
    }
}
