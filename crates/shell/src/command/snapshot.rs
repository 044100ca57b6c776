//! Snapshot commands, as HBase's shell takes them: `snapshot 't', 's'`,
//! `list_snapshots ['regex']`, `list_table_snapshots 'table_regex' [, 'snapshot_regex']`,
//! `delete_snapshot 's'`, `clone_snapshot 's', 't'`, `restore_snapshot 's'`.

use super::args::Args;
use super::Command;
use crate::ShellError;

/// The snapshot name of the next argument.
fn name(args: &mut Args) -> Result<String, ShellError> {
    let v = args.required("snapshot name")?;
    args.text(&v, "snapshot name")
}

/// An optional pattern argument.
fn pattern(args: &mut Args) -> Result<Option<String>, ShellError> {
    match args.next() {
        Some(v) => args.text(&v, "pattern").map(Some),
        None => Ok(None),
    }
}

/// Parses a snapshot command.
pub(super) fn parse(mut args: Args) -> Result<Command, ShellError> {
    Ok(match args.name() {
        "snapshot" => {
            args.arity(2, 2)?;
            let table = args.table()?;
            Command::Snapshot {
                table,
                name: name(&mut args)?,
            }
        }
        "list_snapshots" => {
            args.arity(0, 1)?;
            Command::ListSnapshots {
                pattern: pattern(&mut args)?,
            }
        }
        "list_table_snapshots" => {
            args.arity(1, 2)?;
            let table = args.required("table pattern")?;
            let table = args.text(&table, "table pattern")?;
            Command::ListTableSnapshots {
                table,
                pattern: pattern(&mut args)?,
            }
        }
        "clone_snapshot" => {
            args.arity(2, 2)?;
            let name = name(&mut args)?;
            Command::CloneSnapshot {
                name,
                table: args.table()?,
            }
        }
        "delete_snapshot" => {
            args.arity(1, 1)?;
            Command::DeleteSnapshot(name(&mut args)?)
        }
        _ => {
            args.arity(1, 1)?;
            Command::RestoreSnapshot(name(&mut args)?)
        }
    })
}
