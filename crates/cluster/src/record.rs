//! The values stored in etcd. Each is one line of space-separated fields, the first naming the
//! record and its version (`region1`, `proc1`, …); binary keys are hex, absent fields `-`. Small
//! (a region record is ~60 bytes plus its keys) and readable with `etcdctl get`.

use std::fmt::Write as _;

use thiserror::Error;

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

/// Where a transit (assign / unassign / move) is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransitStep {
    /// Send a close order to the region's server.
    Close,
    /// Waiting for `server` to close the region at `epoch`.
    AwaitClose {
        /// The server.
        server: ServerName,
        /// The region epoch of the order.
        epoch: u64,
    },
    /// Choose a server and send it an open order.
    Pick,
    /// Waiting for `server` to open the region at `epoch`.
    AwaitOpen {
        /// The server.
        server: ServerName,
        /// The region epoch of the order.
        epoch: u64,
    },
}

/// Where a server-crash recovery is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrashStep {
    /// Fence the dead server's WAL (HDFS lease recovery).
    Fence,
    /// Split the fenced WAL into per-region recovered edits.
    Split,
    /// Mark its regions offline (or hand them to their transits) so they are reassigned.
    Reassign,
}

/// Where a table creation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreateStep {
    /// Writing region records, from region `next`.
    Regions {
        /// Next region number to write.
        next: u32,
    },
    /// Mark the table enabled (its offline regions are then assigned).
    Enable,
}

/// Where a table drop is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropStep {
    /// Close every region of the table.
    Close,
    /// Delete the region records and the table record.
    Delete,
    /// Delete the table's files on shared storage (between `Close` and `Delete`).
    Files,
}

/// Where a table truncation is (it ends as a [`Procedure::CreateTable`] of a new incarnation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TruncateStep {
    /// Close every region of the table.
    Close,
    /// Delete the table's files on shared storage.
    Files,
    /// Delete the old region records, then start the new incarnation's creation.
    Delete,
}

/// Where a region split is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitStep {
    /// The split order is out: waiting for the server's `split` or `failed-split` ack.
    Await,
    /// Rolling back: delete the daughters' directories, then give the parent back (to its
    /// server if it still `serves` it, else offline for reassignment).
    Undo {
        /// Whether the server still serves the parent (it answered `failed-split`).
        serves: bool,
    },
}

/// Where a merge of two adjacent regions is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeStep {
    /// The higher region is being moved onto the lower one's server by a transit of its own:
    /// waiting for it to end.
    Colocate,
    /// The merge order is out (at the regions' epochs then): waiting for the server's `merged`
    /// or `failed-merge` ack.
    Await {
        /// The lower region's epoch (the order's).
        low: u64,
        /// The higher region's epoch.
        high: u64,
    },
    /// Rolling back: delete the merged region's directory, then give both regions back (to
    /// the server if it still `serves` them, else offline for reassignment).
    Undo {
        /// Whether the server still serves both (it answered `failed-merge`).
        serves: bool,
    },
}

/// A persisted procedure: written before it acts, advanced by guarded transactions, resumed
/// from its last step by whichever master is active.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Procedure {
    /// Assign, unassign or move one region.
    Transit {
        /// The region.
        region: String,
        /// Preferred server for the open, if any.
        target: Option<ServerName>,
        /// Whether the region is opened at the end (false for unassign).
        open: bool,
        /// The step.
        step: TransitStep,
    },
    /// Recover the regions of a dead server.
    ServerCrash {
        /// The dead server.
        server: ServerName,
        /// The step.
        step: CrashStep,
    },
    /// Create a table (its record holds the split points).
    CreateTable {
        /// The table.
        table: String,
        /// The step.
        step: CreateStep,
    },
    /// Drop a table.
    DropTable {
        /// The table.
        table: String,
        /// The step.
        step: DropStep,
    },
    /// Disable a table: close every region, then mark it disabled.
    DisableTable {
        /// The table.
        table: String,
    },
    /// Enable a disabled table: mark its closed regions offline (they are then assigned), then
    /// the table enabled.
    EnableTable {
        /// The table.
        table: String,
    },
    /// Reopen every region of an enabled table (after its schema changed): one move per region
    /// onto its own server, in region order.
    ReopenTable {
        /// The table.
        table: String,
        /// Regions (in name order) whose reopening has been started.
        next: u32,
    },
    /// Empty a table: close and delete its regions and files, then create a new incarnation
    /// (same split points when `preserve`, else one region).
    TruncateTable {
        /// The table.
        table: String,
        /// Whether the split points are kept.
        preserve: bool,
        /// The step.
        step: TruncateStep,
    },
    /// Split an open region where it is served into two new regions.
    Split {
        /// The parent region.
        region: String,
        /// The daughters' names (rows below the split row, rows from it).
        daughters: (String, String),
        /// The split row asked for (`None`: the server picks the middle key).
        row: Option<Vec<u8>>,
        /// The server the order went to.
        server: ServerName,
        /// The parent's epoch on that server.
        epoch: u64,
        /// The step.
        step: SplitStep,
    },
    /// Merge two adjacent open regions of an enabled table into a new one, where the lower
    /// one is served.
    Merge {
        /// The regions (lower first).
        regions: (String, String),
        /// The merged region's name.
        merged: String,
        /// The server the regions are merged on.
        server: ServerName,
        /// The step.
        step: MergeStep,
    },
}

