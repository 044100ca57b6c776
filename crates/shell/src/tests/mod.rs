//! Tests of the shell parser, by concern.

mod data;
mod ddl;
mod errors;
mod lexer;
mod namespace;
mod never_panics;
mod other;

use super::{parse_command, Command, ShellError};

/// Parses a line that must yield a command.
fn parse(line: &str) -> Command {
    match parse_command(line) {
        Ok(Some(c)) => c,
        other => panic!("{line}: {other:?}"),
    }
}

/// Parses a line that must fail, returning the error.
fn fail(line: &str) -> ShellError {
    match parse_command(line) {
        Err(e) => e,
        Ok(c) => panic!("{line}: expected an error, got {c:?}"),
    }
}

/// The error's message.
fn message(line: &str) -> String {
    fail(line).to_string()
}
