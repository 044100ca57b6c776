//! `strata shell`: HBase's shell language against a standalone server or a cluster.
//!
//! Parsing is pure: one statement in, one typed [`Command`] out, with no I/O; an executor
//! forwards each command through the client (or, for cluster operations, through etcd to the
//! active master).
//!
//! - `lexer`: tokens of the Ruby literal subset (strings with Ruby's escapes, numbers,
//!   constants, `=>`, brackets).
//! - `value`: [`Value`]s and the statement form `command 'arg', {K => V}`.
//! - `command`: [`parse_command`] and the [`Command`] it returns, built from the model's types
//!   and checked by the model's `validate()` and `set()`.
//! - `help`: usage lines and descriptions, shared by `help` and by error messages.
//!
//! Running statements:
//! - `exec`: [`execute`] one command through the client, printing HBase shell's output
//!   (`format` holds the shared layout; `pattern` the regular expressions of `list`).
//! - `statements`: cutting input lines into statements (continuation lines, `;`).
//! - `script`: a file or piped input, statement by statement; `repl`: `strata shell` itself.
//!
//! Shared with the `strata` binary's other commands:
//! - `cluster_ops`: operating a cluster through etcd (`strata cluster …` and the shell's
//!   `move`, `assign`, `balancer`, …);
//! - `escape`: HBase's `Bytes.toStringBinary` form of binary keys, both ways.

pub mod cluster_ops;
mod command;
mod error;
pub mod escape;
mod exec;
mod format;
pub mod help;
mod lexer;
mod pattern;
mod references;
mod repl;
mod script;
mod statements;
mod value;

#[cfg(test)]
mod tests;

pub use command::{parse_command, AlterChange, Command, NamespaceChange, StatusDetail};
pub use error::ShellError;
pub use repl::{run, Args};
pub use script::{run_script, Outcome};
