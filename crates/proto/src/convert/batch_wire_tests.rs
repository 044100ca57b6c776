//! `BatchBody` writes exactly the bytes of prost encoding the converted messages, for every
//! mutation kind and every field at, around and away from its default.

#![allow(clippy::unwrap_used)]

use bytes::{Bytes, BytesMut};
use proptest::prelude::*;
use prost::Message;
use strata_model::ops::{
    Append, AppendCell, Delete, DeleteKind, DeleteMarker, Increment, IncrementCell, Mutation, Put,
    PutCell, RowMutations,
};
use strata_model::schema::Durability;

use super::{row_mutations_to_pb, BatchBody};
use crate::pb;

/// The body, and prost's encoding of the same request.
fn both(table: &str, rows: &[RowMutations]) -> (Vec<u8>, Vec<u8>) {
    let body = BatchBody::new(table, rows.iter().collect());
    let mut mine = BytesMut::new();
    body.encode(&mut mine);
    assert_eq!(
        body.encoded_len(),
        mine.len(),
        "encoded_len is what encode writes"
    );
    let theirs = pb::BatchRequest {
        table: table.to_string(),
        rows: rows.iter().map(row_mutations_to_pb).collect(),
    }
    .encode_to_vec();
    (mine.to_vec(), theirs)
}

fn bytes() -> impl Strategy<Value = Bytes> {
    prop_oneof![
        Just(Bytes::new()),
        prop::collection::vec(any::<u8>(), 1..3).prop_map(Bytes::from),
        prop::collection::vec(any::<u8>(), 120..140).prop_map(Bytes::from),
    ]
}

fn int() -> impl Strategy<Value = i64> {
    prop_oneof![
        Just(0i64),
        Just(-1i64),
        Just(i64::MIN),
        Just(i64::MAX),
        any::<i64>()
    ]
}

fn durability() -> impl Strategy<Value = Durability> {
    prop_oneof![
        Just(Durability::UseDefault),
        Just(Durability::SkipWal),
        Just(Durability::AsyncWal),
        Just(Durability::SyncWal),
        Just(Durability::FsyncWal),
    ]
}

fn delete_kind() -> impl Strategy<Value = DeleteKind> {
    prop_oneof![
        Just(DeleteKind::Version),
        Just(DeleteKind::Column),
        Just(DeleteKind::Family),
        Just(DeleteKind::FamilyVersion),
    ]
}

pub(super) fn mutation(row: Bytes) -> impl Strategy<Value = Mutation> {
    let put = (
        prop::collection::vec((bytes(), bytes(), prop::option::of(int()), bytes()), 0..3),
        durability(),
        prop::option::of(any::<u64>()),
    )
        .prop_map({
            let row = row.clone();
            move |(cells, durability, ttl)| {
                Mutation::Put(Put {
                    row: row.clone(),
                    cells: cells
                        .into_iter()
                        .map(|(family, qualifier, timestamp, value)| PutCell {
                            family,
                            qualifier,
                            timestamp,
                            value,
                        })
                        .collect(),
                    durability,
                    ttl,
                })
            }
        });
    let delete = (
        prop::collection::vec(
            (delete_kind(), bytes(), bytes(), prop::option::of(int())),
            0..3,
        ),
        prop::option::of(int()),
        durability(),
    )
        .prop_map({
            let row = row.clone();
            move |(markers, timestamp, durability)| {
                Mutation::Delete(Delete {
                    row: row.clone(),
                    markers: markers
                        .into_iter()
                        .map(|(kind, family, qualifier, timestamp)| DeleteMarker {
                            kind,
                            family,
                            qualifier,
                            timestamp,
                        })
                        .collect(),
                    timestamp,
                    durability,
                })
            }
        });
    let increment = (
        prop::collection::vec((bytes(), bytes(), int()), 0..3),
        any::<bool>(),
        durability(),
        prop::option::of(any::<u64>()),
    )
        .prop_map({
            let row = row.clone();
            move |(cells, return_results, durability, ttl)| {
                Mutation::Increment(Increment {
                    row: row.clone(),
                    cells: cells
                        .into_iter()
                        .map(|(family, qualifier, amount)| IncrementCell {
                            family,
                            qualifier,
                            amount,
                        })
                        .collect(),
                    durability,
                    return_results,
                    ttl,
                })
            }
        });
    let append = (
        prop::collection::vec((bytes(), bytes(), bytes()), 0..3),
        any::<bool>(),
        durability(),
        prop::option::of(any::<u64>()),
    )
        .prop_map(move |(cells, return_results, durability, ttl)| {
            Mutation::Append(Append {
                row: row.clone(),
                cells: cells
                    .into_iter()
                    .map(|(family, qualifier, value)| AppendCell {
                        family,
                        qualifier,
                        value,
                    })
                    .collect(),
                durability,
                return_results,
                ttl,
            })
        });
    prop_oneof![put, delete, increment, append]
}

pub(super) fn row_mutations() -> impl Strategy<Value = RowMutations> {
    bytes().prop_flat_map(|row| {
        prop::collection::vec(mutation(row.clone()), 0..4).prop_map(move |mutations| RowMutations {
            row: row.clone(),
            mutations,
        })
    })
}

proptest! {
    #[test]
    fn batch_bodies_are_prosts_bytes(
        table in "[a-z:]{0,12}",
        rows in prop::collection::vec(row_mutations(), 0..5),
    ) {
        let (mine, theirs) = both(&table, &rows);
        prop_assert_eq!(mine, theirs);
    }
}

#[test]
fn a_buffered_put_decodes_as_sent() {
    let rows: Vec<RowMutations> = (0..3)
        .map(|i| {
            RowMutations::new(format!("row{i}"))
                .with(Put::new(format!("row{i}")).add("f", "q", Bytes::from(vec![i as u8; 10])))
                .unwrap()
        })
        .collect();
    let (mine, theirs) = both("t", &rows);
    assert_eq!(mine, theirs);
    let decoded = pb::BatchRequest::decode(&mine[..]).unwrap();
    assert_eq!(decoded.table, "t");
    let back: Vec<RowMutations> = decoded
        .rows
        .into_iter()
        .map(|r| super::row_mutations_from_pb(r).unwrap())
        .collect();
    assert_eq!(back, rows);
}

#[test]
fn an_empty_batch_is_the_table_alone() {
    let (mine, theirs) = both("", &[]);
    assert!(mine.is_empty());
    assert_eq!(mine, theirs);
}
