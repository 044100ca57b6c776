//! A `BatchRequest` of puts read straight into model row mutations: what prost's decoding
//! followed by [`row_mutations_from_pb`](super::row_mutations_from_pb) gives, without
//! building the messages first (no allocation per row, mutation and cell for them, no second
//! pass to convert them, no drop of what the conversion left). The counterpart of
//! [`BatchBody`](super::BatchBody) on the server, for the requests buffered writers send most.
//!
//! Only the common shape is read: rows whose mutations are all puts of a known durability,
//! fields of `strata.proto` with their declared wire types. Anything else (another mutation
//! kind, a mutation without one, an unknown field, an unknown durability, a malformed or
//! truncated field) makes [`decode_put_batch`] return `None`, and the caller decodes with
//! prost as before: errors, and the rules prost applies to what this reader leaves alone
//! (skipping unknown fields, merging a repeated `oneof` member of another kind), stay prost's.
//! Where this reader answers, it follows prost's rules exactly: a repeated singular field
//! keeps its last value, a repeated `put` merges its cells into the first, varints may be
//! overlong but not over ten bytes, and the table must be UTF-8. The tests check the answer
//! against prost's on encoded, mutated and truncated requests.

use bytes::Bytes;
use strata_model::ops::{Mutation, Put, PutCell, RowMutations};
use strata_model::schema::Durability;

use super::ops::durability_from_pb;

/// Wire types `strata.proto`'s fields use.
const VARINT: u64 = 0;
const LEN: u64 = 2;

/// A batch of puts as prost and the conversion would give it: the table and each row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PutBatch {
    /// The request's table.
    pub table: String,
    /// Its rows, in order.
    pub rows: Vec<RowMutations>,
}

/// The batch `body` (an encoded `BatchRequest`) holds, if every row holds only puts (see
/// the module docs); `None` sends the caller to prost.
pub fn decode_put_batch(body: &Bytes) -> Option<PutBatch> {
    let mut reader = Reader { body, pos: 0 };
    let end = body.len();
    let mut table = String::new();
    let mut rows = Vec::with_capacity(count_rows(body)?);
    while let Some((tag, wire)) = reader.key_before(end)? {
        match (tag, wire) {
            // prost checks each occurrence, the last one kept.
            (1, LEN) => {
                table = std::str::from_utf8(&reader.bytes_before(end)?)
                    .ok()?
                    .to_owned()
            }
            (2, LEN) => {
                let inner = reader.message_end_before(end)?;
                rows.push(reader.row_mutations(inner)?);
            }
            _ => return None,
        }
    }
    Some(PutBatch { table, rows })
}

/// How many rows (field 2) the request's top level holds: one quick pass over its keys and
/// lengths, so the rows' vector is allocated once.
fn count_rows(body: &Bytes) -> Option<usize> {
    let mut reader = Reader { body, pos: 0 };
    let mut rows = 0;
    while let Some((tag, wire)) = reader.key_before(body.len())? {
        if wire != LEN {
            return None;
        }
        reader.pos = reader.message_end_before(body.len())?;
        rows += usize::from(tag == 2);
    }
    Some(rows)
}

/// A position in a request's bytes.
struct Reader<'a> {
    body: &'a Bytes,
    pos: usize,
}

