//! Sequential `Read + Seek` over a positional [`Source`], for readers that stream a file
//! (WAL segments) from any store.

use std::io::{self, Read, Seek, SeekFrom};
use std::sync::Arc;

use super::Source;

/// Reads a [`Source`] from a position, `chunk` bytes per store read.
///
/// Thread safety: a plain value; use from one thread at a time.
pub struct SourceReader {
    source: Arc<dyn Source>,
    len: u64,
    pos: u64,
    buf: bytes::Bytes,
    chunk: usize,
}

impl std::fmt::Debug for SourceReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SourceReader")
            .field("len", &self.len)
            .field("pos", &self.pos)
            .finish_non_exhaustive()
    }
}

impl SourceReader {
    /// A reader at offset 0 of `source`, whose length is taken now.
    ///
    /// # Errors
    /// The length cannot be read.
    pub fn new(source: Arc<dyn Source>, chunk: usize) -> io::Result<SourceReader> {
        let len = source.size()?;
        Ok(SourceReader {
            source,
            len,
            pos: 0,
            buf: bytes::Bytes::new(),
            chunk: chunk.max(1),
        })
    }

    /// The source's length when the reader was made.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True when the source was empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Read for SourceReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.buf.is_empty() {
            if self.pos >= self.len || out.is_empty() {
                return Ok(0);
            }
            let want = (self.len - self.pos).min(self.chunk as u64) as usize;
            self.buf = self.source.read_at(self.pos, want)?;
        }
        let n = out.len().min(self.buf.len());
        out[..n].copy_from_slice(&self.buf[..n]);
        self.buf = self.buf.slice(n..);
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for SourceReader {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(n) => Some(n),
            SeekFrom::End(d) => self.len.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        }
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "seek before the start"))?;
        if target != self.pos {
            self.buf = bytes::Bytes::new();
            self.pos = target;
        }
        Ok(self.pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    #[test]
    fn reads_across_chunks_and_seeks() {
        let data: Vec<u8> = (0..=255).collect();
        let mut r = SourceReader::new(Arc::new(Bytes::from(data.clone())), 7).unwrap();
        let mut all = Vec::new();
        r.read_to_end(&mut all).unwrap();
        assert_eq!(all, data);
        r.seek(SeekFrom::Start(250)).unwrap();
        let mut tail = Vec::new();
        r.read_to_end(&mut tail).unwrap();
        assert_eq!(tail, &data[250..]);
        r.seek(SeekFrom::Current(-3)).unwrap();
        let mut b = [0u8; 2];
        r.read_exact(&mut b).unwrap();
        assert_eq!(b, [253, 254]);
        assert!(r.seek(SeekFrom::Current(-1000)).is_err());
    }
}
