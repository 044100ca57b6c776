//! Thrift transports over one TCP connection: buffered (messages back to back, happybase's
//! default) and framed (each message behind a 4-byte big-endian length). The first bytes of
//! a connection decide which one it speaks:
//!
//! ```text
//! 80 01 00 01 ...        strict binary message          → buffered
//! 00 00 01 2c 80 01 ...  length, then a strict message  → framed
//! 00 00 01 2c 00 ...     length, then an old-style one  → framed
//! 00 00 00 06 67 65 ...  old-style name length + name   → buffered
//! 00 01 00 00 ...        a length too long for a name   → framed
//! 82 ...                 compact protocol               → refused
//! 00 00 00 1a 82 ...     length, then a compact message → refused
//! ```
//!
//! A compact client is answered with an exception in its own protocol (see `compact`), then
//! the connection is closed.
//!
//! Invariants: no message, frame or string longer than `max_frame` bytes is ever buffered;
//! a buffered stream whose message cannot be decoded is closed (its position is lost), a
//! framed one skips the bad frame and carries on.

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::compact;
use crate::protocol::{read_header, DecodeError, Decoder, Header, Struct, Walk};

/// How messages are delimited on a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// Back to back.
    Buffered,
    /// Each behind its length.
    Framed,
}

/// What the client sent next.
#[derive(Debug)]
pub enum Incoming {
    /// A decoded message.
    Message {
        /// Its header.
        header: Header,
        /// Its argument struct.
        args: Struct,
    },
    /// A call in a protocol the gateway does not speak: `reply` answers it in that protocol,
    /// then the connection closes.
    Unsupported {
        /// What the client speaks.
        reason: String,
        /// The reply, framed as the call was.
        reply: Vec<u8>,
    },
    /// Bytes that are no valid message.
    Malformed {
        /// The header, if it could be read (a reply can then name the sequence id).
        header: Option<Header>,
        /// What is wrong.
        reason: String,
        /// The connection cannot go on (stream position lost, or a frame too large).
        fatal: bool,
    },
}

const READ_CHUNK: usize = 64 * 1024;

/// Longest method name of an old-style (non-strict) header taken for one.
const MAX_OLD_STYLE_NAME: u32 = 256;

/// One connection's transport.
#[derive(Debug)]
pub struct Transport<S> {
    stream: S,
    buf: Vec<u8>,
    framing: Option<Framing>,
    max_frame: usize,
    /// The walk through the buffered message being received, once its header is in.
    walk: Option<Walk>,
}

impl<S: AsyncRead + AsyncWrite + Unpin> Transport<S> {
    /// A transport over `stream`, detecting its framing from the first bytes.
    pub fn new(stream: S, max_frame: usize) -> Transport<S> {
        Transport {
            stream,
            buf: Vec::new(),
            framing: None,
            max_frame,
            walk: None,
        }
    }

    /// The framing, once detected.
    pub fn framing(&self) -> Option<Framing> {
        self.framing
    }

    /// The next message; `Ok(None)` when the client closed the connection between messages.
    ///
    /// # Errors
    /// The socket failed, or the client closed it in the middle of a message.
    pub async fn next(&mut self) -> std::io::Result<Option<Incoming>> {
        loop {
            if !self.buf.is_empty() {
                if let Some(incoming) = self.try_decode() {
                    return Ok(Some(incoming));
                }
            }
            self.buf.reserve(READ_CHUNK);
            let n = (&mut self.stream)
                .take(READ_CHUNK as u64)
                .read_buf(&mut self.buf)
                .await?;
            if n == 0 {
                return if self.buf.is_empty() {
                    Ok(None)
                } else {
                    Err(std::io::ErrorKind::UnexpectedEof.into())
                };
            }
        }
    }

    /// Whether bytes of a next message are buffered already.
    pub fn buffered(&self) -> bool {
        !self.buf.is_empty()
    }

    /// Sends bytes as they are (a reply framed already, or in another protocol).
    ///
    /// # Errors
    /// The socket failed.
    pub async fn send_raw(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.stream.write_all(bytes).await?;
        self.stream.flush().await
    }

    /// Sends one encoded message, framed if the connection is.
    ///
    /// # Errors
    /// The socket failed.
    pub async fn send(&mut self, message: &[u8]) -> std::io::Result<()> {
        if self.framing == Some(Framing::Framed) {
            let len = u32::try_from(message.len()).unwrap_or(u32::MAX);
            self.stream.write_all(&len.to_be_bytes()).await?;
        }
        self.stream.write_all(message).await?;
        self.stream.flush().await
    }

    /// Decodes from the buffer: `None` if more bytes are needed.
    fn try_decode(&mut self) -> Option<Incoming> {
        let framing = match self.framing {
            Some(f) => f,
            None => {
                let framing = detect(&self.buf)?;
                match framing {
                    Ok(f) => {
                        self.framing = Some(f);
                        f
                    }
                    Err(Detected::Compact { framed }) => {
                        let call = if framed {
                            &self.buf[4..]
                        } else {
                            &self.buf[..]
                        };
                        return Some(Incoming::Unsupported {
                            reason: format!(
                                "the compact protocol ({} transport)",
                                if framed { "framed" } else { "buffered" }
                            ),
                            reply: compact::refusal(call, framed),
                        });
                    }
                }
            }
        };
        match framing {
            Framing::Buffered => self.decode_buffered(),
            Framing::Framed => self.decode_framed(),
        }
    }

