//! A region server's side of the protocol, as a state machine driven by [`RegionServer::tick`]:
//! register under a lease, keep it alive with the self-fencing deadline, carry out the orders the
//! master leaves in `inbox/<me>/`, and acknowledge each under `ack/<me>/` (keys tied to the lease,
//! so they vanish if this server dies).
//!
//! Invariants:
//! - A region is served only while the lease's deadline is ahead ([`RegionServer::serves`]); a
//!   server whose lease is lost aborts and never serves again under this name (a restart is a new
//!   server with a new start code).
//! - A process whose server aborted may register again as a **new incarnation** (a new name,
//!   so a new WAL directory, and no region): [`RegionServer::succeeding`] names the lease of the
//!   incarnation before it, which the new one revokes before it asks for a lease of its own, so
//!   the master recovers the old incarnation's regions at once rather than when etcd expires
//!   that lease (etcd renews every lease's TTL when it restarts). The old incarnation stopped
//!   serving at its deadline, before the lease could expire or be revoked.
//! - An open order is carried out at most once per epoch, and never for an epoch older than one
//!   this server already saw for the region.
//! - A split order is carried out at most once: a failed split is tried again only for a fresh
//!   order (the master deleted the failed one and sent another: its revision differs), and
//!   only once a back-off since the failure passed ([`RegionServerConfig::split_backoff_ms`],
//!   doubling with each failure at the same epoch, bounded); an order within the back-off is
//!   refused at once.

use std::collections::BTreeMap;

use crate::host::RegionHost;
use crate::kv::{range_all, Compare, EventKind, Kv, KvError, LeaseId, Op, Revision, Txn, WatchId};
use crate::layout::Layout;
use crate::lease::{LeaseKeeper, LeaseStatus, Millis};
use crate::load::{LoadMeter, ServerLoad};
use crate::record::{Ack, Order};
use crate::region_metrics::ServerMetrics;

/// Region-server settings.
#[derive(Debug, Clone)]
pub struct RegionServerConfig {
    /// Lease TTL in seconds (etcd's minimum is 2 s with default flags, 1 s with fast ones).
    pub ttl_secs: i64,
    /// How long before the lease's earliest possible expiry the server stops serving.
    pub margin_ms: Millis,
    /// Regions opened per tick, at most (so lease renewals are not starved).
    pub opens_per_tick: usize,
    /// Interval between two load reports (`load/<server>`), ms.
    pub load_period_ms: Millis,
    /// How long after a failed split of a region a fresh split order at the same epoch is
    /// tried again, ms; doubles with each further failure, up to
    /// 2^[`MAX_SPLIT_BACKOFF_DOUBLINGS`] times this. Orders within it are refused at once.
    pub split_backoff_ms: Millis,
}

/// Doublings of [`RegionServerConfig::split_backoff_ms`] at most (32 times: 64 s by default).
pub const MAX_SPLIT_BACKOFF_DOUBLINGS: u32 = 5;

impl Default for RegionServerConfig {
    fn default() -> Self {
        RegionServerConfig {
            ttl_secs: 3,
            margin_ms: 500,
            opens_per_tick: 1000,
            load_period_ms: 5000,
            split_backoff_ms: 2000,
        }
    }
}

/// A split that failed here, at one epoch of the region.
#[derive(Debug, Clone, Copy)]
struct SplitFailure {
    epoch: u64,
    /// Revision of the last order answered with the failure (never tried again).
    order: Revision,
    /// When the last attempt failed.
    at: Millis,
    /// Failed attempts at this epoch.
    failures: u32,
}

enum Phase {
    /// Not registered yet (holds the lease once granted).
    Starting(Option<LeaseKeeper>),
    /// Registered and watching its inbox.
    Running { lease: LeaseKeeper, watch: WatchId },
    /// Lost its lease or failed; serves nothing, for good.
    Aborted(String),
}

