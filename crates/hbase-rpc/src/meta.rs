//! `hbase:meta`, served read-only from the cluster's region records: one row per table
//! (`table:state`) and one per serving region (`info:regioninfo`, `info:server`,
//! `info:serverstartcode`, `info:seqnumDuringOpen`, `info:state`), in HBase's format, so the
//! client's region lookups (a reversed one-row scan from `<table>,<row>,99999999999999`),
//! `tableExists`, and its waits for tables to come online read Strata's real regions.
//!
//! Rows are rebuilt from the records per request ([`crate::context::Directory::meta_rows`]).

use std::cmp::Ordering;

use bytes::{BufMut, Bytes, BytesMut};
use prost::Message;
use strata_model::cell::{Cell, CellType};

use crate::pb;
use crate::region_name::{compare_meta_rows, region_name};

/// HBase's prefix of protobuf values stored in meta (`ProtobufMagic.PB_MAGIC`).
pub const PB_MAGIC: &[u8] = b"PBUF";

/// Where regions are served: this process's HBase RPC address and start code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerIdentity {
    /// Host name clients connect to.
    pub host: String,
    /// Port of the HBase RPC listener.
    pub port: u16,
    /// Start time in ms; a new one tells clients the server restarted.
    pub start_code: u64,
}

impl ServerIdentity {
    /// As a protobuf `ServerName`.
    pub fn to_pb(&self) -> pb::ServerName {
        pb::ServerName {
            host_name: self.host.clone(),
            port: Some(u32::from(self.port)),
            start_code: Some(self.start_code),
        }
    }
}

/// One meta row: its key and its cells, sorted by family and qualifier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetaRow {
    /// The row key.
    pub key: Bytes,
    /// The cells.
    pub cells: Vec<Cell>,
}

fn pb_value(message: &impl Message) -> Bytes {
    let mut out = BytesMut::with_capacity(PB_MAGIC.len() + message.encoded_len());
    out.put_slice(PB_MAGIC);
    let _ = message.encode(&mut out);
    out.freeze()
}

fn cell(
    row: &Bytes,
    family: &'static [u8],
    qualifier: &'static [u8],
    ts: i64,
    value: Bytes,
) -> Cell {
    Cell {
        row: row.clone(),
        family: Bytes::from_static(family),
        qualifier: Bytes::from_static(qualifier),
        timestamp: ts,
        cell_type: CellType::Put,
        seq: 0,
        value,
        ttl: None,
    }
}

/// One region as `hbase:meta` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetaRegion {
    /// Its table.
    pub table: String,
    /// Its id (the last part of its region name).
    pub region_id: u64,
    /// First row (inclusive).
    pub start: Bytes,
    /// Last row (exclusive; empty = end of table).
    pub end: Bytes,
    /// The server holding it, when it is open and its table enabled; for a region of a
    /// disabled table, a server that answers `NotServingRegionException` for it (as HBase's
    /// meta keeps a closed region's last server), so the client raises
    /// `TableNotEnabledException` after checking the table's state.
    pub server: Option<ServerIdentity>,
    /// Whether the region is open on `server` (`info:state` OPEN), else CLOSED.
    pub open: bool,
}

/// The meta rows of `tables` (name, enabled) and their `regions`, in meta order, with
/// timestamp `ts`. A region not open is listed `CLOSED`; without a server, also without
/// `info:server`.
pub fn rows_of(tables: &[(String, bool)], regions: &[MetaRegion], ts: i64) -> Vec<MetaRow> {
    let mut rows = Vec::new();
    for (name, enabled) in tables {
        let key = Bytes::from(name.clone().into_bytes());
        let state = pb::TableState {
            state: if *enabled {
                pb::table_state::State::Enabled
            } else {
                pb::table_state::State::Disabled
            } as i32,
        };
        rows.push(MetaRow {
            // Unlike `info:regioninfo`, HBase stores the table state without the PB magic.
            cells: vec![cell(
                &key,
                b"table",
                b"state",
                ts,
                Bytes::from(state.encode_to_vec()),
            )],
            key,
        });
    }
    for region in regions {
        let key = region_name(&region.table, &region.start, region.region_id);
        let region_info = crate::schema::region_info_pb(
            &region.table,
            region.start.clone(),
            region.end.clone(),
            region.region_id,
        );
        let mut cells = vec![cell(
            &key,
            b"info",
            b"regioninfo",
            ts,
            pb_value(&region_info),
        )];
        let open = region.open && region.server.is_some();
        if let Some(server) = &region.server {
            if open {
                cells.push(cell(
                    &key,
                    b"info",
                    b"seqnumDuringOpen",
                    ts,
                    Bytes::copy_from_slice(&1u64.to_be_bytes()),
                ));
            }
            cells.push(cell(
                &key,
                b"info",
                b"server",
                ts,
                Bytes::from(format!("{}:{}", server.host, server.port)),
            ));
            cells.push(cell(
                &key,
                b"info",
                b"serverstartcode",
                ts,
                Bytes::copy_from_slice(&server.start_code.to_be_bytes()),
            ));
        }
        let state: &'static [u8] = if open { b"OPEN" } else { b"CLOSED" };
        cells.push(cell(&key, b"info", b"state", ts, Bytes::from_static(state)));
        cells.sort_by(|a, b| a.qualifier.cmp(&b.qualifier));
        rows.push(MetaRow { key, cells });
    }
    rows.sort_by(|a, b| compare_meta_rows(&a.key, &b.key));
    rows
}

