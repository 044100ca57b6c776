//! [`StorageHost`]: the [`RegionHost`] of a region server with data. An open order opens the
//! region from the shared root (its key range from its record in etcd, its schema from
//! `schema/<table>`), replaying recovered edits first; a close order flushes it; an abort
//! forgets every region without flushing (their edits stay in this server's WAL, which the
//! master fences and splits). A split order splits an open region with `Region::split`
//! (compacting a daughter's references to its own parent first) on a thread of its own; the
//! daughters' storage ids come from their cluster names, as any region's. A merge order
//! merges two open regions with `Region::merge` the same way.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use parking_lot::Mutex;
use strata_cluster::host::RegionHost;
use strata_cluster::kv::Kv;
use strata_cluster::layout::Layout;
use strata_cluster::load::Accesses;
use strata_cluster::record::RegionRecord;
use strata_cluster::region_metrics::RegionMetrics;
use strata_server::{RegionFigures, RegionServer};
use strata_storage::manifest::RegionInfo;

use crate::names::region_id;
use crate::recovered::recovered_logs;
use crate::schema::SchemaCache;
use crate::serve::micros_since_epoch;

/// Where an open stands.
enum Slot {
    /// Running on its own thread, for this epoch.
    Opening(u64),
    /// Open under this storage id.
    Open(u64),
    /// Failed at this epoch (reported once).
    Failed(u64, String),
    /// Being closed (flushed) on its own thread.
    Closing,
    /// Closed, or its flush failed (reported once).
    Closed(Result<(), String>),
    /// Open under this storage id and being split on its own thread, for this epoch.
    Splitting(u64, u64),
    /// Split at this epoch at this row (reported once; then forgotten).
    Split(u64, Vec<u8>),
    /// The split at this epoch failed; still open under this storage id (reported once).
    SplitFailed(u64, u64, String),
    /// Open under this storage id and being merged (with its neighbour) into this region, on
    /// a thread of its own.
    Merging(u64, String),
    /// The lower region of a merge into this region, done (reported once; then forgotten).
    Merged(String),
    /// The merge into this region failed; still open under this storage id (reported once).
    MergeFailed(u64, String, String),
}

/// Most region opens running at once. Each open reads etcd and the shared root on a thread
/// of its own; without a bound, an order to open 1,000 regions started 1,000 threads at once,
/// which starved the coordination thread until its lease deadline passed and the server
/// aborted (HBase opens regions on a pool of 3 threads by default). Opens past the bound queue
/// and a running open takes the next one up when it ends, so a server ordered to open
/// thousands of regions keeps the bound busy instead of starting eight per tick.
pub const MAX_OPENS_IN_FLIGHT: usize = 8;

struct Shared<K> {
    server: Arc<RegionServer>,
    /// The region server's cluster name (`host:port:startcode`), in the log lines of the
    /// regions it serves.
    name: String,
    /// Opens running now (at most [`MAX_OPENS_IN_FLIGHT`]).
    opening: AtomicUsize,
    /// The most opens that ever ran at once.
    most_opening: AtomicUsize,
    kv: Arc<K>,
    layout: Layout,
    root: PathBuf,
    /// Regions by cluster name.
    slots: Mutex<BTreeMap<String, Slot>>,
    /// Told when an open fails for a reason of configuration (see
    /// [`crate::serve::NodeConfig::on_invalid_open`]).
    on_invalid_open: Option<crate::serve::InvalidOpen>,
    /// Opens waiting for a running one to end, in order (their slots say `Opening`). Only
    /// touched under `slots`' lock, so an open is never queued after the last running one
    /// looked.
    queued: Mutex<std::collections::VecDeque<(String, u64)>>,
    /// Schemas decoded once per change, not once per region opened.
    schemas: SchemaCache,
}

