//! File info: what a store file holds, read when the file opens.
//!
//! Layout: a sequence of `tag u8 | len varint | value` fields. Readers skip tags they do not
//! know, so fields can be added without a format-version bump; the required ones are checked.

use bytes::Bytes;
use strata_model::cell::CellKey;
use strata_model::schema::{BloomType, Compression, DataBlockEncoding};

use crate::key_codec;
use crate::varint;

/// Metadata of one store file.
#[derive(Clone, Debug, PartialEq)]
pub struct FileInfo {
    /// The column family the cells belong to.
    pub family: Bytes,
    /// Largest sequence id of any cell (or the flush's sequence id, whichever the writer set).
    pub max_seq_id: u64,
    /// Smallest timestamp of any cell (`i64::MAX` when empty).
    pub min_timestamp: i64,
    /// Largest timestamp of any cell (`i64::MIN` when empty).
    pub max_timestamp: i64,
    /// Number of cells.
    pub cell_count: u64,
    /// Number of DeleteFamily and DeleteFamilyVersion markers.
    pub delete_family_count: u64,
    /// Number of delete markers of any kind.
    pub delete_count: u64,
    /// First key (None when empty).
    pub first_key: Option<CellKey>,
    /// Last key (None when empty).
    pub last_key: Option<CellKey>,
    /// First key of the middle data block: the split point.
    pub mid_key: Option<CellKey>,
    /// True when written by a major compaction (no delete markers or masked cells remain).
    pub major_compaction: bool,
    /// Data-block encoding.
    pub encoding: DataBlockEncoding,
    /// Data-block compression.
    pub compression: Compression,
    /// Bloom filter type.
    pub bloom: BloomType,
    /// Target data-block size.
    pub block_size: u32,
    /// Number of data blocks.
    pub data_block_count: u64,
    /// Sum of HBase KeyValue sizes of all cells (see `Cell::raw_size`).
    pub raw_bytes: u64,
    /// Sum of value lengths.
    pub value_bytes: u64,
    /// Creation time, ms since the epoch, as the writer's caller set it.
    pub created_at_ms: i64,
}

mod tag {
    pub const FAMILY: u8 = 1;
    pub const MAX_SEQ_ID: u8 = 2;
    pub const MIN_TS: u8 = 3;
    pub const MAX_TS: u8 = 4;
    pub const CELL_COUNT: u8 = 5;
    pub const DELETE_FAMILY_COUNT: u8 = 6;
    pub const DELETE_COUNT: u8 = 7;
    pub const FIRST_KEY: u8 = 8;
    pub const LAST_KEY: u8 = 9;
    pub const MID_KEY: u8 = 10;
    pub const MAJOR: u8 = 11;
    pub const ENCODING: u8 = 12;
    pub const COMPRESSION: u8 = 13;
    pub const BLOOM: u8 = 14;
    pub const BLOCK_SIZE: u8 = 15;
    pub const DATA_BLOCK_COUNT: u8 = 16;
    pub const RAW_BYTES: u8 = 17;
    pub const VALUE_BYTES: u8 = 18;
    pub const CREATED_AT: u8 = 19;
    /// Tags that must be present.
    pub const REQUIRED: [u8; 6] = [FAMILY, MAX_SEQ_ID, CELL_COUNT, ENCODING, COMPRESSION, BLOOM];
}

fn field(out: &mut Vec<u8>, t: u8, value: &[u8]) {
    out.push(t);
    varint::put_u64(out, value.len() as u64);
    out.extend_from_slice(value);
}

fn key_bytes(key: &CellKey) -> Vec<u8> {
    let mut v = Vec::new();
    key_codec::put_key(&mut v, key);
    v
}

