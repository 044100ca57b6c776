//! Cell blocks with HBase's `KeyValueCodec` (and `KeyValueCodecWithTags`): a run of cells,
//! each a 4-byte big-endian length and then one `KeyValue`:
//!
//! ```text
//! u32 key_len | u32 value_len | key | value [| u16 tags_len | tags]   (tags: WithTags only)
//! key = u16 row_len | row | u8 family_len | family | qualifier | i64 timestamp | u8 type
//! ```
//!
//! Decoding checks every length against what is left, so a bogus block gives
//! [`CellBlockError`] and never a panic or a huge allocation.

use bytes::{Buf, BufMut, Bytes, BytesMut};
use strata_model::cell::{Cell, CellType};

/// Fixed bytes of a key besides row, family and qualifier: row length (2), family length
/// (1), timestamp (8), type (1).
const KEY_FIXED: usize = 2 + 1 + 8 + 1;

/// A malformed cell block.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad cell block at byte {offset}: {reason}")]
pub struct CellBlockError {
    /// Where in the block the bad cell starts.
    pub offset: usize,
    /// What is wrong.
    pub reason: String,
}

/// Which of HBase's two KeyValue codecs a connection uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Codec {
    /// `org.apache.hadoop.hbase.codec.KeyValueCodec`: no tags.
    KeyValue,
    /// `org.apache.hadoop.hbase.codec.KeyValueCodecWithTags`: a tags length and tags follow
    /// each value (Strata stores no tags: it reads and drops them, and writes none).
    KeyValueWithTags,
}

impl Codec {
    /// The codec for a connection header's class name.
    pub fn from_class(class: &str) -> Option<Codec> {
        match class {
            "org.apache.hadoop.hbase.codec.KeyValueCodec" => Some(Codec::KeyValue),
            "org.apache.hadoop.hbase.codec.KeyValueCodecWithTags" => Some(Codec::KeyValueWithTags),
            _ => None,
        }
    }
}

/// Appends `cells` to `out` in `codec`'s format.
pub fn encode(codec: Codec, cells: &[Cell], out: &mut BytesMut) {
    for c in cells {
        let key_len = KEY_FIXED + c.row.len() + c.family.len() + c.qualifier.len();
        let tags = if codec == Codec::KeyValueWithTags {
            2
        } else {
            0
        };
        let total = 8 + key_len + c.value.len() + tags;
        out.reserve(4 + total);
        out.put_u32(total as u32);
        out.put_u32(key_len as u32);
        out.put_u32(c.value.len() as u32);
        out.put_u16(c.row.len() as u16);
        out.put_slice(&c.row);
        out.put_u8(c.family.len() as u8);
        out.put_slice(&c.family);
        out.put_slice(&c.qualifier);
        out.put_i64(c.timestamp);
        out.put_u8(c.cell_type.code());
        out.put_slice(&c.value);
        if codec == Codec::KeyValueWithTags {
            out.put_u16(0);
        }
    }
}

/// Splits a cell block into cells (sharing `block`'s memory).
///
/// # Errors
/// A length that runs past the block or disagrees with the parts, a family longer than 255
/// bytes, an unknown type code.
pub fn decode(codec: Codec, block: &Bytes) -> Result<Vec<Cell>, CellBlockError> {
    let mut cells = Vec::new();
    let mut at = 0usize;
    while at < block.len() {
        let (cell, next) = decode_one(codec, block, at)?;
        cells.push(cell);
        at = next;
    }
    Ok(cells)
}

fn decode_one(codec: Codec, block: &Bytes, start: usize) -> Result<(Cell, usize), CellBlockError> {
    let bad = |reason: String| CellBlockError {
        offset: start,
        reason,
    };
    let mut buf = &block[start..];
    if buf.len() < 4 {
        return Err(bad(format!(
            "{} bytes left, a cell length needs 4",
            buf.len()
        )));
    }
    let total = buf.get_u32() as usize;
    if total > buf.len() {
        return Err(bad(format!(
            "cell of {total} bytes, only {} left",
            buf.len()
        )));
    }
    let body_start = start + 4;
    let mut kv = &block[body_start..body_start + total];
    if kv.len() < 8 {
        return Err(bad("cell shorter than its key and value lengths".into()));
    }
    let key_len = kv.get_u32() as usize;
    let value_len = kv.get_u32() as usize;
    let tags_room = if codec == Codec::KeyValueWithTags {
        2
    } else {
        0
    };
    let parts = key_len
        .checked_add(value_len)
        .filter(|n| *n <= kv.len())
        .ok_or_else(|| {
            bad(format!(
                "key {key_len} + value {value_len} bytes exceed the cell"
            ))
        })?;
    if key_len < KEY_FIXED {
        return Err(bad(format!("key of {key_len} bytes is too short")));
    }
    let rest = kv.len() - parts;
    match codec {
        Codec::KeyValue if rest != 0 => {
            return Err(bad(format!("{rest} stray bytes after the value")));
        }
        Codec::KeyValueWithTags if rest != 0 => {
            if rest < tags_room {
                return Err(bad("truncated tags length".into()));
            }
            let mut t = &kv[parts..];
            let tags_len = t.get_u16() as usize;
            if tags_len != rest - tags_room {
                return Err(bad(format!(
                    "tags length {tags_len} disagrees with the {} bytes left",
                    rest - tags_room
                )));
            }
        }
        _ => {}
    }
    let key_start = body_start + 8;
    let mut key = &block[key_start..key_start + key_len];
    let row_len = key.get_u16() as usize;
    if row_len + KEY_FIXED > key_len {
        return Err(bad(format!("row of {row_len} bytes exceeds the key")));
    }
    let row_at = key_start + 2;
    let row = block.slice(row_at..row_at + row_len);
    key = &block[row_at + row_len..key_start + key_len];
    let family_len = key.get_u8() as usize;
    if row_len + family_len + KEY_FIXED > key_len {
        return Err(bad(format!("family of {family_len} bytes exceeds the key")));
    }
    let family_at = row_at + row_len + 1;
    let family = block.slice(family_at..family_at + family_len);
    let qualifier_at = family_at + family_len;
    let qualifier_end = key_start + key_len - 9;
    let qualifier = block.slice(qualifier_at..qualifier_end);
    let mut tail = &block[qualifier_end..key_start + key_len];
    let timestamp = tail.get_i64();
    let code = tail.get_u8();
    let cell_type =
        CellType::from_code(code).ok_or_else(|| bad(format!("unknown cell type code {code}")))?;
    let value_at = key_start + key_len;
    let value = block.slice(value_at..value_at + value_len);
    Ok((
        Cell {
            row,
            family,
            qualifier,
            timestamp,
            cell_type,
            seq: 0,
            value,
            ttl: None,
        },
        body_start + total,
    ))
}

#[cfg(test)]
mod tests;
