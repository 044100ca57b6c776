//! The table-name pattern of `Admin.listTableNames(Pattern)` and
//! `listTableDescriptors(Pattern)`: HBase's `HMaster.filterTablesByRegex` keeps a table whose
//! name (`ns:t`, or `t` in the default namespace, also tried as `default:t`) the Java
//! `Pattern` matches whole (`Matcher.matches`). Strata compiles it with the `regex` crate,
//! whose syntax covers Java's for ordinary patterns; constructs it lacks (backreferences,
//! look-around, possessive quantifiers) are refused, naming the pattern (RFC 0014,
//! "Table-name patterns").

use crate::error::{HBaseError, HResult};
use crate::schema::DEFAULT_NAMESPACE;

/// Largest compiled pattern accepted, so a hostile pattern cannot take the master's memory.
const SIZE_LIMIT: usize = 1 << 20;

/// A compiled table-name pattern.
pub(crate) struct TablePattern(regex::Regex);

impl TablePattern {
    /// Compiles `pattern` for whole-name matches.
    ///
    /// # Errors
    /// A pattern the `regex` crate cannot compile (`DoNotRetryIOException` naming it).
    pub(crate) fn new(pattern: &str) -> HResult<TablePattern> {
        regex::RegexBuilder::new(&format!(r"\A(?:{pattern})\z"))
            .size_limit(SIZE_LIMIT)
            .build()
            .map(TablePattern)
            .map_err(|e| {
                HBaseError::do_not_retry(format!(
                    "table name pattern '{pattern}' is not supported by Strata: {e}"
                ))
            })
    }

    /// Whether the table Strata names `name` (`t` or `ns:t`) matches, as HBase decides.
    pub(crate) fn matches(&self, name: &str) -> bool {
        let full = if name.contains(':') {
            name.to_string()
        } else {
            format!("{DEFAULT_NAMESPACE}:{name}")
        };
        // HBase's name string leaves out `default:`; it tries the qualified form second.
        let short = full
            .strip_prefix(&format!("{DEFAULT_NAMESPACE}:"))
            .unwrap_or(&full);
        self.0.is_match(short) || (short != full && self.0.is_match(&full))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_whole_names_with_or_without_the_default_namespace() {
        let p = TablePattern::new("t.*").unwrap();
        assert!(p.matches("t1") && p.matches("t"));
        assert!(!p.matches("at1"), "matches() is a whole-name match");
        assert!(!p.matches("ns:t1"));
        let p = TablePattern::new("default:t[0-9]").unwrap();
        assert!(p.matches("t1") && !p.matches("t10"));
        let p = TablePattern::new("ns:.*|x").unwrap();
        assert!(p.matches("ns:a") && p.matches("x") && !p.matches("y"));
    }

    #[test]
    fn unsupported_java_constructs_are_refused_by_name() {
        let err = TablePattern::new("(a)\\1").err().unwrap();
        assert!(err.message.contains("'(a)\\1'"), "{}", err.message);
        assert!(err.do_not_retry);
        assert!(TablePattern::new("t(?=x)").is_err());
    }
}
