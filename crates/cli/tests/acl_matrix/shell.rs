//! Each operation the shell has, as a statement run by the shell's executor in this process.

use strata_client::Connection;

use super::cases::Case;
use super::scopes::{target, NS};
use super::server::{GONE_NS, LISTER, OTHER, SECRET};
use super::Seen;

/// The statement of `case`'s operation on its table `t`.
fn statement(case: &Case, t: &str) -> Option<String> {
    let id = case.id;
    Some(match case.op.name {
        "get" => format!("get '{t}', 'r', {{COLUMN => 'f:q'}}"),
        "scan" => format!("scan '{t}', {{COLUMNS => ['f:q']}}"),
        "put" => format!("put '{t}', 'w', 'f:q', 'x'"),
        "delete_column" => format!("delete '{t}', 'w', 'f:q'"),
        "delete_row" => format!("deleteall '{t}', 'w'"),
        "increment" => format!("incr '{t}', 'n', 'f:q', 1"),
        "append" => format!("append '{t}', 'w', 'f:q', 'a'"),
        "flush" => format!("flush '{t}'"),
        "compact" => format!("compact '{t}'"),
        "split" => format!("split '{t}', 'k{id:05}'"),
        "alter" => format!("alter '{t}', {{NAME => 'f', VERSIONS => {}}}", id % 5 + 1),
        "disable" => format!("disable '{t}'"),
        "enable" => format!("enable '{t}'"),
        "truncate" => format!("truncate '{t}'"),
        "drop" => format!("drop '{t}'"),
        "snapshot" => format!("snapshot '{t}', 'snap{id}'"),
        "describe" => format!("describe '{t}'"),
        "list_tables" => "list".to_owned(),
        "create_table" => format!("create '{NS}:c{id}', 'f'"),
        "create_namespace" => format!("create_namespace 'n{id}'"),
        "drop_namespace" => format!("drop_namespace '{GONE_NS}'"),
        "grant_table" => format!("grant '{OTHER}', 'R', '{t}'"),
        "grant_namespace" => format!("grant '{OTHER}', 'R', '@{NS}'"),
        "revoke_table" => format!("revoke '{OTHER}', '{t}'"),
        "user_permission_table" => format!("user_permission '{t}'"),
        _ => return None,
    })
}

/// Runs `case`'s operation as `conn`'s user through the shell's executor.
pub async fn run(conn: &Connection, case: &Case) -> Result<Seen, String> {
    let t = target(case);
    let Some(text) = statement(case, &t) else {
        return Err(format!("no shell statement for operation {}", case.op.name));
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let outcome = strata_shell::run_script(conn, &text, true, &mut out, &mut err)
        .await
        .map_err(|e| e.to_string())?;
    let (out, err) = (
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    );
    if outcome.failed > 0 {
        return if err.contains("Insufficient permissions") {
            if case.allowed {
                eprintln!("{}: refused: {err}", case.describe());
            }
            Ok(Seen::Refused)
        } else {
            Err(format!(
                "{}: `{text}` failed otherwise: {err}",
                case.describe()
            ))
        };
    }
    Ok(match case.op.name {
        "get" | "scan" if !out.contains(&format!("value={SECRET}")) => Seen::LeftOut,
        "list_tables" if !out.lines().any(|l| l.trim() == t) => Seen::LeftOut,
        // As HBase's shell, a table pattern lists the grants of the tables the user sees.
        "user_permission_table" if !out.contains(LISTER) => Seen::LeftOut,
        _ => Seen::Allowed,
    })
}
