//! Brief polling for the next bytes of a connection before its task parks
//! (docs/rfcs/0013-request-path.md, Decision 12).
//!
//! On a virtual machine a thread that parks in `epoll_wait` and is woken by a packet costs
//! tens of microseconds of latency (the idle vCPU halts; the wake-up is an interrupt through
//! the hypervisor), more than a cached get costs the server. A connection that expects its
//! next bytes soon (a response to a call in flight; the next request of a client that keeps
//! sending) tries non-blocking reads for a few tens of microseconds first, yielding to the
//! runtime's other tasks between tries, and parks only when that fails.
//!
//! [`SpinPolicy`] keeps the cost bounded where polling does not pay. It polls only while its
//! connection serves one sequential caller on an otherwise quiet process ([`Solo`]), and a
//! poll gives up once another thread has waited for a CPU for [`BUSY_FOR`]
//! ([`crate::spare_core`]). Every poll that ends without bytes doubles the number of waits
//! that park at once before the next poll (up to [`MAX_BACKOFF`]), and a poll that finds
//! bytes resets it. A connection whose peer is slow (a loaded machine, a client thinking
//! between calls) therefore polls once every [`MAX_BACKOFF`] waits, a cost under 1% of a
//! wait that long.

use std::io::{self, Read};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use tokio::net::TcpStream;

use crate::solo::Solo;
use crate::spare_core::spare_core;

/// The poll budget connections use unless configured otherwise (`--poll-us`,
/// `poll_before_park`): a little over two round trips of a loopback on a virtual machine.
pub const DEFAULT_BUDGET: Duration = Duration::from_micros(200);

/// Longest back-off: after this many polls in a row found nothing, a connection polls once
/// per this many waits.
pub const MAX_BACKOFF: u32 = 64;

/// Bytes a poll can read at once (the rest waits for the next read).
const POLL_READ_BYTES: usize = 16 << 10;

/// A pause this long between two tries of one poll means the thread lost its core for a
/// scheduler slice: the machine has no idle core to poll on, and polling only takes CPU from
/// the work it waits for. (Shorter pauses are common without contention: the runtime's other
/// tasks run between tries, and a virtual machine's vCPU is descheduled now and then; a
/// threshold of 20 µs gave up on most polls of a lone client.)
const CONTENDED: Duration = Duration::from_millis(1);

/// A poll gives up once the machine has had a thread waiting for a CPU this long without a
/// break. (Shorter waits come and go without load: a runtime waking a sibling worker, a
/// client's two threads handing a response over. Ending a poll at the first one gave a lone
/// client 42–54 µs where polling through them gave 18–23.)
pub const BUSY_FOR: Duration = Duration::from_micros(50);

/// What one poll found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Polled {
    /// `n` bytes were appended (0: the peer closed the stream).
    Read(usize),
    /// Nothing arrived within the budget.
    Nothing,
    /// The poll gave up early: a thread waited for a CPU ([`BUSY_FOR`]).
    Busy,
    /// The poll gave up early: the thread was preempted or the runtime was busy.
    Contended,
}

/// When one connection polls before parking, and for how long.
#[derive(Debug, Clone)]
pub struct SpinPolicy {
    budget: Duration,
    solo: Arc<Solo>,
    /// Waits left that park at once.
    skip: u32,
    /// Waits to skip after the next poll that finds nothing.
    backoff: u32,
}

impl SpinPolicy {
    /// Polls for up to `budget` per wait; a zero budget never polls.
    pub fn new(budget: Duration) -> SpinPolicy {
        SpinPolicy {
            budget,
            solo: Arc::new(Solo::new()),
            skip: 0,
            backoff: 1,
        }
    }

    /// The connection's record of its requests: the side that sees requests (or calls)
    /// come reports each one to it ([`Solo::request`]).
    pub fn solo(&self) -> &Arc<Solo> {
        &self.solo
    }

    /// Whether this wait should poll first (and counts the wait if not).
    pub fn should_poll(&mut self) -> bool {
        if self.budget.is_zero() || !self.solo.alone() {
            return false;
        }
        if self.skip > 0 {
            self.skip -= 1;
            return false;
        }
        true
    }

