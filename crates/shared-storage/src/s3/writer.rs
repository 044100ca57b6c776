//! Writing an object once: buffered into one PUT on close, or past one part's size a
//! multipart upload of 8 MiB parts completed on close; the pages written fill the cache. A
//! writer dropped before close leaves no object (its upload is aborted).

use std::io::{self, Write};
use std::time::Duration;

use object_store::path::Path as Key;
use object_store::{MultipartUpload, ObjectStoreExt, PutPayload};
use strata_storage::vfs::FileWriter;

use super::{io_error, S3Requests, S3};
use crate::s3_cache::{key_hash, PAGE};

/// Bytes per multipart part (S3 wants at least 5 MiB but for the last; a whole number of
/// cache pages, so parts fill the cache page by page).
const PART: usize = 8 << 20;

/// A file being written: one PUT on close if it stays under [`PART`], else a multipart
/// upload completed on close.
pub(super) struct S3Writer {
    s3: S3,
    key: Key,
    hash: u128,
    buf: Vec<u8>,
    upload: Option<Box<dyn MultipartUpload>>,
    /// Bytes already handed to parts.
    uploaded: u64,
    done: bool,
}

impl S3Writer {
    /// A writer of the object `key`, nothing sent yet.
    pub(super) fn new(s3: S3, key: Key) -> S3Writer {
        S3Writer {
            s3,
            hash: key_hash(key.as_ref()),
            key,
            buf: Vec::new(),
            upload: None,
            uploaded: 0,
            done: false,
        }
    }

    fn what(&self, op: &str) -> String {
        format!("{op} {}", self.s3.url_of(self.key.as_ref()))
    }

    /// Keeps the pages of `data` (at `offset`, page-aligned) in the cache: a file just written
    /// is often read back at once (compaction inputs, the first gets).
    fn cache_pages(&self, offset: u64, data: &[u8]) {
        if let Some(cache) = &self.s3.inner.cache {
            for (i, page) in data.chunks(PAGE as usize).enumerate() {
                cache.put(self.hash, offset / PAGE + i as u64, page);
            }
        }
    }

    /// Uploads `buf` as the next part (starting the upload first if needed).
    fn push_part(&mut self) -> io::Result<()> {
        self.s3.check_fence()?;
        let inner = &self.s3.inner;
        if self.upload.is_none() {
            S3Requests::count(&inner.requests.put);
            let (store, k) = (inner.store.clone(), self.key.clone());
            let upload = inner
                .bridge
                .run(&self.what("start upload of"), async move {
                    store.put_multipart(&k).await.map_err(io_error)
                })?;
            self.upload = Some(upload);
        }
        let data = std::mem::take(&mut self.buf);
        let upload = self.upload.as_mut().expect("the upload was just started");
        S3Requests::count(&inner.requests.put);
        let part = upload.put_part(PutPayload::from(data.clone()));
        inner
            .bridge
            .run(&self.what("upload a part of"), async move {
                part.await.map_err(io_error)
            })?;
        self.cache_pages(self.uploaded, &data);
        self.uploaded += data.len() as u64;
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        self.s3.check_fence()?;
        let inner = self.s3.inner.clone();
        match self.upload.take() {
            None => {
                let data = std::mem::take(&mut self.buf);
                S3Requests::count(&inner.requests.put);
                let (store, k, payload) = (
                    inner.store.clone(),
                    self.key.clone(),
                    PutPayload::from(data.clone()),
                );
                inner.bridge.run(&self.what("put"), async move {
                    store.put(&k, payload).await.map_err(io_error)
                })?;
                self.cache_pages(0, &data);
            }
            Some(upload) => {
                self.upload = Some(upload);
                if !self.buf.is_empty() {
                    self.push_part()?;
                }
                let mut upload = self.upload.take().expect("the upload is open");
                S3Requests::count(&inner.requests.put);
                inner.bridge.run(&self.what("complete"), async move {
                    upload.complete().await.map_err(io_error)
                })?;
            }
        }
        self.done = true;
        Ok(())
    }
}

impl Write for S3Writer {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.done {
            return Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                self.what("closed:"),
            ));
        }
        self.buf.extend_from_slice(buf);
        if self.buf.len() >= PART {
            let rest = self.buf.split_off(PART);
            self.push_part()?;
            self.buf = rest;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl FileWriter for S3Writer {
    fn sync(&mut self) -> io::Result<()> {
        // Nothing is durable on S3 before the object is complete: close is the durability
        // point, and callers close before they publish the file's name.
        if self.done {
            return Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                self.what("closed:"),
            ));
        }
        Ok(())
    }

    fn close(mut self: Box<Self>) -> io::Result<()> {
        self.finish()
    }
}

impl Drop for S3Writer {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        // Never completed: the object does not exist; drop its cached pages and the parts.
        if let Some(cache) = &self.s3.inner.cache {
            cache.invalidate(self.hash);
        }
        if let Some(mut upload) = self.upload.take() {
            let _ = self
                .s3
                .inner
                .bridge
                .run_for("abort", Duration::from_secs(5), async move {
                    upload.abort().await.map_err(io_error)
                });
        }
    }
}
