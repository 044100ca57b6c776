//! Seed 003's experiment ("HBase – Compression vs Block Encoding") on Strata's store files.
//!
//! 1. Footprint: the same rows written with each encoding × compression, in bytes per row,
//!    beside HBase's figures from the seed.
//! 2. One-thread scans per cached form: no block cache (blocks come from the OS page cache and
//!    are decompressed and decoded on every pass), and a warmed block cache holding decoded,
//!    encoded or compressed blocks. Throughput counts raw cell bytes (HBase's KeyValue size), as
//!    the seed's "raw" figures do.
//! 3. Parallel scans over key ranges (as Phoenix splits a scan), decoded blocks cached.
//! 4. Random point gets (one row), from the block cache and from the OS cache.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_model::cell::{compare_bytes, CellKey};
use strata_model::schema::{BloomType, CachedForm, Compression, DataBlockEncoding};
use strata_sstable::{BlockCache, CellRef, Reader, ReaderOptions, Writer, WriterOptions};

use crate::phoenix::{self, Rows, CELLS_PER_ROW};
use crate::table::Table;

/// What to run.
#[derive(Clone, Debug)]
pub struct Config {
    /// Rows of the table (four cells each).
    pub rows: u32,
    /// Where the files go.
    pub dir: PathBuf,
    /// Threads of the parallel scan.
    pub threads: usize,
    /// Random gets per measurement.
    pub gets: usize,
    /// Encoding × compression pairs to write.
    pub codecs: Vec<(DataBlockEncoding, Compression)>,
    /// Timed passes per scan measurement (the best is reported).
    pub passes: usize,
}

impl Config {
    /// The pairs of the seed (NONE, PREFIX, FAST_DIFF, SNAPPY, GZ) and the rest of Strata's.
    pub fn all_codecs() -> Vec<(DataBlockEncoding, Compression)> {
        use Compression as C;
        use DataBlockEncoding as E;
        vec![
            (E::None, C::None),
            (E::Prefix, C::None),
            (E::Diff, C::None),
            (E::FastDiff, C::None),
            (E::RowIndex, C::None),
            (E::None, C::Snappy),
            (E::None, C::Lz4),
            (E::None, C::Zstd),
            (E::None, C::Gz),
            (E::FastDiff, C::Snappy),
            (E::FastDiff, C::Zstd),
        ]
    }
}

/// One written file.
pub struct Written {
    /// Encoding.
    pub encoding: DataBlockEncoding,
    /// Compression.
    pub compression: Compression,
    /// Path.
    pub path: PathBuf,
    /// File size.
    pub file_bytes: u64,
    /// Raw payload of all cells (row + family + qualifier + 8 + value, as the HBase peer counts).
    pub raw_bytes: u64,
    /// Seconds to write.
    pub write_secs: f64,
}

impl Written {
    /// "ENCODING+COMPRESSION", or just the non-NONE part as the seed names them.
    pub fn label(&self) -> String {
        label(self.encoding, self.compression)
    }
}

fn label(e: DataBlockEncoding, c: Compression) -> String {
    match (e, c) {
        (DataBlockEncoding::None, Compression::None) => "NONE".into(),
        (e, Compression::None) => e.name().into(),
        (DataBlockEncoding::None, c) => c.name().into(),
        (e, c) => format!("{}+{}", e.name(), c.name()),
    }
}

/// Writes the table with one codec pair.
///
/// # Errors
/// I/O and store-file errors.
pub fn write_file(
    rows: u32,
    dir: &Path,
    encoding: DataBlockEncoding,
    compression: Compression,
) -> io::Result<Written> {
    let path = dir.join(format!(
        "seed003-{}-{}.sst",
        encoding.name().to_lowercase(),
        compression.name().to_lowercase()
    ));
    let _ = fs::remove_file(&path);
    let options = WriterOptions {
        family: Bytes::from_static(phoenix::FAMILY),
        encoding,
        compression,
        bloom: BloomType::Row,
        ..WriterOptions::default()
    };
    let start = Instant::now();
    let mut w = Writer::create(&path, options).map_err(io::Error::other)?;
    let mut raw_bytes = 0;
    for row in Rows::new(rows, 42) {
        for c in &row {
            raw_bytes += phoenix::payload_bytes(c);
            w.add(&CellRef::from_cell(c)).map_err(io::Error::other)?;
        }
    }
    w.finish_and_sync().map_err(io::Error::other)?;
    let write_secs = start.elapsed().as_secs_f64();
    Ok(Written {
        encoding,
        compression,
        file_bytes: fs::metadata(&path)?.len(),
        raw_bytes,
        path,
        write_secs,
    })
}

