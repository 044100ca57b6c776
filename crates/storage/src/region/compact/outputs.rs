//! Merging a compaction's inputs into one output file, or one per date-tiered window (HBase's
//! `DateTieredMultiFileWriter`, HBASE-15400).

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use strata_sstable::{FileInfo, KeyBuf, WriterOptions};

use super::types::CompactionReport;
use super::Selection;
use crate::compaction::date_tiered::boundary_index;
use crate::compaction::pressure::pressure;
use crate::compaction::throughput::Limiter;
use crate::error::{Error, Result};
use crate::manifest::StoreFile;
use crate::read::{CompactionSpec, Cursor, Decision, Dropped, MergeCursor, Retention};
use crate::region::flush::sync_dir;
use crate::region::sst_io::{self, SstWriter};
use crate::region::store::{FileHandle, Store};
use crate::region::Region;
use crate::tiers::Tier;
use crate::vfs::FileStore;

impl Region {
    /// Merges the inputs into durable, named output files, opened.
    pub(super) fn write_outputs(
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
            now,
            smallest_read_point: self.smallest_read_point(),
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
        let settings = self.compaction_options();
        let pressure = pressure(
            store.files().len(),
            settings.exploring.min_files,
            settings.exploring.blocking_file_count,
        );
        let mut limiter = Limiter::new(settings.throughput.rate(pressure));
        // One output per window; each window's storage type by its age.
        let starts: Vec<Option<i64>> = if sel.plan.boundaries.len() > 1 {
            sel.plan.boundaries.iter().map(|b| Some(*b)).collect()
        } else {
            vec![sel.plan.window_start]
        };
        let kinds: Vec<Tier> = starts
            .iter()
            .map(|start| store.written_tier(store.output_tier(*start, now)))
            .collect();
        let dirs: Vec<PathBuf> = kinds
            .iter()
            .map(|k| store.prepare_dir(*k))
            .collect::<Result<_>>()?;
        let files = store.file_store().as_ref();
        let written = merge_into(
            files,
            &dirs,
            options,
            &sel.inputs,
            spec,
            &sel.plan.boundaries,
            &mut new_name,
            report,
            &mut limiter,
        );
        let paused = limiter.paused();
        self.inner
            .compactions
            .counters
            .throttled_ms
            .fetch_add(paused.as_millis() as u64, Ordering::Relaxed);
        let written = written?;
        let mut metas = Vec::with_capacity(written.len());
        let mut pending = written.into_iter();
        let mut synced = Vec::new();
        for out in pending.by_ref() {
            let dir = &dirs[out.slot];
            if !synced.contains(&dir) {
                synced.push(dir);
            }
            let path = dir.join(&out.name);
            if let Err(e) = files.rename(&out.tmp, &path) {
                // Best effort: leftovers are unlisted and deleted when the region opens.
                let _ = files.remove_file(&out.tmp);
                for rest in pending {
                    let _ = files.remove_file(&rest.tmp);
                }
                return Err(Error::io(&path, e));
            }
            let size = files
                .len(&path)
                .map_err(|e| Error::io(&path, e))?
                .ok_or_else(|| Error::io(&path, std::io::ErrorKind::NotFound.into()))?;
            metas.push(StoreFile {
                name: out.name.clone(),
                size,
                max_seq_id: out.info.max_seq_id,
                min_timestamp: out.info.min_timestamp,
                max_timestamp: out.info.max_timestamp,
                cell_count: out.info.cell_count,
                created_at_ms: now,
                major: sel.plan.major,
                tier: store.tier_name(kinds[out.slot]),
                reference: None,
                link: None,
                bulk: false,
            });
            report.outputs.push(out.name);
            report.bytes_out += size;
        }
        for dir in synced {
            sync_dir(files, dir)?;
        }
        report.output = report.outputs.first().cloned();
        metas.into_iter().map(|m| store.open_file(m)).collect()
    }
}

/// One finished output: its window slot, final name, synced temporary path and info.
pub(super) struct Output {
    pub(super) slot: usize,
    pub(super) name: String,
    pub(super) tmp: PathBuf,
    pub(super) info: FileInfo,
}

/// An open output: final name, temporary path, writer.
type OpenOutput = (String, PathBuf, SstWriter);

/// Writers by window, opened lazily on the window's first cell.
struct Writers<'a> {
    files: &'a dyn FileStore,
    /// The directory of each window's output.
    dirs: &'a [PathBuf],
    options: WriterOptions,
    open: Vec<Option<OpenOutput>>,
}

