//! [`ShellError`]: why a statement could not be turned into a [`Command`](super::Command).

use std::fmt;

/// Why a shell statement was rejected. Every message is meant to be printed as is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShellError {
    /// The statement is not well-formed Ruby-literal syntax.
    Syntax {
        /// 1-based column (in characters) where the problem was found.
        column: usize,
        /// What is wrong; it names the column, e.g. "unterminated string starting at column 12".
        message: String,
    },
    /// The first word names no shell command.
    UnknownCommand {
        /// The word as typed.
        name: String,
        /// The closest known command, if one is close enough to be a likely typo.
        suggestion: Option<&'static str>,
    },
    /// The command got the wrong number or kind of arguments.
    Usage {
        /// The command's name.
        command: &'static str,
        /// What is wrong.
        message: String,
        /// The command's usage line.
        usage: &'static str,
    },
    /// The arguments are well-formed but their values are not accepted (a setting out of
    /// range, an empty row, an unsupported option).
    Invalid {
        /// The command's name.
        command: &'static str,
        /// What is wrong.
        message: String,
    },
}

impl ShellError {
    /// A syntax error at `column`; `message` should mention the column.
    pub(crate) fn syntax(column: usize, message: impl Into<String>) -> ShellError {
        ShellError::Syntax {
            column,
            message: message.into(),
        }
    }
}

impl fmt::Display for ShellError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShellError::Syntax { message, .. } => write!(f, "syntax error: {message}"),
            ShellError::UnknownCommand { name, suggestion } => {
                write!(f, "unknown command '{name}'")?;
                if let Some(s) = suggestion {
                    write!(f, "; did you mean '{s}'?")?;
                }
                write!(f, " (type 'help' for the list of commands)")
            }
            ShellError::Usage {
                command,
                message,
                usage,
            } => write!(f, "{command}: {message}\nusage: {usage}"),
            ShellError::Invalid { command, message } => write!(f, "{command}: {message}"),
        }
    }
}

impl std::error::Error for ShellError {}
