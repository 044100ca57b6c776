//! Writing a manifest file.

use super::{flag, kind, BULK_VERSION, LINK_VERSION, MAGIC};
use crate::manifest::version::{Half, StoreFile, Version};

/// The bytes of manifest number `number` holding `version`.
pub fn encode(version: &Version, number: u64) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    let mut records = 0u32;
    let mut p = Vec::new();

    let any = |test: fn(&StoreFile) -> bool| {
        version
            .families
            .values()
            .any(|f| f.files.values().any(test))
    };
    let format = if any(|file| file.bulk) {
        BULK_VERSION
    } else if any(|file| file.link.is_some()) {
        LINK_VERSION
    } else {
        1
    };
    put_u32(&mut p, format);
    put_u64(&mut p, number);
    record(&mut out, &mut records, kind::HEADER, &mut p);

    let region = &version.region;
    put_bytes(&mut p, region.table.as_bytes());
    put_u64(&mut p, region.region_id);
    put_bytes(&mut p, &region.start_row);
    put_bytes(&mut p, &region.end_row);
    put_count(&mut p, version.families.len());
    record(&mut out, &mut records, kind::REGION, &mut p);

    for (name, family) in &version.families {
        put_bytes(&mut p, name);
        put_u64(&mut p, family.flushed_seq_id);
        put_count(&mut p, family.files.len());
        record(&mut out, &mut records, kind::FAMILY, &mut p);
        for file in family.files.values() {
            put_file(&mut p, file);
            record(&mut out, &mut records, kind::FILE, &mut p);
        }
    }

    let count = records;
    put_u32(&mut p, count);
    record(&mut out, &mut records, kind::END, &mut p);
    out
}

fn put_file(p: &mut Vec<u8>, file: &StoreFile) {
    put_bytes(p, file.name.as_bytes());
    put_u64(p, file.size);
    put_u64(p, file.max_seq_id);
    p.extend_from_slice(&file.min_timestamp.to_le_bytes());
    p.extend_from_slice(&file.max_timestamp.to_le_bytes());
    put_u64(p, file.cell_count);
    p.extend_from_slice(&file.created_at_ms.to_le_bytes());
    let mut flags = 0;
    if file.major {
        flags |= flag::MAJOR;
    }
    if file.reference.is_some() {
        flags |= flag::REFERENCE;
    }
    if file.link.is_some() {
        flags |= flag::LINK;
    }
    if file.bulk {
        flags |= flag::BULK;
    }
    p.push(flags);
    put_bytes(p, file.tier.as_bytes());
    if let Some(r) = &file.reference {
        put_u64(p, r.parent_region_id);
        put_bytes(p, r.parent_file.as_bytes());
        p.push(match r.half {
            Half::Bottom => 0,
            Half::Top => 1,
        });
        put_bytes(p, &r.split_row);
    }
    if let Some(l) = &file.link {
        put_bytes(p, l.table_dir.as_bytes());
        put_u64(p, l.region_id);
        put_bytes(p, l.file.as_bytes());
    }
}

/// Appends `kind | len | payload | crc32c(kind, len, payload)` and clears `payload`.
fn record(out: &mut Vec<u8>, records: &mut u32, kind: u8, payload: &mut Vec<u8>) {
    let start = out.len();
    out.push(kind);
    put_count(out, payload.len());
    out.extend_from_slice(payload);
    let crc = crc32c::crc32c(&out[start..]);
    put_u32(out, crc);
    payload.clear();
    *records += 1;
}

fn put_u32(p: &mut Vec<u8>, v: u32) {
    p.extend_from_slice(&v.to_le_bytes());
}

fn put_u64(p: &mut Vec<u8>, v: u64) {
    p.extend_from_slice(&v.to_le_bytes());
}

/// A count or length as u32. Every length the manifest stores is bounded far below
/// `u32::MAX` by validation (names, rows, families), so saturation never happens in practice
/// and would be caught by the decoder if it did.
fn put_count(p: &mut Vec<u8>, n: usize) {
    put_u32(p, u32::try_from(n).unwrap_or(u32::MAX));
}

fn put_bytes(p: &mut Vec<u8>, b: &[u8]) {
    put_count(p, b.len());
    p.extend_from_slice(b);
}
