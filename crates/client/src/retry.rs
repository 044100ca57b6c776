//! When to retry and how long to wait: exponential back-off with jitter, bounded by a retry
//! count and an operation deadline.
//!
//! The rule for requests that must not be applied twice (increments, appends, row mutations
//! holding them, check-and-mutate): retry only when the server said it did not apply the
//! request (`NOT_SERVING_REGION`, `REGION_TOO_BUSY`). Anything else, above all a connection
//! lost mid-request, may hide an applied write, so it goes back to the caller. So does an
//! attempt that got no answer within the per-attempt timeout (`UNAVAILABLE`, saying so): a
//! read or idempotent write is sent again to the region's freshly located server instead.
//!
//! A request refused by a throttle (`THROTTLED`, RFC 0029) was not applied: it is sent again
//! after the wait the server named (HBase's `RpcThrottlingException` message, read by
//! [`strata_access::quota::wait_of`]), within the operation's deadline. Such waits do not
//! count as retries: a throttled client is slowed, not failed, until its deadline.

use std::future::Future;
use std::time::Duration;

use rand::Rng;
use strata_proto::pb::ErrorCode;
use tokio::time::Instant;

use crate::error::Error;
use crate::options::ClientOptions;

/// Whether sending a request twice is harmless.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Idempotence {
    /// Reads, and puts and deletes whose every timestamp the client gave: a repeat writes
    /// the same cells again, which no reader can tell apart.
    Idempotent,
    /// Increments, appends, check-and-mutate, and puts and deletes that take the server's
    /// clock: a repeat may apply twice. A put's repeat is a new version, and one that arrives
    /// late (a first attempt held up on a slow link while its retry succeeded, or the other
    /// way round) lands after other clients' later writes and brings the old value back.
    NotIdempotent,
}

/// True if a request that failed with `err` may be sent again: the server said it did not
/// apply it, it was never sent, or it is safe to repeat.
pub(crate) fn should_retry(err: &Error, idempotence: Idempotence) -> bool {
    match err.code {
        ErrorCode::NotServingRegion | ErrorCode::RegionTooBusy | ErrorCode::Throttled => true,
        ErrorCode::Unavailable => idempotence == Idempotence::Idempotent || err.was_unsent(),
        _ => false,
    }
}

/// The pause before retry number `attempt` (0-based): `base * 2^attempt` capped at `max`,
/// then "equal jitter": half of it fixed, half scaled by `jitter` in `[0, 1)`.
pub(crate) fn backoff_delay(base: Duration, max: Duration, attempt: u32, jitter: f64) -> Duration {
    let exp = base
        .checked_mul(1u32.checked_shl(attempt.min(31)).unwrap_or(u32::MAX))
        .unwrap_or(max)
        .min(max);
    let half = exp / 2;
    half + half.mul_f64(jitter.clamp(0.0, 1.0))
}

/// The retry budget of one operation: attempts left and its deadline.
#[derive(Debug)]
pub(crate) struct Retry {
    base: Duration,
    max: Duration,
    retries: u32,
    attempt: u32,
    timeout: Duration,
    attempt_timeout: Duration,
    deadline: Instant,
}

/// The error of an attempt to `server` that got no answer within `limit`.
pub(crate) fn no_answer(server: &str, limit: Duration) -> Error {
    Error::new(
        ErrorCode::Unavailable,
        format!(
            "no answer from {server} within {limit:?} (the per-attempt timeout): the server \
             may be stopped or unreachable; the request may or may not have been applied"
        ),
    )
}

/// Runs `attempt` to `server`, cut off after `limit` (zero: no limit).
///
/// # Errors
/// The attempt's error, or [`no_answer`] when the limit passed first.
pub(crate) async fn within<T, F>(server: &str, limit: Duration, attempt: F) -> Result<T, Error>
where
    F: Future<Output = Result<T, Error>>,
{
    if limit.is_zero() {
        return attempt.await;
    }
    match tokio::time::timeout(limit, attempt).await {
        Ok(result) => result,
        Err(_) => Err(no_answer(server, limit)),
    }
}

