//! Access control through [`Admin`] (RFC 0026): HBase's `grant`, `revoke`,
//! `getUserPermissions` and the shell's `whoami`.

use bytes::Bytes;
use strata_access::{Grant, Perms, Scope, TableScope};
use strata_proto::pb;

use crate::admin::Admin;
use crate::error::Error;

/// Who the server takes the caller for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WhoAmI {
    /// The authenticated name (empty: none was proved).
    pub user: String,
    /// How: `SIMPLE` (nothing proved), `CERTIFICATE`, `KERBEROS`.
    pub method: String,
    /// Its groups.
    pub groups: Vec<String>,
    /// Whether it is a superuser.
    pub superuser: bool,
    /// Whether the server checks calls at all (`--auth`).
    pub checked: bool,
}

/// A scope on the wire.
pub(crate) fn scope_to_pb(scope: &Scope) -> pb::AccessScope {
    match scope {
        Scope::Global => pb::AccessScope::default(),
        Scope::Namespace(ns) => pb::AccessScope {
            namespace: ns.clone(),
            ..Default::default()
        },
        Scope::Table(t) => pb::AccessScope {
            namespace: t.namespace.clone(),
            table: t.table.clone(),
            family: t.family.clone().unwrap_or_default(),
            qualifier: t.qualifier.clone().unwrap_or_default(),
        },
    }
}

fn scope_from_pb(s: pb::AccessScope) -> Scope {
    let nonempty = |b: Bytes| (!b.is_empty()).then_some(b);
    if !s.table.is_empty() {
        let family = nonempty(s.family);
        Scope::Table(TableScope {
            namespace: s.namespace,
            table: s.table,
            qualifier: family.as_ref().and(nonempty(s.qualifier)),
            family,
        })
    } else if !s.namespace.is_empty() {
        Scope::Namespace(s.namespace)
    } else {
        Scope::Global
    }
}

impl Admin {
    /// Sets `user`'s (or `@group`'s) permission on `scope` to `perms`, or adds them to it with
    /// `merge` (HBase's `Admin.grant(permission, mergeExistingPermissions)`).
    ///
    /// # Errors
    /// `ACCESS_DENIED` without `A` on the scope; `INVALID_ARGUMENT` for a bad name; the
    /// server's error.
    pub async fn grant(
        &self,
        user: &str,
        perms: Perms,
        scope: &Scope,
        merge: bool,
    ) -> Result<(), Error> {
        let r = pb::GrantRequest {
            user: user.to_owned(),
            permissions: perms.to_string(),
            scope: Some(scope_to_pb(scope)),
            merge,
        };
        self.change(|mut m| async move { m.grant(r).await })
            .await
            .map(drop)
    }

    /// Removes `perms` from `user`'s permission on `scope`.
    ///
    /// # Errors
    /// As [`Admin::grant`].
    pub async fn revoke(&self, user: &str, perms: Perms, scope: &Scope) -> Result<(), Error> {
        let r = pb::GrantRequest {
            user: user.to_owned(),
            permissions: perms.to_string(),
            scope: Some(scope_to_pb(scope)),
            merge: false,
        };
        self.change(|mut m| async move { m.revoke(r).await })
            .await
            .map(drop)
    }

    /// The grants on `scope` and under it (`None`: all), of `user` only if given.
    ///
    /// # Errors
    /// `ACCESS_DENIED` without `A` on the scope (a user may always list its own grants).
    pub async fn user_permissions(
        &self,
        scope: Option<&Scope>,
        user: Option<&str>,
    ) -> Result<Vec<Grant>, Error> {
        let r = pb::UserPermissionsRequest {
            scope: scope.map(scope_to_pb),
            user: user.unwrap_or_default().to_owned(),
        };
        let response = self
            .read(|mut m| {
                let r = r.clone();
                async move { m.get_user_permissions(r).await }
            })
            .await?;
        Ok(response
            .permissions
            .into_iter()
            .filter_map(|p| {
                Some(Grant {
                    who: p.user,
                    scope: scope_from_pb(p.scope.unwrap_or_default()),
                    perms: Perms::parse(&p.permissions).ok()?,
                })
            })
            .collect())
    }

    /// Who the server takes this client for.
    ///
    /// # Errors
    /// The server's error.
    pub async fn who_am_i(&self) -> Result<WhoAmI, Error> {
        let r = self
            .read(|mut m| async move { m.who_am_i(pb::Empty {}).await })
            .await?;
        Ok(WhoAmI {
            user: r.user,
            method: r.method,
            groups: r.groups,
            superuser: r.superuser,
            checked: r.checked,
        })
    }
}
