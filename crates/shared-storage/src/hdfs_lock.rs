//! One process per root on HDFS: the root's `LOCK` file is held open for appending, so the
//! NameNode's lease on it names its owner. A second process finds the lease taken and is
//! refused. A lock left by a killed process on the same host (its pid is gone) is taken over
//! by recovering the lease; one left by another host waits for HDFS's lease expiry.

use std::io::{self, Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use strata_storage::vfs::{FileStore, FileWriter, LogStore};

use crate::hdfs::{Hdfs, HdfsWriter, HeldLock};

/// This host's name.
pub(crate) fn this_host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .unwrap_or_else(|_| "unknown".into())
}

pub(crate) fn holder_line() -> String {
    format!("{} {}\n", this_host(), std::process::id())
}

/// The file naming the lock's holder: readers cannot see the bytes of a file still being
/// written, so the holder is published beside it.
fn owner_path(path: &Path) -> std::path::PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".owner");
    p.into()
}

fn take(hdfs: &Hdfs, path: &Path, mut w: HdfsWriter) -> io::Result<Box<dyn Send + Sync>> {
    w.write_all(holder_line().as_bytes())?;
    w.sync()?;
    hdfs.write_atomic(&owner_path(path), holder_line().as_bytes())?;
    Ok(Box::new(HeldLock {
        _writer: Mutex::new(w),
    }))
}

/// The holder named beside the lock file, if readable.
fn last_holder(hdfs: &Hdfs, path: &Path) -> Option<(String, u32)> {
    let bytes = FileStore::read(hdfs, &owner_path(path)).ok()?;
    let mut text = String::new();
    bytes.as_slice().read_to_string(&mut text).ok()?;
    let line = text.lines().rev().find(|l| !l.trim().is_empty())?;
    let (host, pid) = line.split_once(' ')?;
    Some((host.to_owned(), pid.trim().parse().ok()?))
}

/// True when `host` is this host and its process `pid` is gone: no `/proc/<pid>`, or a zombie
/// (killed, not yet reaped by its parent).
pub(crate) fn dead_here(host: &str, pid: u32) -> bool {
    if host != this_host() {
        return false;
    }
    match std::fs::read_to_string(Path::new("/proc").join(pid.to_string()).join("stat")) {
        // The state follows the command name in parentheses, which may hold spaces.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X'])),
        Err(_) => true,
    }
}

pub(crate) fn lock(hdfs: &Hdfs, path: &Path) -> io::Result<Box<dyn Send + Sync>> {
    match hdfs.create_new(path) {
        Ok(w) => return take(hdfs, path, w),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        match hdfs.append_writer(path) {
            Ok(w) => return take(hdfs, path, w),
            // The lease is held (the client reports AlreadyBeingCreated as "already exists").
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::AlreadyExists
                ) => {}
            Err(e) => return Err(e),
        }
        let holder = last_holder(hdfs, path);
        match &holder {
            Some((host, pid)) if dead_here(host, *pid) => {
                // Its process is gone: end its lease now instead of waiting for expiry.
                let _ = hdfs.recover_lease(path)?;
            }
            _ => {
                let who = holder.map_or("another process".to_owned(), |(h, p)| {
                    format!("process {p} on {h}")
                });
                return Err(io::Error::new(
                    io::ErrorKind::WouldBlock,
                    format!("{} is held by {who}", FileStore::url(hdfs, path)),
                ));
            }
        }
        if Instant::now() > deadline {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("could not take {}", FileStore::url(hdfs, path)),
            ));
        }
    }
}
