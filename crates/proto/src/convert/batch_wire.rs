//! A `BatchRequest` written straight from model row mutations: the bytes
//! [`row_mutations_to_pb`](super::row_mutations_to_pb) and prost's encoding would produce,
//! without building the messages first (no allocation per row and mutation, no reference
//! count taken and dropped per row, family, qualifier and value). Buffered writers send
//! thousands of small rows a second; building and dropping their messages cost more than
//! encoding them.
//!
//! Field numbers and presence follow `strata.proto` exactly: proto3 scalars and bytes are
//! left out when they hold their default, `optional` fields are written whenever set, and
//! message fields (a `oneof` member, repeated elements) always. The tests compare every byte
//! with prost's encoding of the converted messages.
//!
//! Each nested message's length is computed once, in [`BatchBody::new`], onto a *tape* (the
//! lengths in the order their messages are written); [`encode`](BatchBody::encode) reads
//! them back in that order instead of computing a row's lengths again for each header.

use bytes::BufMut;
use prost::encoding::{encode_key, encode_varint, encoded_len_varint, key_len, WireType};
use strata_model::ops::{
    Append, AppendCell, Delete, DeleteMarker, Increment, IncrementCell, Mutation, Put, PutCell,
    RowMutations,
};

use super::ops::{delete_kind_to_pb, durability_to_pb};

/// The body of a `BatchRequest` for `rows` of `table`.
pub struct BatchBody<'a> {
    table: &'a str,
    rows: Vec<&'a RowMutations>,
    /// Every nested message's length, in the order [`encode`](BatchBody::encode) writes
    /// their headers.
    tape: Vec<usize>,
    /// Bytes of the whole body.
    len: usize,
}

impl<'a> BatchBody<'a> {
    /// The request applying `rows` (in this order) to `table`.
    pub fn new(table: &'a str, rows: Vec<&'a RowMutations>) -> BatchBody<'a> {
        let mut tape = Vec::with_capacity(rows.len() * 4);
        let len = bytes_len(1, table.as_bytes())
            + rows
                .iter()
                .map(|rm| message_len(2, row_mutations_len(rm, &mut tape)))
                .sum::<usize>();
        BatchBody {
            table,
            rows,
            tape,
            len,
        }
    }

    /// Bytes [`encode`](BatchBody::encode) writes.
    pub fn encoded_len(&self) -> usize {
        self.len
    }

    /// Appends the encoded request to `out`.
    pub fn encode(&self, out: &mut impl BufMut) {
        let mut tape = self.tape.iter().copied();
        put_bytes(out, 1, self.table.as_bytes());
        for rm in &self.rows {
            put_row_mutations(out, rm, &mut tape);
        }
    }
}

/// Reserves a tape entry for a message whose length is known after its fields'.
fn reserve(tape: &mut Vec<usize>) -> usize {
    tape.push(0);
    tape.len() - 1
}

/// Records the length reserved at `at`, and returns it.
fn record(tape: &mut [usize], at: usize, len: usize) -> usize {
    tape[at] = len;
    len
}

// Lengths (without the field's own key and length prefix for messages).

fn message_len(tag: u32, len: usize) -> usize {
    key_len(tag) + encoded_len_varint(len as u64) + len
}

fn bytes_len(tag: u32, bytes: &[u8]) -> usize {
    if bytes.is_empty() {
        0
    } else {
        message_len(tag, bytes.len())
    }
}

fn int64_len(tag: u32, value: i64) -> usize {
    if value == 0 {
        0
    } else {
        key_len(tag) + encoded_len_varint(value as u64)
    }
}

/// A `uint64 ttl_ms` as the int64 helpers take it: the same varint bytes.
fn wire_ttl(ttl: Option<u64>) -> Option<i64> {
    ttl.map(|t| t as i64)
}

fn optional_int64_len(tag: u32, value: Option<i64>) -> usize {
    value.map_or(0, |v| key_len(tag) + encoded_len_varint(v as u64))
}

fn enum_len(tag: u32, value: i32) -> usize {
    int64_len(tag, i64::from(value))
}

fn bool_len(tag: u32, value: bool) -> usize {
    if value {
        key_len(tag) + 1
    } else {
        0
    }
}

fn row_mutations_len(rm: &RowMutations, tape: &mut Vec<usize>) -> usize {
    let at = reserve(tape);
    let len = bytes_len(1, &rm.row)
        + rm.mutations
            .iter()
            .map(|m| message_len(2, mutation_len(m, tape)))
            .sum::<usize>();
    record(tape, at, len)
}

fn mutation_len(m: &Mutation, tape: &mut Vec<usize>) -> usize {
    let at = reserve(tape);
    let kind = match m {
        Mutation::Put(p) => message_len(2, put_len(p, tape)),
        Mutation::Delete(d) => message_len(3, delete_len(d, tape)),
        Mutation::Increment(i) => message_len(4, increment_len(i, tape)),
        Mutation::Append(a) => message_len(5, append_len(a, tape)),
    };
    let len = enum_len(1, durability_to_pb(m.durability()) as i32) + kind;
    record(tape, at, len)
}

fn put_len(p: &Put, tape: &mut Vec<usize>) -> usize {
    let at = reserve(tape);
    let len = p
        .cells
        .iter()
        .map(|c| message_len(1, record_len(tape, put_cell_len(c))))
        .sum::<usize>()
        + optional_int64_len(2, wire_ttl(p.ttl));
    record(tape, at, len)
}

/// Pushes a leaf message's length onto the tape, and returns it.
fn record_len(tape: &mut Vec<usize>, len: usize) -> usize {
    tape.push(len);
    len
}

