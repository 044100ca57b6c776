//! Table references, as HBase's (JRuby) shell teaches them: `t = get_table 't'` (or
//! `t = create 't', 'f'`, which creates the table first) binds `t`, and `t.put 'r', 'f:q', 'v'`,
//! `t.get 'r'`, `t.scan`, `t.count`, `t.delete …`, `t.deleteall …`, `t.disable`,
//! `t.describe` … run the command of the same name on the table. A reference is a name for a
//! table, nothing more: the statement is rewritten to the ordinary command before it is
//! parsed, so it behaves, and fails, exactly as that command does.

use std::collections::HashMap;

/// The references bound in one shell session.
#[derive(Clone, Debug, Default)]
pub struct References {
    tables: HashMap<String, String>,
}

/// What a statement becomes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rewritten {
    /// An ordinary statement (perhaps rewritten from a method call) to parse and run.
    Statement(String),
    /// `NAME = …`: run `first` (if any), then bind `name` to `table`.
    Bind {
        /// A command to run before binding (`create …`).
        first: Option<String>,
        /// The reference's name.
        name: String,
        /// The table it names.
        table: String,
    },
}

/// The methods of a table reference, and the command each runs (HBase's `Hbase::Table`).
const METHODS: &[(&str, &str)] = &[
    ("put", "put"),
    ("get", "get"),
    ("scan", "scan"),
    ("count", "count"),
    ("delete", "delete"),
    ("deleteall", "deleteall"),
    ("incr", "incr"),
    ("get_counter", "get_counter"),
    ("append", "append"),
    ("disable", "disable"),
    ("enable", "enable"),
    ("drop", "drop"),
    ("truncate", "truncate"),
    ("describe", "describe"),
    ("desc", "describe"),
    ("exists", "exists"),
    ("flush", "flush"),
    ("compact", "compact"),
    ("major_compact", "major_compact"),
    ("alter", "alter"),
    ("get_splits", "get_splits"),
    ("split", "split"),
    ("is_enabled", "is_enabled"),
    ("is_disabled", "is_disabled"),
    ("regions", "list_regions"),
    ("files", "files"),
];

/// The method names a table reference answers to, in the order `table_help` lists them.
pub fn method_names() -> impl Iterator<Item = &'static str> {
    METHODS.iter().map(|(method, _)| *method)
}

fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The first argument of `args` as a quoted string (`'t'` or `"t"`), if it is one.
fn first_string(args: &str) -> Option<String> {
    let args = args.trim_start();
    let args = args.strip_prefix('(').unwrap_or(args).trim_start();
    let quote = args.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let rest = &args[1..];
    let end = rest.find(quote)?;
    Some(rest[..end].to_owned())
}

/// `args` without one pair of enclosing parentheses (`t.get('r')` is `t.get 'r'`).
fn unparen(args: &str) -> &str {
    let t = args.trim();
    match t.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
        Some(inner) => inner.trim(),
        None => t,
    }
}

impl References {
    /// No references.
    pub fn new() -> References {
        References::default()
    }

    /// Binds `name` to `table`.
    pub fn bind(&mut self, name: &str, table: &str) {
        self.tables.insert(name.to_owned(), table.to_owned());
    }

    /// What `text` becomes.
    ///
    /// # Errors
    /// An assignment of something that is not a table, a reference without a table name,
    /// or a method tables do not have.
    pub fn rewrite(&self, text: &str) -> Result<Rewritten, String> {
        let trimmed = text.trim();
        // `name = get_table 't'` / `name = create 't', …`
        if let Some((lhs, rhs)) = trimmed.split_once('=') {
            let lhs = lhs.trim();
            if is_name(lhs) && !rhs.starts_with(['=', '>']) {
                let rhs = rhs.trim();
                let (command, args) = rhs.split_once([' ', '(']).unwrap_or((rhs, ""));
                let args = if rhs[command.len()..].starts_with('(') {
                    &rhs[command.len()..]
                } else {
                    args
                };
                if command != "get_table" && command != "create" {
                    return Err(format!(
                        "{lhs} = {command}: only get_table and create return a table reference"
                    ));
                }
                let table = first_string(args)
                    .ok_or_else(|| format!("{lhs} = {command}: expected a table name in quotes"))?;
                return match command {
                    "get_table" => Ok(Rewritten::Bind {
                        first: None,
                        name: lhs.to_owned(),
                        table,
                    }),
                    // `create`, the only other command let through above.
                    _ => Ok(Rewritten::Bind {
                        first: Some(format!("create {}", unparen(args))),
                        name: lhs.to_owned(),
                        table,
                    }),
                };
            }
        }
        // `name.method args`
        if let Some((name, call)) = trimmed.split_once('.') {
            if let Some(table) = self.tables.get(name.trim()) {
                let split = call.find([' ', '(']).unwrap_or(call.len());
                let (method, args) = call.split_at(split);
                let Some((_, command)) = METHODS.iter().find(|(m, _)| *m == method) else {
                    let known: Vec<&str> = METHODS.iter().map(|(m, _)| *m).collect();
                    return Err(format!(
                        "undefined method '{method}' for the table reference {} (table {table}); \
                         a table reference has: {}",
                        name.trim(),
                        known.join(", ")
                    ));
                };
                let args = unparen(args);
                let statement = if args.is_empty() {
                    format!("{command} '{table}'")
                } else {
                    format!("{command} '{table}', {args}")
                };
                return Ok(Rewritten::Statement(statement));
            }
        }
        Ok(Rewritten::Statement(text.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn statement(r: &References, text: &str) -> String {
        match r.rewrite(text).unwrap() {
            Rewritten::Statement(s) => s,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn binds_and_rewrites_methods() {
        let mut r = References::new();
        assert_eq!(
            r.rewrite("t = get_table 'my_t'").unwrap(),
            Rewritten::Bind {
                first: None,
                name: "t".into(),
                table: "my_t".into()
            }
        );
        r.bind("t", "my_t");
        assert_eq!(
            statement(&r, "t.put 'r', 'f:q', 'v'"),
            "put 'my_t', 'r', 'f:q', 'v'"
        );
        assert_eq!(statement(&r, "t.get('r')"), "get 'my_t', 'r'");
        assert_eq!(statement(&r, "t.scan"), "scan 'my_t'");
        assert_eq!(
            statement(&r, "t.scan {LIMIT => 2}"),
            "scan 'my_t', {LIMIT => 2}"
        );
        assert_eq!(statement(&r, "t.desc"), "describe 'my_t'");
        assert!(r
            .rewrite("t.frobnicate")
            .unwrap_err()
            .contains("undefined method"));
        // Not references: ordinary statements pass through.
        assert_eq!(
            statement(&r, "alter 't', NAME => 'f'"),
            "alter 't', NAME => 'f'"
        );
        assert_eq!(statement(&r, "u.put 'r'"), "u.put 'r'");
        assert_eq!(
            r.rewrite("c = create 'c', 'f', {SPLITS => ['m']}").unwrap(),
            Rewritten::Bind {
                first: Some("create 'c', 'f', {SPLITS => ['m']}".into()),
                name: "c".into(),
                table: "c".into()
            }
        );
        assert!(r
            .rewrite("x = list")
            .unwrap_err()
            .contains("only get_table"));
        assert!(r
            .rewrite("x = get_table")
            .unwrap_err()
            .contains("table name"));
    }
}
