//! `set_quota` and `list_quotas` through the admin service (RFC 0029), printed as HBase's
//! shell prints them.

use std::io::Write;

use strata_access::quota::Subject;
use strata_access::TableScope;
use strata_client::Connection;

use super::ExecError;
use crate::command::QuotaFilters;
use crate::format;
use crate::pattern::Pattern;

/// `set_quota TYPE => THROTTLE, …`: sets a throttle, or removes them with `LIMIT => NONE`.
pub(super) async fn set(
    conn: &Connection,
    subject: &Subject,
    throttle_type: &str,
    limit: Option<&str>,
) -> Result<(), ExecError> {
    let admin = conn.admin();
    match limit {
        Some(limit) => admin.set_throttle(subject, throttle_type, limit).await?,
        None => admin.remove_throttle(subject, throttle_type).await?,
    }
    Ok(())
}

fn pattern(text: Option<&str>) -> Result<Option<Pattern>, ExecError> {
    text.map(|t| {
        Pattern::new(t)
            .map_err(|e| ExecError::Rejected(format!("list_quotas: bad pattern '{t}': {e}")))
    })
    .transpose()
}

/// `list_quotas`: one row per throttle, `OWNER` and `QUOTAS` as HBase's shell prints them.
pub(super) async fn list(
    conn: &Connection,
    filters: &QuotaFilters,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let (user, table, namespace) = (
        pattern(filters.user.as_deref())?,
        pattern(filters.table.as_deref())?,
        pattern(filters.namespace.as_deref())?,
    );
    let any = user.is_some() || table.is_some() || namespace.is_some();
    let throttles = conn.admin().list_quotas().await?;
    let shown: Vec<_> = throttles
        .into_iter()
        .filter(|t| {
            !any || match &t.subject {
                Subject::User(u) => user.as_ref().is_some_and(|p| p.matches(u)),
                Subject::Table(name) => table.as_ref().is_some_and(|p| {
                    p.matches(name) || p.matches(&TableScope::table(name).table_name())
                }),
                Subject::Namespace(ns) => namespace.as_ref().is_some_and(|p| p.matches(ns)),
            }
        })
        .collect();
    format::header(out, "OWNER", "QUOTAS")?;
    for t in &shown {
        let text = t.to_string();
        let (owner, quotas) = text.split_once(", ").unwrap_or((&text, ""));
        format::row(out, owner, quotas)?;
    }
    format::rows(out, shown.len() as u64)?;
    Ok(())
}
