//! Typed reads of a struct's fields: a missing required field or a field of the wrong type is
//! an `IllegalArgument` naming the field, so a client with a stale or wrong IDL gets an
//! answer instead of a silently ignored argument.

use bytes::Bytes;

use crate::error::{Result, ThriftError};
use crate::protocol::{Struct, TType, Value};

/// A struct read field by field; `what` names it in error messages.
#[derive(Clone, Copy, Debug)]
pub struct Fields<'a> {
    s: &'a Struct,
    what: &'a str,
}

impl<'a> Fields<'a> {
    /// Reads `s`, called `what` in errors (a method's arguments, or an IDL struct name).
    pub fn new(s: &'a Struct, what: &'a str) -> Fields<'a> {
        Fields { s, what }
    }

    fn field(&self, id: i16, name: &str, ttype: TType) -> Result<Option<&'a Value>> {
        match self.s.get(id) {
            None => Ok(None),
            Some(v) if v.ttype() == ttype => Ok(Some(v)),
            Some(v) => Err(ThriftError::illegal(format!(
                "{}: field {id} ({name}) must be {}, not {}",
                self.what,
                ttype.name(),
                v.ttype().name()
            ))),
        }
    }

    fn required<T>(&self, id: i16, name: &str, value: Option<T>) -> Result<T> {
        value.ok_or_else(|| {
            ThriftError::illegal(format!("{}: field {id} ({name}) is missing", self.what))
        })
    }

    /// An optional binary field.
    pub fn opt_bytes(&self, id: i16, name: &str) -> Result<Option<Bytes>> {
        Ok(match self.field(id, name, TType::String)? {
            Some(Value::Binary(b)) => Some(b.clone()),
            _ => None,
        })
    }

    /// A required binary field.
    pub fn bytes(&self, id: i16, name: &str) -> Result<Bytes> {
        let v = self.opt_bytes(id, name)?;
        self.required(id, name, v)
    }

    /// A required UTF-8 string field (table names).
    pub fn string(&self, id: i16, name: &str) -> Result<String> {
        let b = self.bytes(id, name)?;
        String::from_utf8(b.to_vec())
            .map_err(|_| ThriftError::illegal(format!("{}: {name} is not UTF-8", self.what)))
    }

    /// An optional i32 field.
    pub fn opt_i32(&self, id: i16, name: &str) -> Result<Option<i32>> {
        Ok(match self.field(id, name, TType::I32)? {
            Some(Value::I32(v)) => Some(*v),
            _ => None,
        })
    }

    /// A required i32 field.
    pub fn i32(&self, id: i16, name: &str) -> Result<i32> {
        let v = self.opt_i32(id, name)?;
        self.required(id, name, v)
    }

    /// An optional i64 field.
    pub fn opt_i64(&self, id: i16, name: &str) -> Result<Option<i64>> {
        Ok(match self.field(id, name, TType::I64)? {
            Some(Value::I64(v)) => Some(*v),
            _ => None,
        })
    }

    /// A required i64 field.
    pub fn i64(&self, id: i16, name: &str) -> Result<i64> {
        let v = self.opt_i64(id, name)?;
        self.required(id, name, v)
    }

    /// An optional bool field.
    pub fn opt_bool(&self, id: i16, name: &str) -> Result<Option<bool>> {
        Ok(match self.field(id, name, TType::Bool)? {
            Some(Value::Bool(v)) => Some(*v),
            _ => None,
        })
    }

    /// A required struct field.
    pub fn structure(&self, id: i16, name: &str) -> Result<&'a Struct> {
        let v = match self.field(id, name, TType::Struct)? {
            Some(Value::Struct(s)) => Some(s),
            _ => None,
        };
        self.required(id, name, v)
    }

    /// An optional list field whose elements must be `elem`; missing is `None`.
    pub fn opt_list(&self, id: i16, name: &str, elem: TType) -> Result<Option<&'a [Value]>> {
        match self.field(id, name, TType::List)? {
            Some(Value::List { elem: e, items }) if *e == elem || items.is_empty() => {
                Ok(Some(items))
            }
            Some(Value::List { elem: e, .. }) => Err(ThriftError::illegal(format!(
                "{}: field {id} ({name}) must be a list of {}, not of {}",
                self.what,
                elem.name(),
                e.name()
            ))),
            _ => Ok(None),
        }
    }

    /// A list of binaries; missing is empty.
    pub fn bytes_list(&self, id: i16, name: &str) -> Result<Vec<Bytes>> {
        Ok(self
            .opt_list(id, name, TType::String)?
            .unwrap_or_default()
            .iter()
            .filter_map(|v| match v {
                Value::Binary(b) => Some(b.clone()),
                _ => None,
            })
            .collect())
    }

    /// A map of binaries to binaries (Thrift1's `map<Text, Text>` attributes); missing is
    /// empty, entries of other types are skipped.
    pub fn bytes_map(&self, id: i16, name: &str) -> Result<Vec<(Bytes, Bytes)>> {
        Ok(match self.field(id, name, TType::Map)? {
            Some(Value::Map { entries, .. }) => entries
                .iter()
                .filter_map(|(k, v)| match (k, v) {
                    (Value::Binary(k), Value::Binary(v)) => Some((k.clone(), v.clone())),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        })
    }

    /// A list of structs; missing is empty.
    pub fn struct_list(&self, id: i16, name: &str) -> Result<Vec<&'a Struct>> {
        Ok(self
            .opt_list(id, name, TType::Struct)?
            .unwrap_or_default()
            .iter()
            .filter_map(|v| match v {
                Value::Struct(s) => Some(s),
                _ => None,
            })
            .collect())
    }
}
