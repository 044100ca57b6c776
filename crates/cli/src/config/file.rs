//! Reading a configuration file: TOML, as written, with the line of each setting.

use std::fmt;

/// Something wrong in a file, at a line when it has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// 1-based.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl Problem {
    pub fn at(line: usize, message: impl Into<String>) -> Problem {
        Problem {
            line: Some(line),
            message: message.into(),
        }
    }

    /// `FILE:LINE: message`, as compilers print.
    pub fn render(&self, path: &str) -> String {
        match self.line {
            Some(line) => format!("{path}:{line}: {}", self.message),
            None => format!("{path}: {}", self.message),
        }
    }
}

/// A value as the file writes it.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    String(String),
    Integer(i64),
    Float(f64),
    Boolean(bool),
    /// Dates and times, kept as written.
    Datetime(String),
    List(Vec<Value>),
}

impl Value {
    /// What the command line would say for this scalar.
    pub fn as_arg(&self) -> Option<String> {
        match self {
            Value::String(s) | Value::Datetime(s) => Some(s.clone()),
            Value::Integer(i) => Some(i.to_string()),
            Value::Float(f) => Some(f.to_string()),
            Value::Boolean(b) => Some(b.to_string()),
            Value::List(_) => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::String(s) => write!(f, "{s:?}"),
            Value::List(items) => {
                f.write_str("[")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
            other => f.write_str(&other.as_arg().unwrap_or_default()),
        }
    }
}

/// One setting: `key = value` at the top level (`section` none) or in a `[section]` table.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub section: Option<String>,
    pub key: String,
    pub value: Value,
    pub line: usize,
}

/// A file's settings, in the order written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct File {
    pub entries: Vec<Entry>,
    /// Each `[section]` with the line of its header.
    pub sections: Vec<(String, usize)>,
}

/// Parses `text`: top-level keys and one level of tables, scalar values or lists of them.
///
/// # Errors
/// TOML that does not parse (one problem, at its line), or tables nested deeper, inline
/// tables and arrays of tables (each a problem at its line).
pub fn parse(text: &str) -> Result<File, Vec<Problem>> {
    let doc = toml_edit::Document::parse(text).map_err(|e| {
        let line = e.span().map_or(1, |s| line_of(text, s.start));
        vec![Problem::at(line, e.message().trim().to_owned())]
    })?;
    let lines = |span: Option<std::ops::Range<usize>>| span.map_or(1, |s| line_of(text, s.start));
    let mut file = File::default();
    let mut problems = Vec::new();
    for (key, item) in doc.as_table().iter() {
        let key_line = lines(doc.as_table().key(key).and_then(toml_edit::Key::span));
        match item {
            toml_edit::Item::Table(table) => {
                let header = table.span().map_or(key_line, |s| line_of(text, s.start));
                file.sections.push((key.to_owned(), header));
                for (inner, item) in table.iter() {
                    let line = lines(table.key(inner).and_then(toml_edit::Key::span));
                    match value(item) {
                        Ok(value) => file.entries.push(Entry {
                            section: Some(key.to_owned()),
                            key: inner.to_owned(),
                            value,
                            line,
                        }),
                        Err(why) => {
                            problems.push(Problem::at(line, format!("{key}.{inner}: {why}")))
                        }
                    }
                }
            }
            item => match value(item) {
                Ok(value) => file.entries.push(Entry {
                    section: None,
                    key: key.to_owned(),
                    value,
                    line: key_line,
                }),
                Err(why) => problems.push(Problem::at(key_line, format!("{key}: {why}"))),
            },
        }
    }
    if problems.is_empty() {
        Ok(file)
    } else {
        Err(problems)
    }
}

/// The 1-based line of byte `offset`.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

fn value(item: &toml_edit::Item) -> Result<Value, String> {
    match item {
        toml_edit::Item::Value(v) => scalar_or_list(v),
        toml_edit::Item::Table(_) => Err("sections hold settings, not further sections".into()),
        toml_edit::Item::ArrayOfTables(_) => Err("not a setting (an array of tables)".into()),
        toml_edit::Item::None => Err("no value".into()),
    }
}

fn scalar_or_list(v: &toml_edit::Value) -> Result<Value, String> {
    Ok(match v {
        toml_edit::Value::String(s) => Value::String(s.value().clone()),
        toml_edit::Value::Integer(i) => Value::Integer(*i.value()),
        toml_edit::Value::Float(f) => Value::Float(*f.value()),
        toml_edit::Value::Boolean(b) => Value::Boolean(*b.value()),
        toml_edit::Value::Datetime(d) => Value::Datetime(d.value().to_string()),
        toml_edit::Value::Array(items) => Value::List(
            items
                .iter()
                .map(|item| match item {
                    toml_edit::Value::Array(_) | toml_edit::Value::InlineTable(_) => {
                        Err("a list holds plain values".to_owned())
                    }
                    item => scalar_or_list(item),
                })
                .collect::<Result<_, _>>()?,
        ),
        toml_edit::Value::InlineTable(_) => {
            return Err("an inline table is not a setting; write a [section]".into())
        }
    })
}
