//! Writes one store file from cells in store order.
//!
//! File layout (see `docs/format/sstable.md`):
//! ```text
//! [data block | leaf index block | bloom chunk]*   scanned section, interleaved as written
//! [intermediate index block]*                      upper index levels
//! root index block | bloom index block? | file info block | trailer (64 bytes)
//! ```

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use bytes::Bytes;
use strata_model::cell::{compare_bytes, compare_keys, CellKey, CellType};
use strata_model::limits::{MAX_QUALIFIER_LEN, MAX_ROW_LEN, MAX_VALUE_LEN};
use strata_model::schema::{BloomType, Compression, DataBlockEncoding, FamilyDescriptor};

use crate::block::{self, BlockHandle, BlockType};
use crate::bloom::{self, BloomIndexBuilder, BloomKey, ChunkBuilder, ChunkEntry};
use crate::cell_ref::{CellRef, KeyBuf};
use crate::encoding::{self, Encoder};
use crate::error::{Error, Result};
use crate::file_info::FileInfo;
use crate::index::{separator::separator, IndexBuilder};
use crate::trailer::{Trailer, FORMAT_VERSION, FORMAT_VERSION_1};

/// How to write a file. Usually derived from the family's descriptor.
#[derive(Clone, Debug)]
pub struct WriterOptions {
    /// The column family of every cell.
    pub family: Bytes,
    /// Target size of a data block after encoding, before compression (`BLOCKSIZE`).
    pub block_size: usize,
    /// `DATA_BLOCK_ENCODING`.
    pub encoding: DataBlockEncoding,
    /// `COMPRESSION`.
    pub compression: Compression,
    /// `BLOOMFILTER`.
    pub bloom: BloomType,
    /// Target false-positive rate of the bloom filter.
    pub bloom_fp_rate: f64,
    /// Target size of an index block.
    pub index_block_size: usize,
    /// Marks the file as the output of a major compaction.
    pub major_compaction: bool,
    /// Creation time to record (ms since the epoch); the caller's clock.
    pub created_at_ms: i64,
    /// A floor for the recorded max sequence id (a flush records its sequence id even when
    /// cells carry none).
    pub max_seq_id: u64,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            family: Bytes::from_static(b"cf"),
            block_size: 64 * 1024,
            encoding: DataBlockEncoding::None,
            compression: Compression::None,
            bloom: BloomType::Row,
            bloom_fp_rate: 0.01,
            index_block_size: 64 * 1024,
            major_compaction: false,
            created_at_ms: 0,
            max_seq_id: 0,
        }
    }
}

impl WriterOptions {
    /// Options from a family's settings (`BLOCKSIZE`, `DATA_BLOCK_ENCODING`, `COMPRESSION`,
    /// `BLOOMFILTER`, `BLOOMFILTER_FP_RATE`); the caller sets the rest per file.
    pub fn for_family(family: &FamilyDescriptor) -> WriterOptions {
        WriterOptions {
            family: Bytes::copy_from_slice(family.name.as_bytes()),
            block_size: family.block_size as usize,
            encoding: family.data_block_encoding,
            compression: family.compression,
            bloom: family.bloom_filter,
            bloom_fp_rate: family.bloom_fp_rate,
            ..WriterOptions::default()
        }
    }

    fn validate(&self) -> Result<()> {
        let bad = |m: &str| Err(Error::InvalidArgument(m.to_owned()));
        if !(1024..=16 << 20).contains(&self.block_size) {
            return bad("BLOCKSIZE must be between 1 KiB and 16 MiB");
        }
        if !(1024..=16 << 20).contains(&self.index_block_size) {
            return bad("index block size must be between 1 KiB and 16 MiB");
        }
        if !(self.bloom_fp_rate > 0.0 && self.bloom_fp_rate <= 0.5) {
            return bad("bloom false-positive rate must be in (0, 0.5]");
        }
        if let BloomType::RowPrefixFixedLength(0) = self.bloom {
            return bad("ROWPREFIX_FIXED_LENGTH needs a prefix length of at least 1");
        }
        if self.family.is_empty() || self.family.len() > 255 {
            return bad("family name must be 1 to 255 bytes");
        }
        Ok(())
    }
}

