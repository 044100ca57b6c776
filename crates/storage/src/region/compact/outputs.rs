//! Merging a compaction's inputs into one output file, or one per date-tiered window (HBase's
//! `DateTieredMultiFileWriter`, HBASE-15400).

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use strata_sstable::{FileInfo, KeyBuf, Writer, WriterOptions};

use super::types::CompactionReport;
use crate::compaction::date_tiered::boundary_index;
use crate::error::Result;
use crate::read::{CompactionSpec, Cursor, Decision, Dropped, MergeCursor, Retention};
use crate::region::store::FileHandle;

/// One finished output: its final name, its synced temporary path and its info.
pub(super) struct Output {
    pub(super) name: String,
    pub(super) tmp: PathBuf,
    pub(super) info: FileInfo,
}

/// An open output: final name, temporary path, writer.
type OpenOutput = (String, PathBuf, Writer<BufWriter<File>>);

/// Writers by window, opened lazily on the window's first cell.
struct Writers<'a> {
    dir: &'a Path,
    options: WriterOptions,
    open: Vec<Option<OpenOutput>>,
}

impl Writers<'_> {
    /// Deletes every temporary file (best effort: leftovers are deleted on open).
    fn abandon(&mut self) {
        for (_, tmp, _) in self.open.drain(..).flatten() {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// Merges `inputs` (oldest first) through [`Retention`] into new files in `dir`, synced, named
/// by `new_name` with a `.tmp` suffix. A cell goes to the output of the greatest boundary not
/// above its timestamp (one output when `boundaries` has at most one entry). Returns the
/// outputs oldest window first; none when every cell was dropped. On error no temporary file
/// remains.
pub(super) fn merge_into(
    dir: &Path,
    options: WriterOptions,
    inputs: &[Arc<FileHandle>],
    spec: CompactionSpec,
    boundaries: &[i64],
    new_name: &mut dyn FnMut() -> String,
    report: &mut CompactionReport,
) -> Result<Vec<Output>> {
    let mut writers = Writers {
        dir,
        options,
        open: (0..boundaries.len().max(1)).map(|_| None).collect(),
    };
    let result = merge(inputs, spec, boundaries, new_name, &mut writers, report);
    if let Err(e) = result {
        writers.abandon();
        return Err(e);
    }
    let mut outputs = Vec::new();
    let mut pending = std::mem::take(&mut writers.open).into_iter().flatten();
    for (name, tmp, writer) in pending.by_ref() {
        match writer.finish_and_sync() {
            Ok(info) => outputs.push(Output { name, tmp, info }),
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                for (_, t, _) in pending {
                    let _ = std::fs::remove_file(t);
                }
                for o in outputs {
                    let _ = std::fs::remove_file(o.tmp);
                }
                return Err(e.into());
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
) -> Result<()> {
    // Newest first, so identical keys come out newest source first.
    let cursors = inputs.iter().rev().map(|f| f.cursor()).collect();
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
                        let tmp = writers.dir.join(format!("{name}.tmp"));
                        let _ = std::fs::remove_file(&tmp);
                        let w = Writer::create(&tmp, writers.options.clone());
                        match w {
                            Ok(w) => &mut slot.insert((name, tmp, w)).2,
                            Err(e) => {
                                let _ = std::fs::remove_file(&tmp);
                                return Err(e.into());
                            }
                        }
                    }
                };
                w.add(&cell)?;
                report.cells_out += 1;
            }
            Decision::Drop(reason) => report.dropped.add(reason),
        }
        ok = merged.next()?;
    }
    Ok(())
}
