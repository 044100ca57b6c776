//! One process per root on S3: a lease in the root's `LOCK` object (RFC 0011, "Root on S3").
//!
//! - **Taking**: put-if-absent (`If-None-Match: *`) of `host pid renewed-ms counter`.
//! - **Renewing**: every `lock_renew` the holder rewrites the object with `If-Match: <its last
//!   ETag>` and a new counter (a PUT's ETag is its content's MD5, so the content must change).
//!   A renewal answered "precondition failed" means another process took the lock; a holder
//!   that has not renewed for `expiry − renew` (S3 unreachable, the process paused) gives it
//!   up. Either way the store is fenced ([`S3::fence`]): every later write fails, so the
//!   process can no longer change the root.
//! - **A second process** reads the object and its ETag. A holder of this host whose process
//!   is gone (`/proc/<pid>` missing or a zombie: a SIGKILL) is replaced at once; otherwise
//!   the taker watches the ETag by its own monotonic clock for `expiry` (3 × `lock_renew`),
//!   never comparing another host's clock: a change means a live holder, and the start is
//!   refused naming its host, pid, last renewal and when the lock would expire; an ETag
//!   unchanged for `expiry` is a holder that stopped renewing, replaced with `If-Match`, so
//!   of two takers one wins. A lock written without a renewal time (an older version, which
//!   never renews) is refused as before: it does not expire.
//!
//! Expiry is safe because the holder fences itself `renew` before a taker can have watched
//! for `expiry` since that holder's last renewal.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use strata_storage::vfs::FileStore;

use super::S3;
use crate::hdfs_lock::{dead_here, this_host};

/// How many renewal periods a taker watches an unchanged lock before taking it.
const EXPIRY_RENEWALS: u32 = 3;

/// Holds the lock: renews it until dropped, then deletes `LOCK`.
struct HeldS3Lock {
    s3: S3,
    path: PathBuf,
    stop: Arc<AtomicBool>,
    renewing: Option<JoinHandle<()>>,
}

impl Drop for HeldS3Lock {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.renewing.take() {
            t.thread().unpark();
            let _ = t.join();
        }
        if self.s3.fenced().is_none() {
            let _ = self.s3.delete(&self.path);
        }
    }
}

/// What `LOCK` says.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Holder {
    host: String,
    pid: u32,
    /// The holder's clock at its last renewal (ms since the epoch); `None` for a lock of a
    /// version that did not renew.
    renewed_ms: Option<u64>,
}

fn parse(bytes: &[u8]) -> Option<Holder> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut words = text.split_whitespace();
    let host = words.next()?.to_owned();
    let pid = words.next()?.parse().ok()?;
    let renewed_ms = words.next().and_then(|w| w.parse().ok());
    Some(Holder {
        host,
        pid,
        renewed_ms,
    })
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// This process's `LOCK` content, the `counter`-th renewal.
fn content(host: &str, counter: u64) -> Vec<u8> {
    format!("{host} {} {} {counter}\n", std::process::id(), now_ms()).into_bytes()
}

fn expiry(s3: &S3) -> Duration {
    s3.inner.lock_renew * EXPIRY_RENEWALS
}

pub(crate) fn lock(s3: &S3, path: &Path) -> io::Result<Box<dyn Send + Sync>> {
    let host = s3.inner.lock_host.clone().unwrap_or_else(this_host);
    let first = content(&host, 0);
    match s3.put_new(path, first.clone()) {
        Ok(etag) => return Ok(hold(s3, path, host, etag)),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let (bytes, etag) = match s3.get_tagged(path) {
        Ok(got) => got,
        // Let go of meanwhile: try once more.
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return s3
                .put_new(path, first)
                .map(|etag| hold(s3, path, host, etag))
                .map_err(|e| refused(s3, path, e));
        }
        Err(e) => return Err(e),
    };
    let holder = parse(&bytes);
    let Some(etag) = etag else {
        return Err(held_by(
            s3,
            path,
            holder.as_ref(),
            "the store gives no ETag",
        ));
    };
    let take_over = |etag: String| {
        s3.put_if_match(path, first.clone(), etag)
            .map(|etag| hold(s3, path, host.clone(), etag))
            .map_err(|e| refused(s3, path, e))
    };
    match &holder {
        Some(h) if h.host == host && dead_here(&h.host, h.pid) => return take_over(etag),
        Some(h) if h.renewed_ms.is_some() => {}
        _ => {
            return Err(held_by(
                s3,
                path,
                holder.as_ref(),
                "it is never renewed, so it does not expire: if that process is gone, \
                 delete the object",
            ))
        }
    }
    // Watch it: renewed means alive; unchanged for the expiry means its holder stopped.
    let (watch, started) = (expiry(s3), Instant::now());
    let step = s3.inner.lock_renew / 4;
    while started.elapsed() < watch {
        std::thread::sleep(step.min(watch.saturating_sub(started.elapsed())));
        let (bytes, now_tag) = match s3.get_tagged(path) {
            Ok(got) => got,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return s3
                    .put_new(path, first.clone())
                    .map(|etag| hold(s3, path, host.clone(), etag))
                    .map_err(|e| refused(s3, path, e));
            }
            Err(e) => return Err(e),
        };
        if now_tag.as_deref() != Some(etag.as_str()) {
            let live = parse(&bytes);
            let why = format!(
                "renewed while this process watched ({:.1} s); the lock expires {} s after \
                 its last renewal if it is not renewed",
                started.elapsed().as_secs_f64(),
                watch.as_secs()
            );
            return Err(held_by(s3, path, live.as_ref().or(holder.as_ref()), &why));
        }
    }
    take_over(etag)
}

