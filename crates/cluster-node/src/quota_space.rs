//! Space quotas in the coordination store (RFC 0029), beside the throttles ([`crate::quota`]):
//!
//! - `<root>quota/space/<t|n>/<name>` = `<limit bytes> <POLICY>`: a table's (`ns:table`) or a
//!   namespace's quota, written once by `ClusterAdmin` (`set_quota TYPE => SPACE`), deleted by
//!   `LIMIT => NONE` and when its table or namespace is dropped.
//! - `<root>quota/usage/<server>` = `<ns:table>=<bytes> …` (`-`: none): the bytes of store files
//!   of each table's regions open on a region server, written by that server
//!   ([`crate::space_report`]).
//! - `<root>quota/space-state/<ns:table>` = [`SpaceState`]: each covered table's state, written
//!   by the active master ([`crate::space_chore`]) and enforced by every region server
//!   ([`watch`]).
//!
//! Names are percent-encoded as grantees are.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use strata_access::quota::{SpacePolicy, SpaceQuota, SpaceState, Subject};
use strata_access::scope::{decode, encode};
use strata_access::Guard;
use strata_cluster::kv::{range_all, Kv, KvError, Op, Txn};
use strata_cluster::layout::Layout;
use strata_server::RegionServer;
use tonic::Status;

use crate::admin::unavailable;

/// The prefix of every space quota's key.
pub fn quotas(layout: &Layout) -> String {
    format!("{}quota/space/", layout.root())
}

/// The prefix of the tables' states.
pub fn states(layout: &Layout) -> String {
    format!("{}quota/space-state/", layout.root())
}

/// The prefix of the region servers' usage reports.
pub fn usages(layout: &Layout) -> String {
    format!("{}quota/usage/", layout.root())
}

/// The key of `subject`'s space quota.
pub fn key(layout: &Layout, subject: &Subject) -> String {
    format!(
        "{}{}/{}",
        quotas(layout),
        subject.letter(),
        encode(subject.name().as_bytes())
    )
}

/// The key of table `table`'s (`ns:table`) state.
pub fn state_key(layout: &Layout, table: &str) -> String {
    format!("{}{}", states(layout), encode(table.as_bytes()))
}

/// The key of `server`'s usage report.
pub fn usage_key(layout: &Layout, server: &str) -> String {
    format!("{}{}", usages(layout), encode(server.as_bytes()))
}

fn parse(layout: &Layout, key: &str, value: &[u8]) -> Option<SpaceQuota> {
    let rest = Layout::strip(key, &quotas(layout))?;
    let (letter, name) = rest.split_once('/')?;
    let name = String::from_utf8(decode(name)?).ok()?;
    let subject = Subject::from_letter(letter, name).filter(|s| !matches!(s, Subject::User(_)))?;
    let (limit, policy) = std::str::from_utf8(value).ok()?.split_once(' ')?;
    Some(SpaceQuota {
        subject,
        limit: limit.parse().ok()?,
        policy: SpacePolicy::from_name(policy)?,
    })
}

/// Every space quota (tables' first, then namespaces', each by name).
///
/// # Errors
/// The store cannot be read.
pub fn load<K: Kv + ?Sized>(kv: &K, layout: &Layout) -> Result<Vec<SpaceQuota>, KvError> {
    let page = range_all(kv, &quotas(layout), 512)?;
    let mut found: Vec<SpaceQuota> = page
        .kvs
        .iter()
        .filter_map(|kv| parse(layout, &kv.key, &kv.value))
        .collect();
    found.sort_by(|a, b| {
        let rank = |s: &Subject| (!matches!(s, Subject::Table(_)), s.name().to_owned());
        rank(&a.subject).cmp(&rank(&b.subject))
    });
    Ok(found)
}

/// Puts `quota` in place of its subject's; answers the revision written.
///
/// # Errors
/// `UNAVAILABLE` when the store cannot be reached.
pub fn set<K: Kv + ?Sized>(kv: &K, layout: &Layout, quota: &SpaceQuota) -> Result<i64, Status> {
    let value = format!("{} {}", quota.limit, quota.policy);
    let outcome = kv
        .txn(Txn {
            compares: vec![],
            success: vec![Op::put(key(layout, &quota.subject), value)],
        })
        .map_err(unavailable)?;
    Ok(outcome.revision)
}

