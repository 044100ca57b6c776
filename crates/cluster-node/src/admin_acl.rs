//! The admin service's access-control calls (RFC 0026): `Grant`, `Revoke`,
//! `GetUserPermissions` and `WhoAmI`, over the grants in the coordination store
//! ([`crate::acl`]).
//!
//! Granting or revoking needs `A` on the scope changed (or wider). A change answers once this
//! server's guard holds the revision it wrote (every other server's watch sees it within
//! [`crate::acl::POLL`] and the store's own delay). Listing needs `A` on the scope listed,
//! except a user's listing of its own grants.

use std::time::{Duration, Instant};

use bytes::Bytes;
use strata_access::{describe, Action, Caller, Perms, Scope};
use strata_cluster::kv::Kv;
use strata_proto::pb;
use strata_server::status::{denied, invalid};
use tonic::{Request, Response, Status};

use crate::admin::ClusterAdmin;

/// How long a change waits for this server's guard to hold it.
const SEEN_WAIT: Duration = Duration::from_secs(5);

/// The scope a request names.
pub fn scope_of(scope: Option<&pb::AccessScope>) -> Result<Scope, Status> {
    let Some(s) = scope else {
        return Ok(Scope::Global);
    };
    if !s.table.is_empty() {
        let table = if s.namespace.is_empty() || s.table.contains(':') {
            s.table.clone()
        } else {
            format!("{}:{}", s.namespace, s.table)
        };
        let nonempty = |b: &Bytes| (!b.is_empty()).then(|| b.clone());
        return Scope::table(&table, nonempty(&s.family), nonempty(&s.qualifier)).map_err(invalid);
    }
    if !s.family.is_empty() || !s.qualifier.is_empty() {
        return Err(invalid("a family or qualifier scope needs its table"));
    }
    if !s.namespace.is_empty() {
        crate::namespace::check_name(&s.namespace)?;
        return Ok(Scope::Namespace(s.namespace.clone()));
    }
    Ok(Scope::Global)
}

/// A scope on the wire.
pub fn scope_to_pb(scope: &Scope) -> pb::AccessScope {
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

fn check_grantee(user: &str) -> Result<(), Status> {
    let name = user.strip_prefix('@').unwrap_or(user);
    if name.is_empty() || name.chars().any(|c| c.is_control() || c == '/') {
        return Err(invalid(format!("'{user}' is not a user or @group name")));
    }
    Ok(())
}

impl<K: Kv + Send + Sync + 'static> ClusterAdmin<K> {
    /// `Grant` (`add`) or `Revoke`.
    pub(crate) async fn change_grant(
        &self,
        request: Request<pb::GrantRequest>,
        add: bool,
    ) -> Result<Response<pb::Empty>, Status> {
        let caller = strata_server::caller::caller(&request);
        let req = request.into_inner();
        check_grantee(&req.user)?;
        let perms = Perms::parse(&req.permissions).map_err(invalid)?;
        let scope = scope_of(req.scope.as_ref())?;
        let call = if add { "grant" } else { "revoke" };
        let how = match (add, req.merge) {
            (false, _) => crate::acl::Change::Remove,
            (true, true) => crate::acl::Change::Add,
            (true, false) => crate::acl::Change::Set,
        };
        self.guard()
            .check(&caller, call, &[Action::Admin], &scope)
            .map_err(denied)?;
        let who = req.user.clone();
        let target = scope.clone();
        let revision = self
            .run(move |kv, layout, _| crate::acl::change(kv, layout, &who, &target, perms, how))
            .await?
            .into_inner();
        self.guard().audit_allowed(
            &caller,
            call,
            &describe(&scope),
            &format!("{how:?} {perms} for {}", req.user),
        );
        self.wait_seen(revision).await;
        Ok(Response::new(pb::Empty {}))
    }

    /// Waits (bounded) until this server's guard holds `revision` of the grants.
    async fn wait_seen(&self, revision: i64) {
        if !self.guard().is_on() {
            return;
        }
        let start = Instant::now();
        while self.guard().revision() < revision && start.elapsed() < SEEN_WAIT {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// `GetUserPermissions`.
    pub(crate) async fn user_permissions(
        &self,
        request: Request<pb::UserPermissionsRequest>,
    ) -> Result<Response<pb::UserPermissionsResponse>, Status> {
        let caller = strata_server::caller::caller(&request);
        let req = request.into_inner();
        let scope = match &req.scope {
            None => None,
            Some(s) => Some(scope_of(Some(s))?),
        };
        let own = caller
            .user
            .as_deref()
            .is_some_and(|me| !req.user.is_empty() && req.user == me);
        if !own {
            self.guard()
                .check(
                    &caller,
                    "user_permission",
                    &[Action::Admin],
                    scope.as_ref().unwrap_or(&Scope::Global),
                )
                .map_err(denied)?;
        }
        let (grants, _) = self
            .run(|kv, layout, _| crate::acl::load(kv, layout).map_err(crate::admin::unavailable))
            .await?
            .into_inner();
        let permissions = grants
            .into_iter()
            .filter(|g| req.user.is_empty() || g.who == req.user)
            .filter(|g| scope.as_ref().is_none_or(|s| s.covers(&g.scope)))
            .map(|g| pb::UserPermission {
                user: g.who,
                scope: Some(scope_to_pb(&g.scope)),
                permissions: g.perms.to_string(),
            })
            .collect();
        Ok(Response::new(pb::UserPermissionsResponse { permissions }))
    }

    /// `WhoAmI`.
    pub(crate) fn who_am_i_of(&self, caller: &Caller) -> pb::WhoAmIResponse {
        let user = self.guard().user(caller);
        pb::WhoAmIResponse {
            user: caller.user.as_deref().unwrap_or_default().to_owned(),
            method: caller.how.name().to_owned(),
            groups: user.as_ref().map(|u| u.groups.clone()).unwrap_or_default(),
            superuser: user.is_some_and(|u| u.superuser),
            checked: self.guard().is_on(),
        }
    }

    /// After `caller` created `table`: as HBase makes a table's creator its owner, a creator
    /// that is not a superuser is granted every permission on it.
    pub(crate) async fn grant_owner(&self, caller: &Caller, table: &str) -> Result<(), Status> {
        let guard = self.guard();
        let Some(user) = guard.user(caller).filter(|u| guard.is_on() && !u.superuser) else {
            return Ok(());
        };
        let scope = Scope::table(table, None, None).map_err(invalid)?;
        let revision = self
            .run(move |kv, layout, _| {
                crate::acl::change(
                    kv,
                    layout,
                    &user.name,
                    &scope,
                    Perms::ALL,
                    crate::acl::Change::Add,
                )
            })
            .await?
            .into_inner();
        self.wait_seen(revision).await;
        Ok(())
    }
}