    /// Records a poll's outcome: found bytes (or the end of the stream) resets the back-off;
    /// nothing doubles it; contention sets it to [`MAX_BACKOFF`] at once.
    pub fn polled(&mut self, outcome: Polled) {
        match outcome {
            Polled::Read(_) => self.backoff = 1,
            Polled::Nothing | Polled::Busy => {
                self.skip = self.backoff;
                self.backoff = (self.backoff * 2).min(MAX_BACKOFF);
            }
            Polled::Contended => {
                self.skip = MAX_BACKOFF;
                self.backoff = MAX_BACKOFF;
            }
        }
    }

    /// Polls `stream` for `policy`'s budget if the policy says so: see [`read_soon`].
    ///
    /// # Errors
    /// As [`read_soon`].
    pub async fn read(
        &mut self,
        stream: &TcpStream,
        input: &mut impl Input,
    ) -> io::Result<Option<usize>> {
        if !self.should_poll() {
            return Ok(None);
        }
        let outcome = read_soon(stream, input, self.budget).await?;
        self.polled(outcome);
        Ok(match outcome {
            Polled::Read(n) => Some(n),
            Polled::Nothing | Polled::Busy | Polled::Contended => None,
        })
    }
}

/// A buffer a poll appends to.
pub trait Input {
    /// Bytes held.
    fn len(&self) -> usize;
    /// Whether it holds none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Grows to `len` bytes with zeros, or cuts to `len`.
    fn set_len_zeroed(&mut self, len: usize);
    /// The bytes from `from` on.
    fn tail_mut(&mut self, from: usize) -> &mut [u8];
}

impl Input for BytesMut {
    fn len(&self) -> usize {
        BytesMut::len(self)
    }
    fn set_len_zeroed(&mut self, len: usize) {
        self.resize(len, 0);
    }
    fn tail_mut(&mut self, from: usize) -> &mut [u8] {
        &mut self[from..]
    }
}

impl Input for Vec<u8> {
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn set_len_zeroed(&mut self, len: usize) {
        self.resize(len, 0);
    }
    fn tail_mut(&mut self, from: usize) -> &mut [u8] {
        &mut self[from..]
    }
}

