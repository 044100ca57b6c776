//! Connection preamble and call framing (HBase's `RPC.proto` header comment):
//!
//! ```text
//! client: "HBas" | u8 version (0) | u8 auth (80 = SIMPLE, 81 = KERBEROS)
//!         [SASL exchange: crate::sasl]                    (KERBEROS only)
//!         u32 len | ConnectionHeader                      (not varint-delimited)
//! call:   u32 len | varint-delimited RequestHeader | [delimited param] | [cell block]
//! reply:  u32 len | varint-delimited ResponseHeader | [delimited message] | [cell block]
//! ```
//!
//! Every length is checked against the frame and a configurable limit before anything is
//! allocated; any violation is a [`FrameError`], after which the connection is closed.

use bytes::{Buf, BufMut, Bytes, BytesMut};
use prost::Message;
use tokio::io::{AsyncRead, AsyncReadExt};

use crate::pb;

/// The first four bytes of every connection.
pub const MAGIC: &[u8; 4] = b"HBas";
/// The only RPC version HBase 2.x speaks.
pub const RPC_VERSION: u8 = 0;
/// `AuthMethod.SIMPLE`: no SASL, the user named in the connection header.
pub const AUTH_SIMPLE: u8 = 80;
/// `AuthMethod.KERBEROS`: SASL GSSAPI ([`crate::sasl`]) before the connection header.
pub const AUTH_KERBEROS: u8 = 81;
/// The preamble of a 2.6 client asking only for the cluster id (`RpcClient`'s
/// registry preamble); the answer is a `GetConnectionRegistryResponse`, then the connection
/// closes.
pub const REGISTRY_PREAMBLE: &[u8; 6] = b"Regist";
/// The preamble of a client asking for the server's Kerberos principal (a 2.6 client that
/// has several candidates, e.g. different master and region server principals); the answer is
/// a `SecurityPreamableResponse`, or `SecurityNotEnabledException` without Kerberos, and the
/// real preamble follows.
pub const SECURITY_PREAMBLE: &[u8; 6] = b"Securi";

/// A protocol violation on a connection.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// The connection did not start with `HBas` (the message starts as HBase's, which
    /// clients recognise).
    #[error("Expected HEADER=HBas but received HEADER={}", String::from_utf8_lossy(.0))]
    BadPreamble([u8; 4]),
    /// An RPC version other than 0.
    #[error("unsupported HBase RPC version {0} (only 0 is spoken)")]
    UnsupportedVersion(u8),
    /// An authentication method other than SIMPLE and KERBEROS.
    #[error("unsupported authentication method {0} (SIMPLE (80) and KERBEROS (81) are supported)")]
    UnsupportedAuth(u8),
    /// The client did not authenticate (no credentials where they are required, a Kerberos
    /// exchange that failed).
    #[error("authentication refused: {0}")]
    Refused(String),
    /// A frame longer than the configured limit.
    #[error("frame of {len} bytes exceeds the limit of {max} bytes")]
    TooLarge {
        /// Announced length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// The stream ended inside a frame.
    #[error("connection closed inside a frame")]
    Truncated,
    /// A frame whose parts do not add up, or an undecodable header.
    #[error("malformed frame: {0}")]
    Malformed(String),
    /// Reading the socket failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Checks the 6-byte preamble.
///
/// # Errors
/// Wrong magic, version or authentication method.
pub fn check_preamble(preamble: &[u8; 6]) -> Result<(), FrameError> {
    let magic: [u8; 4] = [preamble[0], preamble[1], preamble[2], preamble[3]];
    if &magic != MAGIC {
        return Err(FrameError::BadPreamble(magic));
    }
    if preamble[4] != RPC_VERSION {
        return Err(FrameError::UnsupportedVersion(preamble[4]));
    }
    if preamble[5] != AUTH_SIMPLE && preamble[5] != AUTH_KERBEROS {
        return Err(FrameError::UnsupportedAuth(preamble[5]));
    }
    Ok(())
}

/// Reads one length-prefixed frame; `Ok(None)` at a clean end of stream (between frames).
///
/// # Errors
/// A frame over `max` bytes (nothing of it is read), end of stream inside a frame, I/O.
pub async fn read_frame<R: AsyncRead + Unpin>(
    reader: &mut R,
    max: usize,
) -> Result<Option<Bytes>, FrameError> {
    let mut len = [0u8; 4];
    match reader.read_exact(&mut len[..1]).await {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e.into()),
    }
    read_exact(reader, &mut len[1..]).await?;
    let len = u32::from_be_bytes(len) as usize;
    if len > max {
        return Err(FrameError::TooLarge { len, max });
    }
    let mut buf = vec![0u8; len];
    read_exact(reader, &mut buf).await?;
    Ok(Some(Bytes::from(buf)))
}

