//! Full verification: every block's checksum, every cell's decoding and order, and the file
//! info's counts against what the blocks hold.

use std::collections::BTreeMap;

use strata_model::cell::compare_keys;

use super::Reader;
use crate::block::BlockType;
use crate::error::{Error, Result};

/// Count and bytes of one block type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockSummary {
    /// Blocks of this type.
    pub count: u64,
    /// Bytes on disk, block trailers included.
    pub disk_bytes: u64,
}

/// What [`Reader::verify`] found (it returns an error on the first problem).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerifyReport {
    /// Blocks by type name.
    pub blocks: BTreeMap<&'static str, BlockSummary>,
    /// Cells decoded.
    pub cells: u64,
    /// Bytes of decoded (NONE-layout) data blocks.
    pub decoded_bytes: u64,
}

impl Reader {
    /// Reads every block of the file, bypassing the cache, and checks it.
    ///
    /// # Errors
    /// The first corruption or I/O error found.
    pub fn verify(&self) -> Result<VerifyReport> {
        let inner = &self.inner;
        let mut report = VerifyReport::default();
        let mut count = |t: BlockType, bytes: u64| {
            let s = report.blocks.entry(t.name()).or_default();
            s.count += 1;
            s.disk_bytes += bytes;
        };
        count(BlockType::FileInfo, inner.trailer.file_info.disk_len());
        count(BlockType::RootIndex, inner.trailer.root_index.disk_len());

        // Walk the index breadth-first, reading every index block.
        let levels = inner.trailer.index_levels as usize;
        let mut level = vec![inner.root.clone()];
        for depth in 0..levels - 1 {
            let t = if depth + 2 == levels {
                BlockType::LeafIndex
            } else {
                BlockType::IntermediateIndex
            };
            let mut next = Vec::new();
            for block in &level {
                for i in 0..block.len() {
                    let h = block.handle(i);
                    let raw = inner.read_raw(h, t)?;
                    let child =
                        crate::index::IndexBlock::parse(raw.decompress(&inner.name, h.offset)?)
                            .map_err(|r| Error::corruption(&inner.name, h.offset, r))?;
                    if child.is_empty() {
                        return Err(Error::corruption(
                            &inner.name,
                            h.offset,
                            "empty index block",
                        ));
                    }
                    if compare_keys(block.entry(i).0.parts(), child.entry(0).0.parts()).is_gt() {
                        return Err(Error::corruption(
                            &inner.name,
                            h.offset,
                            "index key above its child's first key",
                        ));
                    }
                    count(t, h.disk_len());
                    next.push(std::sync::Arc::new(child));
                }
            }
            level = next;
        }

        // Every data block, decoded, in order.
        let mut last: Option<strata_model::cell::CellKey> = None;
        for block in &level {
            for i in 0..block.len() {
                let h = block.handle(i);
                let raw = inner.read_raw(h, BlockType::Data)?;
                count(BlockType::Data, h.disk_len());
                let bytes = raw.decompress(&inner.name, h.offset)?;
                let decoded = inner.decode(h, bytes.clone())?;
                // The streaming decoder too (for ROW_INDEX it also checks the row index).
                if inner.info.encoding == strata_model::schema::DataBlockEncoding::RowIndex {
                    crate::encoding::check_row_starts(bytes.clone())
                        .map_err(|e| Error::corruption(&inner.name, h.offset, e.reason))?;
                }
                let streamed = crate::encoding::decoder(inner.info.encoding, bytes)
                    .and_then(|mut d| {
                        let mut n = 0;
                        while d.advance()? {
                            n += 1;
                        }
                        Ok(n)
                    })
                    .map_err(|e| Error::corruption(&inner.name, h.offset, e.reason))?;
                if streamed != decoded.len() {
                    return Err(Error::corruption(
                        &inner.name,
                        h.offset,
                        "decoders disagree on the cell count",
                    ));
                }
                if decoded.is_empty() {
                    return Err(Error::corruption(&inner.name, h.offset, "empty data block"));
                }
                // Separators must fall between blocks: last(previous) < sep ≤ first(this).
                let sep = block.entry(i).0;
                if let Some(prev) = &last {
                    if compare_keys(prev.parts(), sep.parts()).is_ge() {
                        return Err(Error::corruption(
                            &inner.name,
                            h.offset,
                            "index key not above the previous block's last cell",
                        ));
                    }
                }
                if compare_keys(sep.parts(), decoded.cell(0).key_parts()).is_gt() {
                    return Err(Error::corruption(
                        &inner.name,
                        h.offset,
                        "index key above the block's first cell",
                    ));
                }
                for j in 0..decoded.len() {
                    let cell = decoded.cell(j);
                    if let Some(prev) = &last {
                        if compare_keys(prev.parts(), cell.key_parts()).is_ge() {
                            return Err(Error::corruption(
                                &inner.name,
                                h.offset,
                                "cells out of order",
                            ));
                        }
                    }
                    last = Some(cell.to_key());
                }
                report.cells += decoded.len() as u64;
                report.decoded_bytes += decoded.memory_size() as u64;
            }
        }
        if report.cells != inner.info.cell_count {
            return Err(Error::corruption(
                &inner.name,
                inner.trailer.file_info.offset,
                format!(
                    "file info says {} cells, blocks hold {}",
                    inner.info.cell_count, report.cells
                ),
            ));
        }
        if last != inner.info.last_key {
            return Err(Error::corruption(
                &inner.name,
                inner.trailer.file_info.offset,
                "last key differs from file info",
            ));
        }

        if let (Some(bloom), Some(h)) = (&inner.bloom, inner.trailer.bloom_index) {
            count(BlockType::BloomIndex, h.disk_len());
            for c in &bloom.chunks {
                let raw = inner.read_raw(c.handle, BlockType::BloomChunk)?;
                crate::bloom::BloomChunk::parse(raw.decompress(&inner.name, c.handle.offset)?)
                    .map_err(|r| Error::corruption(&inner.name, c.handle.offset, r))?;
                count(BlockType::BloomChunk, c.handle.disk_len());
            }
        }
        Ok(report)
    }

    /// Checks the iterator path too (through the cache, as reads do).
    ///
    /// # Errors
    /// I/O or corruption.
    pub fn count_cells(&self) -> Result<u64> {
        let mut it = self.iter();
        let mut n = 0;
        let mut ok = it.seek_to_first()?;
        while ok {
            n += 1;
            ok = it.next()?;
        }
        Ok(n)
    }
}