impl Procedure {
    /// Encodes the procedure.
    pub fn encode(&self) -> Vec<u8> {
        let mut s = String::from("proc1 ");
        match self {
            Procedure::Transit {
                region,
                target,
                open,
                step,
            } => {
                let _ = write!(
                    s,
                    "transit {region} {} {}",
                    opt(target.as_deref()),
                    u8::from(*open)
                );
                match step {
                    TransitStep::Close => s.push_str(" close"),
                    TransitStep::AwaitClose { server, epoch } => {
                        let _ = write!(s, " await-close {server} {epoch}");
                    }
                    TransitStep::Pick => s.push_str(" pick"),
                    TransitStep::AwaitOpen { server, epoch } => {
                        let _ = write!(s, " await-open {server} {epoch}");
                    }
                }
            }
            Procedure::ServerCrash { server, step } => {
                let step = match step {
                    CrashStep::Fence => "fence",
                    CrashStep::Split => "split",
                    CrashStep::Reassign => "reassign",
                };
                let _ = write!(s, "crash {server} {step}");
            }
            Procedure::CreateTable { table, step } => match step {
                CreateStep::Regions { next } => {
                    let _ = write!(s, "create {table} regions {next}");
                }
                CreateStep::Enable => {
                    let _ = write!(s, "create {table} enable");
                }
            },
            Procedure::DropTable { table, step } => {
                let step = match step {
                    DropStep::Close => "close",
                    DropStep::Delete => "delete",
                    DropStep::Files => "files",
                };
                let _ = write!(s, "drop {table} {step}");
            }
            Procedure::DisableTable { table } => {
                let _ = write!(s, "disable {table}");
            }
            Procedure::EnableTable { table } => {
                let _ = write!(s, "enable {table}");
            }
            Procedure::ReopenTable { table, next } => {
                let _ = write!(s, "reopen {table} {next}");
            }
            Procedure::TruncateTable {
                table,
                preserve,
                step,
            } => {
                let step = match step {
                    TruncateStep::Close => "close",
                    TruncateStep::Files => "files",
                    TruncateStep::Delete => "delete",
                };
                let _ = write!(s, "truncate {table} {} {step}", u8::from(*preserve));
            }
            Procedure::Split {
                region,
                daughters: (low, high),
                row,
                server,
                epoch,
                step,
            } => {
                let row = row.as_deref().map_or_else(|| "-".to_string(), hex);
                let _ = write!(s, "split {region} {low} {high} {row} {server} {epoch}");
                match step {
                    SplitStep::Await => s.push_str(" await"),
                    SplitStep::Undo { serves } => {
                        let _ = write!(s, " undo {}", u8::from(*serves));
                    }
                }
            }
            Procedure::Merge {
                regions: (low, high),
                merged,
                server,
                step,
            } => {
                let _ = write!(s, "merge {low} {high} {merged} {server}");
                match step {
                    MergeStep::Colocate => s.push_str(" colocate"),
                    MergeStep::Await { low, high } => {
                        let _ = write!(s, " await {low} {high}");
                    }
                    MergeStep::Undo { serves } => {
                        let _ = write!(s, " undo {}", u8::from(*serves));
                    }
                }
            }
        }
        s.into_bytes()
    }

