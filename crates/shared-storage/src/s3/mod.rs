//! The engine's [`FileStore`] on S3-compatible object storage (`object_store`'s `AmazonS3`),
//! with a local disk cache of pages in front of it ([`PageCache`]). Never a log store: the
//! WAL stays on local files or HDFS (`--wal-root`).
//!
//! Contracts on S3 (RFC 0011):
//! - A file is one object, invisible until [`FileWriter::close`]: a single PUT when it is
//!   small, else a multipart upload of 8 MiB parts completed on close. Close is the durability
//!   point (`sync` only checks the upload is healthy); every caller closes a file before
//!   publishing its name, so "durable after sync and close" holds.
//! - Directories are key prefixes: `create_dir_all` and `sync_dir` do nothing (S3 answers a
//!   PUT or DELETE only once it is durable, and lists are strongly consistent); a directory
//!   exists while something is under it; listing a missing one is empty.
//! - `rename` is a server-side copy (the target appears whole, replacing any old one) and a
//!   delete of the source: atomic for readers of the target, which is what publishing a
//!   manifest, the catalog or `WAL_LOCATION` needs (RFC 0011, "Manifests").
//! - The root's lock is a put-if-absent of `LOCK`, renewed while held; a store that lost it
//!   refuses every write (`lock.rs`).
//!
//! Files: `connect.rs` (settings, reaching the bucket), `files.rs` (the [`FileStore`]
//! operations), `writer.rs` (write once: one PUT or a multipart upload), `source.rs`
//! (positional reads through the page cache), `lock.rs` (the root's lock); this file holds the
//! store and the requests every part sends.

use std::fmt;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use object_store::aws::AmazonS3;
use object_store::path::Path as Key;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, UpdateVersion};

use crate::runtime::Bridge;
use crate::s3_cache::{key_hash, PageCache};

mod connect;
mod files;
mod lock;
mod source;
mod writer;

pub use connect::S3Options;

/// Requests sent to S3, by kind: what tests and benchmarks count (a warm read sends no GET).
#[derive(Debug, Default)]
pub struct S3Requests {
    /// GETs, whole or ranged.
    pub get: AtomicU64,
    /// PUTs, multipart parts and completions.
    pub put: AtomicU64,
    /// HEADs.
    pub head: AtomicU64,
    /// LISTs.
    pub list: AtomicU64,
    /// DELETEs and COPYs.
    pub other: AtomicU64,
}

impl S3Requests {
    fn count(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

/// What the store's writers and readers share.
struct Inner {
    store: Arc<AmazonS3>,
    bucket: String,
    bridge: Bridge,
    cache: Option<PageCache>,
    requests: S3Requests,
    /// The root lock's renewal period.
    lock_renew: std::time::Duration,
    /// The host name the root lock names (`None`: this host's).
    lock_host: Option<String>,
    /// Why this store refuses writes: it lost the root's lock (`lock.rs`).
    fenced: parking_lot::Mutex<Option<String>>,
}

/// The file store on one bucket.
///
/// Thread safety: shared by all threads; every request runs on the store's own runtime.
#[derive(Clone)]
pub struct S3 {
    inner: Arc<Inner>,
}

impl fmt::Debug for S3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "S3(s3://{})", self.inner.bucket)
    }
}

/// An `object_store` error as an I/O error of the same meaning.
pub(crate) fn io_error(e: object_store::Error) -> io::Error {
    use object_store::Error as E;
    let kind = match &e {
        E::NotFound { .. } => io::ErrorKind::NotFound,
        E::AlreadyExists { .. } | E::Precondition { .. } => io::ErrorKind::AlreadyExists,
        E::PermissionDenied { .. } | E::Unauthenticated { .. } => io::ErrorKind::PermissionDenied,
        E::NotSupported { .. } | E::NotImplemented { .. } => io::ErrorKind::Unsupported,
        _ => io::ErrorKind::Other,
    };
    io::Error::new(kind, e.to_string())
}

impl S3 {
    /// The bucket.
    pub fn bucket(&self) -> &str {
        &self.inner.bucket
    }

    /// Requests sent so far.
    pub fn requests(&self) -> &S3Requests {
        &self.inner.requests
    }

    /// The page cache, when enabled.
    pub fn cache(&self) -> Option<&PageCache> {
        self.inner.cache.as_ref()
    }

    /// Why the store refuses writes, once it lost the root's lock to another process.
    pub fn fenced(&self) -> Option<String> {
        self.inner.fenced.lock().clone()
    }

