//! The engine's [`FileStore`] and [`LogStore`] on HDFS (`hdfs-native`).
//!
//! Contracts on HDFS (RFC 0011):
//! - A log's `flush` (SYNC_WAL) is an `hflush`: the bytes are acknowledged by every DataNode of
//!   the pipeline (in their memory, not yet on their disks), so they survive this process's
//!   death; the NameNode hears of it (`fsync`) only on the first flush of a new block. Its
//!   `sync` (FSYNC_WAL) and a file's `sync` are an `hsync`: each DataNode syncs the block to
//!   disk before acknowledging, and the NameNode's length is updated. `hflush` is a patch of
//!   ours on the `hdfs-native` crate (`vendor/hdfs-native/PATCHES.md`).
//! - An open log cannot be cut: `truncate` is `Unsupported` and the WAL rolls instead.
//! - Names are durable when the NameNode answers (its edit log): `sync_dir` does nothing.
//! - Fencing: [`LogStore::recover_lease`] polls the NameNode's lease recovery until the file is
//!   closed. Block recovery stops the DataNodes' side of the old writer's pipeline and bumps the
//!   block's generation stamp, so its next `hflush` or `hsync` fails at the DataNode (and its
//!   pipeline recovery is refused by the NameNode): it can never acknowledge again.
//!   WAL files are created without creating parents, so a writer whose directory was renamed
//!   away cannot recreate it.
//! - Storage policies are set through WebHDFS ([`crate::webhdfs`]).

use std::fmt;
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use hdfs_native::{Client, ClientBuilder, HdfsError, WriteOptions};
use parking_lot::Mutex;
use strata_storage::vfs::{
    DirEntry, FileStore, FileWriter, LogFile, LogStore, Source, StoragePolicy,
};

use crate::runtime::Bridge;
use crate::webhdfs::WebHdfs;

/// How to reach an HDFS cluster.
#[derive(Clone, Debug)]
pub struct HdfsOptions {
    /// `hdfs://host:port` of the NameNode.
    pub url: String,
    /// `host:port` of the NameNode's HTTP server (WebHDFS), for storage policies.
    pub http_addr: String,
    /// Where `http_addr` came from, for messages (`--hdfs-http`, a key of the Hadoop
    /// configuration, or HDFS's default port).
    pub http_origin: String,
    /// The user files are created as.
    pub user: String,
    /// Longest wait for one NameNode or DataNode operation.
    pub op_timeout: Duration,
    /// Longest wait for one write, `hflush` or `hsync` of a log (a WAL segment): past it the
    /// call fails with `TimedOut`, so a WAL cut off from its DataNodes fails its appenders
    /// within this bound instead of holding them (the log then rolls, or its server gives up
    /// its regions). At most `op_timeout`.
    pub log_timeout: Duration,
    /// Longest wait for a dead writer's lease to be recovered.
    pub lease_timeout: Duration,
}

impl HdfsOptions {
    /// Options for the NameNode at `url` (`hdfs://host:port`), its HTTP server where this
    /// host's Hadoop configuration says (`dfs.namenode.http-address`, see
    /// [`crate::hadoop_conf`]), else on the same host at port 9870 (HDFS's default).
    pub fn new(url: &str) -> HdfsOptions {
        let authority = url
            .strip_prefix("hdfs://")
            .unwrap_or(url)
            .split('/')
            .next()
            .unwrap_or_default();
        let host = authority.split(':').next().unwrap_or("127.0.0.1");
        let (http_addr, http_origin) = crate::hadoop_conf::namenode_http_address(authority)
            .unwrap_or_else(|| (format!("{host}:9870"), "HDFS's default port".to_owned()));
        HdfsOptions {
            url: url.to_owned(),
            http_addr,
            http_origin,
            user: std::env::var("HADOOP_USER_NAME").unwrap_or_else(|_| "strata".into()),
            op_timeout: Duration::from_secs(60),
            log_timeout: Duration::from_secs(60),
            lease_timeout: Duration::from_secs(90),
        }
    }
}

