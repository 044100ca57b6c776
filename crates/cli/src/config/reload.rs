//! Reloading the configuration file while the process runs (HBase's `update_config`): on
//! SIGHUP the process reads its file again, merged under the same command line, applies the
//! keys that can change at run time and names the others, which wait for a restart.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use clap::Command;

use super::effective::{Effective, Source};
use super::{merge, Loaded};

/// The keys a reload applies; any other key's change needs a restart.
pub const RELOADABLE: [&str; 3] = [
    "log-level",
    "compaction-throughput-lower-mib",
    "compaction-throughput-upper-mib",
];

/// What a reload changed and what it left for a restart, as `key: old → new`.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    pub applied: Vec<String>,
    pub needs_restart: Vec<String>,
}

/// A process's configuration in force and how to read it again.
pub struct Reloader {
    root: Command,
    argv: Vec<OsString>,
    process: String,
    path: Option<PathBuf>,
    in_force: Effective,
}

impl Reloader {
    /// For the process `loaded` describes, started with `argv` parsed by `root`.
    pub fn new(root: Command, argv: Vec<OsString>, loaded: Loaded) -> Reloader {
        Reloader {
            root,
            argv,
            process: loaded.process,
            path: loaded.path,
            in_force: loaded.effective,
        }
    }

    /// The configuration in force.
    #[cfg(test)]
    pub fn in_force(&self) -> &Effective {
        &self.in_force
    }

    /// The lines `/config` shows: the file's name, then every key in force.
    pub fn lines(&self) -> Vec<String> {
        let head = match &self.path {
            Some(p) => format!(
                "# strata {}, configuration file {}",
                self.process,
                p.display()
            ),
            None => format!("# strata {}, no configuration file", self.process),
        };
        std::iter::once(head).chain(self.in_force.lines()).collect()
    }

    /// Reads the file again and applies what changed: reloadable keys with `apply` (given
    /// the configuration then in force), the others only reported.
    ///
    /// # Errors
    /// No file, the file's problems (`FILE:LINE: message`; nothing changes then), or
    /// `apply`'s refusal.
    pub fn reload(
        &mut self,
        apply: impl FnOnce(&Effective, &[&str]) -> Result<(), String>,
    ) -> Result<Outcome, Vec<String>> {
        let Some(path) = self.path.clone() else {
            return Err(vec!["no configuration file to reload (see --config)".into()]);
        };
        let given = self
            .root
            .clone()
            .try_get_matches_from(&self.argv)
            .map_err(|e| vec![merge::clap_message(&e)])?;
        let (matches, from_file) =
            super::merged(&self.root, &self.argv, &given, &self.process, &path)?;
        let sub = matches
            .subcommand_matches(&self.process)
            .ok_or_else(|| vec![format!("{}: lost in the merge", self.process)])?;
        let flags = merge::settable(&self.root, &self.process);
        let read = Effective::of(sub, &flags, &from_file);
        let mut next = self.in_force.clone();
        let mut outcome = Outcome::default();
        let mut changed = Vec::new();
        for (key, new) in &read.settings {
            let Some(old) = self.in_force.settings.get(key) else {
                continue;
            };
            if old.values == new.values {
                continue;
            }
            let what = format!(
                "{key}: {} → {}",
                shown(old.values.as_ref()),
                shown(new.values.as_ref())
            );
            if RELOADABLE.contains(&key.as_str()) {
                let mut setting = new.clone();
                if setting.source == Source::File {
                    setting.source = Source::Reload;
                }
                next.settings.insert(key.clone(), setting);
                changed.push(key.as_str());
                outcome.applied.push(what);
            } else {
                outcome.needs_restart.push(what);
            }
        }
        if !changed.is_empty() {
            apply(&next, &changed).map_err(|e| vec![e])?;
            self.in_force = next;
        }
        Ok(outcome)
    }
}

fn shown(values: Option<&Vec<String>>) -> String {
    values.map_or_else(|| "(not set)".to_owned(), |v| v.join(","))
}

