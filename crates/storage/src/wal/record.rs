//! Byte framing of segments and records (format version 1, `docs/rfcs/0002-wal.md`).
//!
//! ```text
//! segment = header record*
//! header  = magic "STRATWAL" (8) | version u16 LE | flags u16 LE (0) | segment id u64 LE
//!         | crc32c(bytes 0..20) u32 LE                                         -- 24 bytes
//! record  = len u32 LE | crc32c(payload) u32 LE | crc32c(bytes 0..8) u32 LE | payload
//! ```
//!
//! The header checksum lets a reader tell a torn tail from a damaged record in the middle: it
//! can search past a bad record for the next valid header cheaply (see `reader`).

/// First bytes of every segment file.
pub(crate) const SEGMENT_MAGIC: [u8; 8] = *b"STRATWAL";
/// The format version this code writes and reads.
pub(crate) const FORMAT_VERSION: u16 = 1;
/// Bytes of the segment header.
pub(crate) const SEGMENT_HEADER_LEN: usize = 24;
/// Bytes of a record header.
pub(crate) const RECORD_HEADER_LEN: usize = 12;
/// Largest payload a record may carry (1 GiB); larger entries are refused at append.
pub(crate) const MAX_PAYLOAD_LEN: u32 = 1 << 30;
/// Smallest valid payload: an entry's kind, region, sequence id and cell count.
pub(crate) const MIN_PAYLOAD_LEN: u32 = 1 + 8 + 8 + 1;

/// The segment header for segment `id`.
pub(crate) fn segment_header(id: u64) -> [u8; SEGMENT_HEADER_LEN] {
    let mut h = [0u8; SEGMENT_HEADER_LEN];
    h[0..8].copy_from_slice(&SEGMENT_MAGIC);
    h[8..10].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    // h[10..12]: flags, none defined.
    h[12..20].copy_from_slice(&id.to_le_bytes());
    let crc = crc32c::crc32c(&h[0..20]);
    h[20..24].copy_from_slice(&crc.to_le_bytes());
    h
}

/// Checks a segment header; returns the segment id it names, or what is wrong with it.
pub(crate) fn parse_segment_header(h: &[u8; SEGMENT_HEADER_LEN]) -> Result<u64, String> {
    if h[0..8] != SEGMENT_MAGIC {
        return Err("bad segment magic".into());
    }
    if crc32c::crc32c(&h[0..20]) != read_u32(h, 20) {
        return Err("segment header checksum mismatch".into());
    }
    let version = u16::from_le_bytes([h[8], h[9]]);
    if version != FORMAT_VERSION {
        return Err(format!("unsupported wal format version {version}"));
    }
    Ok(u64::from_le_bytes([
        h[12], h[13], h[14], h[15], h[16], h[17], h[18], h[19],
    ]))
}

/// Appends one record framing `payload` to `out`.
///
/// Requires: `payload.len() <= MAX_PAYLOAD_LEN` (checked by the encoder).
#[cfg(test)]
pub(crate) fn put_record(out: &mut Vec<u8>, payload: &[u8]) {
    put_record_with(out, |out| {
        out.extend_from_slice(payload);
        Ok::<(), ()>(())
    })
    .expect("copying a payload cannot fail");
}

/// Appends one record whose payload `fill` appends to `out` itself (no copy of the payload);
/// if `fill` fails, `out` is left as it was.
///
/// Requires: `fill` appends at most `MAX_PAYLOAD_LEN` bytes (checked by the encoder).
pub(crate) fn put_record_with<E>(
    out: &mut Vec<u8>,
    fill: impl FnOnce(&mut Vec<u8>) -> Result<(), E>,
) -> Result<(), E> {
    let start = out.len();
    out.extend_from_slice(&[0; RECORD_HEADER_LEN]);
    if let Err(e) = fill(out) {
        out.truncate(start);
        return Err(e);
    }
    let body = start + RECORD_HEADER_LEN;
    // Fits: payloads are limited to MAX_PAYLOAD_LEN.
    let len = (out.len() - body) as u32;
    let payload_crc = crc32c::crc32c(&out[body..]);
    out[start..start + 4].copy_from_slice(&len.to_le_bytes());
    out[start + 4..start + 8].copy_from_slice(&payload_crc.to_le_bytes());
    let header_crc = crc32c::crc32c(&out[start..start + 8]);
    out[start + 8..body].copy_from_slice(&header_crc.to_le_bytes());
    Ok(())
}

