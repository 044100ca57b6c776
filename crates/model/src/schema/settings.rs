//! The keyword-valued column-family settings, and `TTL`.

use std::fmt;

use super::value::keyword_enum;
use super::SchemaError;

keyword_enum! {
    /// `KEEP_DELETED_CELLS`: whether deleted cells stay readable by time-range reads.
    pub enum KeepDeletedCells {
        /// Deleted cells and markers are dropped at the next major compaction (HBase's default).
        #[default]
        False = "FALSE",
        /// Deleted cells survive compactions and time-range reads before the delete see them.
        True = "TRUE",
        /// Like `TRUE`, but deleted cells and markers expire with the family's TTL.
        Ttl = "TTL",
    }
}

keyword_enum! {
    /// `BLOCK_CACHE_FORM` (a Strata setting): what the block cache keeps for this family's data
    /// blocks. Index and bloom blocks are always cached decoded.
    ///
    /// The default is `ENCODED`: for `NONE` and `ROW_INDEX` encodings an encoded block *is* the
    /// decoded form (cells laid out whole), so `DECODED` would only add a copy; for
    /// `PREFIX`/`DIFF`/`FAST_DIFF` the encoded block is smaller and a seek within it stays cheap.
    /// `COMPRESSED` fits the most blocks in memory but pays a decompression on every hit.
    pub enum CachedForm {
        /// Cells expanded to their full keys: fastest hits, most memory.
        Decoded = "DECODED",
        /// The block after encoding, before compression.
        #[default]
        Encoded = "ENCODED",
        /// The bytes as stored in the file: least memory, decompressed on each hit.
        Compressed = "COMPRESSED",
    }
}

keyword_enum! {
    /// `IN_MEMORY_COMPACTION`: what the memtable does with immutable segments (RFC 0003).
    ///
    /// The default is `BASIC`, as in HBase 2. `ADAPTIVE` suits families whose rows are
    /// overwritten (seed 000's churn): through the server at a 128 MiB flush size it writes
    /// about 5× fewer flushed bytes, at the cost of CPU for its copies, which doubled read p99
    /// on a two-core machine (RFC 0003,
    /// `docs/benchmarks/2026-11-22-seed-000-in-memory-compaction.md`).
    pub enum InMemoryCompaction {
        /// Classic memtable: one active segment, flushed to disk whole.
        None = "NONE",
        /// Flatten immutable segments and merge their indexes; never copies cell data.
        #[default]
        Basic = "BASIC",
        /// Copy-compact the pipeline, dropping versions beyond VERSIONS and masked or expired
        /// cells (delete markers are kept).
        Eager = "EAGER",
        /// Choose `EAGER` when the pipeline's duplicate ratio is high, else `BASIC`.
        Adaptive = "ADAPTIVE",
    }
}

keyword_enum! {
    /// `STORAGE_POLICY`: which volume types hold this family's files (HDFS's names, RFC 0010).
    pub enum StoragePolicy {
        /// Memory-backed volume first, persisted lazily (single replica).
        LazyPersist = "LAZY_PERSIST",
        /// Every replica on SSD.
        AllSsd = "ALL_SSD",
        /// One replica on SSD, the others on disk.
        OneSsd = "ONE_SSD",
        /// Every replica on disk (HDFS's default).
        #[default]
        Hot = "HOT",
        /// One replica on disk, the others on archive.
        Warm = "WARM",
        /// Every replica on archive.
        Cold = "COLD",
    }
}

/// `TTL`: how long cells live, in seconds from their timestamp.
///
/// HBase stores it as an `int`; `Integer.MAX_VALUE` (2147483647) means `FOREVER`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Ttl {
    /// Cells never expire (HBase's default).
    #[default]
    Forever,
    /// Cells expire this many seconds after their timestamp. Requires: 1..=2147483646.
    Seconds(u32),
}

impl Ttl {
    /// HBase's `FOREVER` as seconds; parsing it yields [`Ttl::Forever`].
    pub const FOREVER_SECONDS: u32 = i32::MAX as u32;

    /// The lifetime in milliseconds, or `None` for [`Ttl::Forever`].
    pub fn millis(self) -> Option<i64> {
        match self {
            Ttl::Forever => None,
            Ttl::Seconds(s) => Some(i64::from(s) * 1000),
        }
    }

