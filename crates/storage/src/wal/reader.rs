//! Reads the entries of one segment file, telling a torn tail from damage in the middle.
//!
//! A bad record (its header or payload checksum fails, or it passes the end of the file) is a
//! *torn tail* when no valid record follows it and the reader tolerates one (the last segment
//! of a log: a crash cut its last write). Otherwise it is corruption: an error, or with
//! `skip_corrupt`, skipped up to the next valid record.

use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use bytes::Bytes;

use super::entry::{self, Entry};
use super::error::{Error, Result};
use super::record::{self, RECORD_HEADER_LEN, SEGMENT_HEADER_LEN};
use crate::vfs::{LogStore, SourceReader};

/// How a [`SegmentReader`] treats bad bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// A bad record with nothing valid after it ends the segment quietly (see
    /// [`SegmentReader::torn_at`]) instead of failing. True for the last segment of a log.
    pub tolerate_torn_tail: bool,
    /// Skip bad records (and a bad header) up to the next valid record instead of failing.
    pub skip_corrupt: bool,
}

/// Iterates the entries of one segment file in order.
///
/// Thread safety: a plain value; use from one thread at a time.
#[derive(Debug)]
pub struct SegmentReader {
    path: PathBuf,
    file: SourceReader,
    /// File length when opened; bytes appended later are not read.
    len: u64,
    /// Offset of the next record.
    offset: u64,
    options: ReadOptions,
    torn_at: Option<u64>,
    corrupt_skipped: u64,
    done: bool,
}

impl SegmentReader {
    /// Opens `path` and checks its header. `expected_id` is the segment id its file name
    /// gives, if any; the header must name the same.
    ///
    /// # Errors
    /// [`Error::Io`] if the file cannot be opened or read; [`Error::Corruption`] at offset 0
    /// for a damaged header, unless tolerated or skipped as described on [`ReadOptions`].
    pub fn open(path: &Path, expected_id: Option<u64>, options: ReadOptions) -> Result<Self> {
        SegmentReader::open_in(&crate::vfs::Local, path, expected_id, options)
    }

    /// [`open`](Self::open) for a segment in `store`.
    ///
    /// # Errors
    /// As [`open`](Self::open).
    pub fn open_in(
        store: &dyn LogStore,
        path: &Path,
        expected_id: Option<u64>,
        options: ReadOptions,
    ) -> Result<Self> {
        let file = store
            .open(path)
            .and_then(|src| SourceReader::new(src, 256 << 10))
            .map_err(|e| Error::io("read", path, e))?;
        let len = file.len();
        let mut reader = SegmentReader {
            path: path.to_owned(),
            file,
            len,
            offset: SEGMENT_HEADER_LEN as u64,
            options,
            torn_at: None,
            corrupt_skipped: 0,
            done: false,
        };
        let problem = if len < SEGMENT_HEADER_LEN as u64 {
            Some("file shorter than the segment header".to_owned())
        } else {
            let mut h = [0u8; SEGMENT_HEADER_LEN];
            reader.read_exact(&mut h)?;
            match record::parse_segment_header(&h) {
                Ok(id) if expected_id.is_some_and(|want| want != id) => {
                    Some(format!("header names segment {id}"))
                }
                Ok(_) => None,
                Err(reason) => Some(reason),
            }
        };
        if let Some(reason) = problem {
            reader.bad_bytes(0, 0, reason)?;
        }
        Ok(reader)
    }

    /// The next entry and the offset of its record, or `None` at the end.
    ///
    /// # Errors
    /// [`Error::Io`] on a failed read; [`Error::Corruption`] for a bad record that is not a
    /// tolerated torn tail and not skipped. After an error the reader is finished.
    pub fn next_entry(&mut self) -> Result<Option<(u64, Entry)>> {
        while let Some((at, payload)) = self.next_payload()? {
            match entry::decode(&payload) {
                Ok(e) => return Ok(Some((at, e))),
                Err(_) if self.options.skip_corrupt => self.corrupt_skipped += 1,
                Err(reason) => {
                    self.done = true;
                    return Err(Error::corruption(&self.path, at, reason));
                }
            }
        }
        Ok(None)
    }