    /// Decodes a procedure.
    ///
    /// # Errors
    /// Not a procedure record.
    pub fn decode(bytes: &[u8]) -> Result<Procedure, DecodeError> {
        let text = std::str::from_utf8(bytes).map_err(|_| bad("proc", "not UTF-8"))?;
        let f: Vec<&str> = text.split(' ').collect();
        let get = |i: usize| {
            f.get(i)
                .copied()
                .ok_or_else(|| bad("proc", format!("missing field {i} in {text:?}")))
        };
        if get(0)? != "proc1" {
            return Err(bad("proc", format!("tag in {text:?}")));
        }
        let epoch = |i: usize| get(i)?.parse::<u64>().map_err(|_| bad("proc", "epoch"));
        Ok(match get(1)? {
            "transit" => {
                let step = match get(5)? {
                    "close" => TransitStep::Close,
                    "await-close" => TransitStep::AwaitClose {
                        server: get(6)?.to_string(),
                        epoch: epoch(7)?,
                    },
                    "pick" => TransitStep::Pick,
                    "await-open" => TransitStep::AwaitOpen {
                        server: get(6)?.to_string(),
                        epoch: epoch(7)?,
                    },
                    other => return Err(bad("proc", format!("transit step {other:?}"))),
                };
                Procedure::Transit {
                    region: get(2)?.to_string(),
                    target: unopt(get(3)?),
                    open: get(4)? == "1",
                    step,
                }
            }
            "crash" => Procedure::ServerCrash {
                server: get(2)?.to_string(),
                step: match get(3)? {
                    "fence" => CrashStep::Fence,
                    "split" => CrashStep::Split,
                    "reassign" => CrashStep::Reassign,
                    other => return Err(bad("proc", format!("crash step {other:?}"))),
                },
            },
            "create" => Procedure::CreateTable {
                table: get(2)?.to_string(),
                step: match get(3)? {
                    "regions" => CreateStep::Regions {
                        next: get(4)?.parse().map_err(|_| bad("proc", "region number"))?,
                    },
                    "enable" => CreateStep::Enable,
                    other => return Err(bad("proc", format!("create step {other:?}"))),
                },
            },
            "drop" => Procedure::DropTable {
                table: get(2)?.to_string(),
                step: match get(3)? {
                    "close" => DropStep::Close,
                    "delete" => DropStep::Delete,
                    "files" => DropStep::Files,
                    other => return Err(bad("proc", format!("drop step {other:?}"))),
                },
            },
            "disable" => Procedure::DisableTable {
                table: get(2)?.to_string(),
            },
            "enable" => Procedure::EnableTable {
                table: get(2)?.to_string(),
            },
            "reopen" => Procedure::ReopenTable {
                table: get(2)?.to_string(),
                next: get(3)?.parse().map_err(|_| bad("proc", "region number"))?,
            },
            "truncate" => Procedure::TruncateTable {
                table: get(2)?.to_string(),
                preserve: get(3)? == "1",
                step: match get(4)? {
                    "close" => TruncateStep::Close,
                    "files" => TruncateStep::Files,
                    "delete" => TruncateStep::Delete,
                    other => return Err(bad("proc", format!("truncate step {other:?}"))),
                },
            },
            "split" => {
                let (low, high) = (get(3)?, get(4)?);
                if !region_name_ok(low) || !region_name_ok(high) || low == high {
                    return Err(bad("proc", format!("daughters in {text:?}")));
                }
                let row = match get(5)? {
                    "-" => None,
                    r => Some(unhex(r)?),
                };
                let step = match (get(8)?, f.get(9).copied(), f.len()) {
                    ("await", None, 9) => SplitStep::Await,
                    ("undo", Some(b @ ("0" | "1")), 10) => SplitStep::Undo { serves: b == "1" },
                    _ => return Err(bad("proc", format!("split step in {text:?}"))),
                };
                Procedure::Split {
                    region: get(2)?.to_string(),
                    daughters: (low.to_string(), high.to_string()),
                    row,
                    server: get(6)?.to_string(),
                    epoch: epoch(7)?,
                    step,
                }
            }
            "merge" => {
                let (low, high, merged) = (get(2)?, get(3)?, get(4)?);
                if ![low, high, merged].iter().all(|r| region_name_ok(r))
                    || low == high
                    || merged == low
                    || merged == high
                {
                    return Err(bad("proc", format!("regions in {text:?}")));
                }
                let step = match (get(6)?, f.len()) {
                    ("colocate", 7) => MergeStep::Colocate,
                    ("await", 9) => MergeStep::Await {
                        low: epoch(7)?,
                        high: epoch(8)?,
                    },
                    ("undo", 8) => match get(7)? {
                        b @ ("0" | "1") => MergeStep::Undo { serves: b == "1" },
                        _ => return Err(bad("proc", format!("merge step in {text:?}"))),
                    },
                    _ => return Err(bad("proc", format!("merge step in {text:?}"))),
                };
                Procedure::Merge {
                    regions: (low.to_string(), high.to_string()),
                    merged: merged.to_string(),
                    server: get(5)?.to_string(),
                    step,
                }
            }
            other => return Err(bad("proc", format!("kind {other:?}"))),
        })
    }
}

/// An order from the master to a region server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Order {
    /// Open the region at this epoch.
    Open {
        /// Region epoch.
        epoch: u64,
    },
    /// Close the region (opened at this epoch).
    Close {
        /// Region epoch.
        epoch: u64,
    },
    /// Split the region (open at this epoch) into `daughters` at `row` (`None`: its middle
    /// key), then stop serving it; the daughters are opened by later open orders.
    Split {
        /// Region epoch.
        epoch: u64,
        /// The daughters' names (lower half first).
        daughters: (String, String),
        /// The split row, if chosen by the master.
        row: Option<Vec<u8>>,
    },
    /// Merge the region (open at `epoch`, the lower one) with `high` (open at `high_epoch`)
    /// into `merged`, then stop serving both; the merged region is opened by a later order.
    Merge {
        /// The lower region's epoch.
        epoch: u64,
        /// The higher region.
        high: String,
        /// Its epoch.
        high_epoch: u64,
        /// The merged region's name.
        merged: String,
    },
}

