//! A WAL entry (one row mutation: the atomic unit of replay) and its payload encoding.
//!
//! ```text
//! payload = kind u8 | region u64 LE | seq u64 LE | [nonce] | cell count varint | cell*
//! nonce   = group u64 LE | nonce u64 LE | logged ms i64 LE (kinds 3 and 4 only)
//! cell    = family len varint | family | row len varint | row | qualifier len varint
//!         | qualifier | timestamp i64 LE | type code u8 | [ttl] | value len varint | value
//! ttl     = varint: 0 for none, else the put's own TTL in ms + 1 (kind 2 only)
//! ```
//! Kind 1 holds cells without TTLs (what earlier releases wrote and still read); kind 2, written
//! only when a cell of the entry carries its own TTL, adds the `ttl` field to every cell.
//! Kinds 3 and 4 are kinds 1 and 2 with the `nonce` of the client operation the entry applies
//! (an increment or append a client may send again, RFC 0032), written only for such entries:
//! a log without them reads as before, and a reader of an earlier release refuses them.
//! Varints are unsigned LEB128. A cell's sequence id is not stored: it is the entry's.

use bytes::{Buf, Bytes};
use strata_model::cell::{Cell, CellType};

use super::record::MAX_PAYLOAD_LEN;

/// Payload kind of an entry holding cells. Other kinds (flush or region-event markers) may
/// follow in later versions; a reader refuses kinds it does not know.
const KIND_CELLS: u8 = 1;
/// Payload kind of an entry holding cells of which some carry their own TTL.
const KIND_CELLS_TTL: u8 = 2;
/// Kinds 1 and 2 with a nonce: the kind plus this.
const NONCED: u8 = 2;

/// The largest TTL a kind-2 entry stores (one less than `u64::MAX`: the field is TTL + 1).
/// Larger TTLs are clamped to it, which changes nothing: no timestamp lives that long.
const MAX_TTL: u64 = u64::MAX - 1;

/// True when the entry needs kind 2.
fn has_ttls(entry: &Entry) -> bool {
    entry.cells.iter().any(|c| c.ttl.is_some())
}

/// The nonce of a client operation (HBase's nonce group and nonce): a client that sends an
/// increment or append again after a lost answer sends the same nonce, and a server that
/// knows the operation done does not apply it twice (RFC 0032).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Nonce {
    /// The client's group (HBase: one per client connection).
    pub group: u64,
    /// The operation's number within the group; never 0 (HBase's `NO_NONCE`).
    pub nonce: u64,
}

/// One row mutation of one region, as logged and replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The region the mutation belongs to.
    pub region: u64,
    /// The sequence id the region assigned to the mutation; recorded as given.
    pub seq: u64,
    /// The cells, in any order. Their `seq` fields are ignored when appending and set to the
    /// entry's `seq` on replay.
    pub cells: Vec<Cell>,
    /// The nonce of the operation the entry applies, with the time it was logged (ms since
    /// the epoch), if the client gave one.
    pub nonce: Option<(Nonce, i64)>,
}

/// Appends the payload of `entry` to `out`; returns an error message if it would pass the
/// largest payload a record may carry.
pub(crate) fn encode(entry: &Entry, out: &mut Vec<u8>) -> Result<(), String> {
    let start = out.len();
    let ttls = has_ttls(entry);
    let kind = if ttls { KIND_CELLS_TTL } else { KIND_CELLS };
    out.push(if entry.nonce.is_some() {
        kind + NONCED
    } else {
        kind
    });
    out.extend_from_slice(&entry.region.to_le_bytes());
    out.extend_from_slice(&entry.seq.to_le_bytes());
    if let Some((nonce, logged)) = entry.nonce {
        out.extend_from_slice(&nonce.group.to_le_bytes());
        out.extend_from_slice(&nonce.nonce.to_le_bytes());
        out.extend_from_slice(&logged.to_le_bytes());
    }
    put_varint(out, entry.cells.len() as u64);
    for cell in &entry.cells {
        put_bytes(out, &cell.family);
        put_bytes(out, &cell.row);
        put_bytes(out, &cell.qualifier);
        out.extend_from_slice(&cell.timestamp.to_le_bytes());
        out.push(cell.cell_type.code());
        if ttls {
            put_varint(out, cell.ttl.map_or(0, |t| t.min(MAX_TTL) + 1));
        }
        put_bytes(out, &cell.value);
    }
    let len = out.len() - start;
    if len > MAX_PAYLOAD_LEN as usize {
        out.truncate(start);
        return Err(format!(
            "entry of region {} seq {} encodes to {len} bytes; the limit is {MAX_PAYLOAD_LEN}",
            entry.region, entry.seq
        ));
    }
    Ok(())
}

