//! Encoding of Thrift's binary protocol into a byte vector.

use super::value::{Struct, TType, Value};

/// Appends binary-protocol values to a buffer.
#[derive(Debug, Default)]
pub struct Encoder {
    buf: Vec<u8>,
}

impl Encoder {
    /// An empty encoder.
    pub fn new() -> Encoder {
        Encoder::default()
    }

    /// The bytes written so far.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    /// One byte.
    pub fn write_u8(&mut self, b: u8) {
        self.buf.push(b);
    }

    /// A big-endian i16.
    pub fn write_i16(&mut self, v: i16) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    /// A big-endian i32.
    pub fn write_i32(&mut self, v: i32) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    /// A big-endian i64.
    pub fn write_i64(&mut self, v: i64) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    /// A length prefix. Lengths beyond `i32::MAX` cannot be sent; they are written as
    /// `i32::MAX`, which every peer rejects, rather than silently wrapped.
    fn write_len(&mut self, len: usize) {
        self.write_i32(i32::try_from(len).unwrap_or(i32::MAX));
    }

    /// A string or binary.
    pub fn write_binary(&mut self, bytes: &[u8]) {
        self.write_len(bytes.len());
        self.buf.extend_from_slice(bytes);
    }

    /// Any value.
    pub fn write_value(&mut self, value: &Value) {
        match value {
            Value::Bool(b) => self.write_u8(u8::from(*b)),
            Value::Byte(b) => self.buf.extend_from_slice(&b.to_be_bytes()),
            Value::Double(d) => self.buf.extend_from_slice(&d.to_be_bytes()),
            Value::I16(v) => self.write_i16(*v),
            Value::I32(v) => self.write_i32(*v),
            Value::I64(v) => self.write_i64(*v),
            Value::Binary(b) => self.write_binary(b),
            Value::Struct(s) => self.write_struct(s),
            Value::Map {
                key,
                value,
                entries,
            } => {
                self.write_u8(key.code());
                self.write_u8(value.code());
                self.write_len(entries.len());
                for (k, v) in entries {
                    self.write_value(k);
                    self.write_value(v);
                }
            }
            Value::List { elem, items } => {
                self.write_u8(elem.code());
                self.write_len(items.len());
                for item in items {
                    self.write_value(item);
                }
            }
        }
    }

    /// A struct: each field as (type, id, value), then the stop byte.
    pub fn write_struct(&mut self, s: &Struct) {
        for (id, value) in &s.fields {
            self.write_u8(value.ttype().code());
            self.write_i16(*id);
            self.write_value(value);
        }
        self.write_u8(TType::Stop.code());
    }
}
