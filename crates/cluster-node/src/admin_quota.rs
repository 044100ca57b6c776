//! The admin service's quota calls (RFC 0029): `SetQuota` and `ListQuotas`, over the
//! throttles in the coordination store ([`crate::quota`]); space quotas are
//! [`crate::admin_space`]'s. Both need global `A`
//! ([`strata_access::admin::rule`], checked by `LoggedAdmin`).
//!
//! A change answers once this server's quotas hold the revision it wrote (every other
//! server's watch sees it within [`crate::prefix_watch::POLL`] and the store's own delay).

use std::time::{Duration, Instant};

use strata_access::quota::{Limit, Scope, Subject, Throttle, ThrottleType, Unit};
use strata_access::{describe, TableScope};
use strata_cluster::kv::Kv;
use strata_proto::pb;
use strata_server::status::invalid;
use tonic::{Request, Response, Status};

use crate::admin::ClusterAdmin;

/// How long a change waits for this server's quotas to hold it.
const SEEN_WAIT: Duration = Duration::from_secs(5);

/// The subject a request names: exactly one of user, table, namespace.
pub(crate) fn subject_of(s: Option<&pb::QuotaSubject>) -> Result<Subject, Status> {
    let s = s.ok_or_else(|| invalid("a quota needs a USER, a TABLE or a NAMESPACE"))?;
    let named = [&s.user, &s.table, &s.namespace]
        .iter()
        .filter(|n| !n.is_empty())
        .count();
    if named != 1 {
        return Err(invalid(
            "a quota names exactly one of USER, TABLE or NAMESPACE (Strata has no quotas \
             of a user on one table or namespace)",
        ));
    }
    if !s.user.is_empty() {
        if s.user.chars().any(|c| c.is_control() || c == '/') || s.user.starts_with('@') {
            return Err(invalid(format!("'{}' is not a user name", s.user)));
        }
        return Ok(Subject::User(s.user.clone()));
    }
    if !s.table.is_empty() {
        return Ok(Subject::table(&s.table));
    }
    crate::namespace::check_name(&s.namespace)?;
    Ok(Subject::Namespace(s.namespace.clone()))
}

/// A subject on the wire.
pub fn subject_to_pb(subject: &Subject) -> pb::QuotaSubject {
    let mut s = pb::QuotaSubject::default();
    match subject {
        Subject::User(n) => s.user.clone_from(n),
        Subject::Table(n) => s.table = TableScope::table(n).table_name(),
        Subject::Namespace(n) => s.namespace.clone_from(n),
    }
    s
}

/// The scope of throttles a `throttle_type` names (empty: every request), and the type it
/// names exactly if it is one of HBase's `ThrottleType` names.
fn scope_of(text: &str) -> Result<(Scope, Option<ThrottleType>), Status> {
    match text.to_ascii_uppercase().as_str() {
        "" | "REQUEST" => Ok((Scope::Request, None)),
        "READ" => Ok((Scope::Read, None)),
        "WRITE" => Ok((Scope::Write, None)),
        name => match ThrottleType::from_name(name) {
            Some(t) => Ok((t.scope, Some(t))),
            None => Err(invalid(format!(
                "'{text}' is not a THROTTLE_TYPE: READ, WRITE or REQUEST (or one of HBase's \
                 REQUEST_NUMBER, REQUEST_SIZE, READ_NUMBER, READ_SIZE, WRITE_NUMBER, WRITE_SIZE)"
            ))),
        },
    }
}

