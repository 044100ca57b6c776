//! A local disk cache of pages of S3 objects, in front of the bucket (RFC 0011).
//!
//! Store files are immutable, so a cached page is valid until its file is removed or written
//! again (which invalidates it here); nothing else expires. Pages are [`PAGE`] bytes at
//! aligned offsets of an object (the last one shorter), one local file each, named by a hash
//! of the object's key and the page number. The total size is bounded: the least recently used
//! pages are removed first. The index lives in memory, so the directory is emptied when the
//! cache is opened (a page left by an earlier process could belong to a file since replaced).
//! A process therefore needs its directory to itself: the cache holds a lock on `LOCK` in it
//! (`flock`) while open, so a second process opening the same directory is refused instead of
//! emptying the first one's pages; [`PageCache::open_first_free`] (what S3 stores use) then
//! takes a sibling directory of its own.
//!
//! The memory tier in front of it is the engine's own block cache (decoded blocks), so this
//! cache only needs to keep S3 requests off warm reads.
//!
//! Thread safety: shared by all readers; the index is behind one mutex, page files are read
//! and written outside it.

use std::collections::{BTreeMap, HashMap};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use parking_lot::Mutex;
use strata_storage::vfs::Source;

/// Bytes per cached page.
pub const PAGE: u64 = 128 << 10;

type PageKey = (u128, u64);

#[derive(Default)]
struct Index {
    /// Page → (its length, its last use).
    pages: HashMap<PageKey, (u64, u64)>,
    /// Last use → page, oldest first.
    by_use: BTreeMap<u64, PageKey>,
    used: u64,
    tick: u64,
}

/// Cache hits and misses, for tests and benchmarks.
#[derive(Debug, Default)]
pub struct CacheStats {
    /// Pages served from the local disk.
    pub hits: AtomicU64,
    /// Pages not found locally.
    pub misses: AtomicU64,
}

/// The disk page cache.
pub struct PageCache {
    dir: PathBuf,
    capacity: u64,
    index: Mutex<Index>,
    /// Hits and misses so far.
    pub stats: CacheStats,
    /// `LOCK` in the directory, locked while the cache is open.
    _lock: std::fs::File,
}

/// How many directories [`PageCache::open_first_free`] tries.
pub const MAX_CACHE_DIRS: usize = 64;

impl std::fmt::Debug for PageCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "PageCache({}, {} bytes)",
            self.dir.display(),
            self.capacity
        )
    }
}

/// The hash naming an object's pages.
pub(crate) fn key_hash(key: &str) -> u128 {
    xxhash_rust::xxh3::xxh3_128(key.as_bytes())
}

