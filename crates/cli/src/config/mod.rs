//! The configuration file of a process (RFC 0022): one TOML file per host, as HBase's
//! `hbase-site.xml`, read by `strata standalone|master|regionserver|gateway --config FILE`
//! (or `$STRATA_CONFIG`).
//!
//! Keys are the processes' long flags, spelled as on the command line (`listen`,
//! `memtable-mib`); top-level keys apply to every process that has the flag, a
//! `[standalone]`, `[master]`, `[regionserver]` or `[gateway]` table to that process only.
//! Precedence: the command line, then the process's table, then the top level, then the
//! flag's default. The merge happens on clap's parse, so every flag is settable and checked
//! by its own parser, whatever the process's `Args` become.
//!
//! - [`file`]: reading the TOML, with lines;
//! - [`merge`]: checking keys and values against the flags, the command line they stand for;
//! - [`effective`]: the values in force, as `/config` shows them;
//! - [`reload`]: SIGHUP, and which keys change without a restart;
//! - [`command`]: `strata config check|show`.

pub mod command;
pub mod effective;
pub mod file;
pub mod merge;
pub mod reload;

#[cfg(test)]
mod tests;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use clap::{Arg, ArgMatches, Command};

use effective::Effective;
use file::{File, Problem};

/// The processes a file configures: subcommands of `strata`.
pub const PROCESSES: [&str; 4] = ["standalone", "master", "regionserver", "gateway"];

/// The environment variable naming the file when `--config` is not given.
pub const ENV: &str = "STRATA_CONFIG";

/// `root` with `--config FILE` on each process's subcommand.
pub fn with_config_flag(root: Command) -> Command {
    PROCESSES.iter().fold(root, |root, process| {
        root.mut_subcommand(process, |cmd| {
            cmd.arg(
                Arg::new(merge::CONFIG_FLAG)
                    .long(merge::CONFIG_FLAG)
                    .value_name("FILE")
                    .value_parser(clap::value_parser!(PathBuf))
                    .help(format!(
                        "A configuration file (TOML; keys are these flags' long names, \
                         in a [{process}] table or at the top level); flags given here \
                         override it [default: ${ENV}]"
                    )),
            )
        })
    })
}

/// A process's configuration: the file it read, if any, and the values in force.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub process: String,
    pub path: Option<PathBuf>,
    pub effective: Effective,
}

/// Reads and checks the file at `path`.
///
/// # Errors
/// Lines `FILE:LINE: message`, one per problem.
pub fn read(root: &Command, path: &Path) -> Result<File, Vec<String>> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| vec![format!("{shown}: {e}")])?;
    let render = |problems: Vec<Problem>| problems.iter().map(|p| p.render(&shown)).collect();
    let file = file::parse(&text).map_err(render)?;
    let problems = merge::check(root, &file);
    if problems.is_empty() {
        Ok(file)
    } else {
        Err(render(problems))
    }
}

/// The file a process's command line names: `--config`, else `$STRATA_CONFIG`.
pub fn path_of(matches: &ArgMatches) -> Option<PathBuf> {
    matches
        .get_one::<PathBuf>(merge::CONFIG_FLAG)
        .cloned()
        .or_else(|| {
            std::env::var_os(ENV)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        })
}

/// `argv` parsed by `root` with the process's configuration file merged in: the file's
/// settings fill what the command line leaves to defaults. Commands other than the
/// processes are parsed as they are.
///
/// # Errors
/// The file's problems (`FILE:LINE: message`), or the merged command line's.
pub fn load(
    root: &Command,
    argv: &[OsString],
) -> Result<(ArgMatches, Option<Loaded>), Vec<String>> {
    let given = root
        .clone()
        .try_get_matches_from(argv)
        .unwrap_or_else(|e| e.exit());
    let Some((process, sub)) = given.subcommand() else {
        return Ok((given, None));
    };
    if !PROCESSES.contains(&process) {
        return Ok((given, None));
    }
    let process = process.to_owned();
    let flags = merge::settable(root, &process);
    let Some(path) = path_of(sub) else {
        let effective = Effective::of(sub, &flags, &[]);
        return Ok((
            given.clone(),
            Some(Loaded {
                process,
                path: None,
                effective,
            }),
        ));
    };
    let (matches, from_file) = merged(root, argv, &given, &process, &path)?;
    let sub = matches
        .subcommand_matches(&process)
        .ok_or_else(|| vec![format!("{process}: lost in the merge")])?;
    let effective = Effective::of(sub, &flags, &from_file);
    Ok((
        matches.clone(),
        Some(Loaded {
            process,
            path: Some(path),
            effective,
        }),
    ))
}

/// `argv` with `path`'s settings for `process` that `given` (its parse) leaves to defaults,
/// parsed again; and the keys the file set.
///
/// # Errors
/// As [`load`].
pub fn merged(
    root: &Command,
    argv: &[OsString],
    given: &ArgMatches,
    process: &str,
    path: &Path,
) -> Result<(ArgMatches, Vec<String>), Vec<String>> {
    let shown = path.display().to_string();
    let file = read(root, path)?;
    let sub = given
        .subcommand_matches(process)
        .ok_or_else(|| vec![format!("{shown}: no `strata {process}` to configure")])?;
    let (words, keys) = merge::file_words(root, &file, process, sub).map_err(|problems| {
        problems
            .iter()
            .map(|p| p.render(&shown))
            .collect::<Vec<_>>()
    })?;
    // Before a `--`, if any, so the words stay flags.
    let mut line: Vec<OsString> = argv.to_vec();
    let at = line.iter().position(|w| w == "--").unwrap_or(line.len());
    line.splice(at..at, words);
    let matches = root
        .clone()
        .try_get_matches_from(line)
        .map_err(|e| vec![format!("{shown}: {}", merge::clap_message(&e))])?;
    Ok((matches, keys))
}
