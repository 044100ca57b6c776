//! Random interleavings of puts and deletes, in-memory flushes (seals), in-memory
//! compactions, disk flushes (snapshot, release) and reads at random read points: a memtable
//! under each in-memory compaction policy, plus the cells its released snapshots flushed,
//! reads the same as a `NONE` memtable fed the same cells.
//!
//! BASIC drops nothing, so it must show exactly the same cells. EAGER and ADAPTIVE drop
//! excess versions and masked puts, so they are compared at the visibility level (what
//! `read::Visibility` returns) for read points at or above the smallest read point the
//! compactions were given. Their runs use only range markers (DeleteColumn, DeleteFamily):
//! an exact-timestamp marker written after a compaction would uncover a version it dropped,
//! which HBase's in-memory and disk compactions allow too.

use std::collections::BTreeMap;

use bytes::Bytes;
use proptest::prelude::*;
use strata_model::cell::{CellKey, CellType};
use strata_model::schema::InMemoryCompaction;
use strata_sstable::CellRef;
use strata_storage::memtable::{FlushSnapshot, Iter, Memtable, Options, MAX_SEQ};
use strata_storage::read::{ReadSpec, Verdict, Visibility};

#[derive(Clone, Debug)]
enum Op {
    Insert {
        row: u8,
        qualifier: u8,
        ts: i64,
        kind: u8,
    },
    Seal,
    Compact,
    Snapshot,
    Release,
    /// Raise the smallest read point by this share of the way to the last seq.
    Advance(u8),
    /// Read at this share of the way from the smallest read point to the last seq.
    Read {
        at: u8,
        seek: (u8, u8),
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        12 => (0u8..3, 0u8..2, 0i64..4, 0u8..5)
            .prop_map(|(row, qualifier, ts, kind)| Op::Insert { row, qualifier, ts, kind }),
        2 => Just(Op::Seal),
        2 => Just(Op::Compact),
        1 => Just(Op::Snapshot),
        1 => Just(Op::Release),
        1 => any::<u8>().prop_map(Op::Advance),
        3 => (any::<u8>(), (0u8..4, 0u8..3)).prop_map(|(at, seek)| Op::Read { at, seek }),
    ]
}

type Cells = Vec<(CellKey, Bytes)>;

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

fn owned(c: &CellRef<'_>) -> (CellKey, Bytes) {
    let key = CellKey {
        row: Bytes::copy_from_slice(c.row),
        qualifier: Bytes::copy_from_slice(c.qualifier),
        timestamp: c.timestamp,
        cell_type: c.cell_type,
        seq: c.seq,
    };
    (key, Bytes::copy_from_slice(c.value))
}

fn forward(mut it: Iter) -> Cells {
    let mut out = Vec::new();
    let mut more = it.seek_to_first();
    while more {
        out.push(owned(&it.current()));
        more = it.next();
    }
    out
}

fn backward(mut it: Iter) -> Cells {
    let mut out = Vec::new();
    let mut more = it.seek_to_last();
    while more {
        out.push(owned(&it.current()));
        more = it.prev();
    }
    out.reverse();
    out
}

fn visible(cells: &Cells, read_point: u64, max_versions: u32) -> Cells {
    let mut v = Visibility::new(ReadSpec {
        max_versions,
        read_point,
        ..ReadSpec::latest()
    });
    cells
        .iter()
        .filter(|(k, val)| v.decide(&cell_ref(k, val)) == Verdict::Include)
        .cloned()
        .collect()
}

struct Run {
    imc: Memtable,
    none: Memtable,
    flushed: Vec<(CellKey, Bytes)>,
    pending: Option<FlushSnapshot>,
    seq: u64,
    smallest: u64,
    exact: bool,
    max_versions: u32,
}