impl Writers<'_> {
    /// Deletes every temporary file (best effort: leftovers are deleted on open).
    fn abandon(&mut self) {
        for (_, tmp, _) in self.open.drain(..).flatten() {
            let _ = self.files.remove_file(&tmp);
        }
    }
}

/// Merges `inputs` (oldest first) through [`Retention`] into new files in `dirs` (one per
/// window slot), synced, named
/// by `new_name` with a `.tmp` suffix. A cell goes to the output of the greatest boundary not
/// above its timestamp (one output when `boundaries` has at most one entry). Returns the
/// outputs oldest window first; none when every cell was dropped. On error no temporary file
/// remains.
#[allow(clippy::too_many_arguments)] // The inputs of one merge, each used once.
pub(super) fn merge_into(
    files: &dyn FileStore,
    dirs: &[PathBuf],
    options: WriterOptions,
    inputs: &[Arc<FileHandle>],
    spec: CompactionSpec,
    boundaries: &[i64],
    new_name: &mut dyn FnMut() -> String,
    report: &mut CompactionReport,
    limiter: &mut Limiter,
) -> Result<Vec<Output>> {
    let mut writers = Writers {
        files,
        dirs,
        options,
        open: (0..boundaries.len().max(1)).map(|_| None).collect(),
    };
    let result = merge(
        inputs,
        spec,
        boundaries,
        new_name,
        &mut writers,
        report,
        limiter,
    );
    if let Err(e) = result {
        writers.abandon();
        return Err(e);
    }
    let mut outputs = Vec::new();
    let mut pending = std::mem::take(&mut writers.open)
        .into_iter()
        .enumerate()
        .filter_map(|(slot, o)| o.map(|o| (slot, o)));
    for (slot, (name, tmp, writer)) in pending.by_ref() {
        match sst_io::finish(writer, &tmp) {
            Ok(info) => outputs.push(Output {
                slot,
                name,
                tmp,
                info,
            }),
            Err(e) => {
                let _ = files.remove_file(&tmp);
                for (_, (_, t, _)) in pending {
                    let _ = files.remove_file(&t);
                }
                for o in outputs {
                    let _ = files.remove_file(&o.tmp);
                }
                return Err(e);
            }
        }
    }
    Ok(outputs)
}

fn merge(
    inputs: &[Arc<FileHandle>],
    spec: CompactionSpec,
    boundaries: &[i64],
    new_name: &mut dyn FnMut() -> String,
    writers: &mut Writers<'_>,
    report: &mut CompactionReport,
    limiter: &mut Limiter,
) -> Result<()> {
    // Newest first, so identical keys come out newest source first.
    let cursors = inputs.iter().rev().map(|f| f.cursor(false)).collect();
    let mut merged = MergeCursor::new(cursors);
    let mut retention = Retention::new(spec);
    let mut last = KeyBuf::default();
    let mut ok = merged.seek_to_first()?;
    while ok {
        let cell = merged.current();
        report.cells_in += 1;
        let decision = if last.same(&cell) {
            Decision::Drop(Dropped::Duplicate)
        } else {
            retention.decide(&cell)
        };
        last.set(&cell);
        match decision {
            Decision::Keep => {
                let last_slot = writers.open.len() - 1;
                let i = boundary_index(boundaries, cell.timestamp).min(last_slot);
                let slot = &mut writers.open[i];
                let w = match slot {
                    Some((_, _, w)) => w,
                    None => {
                        let name = new_name();
                        let tmp = writers.dirs[i].join(format!("{name}.tmp"));
                        let w = sst_io::create(writers.files, &tmp, writers.options.clone());
                        match w {
                            Ok(w) => &mut slot.insert((name, tmp, w)).2,
                            Err(e) => {
                                let _ = writers.files.remove_file(&tmp);
                                return Err(e);
                            }
                        }
                    }
                };
                w.add(&cell)?;
                report.cells_out += 1;
                let bytes = cell.row.len() + cell.qualifier.len() + cell.value.len() + 16;
                if let Some(pause) = limiter.wrote(bytes as u64) {
                    limiter.sleep(pause);
                }
            }
            Decision::Drop(reason) => report.dropped.add(reason),
        }
        ok = merged.next()?;
    }
    Ok(())
}
