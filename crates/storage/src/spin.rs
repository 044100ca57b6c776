//! Brief busy waits for a condition another thread makes true soon, before a caller falls
//! back to sleeping on a condition variable (a sleep and its wake-up cost tens of µs on a
//! busy machine, and each wake-up may preempt a running thread).

/// Checks `done` up to `spins` times with a `spin_loop` hint between, then after each of
/// `yields` calls to `yield_now`, and once more at the end; returns whether it held.
pub(crate) fn poll_briefly(spins: u32, yields: u32, mut done: impl FnMut() -> bool) -> bool {
    for _ in 0..spins {
        if done() {
            return true;
        }
        std::hint::spin_loop();
    }
    for _ in 0..yields {
        std::thread::yield_now();
        if done() {
            return true;
        }
    }
    done()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stops_at_the_first_true_and_gives_up_after_its_budget() {
        let mut calls = 0;
        assert!(poll_briefly(10, 2, || {
            calls += 1;
            calls == 3
        }));
        assert_eq!(calls, 3);
        let mut calls = 0;
        assert!(!poll_briefly(4, 2, || {
            calls += 1;
            false
        }));
        assert_eq!(calls, 4 + 2 + 1);
    }
}