/// Takes one whole length-prefixed frame off the front of `input`; `Ok(None)` if `input`
/// does not hold one yet (see [`frame_needs`]).
///
/// # Errors
/// A frame announced over `max` bytes (nothing is taken).
pub fn take_frame(input: &mut BytesMut, max: usize) -> Result<Option<Bytes>, FrameError> {
    let Some(len) = announced(input, max)? else {
        return Ok(None);
    };
    if input.len() < 4 + len {
        return Ok(None);
    }
    input.advance(4);
    Ok(Some(input.split_to(len).freeze()))
}

/// Bytes still missing from the frame at the front of `input` (0 if it is whole or its length
/// is not read yet, or the length is over `max`, which [`take_frame`] reports).
pub fn frame_needs(input: &[u8], max: usize) -> usize {
    match announced(input, max) {
        Ok(Some(len)) => (4 + len).saturating_sub(input.len()),
        _ => 0,
    }
}

/// The length of the frame at the front of `input`, once its 4 bytes are there.
fn announced(input: &[u8], max: usize) -> Result<Option<usize>, FrameError> {
    let Some(prefix) = input.get(..4) else {
        return Ok(None);
    };
    let len = u32::from_be_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]) as usize;
    if len > max {
        return Err(FrameError::TooLarge { len, max });
    }
    Ok(Some(len))
}

async fn read_exact<R: AsyncRead + Unpin>(
    reader: &mut R,
    buf: &mut [u8],
) -> Result<(), FrameError> {
    reader.read_exact(buf).await.map_err(|e| {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            FrameError::Truncated
        } else {
            FrameError::Io(e)
        }
    })?;
    Ok(())
}

/// Decodes a connection header frame (the protobuf alone, not delimited).
///
/// # Errors
/// Not a valid `ConnectionHeader`.
pub fn decode_connection_header(frame: &[u8]) -> Result<pb::ConnectionHeader, FrameError> {
    pb::ConnectionHeader::decode(frame)
        .map_err(|e| FrameError::Malformed(format!("connection header: {e}")))
}

/// One decoded call.
#[derive(Debug, Clone)]
pub struct Call {
    /// Call id, method, cell-block length.
    pub header: pb::RequestHeader,
    /// The request message's bytes (empty if the header says none follows).
    pub param: Bytes,
    /// The cell block (empty if none).
    pub cell_block: Bytes,
    /// The client's address, for logging its mistakes (set by the connection).
    pub peer: Option<std::net::SocketAddr>,
}

/// Splits a call frame into header, parameter and cell block.
///
/// # Errors
/// A header or parameter length past the frame, a cell block whose announced length
/// disagrees with what is left.
pub fn decode_call(mut frame: Bytes) -> Result<Call, FrameError> {
    let header = take_delimited(&mut frame, "request header")?;
    let header = pb::RequestHeader::decode(header)
        .map_err(|e| FrameError::Malformed(format!("request header: {e}")))?;
    let param = if header.request_param() {
        take_delimited(&mut frame, "request parameter")?
    } else {
        Bytes::new()
    };
    let block_len = header
        .cell_block_meta
        .as_ref()
        .map_or(0, |m| m.length() as usize);
    if block_len != frame.len() {
        return Err(FrameError::Malformed(format!(
            "cell block of {block_len} bytes announced, {} bytes follow",
            frame.len()
        )));
    }
    Ok(Call {
        header,
        param,
        cell_block: frame,
        peer: None,
    })
}

