//! Requests to the active master. Each is checked against the image and, if valid, persisted as
//! a procedure (with its first step's records) before anything acts on it.

use thiserror::Error;

use super::{Halt, Kv, Master};
use crate::kv::Op;
use crate::layout::{incarnation_of, region_table};
use crate::record::{
    CreateStep, DropStep, Procedure, RegionState, TableRecord, TableState, TransitStep,
    TruncateStep,
};
use crate::wal::WalFencer;

/// Largest encoded table record (etcd refuses requests over 1.5 MiB by default).
pub const MAX_TABLE_RECORD: usize = 1 << 20;

/// A request that starts a procedure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdminRequest {
    /// Create `table` split at `splits` (in any order: the master sorts them; non-empty and
    /// distinct).
    CreateTable {
        /// The table.
        table: String,
        /// Split points.
        splits: Vec<Vec<u8>>,
    },
    /// Close every region of `table` and delete its records.
    DropTable {
        /// The table.
        table: String,
    },
    /// Open a closed region.
    Assign {
        /// The region.
        region: String,
    },
    /// Close an open region (it stays closed).
    Unassign {
        /// The region.
        region: String,
    },
    /// Close an open region and open it again, on `target` if given and live.
    Move {
        /// The region.
        region: String,
        /// Preferred server.
        target: Option<String>,
    },
    /// Close every region of an enabled `table` and mark it disabled.
    DisableTable {
        /// The table.
        table: String,
    },
    /// Assign every region of a disabled `table` and mark it enabled.
    EnableTable {
        /// The table.
        table: String,
    },
    /// Reopen every region of an enabled `table` (its schema changed).
    ReopenTable {
        /// The table.
        table: String,
    },
    /// Replace `table`'s regions and files by new, empty ones (split as before if `preserve`).
    TruncateTable {
        /// The table.
        table: String,
        /// Whether the split points are kept.
        preserve: bool,
    },
    /// Split an open region of an enabled table where it is served, at `row` (strictly
    /// inside the region) or, without one, at its middle key as the server finds it.
    Split {
        /// The region.
        region: String,
        /// The split row.
        row: Option<Vec<u8>>,
    },
    /// Merge two adjacent open regions of an enabled table (either order) into a new region,
    /// moving one onto the other's server first if they are apart.
    Merge {
        /// One region.
        a: String,
        /// The other.
        b: String,
    },
    /// Turn the balancer on or off (persisted; the answer says what it was).
    SetBalancer {
        /// On.
        on: bool,
    },
    /// Turn region splits or merges on or off for the whole cluster (HBase's
    /// `splitormerge_switch`; persisted; the answer says what it was).
    SetSwitch {
        /// Which.
        switch: Switch,
        /// On.
        on: bool,
    },
    /// Run the balancer now (refused while off or while procedures are in flight).
    Balance,
    /// Drain `server` and assign nothing to it.
    Decommission {
        /// The live server (`host:port:startcode`).
        server: String,
    },
    /// Let a decommissioned server take regions again.
    Recommission {
        /// The server.
        server: String,
    },
}

/// A cluster-wide switch of a kind of procedure (HBase's `MasterSwitchType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Switch {
    /// Region splits, asked for or automatic.
    Split,
    /// Region merges.
    Merge,
}

impl Switch {
    /// The name in requests and in the `setting/` key: `split`, `merge`.
    pub fn name(self) -> &'static str {
        match self {
            Switch::Split => "split",
            Switch::Merge => "merge",
        }
    }

    /// The switch named `name` (case-insensitive: HBase's shell says `'SPLIT'`).
    pub fn parse(name: &str) -> Option<Switch> {
        [Switch::Split, Switch::Merge]
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(name))
    }
}