    /// Refuses every later write, naming `why`.
    pub(crate) fn fence(&self, why: String) {
        self.inner.fenced.lock().get_or_insert(why);
    }

    /// `Err` once the store is fenced: no write reaches the bucket after the lock is lost.
    pub(crate) fn check_fence(&self) -> io::Result<()> {
        match self.inner.fenced.lock().as_ref() {
            Some(why) => Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!("s3://{}: writes refused: {why}", self.inner.bucket),
            )),
            None => Ok(()),
        }
    }

    fn url_of(&self, key: &str) -> String {
        format!("s3://{}/{key}", self.inner.bucket)
    }

    /// Runs `f` with the store on the runtime, naming `path` in errors.
    fn run<T, F, Fut>(&self, what: &str, path: &Path, f: F) -> io::Result<T>
    where
        T: Send + 'static,
        F: FnOnce(Arc<AmazonS3>, Key) -> Fut,
        Fut: std::future::Future<Output = object_store::Result<T>> + Send + 'static,
    {
        let k = key(path)?;
        let fut = f(self.inner.store.clone(), k.clone());
        self.inner
            .bridge
            .run(&format!("{what} {}", self.url_of(k.as_ref())), async move {
                fut.await.map_err(io_error)
            })
    }

    fn forget(&self, path: &Path) {
        if let (Some(cache), Ok(k)) = (&self.inner.cache, key(path)) {
            cache.invalidate(key_hash(k.as_ref()));
        }
    }

    /// Creates `path` holding `data` only if nothing is there; returns its ETag.
    ///
    /// # Errors
    /// `AlreadyExists` when an object is there; other I/O errors.
    pub(crate) fn put_new(&self, path: &Path, data: Vec<u8>) -> io::Result<Option<String>> {
        self.put_mode(path, data, PutMode::Create)
    }

    /// Replaces `path` with `data` only if its ETag is still `etag`; returns the new ETag.
    ///
    /// # Errors
    /// `AlreadyExists` when the object changed since; other I/O errors.
    pub(crate) fn put_if_match(
        &self,
        path: &Path,
        data: Vec<u8>,
        etag: String,
    ) -> io::Result<Option<String>> {
        let version = UpdateVersion {
            e_tag: Some(etag),
            version: None,
        };
        self.put_mode(path, data, PutMode::Update(version))
    }

    fn put_mode(&self, path: &Path, data: Vec<u8>, mode: PutMode) -> io::Result<Option<String>> {
        self.check_fence()?;
        S3Requests::count(&self.inner.requests.put);
        self.forget(path);
        self.run("put", path, move |s, k| async move {
            let opts = PutOptions {
                mode,
                ..PutOptions::default()
            };
            s.put_opts(&k, PutPayload::from(data), opts)
                .await
                .map(|r| r.e_tag)
        })
    }

    /// The content of `path` and its ETag.
    ///
    /// # Errors
    /// `NotFound`, or any I/O error.
    pub(crate) fn get_tagged(&self, path: &Path) -> io::Result<(Bytes, Option<String>)> {
        S3Requests::count(&self.inner.requests.get);
        self.run("get", path, |s, k| async move {
            let got = s.get(&k).await?;
            let etag = got.meta.e_tag.clone();
            Ok((got.bytes().await?, etag))
        })
    }

    /// Deletes `path` (no error if absent).
    pub(crate) fn delete(&self, path: &Path) -> io::Result<()> {
        self.check_fence()?;
        S3Requests::count(&self.inner.requests.other);
        self.forget(path);
        self.run("delete", path, |s, k| async move { s.delete(&k).await })
    }
}

/// The object key of `path`: the path without its leading `/`.
fn key(path: &Path) -> io::Result<Key> {
    let text = path.to_str().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{}: not UTF-8", path.display()),
        )
    })?;
    Key::parse(text.trim_matches('/')).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{}: not an object key: {e}", path.display()),
        )
    })
}

fn prefix(k: &Key) -> Option<&Key> {
    (!k.as_ref().is_empty()).then_some(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_paths_without_the_leading_slash() {
        assert_eq!(
            key(Path::new("/strata/a/b")).unwrap().as_ref(),
            "strata/a/b"
        );
        assert_eq!(key(Path::new("/")).unwrap().as_ref(), "");
        assert!(key(Path::new("/a/../b")).is_err());
    }
}
