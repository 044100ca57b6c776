//! `grant`, `revoke`, `user_permission` and `whoami` through the admin service (RFC 0026).

use std::io::Write;

use strata_access::{Perms, Scope};
use strata_client::Connection;

use super::ExecError;
use crate::format;
use crate::pattern::Pattern;

/// `grant`: the user's permission on the scope becomes `perms` (HBase's shell does not
/// merge).
pub(super) async fn grant(
    conn: &Connection,
    user: &str,
    perms: Perms,
    scope: &Scope,
) -> Result<(), ExecError> {
    Ok(conn.admin().grant(user, perms, scope, false).await?)
}

/// `revoke`: every permission of `user` on `scope`.
pub(super) async fn revoke(conn: &Connection, user: &str, scope: &Scope) -> Result<(), ExecError> {
    Ok(conn.admin().revoke(user, Perms::ALL, scope).await?)
}

/// `user_permission ['@ns' | 'table_regex']`, printed as HBase's shell prints it. As HBase's
/// `AccessControlClient.getUserPermissions`, a table pattern asks for the grants of each
/// table it matches (listed as the caller sees them), so `A` on those tables suffices; no
/// argument asks for every grant (global `A`).
pub(super) async fn user_permission(
    conn: &Connection,
    filter: Option<&str>,
    out: &mut impl Write,
) -> Result<(), ExecError> {
    let admin = conn.admin();
    let shown = match filter {
        None => admin.user_permissions(None, None).await?,
        Some(f) => match f.strip_prefix('@') {
            Some(ns) => {
                let scope = Scope::Namespace(ns.to_owned());
                admin.user_permissions(Some(&scope), None).await?
            }
            None => {
                let p = Pattern::new(f).map_err(|e| {
                    ExecError::Rejected(format!("user_permission: bad pattern '{f}': {e}"))
                })?;
                let mut shown = Vec::new();
                for info in admin.list_tables().await? {
                    let name = info.descriptor.name.to_string();
                    let Ok(Scope::Table(t)) = Scope::table(&name, None, None) else {
                        continue;
                    };
                    if !p.matches(&t.table_name())
                        && !p.matches(&format!("{}:{}", t.namespace, t.table))
                    {
                        continue;
                    }
                    shown.extend(admin.user_permissions(Some(&Scope::Table(t)), None).await?);
                }
                shown
            }
        },
    };
    format::header(out, "User", "Namespace,Table,Family,Qualifier:Permission")?;
    for g in &shown {
        let right = format!("{}: [Permission: actions={}]", g.scope, g.perms.names());
        format::row(out, &g.who, &right)?;
    }
    format::rows(out, shown.len() as u64)?;
    Ok(())
}

/// `whoami`: the user the server takes this shell for; without access control on the
/// server, the operating-system user running the shell, as before.
pub(super) async fn whoami(conn: &Connection, out: &mut impl Write) -> Result<(), ExecError> {
    match conn.admin().who_am_i().await {
        Ok(me) if !me.user.is_empty() => {
            writeln!(out, "{} (auth:{})", me.user, me.method)?;
            writeln!(out, "    groups: {}", me.groups.join(", "))?;
            if me.superuser && me.checked {
                writeln!(out, "    superuser")?;
            }
            Ok(())
        }
        _ => super::whoami::whoami(out),
    }
}
