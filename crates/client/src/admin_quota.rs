//! Quotas through [`Admin`] (RFC 0029): HBase's `set_quota TYPE => THROTTLE`,
//! `set_quota TYPE => SPACE` and `list_quotas`.

use strata_access::quota::{
    parse_size, Limit, SpacePolicy, SpaceQuota, SpaceState, Subject, Throttle, ThrottleType,
};
use strata_proto::pb;

use crate::admin::Admin;
use crate::error::Error;

fn subject_to_pb(subject: &Subject) -> pb::QuotaSubject {
    let mut s = pb::QuotaSubject::default();
    match subject {
        Subject::User(n) => s.user.clone_from(n),
        Subject::Table(n) => s.table.clone_from(n),
        Subject::Namespace(n) => s.namespace.clone_from(n),
    }
    s
}

fn subject_from_pb(s: pb::QuotaSubject) -> Subject {
    if !s.user.is_empty() {
        Subject::User(s.user)
    } else if !s.table.is_empty() {
        Subject::table(&s.table)
    } else {
        Subject::Namespace(s.namespace)
    }
}

fn throttle_from_pb(t: pb::QuotaThrottle) -> Result<Throttle, Error> {
    let bad = || Error::bad_response(format!("a throttle the client cannot read: {t:?}"));
    let s = t.subject.clone().ok_or_else(bad)?;
    let subject = if !s.user.is_empty() {
        Subject::User(s.user)
    } else if !s.table.is_empty() {
        Subject::Table(s.table)
    } else {
        Subject::Namespace(s.namespace)
    };
    Ok(Throttle {
        subject,
        kind: ThrottleType::from_name(&t.throttle_type).ok_or_else(bad)?,
        limit: Limit::parse(&t.limit).map_err(|_| bad())?,
    })
}

impl Admin {
    /// Throttles `subject` to `limit` (`100req/sec`, `10M/sec`, as HBase's shell writes it)
    /// of the requests `throttle_type` names (`READ`, `WRITE`, empty for every request, or
    /// one of HBase's `ThrottleType` names); replaces its throttle of that type.
    ///
    /// # Errors
    /// `ACCESS_DENIED` without global `A`; `INVALID_ARGUMENT` for a bad limit or type;
    /// `TABLE_NOT_FOUND`, `NAMESPACE_NOT_FOUND`; the server's error.
    pub async fn set_throttle(
        &self,
        subject: &Subject,
        throttle_type: &str,
        limit: &str,
    ) -> Result<(), Error> {
        if limit.trim().is_empty() {
            return Err(Error::invalid(
                "a throttle needs a limit (remove one with remove_throttle)",
            ));
        }
        self.set_quota(subject, throttle_type, limit).await
    }

    /// Removes `subject`'s throttles of `throttle_type` (every one of them when empty), as
    /// HBase's `LIMIT => NONE`.
    ///
    /// # Errors
    /// As [`Admin::set_throttle`].
    pub async fn remove_throttle(
        &self,
        subject: &Subject,
        throttle_type: &str,
    ) -> Result<(), Error> {
        self.set_quota(subject, throttle_type, "").await
    }

    async fn set_quota(
        &self,
        subject: &Subject,
        throttle_type: &str,
        limit: &str,
    ) -> Result<(), Error> {
        let r = pb::SetQuotaRequest {
            subject: Some(subject_to_pb(subject)),
            throttle_type: throttle_type.to_owned(),
            limit: limit.to_owned(),
            ..pb::SetQuotaRequest::default()
        };
        self.change(|mut m| async move { m.set_quota(r).await })
            .await
            .map(|_| ())
    }

    /// Every throttle, ordered by subject and type.
    ///
    /// # Errors
    /// `ACCESS_DENIED` without global `A`; the server's error.
    pub async fn list_quotas(&self) -> Result<Vec<Throttle>, Error> {
        let r = self
            .read(|mut m| async move { m.list_quotas(pb::Empty {}).await })
            .await?;
        r.throttles.into_iter().map(throttle_from_pb).collect()
    }

