//! The layout-level facts of a file: index levels, mid key, file info.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use strata_model::cell::{Cell, CellType};
use strata_model::schema::{BloomType, Compression, DataBlockEncoding};

fn many_rows(n: u32) -> Model {
    let mut model = Model::new();
    for i in 0..n {
        let c = Cell::put(
            format!("user{i:08}"),
            "cf",
            "field0",
            1000 + i64::from(i % 7),
            vec![b'v'; 40],
        );
        model.insert(c.key(), c);
    }
    let d = Cell::delete("user00000005", "cf", "", 2000, CellType::DeleteFamily);
    model.insert(d.key(), d);
    let d = Cell::delete("user00000006", "cf", "field0", 900, CellType::DeleteColumn);
    model.insert(d.key(), d);
    model
}

#[test]
fn a_large_file_gets_a_deep_index_and_a_middle_split_key() {
    let model = many_rows(20_000);
    let bytes = write(
        &model,
        options(DataBlockEncoding::Prefix, Compression::None, BloomType::Row),
    );
    let reader = open(bytes, None);
    assert!(
        reader.trailer().index_levels >= 3,
        "levels {}",
        reader.trailer().index_levels
    );
    let info = reader.info();
    assert_eq!(info.cell_count, 20_002);
    assert_eq!(info.min_timestamp, 900);
    assert_eq!(info.max_timestamp, 2000);
    assert_eq!(info.delete_family_count, 1);
    assert_eq!(info.delete_count, 2);
    assert_eq!(
        info.first_key.as_ref().unwrap().row.as_ref(),
        b"user00000000"
    );
    assert_eq!(
        info.last_key.as_ref().unwrap().row.as_ref(),
        b"user00019999"
    );
    // The mid key sits near the middle of the rows.
    let mid = info.mid_key.as_ref().unwrap();
    let mid_row: u32 = std::str::from_utf8(&mid.row[4..]).unwrap().parse().unwrap();
    assert!((9_000..11_000).contains(&mid_row), "mid row {mid_row}");
    assert!(info.data_block_count > 100);
    let report = reader.verify().unwrap();
    assert_eq!(report.cells, 20_002);
    assert!(report.blocks["intermediate-index"].count >= 1);

    // A point get reads the bloom chunk, index blocks and one data block.
    let before = reader.stats().blocks_read;
    assert_eq!(reader.get_row(b"user00012345").unwrap().len(), 1);
    let read = reader.stats().blocks_read - before;
    assert!(
        read <= 1 + u64::from(reader.trailer().index_levels),
        "read {read} blocks"
    );
    // An absent row is usually ruled out by the bloom filter alone.
    let negatives = (0..1000)
        .filter(|i| {
            !reader
                .may_contain_row(format!("nobody{i}").as_bytes())
                .unwrap()
        })
        .count();
    assert!(negatives > 950, "{negatives}");
}

#[test]
fn writer_options_are_validated() {
    for o in [
        strata_sstable::WriterOptions {
            block_size: 10,
            ..Default::default()
        },
        strata_sstable::WriterOptions {
            bloom_fp_rate: 0.0,
            ..Default::default()
        },
        strata_sstable::WriterOptions {
            family: bytes::Bytes::new(),
            ..Default::default()
        },
    ] {
        let e = strata_sstable::Writer::new(Vec::new(), "x", o)
            .err()
            .unwrap();
        assert!(e.to_string().contains("invalid argument"), "{e}");
    }
}

#[test]
fn options_follow_the_family_settings() {
    use strata_model::schema::{CachedForm, FamilyDescriptor};
    let mut family = FamilyDescriptor::new("cf");
    for (k, v) in [
        ("BLOCKSIZE", "4096"),
        ("DATA_BLOCK_ENCODING", "FAST_DIFF"),
        ("COMPRESSION", "ZSTD"),
        ("BLOOMFILTER", "ROWCOL"),
        ("BLOOMFILTER_FP_RATE", "0.001"),
        ("BLOCK_CACHE_FORM", "COMPRESSED"),
        ("BLOCKCACHE", "false"),
    ] {
        family.set(k, v).unwrap();
    }
    let w = strata_sstable::WriterOptions::for_family(&family);
    assert_eq!(
        (w.block_size, w.encoding, w.compression),
        (4096, DataBlockEncoding::FastDiff, Compression::Zstd)
    );
    assert_eq!((w.bloom, w.bloom_fp_rate), (BloomType::RowCol, 0.001));
    let model = many_rows(2000);
    let reader = strata_sstable::Reader::from_bytes(
        write(&model, w),
        "f",
        strata_sstable::ReaderOptions::for_family(&family, None),
    )
    .unwrap();
    assert_eq!(reader.info().encoding, DataBlockEncoding::FastDiff);
    assert_eq!(reader.bloom_summary().unwrap().fp_rate, 0.001);
    let r = strata_sstable::ReaderOptions::for_family(&family, None);
    assert_eq!(
        (r.cache_data, r.cached_form),
        (false, CachedForm::Compressed)
    );
}
