//! [`Command`]: a shell statement as typed model values, ready for an executor to forward.
//!
//! `parse_command` reads the statement (see `value`), looks the command word up in `help`,
//! and hands the arguments to the command's parser: `data` for reads and writes, `create`,
//! `alter` and this module for the rest. Every parser validates what it builds with the
//! model's own checks, so a `Command` that comes out is well-formed.

mod access;
mod alter;
mod args;
mod create;
mod data;
mod namespace;
mod ops;
mod quota;
mod read;
mod regions;
mod snapshot;
mod splits;

use bytes::Bytes;
use strata_model::ops::{Append, Delete, Get, Increment, Put, Scan};
use strata_model::schema::{TableDescriptor, TableName};

pub use alter::AlterChange;
#[cfg(test)]
pub(crate) use args::{PairKind, SettingPair};
pub use ops::ClusterOp;
pub use quota::QuotaFilters;
pub use regions::RegionColumn;

use self::args::Args;
use super::help::{self, CommandHelp};
use super::value::{parse_statement, Value};
use super::ShellError;

/// One shell statement, parsed.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// `create`: a new table, pre-split at `splits` (sorted, unique, non-empty).
    Create {
        /// The table's schema.
        table: TableDescriptor,
        /// Region boundaries; empty for one region.
        splits: Vec<Bytes>,
    },
    /// `alter`: edits applied in order (see [`AlterChange::apply_all`]).
    Alter {
        /// The table.
        table: TableName,
        /// The edits.
        changes: Vec<AlterChange>,
    },
    /// `describe` / `desc`.
    Describe(TableName),
    /// `list`: tables, optionally those matching a regular expression.
    List {
        /// The pattern as typed (a Java-style regular expression).
        pattern: Option<String>,
    },
    /// `disable`.
    Disable(TableName),
    /// `enable`.
    Enable(TableName),
    /// `is_enabled`.
    IsEnabled(TableName),
    /// `is_disabled`.
    IsDisabled(TableName),
    /// `drop`.
    Drop(TableName),
    /// `exists`.
    Exists(TableName),
    /// `truncate` (`preserve_splits: false`) or `truncate_preserve` (true).
    Truncate {
        /// The table.
        table: TableName,
        /// Keep the region boundaries.
        preserve_splits: bool,
    },
    /// `flush`.
    Flush {
        /// The table.
        table: TableName,
        /// Only this family.
        family: Option<String>,
    },
    /// `compact` (`major: false`) or `major_compact` (true).
    Compact {
        /// The table.
        table: TableName,
        /// Only this family.
        family: Option<String>,
        /// A major compaction.
        major: bool,
    },
    /// `compaction_state 't'`: the compactions running in the table's regions now.
    CompactionState(TableName),
    /// `split`.
    Split {
        /// The table.
        table: TableName,
        /// Where to split; `None` splits each region at its midpoint.
        split_key: Option<Bytes>,
    },
    /// `merge_region 'REGION_A', 'REGION_B'`: two adjacent regions of a table.
    MergeRegions {
        /// One region's name (`table,…`).
        a: String,
        /// The other's.
        b: String,
    },
    /// `split 'REGION'`: one region (cluster mode), at its midpoint or the given key.
    SplitRegion {
        /// The region's name (`table,…`).
        region: String,
        /// Where to split.
        split_key: Option<Bytes>,
    },
    /// `files` / `list_files`: the table's store files.
    Files(TableName),
    /// `list_regions`: the table's regions, on servers whose name starts with `server`.
    ListRegions {
        /// The table.
        table: TableName,
        /// A server name prefix (`host:port` or HBase's `host,port`).
        server: Option<String>,
        /// The columns to print, in order.
        columns: Vec<RegionColumn>,
    },
    /// `get_splits`: the table's region boundaries.
    GetSplits(TableName),
    /// `locate_region`: the region holding a row.
    LocateRegion {
        /// The table.
        table: TableName,
        /// The row.
        row: Bytes,
    },
    /// `put`.
    Put {
        /// The table.
        table: TableName,
        /// The write.
        put: Put,
    },
    /// `get`.
    Get {
        /// The table.
        table: TableName,
        /// The read.
        get: Get,
    },
    /// `scan`.
    Scan {
        /// The table.
        table: TableName,
        /// The read.
        scan: Scan,
    },
    /// `delete` or `deleteall`.
    Delete {
        /// The table.
        table: TableName,
        /// The markers (none: the whole row).
        delete: Delete,
    },
    /// `incr`.
    Increment {
        /// The table.
        table: TableName,
        /// The counter update.
        increment: Increment,
    },
    /// `append`.
    Append {
        /// The table.
        table: TableName,
        /// The append.
        append: Append,
    },
    /// `get_counter`: `get` reads one column, to be shown as a big-endian `i64`.
    GetCounter {
        /// The table.
        table: TableName,
        /// A get of exactly the counter's column.
        get: Get,
    },
    /// `count`: the scan already has HBase's count settings (first key only, no block
    /// caching, `CACHE` default [`data::DEFAULT_COUNT_CACHE`]).
    Count {
        /// The table.
        table: TableName,
        /// The rows to count.
        scan: Scan,
        /// Report progress every this many rows.
        interval: u64,
    },
    /// `status`.
    Status(StatusDetail),
    /// `version`.
    Version,
    /// `whoami`.
    Whoami,
    /// `table_help`: what the shell offers on tables.
    TableHelp,
    /// `processlist`: the procedures in progress, as `list_procedures` lists them.
    Processlist,
    /// `clear_block_cache 't'`: the table's blocks leave the block caches.
    ClearBlockCache(TableName),
    /// `splitormerge_switch 'SPLIT' | 'MERGE', true | false`: prints the previous state.
    SplitOrMergeSwitch {
        /// `SPLIT` or `MERGE`, as given.
        switch: String,
        /// The new state.
        on: bool,
    },
    /// `splitormerge_enabled 'SPLIT' | 'MERGE'`: prints the state.
    SplitOrMergeEnabled(String),
    /// `compact_rs 'SERVER' [, major]`: every table with a region on the server.
    CompactServer {
        /// The server (`host:port`, or `host:port:startcode` in cluster mode).
        server: String,
        /// Major compactions.
        major: bool,
    },
    /// `help`, about every command or one.
    Help(Option<&'static CommandHelp>),
    /// `exit` / `quit`.
    Exit,
    /// A cluster operation (cluster mode only).
    ClusterOp(ClusterOp),
    /// `create_namespace 'ns' [, {'key' => 'value', ...}]`.
    CreateNamespace {
        /// The namespace.
        name: String,
        /// Its properties, in order.
        properties: Vec<(String, String)>,
    },
    /// `alter_namespace 'ns', {METHOD => 'set', ...}` / `{METHOD => 'unset', NAME => 'k'}`.
    AlterNamespace {
        /// The namespace.
        name: String,
        /// The edits, applied in order to its properties.
        changes: Vec<NamespaceChange>,
    },
    /// `describe_namespace 'ns'`.
    DescribeNamespace(String),
    /// `drop_namespace 'ns'`.
    DropNamespace(String),
    /// `list_namespace ['regex']`.
    ListNamespace {
        /// The pattern as typed (matched anywhere in the name, as HBase's shell does).
        pattern: Option<String>,
    },
    /// `list_namespace_tables 'ns'`.
    ListNamespaceTables(String),
    /// `snapshot 't', 's'`.
    Snapshot {
        /// The table.
        table: TableName,
        /// The snapshot's name.
        name: String,
    },
    /// `list_snapshots ['regex']`.
    ListSnapshots {
        /// The whole name must match it (Java's `Pattern.matches`).
        pattern: Option<String>,
    },
    /// `list_table_snapshots 'table_regex' [, 'snapshot_regex']`.
    ListTableSnapshots {
        /// The whole table name must match it.
        table: String,
        /// The whole snapshot name must match it.
        pattern: Option<String>,
    },
    /// `clone_snapshot 's', 't'`.
    CloneSnapshot {
        /// The snapshot.
        name: String,
        /// The new table.
        table: TableName,
    },
    /// `delete_snapshot 's'`.
    DeleteSnapshot(String),
    /// `restore_snapshot 's'`.
    RestoreSnapshot(String),
    /// `update_config 'SERVER'` (one server) or `update_all_config` (`None`: every server).
    UpdateConfig(Option<String>),
    /// `list_procedures`.
    ListProcedures,
    /// `list_locks`.
    ListLocks,
    /// `alter_async`: as `alter`, without waiting for the regions to reopen.
    AlterAsync {
        /// The table.
        table: TableName,
        /// The edits.
        changes: Vec<AlterChange>,
    },
    /// `alter_status 't'`.
    AlterStatus(TableName),
    /// `grant 'user', 'RW'[, scope]`.
    Grant {
        /// A user, or `@group`.
        user: String,
        /// The letters added.
        perms: strata_access::Perms,
        /// Where.
        scope: strata_access::Scope,
    },
    /// `revoke 'user'[, scope]`: every permission of the user on that scope.
    Revoke {
        /// A user, or `@group`.
        user: String,
        /// Where.
        scope: strata_access::Scope,
    },
    /// `user_permission ['@ns' | 'table_regex']`.
    UserPermission {
        /// `@ns`, or a regex the whole table name must match (`None`: global grants and
        /// every other).
        filter: Option<String>,
    },
    /// `set_quota TYPE => THROTTLE, …` (RFC 0029).
    SetQuota {
        /// Whom.
        subject: strata_access::quota::Subject,
        /// `READ`, `WRITE`, `REQUEST` or empty.
        throttle_type: String,
        /// As HBase's shell writes it (checked); `None`: `LIMIT => NONE`.
        limit: Option<String>,
    },
    /// `set_quota TYPE => SPACE, …` (RFC 0029).
    SetSpaceQuota {
        /// A table or a namespace.
        subject: strata_access::quota::Subject,
        /// The limit as HBase's shell writes it (checked) and the policy; `None`:
        /// `LIMIT => NONE`.
        limit: Option<(String, strata_access::quota::SpacePolicy)>,
    },
    /// `list_quotas [USER => …, TABLE => …, NAMESPACE => …]`.
    ListQuotas(QuotaFilters),
    /// `list_quota_snapshots [TABLE => …, NAMESPACE => …]`: the tables' space quota states.
    ListQuotaSnapshots {
        /// Only the tables of this name (in any namespace), as HBase's shell filters.
        table: Option<String>,
        /// Only the tables of this namespace.
        namespace: Option<String>,
    },
    /// `list_quota_table_sizes`: every table's size as reported for space quotas.
    ListQuotaTableSizes,
    /// `enable_rpc_throttle` (true) or `disable_rpc_throttle` (false).
    SwitchRpcThrottle(bool),
}

