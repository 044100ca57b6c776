//! A file's settings checked against the flags of the processes and turned into the command
//! line they stand for.
//!
//! Every long flag of a process's subcommand is a key, so a new flag is settable in the file
//! the day it exists; the flag's own parser checks the file's value, as it checks the
//! command line's.

use std::collections::BTreeMap;
use std::ffi::OsString;

use clap::{Arg, ArgAction, ArgMatches, Command};

use super::file::{Entry, File, Problem, Value};
use super::PROCESSES;

/// The flag of `strata <process>` naming the configuration file, itself not a key.
pub const CONFIG_FLAG: &str = "config";

/// The flags `process` takes from a file: its long flags but `--help`, `--version` and
/// `--config`, by key (the long name).
pub fn settable(root: &Command, process: &str) -> BTreeMap<String, Arg> {
    let mut root = root.clone();
    root.build();
    let Some(cmd) = root.find_subcommand(process) else {
        return BTreeMap::new();
    };
    cmd.get_arguments()
        .filter(|a| !a.is_positional())
        .filter(|a| {
            !matches!(
                a.get_action(),
                ArgAction::Help | ArgAction::HelpShort | ArgAction::HelpLong | ArgAction::Version
            )
        })
        .filter_map(|a| Some((a.get_long()?.to_owned(), a.clone())))
        .filter(|(long, _)| long != CONFIG_FLAG)
        .collect()
}

/// The settings that apply to `process`: its `[process]` section over the top level's keys
/// it has, by key.
pub fn for_process<'f>(
    file: &'f File,
    process: &str,
    flags: &BTreeMap<String, Arg>,
) -> BTreeMap<String, &'f Entry> {
    let mut out = BTreeMap::new();
    for entry in file.entries.iter().filter(|e| e.section.is_none()) {
        if flags.contains_key(&entry.key) {
            out.insert(entry.key.clone(), entry);
        }
    }
    for entry in file
        .entries
        .iter()
        .filter(|e| e.section.as_deref() == Some(process))
    {
        out.insert(entry.key.clone(), entry);
    }
    out
}

/// The command-line words that stand for `value` of `arg`: `--key=VALUE` (once per item of
/// a list, for a repeatable flag), `--key` for a switch that is true (or a flag whose value
/// may be left out), nothing for one that is false.
///
/// # Errors
/// A value of a shape the flag does not take.
pub fn words(key: &str, arg: &Arg, value: &Value) -> Result<Vec<OsString>, String> {
    let scalar = |v: &Value| {
        v.as_arg()
            .map(|s| OsString::from(format!("--{key}={s}")))
            .ok_or_else(|| format!("{key} takes one value, not a list"))
    };
    match arg.get_action() {
        ArgAction::SetTrue | ArgAction::SetFalse => match value {
            Value::Boolean(b) => {
                let on = *b == matches!(arg.get_action(), ArgAction::SetTrue);
                Ok(if on {
                    vec![format!("--{key}").into()]
                } else {
                    vec![]
                })
            }
            other => Err(format!("{key} is a switch: true or false, not {other}")),
        },
        // A flag whose value may be left out (`--http` alone): true stands for the flag alone.
        ArgAction::Set if optional_value(arg) && matches!(value, Value::Boolean(_)) => {
            Ok(if *value == Value::Boolean(true) {
                vec![format!("--{key}").into()]
            } else {
                vec![]
            })
        }
        ArgAction::Set => Ok(vec![scalar(value)?]),
        ArgAction::Append => match value {
            Value::List(items) => items.iter().map(scalar).collect(),
            v => Ok(vec![scalar(v)?]),
        },
        ArgAction::Count => match value {
            Value::Integer(n) if *n >= 0 => {
                Ok((0..*n).map(|_| format!("--{key}").into()).collect())
            }
            other => Err(format!("{key} counts: a number, not {other}")),
        },
        _ => Err(format!("{key} cannot be set in a configuration file")),
    }
}

/// The flag may be given without a value.
fn optional_value(arg: &Arg) -> bool {
    arg.get_num_args().is_some_and(|n| n.min_values() == 0)
}

