use std::cmp::Ordering;

use bytes::BytesMut;
use proptest::prelude::*;
use strata_model::cell::CellType;
use strata_sstable::CellRef;

use super::*;
use crate::memtable::flat_build::{shared_between, FlatBuilder};
use crate::memtable::key::Key;

fn cell<'a>(row: &'a [u8], qualifier: &'a [u8], timestamp: i64, seq: u64) -> CellRef<'a> {
    CellRef {
        row,
        qualifier,
        timestamp,
        cell_type: CellType::Put,
        seq,
        value: b"v",
        ttl: None,
    }
}

fn key(c: &CellRef<'_>) -> Key {
    let mut out = BytesMut::new();
    Key::encode(c, &mut out);
    Key::new(out.freeze(), c)
}

/// Keys for `(row, qualifier, timestamp)` triples, in store order, unique.
fn index(cells: &[(Vec<u8>, Vec<u8>, i64)]) -> FlatIndex {
    let mut keys: Vec<Key> = cells
        .iter()
        .map(|(r, q, ts)| key(&cell(r, q, *ts, 5)))
        .collect();
    keys.sort_by(|a, b| a.cmp_probe(&b.probe()));
    keys.dedup_by(|a, b| a.cmp_probe(&b.probe()) == Ordering::Equal);
    let shared = shared_between(keys.first().map(Key::as_ref), keys.last().map(Key::as_ref));
    // Small chunks: the keys spread over many, some cells in chunks of their own.
    let mut builder = FlatBuilder::new(64, shared, keys.len());
    for key in &keys {
        assert!(builder.push(key.as_ref()));
    }
    let flat = builder.finish().index;
    assert!(flat
        .keys()
        .zip(&keys)
        .all(|(a, b)| a.data() == b.as_ref().data()));
    flat
}

/// What a plain binary search over the keys finds.
fn naive(flat: &FlatIndex, probe: &Probe<'_>, inclusive: bool) -> usize {
    flat.partition_point(|k| match k.cmp_probe(probe) {
        Ordering::Less => true,
        Ordering::Equal => inclusive,
        Ordering::Greater => false,
    })
}

fn check(flat: &FlatIndex, row: &[u8], qualifier: &[u8], timestamp: i64) {
    let c = cell(row, qualifier, timestamp, 5);
    let probe = Probe::of_cell(&c);
    for inclusive in [false, true] {
        assert_eq!(
            flat.partition(&probe, inclusive),
            naive(flat, &probe, inclusive),
            "probe {row:?}/{qualifier:?}/{timestamp} inclusive {inclusive}"
        );
    }
}

#[test]
fn finds_rows_that_share_long_prefixes_and_differ_past_eight_bytes() {
    let rows: Vec<Vec<u8>> = (0..50u32)
        .map(|i| format!("user-000000000000{:04}", i * 7).into_bytes())
        .collect();
    let cells: Vec<_> = rows
        .iter()
        .flat_map(|r| (0..3u8).map(move |q| (r.clone(), vec![b'f', q], 1)))
        .collect();
    let flat = index(&cells);
    for r in &rows {
        for q in [&b"f\x00"[..], b"f\x01", b"f\x03", b"", b"g"] {
            check(&flat, r, q, 1);
            check(&flat, r, q, 0);
        }
    }
    for probe in [
        &b""[..],
        b"user",
        b"user-",
        b"user-000000000000",
        b"user-0000000000000",
        b"user-0000000000009999",
        b"user-1",
        b"v",
        b"a",
    ] {
        check(&flat, probe, b"", i64::MAX);
    }
}

#[test]
fn rows_shorter_than_the_dense_key_and_empty_rows_sort_right() {
    let cells: Vec<_> = [
        &b""[..],
        b"a",
        b"a\x00",
        b"a\x00\x00",
        b"ab",
        b"abcdefghijk",
        b"b",
    ]
    .iter()
    .map(|r| (r.to_vec(), b"q".to_vec(), 3))
    .collect();
    let flat = index(&cells);
    for (r, _, _) in &cells {
        check(&flat, r, b"q", 3);
        check(&flat, r, b"q", 4);
        check(&flat, r, b"", 3);
        check(&flat, r, b"r", 3);
    }
    check(&flat, b"abcdefghij", b"q", 3);
    check(&flat, b"c", b"", 0);
}

