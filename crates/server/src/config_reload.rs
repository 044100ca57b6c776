//! Reloading the process's configuration file on request (HBase's `updateConfiguration`):
//! the process wiring installs how its file is read again and applied ([`install`]); the admin
//! service and HBase RPC's `AdminService` call [`reload`]. The same reload runs on SIGHUP.
//!
//! One hook per process: a configuration file configures a process, whatever servers run in
//! it. A process that installed none (an embedded server, a test) answers that it has no file.

use std::sync::OnceLock;

/// What one reload changed and what it left for a restart, each as `key: old → new`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReloadOutcome {
    /// Keys applied now.
    pub applied: Vec<String>,
    /// Keys whose change waits for a restart.
    pub needs_restart: Vec<String>,
}

/// Reads the file again and applies it; the problems (nothing changed then) on failure.
pub type Reload = dyn Fn() -> Result<ReloadOutcome, String> + Send + Sync;

static HOOK: OnceLock<Box<Reload>> = OnceLock::new();

/// The answer of a process without a configuration file to reload.
pub const NO_FILE: &str = "no configuration file to reload: the process was started without \
                           --config (or $STRATA_CONFIG)";

/// Makes [`reload`] call `hook`. Once per process; a later call is ignored (false).
pub fn install(hook: Box<Reload>) -> bool {
    HOOK.set(hook).is_ok()
}

/// Reloads this process's configuration file. Blocking (reads the file).
///
/// # Errors
/// No file ([`NO_FILE`]), or the file's problems; nothing changes then.
pub fn reload() -> Result<ReloadOutcome, String> {
    match HOOK.get() {
        Some(hook) => hook(),
        None => Err(NO_FILE.to_string()),
    }
}