fn put_cell_len(c: &PutCell) -> usize {
    bytes_len(1, &c.family)
        + bytes_len(2, &c.qualifier)
        + optional_int64_len(3, c.timestamp)
        + bytes_len(4, &c.value)
}

fn delete_len(d: &Delete, tape: &mut Vec<usize>) -> usize {
    let at = reserve(tape);
    let len = d
        .markers
        .iter()
        .map(|m| message_len(1, record_len(tape, marker_len(m))))
        .sum::<usize>()
        + optional_int64_len(2, d.timestamp);
    record(tape, at, len)
}

fn marker_len(m: &DeleteMarker) -> usize {
    enum_len(1, delete_kind_to_pb(m.kind) as i32)
        + bytes_len(2, &m.family)
        + bytes_len(3, &m.qualifier)
        + optional_int64_len(4, m.timestamp)
}

fn increment_len(i: &Increment, tape: &mut Vec<usize>) -> usize {
    let at = reserve(tape);
    let len = i
        .cells
        .iter()
        .map(|c| message_len(1, record_len(tape, increment_cell_len(c))))
        .sum::<usize>()
        + bool_len(2, i.return_results)
        + optional_int64_len(3, wire_ttl(i.ttl));
    record(tape, at, len)
}

fn increment_cell_len(c: &IncrementCell) -> usize {
    bytes_len(1, &c.family) + bytes_len(2, &c.qualifier) + int64_len(3, c.amount)
}

fn append_len(a: &Append, tape: &mut Vec<usize>) -> usize {
    let at = reserve(tape);
    let len = a
        .cells
        .iter()
        .map(|c| message_len(1, record_len(tape, append_cell_len(c))))
        .sum::<usize>()
        + bool_len(2, a.return_results)
        + optional_int64_len(3, wire_ttl(a.ttl));
    record(tape, at, len)
}

fn append_cell_len(c: &AppendCell) -> usize {
    bytes_len(1, &c.family) + bytes_len(2, &c.qualifier) + bytes_len(3, &c.value)
}

// Writers.

fn put_message_header(out: &mut impl BufMut, tag: u32, len: usize) {
    encode_key(tag, WireType::LengthDelimited, out);
    encode_varint(len as u64, out);
}

fn put_bytes(out: &mut impl BufMut, tag: u32, bytes: &[u8]) {
    if !bytes.is_empty() {
        put_message_header(out, tag, bytes.len());
        out.put_slice(bytes);
    }
}

fn put_int64(out: &mut impl BufMut, tag: u32, value: i64) {
    if value != 0 {
        encode_key(tag, WireType::Varint, out);
        encode_varint(value as u64, out);
    }
}

fn put_optional_int64(out: &mut impl BufMut, tag: u32, value: Option<i64>) {
    if let Some(v) = value {
        encode_key(tag, WireType::Varint, out);
        encode_varint(v as u64, out);
    }
}

fn put_enum(out: &mut impl BufMut, tag: u32, value: i32) {
    put_int64(out, tag, i64::from(value));
}

fn put_bool(out: &mut impl BufMut, tag: u32, value: bool) {
    if value {
        encode_key(tag, WireType::Varint, out);
        out.put_u8(1);
    }
}

/// The next length on the tape (the tape holds one per header written, in order).
fn next(tape: &mut impl Iterator<Item = usize>) -> usize {
    tape.next().unwrap_or_default()
}

fn put_row_mutations(
    out: &mut impl BufMut,
    rm: &RowMutations,
    tape: &mut impl Iterator<Item = usize>,
) {
    put_message_header(out, 2, next(tape));
    put_bytes(out, 1, &rm.row);
    for m in &rm.mutations {
        put_message_header(out, 2, next(tape));
        put_enum(out, 1, durability_to_pb(m.durability()) as i32);
        match m {
            Mutation::Put(p) => {
                put_message_header(out, 2, next(tape));
                for c in &p.cells {
                    put_message_header(out, 1, next(tape));
                    put_bytes(out, 1, &c.family);
                    put_bytes(out, 2, &c.qualifier);
                    put_optional_int64(out, 3, c.timestamp);
                    put_bytes(out, 4, &c.value);
                }
                put_optional_int64(out, 2, wire_ttl(p.ttl));
            }
            Mutation::Delete(d) => {
                put_message_header(out, 3, next(tape));
                for m in &d.markers {
                    put_message_header(out, 1, next(tape));
                    put_enum(out, 1, delete_kind_to_pb(m.kind) as i32);
                    put_bytes(out, 2, &m.family);
                    put_bytes(out, 3, &m.qualifier);
                    put_optional_int64(out, 4, m.timestamp);
                }
                put_optional_int64(out, 2, d.timestamp);
            }
            Mutation::Increment(i) => {
                put_message_header(out, 4, next(tape));
                for c in &i.cells {
                    put_message_header(out, 1, next(tape));
                    put_bytes(out, 1, &c.family);
                    put_bytes(out, 2, &c.qualifier);
                    put_int64(out, 3, c.amount);
                }
                put_bool(out, 2, i.return_results);
                put_optional_int64(out, 3, wire_ttl(i.ttl));
            }
            Mutation::Append(a) => {
                put_message_header(out, 5, next(tape));
                for c in &a.cells {
                    put_message_header(out, 1, next(tape));
                    put_bytes(out, 1, &c.family);
                    put_bytes(out, 2, &c.qualifier);
                    put_bytes(out, 3, &c.value);
                }
                put_bool(out, 2, a.return_results);
                put_optional_int64(out, 3, wire_ttl(a.ttl));
            }
        }
    }
}
