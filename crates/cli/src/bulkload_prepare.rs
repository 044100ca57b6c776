//! `strata bulkload prepare`: delimited text (TSV, CSV) made into store files for a bulk load,
//! as HBase's `ImportTsv` with `importtsv.bulk.output` does: one directory per family, one file
//! per family and region, written with the family's settings.
//!
//! ```text
//! lines ─▶ cells (columns named as ImportTsv names them) ─▶ sorted runs of --sort-mib, each
//!   a store file per family under OUT/_runs ─▶ per family, the runs merged (a later line wins
//!   over an earlier one for the same cell) and cut at the table's region boundaries
//!   ─▶ OUT/<family>/<n>.sst; OUT/_runs removed
//! ```

use std::collections::BTreeMap;
use std::fs;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use bytes::Bytes;
use strata_model::cell::{compare_keys, Cell, CellType};
use strata_model::schema::{FamilyDescriptor, TableDescriptor};
use strata_sstable::{CellRef, Iter, Reader, ReaderOptions, Writer, WriterOptions};

/// One input column, named as ImportTsv's `importtsv.columns` names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Column {
    /// `HBASE_ROW_KEY`.
    Row,
    /// `HBASE_TS_KEY`: the cells' timestamp, in ms.
    Timestamp,
    /// `family:qualifier`, or `family` for the empty qualifier.
    Cell(Bytes, Bytes),
}

/// Parses `HBASE_ROW_KEY,f:a,f:b` against `table`'s families.
///
/// # Errors
/// No or two row columns, two timestamp columns, an unknown family.
pub fn parse_columns(spec: &str, table: &TableDescriptor) -> Result<Vec<Column>, String> {
    let mut out = Vec::new();
    for name in spec.split(',').map(str::trim) {
        out.push(match name {
            "HBASE_ROW_KEY" => Column::Row,
            "HBASE_TS_KEY" => Column::Timestamp,
            "" => return Err(format!("--columns {spec:?} has an empty column")),
            _ => {
                let (family, qualifier) = name.split_once(':').unwrap_or((name, ""));
                if table.family(family.as_bytes()).is_none() {
                    return Err(format!(
                        "--columns names family {family:?}, which table {} does not have",
                        table.name
                    ));
                }
                Column::Cell(
                    Bytes::copy_from_slice(family.as_bytes()),
                    Bytes::copy_from_slice(qualifier.as_bytes()),
                )
            }
        });
    }
    let count = |c: &Column| out.iter().filter(|x| *x == c).count();
    if count(&Column::Row) != 1 {
        return Err("--columns must name HBASE_ROW_KEY exactly once".into());
    }
    if count(&Column::Timestamp) > 1 {
        return Err("--columns names HBASE_TS_KEY twice".into());
    }
    if !out.iter().any(|c| matches!(c, Column::Cell(..))) {
        return Err("--columns names no family:qualifier column".into());
    }
    Ok(out)
}

/// What to prepare.
#[derive(Debug)]
pub struct Prepare {
    /// The table's schema (its families' settings).
    pub table: TableDescriptor,
    /// Start rows of the table's regions after the first, ascending.
    pub boundaries: Vec<Bytes>,
    /// The input's columns.
    pub columns: Vec<Column>,
    /// The field separator.
    pub separator: u8,
    /// Timestamp of cells without an `HBASE_TS_KEY` column.
    pub timestamp: i64,
    /// Bytes of cells sorted in memory before a run is written.
    pub sort_bytes: usize,
    /// Lines that do not parse are counted and skipped instead of refused.
    pub skip_bad_lines: bool,
    /// The output directory (created; must be empty or absent).
    pub out: PathBuf,
}

/// What `prepare` wrote.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Prepared {
    /// Lines read.
    pub lines: u64,
    /// Lines skipped (`--skip-bad-lines`).
    pub bad_lines: u64,
    /// Cells written (after later lines replaced earlier ones).
    pub cells: u64,
    /// Store files written.
    pub files: usize,
    /// Sorted runs the input needed.
    pub runs: usize,
}

