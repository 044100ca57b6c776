//! The admin service's space quota calls (RFC 0029): `SetQuota` with `quota_type` SPACE,
//! over the space quotas in the coordination store ([`crate::quota_space`]), and their part
//! of `ListQuotas`. Both need global `A`, as throttles do (checked by `LoggedAdmin`).

use strata_access::quota::{parse_size, SpacePolicy, SpaceQuota, Subject};
use strata_access::{describe, TableScope};
use strata_cluster::kv::Kv;
use strata_proto::pb;
use strata_server::status::invalid;
use tonic::{Request, Response, Status};

use crate::admin::ClusterAdmin;
use crate::admin_quota::{subject_of, subject_to_pb};

/// What `ListQuotas` tells of space: the quotas, the covered tables' states, the tables' sizes.
type SpaceListing = (
    Vec<pb::QuotaSpace>,
    Vec<pb::QuotaSpaceState>,
    Vec<pb::QuotaTableSize>,
);

impl<K: Kv + Send + Sync + 'static> ClusterAdmin<K> {
    /// `SetQuota TYPE => SPACE`: a table's or namespace's space quota set, or removed.
    pub(crate) async fn set_space_quota(
        &self,
        request: Request<pb::SetQuotaRequest>,
    ) -> Result<Response<pb::Empty>, Status> {
        let caller = strata_server::caller::caller(&request);
        let req = request.into_inner();
        let subject = subject_of(req.subject.as_ref())?;
        if matches!(subject, Subject::User(_)) {
            return Err(invalid(
                "a space quota applies to a TABLE or a NAMESPACE, not to a user",
            ));
        }
        if !req.throttle_type.is_empty() {
            return Err(invalid("THROTTLE_TYPE is for TYPE => THROTTLE, not SPACE"));
        }
        let limit = req.limit.trim();
        let quota = if limit.is_empty() || limit.eq_ignore_ascii_case("NONE") {
            None
        } else {
            let limit = parse_size(limit).map_err(invalid)?;
            let policy = SpacePolicy::from_name(&req.policy).ok_or_else(|| {
                invalid(format!(
                    "'{}' is not a space quota POLICY: NO_INSERTS, NO_WRITES, \
                     NO_WRITES_COMPACTIONS or DISABLE",
                    req.policy
                ))
            })?;
            Some(SpaceQuota {
                subject: subject.clone(),
                limit,
                policy,
            })
        };
        let detail = quota
            .as_ref()
            .map_or_else(|| "remove space".to_owned(), ToString::to_string);
        let target = subject.clone();
        self.run(move |kv, layout, _| {
            crate::admin_quota::require_subject(kv, layout, &target)?;
            match quota {
                Some(q) => crate::quota_space::set(kv, layout, &q),
                None => crate::quota_space::remove(kv, layout, &target),
            }
        })
        .await?;
        self.guard().audit_allowed(
            &caller,
            "set_quota",
            &describe(&strata_access::Scope::Global),
            &format!("{subject}: {detail}"),
        );
        Ok(Response::new(pb::Empty {}))
    }

    /// The space quotas, the tables' states under them and every reported table's size, for
    /// `ListQuotas`.
    pub(crate) async fn list_spaces(&self) -> Result<SpaceListing, Status> {
        let (quotas, states, sizes) = self
            .run(|kv, layout, _| {
                let unavailable = crate::admin::unavailable;
                let quotas = crate::quota_space::load(kv, layout).map_err(unavailable)?;
                let (states, _) =
                    crate::quota_space::load_states(kv, layout).map_err(unavailable)?;
                let sizes = crate::space_chore::reported(kv, layout).map_err(unavailable)?;
                Ok((quotas, states, sizes))
            })
            .await?
            .into_inner();
        let spaces = quotas
            .iter()
            .map(|q| pb::QuotaSpace {
                subject: Some(subject_to_pb(&q.subject)),
                limit: q.limit,
                policy: q.policy.name().to_owned(),
            })
            .collect();
        let states = states
            .into_iter()
            .map(|(t, s)| pb::QuotaSpaceState {
                table: TableScope::table(&t).table_name(),
                policy: s.policy.name().to_owned(),
                in_violation: s.in_violation,
                usage: s.usage,
                limit: s.limit,
            })
            .collect();
        let sizes = sizes
            .into_iter()
            .map(|(t, size)| pb::QuotaTableSize {
                table: TableScope::table(&t).table_name(),
                size,
            })
            .collect();
        Ok((spaces, states, sizes))
    }
}
