//! `strata config check FILE` and `strata config show FILE --for PROCESS`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::effective::Effective;
use super::{merge, PROCESSES};

/// `strata config`.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Checks a configuration file: its TOML, sections, keys and values, each problem as
    /// FILE:LINE: message (exit status 1).
    Check {
        /// The file.
        file: PathBuf,
    },
    /// Prints the configuration a process would start with from a file (no flags): every
    /// key as `key = value`.
    Show {
        /// The file.
        file: PathBuf,
        /// The process: standalone, master, regionserver or gateway.
        #[arg(long = "for", default_value = "standalone", value_parser = PROCESSES)]
        process: String,
    },
}

/// Runs a `strata config` command; `root` is the whole command line's definition.
///
/// # Errors
/// The file has problems (printed to standard error, one a line).
pub fn run(root: &clap::Command, cmd: &Command) -> Result<(), String> {
    match cmd {
        Command::Check { file } => check(root, file),
        Command::Show { file, process } => show(root, file, process),
    }
}

fn check(root: &clap::Command, path: &Path) -> Result<(), String> {
    let file = super::read(root, path).map_err(|problems| report(path, &problems))?;
    let per_process: Vec<String> = PROCESSES
        .iter()
        .map(|p| {
            let flags = merge::settable(root, p);
            format!("{p} {}", merge::for_process(&file, p, &flags).len())
        })
        .collect();
    outln!(
        "{}: ok, {} settings (per process: {})",
        path.display(),
        file.entries.len(),
        per_process.join(", ")
    );
    Ok(())
}

fn show(root: &clap::Command, path: &Path, process: &str) -> Result<(), String> {
    let argv: Vec<OsString> = vec!["strata".into(), process.into()];
    let given = root
        .clone()
        .try_get_matches_from(&argv)
        .map_err(|e| merge::clap_message(&e))?;
    let (matches, from_file) = super::merged(root, &argv, &given, process, path)
        .map_err(|problems| report(path, &problems))?;
    let sub = matches
        .subcommand_matches(process)
        .ok_or_else(|| format!("{process}: lost in the merge"))?;
    let effective = Effective::of(sub, &merge::settable(root, process), &from_file);
    for line in effective.lines() {
        outln!("{line}");
    }
    Ok(())
}

/// Prints each problem to standard error; the summary for the caller.
fn report(path: &std::path::Path, problems: &[String]) -> String {
    for p in problems {
        eprintln!("{p}");
    }
    format!(
        "{}: {} problem{}",
        path.display(),
        problems.len(),
        if problems.len() == 1 { "" } else { "s" }
    )
}