impl Prepare {
    /// Reads `input` and writes the store files.
    ///
    /// # Errors
    /// A bad line (with its number) unless skipped, I/O errors, a non-empty output directory.
    pub fn run(&self, input: impl BufRead) -> Result<Prepared, String> {
        if fs::read_dir(&self.out).is_ok_and(|mut d| d.next().is_some()) {
            return Err(format!("{} exists and is not empty", self.out.display()));
        }
        let runs_dir = self.out.join("_runs");
        let mut done = Prepared::default();
        let mut buffer: Vec<Cell> = Vec::new();
        let mut bytes = 0usize;
        for (n, line) in input.split(b'\n').enumerate() {
            let line = line.map_err(|e| format!("reading the input: {e}"))?;
            let line = line.strip_suffix(b"\r").unwrap_or(&line);
            if line.is_empty() {
                continue;
            }
            done.lines += 1;
            match self.cells_of(line) {
                Ok(cells) => {
                    bytes += cells.iter().map(|c| c.raw_size() + 64).sum::<usize>();
                    buffer.extend(cells);
                }
                Err(e) if self.skip_bad_lines => {
                    done.bad_lines += 1;
                    if done.bad_lines <= 10 {
                        eprintln!("line {}: {e} (skipped)", n + 1);
                    }
                }
                Err(e) => return Err(format!("line {}: {e}", n + 1)),
            }
            if bytes >= self.sort_bytes {
                self.write_run(&mut buffer, &runs_dir, done.runs)?;
                done.runs += 1;
                bytes = 0;
            }
        }
        if done.runs == 0 {
            // The input fit in memory: its sorted cells are the output, no run is written.
            done.runs = usize::from(!buffer.is_empty());
            let mut by_family = sorted_by_family(&mut buffer);
            for family in &self.table.families {
                let Some(cells) = by_family.remove(family.name.as_bytes()) else {
                    continue;
                };
                let dir = self.out.join(&family.name);
                let mut out = Output::new(family, &dir, &self.boundaries);
                for cell in &cells {
                    out.add(&CellRef::from_cell(cell))?;
                }
                done.cells += cells.len() as u64;
                done.files += out.finish()?;
            }
            return Ok(done);
        }
        if !buffer.is_empty() {
            self.write_run(&mut buffer, &runs_dir, done.runs)?;
            done.runs += 1;
        }
        for family in &self.table.families {
            let dir = runs_dir.join(&family.name);
            let (cells, files) = self.merge_family(family, &dir, done.runs)?;
            done.cells += cells;
            done.files += files;
        }
        fs::remove_dir_all(&runs_dir).or_else(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Ok(())
            } else {
                Err(format!("{}: {e}", runs_dir.display()))
            }
        })?;
        Ok(done)
    }

    fn cells_of(&self, line: &[u8]) -> Result<Vec<Cell>, String> {
        let fields: Vec<&[u8]> = line.split(|b| *b == self.separator).collect();
        if fields.len() != self.columns.len() {
            return Err(format!(
                "{} fields, {} columns named",
                fields.len(),
                self.columns.len()
            ));
        }
        let mut row = None;
        let mut ts = self.timestamp;
        for (column, field) in self.columns.iter().zip(&fields) {
            match column {
                Column::Row => row = Some(Bytes::copy_from_slice(field)),
                Column::Timestamp => {
                    ts = std::str::from_utf8(field)
                        .ok()
                        .and_then(|t| t.trim().parse().ok())
                        .ok_or_else(|| {
                            format!(
                                "timestamp {:?} is not a number",
                                String::from_utf8_lossy(field)
                            )
                        })?;
                }
                Column::Cell(..) => {}
            }
        }
        let row = row.filter(|r| !r.is_empty()).ok_or("an empty row key")?;
        if row.len() > strata_model::limits::MAX_ROW_LEN {
            return Err(format!("a row key of {} bytes", row.len()));
        }
        let mut cells = Vec::new();
        for (column, field) in self.columns.iter().zip(fields) {
            if let Column::Cell(family, qualifier) = column {
                cells.push(Cell {
                    row: row.clone(),
                    family: family.clone(),
                    qualifier: qualifier.clone(),
                    timestamp: ts,
                    cell_type: CellType::Put,
                    seq: 0,
                    value: Bytes::copy_from_slice(field),
                    ttl: None,
                });
            }
        }
        Ok(cells)
    }

    /// Writes `buffer`'s cells, sorted, as a run file per family.
    fn write_run(&self, buffer: &mut Vec<Cell>, dir: &Path, run: usize) -> Result<(), String> {
        let by_family = sorted_by_family(buffer);
        for (family, cells) in by_family {
            let name = String::from_utf8_lossy(&family).into_owned();
            let family_dir = dir.join(&name);
            fs::create_dir_all(&family_dir)
                .map_err(|e| format!("{}: {e}", family_dir.display()))?;
            let path = family_dir.join(format!("run-{run:06}.sst"));
            // Read once, in order, by the merge: no bloom filter.
            let options = WriterOptions {
                family: family.clone(),
                bloom: strata_model::schema::BloomType::None,
                ..WriterOptions::default()
            };
            let mut writer =
                Writer::create(&path, options).map_err(|e| format!("{}: {e}", path.display()))?;
            for cell in &cells {
                writer
                    .add(&CellRef::from_cell(cell))
                    .map_err(|e| format!("{}: {e}", path.display()))?;
            }
            writer
                .finish_and_sync()
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
        Ok(())
    }

    /// Merges `family`'s runs into files cut at the region boundaries; (cells, files).
    fn merge_family(
        &self,
        family: &FamilyDescriptor,
        dir: &Path,
        runs: usize,
    ) -> Result<(u64, usize), String> {
        let mut sources: Vec<Iter> = Vec::new();
        for run in 0..runs {
            let path = dir.join(format!("run-{run:06}.sst"));
            if !path.exists() {
                continue;
            }
            let reader = Reader::open(&path, ReaderOptions::default())
                .map_err(|e| format!("{}: {e}", path.display()))?;
            let mut it = reader.iter_uncached();
            if it.seek_to_first().map_err(|e| e.to_string())? {
                sources.push(it);
            }
        }
        let out_dir = self.out.join(&family.name);
        let mut out = Output::new(family, &out_dir, &self.boundaries);
        let family_name = Bytes::copy_from_slice(family.name.as_bytes());
        let mut cells = 0u64;
        loop {
            // The smallest current key; among equal keys the latest run (the last source).
            let mut best: Option<usize> = None;
            for (i, s) in sources.iter().enumerate() {
                if !s.valid() {
                    continue;
                }
                best = match best {
                    Some(b)
                        if compare_keys(
                            s.current().key_parts(),
                            sources[b].current().key_parts(),
                        )
                        .is_gt() =>
                    {
                        Some(b)
                    }
                    _ => Some(i),
                };
            }
            let Some(b) = best else { break };
            let cell = sources[b].current().to_cell(&family_name);
            out.add(&CellRef::from_cell(&cell))?;
            cells += 1;
            for s in &mut sources {
                while s.valid() && compare_keys(s.current().key_parts(), cell.key_parts()).is_eq() {
                    s.next().map_err(|e| e.to_string())?;
                }
            }
        }
        let files = out.finish()?;
        Ok((cells, files))
    }
}

