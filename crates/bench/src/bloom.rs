//! Bloom filters: the false-positive rate measured against the configured target, and the
//! bits each key costs, for `ROW`, `ROWCOL` and `ROWPREFIX_FIXED_LENGTH` filters.

use std::io::{self, Write};

use bytes::Bytes;
use strata_model::cell::Cell;
use strata_model::schema::BloomType;
use strata_sstable::{CellRef, Reader, ReaderOptions, Writer, WriterOptions};

use crate::table::Table;

/// Rows written; each has two columns.
const ROWS: u32 = 200_000;
/// Absent keys probed per filter.
const PROBES: u32 = 200_000;

fn build(bloom: BloomType, fp_rate: f64) -> io::Result<Reader> {
    let options = WriterOptions {
        bloom,
        bloom_fp_rate: fp_rate,
        ..WriterOptions::default()
    };
    let mut w = Writer::new(Vec::new(), "bloom", options).map_err(io::Error::other)?;
    for i in 0..ROWS {
        for q in ["a", "b"] {
            // Prefix filters key on the first 8 bytes: "user" + 4 digits of the row group.
            let c = Cell::put(format!("user{:04}-{i:08}", i / 100), "cf", q, 1, "v");
            w.add(&CellRef::from_cell(&c)).map_err(io::Error::other)?;
        }
    }
    let (buf, _) = w.finish().map_err(io::Error::other)?;
    Reader::from_bytes(Bytes::from(buf), "bloom", ReaderOptions::default())
        .map_err(io::Error::other)
}

/// Measures every filter type at three target rates and prints a table.
///
/// # Errors
/// I/O or store-file errors.
pub fn run(out: &mut dyn Write) -> io::Result<()> {
    let mut t = Table::new(&["filter", "target", "measured", "bits/key", "keys"]);
    for bloom in [
        BloomType::Row,
        BloomType::RowCol,
        BloomType::RowPrefixFixedLength(8),
    ] {
        for target in [0.1, 0.01, 0.001] {
            let reader = build(bloom, target)?;
            let mut positives = 0u32;
            for i in 0..PROBES {
                let hit = match bloom {
                    // Absent rows in present prefixes would always hit: probe absent prefixes.
                    BloomType::RowPrefixFixedLength(_) => {
                        reader.may_contain_row(format!("zzzz{i:04}-x").as_bytes())
                    }
                    BloomType::RowCol => reader
                        .may_contain_column(format!("user{:04}-{i:08}", i / 100).as_bytes(), b"zz"),
                    // Absent rows that sort among present ones, so the filter (not the chunk
                    // range) decides.
                    _ => reader.may_contain_row(format!("user{:04}-{i:08}x", i / 100).as_bytes()),
                }
                .map_err(io::Error::other)?;
                positives += u32::from(hit);
            }
            let s = reader
                .bloom_summary()
                .ok_or_else(|| io::Error::other("no bloom written"))?;
            let probes = if let BloomType::RowPrefixFixedLength(_) = bloom {
                10_000 // "zzzz0000".."zzzz9999" repeat beyond that
            } else {
                PROBES
            };
            let positives = if let BloomType::RowPrefixFixedLength(_) = bloom {
                positives / (PROBES / probes)
            } else {
                positives
            };
            t.row(vec![
                bloom.to_string(),
                format!("{target}"),
                format!("{:.4}", f64::from(positives) / f64::from(probes)),
                format!("{:.2}", s.bytes as f64 * 8.0 / s.keys as f64),
                s.keys.to_string(),
            ]);
        }
    }
    writeln!(
        out,
        "## Bloom filters: configured vs measured false-positive rate\n\n{}",
        t.render()
    )
}