/// A region server's answer to an order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ack {
    /// Opened and serving at this epoch.
    Opened(u64),
    /// Could not open at this epoch.
    FailedOpen(u64),
    /// Closed (flushed) at this epoch.
    Closed(u64),
    /// Split at this epoch at this row: the daughters' directories are complete and the
    /// region is no longer served.
    Split(u64, Vec<u8>),
    /// Could not split at this epoch; still serving the region.
    FailedSplit(u64),
    /// Merged at this (the lower region's) epoch: the merged region's directory is complete
    /// and neither region is served any more.
    Merged(u64),
    /// Could not merge at this epoch; still serving both regions.
    FailedMerge(u64),
}

impl Order {
    /// Encodes the order.
    pub fn encode(&self) -> Vec<u8> {
        match self {
            Order::Open { epoch } => format!("order1 open {epoch}"),
            Order::Close { epoch } => format!("order1 close {epoch}"),
            Order::Split {
                epoch,
                daughters: (low, high),
                row,
            } => {
                let row = row.as_deref().map_or_else(|| "-".to_string(), hex);
                format!("order1 split {epoch} {low} {high} {row}")
            }
            Order::Merge {
                epoch,
                high,
                high_epoch,
                merged,
            } => format!("order1 merge {epoch} {high} {high_epoch} {merged}"),
        }
        .into_bytes()
    }

    /// Decodes an order.
    ///
    /// # Errors
    /// Not an order.
    pub fn decode(bytes: &[u8]) -> Result<Order, DecodeError> {
        let f = fields(bytes, "order1", 3).or_else(|_| fields(bytes, "order1", 6))?;
        let epoch = f[2].parse().map_err(|_| bad("order", "epoch"))?;
        match (f[1], f.len()) {
            ("open", 3) => Ok(Order::Open { epoch }),
            ("close", 3) => Ok(Order::Close { epoch }),
            ("split", 6) if region_name_ok(f[3]) && region_name_ok(f[4]) && f[3] != f[4] => {
                Ok(Order::Split {
                    epoch,
                    daughters: (f[3].to_string(), f[4].to_string()),
                    row: match f[5] {
                        "-" => None,
                        r => Some(unhex(r)?),
                    },
                })
            }
            ("merge", 6) if region_name_ok(f[3]) && region_name_ok(f[5]) && f[3] != f[5] => {
                Ok(Order::Merge {
                    epoch,
                    high: f[3].to_string(),
                    high_epoch: f[4].parse().map_err(|_| bad("order", "epoch"))?,
                    merged: f[5].to_string(),
                })
            }
            (other, _) => Err(bad("order", format!("kind {other:?} in {f:?}"))),
        }
    }
}

impl Ack {
    /// Encodes the acknowledgement.
    pub fn encode(&self) -> Vec<u8> {
        match self {
            Ack::Opened(e) => format!("ack1 opened {e}"),
            Ack::FailedOpen(e) => format!("ack1 failed-open {e}"),
            Ack::Closed(e) => format!("ack1 closed {e}"),
            Ack::Split(e, row) => format!("ack1 split {e} {}", hex(row)),
            Ack::FailedSplit(e) => format!("ack1 failed-split {e}"),
            Ack::Merged(e) => format!("ack1 merged {e}"),
            Ack::FailedMerge(e) => format!("ack1 failed-merge {e}"),
        }
        .into_bytes()
    }

    /// Decodes an acknowledgement.
    ///
    /// # Errors
    /// Not an acknowledgement.
    pub fn decode(bytes: &[u8]) -> Result<Ack, DecodeError> {
        let f = fields(bytes, "ack1", 3).or_else(|_| fields(bytes, "ack1", 4))?;
        let e = f[2].parse().map_err(|_| bad("ack", "epoch"))?;
        match (f[1], f.get(3)) {
            ("opened", None) => Ok(Ack::Opened(e)),
            ("failed-open", None) => Ok(Ack::FailedOpen(e)),
            ("closed", None) => Ok(Ack::Closed(e)),
            ("failed-split", None) => Ok(Ack::FailedSplit(e)),
            ("merged", None) => Ok(Ack::Merged(e)),
            ("failed-merge", None) => Ok(Ack::FailedMerge(e)),
            ("split", Some(row)) if !row.is_empty() => Ok(Ack::Split(e, unhex(row)?)),
            (other, _) => Err(bad("ack", format!("kind {other:?} in {f:?}"))),
        }
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