impl Run {
    fn read(&self, read_point: u64, seek: (u8, u8)) -> Result<(), TestCaseError> {
        let memtable = forward(self.imc.iter(read_point));
        prop_assert_eq!(&backward(self.imc.iter(read_point)), &memtable);
        // A seek lands on the first cell at or after its target.
        let target = CellKey {
            row: Bytes::from(vec![seek.0]),
            qualifier: Bytes::from(vec![seek.1]),
            timestamp: 2,
            cell_type: CellType::Put,
            seq: MAX_SEQ,
        };
        let mut it = self.imc.iter(read_point);
        let found = it.seek(&target).then(|| owned(&it.current()));
        let expected = memtable.iter().find(|(k, _)| *k >= target).cloned();
        prop_assert_eq!(found, expected);
        let mut all: BTreeMap<CellKey, Bytes> = memtable.into_iter().collect();
        for (k, v) in &self.flushed {
            if k.seq <= read_point {
                all.insert(k.clone(), v.clone());
            }
        }
        let ours: Cells = all.into_iter().collect();
        let reference = forward(self.none.iter(read_point));
        if self.exact {
            prop_assert_eq!(ours, reference);
        } else {
            prop_assert_eq!(
                visible(&ours, read_point, self.max_versions),
                visible(&reference, read_point, self.max_versions)
            );
        }
        Ok(())
    }
}

fn run(
    policy: InMemoryCompaction,
    max_versions: u32,
    small_threshold: bool,
    ops: Vec<Op>,
) -> Result<(), TestCaseError> {
    let exact = policy == InMemoryCompaction::Basic;
    let imc = Memtable::new(Options {
        chunk_size: 256,
        policy,
        in_memory_flush_size: if small_threshold { 40 } else { u64::MAX },
        max_versions,
        ..Options::default()
    });
    let none = Memtable::new(Options {
        chunk_size: 256,
        ..Options::default()
    });
    let mut r = Run {
        imc,
        none,
        flushed: Vec::new(),
        pending: None,
        seq: 0,
        smallest: 0,
        exact,
        max_versions,
    };
    let kinds: &[CellType] = if exact {
        &CellType::ALL
    } else {
        &[
            CellType::Put,
            CellType::Put,
            CellType::DeleteColumn,
            CellType::DeleteFamily,
        ]
    };
    for op in ops {
        match op {
            Op::Insert {
                row,
                qualifier,
                ts,
                kind,
            } => {
                r.seq += 1;
                let cell_type = kinds[usize::from(kind) % kinds.len()];
                let key = CellKey {
                    row: Bytes::from(vec![row]),
                    qualifier: Bytes::from(vec![qualifier]),
                    timestamp: ts,
                    cell_type,
                    seq: r.seq,
                };
                let value = r.seq.to_be_bytes();
                prop_assert_eq!(r.imc.insert(&cell_ref(&key, &value)), Ok(true));
                prop_assert_eq!(r.none.insert(&cell_ref(&key, &value)), Ok(true));
            }
            Op::Seal => r.imc.seal_active(),
            Op::Compact => {
                r.imc.compact_in_memory(r.smallest);
            }
            Op::Snapshot => r.pending = Some(r.imc.snapshot()),
            Op::Release => {
                if let Some(snap) = r.pending.take() {
                    r.flushed.extend(forward(snap.iter()));
                    prop_assert_eq!(r.imc.release(snap), Ok(()));
                }
            }
            Op::Advance(share) => {
                let room = r.seq - r.smallest;
                r.smallest += room * u64::from(share) / 255;
                r.imc.set_smallest_read_point(r.smallest);
            }
            Op::Read { at, seek } => {
                let room = r.seq - r.smallest;
                r.read(r.smallest + room * u64::from(at) / 255, seek)?;
                r.read(MAX_SEQ, seek)?;
            }
        }
    }
    r.read(MAX_SEQ, (0, 0))
}

fn policy() -> impl Strategy<Value = InMemoryCompaction> {
    prop::sample::select(vec![
        InMemoryCompaction::Basic,
        InMemoryCompaction::Eager,
        InMemoryCompaction::Adaptive,
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn policies_read_like_none(
        policy in policy(),
        max_versions in 1u32..3,
        small_threshold in any::<bool>(),
        ops in prop::collection::vec(op(), 1..120),
    ) {
        run(policy, max_versions, small_threshold, ops)?;
    }
}
