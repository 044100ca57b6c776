//! [`Value`]: a decoded Thrift value of any type, and [`Struct`], a struct's fields by id.
//!
//! The gateway decodes every message into this tree first and reads arguments from it
//! afterwards, so a wrong argument type is an error the handler can answer, not a desync of
//! the stream.

use bytes::Bytes;

/// A Thrift wire type (the binary protocol's type byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TType {
    /// End of a struct's fields.
    Stop,
    /// `void` (only in results).
    Void,
    /// `bool`.
    Bool,
    /// `byte` (i8).
    Byte,
    /// `double`.
    Double,
    /// `i16`.
    I16,
    /// `i32` (also enums).
    I32,
    /// `i64`.
    I64,
    /// `string` and `binary`.
    String,
    /// A struct, exception or union.
    Struct,
    /// `map<K, V>`.
    Map,
    /// `set<T>` (read and kept as a list).
    Set,
    /// `list<T>`.
    List,
}

impl TType {
    /// The type's byte on the wire.
    pub fn code(self) -> u8 {
        match self {
            TType::Stop => 0,
            TType::Void => 1,
            TType::Bool => 2,
            TType::Byte => 3,
            TType::Double => 4,
            TType::I16 => 6,
            TType::I32 => 8,
            TType::I64 => 10,
            TType::String => 11,
            TType::Struct => 12,
            TType::Map => 13,
            TType::Set => 14,
            TType::List => 15,
        }
    }

    /// The type of a wire byte, or `None` for an unknown one.
    pub fn from_code(code: u8) -> Option<TType> {
        Some(match code {
            0 => TType::Stop,
            1 => TType::Void,
            2 => TType::Bool,
            3 => TType::Byte,
            4 => TType::Double,
            6 => TType::I16,
            8 => TType::I32,
            10 => TType::I64,
            11 => TType::String,
            12 => TType::Struct,
            13 => TType::Map,
            14 => TType::Set,
            15 => TType::List,
            _ => return None,
        })
    }

    /// The IDL name, for error messages.
    pub fn name(self) -> &'static str {
        match self {
            TType::Stop => "stop",
            TType::Void => "void",
            TType::Bool => "bool",
            TType::Byte => "byte",
            TType::Double => "double",
            TType::I16 => "i16",
            TType::I32 => "i32",
            TType::I64 => "i64",
            TType::String => "binary",
            TType::Struct => "struct",
            TType::Map => "map",
            TType::Set => "set",
            TType::List => "list",
        }
    }
}

/// Any Thrift value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `bool`.
    Bool(bool),
    /// `byte`.
    Byte(i8),
    /// `double`.
    Double(f64),
    /// `i16`.
    I16(i16),
    /// `i32`.
    I32(i32),
    /// `i64`.
    I64(i64),
    /// `string` or `binary`: raw bytes (Thrift1's `Text` is bytes too).
    Binary(Bytes),
    /// A struct.
    Struct(Struct),
    /// A map with its declared key and value types (kept for empty maps).
    Map {
        /// Key type.
        key: TType,
        /// Value type.
        value: TType,
        /// Entries in wire order.
        entries: Vec<(Value, Value)>,
    },
    /// A list (or set) with its declared element type.
    List {
        /// Element type.
        elem: TType,
        /// Elements in wire order.
        items: Vec<Value>,
    },
}

impl Value {
    /// The value's wire type.
    pub fn ttype(&self) -> TType {
        match self {
            Value::Bool(_) => TType::Bool,
            Value::Byte(_) => TType::Byte,
            Value::Double(_) => TType::Double,
            Value::I16(_) => TType::I16,
            Value::I32(_) => TType::I32,
            Value::I64(_) => TType::I64,
            Value::Binary(_) => TType::String,
            Value::Struct(_) => TType::Struct,
            Value::Map { .. } => TType::Map,
            Value::List { .. } => TType::List,
        }
    }

    /// A binary value.
    pub fn binary(bytes: impl Into<Bytes>) -> Value {
        Value::Binary(bytes.into())
    }

    /// A list of `elem` values.
    pub fn list(elem: TType, items: Vec<Value>) -> Value {
        Value::List { elem, items }
    }
}

/// A struct's fields, by id, in wire order. Unset optional fields are absent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Struct {
    /// `(field id, value)` pairs.
    pub fields: Vec<(i16, Value)>,
}

impl Struct {
    /// A struct with no fields.
    pub fn new() -> Struct {
        Struct::default()
    }

    /// Adds field `id`, builder-style.
    #[must_use]
    pub fn with(mut self, id: i16, value: Value) -> Struct {
        self.fields.push((id, value));
        self
    }

    /// Adds field `id` if `value` is set.
    #[must_use]
    pub fn with_opt(self, id: i16, value: Option<Value>) -> Struct {
        match value {
            Some(v) => self.with(id, v),
            None => self,
        }
    }

    /// Field `id` (the last one if a peer sent it twice).
    pub fn get(&self, id: i16) -> Option<&Value> {
        self.fields
            .iter()
            .rev()
            .find(|(fid, _)| *fid == id)
            .map(|(_, v)| v)
    }
}
