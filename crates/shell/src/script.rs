//! Script mode: every statement of a file (or of piped input) in order, output only.
//!
//! Without `-n` a failing statement prints its error and the line it starts on, and the
//! script goes on; with `-n` (HBase's non-interactive flag) the first failure stops the
//! script. Either way the
//! [`Outcome`] says whether anything failed, so the process can exit with status 1.

use std::io::{self, Write};

use strata_client::Connection;

use super::exec::{execute, report, ExecError, Flow};
use super::parse_command;
use super::references::{References, Rewritten};
use super::statements::{Statement, StatementReader};

/// How a script ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Statements that ran successfully.
    pub succeeded: usize,
    /// Statements that failed.
    pub failed: usize,
    /// The first failure stopped the script (`-n`).
    pub stopped: bool,
    /// An `exit` statement ended it.
    pub exited: bool,
}

/// Parses and runs one statement, without table references.
///
/// # Errors
/// The statement's parse or execution error.
#[cfg(test)]
pub async fn run_statement(
    conn: &Connection,
    text: &str,
    out: &mut impl Write,
) -> Result<Flow, ExecError> {
    run_statement_in(conn, &mut References::new(), text, out).await
}

/// Parses and runs one statement of a session whose table references are `refs`
/// (`t = get_table 't'`, then `t.scan`: [`References`]).
///
/// # Errors
/// The statement's parse or execution error.
pub async fn run_statement_in(
    conn: &Connection,
    refs: &mut References,
    text: &str,
    out: &mut impl Write,
) -> Result<Flow, ExecError> {
    let text = match refs.rewrite(text).map_err(ExecError::Rejected)? {
        Rewritten::Statement(text) => text,
        Rewritten::Bind { first, name, table } => {
            if let Some(first) = first {
                if let Some(command) = parse_command(&first)? {
                    execute(conn, command, out).await?;
                }
            }
            refs.bind(&name, &table);
            writeln!(out, "=> Hbase::Table - {table}")?;
            return Ok(Flow::Continue);
        }
    };
    match parse_command(&text)? {
        Some(command) => execute(conn, command, out).await,
        None => Ok(Flow::Continue),
    }
}

/// Runs every statement of `source`: output to `out`, errors to `err`.
///
/// # Errors
/// Writing to `out` or `err` failed.
pub async fn run_script(
    conn: &Connection,
    source: &str,
    stop_on_error: bool,
    out: &mut impl Write,
    err: &mut impl Write,
) -> io::Result<Outcome> {
    let mut reader = StatementReader::new();
    let mut refs = References::new();
    let mut outcome = Outcome::default();
    let statements = source
        .lines()
        .flat_map(|line| reader.feed(line))
        .collect::<Vec<_>>()
        .into_iter()
        .chain(reader.finish());
    for Statement { text, line } in statements {
        match run_statement_in(conn, &mut refs, &text, out).await {
            Ok(Flow::Continue) => outcome.succeeded += 1,
            Ok(Flow::Exit) => {
                outcome.succeeded += 1;
                outcome.exited = true;
                break;
            }
            Err(ExecError::Io(e)) => return Err(e),
            Err(e) => {
                outcome.failed += 1;
                out.flush()?;
                report(&e, err)?;
                if stop_on_error {
                    writeln!(err, "stopped at line {line}: {text}")?;
                    outcome.stopped = true;
                    break;
                }
                writeln!(err, "at line {line}: {text}")?;
            }
        }
    }
    out.flush()?;
    Ok(outcome)
}
