//! [`AlterChange`]: one edit of `alter`, and how it applies to a table's descriptor.

use strata_model::schema::{FamilyDescriptor, TableDescriptor};

use super::args::{flatten_settings, Args, Options, SettingPair};
use super::Command;
use crate::value::Value;
use crate::ShellError;

/// One edit requested by `alter`. Settings are (HBase key, value) pairs as typed (plain, or
/// inside `METADATA`/`CONFIGURATION`); they were checked one by one at parse time, and are
/// applied in order with the model's setters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AlterChange {
    /// Adds the family if the table lacks it (with defaults), then applies the settings to
    /// it; settings not listed keep their values.
    Family {
        /// The family's name.
        name: String,
        /// Settings to apply, in order.
        settings: Vec<SettingPair>,
    },
    /// Removes a family and its data.
    DeleteFamily(String),
    /// Applies table settings, in order.
    Table(Vec<SettingPair>),
}

impl AlterChange {
    /// Applies the change to `table`.
    ///
    /// # Errors
    /// A setting the model rejects, or deleting a family the table lacks. `table` may be
    /// partly changed on error.
    pub fn apply(&self, table: &mut TableDescriptor) -> Result<(), ShellError> {
        let invalid = |message: String| ShellError::Invalid {
            command: "alter",
            message,
        };
        match self {
            AlterChange::Family { name, settings } => {
                if table.family(name.as_bytes()).is_none() {
                    table.families.push(FamilyDescriptor::new(name.clone()));
                }
                if let Some(family) = table.family_mut(name.as_bytes()) {
                    for pair in settings {
                        pair.apply_family(family)
                            .map_err(|e| invalid(format!("family '{name}': {e}")))?;
                    }
                }
            }
            AlterChange::DeleteFamily(name) => {
                let before = table.families.len();
                table.families.retain(|f| f.name != *name);
                if table.families.len() == before {
                    return Err(invalid(format!(
                        "table '{}' has no column family '{name}'",
                        table.name
                    )));
                }
            }
            AlterChange::Table(settings) => {
                for pair in settings {
                    pair.apply_table(table)
                        .map_err(|e| invalid(e.to_string()))?;
                }
            }
        }
        Ok(())
    }

    /// Applies every change in order, then checks the whole descriptor (so cross-setting
    /// rules such as `MIN_VERSIONS <= VERSIONS`, and "at least one family", hold).
    ///
    /// # Errors
    /// The first change that fails, or the descriptor's validation error.
    pub fn apply_all(
        changes: &[AlterChange],
        table: &mut TableDescriptor,
    ) -> Result<(), ShellError> {
        for change in changes {
            change.apply(table)?;
        }
        table.validate().map_err(|e| ShellError::Invalid {
            command: "alter",
            message: e.to_string(),
        })
    }
}

pub(super) fn alter(mut args: Args) -> Result<Command, ShellError> {
    args.arity(2, usize::MAX)?;
    let table = args.table()?;
    let mut changes = Vec::new();
    for v in args.rest() {
        match v {
            Value::Str(_) => {
                let name = args.text(&v, "column family")?;
                changes.push(family_change(&args, name, Vec::new())?);
            }
            Value::Hash(_) => {
                let opts = args.options(v)?;
                hash_changes(&args, opts, &mut changes)?;
            }
            other => {
                return Err(args.usage(format!(
                    "expected a family name or a hash, got {}",
                    other.kind()
                )))
            }
        }
    }
    Ok(Command::Alter { table, changes })
}

fn hash_changes(
    args: &Args,
    mut opts: Options,
    changes: &mut Vec<AlterChange>,
) -> Result<(), ShellError> {
    let before = changes.len();
    if let Some(v) = opts.take("delete") {
        for name in names(args, v)? {
            changes.push(AlterChange::DeleteFamily(name));
        }
    }
    let method = match opts.take("METHOD") {
        Some(v) => Some(args.text(&v, "METHOD")?),
        None => None,
    };
    match method.as_deref() {
        Some("delete") => {
            let v = opts
                .take("NAME")
                .ok_or_else(|| args.usage("METHOD => 'delete' needs NAME => 'family'"))?;
            for name in names(args, v)? {
                changes.push(AlterChange::DeleteFamily(name));
            }
            opts.finish(args, &["NAME", "METHOD"])
        }
        Some("table_att") => {
            changes.push(table_change(args, opts.into_rest())?);
            Ok(())
        }
        Some(other) => Err(args.invalid(format!(
            "METHOD '{other}' is not supported; use 'delete' or 'table_att'"
        ))),
        None => {
            if let Some(name) = opts.take("NAME") {
                let name = args.text(&name, "NAME")?;
                changes.push(family_change(args, name, opts.into_rest())?);
                return Ok(());
            }
            let rest = opts.into_rest();
            if !rest.is_empty() {
                changes.push(table_change(args, rest)?);
            } else if changes.len() == before {
                return Err(args.usage("empty hash: nothing to change"));
            }
            Ok(())
        }
    }
}

/// A family name, or an array of them.
fn names(args: &Args, v: Value) -> Result<Vec<String>, ShellError> {
    match v {
        Value::Array(items) => items
            .iter()
            .map(|i| args.text(i, "column family"))
            .collect(),
        other => Ok(vec![args.text(&other, "column family")?]),
    }
}

/// Checks the settings on a fresh family, so errors surface before anything is sent.
fn family_change(
    args: &Args,
    name: String,
    pairs: Vec<(String, Value)>,
) -> Result<AlterChange, ShellError> {
    let settings = flatten_settings(args, pairs)?;
    let mut scratch = FamilyDescriptor::new(name.clone());
    for pair in &settings {
        pair.apply_family(&mut scratch)
            .map_err(|e| args.invalid(format!("family '{name}': {e}")))?;
    }
    strata_model::schema::validate_family_name(&name).map_err(|e| args.invalid(e))?;
    Ok(AlterChange::Family { name, settings })
}

/// Checks the settings on a fresh table descriptor.
fn table_change(args: &Args, pairs: Vec<(String, Value)>) -> Result<AlterChange, ShellError> {
    let settings = flatten_settings(args, pairs)?;
    let mut scratch = TableDescriptor::default();
    for pair in &settings {
        pair.apply_table(&mut scratch)
            .map_err(|e| args.invalid(e))?;
    }
    Ok(AlterChange::Table(settings))
}
