//! Cache-only reads: a scope in which any store-file read that would wait for its source (a
//! device, object store, HDFS) fails at once with an [`io::ErrorKind::WouldBlock`] error
//! instead of blocking.
//!
//! A server runs a request inside [`cache_only`] on its async worker; if the request needed a
//! block that is neither in the block cache nor readable without waiting (a local file's
//! pages in the OS page cache: [`crate::Source::read_at_nowait`]), it fails fast and is
//! retried on a blocking thread. A request served from memtables, cached blocks and the page
//! cache never leaves the worker.
//!
//! Thread safety: the flag is per thread and restored when the scope ends (also on panic), so
//! scopes nest and never leak into other work on the same thread.

use std::cell::Cell;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::Error;

thread_local! {
    static CACHE_ONLY: Cell<bool> = const { Cell::new(false) };
    /// Reads refused on this thread (see [`cache_only_refused`]).
    static REFUSED: Cell<u64> = const { Cell::new(0) };
}

/// Blocks read inside a cache-only scope without waiting (the page cache had them), and
/// reads refused there, since the process started.
static IN_PLACE: AtomicU64 = AtomicU64::new(0);
static REFUSED_ALL: AtomicU64 = AtomicU64::new(0);

/// Store-file reads made inside cache-only scopes since the process started.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheOnlyReads {
    /// Blocks missing from the block cache read without waiting (from the OS page cache).
    pub in_place: u64,
    /// Reads refused: the request went to a blocking thread.
    pub refused: u64,
}

/// Reads made inside cache-only scopes since the process started.
pub fn cache_only_reads() -> CacheOnlyReads {
    CacheOnlyReads {
        in_place: IN_PLACE.load(Ordering::Relaxed),
        refused: REFUSED_ALL.load(Ordering::Relaxed),
    }
}

/// Runs `f` with store-file reads limited to the block cache: a read that misses it fails with
/// an error for which [`is_would_block`] is true. Requires: `f` does no other blocking work
/// the caller minds (it is not checked).
pub fn cache_only<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            CACHE_ONLY.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(CACHE_ONLY.with(|c| c.replace(true)));
    f()
}

/// Runs `f` as [`cache_only`] does; also true if any read was refused inside it, even one
/// whose error `f` handled or turned into something else (an exception in one of a batch's
/// results, say). A caller that sees true runs `f` again where it may block.
pub fn cache_only_refused<R>(f: impl FnOnce() -> R) -> (R, bool) {
    let before = REFUSED.with(Cell::get);
    let result = cache_only(f);
    (result, REFUSED.with(Cell::get) != before)
}

/// True if `e` is the error of a read refused inside [`cache_only`].
pub fn is_would_block(e: &Error) -> bool {
    matches!(e, Error::Io { source, .. } if source.kind() == io::ErrorKind::WouldBlock)
}

/// True if the current thread is inside [`cache_only`]: a read from a source may only be
/// made without waiting ([`crate::Source::read_at_nowait`]); else it is [`refuse`]d.
pub(crate) fn active() -> bool {
    CACHE_ONLY.with(Cell::get)
}

/// Counts a block read without waiting inside [`cache_only`].
pub(crate) fn read_in_place() {
    IN_PLACE.fetch_add(1, Ordering::Relaxed);
}

/// The error of a read of `file` refused inside [`cache_only`] (it would have waited),
/// counted.
pub(crate) fn refuse(file: &str) -> Error {
    REFUSED.with(|r| r.set(r.get().wrapping_add(1)));
    REFUSED_ALL.fetch_add(1, Ordering::Relaxed);
    Error::io(
        file,
        io::Error::new(
            io::ErrorKind::WouldBlock,
            "block not cached (cache-only read)",
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a reader does before reading from its source.
    fn check(file: &str) -> Result<(), Error> {
        if active() {
            return Err(refuse(file));
        }
        Ok(())
    }

    #[test]
    fn the_scope_refuses_reads_and_restores_the_flag() {
        assert!(check("f").is_ok());
        let before = cache_only_reads();
        let inner = cache_only(|| {
            let e = check("f").expect_err("refused inside the scope");
            assert!(is_would_block(&e), "{e}");
            cache_only(|| check("f").is_err())
        });
        assert!(inner, "nested scopes refuse too");
        assert!(check("f").is_ok(), "the flag is restored");
        // Other tests of this process refuse reads too: at least ours are counted.
        assert!(cache_only_reads().refused >= before.refused + 2);
        let caught = std::panic::catch_unwind(|| cache_only(|| panic!("boom")));
        assert!(caught.is_err());
        assert!(check("f").is_ok(), "restored after a panic");
        let (swallowed, refused) = cache_only_refused(|| check("f").is_err());
        assert!(
            swallowed && refused,
            "a refusal is seen even if its error is dropped"
        );
        let ((), refused) = cache_only_refused(|| ());
        assert!(!refused, "no read, no refusal");
        let other = Error::io("f", io::Error::other("disk"));
        assert!(!is_would_block(&other));
    }
}
