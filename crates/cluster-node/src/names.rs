//! Names on shared storage for cluster regions and servers.
//!
//! - A cluster region `table,seq` (seq: 8 hex digits) is stored as region id
//!   `crc32c(table) << 32 | seq`, and a region `table,incarnation.seq` of a table created with
//!   an incarnation as `crc32c("table,incarnation") << 32 | seq`, so regions of different tables
//!   (and of a dropped and a re-created table of one name) differ in one server's WAL and in
//!   their directories. Two names colliding in CRC-32C cannot be open on one server together:
//!   the second open is refused ("already open"), never merged.
//! - A server `host:port:startcode` keeps its WAL in `wal/host,port,startcode/` (HDFS refuses
//!   `:` in names; HBase spells server names with commas too).
//! - The master fences a dead server's WAL by first renaming its directory to
//!   `wal/host,port,startcode-splitting/` (HBase's suffix), then recovering every file's lease
//!   there; the split reads it from there.
//! - Edits split from a dead server's WAL for region `id` are in
//!   `recovered/<id as 16 hex digits>/<server dir>/`, in the WAL's segment format.

use std::path::{Path, PathBuf};

/// The storage region id of cluster region `region` (`table,seq`), with its table and row
/// range unknown: `None` if the name is malformed.
pub fn region_id(region: &str) -> Option<(String, u64)> {
    let (table, rest) = region.rsplit_once(',')?;
    let (hashed, seq) = match rest.rsplit_once('.') {
        Some((incarnation, seq)) if !incarnation.is_empty() => {
            (format!("{table},{incarnation}"), seq)
        }
        Some(_) => return None,
        None => (table.to_string(), rest),
    };
    if seq.len() != 8 {
        return None;
    }
    let seq = u32::from_str_radix(seq, 16).ok()?;
    let hash = u64::from(crc32c::crc32c(hashed.as_bytes()));
    Some((table.to_string(), (hash << 32) | u64::from(seq)))
}

/// The directory name of a server's WAL below `wal/`.
pub fn server_dir(server: &str) -> String {
    server.replace(':', ",")
}

/// The address (`host:port`) of a server named `host:port:startcode`.
pub fn server_address(server: &str) -> &str {
    server.rsplit_once(':').map_or(server, |(a, _)| a)
}

/// The WAL directory of `server` under `root`.
pub fn wal_dir(root: &Path, server: &str) -> PathBuf {
    root.join("wal").join(server_dir(server))
}

/// Where the master moves a dead `server`'s WAL directory before fencing and splitting it.
pub fn splitting_dir(root: &Path, server: &str) -> PathBuf {
    root.join("wal")
        .join(format!("{}-splitting", server_dir(server)))
}

/// The directory of recovered edits of region `id` under `root`.
pub fn recovered_dir(root: &Path, id: u64) -> PathBuf {
    root.join("recovered").join(format!("{id:016x}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        let (t, a) = region_id("ns:t,00000003").unwrap();
        assert_eq!(t, "ns:t");
        assert_eq!(a & 0xFFFF_FFFF, 3);
        let (_, b) = region_id("ns:u,00000003").unwrap();
        assert_ne!(a, b);
        assert!(region_id("nocomma").is_none());
        assert!(region_id("t,zz").is_none());
        let (t, c) = region_id("ns:t,1a-3.00000003").unwrap();
        assert_eq!(t, "ns:t");
        assert_eq!(c & 0xFFFF_FFFF, 3);
        assert_ne!(a, c, "a re-created table's regions are stored apart");
        assert!(region_id("t,.00000003").is_none());
        assert_eq!(server_dir("127.0.0.1:16020:17"), "127.0.0.1,16020,17");
        assert_eq!(
            splitting_dir(Path::new("/r"), "127.0.0.1:16020:17"),
            PathBuf::from("/r/wal/127.0.0.1,16020,17-splitting")
        );
        assert_eq!(server_address("127.0.0.1:16020:17"), "127.0.0.1:16020");
        assert_eq!(
            recovered_dir(Path::new("/r"), 0x10),
            PathBuf::from("/r/recovered/0000000000000010")
        );
    }
}
