//! The values stored in etcd. Each is one line of space-separated fields, the first naming the
//! record and its version (`region1`, `proc1`, …); binary keys are hex, absent fields `-`. Small
//! (a region record is ~60 bytes plus its keys) and readable with `etcdctl get`.

use std::fmt::Write as _;

use thiserror::Error;

mod order;
mod procedure;

pub use order::{Ack, Order};
pub use procedure::{
    CrashStep, CreateStep, DropStep, MergeStep, Procedure, SplitStep, TransitStep, TruncateStep,
};

/// A value that could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("bad {what} record: {detail}")]
pub struct DecodeError {
    what: &'static str,
    detail: String,
}

impl DecodeError {
    pub(crate) fn new(what: &'static str, detail: impl Into<String>) -> DecodeError {
        bad(what, detail)
    }
}

fn bad(what: &'static str, detail: impl Into<String>) -> DecodeError {
    DecodeError {
        what,
        detail: detail.into(),
    }
}

/// Region-server name: `host:port:startcode` (a restarted server is a new server).
pub type ServerName = String;

/// Where a region is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RegionState {
    /// Not served and should be: the master assigns it (new, or its server crashed).
    Offline,
    /// An open order is out to `server`.
    Opening,
    /// Served by `server`.
    Open,
    /// A close order is out to `server`.
    Closing,
    /// Closed on request; stays closed until assigned.
    Closed,
    /// A split order is out to `server` (which still serves the region until it splits).
    Splitting,
    /// Split into its `daughters`: served by nobody, kept until no daughter references its
    /// files (then the master's janitor deletes its directory and this record).
    Split,
    /// A merge order naming this region is out to `server` (which still serves it until the
    /// merge is done).
    Merging,
    /// Merged with its neighbour into the region its `daughters` name (twice): served by
    /// nobody, kept until the merged region no longer references its files.
    Merged,
}

impl RegionState {
    fn as_str(self) -> &'static str {
        match self {
            RegionState::Offline => "offline",
            RegionState::Opening => "opening",
            RegionState::Open => "open",
            RegionState::Closing => "closing",
            RegionState::Closed => "closed",
            RegionState::Splitting => "splitting",
            RegionState::Split => "split",
            RegionState::Merging => "merging",
            RegionState::Merged => "merged",
        }
    }

    fn parse(s: &str) -> Result<RegionState, DecodeError> {
        Ok(match s {
            "offline" => RegionState::Offline,
            "opening" => RegionState::Opening,
            "open" => RegionState::Open,
            "closing" => RegionState::Closing,
            "closed" => RegionState::Closed,
            "splitting" => RegionState::Splitting,
            "split" => RegionState::Split,
            "merging" => RegionState::Merging,
            "merged" => RegionState::Merged,
            other => return Err(bad("region", format!("state {other:?}"))),
        })
    }
}

/// The assignment record of one region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionRecord {
    /// State.
    pub state: RegionState,
    /// The server the state refers to (Opening/Open/Closing), else `None`.
    pub server: Option<ServerName>,
    /// Incremented by every open order: a server never acts on an order older than what it has
    /// seen for the region, and the storage layer may use it to fence a stale opener.
    pub epoch: u64,
    /// The procedure working on the region, if any (at most one).
    pub proc: Option<String>,
    /// First row (inclusive).
    pub start: Vec<u8>,
    /// Last row (exclusive; empty = end of table).
    pub end: Vec<u8>,
    /// The daughters of a split region (lower half first), kept for the janitor; for a merged
    /// region, the merged region named twice.
    pub daughters: Option<(String, String)>,
}

impl RegionRecord {
    /// The region a merged region went into.
    pub fn merged_into(&self) -> Option<&str> {
        match (&self.state, &self.daughters) {
            (RegionState::Merged, Some((m, _))) => Some(m),
            _ => None,
        }
    }

