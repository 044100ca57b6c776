//! Size limits every layer enforces (ARCHITECTURE.md, "Data model").

/// Longest row key, in bytes (HBase's `Short.MAX_VALUE`).
pub const MAX_ROW_LEN: usize = 32_767;
/// Longest family name, in bytes.
pub const MAX_FAMILY_LEN: usize = 255;
/// Longest qualifier, in bytes.
pub const MAX_QUALIFIER_LEN: usize = 64 * 1024;
/// Largest single value, in bytes (HBase's default `hbase.server.keyvalue.maxsize` is 10 MiB;
/// the format allows more, the server enforces this).
pub const MAX_VALUE_LEN: usize = 64 * 1024 * 1024;
/// Longest namespace name, in bytes: one directory-name component on local file systems and
/// HDFS (`dfs.namenode.fs-limits.max-component-length` defaults to 255).
pub const MAX_NAMESPACE_LEN: usize = 255;
/// Longest table qualifier (the name without its namespace), in bytes; same reason.
pub const MAX_TABLE_QUALIFIER_LEN: usize = 255;
