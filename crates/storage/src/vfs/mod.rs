//! The two storage interfaces every byte Strata keeps goes through (RFC 0011):
//!
//! - [`FileStore`]: write-once files (store files, manifests, the catalog): create (stream,
//!   sync, close), ranged reads (the sstable [`Source`]), list, rename (the atomic publish of a
//!   manifest), delete, and a storage policy on a directory.
//! - [`LogStore`]: append-only logs (WAL segments): create, append, flush to the log's
//!   durability point, durable sync, read back from any offset, cut a closed log, and fence a
//!   dead writer by recovering its lease.
//!
//! [`Local`] implements both on the local file system (the default); [`Faulty`] wraps any
//! store to inject errors and latency in tests, and to take crash images
//! ([`CrashImage`]) that keep only what was made durable. Shared stores (HDFS) live in the
//! `strata-shared-storage` crate and implement the same traits; nothing else in the engine,
//! the server or the master touches files.
//!
//! Paths are the store's own: absolute local paths for [`Local`], absolute paths in the
//! namespace of a remote store (`/strata/tables/...`) otherwise. [`FileStore::url`] names a
//! path for people (`hdfs://host:port/strata/...`).
//!
//! Durability contract (both traits): bytes are durable after `sync`; a created, renamed or
//! removed name is durable after [`FileStore::sync_dir`] (or [`LogStore::sync_dir`]) of its
//! directory. Stores whose namespace is durable by itself (HDFS: the NameNode's edit log)
//! make `sync_dir` a no-op. Code written against this contract is crash-safe on every store.

mod crash;
mod faulty;
mod local;
mod source_reader;

use std::fmt;
use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;

pub use crash::CrashImage;
pub use faulty::{Fault, FaultOp, Faulty};
pub use local::Local;
pub use source_reader::SourceReader;
pub use strata_model::schema::StoragePolicy;
pub use strata_sstable::Source;

/// One entry of a directory listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirEntry {
    /// The entry's name (no `/`).
    pub name: String,
    /// Length in bytes (0 for directories).
    pub len: u64,
    /// True for a directory.
    pub is_dir: bool,
}

/// A file being written once: a byte stream, then [`sync`](FileWriter::sync) and
/// [`close`](FileWriter::close).
///
/// Thread safety: used by one thread at a time.
pub trait FileWriter: Write + Send {
    /// Makes everything written so far durable.
    ///
    /// # Errors
    /// Any I/O error; durability of the written bytes is then unknown.
    fn sync(&mut self) -> io::Result<()>;

    /// Finishes the file; on remote stores this commits its last block.
    ///
    /// # Errors
    /// Any I/O error; the file's content is then unspecified.
    fn close(self: Box<Self>) -> io::Result<()>;
}

/// Write-once files with ranged reads: store files, manifests, the catalog.
///
/// Thread safety: shared by all threads of a process; methods take `&self`.
pub trait FileStore: Send + Sync + fmt::Debug {
    /// The URL of `path` as people read it (`file:///…`, `hdfs://host:port/…`).
    fn url(&self, path: &Path) -> String;

    /// The store's scheme: `file`, `hdfs`, …
    fn scheme(&self) -> &'static str;

    /// Creates `dir` and its missing parents, durably.
    ///
    /// # Errors
    /// Any I/O error.
    fn create_dir_all(&self, dir: &Path) -> io::Result<()>;

    /// The entries of `dir`, in any order.
    ///
    /// # Errors
    /// `NotFound` if `dir` does not exist; other I/O errors.
    fn list(&self, dir: &Path) -> io::Result<Vec<DirEntry>>;

    /// The length of the file at `path` (0 for a directory), `None` if nothing is there.
    ///
    /// # Errors
    /// I/O errors other than absence.
    fn len(&self, path: &Path) -> io::Result<Option<u64>>;

    /// True when a file or directory is at `path`.
    ///
    /// # Errors
    /// I/O errors other than absence.
    fn exists(&self, path: &Path) -> io::Result<bool> {
        Ok(self.len(path)?.is_some())
    }

    /// The whole content of `path`.
    ///
    /// # Errors
    /// `NotFound`, or any I/O error.
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;

    /// Opens `path` for positional reads.
    ///
    /// # Errors
    /// `NotFound`, or any I/O error.
    fn open(&self, path: &Path) -> io::Result<Arc<dyn Source>>;

    /// Creates `path` for writing, replacing a file there. Its parent directory must exist.
    /// Not durable until [`FileWriter::sync`] and a [`sync_dir`](Self::sync_dir) of the
    /// parent.
    ///
    /// # Errors
    /// Any I/O error.
    fn create(&self, path: &Path) -> io::Result<Box<dyn FileWriter>>;

    /// Renames `from` to `to` atomically, replacing `to` if it exists. Durable after
    /// [`sync_dir`](Self::sync_dir). This is how manifests and the catalog are published.
    ///
    /// # Errors
    /// Any I/O error; the rename then did not happen.
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;

