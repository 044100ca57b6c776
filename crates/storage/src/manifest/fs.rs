//! The file-system operations a manifest needs, behind a trait so a test double can simulate a
//! crash after any one of them ([`super::SimFs`]).
//!
//! Durability contract (POSIX, as on ext4 and XFS): written bytes are durable only after
//! [`Fs::sync_file`]; a created, renamed or removed name is durable only after
//! [`Fs::sync_dir`]. Until then a crash may keep or lose each change; the manifest never relies
//! on more.

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::PathBuf;

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

/// [`Fs`] on a local directory.
///
/// Requires: the directory exists and its own name is durable (its parent was synced after
/// creating it); the region's directory layout takes care of that.
#[derive(Clone, Debug)]
pub struct LocalFs {
    dir: PathBuf,
}

impl LocalFs {
    /// The directory `dir`. Does no I/O.
    pub fn new(dir: impl Into<PathBuf>) -> LocalFs {
        LocalFs { dir: dir.into() }
    }
}

impl Fs for LocalFs {
    fn list(&self) -> io::Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in fs::read_dir(&self.dir)? {
            let entry = entry?;
            if let Ok(name) = entry.file_name().into_string() {
                names.push(name);
            }
        }
        Ok(names)
    }

    fn read(&self, name: &str) -> io::Result<Vec<u8>> {
        fs::read(self.dir.join(name))
    }

    fn write(&self, name: &str, data: &[u8]) -> io::Result<()> {
        let mut f = File::create(self.dir.join(name))?;
        f.write_all(data)
    }

    fn sync_file(&self, name: &str) -> io::Result<()> {
        // fsync through a new descriptor flushes the same inode's dirty pages.
        OpenOptions::new()
            .write(true)
            .open(self.dir.join(name))?
            .sync_all()
    }

    fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        fs::rename(self.dir.join(from), self.dir.join(to))
    }

    fn remove(&self, name: &str) -> io::Result<()> {
        fs::remove_file(self.dir.join(name))
    }

    fn sync_dir(&self) -> io::Result<()> {
        File::open(&self.dir)?.sync_all()
    }
}
