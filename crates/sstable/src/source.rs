//! Where a reader gets its bytes: a local file, or memory (tests, fuzzing). Later: object
//! storage and HDFS behind the same trait.

use std::fs::File;
use std::io;

use bytes::Bytes;

/// Positional reads from an immutable byte source.
///
/// Thread safety: implementations are shared by all iterators of a reader; `read_at` takes
/// `&self` and must be safe to call concurrently.
pub trait Source: Send + Sync {
    /// Reads exactly `len` bytes at `offset`.
    ///
    /// # Errors
    /// `UnexpectedEof` when the range passes the end; other I/O errors as they come.
    fn read_at(&self, offset: u64, len: usize) -> io::Result<Bytes>;

    /// Total length in bytes.
    ///
    /// # Errors
    /// I/O errors.
    fn size(&self) -> io::Result<u64>;
}

impl Source for File {
    fn read_at(&self, offset: u64, len: usize) -> io::Result<Bytes> {
        use std::os::unix::fs::FileExt;
        let mut buf = vec![0; len];
        self.read_exact_at(&mut buf, offset)?;
        Ok(Bytes::from(buf))
    }

    fn size(&self) -> io::Result<u64> {
        Ok(self.metadata()?.len())
    }
}

impl Source for Bytes {
    fn read_at(&self, offset: u64, len: usize) -> io::Result<Bytes> {
        let start = usize::try_from(offset).map_err(|_| io::ErrorKind::UnexpectedEof)?;
        let end = start.checked_add(len).ok_or(io::ErrorKind::UnexpectedEof)?;
        if end > Bytes::len(self) {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        Ok(self.slice(start..end))
    }

    fn size(&self) -> io::Result<u64> {
        Ok(Bytes::len(self) as u64)
    }
}
