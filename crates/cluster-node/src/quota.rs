//! Throttles in the coordination store (RFC 0029), for the admin service and every region
//! server's [`strata_access::quota::Quotas`].
//!
//! - `<root>quota/throttle/<u|t|n>/<name>/<TYPE>` holds one throttle's limit as HBase's shell
//!   writes it (`100req/sec`): `u`, `t`, `n` for a user, a table (`ns:table`) or a namespace,
//!   the name percent-encoded, `TYPE` HBase's `ThrottleType` name.
//! - `set_quota` puts one key; `LIMIT => NONE` deletes the subject's keys of the types named
//!   (all of them without a type), in one transaction.
//! - Dropping a table or a namespace deletes its throttles (HBase's
//!   `hbase.quota.remove.on.table.delete`, on by default).
//! - `<root>quota/throttle/enabled` = `false` turns the RPC throttle switch off (HBase's
//!   `switchRpcThrottle`): the throttles stay and are listed, and refuse nothing. Absent, or
//!   any other value: on. It has no subject's three parts, so [`load`] skips it.
//! - Every region server keeps its quotas current with [`watch`].

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use strata_access::quota::{Limit, Subject, Throttle, ThrottleType};
use strata_access::scope::{decode, encode};
use strata_access::Guard;
use strata_cluster::kv::{range_all, Kv, KvError, Op, Txn};
use strata_cluster::layout::Layout;
use tonic::Status;

use crate::admin::unavailable;

/// The prefix of every throttle's key.
pub fn throttles(layout: &Layout) -> String {
    format!("{}quota/throttle/", layout.root())
}

fn subject_prefix(layout: &Layout, subject: &Subject) -> String {
    format!(
        "{}{}/{}/",
        throttles(layout),
        subject.letter(),
        encode(subject.name().as_bytes())
    )
}

/// The key of `subject`'s throttle of `kind`.
pub fn key(layout: &Layout, subject: &Subject, kind: ThrottleType) -> String {
    format!("{}{}", subject_prefix(layout, subject), kind.name())
}

/// The key of the RPC throttle switch.
pub fn switch_key(layout: &Layout) -> String {
    format!("{}enabled", throttles(layout))
}

/// Whether throttles are enforced (the RPC throttle switch; never set: on).
///
/// # Errors
/// The store cannot be read.
pub fn enforced<K: Kv + ?Sized>(kv: &K, layout: &Layout) -> Result<bool, KvError> {
    Ok(kv
        .get(&switch_key(layout))?
        .is_none_or(|v| v.value != b"false"))
}

/// Turns the RPC throttle switch on or off; answers whether it was on, and the revision
/// written.
///
/// # Errors
/// `UNAVAILABLE` when the store cannot be reached.
pub fn set_enforced<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    on: bool,
) -> Result<(bool, i64), Status> {
    let was = enforced(kv, layout).map_err(unavailable)?;
    let outcome = kv
        .txn(Txn {
            compares: vec![],
            success: vec![Op::put(
                switch_key(layout),
                if on { "true" } else { "false" },
            )],
        })
        .map_err(unavailable)?;
    Ok((was, outcome.revision))
}

/// The throttle a key and its value hold (`None`: not a throttle's).
fn parse(layout: &Layout, key: &str, value: &[u8]) -> Option<Throttle> {
    let rest = Layout::strip(key, &throttles(layout))?;
    let mut parts = rest.splitn(3, '/');
    let (letter, name, kind) = (parts.next()?, parts.next()?, parts.next()?);
    let name = String::from_utf8(decode(name)?).ok()?;
    let limit = Limit::parse(std::str::from_utf8(value).ok()?).ok()?;
    let kind = ThrottleType::from_name(kind).filter(|k| k.unit == limit.unit)?;
    Some(Throttle {
        subject: Subject::from_letter(letter, name)?,
        kind,
        limit,
    })
}

/// Every throttle, and the store's revision they were read at.
///
/// # Errors
/// The store cannot be read.
pub fn load<K: Kv + ?Sized>(kv: &K, layout: &Layout) -> Result<(Vec<Throttle>, i64), KvError> {
    let (found, _, revision) = load_with_switch(kv, layout)?;
    Ok((found, revision))
}

/// Every throttle and the RPC throttle switch, read at one revision of the store.
///
/// # Errors
/// The store cannot be read.
pub fn load_with_switch<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
) -> Result<(Vec<Throttle>, bool, i64), KvError> {
    let page = range_all(kv, &throttles(layout), 512)?;
    let switch = switch_key(layout);
    let enforced = page
        .kvs
        .iter()
        .find(|kv| kv.key == switch)
        .is_none_or(|kv| kv.value != b"false");
    let mut found: Vec<Throttle> = page
        .kvs
        .iter()
        .filter_map(|kv| parse(layout, &kv.key, &kv.value))
        .collect();
    found.sort_by(|a, b| (&a.subject, a.kind).cmp(&(&b.subject, b.kind)));
    Ok((found, enforced, page.revision))
}

/// Puts `throttle` in place of its subject's throttle of the same type; answers the
/// revision written.
///
/// # Errors
/// `UNAVAILABLE` when the store cannot be reached.
pub fn set<K: Kv + ?Sized>(kv: &K, layout: &Layout, throttle: &Throttle) -> Result<i64, Status> {
    let outcome = kv
        .txn(Txn {
            compares: vec![],
            success: vec![Op::put(
                key(layout, &throttle.subject, throttle.kind),
                throttle.limit.to_string(),
            )],
        })
        .map_err(unavailable)?;
    Ok(outcome.revision)
}

/// Deletes `subject`'s throttles of `kinds`; answers the revision written.
///
/// # Errors
/// `UNAVAILABLE` when the store cannot be reached.
pub fn remove<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    subject: &Subject,
    kinds: &[ThrottleType],
) -> Result<i64, Status> {
    let outcome = kv
        .txn(Txn {
            compares: vec![],
            success: kinds
                .iter()
                .map(|k| Op::Delete(key(layout, subject, *k)))
                .collect(),
        })
        .map_err(unavailable)?;
    Ok(outcome.revision)
}

/// Deletes every throttle of `subject` and its space quota (its table or namespace was
/// dropped).
///
/// # Errors
/// The store cannot be reached.
pub fn drop_subject<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    subject: &Subject,
) -> Result<(), KvError> {
    kv.txn(Txn {
        compares: vec![],
        success: vec![
            Op::DeletePrefix(subject_prefix(layout, subject)),
            Op::Delete(crate::quota_space::key(layout, subject)),
        ],
    })?;
    Ok(())
}

/// Keeps `guard`'s quotas current with the throttles under `layout` until `stop` is set
/// (with the guard on or off: throttles apply without `--auth` too).
pub fn watch<K: Kv + Send + Sync + 'static>(
    kv: Arc<K>,
    layout: Layout,
    guard: Arc<Guard>,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<()> {
    crate::prefix_watch::spawn(
        kv,
        throttles(&layout),
        ("quota-watch", "throttles"),
        stop,
        move |kv| {
            let (found, enforced, revision) = load_with_switch(kv, &layout)?;
            guard.quotas().set_enforced(enforced);
            guard.quotas().install(found, revision);
            Ok(revision)
        },
    )
}
