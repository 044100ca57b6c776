//! The bloom index block: parameters and one entry per chunk.
//!
//! Layout:
//! ```text
//! bloom_type u8 | prefix_len u16 LE | fp_rate f64 LE | key_count u64 LE | chunk_count u32 LE
//! | chunk_count × (row_len varint | row | qual_len varint | qualifier | offset varint | size varint)
//! ```
//! Entry `i` holds the first key of chunk `i`; chunk `i` covers keys up to chunk `i+1`'s first key.

use strata_model::schema::BloomType;

use super::BloomKey;
use crate::block::BlockHandle;
use crate::varint;

/// First key and location of one chunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ChunkEntry {
    pub row: Vec<u8>,
    pub qualifier: Vec<u8>,
    pub handle: BlockHandle,
}

/// The parsed bloom index.
#[derive(Clone, Debug)]
pub(crate) struct BloomIndex {
    pub bloom_type: BloomType,
    pub fp_rate: f64,
    pub key_count: u64,
    pub chunks: Vec<ChunkEntry>,
}

impl BloomIndex {
    /// Parses the bloom index block.
    ///
    /// # Errors
    /// A static reason when the layout is malformed.
    pub(crate) fn parse(buf: &[u8]) -> Result<BloomIndex, &'static str> {
        if buf.len() < 23 {
            return Err("bloom index too short");
        }
        let prefix_len = u16::from_le_bytes([buf[1], buf[2]]);
        let bloom_type = BloomType::from_id(buf[0], prefix_len).ok_or("unknown bloom type")?;
        let mut f = [0u8; 8];
        f.copy_from_slice(&buf[3..11]);
        let fp_rate = f64::from_le_bytes(f);
        let mut k = [0u8; 8];
        k.copy_from_slice(&buf[11..19]);
        let key_count = u64::from_le_bytes(k);
        let chunk_count = u32::from_le_bytes([buf[19], buf[20], buf[21], buf[22]]) as usize;
        if chunk_count > buf.len() {
            return Err("bloom chunk count too large");
        }
        let mut pos = 23;
        let mut chunks = Vec::with_capacity(chunk_count);
        for _ in 0..chunk_count {
            let mut bytes = || -> Option<Vec<u8>> {
                let n = varint::get_len(buf, &mut pos, buf.len())?;
                let s = buf.get(pos..pos.checked_add(n)?)?.to_vec();
                pos += n;
                Some(s)
            };
            let row = bytes().ok_or("bad bloom chunk key")?;
            let qualifier = bytes().ok_or("bad bloom chunk key")?;
            let handle = BlockHandle::decode(buf, &mut pos).ok_or("bad bloom chunk handle")?;
            chunks.push(ChunkEntry {
                row,
                qualifier,
                handle,
            });
        }
        if pos != buf.len() {
            return Err("bloom index has trailing bytes");
        }
        if bloom_type == BloomType::None || !(fp_rate > 0.0 && fp_rate < 1.0) {
            return Err("bad bloom parameters");
        }
        Ok(BloomIndex {
            bloom_type,
            fp_rate,
            key_count,
            chunks,
        })
    }

    /// The chunk whose range covers `key`, or `None` when `key` sorts before every chunk
    /// (then it was certainly not added).
    pub(crate) fn chunk_for(&self, key: &BloomKey<'_>) -> Option<&ChunkEntry> {
        let n = self.chunks.partition_point(|c| {
            BloomKey {
                row: &c.row,
                qualifier: &c.qualifier,
            } <= *key
        });
        n.checked_sub(1).map(|i| &self.chunks[i])
    }

    /// Total bytes of bit arrays on disk.
    pub(crate) fn total_chunk_bytes(&self) -> u64 {
        self.chunks.iter().map(|c| u64::from(c.handle.size)).sum()
    }
}

/// Builds the bloom index block.
pub(crate) struct BloomIndexBuilder {
    bloom_type: BloomType,
    fp_rate: f64,
    key_count: u64,
    chunks: Vec<ChunkEntry>,
}

impl BloomIndexBuilder {
    pub(crate) fn new(bloom_type: BloomType, fp_rate: f64) -> Self {
        BloomIndexBuilder {
            bloom_type,
            fp_rate,
            key_count: 0,
            chunks: Vec::new(),
        }
    }

    pub(crate) fn add_chunk(&mut self, first: ChunkEntry, keys: usize) {
        self.chunks.push(first);
        self.key_count += keys as u64;
    }

    pub(crate) fn finish(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.push(self.bloom_type.id());
        out.extend_from_slice(&self.bloom_type.prefix_len().to_le_bytes());
        out.extend_from_slice(&self.fp_rate.to_le_bytes());
        out.extend_from_slice(&self.key_count.to_le_bytes());
        out.extend_from_slice(&(self.chunks.len() as u32).to_le_bytes());
        for c in &self.chunks {
            varint::put_u64(&mut out, c.row.len() as u64);
            out.extend_from_slice(&c.row);
            varint::put_u64(&mut out, c.qualifier.len() as u64);
            out.extend_from_slice(&c.qualifier);
            c.handle.encode(&mut out);
        }
        out
    }
}
