//! The seam between the WAL and the file system for everything the append path does: create,
//! append, sync, truncate, remove. Tests wrap [`LocalFileSystem`] to inject `ENOSPC` or a
//! failed fsync; shared logs (HDFS) can come in behind the same traits later.
//!
//! Recovery reads segments with `std::fs` directly; only writes go through this seam.

use std::fs::{File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::Path;

/// A segment file open for appending.
///
/// Thread safety: used by one thread at a time (the group-commit leader), hence `Send` only.
pub trait SegmentFile: Send {
    /// Appends all of `buf` at the current end.
    ///
    /// # Errors
    /// Any I/O error; some prefix of `buf` may then have been written. The caller cuts it off
    /// with [`truncate`](Self::truncate).
    fn append(&mut self, buf: &[u8]) -> io::Result<()>;

    /// Makes everything appended so far durable (`fdatasync`).
    ///
    /// # Errors
    /// Any I/O error; the caller must then assume appended bytes since the last successful
    /// sync may be lost on power failure.
    fn sync(&mut self) -> io::Result<()>;

    /// Cuts the file to `len` bytes; the next append starts there.
    ///
    /// Requires: `len` is at most the current length.
    ///
    /// # Errors
    /// Any I/O error; the file may still hold bytes past `len`.
    fn truncate(&mut self, len: u64) -> io::Result<()>;
}

/// Creates and removes segment files.
///
/// Thread safety: shared by the WAL's threads; methods take `&self`.
pub trait FileSystem: Send + Sync {
    /// Creates `path` (replacing any file there) for appending, empty.
    ///
    /// # Errors
    /// Any I/O error.
    fn create(&self, path: &Path) -> io::Result<Box<dyn SegmentFile>>;

    /// Removes the file at `path`.
    ///
    /// # Errors
    /// Any I/O error, including `NotFound`.
    fn remove(&self, path: &Path) -> io::Result<()>;

    /// Makes the directory's entries (created or removed files) durable.
    ///
    /// # Errors
    /// Any I/O error.
    fn sync_dir(&self, dir: &Path) -> io::Result<()>;
}

/// The local file system through `std::fs`.
#[derive(Clone, Copy, Debug, Default)]
pub struct LocalFileSystem;

impl FileSystem for LocalFileSystem {
    fn create(&self, path: &Path) -> io::Result<Box<dyn SegmentFile>> {
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)?;
        Ok(Box::new(LocalSegmentFile { file }))
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        std::fs::remove_file(path)
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        File::open(dir)?.sync_all()
    }
}

/// A local segment file; the file position is always its end.
struct LocalSegmentFile {
    file: File,
}

impl SegmentFile for LocalSegmentFile {
    fn append(&mut self, buf: &[u8]) -> io::Result<()> {
        self.file.write_all(buf)
    }

    fn sync(&mut self) -> io::Result<()> {
        self.file.sync_data()
    }

    fn truncate(&mut self, len: u64) -> io::Result<()> {
        self.file.set_len(len)?;
        self.file.seek(SeekFrom::Start(len))?;
        Ok(())
    }
}