impl AdminRequest {
    /// Encodes the request (one line: `req1 <kind> <fields>`, keys in hex).
    pub fn encode(&self) -> Vec<u8> {
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        match self {
            AdminRequest::CreateTable { table, splits } => {
                let splits: Vec<String> = splits.iter().map(|s| hex(s)).collect();
                let splits = if splits.is_empty() {
                    "-".to_string()
                } else {
                    splits.join(",")
                };
                format!("req1 create {table} {splits}")
            }
            AdminRequest::DropTable { table } => format!("req1 drop {table}"),
            AdminRequest::Assign { region } => format!("req1 assign {region}"),
            AdminRequest::Unassign { region } => format!("req1 unassign {region}"),
            AdminRequest::Move { region, target } => {
                format!("req1 move {region} {}", target.as_deref().unwrap_or("-"))
            }
            AdminRequest::DisableTable { table } => format!("req1 disable {table}"),
            AdminRequest::EnableTable { table } => format!("req1 enable {table}"),
            AdminRequest::ReopenTable { table } => format!("req1 reopen {table}"),
            AdminRequest::TruncateTable { table, preserve } => {
                format!("req1 truncate {table} {}", u8::from(*preserve))
            }
            AdminRequest::SetBalancer { on } => {
                format!("req1 balance_switch {}", if *on { "on" } else { "off" })
            }
            AdminRequest::SetSwitch { switch, on } => {
                format!(
                    "req1 switch {} {}",
                    switch.name(),
                    if *on { "on" } else { "off" }
                )
            }
            AdminRequest::Split { region, row } => {
                let row = row.as_deref().map_or_else(|| "-".to_string(), hex);
                format!("req1 split {region} {row}")
            }
            AdminRequest::Merge { a, b } => format!("req1 merge {a} {b}"),
            AdminRequest::Balance => "req1 balance".to_string(),
            AdminRequest::Decommission { server } => format!("req1 decommission {server}"),
            AdminRequest::Recommission { server } => format!("req1 recommission {server}"),
        }
        .into_bytes()
    }

    /// Decodes a request.
    ///
    /// # Errors
    /// Not a request (the reason).
    pub fn decode(bytes: &[u8]) -> Result<AdminRequest, String> {
        let text = std::str::from_utf8(bytes).map_err(|_| "request is not UTF-8".to_string())?;
        let f: Vec<&str> = text.split(' ').collect();
        let unhex = |s: &str| -> Result<Vec<u8>, String> {
            if !s.len().is_multiple_of(2) {
                return Err(format!("bad hex {s:?}"));
            }
            (0..s.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(|_| format!("bad hex {s:?}")))
                .collect()
        };
        Ok(match f.as_slice() {
            ["req1", "create", table, splits] => AdminRequest::CreateTable {
                table: (*table).to_string(),
                splits: if *splits == "-" {
                    Vec::new()
                } else {
                    splits.split(',').map(unhex).collect::<Result<_, _>>()?
                },
            },
            ["req1", "drop", table] => AdminRequest::DropTable {
                table: (*table).to_string(),
            },
            ["req1", "assign", region] => AdminRequest::Assign {
                region: (*region).to_string(),
            },
            ["req1", "unassign", region] => AdminRequest::Unassign {
                region: (*region).to_string(),
            },
            ["req1", "move", region, target] => AdminRequest::Move {
                region: (*region).to_string(),
                target: (*target != "-").then(|| (*target).to_string()),
            },
            ["req1", "disable", table] => AdminRequest::DisableTable {
                table: (*table).to_string(),
            },
            ["req1", "enable", table] => AdminRequest::EnableTable {
                table: (*table).to_string(),
            },
            ["req1", "reopen", table] => AdminRequest::ReopenTable {
                table: (*table).to_string(),
            },
            ["req1", "truncate", table, preserve @ ("0" | "1")] => AdminRequest::TruncateTable {
                table: (*table).to_string(),
                preserve: *preserve == "1",
            },
            ["req1", "balance_switch", "on"] => AdminRequest::SetBalancer { on: true },
            ["req1", "balance_switch", "off"] => AdminRequest::SetBalancer { on: false },
            ["req1", "switch", name, on @ ("on" | "off")] => AdminRequest::SetSwitch {
                switch: Switch::parse(name).ok_or_else(|| format!("unknown switch {name}"))?,
                on: *on == "on",
            },
            ["req1", "split", region, row] => AdminRequest::Split {
                region: (*region).to_string(),
                row: match *row {
                    "-" => None,
                    r => Some(unhex(r)?),
                },
            },
            ["req1", "merge", a, b] => AdminRequest::Merge {
                a: (*a).to_string(),
                b: (*b).to_string(),
            },
            ["req1", "balance"] => AdminRequest::Balance,
            ["req1", "decommission", server] => AdminRequest::Decommission {
                server: (*server).to_string(),
            },
            ["req1", "recommission", server] => AdminRequest::Recommission {
                server: (*server).to_string(),
            },
            _ => return Err(format!("not a request: {text:?}")),
        })
    }
}