    /// A new, offline region of `[start, end)`.
    pub fn new(start: Vec<u8>, end: Vec<u8>) -> RegionRecord {
        RegionRecord {
            state: RegionState::Offline,
            server: None,
            epoch: 0,
            proc: None,
            start,
            end,
            daughters: None,
        }
    }

    /// Encodes the record (two more fields name a split region's daughters).
    pub fn encode(&self) -> Vec<u8> {
        let mut s = format!(
            "region1 {} {} {} {} {} {}",
            self.state.as_str(),
            opt(self.server.as_deref()),
            self.epoch,
            opt(self.proc.as_deref()),
            hex_or_dash(&self.start),
            hex_or_dash(&self.end)
        );
        if let Some((a, b)) = &self.daughters {
            let _ = write!(s, " {a} {b}");
        }
        s.into_bytes()
    }

    /// Decodes a record.
    ///
    /// # Errors
    /// Not a region record.
    pub fn decode(bytes: &[u8]) -> Result<RegionRecord, DecodeError> {
        let f = match fields(bytes, "region1", 9) {
            Ok(f) => f,
            Err(_) => fields(bytes, "region1", 7)?,
        };
        let state = RegionState::parse(f[1])?;
        let daughters = match (f.get(7), f.get(8)) {
            (Some(a), Some(b))
                if region_name_ok(a)
                    && region_name_ok(b)
                    && (a != b) != (state == RegionState::Merged) =>
            {
                Some(((*a).to_string(), (*b).to_string()))
            }
            (None, None) => None,
            _ => return Err(bad("region", format!("daughters in {f:?}"))),
        };
        Ok(RegionRecord {
            state,
            server: unopt(f[2]),
            epoch: f[3].parse().map_err(|_| bad("region", "epoch"))?,
            proc: unopt(f[4]),
            start: unhex_or_dash(f[5])?,
            end: unhex_or_dash(f[6])?,
            daughters,
        })
    }
}

/// State of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableState {
    /// Its region records are being written.
    Creating,
    /// Its regions are assigned.
    Enabled,
    /// Being dropped: its regions are closed, then their records deleted.
    Dropping,
    /// Being disabled: its regions are closed.
    Disabling,
    /// Disabled: its regions stay closed until it is enabled.
    Disabled,
    /// Being enabled: its regions are marked for assignment.
    Enabling,
}

impl TableState {
    fn as_str(self) -> &'static str {
        match self {
            TableState::Creating => "creating",
            TableState::Enabled => "enabled",
            TableState::Dropping => "dropping",
            TableState::Disabling => "disabling",
            TableState::Disabled => "disabled",
            TableState::Enabling => "enabling",
        }
    }

    fn parse(s: &str) -> Result<TableState, DecodeError> {
        Ok(match s {
            "creating" => TableState::Creating,
            "enabled" => TableState::Enabled,
            "dropping" => TableState::Dropping,
            "disabling" => TableState::Disabling,
            "disabled" => TableState::Disabled,
            "enabling" => TableState::Enabling,
            other => return Err(bad("table", format!("state {other:?}"))),
        })
    }
}

/// A table's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableRecord {
    /// State.
    pub state: TableState,
    /// The split points: region `i` is `[splits[i-1], splits[i])`.
    pub splits: Vec<Vec<u8>>,
    /// What tells this incarnation of the table from earlier ones of the same name (empty for
    /// tables created before incarnations existed): part of every region name, so a re-created
    /// table never reuses a region name, epoch or storage id of a dropped one.
    pub incarnation: String,
    /// The sequence number of the next region created by a split (0: none yet, the first
    /// is [`TableRecord::regions`]); never decreases, so a split's daughter names are never
    /// used again, not even after the split rolled back.
    pub next_seq: u32,
}

impl TableRecord {
    /// The first sequence number free for a split's daughters.
    pub fn free_seq(&self) -> u32 {
        self.next_seq.max(self.regions())
    }

