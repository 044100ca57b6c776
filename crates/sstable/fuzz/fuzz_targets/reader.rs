//! Fuzz target `reader`: arbitrary bytes opened as a store file.
//!
//! Input: one control byte, then the file.
//! - bits 0..=1: block cache: none, or one in the `Decoded`, `Encoded` or `Compressed` form;
//! - bit 2: "fix checksums": the file is read through [`CrcFixingSource`], which rewrites the
//!   CRC32C of every block and of the trailer as it is read, so mutations get past the
//!   checksums and reach the parsers and decoders behind them;
//! - bit 3: `cache_data = false` (index and bloom blocks are still cached).
//!
//! The reader must never panic: every malformed input must come back as an error. When the file
//! opens and `verify()` accepts it, the harness also checks what a verified file promises:
//! forward scans yield `cell_count` cells in strictly increasing order (twice, so the second
//! pass is served from the cache), the backward scan is the exact reverse, and `seek`,
//! `seek_for_prev` and (non-empty) `get_row` answers agree with the forward scan.
//! Work per input is bounded (see the `MAX_*` constants).
#![no_main]

use std::io;
use std::sync::Arc;

use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use strata_model::cell::{CellKey, CellType};
use strata_model::schema::{CachedForm, DataBlockEncoding};
use strata_sstable::trailer::TRAILER_LEN;
use strata_sstable::{BlockCache, Reader, ReaderOptions, Source};

/// Most cells visited by one scan.
const MAX_STEPS: usize = 20_000;
/// Most seek targets tried.
const MAX_TARGETS: usize = 24;
/// Most `get_row` calls.
const MAX_GETS: usize = 8;

/// An in-memory file whose checksums are repaired on every read.
struct CrcFixingSource {
    bytes: Bytes,
}

impl Source for CrcFixingSource {
    fn read_at(&self, offset: u64, len: usize) -> io::Result<Bytes> {
        let mut out = self.bytes.read_at(offset, len)?.to_vec();
        let file_len = self.bytes.len() as u64;
        if len == TRAILER_LEN && offset + TRAILER_LEN as u64 == file_len {
            // The trailer: crc32c of bytes 0..52, stored at 52..56.
            let crc = crc32c::crc32c(&out[..52]);
            out[52..56].copy_from_slice(&crc.to_le_bytes());
        } else if len >= 4 {
            // A block: payload and trailer, then crc32c of all that.
            let body = len - 4;
            let crc = crc32c::crc32c(&out[..body]);
            out[body..].copy_from_slice(&crc.to_le_bytes());
        }
        Ok(Bytes::from(out))
    }

    fn size(&self) -> io::Result<u64> {
        Ok(self.bytes.len() as u64)
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&control, file)) = data.split_first() else {
        return;
    };
    let form = match control & 3 {
        0 => None,
        1 => Some(CachedForm::Decoded),
        2 => Some(CachedForm::Encoded),
        _ => Some(CachedForm::Compressed),
    };
    let options = ReaderOptions {
        cache: form.map(|_| Arc::new(BlockCache::new(4 << 20))),
        cache_data: control & 8 == 0,
        cached_form: form.unwrap_or_default(),
    };
    let bytes = Bytes::copy_from_slice(file);
    let source: Arc<dyn Source> = if control & 4 != 0 {
        Arc::new(CrcFixingSource { bytes })
    } else {
        Arc::new(bytes)
    };
    let Ok(reader) = Reader::from_source(source, "fuzz".to_owned(), options) else {
        return;
    };
    exercise(&reader, file);
});

/// Known issues the harness can step around so that a long run keeps finding new ones; set
/// `STRATA_FUZZ_SKIP_KNOWN=1`. Unset (the default), every check is on, so the inputs under
/// `regressions/` reproduce against a tree that still has the issue. True when the seek and
/// `get_row` comparisons with the forward scan should be skipped for `reader`.
///
/// - `verify()` accepted a file whose index separator for a block was not above the previous
///   block's last key; `seek_for_prev` then landed after its target and `seek` / `get_row`
///   skipped cells. `regressions/reader/verify-accepts-low-separator` (found 2026-11-22;
///   `verify` checks last(previous) < separator since). Not skipped.
/// - `verify()` accepts a ROW_INDEX_V1 block whose `row_starts` do not match its cells (a row
///   that starts where no entry points); the decoder's seek binary-searches `row_starts` and
///   skips that row's cells. `regressions/reader/row-index-entry-mismatch` (found 2026-11-22).
///   Skipped: files encoded with ROW_INDEX_V1.
fn skip_known(reader: &Reader) -> bool {
    static SKIP: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let skip =
        *SKIP.get_or_init(|| std::env::var_os("STRATA_FUZZ_SKIP_KNOWN").is_some_and(|v| v != "0"));
    skip && reader.info().encoding == DataBlockEncoding::RowIndex
}