/// Both storage interfaces on one HDFS client.
///
/// Thread safety: shared by all threads; the client is cloned into each operation.
pub struct Hdfs {
    client: Arc<Client>,
    bridge: Arc<Bridge>,
    options: HdfsOptions,
    web: WebHdfs,
    /// Set once WebHDFS could not be reached for a policy HDFS applies anyway (HOT): later
    /// ones are not tried again.
    web_unreachable: AtomicBool,
}

impl fmt::Debug for Hdfs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hdfs")
            .field("url", &self.options.url)
            .finish()
    }
}

fn io_error(e: HdfsError) -> io::Error {
    let kind = match &e {
        HdfsError::FileNotFound(_) => io::ErrorKind::NotFound,
        HdfsError::AlreadyExists(_) => io::ErrorKind::AlreadyExists,
        HdfsError::IOError(e) => e.kind(),
        HdfsError::UnsupportedFeature(_) => io::ErrorKind::Unsupported,
        HdfsError::RPCError(class, _) if class.contains("FileNotFound") => io::ErrorKind::NotFound,
        HdfsError::RPCError(class, _) if class.contains("FileAlreadyExists") => {
            io::ErrorKind::AlreadyExists
        }
        HdfsError::RPCError(class, _)
            if class.contains("AlreadyBeingCreated") || class.contains("RecoveryInProgress") =>
        {
            io::ErrorKind::WouldBlock
        }
        _ => io::ErrorKind::Other,
    };
    io::Error::new(kind, e.to_string())
}

/// First pause before an operation the NameNode refused in safe mode is tried again.
const SAFE_MODE_FIRST_PAUSE: Duration = Duration::from_millis(50);
/// Longest pause between two tries of an operation refused in safe mode.
const SAFE_MODE_MAX_PAUSE: Duration = Duration::from_millis(500);

/// Whether the NameNode refused an operation because it is in safe mode (HDFS's
/// `SafeModeException`, or the `RetriableException` an HA NameNode wraps it in): nothing was
/// changed, and the same call succeeds once it leaves safe mode.
fn in_safe_mode(e: &HdfsError) -> bool {
    matches!(e, HdfsError::RPCError(class, message)
        if class.contains("SafeModeException")
            || (class.contains("RetriableException") && message.contains("safe mode")))
}

fn path_str(path: &Path) -> io::Result<String> {
    path.to_str()
        .map(str::to_owned)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "path is not UTF-8"))
}

