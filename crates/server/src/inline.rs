//! Reads served inline on an async worker (docs/rfcs/0013-request-path.md), shared by every
//! protocol a region server speaks: gRPC and the framed protocol ([`crate::service`]) and
//! HBase's RPC.
//!
//! A read holds a [`ReadTicket`] from its start until its answer is ready, wherever it runs.
//! [`ReadTicket::try_inline`] runs it in place, with store-file reads limited to cached
//! blocks, only when it is the one read in flight on the server; otherwise, or when it
//! needed an uncached block, the caller runs it again on the blocking pool.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use strata_sstable::cache_only::cache_only_refused;

/// Most reads in flight (the new one included) for a read to be tried inline. An inline read
/// holds a runtime worker; while one runs, further reads go to the blocking pool so they run
/// in parallel and a worker stays free for the sockets. Measured on 2 cores, YCSB C with 8
/// client threads (docs/rfcs/0013-request-path.md): 1 gives 0.5x the server CPU per read and
/// 1.1-1.25x the throughput of always using the pool; 2 or unbounded lose 27-48% of the
/// throughput and triple p95, as reads queue behind each other on busy workers.
pub const INLINE_READS_MAX: usize = 1;

/// The reads in flight on one region server.
#[derive(Debug, Default, Clone)]
pub struct ReadGate {
    in_flight: Arc<AtomicUsize>,
}

impl ReadGate {
    /// Counts a read in flight until the ticket is dropped.
    pub fn enter(&self) -> ReadTicket {
        let seen = self.in_flight.fetch_add(1, Ordering::Relaxed) + 1;
        ReadTicket {
            in_flight: self.in_flight.clone(),
            inline: seen <= INLINE_READS_MAX,
        }
    }

    /// Reads in flight now.
    pub fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::Relaxed)
    }
}

/// One read in flight (see [`ReadGate::enter`]).
#[derive(Debug)]
pub struct ReadTicket {
    in_flight: Arc<AtomicUsize>,
    inline: bool,
}

impl ReadTicket {
    /// Runs the read `f` in place with store-file reads limited to cached blocks, if this
    /// read may run inline. `None`: it was not tried, it needed an uncached block (whatever
    /// `f` made of that error) or it panicked; the caller runs it on the blocking pool (where
    /// a panic is answered as an internal error). Requires: `f` has no side effects and does
    /// no blocking work besides store-file reads.
    pub fn try_inline<R>(&self, f: impl FnOnce() -> R) -> Option<R> {
        if !self.inline {
            return None;
        }
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| cache_only_refused(f))) {
            Ok((result, false)) => Some(result),
            Ok((_, true)) | Err(_) => None,
        }
    }
}

impl Drop for ReadTicket {
    fn drop(&mut self) {
        self.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_one_read_in_flight_runs_inline() {
        let gate = ReadGate::default();
        let first = gate.enter();
        let second = gate.enter();
        assert_eq!(gate.in_flight(), 2);
        assert_eq!(first.try_inline(|| 7), Some(7));
        assert_eq!(second.try_inline(|| 7), None, "another read is in flight");
        drop(first);
        drop(second);
        assert_eq!(gate.in_flight(), 0);
        let third = gate.enter();
        assert_eq!(third.try_inline(|| 8), Some(8));
        assert_eq!(third.try_inline(|| -> u8 { panic!("boom") }), None);
    }
}