fn take_delimited(frame: &mut Bytes, what: &str) -> Result<Bytes, FrameError> {
    let len = prost::decode_length_delimiter(&mut *frame)
        .map_err(|e| FrameError::Malformed(format!("{what} length: {e}")))?;
    if len > frame.len() {
        return Err(FrameError::Malformed(format!(
            "{what} of {len} bytes, only {} in the frame",
            frame.len()
        )));
    }
    Ok(frame.split_to(len))
}

/// A successful reply: the encoded response message and an optional cell block.
pub fn encode_reply(call_id: u32, message: &[u8], cell_block: Option<&[u8]>) -> Bytes {
    let mut out = BytesMut::new();
    put_reply(&mut out, call_id, message, cell_block);
    out.freeze()
}

/// Appends a successful reply frame to `out` (as [`encode_reply`] makes it).
pub fn put_reply(out: &mut BytesMut, call_id: u32, message: &[u8], cell_block: Option<&[u8]>) {
    let header = pb::ResponseHeader {
        call_id: Some(call_id),
        exception: None,
        cell_block_meta: cell_block.map(|b| pb::CellBlockMeta {
            length: Some(b.len() as u32),
        }),
    };
    put_frame(out, &header, Some(message), cell_block.unwrap_or_default());
}

/// An exception reply.
pub fn encode_exception(call_id: u32, exception: pb::ExceptionResponse) -> Bytes {
    let mut out = BytesMut::new();
    put_exception(&mut out, call_id, exception);
    out.freeze()
}

/// Appends an exception reply frame to `out` (as [`encode_exception`] makes it).
pub fn put_exception(out: &mut BytesMut, call_id: u32, exception: pb::ExceptionResponse) {
    let header = pb::ResponseHeader {
        call_id: Some(call_id),
        exception: Some(exception),
        cell_block_meta: None,
    };
    put_frame(out, &header, None, &[]);
}

fn put_frame(
    out: &mut BytesMut,
    header: &pb::ResponseHeader,
    message: Option<&[u8]>,
    block: &[u8],
) {
    let header_len = header.encoded_len();
    let total = prost::length_delimiter_len(header_len)
        + header_len
        + message.map_or(0, |m| prost::length_delimiter_len(m.len()) + m.len())
        + block.len();
    out.reserve(4 + total);
    out.put_u32(total as u32);
    // Encoding into a buffer with enough room cannot fail.
    let _ = header.encode_length_delimited(out);
    if let Some(m) = message {
        let _ = prost::encode_length_delimiter(m.len(), out);
        out.put_slice(m);
    }
    out.put_slice(block);
}

/// Encodes a request frame, as the HBase client does (for tests and tools).
pub fn encode_request(
    call_id: u32,
    method: &str,
    param: &impl Message,
    cell_block: &[u8],
) -> Bytes {
    let header = pb::RequestHeader {
        call_id: Some(call_id),
        method_name: Some(method.to_string()),
        request_param: Some(true),
        cell_block_meta: (!cell_block.is_empty()).then_some(pb::CellBlockMeta {
            length: Some(cell_block.len() as u32),
        }),
        priority: None,
        timeout: None,
    };
    let mut body = BytesMut::new();
    let _ = header.encode_length_delimited(&mut body);
    let _ = param.encode_length_delimited(&mut body);
    body.put_slice(cell_block);
    let mut out = BytesMut::with_capacity(4 + body.len());
    out.put_u32(body.len() as u32);
    out.put_slice(&body);
    out.freeze()
}

/// Splits a reply frame (without its length) into header, message bytes and cell block
/// (for tests and tools).
///
/// # Errors
/// As [`decode_call`].
pub fn decode_reply(mut frame: Bytes) -> Result<(pb::ResponseHeader, Bytes, Bytes), FrameError> {
    let header = take_delimited(&mut frame, "response header")?;
    let header = pb::ResponseHeader::decode(header)
        .map_err(|e| FrameError::Malformed(format!("response header: {e}")))?;
    let message = if header.exception.is_none() {
        take_delimited(&mut frame, "response message")?
    } else {
        Bytes::new()
    };
    let _ = frame.remaining();
    Ok((header, message, frame))
}

#[cfg(test)]
mod tests;
