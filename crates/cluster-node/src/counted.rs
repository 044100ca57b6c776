//! Counting what a cluster process does, for its `/metrics`: [`CountedKv`] counts etcd
//! operations by kind (and their failures), [`CountedHost`] the open and close orders a region
//! server carried out. Both wrap the real thing and change nothing else.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use strata_cluster::host::RegionHost;
use strata_cluster::kv::{
    Event, KeyValue, Kv, KvResult, LeaseId, Page, Revision, Txn, TxnOutcome, WatchId,
};

/// The kinds of etcd operations, in [`KvCounts`] order.
pub const KV_OPS: [&str; 9] = [
    "grant",
    "keep_alive",
    "revoke",
    "get",
    "range",
    "txn",
    "watch",
    "poll",
    "cancel",
];

/// Operations and failures per kind of [`KV_OPS`], and lease renewals that found the lease.
#[derive(Debug, Default)]
pub struct KvCounts {
    ops: [AtomicU64; 9],
    errors: [AtomicU64; 9],
    renewed: AtomicU64,
}

impl KvCounts {
    /// `(kind, operations, failures)` per kind.
    pub fn by_kind(&self) -> Vec<(&'static str, u64, u64)> {
        KV_OPS
            .iter()
            .enumerate()
            .map(|(i, k)| {
                (
                    *k,
                    self.ops[i].load(Ordering::Relaxed),
                    self.errors[i].load(Ordering::Relaxed),
                )
            })
            .collect()
    }

    /// Lease renewals that succeeded (the lease still existed).
    pub fn renewals(&self) -> u64 {
        self.renewed.load(Ordering::Relaxed)
    }

    fn count<T>(&self, kind: usize, r: KvResult<T>) -> KvResult<T> {
        self.ops[kind].fetch_add(1, Ordering::Relaxed);
        if r.is_err() {
            self.errors[kind].fetch_add(1, Ordering::Relaxed);
        }
        r
    }
}

/// A [`Kv`] that counts its operations into shared [`KvCounts`].
pub struct CountedKv<K> {
    inner: K,
    counts: Arc<KvCounts>,
}

impl<K: Kv> CountedKv<K> {
    /// Wraps `inner`, counting into `counts`.
    pub fn new(inner: K, counts: Arc<KvCounts>) -> Self {
        CountedKv { inner, counts }
    }
}

impl<K: Kv> Kv for CountedKv<K> {
    fn max_txn_ops(&self) -> usize {
        self.inner.max_txn_ops()
    }

    fn grant(&self, ttl_secs: i64) -> KvResult<(LeaseId, i64)> {
        self.counts.count(0, self.inner.grant(ttl_secs))
    }

    fn keep_alive(&self, lease: LeaseId) -> KvResult<Option<i64>> {
        let r = self.counts.count(1, self.inner.keep_alive(lease));
        if matches!(r, Ok(Some(_))) {
            self.counts.renewed.fetch_add(1, Ordering::Relaxed);
        }
        r
    }

    fn revoke(&self, lease: LeaseId) -> KvResult<()> {
        self.counts.count(2, self.inner.revoke(lease))
    }

    fn get(&self, key: &str) -> KvResult<Option<KeyValue>> {
        self.counts.count(3, self.inner.get(key))
    }

    fn range(&self, prefix: &str, after: Option<&str>, limit: usize) -> KvResult<Page> {
        self.counts.count(4, self.inner.range(prefix, after, limit))
    }

    fn txn(&self, txn: Txn) -> KvResult<TxnOutcome> {
        self.counts.count(5, self.inner.txn(txn))
    }

    fn watch(&self, prefix: &str, start: Revision) -> KvResult<WatchId> {
        self.counts.count(6, self.inner.watch(prefix, start))
    }

    fn poll(&self, watch: WatchId) -> KvResult<Vec<Event>> {
        self.counts.count(7, self.inner.poll(watch))
    }

    fn cancel(&self, watch: WatchId) {
        self.counts.ops[8].fetch_add(1, Ordering::Relaxed);
        self.inner.cancel(watch);
    }
}

/// Orders a region server carried out: opens and closes, each done or failed.
#[derive(Debug, Default)]
pub struct OrderCounts {
    opened: AtomicU64,
    open_failed: AtomicU64,
    closed: AtomicU64,
    close_failed: AtomicU64,
    aborts: AtomicU64,
}