/// Opens `path`. `form: None` is `BLOCKCACHE => false`: data blocks come from the OS page cache
/// on every read while index and bloom blocks stay cached, as HBase does with
/// `cacheBlocks=false`.
fn open(path: &Path, form: Option<CachedForm>, cache: Arc<BlockCache>) -> io::Result<Reader> {
    let options = ReaderOptions {
        cache: Some(cache),
        cache_data: form.is_some(),
        cached_form: form.unwrap_or_default(),
    };
    Reader::open(path, options).map_err(io::Error::other)
}

/// Scans cells of rows `[lo, hi)` (whole file when `None`); returns cells seen and a checksum
/// that keeps the work from being optimised away.
fn scan(reader: &Reader, range: Option<(u32, u32)>) -> io::Result<(u64, u64)> {
    let mut it = reader.iter();
    let (mut cells, mut sum) = (0u64, 0u64);
    let stop = range.map(|(_, hi)| phoenix::row_key(hi));
    let mut ok = match range {
        None => it.seek_to_first(),
        Some((lo, _)) => it.seek(&CellKey::first_on_row(Bytes::copy_from_slice(
            &phoenix::row_key(lo),
        ))),
    }
    .map_err(io::Error::other)?;
    while ok {
        let c: CellRef<'_> = it.current();
        if let Some(stop) = &stop {
            if compare_bytes(c.row, stop).is_ge() {
                break;
            }
        }
        cells += 1;
        sum = sum.wrapping_add(c.value.len() as u64 + c.timestamp as u64);
        ok = it.next().map_err(io::Error::other)?;
    }
    Ok((cells, sum))
}

fn mb(bytes: f64) -> f64 {
    bytes / 1e6
}

/// Best-of-`passes` one-thread scan throughput in MB/s of raw bytes, after one warm-up pass.
fn scan_rate(reader: &Reader, raw_bytes: u64, passes: usize) -> io::Result<f64> {
    scan(reader, None)?;
    let mut best = f64::MAX;
    for _ in 0..passes.max(1) {
        let t = Instant::now();
        scan(reader, None)?;
        best = best.min(t.elapsed().as_secs_f64());
    }
    Ok(mb(raw_bytes as f64) / best)
}

fn parallel_scan_rate(
    reader: &Reader,
    rows: u32,
    raw_bytes: u64,
    threads: usize,
) -> io::Result<f64> {
    scan(reader, None)?;
    let per = rows.div_ceil(threads as u32);
    let t = Instant::now();
    std::thread::scope(|s| -> io::Result<()> {
        let handles: Vec<_> = (0..threads as u32)
            .map(|i| {
                let r = reader.clone();
                s.spawn(move || scan(&r, Some((i * per, ((i + 1) * per).min(rows)))))
            })
            .collect();
        for h in handles {
            h.join()
                .map_err(|_| io::Error::other("scan thread panicked"))??;
        }
        Ok(())
    })?;
    Ok(mb(raw_bytes as f64) / t.elapsed().as_secs_f64())
}

/// Gets per second of random rows.
fn get_rate(reader: &Reader, rows: u32, gets: usize) -> io::Result<f64> {
    let mut rng = SmallRng::seed_from_u64(7);
    for _ in 0..gets.min(10_000) {
        reader
            .get_row(&phoenix::row_key(rng.gen_range(0..rows)))
            .map_err(io::Error::other)?;
    }
    let t = Instant::now();
    let mut found = 0u64;
    for _ in 0..gets {
        let cells = reader
            .get_row(&phoenix::row_key(rng.gen_range(0..rows)))
            .map_err(io::Error::other)?;
        found += cells.len() as u64;
    }
    let secs = t.elapsed().as_secs_f64();
    if found != gets as u64 * CELLS_PER_ROW {
        return Err(io::Error::other(format!(
            "gets found {found} cells, expected {}",
            gets as u64 * CELLS_PER_ROW
        )));
    }
    Ok(gets as f64 / secs)
}