impl Reader<'_> {
    /// The next field's tag and wire type within a message ending at `end`; `Some(None)` at
    /// its end, `None` when the key is malformed.
    fn key_before(&mut self, end: usize) -> Option<Option<(u64, u64)>> {
        if self.pos >= end {
            return Some(None);
        }
        let key = self.varint_before(end)?;
        if key > u64::from(u32::MAX) || key >> 3 == 0 {
            return None;
        }
        Some(Some((key >> 3, key & 7)))
    }

    /// A varint (at most ten bytes, the tenth 0 or 1, as prost reads them) ending by `end`.
    fn varint_before(&mut self, end: usize) -> Option<u64> {
        let mut value = 0u64;
        for i in 0..10 {
            let byte = *self.body.get(self.pos)?;
            if self.pos >= end {
                return None;
            }
            self.pos += 1;
            if i == 9 && byte > 1 {
                return None;
            }
            value |= u64::from(byte & 0x7f) << (7 * i);
            if byte < 0x80 {
                return Some(value);
            }
        }
        None
    }

    /// A `RowMutations` message ending at `end`: its row, and its puts.
    fn row_mutations(&mut self, end: usize) -> Option<RowMutations> {
        let mut row = Bytes::new();
        // Buffered rows hold one put each.
        let mut mutations = Vec::with_capacity(1);
        // A row given after a mutation (or twice): the mutations take the last one at the end.
        let mut late_row = false;
        while let Some((tag, wire)) = self.key_before(end)? {
            match (tag, wire) {
                (1, LEN) => {
                    row = self.bytes_before(end)?;
                    late_row |= !mutations.is_empty();
                }
                (2, LEN) => {
                    let inner = self.message_end_before(end)?;
                    let (durability, cells, ttl) = self.mutation(inner)?;
                    mutations.push(Mutation::Put(Put {
                        row: row.clone(),
                        cells,
                        durability,
                        ttl,
                    }));
                }
                _ => return None,
            }
        }
        if late_row {
            for m in &mut mutations {
                if let Mutation::Put(put) = m {
                    put.row = row.clone();
                }
            }
        }
        Some(RowMutations { row, mutations })
    }

    /// A `Mutation` message ending at `end` that is a put: its durability, cells and TTL.
    fn mutation(&mut self, end: usize) -> Option<(Durability, Vec<PutCell>, Option<u64>)> {
        let mut durability = 0i32;
        let mut cells: Option<Vec<PutCell>> = None;
        let mut ttl = None;
        while let Some((tag, wire)) = self.key_before(end)? {
            match (tag, wire) {
                // prost reads an int32 enum as the varint's low 32 bits.
                (1, VARINT) => durability = self.varint_before(end)? as i32,
                (2, LEN) => {
                    let inner = self.message_end_before(end)?;
                    // A second `put` merges into the first, as prost merges a oneof member.
                    let cells = cells.get_or_insert_with(|| Vec::with_capacity(1));
                    while let Some((tag, wire)) = self.key_before(inner)? {
                        match (tag, wire) {
                            (1, LEN) => {
                                let cell_end = self.message_end_before(inner)?;
                                cells.push(self.put_cell(cell_end)?);
                            }
                            // `ttl_ms`; the last one wins, as prost merges.
                            (2, VARINT) => ttl = Some(self.varint_before(inner)?),
                            _ => return None,
                        }
                    }
                }
                _ => return None,
            }
        }
        Some((durability_from_pb(durability).ok()?, cells?, ttl))
    }

    /// A `PutCell` message ending at `end`.
    fn put_cell(&mut self, end: usize) -> Option<PutCell> {
        let mut cell = PutCell {
            family: Bytes::new(),
            qualifier: Bytes::new(),
            timestamp: None,
            value: Bytes::new(),
        };
        while let Some((tag, wire)) = self.key_before(end)? {
            match (tag, wire) {
                (1, LEN) => cell.family = self.bytes_before(end)?,
                (2, LEN) => cell.qualifier = self.bytes_before(end)?,
                (3, VARINT) => cell.timestamp = Some(self.varint_before(end)? as i64),
                (4, LEN) => cell.value = self.bytes_before(end)?,
                _ => return None,
            }
        }
        Some(cell)
    }

    /// A length prefix within a message ending at `end`, and the end of what it covers.
    fn message_end_before(&mut self, end: usize) -> Option<usize> {
        let len = usize::try_from(self.varint_before(end)?).ok()?;
        let inner = self.pos.checked_add(len)?;
        (inner <= end).then_some(inner)
    }

    /// A length-delimited field's bytes within a message ending at `end`.
    fn bytes_before(&mut self, end: usize) -> Option<Bytes> {
        let inner = self.message_end_before(end)?;
        let bytes = self.body.slice(self.pos..inner);
        self.pos = inner;
        Some(bytes)
    }
}