impl OrderCounts {
    /// `(order, outcome, count)` rows.
    pub fn rows(&self) -> Vec<(&'static str, &'static str, u64)> {
        let n = |a: &AtomicU64| a.load(Ordering::Relaxed);
        vec![
            ("open", "done", n(&self.opened)),
            ("open", "failed", n(&self.open_failed)),
            ("close", "done", n(&self.closed)),
            ("close", "failed", n(&self.close_failed)),
            ("abort", "done", n(&self.aborts)),
        ]
    }

    fn open(&self, r: &Result<(), String>) {
        match r {
            Ok(()) => self.opened.fetch_add(1, Ordering::Relaxed),
            Err(_) => self.open_failed.fetch_add(1, Ordering::Relaxed),
        };
    }

    fn close(&self, r: &Result<(), String>) {
        match r {
            Ok(()) => self.closed.fetch_add(1, Ordering::Relaxed),
            Err(_) => self.close_failed.fetch_add(1, Ordering::Relaxed),
        };
    }
}

/// A [`RegionHost`] that counts the orders it finishes into shared [`OrderCounts`].
pub struct CountedHost<H> {
    inner: H,
    counts: Arc<OrderCounts>,
}

impl<H: RegionHost> CountedHost<H> {
    /// Wraps `inner`, counting into `counts`.
    pub fn new(inner: H, counts: Arc<OrderCounts>) -> Self {
        CountedHost { inner, counts }
    }

    /// The wrapped host.
    pub fn inner(&self) -> &H {
        &self.inner
    }
}

impl<H: RegionHost> RegionHost for CountedHost<H> {
    fn open(&self, region: &str, epoch: u64) -> Result<(), String> {
        let r = self.inner.open(region, epoch);
        self.counts.open(&r);
        r
    }

    fn close(&self, region: &str) -> Result<(), String> {
        let r = self.inner.close(region);
        self.counts.close(&r);
        r
    }

    fn abort(&self) {
        self.counts.aborts.fetch_add(1, Ordering::Relaxed);
        self.inner.abort();
    }

    fn try_open(&self, region: &str, epoch: u64) -> Option<Result<(), String>> {
        let r = self.inner.try_open(region, epoch);
        if let Some(r) = &r {
            self.counts.open(r);
        }
        r
    }

    fn try_close(&self, region: &str) -> Option<Result<(), String>> {
        let r = self.inner.try_close(region);
        if let Some(r) = &r {
            self.counts.close(r);
        }
        r
    }

    fn cancel_open(&self, region: &str) {
        self.inner.cancel_open(region);
    }

    fn try_split(
        &self,
        region: &str,
        epoch: u64,
        daughters: &(String, String),
        row: Option<&[u8]>,
    ) -> Option<Result<Vec<u8>, String>> {
        self.inner.try_split(region, epoch, daughters, row)
    }

    fn try_merge(&self, low: &str, high: &str, merged: &str) -> Option<Result<(), String>> {
        self.inner.try_merge(low, high, merged)
    }

    fn requests(&self) -> Vec<(String, strata_cluster::load::Accesses)> {
        self.inner.requests()
    }

    fn region_metrics(&self) -> Vec<(String, strata_cluster::region_metrics::RegionMetrics)> {
        self.inner.region_metrics()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;
    use strata_cluster::mem::{MemKv, MemStore, Perfect};

    #[test]
    fn counts_operations_by_kind() {
        let counts = Arc::new(KvCounts::default());
        let kv = CountedKv::new(
            MemKv::new(MemStore::new(1), Rc::new(Perfect)),
            counts.clone(),
        );
        let (lease, _) = kv.grant(5).unwrap();
        assert!(kv.keep_alive(lease).unwrap().is_some());
        kv.revoke(lease).unwrap();
        assert_eq!(kv.keep_alive(lease).unwrap(), None);
        assert!(kv.get("/x").unwrap().is_none());
        let rows = counts.by_kind();
        assert_eq!(rows[0], ("grant", 1, 0));
        assert_eq!(rows[1], ("keep_alive", 2, 0));
        assert_eq!(rows[3], ("get", 1, 0));
        assert_eq!(counts.renewals(), 1);
    }
}
