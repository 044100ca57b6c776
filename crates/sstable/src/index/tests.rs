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