#[test]
fn an_empty_index_finds_nothing() {
    let flat = FlatIndex::empty();
    let c = cell(b"r", b"q", 1, 1);
    assert_eq!(flat.partition(&Probe::of_cell(&c), false), 0);
    assert_eq!(flat.partition(&Probe::of_cell(&c), true), 0);
    assert!(flat.key(0).is_none());
}

proptest! {
    #[test]
    fn partition_matches_a_plain_binary_search(
        prefix in prop::collection::vec(0u8..3, 0..12),
        suffixes in prop::collection::vec(
            (prop::collection::vec(0u8..4, 0..12), prop::collection::vec(0u8..3, 0..3), 0i64..3),
            1..60,
        ),
        probes in prop::collection::vec(
            (prop::collection::vec(0u8..4, 0..14), prop::collection::vec(0u8..3, 0..3), 0i64..3),
            1..20,
        ),
    ) {
        let cells: Vec<_> = suffixes
            .iter()
            .map(|(s, q, ts)| ([prefix.clone(), s.clone()].concat(), q.clone(), *ts))
            .collect();
        let flat = index(&cells);
        for (s, q, ts) in &probes {
            check(&flat, &[prefix.clone(), s.clone()].concat(), q, *ts);
            check(&flat, s, q, *ts);
        }
    }
}

/// For every key below the probe, a forward search from it finds what the whole search does.
fn check_from(flat: &FlatIndex, row: &[u8], qualifier: &[u8], timestamp: i64) {
    let c = cell(row, qualifier, timestamp, 5);
    let probe = Probe::of_cell(&c);
    let want = naive(flat, &probe, false);
    for pos in 0..want {
        assert_eq!(
            flat.partition_from(pos, &probe),
            want,
            "from {pos}, probe {row:?}/{qualifier:?}/{timestamp}"
        );
    }
}

#[test]
fn column_runs_end_where_the_next_column_starts() {
    // Row a: q1 × 3 versions, q2 × 1; row b: q1 × 2.
    let cells: Vec<_> = [
        (&b"a"[..], &b"q1"[..], 3),
        (b"a", b"q1", 2),
        (b"a", b"q1", 1),
        (b"a", b"q2", 1),
        (b"b", b"q1", 2),
        (b"b", b"q1", 1),
    ]
    .iter()
    .map(|(r, q, ts)| (r.to_vec(), q.to_vec(), *ts))
    .collect();
    let flat = index(&cells);
    assert_eq!(flat.run_ends(), [3, 3, 3, 4, 6, 6]);
    // Past row a's hot column in one hop, to the middle of a run, past the end.
    check_from(&flat, b"a", b"q1\x00", i64::MAX);
    check_from(&flat, b"a", b"q1", 2);
    check_from(&flat, b"b", b"q1", 1);
    check_from(&flat, b"b", b"q2", i64::MAX);
    check_from(&flat, b"c", b"", i64::MAX);
}

#[test]
fn a_column_longer_than_a_run_length_is_hopped_over_in_steps() {
    // 70 000 versions of one column (more than a `u16` run length), then two more columns.
    let n = 70_000i64;
    let mut cells: Vec<_> = (0..n)
        .map(|ts| (b"a".to_vec(), b"q".to_vec(), ts))
        .collect();
    cells.push((b"a".to_vec(), b"r".to_vec(), 1));
    cells.push((b"b".to_vec(), b"q".to_vec(), 1));
    let flat = index(&cells);
    let hops = flat.run_ends();
    assert_eq!(hops[0], u32::from(u16::MAX));
    assert_eq!(hops[n as usize - 1], n as u32);
    assert!(flat.continues(0) && !flat.continues(n as usize - 1));
    for (row, q, ts) in [
        (&b"a"[..], &b"q\x00"[..], i64::MAX),
        (b"a", b"q", 3),
        (b"b", b"", i64::MAX),
    ] {
        let c = cell(row, q, ts, 5);
        let probe = Probe::of_cell(&c);
        let want = naive(&flat, &probe, false);
        for pos in [0, 1, 5_000, 65_535, 65_536, 69_990]
            .into_iter()
            .filter(|&p| p < want)
        {
            assert_eq!(flat.partition_from(pos, &probe), want, "from {pos}");
        }
    }
}

