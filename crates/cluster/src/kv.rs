//! The coordination store the protocol runs on: etcd's data model, reduced to what assignment
//! needs. [`crate::etcd::EtcdKv`] implements it on a real etcd; [`crate::mem::MemKv`] is an
//! in-memory model with the same semantics (global revisions, leases that delete their keys,
//! multi-key transactions with compares, ordered watches) for the deterministic simulation.
//!
//! Every call is synchronous: the protocol's state machines are driven by `tick`s, from a thread
//! in a real process or from the simulator's event loop.
//!
//! # Semantics both implementations keep
//! - Each successful write (a put, a delete that removed something, a transaction that wrote)
//!   advances the store's single revision by one; every key records its `create_revision` and
//!   `mod_revision`. A missing key compares as create revision 0.
//! - A transaction is atomic: its compares and writes happen at one revision.
//! - A key put with a lease is deleted when the lease expires or is revoked.
//! - A watch delivers every change under its prefix from its start revision, in revision order,
//!   without gaps; a watch that cannot keep that promise fails with [`KvError::WatchLost`].
//! - [`KvError::Unavailable`] leaves it unknown whether a write happened (the request or only the
//!   response may have been lost): callers must make writes idempotent or re-read.

use thiserror::Error;

/// An etcd revision (global, strictly increasing with each write).
pub type Revision = i64;

/// An etcd lease id.
pub type LeaseId = i64;

/// Errors of the coordination store.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum KvError {
    /// The store could not be reached or did not answer in time; a write may or may not have
    /// been applied. Retry later.
    #[error("coordination store unavailable: {0}")]
    Unavailable(String),
    /// A watch stopped and cannot be resumed without a gap; re-read the state and watch again.
    #[error("watch lost: {0}")]
    WatchLost(String),
    /// The request was refused as malformed (a bug, not a transient state).
    #[error("invalid coordination request: {0}")]
    Invalid(String),
}

/// Result of coordination-store calls.
pub type KvResult<T> = std::result::Result<T, KvError>;

/// One stored key with its metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyValue {
    /// The key.
    pub key: String,
    /// The value.
    pub value: Vec<u8>,
    /// Revision of the write that created the key (since its last deletion).
    pub create_revision: Revision,
    /// Revision of the last write to the key.
    pub mod_revision: Revision,
    /// The lease the key is attached to, 0 for none.
    pub lease: LeaseId,
}

/// One condition of a transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Compare {
    /// The key's create revision equals the given one (0 = the key is absent).
    CreateRevision(String, Revision),
    /// The key's mod revision equals the given one (0 = the key is absent).
    ModRevision(String, Revision),
}

/// One write of a transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// Put `value` at `key`, attached to `lease` (0 = no lease).
    Put {
        /// The key.
        key: String,
        /// The value.
        value: Vec<u8>,
        /// The lease, 0 for none.
        lease: LeaseId,
    },
    /// Delete `key` if present.
    Delete(String),
    /// Delete every key starting with the prefix.
    DeletePrefix(String),
}

impl Op {
    /// A put without a lease.
    pub fn put(key: impl Into<String>, value: impl Into<Vec<u8>>) -> Op {
        Op::Put {
            key: key.into(),
            value: value.into(),
            lease: 0,
        }
    }

    /// A put attached to `lease`.
    pub fn put_leased(key: impl Into<String>, value: impl Into<Vec<u8>>, lease: LeaseId) -> Op {
        Op::Put {
            key: key.into(),
            value: value.into(),
            lease,
        }
    }
}

/// `If(all compares) Then(success) Else(nothing)`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Txn {
    /// Conditions, all of which must hold.
    pub compares: Vec<Compare>,
    /// Writes applied atomically when every compare holds.
    pub success: Vec<Op>,
}

/// Most operations one transaction may hold (etcd's default `--max-txn-ops`).
pub const MAX_TXN_OPS: usize = 128;

/// Outcome of a transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxnOutcome {
    /// Whether every compare held (and the writes were applied).
    pub succeeded: bool,
    /// The store's revision after the transaction.
    pub revision: Revision,
}