/// The bytes [`encode`] appends for `entry`.
pub(crate) fn encoded_len(entry: &Entry) -> usize {
    let ttls = has_ttls(entry);
    let cells: usize = entry
        .cells
        .iter()
        .map(|c| {
            bytes_len(&c.family)
                + bytes_len(&c.row)
                + bytes_len(&c.qualifier)
                + 8
                + 1
                + if ttls {
                    varint_len(c.ttl.map_or(0, |t| t.min(MAX_TTL) + 1))
                } else {
                    0
                }
                + bytes_len(&c.value)
        })
        .sum();
    1 + 8 + 8 + entry.nonce.map_or(0, |_| 24) + varint_len(entry.cells.len() as u64) + cells
}

fn bytes_len(b: &[u8]) -> usize {
    varint_len(b.len() as u64) + b.len()
}

fn varint_len(v: u64) -> usize {
    // 7 bits a byte; 0 still takes one.
    (64 - (v | 1).leading_zeros() as usize).div_ceil(7)
}

/// Decodes a payload; the error says what was wrong. Cell bytes share `payload`'s buffer.
pub(crate) fn decode(payload: &Bytes) -> Result<Entry, String> {
    let mut b = payload.clone();
    let stored = take(&mut b, 1)?[0];
    let (kind, nonced) = match stored {
        KIND_CELLS | KIND_CELLS_TTL => (stored, false),
        k if k == KIND_CELLS + NONCED || k == KIND_CELLS_TTL + NONCED => (k - NONCED, true),
        k => return Err(format!("unknown entry kind {k}")),
    };
    let region = take(&mut b, 8)?.get_u64_le();
    let seq = take(&mut b, 8)?.get_u64_le();
    let nonce = if nonced {
        let group = take(&mut b, 8)?.get_u64_le();
        let nonce = take(&mut b, 8)?.get_u64_le();
        let logged = take(&mut b, 8)?.get_i64_le();
        Some((Nonce { group, nonce }, logged))
    } else {
        None
    };
    let count = get_varint(&mut b)?;
    // Every cell takes at least 13 bytes, so a count beyond that is damage, not a reason to
    // reserve memory.
    if count > (b.remaining() / 13) as u64 {
        return Err(format!("cell count {count} exceeds the payload"));
    }
    let mut cells = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let family = take_bytes(&mut b)?;
        let row = take_bytes(&mut b)?;
        let qualifier = take_bytes(&mut b)?;
        let timestamp = take(&mut b, 8)?.get_i64_le();
        let code = take(&mut b, 1)?[0];
        let cell_type =
            CellType::from_code(code).ok_or_else(|| format!("unknown cell type {code}"))?;
        let ttl = if kind == KIND_CELLS_TTL {
            get_varint(&mut b)?.checked_sub(1)
        } else {
            None
        };
        let value = take_bytes(&mut b)?;
        cells.push(Cell {
            row,
            family,
            qualifier,
            timestamp,
            cell_type,
            seq,
            value,
            ttl,
        });
    }
    if b.has_remaining() {
        return Err(format!("{} bytes after the last cell", b.remaining()));
    }
    Ok(Entry {
        region,
        seq,
        cells,
        nonce,
    })
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v & 0x7f) as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get_varint(b: &mut Bytes) -> Result<u64, String> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = take(b, 1)?[0];
        v |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err("varint longer than 10 bytes".into())
}