/// What kind of refusal a request met: the class of error a client gets, carried as a code
/// word through etcd so no client has to read it out of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusalKind {
    /// A table of that name exists.
    TableExists,
    /// No table of that name.
    TableNotFound,
    /// The table is enabled and the request needs it disabled.
    TableEnabled,
    /// The table is disabled and the request needs it enabled.
    TableDisabled,
    /// No region of that name.
    RegionNotFound,
    /// Anything else that does not fit the catalog now.
    Invalid,
}

impl RefusalKind {
    const ALL: [RefusalKind; 6] = [
        RefusalKind::TableExists,
        RefusalKind::TableNotFound,
        RefusalKind::TableEnabled,
        RefusalKind::TableDisabled,
        RefusalKind::RegionNotFound,
        RefusalKind::Invalid,
    ];

    /// The code word written in a request's result.
    pub fn code(self) -> &'static str {
        match self {
            RefusalKind::TableExists => "table-exists",
            RefusalKind::TableNotFound => "table-not-found",
            RefusalKind::TableEnabled => "table-enabled",
            RefusalKind::TableDisabled => "table-disabled",
            RefusalKind::RegionNotFound => "region-not-found",
            RefusalKind::Invalid => "invalid",
        }
    }

    /// The kind a code word names.
    pub fn from_code(code: &str) -> Option<RefusalKind> {
        RefusalKind::ALL.into_iter().find(|k| k.code() == code)
    }
}

/// A refused request: its kind and a message for people.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{message}")]
pub struct Refusal {
    /// The class of the refusal.
    pub kind: RefusalKind,
    /// What was wrong, naming the table or region.
    pub message: String,
}

impl Refusal {
    /// A refusal of `kind`.
    pub fn new(kind: RefusalKind, message: impl Into<String>) -> Refusal {
        Refusal {
            kind,
            message: message.into(),
        }
    }
}

impl From<String> for Refusal {
    fn from(message: String) -> Refusal {
        Refusal::new(RefusalKind::Invalid, message)
    }
}

/// Why a request was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AdminError {
    /// This master is not active; ask the active one.
    #[error("not the active master")]
    NotActive,
    /// The request does not fit the catalog (nothing was changed).
    #[error("invalid request: {0}")]
    Invalid(Refusal),
    /// The request could not be persisted; it may or may not have been (check, then retry).
    #[error("request not persisted; retry")]
    Unavailable,
}

impl<K: Kv, F: WalFencer> Master<K, F> {
    /// Persists the procedure for `req`; returns its id.
    ///
    /// # Errors
    /// [`AdminError::NotActive`], [`AdminError::Invalid`] (nothing changed), or
    /// [`AdminError::Unavailable`].
    pub fn submit(&mut self, req: AdminRequest) -> Result<String, AdminError> {
        if self.lead.is_none() {
            return Err(AdminError::NotActive);
        }
        let result = self.stage_request(req).and_then(|id| {
            self.flush()
                .map_err(|h| (Some(h), AdminError::Unavailable))?;
            Ok(id)
        });
        result.map_err(|(halt, err)| {
            match halt {
                Some(Halt::Deposed) => self.step_down(),
                Some(Halt::Stale) => self.drop_image(),
                None => {}
            }
            err
        })
    }