impl FileInfo {
    /// Serializes the fields.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        field(&mut out, tag::FAMILY, &self.family);
        field(&mut out, tag::MAX_SEQ_ID, &self.max_seq_id.to_le_bytes());
        field(&mut out, tag::MIN_TS, &self.min_timestamp.to_le_bytes());
        field(&mut out, tag::MAX_TS, &self.max_timestamp.to_le_bytes());
        field(&mut out, tag::CELL_COUNT, &self.cell_count.to_le_bytes());
        field(
            &mut out,
            tag::DELETE_FAMILY_COUNT,
            &self.delete_family_count.to_le_bytes(),
        );
        field(
            &mut out,
            tag::DELETE_COUNT,
            &self.delete_count.to_le_bytes(),
        );
        for (t, k) in [
            (tag::FIRST_KEY, &self.first_key),
            (tag::LAST_KEY, &self.last_key),
            (tag::MID_KEY, &self.mid_key),
        ] {
            if let Some(k) = k {
                field(&mut out, t, &key_bytes(k));
            }
        }
        field(&mut out, tag::MAJOR, &[u8::from(self.major_compaction)]);
        field(&mut out, tag::ENCODING, &[self.encoding.id()]);
        field(&mut out, tag::COMPRESSION, &[self.compression.id()]);
        let mut bloom = vec![self.bloom.id()];
        bloom.extend_from_slice(&self.bloom.prefix_len().to_le_bytes());
        field(&mut out, tag::BLOOM, &bloom);
        field(&mut out, tag::BLOCK_SIZE, &self.block_size.to_le_bytes());
        field(
            &mut out,
            tag::DATA_BLOCK_COUNT,
            &self.data_block_count.to_le_bytes(),
        );
        field(&mut out, tag::RAW_BYTES, &self.raw_bytes.to_le_bytes());
        field(&mut out, tag::VALUE_BYTES, &self.value_bytes.to_le_bytes());
        field(&mut out, tag::CREATED_AT, &self.created_at_ms.to_le_bytes());
        out
    }

    /// Parses the fields.
    ///
    /// # Errors
    /// A reason when a field is malformed or a required one is missing.
    pub(crate) fn decode(buf: &[u8]) -> Result<FileInfo, String> {
        let mut info = FileInfo {
            family: Bytes::new(),
            max_seq_id: 0,
            min_timestamp: i64::MAX,
            max_timestamp: i64::MIN,
            cell_count: 0,
            delete_family_count: 0,
            delete_count: 0,
            first_key: None,
            last_key: None,
            mid_key: None,
            major_compaction: false,
            encoding: DataBlockEncoding::None,
            compression: Compression::None,
            bloom: BloomType::None,
            block_size: 0,
            data_block_count: 0,
            raw_bytes: 0,
            value_bytes: 0,
            created_at_ms: 0,
        };
        let mut seen = [false; 256];
        let mut pos = 0;
        while pos < buf.len() {
            let t = buf[pos];
            pos += 1;
            let len = varint::get_len(buf, &mut pos, buf.len())
                .ok_or_else(|| format!("bad length of file-info field {t}"))?;
            let v = buf
                .get(pos..pos + len)
                .ok_or_else(|| format!("file-info field {t} past the end"))?;
            pos += len;
            if seen[t as usize] {
                return Err(format!("file-info field {t} repeated"));
            }
            seen[t as usize] = true;
            let bad = || format!("malformed file-info field {t}");
            let u64v = || -> Result<u64, String> {
                Ok(u64::from_le_bytes(v.try_into().map_err(|_| bad())?))
            };
            let i64v = || -> Result<i64, String> {
                Ok(i64::from_le_bytes(v.try_into().map_err(|_| bad())?))
            };
            let keyv = || -> Result<Option<CellKey>, String> {
                let mut p = 0;
                let k = key_codec::get_owned_key(v, &mut p).ok_or_else(bad)?;
                if p != v.len() {
                    return Err(bad());
                }
                Ok(Some(k))
            };
            let byte = || -> Result<u8, String> {
                if v.len() == 1 {
                    Ok(v[0])
                } else {
                    Err(bad())
                }
            };
            match t {
                tag::FAMILY => info.family = Bytes::copy_from_slice(v),
                tag::MAX_SEQ_ID => info.max_seq_id = u64v()?,
                tag::MIN_TS => info.min_timestamp = i64v()?,
                tag::MAX_TS => info.max_timestamp = i64v()?,
                tag::CELL_COUNT => info.cell_count = u64v()?,
                tag::DELETE_FAMILY_COUNT => info.delete_family_count = u64v()?,
                tag::DELETE_COUNT => info.delete_count = u64v()?,
                tag::FIRST_KEY => info.first_key = keyv()?,
                tag::LAST_KEY => info.last_key = keyv()?,
                tag::MID_KEY => info.mid_key = keyv()?,
                tag::MAJOR => info.major_compaction = byte()? != 0,
                tag::ENCODING => {
                    info.encoding = DataBlockEncoding::from_id(byte()?)
                        .ok_or_else(|| "unknown data-block encoding".to_owned())?;
                }
                tag::COMPRESSION => {
                    info.compression = Compression::from_id(byte()?)
                        .ok_or_else(|| "unknown compression".to_owned())?;
                }
                tag::BLOOM => {
                    if v.len() != 3 {
                        return Err(bad());
                    }
                    info.bloom = BloomType::from_id(v[0], u16::from_le_bytes([v[1], v[2]]))
                        .ok_or_else(|| "unknown bloom type".to_owned())?;
                }
                tag::BLOCK_SIZE => {
                    info.block_size = u32::from_le_bytes(v.try_into().map_err(|_| bad())?);
                }
                tag::DATA_BLOCK_COUNT => info.data_block_count = u64v()?,
                tag::RAW_BYTES => info.raw_bytes = u64v()?,
                tag::VALUE_BYTES => info.value_bytes = u64v()?,
                tag::CREATED_AT => info.created_at_ms = i64v()?,
                _ => {} // A newer writer's field.
            }
        }
        if let Some(t) = tag::REQUIRED.iter().find(|t| !seen[**t as usize]) {
            return Err(format!("file-info field {t} missing"));
        }
        if info.cell_count > 0 && (info.first_key.is_none() || info.last_key.is_none()) {
            return Err("file info lacks the key range of a non-empty file".to_owned());
        }
        Ok(info)
    }
}