/// One page of a range read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// Keys in ascending order.
    pub kvs: Vec<KeyValue>,
    /// Whether more keys follow the last one returned.
    pub more: bool,
    /// The store's revision at the read.
    pub revision: Revision,
}

/// What happened to a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// Created or updated.
    Put,
    /// Deleted (explicitly or by lease expiry).
    Delete,
}

/// One change seen by a watch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// Put or delete.
    pub kind: EventKind,
    /// The key after the change (for a delete: the key, an empty value, and the deletion's
    /// revision as `mod_revision`).
    pub kv: KeyValue,
}

/// Handle of a watch created by [`Kv::watch`].
pub type WatchId = u64;

/// The coordination store.
pub trait Kv {
    /// Most operations one transaction may hold on this store: etcd's default
    /// [`MAX_TXN_OPS`] unless the store allows more (the embedded store of a cluster of one
    /// does: one journal record, one sync, whatever the count). Batching writers (the master's
    /// batches, a region server's acknowledgements) fill transactions up to it.
    fn max_txn_ops(&self) -> usize {
        MAX_TXN_OPS
    }

    /// Grants a lease of `ttl_secs` seconds; returns its id and the TTL granted (the server may
    /// raise it to its minimum).
    ///
    /// # Errors
    /// [`KvError::Unavailable`].
    fn grant(&self, ttl_secs: i64) -> KvResult<(LeaseId, i64)>;

    /// Renews a lease; returns the TTL from now, or `None` if the lease no longer exists.
    ///
    /// # Errors
    /// [`KvError::Unavailable`] (the renewal may or may not have reached the server).
    fn keep_alive(&self, lease: LeaseId) -> KvResult<Option<i64>>;

    /// Revokes a lease, deleting its keys. Revoking a missing lease succeeds.
    ///
    /// # Errors
    /// [`KvError::Unavailable`].
    fn revoke(&self, lease: LeaseId) -> KvResult<()>;

    /// The key, if present.
    ///
    /// # Errors
    /// [`KvError::Unavailable`].
    fn get(&self, key: &str) -> KvResult<Option<KeyValue>>;

    /// Up to `limit` keys starting with `prefix` and greater than `after` (all keys with the
    /// prefix when `after` is `None`), in key order.
    ///
    /// # Errors
    /// [`KvError::Unavailable`].
    fn range(&self, prefix: &str, after: Option<&str>, limit: usize) -> KvResult<Page>;

    /// Runs a transaction.
    ///
    /// Requires: at most [`MAX_TXN_OPS`] operations.
    ///
    /// # Errors
    /// [`KvError::Unavailable`] (it may or may not have been applied), [`KvError::Invalid`].
    fn txn(&self, txn: Txn) -> KvResult<TxnOutcome>;

    /// Starts watching every key with `prefix`, from revision `start` (inclusive).
    ///
    /// # Errors
    /// [`KvError::Unavailable`].
    fn watch(&self, prefix: &str, start: Revision) -> KvResult<WatchId>;

    /// The events the watch received since the last poll, without waiting.
    ///
    /// # Errors
    /// [`KvError::WatchLost`]: the watch is gone; cancel it, re-read and watch again.
    /// [`KvError::Unavailable`]: nothing could be read now; the watch is intact.
    fn poll(&self, watch: WatchId) -> KvResult<Vec<Event>>;

    /// Stops a watch. Unknown ids are ignored.
    fn cancel(&self, watch: WatchId);
}

/// Reads every key with `prefix` in pages of `page` keys.
///
/// # Errors
/// [`KvError::Unavailable`].
pub fn range_all<K: Kv + ?Sized>(kv: &K, prefix: &str, page: usize) -> KvResult<Page> {
    let mut out = Page {
        kvs: Vec::new(),
        more: false,
        revision: 0,
    };
    let mut after: Option<String> = None;
    loop {
        let p = kv.range(prefix, after.as_deref(), page)?;
        if out.revision == 0 {
            out.revision = p.revision;
        }
        let last = p.kvs.last().map(|kv| kv.key.clone());
        out.kvs.extend(p.kvs);
        match (p.more, last) {
            (true, Some(last)) => after = Some(last),
            _ => return Ok(out),
        }
    }
}
