//! Typed access to a statement's arguments, with errors that name the command and show its
//! usage line.

use std::fmt::Display;

use bytes::Bytes;
use strata_model::schema::{FamilyDescriptor, SchemaError, TableDescriptor, TableName};

use crate::help::CommandHelp;
use crate::value::Value;
use crate::ShellError;

/// A command's arguments, consumed front to back.
pub(super) struct Args {
    pub(super) help: &'static CommandHelp,
    values: std::vec::IntoIter<Value>,
    count: usize,
}

impl Args {
    pub(super) fn new(help: &'static CommandHelp, values: Vec<Value>) -> Args {
        Args {
            help,
            count: values.len(),
            values: values.into_iter(),
        }
    }

    pub(super) fn name(&self) -> &'static str {
        self.help.name
    }

    /// A usage error: wrong number or kind of argument.
    pub(super) fn usage(&self, message: impl Into<String>) -> ShellError {
        ShellError::Usage {
            command: self.help.name,
            message: message.into(),
            usage: self.help.usage,
        }
    }

    /// A value error: well-formed, but not accepted.
    pub(super) fn invalid(&self, message: impl Display) -> ShellError {
        ShellError::Invalid {
            command: self.help.name,
            message: message.to_string(),
        }
    }

    /// Requires `min..=max` arguments in all.
    pub(super) fn arity(&self, min: usize, max: usize) -> Result<(), ShellError> {
        if (min..=max).contains(&self.count) {
            return Ok(());
        }
        let expected = match (min, max) {
            (a, b) if a == b => format!("{a}"),
            (a, usize::MAX) => format!("at least {a}"),
            (a, b) => format!("{a} to {b}"),
        };
        Err(self.usage(format!(
            "wrong number of arguments (given {}, expected {expected})",
            self.count
        )))
    }

    /// The next argument, if any.
    pub(super) fn next(&mut self) -> Option<Value> {
        self.values.next()
    }

    /// The next argument, which must be there (the arity was checked).
    pub(super) fn required(&mut self, what: &str) -> Result<Value, ShellError> {
        self.next()
            .ok_or_else(|| self.usage(format!("missing argument: {what}")))
    }

    /// The next argument as bytes (see [`Args::bytes`]).
    pub(super) fn next_bytes(&mut self, what: &str) -> Result<Bytes, ShellError> {
        let v = self.required(what)?;
        self.bytes(&v, what)
    }

    /// The next argument as a column spec.
    pub(super) fn next_column(&mut self) -> Result<Column, ShellError> {
        let v = self.required("column")?;
        self.column(&v)
    }

    /// The remaining arguments.
    pub(super) fn rest(&mut self) -> Vec<Value> {
        self.values.by_ref().collect()
    }

    /// The next argument as a table name.
    pub(super) fn table(&mut self) -> Result<TableName, ShellError> {
        let v = self.required("table name")?;
        self.table_name(&v)
    }

    pub(super) fn table_name(&self, v: &Value) -> Result<TableName, ShellError> {
        let name = self.text(v, "table name")?;
        TableName::parse(&name).map_err(|e| self.invalid(e))
    }

    /// `v` as UTF-8 text (a string or a constant's name).
    pub(super) fn text(&self, v: &Value, what: &str) -> Result<String, ShellError> {
        match v {
            Value::Str(b) => String::from_utf8(b.clone())
                .map_err(|_| self.invalid(format!("{what} must be valid UTF-8"))),
            other => Err(self.usage(format!("{what} must be a string, got {}", other.kind()))),
        }
    }

    /// `v` as bytes: a string, or an integer as its decimal digits (as Ruby's `to_s`).
    pub(super) fn bytes(&self, v: &Value, what: &str) -> Result<Bytes, ShellError> {
        match v {
            Value::Str(b) => Ok(Bytes::from(b.clone())),
            Value::Int(n) => Ok(Bytes::from(n.to_string())),
            other => Err(self.usage(format!("{what} must be a string, got {}", other.kind()))),
        }
    }

    /// `v` as an integer.
    pub(super) fn int(&self, v: &Value, what: &str) -> Result<i64, ShellError> {
        match v {
            Value::Int(n) => Ok(*n),
            other => Err(self.usage(format!("{what} must be an integer, got {}", other.kind()))),
        }
    }

    /// `v` as a positive integer that fits `T`.
    pub(super) fn count<T: TryFrom<i64>>(&self, v: &Value, what: &str) -> Result<T, ShellError> {
        let n = self.int(v, what)?;
        match T::try_from(n) {
            Ok(t) if n > 0 => Ok(t),
            _ => Err(self.invalid(format!("{what} must be a positive integer, got {n}"))),
        }
    }

    /// `v` as a boolean.
    pub(super) fn boolean(&self, v: &Value, what: &str) -> Result<bool, ShellError> {
        match v {
            Value::Bool(b) => Ok(*b),
            other => Err(self.usage(format!(
                "{what} must be true or false, got {}",
                other.kind()
            ))),
        }
    }

    /// `v` as a column spec `'cf'` or `'cf:q'` (the qualifier may itself contain `:`).
    pub(super) fn column(&self, v: &Value) -> Result<Column, ShellError> {
        let spec = self.bytes(v, "column")?;
        Ok(Column::parse(spec))
    }

    /// The next argument, if any, as a hash of options.
    pub(super) fn options(&self, v: Value) -> Result<Options, ShellError> {
        match v {
            Value::Hash(pairs) => Options::new(self, pairs),
            other => Err(self.usage(format!("expected a hash {{...}}, got {}", other.kind()))),
        }
    }
}