    /// A buffered message is walked as its bytes arrive (a [`Walk`] resumes where the last
    /// read ended), then copied out whole and decoded once over the copy, whose binaries are
    /// slices of it.
    fn decode_buffered(&mut self) -> Option<Incoming> {
        let mut d = Decoder::new(&self.buf, self.max_frame);
        let header = match read_header(&mut d) {
            Ok(h) => h,
            Err(DecodeError::Incomplete) => return self.incomplete(None),
            Err(DecodeError::Invalid(reason)) => return Some(fatal(None, reason)),
        };
        let body = d.position();
        let walk = self.walk.get_or_insert_with(|| Walk::new(body));
        match walk.resume(&self.buf, self.max_frame) {
            Ok(end) => {
                self.walk = None;
                let message = Bytes::copy_from_slice(&self.buf[body..end]);
                self.buf.drain(..end);
                match Decoder::shared(&message, self.max_frame).read_struct() {
                    Ok(args) => Some(Incoming::Message { header, args }),
                    // The walk made the same checks over the same bytes: not reached.
                    Err(DecodeError::Invalid(reason)) => Some(fatal(Some(header), reason)),
                    Err(DecodeError::Incomplete) => {
                        Some(fatal(Some(header), "message ended early".to_string()))
                    }
                }
            }
            Err(DecodeError::Incomplete) => self.incomplete(Some(header)),
            Err(DecodeError::Invalid(reason)) => Some(fatal(Some(header), reason)),
        }
    }

    /// Waits for more bytes unless the message already exceeds the limit.
    fn incomplete(&self, header: Option<Header>) -> Option<Incoming> {
        if self.buf.len() > self.max_frame {
            let reason = format!("message larger than {} bytes", self.max_frame);
            return Some(fatal(header, reason));
        }
        None
    }

    fn decode_framed(&mut self) -> Option<Incoming> {
        let len: [u8; 4] = self.buf.get(..4)?.try_into().ok()?;
        let len = u32::from_be_bytes(len) as usize;
        if len > self.max_frame {
            let reason = format!("frame of {len} bytes exceeds {}", self.max_frame);
            return Some(fatal(None, reason));
        }
        let frame = Bytes::copy_from_slice(self.buf.get(4..4 + len)?);
        let mut d = Decoder::shared(&frame, self.max_frame);
        let incoming = match read_header(&mut d) {
            Ok(header) => match d.read_struct() {
                Ok(args) if d.position() == len => Incoming::Message { header, args },
                Ok(_) => malformed(Some(header), "bytes after the message in its frame"),
                Err(e) => malformed(Some(header), &e.to_string()),
            },
            Err(e) => malformed(None, &e.to_string()),
        };
        self.buf.drain(..4 + len);
        Some(incoming)
    }
}

/// A connection the gateway cannot serve, from its first bytes.
enum Detected {
    /// A compact-protocol client, framed or not.
    Compact { framed: bool },
}

/// The framing of a connection from its first bytes; `None` until enough have arrived.
fn detect(buf: &[u8]) -> Option<Result<Framing, Detected>> {
    match *buf.first()? {
        0x80 => Some(Ok(Framing::Buffered)),
        compact::PROTOCOL_ID => Some(Err(Detected::Compact { framed: false })),
        _ => {
            if buf.get(4) == Some(&compact::PROTOCOL_ID) {
                return Some(Err(Detected::Compact { framed: true }));
            }
            let len = u32::from_be_bytes(buf.get(..4)?.try_into().ok()?);
            // An old-style header starts with the method name's length, which is short.
            if len > MAX_OLD_STYLE_NAME {
                return Some(Ok(Framing::Framed));
            }
            match *buf.get(4)? {
                0x80 | 0x00 => Some(Ok(Framing::Framed)),
                _ => Some(Ok(Framing::Buffered)),
            }
        }
    }
}

fn fatal(header: Option<Header>, reason: String) -> Incoming {
    Incoming::Malformed {
        header,
        reason,
        fatal: true,
    }
}

fn malformed(header: Option<Header>, reason: &str) -> Incoming {
    Incoming::Malformed {
        header,
        reason: reason.to_string(),
        fatal: false,
    }
}

impl Transport<strata_tls::Stream> {
    /// With nothing buffered, polls the socket for the next message's bytes for `spin`'s
    /// budget, if it says so, before [`next`](Transport::next) parks (plain TCP only: under
    /// TLS the socket's bytes are not yet the protocol's).
    ///
    /// # Errors
    /// The socket failed.
    pub async fn poll_soon(
        &mut self,
        spin: &mut strata_proto::read_soon::SpinPolicy,
    ) -> std::io::Result<()> {
        if let (true, Some(tcp)) = (self.buf.is_empty(), self.stream.plain()) {
            spin.read(tcp, &mut self.buf).await?;
        }
        Ok(())
    }
}
