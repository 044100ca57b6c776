//! Procedure records: the steps of each assignment procedure, persisted before they are taken.

use super::*;

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