impl Retry {
    /// A budget starting now.
    pub(crate) fn new(options: &ClientOptions) -> Retry {
        Retry {
            base: options.retry_base,
            max: options.retry_max,
            retries: options.retries,
            attempt: 0,
            timeout: options.operation_timeout,
            attempt_timeout: options.attempt_timeout,
            deadline: Instant::now() + options.operation_timeout,
        }
    }

    /// Runs one attempt, cut off at the deadline.
    ///
    /// # Errors
    /// The attempt's error, or `UNAVAILABLE` if the deadline passed first.
    pub(crate) async fn run<T, F>(&self, attempt: F) -> Result<T, Error>
    where
        F: Future<Output = Result<T, Error>>,
    {
        match tokio::time::timeout_at(self.deadline, attempt).await {
            Ok(result) => result,
            Err(_) => Err(self.timed_out(None)),
        }
    }

    /// Runs one attempt sent to `server`, cut off at the per-attempt timeout or the
    /// deadline, whichever comes first.
    ///
    /// # Errors
    /// The attempt's error, [`no_answer`] if the per-attempt timeout passed, or `UNAVAILABLE`
    /// if the deadline passed first.
    pub(crate) async fn run_at<T, F>(&self, server: &str, attempt: F) -> Result<T, Error>
    where
        F: Future<Output = Result<T, Error>>,
    {
        self.run(within(server, self.attempt_timeout, attempt))
            .await
    }

    /// Decides on `err`: sleeps and returns `Ok` if the request may be sent again, else
    /// returns the error to give the caller.
    ///
    /// # Errors
    /// `err` itself when it is not retryable for `idempotence`, or when retries or time ran
    /// out (then as `UNAVAILABLE` naming `err`).
    pub(crate) async fn back_off(
        &mut self,
        err: Error,
        idempotence: Idempotence,
    ) -> Result<(), Error> {
        if !should_retry(&err, idempotence) {
            return Err(err);
        }
        if err.code == ErrorCode::Throttled {
            return self.wait_throttled(err).await;
        }
        if self.attempt >= self.retries {
            return Err(Error::new(
                err.code,
                format!("{} (gave up after {} retries)", err.message, self.retries),
            ));
        }
        let jitter = rand::thread_rng().gen::<f64>();
        let delay = backoff_delay(self.base, self.max, self.attempt, jitter);
        self.attempt += 1;
        if Instant::now() + delay >= self.deadline {
            return Err(self.timed_out(Some(&err)));
        }
        tokio::time::sleep(delay).await;
        Ok(())
    }

    /// Sleeps the wait a throttled request's message names (the usual back-off if it names
    /// none), with up to a tenth more of jitter so that throttled clients spread out.
    async fn wait_throttled(&mut self, err: Error) -> Result<(), Error> {
        let wait = strata_access::quota::wait_of(&err.message)
            .unwrap_or_else(|| backoff_delay(self.base, self.max, self.attempt, 1.0));
        let delay = wait + wait.mul_f64(rand::thread_rng().gen::<f64>() / 10.0);
        if Instant::now() + delay >= self.deadline {
            return Err(self.timed_out(Some(&err)));
        }
        tokio::time::sleep(delay).await;
        Ok(())
    }