/// One region server.
pub struct RegionServer<K: Kv, H: RegionHost> {
    kv: K,
    host: H,
    layout: Layout,
    name: String,
    address: String,
    config: RegionServerConfig,
    phase: Phase,
    /// Orders in the inbox, by region.
    orders: BTreeMap<String, Order>,
    /// Revision of each order in the inbox (a fresh order has a new one).
    order_revs: BTreeMap<String, Revision>,
    /// Open regions and the epoch each was opened at.
    regions: BTreeMap<String, u64>,
    /// Highest epoch seen per region (never act on an older order).
    seen: BTreeMap<String, u64>,
    /// Acks written, by region (rewritten only when the order changes).
    acked: BTreeMap<String, Ack>,
    /// Epoch of the last failed open per region.
    failed: BTreeMap<String, u64>,
    /// Regions split here: the epoch of the order and the split row (acknowledged again if
    /// the order is seen again).
    split_done: BTreeMap<String, (u64, Vec<u8>)>,
    /// The last failed split per region.
    split_failed: BTreeMap<String, SplitFailure>,
    /// Merges done here, by lower region: the epoch of the order (acknowledged again if the
    /// order is seen again).
    merge_done: BTreeMap<String, u64>,
    /// Epoch of the last failed merge per lower region.
    merge_failed: BTreeMap<String, u64>,
    /// Request rates between load reports.
    meter: LoadMeter,
    /// When the next load report is due.
    next_load: Millis,
    /// When a tick last started an open or wrote acknowledgements.
    last_progress: Option<Millis>,
    /// The last load reported.
    last_load: Option<ServerLoad>,
    /// The region statistics last published (`metrics/<me>`), encoded.
    last_metrics: Option<Vec<u8>>,
    /// The lease of the incarnation this one succeeds, revoked before registering.
    predecessor: Option<LeaseId>,
    /// The lease this incarnation was granted (kept after it aborts, for its successor).
    granted: Option<LeaseId>,
}

impl<K: Kv, H: RegionHost> RegionServer<K, H> {
    /// A server named `name` (`host:port:startcode`) reachable at `address`.
    pub fn new(
        kv: K,
        host: H,
        layout: Layout,
        name: String,
        address: String,
        config: RegionServerConfig,
    ) -> Self {
        RegionServer {
            kv,
            host,
            layout,
            name,
            address,
            config,
            phase: Phase::Starting(None),
            orders: BTreeMap::new(),
            order_revs: BTreeMap::new(),
            regions: BTreeMap::new(),
            seen: BTreeMap::new(),
            acked: BTreeMap::new(),
            failed: BTreeMap::new(),
            split_done: BTreeMap::new(),
            split_failed: BTreeMap::new(),
            merge_done: BTreeMap::new(),
            merge_failed: BTreeMap::new(),
            meter: LoadMeter::default(),
            next_load: 0,
            last_progress: None,
            last_load: None,
            last_metrics: None,
            predecessor: None,
            granted: None,
        }
    }

    /// This server succeeds, in the same process, an incarnation that held `lease` and
    /// aborted: the lease is revoked (its keys deleted, so the master starts recovering its
    /// regions) before this one registers.
    #[must_use]
    pub fn succeeding(mut self, lease: Option<LeaseId>) -> Self {
        self.predecessor = lease;
        self
    }

    /// The lease this incarnation was granted, if any (also after it aborted).
    pub fn lease_id(&self) -> Option<LeaseId> {
        self.granted
    }

    /// The last load this server reported.
    pub fn last_load(&self) -> Option<&ServerLoad> {
        self.last_load.as_ref()
    }

    /// The server's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The coordination store client.
    pub fn kv(&self) -> &K {
        &self.kv
    }

    /// The storage side.
    pub fn host(&self) -> &H {
        &self.host
    }

    /// Why the server aborted, if it did.
    pub fn aborted(&self) -> Option<&str> {
        match &self.phase {
            Phase::Aborted(why) => Some(why),
            _ => None,
        }
    }

    /// Whether a tick started an open or acknowledged an order within the last
    /// [`crate::node::BUSY_WINDOW_MS`]: a driver then ticks again after
    /// [`crate::node::BUSY_TICK`], so a stream of orders is not paced by the idle tick.
    pub fn busy(&self, now: Millis) -> bool {
        self.last_progress
            .is_some_and(|t| now.saturating_sub(t) < crate::node::BUSY_WINDOW_MS)
    }

    /// Whether it is registered and its lease valid at `now`.
    pub fn is_live(&self, now: Millis) -> bool {
        matches!(&self.phase, Phase::Running { lease, .. } if lease.valid(now))
    }

    /// The self-fencing deadline, once registered.
    pub fn deadline(&self) -> Option<Millis> {
        match &self.phase {
            Phase::Running { lease, .. } => Some(lease.deadline()),
            _ => None,
        }
    }

    /// Whether `region` may be served (read or written) at `now`.
    pub fn serves(&self, region: &str, now: Millis) -> bool {
        self.is_live(now) && self.regions.contains_key(region)
    }

    /// The regions served at `now` with their epochs.
    pub fn served(&self, now: Millis) -> Vec<(String, u64)> {
        if !self.is_live(now) {
            return Vec::new();
        }
        self.regions.iter().map(|(r, e)| (r.clone(), *e)).collect()
    }

