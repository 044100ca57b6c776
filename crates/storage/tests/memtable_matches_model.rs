//! Random interleavings of inserts, seals, snapshots, releases and cursor moves at random read
//! points agree with a `BTreeMap` model.

use std::collections::BTreeSet;

use bytes::Bytes;
use proptest::prelude::*;
use strata_model::cell::{CellKey, CellType};
use strata_sstable::CellRef;
use strata_storage::memtable::{Iter, Memtable, Options, MAX_SEQ};

#[derive(Clone, Debug)]
enum Op {
    Insert(CellKey),
    Seal,
    Snapshot,
    Release,
    Read {
        read_point: u64,
        start: Start,
        moves: Vec<bool>,
    },
}

#[derive(Clone, Debug)]
enum Start {
    First,
    Last,
    Seek(CellKey),
    SeekForPrev(CellKey),
}

fn bytes() -> impl Strategy<Value = Bytes> {
    prop::collection::vec(prop::sample::select(vec![0u8, 1, b'a', 0xff]), 0..3)
        .prop_map(Bytes::from)
}

fn key(max_seq: u64) -> impl Strategy<Value = CellKey> {
    (
        bytes(),
        bytes(),
        0i64..3,
        prop::sample::select(CellType::ALL.to_vec()),
        prop_oneof![4 => 0..max_seq.min(8), 1 => Just(max_seq)],
    )
        .prop_map(|(row, qualifier, timestamp, cell_type, seq)| CellKey {
            row,
            qualifier,
            timestamp,
            cell_type,
            seq,
        })
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        12 => key(MAX_SEQ).prop_map(Op::Insert),
        1 => Just(Op::Seal),
        1 => Just(Op::Snapshot),
        1 => Just(Op::Release),
        4 => (
            prop_oneof![Just(0u64), 0..9u64, Just(u64::MAX)],
            prop_oneof![
                Just(Start::First),
                Just(Start::Last),
                key(u64::MAX).prop_map(Start::Seek),
                key(u64::MAX).prop_map(Start::SeekForPrev),
            ],
            prop::collection::vec(any::<bool>(), 0..8),
        )
            .prop_map(|(read_point, start, moves)| Op::Read { read_point, start, moves }),
    ]
}

/// Same key, same value: a replayed edit carries the same bytes. Some values are large.
fn value(key: &CellKey) -> Bytes {
    let n = match key.seq % 3 {
        0 => 90,
        _ => 1 + (key.seq % 7) as usize,
    };
    Bytes::from(vec![key.row.len() as u8 ^ key.seq as u8; n])
}

fn cell_ref<'a>(key: &'a CellKey, value: &'a [u8]) -> CellRef<'a> {
    CellRef {
        row: &key.row,
        qualifier: &key.qualifier,
        timestamp: key.timestamp,
        cell_type: key.cell_type,
        seq: key.seq,
        value,
        ttl: None,
    }
}

fn state(it: &Iter) -> Option<(CellKey, Vec<u8>)> {
    it.valid().then(|| {
        let c = it.current();
        (c.to_key(), c.value.to_vec())
    })
}

#[derive(Default)]
struct Model {
    /// Keys in the active segment (its duplicates are refused).
    active: BTreeSet<CellKey>,
    /// Keys sealed or active, not yet in a snapshot.
    unflushed: BTreeSet<CellKey>,
    pending: Option<BTreeSet<CellKey>>,
}

impl Model {
    fn visible(&self, read_point: u64) -> Vec<CellKey> {
        let all: BTreeSet<&CellKey> = self
            .unflushed
            .iter()
            .chain(self.pending.iter().flatten())
            .collect();
        all.into_iter()
            .filter(|k| k.seq <= read_point)
            .cloned()
            .collect()
    }
}

fn run(ops: Vec<Op>) -> Result<(), TestCaseError> {
    let table = Memtable::new(Options {
        chunk_size: 256,
        ..Options::default()
    });
    let mut model = Model::default();
    for op in ops {
        match op {
            Op::Insert(k) => {
                let v = value(&k);
                let fresh = table.insert(&cell_ref(&k, &v)).expect("seq in range");
                prop_assert_eq!(fresh, !model.active.contains(&k));
                model.active.insert(k.clone());
                model.unflushed.insert(k);
            }
            Op::Seal => {
                table.seal_active();
                model.active.clear();
            }
            Op::Snapshot => {
                let snap = table.snapshot();
                if model.pending.is_none() && !model.unflushed.is_empty() {
                    model.pending = Some(std::mem::take(&mut model.unflushed));
                    model.active.clear();
                }
                let want: Vec<CellKey> = model.pending.iter().flatten().cloned().collect();
                let mut it = snap.iter();
                let mut got = Vec::new();
                let mut more = it.seek_to_first();
                while more {
                    got.push(it.current().to_key());
                    more = it.next();
                }
                prop_assert_eq!(got, want);
                prop_assert_eq!(
                    snap.max_seq(),
                    model.pending.iter().flatten().map(|k| k.seq).max()
                );
            }
            Op::Release => {
                let snap = table.snapshot();
                if model.pending.is_none() && !model.unflushed.is_empty() {
                    model.unflushed.clear();
                    model.active.clear();
                }
                model.pending = None;
                table.release(snap).expect("pending");
            }
            Op::Read {
                read_point,
                start,
                moves,
            } => {
                let visible = model.visible(read_point);
                let mut it = table.iter(read_point);
                let mut pos: Option<usize> = match &start {
                    Start::First => {
                        it.seek_to_first();
                        (!visible.is_empty()).then_some(0)
                    }
                    Start::Last => {
                        it.seek_to_last();
                        visible.len().checked_sub(1)
                    }
                    Start::Seek(t) => {
                        it.seek(t);
                        let i = visible.partition_point(|k| k < t);
                        (i < visible.len()).then_some(i)
                    }
                    Start::SeekForPrev(t) => {
                        it.seek_for_prev(t);
                        visible.partition_point(|k| k <= t).checked_sub(1)
                    }
                };
                let expect = |pos: Option<usize>| {
                    pos.map(|i| (visible[i].clone(), value(&visible[i]).to_vec()))
                };
                prop_assert_eq!(state(&it), expect(pos), "after {:?}", start);
                for forward in moves {
                    let Some(i) = pos else { break };
                    if forward {
                        it.next();
                        pos = (i + 1 < visible.len()).then_some(i + 1);
                    } else {
                        it.prev();
                        pos = i.checked_sub(1);
                    }
                    prop_assert_eq!(
                        state(&it),
                        expect(pos),
                        "after {} from {:?}",
                        if forward { "next" } else { "prev" },
                        start
                    );
                }
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn memtable_cursor_moves_match_the_model(ops in prop::collection::vec(op(), 1..200)) {
        run(ops)?;
    }
}