    fn timed_out(&self, last: Option<&Error>) -> Error {
        let last = last.map_or(String::new(), |e| format!("; last error: {e}"));
        Error::new(
            ErrorCode::Unavailable,
            format!("operation timed out after {:?}{last}", self.timeout),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let base = 100 * MS;
        let max = 5000 * MS;
        assert_eq!(backoff_delay(base, max, 0, 1.0), 100 * MS);
        assert_eq!(backoff_delay(base, max, 0, 0.0), 50 * MS);
        assert_eq!(backoff_delay(base, max, 3, 1.0), 800 * MS);
        assert_eq!(backoff_delay(base, max, 10, 1.0), max);
        assert_eq!(backoff_delay(base, max, 200, 0.5), 3750 * MS);
    }

    #[test]
    fn jitter_stays_in_the_upper_half() {
        for i in 0..100 {
            let d = backoff_delay(200 * MS, 10_000 * MS, 1, f64::from(i) / 100.0);
            assert!(d >= 200 * MS && d <= 400 * MS, "{d:?}");
        }
    }

    #[test]
    fn non_idempotent_requests_retry_only_what_was_not_applied() {
        use Idempotence::{Idempotent, NotIdempotent};
        let e = |code| Error::new(code, "");
        for idem in [Idempotent, NotIdempotent] {
            assert!(should_retry(&e(ErrorCode::NotServingRegion), idem));
            assert!(should_retry(&e(ErrorCode::RegionTooBusy), idem));
            assert!(!should_retry(&e(ErrorCode::TableNotFound), idem));
            assert!(!should_retry(&e(ErrorCode::InvalidArgument), idem));
        }
        assert!(should_retry(&e(ErrorCode::Unavailable), Idempotent));
        assert!(should_retry(&e(ErrorCode::Throttled), NotIdempotent));
        assert!(!should_retry(&e(ErrorCode::Unavailable), NotIdempotent));
    }

    /// A request never sent (its connection could not be made) cannot have been applied: it
    /// is sent again whatever it is. One that may have reached the server is not, unless safe.
    #[test]
    fn unsent_requests_are_always_retried() {
        use Idempotence::{Idempotent, NotIdempotent};
        let refused = Error::from(crate::error::unsent(tonic::Status::unavailable(
            "127.0.0.1:1: connection refused",
        )));
        assert!(refused.was_unsent());
        assert!(should_retry(&refused, NotIdempotent));
        let lost = Error::from(tonic::Status::unavailable("connection to a lost"));
        assert!(!lost.was_unsent());
        assert!(!should_retry(&lost, NotIdempotent));
        assert!(!should_retry(&no_answer("a", MS), NotIdempotent));
        assert!(should_retry(&no_answer("a", MS), Idempotent));
    }

    #[tokio::test]
    async fn retries_run_out() {
        let options = ClientOptions {
            retries: 2,
            retry_base: MS,
            retry_max: MS,
            ..ClientOptions::default()
        };
        let mut retry = Retry::new(&options);
        let busy = || Error::new(ErrorCode::RegionTooBusy, "busy");
        assert!(retry
            .back_off(busy(), Idempotence::Idempotent)
            .await
            .is_ok());
        assert!(retry
            .back_off(busy(), Idempotence::Idempotent)
            .await
            .is_ok());
        let e = retry.back_off(busy(), Idempotence::Idempotent).await;
        assert_eq!(e.map_err(|e| e.code), Err(ErrorCode::RegionTooBusy));
    }

    #[tokio::test]
    async fn throttled_requests_wait_as_told_until_the_deadline() {
        let options = ClientOptions {
            retries: 0,
            operation_timeout: Duration::from_millis(300),
            ..ClientOptions::default()
        };
        let mut retry = Retry::new(&options);
        let throttled = |ms| {
            Error::new(
                ErrorCode::Throttled,
                format!("number of requests exceeded - wait {ms}ms"),
            )
        };
        let start = Instant::now();
        for _ in 0..2 {
            retry
                .back_off(throttled(50), Idempotence::NotIdempotent)
                .await
                .unwrap();
        }
        let waited = start.elapsed();
        assert!(waited >= 100 * MS && waited < 250 * MS, "{waited:?}");
        let e = retry
            .back_off(throttled(500), Idempotence::NotIdempotent)
            .await
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::Unavailable);
        assert!(e.message.contains("number of requests exceeded"), "{e}");
    }
}