impl<K: Kv + Send + Sync + 'static> ClusterAdmin<K> {
    /// `SetQuota`: one throttle set, or a subject's throttles removed.
    pub(crate) async fn set_throttle(
        &self,
        request: Request<pb::SetQuotaRequest>,
    ) -> Result<Response<pb::Empty>, Status> {
        let caller = strata_server::caller::caller(&request);
        let req = request.into_inner();
        let subject = subject_of(req.subject.as_ref())?;
        let (scope, exact) = scope_of(&req.throttle_type)?;
        let limit = if req.limit.trim().is_empty() || req.limit.eq_ignore_ascii_case("NONE") {
            None
        } else {
            Some(Limit::parse(&req.limit).map_err(invalid)?)
        };
        if let (Some(l), Some(t)) = (&limit, exact) {
            if l.unit != t.unit {
                return Err(invalid(format!(
                    "THROTTLE_TYPE {} counts {}, but the limit '{}' counts {}",
                    t.name(),
                    unit_word(t.unit),
                    req.limit,
                    unit_word(l.unit)
                )));
            }
        }
        let target = subject.clone();
        let detail = match &limit {
            Some(l) => format!("{} {l}", ThrottleType::new(scope, l.unit).name()),
            None => format!("remove {}", req.throttle_type),
        };
        let revision = self
            .run(move |kv, layout, _| {
                require_subject(kv, layout, &target)?;
                match limit {
                    Some(limit) => {
                        let throttle = Throttle {
                            subject: target,
                            kind: ThrottleType::new(scope, limit.unit),
                            limit,
                        };
                        crate::quota::set(kv, layout, &throttle)
                    }
                    None => {
                        let kinds: Vec<ThrottleType> = match exact {
                            Some(t) => vec![t],
                            None => ThrottleType::ALL
                                .into_iter()
                                .filter(|t| req.throttle_type.is_empty() || t.scope == scope)
                                .collect(),
                        };
                        crate::quota::remove(kv, layout, &target, &kinds)
                    }
                }
            })
            .await?
            .into_inner();
        self.guard().audit_allowed(
            &caller,
            "set_quota",
            &describe(&strata_access::Scope::Global),
            &format!("{subject}: {detail}"),
        );
        self.await_quotas(revision).await;
        Ok(Response::new(pb::Empty {}))
    }

    /// Waits (bounded) until this server's quotas hold `revision`, a throttle's or the RPC
    /// throttle switch's write. Only a region server's process watches the throttles (a
    /// master's listener does not wait).
    pub(crate) async fn await_quotas(&self, revision: i64) {
        let start = Instant::now();
        while self.server.is_some()
            && self.guard().quotas().revision() < revision
            && start.elapsed() < SEEN_WAIT
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// `ListQuotas`: every throttle and space quota, as the coordination store holds them,
    /// and the tables' space quota states.
    pub(crate) async fn list_throttles(&self) -> Result<Response<pb::ListQuotasResponse>, Status> {
        let (found, _) = self
            .run(|kv, layout, _| crate::quota::load(kv, layout).map_err(crate::admin::unavailable))
            .await?
            .into_inner();
        let throttles = found
            .iter()
            .map(|t| pb::QuotaThrottle {
                subject: Some(subject_to_pb(&t.subject)),
                throttle_type: t.kind.name().to_owned(),
                limit: t.limit.to_string(),
            })
            .collect();
        let (spaces, space_states, table_sizes) = self.list_spaces().await?;
        Ok(Response::new(pb::ListQuotasResponse {
            throttles,
            spaces,
            space_states,
            table_sizes,
        }))
    }
}

fn unit_word(unit: Unit) -> &'static str {
    match unit {
        Unit::Number => "requests",
        Unit::Size => "bytes",
    }
}

/// A quota's table or namespace must exist (HBase: `TableNotFoundException`); a user need not.
pub(crate) fn require_subject<K: Kv + ?Sized>(
    kv: &K,
    layout: &strata_cluster::layout::Layout,
    subject: &Subject,
) -> Result<(), Status> {
    match subject {
        Subject::Table(t) => {
            crate::admin::table_record(kv, layout, &TableScope::table(t).table_name())?;
        }
        Subject::Namespace(ns) => {
            crate::namespace::require(kv, layout, ns)?;
        }
        Subject::User(_) => {}
    }
    Ok(())
}
