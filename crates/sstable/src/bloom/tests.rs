use super::*;
use bytes::Bytes;

fn build(keys: &[Vec<u8>], p: f64) -> BloomChunk {
    let mut b = ChunkBuilder::new(p);
    for k in keys {
        b.add(
            BloomKey {
                row: k,
                qualifier: &[],
            }
            .hash(),
        );
    }
    BloomChunk::parse(Bytes::from(b.finish())).unwrap()
}

/// Measured false-positive rate of a chunk built for `n` keys at target `p`.
fn measured_fp(n: usize, p: f64) -> f64 {
    let keys: Vec<Vec<u8>> = (0..n).map(|i| format!("row{i:09}").into_bytes()).collect();
    let chunk = build(&keys, p);
    for k in &keys {
        assert!(
            chunk.may_contain(
                BloomKey {
                    row: k,
                    qualifier: &[]
                }
                .hash()
            ),
            "false negative"
        );
    }
    let probes = 200_000;
    let fp = (0..probes)
        .filter(|i| {
            let k = format!("other{i:09}").into_bytes();
            chunk.may_contain(
                BloomKey {
                    row: &k,
                    qualifier: &[],
                }
                .hash(),
            )
        })
        .count();
    fp as f64 / probes as f64
}

#[test]
fn false_positive_rate_tracks_the_target() {
    for p in [0.1, 0.01, 0.001] {
        let fp = measured_fp(50_000, p);
        assert!(fp < p * 1.5, "target {p}, measured {fp}");
        assert!(fp > p / 4.0, "target {p}, measured {fp}: filter oversized");
    }
}

#[test]
fn rowcol_keys_distinguish_the_split_point() {
    let a = BloomKey {
        row: b"ab",
        qualifier: b"c",
    };
    let b = BloomKey {
        row: b"a",
        qualifier: b"bc",
    };
    assert_ne!(a.hash(), b.hash());
}

#[test]
fn prefix_keys_truncate_rows() {
    let k = BloomKey::of(BloomType::RowPrefixFixedLength(3), b"abcdef", b"q").unwrap();
    assert_eq!(k.row, b"abc");
    assert!(k.qualifier.is_empty());
    let short = BloomKey::of(BloomType::RowPrefixFixedLength(3), b"ab", b"q").unwrap();
    assert_eq!(short.row, b"ab");
    assert!(BloomKey::of(BloomType::None, b"a", b"").is_none());
}

#[test]
fn malformed_chunks_are_rejected() {
    assert!(BloomChunk::parse(Bytes::from_static(b"")).is_err());
    assert!(BloomChunk::parse(Bytes::from_static(&[
        0, 64, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
    ]))
    .is_err());
    assert!(BloomChunk::parse(Bytes::from_static(&[3, 64, 0, 0, 0, 0])).is_err());
}

#[test]
fn index_finds_the_covering_chunk() {
    let mut b = BloomIndexBuilder::new(BloomType::Row, 0.01);
    for (i, row) in [b"b".as_slice(), b"f", b"m"].iter().enumerate() {
        let handle = crate::block::BlockHandle {
            offset: i as u64 * 100,
            size: 10,
        };
        b.add_chunk(
            ChunkEntry {
                row: row.to_vec(),
                qualifier: vec![],
                handle,
            },
            5,
        );
    }
    let idx = BloomIndex::parse(&b.finish()).unwrap();
    assert_eq!(idx.key_count, 15);
    let find = |r: &[u8]| {
        idx.chunk_for(&BloomKey {
            row: r,
            qualifier: &[],
        })
        .map(|c| c.handle.offset)
    };
    assert_eq!(find(b"a"), None);
    assert_eq!(find(b"b"), Some(0));
    assert_eq!(find(b"e"), Some(0));
    assert_eq!(find(b"f"), Some(100));
    assert_eq!(find(b"z"), Some(200));
}
