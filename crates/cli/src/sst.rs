//! `strata sst info|verify|dump`: offline inspection of store files.

use std::path::{Path, PathBuf};

use bytes::Bytes;
use clap::{Args, Subcommand};
use strata_model::cell::CellKey;
use strata_sstable::{Reader, ReaderOptions};

use strata_shell::escape::{from_string_binary, to_string_binary};

/// Store-file tools.
#[derive(Subcommand)]
pub enum Command {
    /// File info, trailer, index levels and bloom statistics.
    Info {
        /// The store file.
        file: PathBuf,
    },
    /// Reads every block and checks every checksum, cell and count.
    Verify {
        /// The store file.
        file: PathBuf,
    },
    /// Prints cells, optionally of a row range.
    Dump(DumpArgs),
}

/// Arguments of `dump`.
#[derive(Args)]
pub struct DumpArgs {
    /// The store file.
    file: PathBuf,
    /// First row (inclusive), `\xNN` escapes allowed.
    #[arg(long)]
    start: Option<String>,
    /// Last row (exclusive), `\xNN` escapes allowed.
    #[arg(long)]
    stop: Option<String>,
    /// Print at most this many cells.
    #[arg(long)]
    limit: Option<u64>,
    /// Print in reverse order (from `stop` down to `start`).
    #[arg(long)]
    reverse: bool,
    /// Print values in full (default: the first 64 bytes).
    #[arg(long)]
    full_values: bool,
}

fn open(file: &Path) -> Result<Reader, String> {
    Reader::open(file, ReaderOptions::default()).map_err(|e| e.to_string())
}

fn key_string(k: &Option<CellKey>) -> String {
    match k {
        None => "-".into(),
        Some(k) => format!(
            "{}/{}/{}/{}",
            to_string_binary(&k.row),
            to_string_binary(&k.qualifier),
            k.timestamp,
            k.cell_type
        ),
    }
}

/// Runs one subcommand.
///
/// # Errors
/// A message for the user.
pub fn run(cmd: &Command) -> Result<(), String> {
    match cmd {
        Command::Info { file } => info(file),
        Command::Verify { file } => {
            let reader = open(file)?;
            let report = reader.verify().map_err(|e| e.to_string())?;
            outln!("{}: OK, {} cells", file.display(), report.cells);
            for (name, s) in &report.blocks {
                outln!(
                    "  {name:<20} {:>8} blocks {:>14} bytes",
                    s.count,
                    s.disk_bytes
                );
            }
            Ok(())
        }
        Command::Dump(args) => dump(args),
    }
}

fn info(file: &Path) -> Result<(), String> {
    let reader = open(file)?;
    let i = reader.info();
    let t = reader.trailer();
    outln!("file:                {}", file.display());
    outln!("size:                {} bytes", reader.file_len());
    outln!("format version:      {}", t.format_version);
    outln!("family:              {}", to_string_binary(&i.family));
    outln!("cells:               {}", i.cell_count);
    outln!(
        "data blocks:         {} (target size {} bytes)",
        i.data_block_count,
        i.block_size
    );
    outln!("encoding:            {}", i.encoding);
    outln!("compression:         {}", i.compression);
    outln!(
        "index levels:        {} (root entries {})",
        t.index_levels,
        reader.root_index().len()
    );
    outln!("first key:           {}", key_string(&i.first_key));
    outln!("last key:            {}", key_string(&i.last_key));
    outln!("mid key:             {}", key_string(&i.mid_key));
    outln!("max sequence id:     {}", i.max_seq_id);
    outln!(
        "time range:          [{}, {}]",
        i.min_timestamp,
        i.max_timestamp
    );
    outln!(
        "delete markers:      {} ({} family)",
        i.delete_count,
        i.delete_family_count
    );
    outln!("major compaction:    {}", i.major_compaction);
    outln!("created at (ms):     {}", i.created_at_ms);
    outln!(
        "raw bytes:           {} (HBase KeyValue size; {:.2} on disk per raw byte)",
        i.raw_bytes,
        reader.file_len() as f64 / i.raw_bytes.max(1) as f64
    );
    match reader.bloom_summary() {
        None => outln!("bloom:               none"),
        Some(b) => outln!(
            "bloom:               {} fp rate {} keys {} chunks {} bytes {} ({:.2} bits/key)",
            b.bloom_type,
            b.fp_rate,
            b.keys,
            b.chunks,
            b.bytes,
            b.bytes as f64 * 8.0 / b.keys.max(1) as f64
        ),
    }
    outln!(
        "trailer:             file info @{} root index @{} bloom index @{} data end {}",
        t.file_info.offset,
        t.root_index.offset,
        t.bloom_index.map_or("-".into(), |h| h.offset.to_string()),
        t.data_end
    );
    Ok(())
}

fn dump(args: &DumpArgs) -> Result<(), String> {
    let reader = open(&args.file)?;
    let start = args.start.as_deref().map(from_string_binary).transpose()?;
    let stop = args.stop.as_deref().map(from_string_binary).transpose()?;
    let mut it = reader.iter();
    let err = |e: strata_sstable::Error| e.to_string();
    let mut ok = if args.reverse {
        match &stop {
            // The last cell before `stop`: seek_for_prev to the key just below its first cell.
            Some(s) => {
                let first = CellKey::first_on_row(Bytes::copy_from_slice(s));
                if it.seek(&first).map_err(err)? {
                    it.prev().map_err(err)?
                } else {
                    it.seek_to_last().map_err(err)?
                }
            }
            None => it.seek_to_last().map_err(err)?,
        }
    } else {
        match &start {
            Some(s) => it
                .seek(&CellKey::first_on_row(Bytes::copy_from_slice(s)))
                .map_err(err)?,
            None => it.seek_to_first().map_err(err)?,
        }
    };
    let mut n = 0u64;
    while ok && args.limit.is_none_or(|l| n < l) {
        let c = it.current();
        if args.reverse {
            if start.as_deref().is_some_and(|s| c.row < s) {
                break;
            }
        } else if stop.as_deref().is_some_and(|s| c.row >= s) {
            break;
        }
        let value = if args.full_values || c.value.len() <= 64 {
            c.value
        } else {
            &c.value[..64]
        };
        // A put's own TTL (format version 2) shows only where there is one.
        let ttl = c.ttl.map(|t| format!(" ttl={t}")).unwrap_or_default();
        outln!(
            "{}/{}:{}/{}/{}/seq={}{ttl} vlen={} value={}",
            to_string_binary(c.row),
            to_string_binary(&reader.info().family),
            to_string_binary(c.qualifier),
            c.timestamp,
            c.cell_type,
            c.seq,
            c.value.len(),
            to_string_binary(value)
        );
        n += 1;
        ok = if args.reverse { it.prev() } else { it.next() }.map_err(err)?;
    }
    Ok(())
}
