//! The set of regions a server hosts, and routing a (table, row) to one of them.
//!
//! # Invariants
//! 1. Regions of one table hosted here never overlap: `open_region` refuses a range that
//!    overlaps an open region of the same table.
//! 2. A request for a row no open region covers gets `NotServingRegion`, so a client with a
//!    stale location relocates instead of reading the wrong region.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Bound;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use parking_lot::RwLock;
use strata_model::schema::TableDescriptor;
use strata_sstable::BlockCache;
use strata_storage::background::{Background, MemoryBudget};
use strata_storage::clock::{Clock, SystemClock};
use strata_storage::compaction::exploring::MajorRequest;
use strata_storage::events::{failed, Place, Work};
use strata_storage::manifest::RegionInfo;
use strata_storage::periodic::Periodic;
use strata_storage::region::region_dir_name;
use strata_storage::tier_check::{RegionList, TierCheckStats, TierChecker};
use strata_storage::tiers::Volumes;
use strata_storage::wal::Wal;
use strata_storage::{Error, Region, RegionConfig, Result};

use crate::config::ServerConfig;
use crate::flush_check::{self, FlushCheckStats};
use crate::inline::ReadGate;
use crate::memory_tuner::{MemoryTuner, Parts, TunerStats};
use crate::observe::Observer;
use crate::row_cache::{RegionCache, RowCache, RowCacheStats};
use crate::write_queue::WriteQueues;

pub use crate::region_stats::{RegionFigures, RegionStats, ServerCounters, WorkDone};

/// One open region and the schema it was opened with.
///
/// Serve data requests through its methods (`get`, `mutate_row`, `batch`,
/// `check_and_mutate`, in `row_cache/hosted.rs`), not through `region` directly: a write
/// that bypasses them leaves the row cache stale.
#[derive(Clone)]
pub struct HostedRegion {
    /// The region.
    pub region: Region,
    /// Its table's schema.
    pub table: Arc<TableDescriptor>,
    /// Its handle on the server's row cache (disabled unless a family sets `ROW_CACHE`).
    pub row_cache: RegionCache,
    /// Its requests, for splits by load.
    pub load: Arc<crate::load_split::RegionLoad>,
}

/// How often every region gets a compaction check, whatever its writes: periodic majors, TTL
/// drops and tier moves come due with time alone. HBase's compaction checker period
/// (`hbase.server.thread.wakefrequency` 10 s × `…compactchecker.interval.multiplier` 1000);
/// flushes ask for checks of their own, so only idle regions wait this long. (Once a minute
/// cost workload C a third of its throughput: a compaction a check found replaced files
/// whose blocks the cache then had to load again.) The standalone master and a cluster region
/// server's upkeep both call [`RegionServer::request_compaction_checks`] this often.
pub const COMPACTION_CHECK_EVERY: std::time::Duration = std::time::Duration::from_secs(10_000);

/// A region server: regions over one WAL, one memtable budget, one block cache and one pool
/// of background workers.
pub struct RegionServer {
    config: ServerConfig,
    wal: Arc<Wal>,
    cache: Option<Arc<BlockCache>>,
    row_cache: Option<Arc<RowCache>>,
    background: Arc<Background>,
    budget: Arc<MemoryBudget>,
    volumes: Arc<Volumes>,
    clock: Arc<dyn Clock>,
    regions: RwLock<Regions>,
    counters: ServerCounters,
    observer: Observer,
    reads: ReadGate,
    writes: Arc<WriteQueues>,
    started: Instant,
    /// The periodic tier check of the open regions (none when its interval is zero).
    tier_checker: parking_lot::Mutex<Option<TierChecker>>,
    /// The periodic flush check (none when its interval is zero), and what it did.
    flush_checker: parking_lot::Mutex<Option<Periodic>>,
    flush_counters: Arc<flush_check::Counters>,
    /// Tables (`ns:table`) whose compactions a space quota stopped (RFC 0029).
    compactions_stopped: RwLock<HashSet<String>>,
    /// The split of memory between memtables and caches, and its thread when it runs.
    memory_tuner: MemoryTuner,
    memory_tuner_thread: parking_lot::Mutex<Option<Periodic>>,
    /// The nonces of increments and appends run here (RFC 0032).
    nonces: crate::nonces::Nonces,
}

