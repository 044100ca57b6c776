//! The master's side of space quotas (RFC 0029; HBase's `QuotaObserverChore`): every period,
//! on the active master only, add up the registered region servers' usage reports per table
//! (and so per namespace), decide each covered table's state
//! ([`strata_access::quota::decide`]), and publish the states that changed at
//! `quota/space-state/<ns:table>` for every region server to enforce. A table entering
//! violation under `DISABLE` is disabled; one leaving it (its quota removed or raised) is
//! enabled again.
//!
//! A disabled table has no region open, so no server reports its files: its last published
//! usage stands while it stays disabled (as HBase keeps a table's last snapshot when its
//! regions stop reporting), so that a table disabled by its quota does not look empty.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use strata_access::quota::{decide, SpacePolicy, SpaceState};
use strata_access::scope::{decode, split_table};
use strata_cluster::election;
use strata_cluster::kv::{range_all, Kv, KvError, Op, Txn};
use strata_cluster::layout::Layout;
use strata_cluster::master::AdminRequest;
use strata_cluster::record::{TableRecord, TableState};

use crate::admin_path::run_procedure;
use crate::quota_space::{decode_usage, load, load_states, state_key, usages};

/// HBase's `hbase.master.quotas.observer.chore.period` is a minute; Strata's region servers
/// and master default to this (`--space-quota-period-ms`).
pub const DEFAULT_PERIOD: Duration = Duration::from_secs(10);

/// What one pass decided to change.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Pass {
    /// States written (new or changed).
    pub written: BTreeMap<String, SpaceState>,
    /// States deleted (their table no longer covered).
    pub deleted: Vec<String>,
    /// Tables to disable (entered violation under `DISABLE`).
    pub disable: Vec<String>,
    /// Tables to enable (left violation under `DISABLE`).
    pub enable: Vec<String>,
}

/// Every table (`ns:table`) and its state.
fn tables<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
) -> Result<BTreeMap<String, TableState>, KvError> {
    let prefix = layout.tables();
    let page = range_all(kv, &prefix, 1000)?;
    Ok(page
        .kvs
        .iter()
        .filter_map(|item| {
            let name = item.key.strip_prefix(&prefix)?;
            let rec = TableRecord::decode(&item.value).ok()?;
            let (ns, t) = split_table(name);
            Some((format!("{ns}:{t}"), rec.state))
        })
        .collect())
}

/// The usage of every table (`ns:table`) by the reports of registered servers.
pub(crate) fn reported<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
) -> Result<BTreeMap<String, u64>, KvError> {
    let live: HashSet<String> = range_all(kv, &layout.servers(), 1000)?
        .kvs
        .iter()
        .filter_map(|kv| kv.key.strip_prefix(&layout.servers()).map(str::to_owned))
        .collect();
    let prefix = usages(layout);
    let mut usage: BTreeMap<String, u64> = BTreeMap::new();
    for item in range_all(kv, &prefix, 1000)?.kvs {
        let server = item
            .key
            .strip_prefix(&prefix)
            .and_then(decode)
            .and_then(|s| String::from_utf8(s).ok());
        if !server.is_some_and(|s| live.contains(&s)) {
            continue;
        }
        let text = String::from_utf8_lossy(&item.value);
        for (table, bytes) in decode_usage(&text) {
            *usage.entry(table).or_default() += bytes;
        }
    }
    Ok(usage)
}

fn disabled_by_quota(s: Option<&SpaceState>) -> bool {
    s.is_some_and(|s| s.in_violation && s.policy == SpacePolicy::Disable)
}

/// One pass's decision from what the store holds. Pure, for tests.
pub fn plan(
    quotas: &[strata_access::quota::SpaceQuota],
    tables: &BTreeMap<String, TableState>,
    reported: &BTreeMap<String, u64>,
    before: &BTreeMap<String, SpaceState>,
) -> Pass {
    let usage: BTreeMap<String, u64> = tables
        .iter()
        .map(|(t, state)| {
            let reported = reported.get(t).copied().unwrap_or_default();
            let bytes = match (state, before.get(t)) {
                // No region open, no report: its files did not change.
                (TableState::Disabled | TableState::Disabling, Some(b)) => b.usage,
                _ => reported,
            };
            (t.clone(), bytes)
        })
        .collect();
    let states = decide(quotas, &usage);
    let mut pass = Pass::default();
    for (t, s) in &states {
        if before.get(t) != Some(s) {
            pass.written.insert(t.clone(), *s);
        }
        let enabled = tables.get(t) == Some(&TableState::Enabled);
        if disabled_by_quota(Some(s)) && enabled && !disabled_by_quota(before.get(t)) {
            pass.disable.push(t.clone());
        }
    }
    for (t, b) in before {
        let now = states.get(t);
        if now.is_none() {
            pass.deleted.push(t.clone());
        }
        let disabled = tables.get(t) == Some(&TableState::Disabled);
        if disabled_by_quota(Some(b)) && !disabled_by_quota(now) && disabled {
            pass.enable.push(t.clone());
        }
    }
    pass
}

/// Whether `me` is the active master.
fn leads<K: Kv + ?Sized>(kv: &K, layout: &Layout, me: &str) -> bool {
    matches!(election::leader(kv, layout), Ok(Some(kv)) if kv.value == me.as_bytes())
}