/// Running totals for the file info.
struct Totals {
    cells: u64,
    max_seq: u64,
    min_ts: i64,
    max_ts: i64,
    delete_family: u64,
    deletes: u64,
    raw_bytes: u64,
    value_bytes: u64,
    data_blocks: u64,
    /// Puts written with their own TTL: any makes the file format version 2.
    ttl_cells: u64,
}

/// Bloom state while writing.
struct BloomWriter {
    bloom_type: BloomType,
    per_chunk: usize,
    chunk: ChunkBuilder,
    chunk_first: Option<(Vec<u8>, Vec<u8>)>,
    /// The last key added (row part, qualifier part), to skip consecutive duplicates.
    last: Option<(Vec<u8>, Vec<u8>)>,
    index: BloomIndexBuilder,
}

/// Writes a store file to `W`.
pub struct Writer<W: Write> {
    sink: W,
    name: String,
    options: WriterOptions,
    offset: u64,
    encoder: Box<dyn Encoder>,
    scratch: Vec<u8>,
    frame: Vec<u8>,
    /// Key of the last cell added (order check and separators).
    last: KeyBuf,
    /// Last key of the previous data block, and the pending separator of the current one.
    prev_block_last: Option<CellKey>,
    pending_separator: Option<CellKey>,
    block_first_keys: Vec<CellKey>,
    first_key: Option<CellKey>,
    leaf: IndexBuilder,
    /// Entries (first key, handle) of leaf index blocks already written.
    leaves: Vec<(CellKey, BlockHandle)>,
    bloom: Option<BloomWriter>,
    totals: Totals,
}

impl Writer<BufWriter<File>> {
    /// Creates the file at `path` (it must not exist) and a writer for it.
    ///
    /// # Errors
    /// I/O errors, or invalid options.
    pub fn create(path: &Path, options: WriterOptions) -> Result<Self> {
        let name = path.display().to_string();
        let file = File::options()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| Error::io(&name, e))?;
        Writer::new(BufWriter::with_capacity(1 << 20, file), name, options)
    }

    /// Finishes the file and makes it durable (fsync).
    ///
    /// # Errors
    /// I/O errors.
    pub fn finish_and_sync(self) -> Result<FileInfo> {
        let name = self.name.clone();
        let (sink, info) = self.finish()?;
        let file = sink
            .into_inner()
            .map_err(|e| Error::io(&name, e.into_error()))?;
        file.sync_all().map_err(|e| Error::io(&name, e))?;
        Ok(info)
    }
}

impl<W: Write> Writer<W> {
    /// A writer appending to `sink`; `name` appears in errors.
    ///
    /// # Errors
    /// Invalid options.
    pub fn new(sink: W, name: impl Into<String>, options: WriterOptions) -> Result<Self> {
        options.validate()?;
        let bloom = (options.bloom != BloomType::None).then(|| BloomWriter {
            bloom_type: options.bloom,
            per_chunk: bloom::keys_per_chunk(options.bloom_fp_rate),
            chunk: ChunkBuilder::new(options.bloom_fp_rate),
            chunk_first: None,
            last: None,
            index: BloomIndexBuilder::new(options.bloom, options.bloom_fp_rate),
        });
        Ok(Writer {
            sink,
            name: name.into(),
            encoder: encoding::encoder(options.encoding),
            options,
            offset: 0,
            scratch: Vec::new(),
            frame: Vec::new(),
            last: KeyBuf::default(),
            prev_block_last: None,
            pending_separator: None,
            block_first_keys: Vec::new(),
            first_key: None,
            leaf: IndexBuilder::default(),
            leaves: Vec::new(),
            bloom,
            totals: Totals {
                cells: 0,
                max_seq: 0,
                min_ts: i64::MAX,
                max_ts: i64::MIN,
                delete_family: 0,
                deletes: 0,
                raw_bytes: 0,
                value_bytes: 0,
                data_blocks: 0,
                ttl_cells: 0,
            },
        })
    }

