//! Scopes a permission is granted on, and their names in the coordination store.
//!
//! A grant's key is `acl/<scope>/<who>`: `<scope>` is `_global_`, `@<namespace>`,
//! `<namespace>:<table>`, `<namespace>:<table>/<family>` or
//! `<namespace>:<table>/<family>/<qualifier>`; `<who>` is a user or `@group`. Families,
//! qualifiers and names are percent-encoded (every byte but `A-Z a-z 0-9 . _ -`), so `/` only
//! separates.

use std::fmt;

use bytes::Bytes;

/// The namespace of a table named without one.
pub const DEFAULT_NAMESPACE: &str = "default";

/// Where a permission applies.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// Everything.
    Global,
    /// Every table of a namespace (and creating tables in it).
    Namespace(String),
    /// A table, or a family of it, or one column.
    Table(TableScope),
}

/// A table, or a family or column of it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TableScope {
    /// The table's namespace (`default` for a table named without one).
    pub namespace: String,
    /// The table's name within its namespace.
    pub table: String,
    /// The family, if the scope is narrower than the table.
    pub family: Option<Bytes>,
    /// The qualifier, if the scope is one column (only with a family).
    pub qualifier: Option<Bytes>,
}

/// A table's namespace and name, from `ns:table` or `table`.
pub fn split_table(name: &str) -> (&str, &str) {
    match name.split_once(':') {
        Some((ns, t)) if !ns.is_empty() => (ns, t),
        Some((_, t)) => (DEFAULT_NAMESPACE, t),
        None => (DEFAULT_NAMESPACE, name),
    }
}

impl TableScope {
    /// The whole of table `name` (`ns:table` or `table`).
    pub fn table(name: &str) -> TableScope {
        let (namespace, table) = split_table(name);
        TableScope {
            namespace: namespace.to_owned(),
            table: table.to_owned(),
            family: None,
            qualifier: None,
        }
    }

    /// The table's name as HBase prints it: `ns:table`, or `table` in `default`.
    pub fn table_name(&self) -> String {
        if self.namespace == DEFAULT_NAMESPACE {
            self.table.clone()
        } else {
            format!("{}:{}", self.namespace, self.table)
        }
    }

    /// The same table with no family or qualifier.
    pub fn whole(&self) -> TableScope {
        TableScope {
            family: None,
            qualifier: None,
            ..self.clone()
        }
    }
}

impl Scope {
    /// The scope of table `name`, narrowed to `family` and `qualifier` when given.
    ///
    /// # Errors
    /// A qualifier without a family, or an empty table name.
    pub fn table(
        name: &str,
        family: Option<Bytes>,
        qualifier: Option<Bytes>,
    ) -> Result<Scope, String> {
        if name.is_empty() || split_table(name).1.is_empty() {
            return Err("a table's scope needs the table's name".into());
        }
        if qualifier.is_some() && family.is_none() {
            return Err("a qualifier's scope needs its family".into());
        }
        let mut scope = TableScope::table(name);
        scope.family = family.filter(|f| !f.is_empty());
        scope.qualifier = qualifier.filter(|q| !q.is_empty());
        if scope.family.is_none() {
            scope.qualifier = None;
        }
        Ok(Scope::Table(scope))
    }

    /// Whether a permission on `self` covers `other`: global covers everything, a namespace
    /// its tables, a table its families, a family its columns.
    pub fn covers(&self, other: &Scope) -> bool {
        match (self, other) {
            (Scope::Global, _) => true,
            (Scope::Namespace(a), Scope::Namespace(b)) => a == b,
            (Scope::Namespace(a), Scope::Table(t)) => *a == t.namespace,
            (Scope::Table(a), Scope::Table(b)) => {
                a.namespace == b.namespace
                    && a.table == b.table
                    && (a.family.is_none() || a.family == b.family)
                    && (a.qualifier.is_none() || a.qualifier == b.qualifier)
            }
            _ => false,
        }
    }

    /// The scope's part of a grant's key (see the module's documentation).
    pub fn key(&self) -> String {
        match self {
            Scope::Global => "_global_".into(),
            Scope::Namespace(ns) => format!("@{}", encode(ns.as_bytes())),
            Scope::Table(t) => {
                let mut key = format!(
                    "{}:{}",
                    encode(t.namespace.as_bytes()),
                    encode(t.table.as_bytes())
                );
                if let Some(f) = &t.family {
                    key.push('/');
                    key.push_str(&encode(f));
                    if let Some(q) = &t.qualifier {
                        key.push('/');
                        key.push_str(&encode(q));
                    }
                }
                key
            }
        }
    }

    /// The scope a key's part names.
    ///
    /// # Errors
    /// The text is not a scope's key.
    pub fn from_key(key: &str) -> Result<Scope, String> {
        let bad = || format!("'{key}' is not an access scope");
        if key == "_global_" {
            return Ok(Scope::Global);
        }
        if let Some(ns) = key.strip_prefix('@') {
            return Ok(Scope::Namespace(decode_str(ns).ok_or_else(bad)?));
        }
        let mut parts = key.split('/');
        let (ns, table) = parts
            .next()
            .and_then(|t| t.split_once(':'))
            .ok_or_else(bad)?;
        let family = match parts.next() {
            None => None,
            Some(f) => Some(decode(f).ok_or_else(bad)?),
        };
        let qualifier = match parts.next() {
            None => None,
            Some(q) => Some(decode(q).ok_or_else(bad)?),
        };
        if parts.next().is_some() {
            return Err(bad());
        }
        Ok(Scope::Table(TableScope {
            namespace: decode_str(ns).ok_or_else(bad)?,
            table: decode_str(table).ok_or_else(bad)?,
            family: family.map(Bytes::from),
            qualifier: qualifier.map(Bytes::from),
        }))
    }
}

impl fmt::Display for Scope {
    /// As HBase's `user_permission` prints a scope: `Namespace,Table,Family,Qualifier`, with
    /// empty parts for a wider scope (global: `,,,`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scope::Global => f.write_str(",,,"),
            Scope::Namespace(ns) => write!(f, "{ns},,,"),
            Scope::Table(t) => {
                let text = |b: &Option<Bytes>| {
                    b.as_ref()
                        .map(|b| String::from_utf8_lossy(b).into_owned())
                        .unwrap_or_default()
                };
                write!(
                    f,
                    "{},{},{},{}",
                    t.namespace,
                    t.table_name(),
                    text(&t.family),
                    text(&t.qualifier)
                )
            }
        }
    }
}

/// Percent-encodes every byte but `A-Z a-z 0-9 . _ -`.
pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-' {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The bytes [`encode`] made `text` from.
pub fn decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}

fn decode_str(text: &str) -> Option<String> {
    decode(text).and_then(|b| String::from_utf8(b).ok())
}
