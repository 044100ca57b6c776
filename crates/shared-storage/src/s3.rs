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
//! - The root's lock is a put-if-absent of `LOCK` ([`crate::s3_lock`]).

use std::fmt;
use std::io::{self, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use object_store::aws::{AmazonS3, AmazonS3Builder, S3ConditionalPut};
use object_store::path::Path as Key;
use object_store::{
    BackoffConfig, ClientOptions, MultipartUpload, ObjectStore, ObjectStoreExt, PutMode,
    PutOptions, PutPayload, RetryConfig, UpdateVersion,
};
use strata_storage::vfs::{DirEntry, FileStore, FileWriter, Source};

use crate::runtime::Bridge;
use crate::s3_cache::{key_hash, PageCache, PAGE};

/// How to reach a bucket. Credentials and anything not set here come from the standard AWS
/// environment variables (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`,
/// `AWS_REGION`, `AWS_ENDPOINT_URL`, `AWS_ALLOW_HTTP`, …).
#[derive(Clone, Debug)]
pub struct S3Options {
    /// The bucket.
    pub bucket: String,
    /// The endpoint URL of an S3-compatible service (`http://127.0.0.1:8333`); AWS's own when
    /// unset. Plain HTTP is allowed for a loopback host, elsewhere only with
    /// `AWS_ALLOW_HTTP=true`.
    pub endpoint: Option<String>,
    /// The region (default `AWS_REGION`, else `us-east-1`).
    pub region: Option<String>,
    /// Where the local page cache lives; `None` disables it.
    pub cache_dir: Option<PathBuf>,
    /// Most bytes the page cache keeps.
    pub cache_bytes: u64,
    /// Longest wait for one request, retries included.
    pub op_timeout: Duration,
}

impl S3Options {
    /// Options for `bucket` with a 1 GiB cache in `cache_dir` and a 60 s request bound.
    pub fn new(bucket: &str, cache_dir: Option<PathBuf>) -> S3Options {
        S3Options {
            bucket: bucket.to_owned(),
            endpoint: None,
            region: None,
            cache_dir,
            cache_bytes: 1 << 30,
            op_timeout: Duration::from_secs(60),
        }
    }
}

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

fn is_loopback(endpoint: &str) -> bool {
    let host = endpoint
        .split_once("://")
        .map_or(endpoint, |(_, rest)| rest)
        .split(['/', '?'])
        .next()
        .unwrap_or_default();
    let host = host.rsplit_once(':').map_or(host, |(h, port)| {
        if port.chars().all(|c| c.is_ascii_digit()) {
            h
        } else {
            host
        }
    });
    matches!(host, "127.0.0.1" | "localhost" | "[::1]")
}

impl S3 {
    /// Connects to `options.bucket` and checks within `connect_timeout` that it answers: the
    /// endpoint is reachable, the bucket exists and the credentials are accepted.
    ///
    /// # Errors
    /// A bad setting, an unreachable endpoint, a missing bucket or refused credentials; the
    /// error names the bucket and the endpoint.
    pub fn connect(options: S3Options, connect_timeout: Duration) -> io::Result<S3> {
        // TLS through rustls with ring (the process may have chosen a provider already).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let endpoint = options
            .endpoint
            .clone()
            .or_else(|| std::env::var("AWS_ENDPOINT_URL").ok());
        let allow_http = endpoint.as_deref().is_some_and(is_loopback)
            || std::env::var("AWS_ALLOW_HTTP").is_ok_and(|v| v.eq_ignore_ascii_case("true"));
        let client = ClientOptions::new()
            .with_allow_http(allow_http)
            .with_connect_timeout(connect_timeout.min(Duration::from_secs(5)))
            .with_timeout(options.op_timeout);
        let retry = RetryConfig {
            backoff: BackoffConfig {
                init_backoff: Duration::from_millis(100),
                max_backoff: Duration::from_secs(2),
                base: 2.0,
            },
            max_retries: 4,
            retry_timeout: options.op_timeout,
        };
        let mut builder = AmazonS3Builder::from_env()
            .with_bucket_name(&options.bucket)
            .with_client_options(client)
            .with_retry(retry)
            .with_conditional_put(S3ConditionalPut::ETagMatch);
        if let Some(endpoint) = &endpoint {
            builder = builder
                .with_endpoint(endpoint)
                .with_virtual_hosted_style_request(false);
        }
        if let Some(region) = &options.region {
            builder = builder.with_region(region);
        }
        let where_ = format!(
            "s3://{} at {}",
            options.bucket,
            endpoint.as_deref().unwrap_or("AWS")
        );
        let store = builder
            .build()
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, format!("{where_}: {e}")))?;
        let cache = match &options.cache_dir {
            Some(dir) if options.cache_bytes > 0 => {
                Some(PageCache::open(dir, options.cache_bytes).map_err(|e| {
                    io::Error::new(e.kind(), format!("S3 cache {}: {e}", dir.display()))
                })?)
            }
            _ => None,
        };
        let s3 = S3 {
            inner: Arc::new(Inner {
                store: Arc::new(store),
                bucket: options.bucket.clone(),
                bridge: Bridge::named("S3", options.op_timeout)?,
                cache,
                requests: S3Requests::default(),
            }),
        };
        let store = s3.inner.store.clone();
        S3Requests::count(&s3.inner.requests.list);
        s3.inner
            .bridge
            .run_for("connect", connect_timeout, async move {
                store
                    .list_with_delimiter(None)
                    .await
                    .map(|_| ())
                    .map_err(io_error)
            })
            .map_err(|e| {
                // Without keys in the environment the client asks the EC2 instance metadata
                // service, whose failure alone would not say what is missing.
                let hint = if e.to_string().contains("169.254.169.254") {
                    " (no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; the \
                     instance metadata service did not answer)"
                } else {
                    ""
                };
                io::Error::new(e.kind(), format!("{where_}: {e}{hint}"))
            })?;
        Ok(s3)
    }

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