    /// Removes the file at `path`.
    ///
    /// # Errors
    /// `NotFound`, or any I/O error.
    fn remove_file(&self, path: &Path) -> io::Result<()>;

    /// Removes `dir` and everything under it; a missing `dir` is fine.
    ///
    /// # Errors
    /// Any I/O error.
    fn remove_dir_all(&self, dir: &Path) -> io::Result<()>;

    /// Makes the names in `dir` (created, renamed, removed) durable.
    ///
    /// # Errors
    /// Any I/O error; which changes are durable is then unknown.
    fn sync_dir(&self, dir: &Path) -> io::Result<()>;

    /// Sets the storage policy of `dir`: files created under it afterwards are placed by it.
    /// Stores without storage types (local files, whose tiers are volumes) ignore it.
    ///
    /// # Errors
    /// The store refused the policy.
    fn set_storage_policy(&self, dir: &Path, policy: StoragePolicy) -> io::Result<()> {
        let _ = (dir, policy);
        Ok(())
    }

    /// True when the store places files by storage policies itself (HDFS), so a family's
    /// `STORAGE_POLICY` is set on its directory instead of choosing a volume.
    fn places_by_policy(&self) -> bool {
        false
    }

    /// Takes the exclusive lock `path` (created if missing) for as long as the returned guard
    /// lives, so one process at a time owns a root.
    ///
    /// # Errors
    /// [`io::ErrorKind::WouldBlock`] when another process holds it; other I/O errors.
    fn lock(&self, path: &Path) -> io::Result<Box<dyn Send + Sync>>;

    /// Writes `data` to `path` durably in one go: a temporary sibling, synced, renamed over
    /// `path`, parent synced. Readers see the old or the new content, never a mix.
    ///
    /// # Errors
    /// Any I/O error; `path` then holds its old content.
    fn write_atomic(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        let mut tmp_name = path.file_name().unwrap_or_default().to_owned();
        tmp_name.push(".tmp");
        self.write_atomic_through(path, &path.with_file_name(tmp_name), data)
    }

    /// [`write_atomic`](Self::write_atomic) through the temporary sibling `tmp`: for writers
    /// in several processes that may write the same `path` at once, each through a name of
    /// its own (on HDFS a second `create` of one temporary name takes the file from the
    /// first).
    ///
    /// # Errors
    /// As [`write_atomic`](Self::write_atomic); `tmp` is removed.
    fn write_atomic_through(&self, path: &Path, tmp: &Path, data: &[u8]) -> io::Result<()> {
        let dir = path.parent().unwrap_or(Path::new(""));
        let written = (|| {
            let mut w = self.create(tmp)?;
            w.write_all(data)?;
            w.sync()?;
            w.close()?;
            self.rename(tmp, path)?;
            self.sync_dir(dir)
        })();
        if written.is_err() {
            let _ = self.remove_file(tmp);
        }
        written
    }
}

/// A log being appended to (one WAL segment).
///
/// Thread safety: used by one thread at a time (the group-commit leader).
pub trait LogFile: Send {
    /// Appends all of `buf` at the current end.
    ///
    /// # Errors
    /// Any I/O error; some prefix of `buf` may then have been written.
    fn append(&mut self, buf: &[u8]) -> io::Result<()>;

    /// Makes everything appended so far survive a crash of this process (HDFS `hflush`;
    /// on local files the bytes are in the OS after `append`, so nothing to do).
    ///
    /// # Errors
    /// Any I/O error; the appended bytes' fate is then unknown.
    fn flush(&mut self) -> io::Result<()>;

    /// Makes everything appended so far durable (`fdatasync`; HDFS `hsync`).
    ///
    /// # Errors
    /// Any I/O error, including a lost lease (another process fenced this writer): the
    /// caller must assume bytes since the last successful sync are lost.
    fn sync(&mut self) -> io::Result<()>;

    /// Starts writing `len` bytes from `offset` to the device without waiting for them, so
    /// that a later [`sync`](LogFile::sync) finds little left to write (RocksDB's
    /// `wal_bytes_per_sync`). A hint: durability is unchanged. The default does nothing.
    ///
    /// # Errors
    /// Any I/O error; callers may ignore it.
    fn start_writeback(&mut self, offset: u64, len: u64) -> io::Result<()> {
        let _ = (offset, len);
        Ok(())
    }

    /// Cuts the file to `len` bytes; the next append starts there.
    ///
    /// # Errors
    /// [`io::ErrorKind::Unsupported`] on stores that cannot cut an open log (HDFS): the
    /// caller rolls to a new log instead. Other I/O errors.
    fn truncate(&mut self, len: u64) -> io::Result<()>;

