use std::sync::Arc;

use proptest::prelude::*;
use strata_model::cell::CellType;
use strata_sstable::CellRef;

use super::*;
use crate::memtable::skiplist::Splice;
use crate::memtable::Stats;

/// Row, qualifier, timestamp, sequence id.
type Spec = (Vec<u8>, u8, i64, u64);

/// A skiplist segment holding `cells`.
fn list(id: u64, cells: &[Spec]) -> Segment {
    let segment = Segment::new(id, 64 << 10, 1 << 12, None);
    let mut splice = Splice::default();
    for (row, q, ts, seq) in cells {
        let cell = CellRef {
            row,
            qualifier: &[*q],
            timestamp: *ts,
            cell_type: CellType::Put,
            seq: *seq,
            value: b"value",
            ttl: None,
        };
        segment.insert_hinted(&cell, &mut splice);
    }
    segment
}

/// Chunk size of the flat segments built here: small, so inputs hold several chunks.
const CHUNK: usize = 512;

/// A flat segment holding `cells` (built from a skiplist one, as a flatten does).
fn flat(id: u64, cells: &[Spec]) -> Segment {
    let list = list(id, cells);
    Segment::from_flat(
        id,
        merge_indexes(&[&list], CHUNK, || false).expect("flattened"),
    )
}

fn stats(segment: &Segment) -> Stats {
    let mut stats = Stats::default();
    segment.add_to(&mut stats);
    stats
}

/// A flat index's keys (row, seq), shared prefix, dense keys and column run ends.
type Parts = (Vec<(Vec<u8>, u64)>, usize, Vec<u64>, Vec<u32>);

fn parts(segment: &Segment) -> Parts {
    let Index::Flat(index) = &segment.index else {
        panic!("not flat");
    };
    let keys = index
        .keys()
        .map(|k| (k.row_bytes().to_vec(), k.seq()))
        .collect();
    (
        keys,
        index.shared(),
        index.dense().to_vec(),
        index.run_ends().to_vec(),
    )
}

/// Rows over a small alphabet with a common prefix and varied lengths, so inputs differ in
/// their own shared prefix, dense keys collide, and columns repeat across inputs.
fn spec() -> impl Strategy<Value = Spec> {
    (
        prop::collection::vec(0u8..3, 0..12),
        0u8..3,
        0i64..3,
        1u64..40,
    )
        .prop_map(|(tail, q, ts, seq)| {
            let mut row = b"pre".to_vec();
            row.extend(tail.iter().map(|b| b'a' + b));
            (row, q, ts, seq)
        })
}

proptest! {
    /// The merged segment is the one a flatten of all the keys builds: same keys in the same
    /// order, dense keys, column runs, figures; its filter admits every row.
    #[test]
    fn a_merged_index_is_the_flattened_union(
        inputs in prop::collection::vec(prop::collection::vec(spec(), 0..60), 2..9),
        newest_is_list in any::<bool>(),
    ) {
        let segments: Vec<Arc<Segment>> = inputs
            .iter()
            .enumerate()
            .map(|(i, cells)| {
                Arc::new(if i == 0 && newest_is_list { list(1, cells) } else { flat(i as u64 + 1, cells) })
            })
            .collect();
        let refs: Vec<&Segment> = segments.iter().map(AsRef::as_ref).collect();
        let merged = merge_indexes(&refs, CHUNK, || false).expect("not stopped");
        let got = Segment::from_flat(9, merged);

        // The union, newest input first on equal keys (a skiplist refuses a key it holds).
        let union: Vec<Spec> = inputs.iter().flatten().cloned().collect();
        let expect = flat(9, &union);

        prop_assert_eq!(parts(&got), parts(&expect));
        // Figures as the entries count them (the merged index holds more chunk handles).
        prop_assert_eq!(got.flat_sums(), expect.flat_sums());
        for (row, ..) in inputs.iter().flatten() {
            prop_assert!(got.may_contain_row(row));
        }
        // Every cell is where its entry says, whichever input's chunk it is in.
        let Index::Flat(index) = &got.index else { panic!("not flat") };
        for key in index.keys() {
            let cell = key.cell();
            let found = union.iter().any(|(r, q, ts, seq)| {
                (&r[..], &[*q][..], *ts, *seq) == (cell.row, cell.qualifier, cell.timestamp, cell.seq)
            });
            prop_assert!(found);
            prop_assert_eq!(cell.value, b"value");
        }
        // It holds (and counts) every chunk its entries may name.
        let g = stats(&got);
        prop_assert_eq!((g.chunks + g.large_cells) as usize, index.chunks().len());
        if !newest_is_list {
            prop_assert_eq!(g.chunks, segments.iter().map(|s| stats(s).chunks).sum::<u64>());
        }
    }
}

#[test]
fn a_stop_abandons_the_merge() {
    let a = flat(1, &[(b"a".to_vec(), 0, 1, 1)]);
    let b = flat(2, &[(b"b".to_vec(), 0, 1, 2)]);
    assert!(merge_indexes(&[&a, &b], CHUNK, || true).is_none());
    assert_eq!(
        merge_indexes(&[&a, &b], CHUNK, || false).map(|m| m.index.len()),
        Some(2)
    );
}
