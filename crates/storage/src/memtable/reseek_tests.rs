//! Forward seeks (`Iter::reseek`) land where a fresh seek does, over flat segments and the
//! skiplist, with hot columns of many versions and a read point hiding the newest cells.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use strata_model::cell::{CellKey, CellType};
use strata_model::schema::InMemoryCompaction;
use strata_sstable::CellRef;

use super::*;

type Seen = Option<(Vec<u8>, Vec<u8>, i64, u64)>;

fn seen(it: &Iter) -> Seen {
    it.valid().then(|| {
        let c = it.current();
        (c.row.to_vec(), c.qualifier.to_vec(), c.timestamp, c.seq)
    })
}

/// A memtable of three flat segments and a skiplist; rows r0..r5 with columns q0..q2, r1's q1
/// hot (versions in every segment). `rising`: timestamps grow with each write (new versions
/// go in front of a column's older ones, so skiplist run tails reach the oldest), else random.
fn filled(rng: &mut StdRng, rising: bool) -> Memtable {
    let m = Memtable::new(Options {
        chunk_size: 64 << 10,
        policy: InMemoryCompaction::Basic,
        in_memory_flush_size: u64::MAX,
        pipeline_limit: usize::MAX,
        ..Options::default()
    });
    let mut seq = 0;
    for segment in 0..4 {
        for _ in 0..120 {
            seq += 1;
            let (row, q) = if rng.gen_bool(0.5) {
                (1, 1)
            } else {
                (rng.gen_range(0..6), rng.gen_range(0..3))
            };
            let (row, q) = (format!("r{row}"), format!("q{q}"));
            let cell = CellRef {
                row: row.as_bytes(),
                qualifier: q.as_bytes(),
                timestamp: if rising {
                    seq as i64
                } else {
                    rng.gen_range(0..400)
                },
                cell_type: CellType::Put,
                seq,
                value: b"v",
                ttl: None,
            };
            m.insert(&cell).unwrap();
        }
        if segment < 3 {
            m.seal_active();
            m.compact_in_memory(u64::MAX);
        }
    }
    m
}

fn target(rng: &mut StdRng) -> CellKey {
    let row = format!("r{}", rng.gen_range(0..7));
    let q = match rng.gen_range(0..4) {
        3 => Vec::new(),
        q => format!("q{q}").into_bytes(),
    };
    if rng.gen_bool(0.5) {
        let mut past = q.clone();
        past.push(0);
        CellKey::first_on_column(row.into_bytes(), past)
    } else {
        CellKey {
            row: row.into_bytes().into(),
            qualifier: q.into(),
            timestamp: rng.gen_range(0..400),
            cell_type: CellType::Put,
            seq: u64::MAX,
        }
    }
}

#[test]
fn a_forward_seek_lands_where_a_fresh_seek_does() {
    for seed in 0..40 {
        let mut rng = StdRng::seed_from_u64(seed);
        let m = filled(&mut rng, seed % 2 == 1);
        let read_point = rng.gen_range(200..=480);
        let mut it = m.iter(read_point);
        it.seek_to_first();
        let mut at: Option<CellKey> = None;
        for _ in 0..60 {
            if rng.gen_bool(0.3) {
                it.next();
            } else {
                let mut t = target(&mut rng);
                // Forward only: never below where the iterator is.
                if let Some((row, q, ts, seq)) = seen(&it) {
                    let here = CellKey {
                        row: row.into(),
                        qualifier: q.into(),
                        timestamp: ts,
                        cell_type: CellType::Put,
                        seq,
                    };
                    if t < here {
                        t = here;
                    }
                }
                it.reseek(&t);
                let mut fresh = m.iter(read_point);
                fresh.seek(&t);
                assert_eq!(seen(&it), seen(&fresh), "seed {seed}, target {t:?}");
                at = Some(t);
            }
            if !it.valid() {
                break;
            }
        }
        assert!(at.is_some() || !it.valid());
    }
}
