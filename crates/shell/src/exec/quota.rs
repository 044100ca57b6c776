//! `set_quota`, `list_quotas`, `list_quota_snapshots`, `list_quota_table_sizes`,
//! `enable_rpc_throttle` and `disable_rpc_throttle` through the admin service (RFC 0029),
//! printed as HBase's shell prints them.

use std::io::Write;

use strata_access::quota::{SpacePolicy, Subject};
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

/// `enable_rpc_throttle` / `disable_rpc_throttle`: turns the throttles' enforcement on or
/// off everywhere (they stay set); prints the previous state as HBase's shell does.
pub(super) async fn switch_rpc_throttle(
    conn: &Connection,
    on: bool,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let was = conn.admin().set_switch("rpc_throttle", on).await?;
    writeln!(out, "Previous rpc throttle state : {was}")?;
    Ok(())
}

/// `set_quota TYPE => SPACE, …`: sets a space quota, or removes it with `LIMIT => NONE`.
pub(super) async fn set_space(
    conn: &Connection,
    subject: &Subject,
    limit: Option<&(String, SpacePolicy)>,
) -> Result<(), ExecError> {
    let admin = conn.admin();
    match limit {
        Some((limit, policy)) => admin.set_space_quota(subject, limit, *policy).await?,
        None => admin.remove_space_quota(subject).await?,
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

/// `list_quotas`: one row per throttle and per space quota, `OWNER` and `QUOTAS` as HBase's
/// shell prints them.
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
    let shows = |subject: &Subject| {
        !any || match subject {
            Subject::User(u) => user.as_ref().is_some_and(|p| p.matches(u)),
            Subject::Table(name) => table.as_ref().is_some_and(|p| {
                p.matches(name) || p.matches(&TableScope::table(name).table_name())
            }),
            Subject::Namespace(ns) => namespace.as_ref().is_some_and(|p| p.matches(ns)),
        }
    };
    let admin = conn.admin();
    let throttles = admin.list_quotas().await?;
    let spaces = admin.list_space_quotas().await?;
    format::header(out, "OWNER", "QUOTAS")?;
    let mut shown = 0u64;
    for t in throttles.iter().filter(|t| shows(&t.subject)) {
        let text = t.to_string();
        let (owner, quotas) = text.split_once(", ").unwrap_or((&text, ""));
        format::row(out, owner, quotas)?;
        shown += 1;
    }
    // As HBase's shell: the owner, then SpaceLimitSettings' own words.
    for q in spaces.iter().filter(|q| shows(&q.subject)) {
        format::row(out, &q.subject.to_string(), &q.to_string())?;
        shown += 1;
    }
    format::rows(out, shown)?;
    Ok(())
}

/// `list_quota_snapshots`: each table's state under the space quota covering it, with HBase's
/// columns (`POLICY` is `None` unless the table is in violation); `TABLE` matches the name
/// without its namespace, `NAMESPACE` the namespace.
pub(super) async fn snapshots(
    conn: &Connection,
    (table, namespace): (Option<&str>, Option<&str>),
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let states = conn.admin().space_quota_states().await?;
    let rows: Vec<Vec<String>> = states
        .into_iter()
        .filter(|(name, _)| {
            let (ns, qualifier) = strata_access::scope::split_table(name);
            table.is_none_or(|t| qualifier == t) && namespace.is_none_or(|n| ns == n)
        })
        .map(|(name, s)| {
            let policy = if s.in_violation {
                s.policy.name().to_owned()
            } else {
                "None".to_owned()
            };
            vec![
                name,
                s.usage.to_string(),
                s.limit.to_string(),
                s.in_violation.to_string(),
                policy,
            ]
        })
        .collect();
    format::columns(
        out,
        &["TABLE", "USAGE", "LIMIT", "IN_VIOLATION", "POLICY"],
        &rows,
    )?;
    format::rows(out, rows.len() as u64)?;
    Ok(())
}

/// `list_quota_table_sizes`: every table's size as the region servers last reported it.
pub(super) async fn table_sizes(conn: &Connection, out: &mut impl Write) -> Result<(), ExecError> {
    let sizes = conn.admin().space_quota_table_sizes().await?;
    let rows: Vec<Vec<String>> = sizes
        .into_iter()
        .map(|(name, size)| vec![name, size.to_string()])
        .collect();
    format::columns(out, &["TABLE", "SIZE"], &rows)?;
    format::rows(out, rows.len() as u64)?;
    Ok(())
}