/// The part of a scan of meta Strata honours: row range (with inclusive/exclusive ends),
/// direction, columns.
#[derive(Clone, Debug, Default)]
pub struct MetaScan {
    /// First row (last, if reversed); empty: open.
    pub start: Bytes,
    /// Whether `start` is included.
    pub include_start: bool,
    /// Row where the scan stops; empty: open.
    pub stop: Bytes,
    /// Whether `stop` is included.
    pub include_stop: bool,
    /// Descending order.
    pub reversed: bool,
    /// Families wanted with their qualifiers (empty set: whole family); empty: all.
    pub columns: Vec<(Bytes, Vec<Bytes>)>,
}

impl MetaScan {
    fn after_start(&self, key: &[u8]) -> bool {
        if self.start.is_empty() {
            return true;
        }
        let ord = compare_meta_rows(key, &self.start);
        let want = if self.reversed {
            Ordering::Less
        } else {
            Ordering::Greater
        };
        ord == want || (ord == Ordering::Equal && self.include_start)
    }

    fn before_stop(&self, key: &[u8]) -> bool {
        if self.stop.is_empty() {
            return true;
        }
        let ord = compare_meta_rows(key, &self.stop);
        let want = if self.reversed {
            Ordering::Greater
        } else {
            Ordering::Less
        };
        ord == want || (ord == Ordering::Equal && self.include_stop)
    }

    /// Keeps only the cells of the wanted columns.
    pub fn project(&self, cells: &[Cell]) -> Vec<Cell> {
        if self.columns.is_empty() {
            return cells.to_vec();
        }
        cells
            .iter()
            .filter(|c| {
                self.columns.iter().any(|(family, qualifiers)| {
                    *family == c.family
                        && (qualifiers.is_empty() || qualifiers.contains(&c.qualifier))
                })
            })
            .cloned()
            .collect()
    }

    /// The rows of `rows` (in meta order) this scan returns, in scan order.
    pub fn select(&self, rows: Vec<MetaRow>) -> Vec<Vec<Cell>> {
        let mut out: Vec<Vec<Cell>> = rows
            .into_iter()
            .filter(|r| self.after_start(&r.key) && self.before_stop(&r.key))
            .map(|r| self.project(&r.cells))
            .filter(|cells| !cells.is_empty())
            .collect();
        if self.reversed {
            out.reverse();
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows() -> Vec<MetaRow> {
        let regions: Vec<MetaRegion> = [(2u64, "", "m"), (3, "m", "")]
            .into_iter()
            .map(|(id, start, end)| MetaRegion {
                table: "t1".into(),
                region_id: id,
                start: Bytes::from(start),
                end: Bytes::from(end),
                server: Some(server()),
                open: true,
            })
            .collect();
        rows_of(&[("t1".into(), true)], &regions, 7)
    }

    fn server() -> ServerIdentity {
        ServerIdentity {
            host: "localhost".into(),
            port: 16020,
            start_code: 7,
        }
    }

    #[test]
    fn locate_finds_the_region_holding_a_row() {
        let rows = rows();
        assert_eq!(rows.len(), 3);
        let scan = MetaScan {
            start: Bytes::from_static(b"t1,q,99999999999999"),
            include_start: true,
            stop: Bytes::from_static(b"t1,,"),
            include_stop: true,
            reversed: true,
            columns: vec![(Bytes::from_static(b"info"), vec![])],
        };
        let found = scan.select(rows.clone());
        assert_eq!(found.len(), 2);
        assert_eq!(found[0][0].row, region_name("t1", b"m", 3));
        let scan = MetaScan {
            start: Bytes::from_static(b"t1,a,99999999999999"),
            ..scan
        };
        assert_eq!(scan.select(rows)[0][0].row, region_name("t1", b"", 2));
    }

    #[test]
    fn a_closed_region_keeps_its_server_and_is_listed_closed() {
        let region = MetaRegion {
            table: "t2".into(),
            region_id: 4,
            start: Bytes::new(),
            end: Bytes::new(),
            server: Some(server()),
            open: false,
        };
        let rows = rows_of(&[("t2".into(), false)], &[region], 7);
        let qualifiers: Vec<&[u8]> = rows[1].cells.iter().map(|c| c.qualifier.as_ref()).collect();
        assert_eq!(
            qualifiers,
            [&b"regioninfo"[..], b"server", b"serverstartcode", b"state"]
        );
        assert_eq!(rows[1].cells[3].value.as_ref(), b"CLOSED");
    }

    #[test]
    fn region_info_is_pb_magic_and_a_region_info() {
        let rows = rows();
        let info = rows[1]
            .cells
            .iter()
            .find(|c| c.qualifier.as_ref() == b"regioninfo")
            .unwrap();
        assert!(info.value.starts_with(PB_MAGIC));
        let decoded = pb::RegionInfo::decode(&info.value[4..]).unwrap();
        assert_eq!(decoded.region_id, 2);
        assert_eq!(decoded.end_key.as_deref(), Some(&b"m"[..]));
        assert_eq!(decoded.table_name.qualifier.as_ref(), b"t1");
    }
}
