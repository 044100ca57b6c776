//! Format version 1 stays readable: fixture files written by the version-1 writer are checked
//! in and must keep opening, verifying and reading back the cells they were written from.
//!
//! To (re)create the fixtures after an intentional change of the writer that keeps format 1:
//! `STRATA_WRITE_FIXTURES=1 cargo test -p strata-sstable --test format_v1_fixture`.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use bytes::Bytes;
use strata_model::cell::{Cell, CellType};
use strata_model::schema::{BloomType, Compression, DataBlockEncoding};
use strata_sstable::{CellRef, Reader, ReaderOptions, Writer, WriterOptions};

/// The cells of every fixture: deterministic, covering every cell type, sequence ids,
/// negative timestamps, empty and long values.
fn fixture_cells() -> Vec<Cell> {
    let mut cells = Vec::new();
    for i in 0..400u32 {
        let row = format!("row-{:06}", i * 7);
        if i % 50 == 0 {
            cells.push(Cell::delete(
                row.clone(),
                "f",
                "",
                9_000,
                CellType::DeleteFamily,
            ));
            cells.push(Cell::delete(
                row.clone(),
                "f",
                "",
                8_000,
                CellType::DeleteFamilyVersion,
            ));
        }
        for (q, ts) in [("a", 5_000i64), ("a", 4_000), ("b", -1), ("long", 7)] {
            let mut c = Cell::put(
                row.clone(),
                "f",
                q,
                ts,
                format!("{i}:{q}:{ts}").repeat(if q == "long" { 40 } else { 1 }),
            );
            c.seq = u64::from(i % 3) * 1_000_003;
            cells.push(c);
        }
        if i % 33 == 0 {
            cells.push(Cell::delete(row.clone(), "f", "b", -1, CellType::Delete));
            cells.push(Cell::delete(row, "f", "c", 100, CellType::DeleteColumn));
        }
    }
    cells.sort();
    cells
}

struct Fixture {
    name: &'static str,
    encoding: DataBlockEncoding,
    compression: Compression,
    bloom: BloomType,
}

const FIXTURES: [Fixture; 3] = [
    Fixture {
        name: "none-none-row.sst",
        encoding: DataBlockEncoding::None,
        compression: Compression::None,
        bloom: BloomType::Row,
    },
    Fixture {
        name: "fastdiff-snappy-rowcol.sst",
        encoding: DataBlockEncoding::FastDiff,
        compression: Compression::Snappy,
        bloom: BloomType::RowCol,
    },
    Fixture {
        name: "rowindex-zstd-prefix.sst",
        encoding: DataBlockEncoding::RowIndex,
        compression: Compression::Zstd,
        bloom: BloomType::RowPrefixFixedLength(6),
    },
];

fn path(name: &str) -> PathBuf {
    PathBuf::from(
        std::env::var("CARGO_MANIFEST_DIR")
            .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned()),
    )
    .join("testdata/v1")
    .join(name)
}

fn write_fixture(f: &Fixture) -> Vec<u8> {
    let options = WriterOptions {
        family: Bytes::from_static(b"f"),
        block_size: 4096,
        encoding: f.encoding,
        compression: f.compression,
        bloom: f.bloom,
        index_block_size: 1024,
        created_at_ms: 1_790_000_000_000,
        ..WriterOptions::default()
    };
    let mut w = Writer::new(Vec::new(), f.name, options).unwrap();
    for c in fixture_cells() {
        w.add(&CellRef::from_cell(&c)).unwrap();
    }
    w.finish().unwrap().0
}

#[test]
fn version_1_fixtures_still_read() {
    let regenerate = std::env::var_os("STRATA_WRITE_FIXTURES").is_some();
    let expected = fixture_cells();
    for f in &FIXTURES {
        let p = path(f.name);
        if regenerate {
            std::fs::write(&p, write_fixture(f)).unwrap();
        }
        let reader = Reader::open(&p, ReaderOptions::default())
            .unwrap_or_else(|e| panic!("fixture {} must open: {e}", f.name));
        assert_eq!(reader.trailer().format_version, 1);
        let info = reader.info();
        assert_eq!(info.encoding, f.encoding);
        assert_eq!(info.compression, f.compression);
        assert_eq!(info.bloom, f.bloom);
        assert_eq!(info.created_at_ms, 1_790_000_000_000);
        assert_eq!(info.cell_count, expected.len() as u64);
        reader.verify().unwrap();
        let mut it = reader.iter();
        let mut got = Vec::new();
        let mut ok = it.seek_to_first().unwrap();
        while ok {
            got.push(it.current_cell());
            ok = it.next().unwrap();
        }
        assert_eq!(got, expected, "fixture {}", f.name);
        assert_eq!(reader.get_row(b"row-000049").unwrap().len(), 4);
    }
}

/// A file whose cells carry no TTL is still written as version 1 (what earlier releases
/// read); one put with its own TTL makes it version 2, which reads back with the TTL in
/// every encoding.
#[test]
fn only_files_with_cell_ttls_are_version_2() {
    for f in &FIXTURES {
        let plain = write_fixture(f);
        let reader =
            Reader::from_bytes(Bytes::from(plain), f.name, ReaderOptions::default()).unwrap();
        assert_eq!(reader.trailer().format_version, 1, "{}", f.name);

        let options = WriterOptions {
            family: Bytes::from_static(b"f"),
            block_size: 4096,
            encoding: f.encoding,
            compression: f.compression,
            bloom: f.bloom,
            ..WriterOptions::default()
        };
        let mut cells = fixture_cells();
        for (i, c) in cells.iter_mut().enumerate() {
            if c.cell_type == CellType::Put && i % 3 == 0 {
                c.ttl = Some(i as u64 * 1_000);
            }
        }
        let mut w = Writer::new(Vec::new(), f.name, options).unwrap();
        for c in &cells {
            w.add(&CellRef::from_cell(c)).unwrap();
        }
        let bytes = w.finish().unwrap().0;
        let reader =
            Reader::from_bytes(Bytes::from(bytes), f.name, ReaderOptions::default()).unwrap();
        assert_eq!(reader.trailer().format_version, 2, "{}", f.name);
        let mut it = reader.iter();
        let mut back: Vec<Cell> = Vec::new();
        let mut more = it.seek_to_first().unwrap();
        while more {
            back.push(it.current().to_cell(&cells[0].family));
            more = it.next().unwrap();
        }
        assert_eq!(back, cells, "{}", f.name);
    }
}