/// Applies the reloadable keys named in `changed`, as `config` sets them, to this process.
///
/// # Errors
/// A log filter that does not parse (nothing changes then).
pub fn apply_to_process(config: &Effective, changed: &[&str]) -> Result<(), String> {
    if changed.contains(&"log-level") {
        crate::logging::set_level(config.value("log-level"))?;
    }
    if changed
        .iter()
        .any(|k| k.starts_with("compaction-throughput-"))
    {
        let mib = |key: &str| config.value(key).and_then(|v| v.parse::<u64>().ok());
        if let (Some(lower), Some(upper), Some(shared)) = (
            mib("compaction-throughput-lower-mib"),
            mib("compaction-throughput-upper-mib"),
            crate::compaction_args::shared(),
        ) {
            let args = crate::compaction_args::CompactionThroughputArgs {
                compaction_throughput_lower_mib: lower,
                compaction_throughput_upper_mib: upper,
            };
            shared.set(args.config());
        }
    }
    Ok(())
}

/// Reloads once and logs the outcome; publishes the lines in force for `/config`.
///
/// # Errors
/// As [`Reloader::reload`]: nothing changed then.
pub fn reload_and_log(reloader: &mut Reloader) -> Result<Outcome, Vec<String>> {
    let result = reloader.reload(apply_to_process);
    match &result {
        Ok(outcome) => {
            let file = reloader
                .path
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            if outcome.applied.is_empty() && outcome.needs_restart.is_empty() {
                tracing::info!(file = %file, "configuration reloaded: nothing changed");
            }
            if !outcome.applied.is_empty() {
                tracing::info!(
                    file = %file,
                    changed = %outcome.applied.join("; "),
                    "configuration reloaded"
                );
            }
            if !outcome.needs_restart.is_empty() {
                tracing::warn!(
                    file = %file,
                    keys = %outcome.needs_restart.join("; "),
                    "configuration changes not applied: they need a restart (reloadable: {})",
                    RELOADABLE.join(", ")
                );
            }
        }
        Err(problems) => {
            for problem in problems {
                tracing::error!("configuration not reloaded: {problem}");
            }
        }
    }
    strata_http::process_config::publish(reloader.lines());
    result
}

/// Publishes the configuration in force for `/config`, and from now on reloads it on each
/// SIGHUP (which then no longer stops the process), on a thread of its own, and on each admin
/// call (`update_config`, through `strata_server::config_reload`).
///
/// # Errors
/// The signal handler cannot be installed.
pub fn watch(reloader: Reloader) -> Result<(), String> {
    strata_http::process_config::publish(reloader.lines());
    let reloader = Arc::new(Mutex::new(reloader));
    let by_call = reloader.clone();
    strata_server::config_reload::install(Box::new(move || {
        tracing::info!("admin call: reloading the configuration");
        let mut reloader = by_call.lock().unwrap_or_else(PoisonError::into_inner);
        reload_and_log(&mut reloader)
            .map(|o| strata_server::config_reload::ReloadOutcome {
                applied: o.applied,
                needs_restart: o.needs_restart,
            })
            .map_err(|problems| problems.join("; "))
    }));
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        // Installed before returning, so a SIGHUP from now on reloads rather than stops.
        let mut hangups = runtime
            .block_on(async { signal(SignalKind::hangup()) })
            .map_err(|e| format!("cannot handle SIGHUP: {e}"))?;
        std::thread::Builder::new()
            .name("strata-config-reload".into())
            .spawn(move || {
                runtime.block_on(async {
                    while hangups.recv().await.is_some() {
                        tracing::info!("SIGHUP: reloading the configuration");
                        let mut reloader = reloader.lock().unwrap_or_else(PoisonError::into_inner);
                        let _ = reload_and_log(&mut reloader);
                    }
                });
            })
            .map_err(|e| format!("cannot start the reload thread: {e}"))?;
    }
    Ok(())
}
