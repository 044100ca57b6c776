//! The error every schema parse and validation returns.

/// A setting or a name that Strata does not accept. Every message names the setting (in HBase
/// spelling) and says what would have been accepted, so the shell can print it as is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SchemaError {
    /// The key is not a setting of this kind of descriptor.
    #[error("unknown {scope} setting '{key}'")]
    UnknownSetting {
        /// `column family` or `table`.
        scope: &'static str,
        /// The key as given.
        key: String,
    },
    /// A keyword setting got a word it does not know.
    #[error("{setting}: unknown value '{value}'; allowed: {allowed}")]
    UnknownValue {
        /// The setting, in HBase spelling.
        setting: &'static str,
        /// The value as given.
        value: String,
        /// The accepted words, comma-separated.
        allowed: String,
    },
    /// A numeric or boolean setting got a malformed or out-of-range value.
    #[error("{setting}: invalid value '{value}'; expected {expected}")]
    InvalidValue {
        /// The setting, in HBase spelling.
        setting: &'static str,
        /// The value as given (or as set, for typed values).
        value: String,
        /// What would have been accepted, e.g. `an integer in 1024..=16777216`.
        expected: String,
    },
    /// Two settings that are each valid contradict each other.
    #[error("{setting}: {reason}")]
    Conflict {
        /// The setting to change, in HBase spelling.
        setting: &'static str,
        /// Why, naming the other setting.
        reason: String,
    },
    /// A table, namespace or column-family name breaks the naming rules.
    #[error("invalid {kind} name '{name}': {reason}")]
    InvalidName {
        /// `table`, `namespace` or `column family`.
        kind: &'static str,
        /// The name as given (lossily decoded if not UTF-8).
        name: String,
        /// The rule it breaks.
        reason: String,
    },
    /// A table was declared without any column family.
    #[error("table '{table}' needs at least one column family")]
    NoFamilies {
        /// The table.
        table: String,
    },
    /// A table declares the same column family twice.
    #[error("table '{table}' declares column family '{family}' twice")]
    DuplicateFamily {
        /// The table.
        table: String,
        /// The repeated family.
        family: String,
    },
}
