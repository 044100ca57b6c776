//! Where a reader gets its bytes: a local file, or memory (tests, fuzzing); object storage
//! and HDFS implement the same trait.

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

    /// Reads exactly `len` bytes at `offset` only if that waits for no device: the bytes
    /// are in memory already (a local file's pages in the OS page cache). `Ok(None)` when the
    /// read would wait, or the source cannot tell without waiting (the default); the caller
    /// then reads with [`Source::read_at`] where it may block.
    ///
    /// # Errors
    /// `UnexpectedEof` when `offset` is at or past the end; other I/O errors as they come.
    fn read_at_nowait(&self, offset: u64, len: usize) -> io::Result<Option<Bytes>> {
        let _ = (offset, len);
        Ok(None)
    }

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

    /// One `preadv2(RWF_NOWAIT)`: the kernel copies the range if every page of it is in the
    /// page cache and answers `EAGAIN` instead of starting device I/O. A partial answer (the
    /// range is partly cached, or ends past the file) is `None` too: the blocking read that
    /// follows reads it whole or reports the short file.
    #[cfg(target_os = "linux")]
    fn read_at_nowait(&self, offset: u64, len: usize) -> io::Result<Option<Bytes>> {
        use rustix::io::{preadv2, Errno, ReadWriteFlags};
        let mut buf = vec![0; len];
        match preadv2(
            self,
            &mut [io::IoSliceMut::new(&mut buf)],
            offset,
            ReadWriteFlags::NOWAIT,
        ) {
            Ok(n) if n == len => Ok(Some(Bytes::from(buf))),
            Ok(0) if len > 0 => Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(_) => Ok(None),
            // Would wait; or this kernel or file system does not take the flag.
            Err(Errno::AGAIN | Errno::OPNOTSUPP | Errno::NOSYS | Errno::INVAL) => Ok(None),
            Err(Errno::INTR) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    fn size(&self) -> io::Result<u64> {
        Ok(self.metadata()?.len())
    }
}

impl Source for Bytes {
    fn read_at_nowait(&self, offset: u64, len: usize) -> io::Result<Option<Bytes>> {
        self.read_at(offset, len).map(Some)
    }

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
