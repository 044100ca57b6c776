//! Decoding of Thrift's binary protocol from a byte slice.
//!
//! The decoder never reads past its slice: a value cut short is [`DecodeError::Incomplete`]
//! (read more bytes and decode again from the start), anything the protocol forbids is
//! [`DecodeError::Invalid`]. Allocation is bounded by the bytes actually present, so a
//! length prefix claiming gigabytes costs nothing until the bytes arrive.
//!
//! A transport that does not know where a message ends first walks it with a
//! [`super::Walk`] (the same checks, nothing allocated, resumed where the last read ended),
//! so a large message arriving in many reads is walked once and built once. A decoder made
//! with [`Decoder::shared`] over the message's own [`Bytes`] hands out binaries as slices of
//! it instead of copies.

use bytes::Bytes;

use super::value::{Struct, TType, Value};

/// Why a decode failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The input ends inside a value.
    #[error("message incomplete")]
    Incomplete,
    /// The input breaks the protocol (bad type byte, negative length, too deep...).
    #[error("malformed message: {0}")]
    Invalid(String),
}

/// Nesting allowed for structs, lists and maps (HBase's IDL needs 4).
pub const MAX_DEPTH: usize = 32;

/// A cursor over a byte slice holding binary-protocol values.
#[derive(Debug)]
pub struct Decoder<'a> {
    buf: &'a [u8],
    /// `buf` as shared bytes: binaries are slices of it.
    owner: Option<&'a Bytes>,
    pos: usize,
    max_len: usize,
}

impl<'a> Decoder<'a> {
    /// A decoder over `buf`; strings and containers longer than `max_len` are invalid.
    pub fn new(buf: &'a [u8], max_len: usize) -> Decoder<'a> {
        Decoder::at(buf, 0, max_len)
    }

    /// A decoder over `buf` starting at `pos`.
    pub(super) fn at(buf: &'a [u8], pos: usize, max_len: usize) -> Decoder<'a> {
        Decoder {
            buf,
            owner: None,
            pos,
            max_len,
        }
    }

    /// A decoder over `bytes` whose binaries share its memory (no copy per string). Keep the
    /// bytes to one message: a binary kept long after pins all of them.
    pub fn shared(bytes: &'a Bytes, max_len: usize) -> Decoder<'a> {
        Decoder {
            buf: bytes,
            owner: Some(bytes),
            pos: 0,
            max_len,
        }
    }

    /// Bytes consumed so far.
    pub fn position(&self) -> usize {
        self.pos
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let end = self.pos.checked_add(n).ok_or(DecodeError::Incomplete)?;
        let slice = self.buf.get(self.pos..end).ok_or(DecodeError::Incomplete)?;
        self.pos = end;
        Ok(slice)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    /// One byte.
    pub fn read_u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.array::<1>()?[0])
    }

    /// A big-endian i16.
    pub fn read_i16(&mut self) -> Result<i16, DecodeError> {
        Ok(i16::from_be_bytes(self.array()?))
    }

    /// A big-endian i32.
    pub fn read_i32(&mut self) -> Result<i32, DecodeError> {
        Ok(i32::from_be_bytes(self.array()?))
    }

    /// A big-endian i64.
    pub fn read_i64(&mut self) -> Result<i64, DecodeError> {
        Ok(i64::from_be_bytes(self.array()?))
    }

    /// A length prefix: non-negative and at most the limit.
    pub(super) fn read_len(&mut self, what: &str) -> Result<usize, DecodeError> {
        let len = self.read_i32()?;
        let len = usize::try_from(len)
            .map_err(|_| DecodeError::Invalid(format!("negative {what} length {len}")))?;
        if len > self.max_len {
            return Err(DecodeError::Invalid(format!(
                "{what} length {len} exceeds the limit of {}",
                self.max_len
            )));
        }
        Ok(len)
    }

    /// A string or binary: i32 length, then the bytes.
    pub fn read_binary(&mut self) -> Result<Bytes, DecodeError> {
        let len = self.read_len("string")?;
        let start = self.pos;
        let slice = self.take(len)?;
        Ok(match self.owner {
            Some(owner) => owner.slice(start..start + len),
            None => Bytes::copy_from_slice(slice),
        })
    }

    pub(super) fn read_type(&mut self) -> Result<TType, DecodeError> {
        let code = self.read_u8()?;
        TType::from_code(code).ok_or_else(|| DecodeError::Invalid(format!("unknown type {code}")))
    }

    /// A value of type `ttype`.
    pub fn read_value(&mut self, ttype: TType) -> Result<Value, DecodeError> {
        self.value(ttype, 0)
    }

    /// A struct: fields until the stop byte.
    pub fn read_struct(&mut self) -> Result<Struct, DecodeError> {
        self.structure(0)
    }

    fn value(&mut self, ttype: TType, depth: usize) -> Result<Value, DecodeError> {
        check_depth(depth)?;
        Ok(match ttype {
            TType::Bool => Value::Bool(self.read_u8()? != 0),
            TType::Byte => Value::Byte(i8::from_be_bytes(self.array()?)),
            TType::Double => Value::Double(f64::from_be_bytes(self.array()?)),
            TType::I16 => Value::I16(self.read_i16()?),
            TType::I32 => Value::I32(self.read_i32()?),
            TType::I64 => Value::I64(self.read_i64()?),
            TType::String => Value::Binary(self.read_binary()?),
            TType::Struct => Value::Struct(self.structure(depth + 1)?),
            TType::Map => {
                let key = self.read_type()?;
                let value = self.read_type()?;
                let len = self.read_len("map")?;
                let mut entries = Vec::with_capacity(len.min(self.remaining()));
                for _ in 0..len {
                    let k = self.value(key, depth + 1)?;
                    let v = self.value(value, depth + 1)?;
                    entries.push((k, v));
                }
                Value::Map {
                    key,
                    value,
                    entries,
                }
            }
            TType::List | TType::Set => {
                let elem = self.read_type()?;
                let len = self.read_len("list")?;
                let mut items = Vec::with_capacity(len.min(self.remaining()));
                for _ in 0..len {
                    items.push(self.value(elem, depth + 1)?);
                }
                Value::List { elem, items }
            }
            TType::Stop | TType::Void => return Err(not_a_value(ttype)),
        })
    }

    pub(super) fn skip(&mut self, n: usize) -> Result<(), DecodeError> {
        self.take(n).map(|_| ())
    }

    fn structure(&mut self, depth: usize) -> Result<Struct, DecodeError> {
        let mut fields = Vec::new();
        loop {
            let ttype = self.read_type()?;
            if ttype == TType::Stop {
                return Ok(Struct { fields });
            }
            let id = self.read_i16()?;
            fields.push((id, self.value(ttype, depth)?));
        }
    }

    fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }
}

pub(super) fn check_depth(depth: usize) -> Result<(), DecodeError> {
    if depth > MAX_DEPTH {
        return Err(DecodeError::Invalid(format!(
            "nesting deeper than {MAX_DEPTH}"
        )));
    }
    Ok(())
}

pub(super) fn not_a_value(ttype: TType) -> DecodeError {
    DecodeError::Invalid(format!("{} is not a value type", ttype.name()))
}