/// A column spec: a family and, after the first `:`, a qualifier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Column {
    pub(super) family: Bytes,
    /// `None` for a bare family (`'cf'`); `Some("")` for `'cf:'`.
    pub(super) qualifier: Option<Bytes>,
}

impl Column {
    pub(super) fn parse(spec: Bytes) -> Column {
        match spec.iter().position(|&b| b == b':') {
            Some(i) => Column {
                family: spec.slice(..i),
                qualifier: Some(spec.slice(i + 1..)),
            },
            None => Column {
                family: spec,
                qualifier: None,
            },
        }
    }

    /// The qualifier, empty for a bare family (as HBase's `put 't', 'r', 'cf', 'v'`).
    pub(super) fn qualifier_or_empty(&self) -> Bytes {
        self.qualifier.clone().unwrap_or_default()
    }
}

/// A hash of `KEY => value` options, taken out one key at a time; keys match
/// case-insensitively.
pub(super) struct Options {
    pairs: Vec<(String, Value)>,
}

impl Options {
    fn new(args: &Args, pairs: Vec<(Value, Value)>) -> Result<Options, ShellError> {
        let mut out: Vec<(String, Value)> = Vec::with_capacity(pairs.len());
        for (k, v) in pairs {
            let key = k.as_name().ok_or_else(|| {
                args.usage(format!(
                    "option keys must be names such as VERSIONS, got {}",
                    k.kind()
                ))
            })?;
            if out.iter().any(|(seen, _)| seen.eq_ignore_ascii_case(&key)) {
                return Err(args.invalid(format!("option {key} is given twice")));
            }
            out.push((key, v));
        }
        Ok(Options { pairs: out })
    }

    /// Removes and returns the value of `key`.
    pub(super) fn take(&mut self, key: &str) -> Option<Value> {
        let i = self
            .pairs
            .iter()
            .position(|(k, _)| k.eq_ignore_ascii_case(key))?;
        Some(self.pairs.remove(i).1)
    }

    /// True if `key` is present.
    pub(super) fn has(&self, key: &str) -> bool {
        self.pairs.iter().any(|(k, _)| k.eq_ignore_ascii_case(key))
    }

    /// The pairs not taken yet, in order.
    pub(super) fn into_rest(self) -> Vec<(String, Value)> {
        self.pairs
    }

