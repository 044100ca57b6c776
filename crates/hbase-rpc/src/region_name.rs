//! HBase region names and `hbase:meta` row keys.
//!
//! A region's name (and its meta row key) is `<table>,<start key>,<region id>.<encoded>.`,
//! where `<encoded>` is the hex MD5 of `<table>,<start key>,<region id>` — the client
//! recomputes it from the `RegionInfo` it reads in meta, so it must match. The one meta region
//! keeps HBase's old format without the suffix: `hbase:meta,,1`.
//!
//! Meta rows sort as HBase's `MetaCellComparator` sorts them: by table, then start key, then
//! the rest, each part bytewise ([`MetaKey`]), so a start key holding bytes below `,` still
//! sorts within its table.

use std::cmp::Ordering;

use bytes::{BufMut, Bytes, BytesMut};
use md5::{Digest, Md5};

/// The meta table's name.
pub const META_TABLE: &str = "hbase:meta";
/// The meta region's name.
pub const META_REGION_NAME: &[u8] = b"hbase:meta,,1";
/// The meta region's id.
pub const META_REGION_ID: u64 = 1;

/// `<table>,<start>,<id>.<md5>.`
pub fn region_name(table: &str, start: &[u8], region_id: u64) -> Bytes {
    let mut base = BytesMut::with_capacity(table.len() + start.len() + 60);
    base.put_slice(table.as_bytes());
    base.put_u8(b',');
    base.put_slice(start);
    base.put_u8(b',');
    // Java prints the id as a signed long: ids from 2^63 up (cluster ids carry a table hash
    // in their high bits) are negative in names the client builds.
    base.put_slice((region_id as i64).to_string().as_bytes());
    let encoded = encoded_name(&base);
    base.put_u8(b'.');
    base.put_slice(encoded.as_bytes());
    base.put_u8(b'.');
    base.freeze()
}

/// The hex MD5 of a region name's first part (HBase's `RegionInfo.encodeRegionName`).
pub fn encoded_name(base: &[u8]) -> String {
    let digest = Md5::digest(base);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// What a region specifier names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegionRef {
    /// `hbase:meta,,1`.
    Meta,
    /// A user region: its table and id.
    User {
        /// The table, as `ns:table` or `table`.
        table: String,
        /// Strata's region id.
        region_id: u64,
    },
}

/// Parses a region name as the client sends it in a `RegionSpecifier`.
///
/// # Errors
/// Not `<table>,<start>,<id>[.<encoded>.]` with a decimal id.
pub fn parse_region_name(name: &[u8]) -> Result<RegionRef, String> {
    if name == META_REGION_NAME {
        return Ok(RegionRef::Meta);
    }
    let bad = || format!("malformed region name '{}'", String::from_utf8_lossy(name));
    let first = name.iter().position(|&b| b == b',').ok_or_else(bad)?;
    let table = std::str::from_utf8(&name[..first]).map_err(|_| bad())?;
    let last = name.iter().rposition(|&b| b == b',').ok_or_else(bad)?;
    if last == first {
        return Err(bad());
    }
    let tail = &name[last + 1..];
    let id_end = tail.iter().position(|&b| b == b'.').unwrap_or(tail.len());
    let id = std::str::from_utf8(&tail[..id_end])
        .ok()
        .and_then(|s| {
            s.parse::<u64>()
                .ok()
                .or_else(|| s.parse::<i64>().ok().map(|v| v as u64))
        })
        .ok_or_else(bad)?;
    if table == META_TABLE {
        return Err(format!(
            "no meta region {id}: meta has one region, {META_TABLE},,1"
        ));
    }
    Ok(RegionRef::User {
        table: table.to_string(),
        region_id: id,
    })
}

/// A meta row key split for HBase's meta ordering: table, then (for region rows) the start
/// key and the rest (`<id>.<encoded>.`). A table's own row (`<table>`, holding
/// `table:state`) sorts before its regions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetaKey<'a> {
    table: &'a [u8],
    region: Option<(&'a [u8], &'a [u8])>,
}

impl<'a> MetaKey<'a> {
    /// Splits `row`: up to the first comma is the table, after the last comma the id part.
    pub fn parse(row: &'a [u8]) -> MetaKey<'a> {
        let Some(first) = row.iter().position(|&b| b == b',') else {
            return MetaKey {
                table: row,
                region: None,
            };
        };
        let rest = &row[first + 1..];
        let (start, id) = match rest.iter().rposition(|&b| b == b',') {
            Some(last) => (&rest[..last], &rest[last + 1..]),
            None => (rest, &rest[rest.len()..]),
        };
        MetaKey {
            table: &row[..first],
            region: Some((start, id)),
        }
    }
}

impl Ord for MetaKey<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.table
            .cmp(other.table)
            .then_with(|| self.region.cmp(&other.region))
    }
}

impl PartialOrd for MetaKey<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Compares two meta row keys in meta order.
pub fn compare_meta_rows(a: &[u8], b: &[u8]) -> Ordering {
    MetaKey::parse(a).cmp(&MetaKey::parse(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_meta_is_special() {
        let name = region_name("ns:t", b"a,b", 42);
        assert!(name.ends_with(b"."));
        assert_eq!(
            parse_region_name(&name),
            Ok(RegionRef::User {
                table: "ns:t".into(),
                region_id: 42
            })
        );
        assert_eq!(parse_region_name(META_REGION_NAME), Ok(RegionRef::Meta));
        assert!(parse_region_name(b"garbage").is_err());
        assert!(parse_region_name(b"t,,x.").is_err());
        assert!(parse_region_name(b"hbase:meta,,2").is_err());
    }

    #[test]
    fn encoded_name_is_hbase_md5() {
        // Lower-case hex MD5, as HBase's RegionInfo.encodeRegionName computes it.
        assert_eq!(encoded_name(b""), "d41d8cd98f00b204e9800998ecf8427e");
    }

    #[test]
    fn meta_order_groups_by_table_then_start_key() {
        let mut rows: Vec<&[u8]> = vec![
            b"t10,,5.x.",
            b"t1,b,3.x.",
            b"t1",
            b"t1,\x01,4.x.",
            b"t1,,2.x.",
        ];
        rows.sort_by(|a, b| compare_meta_rows(a, b));
        let want: Vec<&[u8]> = vec![
            b"t1",
            b"t1,,2.x.",
            b"t1,\x01,4.x.",
            b"t1,b,3.x.",
            b"t10,,5.x.",
        ];
        assert_eq!(rows, want);
        // A locate key ("<table>,<row>,99999999999999") sorts after the region holding row.
        assert!(compare_meta_rows(b"t1,bb,99999999999999", b"t1,b,3.x.").is_gt());
        assert!(compare_meta_rows(b"t1,a,99999999999999", b"t1,b,3.x.").is_lt());
    }
}
