//! Reading a manifest file.

use std::collections::BTreeMap;

use bytes::Bytes;

use super::{
    flag, kind, BULK_VERSION, FORMAT_VERSION, FRAME_HEAD, FRAME_TAIL, LINK_VERSION, MAGIC,
};
use crate::manifest::error::{Error, Result};
use crate::manifest::version::{
    check_family, check_region, FamilyFiles, Half, Link, Reference, RegionInfo, StoreFile, Version,
};

/// Parses manifest file `file` (the name is used in errors): its number and version.
///
/// # Errors
/// [`Error::Corruption`] naming the file and the damaged record's offset, or
/// [`Error::UnsupportedVersion`] for a newer format.
pub fn decode(file: &str, buf: &[u8]) -> Result<(u64, Version)> {
    if buf.get(..MAGIC.len()) != Some(&MAGIC[..]) {
        return Err(corrupt(file, 0, "bad magic (not a manifest, or truncated)"));
    }
    let mut records = Records {
        file,
        buf,
        pos: MAGIC.len(),
        count: 0,
    };

    let mut header = records.next(kind::HEADER)?;
    let version = header.u32()?;
    if version > FORMAT_VERSION {
        return Err(Error::UnsupportedVersion {
            file: file.to_owned(),
            version,
        });
    }
    if version == 0 {
        return Err(header.bad("format version 0"));
    }
    let number = header.u64()?;
    header.finish()?;

    let mut r = records.next(kind::REGION)?;
    let table = r.str()?;
    let region = RegionInfo {
        table,
        region_id: r.u64()?,
        start_row: r.bytes()?,
        end_row: r.bytes()?,
    };
    let family_count = r.u32()?;
    r.finish()?;
    check_region(&region).map_err(|e| r.bad(&e))?;

    let mut families = BTreeMap::new();
    for _ in 0..family_count {
        let mut f = records.next(kind::FAMILY)?;
        let name = f.bytes()?;
        let flushed_seq_id = f.u64()?;
        let file_count = f.u32()?;
        f.finish()?;
        check_family(&name).map_err(|e| f.bad(&e))?;
        if families.keys().next_back() >= Some(&name) {
            return Err(f.bad("families out of order or repeated"));
        }
        let mut files = BTreeMap::new();
        for _ in 0..file_count {
            let mut p = records.next(kind::FILE)?;
            let entry = store_file(&mut p, version)?;
            p.finish()?;
            entry.validate().map_err(|e| p.bad(&e))?;
            if files.keys().next_back() >= Some(&entry.name) {
                return Err(p.bad("files out of order or repeated"));
            }
            files.insert(entry.name.clone(), entry);
        }
        let family = FamilyFiles {
            flushed_seq_id,
            files,
        };
        families.insert(name, family);
    }

    let expected = records.count;
    let mut end = records.next(kind::END)?;
    if end.u32()? != expected {
        return Err(end.bad("record count does not match"));
    }
    end.finish()?;
    if records.pos != buf.len() {
        return Err(corrupt(file, records.pos, "bytes after the end record"));
    }
    Ok((number, Version { region, families }))
}

fn store_file(p: &mut Fields<'_>, version: u32) -> Result<StoreFile> {
    let name = p.str()?;
    let size = p.u64()?;
    let max_seq_id = p.u64()?;
    let min_timestamp = p.i64()?;
    let max_timestamp = p.i64()?;
    let cell_count = p.u64()?;
    let created_at_ms = p.i64()?;
    let flags = p.u8()?;
    if flags & !flag::KNOWN != 0 {
        return Err(p.bad("unknown file flags"));
    }
    let tier = p.str()?;
    let reference = if flags & flag::REFERENCE != 0 {
        Some(Reference {
            parent_region_id: p.u64()?,
            parent_file: p.str()?,
            half: match p.u8()? {
                0 => Half::Bottom,
                1 => Half::Top,
                _ => return Err(p.bad("unknown reference half")),
            },
            split_row: p.bytes()?,
        })
    } else {
        None
    };
    if flags & flag::BULK != 0 && version < BULK_VERSION {
        return Err(p.bad("a bulk-loaded file in a manifest of format version 1 or 2"));
    }
    if flags & flag::LINK != 0 && version < LINK_VERSION {
        return Err(p.bad("a link in a manifest of format version 1"));
    }
    let link = if flags & flag::LINK != 0 {
        Some(Link {
            table_dir: p.str()?,
            region_id: p.u64()?,
            file: p.str()?,
        })
    } else {
        None
    };
    Ok(StoreFile {
        name,
        size,
        max_seq_id,
        min_timestamp,
        max_timestamp,
        cell_count,
        created_at_ms,
        major: flags & flag::MAJOR != 0,
        tier,
        reference,
        link,
        bulk: flags & flag::BULK != 0,
    })
}

