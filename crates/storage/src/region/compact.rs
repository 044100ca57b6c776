//! The compactor: runs a compaction policy's [`Plan`] over one store (RFC 0006; ARCHITECTURE.md,
//! "The life of a write").
//!
//! ```text
//!  select: files ─▶ FileMeta (compacting marked) ─▶ exploring / date_tiered ─▶ Plan ─▶ mark
//!  merge:  inputs' cursors ─▶ MergeCursor ─▶ Retention (versions, deletes, TTL)
//!          ─▶ one Writer per plan boundary (window) that receives cells
//!  write:  <name>.tmp ─fsync─▶ rename <name> (each output) ─▶ sync dir
//!  install (flush_lock, manifest): ONE VersionEdit { remove inputs, add outputs } ─▶ file list
//!  drop:   a DropExpired plan skips merge and write: the edit only removes the inputs
//!  finish: delete inputs (not a reference's parent file) ─▶ unmark ─▶ wake throttled writers
//! ```
//!
//! # Thread safety
//! Compactions of one store may run concurrently: selection and marking happen under one
//! lock, so a later selection skips the files a running one holds (and, as HBase does, every
//! file older than them). Installing takes `flush_lock` then `manifest` (the region's lock
//! order), because a flush adds its file to the store's list by read-modify-write outside the
//! manifest lock. `running` is held shared by every compaction and exclusively by a split, so
//! no compaction deletes a file a split is about to reference.
//!
//! # Invariants
//! 1. The output is durable and named before the manifest lists it; a crash before the edit
//!    leaves an unlisted file that opening the region deletes.
//! 2. Inputs are deleted only after the edit that removes them is durable; a crash before
//!    that leaves unlisted files, deleted on open.
//! 3. A reader keeps the file list it started with (`Arc`), and with it the inputs' open
//!    readers: on Linux (POSIX) an unlinked file stays readable through an open descriptor, so
//!    a scan running across a compaction reads on undisturbed. (Object stores will need
//!    deferred deletion instead.)
//! 4. A split daughter's reference is rewritten into a real file, but the parent's file is
//!    never deleted here: the other daughter may still reference it.

mod mover;
mod outputs;
mod throttle;
mod types;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use parking_lot::{Condvar, Mutex, RwLock};

use strata_model::schema::{CompactionPolicy, Ttl};

use super::store::{FileHandle, Store};
use super::Region;
use crate::compaction::exploring::{self, MajorRequest, Mode};
use crate::compaction::{date_tiered, FileMeta, Plan, PlanKind};
use crate::error::{Error, Result};
use crate::events::{history, Work};
use crate::manifest::VersionEdit;
use crate::read::DroppedCells;

pub use types::{CompactionCounters, CompactionOptions, CompactionReport};

/// A region's compaction state.
#[derive(Debug, Default)]
pub(crate) struct CompactionState {
    options: Mutex<CompactionOptions>,
    /// Files of each store that a running compaction holds, by family. Throttled writers
    /// wait on `files_changed` with this lock.
    compacting: Mutex<HashMap<Bytes, HashSet<String>>>,
    /// Notified whenever a compaction ends.
    files_changed: Condvar,
    /// Shared by running compactions, exclusive for a split.
    pub(crate) running: RwLock<()>,
    /// Makes output names unique.
    pub(super) nonce: AtomicU64,
    counters: CompactionCounters,
    /// Compactions selected and not yet ended: minor, major.
    in_progress: [AtomicU64; 2],
}

/// A chosen plan, its inputs marked compacting until this is dropped.
struct Selection<'a> {
    state: &'a CompactionState,
    family: Bytes,
    plan: Plan,
    /// Oldest first, as the plan lists them.
    inputs: Vec<Arc<FileHandle>>,
    /// The store's other files at selection time.
    others: Vec<Arc<FileHandle>>,
}

impl Drop for Selection<'_> {
    fn drop(&mut self) {
        self.state.in_progress[usize::from(self.plan.major)].fetch_sub(1, Ordering::Relaxed);
        let mut compacting = self.state.compacting.lock();
        if let Some(marked) = compacting.get_mut(&self.family) {
            for f in &self.inputs {
                marked.remove(&f.meta.name);
            }
        }
        self.state.files_changed.notify_all();
    }
}

impl Region {
    /// Compacts every store that its policy (or `major`) says should be; returns one report
    /// per store compacted.
    ///
    /// # Errors
    /// As [`Region::compact_store`]; stores compacted before the error stay compacted.
    pub fn compact(&self, major: MajorRequest) -> Result<Vec<CompactionReport>> {
        let mut reports = Vec::new();
        for family in self.inner.stores.keys() {
            reports.extend(self.compact_store(family, major)?);
        }
        Ok(reports)
    }

