//! [`Walk`]: finds where a struct ends in bytes still arriving, resumably and without
//! building it.
//!
//! A buffered Thrift stream says nowhere how long a message is: its end is found by reading
//! the message. Decoding it again after every read would cost a large message (a
//! `mutateRows` of 1,000 rows is ~150 KB, arriving in dozens of reads) its whole decode per
//! read. The walk keeps the containers it is inside on a stack and resumes at the first
//! value it could not finish, so each byte is looked at about once however the message is cut.
//!
//! It makes the decoder's checks in the decoder's order with the decoder's errors (types,
//! lengths and their limit, nesting), so a walk that ends well is a message that decodes.

use super::decode::{check_depth, not_a_value, DecodeError, Decoder};
use super::value::TType;

/// A walk through one struct, from a position in a buffer that may still grow.
#[derive(Debug)]
pub struct Walk {
    /// Where the next value (or field header) starts.
    pos: usize,
    /// The containers the walk is inside, innermost last.
    stack: Vec<Frame>,
}

#[derive(Debug)]
struct Frame {
    kind: Kind,
    /// The nesting depth of the values in it, as the decoder counts it.
    depth: usize,
}

#[derive(Debug)]
enum Kind {
    /// A struct's fields, until the stop byte.
    Fields,
    /// A list's or set's elements still to come.
    Items { elem: TType, left: usize },
    /// A map's keys and values still to come, two per entry (a key when even).
    Entries {
        key: TType,
        value: TType,
        left: usize,
    },
}

impl Walk {
    /// A walk of the struct starting at `start`.
    pub fn new(start: usize) -> Walk {
        Walk {
            pos: start,
            stack: vec![Frame {
                kind: Kind::Fields,
                depth: 0,
            }],
        }
    }

    /// Goes on through `buf` (the same bytes as before, maybe more after them). `Ok(end)`
    /// once the struct ends, `end` being the position after its stop byte.
    ///
    /// # Errors
    /// [`DecodeError::Incomplete`]: call again when more bytes have arrived, the walk stays
    /// where it was. `Invalid`: the bytes are no struct (the decoder's message).
    pub fn resume(&mut self, buf: &[u8], max_len: usize) -> Result<usize, DecodeError> {
        loop {
            let Some(top) = self.stack.last_mut() else {
                return Ok(self.pos);
            };
            let mut d = Decoder::at(buf, self.pos, max_len);
            // The next value's type and depth, and whether the parent is finished.
            let (ttype, depth) = match &mut top.kind {
                Kind::Fields => {
                    let ttype = d.read_type()?;
                    if ttype == TType::Stop {
                        self.pos = d.position();
                        self.stack.pop();
                        continue;
                    }
                    d.read_i16()?;
                    (ttype, top.depth)
                }
                Kind::Items { left: 0, .. } | Kind::Entries { left: 0, .. } => {
                    self.stack.pop();
                    continue;
                }
                Kind::Items { elem, .. } => (*elem, top.depth + 1),
                Kind::Entries { key, value, left } => {
                    let ttype = if *left % 2 == 0 { *key } else { *value };
                    (ttype, top.depth + 1)
                }
            };
            let child = Self::value_head(&mut d, ttype, depth)?;
            // The value (or its container's header) is whole: count it and move past it.
            match &mut top.kind {
                Kind::Fields => {}
                Kind::Items { left, .. } | Kind::Entries { left, .. } => *left -= 1,
            }
            self.pos = d.position();
            self.stack.extend(child);
        }
    }

    /// Reads a scalar whole, or a container's header: the frame to walk its contents in.
    fn value_head(
        d: &mut Decoder<'_>,
        ttype: TType,
        depth: usize,
    ) -> Result<Option<Frame>, DecodeError> {
        check_depth(depth)?;
        let kind = match ttype {
            TType::Bool | TType::Byte => return d.skip(1).map(|()| None),
            TType::I16 => return d.skip(2).map(|()| None),
            TType::I32 => return d.skip(4).map(|()| None),
            TType::Double | TType::I64 => return d.skip(8).map(|()| None),
            TType::String => {
                let len = d.read_len("string")?;
                return d.skip(len).map(|()| None);
            }
            TType::Struct => {
                return Ok(Some(Frame {
                    kind: Kind::Fields,
                    depth: depth + 1,
                }))
            }
            TType::Map => {
                let key = d.read_type()?;
                let value = d.read_type()?;
                let len = d.read_len("map")?;
                Kind::Entries {
                    key,
                    value,
                    left: 2 * len,
                }
            }
            TType::List | TType::Set => {
                let elem = d.read_type()?;
                let len = d.read_len("list")?;
                Kind::Items { elem, left: len }
            }
            TType::Stop | TType::Void => return Err(not_a_value(ttype)),
        };
        Ok(Some(Frame { kind, depth }))
    }
}

#[cfg(test)]
#[path = "walk_tests.rs"]
mod tests;