    /// Number of regions.
    pub fn regions(&self) -> u32 {
        u32::try_from(self.splits.len() + 1).unwrap_or(u32::MAX)
    }

    /// The key range of region `i`.
    pub fn range(&self, i: u32) -> (Vec<u8>, Vec<u8>) {
        let i = i as usize;
        let start = if i == 0 {
            Vec::new()
        } else {
            self.splits[i - 1].clone()
        };
        let end = self.splits.get(i).cloned().unwrap_or_default();
        (start, end)
    }

    /// The name of region `i` of this incarnation.
    pub fn region_name(&self, table: &str, i: u32) -> String {
        crate::layout::incarnation_region_id(table, &self.incarnation, i)
    }

    /// Encodes the record.
    pub fn encode(&self) -> Vec<u8> {
        let state = self.state.as_str();
        let splits: Vec<String> = self.splits.iter().map(|s| hex(s)).collect();
        let splits = if splits.is_empty() {
            "-".to_string()
        } else {
            splits.join(",")
        };
        let incarnation = if self.incarnation.is_empty() {
            "-"
        } else {
            &self.incarnation
        };
        match (self.next_seq, self.incarnation.is_empty()) {
            (0, true) => format!("table1 {state} {splits}").into_bytes(),
            (0, false) => format!("table1 {state} {splits} {incarnation}").into_bytes(),
            (n, _) => format!("table1 {state} {splits} {incarnation} {n:x}").into_bytes(),
        }
    }

    /// Decodes a record.
    ///
    /// # Errors
    /// Not a table record.
    pub fn decode(bytes: &[u8]) -> Result<TableRecord, DecodeError> {
        let f = fields(bytes, "table1", 5)
            .or_else(|_| fields(bytes, "table1", 4))
            .or_else(|_| fields(bytes, "table1", 3))?;
        let state = TableState::parse(f[1])?;
        let incarnation = match f.get(3) {
            None | Some(&"-") => String::new(),
            Some(s) => (*s).to_string(),
        };
        let next_seq = match f.get(4) {
            None => 0,
            Some(n) => u32::from_str_radix(n, 16).map_err(|_| bad("table", "next region"))?,
        };
        if incarnation.contains([',', '/', ' ']) {
            return Err(bad("table", format!("incarnation {incarnation:?}")));
        }
        let splits = if f[2] == "-" {
            Vec::new()
        } else {
            f[2].split(',').map(unhex).collect::<Result<_, _>>()?
        };
        Ok(TableRecord {
            state,
            splits,
            incarnation,
            next_seq,
        })
    }
}

fn fields<'a>(bytes: &'a [u8], tag: &'static str, n: usize) -> Result<Vec<&'a str>, DecodeError> {
    let text = std::str::from_utf8(bytes).map_err(|_| bad(tag, "not UTF-8"))?;
    let f: Vec<&str> = text.split(' ').collect();
    if f.len() != n || f[0] != tag {
        return Err(bad(tag, format!("{text:?}")));
    }
    Ok(f)
}

/// Whether `name` can be a region name in a record (`table,…`, no space).
fn region_name_ok(name: &str) -> bool {
    name.contains(',') && !name.starts_with(',') && !name.ends_with(',') && !name.contains(' ')
}

fn opt(s: Option<&str>) -> &str {
    s.unwrap_or("-")
}

fn unopt(s: &str) -> Option<String> {
    (s != "-").then(|| s.to_string())
}

fn hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        let _ = write!(s, "{x:02x}");
    }
    s
}

fn hex_or_dash(b: &[u8]) -> String {
    if b.is_empty() {
        "-".into()
    } else {
        hex(b)
    }
}

fn unhex(s: &str) -> Result<Vec<u8>, DecodeError> {
    if !s.len().is_multiple_of(2) {
        return Err(bad("hex", s));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(|_| bad("hex", s)))
        .collect()
}

