//! The executor: one parsed [`Command`] in, its effect through the client, and HBase shell's
//! output written to `out`.
//!
//! - `ddl`: create, alter, describe, list, enable/disable, drop, exists, truncate.
//! - `namespace`: create_namespace, alter_namespace, describe_namespace, drop_namespace,
//!   list_namespace, list_namespace_tables.
//! - `data`: put, get, scan, delete, incr, append, get_counter, count.
//! - `cluster`: flush, compact, compaction_state, split, files, status, version, help;
//!   `whoami`: the user.
//! - `regions`: list_regions, get_splits, locate_region, and region names in any form.
//! - `server_ops`: compact_rs, processlist and list_procedures, clear_block_cache,
//!   table_help, update_config, update_all_config (list_locks prints nothing: no locks).
//! - `cluster_ops`: move, assign, unassign, balancer, decommissioning, and `status` in cluster
//!   mode.
//!
//! Every command that reaches the server ends with HBase's `Took 0.0123 seconds` line.

mod access;
mod cluster;
mod cluster_ops;
mod data;
mod ddl;
mod namespace;
mod progress;
mod quota;
mod regions;
mod server_ops;
mod snapshot;
mod whoami;

#[cfg(test)]
mod tests;

use std::fmt;
use std::io::{self, Write};
use std::time::Instant;

use strata_client::{Connection, Error as ClientError};
use strata_proto::pb::ErrorCode;

use super::{format, Command, ShellError};

/// What the shell does after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Read the next statement.
    Continue,
    /// Leave the shell (`exit`, `quit`).
    Exit,
}

/// Why a statement failed. Printed as `ERROR: <message>`.
#[derive(Debug)]
pub enum ExecError {
    /// The statement did not parse, or its values were rejected before anything was sent.
    Shell(ShellError),
    /// The server (or the client) refused the request.
    Client(ClientError),
    /// The request is well-formed but cannot apply to this table (e.g. a family it lacks).
    Rejected(String),
    /// Writing the output failed.
    Io(io::Error),
}

impl fmt::Display for ExecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExecError::Shell(e) => write!(f, "{e}"),
            // These messages name the table or family already; the code would only repeat them.
            ExecError::Client(e)
                if matches!(
                    e.code,
                    ErrorCode::TableNotFound
                        | ErrorCode::TableExists
                        | ErrorCode::TableDisabled
                        | ErrorCode::TableEnabled
                        | ErrorCode::NoSuchFamily
                        | ErrorCode::InvalidArgument
                ) =>
            {
                f.write_str(&e.message)
            }
            ExecError::Client(e) if e.code == ErrorCode::NamespaceNotFound => {
                write!(f, "Unknown namespace {}!", e.message)
            }
            ExecError::Client(e)
                if matches!(
                    e.code,
                    ErrorCode::NamespaceExists
                        | ErrorCode::Constraint
                        | ErrorCode::QuotaExceeded
                        | ErrorCode::SpaceLimited
                        | ErrorCode::SnapshotExists
                        | ErrorCode::SnapshotNotFound
                        | ErrorCode::AccessDenied
                ) =>
            {
                f.write_str(&e.message)
            }
            ExecError::Client(e) => write!(f, "{e}"),
            ExecError::Rejected(message) => f.write_str(message),
            ExecError::Io(e) => write!(f, "writing output: {e}"),
        }
    }
}

impl std::error::Error for ExecError {}

impl From<ShellError> for ExecError {
    fn from(e: ShellError) -> ExecError {
        ExecError::Shell(e)
    }
}

impl From<ClientError> for ExecError {
    fn from(e: ClientError) -> ExecError {
        ExecError::Client(e)
    }
}

impl From<io::Error> for ExecError {
    fn from(e: io::Error) -> ExecError {
        ExecError::Io(e)
    }
}