    /// Bytes written so far (a compaction splits its output on it).
    pub fn bytes_written(&self) -> u64 {
        self.offset + self.encoder.encoded_len() as u64
    }

    /// Cells added so far.
    pub fn cell_count(&self) -> u64 {
        self.totals.cells
    }

    /// Appends a cell.
    ///
    /// # Errors
    /// `InvalidArgument` when the cell is not strictly after the previous one or exceeds a size
    /// limit (nothing is written then); I/O errors.
    pub fn add(&mut self, cell: &CellRef<'_>) -> Result<()> {
        self.check(cell)?;
        if self.encoder.cell_count() == 0 {
            let key = cell.to_key();
            self.pending_separator = Some(match &self.prev_block_last {
                Some(prev) => separator(&prev_ref(prev), cell),
                None => key.clone(),
            });
            if self.first_key.is_none() {
                self.first_key = Some(key.clone());
            }
            self.block_first_keys.push(key);
        }
        self.encoder.add(cell);
        self.account(cell);
        self.add_bloom_key(cell)?;
        self.last.set(cell);
        if self.encoder.encoded_len() >= self.options.block_size {
            self.flush_data_block()?;
        }
        Ok(())
    }

    fn check(&self, cell: &CellRef<'_>) -> Result<()> {
        let bad = |m: String| Err(Error::InvalidArgument(m));
        if cell.row.len() > MAX_ROW_LEN {
            return bad(format!(
                "row of {} bytes exceeds {MAX_ROW_LEN}",
                cell.row.len()
            ));
        }
        if cell.qualifier.len() > MAX_QUALIFIER_LEN {
            return bad(format!(
                "qualifier of {} bytes exceeds {MAX_QUALIFIER_LEN}",
                cell.qualifier.len()
            ));
        }
        if cell.value.len() > MAX_VALUE_LEN {
            return bad(format!(
                "value of {} bytes exceeds {MAX_VALUE_LEN}",
                cell.value.len()
            ));
        }
        if let Some(last) = self.last.as_cell() {
            if compare_keys(last.key_parts(), cell.key_parts()).is_ge() {
                return bad(format!(
                    "cells out of order: {:?} after {:?}",
                    cell.to_key(),
                    last.to_key()
                ));
            }
        }
        Ok(())
    }

    fn account(&mut self, cell: &CellRef<'_>) {
        let t = &mut self.totals;
        t.cells += 1;
        t.max_seq = t.max_seq.max(cell.seq);
        t.min_ts = t.min_ts.min(cell.timestamp);
        t.max_ts = t.max_ts.max(cell.timestamp);
        if cell.cell_type.is_delete() {
            t.deletes += 1;
        } else if cell.ttl.is_some() {
            t.ttl_cells += 1;
        }
        if matches!(
            cell.cell_type,
            CellType::DeleteFamily | CellType::DeleteFamilyVersion
        ) {
            t.delete_family += 1;
        }
        t.raw_bytes += (8
            + 2
            + cell.row.len()
            + 1
            + self.options.family.len()
            + cell.qualifier.len()
            + 9
            + cell.value.len()) as u64;
        t.value_bytes += cell.value.len() as u64;
    }