/// Tries non-blocking reads of `stream` into `input` for up to `budget`, yielding to the
/// runtime between tries, and gives up early when another thread has waited for a CPU for
/// [`BUSY_FOR`] ([`Polled::Busy`]) or a pause between two tries shows this one was preempted
/// or the runtime busy ([`Polled::Contended`]). Unless bytes were read
/// ([`Polled::Read`]), the caller waits for readiness as usual.
///
/// Reads the socket directly rather than through the runtime's readiness (which only changes
/// when the runtime polls for events), so bytes are seen as soon as they arrive.
///
/// # Errors
/// The socket failed.
pub async fn read_soon(
    stream: &TcpStream,
    input: &mut impl Input,
    budget: Duration,
) -> io::Result<Polled> {
    let start = Instant::now();
    let mut last = start;
    let mut busy_since: Option<Instant> = None;
    let socket = socket2::SockRef::from(stream);
    let filled = input.len();
    input.set_len_zeroed(filled + POLL_READ_BYTES);
    let outcome = loop {
        // The runtime registered the socket non-blocking: an empty socket is `WouldBlock`.
        match (&*socket).read(input.tail_mut(filled)) {
            Ok(n) => break Ok(Polled::Read(n)),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => break Err(e),
        }
        let now = Instant::now();
        if spare_core() {
            busy_since = None;
        } else if now - *busy_since.get_or_insert(now) >= BUSY_FOR {
            break Ok(Polled::Busy);
        }
        if now - last >= CONTENDED {
            break Ok(Polled::Contended);
        }
        if now - start >= budget {
            break Ok(Polled::Nothing);
        }
        last = now;
        tokio::task::yield_now().await;
    };
    let n = match &outcome {
        Ok(Polled::Read(n)) => *n,
        _ => 0,
    };
    input.set_len_zeroed(filled + n);
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;
    use tokio::net::TcpListener;

    async fn pair() -> (TcpStream, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let client = TcpStream::connect(addr).await.expect("connect");
        let (server, _) = listener.accept().await.expect("accept");
        (client, server)
    }

    /// Polls until bytes or the end of the stream arrive (a poll may end early on a busy
    /// machine).
    async fn read_until_found(server: &TcpStream, input: &mut BytesMut) -> Polled {
        for _ in 0..10_000 {
            let got = read_soon(server, input, Duration::from_millis(5))
                .await
                .expect("read");
            if matches!(got, Polled::Read(_)) {
                return got;
            }
        }
        panic!("nothing arrived");
    }

    #[tokio::test]
    async fn bytes_sent_are_read_and_appended() {
        let (mut client, server) = pair().await;
        let mut input = BytesMut::from(&b"kept"[..]);
        client.write_all(b"hello").await.expect("write");
        let got = read_until_found(&server, &mut input).await;
        assert_eq!(got, Polled::Read(5));
        assert_eq!(&input[..], b"kepthello");
    }

    #[tokio::test]
    async fn nothing_arriving_leaves_the_input_unchanged() {
        let (_client, server) = pair().await;
        let mut input = BytesMut::from(&b"kept"[..]);
        let got = read_soon(&server, &mut input, Duration::from_micros(200))
            .await
            .expect("read");
        // Nothing, or contended on a busy test machine: never bytes.
        assert!(!matches!(got, Polled::Read(_)));
        assert_eq!(&input[..], b"kept");
    }

    #[tokio::test]
    async fn a_closed_peer_reads_as_zero_bytes() {
        let (client, server) = pair().await;
        drop(client);
        let mut input = BytesMut::new();
        let got = read_until_found(&server, &mut input).await;
        assert_eq!(got, Polled::Read(0));
        assert!(input.is_empty());
    }

    #[test]
    fn failed_polls_back_off_and_a_found_one_resets() {
        let _serial = crate::solo::tests::SERIAL
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut policy = SpinPolicy::new(Duration::from_micros(50));
        policy.solo().request(false);
        crate::solo::tests::wait_quiet();
        assert!(policy.should_poll());
        policy.polled(Polled::Nothing); // skip 1
        assert!(!policy.should_poll());
        assert!(policy.should_poll());
        policy.polled(Polled::Nothing); // skip 2
        assert!(!policy.should_poll());
        assert!(!policy.should_poll());
        assert!(policy.should_poll());
        for _ in 0..20 {
            policy.polled(Polled::Nothing);
            while !policy.should_poll() {}
        }
        policy.polled(Polled::Nothing);
        let mut skipped = 0;
        while !policy.should_poll() {
            skipped += 1;
        }
        assert_eq!(skipped, MAX_BACKOFF);
        policy.polled(Polled::Read(1));
        assert!(policy.should_poll());
        assert!(!SpinPolicy::new(Duration::ZERO).should_poll());
        // Contention backs off all the way at once.
        policy.polled(Polled::Contended);
        let mut skipped = 0;
        while !policy.should_poll() {
            skipped += 1;
        }
        assert_eq!(skipped, MAX_BACKOFF);
        // A busy machine backs off as nothing found does.
        policy.polled(Polled::Read(1));
        policy.polled(Polled::Busy);
        assert!(!policy.should_poll());
        assert!(policy.should_poll());
    }

    #[test]
    fn only_a_lone_sequential_connection_polls() {
        let _serial = crate::solo::tests::SERIAL
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut policy = SpinPolicy::new(DEFAULT_BUDGET);
        assert!(!policy.should_poll(), "no request seen yet");
        policy.solo().request(false);
        crate::solo::tests::wait_quiet();
        assert!(policy.should_poll());
        policy.solo().request(true);
        assert!(!policy.should_poll(), "requests overlapped");
        for _ in 0..crate::solo::QUIET_REQUESTS {
            policy.solo().request(false);
        }
        assert!(policy.should_poll());
        let other = SpinPolicy::new(DEFAULT_BUDGET);
        other.solo().request(false);
        assert!(!policy.should_poll(), "another connection took a request");
    }
}
