//! [`FileStore`] and [`LogStore`] on the local file system: the only place in the engine,
//! server and master that touches `std::fs` for data.
//!
//! Durability (POSIX, as on ext4 and XFS): `sync` is `fdatasync`/`fsync` of the file; names
//! are durable after an `fsync` of their directory. Logs have no separate flush point: an
//! appended byte is in the OS page cache and survives a crash of the process.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::Arc;

use super::{DirEntry, FileStore, FileWriter, LogFile, LogStore, Source};

/// The local file system.
#[derive(Clone, Copy, Debug, Default)]
pub struct Local;

fn list_dir(dir: &Path) -> io::Result<Vec<DirEntry>> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let meta = entry.metadata()?;
        out.push(DirEntry {
            name,
            len: if meta.is_dir() { 0 } else { meta.len() },
            is_dir: meta.is_dir(),
        });
    }
    Ok(out)
}

/// Creates `dir` and missing parents, syncing each parent that gained an entry.
fn create_dir_all_durable(dir: &Path) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut missing = Vec::new();
    let mut at = dir;
    while !at.exists() {
        missing.push(at.to_path_buf());
        match at.parent() {
            Some(p) if !p.as_os_str().is_empty() => at = p,
            _ => break,
        }
    }
    fs::create_dir_all(dir)?;
    for created in missing {
        if let Some(parent) = created.parent().filter(|p| !p.as_os_str().is_empty()) {
            File::open(parent)?.sync_all()?;
        }
    }
    Ok(())
}

fn sync_dir(dir: &Path) -> io::Result<()> {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    File::open(dir)?.sync_all()
}

fn url(path: &Path) -> String {
    match std::path::absolute(path) {
        Ok(p) => format!("file://{}", p.display()),
        Err(_) => format!("file://{}", path.display()),
    }
}

impl FileStore for Local {
    fn url(&self, path: &Path) -> String {
        url(path)
    }

    fn scheme(&self) -> &'static str {
        "file"
    }

    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        create_dir_all_durable(dir)
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        list_dir(dir)
    }

    fn len(&self, path: &Path) -> io::Result<Option<u64>> {
        match fs::metadata(path) {
            Ok(m) => Ok(Some(m.len())),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        fs::read(path)
    }

    fn open(&self, path: &Path) -> io::Result<Arc<dyn Source>> {
        Ok(Arc::new(File::open(path)?))
    }

    fn create(&self, path: &Path) -> io::Result<Box<dyn FileWriter>> {
        let file = File::create(path)?;
        Ok(Box::new(LocalWriter {
            file: io::BufWriter::with_capacity(256 << 10, file),
        }))
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        fs::rename(from, to)
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        fs::remove_file(path)
    }

    fn remove_dir_all(&self, dir: &Path) -> io::Result<()> {
        match fs::remove_dir_all(dir) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        sync_dir(dir)
    }

    fn lock(&self, path: &Path) -> io::Result<Box<dyn Send + Sync>> {
        let file = File::create(path)?;
        file.try_lock().map_err(|e| match e {
            fs::TryLockError::WouldBlock => io::Error::new(
                io::ErrorKind::WouldBlock,
                format!("{} is held by another process", path.display()),
            ),
            fs::TryLockError::Error(e) => e,
        })?;
        Ok(Box::new(file))
    }
}

/// A local file being written once.
struct LocalWriter {
    file: io::BufWriter<File>,
}

impl Write for LocalWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.file.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl FileWriter for LocalWriter {
    fn sync(&mut self) -> io::Result<()> {
        self.file.flush()?;
        self.file.get_ref().sync_all()
    }

    fn close(mut self: Box<Self>) -> io::Result<()> {
        self.file.flush()
    }
}

impl LogStore for Local {
    fn url(&self, path: &Path) -> String {
        url(path)
    }