/// Regions of a cluster opened on a [`RegionServer`] over the shared root. Opens run on
/// threads of their own ([`RegionHost::try_open`]), so replaying recovered edits from shared
/// storage never delays the lease's renewals.
pub struct StorageHost<K: Kv> {
    shared: Arc<Shared<K>>,
}

impl<K: Kv + Send + Sync + 'static> StorageHost<K> {
    /// A host opening regions of the cluster under `layout` (read through `kv`) from `root` on
    /// `server`'s storage, for the region server named `name`.
    pub fn new(
        name: String,
        server: Arc<RegionServer>,
        kv: Arc<K>,
        layout: Layout,
        root: PathBuf,
    ) -> Self {
        StorageHost {
            shared: Arc::new(Shared {
                server,
                name,
                kv,
                layout,
                root,
                slots: Mutex::new(BTreeMap::new()),
                queued: Mutex::default(),
                schemas: SchemaCache::default(),
                opening: AtomicUsize::new(0),
                most_opening: AtomicUsize::new(0),
                on_invalid_open: None,
            }),
        }
    }

    /// The same host, calling `hook` when an open fails for a reason of configuration.
    ///
    /// # Panics
    /// The host is shared already (call this right after [`StorageHost::new`]).
    #[must_use]
    pub fn on_invalid_open(mut self, hook: Option<crate::serve::InvalidOpen>) -> Self {
        Arc::get_mut(&mut self.shared)
            .expect("a host not shared yet")
            .on_invalid_open = hook;
        self
    }

    /// Opens running now, and the most that ever ran at once.
    pub fn opens_in_flight(&self) -> (usize, usize) {
        (
            self.shared.opening.load(Ordering::SeqCst),
            self.shared.most_opening.load(Ordering::SeqCst),
        )
    }

    /// The region server.
    pub fn server(&self) -> &Arc<RegionServer> {
        &self.shared.server
    }

    /// The regions open here (cluster names).
    pub fn regions(&self) -> Vec<String> {
        self.open_regions().into_iter().map(|(r, _)| r).collect()
    }

    /// The regions open here (and not splitting): cluster names and storage ids.
    pub fn open_regions(&self) -> Vec<(String, u64)> {
        self.shared
            .slots
            .lock()
            .iter()
            .filter_map(|(r, s)| match s {
                Slot::Open(id) => Some((r.clone(), *id)),
                _ => None,
            })
            .collect()
    }
}

impl<K: Kv> Clone for StorageHost<K> {
    fn clone(&self) -> Self {
        StorageHost {
            shared: self.shared.clone(),
        }
    }
}