    /// The regions served at `now`, without copying them.
    pub fn served_regions(&self, now: Millis) -> impl Iterator<Item = &str> {
        let live = self.is_live(now);
        self.regions
            .keys()
            .filter(move |_| live)
            .map(String::as_str)
    }

    /// Stops serving for good (lease lost, WAL fenced, or a failed close).
    pub fn abort(&mut self, why: &str) {
        if !matches!(self.phase, Phase::Aborted(_)) {
            self.host.abort();
            self.regions.clear();
            self.phase = Phase::Aborted(why.to_string());
        }
    }

    /// Leaves the cluster: stops serving, then revokes the lease so the master recovers the
    /// regions without waiting for it to expire.
    pub fn leave(&mut self) {
        let lease = match &self.phase {
            Phase::Running { lease, .. } => Some(lease.id()),
            Phase::Starting(Some(lease)) => Some(lease.id()),
            _ => None,
        };
        self.abort("left the cluster");
        if let Some(id) = lease {
            let _ = self.kv.revoke(id);
        }
    }

    /// One step: register, renew the lease, take new orders, carry them out, acknowledge.
    pub fn tick(&mut self, now: Millis) {
        match std::mem::replace(&mut self.phase, Phase::Aborted(String::new())) {
            Phase::Aborted(why) => self.phase = Phase::Aborted(why),
            Phase::Starting(lease) => {
                self.phase = self.register(lease, now);
                if matches!(self.phase, Phase::Running { .. }) {
                    // A new server is about to be given regions: look for orders at the busy
                    // tick for a while rather than the idle one.
                    self.last_progress = Some(now);
                }
            }
            Phase::Running { mut lease, watch } => {
                if lease.tick(&self.kv, now) == LeaseStatus::Lost {
                    self.kv.cancel(watch);
                    self.phase = Phase::Running { lease, watch };
                    self.abort("lease lost");
                    return;
                }
                let watch = match self.take_orders(watch) {
                    Ok(w) => w,
                    Err(_) => {
                        self.phase = Phase::Running { lease, watch };
                        return;
                    }
                };
                self.phase = Phase::Running {
                    lease: lease.clone(),
                    watch,
                };
                self.carry_out(lease.id(), now);
                self.report_load(lease.id(), now);
            }
        }
    }

    /// Puts `load/<me>` under the lease every `load_period_ms`, and in the same write
    /// `metrics/<me>` when a region's statistics changed since the last one (one write).
    fn report_load(&mut self, lease: i64, now: Millis) {
        if now < self.next_load || !self.is_live(now) {
            return;
        }
        self.next_load = now + self.config.load_period_ms.max(1);
        let counters = self.host.requests();
        let regions = u32::try_from(self.regions.len()).unwrap_or(u32::MAX);
        let load = self.meter.report(now, regions, &counters);
        let mut success = vec![Op::put_leased(
            self.layout.load(&self.name),
            load.encode(),
            lease,
        )];
        let metrics = ServerMetrics {
            regions: self.host.region_metrics().into_iter().collect(),
        }
        .encode();
        let changed = self.last_metrics.as_ref() != Some(&metrics);
        if changed {
            let key = self.layout.metrics(&self.name);
            success.push(Op::put_leased(key, metrics.clone(), lease));
        }
        if self
            .kv
            .txn(Txn {
                compares: vec![],
                success,
            })
            .is_ok()
        {
            self.last_load = Some(load);
            if changed {
                self.last_metrics = Some(metrics);
            }
        }
    }

    fn register(&mut self, lease: Option<LeaseKeeper>, now: Millis) -> Phase {
        let lease = match lease {
            Some(l) if l.valid(now) => l,
            Some(_) => return Phase::Aborted("lease lost while registering".into()),
            None => {
                if let Some(old) = self.predecessor {
                    match self.kv.revoke(old) {
                        // Revoked, or already expired (etcd: "lease not found").
                        Ok(()) | Err(KvError::Invalid(_)) => self.predecessor = None,
                        Err(_) => return Phase::Starting(None),
                    }
                }
                match LeaseKeeper::grant(&self.kv, self.config.ttl_secs, self.config.margin_ms, now)
                {
                    Ok(l) => {
                        self.granted = Some(l.id());
                        l
                    }
                    Err(_) => return Phase::Starting(None),
                }
            }
        };
        let key = self.layout.server(&self.name);
        let txn = Txn {
            compares: vec![Compare::CreateRevision(key.clone(), 0)],
            success: vec![Op::put_leased(
                key.clone(),
                self.address.clone(),
                lease.id(),
            )],
        };
        match self.kv.txn(txn) {
            Ok(out) if !out.succeeded => match self.kv.get(&key) {
                Ok(Some(kv)) if kv.lease == lease.id() => {}
                Ok(_) => {
                    return Phase::Aborted(format!("server name {} already registered", self.name))
                }
                Err(_) => return Phase::Starting(Some(lease)),
            },
            Ok(_) => {}
            Err(_) => return Phase::Starting(Some(lease)),
        }
        match self.watch_inbox() {
            Ok(watch) => Phase::Running { lease, watch },
            Err(_) => Phase::Starting(Some(lease)),
        }
    }