#[derive(Default)]
struct Regions {
    by_id: HashMap<u64, HostedRegion>,
    /// table → start row → region id.
    by_table: HashMap<String, BTreeMap<Bytes, u64>>,
}

impl RegionServer {
    /// Opens the server's WAL and shared resources; no region is open yet.
    ///
    /// # Errors
    /// The data directory or the WAL cannot be opened.
    pub fn open(config: ServerConfig) -> Result<Arc<RegionServer>> {
        let storage = &config.storage;
        storage
            .files
            .create_dir_all(&config.data_dir)
            .map_err(|e| Error::Io {
                path: storage.files.url(&config.data_dir),
                source: e,
            })?;
        if !storage.is_local() && !config.volumes.is_empty() {
            return Err(Error::InvalidArgument(
                "volumes are for local data directories; on a shared store, families and the \
                 WAL are placed by their storage policies"
                    .into(),
            ));
        }
        let mut volumes = Volumes::new(
            &config.data_dir,
            config.data_dir_type,
            config.volumes.clone(),
        )
        .map_err(Error::InvalidArgument)?
        .with_files(storage.files.clone())
        .with_archive(config.archive_discarded);
        if let Some((volume, files)) = &config.cold_volume {
            // On any root: the manifest names a file's tier, and the ARCHIVE volume's store
            // is configuration (RFC 0011, "The ARCHIVE tier as a bucket").
            volumes = volumes
                .with_remote(volume.clone(), files.clone())
                .map_err(Error::InvalidArgument)?;
        }
        let volumes = Arc::new(volumes);
        let wal = Arc::new(Wal::open_with(
            crate::wal_place::wal_dir(
                storage,
                &volumes,
                config.wal_storage_policy,
                config.wal_subdir.as_deref(),
            )?,
            config.wal.clone(),
            storage.logs.clone(),
        )?);
        let cache = (config.block_cache_bytes > 0)
            .then(|| Arc::new(BlockCache::new(config.block_cache_bytes)));
        let clock: Arc<dyn Clock> = Arc::new(SystemClock);
        let row_cache = (config.row_cache_bytes > 0)
            .then(|| Arc::new(RowCache::new(config.row_cache_bytes, clock.clone())));
        let observer = Observer::new(config.slow_op_threshold, config.heatmap_slot);
        let budget = MemoryBudget::new(config.memtable_budget_bytes);
        let memory_tuner = MemoryTuner::new(
            config.memory_tuner,
            &Parts {
                budget: &budget,
                block_cache: cache.as_deref(),
                row_cache: row_cache.as_deref(),
            },
        );
        if config.memory_tuner.enabled {
            config
                .memory_tuner
                .check([
                    config.memtable_budget_bytes,
                    cache.as_ref().map_or(0, |c| c.capacity()),
                    row_cache.as_ref().map_or(0, |_| config.row_cache_bytes),
                ])
                .map_err(Error::InvalidArgument)?;
        }
        let server = Arc::new(RegionServer {
            volumes,
            background: Background::with_priority(
                config.background_threads.max(1),
                config.compaction_nice,
            ),
            budget,
            config,
            wal,
            cache,
            row_cache,
            clock,
            regions: RwLock::new(Regions::default()),
            compactions_stopped: RwLock::new(HashSet::new()),
            counters: ServerCounters::default(),
            observer,
            reads: ReadGate::default(),
            writes: Arc::default(),
            started: Instant::now(),
            tier_checker: parking_lot::Mutex::new(None),
            flush_checker: parking_lot::Mutex::new(None),
            flush_counters: Arc::default(),
            memory_tuner,
            memory_tuner_thread: parking_lot::Mutex::new(None),
            nonces: crate::nonces::Nonces::default(),
        });
        server.config.compaction_throughput.attach(&server);
        server.start_tier_checks()?;
        server.start_flush_checks()?;
        server.start_memory_tuner()?;
        Ok(server)
    }

