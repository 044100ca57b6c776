use std::sync::Arc;

use proptest::prelude::*;
use strata_model::cell::CellType;
use strata_sstable::CellRef;

use super::*;
use crate::memtable::arena::Arena;
use crate::memtable::runs::merge_runs;
use crate::memtable::segment::Carried;
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

/// A flat segment holding `cells` (built from a skiplist one, as a flatten does).
fn flat(id: u64, cells: &[Spec]) -> Segment {
    let keys = list(id, cells).keys_in_order().into_owned();
    Segment::flat(id, keys, Arena::new(64 << 10), Carried::default())
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
        .iter()
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
        let merged = merge_indexes(&refs, || false).expect("not stopped");
        let carried = Carried::default();
        let got = Segment::from_merged(9, merged, Arena::new(64 << 10), carried);

        let runs: Vec<_> = segments.iter().map(|s| s.keys_in_order().into_owned()).collect();
        let keys = merge_runs(runs.iter().map(Vec::as_slice).collect(), || false).expect("merged");
        let expect = Segment::flat(9, keys, Arena::new(64 << 10), Carried::default());

        prop_assert_eq!(parts(&got), parts(&expect));
        let (g, e) = (stats(&got), stats(&expect));
        prop_assert_eq!(
            (g.cells, g.data_bytes, g.index_bytes, g.min_seq, g.max_seq),
            (e.cells, e.data_bytes, e.index_bytes, e.min_seq, e.max_seq)
        );
        for (row, ..) in inputs.iter().flatten() {
            prop_assert!(got.may_contain_row(row));
        }
    }
}

#[test]
fn a_stop_abandons_the_merge() {
    let a = flat(1, &[(b"a".to_vec(), 0, 1, 1)]);
    let b = flat(2, &[(b"b".to_vec(), 0, 1, 2)]);
    assert!(merge_indexes(&[&a, &b], || true).is_none());
    assert_eq!(
        merge_indexes(&[&a, &b], || false).map(|m| m.keys.len()),
        Some(2)
    );
}