fn corrupt(file: &str, offset: usize, reason: &str) -> Error {
    Error::Corruption {
        file: file.to_owned(),
        offset: offset as u64,
        reason: reason.to_owned(),
    }
}

/// The file's records, in order.
struct Records<'a> {
    file: &'a str,
    buf: &'a [u8],
    pos: usize,
    count: u32,
}

impl<'a> Records<'a> {
    /// The next record, which must be of kind `want`, with its checksum verified.
    fn next(&mut self, want: u8) -> Result<Fields<'a>> {
        let start = self.pos;
        let rest = &self.buf[start..];
        let Some(head) = rest.get(..FRAME_HEAD) else {
            return Err(corrupt(self.file, start, "truncated record header"));
        };
        let len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]) as usize;
        let total = len
            .checked_add(FRAME_HEAD + FRAME_TAIL)
            .filter(|t| *t <= rest.len())
            .ok_or_else(|| corrupt(self.file, start, "record runs past the end of the file"))?;
        let (body, crc) = rest[..total].split_at(FRAME_HEAD + len);
        if crc32c::crc32c(body) != u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]) {
            return Err(corrupt(self.file, start, "record checksum mismatch"));
        }
        if head[0] != want {
            let reason = format!(
                "expected a {} record, found a {} record (kind {})",
                kind::name(want),
                kind::name(head[0]),
                head[0]
            );
            return Err(corrupt(self.file, start, &reason));
        }
        self.pos += total;
        self.count += 1;
        Ok(Fields {
            file: self.file,
            offset: start,
            kind: want,
            buf: &body[FRAME_HEAD..],
        })
    }
}

/// A checksummed record's payload, read front to back.
struct Fields<'a> {
    file: &'a str,
    offset: usize,
    kind: u8,
    buf: &'a [u8],
}

impl<'a> Fields<'a> {
    fn bad(&self, reason: &str) -> Error {
        let reason = format!("{} record: {reason}", kind::name(self.kind));
        corrupt(self.file, self.offset, &reason)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.buf.len() {
            return Err(self.bad("field runs past the end of the record"));
        }
        let (head, rest) = self.buf.split_at(n);
        self.buf = rest;
        Ok(head)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    fn u8(&mut self) -> Result<u8> {
        Ok(self.array::<1>()?[0])
    }

    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    fn i64(&mut self) -> Result<i64> {
        Ok(i64::from_le_bytes(self.array()?))
    }

    fn bytes(&mut self) -> Result<Bytes> {
        let len = self.u32()? as usize;
        Ok(Bytes::copy_from_slice(self.take(len)?))
    }

    fn str(&mut self) -> Result<String> {
        let len = self.u32()? as usize;
        let raw = self.take(len)?;
        match std::str::from_utf8(raw) {
            Ok(s) => Ok(s.to_owned()),
            Err(_) => Err(self.bad("a name is not UTF-8")),
        }
    }

    /// The payload must be fully consumed.
    fn finish(&self) -> Result<()> {
        if self.buf.is_empty() {
            Ok(())
        } else {
            Err(self.bad("unexpected bytes at the end of the record"))
        }
    }
}
