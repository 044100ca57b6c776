//! A thread of its own running one round of work every interval: the periodic tier check
//! ([`crate::tier_check`]) and a region server's flush check run on it.
//!
//! Thread safety: [`Periodic`] is `Send + Sync`; stopping it (or dropping it) wakes and joins
//! the thread, after the round in progress, if any, ends.

use std::io;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

struct Shared {
    stopped: Mutex<bool>,
    wake: Condvar,
}

/// A thread calling a round every interval (the first one interval after start), each
/// interval counted from the end of the previous round.
pub struct Periodic {
    shared: Arc<Shared>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl Periodic {
    /// Starts a thread named `name` calling `round` every `every`.
    ///
    /// # Errors
    /// `every` is zero, or the thread cannot be started.
    pub fn start(
        name: &str,
        every: Duration,
        mut round: impl FnMut() + Send + 'static,
    ) -> io::Result<Periodic> {
        if every.is_zero() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("the interval of {name} must be above zero"),
            ));
        }
        let shared = Arc::new(Shared {
            stopped: Mutex::new(false),
            wake: Condvar::new(),
        });
        let state = shared.clone();
        let thread = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                let mut next = Instant::now() + every;
                loop {
                    {
                        let mut stopped = state.stopped.lock();
                        while !*stopped && Instant::now() < next {
                            state.wake.wait_until(&mut stopped, next);
                        }
                        if *stopped {
                            return;
                        }
                    }
                    round();
                    next = Instant::now() + every;
                }
            })?;
        Ok(Periodic {
            shared,
            thread: Mutex::new(Some(thread)),
        })
    }

    /// Stops the rounds and waits for one in progress to end. Idempotent.
    pub fn stop(&self) {
        *self.shared.stopped.lock() = true;
        self.shared.wake.notify_all();
        let thread = self.thread.lock().take();
        if let Some(t) = thread {
            // The last owner may be dropped on the thread itself (a round holding what owns
            // this): that thread ends by itself once it sees `stopped`.
            if t.thread().id() != std::thread::current().id() {
                let _ = t.join();
            }
        }
    }
}

impl Drop for Periodic {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn rounds_run_until_stopped_and_a_zero_interval_is_refused() {
        assert!(Periodic::start("never", Duration::ZERO, || {}).is_err());
        let rounds = Arc::new(AtomicU64::new(0));
        let counted = rounds.clone();
        let periodic = Periodic::start("count", Duration::from_millis(5), move || {
            counted.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        while rounds.load(Ordering::SeqCst) < 3 {
            assert!(Instant::now() < deadline, "no rounds ran");
            std::thread::sleep(Duration::from_millis(5));
        }
        periodic.stop();
        let after = rounds.load(Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(
            rounds.load(Ordering::SeqCst),
            after,
            "a round ran after stop"
        );
        periodic.stop();
    }
}