/// Deletes `subject`'s space quota; answers the revision written.
///
/// # Errors
/// `UNAVAILABLE` when the store cannot be reached.
pub fn remove<K: Kv + ?Sized>(kv: &K, layout: &Layout, subject: &Subject) -> Result<i64, Status> {
    let outcome = kv
        .txn(Txn {
            compares: vec![],
            success: vec![Op::Delete(key(layout, subject))],
        })
        .map_err(unavailable)?;
    Ok(outcome.revision)
}

/// Every table's state, by table (`ns:table`), and the revision read at.
///
/// # Errors
/// The store cannot be read.
pub fn load_states<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
) -> Result<(BTreeMap<String, SpaceState>, i64), KvError> {
    let page = range_all(kv, &states(layout), 512)?;
    let prefix = states(layout);
    let found = page
        .kvs
        .iter()
        .filter_map(|kv| {
            let table = decode(Layout::strip(&kv.key, &prefix)?)?;
            let state = SpaceState::decode(std::str::from_utf8(&kv.value).ok()?)?;
            Some((String::from_utf8(table).ok()?, state))
        })
        .collect();
    Ok((found, page.revision))
}

/// A usage report's text: `<ns:table>=<bytes> …`, `-` when empty.
pub fn encode_usage(usage: &BTreeMap<String, u64>) -> String {
    if usage.is_empty() {
        return "-".into();
    }
    usage
        .iter()
        .map(|(t, b)| format!("{}={b}", encode(t.as_bytes())))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A usage report from its text (entries that do not parse are skipped).
pub fn decode_usage(text: &str) -> BTreeMap<String, u64> {
    text.split(' ')
        .filter_map(|item| {
            let (t, b) = item.split_once('=')?;
            let table = String::from_utf8(decode(t)?).ok()?;
            Some((table, b.parse().ok()?))
        })
        .collect()
}

/// Keeps `guard`'s space quota states current, and stops the compactions of `server`'s
/// regions of tables in violation under `NO_WRITES_COMPACTIONS`, until `stop` is set.
pub fn watch<K: Kv + Send + Sync + 'static>(
    kv: Arc<K>,
    layout: Layout,
    guard: Arc<Guard>,
    server: Arc<RegionServer>,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<()> {
    crate::prefix_watch::spawn(
        kv,
        states(&layout),
        ("space-quota-watch", "space quota states"),
        stop,
        move |kv| {
            let (found, revision) = load_states(kv, &layout)?;
            let space = guard.quotas().space();
            space.install(found.into_iter().collect::<HashMap<_, _>>(), revision);
            let stopped: HashSet<String> = space
                .violations()
                .into_iter()
                .filter(|(t, _)| space.compactions_disabled(t))
                .map(|(t, _)| t)
                .collect();
            server.stop_compactions(stopped);
            Ok(revision)
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_reports_round_trip() {
        let usage: BTreeMap<String, u64> =
            [("default:t".to_owned(), 10), ("ns:a b".to_owned(), 1 << 40)].into();
        let text = encode_usage(&usage);
        assert_eq!(text, "default%3At=10 ns%3Aa%20b=1099511627776");
        assert_eq!(decode_usage(&text), usage);
        assert_eq!(encode_usage(&BTreeMap::new()), "-");
        assert!(decode_usage("-").is_empty());
        assert_eq!(decode_usage("x=1 y=z").len(), 1);
    }

    #[test]
    fn quotas_round_trip_through_their_keys() {
        let layout = Layout::new("/c/");
        let q = SpaceQuota {
            subject: Subject::table("ns:t"),
            limit: 1024,
            policy: SpacePolicy::NoWritesCompactions,
        };
        let k = key(&layout, &q.subject);
        assert_eq!(k, "/c/quota/space/t/ns%3At");
        assert_eq!(parse(&layout, &k, b"1024 NO_WRITES_COMPACTIONS"), Some(q));
        assert_eq!(parse(&layout, &k, b"1024 NO_READS"), None);
        assert_eq!(parse(&layout, "/c/quota/space/u/bob", b"1 DISABLE"), None);
    }
}
