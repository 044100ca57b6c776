//! The master's decision over space quotas (HBase's `QuotaObserverChore`): given the quotas
//! and each table's usage, the state of every table a quota covers.

use std::collections::BTreeMap;

use super::settings::Subject;
use super::space::{SpaceQuota, SpaceState};
use crate::scope::split_table;

/// The state of every table (`ns:table`) of `usage` that a quota covers. A table's own quota
/// takes precedence over its namespace's, as in HBase; a namespace's usage is the sum of its
/// tables'. A quota is in violation when the usage is above its limit (HBase's observance
/// is `usage <= limit`).
pub fn decide(
    quotas: &[SpaceQuota],
    usage: &BTreeMap<String, u64>,
) -> BTreeMap<String, SpaceState> {
    let mut namespaces: BTreeMap<&str, u64> = BTreeMap::new();
    for (table, bytes) in usage {
        let (ns, _) = split_table(table);
        *namespaces.entry(ns).or_default() += bytes;
    }
    let of = |quota: &SpaceQuota, used: u64| SpaceState {
        policy: quota.policy,
        in_violation: used > quota.limit,
        usage: used,
        limit: quota.limit,
    };
    let mut states = BTreeMap::new();
    for (table, bytes) in usage {
        let (ns, t) = split_table(table);
        let own = Subject::Table(format!("{ns}:{t}"));
        let of_ns = Subject::Namespace(ns.to_owned());
        if let Some(q) = quotas.iter().find(|q| q.subject == own) {
            states.insert(format!("{ns}:{t}"), of(q, *bytes));
        } else if let Some(q) = quotas.iter().find(|q| q.subject == of_ns) {
            let used = namespaces.get(ns).copied().unwrap_or_default();
            states.insert(format!("{ns}:{t}"), of(q, used));
        }
    }
    states
}