/// Starts renewing a lock just taken (its ETag `etag`).
fn hold(s3: &S3, path: &Path, host: String, etag: Option<String>) -> Box<dyn Send + Sync> {
    let stop = Arc::new(AtomicBool::new(false));
    let renewing = etag.map(|etag| {
        let (s3, path, stop) = (s3.clone(), path.to_owned(), stop.clone());
        std::thread::Builder::new()
            .name("s3-lock".into())
            .spawn(move || renew(&s3, &path, &host, etag, &stop))
            .ok()
    });
    Box::new(HeldS3Lock {
        s3: s3.clone(),
        path: path.to_owned(),
        stop,
        renewing: renewing.flatten(),
    })
}

/// Renews until `stop`; fences the store when the lock is lost.
fn renew(s3: &S3, path: &Path, host: &str, mut etag: String, stop: &AtomicBool) {
    let renew_every = s3.inner.lock_renew;
    let give_up = expiry(s3).saturating_sub(renew_every);
    let mut last = Instant::now();
    for counter in 1.. {
        std::thread::park_timeout(renew_every);
        if stop.load(Ordering::Relaxed) {
            return;
        }
        match s3.put_if_match(path, content(host, counter), etag.clone()) {
            Ok(Some(tag)) => {
                etag = tag;
                last = Instant::now();
            }
            Ok(None) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                let why = format!("{} was taken by another process", s3.url(path));
                tracing::error!("{why}: this process no longer writes to its root");
                s3.fence(why);
                return;
            }
            Err(e) if last.elapsed() >= give_up => {
                let why = format!(
                    "{} not renewed for {:.1} s ({e}): another process may take it",
                    s3.url(path),
                    last.elapsed().as_secs_f64()
                );
                tracing::error!("{why}: this process no longer writes to its root");
                s3.fence(why);
                return;
            }
            Err(e) => tracing::warn!("renewing {}: {e}", s3.url(path)),
        }
    }
}

/// The refusal naming the holder.
fn held_by(s3: &S3, path: &Path, holder: Option<&Holder>, why: &str) -> io::Error {
    let who = match holder {
        Some(h) => {
            let renewal = h.renewed_ms.map_or(String::new(), |ms| {
                let ago = now_ms().saturating_sub(ms) / 1000;
                format!(", last renewed at {ms} ms since the epoch ({ago} s ago by this clock)")
            });
            format!("process {} on {}{renewal}", h.pid, h.host)
        }
        None => "another process".to_owned(),
    };
    io::Error::new(
        io::ErrorKind::WouldBlock,
        format!("{} is held by {who}: {why}", s3.url(path)),
    )
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_forms() {
        assert_eq!(
            parse(b"h 12 1700000000000 3\n"),
            Some(Holder {
                host: "h".into(),
                pid: 12,
                renewed_ms: Some(1_700_000_000_000)
            })
        );
        assert_eq!(parse(b"h 12\n").unwrap().renewed_ms, None);
        assert_eq!(parse(b"garbage"), None);
        let mine = parse(&content("me", 7)).unwrap();
        assert_eq!(mine.pid, std::process::id());
        assert!(mine.renewed_ms.is_some());
    }
}