    /// Fails if any key was not taken, listing the accepted ones.
    pub(super) fn finish(self, args: &Args, accepted: &[&str]) -> Result<(), ShellError> {
        match self.pairs.first() {
            None => Ok(()),
            Some((key, _)) => Err(args.usage(format!(
                "unknown option {key}; accepted: {}",
                accepted.join(", ")
            ))),
        }
    }
}

/// A setting's value as the string `set(key, value)` parses: strings as is, numbers and
/// booleans in Ruby's `to_s` form, constants by name.
pub(super) fn setting_text(args: &Args, key: &str, v: &Value) -> Result<String, ShellError> {
    match v {
        Value::Str(b) => String::from_utf8(b.clone())
            .map_err(|_| args.invalid(format!("{key}: value must be valid UTF-8"))),
        Value::Int(n) => Ok(n.to_string()),
        Value::Float(x) => Ok(x.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Const(c) => Ok(c.clone()),
        other => Err(args.usage(format!(
            "{key}: expected a string or a number, got {}",
            other.kind()
        ))),
    }
}

/// Where a setting pair was written: a plain key of the hash, or inside HBase's nested
/// `METADATA => {...}` or `CONFIGURATION => {...}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairKind {
    /// A setting (an unknown key is an error).
    Setting,
    /// `METADATA`: a setting if the key is one, else a custom value kept as given.
    Metadata,
    /// `CONFIGURATION`: a setting if the key is one, else a custom value kept as given.
    Configuration,
}

/// One `KEY => 'value'` of a table or family hash, as strings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingPair {
    /// The key as typed.
    pub key: String,
    /// The value as `set(key, value)` parses it.
    pub value: String,
    /// Where it was written.
    pub kind: PairKind,
}

impl From<(&str, &str)> for SettingPair {
    fn from((key, value): (&str, &str)) -> Self {
        SettingPair {
            key: key.to_string(),
            value: value.to_string(),
            kind: PairKind::Setting,
        }
    }
}

impl SettingPair {
    /// Applies the pair to a table.
    ///
    /// # Errors
    /// An unknown plain key or a bad value.
    pub fn apply_table(&self, t: &mut TableDescriptor) -> Result<(), SchemaError> {
        match self.kind {
            PairKind::Setting => t.set(&self.key, &self.value),
            PairKind::Metadata => t.set_metadata(&self.key, &self.value),
            PairKind::Configuration => t.set_configuration(&self.key, &self.value),
        }
    }

    /// Applies the pair to a family.
    ///
    /// # Errors
    /// An unknown plain key or a bad value.
    pub fn apply_family(&self, f: &mut FamilyDescriptor) -> Result<(), SchemaError> {
        match self.kind {
            PairKind::Setting => f.set(&self.key, &self.value),
            PairKind::Metadata => f.set_metadata(&self.key, &self.value),
            PairKind::Configuration => f.set_configuration(&self.key, &self.value),
        }
    }
}

/// Setting pairs as strings, with HBase's nested `CONFIGURATION => {...}` and
/// `METADATA => {...}` maps flattened into pairs that remember where they were written.
pub(super) fn flatten_settings(
    args: &Args,
    pairs: Vec<(String, Value)>,
) -> Result<Vec<SettingPair>, ShellError> {
    let mut out = Vec::with_capacity(pairs.len());
    for (key, value) in pairs {
        let nested = if key.eq_ignore_ascii_case("METADATA") {
            Some(PairKind::Metadata)
        } else if key.eq_ignore_ascii_case("CONFIGURATION") {
            Some(PairKind::Configuration)
        } else {
            None
        };
        match (value, nested) {
            (Value::Hash(inner), Some(kind)) => {
                for (k, v) in inner {
                    let k = k.as_name().ok_or_else(|| {
                        args.usage(format!("{key} keys must be strings, got {}", k.kind()))
                    })?;
                    let value = setting_text(args, &k, &v)?;
                    out.push(SettingPair {
                        key: k,
                        value,
                        kind,
                    });
                }
            }
            (v, _) => {
                let value = setting_text(args, &key, &v)?;
                out.push(SettingPair {
                    key,
                    value,
                    kind: PairKind::Setting,
                });
            }
        }
    }
    Ok(out)
}
