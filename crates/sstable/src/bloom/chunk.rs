//! One bloom chunk: a classic bloom filter over a key range.
//!
//! Layout: `hash_count u8 | bit_count u32 LE | bits (ceil(bit_count / 8) bytes)`.
//! Probe `i` of a key with 64-bit hash `h` tests bit `(h1 + i·h2) mod bit_count` with
//! `h1 = low 32 bits`, `h2 = high 32 bits | 1` (Kirsch–Mitzenmacher double hashing).

use bytes::Bytes;

/// Most probes a chunk may declare.
const MAX_HASHES: u8 = 30;

/// A parsed chunk.
#[derive(Debug)]
pub(crate) struct BloomChunk {
    data: Bytes,
    hash_count: u32,
    bit_count: u64,
}

#[inline]
fn probes(hash: u64, hash_count: u32, bit_count: u64) -> impl Iterator<Item = u64> {
    let h1 = hash & 0xffff_ffff;
    let h2 = (hash >> 32) | 1;
    (0..u64::from(hash_count)).map(move |i| h1.wrapping_add(i.wrapping_mul(h2)) % bit_count)
}

impl BloomChunk {
    /// Parses a chunk.
    ///
    /// # Errors
    /// A static reason when the layout is malformed.
    pub(crate) fn parse(data: Bytes) -> Result<BloomChunk, &'static str> {
        if data.len() < 5 {
            return Err("bloom chunk too short");
        }
        let hash_count = data[0];
        let bit_count = u64::from(u32::from_le_bytes([data[1], data[2], data[3], data[4]]));
        if hash_count == 0 || hash_count > MAX_HASHES || bit_count == 0 {
            return Err("bad bloom chunk parameters");
        }
        if (data.len() - 5) as u64 != bit_count.div_ceil(8) {
            return Err("bloom chunk length mismatch");
        }
        Ok(BloomChunk {
            data: data.slice(5..),
            hash_count: u32::from(hash_count),
            bit_count,
        })
    }

    /// False when the key with `hash` was certainly not added.
    pub(crate) fn may_contain(&self, hash: u64) -> bool {
        probes(hash, self.hash_count, self.bit_count)
            .all(|bit| self.data[(bit / 8) as usize] & (1 << (bit % 8)) != 0)
    }

    /// Bytes held in memory (for cache weighting).
    pub(crate) fn memory_size(&self) -> usize {
        self.data.len() + std::mem::size_of::<Self>()
    }
}

/// Collects key hashes of one chunk, then builds the filter sized for them.
pub(crate) struct ChunkBuilder {
    hashes: Vec<u64>,
    fp_rate: f64,
}

impl ChunkBuilder {
    pub(crate) fn new(fp_rate: f64) -> ChunkBuilder {
        ChunkBuilder {
            hashes: Vec::new(),
            fp_rate,
        }
    }

    pub(crate) fn add(&mut self, hash: u64) {
        self.hashes.push(hash);
    }

    pub(crate) fn len(&self) -> usize {
        self.hashes.len()
    }

    /// Serializes the chunk for the keys added and resets.
    pub(crate) fn finish(&mut self) -> Vec<u8> {
        let bpk = super::bits_per_key(self.fp_rate);
        let bit_count =
            ((self.hashes.len() as f64 * bpk).ceil() as u64).clamp(64, u64::from(u32::MAX));
        let hash_count =
            ((bpk * std::f64::consts::LN_2).round() as u32).clamp(1, u32::from(MAX_HASHES));
        let mut out = vec![0u8; 5 + bit_count.div_ceil(8) as usize];
        out[0] = hash_count as u8;
        out[1..5].copy_from_slice(&(bit_count as u32).to_le_bytes());
        for &h in &self.hashes {
            for bit in probes(h, hash_count, bit_count) {
                out[5 + (bit / 8) as usize] |= 1 << (bit % 8);
            }
        }
        self.hashes.clear();
        out
    }
}