    fn add_bloom_key(&mut self, cell: &CellRef<'_>) -> Result<()> {
        let Some(b) = &mut self.bloom else {
            return Ok(());
        };
        let Some(key) = BloomKey::of(b.bloom_type, cell.row, cell.qualifier) else {
            return Ok(());
        };
        match &mut b.last {
            Some((row, qual))
                if compare_bytes(row, key.row).is_eq()
                    && compare_bytes(qual, key.qualifier).is_eq() =>
            {
                return Ok(());
            }
            Some((row, qual)) => {
                row.clear();
                row.extend_from_slice(key.row);
                qual.clear();
                qual.extend_from_slice(key.qualifier);
            }
            None => b.last = Some((key.row.to_vec(), key.qualifier.to_vec())),
        }
        if b.chunk_first.is_none() {
            b.chunk_first = Some((key.row.to_vec(), key.qualifier.to_vec()));
        }
        b.chunk.add(key.hash());
        if b.chunk.len() >= b.per_chunk {
            self.flush_bloom_chunk()?;
        }
        Ok(())
    }

    fn write_block(
        &mut self,
        block_type: BlockType,
        codec: Compression,
        raw: &[u8],
    ) -> Result<BlockHandle> {
        self.frame.clear();
        block::frame(block_type, codec, raw, &mut self.frame);
        let handle = BlockHandle {
            offset: self.offset,
            size: (self.frame.len() - block::BLOCK_TRAILER_LEN) as u32,
        };
        self.sink
            .write_all(&self.frame)
            .map_err(|e| Error::io(&self.name, e))?;
        self.offset += self.frame.len() as u64;
        Ok(handle)
    }

    fn flush_data_block(&mut self) -> Result<()> {
        if self.encoder.cell_count() == 0 {
            return Ok(());
        }
        let mut raw = std::mem::take(&mut self.scratch);
        raw.clear();
        self.encoder.finish_into(&mut raw);
        let handle = self.write_block(BlockType::Data, self.options.compression, &raw);
        self.scratch = raw;
        let handle = handle?;
        self.totals.data_blocks += 1;
        if let Some(sep) = self.pending_separator.take() {
            self.leaf.add(&sep, handle);
        }
        self.prev_block_last = self.last.as_cell().map(|c| c.to_key());
        if self.leaf.size() >= self.options.index_block_size {
            self.flush_leaf()?;
        }
        Ok(())
    }

    fn flush_leaf(&mut self) -> Result<()> {
        if self.leaf.len() == 0 {
            return Ok(());
        }
        let first = self.leaf.first_key().cloned();
        let raw = self.leaf.finish();
        let handle = self.write_block(BlockType::LeafIndex, Compression::None, &raw)?;
        if let Some(first) = first {
            self.leaves.push((first, handle));
        }
        Ok(())
    }

    fn flush_bloom_chunk(&mut self) -> Result<()> {
        let Some(b) = &mut self.bloom else {
            return Ok(());
        };
        if b.chunk.len() == 0 {
            return Ok(());
        }
        let keys = b.chunk.len();
        let raw = b.chunk.finish();
        let (row, qualifier) = b.chunk_first.take().unwrap_or_default();
        let handle = self.write_block(BlockType::BloomChunk, Compression::None, &raw)?;
        if let Some(b) = &mut self.bloom {
            b.index.add_chunk(
                ChunkEntry {
                    row,
                    qualifier,
                    handle,
                },
                keys,
            );
        }
        Ok(())
    }