    fn quick_appends(&self) -> bool {
        true
    }

    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        create_dir_all_durable(dir)
    }

    fn create(&self, path: &Path) -> io::Result<Box<dyn LogFile>> {
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)?;
        Ok(Box::new(LocalLog { file }))
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        list_dir(dir)
    }

    fn open(&self, path: &Path) -> io::Result<Arc<dyn Source>> {
        Ok(Arc::new(File::open(path)?))
    }

    fn cut(&self, path: &Path, len: u64) -> io::Result<()> {
        let file = OpenOptions::new().write(true).open(path)?;
        file.set_len(len)?;
        file.sync_all()
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        fs::remove_file(path)
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        sync_dir(dir)
    }

    fn rename_dir(&self, from: &Path, to: &Path) -> io::Result<()> {
        // rename(2) replaces an empty directory: refuse an existing target first.
        if fs::symlink_metadata(to).is_ok() {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("{} exists", to.display()),
            ));
        }
        fs::rename(from, to)?;
        for parent in [from.parent(), to.parent()].into_iter().flatten() {
            sync_dir(parent)?;
        }
        Ok(())
    }
}

/// A local log file; the file position is always its end.
struct LocalLog {
    file: File,
}

impl LogFile for LocalLog {
    fn append(&mut self, buf: &[u8]) -> io::Result<()> {
        self.file.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn sync(&mut self) -> io::Result<()> {
        self.file.sync_data()
    }

    /// `POSIX_FADV_DONTNEED` over the range: Linux starts writeback of its dirty pages
    /// without waiting for it and drops the clean ones, which a log being appended to never
    /// reads again (PostgreSQL's `pg_flush_data` falls back to the same call).
    #[cfg(target_os = "linux")]
    fn start_writeback(&mut self, offset: u64, len: u64) -> io::Result<()> {
        use rustix::fs::{fadvise, Advice};
        fadvise(
            &self.file,
            offset,
            std::num::NonZeroU64::new(len),
            Advice::DontNeed,
        )?;
        Ok(())
    }

    fn truncate(&mut self, len: u64) -> io::Result<()> {
        self.file.set_len(len)?;
        self.file.seek(SeekFrom::Start(len))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_round_trip_and_publish_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let store = Local;
        let sub = dir.path().join("a/b");
        FileStore::create_dir_all(&store, &sub).unwrap();
        let path = sub.join("f");
        store.write_atomic(&path, b"hello").unwrap();
        assert_eq!(store.read(&path).unwrap(), b"hello");
        assert_eq!(store.len(&path).unwrap(), Some(5));
        assert_eq!(store.len(&sub.join("none")).unwrap(), None);
        let src = FileStore::open(&store, &path).unwrap();
        assert_eq!(&src.read_at(1, 3).unwrap()[..], b"ell");
        store.write_atomic(&path, b"bye").unwrap();
        assert_eq!(store.read(&path).unwrap(), b"bye");
        let names: Vec<_> = FileStore::list(&store, &sub)
            .unwrap()
            .into_iter()
            .map(|e| e.name)
            .collect();
        assert_eq!(names, vec!["f".to_owned()]);
        assert!(FileStore::url(&store, &path).starts_with("file:///"));
        store.remove_dir_all(&dir.path().join("a")).unwrap();
        store.remove_dir_all(&dir.path().join("a")).unwrap();
    }

    #[test]
    fn logs_append_cut_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = Local;
        let path = dir.path().join("log");
        let mut log = LogStore::create(&store, &path).unwrap();
        log.append(b"0123456789").unwrap();
        log.flush().unwrap();
        log.sync().unwrap();
        log.truncate(4).unwrap();
        log.append(b"x").unwrap();
        // A writeback hint (dirty pages written, clean ones dropped) loses nothing.
        log.start_writeback(0, 5).unwrap();
        assert_eq!(
            &LogStore::open(&store, &path)
                .unwrap()
                .read_at(0, 5)
                .unwrap()[..],
            b"0123x"
        );
        store.cut(&path, 2).unwrap();
        assert_eq!(LogStore::open(&store, &path).unwrap().size().unwrap(), 2);
        assert!(!store.recover_lease(&path).unwrap());
    }
}
