//! One process per root on S3: the root's `LOCK` object is created with put-if-absent
//! (`If-None-Match: *`) holding `host pid`, and deleted when the holder lets go. A second
//! process finds it there and is refused, naming the holder. A lock left by a killed process
//! on the same host (its pid is gone) is taken over by replacing the object only if its ETag
//! is still the one read (`If-Match`), so of two processes taking it over only one wins. A
//! lock left by another host is refused until an operator removes the object (S3 has no
//! lease that would expire by itself).

use std::io;
use std::path::{Path, PathBuf};

use strata_storage::vfs::FileStore;

use super::S3;
use crate::hdfs_lock::{dead_here, holder_line};

/// Holds the lock; deletes `LOCK` when dropped.
struct HeldS3Lock {
    s3: S3,
    path: PathBuf,
}

impl Drop for HeldS3Lock {
    fn drop(&mut self) {
        let _ = self.s3.delete(&self.path);
    }
}

fn parse(bytes: &[u8]) -> Option<(String, u32)> {
    let text = std::str::from_utf8(bytes).ok()?;
    let (host, pid) = text.trim().split_once(' ')?;
    Some((host.to_owned(), pid.trim().parse().ok()?))
}

pub(crate) fn lock(s3: &S3, path: &Path) -> io::Result<Box<dyn Send + Sync>> {
    let me = holder_line().into_bytes();
    let held = || -> Box<dyn Send + Sync> {
        Box::new(HeldS3Lock {
            s3: s3.clone(),
            path: path.to_owned(),
        })
    };
    match s3.put_new(path, me.clone()) {
        Ok(_) => return Ok(held()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let (bytes, etag) = match s3.get_tagged(path) {
        Ok(got) => got,
        // Let go of meanwhile: try once more.
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return s3
                .put_new(path, me)
                .map(|_| held())
                .map_err(|e| refused(s3, path, e));
        }
        Err(e) => return Err(e),
    };
    let holder = parse(&bytes);
    if let (Some(h), Some(etag)) = (&holder, etag) {
        if dead_here(h) {
            return s3
                .put_if_match(path, me, etag)
                .map(|_| held())
                .map_err(|e| refused(s3, path, e));
        }
    }
    let who = holder.map_or("another process".to_owned(), |(h, p)| {
        format!("process {p} on {h}")
    });
    Err(io::Error::new(
        io::ErrorKind::WouldBlock,
        format!(
            "{} is held by {who} (if that process is gone, delete the object)",
            s3.url(path)
        ),
    ))
}

/// A lost race for the lock as `WouldBlock`.
fn refused(s3: &S3, path: &Path, e: io::Error) -> io::Error {
    if e.kind() == io::ErrorKind::AlreadyExists {
        io::Error::new(
            io::ErrorKind::WouldBlock,
            format!("{} was taken by another process", s3.url(path)),
        )
    } else {
        e
    }
}