/// One pass, if `me` leads.
///
/// # Errors
/// The store cannot be read or written (the next pass tries again).
pub fn run_once<K: Kv + ?Sized>(kv: &K, layout: &Layout, me: &str) -> Result<Pass, String> {
    if !leads(kv, layout, me) {
        return Ok(Pass::default());
    }
    let quotas = load(kv, layout).map_err(|e| e.to_string())?;
    let (before, _) = load_states(kv, layout).map_err(|e| e.to_string())?;
    if quotas.is_empty() && before.is_empty() {
        return Ok(Pass::default());
    }
    let tables = tables(kv, layout).map_err(|e| e.to_string())?;
    let reported = reported(kv, layout).map_err(|e| e.to_string())?;
    let pass = plan(&quotas, &tables, &reported, &before);
    let mut ops: Vec<Op> = pass
        .written
        .iter()
        .map(|(t, s)| Op::put(state_key(layout, t), s.encode()))
        .collect();
    ops.extend(
        pass.deleted
            .iter()
            .map(|t| Op::Delete(state_key(layout, t))),
    );
    if !ops.is_empty() {
        kv.txn(Txn {
            compares: vec![],
            success: ops,
        })
        .map_err(|e| e.to_string())?;
    }
    let mut failed = BTreeSet::new();
    for (tables, what) in [(&pass.disable, "disable"), (&pass.enable, "enable")] {
        for table in tables {
            // The master names a table of `default` without its namespace.
            let named = strata_access::TableScope::table(table).table_name();
            let req = if what == "disable" {
                AdminRequest::DisableTable { table: named }
            } else {
                AdminRequest::EnableTable { table: named }
            };
            tracing::info!("space quota: {what} {table}");
            if let Err(e) = run_procedure(kv, layout, &req, &format!("{what} {table}")) {
                tracing::warn!("space quota: cannot {what} {table}: {}", e.message());
                failed.insert(table.clone());
            }
        }
    }
    if !failed.is_empty() {
        // Decided again next pass: forget the states of the tables not acted on.
        let ops = failed
            .iter()
            .map(|t| match before.get(t) {
                Some(b) => Op::put(state_key(layout, t), b.encode()),
                None => Op::Delete(state_key(layout, t)),
            })
            .collect();
        let _ = kv.txn(Txn {
            compares: vec![],
            success: ops,
        });
    }
    Ok(pass)
}

/// Runs a pass every `period` as `me` (the master's advertised address, its election
/// value) until `stop` is set.
pub fn spawn<K: Kv + Send + Sync + 'static>(
    kv: Arc<K>,
    layout: Layout,
    me: String,
    period: Duration,
    stop: Arc<AtomicBool>,
) -> JoinHandle<()> {
    std::thread::Builder::new()
        .name("space-quota-chore".into())
        .spawn(move || {
            let mut next = Instant::now() + period;
            while !stop.load(Ordering::Relaxed) {
                if Instant::now() < next {
                    std::thread::sleep(Duration::from_millis(20).min(period));
                    continue;
                }
                next = Instant::now() + period;
                if let Err(e) = run_once(kv.as_ref(), &layout, &me) {
                    tracing::warn!("space quota pass failed: {e}");
                }
            }
        })
        .unwrap_or_else(|e| panic!("spawning the space quota chore: {e}"))
}

#[cfg(test)]
mod tests {
    use strata_access::quota::{SpaceQuota, Subject};

    use super::*;

    fn state(policy: SpacePolicy, in_violation: bool, usage: u64, limit: u64) -> SpaceState {
        SpaceState {
            policy,
            in_violation,
            usage,
            limit,
        }
    }

    #[test]
    fn a_disable_violation_disables_once_and_keeps_its_usage_until_lifted() {
        let quotas = vec![SpaceQuota {
            subject: Subject::table("t"),
            limit: 100,
            policy: SpacePolicy::Disable,
        }];
        let mut tables = BTreeMap::from([("default:t".to_owned(), TableState::Enabled)]);
        let reported = BTreeMap::from([("default:t".to_owned(), 150)]);
        let first = plan(&quotas, &tables, &reported, &BTreeMap::new());
        assert_eq!(first.disable, vec!["default:t".to_owned()]);
        let before = first.written.clone();
        assert!(before["default:t"].in_violation);

        tables.insert("default:t".into(), TableState::Disabled);
        let quiet = plan(&quotas, &tables, &BTreeMap::new(), &before);
        assert_eq!(quiet, Pass::default(), "disabled: its last usage stands");

        let lifted = plan(&[], &tables, &BTreeMap::new(), &before);
        assert_eq!(lifted.deleted, vec!["default:t".to_owned()]);
        assert_eq!(lifted.enable, vec!["default:t".to_owned()]);

        let raised = vec![SpaceQuota {
            limit: 1000,
            ..quotas[0].clone()
        }];
        let up = plan(&raised, &tables, &BTreeMap::new(), &before);
        assert_eq!(up.enable, vec!["default:t".to_owned()]);
        assert_eq!(
            up.written["default:t"],
            state(SpacePolicy::Disable, false, 150, 1000)
        );
    }

    #[test]
    fn unchanged_states_are_not_written_again() {
        let quotas = vec![SpaceQuota {
            subject: Subject::Namespace("ns".into()),
            limit: 10,
            policy: SpacePolicy::NoInserts,
        }];
        let tables = BTreeMap::from([
            ("ns:a".to_owned(), TableState::Enabled),
            ("ns:b".to_owned(), TableState::Enabled),
        ]);
        let reported = BTreeMap::from([("ns:a".to_owned(), 8), ("ns:b".to_owned(), 4)]);
        let first = plan(&quotas, &tables, &reported, &BTreeMap::new());
        assert_eq!(first.written.len(), 2);
        assert_eq!(
            first.written["ns:b"],
            state(SpacePolicy::NoInserts, true, 12, 10)
        );
        assert!(first.disable.is_empty());
        let again = plan(&quotas, &tables, &reported, &first.written);
        assert_eq!(again, Pass::default());
    }
}