#[test]
fn a_forward_search_past_many_columns_falls_back_to_the_whole_index() {
    let cells: Vec<_> = (0..40u8)
        .flat_map(|r| (0..3u8).map(move |v| (vec![b'r', r], b"q".to_vec(), i64::from(v))))
        .collect();
    let flat = index(&cells);
    for r in 0..41u8 {
        check_from(&flat, &[b'r', r], b"q", 1);
        check_from(&flat, &[b'r', r], b"", i64::MAX);
    }
}

proptest! {
    #[test]
    fn a_forward_search_matches_a_plain_binary_search(
        cells in prop::collection::vec(
            (prop::collection::vec(0u8..3, 0..3), prop::collection::vec(0u8..2, 0..2), 0i64..6),
            1..80,
        ),
        probes in prop::collection::vec(
            (prop::collection::vec(0u8..3, 0..4), prop::collection::vec(0u8..3, 0..3), 0i64..7),
            1..20,
        ),
    ) {
        let flat = index(&cells);
        for (r, q, ts) in &probes {
            check_from(&flat, r, q, *ts);
        }
    }
}

/// What a seek costs with a dense key per key (the index as built), with one per block of 16
/// keys only, and with none (a binary search reading a cell per step), over a million cells
/// far beyond the CPU's caches. A measurement for RFC 0003 ("Flat segments"):
/// `cargo test --release -p strata-storage --lib seek_cost -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement: run in release"]
fn seek_cost_with_and_without_dense_keys() {
    use std::time::Instant;
    let n = 1_000_000u64;
    let value = [7u8; 100];
    let rows: Vec<Vec<u8>> = {
        let mut rows: Vec<Vec<u8>> = (0..n)
            .map(|i| {
                format!(
                    "user{:012}",
                    i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % 1_000_000_000_000
                )
                .into_bytes()
            })
            .collect();
        rows.sort();
        rows.dedup();
        rows
    };
    let keys: Vec<Key> = rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let c = CellRef {
                value: &value,
                ..cell(row, b"field0", 1, i as u64 + 1)
            };
            key(&c)
        })
        .collect();
    let shared = shared_between(keys.first().map(Key::as_ref), keys.last().map(Key::as_ref));
    let mut builder = FlatBuilder::new(256 << 10, shared, keys.len());
    for k in &keys {
        assert!(builder.push(k.as_ref()));
    }
    let flat = builder.finish().index;
    drop(keys);
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let probes: Vec<Vec<u8>> = (0..200_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            rows[(state % rows.len() as u64) as usize].clone()
        })
        .collect();
    // The same index with its cells scattered over the chunks (as after many merges, whose
    // inputs' chunks interleave): copied in a shuffled order, entries in key order.
    let scattered = {
        let mut order: Vec<usize> = (0..flat.len()).collect();
        for i in (1..order.len()).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            order.swap(i, (state % (i as u64 + 1)) as usize);
        }
        let mut writer = crate::memtable::chunks::ChunkWriter::new(256 << 10);
        let mut locs = vec![0u64; flat.len()];
        for &i in &order {
            locs[i] = writer.push(flat.at(i).data()).expect("room");
        }
        let (chunks, _) = writer.finish();
        let entries = flat
            .entries()
            .iter()
            .zip(&locs)
            .map(|(e, &loc)| Entry { loc, tag: e.tag })
            .collect();
        FlatIndex::from_parts(
            chunks,
            entries,
            flat.shared(),
            flat.dense().to_vec(),
            flat.run_ends(),
        )
    };
    let time = |flat: &FlatIndex, name: &str, f: &dyn Fn(&FlatIndex, &Probe<'_>) -> usize| {
        let start = Instant::now();
        let mut sum = 0usize;
        for row in &probes {
            let c = cell(row, b"", i64::MAX, u64::MAX);
            sum = sum.wrapping_add(f(flat, &Probe::of_cell(&c)));
        }
        let ns = start.elapsed().as_nanos() as f64 / probes.len() as f64;
        println!("{name}: {ns:.0} ns a seek ({} keys)", flat.len());
        sum
    };
    for (layout, flat) in [
        ("cells in key order", &flat),
        ("cells scattered", &scattered),
    ] {
        println!("{layout}:");
        let dense = time(flat, "  a dense key per key (8 B)", &|f, p| {
            f.partition(p, false)
        });
        let sparse = time(flat, "  one dense key per 16 keys (0.5 B)", &|f, p| {
            f.partition_sparse(p, false)
        });
        let none = time(flat, "  no dense key (0 B)", &|f, p| naive(f, p, false));
        assert_eq!((dense, sparse), (none, none));
    }
}
