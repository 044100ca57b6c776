//! Where the master keeps its catalog. A [`Coordinator`] stores one versioned blob durably;
//! standalone uses [`LocalCoordinator`] (a file under the root, on the root's file store:
//! local files or HDFS), a cluster an etcd key behind the same trait.
//!
//! # On-disk format of [`LocalCoordinator`]
//! `catalog` = magic `STRCAT01` (8 bytes) ‖ length u32 LE ‖ CRC32C u32 LE of the payload ‖
//! payload (a protobuf `strata.v1.Catalog`). It is replaced whole
//! ([`FileStore::write_atomic`]: written to `catalog.tmp`, synced, renamed over `catalog`, and
//! the directory synced), so a crash leaves either the old or the new catalog, never a torn
//! one.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use strata_storage::vfs::{FileStore, Local};

use crate::error::{MasterError, Result};

const MAGIC: &[u8; 8] = b"STRCAT01";

/// Durable storage of the master's catalog.
pub trait Coordinator: Send + Sync {
    /// The stored catalog, or `None` before the first store.
    ///
    /// # Errors
    /// I/O, or a stored catalog that is damaged.
    fn load(&self) -> Result<Option<Vec<u8>>>;

    /// Replaces the stored catalog atomically and durably.
    ///
    /// # Errors
    /// I/O (the previous catalog is still in place then).
    fn store(&self, catalog: &[u8]) -> Result<()>;
}

/// The standalone coordinator: a checksummed file replaced atomically.
pub struct LocalCoordinator {
    files: Arc<dyn FileStore>,
    dir: PathBuf,
}

impl LocalCoordinator {
    /// A coordinator keeping its file in the local directory `dir` (created if missing).
    ///
    /// # Errors
    /// The directory cannot be created.
    pub fn new(dir: impl Into<PathBuf>) -> Result<LocalCoordinator> {
        LocalCoordinator::on(Arc::new(Local), dir)
    }

    /// A coordinator keeping its file in `dir` of `files` (created if missing).
    ///
    /// # Errors
    /// The directory cannot be created.
    pub fn on(files: Arc<dyn FileStore>, dir: impl Into<PathBuf>) -> Result<LocalCoordinator> {
        let dir = dir.into();
        files
            .create_dir_all(&dir)
            .map_err(|e| MasterError::io(&dir, e))?;
        Ok(LocalCoordinator { files, dir })
    }

    fn path(&self) -> PathBuf {
        self.dir.join("catalog")
    }
}

impl Coordinator for LocalCoordinator {
    fn load(&self) -> Result<Option<Vec<u8>>> {
        let path = self.path();
        let bytes = match self.files.read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(MasterError::io(&path, e)),
        };
        decode_frame(&bytes)
            .map(|p| Some(p.to_vec()))
            .map_err(|why| MasterError::Corrupt(format!("{}: {why}", path.display())))
    }

    fn store(&self, catalog: &[u8]) -> Result<()> {
        let mut frame = Vec::with_capacity(catalog.len() + 16);
        frame.extend_from_slice(MAGIC);
        frame.extend_from_slice(&(catalog.len() as u32).to_le_bytes());
        frame.extend_from_slice(&crc32c::crc32c(catalog).to_le_bytes());
        frame.extend_from_slice(catalog);
        let path = self.path();
        self.files
            .write_atomic(&path, &frame)
            .map_err(|e| MasterError::io(&path, e))
    }
}

fn decode_frame(bytes: &[u8]) -> std::result::Result<&[u8], String> {
    if bytes.len() < 16 || &bytes[..8] != MAGIC {
        return Err("not a catalog file (bad magic or too short)".into());
    }
    let len = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
    let crc = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]);
    let payload = &bytes[16..];
    if payload.len() != len {
        return Err(format!("length {} but {len} expected", payload.len()));
    }
    if crc32c::crc32c(payload) != crc {
        return Err("checksum mismatch".into());
    }
    Ok(payload)
}

/// True if `dir` of `files` holds a catalog file.
pub fn has_catalog(files: &dyn FileStore, dir: &Path) -> bool {
    files.exists(&dir.join("catalog")).unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn stores_and_loads_and_detects_damage() {
        let dir = tempfile::tempdir().unwrap();
        let c = LocalCoordinator::new(dir.path()).unwrap();
        assert_eq!(c.load().unwrap(), None);
        c.store(b"hello").unwrap();
        assert_eq!(c.load().unwrap().as_deref(), Some(&b"hello"[..]));
        c.store(b"second").unwrap();
        assert_eq!(c.load().unwrap().as_deref(), Some(&b"second"[..]));
        let path = dir.path().join("catalog");
        let mut bytes = fs::read(&path).unwrap();
        for i in 0..bytes.len() {
            bytes[i] ^= 0x40;
            fs::write(&path, &bytes).unwrap();
            assert!(c.load().is_err(), "flip at {i} undetected");
            bytes[i] ^= 0x40;
        }
        fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        assert!(c.load().is_err());
    }
}