    /// Writes the upper index levels and the root; returns the root handle and level count.
    fn write_index(&mut self) -> Result<(BlockHandle, u8)> {
        if self.leaves.is_empty() {
            let raw = self.leaf.finish();
            return Ok((
                self.write_block(BlockType::RootIndex, Compression::None, &raw)?,
                1,
            ));
        }
        self.flush_leaf()?;
        let mut level = std::mem::take(&mut self.leaves);
        let mut levels = 2u8;
        loop {
            let mut builder = IndexBuilder::default();
            let mut next = Vec::new();
            let mut fits = true;
            for (key, handle) in &level {
                builder.add(key, *handle);
                if builder.size() >= self.options.index_block_size {
                    fits = false;
                }
            }
            if fits {
                let raw = builder.finish();
                return Ok((
                    self.write_block(BlockType::RootIndex, Compression::None, &raw)?,
                    levels,
                ));
            }
            // Too big for one root: write an intermediate level and index it.
            let mut builder = IndexBuilder::default();
            for (key, handle) in &level {
                builder.add(key, *handle);
                if builder.size() >= self.options.index_block_size {
                    let first = builder.first_key().cloned();
                    let raw = builder.finish();
                    let h =
                        self.write_block(BlockType::IntermediateIndex, Compression::None, &raw)?;
                    next.extend(first.map(|f| (f, h)));
                }
            }
            if builder.len() > 0 {
                let first = builder.first_key().cloned();
                let raw = builder.finish();
                let h = self.write_block(BlockType::IntermediateIndex, Compression::None, &raw)?;
                next.extend(first.map(|f| (f, h)));
            }
            level = next;
            levels += 1;
            if levels > crate::index::MAX_INDEX_LEVELS {
                return Err(Error::InvalidArgument(
                    "index too deep; raise the index block size".to_owned(),
                ));
            }
        }
    }

    /// Writes the remaining blocks, the index, bloom index, file info and trailer.
    ///
    /// # Errors
    /// I/O errors.
    pub fn finish(mut self) -> Result<(W, FileInfo)> {
        self.flush_data_block()?;
        self.flush_bloom_chunk()?;
        let data_end = self.offset;
        let (root_index, index_levels) = self.write_index()?;
        let bloom_index = match self.bloom.take() {
            Some(b) if self.totals.cells > 0 => {
                let raw = b.index.finish();
                Some(self.write_block(BlockType::BloomIndex, Compression::None, &raw)?)
            }
            _ => None,
        };
        let n = self.block_first_keys.len();
        let info = FileInfo {
            family: self.options.family.clone(),
            max_seq_id: self.totals.max_seq.max(self.options.max_seq_id),
            min_timestamp: self.totals.min_ts,
            max_timestamp: self.totals.max_ts,
            cell_count: self.totals.cells,
            delete_family_count: self.totals.delete_family,
            delete_count: self.totals.deletes,
            first_key: self.first_key.take(),
            last_key: self.last.as_cell().map(|c| c.to_key()),
            mid_key: (n > 0).then(|| self.block_first_keys.swap_remove((n - 1) / 2)),
            major_compaction: self.options.major_compaction,
            encoding: self.options.encoding,
            compression: self.options.compression,
            bloom: if bloom_index.is_some() {
                self.options.bloom
            } else {
                BloomType::None
            },
            block_size: self.options.block_size as u32,
            data_block_count: self.totals.data_blocks,
            raw_bytes: self.totals.raw_bytes,
            value_bytes: self.totals.value_bytes,
            created_at_ms: self.options.created_at_ms,
        };
        let file_info = self.write_block(BlockType::FileInfo, Compression::None, &info.encode())?;
        let trailer = Trailer {
            file_info,
            root_index,
            bloom_index,
            index_levels,
            encoding: self.options.encoding,
            compression: self.options.compression,
            data_end,
            // Version 1 readers can read a file without per-cell TTLs; only TTLs need 2.
            format_version: if self.totals.ttl_cells > 0 {
                FORMAT_VERSION
            } else {
                FORMAT_VERSION_1
            },
        };
        self.sink
            .write_all(&trailer.encode())
            .and_then(|()| self.sink.flush())
            .map_err(|e| Error::io(&self.name, e))?;
        Ok((self.sink, info))
    }
}

/// Borrows an owned key as a cell (no value), for separator computation.
fn prev_ref(key: &CellKey) -> CellRef<'_> {
    CellRef {
        row: &key.row,
        qualifier: &key.qualifier,
        timestamp: key.timestamp,
        cell_type: key.cell_type,
        seq: key.seq,
        value: &[],
        ttl: None,
    }
}
