//! Region statistics each region server publishes for the whole cluster (`metrics/<server>`,
//! under its lease): per open region, its stores and store files, their bytes, its memtable
//! bytes, the reads and writes it served since it opened there, and when its oldest
//! major-compacted file was written. Any process answering HBase's `getClusterMetrics` or the
//! master's last-major-compaction calls reads them for the regions it does not hold itself, as
//! HBase's master answers from its region servers' reports.
//!
//! One line: `metrics1 <region>=<stores>:<files>:<store bytes>:<memtable bytes>:<reads>:<writes>:<last major ms> …`
//! (`-` when no region is open; region names hold no space). Every open region is listed (a
//! region costs about 60 bytes: 10,000 regions make 600 KB, under etcd's request limit); the
//! server rewrites the key only when a figure changed, at most once per load report.

use std::collections::BTreeMap;

use crate::record::DecodeError;

/// One region's statistics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RegionMetrics {
    /// Stores (column families).
    pub stores: u32,
    /// Store files, all stores.
    pub store_files: u32,
    /// Bytes of store files, all stores.
    pub store_bytes: u64,
    /// Bytes in memtables, all stores.
    pub memtable_bytes: u64,
    /// Reads served since the region opened on this server.
    pub reads: u64,
    /// Writes served since the region opened on this server.
    pub writes: u64,
    /// When the oldest file a major compaction wrote was written, ms since the epoch (0: none).
    pub last_major_compaction_ms: u64,
}

/// Every open region's statistics on one server, by region name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerMetrics {
    /// By region name (`<table>,<id hex>`).
    pub regions: BTreeMap<String, RegionMetrics>,
}

impl ServerMetrics {
    /// Encodes the report.
    pub fn encode(&self) -> Vec<u8> {
        let list = if self.regions.is_empty() {
            "-".to_owned()
        } else {
            self.regions
                .iter()
                .map(|(r, m)| {
                    format!(
                        "{r}={}:{}:{}:{}:{}:{}:{}",
                        m.stores,
                        m.store_files,
                        m.store_bytes,
                        m.memtable_bytes,
                        m.reads,
                        m.writes,
                        m.last_major_compaction_ms
                    )
                })
                .collect::<Vec<_>>()
                .join(" ")
        };
        format!("metrics1 {list}").into_bytes()
    }

    /// Decodes a report.
    ///
    /// # Errors
    /// Not a metrics report.
    pub fn decode(bytes: &[u8]) -> Result<ServerMetrics, DecodeError> {
        let bad = |d: &str| DecodeError::new("metrics", d);
        let text = std::str::from_utf8(bytes).map_err(|_| bad("not UTF-8"))?;
        let fields: Vec<&str> = text.split(' ').collect();
        let list = match fields.as_slice() {
            ["metrics1", "-"] => return Ok(ServerMetrics::default()),
            ["metrics1", list @ ..] if !list.is_empty() => list,
            _ => return Err(bad(text)),
        };
        let mut metrics = ServerMetrics::default();
        for item in list {
            let (region, value) = item.rsplit_once('=').ok_or_else(|| bad(item))?;
            let n: Vec<u64> = value
                .split(':')
                .map(|v| v.parse::<u64>().map_err(|_| bad(item)))
                .collect::<Result<_, _>>()?;
            let [stores, files, store_bytes, memtable_bytes, reads, writes, major] = n[..] else {
                return Err(bad(item));
            };
            let small = |v: u64| u32::try_from(v).map_err(|_| bad(item));
            metrics.regions.insert(
                region.to_owned(),
                RegionMetrics {
                    stores: small(stores)?,
                    store_files: small(files)?,
                    store_bytes,
                    memtable_bytes,
                    reads,
                    writes,
                    last_major_compaction_ms: major,
                },
            );
        }
        Ok(metrics)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let mut m = ServerMetrics::default();
        assert_eq!(ServerMetrics::decode(&m.encode()).unwrap(), m);
        m.regions.insert(
            "ns:t,0000000000000001".into(),
            RegionMetrics {
                stores: 2,
                store_files: 3,
                store_bytes: 4096,
                memtable_bytes: 17,
                reads: 5,
                writes: 6,
                last_major_compaction_ms: 1_700_000_000_000,
            },
        );
        m.regions.insert("t,2".into(), RegionMetrics::default());
        assert_eq!(ServerMetrics::decode(&m.encode()).unwrap(), m);
    }

    #[test]
    fn refuses_what_is_not_a_report() {
        for bad in [
            &b""[..],
            b"metrics1",
            b"metrics2 -",
            b"load2 1 5 5000 -",
            b"metrics1 t,1=1:2:3:4:5:6",
            b"metrics1 t,1=1:2:3:4:5:6:7:8",
            b"metrics1 t,1=1:2:x:4:5:6:7",
            b"metrics1 t,1=99999999999:2:3:4:5:6:7",
            b"metrics1 t,1",
        ] {
            assert!(ServerMetrics::decode(bad).is_err(), "{bad:?}");
        }
    }
}
