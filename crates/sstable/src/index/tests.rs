use super::*;
use crate::block::BlockHandle;
use strata_model::cell::CellType;

fn key(row: &str) -> CellKey {
    CellKey {
        row: bytes::Bytes::copy_from_slice(row.as_bytes()),
        qualifier: bytes::Bytes::new(),
        timestamp: 5,
        cell_type: CellType::Put,
        seq: 0,
    }
}

#[test]
fn builds_parses_and_finds() {
    let mut b = IndexBuilder::default();
    for (i, r) in ["b", "d", "f"].iter().enumerate() {
        b.add(
            &key(r),
            BlockHandle {
                offset: i as u64 * 10,
                size: 9,
            },
        );
    }
    let block = IndexBlock::parse(bytes::Bytes::from(b.finish())).unwrap();
    assert_eq!(block.len(), 3);
    assert_eq!(block.find(&key("a")), 0);
    assert_eq!(block.find(&key("b")), 0);
    assert_eq!(block.find(&key("c")), 0);
    assert_eq!(block.find(&key("d")), 1);
    assert_eq!(block.find(&key("z")), 2);
    assert_eq!(
        block.handle(2),
        BlockHandle {
            offset: 20,
            size: 9
        }
    );
    assert_eq!(block.key(1), key("d"));
}

#[test]
fn rejects_malformed_blocks() {
    let mut b = IndexBuilder::default();
    b.add(&key("b"), BlockHandle { offset: 0, size: 9 });
    b.add(
        &key("c"),
        BlockHandle {
            offset: 10,
            size: 9,
        },
    );
    let good = b.finish();
    for cut in 0..good.len() {
        assert!(IndexBlock::parse(bytes::Bytes::copy_from_slice(&good[..cut])).is_err());
    }
    // Keys out of order.
    let mut b = IndexBuilder::default();
    b.add(&key("c"), BlockHandle { offset: 0, size: 9 });
    b.add(
        &key("b"),
        BlockHandle {
            offset: 10,
            size: 9,
        },
    );
    assert!(IndexBlock::parse(bytes::Bytes::from(b.finish())).is_err());
    // A huge entry count.
    assert!(IndexBlock::parse(bytes::Bytes::from_static(&[0xff, 0xff, 0xff, 0xff])).is_err());
}

mod find {
    use super::*;
    use proptest::prelude::*;
    use strata_model::cell::compare_keys;

    fn cell_key(row: &[u8], qualifier: &[u8], timestamp: i64) -> CellKey {
        CellKey {
            row: bytes::Bytes::copy_from_slice(row),
            qualifier: bytes::Bytes::copy_from_slice(qualifier),
            timestamp,
            cell_type: CellType::Put,
            seq: 0,
        }
    }

    /// Keys over a tiny alphabet with long shared prefixes, so the dense keys tie often.
    fn keys() -> impl Strategy<Value = Vec<CellKey>> {
        let key = (
            0usize..12,
            prop::collection::vec(0u8..3, 0..12),
            prop::sample::select(vec![&b""[..], b"a", b"b"]),
            0i64..3,
        )
            .prop_map(|(p, tail, q, ts)| {
                let mut row = vec![b'0'; p];
                row.extend(tail);
                cell_key(&row, q, ts)
            });
        prop::collection::vec(key, 1..40).prop_map(|mut ks| {
            ks.sort_by(|a, b| compare_keys(a.parts(), b.parts()));
            ks.dedup_by(|a, b| compare_keys(a.parts(), b.parts()).is_eq());
            ks
        })
    }

    proptest! {
        #[test]
        fn finds_the_last_entry_at_or_below_the_target(
            keys in keys(),
            probe in prop::collection::vec(prop::sample::select(vec![0u8, 1, 2, b'0', 0xff]), 0..16),
        ) {
            let mut b = IndexBuilder::default();
            for (i, k) in keys.iter().enumerate() {
                b.add(k, BlockHandle { offset: i as u64 * 10, size: 9 });
            }
            let block = IndexBlock::parse(bytes::Bytes::from(b.finish())).unwrap();
            let mut targets = vec![CellKey::first_on_row(bytes::Bytes::from(probe))];
            for k in &keys {
                targets.push(k.clone());
                targets.push(CellKey::first_on_row(k.row.clone()));
                targets.push(cell_key(&k.row, b"a", 1));
            }
            for t in &targets {
                let linear = keys
                    .iter()
                    .rposition(|k| compare_keys(k.parts(), t.parts()).is_le())
                    .unwrap_or(0);
                prop_assert_eq!(block.find(t), linear, "target {:?}", t);
            }
        }
    }
}
