//! Writes the seed corpus of the `reader` target: small valid store files covering every
//! encoding, every codec, each bloom type, empty files and two-level indexes, each prefixed
//! with a control byte (see `fuzz_targets/reader.rs`).
//!
//! Run from `crates/sstable/fuzz`: `cargo run --example make_seeds -- seeds/reader`.

use bytes::Bytes;
use strata_model::cell::{Cell, CellType};
use strata_model::schema::{BloomType, Compression, DataBlockEncoding};
use strata_sstable::{CellRef, Writer, WriterOptions};

/// Cells in store order: `rows` rows of a few columns and versions, short values.
fn cells(rows: u32, value_len: usize) -> Vec<Cell> {
    let mut out = Vec::new();
    for r in 0..rows {
        let row = Bytes::from(format!("row{:05}", r * 7));
        if r % 5 == 0 {
            out.push(Cell::delete(
                row.clone(),
                "cf",
                "",
                90,
                CellType::DeleteFamily,
            ));
        }
        for q in ["a", "bb", "q"] {
            for ts in [30, 20] {
                let mut c = Cell::put(
                    row.clone(),
                    "cf",
                    q,
                    ts,
                    vec![b'v' + (r % 3) as u8; value_len],
                );
                c.seq = u64::from(r % 4);
                out.push(c);
            }
        }
    }
    out
}

fn write(cells: &[Cell], options: WriterOptions) -> Vec<u8> {
    let mut w = Writer::new(Vec::new(), "seed", options).expect("options");
    for c in cells {
        w.add(&CellRef::from_cell(c)).expect("sorted cells");
    }
    w.finish().expect("finish").0
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "seeds/reader".to_owned());
    std::fs::create_dir_all(&dir).expect("mkdir");
    let small = cells(12, 3);
    let many = cells(200, 24);
    let mut n = 0;
    let mut save = |name: &str, control: u8, file: &[u8]| {
        let mut data = vec![control];
        data.extend_from_slice(file);
        let path = format!("{dir}/{n:02}-{name}");
        std::fs::write(&path, &data).expect("write seed");
        println!("{path}: {} bytes", data.len());
        n += 1;
    };
    let opts = |encoding, compression, bloom| WriterOptions {
        block_size: 1024,
        index_block_size: 1024,
        encoding,
        compression,
        bloom,
        ..WriterOptions::default()
    };
    // One small multi-block file per encoding; control bytes cycle the cache forms, with
    // checksum fixing on so that mutations reach the decoders.
    for (i, e) in DataBlockEncoding::ALL.into_iter().enumerate() {
        let f = write(&small, opts(e, Compression::None, BloomType::Row));
        save(
            &format!("{}-none-row", e.name().to_lowercase()),
            4 | (i as u8 % 4),
            &f,
        );
    }
    // Every codec (FAST_DIFF), other bloom types.
    for (i, c) in Compression::ALL.into_iter().enumerate().skip(1) {
        let f = write(
            &small,
            opts(DataBlockEncoding::FastDiff, c, BloomType::RowCol),
        );
        save(
            &format!("fast_diff-{}-rowcol", c.name().to_lowercase()),
            4 | (i as u8 % 4),
            &f,
        );
    }
    let f = write(
        &small,
        opts(
            DataBlockEncoding::Prefix,
            Compression::None,
            BloomType::RowPrefixFixedLength(4),
        ),
    );
    save("prefix-none-rowprefix", 5, &f);
    // Two-level index: many compressible 1 KiB blocks under 1 KiB index blocks.
    for (e, c) in [
        (DataBlockEncoding::RowIndex, Compression::Zstd),
        (DataBlockEncoding::Diff, Compression::Snappy),
    ] {
        let f = write(&many, opts(e, c, BloomType::Row));
        let levels = f[f.len() - 64 + 36];
        assert!(levels >= 2, "wanted a two-level index, got {levels}");
        save(
            &format!(
                "{}-{}-two-level",
                e.name().to_lowercase(),
                c.name().to_lowercase()
            ),
            6,
            &f,
        );
    }
    // No cells; one cell; no bloom; checksums as written (no fixing).
    save(
        "empty",
        4,
        &write(
            &[],
            opts(DataBlockEncoding::None, Compression::None, BloomType::Row),
        ),
    );
    save(
        "one-cell",
        1,
        &write(
            &small[..1],
            opts(DataBlockEncoding::Diff, Compression::Lz4, BloomType::None),
        ),
    );
    save(
        "none-nobloom-nofix",
        2,
        &write(
            &small,
            opts(DataBlockEncoding::None, Compression::None, BloomType::None),
        ),
    );
}