    /// Where a torn tail starts, once the reader has met one: the length the file should be
    /// cut to. A value below the header length means the segment holds nothing usable.
    pub fn torn_at(&self) -> Option<u64> {
        self.torn_at
    }

    /// Bad stretches skipped so far under `skip_corrupt`.
    pub fn corrupt_skipped(&self) -> u64 {
        self.corrupt_skipped
    }

    /// The segment's length when the reader was opened.
    pub fn file_len(&self) -> u64 {
        self.len
    }

    /// The file this reader reads.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn next_payload(&mut self) -> Result<Option<(u64, Bytes)>> {
        while !self.done {
            let at = self.offset;
            let remaining = self.len - at;
            if remaining == 0 {
                self.done = true;
                break;
            }
            if remaining < RECORD_HEADER_LEN as u64 {
                self.bad_bytes(at, at + 1, "truncated record header".into())?;
                continue;
            }
            let mut h = [0u8; RECORD_HEADER_LEN];
            self.read_exact(&mut h)?;
            let Some(header) = record::parse_record_header(&h) else {
                self.bad_bytes(at, at + 1, "record header checksum mismatch".into())?;
                continue;
            };
            let end = at + RECORD_HEADER_LEN as u64 + u64::from(header.len);
            if end > self.len {
                self.bad_bytes(at, end, "record passes the end of the file".into())?;
                continue;
            }
            let mut payload = vec![0u8; header.len as usize];
            self.read_exact(&mut payload)?;
            if crc32c::crc32c(&payload) != header.payload_crc {
                // The header vouches for the length: search for a successor after it.
                self.bad_bytes(at, end, "payload checksum mismatch".into())?;
                continue;
            }
            self.offset = end;
            return Ok(Some((at, Bytes::from(payload))));
        }
        Ok(None)
    }

    /// Handles bad bytes starting at `at`; a valid record is searched for from `search_from`.
    /// Returns `Ok` when the reader may go on (skipped, or finished at a torn tail).
    fn bad_bytes(&mut self, at: u64, search_from: u64, reason: String) -> Result<()> {
        let next = self.find_valid_record(search_from)?;
        match next {
            None if self.options.tolerate_torn_tail => {
                self.torn_at = Some(at);
                self.done = true;
            }
            Some(next) if self.options.skip_corrupt => {
                self.corrupt_skipped += 1;
                self.seek(next)?;
            }
            None if self.options.skip_corrupt => {
                self.corrupt_skipped += 1;
                self.done = true;
            }
            _ => {
                self.done = true;
                return Err(Error::corruption(&self.path, at, reason));
            }
        }
        Ok(())
    }

    /// Offset of the first valid record at or after `from`, if any.
    fn find_valid_record(&mut self, from: u64) -> Result<Option<u64>> {
        if from >= self.len {
            return Ok(None);
        }
        self.seek(from)?;
        let mut rest = Vec::new();
        let want = self.len - from;
        (&mut self.file)
            .take(want)
            .read_to_end(&mut rest)
            .map_err(|e| Error::io("read", &self.path, e))?;
        Ok(record::find_valid_record(&rest).map(|i| from + i as u64))
    }

    fn seek(&mut self, to: u64) -> Result<()> {
        self.file
            .seek(SeekFrom::Start(to))
            .map_err(|e| Error::io("read", &self.path, e))?;
        self.offset = to;
        Ok(())
    }

    fn read_exact(&mut self, buf: &mut [u8]) -> Result<()> {
        self.file.read_exact(buf).map_err(|e| {
            self.done = true;
            let e = if e.kind() == io::ErrorKind::UnexpectedEof {
                io::Error::new(e.kind(), "segment shrank while being read")
            } else {
                e
            };
            Error::io("read", &self.path, e)
        })
    }
}

impl Iterator for SegmentReader {
    type Item = Result<Entry>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_entry().transpose().map(|r| r.map(|(_, e)| e))
    }
}
