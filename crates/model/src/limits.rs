//! Size limits every layer enforces (DESIGN §1).

/// Longest row key, in bytes (HBase's `Short.MAX_VALUE`).
pub const MAX_ROW_LEN: usize = 32_767;
/// Longest family name, in bytes.
pub const MAX_FAMILY_LEN: usize = 255;
/// Longest qualifier, in bytes.
pub const MAX_QUALIFIER_LEN: usize = 64 * 1024;
/// Largest single value, in bytes (HBase's default `hbase.server.keyvalue.maxsize` is 10 MiB;
/// the format allows more, the server enforces this).
pub const MAX_VALUE_LEN: usize = 64 * 1024 * 1024;