/// Runs the whole experiment, printing tables to `out` as results arrive.
///
/// # Errors
/// I/O and store-file errors.
pub fn run(cfg: &Config, out: &mut dyn Write) -> io::Result<Vec<Written>> {
    fs::create_dir_all(&cfg.dir)?;
    let cells = u64::from(cfg.rows) * CELLS_PER_ROW;
    writeln!(
        out,
        "Seed 003 data set: {} rows, {} cells (4 a row), files in {}\n",
        cfg.rows,
        cells,
        cfg.dir.display()
    )?;

    let mut written = Vec::new();
    let mut t = Table::new(&[
        "codec",
        "file MB",
        "B/cell",
        "HBase B/cell (peer)",
        "Strata/HBase",
        "HBase B/cell (seed post)",
        "write MB/s (raw)",
    ]);
    for &(e, c) in &cfg.codecs {
        let w = write_file(cfg.rows, &cfg.dir, e, c)?;
        let per_cell = w.file_bytes as f64 / cells as f64;
        let peer = phoenix::peer_bytes_per_cell(&w.label());
        let seed = phoenix::seed_bytes_per_cell(&w.label());
        t.row(vec![
            w.label(),
            format!("{:.1}", mb(w.file_bytes as f64)),
            format!("{per_cell:.2}"),
            peer.map_or("-".into(), |h| format!("{h:.2}")),
            peer.map_or("-".into(), |h| format!("{:.2}", per_cell / h)),
            seed.map_or("-".into(), |h| format!("{h:.1}")),
            format!("{:.0}", mb(w.raw_bytes as f64) / w.write_secs),
        ]);
        written.push(w);
    }
    writeln!(out, "## Footprint\n\n{}", t.render())?;

    let forms: [(&str, Option<CachedForm>); 4] = [
        ("none: OS page cache", None),
        ("decoded", Some(CachedForm::Decoded)),
        ("encoded", Some(CachedForm::Encoded)),
        ("compressed", Some(CachedForm::Compressed)),
    ];
    let mut t = Table::new(&[
        "codec",
        "cached form",
        "scan MB/s (raw)",
        "Mcells/s",
        "cache MB",
    ]);
    for w in &written {
        for (name, form) in forms {
            let cache = Arc::new(BlockCache::new(8 << 30));
            let reader = open(&w.path, form, cache.clone())?;
            let rate = scan_rate(&reader, w.raw_bytes, cfg.passes)?;
            t.row(vec![
                w.label(),
                name.into(),
                format!("{rate:.0}"),
                format!(
                    "{:.1}",
                    rate * 1e6 / (w.raw_bytes as f64 / cells as f64) / 1e6
                ),
                format!("{:.1}", mb(cache.stats().used as f64)),
            ]);
        }
    }
    writeln!(out, "## One-thread scans\n\n{}", t.render())?;

    let mut t = Table::new(&[
        "codec",
        "threads",
        "scan MB/s (raw), decoded cached",
        "gets/s block cache",
        "gets/s OS cache",
    ]);
    for w in &written {
        let cache = Arc::new(BlockCache::new(8 << 30));
        let cached = open(&w.path, Some(CachedForm::Decoded), cache)?;
        let par = parallel_scan_rate(&cached, cfg.rows, w.raw_bytes, cfg.threads)?;
        let gets_cached = get_rate(&cached, cfg.rows, cfg.gets)?;
        let uncached = open(&w.path, None, Arc::new(BlockCache::new(64 << 20)))?;
        let gets_os = get_rate(&uncached, cfg.rows, cfg.gets)?;
        t.row(vec![
            w.label(),
            cfg.threads.to_string(),
            format!("{par:.0}"),
            format!("{gets_cached:.0}"),
            format!("{gets_os:.0}"),
        ]);
    }
    writeln!(out, "## Parallel scans and random gets\n\n{}", t.render())?;
    Ok(written)
}