/// One edit of `alter_namespace`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NamespaceChange {
    /// `METHOD => 'set'`: these properties set.
    Set(Vec<(String, String)>),
    /// `METHOD => 'unset', NAME => 'key'`: this property removed.
    Unset(String),
}

impl NamespaceChange {
    /// Applies `changes` in order to `properties`.
    pub fn apply_all(
        changes: &[NamespaceChange],
        properties: &mut std::collections::BTreeMap<String, String>,
    ) {
        for change in changes {
            match change {
                NamespaceChange::Set(pairs) => {
                    for (k, v) in pairs {
                        properties.insert(k.clone(), v.clone());
                    }
                }
                NamespaceChange::Unset(key) => {
                    properties.remove(key);
                }
            }
        }
    }
}

/// How much `status` shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum StatusDetail {
    /// One line of counts.
    Simple,
    /// Servers and load (the default).
    #[default]
    Summary,
    /// Everything, per region.
    Detailed,
}

/// Parses one statement into a command; `None` for an empty or comment-only line.
///
/// # Errors
/// [`ShellError::Syntax`] for malformed input, [`ShellError::UnknownCommand`] with a
/// suggestion, [`ShellError::Usage`] for wrong arguments (with the usage line), and
/// [`ShellError::Invalid`] for values the model rejects.
pub fn parse_command(line: &str) -> Result<Option<Command>, ShellError> {
    let Some(statement) = parse_statement(line)? else {
        return Ok(None);
    };
    let help = help::find(&statement.command).ok_or_else(|| ShellError::UnknownCommand {
        suggestion: help::suggest(&statement.command),
        name: statement.command.clone(),
    })?;
    let args = Args::new(help, statement.args);
    let command = match help.name {
        "create" => create::create(args)?,
        "alter" => alter::alter(args)?,
        "alter_async" => match alter::alter(args)? {
            Command::Alter { table, changes } => Command::AlterAsync { table, changes },
            other => other,
        },
        "put" => data::put(args)?,
        "get" => data::get(args)?,
        "scan" => data::scan(args)?,
        "delete" => data::delete(args)?,
        "deleteall" => data::deleteall(args)?,
        "incr" => data::incr(args)?,
        "append" => data::append(args)?,
        "get_counter" => data::get_counter(args)?,
        "count" => data::count(args)?,
        "move"
        | "assign"
        | "unassign"
        | "balancer"
        | "balance_switch"
        | "balancer_enabled"
        | "decommission_regionservers"
        | "recommission_regionserver"
        | "list_decommissioned_regionservers" => ops::parse(args)?,
        "create_namespace"
        | "alter_namespace"
        | "describe_namespace"
        | "drop_namespace"
        | "list_namespace"
        | "list_namespace_tables" => namespace::parse(args)?,
        "list_regions" | "get_splits" | "locate_region" => regions::parse(args)?,
        "snapshot"
        | "list_snapshots"
        | "list_table_snapshots"
        | "clone_snapshot"
        | "delete_snapshot"
        | "restore_snapshot" => snapshot::parse(args)?,
        "grant" | "revoke" | "user_permission" => access::parse(args)?,
        "set_quota"
        | "list_quotas"
        | "list_quota_snapshots"
        | "list_quota_table_sizes"
        | "enable_rpc_throttle"
        | "disable_rpc_throttle" => quota::parse(args)?,
        _ => other(args)?,
    };
    Ok(Some(command))
}