impl<K: Kv> Shared<K> {
    /// Splits open region `id` into the regions named `daughters` at `row` (or its middle
    /// key); compacts away references to its own parent first. Answers the split row.
    fn split_now(
        &self,
        id: u64,
        daughters: &(String, String),
        row: Option<Vec<u8>>,
    ) -> Result<Vec<u8>, String> {
        let storage_id = |name: &str| {
            region_id(name)
                .map(|(_, id)| id)
                .ok_or_else(|| format!("bad region name {name}"))
        };
        let ids = (storage_id(&daughters.0)?, storage_id(&daughters.1)?);
        let started = std::time::Instant::now();
        // A daughter of an earlier split compacts its references away first (the upkeep
        // thread may be doing so right now: then this waits for it).
        let mut attempts = 0;
        while self
            .server
            .region_stats(id)
            .map_err(|e| e.to_string())?
            .has_references
        {
            attempts += 1;
            if attempts > 100 {
                return Err("its references to its parent's files remain after compacting".into());
            }
            self.server
                .compact_region(id, None, false)
                .map_err(|e| format!("compact before the split: {e}"))?;
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let (_, high) = self
            .server
            .split_region(id, row.map(Bytes::from), ids)
            .map_err(|e| format!("split: {e}"))?;
        tracing::info!(
            parent = id,
            daughters = ?daughters,
            split_row = %String::from_utf8_lossy(&high.start_row),
            ms = started.elapsed().as_millis() as u64,
            "region split"
        );
        Ok(high.start_row.to_vec())
    }

    /// Merges open regions `low` and `high` (storage ids) into region `merged`, compacting
    /// away references each still has to its own parents first.
    fn merge_now(&self, low: u64, high: u64, merged: &str) -> Result<(), String> {
        let (_, merged_id) =
            region_id(merged).ok_or_else(|| format!("bad region name {merged}"))?;
        let started = std::time::Instant::now();
        for id in [low, high] {
            let mut attempts = 0;
            while self
                .server
                .region_stats(id)
                .map_err(|e| e.to_string())?
                .has_references
            {
                attempts += 1;
                if attempts > 100 {
                    return Err("references to a parent's files remain after compacting".into());
                }
                self.server
                    .compact_region(id, None, false)
                    .map_err(|e| format!("compact before the merge: {e}"))?;
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
        }
        self.server
            .merge_regions(low, high, merged_id)
            .map_err(|e| format!("merge: {e}"))?;
        tracing::info!(
            parents = ?(low, high),
            merged,
            ms = started.elapsed().as_millis() as u64,
            "regions merged"
        );
        Ok(())
    }

    /// Opens `region`. Logs `region open` with the wall time just before the region could
    /// take requests (`since_us`), and `region closed` (below) with a time after it could
    /// not any more: the intervals the fault harness checks for regions served twice.
    fn open_now(&self, region: &str, epoch: u64) -> Result<u64, String> {
        let (table, id) = region_id(region).ok_or_else(|| format!("bad region name {region}"))?;
        let record = self
            .kv
            .get(&self.layout.region(region))
            .map_err(|e| e.to_string())?
            .ok_or_else(|| format!("region {region} has no record"))?;
        let record = RegionRecord::decode(&record.value).map_err(|e| e.to_string())?;
        let schema = self.schemas.get(self.kv.as_ref(), &self.layout, &table)?;
        let info = RegionInfo {
            table: schema.name.to_string(),
            region_id: id,
            start_row: Bytes::from(record.start),
            end_row: Bytes::from(record.end),
        };
        let started = std::time::Instant::now();
        // A dead server's edits of the region, replayed in its open (flushed and deleted
        // before it serves).
        let recovered = recovered_logs(&self.server, &self.root, id)?;
        let since_us = micros_since_epoch();
        if let Err(e) = self
            .server
            .open_region_recovering(&schema, &info, &recovered)
        {
            let why = format!("open {region}: {e}");
            if is_configuration_error(&e) {
                tracing::error!(region, error = %e, "region cannot open with this configuration");
                if let Some(hook) = &self.on_invalid_open {
                    hook(&why);
                }
            }
            return Err(why);
        }
        tracing::info!(
            region,
            server = %self.name,
            epoch,
            since_us,
            recovered = recovered.len(),
            ms = started.elapsed().as_millis() as u64,
            "region open"
        );
        Ok(id)
    }

    /// Records the outcome of the open of `region` at `epoch`, unless it was given up (then
    /// the region is closed again).
    /// Opens `region` at `epoch`, then every queued open still wanted, until none is left.
    fn open_all(&self, mut region: String, mut epoch: u64) {
        loop {
            let outcome = self.open_now(&region, epoch);
            self.finish(&region, epoch, outcome);
            let slots = self.slots.lock();
            let mut queued = self.queued.lock();
            let next = loop {
                match queued.pop_front() {
                    // Cancelled or ordered again at another epoch meanwhile: skipped.
                    Some((r, e)) if matches!(slots.get(&r), Some(Slot::Opening(o)) if *o == e) => {
                        break Some((r, e));
                    }
                    Some(_) => {}
                    None => break None,
                }
            };
            match next {
                Some((r, e)) => (region, epoch) = (r, e),
                None => {
                    self.opening.fetch_sub(1, Ordering::SeqCst);
                    return;
                }
            }
        }
    }

    /// Closes open region `region` (storage id `id`), flushing it; logs `region closed` once
    /// it takes no request (a failed flush leaves it open).
    fn close_now(&self, region: &str, id: u64) -> Result<(), String> {
        self.server
            .close_region(id, true)
            .map_err(|e| format!("close {region}: {e}"))?;
        tracing::info!(
            region,
            server = %self.name,
            until_us = micros_since_epoch(),
            "region closed"
        );
        Ok(())
    }

    fn finish(&self, region: &str, epoch: u64, outcome: Result<u64, String>) {
        let mut slots = self.slots.lock();
        let wanted = matches!(slots.get(region), Some(Slot::Opening(e)) if *e == epoch);
        match (wanted, outcome) {
            (true, Ok(id)) => {
                slots.insert(region.to_string(), Slot::Open(id));
            }
            (true, Err(e)) => {
                tracing::warn!(region, error = %e, "region open failed");
                slots.insert(region.to_string(), Slot::Failed(epoch, e));
            }
            (false, Ok(id)) => {
                drop(slots);
                let _ = self.close_now(region, id);
            }
            (false, Err(_)) => {}
        }
    }
}

impl<K: Kv + Send + Sync + 'static> RegionHost for StorageHost<K> {
    fn open(&self, region: &str, epoch: u64) -> Result<(), String> {
        loop {
            match self.try_open(region, epoch) {
                Some(outcome) => return outcome,
                None => std::thread::sleep(std::time::Duration::from_millis(10)),
            }
        }
    }

    fn try_open(&self, region: &str, epoch: u64) -> Option<Result<(), String>> {
        let mut slots = self.shared.slots.lock();
        match slots.get(region) {
            Some(Slot::Open(_)) => return Some(Ok(())),
            Some(Slot::Opening(e)) if *e == epoch => return None,
            Some(Slot::Failed(e, _)) if *e == epoch => {
                let Some(Slot::Failed(_, why)) = slots.remove(region) else {
                    return None;
                };
                return Some(Err(why));
            }
            _ => {}
        }
        // At the bound, queued: a running open takes it up when it ends (the region server
        // asks again at its next tick and finds it opening or done).
        slots.insert(region.to_string(), Slot::Opening(epoch));
        if self.shared.opening.load(Ordering::SeqCst) >= MAX_OPENS_IN_FLIGHT {
            self.shared
                .queued
                .lock()
                .push_back((region.to_string(), epoch));
            return None;
        }
        // Only this call, under the slots lock, adds; a worker subtracts under it too.
        let now = self.shared.opening.fetch_add(1, Ordering::SeqCst) + 1;
        self.shared.most_opening.fetch_max(now, Ordering::SeqCst);
        drop(slots);
        let shared = self.shared.clone();
        let name = region.to_string();
        let spawned = std::thread::Builder::new()
            .name("region-open".into())
            .spawn(move || shared.open_all(name, epoch));
        match spawned {
            Ok(_) => None,
            Err(e) => {
                self.shared.opening.fetch_sub(1, Ordering::SeqCst);
                self.shared.slots.lock().remove(region);
                Some(Err(format!("cannot start the open of {region}: {e}")))
            }
        }
    }

    fn try_close(&self, region: &str) -> Option<Result<(), String>> {
        let mut slots = self.shared.slots.lock();
        let id = match slots.get(region) {
            Some(Slot::Open(id)) => *id,
            Some(Slot::Closing) => return None,
            Some(Slot::Closed(_)) => {
                let Some(Slot::Closed(outcome)) = slots.remove(region) else {
                    return None;
                };
                return Some(outcome);
            }
            _ => return Some(Ok(())),
        };
        slots.insert(region.to_string(), Slot::Closing);
        drop(slots);
        let shared = self.shared.clone();
        let name = region.to_string();
        let spawned = std::thread::Builder::new()
            .name("region-close".into())
            .spawn(move || {
                let outcome = shared.close_now(&name, id);
                let mut slots = shared.slots.lock();
                if matches!(slots.get(&name), Some(Slot::Closing)) {
                    slots.insert(name, Slot::Closed(outcome));
                }
            });
        match spawned {
            Ok(_) => None,
            Err(e) => {
                self.shared
                    .slots
                    .lock()
                    .insert(region.to_string(), Slot::Open(id));
                Some(Err(format!("cannot start the close of {region}: {e}")))
            }
        }
    }

    fn try_split(
        &self,
        region: &str,
        epoch: u64,
        daughters: &(String, String),
        row: Option<&[u8]>,
    ) -> Option<Result<Vec<u8>, String>> {
        let mut slots = self.shared.slots.lock();
        let id = match slots.get(region) {
            Some(Slot::Open(id)) => *id,
            Some(Slot::Splitting(_, e)) if *e == epoch => return None,
            Some(Slot::Split(e, _)) if *e == epoch => {
                let Some(Slot::Split(_, row)) = slots.remove(region) else {
                    return None;
                };
                return Some(Ok(row));
            }
            Some(Slot::SplitFailed(id, e, _)) if *e == epoch => {
                let id = *id;
                let Some(Slot::SplitFailed(_, _, why)) =
                    slots.insert(region.to_string(), Slot::Open(id))
                else {
                    return None;
                };
                return Some(Err(why));
            }
            _ => return Some(Err(format!("region {region} is not open here"))),
        };
        slots.insert(region.to_string(), Slot::Splitting(id, epoch));
        drop(slots);
        let shared = self.shared.clone();
        let name = region.to_string();
        let daughters = daughters.clone();
        let row = row.map(<[u8]>::to_vec);
        let spawned = std::thread::Builder::new()
            .name("region-split".into())
            .spawn(move || {
                let outcome = shared.split_now(id, &daughters, row);
                let mut slots = shared.slots.lock();
                if !matches!(slots.get(&name), Some(Slot::Splitting(..))) {
                    return; // aborted meanwhile
                }
                let slot = match outcome {
                    Ok(row) => Slot::Split(epoch, row),
                    Err(e) => {
                        tracing::warn!(region = %name, error = %e, "region split failed");
                        Slot::SplitFailed(id, epoch, e)
                    }
                };
                slots.insert(name, slot);
            });
        match spawned {
            Ok(_) => None,
            Err(e) => {
                self.shared
                    .slots
                    .lock()
                    .insert(region.to_string(), Slot::Open(id));
                Some(Err(format!("cannot start the split of {region}: {e}")))
            }
        }
    }

    fn try_merge(&self, low: &str, high: &str, merged: &str) -> Option<Result<(), String>> {
        let mut slots = self.shared.slots.lock();
        match slots.get(low) {
            Some(Slot::Merging(_, m)) if m == merged => return None,
            Some(Slot::Merged(m)) if m == merged => {
                slots.remove(low);
                return Some(Ok(()));
            }
            Some(Slot::MergeFailed(id, m, _)) if m == merged => {
                let id = *id;
                let Some(Slot::MergeFailed(_, _, why)) =
                    slots.insert(low.to_string(), Slot::Open(id))
                else {
                    return None;
                };
                return Some(Err(why));
            }
            _ => {}
        }
        let (Some(Slot::Open(l)), Some(Slot::Open(h))) = (slots.get(low), slots.get(high)) else {
            return Some(Err(format!(
                "regions {low} and {high} are not both open here"
            )));
        };
        let (l, h) = (*l, *h);
        slots.insert(low.to_string(), Slot::Merging(l, merged.to_string()));
        slots.insert(high.to_string(), Slot::Merging(h, merged.to_string()));
        drop(slots);
        let shared = self.shared.clone();
        let (low_name, high_name, merged_name) =
            (low.to_string(), high.to_string(), merged.to_string());
        let spawned = std::thread::Builder::new()
            .name("region-merge".into())
            .spawn(move || {
                let outcome = shared.merge_now(l, h, &merged_name);
                let mut slots = shared.slots.lock();
                if !matches!(slots.get(&low_name), Some(Slot::Merging(..))) {
                    return; // aborted meanwhile
                }
                match outcome {
                    Ok(()) => {
                        slots.remove(&high_name);
                        slots.insert(low_name, Slot::Merged(merged_name));
                    }
                    Err(e) => {
                        tracing::warn!(region = %low_name, error = %e, "region merge failed");
                        slots.insert(high_name, Slot::Open(h));
                        slots.insert(low_name, Slot::MergeFailed(l, merged_name, e));
                    }
                }
            });
        match spawned {
            Ok(_) => None,
            Err(e) => {
                let mut slots = self.shared.slots.lock();
                slots.insert(low.to_string(), Slot::Open(l));
                slots.insert(high.to_string(), Slot::Open(h));
                Some(Err(format!("cannot start the merge of {low}: {e}")))
            }
        }
    }

    fn cancel_open(&self, region: &str) {
        let mut slots = self.shared.slots.lock();
        if matches!(slots.get(region), Some(Slot::Opening(_) | Slot::Failed(..))) {
            slots.remove(region);
        }
    }

    fn close(&self, region: &str) -> Result<(), String> {
        let id = match self.shared.slots.lock().get(region) {
            Some(Slot::Open(id)) => *id,
            _ => return Ok(()),
        };
        self.shared
            .server
            .close_region(id, true)
            .map_err(|e| format!("close {region}: {e}"))?;
        self.shared.slots.lock().remove(region);
        Ok(())
    }

    /// Reads and writes each open region was asked since it opened here (the hosted region's
    /// counts, RFC 0028: row-cache hits included, as in HBase's request counts).
    fn requests(&self) -> Vec<(String, Accesses)> {
        self.open_regions()
            .into_iter()
            .filter_map(|(r, id)| {
                let hosted = self.shared.server.hosted(id).ok()?;
                let n = Accesses {
                    reads: hosted.load.reads(),
                    writes: hosted.load.writes(),
                };
                Some((r, n))
            })
            .collect()
    }

    /// Each open region's figures (`RegionFigures`: sizes, and the requests it served since
    /// it opened here).
    fn region_metrics(&self) -> Vec<(String, RegionMetrics)> {
        self.open_regions()
            .into_iter()
            .filter_map(|(r, id)| {
                let f = RegionFigures::of(&self.shared.server.hosted(id).ok()?);
                let m = RegionMetrics {
                    stores: f.stores,
                    store_files: f.store_files,
                    store_bytes: f.store_bytes,
                    memtable_bytes: f.memtable_bytes,
                    reads: f.reads,
                    writes: f.writes,
                    last_major_compaction_ms: f.last_major_compaction_ms,
                };
                Some((r, m))
            })
            .collect()
    }

    fn abort(&self) {
        let slots = std::mem::take(&mut *self.shared.slots.lock());
        for slot in slots.into_values() {
            if let Slot::Open(id)
            | Slot::Splitting(id, _)
            | Slot::SplitFailed(id, ..)
            | Slot::Merging(id, _)
            | Slot::MergeFailed(id, ..) = slot
            {
                let _ = self.shared.server.close_region(id, false);
            }
        }
    }
}

/// Whether an open failed because of the region's configuration (a volume not declared, a
/// schema the engine refuses), which no retry mends. The region server's own refusals of an
/// open that races another (already open, overlapping an open region) are not.
fn is_configuration_error(e: &strata_storage::Error) -> bool {
    match e {
        strata_storage::Error::InvalidArgument(m) => {
            !m.contains("is already open") && !m.contains("overlaps")
        }
        _ => false,
    }
}
