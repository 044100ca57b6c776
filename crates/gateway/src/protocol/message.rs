//! Thrift messages: the header (method name, kind, sequence id) around a struct, and
//! `TApplicationException`, the protocol-level error every Thrift client understands.

use super::decode::{DecodeError, Decoder};
use super::encode::Encoder;
use super::value::{Struct, Value};

/// The strict binary protocol's version word (high half of the first i32).
const VERSION_1: u32 = 0x8001_0000;
const VERSION_MASK: u32 = 0xffff_0000;
/// Longest method name accepted in an old-style header (the longest real one is 31 bytes).
const MAX_NAME: usize = 256;

/// What a message is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessageKind {
    /// A request expecting a reply.
    Call = 1,
    /// A reply (result struct).
    Reply = 2,
    /// A `TApplicationException` instead of a reply.
    Exception = 3,
    /// A request expecting no reply.
    Oneway = 4,
}

impl MessageKind {
    fn from_code(code: u8) -> Option<MessageKind> {
        Some(match code {
            1 => MessageKind::Call,
            2 => MessageKind::Reply,
            3 => MessageKind::Exception,
            4 => MessageKind::Oneway,
            _ => return None,
        })
    }
}

/// A message's header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The method.
    pub name: String,
    /// Call, reply...
    pub kind: MessageKind,
    /// Echoed in the reply.
    pub seqid: i32,
}

/// Reads a header, strict (version word first) or old-style (name first).
///
/// # Errors
/// [`DecodeError::Incomplete`] if `d` ends inside it, `Invalid` for a bad version, kind or a
/// name that is not UTF-8.
pub fn read_header(d: &mut Decoder<'_>) -> Result<Header, DecodeError> {
    let first = d.read_i32()?;
    let (name, kind) = if first < 0 {
        let word = first as u32;
        if word & VERSION_MASK != VERSION_1 {
            return Err(DecodeError::Invalid(format!(
                "bad version word {word:#010x}"
            )));
        }
        let name = d.read_binary()?;
        (name, (word & 0xff) as u8)
    } else {
        // Old-style: `first` was the name's length.
        let len = usize::try_from(first).unwrap_or(0);
        if len > MAX_NAME {
            return Err(DecodeError::Invalid(format!("method name of {len} bytes")));
        }
        let mut name = Vec::with_capacity(len.min(256));
        for _ in 0..len {
            name.push(d.read_u8()?);
        }
        let kind = d.read_u8()?;
        (name.into(), kind)
    };
    let kind = MessageKind::from_code(kind)
        .ok_or_else(|| DecodeError::Invalid(format!("unknown message kind {kind}")))?;
    let seqid = d.read_i32()?;
    let name = String::from_utf8(name.to_vec())
        .map_err(|_| DecodeError::Invalid("method name is not UTF-8".to_string()))?;
    Ok(Header { name, kind, seqid })
}

/// A whole message: strict header, then the body struct.
pub fn encode_message(name: &str, kind: MessageKind, seqid: i32, body: &Struct) -> Vec<u8> {
    let mut e = Encoder::new();
    e.write_i32((VERSION_1 | kind as u32) as i32);
    e.write_binary(name.as_bytes());
    e.write_i32(seqid);
    e.write_struct(body);
    e.into_bytes()
}

/// `TApplicationException`'s type codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppErrorKind {
    /// No such method.
    UnknownMethod = 1,
    /// A message kind the server does not take (e.g. a reply).
    InvalidMessageType = 2,
    /// The server failed internally.
    InternalError = 6,
    /// The message broke the protocol.
    ProtocolError = 7,
}

/// The body of a `TApplicationException`: `{1: string message, 2: i32 type}`.
pub fn application_exception(kind: AppErrorKind, message: &str) -> Struct {
    Struct::new()
        .with(1, Value::binary(message.as_bytes().to_vec()))
        .with(2, Value::I32(kind as i32))
}
