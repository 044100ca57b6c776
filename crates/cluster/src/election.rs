//! Master election with etcd's recipe, written as non-blocking steps: each candidate puts
//! `master/<lease>` under its lease if absent; the candidate whose key has the smallest create
//! revision leads, and that create revision is its **epoch**, strictly increasing across
//! successive leaders. Every write of the leader is guarded by "my key still has that create
//! revision", so a deposed leader's writes fail.

use crate::kv::{range_all, Compare, KeyValue, Kv, KvResult, LeaseId, Op, Revision, Txn};
use crate::layout::Layout;

/// A master's candidacy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidacy {
    /// Its election key.
    pub key: String,
    /// The key's create revision (the epoch if it leads).
    pub create_revision: Revision,
}

/// Enters the election with `lease` (idempotent: a retry after a lost answer finds its key).
///
/// # Errors
/// The store is unavailable, or the key exists under another lease.
pub fn campaign<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    lease: LeaseId,
    address: &str,
) -> KvResult<Candidacy> {
    let key = layout.election_key(lease);
    let put = Txn {
        compares: vec![Compare::CreateRevision(key.clone(), 0)],
        success: vec![Op::put_leased(key.clone(), address, lease)],
    };
    let out = kv.txn(put)?;
    if out.succeeded {
        return Ok(Candidacy {
            key,
            create_revision: out.revision,
        });
    }
    match kv.get(&key)? {
        Some(kv) if kv.lease == lease => Ok(Candidacy {
            key,
            create_revision: kv.create_revision,
        }),
        _ => Err(crate::kv::KvError::Invalid(format!(
            "election key {key} held by another lease"
        ))),
    }
}

/// The current leader's key: the candidate with the smallest create revision.
///
/// # Errors
/// The store is unavailable.
pub fn leader<K: Kv + ?Sized>(kv: &K, layout: &Layout) -> KvResult<Option<KeyValue>> {
    let all = range_all(kv, &layout.election(), 100)?;
    Ok(all.kvs.into_iter().min_by_key(|kv| kv.create_revision))
}

/// The guard every leader write carries.
pub fn guard(candidacy: &Candidacy) -> Compare {
    Compare::CreateRevision(candidacy.key.clone(), candidacy.create_revision)
}
