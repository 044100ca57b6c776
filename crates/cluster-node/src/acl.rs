//! Grants in the coordination store (RFC 0026), for the admin service and every server's
//! guard.
//!
//! - `<root>acl/<scope>/<who>` holds a grant's letters (`RW`); `<scope>` and `<who>` are
//!   [`Scope::key`] and the percent-encoded grantee (a user, or `@group`).
//! - `grant` sets letters (or adds them, merging) and `revoke` removes them, each a transaction guarded by the key's
//!   revision (a concurrent change makes it retry); a key left with no letter is deleted.
//! - Dropping a table deletes its grants (`acl/<ns>:<table>/…`), and deleting a namespace its
//!   own (`acl/@<ns>/…`), as HBase's AccessController does after a table's or a namespace's
//!   deletion.
//! - Every server keeps its [`Guard`] current with [`watch`]: all grants read once, then the
//!   prefix watched; any change re-reads them all (grants are few).

use std::sync::Arc;

use strata_access::scope::{decode, encode};
use strata_access::{Access, Grant, Guard, Perms, Scope, TableScope};
use strata_cluster::kv::{range_all, Compare, Kv, KvError, Op, Txn};
use strata_cluster::layout::Layout;
use strata_proto::pb::ErrorCode;
use tonic::Status;

use crate::admin::unavailable;

/// How often a server's watch of the grants is polled.
pub const POLL: std::time::Duration = crate::prefix_watch::POLL;

/// The key of `who`'s grant on `scope`.
pub fn key(layout: &Layout, scope: &Scope, who: &str) -> String {
    format!(
        "{}{}/{}",
        layout.acls(),
        scope.key(),
        encode(who.as_bytes())
    )
}

/// The grant a key and its value hold (`None`: not a grant's).
fn parse(layout: &Layout, key: &str, value: &[u8]) -> Option<Grant> {
    let rest = Layout::strip(key, &layout.acls())?;
    let (scope, who) = rest.rsplit_once('/')?;
    let who = String::from_utf8(decode(who)?).ok()?;
    let perms = Perms::parse(std::str::from_utf8(value).ok()?).ok()?;
    Some(Grant {
        who,
        scope: Scope::from_key(scope).ok()?,
        perms,
    })
}

/// Every grant, and the store's revision they were read at.
///
/// # Errors
/// The store cannot be read.
pub fn load<K: Kv + ?Sized>(kv: &K, layout: &Layout) -> Result<(Vec<Grant>, i64), KvError> {
    let page = range_all(kv, &layout.acls(), 512)?;
    let grants = page
        .kvs
        .iter()
        .filter_map(|kv| parse(layout, &kv.key, &kv.value))
        .collect();
    Ok((grants, page.revision))
}

/// How a change treats the letters a grantee already holds on the scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Replace them (HBase's grant without merging).
    Set,
    /// Add to them.
    Add,
    /// Remove these (a revoke).
    Remove,
}

/// Changes `who`'s letters on `scope` by `how`; answers the revision written (or read, when
/// nothing changed).
///
/// # Errors
/// `UNAVAILABLE` when the store cannot be reached or kept changing under the call.
pub fn change<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    who: &str,
    scope: &Scope,
    perms: Perms,
    how: Change,
) -> Result<i64, Status> {
    let key = key(layout, scope, who);
    for _ in 0..16 {
        let current = kv.get(&key).map_err(unavailable)?;
        let (had, revision) = match &current {
            None => (Perms::NONE, 0),
            Some(v) => (
                std::str::from_utf8(&v.value)
                    .ok()
                    .and_then(|l| Perms::parse(l).ok())
                    .unwrap_or(Perms::NONE),
                v.mod_revision,
            ),
        };
        let now = match how {
            Change::Set => perms,
            Change::Add => had.union(perms),
            Change::Remove => had.minus(perms),
        };
        if now == had && current.is_some() != now.is_empty() {
            let at = kv.range(&key, None, 1).map_err(unavailable)?.revision;
            return Ok(at);
        }
        let op = if now.is_empty() {
            Op::Delete(key.clone())
        } else {
            Op::put(key.clone(), now.to_string())
        };
        let outcome = kv
            .txn(Txn {
                compares: vec![Compare::ModRevision(key.clone(), revision)],
                success: vec![op],
            })
            .map_err(unavailable)?;
        if outcome.succeeded {
            return Ok(outcome.revision);
        }
    }
    Err(strata_proto::status(
        ErrorCode::Unavailable,
        format!("the grant of {who} kept changing meanwhile; retry"),
    ))
}

/// Deletes every grant on `table` and within it (the table was dropped).
///
/// # Errors
/// The store cannot be reached.
pub fn drop_table<K: Kv + ?Sized>(kv: &K, layout: &Layout, table: &str) -> Result<(), KvError> {
    let scope = Scope::Table(TableScope::table(table));
    let prefix = format!("{}{}/", layout.acls(), scope.key());
    kv.txn(Txn {
        compares: vec![],
        success: vec![Op::DeletePrefix(prefix)],
    })?;
    Ok(())
}

/// Deletes every grant on namespace `namespace` (it was deleted), as HBase's
/// AccessController does after a namespace's deletion (`postDeleteNamespace`): a namespace
/// made again later under the name starts with no grants.
///
/// # Errors
/// The store cannot be reached.
pub fn drop_namespace<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    namespace: &str,
) -> Result<(), KvError> {
    let scope = Scope::Namespace(namespace.to_owned());
    let prefix = format!("{}{}/", layout.acls(), scope.key());
    kv.txn(Txn {
        compares: vec![],
        success: vec![Op::DeletePrefix(prefix)],
    })?;
    Ok(())
}

/// Keeps `guard` current with the grants under `layout` until `stop` is set: reads them all,
/// then re-reads them whenever the watch reports a change (or is lost). Runs on its own
/// thread; a store that cannot be read leaves the grants in force as they were (and, before
/// the first read, every call refused but a superuser's).
pub fn watch<K: Kv + Send + Sync + 'static>(
    kv: Arc<K>,
    layout: Layout,
    guard: Arc<Guard>,
    stop: Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<()> {
    let prefix = layout.acls();
    crate::prefix_watch::spawn(
        kv,
        prefix,
        ("acl-watch", "access grants"),
        stop,
        move |kv| {
            let (grants, revision) = load(kv, &layout)?;
            guard.install(Access::from_grants(grants), revision);
            Ok(revision)
        },
    )
}