    /// Reads the whole inbox, then watches it from the revision after the read.
    fn watch_inbox(&mut self) -> Result<WatchId, KvError> {
        let prefix = self.layout.inbox(&self.name);
        let page = range_all(&self.kv, &prefix, 1000)?;
        let watch = self.kv.watch(&prefix, page.revision + 1)?;
        self.orders.clear();
        self.order_revs.clear();
        for kv in page.kvs {
            if let (Some(region), Ok(order)) =
                (kv.key.strip_prefix(&prefix), Order::decode(&kv.value))
            {
                self.orders.insert(region.to_string(), order);
                self.order_revs.insert(region.to_string(), kv.mod_revision);
            }
        }
        Ok(watch)
    }

    fn take_orders(&mut self, watch: WatchId) -> Result<WatchId, KvError> {
        let prefix = self.layout.inbox(&self.name);
        match self.kv.poll(watch) {
            Ok(events) => {
                for ev in events {
                    let Some(region) = ev.kv.key.strip_prefix(&prefix) else {
                        continue;
                    };
                    match ev.kind {
                        EventKind::Put => {
                            if let Ok(order) = Order::decode(&ev.kv.value) {
                                // A put is a fresh order: the master may have deleted the ack
                                // of an identical earlier one, so it is acknowledged again.
                                self.orders.insert(region.to_string(), order);
                                self.order_revs
                                    .insert(region.to_string(), ev.kv.mod_revision);
                                self.acked.remove(region);
                            }
                        }
                        EventKind::Delete => {
                            self.orders.remove(region);
                            self.order_revs.remove(region);
                            self.acked.remove(region);
                            // A failed merge may be asked for again at the same epochs (the
                            // regions stayed open): the master deleted this order first.
                            self.merge_failed.remove(region);
                        }
                    }
                }
                Ok(watch)
            }
            Err(KvError::WatchLost(_)) => {
                self.kv.cancel(watch);
                let w = self.watch_inbox()?;
                // Orders may have been deleted and sent again while the watch was lost: every
                // current order is acknowledged again (acks are idempotent puts).
                self.acked.clear();
                Ok(w)
            }
            Err(e) => Err(e),
        }
    }

    /// Carries out a split order (at most once per order; after a failure, again for a fresh
    /// order past the back-off); `None` while it is in progress.
    fn split(
        &mut self,
        region: &str,
        epoch: u64,
        daughters: &(String, String),
        row: Option<&[u8]>,
        now: Millis,
    ) -> Option<Ack> {
        if let Some((e, row)) = self.split_done.get(region) {
            if *e == epoch {
                return Some(Ack::Split(epoch, row.clone()));
            }
        }
        let order = self.order_revs.get(region).copied().unwrap_or(0);
        let backoff = self.config.split_backoff_ms;
        if let Some(f) = self
            .split_failed
            .get_mut(region)
            .filter(|f| f.epoch == epoch)
        {
            let doublings = f
                .failures
                .saturating_sub(1)
                .min(MAX_SPLIT_BACKOFF_DOUBLINGS);
            let wait = backoff.saturating_mul(1 << doublings);
            if f.order == order || now < f.at.saturating_add(wait) {
                // Answered: this order is never tried, even once the back-off passed (the
                // master may be rolling it back already).
                f.order = order;
                return Some(Ack::FailedSplit(epoch));
            }
        }
        if !self.is_live(now) {
            return None;
        }
        let outcome = if self.regions.get(region) == Some(&epoch) {
            self.host.try_split(region, epoch, daughters, row)?
        } else {
            Err(format!("region {region} is not open here at epoch {epoch}"))
        };
        match outcome {
            Ok(row) => {
                self.regions.remove(region);
                self.split_failed.remove(region);
                self.split_done
                    .insert(region.to_string(), (epoch, row.clone()));
                Some(Ack::Split(epoch, row))
            }
            Err(_) => {
                let failures = self
                    .split_failed
                    .get(region)
                    .filter(|f| f.epoch == epoch)
                    .map_or(0, |f| f.failures);
                let failure = SplitFailure {
                    epoch,
                    order,
                    at: now,
                    failures: failures.saturating_add(1),
                };
                self.split_failed.insert(region.to_string(), failure);
                Some(Ack::FailedSplit(epoch))
            }
        }
    }