    #[allow(
        clippy::type_complexity,
        reason = "the pair is local to this module and `requests`"
    )]
    pub(super) fn stage_request(
        &mut self,
        req: AdminRequest,
    ) -> Result<String, (Option<Halt>, AdminError)> {
        let invalid = |m: String| (None, AdminError::Invalid(m.into()));
        let refused = |r: Refusal| (None, AdminError::Invalid(r));
        let halted = |h: Halt| (Some(h), AdminError::Unavailable);
        match req {
            AdminRequest::CreateTable { table, splits } => {
                if table.is_empty() || table.contains(['/', ',', ' ']) {
                    return Err(invalid(format!("bad table name {table:?}")));
                }
                if self.lead().image.tables.contains_key(&table) {
                    return Err(refused(Refusal::new(
                        RefusalKind::TableExists,
                        format!("table {table} already exists"),
                    )));
                }
                // As HBase's Admin.createTable (and standalone): keys in any order are sorted;
                // an empty or repeated key is refused.
                let mut splits = splits;
                splits.sort();
                if splits.iter().any(Vec::is_empty) {
                    return Err(invalid("a split key is empty".into()));
                }
                if let Some(w) = splits.windows(2).find(|w| w[0] == w[1]) {
                    return Err(invalid(format!(
                        "split keys must be distinct; '{}' appears twice",
                        String::from_utf8_lossy(&w[0])
                    )));
                }
                let id = self.new_proc_id();
                let rec = TableRecord {
                    state: TableState::Creating,
                    splits,
                    incarnation: incarnation_of(&id),
                    next_seq: 0,
                };
                let p = Procedure::CreateTable {
                    table: table.clone(),
                    step: CreateStep::Regions { next: 0 },
                };
                let ops = vec![
                    Op::put(self.layout.table(&table), rec.encode()),
                    Op::put(self.layout.proc(&id), p.encode()),
                ];
                self.stage(ops).map_err(halted)?;
                Ok(id)
            }
            AdminRequest::DropTable { table } => {
                let rec = self
                    .table_in(&table, &[TableState::Enabled, TableState::Disabled])
                    .map_err(refused)?;
                let id = self.new_proc_id();
                let dropping = TableRecord {
                    state: TableState::Dropping,
                    ..rec
                };
                let p = Procedure::DropTable {
                    table: table.clone(),
                    step: DropStep::Close,
                };
                let ops = vec![
                    Op::put(self.layout.table(&table), dropping.encode()),
                    Op::put(self.layout.proc(&id), p.encode()),
                ];
                self.stage(ops).map_err(halted)?;
                Ok(id)
            }
            AdminRequest::Assign { region } => {
                self.check_region(&region, &[RegionState::Closed, RegionState::Offline])
                    .map_err(refused)?;
                self.table_in(region_table(&region), &[TableState::Enabled])
                    .map_err(refused)?;
                self.start_transit(&region, None, true, TransitStep::Pick)
                    .map_err(halted)
            }
            AdminRequest::Unassign { region } => {
                self.check_region(&region, &[RegionState::Open])
                    .map_err(refused)?;
                self.start_transit(&region, None, false, TransitStep::Close)
                    .map_err(halted)
            }
            AdminRequest::Move { region, target } => {
                self.check_region(&region, &[RegionState::Open])
                    .map_err(refused)?;
                if let Some(t) = &target {
                    self.check_target(&region, t).map_err(invalid)?;
                }
                self.start_transit(&region, target, true, TransitStep::Close)
                    .map_err(halted)
            }
            AdminRequest::DisableTable { table } => {
                let rec = self
                    .table_in(&table, &[TableState::Enabled])
                    .map_err(refused)?;
                self.stage_table_proc(&table, rec, TableState::Disabling, |table| {
                    Procedure::DisableTable { table }
                })
                .map_err(halted)
            }
            AdminRequest::EnableTable { table } => {
                let rec = self
                    .table_in(&table, &[TableState::Disabled])
                    .map_err(refused)?;
                self.stage_table_proc(&table, rec, TableState::Enabling, |table| {
                    Procedure::EnableTable { table }
                })
                .map_err(halted)
            }
            AdminRequest::ReopenTable { table } => {
                let rec = self
                    .table_in(&table, &[TableState::Enabled])
                    .map_err(refused)?;
                self.stage_table_proc(&table, rec, TableState::Enabled, |table| {
                    Procedure::ReopenTable { table, next: 0 }
                })
                .map_err(halted)
            }
            AdminRequest::TruncateTable { table, preserve } => {
                // As HBase's TruncateTableProcedure: only a disabled table (an enabled one is
                // `TableNotDisabledException`); it comes back enabled.
                let rec = self
                    .table_in(&table, &[TableState::Disabled])
                    .map_err(refused)?;
                self.stage_table_proc(&table, rec, TableState::Dropping, |table| {
                    Procedure::TruncateTable {
                        table,
                        preserve,
                        step: TruncateStep::Close,
                    }
                })
                .map_err(halted)
            }
            AdminRequest::Split { region, row } => self.stage_split(&region, row),
            AdminRequest::Merge { a, b } => self.stage_merge(&a, &b),
            req @ (AdminRequest::SetBalancer { .. }
            | AdminRequest::SetSwitch { .. }
            | AdminRequest::Balance
            | AdminRequest::Decommission { .. }
            | AdminRequest::Recommission { .. }) => self.stage_operation(req),
        }
    }

    /// `table`'s record if the table is in one of `states`; else why not (`no table t`,
    /// `table t is enabled`, `table t is disabled`, `table t is busy (…)`).
    pub(super) fn table_in(
        &mut self,
        table: &str,
        states: &[TableState],
    ) -> Result<TableRecord, Refusal> {
        let Some((rec, _)) = self.lead().image.tables.get(table).cloned() else {
            return Err(Refusal::new(
                RefusalKind::TableNotFound,
                format!("table {table} does not exist"),
            ));
        };
        if states.contains(&rec.state) {
            return Ok(rec);
        }
        Err(match rec.state {
            TableState::Enabled => Refusal::new(
                RefusalKind::TableEnabled,
                format!("table {table} is enabled"),
            ),
            TableState::Disabled => Refusal::new(
                RefusalKind::TableDisabled,
                format!("table {table} is disabled"),
            ),
            other => format!("table {table} is busy ({other:?})").into(),
        })
    }

    /// Stages `table`'s record in `state` with a new procedure `make(table)`; returns its id.
    fn stage_table_proc(
        &mut self,
        table: &str,
        rec: TableRecord,
        state: TableState,
        make: impl FnOnce(String) -> Procedure,
    ) -> Result<String, Halt> {
        let id = self.new_proc_id();
        let mut ops = vec![Op::put(
            self.layout.proc(&id),
            make(table.to_string()).encode(),
        )];
        if rec.state != state {
            let rec = TableRecord { state, ..rec };
            ops.push(Op::put(self.layout.table(table), rec.encode()));
        }
        self.stage(ops)?;
        Ok(id)
    }

    /// Checks that `target` may receive `region`: live, not decommissioned, not its holder.
    fn check_target(&mut self, region: &str, target: &str) -> Result<(), String> {
        let image = &self.lead().image;
        if !image.live.contains(target) {
            return Err(format!("{target} is not a live region server"));
        }
        if image.drained.contains(target) {
            return Err(format!("{target} is decommissioned"));
        }
        if image
            .regions
            .get(region)
            .and_then(|(r, _)| r.server.as_deref())
            == Some(target)
        {
            return Err(format!("region {region} is already on {target}"));
        }
        Ok(())
    }

    pub(super) fn check_region(
        &mut self,
        region: &str,
        states: &[RegionState],
    ) -> Result<(), Refusal> {
        let Some((rec, _)) = self.lead().image.regions.get(region) else {
            return Err(Refusal::new(
                RefusalKind::RegionNotFound,
                format!("no region {region}"),
            ));
        };
        if let Some(p) = &rec.proc {
            return Err(format!("region {region} is in transition (procedure {p})").into());
        }
        if !states.contains(&rec.state) {
            return Err(format!("region {region} is {:?}", rec.state).into());
        }
        Ok(())
    }
}