/// `SPLIT` or `MERGE` (any case), HBase's `MasterSwitchType`: the admin service's other
/// switches (the balancer, the RPC throttle) have commands of their own.
fn split_or_merge(args: &Args, switch: String) -> Result<String, ShellError> {
    if switch.eq_ignore_ascii_case("SPLIT") || switch.eq_ignore_ascii_case("MERGE") {
        Ok(switch)
    } else {
        Err(args.invalid(format!(
            "'{switch}' is not a switch type: expected 'SPLIT' or 'MERGE'"
        )))
    }
}

/// Commands with at most a table and one optional simple argument.
fn other(mut args: Args) -> Result<Command, ShellError> {
    let one_table = |args: &mut Args| -> Result<TableName, ShellError> {
        args.arity(1, 1)?;
        args.table()
    };
    let command = match args.name() {
        "describe" => Command::Describe(one_table(&mut args)?),
        "disable" => Command::Disable(one_table(&mut args)?),
        "enable" => Command::Enable(one_table(&mut args)?),
        "is_enabled" => Command::IsEnabled(one_table(&mut args)?),
        "is_disabled" => Command::IsDisabled(one_table(&mut args)?),
        "drop" => Command::Drop(one_table(&mut args)?),
        "exists" => Command::Exists(one_table(&mut args)?),
        "files" => Command::Files(one_table(&mut args)?),
        "alter_status" => Command::AlterStatus(one_table(&mut args)?),
        "clear_block_cache" => Command::ClearBlockCache(one_table(&mut args)?),
        "splitormerge_switch" => {
            args.arity(2, 2)?;
            let v = args.required("'SPLIT' or 'MERGE'")?;
            let switch = split_or_merge(&args, args.text(&v, "the switch type")?)?;
            let v = args.required("true or false")?;
            let on = args.boolean(&v, "the switch")?;
            Command::SplitOrMergeSwitch { switch, on }
        }
        "splitormerge_enabled" => {
            args.arity(1, 1)?;
            let v = args.required("'SPLIT' or 'MERGE'")?;
            let switch = split_or_merge(&args, args.text(&v, "the switch type")?)?;
            Command::SplitOrMergeEnabled(switch)
        }
        "compaction_state" => Command::CompactionState(one_table(&mut args)?),
        "compact_rs" => {
            args.arity(1, 2)?;
            let v = args.required("server name")?;
            let server = args.text(&v, "server name")?;
            let major = match args.next() {
                None => false,
                Some(Value::Bool(b)) => b,
                Some(_) => return Err(args.usage("the second argument is true or false")),
            };
            Command::CompactServer { server, major }
        }
        "update_config" => {
            args.arity(1, 1)?;
            let v = args.required("server name")?;
            let server = args.text(&v, "server name")?;
            if server.trim().is_empty() {
                return Err(args.invalid("the server name must not be empty"));
            }
            Command::UpdateConfig(Some(server))
        }
        "truncate" | "truncate_preserve" => Command::Truncate {
            preserve_splits: args.name() == "truncate_preserve",
            table: one_table(&mut args)?,
        },
        "flush" | "compact" | "major_compact" => {
            args.arity(1, 2)?;
            let table = args.table()?;
            let family = match args.next() {
                Some(v) => Some(args.text(&v, "column family")?),
                None => None,
            };
            match args.name() {
                "flush" => Command::Flush { table, family },
                name => Command::Compact {
                    table,
                    family,
                    major: name == "major_compact",
                },
            }
        }
        "split" => {
            args.arity(1, 2)?;
            let target = args.required("table or region name")?;
            // A region name (`table,…`, as `list_regions` and the cluster's records spell
            // them) splits that region only.
            let region = match &target {
                Value::Str(b) if b.contains(&b',') => Some(args.text(&target, "region name")?),
                _ => None,
            };
            let split_key = match args.next() {
                Some(v) => Some(args.bytes(&v, "split key")?),
                None => None,
            };
            if split_key.as_ref().is_some_and(Bytes::is_empty) {
                return Err(args.invalid("the split key must not be empty"));
            }
            match region {
                Some(region) => Command::SplitRegion { region, split_key },
                None => Command::Split {
                    table: args.table_name(&target)?,
                    split_key,
                },
            }
        }
        "merge_region" => {
            args.arity(2, 2)?;
            let name = |args: &mut Args| -> Result<String, ShellError> {
                let v = args.required("region name")?;
                let name = args.text(&v, "region name")?;
                let encoded = name.len() == 32 && name.bytes().all(|b| b.is_ascii_hexdigit());
                if !name.contains(',') && !encoded {
                    return Err(args.invalid(format!(
                        "'{name}' is not a region name (table,…, as list_regions shows them, \
                         or its 32-digit encoded name)"
                    )));
                }
                Ok(name)
            };
            let a = name(&mut args)?;
            let b = name(&mut args)?;
            Command::MergeRegions { a, b }
        }
        "list" => {
            args.arity(0, 1)?;
            let pattern = match args.next() {
                Some(v) => Some(args.text(&v, "pattern")?),
                None => None,
            };
            Command::List { pattern }
        }
        "status" => {
            args.arity(0, 1)?;
            Command::Status(match args.next() {
                None => StatusDetail::default(),
                Some(v) => status_detail(&args, &v)?,
            })
        }
        "help" => {
            args.arity(0, 1)?;
            match args.next() {
                None => Command::Help(None),
                Some(v) => Command::Help(Some(help_topic(&args, &v)?)),
            }
        }
        name => {
            args.arity(0, 0)?;
            match name {
                "version" => Command::Version,
                "whoami" => Command::Whoami,
                "table_help" => Command::TableHelp,
                "processlist" => Command::Processlist,
                "update_all_config" => Command::UpdateConfig(None),
                "list_procedures" => Command::ListProcedures,
                "list_locks" => Command::ListLocks,
                _ => Command::Exit,
            }
        }
    };
    Ok(command)
}

fn status_detail(args: &Args, v: &Value) -> Result<StatusDetail, ShellError> {
    match args.text(v, "status format")?.as_str() {
        "simple" => Ok(StatusDetail::Simple),
        "summary" => Ok(StatusDetail::Summary),
        "detailed" => Ok(StatusDetail::Detailed),
        other => Err(args.usage(format!(
            "unknown status format '{other}'; use 'simple', 'summary' or 'detailed'"
        ))),
    }
}

fn help_topic(args: &Args, v: &Value) -> Result<&'static CommandHelp, ShellError> {
    let name = args.text(v, "command name")?;
    help::find(&name).ok_or_else(|| ShellError::UnknownCommand {
        suggestion: help::suggest(&name),
        name,
    })
}
