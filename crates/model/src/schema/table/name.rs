//! [`TableName`]: `namespace:qualifier`, with HBase's naming rules.

use std::fmt;
use std::str::FromStr;

use crate::limits::{MAX_NAMESPACE_LEN, MAX_TABLE_QUALIFIER_LEN};
use crate::schema::SchemaError;

/// A table's name: a namespace and a qualifier. Written `ns:table`, or just `table` in the
/// `default` namespace (which [`fmt::Display`] then omits, as HBase does).
///
/// Rules (HBase's `TableName`): the namespace is `[A-Za-z0-9_]+`; the qualifier is
/// `[A-Za-z0-9_][A-Za-z0-9_.-]*`; each at most 255 bytes (one directory name).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TableName {
    namespace: String,
    qualifier: String,
}

impl TableName {
    /// The namespace of tables named without one.
    pub const DEFAULT_NAMESPACE: &'static str = "default";

    /// Parses `ns:table` or `table`.
    ///
    /// # Errors
    /// [`SchemaError::InvalidName`] stating the broken rule.
    pub fn parse(name: &str) -> Result<TableName, SchemaError> {
        match name.split_once(':') {
            Some(("", _)) => Err(invalid("namespace", "", "must not be empty".to_string())),
            Some((ns, q)) => TableName::new(ns, q),
            None => TableName::new(Self::DEFAULT_NAMESPACE, name),
        }
    }

    /// A name from its parts; an empty namespace means `default`.
    ///
    /// # Errors
    /// [`SchemaError::InvalidName`] stating the broken rule.
    pub fn new(namespace: &str, qualifier: &str) -> Result<TableName, SchemaError> {
        let namespace = if namespace.is_empty() {
            Self::DEFAULT_NAMESPACE
        } else {
            namespace
        };
        validate_namespace(namespace)?;
        validate_qualifier(qualifier)?;
        Ok(TableName {
            namespace: namespace.to_string(),
            qualifier: qualifier.to_string(),
        })
    }

    /// The namespace (`default` when none was given).
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The table's name within its namespace.
    pub fn qualifier(&self) -> &str {
        &self.qualifier
    }

    /// True if the name is empty, as in [`Default`]; such a name fails validation.
    pub fn is_empty(&self) -> bool {
        self.qualifier.is_empty()
    }

    /// Re-checks the rules (a [`Default`] name, with an empty qualifier, fails).
    ///
    /// # Errors
    /// [`SchemaError::InvalidName`].
    pub fn validate(&self) -> Result<(), SchemaError> {
        validate_namespace(&self.namespace)?;
        validate_qualifier(&self.qualifier)
    }
}

impl Default for TableName {
    fn default() -> Self {
        TableName {
            namespace: Self::DEFAULT_NAMESPACE.to_string(),
            qualifier: String::new(),
        }
    }
}

impl fmt::Display for TableName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.namespace == Self::DEFAULT_NAMESPACE {
            f.write_str(&self.qualifier)
        } else {
            write!(f, "{}:{}", self.namespace, self.qualifier)
        }
    }
}

impl FromStr for TableName {
    type Err = SchemaError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TableName::parse(s)
    }
}

fn invalid(kind: &'static str, name: &str, reason: String) -> SchemaError {
    SchemaError::InvalidName {
        kind,
        name: name.to_string(),
        reason,
    }
}

fn validate_namespace(ns: &str) -> Result<(), SchemaError> {
    if ns.len() > MAX_NAMESPACE_LEN {
        let reason = format!("{} bytes, at most {MAX_NAMESPACE_LEN} allowed", ns.len());
        return Err(invalid("namespace", ns, reason));
    }
    if let Some(c) = ns
        .chars()
        .find(|&c| !(c.is_ascii_alphanumeric() || c == '_'))
    {
        let reason = format!("character '{c}' not allowed; use [A-Za-z0-9_]");
        return Err(invalid("namespace", ns, reason));
    }
    Ok(())
}

fn validate_qualifier(q: &str) -> Result<(), SchemaError> {
    let reason = if q.is_empty() {
        "must not be empty".to_string()
    } else if q.len() > MAX_TABLE_QUALIFIER_LEN {
        format!(
            "{} bytes, at most {MAX_TABLE_QUALIFIER_LEN} allowed",
            q.len()
        )
    } else if q.starts_with(['.', '-']) {
        "must start with [A-Za-z0-9_]".to_string()
    } else if let Some(c) = q
        .chars()
        .find(|&c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
    {
        format!("character '{c}' not allowed; use [A-Za-z0-9_.-]")
    } else {
        return Ok(());
    };
    Err(invalid("table", q, reason))
}
