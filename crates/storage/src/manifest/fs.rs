//! The file-system operations a manifest needs, behind a trait so a test double can simulate a
//! crash after any one of them ([`super::SimFs`]).
//!
//! Durability contract (POSIX, as on ext4 and XFS; every [`FileStore`] keeps it): written bytes are durable only after
//! [`Fs::sync_file`]; a created, renamed or removed name is durable only after
//! [`Fs::sync_dir`]. Until then a crash may keep or lose each change; the manifest never relies
//! on more.

use std::fmt;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::Arc;

use crate::vfs::{FileStore, FileWriter, Local};

/// One directory holding one region's manifest files. Names are plain file names (no `/`).
///
/// Implementations must be usable from several threads; the manifest calls them from one
/// thread at a time.
pub trait Fs: Send + Sync + fmt::Debug {
    /// The names of the files in the directory, in any order.
    ///
    /// # Errors
    /// The directory cannot be read.
    fn list(&self) -> io::Result<Vec<String>>;

    /// The whole content of `name`.
    ///
    /// # Errors
    /// `name` does not exist or cannot be read.
    fn read(&self, name: &str) -> io::Result<Vec<u8>>;

    /// Creates `name` (truncating it if it exists) holding `data`. Not durable until
    /// [`Fs::sync_file`] and [`Fs::sync_dir`].
    ///
    /// # Errors
    /// The file cannot be created or written; its content is then unspecified.
    fn write(&self, name: &str, data: &[u8]) -> io::Result<()>;

    /// Makes the content of `name` durable (`fsync`).
    ///
    /// # Errors
    /// The sync failed: the content's durability is unknown.
    fn sync_file(&self, name: &str) -> io::Result<()>;

    /// Renames `from` to `to` atomically, replacing `to` if it exists. Durable after
    /// [`Fs::sync_dir`].
    ///
    /// # Errors
    /// The rename failed (it then did not happen).
    fn rename(&self, from: &str, to: &str) -> io::Result<()>;

    /// Removes `name`. Durable after [`Fs::sync_dir`].
    ///
    /// # Errors
    /// The removal failed.
    fn remove(&self, name: &str) -> io::Result<()>;

    /// Makes the directory's names durable (`fsync` of the directory).
    ///
    /// # Errors
    /// The sync failed: which changes are durable is unknown.
    fn sync_dir(&self) -> io::Result<()>;
}

/// [`Fs`] on one directory of a [`FileStore`] (local files, HDFS, …).
///
/// Requires: the directory exists and its own name is durable (its parent was synced after
/// creating it); the region's directory layout takes care of that.
#[derive(Clone, Debug)]
pub struct StoreFs {
    files: Arc<dyn FileStore>,
    dir: PathBuf,
}

impl StoreFs {
    /// The directory `dir` of `files`. Does no I/O.
    pub fn new(files: Arc<dyn FileStore>, dir: impl Into<PathBuf>) -> StoreFs {
        StoreFs {
            files,
            dir: dir.into(),
        }
    }

    /// The local directory `dir`. Does no I/O.
    pub fn local(dir: impl Into<PathBuf>) -> StoreFs {
        StoreFs::new(Arc::new(Local), dir)
    }
}

impl Fs for StoreFs {
    fn list(&self) -> io::Result<Vec<String>> {
        Ok(self
            .files
            .list(&self.dir)?
            .into_iter()
            .filter(|e| !e.is_dir)
            .map(|e| e.name)
            .collect())
    }

    fn read(&self, name: &str) -> io::Result<Vec<u8>> {
        self.files.read(&self.dir.join(name))
    }

    fn write(&self, name: &str, data: &[u8]) -> io::Result<()> {
        let mut w = self.files.create(&self.dir.join(name))?;
        w.write_all(data)?;
        // Stores that write remote blocks need the sync before the close to keep the
        // contract "durable after sync_file": sync here is cheap on local files (the file
        // is synced again by sync_file) and required on HDFS (a closed file cannot sync).
        w.sync()?;
        FileWriter::close(w)
    }

    fn sync_file(&self, _name: &str) -> io::Result<()> {
        // `write` synced the file before closing it.
        Ok(())
    }

    fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        self.files.rename(&self.dir.join(from), &self.dir.join(to))
    }

    fn remove(&self, name: &str) -> io::Result<()> {
        self.files.remove_file(&self.dir.join(name))
    }

    fn sync_dir(&self) -> io::Result<()> {
        self.files.sync_dir(&self.dir)
    }
}