    /// Carries out a merge order on `low` (at most once per epoch); `None` while it is in
    /// progress.
    fn merge(
        &mut self,
        low: &str,
        epoch: u64,
        (high, high_epoch): (&str, u64),
        merged: &str,
        now: Millis,
    ) -> Option<Ack> {
        if self.merge_done.get(low) == Some(&epoch) {
            return Some(Ack::Merged(epoch));
        }
        if self.merge_failed.get(low) == Some(&epoch) {
            return Some(Ack::FailedMerge(epoch));
        }
        if !self.is_live(now) {
            return None;
        }
        if self.regions.get(low) != Some(&epoch) || self.regions.get(high) != Some(&high_epoch) {
            self.merge_failed.insert(low.to_string(), epoch);
            return Some(Ack::FailedMerge(epoch));
        }
        match self.host.try_merge(low, high, merged)? {
            Ok(()) => {
                self.regions.remove(low);
                self.regions.remove(high);
                self.merge_done.insert(low.to_string(), epoch);
                Some(Ack::Merged(epoch))
            }
            Err(_) => {
                self.merge_failed.insert(low.to_string(), epoch);
                Some(Ack::FailedMerge(epoch))
            }
        }
    }

    /// Makes the open regions match the orders, then writes the acks not yet written.
    fn carry_out(&mut self, lease: i64, now: Millis) {
        let mut acks: Vec<(String, Ack)> = Vec::new();
        let mut opens = 0;
        let orders: Vec<(String, Order)> = self
            .orders
            .iter()
            .map(|(r, o)| (r.clone(), o.clone()))
            .collect();
        for (region, order) in orders {
            let ack = match order {
                Order::Open { epoch } => {
                    let seen = self.seen.get(&region).copied().unwrap_or(0);
                    if self.regions.get(&region) == Some(&epoch) {
                        Ack::Opened(epoch)
                    } else if self.failed.get(&region) == Some(&epoch) {
                        // Never retried at the same epoch: the master may already have moved on.
                        Ack::FailedOpen(epoch)
                    } else if epoch < seen
                        || !self.is_live(now)
                        // Only new opens count: asking after one in flight costs nothing.
                        || (seen != epoch && opens >= self.config.opens_per_tick)
                    {
                        continue;
                    } else {
                        if seen != epoch {
                            opens += 1;
                        }
                        self.seen.insert(region.clone(), epoch);
                        match self.host.try_open(&region, epoch) {
                            // Still opening: no acknowledgement yet; asked again next tick.
                            None => continue,
                            Some(Ok(())) => {
                                self.regions.insert(region.clone(), epoch);
                                Ack::Opened(epoch)
                            }
                            Some(Err(_)) => {
                                self.failed.insert(region.clone(), epoch);
                                Ack::FailedOpen(epoch)
                            }
                        }
                    }
                }
                Order::Close { epoch } => {
                    if self.regions.contains_key(&region) {
                        match self.host.try_close(&region) {
                            // Still flushing: acknowledged at a later tick.
                            None => continue,
                            Some(Err(e)) => {
                                self.abort(&format!("close of {region} failed: {e}"));
                                return;
                            }
                            Some(Ok(())) => {
                                self.regions.remove(&region);
                            }
                        }
                    } else {
                        self.host.cancel_open(&region);
                    }
                    Ack::Closed(epoch)
                }
                Order::Split {
                    epoch,
                    daughters,
                    row,
                } => match self.split(&region, epoch, &daughters, row.as_deref(), now) {
                    Some(ack) => ack,
                    None => continue,
                },
                Order::Merge {
                    epoch,
                    high,
                    high_epoch,
                    merged,
                } => match self.merge(&region, epoch, (&high, high_epoch), &merged, now) {
                    Some(ack) => ack,
                    None => continue,
                },
            };
            if self.acked.get(&region) != Some(&ack) {
                acks.push((region, ack));
            }
        }
        if opens > 0 || !acks.is_empty() {
            self.last_progress = Some(now);
        }
        for chunk in acks.chunks(self.kv.max_txn_ops()) {
            let ops = chunk
                .iter()
                .map(|(r, a)| Op::put_leased(self.layout.ack(&self.name, r), a.encode(), lease))
                .collect();
            if self
                .kv
                .txn(Txn {
                    compares: vec![],
                    success: ops,
                })
                .is_ok()
            {
                for (r, a) in chunk {
                    self.acked.insert(r.clone(), a.clone());
                }
            }
        }
    }
}