impl PageCache {
    /// Opens the cache in `dir` (created; locked; emptied of earlier pages), holding at most
    /// `capacity` bytes.
    ///
    /// # Errors
    /// The directory cannot be created or emptied, or another process (or another open cache)
    /// holds it: [`io::ErrorKind::WouldBlock`], naming the directory.
    pub fn open(dir: impl Into<PathBuf>, capacity: u64) -> io::Result<PageCache> {
        let dir = dir.into();
        std::fs::create_dir_all(&dir)?;
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join("LOCK"))?;
        lock.try_lock().map_err(|e| match e {
            std::fs::TryLockError::WouldBlock => io::Error::new(
                io::ErrorKind::WouldBlock,
                format!(
                    "the page cache directory {} is in use by another process (give each \
                     process a directory of its own)",
                    dir.display()
                ),
            ),
            std::fs::TryLockError::Error(e) => e,
        })?;
        // Locked: nobody else uses these pages.
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.ends_with(".page") || name.ends_with(".tmp") {
                std::fs::remove_file(entry.path())?;
            }
        }
        Ok(PageCache {
            dir,
            capacity,
            index: Mutex::new(Index::default()),
            stats: CacheStats::default(),
            _lock: lock,
        })
    }

    /// Opens the cache in `base`, or, while other processes hold it, in the first of
    /// `base-1`, `base-2`, … ([`MAX_CACHE_DIRS`] in all) that none holds: processes of one host
    /// given (or defaulting to) one directory each get their own, and take the same one again
    /// after a restart.
    ///
    /// # Errors
    /// As [`PageCache::open`]; every directory tried is held.
    pub fn open_first_free(base: &Path, capacity: u64) -> io::Result<PageCache> {
        let mut last = None;
        for n in 0..MAX_CACHE_DIRS {
            let dir = if n == 0 {
                base.to_owned()
            } else {
                let mut name = base.as_os_str().to_owned();
                name.push(format!("-{n}"));
                PathBuf::from(name)
            };
            match PageCache::open(dir, capacity) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => last = Some(e),
                other => return other,
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("no page cache directory tried")))
    }

    /// The directory the pages are in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn file(&self, key: PageKey) -> PathBuf {
        self.dir.join(format!("{:032x}-{}.page", key.0, key.1))
    }

    /// The cached length of `key`, marked as just used; `None` if it is not cached.
    fn touch(&self, key: PageKey) -> Option<u64> {
        let mut index = self.index.lock();
        let tick = index.tick + 1;
        let (len, used) = index.pages.get_mut(&key)?;
        let (len, old) = (*len, std::mem::replace(used, tick));
        index.tick = tick;
        index.by_use.remove(&old);
        index.by_use.insert(tick, key);
        Some(len)
    }

    /// Bytes `at..at + len` of page `page` of the object hashed `object`, read only if that
    /// waits for no device: the page is cached here and those bytes of its file are in the OS
    /// page cache ([`Source::read_at_nowait`]). `None` otherwise, counted as nothing: the
    /// blocking read that follows ([`PageCache::get`]) counts it.
    pub fn get_nowait(&self, object: u128, page: u64, at: usize, len: usize) -> Option<Bytes> {
        let key = (object, page);
        let cached = self.index.lock().pages.get(&key).map(|&(len, _)| len)?;
        if (at + len) as u64 > cached {
            return None;
        }
        let file = std::fs::File::open(self.file(key)).ok()?;
        let bytes = file.read_at_nowait(at as u64, len).ok().flatten()?;
        self.touch(key);
        self.stats.hits.fetch_add(1, Ordering::Relaxed);
        Some(bytes)
    }

    /// Page `page` of the object hashed `object`, if cached and intact (`len` bytes).
    pub fn get(&self, object: u128, page: u64) -> Option<Bytes> {
        let key = (object, page);
        let Some(len) = self.touch(key) else {
            self.stats.misses.fetch_add(1, Ordering::Relaxed);
            return None;
        };
        match std::fs::read(self.file(key)) {
            Ok(data) if data.len() as u64 == len => {
                self.stats.hits.fetch_add(1, Ordering::Relaxed);
                Some(Bytes::from(data))
            }
            // Lost or damaged locally: forget it; the caller fetches it again.
            _ => {
                self.forget(key);
                self.stats.misses.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }

    /// Keeps `data` as page `page` of the object hashed `object`, evicting the least recently
    /// used pages beyond the capacity. A failure to write locally is not an error: the page is
    /// then simply not cached.
    pub fn put(&self, object: u128, page: u64, data: &[u8]) {
        let len = data.len() as u64;
        if len > self.capacity {
            return;
        }
        let key = (object, page);
        let path = self.file(key);
        let tmp = path.with_extension("tmp");
        if std::fs::write(&tmp, data)
            .and_then(|()| std::fs::rename(&tmp, &path))
            .is_err()
        {
            let _ = std::fs::remove_file(&tmp);
            return;
        }
        let mut evicted = Vec::new();
        {
            let mut index = self.index.lock();
            index.tick += 1;
            let tick = index.tick;
            if let Some((old_len, old_use)) = index.pages.insert(key, (len, tick)) {
                index.used -= old_len;
                index.by_use.remove(&old_use);
            }
            index.by_use.insert(tick, key);
            index.used += len;
            while index.used > self.capacity {
                let Some((_, victim)) = index.by_use.pop_first() else {
                    break;
                };
                if let Some((vlen, _)) = index.pages.remove(&victim) {
                    index.used -= vlen;
                }
                evicted.push(victim);
            }
        }
        for victim in evicted {
            let _ = std::fs::remove_file(self.file(victim));
        }
    }

    fn forget(&self, key: PageKey) {
        let mut index = self.index.lock();
        if let Some((len, used)) = index.pages.remove(&key) {
            index.used -= len;
            index.by_use.remove(&used);
        }
        drop(index);
        let _ = std::fs::remove_file(self.file(key));
    }

    /// Drops every page of the object hashed `object` (it was removed or is being replaced).
    pub fn invalidate(&self, object: u128) {
        let keys: Vec<PageKey> = {
            let index = self.index.lock();
            index
                .pages
                .keys()
                .filter(|k| k.0 == object)
                .copied()
                .collect()
        };
        for key in keys {
            self.forget(key);
        }
    }

    /// Bytes cached now.
    pub fn used(&self) -> u64 {
        self.index.lock().used
    }

    /// The most bytes it holds.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_is_one_process_s_and_a_default_one_gets_a_free_sibling() {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().join("cache");
        let first = PageCache::open_first_free(&base, 1 << 20).unwrap();
        assert_eq!(first.dir(), base);
        first.put(7, 0, b"warm");
        // A second process on the same directory is refused and empties nothing.
        let refused = PageCache::open(&base, 1 << 20).unwrap_err();
        assert_eq!(refused.kind(), io::ErrorKind::WouldBlock);
        assert!(refused.to_string().contains("in use by another process"));
        // From the default name it gets a directory of its own.
        let second = PageCache::open_first_free(&base, 1 << 20).unwrap();
        assert_eq!(second.dir(), tmp.path().join("cache-1"));
        let third = PageCache::open_first_free(&base, 1 << 20).unwrap();
        assert_eq!(third.dir(), tmp.path().join("cache-2"));
        assert_eq!(first.get(7, 0).as_deref(), Some(&b"warm"[..]));
        // Just written, so in the page cache: read without waiting, a part of the page.
        assert_eq!(first.get_nowait(7, 0, 1, 2).as_deref(), Some(&b"ar"[..]));
        assert_eq!(first.get_nowait(7, 0, 3, 2), None, "past the page");
        assert_eq!(first.get_nowait(7, 1, 0, 1), None, "not cached");
        // Once the first one is closed, its directory is free again (and emptied).
        drop(first);
        let again = PageCache::open_first_free(&base, 1 << 20).unwrap();
        assert_eq!(again.dir(), base);
        assert_eq!(again.get(7, 0), None);
    }

    #[test]
    fn pages_round_trip_are_bounded_and_invalidated() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("old-1.page"), b"stale").unwrap();
        let cache = PageCache::open(tmp.path(), 3 * 100).unwrap();
        assert!(!tmp.path().join("old-1.page").exists());
        let (a, b) = (key_hash("a"), key_hash("b"));
        cache.put(a, 0, &[1; 100]);
        cache.put(a, 1, &[2; 100]);
        cache.put(b, 0, &[3; 100]);
        assert_eq!(cache.get(a, 0).unwrap()[..], [1; 100]);
        // Over capacity: the least recently used page (a/1) goes.
        cache.put(b, 1, &[4; 100]);
        assert_eq!(cache.used(), 300);
        assert!(cache.get(a, 1).is_none());
        assert_eq!(cache.get(b, 1).unwrap()[..], [4; 100]);
        cache.invalidate(b);
        assert!(cache.get(b, 0).is_none() && cache.get(b, 1).is_none());
        assert_eq!(cache.used(), 100);
        // A page damaged on disk is a miss, never wrong data.
        std::fs::write(cache.file((a, 0)), b"short").unwrap();
        assert!(cache.get(a, 0).is_none());
        assert_eq!(cache.used(), 0);
        assert_eq!(cache.stats.hits.load(Ordering::Relaxed), 2);
    }
}