/// Writes `ERROR: <message>`; a usage error's message ends with the command's usage line.
///
/// # Errors
/// Writing to `out` failed.
pub fn report(error: &ExecError, out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "ERROR: {error}")
}

/// Runs `cmd` against the cluster behind `conn`, writing its output to `out`.
///
/// # Errors
/// The server's refusal, a value the table cannot take (e.g. an unknown family), or a
/// failed write to `out`. The connection stays usable whatever happens.
pub async fn execute(
    conn: &Connection,
    cmd: Command,
    out: &mut impl Write,
) -> Result<Flow, ExecError> {
    let started = Instant::now();
    match cmd {
        Command::Help(topic) => {
            cluster::help(topic, out)?;
            return Ok(Flow::Continue);
        }
        Command::Exit => return Ok(Flow::Exit),
        Command::Create { table, splits } => ddl::create(conn, &table, &splits, out).await?,
        Command::Alter { table, changes } => ddl::alter(conn, &table, &changes, out).await?,
        Command::Describe(table) => ddl::describe(conn, &table, out).await?,
        Command::List { pattern } => ddl::list(conn, pattern.as_deref(), out).await?,
        Command::Disable(table) => ddl::disable(conn, &table).await?,
        Command::Enable(table) => ddl::enable(conn, &table).await?,
        Command::IsEnabled(table) => ddl::is_enabled(conn, &table, true, out).await?,
        Command::IsDisabled(table) => ddl::is_enabled(conn, &table, false, out).await?,
        Command::Drop(table) => ddl::drop(conn, &table).await?,
        Command::Exists(table) => ddl::exists(conn, &table, out).await?,
        Command::Truncate {
            table,
            preserve_splits,
        } => {
            let work = ddl::truncate(conn, &table, preserve_splits, out);
            progress::track(conn, format!("truncate '{table}'"), None, work).await?;
        }
        Command::Put { table, put } => data::put(conn, &table, &put).await?,
        Command::Get { table, get } => data::get(conn, &table, &get, out).await?,
        Command::Scan { table, scan } => data::scan(conn, &table, &scan, out).await?,
        Command::Delete { table, delete } => data::delete(conn, &table, &delete).await?,
        Command::Increment { table, increment } => {
            data::increment(conn, &table, &increment, out).await?;
        }
        Command::Append { table, append } => data::append(conn, &table, &append, out).await?,
        Command::GetCounter { table, get } => data::get_counter(conn, &table, &get, out).await?,
        Command::Count {
            table,
            scan,
            interval,
        } => data::count(conn, &table, &scan, interval, out).await?,
        Command::Flush { table, family } => {
            let work = cluster::flush(conn, &table, family.as_deref());
            progress::track(conn, format!("flush '{table}'"), None, work).await?;
        }
        Command::Compact {
            table,
            family,
            major,
        } => {
            let name = table.to_string();
            let label = if major { "major_compact" } else { "compact" };
            let work = cluster::compact(conn, &table, family.as_deref(), major);
            let regions = major.then_some(name.as_str());
            progress::track(conn, format!("{label} '{table}'"), regions, work).await?;
        }
        Command::CompactionState(table) => cluster::compaction_state(conn, &table, out).await?,
        Command::Split { table, split_key } => cluster::split(conn, &table, split_key).await?,
        Command::SplitRegion { region, split_key } => {
            let (table, found) = regions::resolve(conn, &region).await?;
            let name = regions::record_name(&table, &found);
            conn.admin().split(&name, split_key).await?;
        }
        Command::MergeRegions { a, b } => cluster::merge_regions(conn, &a, &b).await?,
        Command::Files(table) => cluster::files(conn, &table, out).await?,
        Command::ListRegions {
            table,
            server,
            columns,
        } => regions::list(conn, &table, server.as_deref(), &columns, out).await?,
        Command::GetSplits(table) => regions::get_splits(conn, &table, out).await?,
        Command::LocateRegion { table, row } => regions::locate(conn, &table, &row, out).await?,
        Command::Status(detail) => match crate::cluster_ops::shell_cluster() {
            Some(ops) => cluster_ops::status(ops, detail, out).await?,
            None => cluster::status(conn, detail, out).await?,
        },
        Command::Version => cluster::version(conn, out).await?,
        Command::Whoami => access::whoami(conn, out).await?,
        Command::Grant { user, perms, scope } => access::grant(conn, &user, perms, &scope).await?,
        Command::Revoke { user, scope } => access::revoke(conn, &user, &scope).await?,
        Command::UserPermission { filter } => {
            access::user_permission(conn, filter.as_deref(), out).await?;
        }
        Command::SetQuota {
            subject,
            throttle_type,
            limit,
        } => quota::set(conn, &subject, &throttle_type, limit.as_deref()).await?,
        Command::SetSpaceQuota { subject, limit } => {
            quota::set_space(conn, &subject, limit.as_ref()).await?;
        }
        Command::ListQuotas(filters) => quota::list(conn, &filters, out).await?,
        Command::ListQuotaSnapshots { table, namespace } => {
            quota::snapshots(conn, (table.as_deref(), namespace.as_deref()), out).await?;
        }
        Command::ListQuotaTableSizes => quota::table_sizes(conn, out).await?,
        Command::SwitchRpcThrottle(on) => quota::switch_rpc_throttle(conn, on, out).await?,
        Command::TableHelp => {
            server_ops::table_help(out)?;
            return Ok(Flow::Continue);
        }
        Command::Processlist | Command::ListProcedures => {
            server_ops::list_procedures(conn, out).await?;
        }
        Command::ListLocks => {}
        Command::AlterAsync { table, changes } => {
            ddl::alter_async(conn, &table, &changes, out).await?;
        }
        Command::AlterStatus(table) => ddl::alter_status(conn, &table, out).await?,
        Command::ClearBlockCache(table) => server_ops::clear_block_cache(conn, &table, out).await?,
        Command::SplitOrMergeSwitch { switch, on } => {
            let was = conn.admin().set_switch(&switch, on).await?;
            writeln!(out, "{was}")?;
        }
        Command::SplitOrMergeEnabled(switch) => {
            let on = conn.admin().switch_enabled(&switch).await?;
            writeln!(out, "{on}")?;
        }
        Command::CompactServer { server, major } => {
            server_ops::compact_server(conn, &server, major, out).await?;
        }
        Command::CreateNamespace { name, properties } => {
            namespace::create(conn, &name, &properties).await?;
        }
        Command::AlterNamespace { name, changes } => {
            namespace::alter(conn, &name, &changes).await?;
        }
        Command::DescribeNamespace(name) => namespace::describe(conn, &name, out).await?,
        Command::DropNamespace(name) => namespace::drop(conn, &name).await?,
        Command::ListNamespace { pattern } => {
            namespace::list(conn, pattern.as_deref(), out).await?;
        }
        Command::ListNamespaceTables(name) => namespace::list_tables(conn, &name, out).await?,
        Command::Snapshot { table, name } => snapshot::take(conn, &table, &name).await?,
        Command::ListSnapshots { pattern } => snapshot::list(conn, pattern.as_deref(), out).await?,
        Command::ListTableSnapshots { table, pattern } => {
            snapshot::list_of_tables(conn, &table, pattern.as_deref(), out).await?;
        }
        Command::CloneSnapshot { name, table } => snapshot::clone(conn, &name, &table).await?,
        Command::DeleteSnapshot(name) => snapshot::delete(conn, &name).await?,
        Command::RestoreSnapshot(name) => snapshot::restore(conn, &name).await?,
        Command::ClusterOp(op) => {
            cluster_ops::run(conn, op, out).await?;
        }
        Command::UpdateConfig(server) => {
            server_ops::update_config(conn, server.as_deref(), out).await?;
        }
    }
    format::took(out, started.elapsed())?;
    Ok(Flow::Continue)
}
