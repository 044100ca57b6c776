//! The S3 root lock as a lease: a live holder keeps it against a process of another host,
//! which is refused naming the holder, its pid and last renewal; a holder that stopped
//! renewing is taken over after the expiry; a holder whose lock was taken stops writing.
#![allow(clippy::unwrap_used)]

mod s3support;

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use strata_shared_storage::S3;
use strata_storage::vfs::FileStore;

const RENEW: Duration = Duration::from_millis(200);

/// A store whose lock names `host` and renews every [`RENEW`].
fn store_on(host: &str) -> Option<S3> {
    let mut options = s3support::options(None)?;
    options.lock_renew = RENEW;
    options.lock_host = Some(host.to_owned());
    Some(S3::connect(options, Duration::from_secs(20)).unwrap())
}

/// Writes `LOCK` by hand, as a process that is gone left it.
fn leave(s3: &S3, lock: &Path, text: &str) {
    let mut w = s3.create(lock).unwrap();
    w.write_all(text.as_bytes()).unwrap();
    w.close().unwrap();
}

#[test]
fn a_renewed_lock_is_kept_and_an_abandoned_one_expires() {
    let (Some(a), Some(b)) = (store_on("host-a"), store_on("host-b")) else {
        return;
    };
    let dir = s3support::unique_dir("lease");
    let lock = dir.join("LOCK");
    let held = a.lock(&lock).unwrap();
    // Several expiries long, the holder renews: refused each time, naming it.
    for _ in 0..3 {
        let refused = match b.lock(&lock) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("a live holder's lock was taken"),
        };
        assert!(refused.contains("host-a"), "{refused}");
        assert!(
            refused.contains(&format!("process {}", std::process::id())),
            "{refused}"
        );
        assert!(refused.contains("last renewed"), "{refused}");
        assert!(refused.contains("expires"), "{refused}");
    }
    drop(held);

    // A holder on another host that stopped renewing (killed) is taken over once the taker
    // has seen it unchanged for the expiry, and not before.
    let renewed = strata_now_ms() - 5_000;
    leave(&a, &lock, &format!("host-a 4000000 {renewed} 9\n"));
    let started = Instant::now();
    let taken = b.lock(&lock).unwrap();
    assert!(started.elapsed() >= RENEW * 3, "{:?}", started.elapsed());
    let text = String::from_utf8(b.read(&lock).unwrap()).unwrap();
    assert!(text.starts_with("host-b "), "{text}");
    drop(taken);

    // A lock of a version that never renews does not expire.
    leave(&a, &lock, "host-a 4000000\n");
    let refused = b.lock(&lock).err().unwrap().to_string();
    assert!(refused.contains("never renewed"), "{refused}");
    a.remove_dir_all(&dir).unwrap();
}

#[test]
fn a_holder_whose_lock_was_taken_stops_writing() {
    let (Some(a), Some(b)) = (store_on("host-a"), store_on("host-b")) else {
        return;
    };
    let dir = s3support::unique_dir("fenced");
    let lock = dir.join("LOCK");
    let _held = a.lock(&lock).unwrap();
    a.write_atomic(&dir.join("before"), b"x").unwrap();
    // Someone replaces the object (an operator deleting it and another process starting).
    leave(
        &b,
        &lock,
        &format!("host-b 4000001 {} 0\n", strata_now_ms()),
    );
    let deadline = Instant::now() + RENEW * 10;
    while a.fenced().is_none() && Instant::now() < deadline {
        std::thread::sleep(RENEW / 4);
    }
    let why = a.fenced().expect("the holder noticed");
    assert!(why.contains("taken by another process"), "{why}");
    let e = a.write_atomic(&dir.join("after"), b"y").unwrap_err();
    assert!(e.to_string().contains("writes refused"), "{e}");
    assert!(!b.exists(&dir.join("after")).unwrap());
    b.remove_dir_all(&dir).unwrap();
}

fn strata_now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}