impl Hdfs {
    /// Connects to the NameNode of `options` and checks it answers (listing `/`), within
    /// `connect_timeout`.
    ///
    /// # Errors
    /// The URL is invalid, or the NameNode did not answer in time: the error names the URL.
    pub fn connect(options: HdfsOptions, connect_timeout: Duration) -> io::Result<Hdfs> {
        let bridge = Arc::new(Bridge::new(options.op_timeout)?);
        let client = ClientBuilder::new()
            .with_url(options.url.clone())
            .with_user(options.user.clone())
            .with_io_runtime(bridge.handle())
            .with_config(crate::hadoop_conf::namenode_retry_settings(
                &crate::hadoop_conf::site_properties(),
            ))
            .build()
            .map_err(|e| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{}: {}", options.url, io_error(e)),
                )
            })?;
        let client = Arc::new(client);
        let probe = client.clone();
        bridge
            .run_for(
                &format!("HDFS NameNode {}", options.url),
                connect_timeout,
                async move { probe.get_file_info("/").await.map_err(io_error) },
            )
            .map_err(|e| {
                io::Error::new(
                    io::ErrorKind::NotConnected,
                    format!("cannot reach {e} (is the NameNode running?)"),
                )
            })?;
        let web = WebHdfs {
            addr: options.http_addr.clone(),
            user: options.user.clone(),
            timeout: Duration::from_secs(10),
        };
        Ok(Hdfs {
            client,
            bridge,
            options,
            web,
            web_unreachable: AtomicBool::new(false),
        })
    }

    /// The NameNode's WebHDFS endpoint (storage policies, block locations).
    pub fn webhdfs(&self) -> &WebHdfs {
        &self.web
    }

    /// Runs one NameNode operation, made by `f` again while the NameNode refuses it in safe
    /// mode (it changed nothing then): a NameNode that has just started stays there until
    /// its DataNodes have reported their blocks, and a flush or a region's close waiting
    /// that out succeeds, where failing would give up the server's regions for a replay
    /// that needs the NameNode out of safe mode too. Bounded by the operation's timeout.
    fn run<T, F, Fut>(&self, what: &str, path: &Path, f: F) -> io::Result<T>
    where
        T: Send + 'static,
        F: Fn(Arc<Client>, String) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = Result<T, HdfsError>> + Send + 'static,
    {
        let p = path_str(path)?;
        let client = self.client.clone();
        let path = p.clone();
        self.bridge
            .run(&format!("{what} {}", self.url_of(&p)), async move {
                let mut pause = SAFE_MODE_FIRST_PAUSE;
                loop {
                    match f(client.clone(), path.clone()).await {
                        Err(e) if in_safe_mode(&e) => {
                            tracing::debug!(path = %path, "the NameNode is in safe mode: retrying");
                            tokio::time::sleep(pause).await;
                            pause = (pause * 2).min(SAFE_MODE_MAX_PAUSE);
                        }
                        result => return result.map_err(io_error),
                    }
                }
            })
    }

    fn url_of(&self, path: &str) -> String {
        format!("{}{path}", self.options.url.trim_end_matches('/'))
    }

    fn writer(&self, path: &Path, create_parent: bool) -> io::Result<HdfsWriter> {
        let options = WriteOptions::default()
            .overwrite(true)
            .create_parent(create_parent);
        let writer = self.run("create", path, move |c, p| {
            let options = options.clone();
            async move { c.create(&p, options).await }
        })?;
        self.wrap(writer, path)
    }

    fn source(&self, path: &Path) -> io::Result<Arc<dyn Source>> {
        let reader = self.run("open", path, |c, p| async move { c.read(&p).await })?;
        Ok(Arc::new(HdfsSource {
            len: reader.file_length() as u64,
            reader: Arc::new(reader),
            bridge: self.bridge.clone(),
            path: self.url_of(&path_str(path)?),
        }))
    }

    fn list_dir(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        let statuses = self.run(
            "list",
            dir,
            |c, p| async move { c.list_status(&p, false).await },
        )?;
        Ok(statuses
            .into_iter()
            .map(|s| DirEntry {
                name: s.path.rsplit('/').next().unwrap_or_default().to_owned(),
                len: s.length as u64,
                is_dir: s.isdir,
            })
            .collect())
    }

    fn mkdirs(&self, dir: &Path) -> io::Result<()> {
        self.run("mkdirs", dir, |c, p| async move {
            c.mkdirs(&p, 0o755, true).await
        })
    }

    /// Sets `policy` on `dir` through WebHDFS. Without WebHDFS (not reachable, or not an
    /// HTTP server), HDFS's default policy (HOT) is left to inheritance, as HBase leaves
    /// policies it is not asked for to HDFS, with one warning; any other policy fails naming
    /// the flag that gives WebHDFS's address.
    fn set_policy(&self, dir: &Path, policy: StoragePolicy) -> io::Result<()> {
        let default = policy == StoragePolicy::Hot;
        if default && self.web_unreachable.load(Ordering::Relaxed) {
            return Ok(());
        }
        match self
            .web
            .set_storage_policy(&path_str(dir)?, &policy.to_string())
        {
            Err(e) if crate::webhdfs::is_unreachable(&e) && default => {
                if !self.web_unreachable.swap(true, Ordering::Relaxed) {
                    tracing::warn!(
                        "{e}: storage policies are not set (directories keep HDFS's default, \
                         HOT, unless an ancestor has another); give the NameNode's HTTP \
                         address with --hdfs-http HOST:PORT to set them"
                    );
                }
                Ok(())
            }
            Err(e) if crate::webhdfs::is_unreachable(&e) => Err(io::Error::new(
                e.kind(),
                format!(
                    "storage policy {policy} for {}: {e}; storage policies are set through \
                     the NameNode's WebHDFS, at {} ({}): give its HTTP address with \
                     --hdfs-http HOST:PORT (dfs.namenode.http-address)",
                    self.url_of(&path_str(dir)?),
                    self.web.addr,
                    self.options.http_origin
                ),
            )),
            other => other,
        }
    }
}