    /// Parses `FOREVER`, an integer number of seconds, or a sum of `<n> DAY(S)`, `HOUR(S)`,
    /// `MINUTE(S)`, `SECOND(S)` terms (`1 DAY 12 HOURS`). A trailing parenthesised part, as
    /// HBase's `describe` prints (`86400 SECONDS (1 DAY)`), is ignored.
    ///
    /// # Errors
    /// [`SchemaError::InvalidValue`] naming `TTL`.
    pub fn parse(value: &str) -> Result<Ttl, SchemaError> {
        let bad = || SchemaError::InvalidValue {
            setting: "TTL",
            value: value.to_string(),
            expected: format!(
                "FOREVER, or seconds in 1..={} (e.g. 86400 or '1 DAY 2 HOURS')",
                Self::FOREVER_SECONDS
            ),
        };
        let text = value.split('(').next().unwrap_or("").trim();
        if text.eq_ignore_ascii_case("FOREVER") {
            return Ok(Ttl::Forever);
        }
        let words: Vec<&str> = text.split_whitespace().collect();
        if words.is_empty() {
            return Err(bad());
        }
        let mut total: u64 = 0;
        let mut i = 0;
        while i < words.len() {
            let n: u64 = words[i].parse().map_err(|_| bad())?;
            let unit = words.get(i + 1).map(|w| w.to_ascii_uppercase());
            let scale = match unit.as_deref().map(|u| u.trim_end_matches('S')) {
                None if words.len() == 1 => 1,
                Some("DAY") => 86_400,
                Some("HOUR") => 3_600,
                Some("MINUTE") => 60,
                Some("SECOND") => 1,
                _ => return Err(bad()),
            };
            let term = n.checked_mul(scale).ok_or_else(bad)?;
            total = total.checked_add(term).ok_or_else(bad)?;
            i += 2;
        }
        match u32::try_from(total) {
            Ok(Self::FOREVER_SECONDS) => Ok(Ttl::Forever),
            Ok(s) if (1..Self::FOREVER_SECONDS).contains(&s) => Ok(Ttl::Seconds(s)),
            _ => Err(bad()),
        }
    }

    /// Checks the range.
    ///
    /// # Errors
    /// [`SchemaError::InvalidValue`] for `Seconds(0)` or `Seconds(n >= 2147483647)`.
    pub fn validate(self) -> Result<(), SchemaError> {
        match self {
            Ttl::Seconds(s) if s == 0 || s >= Self::FOREVER_SECONDS => {
                Err(SchemaError::InvalidValue {
                    setting: "TTL",
                    value: s.to_string(),
                    expected: format!("FOREVER, or seconds in 1..={}", Self::FOREVER_SECONDS - 1),
                })
            }
            _ => Ok(()),
        }
    }
}

impl fmt::Display for Ttl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ttl::Forever => f.write_str("FOREVER"),
            Ttl::Seconds(s) => write!(f, "{s}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttl_forms() {
        assert_eq!(Ttl::parse("forever"), Ok(Ttl::Forever));
        assert_eq!(Ttl::parse("2147483647"), Ok(Ttl::Forever));
        assert_eq!(Ttl::parse("86400"), Ok(Ttl::Seconds(86_400)));
        assert_eq!(Ttl::parse("1 DAY 2 hours"), Ok(Ttl::Seconds(93_600)));
        assert_eq!(
            Ttl::parse("86400 SECONDS (1 DAY)"),
            Ok(Ttl::Seconds(86_400))
        );
        for bad in [
            "",
            "0",
            "-5",
            "1 FORTNIGHT",
            "3 DAYS 4",
            "99999999999",
            "ten",
        ] {
            let err = Ttl::parse(bad).unwrap_err();
            assert!(err.to_string().starts_with("TTL: invalid value"), "{err}");
        }
        assert_eq!(Ttl::Seconds(60).millis(), Some(60_000));
        assert_eq!(Ttl::Forever.millis(), None);
        assert!(Ttl::Seconds(0).validate().is_err());
    }

    #[test]
    fn keywords_parse_case_insensitively() {
        assert_eq!(CachedForm::parse("decoded"), Some(CachedForm::Decoded));
        assert_eq!(CachedForm::default(), CachedForm::Encoded);
        assert_eq!(InMemoryCompaction::default(), InMemoryCompaction::Basic);
        assert_eq!(StoragePolicy::parse("all_ssd"), Some(StoragePolicy::AllSsd));
        assert_eq!(StoragePolicy::default(), StoragePolicy::Hot);
        assert_eq!(KeepDeletedCells::parse("ttl"), Some(KeepDeletedCells::Ttl));
        assert_eq!(KeepDeletedCells::parse("maybe"), None);
        for p in StoragePolicy::ALL {
            assert_eq!(StoragePolicy::parse(&p.to_string()), Some(*p));
        }
    }
}
