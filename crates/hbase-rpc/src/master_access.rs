//! `MasterService`'s access-control methods (HBase 2.2+'s `Admin.grant`, `revoke`,
//! `getUserPermissions` and `hasUserPermissions`, which `AccessControlClient` calls, and
//! `getSecurityCapabilities`) through [`MasterOps`] and the server's access guard, in HBase's
//! messages (`AccessControl.proto`, `Master.proto`).
//!
//! [`MasterOps`]: crate::ops::MasterOps

use bytes::Bytes;
use prost::Message;
use strata_access::{Action, Grant, Perms, Scope, TableScope};

use crate::context::Context;
use crate::error::{HBaseError, HResult};
use crate::pb;
use crate::pb::permission::{Action as PbAction, Type};

fn decode<M: Message + Default>(param: &[u8]) -> HResult<M> {
    M::decode(param).map_err(|e| HBaseError::do_not_retry(format!("malformed request: {e}")))
}

fn text(b: &[u8], what: &str) -> HResult<String> {
    String::from_utf8(b.to_vec())
        .map_err(|_| HBaseError::do_not_retry(format!("the {what} is not UTF-8")))
}

fn table_name(t: &pb::TableName) -> HResult<String> {
    let ns = text(&t.namespace, "namespace")?;
    let q = text(&t.qualifier, "table name")?;
    Ok(if ns.is_empty() || ns == "default" {
        q
    } else {
        format!("{ns}:{q}")
    })
}

fn perms_of(actions: &[i32]) -> HResult<Perms> {
    let mut perms = Perms::NONE;
    for a in actions {
        let action = match PbAction::try_from(*a) {
            Ok(PbAction::Read) => Action::Read,
            Ok(PbAction::Write) => Action::Write,
            Ok(PbAction::Exec) => Action::Exec,
            Ok(PbAction::Create) => Action::Create,
            Ok(PbAction::Admin) => Action::Admin,
            Err(_) => return Err(HBaseError::do_not_retry(format!("unknown action {a}"))),
        };
        perms = perms.with(action);
    }
    Ok(perms)
}

fn actions_of(perms: Perms) -> Vec<i32> {
    perms
        .actions()
        .map(|a| match a {
            Action::Read => PbAction::Read,
            Action::Write => PbAction::Write,
            Action::Exec => PbAction::Exec,
            Action::Create => PbAction::Create,
            Action::Admin => PbAction::Admin,
        } as i32)
        .collect()
}

/// The scope and actions of HBase's `Permission`.
fn from_permission(p: &pb::Permission) -> HResult<(Scope, Perms)> {
    match p.r#type() {
        Type::Global => Ok((
            Scope::Global,
            perms_of(
                &p.global_permission
                    .as_ref()
                    .map(|g| g.action.clone())
                    .unwrap_or_default(),
            )?,
        )),
        Type::Namespace => {
            let n = p
                .namespace_permission
                .as_ref()
                .ok_or_else(|| HBaseError::do_not_retry("a namespace permission without one"))?;
            let ns = text(n.namespace_name.as_deref().unwrap_or_default(), "namespace")?;
            Ok((Scope::Namespace(ns), perms_of(&n.action)?))
        }
        Type::Table => {
            let t = p
                .table_permission
                .as_ref()
                .ok_or_else(|| HBaseError::do_not_retry("a table permission without one"))?;
            let name =
                table_name(t.table_name.as_ref().ok_or_else(|| {
                    HBaseError::do_not_retry("a table permission without a table")
                })?)?;
            let scope = Scope::table(&name, t.family.clone(), t.qualifier.clone())
                .map_err(HBaseError::do_not_retry)?;
            Ok((scope, perms_of(&t.action)?))
        }
    }
}

fn to_permission(scope: &Scope, perms: Perms) -> pb::Permission {
    let actions = actions_of(perms);
    match scope {
        Scope::Global => pb::Permission {
            r#type: Type::Global as i32,
            global_permission: Some(pb::GlobalPermission { action: actions }),
            ..Default::default()
        },
        Scope::Namespace(ns) => pb::Permission {
            r#type: Type::Namespace as i32,
            namespace_permission: Some(pb::NamespacePermission {
                namespace_name: Some(Bytes::from(ns.clone())),
                action: actions,
            }),
            ..Default::default()
        },
        Scope::Table(t) => pb::Permission {
            r#type: Type::Table as i32,
            table_permission: Some(pb::TablePermission {
                table_name: Some(pb::TableName {
                    namespace: t.namespace.clone().into_bytes().into(),
                    qualifier: t.table.clone().into_bytes().into(),
                }),
                family: t.family.clone(),
                qualifier: t.qualifier.clone(),
                action: actions,
            }),
            ..Default::default()
        },
    }
}