impl FileStore for Hdfs {
    fn url(&self, path: &Path) -> String {
        self.url_of(&path.display().to_string())
    }

    fn scheme(&self) -> &'static str {
        "hdfs"
    }

    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        self.mkdirs(dir)
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        self.list_dir(dir)
    }

    fn len(&self, path: &Path) -> io::Result<Option<u64>> {
        match self.run(
            "stat",
            path,
            |c, p| async move { c.get_file_info(&p).await },
        ) {
            Ok(s) => Ok(Some(s.length as u64)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        let src = self.source(path)?;
        let len = src.size()?;
        Ok(src.read_at(0, len as usize)?.to_vec())
    }

    fn open(&self, path: &Path) -> io::Result<Arc<dyn Source>> {
        self.source(path)
    }

    fn create(&self, path: &Path) -> io::Result<Box<dyn FileWriter>> {
        Ok(Box::new(self.writer(path, true)?))
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        let to = path_str(to)?;
        self.run("rename", from, move |c, p| {
            let to = to.clone();
            async move { c.rename(&p, &to, true).await }
        })
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        let removed = self.run(
            "delete",
            path,
            |c, p| async move { c.delete(&p, false).await },
        )?;
        if removed {
            Ok(())
        } else {
            Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("{} not found", path.display()),
            ))
        }
    }

    fn remove_dir_all(&self, dir: &Path) -> io::Result<()> {
        self.run(
            "delete",
            dir,
            |c, p| async move { c.delete(&p, true).await },
        )
        .map(|_| ())
    }

    fn sync_dir(&self, _dir: &Path) -> io::Result<()> {
        // The NameNode logs every namespace change before it answers.
        Ok(())
    }

    fn set_storage_policy(&self, dir: &Path, policy: StoragePolicy) -> io::Result<()> {
        self.set_policy(dir, policy)
    }

    fn places_by_policy(&self) -> bool {
        true
    }

    fn lock(&self, path: &Path) -> io::Result<Box<dyn Send + Sync>> {
        crate::hdfs_lock::lock(self, path)
    }
}

impl LogStore for Hdfs {
    fn url(&self, path: &Path) -> String {
        self.url_of(&path.display().to_string())
    }

    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        self.mkdirs(dir)
    }

    fn create(&self, path: &Path) -> io::Result<Box<dyn LogFile>> {
        // Never create parents: a fenced writer must not recreate a renamed WAL directory.
        let mut writer = self.writer(path, false)?;
        writer.timeout = self.options.log_timeout.min(self.options.op_timeout);
        Ok(Box::new(HdfsLog { writer }))
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        self.list_dir(dir)
    }

    fn open(&self, path: &Path) -> io::Result<Arc<dyn Source>> {
        self.source(path)
    }

    fn cut(&self, path: &Path, len: u64) -> io::Result<()> {
        // Copy the prefix, then rename it over the log (HDFS cannot cut a file in place
        // through this client).
        let src = self.source(path)?;
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".cut");
        let tmp = std::path::PathBuf::from(tmp);
        let mut w = self.writer(&tmp, false)?;
        let mut at = 0;
        while at < len {
            let n = (len - at).min(4 << 20);
            w.write_all(&src.read_at(at, n as usize)?)?;
            at += n;
        }
        w.sync()?;
        Box::new(w).close()?;
        FileStore::rename(self, &tmp, path)
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        self.remove_file(path)
    }

    fn sync_dir(&self, _dir: &Path) -> io::Result<()> {
        Ok(())
    }

    fn rename_dir(&self, from: &Path, to: &Path) -> io::Result<()> {
        // Without overwrite, the NameNode refuses an existing target (one atomic rename).
        let to = path_str(to)?;
        self.run("rename", from, move |c, p| {
            let to = to.clone();
            async move { c.rename(&p, &to, false).await }
        })
    }

    fn recover_lease(&self, path: &Path) -> io::Result<bool> {
        self.recover(path, false)
    }

    fn reclaim(&self, path: &Path) -> io::Result<bool> {
        self.recover(path, true)
    }

    fn set_storage_policy(&self, dir: &Path, policy: StoragePolicy) -> io::Result<()> {
        self.set_policy(dir, policy)
    }
}