/// Checks `entry`'s value with its flag's own parser, as `strata <process>` would.
pub fn check_value(root: &Command, process: &str, arg: &Arg, entry: &Entry) -> Option<Problem> {
    let words = match words(&entry.key, arg, &entry.value) {
        Ok(words) => words,
        Err(why) => return Some(Problem::at(entry.line, why)),
    };
    let mut line: Vec<OsString> = vec!["strata".into(), process.into()];
    line.extend(words);
    match root.clone().try_get_matches_from(line) {
        Ok(_) => None,
        // The value parsed; the other flags are the command line's business.
        Err(e) if e.kind() == clap::error::ErrorKind::MissingRequiredArgument => None,
        Err(e) => Some(Problem::at(entry.line, clap_message(&e))),
    }
}

/// The first line of clap's message, without its `error: `.
pub fn clap_message(e: &clap::Error) -> String {
    let text = e.to_string();
    let first = text.lines().next().unwrap_or_default();
    first.strip_prefix("error: ").unwrap_or(first).to_owned()
}

/// Everything wrong with `file` for any process: unknown sections and keys (with the nearest
/// known name), values their flag refuses.
pub fn check(root: &Command, file: &File) -> Vec<Problem> {
    let flags: BTreeMap<&str, BTreeMap<String, Arg>> =
        PROCESSES.iter().map(|p| (*p, settable(root, p))).collect();
    let mut problems = Vec::new();
    for (section, line) in &file.sections {
        if !flags.contains_key(section.as_str()) {
            let hint = did_you_mean(section, PROCESSES.iter().copied());
            problems.push(Problem::at(
                *line,
                format!("unknown section [{section}]{hint}; sections are [standalone], [master], [regionserver] and [gateway]"),
            ));
        }
    }
    for entry in &file.entries {
        match entry.section.as_deref() {
            None => {
                let having: Vec<&str> = PROCESSES
                    .iter()
                    .copied()
                    .filter(|p| flags[p].contains_key(&entry.key))
                    .collect();
                if having.is_empty() {
                    let known = flags.values().flat_map(|f| f.keys().map(String::as_str));
                    let hint = did_you_mean(&entry.key, known);
                    problems.push(Problem::at(
                        entry.line,
                        format!(
                            "unknown key '{}': no process has --{}{hint}",
                            entry.key, entry.key
                        ),
                    ));
                }
                for p in having {
                    if let Some(problem) = check_value(root, p, &flags[p][&entry.key], entry) {
                        if !problems.contains(&problem) {
                            problems.push(problem);
                        }
                    }
                }
            }
            Some(section) => {
                let Some(known) = flags.get(section) else {
                    continue;
                };
                match known.get(&entry.key) {
                    Some(arg) => problems.extend(check_value(root, section, arg, entry)),
                    None => {
                        let hint = did_you_mean(&entry.key, known.keys().map(String::as_str));
                        problems.push(Problem::at(
                            entry.line,
                            format!(
                                "unknown key '{}' in [{section}]: `strata {section}` has no --{}{hint}",
                                entry.key, entry.key
                            ),
                        ));
                    }
                }
            }
        }
    }
    problems.sort_by_key(|p| p.line);
    problems
}

/// The command line of `strata <process>` with the file's settings that `matches` (the
/// command line as given) leaves to defaults: words to add, and the keys they set.
///
/// # Errors
/// A setting of a shape its flag does not take.
pub fn file_words(
    root: &Command,
    file: &File,
    process: &str,
    matches: &ArgMatches,
) -> Result<(Vec<OsString>, Vec<String>), Vec<Problem>> {
    let flags = settable(root, process);
    let mut out = Vec::new();
    let mut keys = Vec::new();
    let mut problems = Vec::new();
    for (key, entry) in for_process(file, process, &flags) {
        let arg = &flags[&key];
        let given = matches!(
            matches.value_source(arg.get_id().as_str()),
            Some(clap::parser::ValueSource::CommandLine | clap::parser::ValueSource::EnvVariable)
        );
        if given {
            continue;
        }
        match words(&key, arg, &entry.value) {
            Ok(w) => {
                out.extend(w);
                keys.push(key);
            }
            Err(why) => problems.push(Problem::at(entry.line, why)),
        }
    }
    if problems.is_empty() {
        Ok((out, keys))
    } else {
        Err(problems)
    }
}

/// `, did you mean 'x'?` for the known name nearest `name`, if one is near.
pub fn did_you_mean<'a>(name: &str, known: impl Iterator<Item = &'a str>) -> String {
    let normalized = name.replace('_', "-").to_lowercase();
    known
        .map(|k| (distance(&normalized, k), k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 4))
        .min()
        .map_or_else(String::new, |(_, k)| format!(", did you mean '{k}'?"))
}

/// Levenshtein distance.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}
