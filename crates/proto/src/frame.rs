//! The framed protocol: the data service's protobuf messages over plain TCP, without HTTP/2
//! (docs/rfcs/0013-request-path.md, Decision 5).
//!
//! A client sends [`PREFACE`] once, then request frames; the server answers with response
//! frames carrying the same call id, in any order. Every frame is
//! `u32 length | u32 call id | u8 kind | body`, big-endian, where `length` counts the 5 bytes
//! after it plus the body. A request's kind is its [`Method`]; a response's kind is
//! [`RESPONSE_OK`] (the method's response message) or [`RESPONSE_ERROR`] (an
//! [`pb::ErrorDetail`]).

use bytes::{Buf, BufMut, Bytes, BytesMut};
use prost::Message;
use tonic::Status;

use crate::pb;

/// What a client sends first on a framed connection: a tag and the protocol version (1).
/// Its first byte (`S`) is what the server's accept loop tells it from HTTP/2 (`P`) by.
pub const PREFACE: [u8; 8] = *b"STRF\0\0\0\x01";

/// Bytes of a frame before its body: length, call id, kind.
pub const HEADER_BYTES: usize = 9;

/// Largest body a frame may carry (the gRPC services' message limit).
pub const MAX_BODY_BYTES: usize = crate::MAX_MESSAGE_BYTES;

/// Response kind: the body is the method's response message.
pub const RESPONSE_OK: u8 = 0;

/// Response kind: the body is an [`pb::ErrorDetail`].
pub const RESPONSE_ERROR: u8 = 1;

/// A data-service method, as a request frame's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Method {
    /// `GetRequest` → `GetResponse`.
    Get = 1,
    /// `MultiGetRequest` → `MultiGetResponse`.
    MultiGet = 2,
    /// `MutateRequest` → `MutateResponse`.
    Mutate = 3,
    /// `BatchRequest` → `BatchResponse`.
    Batch = 4,
    /// `CheckAndMutateRequest` → `CheckAndMutateResponse`.
    CheckAndMutate = 5,
    /// `ScanRequest` → `ScanResponse`.
    Scan = 6,
}

impl Method {
    /// The method of a request frame's kind, `None` for an unknown kind.
    pub fn from_kind(kind: u8) -> Option<Method> {
        Some(match kind {
            1 => Method::Get,
            2 => Method::MultiGet,
            3 => Method::Mutate,
            4 => Method::Batch,
            5 => Method::CheckAndMutate,
            6 => Method::Scan,
            _ => return None,
        })
    }
}

/// One frame taken off a connection's input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The call this frame belongs to.
    pub id: u32,
    /// A [`Method`] in a request; [`RESPONSE_OK`] or [`RESPONSE_ERROR`] in a response.
    pub kind: u8,
    /// The protobuf message (a slice of the input buffer, not a copy).
    pub body: Bytes,
}

/// Framing that cannot be recovered from: the connection must be closed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FrameError {
    /// The length field is below the 5 bytes of call id and kind.
    #[error("frame length {0} is shorter than the 5 bytes of call id and kind")]
    TooShort(u32),
    /// The length field exceeds the largest frame.
    #[error("frame length {0} exceeds the largest frame ({max} bytes)", max = MAX_BODY_BYTES + 5)]
    TooLong(u32),
    /// The connection did not start with [`PREFACE`].
    #[error("not a Strata framed connection (preface {0:02x?})")]
    BadPreface(Vec<u8>),
}

/// Appends a frame of `message` to `out`.
pub fn put_frame(out: &mut BytesMut, id: u32, kind: u8, message: &impl Message) {
    let body = message.encoded_len();
    out.reserve(HEADER_BYTES + body);
    // A body beyond u32 would be over MAX_BODY_BYTES; the peer rejects the frame.
    out.put_u32(u32::try_from(5 + body).unwrap_or(u32::MAX));
    out.put_u32(id);
    out.put_u8(kind);
    // Cannot fail: `reserve` made room for the whole body.
    let _ = message.encode(out);
}

/// A request frame of `kind` whose body `encode` writes (`len` bytes, as the body's
/// `encoded_len` says), made before its call id is known: [`set_frame_id`] fills that in.
/// Lets a caller encode from borrowed data before handing the frame to a task.
pub fn prepared_frame(kind: u8, len: usize, encode: impl FnOnce(&mut BytesMut)) -> BytesMut {
    let mut out = BytesMut::with_capacity(HEADER_BYTES + len);
    out.put_u32(u32::try_from(5 + len).unwrap_or(u32::MAX));
    out.put_u32(0);
    out.put_u8(kind);
    encode(&mut out);
    debug_assert_eq!(out.len(), HEADER_BYTES + len, "the body is `len` bytes");
    out
}

/// Sets the call id of a frame made by [`prepared_frame`] (or [`put_frame`]).
pub fn set_frame_id(frame: &mut BytesMut, id: u32) {
    if let Some(field) = frame.get_mut(4..8) {
        field.copy_from_slice(&id.to_be_bytes());
    }
}

