//! `decode_put_batch` answers only what prost (with the conversion) answers the same: on
//! batches `BatchBody` writes, on the same bytes mutated, cut short or extended with fields
//! it leaves to prost, and on hand-made encodings prost accepts in more than one way.

#![allow(clippy::unwrap_used)]

use bytes::{Bytes, BytesMut};
use proptest::prelude::*;
use prost::Message;
use strata_model::ops::{Mutation, Put, RowMutations};
use strata_model::schema::Durability;

use super::batch_wire_tests::row_mutations;
use super::{decode_put_batch, row_mutations_from_pb, BatchBody, PutBatch};
use crate::pb;

fn encode(table: &str, rows: &[RowMutations]) -> Bytes {
    let mut out = BytesMut::new();
    BatchBody::new(table, rows.iter().collect()).encode(&mut out);
    out.freeze()
}

/// prost's decoding of `body` converted as the server converts it, when every row converts.
fn prosts(body: &Bytes) -> Option<PutBatch> {
    let request = pb::BatchRequest::decode(body.clone()).ok()?;
    let rows = request
        .rows
        .into_iter()
        .map(row_mutations_from_pb)
        .collect::<Result<Vec<_>, _>>()
        .ok()?;
    Some(PutBatch {
        table: request.table,
        rows,
    })
}

/// The property every answer keeps: an answer is prost's.
fn agrees(body: &Bytes) -> Result<(), TestCaseError> {
    if let Some(mine) = decode_put_batch(body) {
        prop_assert_eq!(Some(mine), prosts(body), "decoded {:?}", body);
    }
    Ok(())
}

fn only_puts(rows: &[RowMutations]) -> bool {
    rows.iter()
        .all(|r| r.mutations.iter().all(|m| matches!(m, Mutation::Put(_))))
}

proptest! {
    #[test]
    fn batches_of_puts_decode_as_prost_decodes_them(
        table in "[a-z:]{0,12}",
        rows in prop::collection::vec(row_mutations(), 0..5),
    ) {
        let body = encode(&table, &rows);
        let mine = decode_put_batch(&body);
        if only_puts(&rows) {
            prop_assert_eq!(mine.clone(), Some(PutBatch { table, rows }));
        }
        prop_assert!(mine.is_none() || mine == prosts(&body));
    }

    #[test]
    fn mutated_and_truncated_batches_are_answered_as_prost_or_not_at_all(
        rows in prop::collection::vec(row_mutations(), 1..4),
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
        cut in any::<prop::sample::Index>(),
        tail in prop::collection::vec(any::<u8>(), 0..6),
    ) {
        let body = encode("t", &rows);
        let mut bytes = body.to_vec();
        for (at, value) in flips {
            let at = at.index(bytes.len());
            bytes[at] = value;
        }
        agrees(&Bytes::from(bytes.clone()))?;
        let cut = cut.index(bytes.len() + 1);
        agrees(&Bytes::copy_from_slice(&bytes[..cut]))?;
        bytes.extend_from_slice(&tail);
        agrees(&Bytes::from(bytes))?;
    }
}

fn put_row(row: &str, value: &str) -> RowMutations {
    RowMutations::new(row.to_string())
        .with(Put::new(row.to_string()).add("f", "q", Bytes::from(value.to_string())))
        .unwrap()
}

/// A length-delimited field.
fn field(tag: u8, bytes: &[u8]) -> Vec<u8> {
    let mut out = vec![tag << 3 | 2, u8::try_from(bytes.len()).unwrap()];
    out.extend_from_slice(bytes);
    out
}

#[test]
fn a_buffered_batch_decodes_without_prost() {
    let rows = vec![put_row("r1", "a"), put_row("r2", "b")];
    let body = encode("t", &rows);
    let mine = decode_put_batch(&body).unwrap();
    assert_eq!(mine.table, "t");
    assert_eq!(mine.rows, rows);
    assert_eq!(Some(mine), prosts(&body));
}

#[test]
fn other_kinds_and_unknown_fields_are_left_to_prost() {
    let delete = RowMutations::new("r".to_string())
        .with(Mutation::Delete(strata_model::ops::Delete::new(
            "r".to_string(),
        )))
        .unwrap();
    let body = encode("t", &[put_row("a", "1"), delete]);
    assert!(decode_put_batch(&body).is_none(), "a delete");
    assert!(prosts(&body).is_some());
    // Field 9 of the request: prost skips it; this reader does not guess.
    let mut bytes = encode("t", &[put_row("a", "1")]).to_vec();
    bytes.extend(field(9, b"x"));
    let body = Bytes::from(bytes);
    assert!(decode_put_batch(&body).is_none());
    assert_eq!(prosts(&body).unwrap().rows, vec![put_row("a", "1")]);
    // A mutation without a kind, and an unknown durability: errors, prost's to report.
    let no_kind = field(2, &[]);
    let body = Bytes::from(
        [
            field(1, b"t"),
            field(2, &[field(1, b"r"), no_kind].concat()),
        ]
        .concat(),
    );
    assert!(decode_put_batch(&body).is_none());
    let unknown = field(2, &[vec![1 << 3, 9], field(2, &[])].concat());
    let body = Bytes::from(
        [
            field(1, b"t"),
            field(2, &[field(1, b"r"), unknown].concat()),
        ]
        .concat(),
    );
    assert!(decode_put_batch(&body).is_none());
    // A table that is not UTF-8, even when a later occurrence is.
    let body = Bytes::from([field(1, &[0xff]), field(1, b"t")].concat());
    assert!(decode_put_batch(&body).is_none());
    assert!(prosts(&body).is_none());
}

#[test]
fn repeated_fields_follow_prosts_rules() {
    // Two `put` members of one mutation merge their cells; a repeated row or table keeps
    // its last value; an overlong varint is read.
    let cell = |q: &[u8]| field(1, &[field(1, b"f"), field(2, q), field(4, b"v")].concat());
    let mutation = [
        vec![1 << 3, 0x83, 0x00], // durability 3 (SYNC_WAL), overlong
        field(2, &cell(b"a")),
        field(2, &cell(b"b")),
    ]
    .concat();
    let row = [field(1, b"old"), field(2, &mutation), field(1, b"r")].concat();
    let body = Bytes::from([field(1, b"x"), field(2, &row), field(1, b"t")].concat());
    let mine = decode_put_batch(&body).unwrap();
    assert_eq!(Some(mine.clone()), prosts(&body));
    assert_eq!(mine.table, "t");
    assert_eq!(mine.rows[0].row, Bytes::from("r"));
    let Mutation::Put(put) = &mine.rows[0].mutations[0] else {
        panic!("a put")
    };
    assert_eq!(put.cells.len(), 2);
    assert_eq!(put.durability, Durability::SyncWal);
    assert_eq!(put.row, Bytes::from("r"));
}

#[test]
fn empty_rows_and_an_empty_body_decode() {
    assert_eq!(
        decode_put_batch(&Bytes::new()),
        Some(PutBatch {
            table: String::new(),
            rows: Vec::new()
        })
    );
    let body = Bytes::from([field(1, b"t"), field(2, &[])].concat());
    let mine = decode_put_batch(&body).unwrap();
    assert_eq!(Some(mine.clone()), prosts(&body));
    assert!(mine.rows[0].mutations.is_empty());
}
