//! The process's effective configuration, as the `key = value` lines `/config` shows.
//!
//! A process has one configuration, as it has one logger: the command that starts it
//! publishes the lines once its flags and configuration file are merged, and again after each
//! reload, and every endpoint the process runs (a standalone server's, each incarnation of a
//! region server's) shows the lines in force, without the wiring in between passing them on.

use std::sync::{PoisonError, RwLock};

static LINES: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// Replaces the lines `/config` shows (each one `key = value`, perhaps with a `# comment`).
pub fn publish(lines: Vec<String>) {
    *LINES.write().unwrap_or_else(PoisonError::into_inner) = lines;
}

/// The lines last published (none if the process published nothing).
pub fn lines() -> Vec<String> {
    LINES.read().unwrap_or_else(PoisonError::into_inner).clone()
}