/// A record header that passed its own checksum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RecordHeader {
    /// Payload length.
    pub len: u32,
    /// Expected crc32c of the payload.
    pub payload_crc: u32,
}

/// Parses a record header; `None` if its checksum fails or its length is out of range.
pub(crate) fn parse_record_header(h: &[u8]) -> Option<RecordHeader> {
    if h.len() < RECORD_HEADER_LEN || crc32c::crc32c(&h[0..8]) != read_u32(h, 8) {
        return None;
    }
    let len = read_u32(h, 0);
    if !(MIN_PAYLOAD_LEN..=MAX_PAYLOAD_LEN).contains(&len) {
        return None;
    }
    Some(RecordHeader {
        len,
        payload_crc: read_u32(h, 4),
    })
}

/// Offset in `bytes` of the first complete, valid record, if any. Used after a bad record to
/// decide between a torn tail (nothing valid follows) and damage in the middle.
pub(crate) fn find_valid_record(bytes: &[u8]) -> Option<usize> {
    let last = bytes.len().checked_sub(RECORD_HEADER_LEN)?;
    (0..=last).find(|&at| {
        parse_record_header(&bytes[at..]).is_some_and(|h| {
            let body = at + RECORD_HEADER_LEN;
            let end = body + h.len as usize;
            end <= bytes.len() && crc32c::crc32c(&bytes[body..end]) == h.payload_crc
        })
    })
}

fn read_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_header_round_trips_and_rejects_damage() {
        let h = segment_header(42);
        assert_eq!(parse_segment_header(&h), Ok(42));
        for i in 0..SEGMENT_HEADER_LEN {
            let mut bad = h;
            bad[i] ^= 0x10;
            assert!(parse_segment_header(&bad).is_err(), "byte {i}");
        }
    }

    #[test]
    fn record_header_checks_itself_and_zeros_never_pass() {
        let payload = vec![7u8; 40];
        let mut out = Vec::new();
        put_record(&mut out, &payload);
        assert_eq!(out.len(), RECORD_HEADER_LEN + 40);
        let h = parse_record_header(&out).unwrap();
        assert_eq!(h.len, 40);
        assert_eq!(h.payload_crc, crc32c::crc32c(&payload));
        for i in 0..RECORD_HEADER_LEN {
            let mut bad = out.clone();
            bad[i] ^= 1;
            assert_eq!(parse_record_header(&bad), None, "byte {i}");
        }
        assert_eq!(parse_record_header(&[0; RECORD_HEADER_LEN]), None);
    }

    #[test]
    fn a_failed_fill_leaves_the_buffer_as_it_was() {
        let mut out = vec![5u8; 3];
        let failed = put_record_with(&mut out, |out| {
            out.extend_from_slice(&[1, 2, 3]);
            Err("too big")
        });
        assert_eq!(failed, Err("too big"));
        assert_eq!(out, vec![5u8; 3]);
        put_record_with(&mut out, |out| {
            out.extend_from_slice(&[9; 20]);
            Ok::<(), ()>(())
        })
        .unwrap();
        let h = parse_record_header(&out[3..]).unwrap();
        assert_eq!((h.len, h.payload_crc), (20, crc32c::crc32c(&[9; 20])));
    }

    #[test]
    fn finds_the_next_valid_record_after_garbage() {
        let mut out = vec![0xAB; 13];
        put_record(&mut out, &[1u8; 30]);
        assert_eq!(find_valid_record(&out), Some(13));
        out.truncate(out.len() - 1);
        assert_eq!(find_valid_record(&out), None);
    }
}