impl FileStore for S3 {
    fn url(&self, path: &Path) -> String {
        match key(path) {
            Ok(k) => self.url_of(k.as_ref()),
            Err(_) => self.url_of(&path.display().to_string()),
        }
    }

    fn scheme(&self) -> &'static str {
        "s3"
    }

    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        // Directories are prefixes; only check the name is a valid key.
        key(dir).map(|_| ())
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        S3Requests::count(&self.inner.requests.list);
        let dir_key = key(dir)?;
        let listed = self.run("list", dir, |s, k| async move {
            s.list_with_delimiter(prefix(&k)).await
        })?;
        let mut out: Vec<DirEntry> = listed
            .common_prefixes
            .iter()
            .filter_map(|p| p.filename())
            .map(|name| DirEntry {
                name: name.to_owned(),
                len: 0,
                is_dir: true,
            })
            .collect();
        // SeaweedFS lists an emptied directory's own entry (`dir/`) as an object under it,
        // whose key is the directory's: not a file in it.
        let files = listed.objects.iter().filter(|o| o.location != dir_key);
        out.extend(files.filter_map(|o| {
            o.location.filename().map(|name| DirEntry {
                name: name.to_owned(),
                len: o.size,
                is_dir: false,
            })
        }));
        Ok(out)
    }

    fn len(&self, path: &Path) -> io::Result<Option<u64>> {
        if key(path)?.as_ref().is_empty() {
            return Ok(Some(0));
        }
        S3Requests::count(&self.inner.requests.head);
        match self.run("head", path, |s, k| async move { s.head(&k).await }) {
            Ok(meta) => return Ok(Some(meta.size)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        // A directory exists while something is under it.
        S3Requests::count(&self.inner.requests.list);
        let any = self.run("list", path, |s, k| async move {
            let mut stream = s.list(Some(&k));
            match stream.next().await {
                Some(Ok(_)) => Ok(true),
                Some(Err(e)) => Err(e),
                None => Ok(false),
            }
        })?;
        Ok(any.then_some(0))
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        // Manifests, the catalog, markers: never cached, always the current object.
        Ok(self.get_tagged(path)?.0.to_vec())
    }

    fn open(&self, path: &Path) -> io::Result<Arc<dyn Source>> {
        S3Requests::count(&self.inner.requests.head);
        let meta = self.run("head", path, |s, k| async move { s.head(&k).await })?;
        Ok(Arc::new(S3Source {
            s3: self.clone(),
            hash: key_hash(meta.location.as_ref()),
            key: meta.location,
            len: meta.size,
        }))
    }

    fn create(&self, path: &Path) -> io::Result<Box<dyn FileWriter>> {
        let k = key(path)?;
        self.forget(path);
        Ok(Box::new(S3Writer {
            s3: self.clone(),
            hash: key_hash(k.as_ref()),
            key: k,
            buf: Vec::new(),
            upload: None,
            uploaded: 0,
            done: false,
        }))
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        let target = key(to)?;
        S3Requests::count(&self.inner.requests.other);
        self.forget(to);
        self.run("copy", from, move |s, k| async move {
            s.copy(&k, &target).await
        })?;
        self.delete(from)
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        // S3's DELETE succeeds on a missing object: ask first, to say NotFound as the
        // contract wants.
        S3Requests::count(&self.inner.requests.head);
        self.run("head", path, |s, k| async move { s.head(&k).await })?;
        self.delete(path)
    }

    fn remove_dir_all(&self, dir: &Path) -> io::Result<()> {
        S3Requests::count(&self.inner.requests.list);
        let keys = self.run("list", dir, |s, k| async move {
            let mut stream = s.list(prefix(&k));
            let mut keys = Vec::new();
            while let Some(meta) = stream.next().await {
                keys.push(meta?.location);
            }
            Ok(keys)
        })?;
        for k in keys {
            self.delete(Path::new(k.as_ref()))?;
        }
        Ok(())
    }

    fn sync_dir(&self, _dir: &Path) -> io::Result<()> {
        // S3 answers a PUT, COPY or DELETE once it is durable.
        Ok(())
    }

    fn lock(&self, path: &Path) -> io::Result<Box<dyn Send + Sync>> {
        crate::s3_lock::lock(self, path)
    }
}

/// Bytes per multipart part (S3 wants at least 5 MiB but for the last; a whole number of
/// cache pages, so parts fill the cache page by page).
const PART: usize = 8 << 20;

/// A file being written: one PUT on close if it stays under [`PART`], else a multipart
/// upload completed on close.
struct S3Writer {
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

/// Positional reads of one object, page by page through the cache.
struct S3Source {
    s3: S3,
    key: Key,
    hash: u128,
    len: u64,
}

impl S3Source {
    fn get_range(&self, range: Range<u64>) -> io::Result<Bytes> {
        let inner = &self.s3.inner;
        S3Requests::count(&inner.requests.get);
        let (store, k) = (inner.store.clone(), self.key.clone());
        inner.bridge.run(
            &format!("read {}", self.s3.url_of(self.key.as_ref())),
            async move { store.get_range(&k, range).await.map_err(io_error) },
        )
    }
}

impl Source for S3Source {
    fn read_at(&self, offset: u64, len: usize) -> io::Result<Bytes> {
        let end = offset
            .checked_add(len as u64)
            .filter(|&end| end <= self.len)
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("{}: read past the end", self.s3.url_of(self.key.as_ref())),
                )
            })?;
        if len == 0 {
            return Ok(Bytes::new());
        }
        let Some(cache) = &self.s3.inner.cache else {
            return self.get_range(offset..end);
        };
        let (first, last) = (offset / PAGE, (end - 1) / PAGE);
        let mut pages: Vec<Option<Bytes>> =
            (first..=last).map(|p| cache.get(self.hash, p)).collect();
        // Fetch each run of missing pages with one ranged GET.
        let mut i = 0;
        while i < pages.len() {
            if pages[i].is_some() {
                i += 1;
                continue;
            }
            let mut j = i;
            while j < pages.len() && pages[j].is_none() {
                j += 1;
            }
            let from = (first + i as u64) * PAGE;
            let to = ((first + j as u64) * PAGE).min(self.len);
            let data = self.get_range(from..to)?;
            if data.len() as u64 != to - from {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!(
                        "{}: short read ({} of {} bytes)",
                        self.s3.url_of(self.key.as_ref()),
                        data.len(),
                        to - from
                    ),
                ));
            }
            for (n, page) in data.chunks(PAGE as usize).enumerate() {
                let page = data.slice_ref(page);
                cache.put(self.hash, first + (i + n) as u64, &page);
                pages[i + n] = Some(page);
            }
            i = j;
        }
        if pages.len() == 1 {
            let page = pages.pop().flatten().expect("every page was fetched");
            let at = (offset - first * PAGE) as usize;
            return Ok(page.slice(at..at + len));
        }
        let mut out = Vec::with_capacity(len);
        for (n, page) in pages.into_iter().enumerate() {
            let page = page.expect("every page was fetched");
            let start = (first + n as u64) * PAGE;
            let lo = offset.saturating_sub(start) as usize;
            let hi = ((end - start) as usize).min(page.len());
            out.extend_from_slice(&page[lo..hi]);
        }
        Ok(Bytes::from(out))
    }

    fn size(&self) -> io::Result<u64> {
        Ok(self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_loopback_endpoints() {
        assert_eq!(
            key(Path::new("/strata/a/b")).unwrap().as_ref(),
            "strata/a/b"
        );
        assert_eq!(key(Path::new("/")).unwrap().as_ref(), "");
        assert!(key(Path::new("/a/../b")).is_err());
        assert!(is_loopback("http://127.0.0.1:8333"));
        assert!(is_loopback("http://localhost:9000/"));
        assert!(!is_loopback("http://s3.example.com:80"));
        assert!(!is_loopback("http://127.0.0.1.example.com"));
    }
}
