//! The process's effective configuration, as the `key = value` lines `/config` shows.
//!
//! A process has one configuration, as it has one logger: the command that starts it
//! publishes the lines once its flags and configuration file are merged, and again after each
//! reload, and every endpoint the process runs (a standalone server's, each incarnation of a
//! region server's) shows the lines in force, without the wiring in between passing them on.

use std::sync::{PoisonError, RwLock};

static LINES: RwLock<Vec<String>> = RwLock::new(Vec::new());
static LISTENERS: RwLock<Vec<(String, String)>> = RwLock::new(Vec::new());

/// Replaces the lines `/config` shows (each one `key = value`, perhaps with a `# comment`).
pub fn publish(lines: Vec<String>) {
    *LINES.write().unwrap_or_else(PoisonError::into_inner) = lines;
}

/// The lines last published (none if the process published nothing).
pub fn lines() -> Vec<String> {
    LINES.read().unwrap_or_else(PoisonError::into_inner).clone()
}

/// Records a listener the process started after its endpoints were wired (the in-process
/// Thrift gateway binds once the region server serves): `/config`'s "In force" lines name it
/// as `name = address`, and only once it listens. A second call for `name` replaces it.
pub fn listening(name: &str, address: String) {
    let mut all = LISTENERS.write().unwrap_or_else(PoisonError::into_inner);
    all.retain(|(n, _)| n != name);
    all.push((name.to_owned(), address));
}

/// Forgets a listener recorded by [`listening`] (it stopped).
pub fn stopped_listening(name: &str) {
    LISTENERS
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .retain(|(n, _)| n != name);
}

/// The listeners recorded by [`listening`], in the order they started.
pub fn listeners() -> Vec<(String, String)> {
    LISTENERS
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
}