    /// Starts the memory tuner's periods, if it is on; the thread holds the server weakly.
    fn start_memory_tuner(self: &Arc<Self>) -> Result<()> {
        let tuner = self.config.memory_tuner;
        if !tuner.enabled {
            return Ok(());
        }
        let weak = Arc::downgrade(self);
        let periodic = Periodic::start("strata-memory-tuner", tuner.period, move || {
            if let Some(server) = weak.upgrade() {
                server.tune_memory();
            }
        })
        .map_err(|e| Error::InvalidArgument(format!("cannot start the memory tuner: {e}")))?;
        *self.memory_tuner_thread.lock() = Some(periodic);
        Ok(())
    }

    /// The parts of memory the tuner moves between.
    pub fn memory_parts(&self) -> Parts<'_> {
        Parts {
            budget: &self.budget,
            block_cache: self.cache.as_deref(),
            row_cache: self.row_cache.as_deref(),
        }
    }

    /// One period of the memory tuner now (its thread calls this every period).
    pub fn tune_memory(&self) -> Option<crate::memory_tuner::Move> {
        self.memory_tuner.tick(&self.memory_parts())
    }

    /// What the memory tuner did so far (its moves stay empty while it is off).
    pub fn memory_tuner_stats(&self) -> TunerStats {
        self.memory_tuner.stats()
    }

    /// Starts the periodic tier check of the open regions, unless its interval is zero. The
    /// checker holds the server weakly, so it never keeps a dropped server alive.
    fn start_tier_checks(self: &Arc<Self>) -> Result<()> {
        let every = self.config.tier_check_every;
        if every.is_zero() {
            return Ok(());
        }
        let weak = Arc::downgrade(self);
        let regions: RegionList = Arc::new(move || {
            weak.upgrade().map_or_else(Vec::new, |server| {
                let open = server.regions.read();
                open.by_id.values().map(|h| h.region.clone()).collect()
            })
        });
        let checker = TierChecker::start(every, regions).map_err(|e| {
            Error::InvalidArgument(format!("cannot start the tier check thread: {e}"))
        })?;
        *self.tier_checker.lock() = Some(checker);
        Ok(())
    }

    /// Starts the periodic flush check ([`crate::flush_check`]) and idle merges, unless both
    /// are off. The thread wakes at the shorter interval, holds the server weakly, and runs a
    /// flush round once `every` has passed since the previous one.
    fn start_flush_checks(self: &Arc<Self>) -> Result<()> {
        let check = self.config.flush_check;
        let Some(tick) = check.tick() else {
            return Ok(());
        };
        let weak = Arc::downgrade(self);
        let mut last_flush_round = Instant::now();
        let periodic = Periodic::start("strata-flush-check", tick, move || {
            if let Some(server) = weak.upgrade() {
                let regions: Vec<Region> = server
                    .hosted_regions()
                    .into_iter()
                    .map(|h| h.region)
                    .collect();
                let mut flushing = Vec::new();
                if check.flushes() && last_flush_round.elapsed() >= check.every {
                    last_flush_round = Instant::now();
                    let now = server.clock.now_ms();
                    flushing = flush_check::round(
                        &check,
                        &regions,
                        &server.wal,
                        now,
                        &server.flush_counters,
                    );
                }
                if !check.idle_merge_after.is_zero() {
                    flush_check::merge_idle(&regions, &flushing, &server.flush_counters);
                }
            }
        })
        .map_err(|e| Error::InvalidArgument(format!("cannot start the flush check thread: {e}")))?;
        *self.flush_checker.lock() = Some(periodic);
        Ok(())
    }

    /// What the periodic flush check did so far.
    pub fn flush_check_stats(&self) -> FlushCheckStats {
        self.flush_counters.stats()
    }

    /// What the periodic tier check did so far (`None` when it is off).
    pub fn tier_check_stats(&self) -> Option<TierCheckStats> {
        self.tier_checker.lock().as_ref().map(TierChecker::stats)
    }

    /// The nonces of the increments and appends run here (RFC 0032).
    pub fn nonces(&self) -> &crate::nonces::Nonces {
        &self.nonces
    }

    /// The server's settings.
    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    /// Server-wide counters.
    pub fn counters(&self) -> &ServerCounters {
        &self.counters
    }

    /// Request figures, slow operations and key-access heatmaps.
    pub fn observer(&self) -> &Observer {
        &self.observer
    }

    /// The regions' write queues ([`crate::write_queue`]), whichever protocol writes.
    pub fn writes(&self) -> &Arc<WriteQueues> {
        &self.writes
    }

    /// The reads in flight, whichever protocol serves them: who may run inline
    /// ([`crate::inline`]).
    pub fn reads(&self) -> &ReadGate {
        &self.reads
    }

    /// Time since the server opened.
    pub fn uptime(&self) -> std::time::Duration {
        self.started.elapsed()
    }

    /// The shared WAL.
    pub fn wal(&self) -> &Arc<Wal> {
        &self.wal
    }

    /// The shared block cache, if enabled.
    pub fn block_cache(&self) -> Option<&Arc<BlockCache>> {
        self.cache.as_ref()
    }

    /// The row cache's counters and sizes (all zero when it is disabled).
    pub fn row_cache_stats(&self) -> RowCacheStats {
        self.row_cache
            .as_ref()
            .map_or_else(RowCacheStats::default, |c| c.stats())
    }

    /// The server's volumes.
    pub fn volumes(&self) -> &Arc<Volumes> {
        &self.volumes
    }

    /// Removes a region's directories from every volume (the data directory's included).
    ///
    /// # Errors
    /// A removal failed.
    pub fn remove_region_data(&self, table: &TableDescriptor, region_id: u64) -> Result<()> {
        let dir = self.region_dir(table, region_id);
        let io = |e, path: &std::path::Path| Error::Io {
            path: path.display().to_string(),
            source: e,
        };
        self.volumes
            .files()
            .remove_dir_all(&dir)
            .map_err(|e| io(e, &dir))?;
        if let Ok(rel) = dir.strip_prefix(self.volumes.root()) {
            self.volumes.remove_elsewhere(rel).map_err(|e| io(e, rel))?;
        }
        Ok(())
    }

    /// Queues a compaction check of every open region on the background pool: compactions
    /// that came due with time (periodic majors, TTL), and moves of files between volumes as
    /// date-tiered windows age. Writes queue checks too; this covers idle regions.
    pub fn request_compaction_checks(&self) {
        for h in self.regions.read().by_id.values() {
            h.region.request_compaction();
        }
    }

    /// The shared pool of flush and compaction workers.
    pub fn background(&self) -> &Arc<Background> {
        &self.background
    }

    /// The shared memtable budget.
    pub fn budget(&self) -> &Arc<MemoryBudget> {
        &self.budget
    }

    /// The directory of region `region_id` of `table`.
    pub fn region_dir(&self, table: &TableDescriptor, region_id: u64) -> PathBuf {
        self.config
            .table_dir(&table.name)
            .join(region_dir_name(region_id))
    }

    /// Opens (or creates) a region and starts serving it; replays its WAL entries first.
    ///
    /// # Errors
    /// The region is already open, overlaps an open region of its table, or fails to open.
    pub fn open_region(&self, table: &TableDescriptor, info: &RegionInfo) -> Result<()> {
        self.open_region_recovering(table, info, &[])
    }

    /// [`open_region`](Self::open_region) of a region a dead server held: also replays its
    /// edits in the fenced logs `recovered` (directories in this server's log store, written
    /// by the split of the dead server's WAL), in the same open. Before the region serves,
    /// the replayed edits are flushed to store files and the logs deleted, so its next opener
    /// finds them in the files: a crash before the deletion leaves logs whose edits the
    /// manifest has flushed, which replaying again skips.
    ///
    /// # Errors
    /// As [`open_region`](Self::open_region); the flush or a deletion failed (the region is
    /// not served then, and the logs stay for the next try).
    pub fn open_region_recovering(
        &self,
        table: &TableDescriptor,
        info: &RegionInfo,
        recovered: &[PathBuf],
    ) -> Result<()> {
        {
            let regions = self.regions.read();
            if regions.by_id.contains_key(&info.region_id) {
                return Err(Error::InvalidArgument(format!(
                    "region {} is already open",
                    info.region_id
                )));
            }
            if let Some(other) = regions.overlapping(&info.table, &info.start_row, &info.end_row) {
                return Err(Error::InvalidArgument(format!(
                    "region {} overlaps open region {other} of {}",
                    info.region_id, info.table
                )));
            }
        }
        let config = RegionConfig {
            dir: self.region_dir(table, info.region_id),
            table: table.clone(),
            info: info.clone(),
            wal: self.wal.clone(),
            cache: self.cache.clone(),
            clock: self.clock.clone(),
            background: Some(self.background.clone()),
            budget: Some(self.budget.clone()),
            volumes: Some(self.volumes.clone()),
        };
        let logs = self.config.storage.logs.as_ref();
        let region = Region::open_recovering(config, logs, recovered)
            .and_then(|region| {
                if recovered.is_empty() {
                    return Ok(region);
                }
                let durable = region.flush().map(drop).and_then(|()| {
                    recovered.iter().try_for_each(|dir| {
                        match self.config.storage.files.remove_dir_all(dir) {
                            Ok(()) => Ok(()),
                            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                            Err(e) => Err(Error::Io {
                                path: self.config.storage.files.url(dir),
                                source: e,
                            }),
                        }
                    })
                });
                match durable {
                    Ok(()) => Ok(region),
                    Err(e) => {
                        region.abandon();
                        Err(e)
                    }
                }
            })
            .inspect_err(|e| failed(Work::RegionOpen, place(&info.table, info.region_id), e))?;
        // Before it serves: an operation its replayed edits applied is not applied again.
        let now = self.clock.now_ms();
        for (nonce, logged) in region.take_replayed_nonces() {
            self.nonces.report_from_wal(nonce, logged, now);
        }
        let mut regions = self.regions.write();
        // Checked again under the write lock: an overlapping region may have opened meanwhile.
        let clash = if regions.by_id.contains_key(&info.region_id) {
            Some(format!("region {} is already open", info.region_id))
        } else {
            regions
                .overlapping(&info.table, &info.start_row, &info.end_row)
                .map(|other| {
                    format!(
                        "region {} overlaps open region {other} of {}",
                        info.region_id, info.table
                    )
                })
        };
        if let Some(clash) = clash {
            drop(regions);
            // Never served: its edits stay in the WAL for whoever opens it next.
            region.abandon();
            return Err(Error::InvalidArgument(clash));
        }
        regions
            .by_table
            .entry(info.table.clone())
            .or_default()
            .insert(info.start_row.clone(), info.region_id);
        regions.by_id.insert(
            info.region_id,
            HostedRegion {
                region: region.clone(),
                table: Arc::new(table.clone()),
                row_cache: self
                    .row_cache
                    .as_ref()
                    .map_or_else(RegionCache::disabled, |c| c.region(table)),
                load: Arc::new(crate::load_split::RegionLoad::new(
                    self.config.load_split.enabled(),
                )),
            },
        );
        drop(regions);
        self.config.compaction_throughput.apply_to(&region);
        region.stop_compactions(self.compactions_stopped_for(&info.table));
        Ok(())
    }

    /// Stops the compactions of `tables` (`ns:table`), and resumes every other table's, on
    /// the regions open here and those opened later (a space quota's
    /// `NO_WRITES_COMPACTIONS` in violation, RFC 0029).
    pub fn stop_compactions(&self, tables: HashSet<String>) {
        *self.compactions_stopped.write() = tables;
        for h in self.hosted_regions() {
            let stopped = self.compactions_stopped_for(&h.region.info().table);
            h.region.stop_compactions(stopped);
        }
    }

    fn compactions_stopped_for(&self, table: &str) -> bool {
        let stopped = self.compactions_stopped.read();
        if stopped.is_empty() {
            return false;
        }
        let (ns, t) = strata_access::scope::split_table(table);
        stopped.contains(&format!("{ns}:{t}"))
    }

    /// Stops serving a region; with `flush`, flushes it first (a clean close), else only
    /// forgets it (its unflushed edits stay in the WAL for the next open).
    ///
    /// # Errors
    /// The region is not open here, or its final flush failed (it stays open then).
    pub fn close_region(&self, region_id: u64, flush: bool) -> Result<()> {
        let hosted = self.hosted(region_id)?;
        if flush {
            let info = hosted.region.info();
            hosted.region.close().inspect_err(|e| {
                failed(Work::RegionClose, place(&info.table, info.region_id), e);
            })?;
        }
        self.forget(region_id);
        Ok(())
    }

    fn forget(&self, region_id: u64) {
        let mut regions = self.regions.write();
        if let Some(h) = regions.by_id.remove(&region_id) {
            h.row_cache.retire();
            self.counters.retired.lock().add(WorkDone::of(&h.region));
            let info = h.region.info();
            if let Some(t) = regions.by_table.get_mut(&info.table) {
                t.remove(&info.start_row);
                if t.is_empty() {
                    regions.by_table.remove(&info.table);
                }
            }
        }
    }

    /// The open region with this id.
    ///
    /// # Errors
    /// [`Error::Closed`] if this server does not host it.
    pub fn hosted(&self, region_id: u64) -> Result<HostedRegion> {
        self.regions
            .read()
            .by_id
            .get(&region_id)
            .cloned()
            .ok_or(Error::Closed(region_id))
    }

    /// Every open region.
    pub fn hosted_regions(&self) -> Vec<HostedRegion> {
        self.regions.read().by_id.values().cloned().collect()
    }

    /// The open region of `table` whose range holds `row`, if any.
    pub fn region_for(&self, table: &str, row: &[u8]) -> Option<HostedRegion> {
        let regions = self.regions.read();
        let starts = regions.by_table.get(table)?;
        let (_, id) = starts
            .range::<[u8], _>((Bound::Unbounded, Bound::Included(row)))
            .next_back()?;
        let hosted = regions.by_id.get(id)?;
        let end = &hosted.region.info().end_row;
        (end.is_empty() || row < end.as_ref()).then(|| hosted.clone())
    }

    /// The open region of `table` holding the greatest row below `row` (for reversed scans).
    pub fn region_before(&self, table: &str, row: &[u8]) -> Option<HostedRegion> {
        let regions = self.regions.read();
        let starts = regions.by_table.get(table)?;
        let (_, id) = starts
            .range::<[u8], _>((Bound::Unbounded, Bound::Excluded(row)))
            .next_back()?;
        let hosted = regions.by_id.get(id)?;
        let info = hosted.region.info();
        (info.end_row.is_empty() || row <= info.end_row.as_ref()).then(|| hosted.clone())
    }

    /// The open region of `table` that ends the table (empty end row).
    pub fn last_region(&self, table: &str) -> Option<HostedRegion> {
        let regions = self.regions.read();
        let starts = regions.by_table.get(table)?;
        let (_, id) = starts.iter().next_back()?;
        let hosted = regions.by_id.get(id)?;
        hosted
            .region
            .info()
            .end_row
            .is_empty()
            .then(|| hosted.clone())
    }

    /// Flush and compaction work since the server started, all regions.
    pub fn work_done(&self) -> WorkDone {
        let mut total = *self.counters.retired.lock();
        for h in self.regions.read().by_id.values() {
            total.add(WorkDone::of(&h.region));
        }
        total
    }

    /// Sizes of an open region.
    ///
    /// # Errors
    /// The region is not open here.
    pub fn region_stats(&self, region_id: u64) -> Result<RegionStats> {
        Ok(RegionStats::of(&self.hosted(region_id)?))
    }

    /// Flushes a region's memtables.
    ///
    /// # Errors
    /// Not open here, or the flush failed.
    pub fn flush_region(&self, region_id: u64) -> Result<()> {
        self.hosted(region_id)?.region.flush().map(|_| ())
    }

    /// Compacts one family (or all) of a region; `major` compacts every file. Then moves the
    /// region's files whose tier changed (date-tiered windows that aged, a changed storage
    /// policy), as a compaction check does.
    ///
    /// # Errors
    /// Not open here, its compactions stopped by a space quota, an unknown family, or the
    /// compaction or a move failed.
    pub fn compact_region(&self, region_id: u64, family: Option<&str>, major: bool) -> Result<()> {
        let region = self.hosted(region_id)?.region;
        if region.compactions_stopped() {
            // HBase's answer to a compaction request under NO_WRITES_COMPACTIONS.
            return Err(Error::InvalidArgument(
                "Compactions on this region are disabled due to a space quota violation.".into(),
            ));
        }
        let request = if major {
            MajorRequest::User
        } else {
            MajorRequest::None
        };
        match family {
            Some(f) => region.compact_store(f.as_bytes(), request).map(|_| ())?,
            None => region.compact(request).map(|_| ())?,
        }
        region.move_tiers().map(|_| ())
    }

    /// Splits a region into two daughters with the given ids and stops serving the parent.
    /// The daughters are not open yet: the caller (the master) records them in the catalog
    /// first and then opens them with [`RegionServer::open_region`], so no write reaches a
    /// daughter the catalog does not know (see `strata_storage::region::split`).
    ///
    /// # Errors
    /// As `Region::split`; the parent keeps serving then.
    pub fn split_region(
        &self,
        region_id: u64,
        split_row: Option<Bytes>,
        daughters: (u64, u64),
    ) -> Result<(RegionInfo, RegionInfo)> {
        let hosted = self.hosted(region_id)?;
        let infos = hosted.region.split(split_row, daughters).inspect_err(|e| {
            failed(
                Work::Split,
                place(&hosted.table.name.to_string(), region_id),
                e,
            )
        })?;
        // The parent is closed for writes now; requests that reach it get NotServingRegion
        // and relocate to the daughters once they are open.
        self.forget(region_id);
        self.counters.splits.fetch_add(1, Ordering::Relaxed);
        Ok(infos)
    }

    /// Merges two adjacent open regions into a new region `merged_id` and stops serving
    /// them; as with [`RegionServer::split_region`], the caller records the merged region in
    /// the catalog and then opens it.
    ///
    /// # Errors
    /// As `Region::merge`; both parents keep serving then.
    pub fn merge_regions(&self, low: u64, high: u64, merged_id: u64) -> Result<RegionInfo> {
        let (a, b) = (self.hosted(low)?, self.hosted(high)?);
        let merged = Region::merge(&a.region, &b.region, merged_id).inspect_err(|e| {
            failed(Work::Split, place(&a.region.info().table, low), e);
        })?;
        self.forget(low);
        self.forget(high);
        Ok(merged)
    }

    /// Closes every region (flushing each) and the WAL: a graceful shutdown.
    ///
    /// # Errors
    /// The first region that failed to flush or the WAL's close error; every region is tried.
    pub fn shutdown(&self) -> Result<()> {
        let checker = self.tier_checker.lock().take();
        if let Some(checker) = checker {
            checker.stop();
        }
        let flush_checker = self.flush_checker.lock().take();
        if let Some(periodic) = flush_checker {
            periodic.stop();
        }
        let tuner = self.memory_tuner_thread.lock().take();
        if let Some(periodic) = tuner {
            periodic.stop();
        }
        let mut first = None;
        for h in self.hosted_regions() {
            let id = h.region.info().region_id;
            if let Err(e) = self.close_region(id, true) {
                first.get_or_insert(e);
            }
        }
        self.background.shutdown();
        if let Err(e) = self.wal.close() {
            first.get_or_insert(e.into());
        }
        first.map_or(Ok(()), Err)
    }
}

fn place(table: &str, region: u64) -> Place<'_> {
    Place {
        table,
        region,
        family: None,
    }
}

impl Regions {
    /// An open region of `table` overlapping `[start, end)`, if any. Open regions of a table
    /// never overlap (each open is checked here), so only the last one starting before `end`
    /// can: an earlier one ends at or before that one's start. One lookup, not a walk over
    /// every region (a start opening 10,000 regions made that quadratic).
    fn overlapping(&self, table: &str, start: &Bytes, end: &Bytes) -> Option<u64> {
        let starts = self.by_table.get(table)?;
        let (_, &id) = if end.is_empty() {
            starts.iter().next_back()?
        } else {
            starts
                .range::<[u8], _>((Bound::Unbounded, Bound::Excluded(end.as_ref())))
                .next_back()?
        };
        let info = self.by_id.get(&id)?.region.info();
        let before = !info.end_row.is_empty() && info.end_row.as_ref() <= start.as_ref();
        (!before).then_some(id)
    }
}