/// Answers `method` if it is one of access control's; `None` for any other.
pub(crate) fn call(ctx: &Context, method: &str, param: &[u8]) -> Option<HResult<Vec<u8>>> {
    let ops = ctx.ops.as_ref();
    let answer = match method {
        "Grant" => (|| {
            let req: pb::GrantRequest = decode(param)?;
            let up = &req.user_permission;
            let (scope, perms) = from_permission(&up.permission)?;
            ops.grant(
                &text(&up.user, "user")?,
                perms,
                &scope,
                req.merge_existing_permissions(),
            )?;
            Ok(pb::GrantResponse {}.encode_to_vec())
        })(),
        "Revoke" => (|| {
            let req: pb::RevokeRequest = decode(param)?;
            let up = &req.user_permission;
            let (scope, perms) = from_permission(&up.permission)?;
            // HBase's revoke without actions removes every one.
            let perms = if perms.is_empty() { Perms::ALL } else { perms };
            ops.revoke(&text(&up.user, "user")?, perms, &scope)?;
            Ok(pb::RevokeResponse {}.encode_to_vec())
        })(),
        "GetUserPermissions" => (|| {
            let req: pb::GetUserPermissionsRequest = decode(param)?;
            let scope = match req.r#type.map(|_| req.r#type()) {
                None | Some(Type::Global) => None,
                Some(Type::Namespace) => Some(Scope::Namespace(text(
                    req.namespace_name.as_deref().unwrap_or_default(),
                    "namespace",
                )?)),
                Some(Type::Table) => {
                    let name = table_name(req.table_name.as_ref().ok_or_else(|| {
                        HBaseError::do_not_retry("a table's permissions without the table")
                    })?)?;
                    Some(Scope::Table(TableScope {
                        family: req.column_family.clone().filter(|f| !f.is_empty()),
                        qualifier: req.column_qualifier.clone().filter(|q| !q.is_empty()),
                        ..TableScope::table(&name)
                    }))
                }
            };
            let user = match &req.user_name {
                Some(u) if !u.is_empty() => Some(text(u, "user")?),
                _ => None,
            };
            let grants = ops.user_permissions(scope.as_ref(), user.as_deref())?;
            let user_permission = grants
                .iter()
                .map(|g: &Grant| pb::UserPermission {
                    user: g.who.clone().into_bytes().into(),
                    permission: to_permission(&g.scope, g.perms),
                })
                .collect();
            Ok(pb::GetUserPermissionsResponse { user_permission }.encode_to_vec())
        })(),
        "HasUserPermissions" => (|| {
            let req: pb::HasUserPermissionsRequest = decode(param)?;
            let user = match &req.user_name {
                Some(u) if !u.is_empty() => Some(text(u, "user")?),
                _ => None,
            };
            // An empty family or qualifier asks about none (`AccessControlClient.hasPermission`
            // sends ""): what a grant on the table (family) implies, as in HBase. (Grants keep
            // them: an empty family granted is not the whole table.)
            let wanted = req
                .permission
                .iter()
                .map(|p| {
                    let mut p = p.clone();
                    if let Some(t) = p.table_permission.as_mut() {
                        t.family = t.family.take().filter(|f| !f.is_empty());
                        t.qualifier = t.qualifier.take().filter(|q| !q.is_empty());
                    }
                    from_permission(&p)
                })
                .collect::<HResult<Vec<_>>>()?;
            let has_user_permission = crate::access::has_permissions(user.as_deref(), &wanted)?;
            Ok(pb::HasUserPermissionsResponse {
                has_user_permission,
            }
            .encode_to_vec())
        })(),
        // HBase's answer: SECURE_AUTHENTICATION with Kerberos or while access control
        // authenticates every caller (`--auth`, by certificate or ticket), else SIMPLE; and
        // AUTHORIZATION with access control. No cell ACLs or visibility labels.
        "getSecurityCapabilities" => {
            use pb::security_capabilities_response::Capability;
            let on = ctx.config.guard.is_on();
            let authentication = if on || ctx.config.kerberos.is_some() {
                Capability::SecureAuthentication
            } else {
                Capability::SimpleAuthentication
            };
            let mut capabilities = vec![authentication as i32];
            if on {
                capabilities.push(Capability::Authorization as i32);
            }
            Ok(pb::SecurityCapabilitiesResponse { capabilities }.encode_to_vec())
        }
        _ => return None,
    };
    Some(answer)
}
