//! The compactor: runs a compaction policy's [`Plan`] over one store (DESIGN §7).
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

mod outputs;
mod types;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use parking_lot::{Condvar, Mutex, RwLock};

use strata_model::schema::{CompactionPolicy, Ttl};
use strata_sstable::WriterOptions;

use super::flush::sync_dir;
use super::store::{FileHandle, Store};
use super::Region;
use crate::compaction::exploring::{self, MajorRequest, Mode};
use crate::compaction::{date_tiered, too_many_files, FileMeta, Plan, PlanKind};
use crate::error::{Error, Result};
use crate::manifest::{StoreFile, VersionEdit};
use crate::read::{CompactionSpec, DroppedCells};

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
    nonce: AtomicU64,
    counters: CompactionCounters,
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
        let Some(store) = self.inner.stores.get(family) else {
            return Ok(None);
        };
        let now = self.inner.config.clock.now_ms();
        let Some(selection) = self.select(store, now, major) else {
            return Ok(None);
        };
        let report = self.run(store, &selection, now)?;
        state.counters.compactions.fetch_add(1, Ordering::Relaxed);
        if report.major {
            state.counters.majors.fetch_add(1, Ordering::Relaxed);
        }
        Ok(Some(report))
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

    /// Compaction and throttling counters since open.
    pub fn compaction_counters(&self) -> &CompactionCounters {
        &self.inner.compactions.counters
    }

    /// True when some store has more files than the blocking count.
    pub fn has_too_many_files(&self) -> bool {
        self.crowded_store().is_some()
    }

    /// The first store with more files than the blocking count.
    fn crowded_store(&self) -> Option<&Bytes> {
        let blocking = self.compaction_options().exploring.blocking_file_count;
        self.inner
            .stores
            .iter()
            .find(|(_, s)| too_many_files(s.files.read().len(), blocking))
            .map(|(name, _)| name)
    }

    /// Waits until no store has more files than the blocking count, or `timeout`. Returns
    /// whether the pressure is gone. Compactions wake the waiters when they end.
    ///
    /// # Errors
    /// The region was closed.
    pub fn wait_for_compaction_pressure(&self, timeout: Duration) -> Result<bool> {
        let state = &self.inner.compactions;
        let deadline = Instant::now() + timeout;
        // Checked under the lock compactions notify with, so no wake-up falls between the
        // check and the wait.
        let mut guard = state.compacting.lock();
        loop {
            self.check_open()?;
            if !self.has_too_many_files() {
                return Ok(true);
            }
            if state
                .files_changed
                .wait_until(&mut guard, deadline)
                .timed_out()
            {
                return Ok(!self.has_too_many_files());
            }
        }
    }

    /// The write path's backpressure (HBase's blocking store files): while a store has too
    /// many files, the writer compacts it itself when no compaction is running there (as a
    /// flush runs on the writing thread without a background pool), then waits for
    /// compactions up to `blocking_wait`, then goes ahead: writes are slowed, never failed.
    ///
    /// Requires: no row lock held (compactions and other writers must progress).
    ///
    /// # Errors
    /// The region was closed.
    pub(crate) fn throttle_writes(&self) -> Result<()> {
        let Some(family) = self.crowded_store() else {
            return Ok(());
        };
        let counters = &self.inner.compactions.counters;
        counters.writes_delayed.fetch_add(1, Ordering::Relaxed);
        let idle = {
            let compacting = self.inner.compactions.compacting.lock();
            compacting.get(family).is_none_or(HashSet::is_empty)
        };
        if idle {
            // A failed compaction must not fail the write; the wait below bounds the delay.
            let _ = self.compact_store(family, MajorRequest::None);
        }
        let wait = self.compaction_options().blocking_wait;
        if !self.wait_for_compaction_pressure(wait)? {
            counters
                .writes_delay_timeouts
                .fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    }

    /// Asks the policy and marks the chosen inputs compacting.
    fn select(&self, store: &Store, now: i64, major: MajorRequest) -> Option<Selection<'_>> {
        let state = &self.inner.compactions;
        let mut config = self.compaction_options().exploring;
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
            CompactionPolicy::DateTiered(dt) => date_tiered::select(&metas, &dt, &config, mode)?,
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
            if f.meta.reference.is_none() {
                // Unlisted now; a failed removal leaves a file the next open deletes.
                let _ = std::fs::remove_file(store.dir.join(&f.meta.name));
            }
        }
        Ok(report)
    }

    /// Merges the inputs into durable, named output files, opened.
    fn write_outputs(
        &self,
        store: &Store,
        sel: &Selection<'_>,
        now: i64,
        report: &mut CompactionReport,
    ) -> Result<Vec<Arc<FileHandle>>> {
        let family = &store.family;
        let spec = CompactionSpec {
            max_versions: family.versions.max(1),
            min_versions: family.min_versions,
            expired_before: family
                .ttl
                .millis()
                .map_or(i64::MIN, |ms| now.saturating_sub(ms)),
            keep_deleted: family.keep_deleted_cells,
            smallest_read_point: self.inner.mvcc.read_point(),
            drop_markers: sel.plan.major,
            trim_versions: sel.plan.all_files
                || sel.others.iter().all(|f| f.reader.info().delete_count == 0),
        };
        // Every output carries the inputs' max sequence id, as HBase's multi-file writer.
        let max_seq = sel
            .inputs
            .iter()
            .map(|f| f.meta.max_seq_id)
            .max()
            .unwrap_or(0);
        let options = WriterOptions {
            created_at_ms: now,
            max_seq_id: max_seq,
            major_compaction: sel.plan.major,
            ..WriterOptions::for_family(family)
        };
        let mut new_name = || self.output_name(store, max_seq, now);
        let written = outputs::merge_into(
            &store.dir,
            options,
            &sel.inputs,
            spec,
            &sel.plan.boundaries,
            &mut new_name,
            report,
        )?;
        let mut metas = Vec::with_capacity(written.len());
        let mut renamed = Vec::new();
        let mut pending = written.into_iter();
        for out in pending.by_ref() {
            let path = store.dir.join(&out.name);
            if let Err(e) = std::fs::rename(&out.tmp, &path) {
                // Best effort: leftovers are unlisted and deleted when the region opens.
                let _ = std::fs::remove_file(&out.tmp);
                for rest in pending {
                    let _ = std::fs::remove_file(rest.tmp);
                }
                return Err(Error::io(&path, e));
            }
            renamed.push(path.clone());
            let size = std::fs::metadata(&path)
                .map_err(|e| Error::io(&path, e))?
                .len();
            metas.push(StoreFile {
                name: out.name.clone(),
                size,
                max_seq_id: out.info.max_seq_id,
                min_timestamp: out.info.min_timestamp,
                max_timestamp: out.info.max_timestamp,
                cell_count: out.info.cell_count,
                created_at_ms: now,
                major: sel.plan.major,
                tier: String::new(),
                reference: None,
            });
            report.outputs.push(out.name);
            report.bytes_out += size;
        }
        if !renamed.is_empty() {
            sync_dir(&store.dir)?;
        }
        report.output = report.outputs.first().cloned();
        metas
            .into_iter()
            .map(|m| store.open_file(m).map_err(Error::from))
            .collect()
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
                || store.dir.join(&name).exists()
                || store.dir.join(format!("{name}.tmp")).exists();
            if !taken {
                return name;
            }
        }
    }
}
