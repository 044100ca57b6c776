//! Thrift's binary protocol, hand-written: values ([`Value`], [`Struct`]), the decoder and
//! encoder, and message headers with `TApplicationException`.
//!
//! Wire format (all integers big-endian): a struct is a sequence of fields, each a type byte,
//! an i16 field id and the value, ended by a 0 byte; strings are an i32 length and bytes;
//! lists are an element-type byte and an i32 count; maps a key-type byte, a value-type byte
//! and an i32 count. A message is `0x8001_00kk` (kk = kind), the method name, an i32
//! sequence id, then the argument (or result) struct.

mod decode;
mod encode;
mod message;
mod value;
mod walk;

pub use decode::{DecodeError, Decoder, MAX_DEPTH};
pub use encode::Encoder;
pub use message::{
    application_exception, encode_message, read_header, AppErrorKind, Header, MessageKind,
};
pub use value::{Struct, TType, Value};
pub use walk::Walk;