/// Takes the first complete frame off the front of `input`; `Ok(None)` if `input` holds no
/// complete frame yet (having reserved room for the rest of a started one).
///
/// # Errors
/// The length field is out of bounds: the stream cannot be resynchronised.
pub fn take_frame(input: &mut BytesMut) -> Result<Option<Frame>, FrameError> {
    if input.len() < 4 {
        return Ok(None);
    }
    let length = u32::from_be_bytes([input[0], input[1], input[2], input[3]]);
    if length < 5 {
        return Err(FrameError::TooShort(length));
    }
    let total = length as usize + 4;
    if total > MAX_BODY_BYTES + HEADER_BYTES {
        return Err(FrameError::TooLong(length));
    }
    if input.len() < total {
        input.reserve(total - input.len());
        return Ok(None);
    }
    let mut frame = input.split_to(total).freeze();
    frame.advance(4);
    let id = frame.get_u32();
    let kind = frame.get_u8();
    Ok(Some(Frame {
        id,
        kind,
        body: frame,
    }))
}

/// Checks a connection's first 8 bytes.
///
/// # Errors
/// They are not [`PREFACE`].
pub fn check_preface(bytes: &[u8; 8]) -> Result<(), FrameError> {
    if *bytes == PREFACE {
        Ok(())
    } else {
        Err(FrameError::BadPreface(bytes.to_vec()))
    }
}

/// The error response body for `status` (its Strata error code and message).
pub fn error_detail(status: &Status) -> pb::ErrorDetail {
    pb::ErrorDetail {
        code: crate::code_of(status) as i32,
        message: status.message().to_string(),
    }
}

/// The status an error response body stands for (as [`crate::code_of`] reads it back).
pub fn status_of(detail: &pb::ErrorDetail) -> Status {
    let code = pb::ErrorCode::try_from(detail.code).unwrap_or(pb::ErrorCode::Unknown);
    crate::status(code, detail.message.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(row: &'static [u8]) -> pb::GetRequest {
        pb::GetRequest {
            table: "t".into(),
            get: Some(pb::Get {
                row: Bytes::from_static(row),
                ..Default::default()
            }),
            cell_block: true,
        }
    }

    #[test]
    fn frames_round_trip_whole_and_byte_by_byte() {
        let mut out = BytesMut::new();
        put_frame(&mut out, 7, Method::Get as u8, &get(b"row1"));
        put_frame(&mut out, 8, Method::Scan as u8, &get(b"row22"));
        let wire = out.freeze();
        // Fed one byte at a time, frames appear exactly when complete.
        let mut input = BytesMut::new();
        let mut frames = Vec::new();
        for &b in wire.iter() {
            input.put_u8(b);
            while let Some(f) = take_frame(&mut input).unwrap() {
                frames.push(f);
            }
        }
        assert!(input.is_empty());
        assert_eq!(frames.len(), 2);
        assert_eq!((frames[0].id, frames[0].kind), (7, 1));
        assert_eq!((frames[1].id, frames[1].kind), (8, 6));
        assert_eq!(
            pb::GetRequest::decode(frames[0].body.clone()).unwrap(),
            get(b"row1")
        );
        assert_eq!(
            pb::GetRequest::decode(frames[1].body.clone()).unwrap(),
            get(b"row22")
        );
    }

    #[test]
    fn bad_lengths_are_rejected() {
        let mut short = BytesMut::from(&[0, 0, 0, 4, 0, 0, 0, 1][..]);
        assert_eq!(take_frame(&mut short), Err(FrameError::TooShort(4)));
        let mut long = BytesMut::from(&[0xff, 0xff, 0xff, 0xff][..]);
        assert_eq!(take_frame(&mut long), Err(FrameError::TooLong(u32::MAX)));
        assert!(take_frame(&mut long)
            .unwrap_err()
            .to_string()
            .contains("exceeds the largest frame"));
        let mut partial = BytesMut::from(&[0, 0, 0][..]);
        assert_eq!(take_frame(&mut partial), Ok(None));
    }

    #[test]
    fn methods_and_prefaces() {
        for m in [
            Method::Get,
            Method::MultiGet,
            Method::Mutate,
            Method::Batch,
            Method::CheckAndMutate,
            Method::Scan,
        ] {
            assert_eq!(Method::from_kind(m as u8), Some(m));
        }
        assert_eq!(Method::from_kind(0), None);
        assert_eq!(Method::from_kind(7), None);
        assert!(check_preface(&PREFACE).is_ok());
        assert!(check_preface(b"PRI * HT").is_err());
    }

    #[test]
    fn errors_keep_their_code_and_message() {
        let s = crate::status(pb::ErrorCode::NotServingRegion, "moved");
        let back = status_of(&error_detail(&s));
        assert_eq!(crate::code_of(&back), pb::ErrorCode::NotServingRegion);
        assert_eq!(back.message(), "moved");
        let unknown = status_of(&pb::ErrorDetail {
            code: 999,
            message: "?".into(),
        });
        assert_eq!(crate::code_of(&unknown), pb::ErrorCode::Unknown);
    }
}