/// Runs every read path over an open file; checks the promises of a verified one.
fn exercise(reader: &Reader, input: &[u8]) {
    let _ = reader.info();
    let _ = reader.bloom_summary();
    let verified = reader.verify().is_ok();

    // Forward, twice (the second pass hits the cache when there is one).
    let first = forward(reader);
    let second = forward(reader);
    if verified {
        let (keys, complete) = first
            .as_ref()
            .expect("forward scan of a verified file failed");
        assert_eq!(
            Some(keys),
            second.as_ref().ok().map(|(k, _)| k),
            "second forward scan differs"
        );
        if *complete {
            assert_eq!(keys.len() as u64, reader.info().cell_count, "cell count");
        }
        for w in keys.windows(2) {
            assert!(
                w[0] < w[1],
                "forward scan out of order: {:?} then {:?}",
                w[0],
                w[1]
            );
        }
    }

    // Backward from the last cell.
    let back = backward(reader);
    if verified {
        let (fwd, fwd_complete) = first.as_ref().expect("checked above");
        let (bwd, bwd_complete) = back
            .as_ref()
            .expect("backward scan of a verified file failed");
        if *fwd_complete && *bwd_complete {
            let rev: Vec<&CellKey> = bwd.iter().rev().collect();
            let fwd: Vec<&CellKey> = fwd.iter().collect();
            assert_eq!(
                rev, fwd,
                "backward scan is not the reverse of the forward scan"
            );
        }
    }

    // Seeks to keys near the file's own keys and to keys made of the input.
    let mut targets: Vec<CellKey> = Vec::new();
    if let Ok((keys, _)) = &first {
        let n = keys.len();
        for i in [0, n / 3, n / 2, n.saturating_sub(1)] {
            if let Some(k) = keys.get(i) {
                targets.push(k.clone());
                targets.push(CellKey::first_on_row(k.row.clone()));
                let mut bumped = k.clone();
                bumped.seq = bumped.seq.wrapping_sub(1);
                targets.push(bumped);
                let mut longer = k.row.to_vec();
                longer.push(0);
                targets.push(CellKey::first_on_row(Bytes::from(longer)));
            }
        }
    }
    for chunk in input.chunks(11).take(6) {
        let (row, rest) = chunk.split_at(chunk.len().min(5));
        let ts = rest.first().map_or(0, |&b| i64::from(b) - 128);
        targets.push(CellKey {
            row: Bytes::copy_from_slice(row),
            qualifier: Bytes::copy_from_slice(rest.get(1..).unwrap_or_default()),
            timestamp: ts,
            cell_type: CellType::ALL[usize::from(rest.len() as u8 % 5)],
            seq: rest.len() as u64,
        });
    }
    targets.push(CellKey::first_on_row(Bytes::new()));
    targets.truncate(MAX_TARGETS);

    // On a verified file whose forward scan completed, seeks and point reads must agree with
    // that scan (the model); see `skip_known` for the exceptions.
    let model: Option<&[CellKey]> = match &first {
        Ok((keys, true)) if verified && !skip_known(reader) => Some(keys),
        _ => None,
    };
    let mut it = reader.iter();
    for t in &targets {
        let got = it.seek(t).ok().map(|ok| ok.then(|| it.current().to_key()));
        if let (Some(keys), Some(got)) = (model, &got) {
            let want = keys.get(keys.partition_point(|k| k < t));
            assert_eq!(
                got.as_ref(),
                want,
                "seek({t:?}) differs from the forward scan"
            );
        }
        if let Some(Some(_)) = got {
            let _ = it.next();
            let _ = it.prev();
            let _ = it.prev();
        }
        let got = it
            .seek_for_prev(t)
            .ok()
            .map(|ok| ok.then(|| it.current().to_key()));
        if let (Some(keys), Some(got)) = (model, &got) {
            let want = keys
                .partition_point(|k| k <= t)
                .checked_sub(1)
                .and_then(|i| keys.get(i));
            assert_eq!(
                got.as_ref(),
                want,
                "seek_for_prev({t:?}) differs from the forward scan"
            );
        }
        if let Some(Some(_)) = got {
            let _ = it.next();
            let _ = it.next();
            let _ = it.prev();
        }
    }

    // Point reads. A crafted file's bloom filter may wrongly rule a row out (verify does not
    // check filter contents), so an empty answer is always accepted.
    for t in targets.iter().take(MAX_GETS) {
        if let (Ok(cells), Some(keys)) = (reader.get_row(&t.row), model) {
            if !cells.is_empty() {
                let got: Vec<CellKey> = cells.iter().map(|c| c.key()).collect();
                let want: Vec<CellKey> = keys.iter().filter(|k| k.row == t.row).cloned().collect();
                assert_eq!(
                    got, want,
                    "get_row({:?}) differs from the forward scan",
                    t.row
                );
            }
        }
        let _ = reader.get_column(&t.row, &t.qualifier);
        let _ = reader.may_contain_column(&t.row, &t.qualifier);
    }
    let _ = reader.count_cells();
}

/// Keys of a forward scan from the first cell, and whether it reached the end.
fn forward(reader: &Reader) -> strata_sstable::Result<(Vec<CellKey>, bool)> {
    let mut it = reader.iter();
    let mut keys = Vec::new();
    let mut ok = it.seek_to_first()?;
    while ok {
        if keys.len() == MAX_STEPS {
            return Ok((keys, false));
        }
        let c = it.current();
        keys.push(c.to_key());
        let _ = it.current_cell();
        ok = it.next()?;
    }
    Ok((keys, true))
}

/// Keys of a backward scan from the last cell, and whether it reached the start.
fn backward(reader: &Reader) -> strata_sstable::Result<(Vec<CellKey>, bool)> {
    let mut it = reader.iter();
    let mut keys = Vec::new();
    let mut ok = it.seek_to_last()?;
    while ok {
        if keys.len() == MAX_STEPS {
            return Ok((keys, false));
        }
        keys.push(it.current().to_key());
        ok = it.prev()?;
    }
    Ok((keys, true))
}
