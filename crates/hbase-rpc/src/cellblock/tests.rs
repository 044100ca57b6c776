use super::*;
use proptest::prelude::*;

fn cell(row: &[u8], family: &[u8], qualifier: &[u8], ts: i64, t: CellType, value: &[u8]) -> Cell {
    Cell {
        row: Bytes::copy_from_slice(row),
        family: Bytes::copy_from_slice(family),
        qualifier: Bytes::copy_from_slice(qualifier),
        timestamp: ts,
        cell_type: t,
        seq: 0,
        value: Bytes::copy_from_slice(value),
        ttl: None,
    }
}

#[test]
fn known_bytes_of_one_put() {
    // Built by hand from HBase's KeyValue layout: total, key length, value length, row length,
    // row, family length, family, qualifier, timestamp, type, value.
    let mut want = Vec::new();
    let key: Vec<u8> = [
        &[0u8, 1][..],
        b"r",
        &[1],
        b"f",
        b"q",
        &7i64.to_be_bytes(),
        &[4],
    ]
    .concat();
    want.extend_from_slice(&((8 + key.len() + 1) as u32).to_be_bytes());
    want.extend_from_slice(&(key.len() as u32).to_be_bytes());
    want.extend_from_slice(&1u32.to_be_bytes());
    want.extend_from_slice(&key);
    want.push(b'v');
    let mut out = BytesMut::new();
    encode(
        Codec::KeyValue,
        &[cell(b"r", b"f", b"q", 7, CellType::Put, b"v")],
        &mut out,
    );
    assert_eq!(out.as_ref(), want.as_slice());
}

#[test]
fn every_type_round_trips_with_and_without_tags() {
    let cells: Vec<Cell> = CellType::ALL
        .iter()
        .enumerate()
        .map(|(i, t)| {
            cell(
                b"row",
                b"fam",
                format!("q{i}").as_bytes(),
                i as i64,
                *t,
                b"val",
            )
        })
        .collect();
    for codec in [Codec::KeyValue, Codec::KeyValueWithTags] {
        let mut out = BytesMut::new();
        encode(codec, &cells, &mut out);
        assert_eq!(decode(codec, &out.freeze()).unwrap(), cells);
    }
}

#[test]
fn empty_block_is_no_cells() {
    assert!(decode(Codec::KeyValue, &Bytes::new()).unwrap().is_empty());
}

fn encoded(c: &Cell) -> Vec<u8> {
    let mut out = BytesMut::new();
    encode(Codec::KeyValue, std::slice::from_ref(c), &mut out);
    out.to_vec()
}

#[test]
fn bogus_blocks_are_errors() {
    let good = encoded(&cell(b"r", b"f", b"q", 1, CellType::Put, b"v"));
    // Truncated anywhere.
    for cut in 1..good.len() {
        let e = decode(Codec::KeyValue, &Bytes::copy_from_slice(&good[..cut]));
        assert!(e.is_err(), "cut at {cut}");
    }
    // A length far past the block.
    let mut huge = good.clone();
    huge[..4].copy_from_slice(&u32::MAX.to_be_bytes());
    assert!(decode(Codec::KeyValue, &Bytes::from(huge))
        .unwrap_err()
        .reason
        .contains("only"));
    // An unknown type code (HBase's Minimum).
    let mut bad_type = good.clone();
    let type_at = good.len() - 2;
    bad_type[type_at] = 0;
    assert!(decode(Codec::KeyValue, &Bytes::from(bad_type))
        .unwrap_err()
        .reason
        .contains("type code"));
    // A row length past the key.
    let mut bad_row = good.clone();
    bad_row[12..14].copy_from_slice(&500u16.to_be_bytes());
    assert!(decode(Codec::KeyValue, &Bytes::from(bad_row)).is_err());
    // A key too short to hold its fixed parts.
    let mut short_key = good.clone();
    short_key[4..8].copy_from_slice(&3u32.to_be_bytes());
    assert!(decode(Codec::KeyValue, &Bytes::from(short_key)).is_err());
    // Without tags, bytes after the value are refused; with tags they must be a tags part.
    let mut stray = good.clone();
    stray.push(0);
    let total = (good.len() - 4 + 1) as u32;
    stray[..4].copy_from_slice(&total.to_be_bytes());
    assert!(decode(Codec::KeyValue, &Bytes::from(stray.clone())).is_err());
    assert!(decode(Codec::KeyValueWithTags, &Bytes::from(stray)).is_err());
}

fn any_type() -> impl Strategy<Value = CellType> {
    prop::sample::select(CellType::ALL.to_vec())
}

proptest! {
    #[test]
    fn round_trip(
        cells in prop::collection::vec(
            (
                prop::collection::vec(any::<u8>(), 1..40),
                prop::collection::vec(any::<u8>(), 0..20),
                prop::collection::vec(any::<u8>(), 0..40),
                any::<i64>(),
                any_type(),
                prop::collection::vec(any::<u8>(), 0..100),
            ),
            0..20,
        ),
        tags in any::<bool>(),
    ) {
        let cells: Vec<Cell> = cells
            .into_iter()
            .map(|(r, f, q, ts, t, v)| cell(&r, &f, &q, ts, t, &v))
            .collect();
        let codec = if tags { Codec::KeyValueWithTags } else { Codec::KeyValue };
        let mut out = BytesMut::new();
        encode(codec, &cells, &mut out);
        prop_assert_eq!(decode(codec, &out.freeze()).unwrap(), cells);
    }

    #[test]
    fn garbage_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = decode(Codec::KeyValue, &Bytes::from(bytes.clone()));
        let _ = decode(Codec::KeyValueWithTags, &Bytes::from(bytes));
    }
}