    /// Compacts one store if its family's policy (exploring or date-tiered) selects files (a
    /// periodic major when one is due, with HBase's jitter; every file, when `major` asks);
    /// `None` when it selects none.
    ///
    /// # Errors
    /// An unknown family, a closed region, or I/O and manifest errors. The store is unchanged
    /// then, except that an output file may remain until the region is next opened.
    pub fn compact_store(
        &self,
        family: &[u8],
        major: MajorRequest,
    ) -> Result<Option<CompactionReport>> {
        let state = &self.inner.compactions;
        let _running = state.running.read();
        self.check_open()?;
        self.check_family(family)?;
        if self.compactions_off() {
            return Ok(None);
        }
        let Some(store) = self.inner.stores.get(family) else {
            return Ok(None);
        };
        let now = self.inner.config.clock.now_ms();
        let Some(selection) = self.select(store, now, major) else {
            return Ok(None);
        };
        let started = std::time::Instant::now();
        let report = self
            .run(store, &selection, now)
            .inspect_err(|e| self.log_failure(Work::Compaction, Some(family), e))?;
        let info = self.info();
        history::record(history::WorkRecord {
            finished_ms: history::now_ms(),
            work: Work::Compaction,
            table: info.table.clone(),
            region: info.region_id,
            family: String::from_utf8_lossy(family).into_owned(),
            major: report.major,
            files_in: report.inputs.len(),
            files_out: report.outputs.len(),
            bytes_in: report.bytes_in,
            bytes_out: report.bytes_out,
            duration: started.elapsed(),
            error: None,
        });
        state.counters.compactions.fetch_add(1, Ordering::Relaxed);
        state
            .counters
            .bytes_written
            .fetch_add(report.bytes_out, Ordering::Relaxed);
        if report.major {
            state.counters.majors.fetch_add(1, Ordering::Relaxed);
        }
        Ok(Some(report))
    }

    /// Stops (or resumes) this region's compactions, minor and major, as HBase's space
    /// quota policy `NO_WRITES_COMPACTIONS` does: [`Region::compact_store`] then selects
    /// nothing. Splits and flushes go on.
    pub fn stop_compactions(&self, stopped: bool) {
        self.inner
            .compactions_stopped
            .store(stopped, Ordering::Release);
    }

    /// Whether compactions are stopped ([`Region::stop_compactions`]).
    pub fn compactions_stopped(&self) -> bool {
        self.inner.compactions_stopped.load(Ordering::Acquire)
    }

    /// Whether no compaction may run: stopped ([`Region::stop_compactions`]) or disabled by
    /// the table's `COMPACTION_ENABLED => false`.
    pub fn compactions_off(&self) -> bool {
        self.compactions_stopped() || !self.table().compaction_enabled
    }

    /// The compaction settings.
    pub fn compaction_options(&self) -> CompactionOptions {
        *self.inner.compactions.options.lock()
    }

    /// Replaces the compaction settings (until the region's config carries them).
    ///
    /// # Errors
    /// Invalid exploring settings; nothing changes then.
    pub fn set_compaction_options(&self, options: CompactionOptions) -> Result<()> {
        options
            .exploring
            .validate()
            .map_err(Error::InvalidArgument)?;
        *self.inner.compactions.options.lock() = options;
        Ok(())
    }

    /// The compactions running now, minor and major (HBase's region compaction state:
    /// `NONE`, `MINOR`, `MAJOR` or `MAJOR_AND_MINOR`).
    pub fn compactions_in_progress(&self) -> (u64, u64) {
        let [minor, major] = &self.inner.compactions.in_progress;
        (minor.load(Ordering::Relaxed), major.load(Ordering::Relaxed))
    }

    /// Compaction and throttling counters since open.
    pub fn compaction_counters(&self) -> &CompactionCounters {
        &self.inner.compactions.counters
    }

