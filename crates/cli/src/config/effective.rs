//! The effective configuration of a process: every key with the value in force and where it
//! came from, rendered as `key = value` lines a configuration file could hold.

use std::collections::BTreeMap;

use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches};

/// Where a value in force came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Default,
    File,
    CommandLine,
    Environment,
    /// Changed by a reload of the file.
    Reload,
}

impl Source {
    fn note(self) -> &'static str {
        match self {
            Source::Default => "",
            Source::File => "  # configuration file",
            Source::CommandLine => "  # command line",
            Source::Environment => "  # environment",
            Source::Reload => "  # configuration file, reloaded",
        }
    }
}

/// One key in force.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    /// The values as the command line spells them; none: not set.
    pub values: Option<Vec<String>>,
    pub source: Source,
    /// A switch (true or false).
    pub switch: bool,
    /// Repeatable: a list.
    pub list: bool,
}

/// Every key of a process, in key order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Effective {
    pub settings: BTreeMap<String, Setting>,
}

impl Effective {
    /// What `matches` (the process's subcommand) holds for each of `flags`; `from_file`
    /// names the keys the configuration file set.
    pub fn of(matches: &ArgMatches, flags: &BTreeMap<String, Arg>, from_file: &[String]) -> Self {
        let settings = flags
            .iter()
            .map(|(key, arg)| {
                let id = arg.get_id().as_str();
                let values = matches.get_raw(id).map(|v| {
                    v.map(|s| s.to_string_lossy().into_owned())
                        .collect::<Vec<_>>()
                });
                let source = if from_file.contains(key) {
                    Source::File
                } else {
                    match matches.value_source(id) {
                        Some(ValueSource::CommandLine) => Source::CommandLine,
                        Some(ValueSource::EnvVariable) => Source::Environment,
                        _ => Source::Default,
                    }
                };
                let setting = Setting {
                    values,
                    source,
                    switch: matches!(arg.get_action(), ArgAction::SetTrue | ArgAction::SetFalse),
                    list: matches!(arg.get_action(), ArgAction::Append),
                };
                (key.clone(), setting)
            })
            .collect();
        Effective { settings }
    }

    /// The first value of `key`, if set.
    pub fn value(&self, key: &str) -> Option<&str> {
        self.settings
            .get(key)?
            .values
            .as_ref()?
            .first()
            .map(String::as_str)
    }

    /// `key = value` lines (with where each non-default value came from), and
    /// `# key: not set` for keys without a value.
    pub fn lines(&self) -> Vec<String> {
        self.settings
            .iter()
            .map(|(key, s)| match &s.values {
                None => format!("# {key}: not set"),
                Some(values) => {
                    let rendered: Vec<String> =
                        values.iter().map(|v| literal(v, s.switch)).collect();
                    let value = if s.list {
                        format!("[{}]", rendered.join(", "))
                    } else {
                        rendered.join(" ")
                    };
                    format!("{key} = {value}{}", s.source.note())
                }
            })
            .collect()
    }
}

/// A TOML literal for a command-line value: a switch's true or false, a whole number bare,
/// anything else quoted.
fn literal(raw: &str, switch: bool) -> String {
    if (switch && (raw == "true" || raw == "false"))
        || raw.parse::<i64>().is_ok_and(|i| i.to_string() == raw)
    {
        return raw.to_owned();
    }
    let mut out = String::with_capacity(raw.len() + 2);
    out.push('"');
    for c in raw.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