    /// Limits `subject` (a table or a namespace) to `limit` bytes of store files (`'1G'`,
    /// `'512M'` or bytes, as HBase's shell writes it) under `policy`; replaces its space
    /// quota.
    ///
    /// # Errors
    /// `ACCESS_DENIED` without global `A`; `INVALID_ARGUMENT` for a bad limit or a user;
    /// `TABLE_NOT_FOUND`, `NAMESPACE_NOT_FOUND`; the server's error.
    pub async fn set_space_quota(
        &self,
        subject: &Subject,
        limit: &str,
        policy: SpacePolicy,
    ) -> Result<(), Error> {
        parse_size(limit).map_err(Error::invalid)?;
        self.space(subject, limit, policy.name()).await
    }

    /// Removes `subject`'s space quota (HBase's `LIMIT => NONE`).
    ///
    /// # Errors
    /// As [`Admin::set_space_quota`].
    pub async fn remove_space_quota(&self, subject: &Subject) -> Result<(), Error> {
        self.space(subject, "", "").await
    }

    async fn space(&self, subject: &Subject, limit: &str, policy: &str) -> Result<(), Error> {
        let r = pb::SetQuotaRequest {
            subject: Some(subject_to_pb(subject)),
            limit: limit.to_owned(),
            quota_type: "SPACE".into(),
            policy: policy.to_owned(),
            ..pb::SetQuotaRequest::default()
        };
        self.change(|mut m| async move { m.set_quota(r).await })
            .await
            .map(|_| ())
    }

    /// Every space quota (tables' first, then namespaces', each by name).
    ///
    /// # Errors
    /// `ACCESS_DENIED` without global `A`; the server's error.
    pub async fn list_space_quotas(&self) -> Result<Vec<SpaceQuota>, Error> {
        let r = self
            .read(|mut m| async move { m.list_quotas(pb::Empty {}).await })
            .await?;
        r.spaces
            .into_iter()
            .map(|q| {
                let policy = SpacePolicy::from_name(&q.policy).ok_or_else(|| {
                    Error::bad_response(format!("a space quota the client cannot read: {q:?}"))
                })?;
                Ok(SpaceQuota {
                    subject: subject_from_pb(q.subject.unwrap_or_default()),
                    limit: q.limit,
                    policy,
                })
            })
            .collect()
    }

    /// Each table's state under the space quota covering it, as the master last decided it
    /// (HBase's `SpaceQuotaSnapshot`s), by table (`ns:table`, `table` in `default`).
    ///
    /// # Errors
    /// `ACCESS_DENIED` without global `A`; the server's error.
    pub async fn space_quota_states(&self) -> Result<Vec<(String, SpaceState)>, Error> {
        let r = self
            .read(|mut m| async move { m.list_quotas(pb::Empty {}).await })
            .await?;
        r.space_states
            .into_iter()
            .map(|s| {
                let policy = SpacePolicy::from_name(&s.policy).ok_or_else(|| {
                    Error::bad_response(format!("a space state the client cannot read: {s:?}"))
                })?;
                let state = SpaceState {
                    policy,
                    in_violation: s.in_violation,
                    usage: s.usage,
                    limit: s.limit,
                };
                Ok((s.table, state))
            })
            .collect()
    }

    /// Every table's store file bytes as the live region servers last reported them for
    /// space quotas (HBase's master table sizes), by table (`ns:table`, `table` in
    /// `default`).
    ///
    /// # Errors
    /// `ACCESS_DENIED` without global `A`; the server's error.
    pub async fn space_quota_table_sizes(&self) -> Result<Vec<(String, u64)>, Error> {
        let r = self
            .read(|mut m| async move { m.list_quotas(pb::Empty {}).await })
            .await?;
        Ok(r.table_sizes
            .into_iter()
            .map(|s| (s.table, s.size))
            .collect())
    }
}
