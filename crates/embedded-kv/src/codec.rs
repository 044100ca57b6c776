//! Byte formats of the embedded store (RFC 0019): journal records and the snapshot.
//!
//! All integers little-endian. A *frame* is `len u32 ‖ crc32c(payload) u32 ‖ payload`.
//!
//! - Journal record payload: `revision i64 ‖ count u32 ‖ count × change`, where a change is
//!   `kind u8 (1 put, 2 delete) ‖ key (u32 length ‖ UTF-8) ‖` and, for a put,
//!   `value (u32 length ‖ bytes) ‖ lease i64`. One record holds every change of one revision.
//! - Snapshot: `magic "STRKVS01" ‖ frame`, whose payload is `revision i64 ‖ count u32 ‖
//!   count × (key ‖ value ‖ create_revision i64 ‖ mod_revision i64 ‖ lease i64)`.
//!
//! Decoding never panics on any input: damaged bytes are a [`Damage`].

use strata_cluster::kv::{Event, EventKind, KeyValue, Revision};

/// Magic at the head of a snapshot file.
pub const SNAPSHOT_MAGIC: &[u8; 8] = b"STRKVS01";

/// Bytes of a frame's header (length and checksum).
pub const FRAME_HEADER: usize = 8;

/// Largest payload a frame may declare (a bound that keeps a damaged length from allocating
/// without limit): 1 GiB.
pub const MAX_PAYLOAD: usize = 1 << 30;

const PUT: u8 = 1;
const DELETE: u8 = 2;

/// Why bytes could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Damage {
    /// The bytes end inside a frame (a write that did not finish).
    Truncated,
    /// The frame's checksum or content is wrong.
    Corrupt(String),
}

/// One revision's changes, as journalled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The revision the changes were made at.
    pub revision: Revision,
    /// The changes (puts carry value and lease; deletes only the key).
    pub changes: Vec<Event>,
}

/// Wraps `payload` in a frame.
pub fn frame(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(FRAME_HEADER + payload.len());
    out.extend_from_slice(&len_u32(payload.len()).to_le_bytes());
    out.extend_from_slice(&crc32c::crc32c(payload).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// The payload of the frame at the start of `buf` and the frame's whole length.
///
/// # Errors
/// [`Damage::Truncated`] when `buf` ends inside the frame; [`Damage::Corrupt`] on a bad
/// checksum or an impossible length.
pub fn unframe(buf: &[u8]) -> Result<(&[u8], usize), Damage> {
    if buf.len() < FRAME_HEADER {
        return Err(Damage::Truncated);
    }
    let len = u32::from_le_bytes([buf[0], buf[1], buf[2], buf[3]]) as usize;
    let crc = u32::from_le_bytes([buf[4], buf[5], buf[6], buf[7]]);
    if len > MAX_PAYLOAD {
        return Err(Damage::Corrupt(format!("frame length {len}")));
    }
    let end = FRAME_HEADER + len;
    if buf.len() < end {
        return Err(Damage::Truncated);
    }
    let payload = &buf[FRAME_HEADER..end];
    if crc32c::crc32c(payload) != crc {
        return Err(Damage::Corrupt("checksum mismatch".into()));
    }
    Ok((payload, end))
}

/// Encodes one journal record (its payload; callers frame it).
pub fn encode_record(revision: Revision, changes: &[Event]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&revision.to_le_bytes());
    out.extend_from_slice(&len_u32(changes.len()).to_le_bytes());
    for e in changes {
        match e.kind {
            EventKind::Put => {
                out.push(PUT);
                put_bytes(&mut out, e.kv.key.as_bytes());
                put_bytes(&mut out, &e.kv.value);
                out.extend_from_slice(&e.kv.lease.to_le_bytes());
            }
            EventKind::Delete => {
                out.push(DELETE);
                put_bytes(&mut out, e.kv.key.as_bytes());
            }
        }
    }
    out
}

/// Decodes a journal record's payload.
///
/// # Errors
/// [`Damage::Corrupt`] on any malformed content.
pub fn decode_record(payload: &[u8]) -> Result<Record, Damage> {
    let mut r = Reader(payload);
    let revision = r.i64()?;
    let count = r.u32()?;
    let mut changes = Vec::with_capacity(count.min(4096) as usize);
    for _ in 0..count {
        let kind = r.u8()?;
        let key = r.string()?;
        let (kind, value, lease) = match kind {
            PUT => (EventKind::Put, r.bytes()?.to_vec(), r.i64()?),
            DELETE => (EventKind::Delete, Vec::new(), 0),
            other => return Err(Damage::Corrupt(format!("change kind {other}"))),
        };
        changes.push(Event {
            kind,
            kv: KeyValue {
                key,
                value,
                create_revision: 0,
                mod_revision: revision,
                lease,
            },
        });
    }
    r.end()?;
    Ok(Record { revision, changes })
}

/// Encodes a whole snapshot file: every key at `revision`.
pub fn encode_snapshot<'a>(
    revision: Revision,
    keys: impl ExactSizeIterator<Item = &'a KeyValue>,
) -> Vec<u8> {
    let mut payload = Vec::new();
    payload.extend_from_slice(&revision.to_le_bytes());
    payload.extend_from_slice(&len_u32(keys.len()).to_le_bytes());
    for kv in keys {
        put_bytes(&mut payload, kv.key.as_bytes());
        put_bytes(&mut payload, &kv.value);
        payload.extend_from_slice(&kv.create_revision.to_le_bytes());
        payload.extend_from_slice(&kv.mod_revision.to_le_bytes());
        payload.extend_from_slice(&kv.lease.to_le_bytes());
    }
    let mut out = SNAPSHOT_MAGIC.to_vec();
    out.extend_from_slice(&frame(&payload));
    out
}