fn take(b: &mut Bytes, n: usize) -> Result<Bytes, String> {
    if b.remaining() < n {
        return Err(format!(
            "entry truncated: need {n} bytes, {} left",
            b.remaining()
        ));
    }
    Ok(b.split_to(n))
}

fn take_bytes(b: &mut Bytes) -> Result<Bytes, String> {
    let len = get_varint(b)?;
    let len = usize::try_from(len).map_err(|_| format!("length {len} out of range"))?;
    take(b, len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn cell_strategy() -> impl Strategy<Value = Cell> {
        (
            prop::collection::vec(any::<u8>(), 0..20),
            prop::collection::vec(any::<u8>(), 0..4),
            prop::collection::vec(any::<u8>(), 0..20),
            any::<i64>(),
            prop::sample::select(CellType::ALL.to_vec()),
            prop::collection::vec(any::<u8>(), 0..300),
            prop::option::of(0..=MAX_TTL),
        )
            .prop_map(
                |(row, family, qualifier, timestamp, cell_type, value, ttl)| Cell {
                    row: row.into(),
                    family: family.into(),
                    qualifier: qualifier.into(),
                    timestamp,
                    cell_type,
                    seq: 0,
                    value: value.into(),
                    ttl,
                },
            )
    }

    proptest! {
        #[test]
        fn entries_round_trip(
            region in any::<u64>(),
            seq in any::<u64>(),
            cells in prop::collection::vec(cell_strategy(), 0..6),
            nonce in prop::option::of((any::<u64>(), 1..u64::MAX, any::<i64>())),
        ) {
            let nonce = nonce.map(|(group, nonce, logged)| (Nonce { group, nonce }, logged));
            let entry = Entry { region, seq, cells, nonce };
            let mut out = Vec::new();
            encode(&entry, &mut out).unwrap();
            prop_assert_eq!(out.len(), encoded_len(&entry));
            let back = decode(&Bytes::from(out.clone())).unwrap();
            prop_assert_eq!(back.region, region);
            prop_assert_eq!(back.seq, seq);
            prop_assert_eq!(back.nonce, nonce);
            prop_assert_eq!(back.cells.len(), entry.cells.len());
            for (got, want) in back.cells.iter().zip(&entry.cells) {
                prop_assert_eq!(got, &Cell { seq, ..want.clone() });
            }
            // Every strict prefix fails to decode rather than yielding a partial entry.
            for cut in 0..out.len() {
                prop_assert!(decode(&Bytes::copy_from_slice(&out[..cut])).is_err());
            }
        }
    }

    #[test]
    fn varint_lengths_match_the_encoder() {
        for v in [
            0,
            1,
            127,
            128,
            16_383,
            16_384,
            u64::from(u32::MAX),
            u64::MAX,
        ] {
            let mut out = Vec::new();
            put_varint(&mut out, v);
            assert_eq!(out.len(), varint_len(v), "{v}");
        }
    }

    #[test]
    fn unknown_kinds_and_types_are_refused() {
        let entry = Entry {
            region: 1,
            seq: 2,
            cells: vec![Cell::put("r", "f", "q", 5, "v")],
            nonce: None,
        };
        let mut out = Vec::new();
        encode(&entry, &mut out).unwrap();
        let mut bad_kind = out.clone();
        bad_kind[0] = 9;
        assert!(decode(&Bytes::from(bad_kind))
            .unwrap_err()
            .contains("kind 9"));
        let type_at = out.len() - 1 - 1 - 1; // value "v", its length, then the type code
        out[type_at] = 3;
        assert!(decode(&Bytes::from(out))
            .unwrap_err()
            .contains("cell type 3"));
    }
}