    /// Closes the log: on shared stores this ends the writer's lease and makes the length
    /// final for readers. Called after a roll and when the WAL closes; later calls fail.
    ///
    /// # Errors
    /// Any I/O error (a fenced writer cannot close).
    fn close(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Append-only logs (the WAL): create, append, sync, read back, fence.
///
/// Thread safety: shared by the WAL's threads; methods take `&self`.
pub trait LogStore: Send + Sync {
    /// The URL of `path` as people read it.
    fn url(&self, path: &Path) -> String;

    /// True when an append plus [`LogFile::flush`] costs a local system call, never a network
    /// round trip: a request thread may then write the WAL itself instead of waiting for
    /// another thread to (`Wal::try_append_now`). False unless a store says so.
    fn quick_appends(&self) -> bool {
        false
    }

    /// Creates `dir` and its missing parents, durably.
    ///
    /// # Errors
    /// Any I/O error.
    fn create_dir_all(&self, dir: &Path) -> io::Result<()>;

    /// Creates `path` (replacing any file there) for appending, empty. The directory must
    /// exist: a log is never created in a directory another process has renamed away.
    ///
    /// # Errors
    /// Any I/O error.
    fn create(&self, path: &Path) -> io::Result<Box<dyn LogFile>>;

    /// The files in `dir` as (name, length).
    ///
    /// # Errors
    /// `NotFound` if `dir` does not exist; other I/O errors.
    fn list(&self, dir: &Path) -> io::Result<Vec<DirEntry>>;

    /// Opens `path` for positional reads of what is in it now (a log still being written
    /// shows its synced length).
    ///
    /// # Errors
    /// `NotFound`, or any I/O error.
    fn open(&self, path: &Path) -> io::Result<Arc<dyn Source>>;

    /// Cuts a closed log to `len` bytes, durably (a torn tail found on recovery).
    ///
    /// # Errors
    /// Any I/O error; the file may then still hold bytes past `len`.
    fn cut(&self, path: &Path, len: u64) -> io::Result<()>;

    /// Removes the file at `path`.
    ///
    /// # Errors
    /// `NotFound`, or any I/O error.
    fn remove(&self, path: &Path) -> io::Result<()>;

    /// Makes the directory's entries (created or removed files) durable.
    ///
    /// # Errors
    /// Any I/O error.
    fn sync_dir(&self, dir: &Path) -> io::Result<()>;

    /// Fences the writer of `path`: after `Ok`, whoever had it open for appending can never
    /// append or sync to it again, and its length is final. Returns whether the log was still
    /// open (so its length may have changed). A no-op returning `false` on local files, where
    /// one process owns a data directory (its lock file says so).
    ///
    /// # Errors
    /// The store could not recover the lease in time.
    fn recover_lease(&self, path: &Path) -> io::Result<bool> {
        let _ = path;
        Ok(false)
    }

    /// Renames the log directory `from` to `to`, atomically and durably; `to` must not exist.
    /// The master moves a dead server's WAL directory away before fencing its logs: as
    /// [`LogStore::create`] never creates parents, a writer that outlived its lease can then
    /// create no new log where the fencer would not look.
    ///
    /// # Errors
    /// `AlreadyExists` if `to` exists, `NotFound` if `from` does not, `Unsupported` on a
    /// store without atomic directory renames (the default), or any I/O error.
    fn rename_dir(&self, from: &Path, to: &Path) -> io::Result<()> {
        let _ = (from, to);
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "this log store cannot rename directories",
        ))
    }

    /// Closes this process's own log `path` whose writer broke (an HDFS pipeline whose
    /// DataNode died), so the WAL may go on in a new log. Returns `true` only if this call
    /// started the close: `false` when the log was already closed or being closed by someone
    /// else (a fence), and on stores without leases (the default).
    ///
    /// # Errors
    /// The store could not close it in time.
    fn reclaim(&self, path: &Path) -> io::Result<bool> {
        let _ = path;
        Ok(false)
    }

    /// Sets the storage policy of the log directory `dir` (HDFS); ignored elsewhere.
    ///
    /// # Errors
    /// The store refused the policy.
    fn set_storage_policy(&self, dir: &Path, policy: StoragePolicy) -> io::Result<()> {
        let _ = (dir, policy);
        Ok(())
    }
}

/// Where a process keeps its data: the file store and the log store (often one object).
#[derive(Clone, Debug)]
pub struct Storage {
    /// Store files, manifests, the catalog.
    pub files: Arc<dyn FileStore>,
    /// WAL segments.
    pub logs: Arc<dyn LogStore>,
}

impl Storage {
    /// Both on the local file system.
    pub fn local() -> Storage {
        Storage {
            files: Arc::new(Local),
            logs: Arc::new(Local),
        }
    }

    /// True when files are on the local file system (volumes by storage type apply).
    pub fn is_local(&self) -> bool {
        self.files.scheme() == "file"
    }
}

impl Default for Storage {
    fn default() -> Storage {
        Storage::local()
    }
}

impl fmt::Debug for dyn LogStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.url(Path::new("/")))
    }
}