impl Hdfs {
    /// Recovers the lease of `path` and polls until it is closed; whether it was open. With
    /// `own`, a log someone else already closed or is recovering answers `false` at once
    /// (see [`LogStore::reclaim`]).
    fn recover(&self, path: &Path, own: bool) -> io::Result<bool> {
        let started = Instant::now();
        let mut pause = Duration::from_millis(100);
        let mut first = true;
        loop {
            let closed = self.run("recover the lease of", path, |c, p| async move {
                c.recover_lease(&p).await
            });
            match closed {
                // Closed at the first call: it was not open.
                Ok(true) => return Ok(!first),
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
                Ok(false) => {}
                // Another process's recovery is running: that is a fence.
                Err(e) if own && first && e.kind() == io::ErrorKind::WouldBlock => {
                    return Ok(false)
                }
                // Recovery already running (another call started it): keep polling.
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
            if started.elapsed() > self.options.lease_timeout {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "the lease of {} was not recovered within {:?}",
                        LogStore::url(self, path),
                        self.options.lease_timeout
                    ),
                ));
            }
            first = false;
            std::thread::sleep(pause);
            // Every 100 ms for the first ten seconds: a DataNode finishes the block's recovery
            // within a heartbeat or a few, each poll is one cheap NameNode call, and a
            // failover waits for this (a back-off from two seconds on cost up to 0.8 s of
            // it). Only then, a recovery waiting on a dead DataNode, once a second.
            if started.elapsed() > Duration::from_secs(10) {
                pause = Duration::from_secs(1);
            }
        }
    }
}

/// A file being written: bytes buffered here up to 1 MiB, then handed to the client.
pub(crate) struct HdfsWriter {
    inner: Arc<tokio::sync::Mutex<Option<hdfs_native::file::FileWriter>>>,
    bridge: Arc<Bridge>,
    buf: Vec<u8>,
    path: String,
    /// Longest wait for one operation ([`HdfsOptions::log_timeout`] for a log).
    timeout: Duration,
}

const WRITE_CHUNK: usize = 1 << 20;

impl HdfsWriter {
    fn op<T, F>(&self, what: &str, f: F) -> io::Result<T>
    where
        T: Send + 'static,
        F: for<'a> FnOnce(
                &'a mut hdfs_native::file::FileWriter,
            ) -> std::pin::Pin<
                Box<dyn std::future::Future<Output = Result<T, HdfsError>> + Send + 'a>,
            > + Send
            + 'static,
    {
        let inner = self.inner.clone();
        let path = self.path.clone();
        self.bridge
            .run_for(&format!("{what} {}", self.path), self.timeout, async move {
                let mut guard = inner.lock().await;
                let w = guard.as_mut().ok_or_else(|| {
                    io::Error::new(io::ErrorKind::BrokenPipe, format!("{path} is closed"))
                })?;
                f(w).await.map_err(io_error)
            })
    }

    fn push(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let data = Bytes::from(std::mem::take(&mut self.buf));
        self.op("write", move |w| {
            Box::pin(async move { w.write_bytes(data).await })
        })
        .map(|_| ())
    }

    pub(crate) fn hsync(&mut self) -> io::Result<()> {
        self.push()?;
        self.op("hsync", |w| Box::pin(w.hsync()))
    }

    fn hflush(&mut self) -> io::Result<()> {
        self.push()?;
        self.op("hflush", |w| Box::pin(w.hflush()))
    }
}

