//! Clients of the compact protocol, which the gateway does not speak: recognised from their
//! first bytes (protocol id `0x82`, buffered or behind a frame length) and answered with a
//! `TApplicationException` (`PROTOCOL_ERROR`) in the compact protocol itself, so the client
//! raises a clear error instead of failing to decode a binary reply or waiting for one.
//!
//! A compact message begins `82`, `(kind << 5) | 1`, the sequence id as a varint, then the
//! method name (varint length, bytes).

/// The compact protocol's first byte.
pub const PROTOCOL_ID: u8 = 0x82;

/// Compact message kind of an exception reply.
const EXCEPTION: u8 = 3;

/// The refusal's text.
pub const REFUSAL: &str =
    "this Thrift gateway speaks the binary protocol (TBinaryProtocol); the compact \
     protocol is not supported";

/// The sequence id and method name of the compact call at the start of `message`, where
/// they can be read.
fn call_header(message: &[u8]) -> (i32, Vec<u8>) {
    let mut at = 2;
    let Some(seqid) = varint(message, &mut at) else {
        return (0, Vec::new());
    };
    // The varint holds the i32's bits.
    let seqid = seqid as u32 as i32;
    let name = varint(message, &mut at)
        .and_then(|len| message.get(at..at + usize::try_from(len).ok()?))
        .map(<[u8]>::to_vec)
        .unwrap_or_default();
    (seqid, name)
}

/// The compact-protocol exception answering the call at the start of `message` (its first
/// byte [`PROTOCOL_ID`]), behind a frame length when `framed`.
pub fn refusal(message: &[u8], framed: bool) -> Vec<u8> {
    let (seqid, name) = call_header(message);
    let mut out = vec![PROTOCOL_ID, (EXCEPTION << 5) | 1];
    put_varint(&mut out, u64::from(seqid as u32));
    put_varint(&mut out, name.len() as u64);
    out.extend_from_slice(&name);
    // TApplicationException { 1: string message, 2: i32 type }: field headers are
    // (delta << 4) | type, with compact types 8 (binary) and 5 (i32).
    out.push(0x18);
    put_varint(&mut out, REFUSAL.len() as u64);
    out.extend_from_slice(REFUSAL.as_bytes());
    out.push(0x15);
    // PROTOCOL_ERROR = 7, zigzag-encoded.
    put_varint(&mut out, 7 << 1);
    out.push(0);
    if framed {
        let len = u32::try_from(out.len()).unwrap_or(u32::MAX);
        let mut framed = len.to_be_bytes().to_vec();
        framed.extend_from_slice(&out);
        return framed;
    }
    out
}

fn varint(buf: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *buf.get(*at)?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refusal_names_the_call_and_is_a_compact_application_exception() {
        // getTableNames, seqid 300 (varint ac 02).
        let mut call = vec![0x82, 0x21, 0xac, 0x02, 13];
        call.extend_from_slice(b"getTableNames");
        call.push(0);
        let r = refusal(&call, false);
        assert_eq!(&r[..5], &[0x82, 0x61, 0xac, 0x02, 13]);
        assert_eq!(&r[5..18], b"getTableNames");
        assert_eq!(r[18], 0x18);
        let len = REFUSAL.len();
        let mut at = 19;
        assert_eq!(varint(&r, &mut at), Some(len as u64));
        assert_eq!(&r[at..at + len], REFUSAL.as_bytes());
        assert_eq!(&r[at + len..], &[0x15, 14, 0]);
        let f = refusal(&call, true);
        assert_eq!(&f[..4], &(r.len() as u32).to_be_bytes());
        assert_eq!(&f[4..], &r[..]);
        // Too short to name the call: sequence id 0, no name.
        assert_eq!(&refusal(&[0x82], false)[..4], &[0x82, 0x61, 0, 0]);
    }
}