/// `buffer`'s cells (emptied) by family, each in store order with one cell per key: of equal
/// cells, the one of the latest line.
fn sorted_by_family(buffer: &mut Vec<Cell>) -> BTreeMap<Bytes, Vec<Cell>> {
    let cells = std::mem::take(buffer);
    // Indexes are sorted, not cells: a cell is large, and a sort moves what it sorts.
    let mut order: Vec<u32> = (0..u32::try_from(cells.len()).unwrap_or(u32::MAX)).collect();
    order.sort_unstable_by(|&ia, &ib| {
        let (a, b) = (&cells[ia as usize], &cells[ib as usize]);
        a.family
            .as_ref()
            .cmp(b.family.as_ref())
            .then_with(|| compare_keys(a.key_parts(), b.key_parts()))
            .then_with(|| ib.cmp(&ia))
    });
    let mut cells: Vec<Option<Cell>> = cells.into_iter().map(Some).collect();
    let mut by_family: BTreeMap<Bytes, Vec<Cell>> = BTreeMap::new();
    for i in order {
        let Some(cell) = cells[i as usize].take() else {
            continue;
        };
        let out = by_family.entry(cell.family.clone()).or_default();
        let same = out
            .last()
            .is_some_and(|c| compare_keys(c.key_parts(), cell.key_parts()).is_eq());
        if !same {
            out.push(cell);
        }
    }
    by_family
}

/// One family's output files, a new one at each region boundary.
struct Output<'a> {
    family: &'a FamilyDescriptor,
    dir: &'a Path,
    boundaries: &'a [Bytes],
    /// Index of the region the open writer is for.
    region: usize,
    writer: Option<(PathBuf, Writer<std::io::BufWriter<fs::File>>)>,
    files: usize,
}

impl<'a> Output<'a> {
    fn new(family: &'a FamilyDescriptor, dir: &'a Path, boundaries: &'a [Bytes]) -> Self {
        Output {
            family,
            dir,
            boundaries,
            region: 0,
            writer: None,
            files: 0,
        }
    }

    fn add(&mut self, cell: &CellRef<'_>) -> Result<(), String> {
        let region = self.boundaries.partition_point(|b| b.as_ref() <= cell.row);
        if self.writer.is_none() || region != self.region {
            self.close()?;
            fs::create_dir_all(self.dir).map_err(|e| format!("{}: {e}", self.dir.display()))?;
            let path = self.dir.join(format!("{region:06}.sst"));
            let options = WriterOptions {
                created_at_ms: now_ms(),
                ..WriterOptions::for_family(self.family)
            };
            let writer =
                Writer::create(&path, options).map_err(|e| format!("{}: {e}", path.display()))?;
            self.writer = Some((path, writer));
            self.region = region;
        }
        let (path, writer) = self.writer.as_mut().expect("opened above");
        writer
            .add(cell)
            .map_err(|e| format!("{}: {e}", path.display()))
    }

    fn close(&mut self) -> Result<(), String> {
        if let Some((path, writer)) = self.writer.take() {
            writer
                .finish_and_sync()
                .map_err(|e| format!("{}: {e}", path.display()))?;
            self.files += 1;
        }
        Ok(())
    }

    fn finish(mut self) -> Result<usize, String> {
        self.close()?;
        Ok(self.files)
    }
}

/// Now, in ms since the epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