impl Write for HdfsWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(buf);
        if self.buf.len() >= WRITE_CHUNK {
            self.push()?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.push()
    }
}

impl FileWriter for HdfsWriter {
    fn sync(&mut self) -> io::Result<()> {
        self.hsync()
    }

    fn close(mut self: Box<Self>) -> io::Result<()> {
        self.close_in_place()
    }
}

impl HdfsWriter {
    /// Writes what is buffered, commits the last block and ends the lease.
    fn close_in_place(&mut self) -> io::Result<()> {
        self.push()?;
        self.op("close", |w| Box::pin(w.close()))?;
        let inner = self.inner.clone();
        self.bridge.run("close", async move {
            inner.lock().await.take();
            Ok(())
        })
    }
}

/// A WAL segment on HDFS.
struct HdfsLog {
    writer: HdfsWriter,
}

impl LogFile for HdfsLog {
    fn append(&mut self, buf: &[u8]) -> io::Result<()> {
        self.writer.write_all(buf)?;
        self.writer.push()
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer.hflush()
    }

    fn sync(&mut self) -> io::Result<()> {
        self.writer.hsync()
    }

    fn truncate(&mut self, _len: u64) -> io::Result<()> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "an open HDFS log cannot be cut; roll to a new one",
        ))
    }

    fn close(&mut self) -> io::Result<()> {
        self.writer.close_in_place()
    }
}

/// Positional reads of an HDFS file (its length when opened).
struct HdfsSource {
    reader: Arc<hdfs_native::file::FileReader>,
    bridge: Arc<Bridge>,
    len: u64,
    path: String,
}

impl Source for HdfsSource {
    fn read_at(&self, offset: u64, len: usize) -> io::Result<Bytes> {
        if offset
            .checked_add(len as u64)
            .is_none_or(|end| end > self.len)
        {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("{}: read past the end", self.path),
            ));
        }
        let reader = self.reader.clone();
        self.bridge.run(&format!("read {}", self.path), async move {
            reader
                .read_range(offset as usize, len)
                .await
                .map_err(io_error)
        })
    }

    fn size(&self) -> io::Result<u64> {
        Ok(self.len)
    }
}

/// Keeps a lock's writer (and so its lease) open.
pub(crate) struct HeldLock {
    pub(crate) _writer: Mutex<HdfsWriter>,
}

impl Hdfs {
    fn wrap(&self, writer: hdfs_native::file::FileWriter, path: &Path) -> io::Result<HdfsWriter> {
        Ok(HdfsWriter {
            inner: Arc::new(tokio::sync::Mutex::new(Some(writer))),
            bridge: self.bridge.clone(),
            buf: Vec::new(),
            path: self.url_of(&path_str(path)?),
            timeout: self.options.op_timeout,
        })
    }

    pub(crate) fn append_writer(&self, path: &Path) -> io::Result<HdfsWriter> {
        let writer = self.run("append", path, |c, p| async move { c.append(&p).await })?;
        self.wrap(writer, path)
    }

    pub(crate) fn create_new(&self, path: &Path) -> io::Result<HdfsWriter> {
        let options = WriteOptions::default().overwrite(false).create_parent(true);
        let writer = self.run("create", path, move |c, p| {
            let options = options.clone();
            async move { c.create(&p, options).await }
        })?;
        self.wrap(writer, path)
    }
}
