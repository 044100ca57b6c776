//! The HBase shell language: one statement in, one typed [`Command`] out. No I/O happens
//! here; an executor forwards each command through the client.
//!
//! - `lexer`: tokens of the Ruby literal subset (strings with Ruby's escapes, numbers,
//!   constants, `=>`, brackets).
//! - `value`: [`Value`]s and the statement form `command 'arg', {K => V}`.
//! - `command`: [`parse_command`] and the [`Command`] it returns, built from the model's types
//!   and checked by the model's `validate()` and `set()`.
//! - `help`: usage lines and descriptions, shared by `help` and by error messages.

mod command;
mod error;
pub mod help;
mod lexer;
mod value;

#[cfg(test)]
mod tests;

pub use command::{
    parse_command, AlterChange, Command, SplitAlgorithm, StatusDetail, DEFAULT_COUNT_CACHE,
    DEFAULT_COUNT_INTERVAL,
};
pub use error::ShellError;
pub use value::{parse_statement, Statement, Value};