/// Decodes a snapshot file: its revision and keys.
///
/// # Errors
/// [`Damage`]: a snapshot is written atomically, so any damage (even a short file) means the
/// file was changed after it was written.
pub fn decode_snapshot(file: &[u8]) -> Result<(Revision, Vec<KeyValue>), Damage> {
    let Some(body) = file.strip_prefix(SNAPSHOT_MAGIC.as_slice()) else {
        return Err(Damage::Corrupt("not a snapshot (bad magic)".into()));
    };
    let (payload, used) = unframe(body)?;
    if used != body.len() {
        return Err(Damage::Corrupt("bytes after the snapshot".into()));
    }
    let mut r = Reader(payload);
    let revision = r.i64()?;
    let count = r.u32()?;
    let mut keys = Vec::with_capacity(count.min(1 << 16) as usize);
    for _ in 0..count {
        let kv = KeyValue {
            key: r.string()?,
            value: r.bytes()?.to_vec(),
            create_revision: r.i64()?,
            mod_revision: r.i64()?,
            lease: r.i64()?,
        };
        if kv.mod_revision > revision || kv.create_revision > kv.mod_revision {
            return Err(Damage::Corrupt(format!("revisions of {}", kv.key)));
        }
        keys.push(kv);
    }
    r.end()?;
    Ok((revision, keys))
}

fn len_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&len_u32(b.len()).to_le_bytes());
    out.extend_from_slice(b);
}

/// A cursor over a payload whose every read checks bounds.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], Damage> {
        if self.0.len() < n {
            return Err(Damage::Corrupt("payload ends early".into()));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn u8(&mut self) -> Result<u8, Damage> {
        Ok(self.take(1)?[0])
    }

    fn u32(&mut self) -> Result<u32, Damage> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn i64(&mut self) -> Result<i64, Damage> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(i64::from_le_bytes(a))
    }

    fn bytes(&mut self) -> Result<&'a [u8], Damage> {
        let n = self.u32()? as usize;
        self.take(n)
    }

    fn string(&mut self) -> Result<String, Damage> {
        let b = self.bytes()?;
        String::from_utf8(b.to_vec()).map_err(|_| Damage::Corrupt("key is not UTF-8".into()))
    }

    fn end(&self) -> Result<(), Damage> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(Damage::Corrupt(format!(
                "{} bytes past the end",
                self.0.len()
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(key: &str, value: &str, rev: Revision, lease: i64) -> Event {
        Event {
            kind: EventKind::Put,
            kv: KeyValue {
                key: key.into(),
                value: value.into(),
                create_revision: 0,
                mod_revision: rev,
                lease,
            },
        }
    }

    #[test]
    fn record_round_trips() {
        let mut del = put("b", "", 7, 0);
        del.kind = EventKind::Delete;
        let changes = vec![put("a", "1", 7, 0x1001), del];
        let payload = encode_record(7, &changes);
        let framed = frame(&payload);
        let (p, used) = unframe(&framed).unwrap();
        assert_eq!(used, framed.len());
        let rec = decode_record(p).unwrap();
        assert_eq!(rec.revision, 7);
        assert_eq!(rec.changes, changes);
    }

    #[test]
    fn every_truncation_is_truncated_and_every_flip_is_caught() {
        let framed = frame(&encode_record(3, &[put("k", "value", 3, 0)]));
        for n in 0..framed.len() {
            assert_eq!(unframe(&framed[..n]), Err(Damage::Truncated), "cut at {n}");
        }
        for i in FRAME_HEADER..framed.len() {
            let mut bad = framed.clone();
            bad[i] ^= 0x40;
            assert!(
                matches!(unframe(&bad), Err(Damage::Corrupt(_))),
                "flip at {i}"
            );
        }
    }

    #[test]
    fn snapshot_round_trips_and_refuses_damage() {
        let keys = vec![
            KeyValue {
                key: "x".into(),
                value: b"1".to_vec(),
                create_revision: 2,
                mod_revision: 4,
                lease: 0,
            },
            KeyValue {
                key: "y".into(),
                value: Vec::new(),
                create_revision: 5,
                mod_revision: 5,
                lease: 9,
            },
        ];
        let file = encode_snapshot(5, keys.iter());
        assert_eq!(decode_snapshot(&file).unwrap(), (5, keys));
        assert!(decode_snapshot(&file[..file.len() - 1]).is_err());
        let mut bad = file.clone();
        bad[0] = b'X';
        assert!(decode_snapshot(&bad).is_err());
        let mut longer = file;
        longer.push(0);
        assert!(decode_snapshot(&longer).is_err());
    }

    #[test]
    fn malformed_payloads_are_errors_not_panics() {
        for payload in [
            &b""[..],
            &[1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0][..],
            &[1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 9, 0, 0, 0, 0][..],
            &[1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 255, 255, 255, 255][..],
        ] {
            assert!(decode_record(payload).is_err());
        }
    }
}
