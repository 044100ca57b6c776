use std::sync::Arc;
use std::time::Duration;

use super::*;

fn nonce(n: u64) -> Nonce {
    Nonce { group: 7, nonce: n }
}

const NO_WAIT: Duration = Duration::from_millis(0);

#[test]
fn a_succeeded_nonce_is_done_and_a_failed_one_runs_again() {
    let nonces = Nonces::default();
    let Ok(Start::Run(op)) = nonces.start(nonce(1), NO_WAIT) else {
        panic!("a new nonce runs");
    };
    op.succeeded();
    assert!(matches!(nonces.start(nonce(1), NO_WAIT), Ok(Start::Done)));
    // Another group's operation with the same number is another operation.
    let other = Nonce { group: 8, nonce: 1 };
    assert!(matches!(nonces.start(other, NO_WAIT), Ok(Start::Run(_))));

    let Ok(Start::Run(op)) = nonces.start(nonce(2), NO_WAIT) else {
        panic!("a new nonce runs");
    };
    drop(op); // failed
    let Ok(Start::Run(op)) = nonces.start(nonce(2), NO_WAIT) else {
        panic!("a failed nonce runs again");
    };
    op.succeeded();
    assert!(matches!(nonces.start(nonce(2), NO_WAIT), Ok(Start::Done)));
}

#[test]
fn a_second_attempt_waits_for_the_running_one() {
    let nonces = Arc::new(Nonces::default());
    let Ok(Start::Run(op)) = nonces.start(nonce(3), NO_WAIT) else {
        panic!("a new nonce runs");
    };
    // Still running: a short wait ends in a retryable error.
    let err = nonces.start(nonce(3), Duration::from_millis(20)).err();
    assert!(err.is_some_and(|e| e.contains("still running")));
    let waiter = {
        let nonces = nonces.clone();
        std::thread::spawn(move || {
            matches!(
                nonces.start(nonce(3), Duration::from_secs(30)),
                Ok(Start::Done)
            )
        })
    };
    std::thread::sleep(Duration::from_millis(50));
    op.succeeded();
    assert!(
        waiter.join().unwrap(),
        "the waiter saw the first attempt succeed"
    );
}

#[test]
fn nonces_replayed_from_the_wal_are_done_unless_too_old() {
    let nonces = Nonces::new(Duration::from_secs(60));
    let now = 1_000_000_000;
    nonces.report_from_wal(nonce(4), now - 1_000, now);
    assert!(matches!(nonces.start(nonce(4), NO_WAIT), Ok(Start::Done)));
    // Logged more than 1.5 grace periods ago: the client stopped retrying long since.
    nonces.report_from_wal(nonce(5), now - 91_000, now);
    assert!(matches!(nonces.start(nonce(5), NO_WAIT), Ok(Start::Run(_))));
}

#[test]
fn done_nonces_are_forgotten_after_the_grace_period() {
    let nonces = Nonces::new(Duration::from_millis(50));
    let Ok(Start::Run(op)) = nonces.start(nonce(6), NO_WAIT) else {
        panic!("a new nonce runs");
    };
    op.succeeded();
    assert_eq!(nonces.len(), 1);
    std::thread::sleep(Duration::from_millis(80));
    // The next start sweeps.
    assert!(matches!(nonces.start(nonce(6), NO_WAIT), Ok(Start::Run(_))));
    assert_eq!(
        nonces.len(),
        0,
        "the run above was dropped: failed, forgotten"
    );
}