fn unhex_or_dash(s: &str) -> Result<Vec<u8>, DecodeError> {
    if s == "-" {
        Ok(Vec::new())
    } else {
        unhex(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        let r = RegionRecord {
            state: RegionState::Opening,
            server: Some("h:16020:17".into()),
            epoch: 9,
            proc: Some("00000000000000a0-00000001".into()),
            start: b"a\x00".to_vec(),
            end: Vec::new(),
            daughters: None,
        };
        assert_eq!(RegionRecord::decode(&r.encode()).unwrap(), r);
        let fresh = RegionRecord::new(Vec::new(), b"m".to_vec());
        assert_eq!(RegionRecord::decode(&fresh.encode()).unwrap(), fresh);

        let mut t = TableRecord {
            state: TableState::Creating,
            splits: vec![b"g".to_vec(), b"p".to_vec()],
            incarnation: String::new(),
            next_seq: 0,
        };
        assert_eq!(TableRecord::decode(&t.encode()).unwrap(), t);
        assert_eq!(t.region_name("t", 1), "t,00000001");
        for state in [
            TableState::Disabling,
            TableState::Disabled,
            TableState::Enabling,
        ] {
            t.state = state;
            t.incarnation = "1a-3".into();
            assert_eq!(TableRecord::decode(&t.encode()).unwrap(), t);
        }
        assert_eq!(t.region_name("t", 1), "t,1a-3.00000001");
        assert_eq!(t.range(0), (Vec::new(), b"g".to_vec()));
        assert_eq!(t.range(2), (b"p".to_vec(), Vec::new()));

        let procs = [
            Procedure::Transit {
                region: "t,00000001".into(),
                target: None,
                open: true,
                step: TransitStep::Pick,
            },
            Procedure::Transit {
                region: "t,00000001".into(),
                target: Some("h:1:2".into()),
                open: false,
                step: TransitStep::AwaitClose {
                    server: "h:1:2".into(),
                    epoch: 3,
                },
            },
            Procedure::Transit {
                region: "t,00000002".into(),
                target: None,
                open: true,
                step: TransitStep::AwaitOpen {
                    server: "h:1:2".into(),
                    epoch: 4,
                },
            },
            Procedure::ServerCrash {
                server: "h:1:2".into(),
                step: CrashStep::Split,
            },
            Procedure::CreateTable {
                table: "ns:t".into(),
                step: CreateStep::Regions { next: 7 },
            },
            Procedure::CreateTable {
                table: "t".into(),
                step: CreateStep::Enable,
            },
            Procedure::DropTable {
                table: "t".into(),
                step: DropStep::Delete,
            },
            Procedure::DropTable {
                table: "t".into(),
                step: DropStep::Files,
            },
            Procedure::DisableTable { table: "t".into() },
            Procedure::EnableTable { table: "t".into() },
            Procedure::ReopenTable {
                table: "t".into(),
                next: 3,
            },
            Procedure::TruncateTable {
                table: "t".into(),
                preserve: true,
                step: TruncateStep::Delete,
            },
            Procedure::TruncateTable {
                table: "t".into(),
                preserve: false,
                step: TruncateStep::Files,
            },
        ];
        for p in procs {
            assert_eq!(Procedure::decode(&p.encode()).unwrap(), p);
        }
        for o in [Order::Open { epoch: 1 }, Order::Close { epoch: 2 }] {
            assert_eq!(Order::decode(&o.encode()).unwrap(), o);
        }
        for a in [Ack::Opened(1), Ack::FailedOpen(2), Ack::Closed(3)] {
            assert_eq!(Ack::decode(&a.encode()).unwrap(), a);
        }
    }

    #[test]
    fn split_records_round_trip() {
        let parent = RegionRecord {
            state: RegionState::Split,
            server: None,
            epoch: 3,
            proc: None,
            start: b"a".to_vec(),
            end: b"q".to_vec(),
            daughters: Some(("t,1a-3.00000004".into(), "t,1a-3.00000005".into())),
        };
        assert_eq!(RegionRecord::decode(&parent.encode()).unwrap(), parent);
        let splitting = RegionRecord {
            state: RegionState::Splitting,
            server: Some("h:1:2".into()),
            proc: Some("a-1".into()),
            daughters: None,
            ..parent.clone()
        };
        assert_eq!(
            RegionRecord::decode(&splitting.encode()).unwrap(),
            splitting
        );

        let mut t = TableRecord {
            state: TableState::Enabled,
            splits: vec![b"g".to_vec()],
            incarnation: String::new(),
            next_seq: 0,
        };
        assert_eq!(t.free_seq(), 2);
        t.next_seq = 0x1f;
        assert_eq!(TableRecord::decode(&t.encode()).unwrap(), t);
        assert_eq!(t.free_seq(), 0x1f);
        t.incarnation = "1a-3".into();
        assert_eq!(TableRecord::decode(&t.encode()).unwrap(), t);

        for step in [SplitStep::Await, SplitStep::Undo { serves: true }] {
            for row in [None, Some(b"m\x00".to_vec())] {
                let p = Procedure::Split {
                    region: "t,00000001".into(),
                    daughters: ("t,00000004".into(), "t,00000005".into()),
                    row,
                    server: "h:1:2".into(),
                    epoch: 7,
                    step,
                };
                assert_eq!(Procedure::decode(&p.encode()).unwrap(), p);
            }
        }
        let o = Order::Split {
            epoch: 4,
            daughters: ("ns:t,1-2.00000002".into(), "ns:t,1-2.00000003".into()),
            row: Some(b"k".to_vec()),
        };
        assert_eq!(Order::decode(&o.encode()).unwrap(), o);
        assert_eq!(
            o.encode(),
            b"order1 split 4 ns:t,1-2.00000002 ns:t,1-2.00000003 6b"
        );
        let o = Order::Split {
            epoch: 4,
            daughters: ("t,00000002".into(), "t,00000003".into()),
            row: None,
        };
        assert_eq!(Order::decode(&o.encode()).unwrap(), o);
        for a in [Ack::Split(5, b"row7".to_vec()), Ack::FailedSplit(5)] {
            assert_eq!(Ack::decode(&a.encode()).unwrap(), a);
        }
    }

    #[test]
    fn malformed_split_records_are_refused() {
        for bad in [
            "region1 split - 3 - 61 71 t,00000004",
            "region1 split - 3 - 61 71 t,00000004 t,00000004",
            "region1 split - 3 - 61 71 nocomma t,00000005",
            "region1 split - 3 - 61 71 t,00000004 t,00000005 extra",
        ] {
            assert!(RegionRecord::decode(bad.as_bytes()).is_err(), "{bad}");
        }
        assert!(TableRecord::decode(b"table1 enabled - - zz").is_err());
        for bad in [
            "proc1 split t,1 t,2 t,3 - h:1:2 7",
            "proc1 split t,1 t,2 t,3 - h:1:2 7 undo",
            "proc1 split t,1 t,2 t,3 - h:1:2 7 undo 2",
            "proc1 split t,1 t,2 t,3 - h:1:2 7 await 1",
            "proc1 split t,1 t,2 t,2 - h:1:2 7 await",
            "proc1 split t,1 t,2 t,3 zz h:1:2 7 await",
            "proc1 split t,1 t,2 t,3 - h:1:2 x await",
        ] {
            assert!(Procedure::decode(bad.as_bytes()).is_err(), "{bad}");
        }
        for bad in [
            "order1 split 4 t,2 t,3",
            "order1 split 4 t,2 t,2 -",
            "order1 split 4 t,2 t,3 6",
            "order1 open 4 t,2 t,3 -",
            "order1 split x t,2 t,3 -",
        ] {
            assert!(Order::decode(bad.as_bytes()).is_err(), "{bad}");
        }
        for bad in [
            "ack1 split 4",
            "ack1 split 4 zz",
            "ack1 failed-split 4 61",
            "ack1 opened 4 61",
        ] {
            assert!(Ack::decode(bad.as_bytes()).is_err(), "{bad}");
        }
    }

    #[test]
    fn merge_records_round_trip_and_malformed_ones_are_refused() {
        let merged = RegionRecord {
            state: RegionState::Merged,
            server: None,
            epoch: 3,
            proc: None,
            start: b"a".to_vec(),
            end: b"q".to_vec(),
            daughters: Some(("t,1a-3.00000006".into(), "t,1a-3.00000006".into())),
        };
        assert_eq!(RegionRecord::decode(&merged.encode()).unwrap(), merged);
        assert_eq!(merged.merged_into(), Some("t,1a-3.00000006"));
        let merging = RegionRecord {
            state: RegionState::Merging,
            server: Some("h:1:2".into()),
            proc: Some("a-1".into()),
            daughters: None,
            ..merged.clone()
        };
        assert_eq!(RegionRecord::decode(&merging.encode()).unwrap(), merging);
        assert_eq!(merging.merged_into(), None);
        for step in [
            MergeStep::Colocate,
            MergeStep::Await { low: 4, high: 9 },
            MergeStep::Undo { serves: true },
            MergeStep::Undo { serves: false },
        ] {
            let p = Procedure::Merge {
                regions: ("t,00000001".into(), "t,00000002".into()),
                merged: "t,00000005".into(),
                server: "h:1:2".into(),
                step,
            };
            assert_eq!(Procedure::decode(&p.encode()).unwrap(), p);
        }
        let o = Order::Merge {
            epoch: 4,
            high: "ns:t,1-2.00000002".into(),
            high_epoch: 7,
            merged: "ns:t,1-2.00000009".into(),
        };
        assert_eq!(Order::decode(&o.encode()).unwrap(), o);
        for a in [Ack::Merged(5), Ack::FailedMerge(5)] {
            assert_eq!(Ack::decode(&a.encode()).unwrap(), a);
        }
        for bad in [
            // A merged region names its merged region twice; a split parent two daughters.
            "region1 merged - 3 - 61 71 t,00000004 t,00000005",
            "region1 split - 3 - 61 71 t,00000004 t,00000004",
        ] {
            assert!(RegionRecord::decode(bad.as_bytes()).is_err(), "{bad}");
        }
        for bad in [
            "proc1 merge t,1 t,2 t,3 h:1:2",
            "proc1 merge t,1 t,1 t,3 h:1:2 colocate",
            "proc1 merge t,1 t,2 t,2 h:1:2 colocate",
            "proc1 merge t,1 t,2 t,3 h:1:2 await 4",
            "proc1 merge t,1 t,2 t,3 h:1:2 await 4 x",
            "proc1 merge t,1 t,2 t,3 h:1:2 undo 2",
            "proc1 merge t,1 t,2 t,3 h:1:2 colocate 1",
        ] {
            assert!(Procedure::decode(bad.as_bytes()).is_err(), "{bad}");
        }
        for bad in [
            "order1 merge 4 t,2 7",
            "order1 merge 4 t,2 x t,9",
            "order1 merge 4 t,2 7 t,2",
        ] {
            assert!(Order::decode(bad.as_bytes()).is_err(), "{bad}");
        }
        assert!(Ack::decode(b"ack1 merged 4 61").is_err());
    }

    #[test]
    fn garbage_is_refused() {
        assert!(RegionRecord::decode(b"region1 open").is_err());
        assert!(RegionRecord::decode(b"region1 weird - 0 - - -").is_err());
        assert!(Procedure::decode(b"proc1 transit r").is_err());
        assert!(TableRecord::decode(b"table1 enabled zz").is_err());
        assert!(Ack::decode(b"\xff").is_err());
    }
}