    /// Asks the policy and marks the chosen inputs compacting.
    fn select(&self, store: &Store, now: i64, major: MajorRequest) -> Option<Selection<'_>> {
        let state = &self.inner.compactions;
        let options = self.compaction_options();
        let mut config = options.exploring;
        // HBase's getStoreFileTtl: with MIN_VERSIONS, expired cells stay, so no TTL major.
        config.major.ttl_ms = match store.family.ttl {
            Ttl::Forever => None,
            _ if store.family.min_versions > 0 => None,
            ttl => ttl.millis(),
        };
        let mut compacting = state.compacting.lock();
        let marked = compacting.entry(store.name.clone()).or_default();
        let files = store.files();
        let metas: Vec<FileMeta> = files
            .iter()
            .map(|f| FileMeta::from_store_file(&f.meta, marked.contains(&f.meta.name)))
            .collect();
        let mode = Mode {
            now_ms: now,
            off_peak: false,
            major,
        };
        let plan = match store.family.compaction_policy {
            CompactionPolicy::DateTiered(dt) => {
                let delay = date_tiered::promotion_delay(
                    self.info().region_id,
                    dt.base_window_ms,
                    options.window_promotion_jitter,
                );
                date_tiered::select_with_delay(&metas, &dt, &config, mode, delay)?
            }
            CompactionPolicy::Exploring => exploring::select(&metas, &config, mode)?,
        };
        let chosen: HashSet<&str> = plan.files.iter().map(|f| f.name.as_str()).collect();
        let by_name: HashMap<&str, &Arc<FileHandle>> =
            files.iter().map(|f| (f.meta.name.as_str(), f)).collect();
        let inputs: Vec<Arc<FileHandle>> = plan
            .files
            .iter()
            .filter_map(|m| by_name.get(m.name.as_str()).map(|f| Arc::clone(f)))
            .collect();
        let others = files
            .iter()
            .filter(|f| !chosen.contains(f.meta.name.as_str()))
            .cloned()
            .collect();
        for f in &plan.files {
            marked.insert(f.name.clone());
        }
        state.in_progress[usize::from(plan.major)].fetch_add(1, Ordering::Relaxed);
        Some(Selection {
            state,
            family: store.name.clone(),
            plan,
            inputs,
            others,
        })
    }

    /// Merges, writes and installs one selection (or drops its expired inputs).
    fn run(&self, store: &Store, sel: &Selection<'_>, now: i64) -> Result<CompactionReport> {
        let mut report = CompactionReport {
            family: store.name.clone(),
            major: sel.plan.major,
            after_split: sel.plan.after_split,
            inputs: sel.inputs.iter().map(|f| f.meta.name.clone()).collect(),
            output: None,
            outputs: Vec::new(),
            dropped_expired: sel.plan.kind == PlanKind::DropExpired,
            bytes_in: sel.inputs.iter().map(|f| f.meta.size).sum(),
            bytes_out: 0,
            cells_in: 0,
            cells_out: 0,
            dropped: DroppedCells::default(),
        };
        let outputs = if report.dropped_expired {
            Vec::new()
        } else {
            self.write_outputs(store, sel, now, &mut report)?
        };
        self.install(store, sel, outputs)?;
        for f in &sel.inputs {
            // Unlisted now; a failed removal leaves a file the next open discards. A
            // reference's or a link's bytes are another region's and stay.
            let _ = store.discard(&f.meta);
        }
        Ok(report)
    }

    /// Makes the compaction visible: one manifest edit, then the store's file list.
    fn install(
        &self,
        store: &Store,
        sel: &Selection<'_>,
        outputs: Vec<Arc<FileHandle>>,
    ) -> Result<()> {
        let inner = &self.inner;
        let _flush = inner.flush_lock.lock();
        let mut manifest = inner.manifest.lock();
        let mut edit = VersionEdit::new();
        for f in &sel.inputs {
            edit = edit.remove_file(store.name.clone(), f.meta.name.clone());
        }
        for out in &outputs {
            edit = edit.add_file(store.name.clone(), out.meta.clone());
        }
        manifest.apply(&edit)?;
        let inputs: HashSet<&str> = sel.inputs.iter().map(|f| f.meta.name.as_str()).collect();
        let mut files: Vec<Arc<FileHandle>> = store
            .files()
            .iter()
            .filter(|f| !inputs.contains(f.meta.name.as_str()))
            .cloned()
            .collect();
        files.extend(outputs);
        store.set_files(files);
        Ok(())
    }

    /// A file name no flush, compaction or reference of the store uses.
    fn output_name(&self, store: &Store, max_seq: u64, now: i64) -> String {
        let listed: HashSet<String> = store.files().iter().map(|f| f.meta.name.clone()).collect();
        loop {
            let n = self.inner.compactions.nonce.fetch_add(1, Ordering::Relaxed);
            let name = format!("{max_seq:016x}-{now:x}-c{n:x}.sst");
            let taken = listed.contains(&name)
                || store.volumes.all().any(|v| {
                    let dir = v.path.join(&store.rel);
                    let files = store.file_store();
                    let exists = |p: &std::path::Path| files.exists(p).unwrap_or(true);
                    exists(&dir.join(&name)) || exists(&dir.join(format!("{name}.tmp")))
                });
            if !taken {
                return name;
            }
        }
    }
}
