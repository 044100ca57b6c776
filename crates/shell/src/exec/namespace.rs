//! Namespace commands: create_namespace, alter_namespace, describe_namespace,
//! drop_namespace, list_namespace, list_namespace_tables — through the client's admin, with
//! HBase shell's output.

use std::io::Write;

use strata_client::{Connection, NamespaceDescriptor};

use super::ExecError;
use crate::format;
use crate::pattern::Pattern;
use crate::NamespaceChange;

/// `create_namespace`: prints nothing but the time taken.
pub(super) async fn create(
    conn: &Connection,
    name: &str,
    properties: &[(String, String)],
) -> Result<(), ExecError> {
    let mut d = NamespaceDescriptor::new(name);
    for (k, v) in properties {
        d = d.with_property(k.clone(), v.clone());
    }
    Ok(conn.admin().create_namespace(&d).await?)
}

/// `alter_namespace`: the namespace's properties, edited, sent back whole.
pub(super) async fn alter(
    conn: &Connection,
    name: &str,
    changes: &[NamespaceChange],
) -> Result<(), ExecError> {
    let admin = conn.admin();
    let mut d = admin.get_namespace(name).await?;
    NamespaceChange::apply_all(changes, &mut d.properties);
    Ok(admin.modify_namespace(&d).await?)
}

/// HBase's `NamespaceDescriptor.toString()`: `{NAME => 'ns', key => 'value', ...}`.
pub(super) fn descriptor_text(d: &NamespaceDescriptor) -> String {
    let mut s = format!("{{NAME => '{}'", d.name);
    for (k, v) in &d.properties {
        s.push_str(&format!(", {k} => '{v}'"));
    }
    s.push('}');
    s
}

/// `describe_namespace`: the descriptor, then the quota line of a cluster without RPC quotas.
pub(super) async fn describe(
    conn: &Connection,
    name: &str,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let d = conn.admin().get_namespace(name).await?;
    writeln!(out, "DESCRIPTION")?;
    writeln!(out, "{}", descriptor_text(&d))?;
    // HBase's shell says so when there is no `hbase:quota` table; Strata has none.
    writeln!(out, "Quota is disabled")?;
    Ok(())
}

/// `drop_namespace`.
pub(super) async fn drop(conn: &Connection, name: &str) -> Result<(), ExecError> {
    Ok(conn.admin().delete_namespace(name).await?)
}

/// `list_namespace ['regex']`: names containing a match of the pattern (HBase's shell uses
/// `Pattern.match`, a search), sorted.
pub(super) async fn list(
    conn: &Connection,
    pattern: Option<&str>,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let pattern =
        match pattern {
            Some(p) => Some(Pattern::new(&format!(".*(?:{p}).*")).map_err(|e| {
                ExecError::Rejected(format!("list_namespace: bad pattern '{p}': {e}"))
            })?),
            None => None,
        };
    let names: Vec<String> = conn
        .admin()
        .list_namespaces()
        .await?
        .into_iter()
        .map(|d| d.name)
        .filter(|name| pattern.as_ref().is_none_or(|p| p.matches(name)))
        .collect();
    writeln!(out, "NAMESPACE")?;
    for name in &names {
        writeln!(out, "{name}")?;
    }
    format::rows(out, names.len() as u64)?;
    Ok(())
}

/// `list_namespace_tables 'ns'`: the namespace's tables by their names within it, sorted.
pub(super) async fn list_tables(
    conn: &Connection,
    name: &str,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let admin = conn.admin();
    admin.get_namespace(name).await?;
    let mut tables: Vec<String> = admin
        .list_tables()
        .await?
        .into_iter()
        .filter(|t| t.descriptor.name.namespace() == name)
        .map(|t| t.descriptor.name.qualifier().to_string())
        .collect();
    tables.sort();
    writeln!(out, "TABLE")?;
    for t in &tables {
        writeln!(out, "{t}")?;
    }
    format::rows(out, tables.len() as u64)?;
    Ok(())
}
