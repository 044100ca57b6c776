//! Moving store files between tiers without merging them (HDFS's mover): a file whose
//! family's policy, or whose date-tiered window's age, now places it on another volume than
//! the one holding it — or, on a store that places blocks by policy (HDFS), in another policy
//! directory, whose policy the copy's new blocks follow — is copied there and the manifest
//! switched to the copy.
//!
//! Crash safety (RFC 0010): the copy is written as `.tmp` in the target directory, synced,
//! renamed and its directory synced before the manifest edit (remove the entry, add it back
//! with the new tier) makes it the listed one; the old copy is deleted only after the edit.
//! A crash before the edit leaves an unlisted copy, after it an unlisted original: opening the
//! region deletes either.

use std::sync::Arc;

use strata_model::schema::CompactionPolicy;

use super::super::store::{FileHandle, Store};
use super::super::Region;
use crate::compaction::date_tiered::incoming_window;
use crate::error::{Error, Result};
use crate::events::Work;
use crate::manifest::{StoreFile, VersionEdit};
use crate::tiers::{copy_between, Tier};

impl Region {
    /// Moves every store file that is not on the volume its placement asks for now; returns
    /// how many moved. Files a compaction holds are left for it (its outputs are placed
    /// anew), as are split references (the parent's files).
    ///
    /// # Errors
    /// I/O or manifest errors; files moved before the error stay moved, the others where
    /// they were.
    pub fn move_tiers(&self) -> Result<usize> {
        // Shared with compactions, exclusive for a split: a split's references name a parent
        // file's tier, so no move may switch one under it.
        let _running = self.inner.compactions.running.read();
        self.check_open()?;
        let mut moved = 0;
        for store in self.inner.stores.values() {
            if !store.has_tiers() {
                continue;
            }
            moved += self
                .move_store(store)
                .inspect_err(|e| self.log_failure(Work::TierMove, Some(&store.name), e))?;
        }
        Ok(moved)
    }

    /// True when some store file is not where its placement asks for now (a date-tiered
    /// window that aged into another tier, a changed storage policy): what
    /// [`Region::move_tiers`] would move. Cheap: it looks only at the open file set (what the
    /// manifest lists) and the clock, never at a store. Split references are never due.
    pub fn tier_moves_due(&self) -> bool {
        if self.inner.closed.load(std::sync::atomic::Ordering::SeqCst) {
            return false;
        }
        let now = self.inner.config.clock.now_ms();
        self.inner
            .stores
            .values()
            .filter(|store| store.has_tiers())
            .any(|store| {
                store.files().iter().any(|f| {
                    !f.meta.is_borrowed()
                        && store
                            .tier_of(&f.meta.tier)
                            .is_ok_and(|from| from != wanted(store, &f.meta, now))
                })
            })
    }

    fn move_store(&self, store: &Store) -> Result<usize> {
        let state = &self.inner.compactions;
        let now = self.inner.config.clock.now_ms();
        // Mark the files to move as compacting, so no compaction takes them meanwhile.
        let chosen: Vec<(Arc<FileHandle>, Tier, Tier)> = {
            let mut compacting = state.compacting.lock();
            let marked = compacting.entry(store.name.clone()).or_default();
            let mut chosen = Vec::new();
            for f in store.files().iter() {
                if f.meta.is_borrowed() || marked.contains(&f.meta.name) {
                    continue;
                }
                let from = store.tier_of(&f.meta.tier)?;
                let to = wanted(store, &f.meta, now);
                if from != to {
                    marked.insert(f.meta.name.clone());
                    chosen.push((f.clone(), from, to));
                }
            }
            chosen
        };
        let result = self.move_files(store, &chosen);
        let mut compacting = state.compacting.lock();
        if let Some(marked) = compacting.get_mut(&store.name) {
            for (f, _, _) in &chosen {
                marked.remove(&f.meta.name);
            }
        }
        drop(compacting);
        state.files_changed.notify_all();
        result
    }

    fn move_files(&self, store: &Store, chosen: &[(Arc<FileHandle>, Tier, Tier)]) -> Result<usize> {
        for (file, from, to) in chosen {
            let source = store.tier_dir(*from).join(&file.meta.name);
            let dir = store.prepare_dir(*to)?;
            let target = dir.join(&file.meta.name);
            copy_between(
                store.files_of(*from).as_ref(),
                &source,
                store.files_of(*to).as_ref(),
                &target,
            )
            .map_err(|e| Error::io(&target, e))?;
            let meta = StoreFile {
                tier: store.tier_name(*to),
                ..file.meta.clone()
            };
            let handle = store.open_file(meta.clone())?;
            {
                let _flush = self.inner.flush_lock.lock();
                let edit = VersionEdit::new()
                    .remove_file(store.name.clone(), meta.name.clone())
                    .add_file(store.name.clone(), meta);
                self.inner.manifest.lock().apply(&edit)?;
                let files: Vec<Arc<FileHandle>> = store
                    .files()
                    .iter()
                    .map(|f| {
                        if f.meta.name == file.meta.name {
                            handle.clone()
                        } else {
                            f.clone()
                        }
                    })
                    .collect();
                store.set_files(files);
            }
            // Unlisted now; a failed removal leaves a file the next open discards. A snapshot
            // may name the file on its old tier: it is archived there when the process keeps
            // an archive.
            let _ = store.discard_path(*from, &source);
            self.inner
                .compactions
                .counters
                .files_moved
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(chosen.len())
    }
}

/// Where a file belongs now: by its window's age for a date-tiered family placing windows
/// (the window holding its newest cell), else by the family's policy.
fn wanted(store: &Store, meta: &StoreFile, now: i64) -> Tier {
    let window_start = match &store.family.compaction_policy {
        CompactionPolicy::DateTiered(dt) if dt.storage_policy_enable && meta.cell_count > 0 => {
            Some(
                incoming_window(dt, now)
                    .earlier_until(meta.max_timestamp)
                    .start(),
            )
        }
        _ => None,
    };
    store.output_tier(window_start, now)
}
