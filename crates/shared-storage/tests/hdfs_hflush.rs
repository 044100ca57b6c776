//! A WAL's `flush` (SYNC_WAL) on a real HDFS is an `hflush`: what it acknowledged survives the
//! writer process's death (lease recovery keeps it), and a writer fenced by lease recovery can
//! flush no more.
#![allow(clippy::unwrap_used)]

mod support;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use strata_storage::vfs::{FileStore, LogStore};

/// Set in the child process: the log it writes.
const CHILD_LOG: &str = "STRATA_TEST_HFLUSH_LOG";
const RECORDS: usize = 200;
const RECORD: usize = 1000;

fn record(i: usize) -> Vec<u8> {
    (0..RECORD).map(|j| ((i * 7 + j) % 251) as u8).collect()
}

/// The writer process: appends and hflushes records, says which were acknowledged, leaves an
/// unflushed tail, then waits to be killed (it never closes the log).
fn child(path: &Path) {
    let hdfs = support::client().unwrap();
    let mut log = LogStore::create(hdfs.as_ref(), path).unwrap();
    let mut out = std::io::stdout();
    for i in 0..RECORDS {
        log.append(&record(i)).unwrap();
        log.flush().unwrap();
        writeln!(out, "acked {i}").unwrap();
        out.flush().unwrap();
    }
    log.append(&[0xEE; 500]).unwrap();
    writeln!(out, "ready").unwrap();
    out.flush().unwrap();
    std::thread::sleep(Duration::from_secs(120));
    // Killed long before: never reached in a passing run.
    std::process::exit(3);
}

/// Kills the child when dropped, whatever happens in the test.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn hflushed_appends_survive_the_writer_process_dying_without_close() {
    if let Some(path) = std::env::var_os(CHILD_LOG) {
        return child(Path::new(&path));
    }
    let Some(hdfs) = support::client() else {
        return;
    };
    let dir = support::unique_dir("hflush-kill");
    LogStore::create_dir_all(hdfs.as_ref(), &dir).unwrap();
    let path = dir.join("wal-1");
    let mut writer = Killed(
        Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "hflushed_appends_survive_the_writer_process_dying_without_close",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_LOG, &path)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap(),
    );
    let (tx, rx) = mpsc::channel();
    let stdout = writer.0.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut acked = 0;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = rx
            .recv_timeout(left)
            .unwrap_or_else(|e| panic!("the writer said nothing more ({e}); {acked} acked"));
        if let Some(i) = line.strip_prefix("acked ") {
            acked = i.parse::<usize>().unwrap() + 1;
        } else if line == "ready" {
            break;
        }
    }
    assert_eq!(acked, RECORDS);
    // SIGKILL: the log is never closed, its last block still under construction.
    writer.0.kill().unwrap();
    writer.0.wait().unwrap();

    // A reader of the open log sees the NameNode's length, which leaves the block under
    // construction out (RFC 0011): never more than was acknowledged.
    let before = LogStore::open(hdfs.as_ref(), &path)
        .unwrap()
        .size()
        .unwrap();
    assert!(before <= (RECORDS * RECORD) as u64, "{before}");
    assert!(hdfs.recover_lease(&path).unwrap(), "the log was still open");
    let src = LogStore::open(hdfs.as_ref(), &path).unwrap();
    let len = src.size().unwrap();
    eprintln!("open log read as {before} bytes; {len} bytes after lease recovery");
    // Every acknowledged byte is there. Of the unflushed tail, at most a prefix (a packet the
    // client sent on its own, to complete a checksum chunk) may be.
    let acked_len = RECORDS * RECORD;
    assert!(
        len >= acked_len as u64 && len <= acked_len as u64 + 500,
        "{len}"
    );
    let all = src.read_at(0, len as usize).unwrap();
    for (i, got) in all[..acked_len].chunks(RECORD).enumerate() {
        assert_eq!(got, &record(i)[..], "record {i}");
    }
    assert!(all[acked_len..].iter().all(|b| *b == 0xEE));
    FileStore::remove_dir_all(hdfs.as_ref(), &dir).unwrap();
}

#[test]
fn a_fenced_writer_cannot_hflush_even_without_a_namenode_call() {
    let Some(writer) = support::client() else {
        return;
    };
    let fencer = support::client().unwrap();
    let dir = support::unique_dir("hflush-fence");
    LogStore::create_dir_all(writer.as_ref(), &dir).unwrap();
    let path = dir.join("wal-1");
    let mut log = LogStore::create(writer.as_ref(), &path).unwrap();
    // Only the first hflush of a block calls the NameNode (fsync); later ones go to the
    // DataNode pipeline alone, so it is the DataNode that refuses the fenced one below.
    for i in 0..20u8 {
        log.append(&[i; 100]).unwrap();
        log.flush().unwrap();
    }
    assert!(fencer.recover_lease(&path).unwrap(), "the log was open");
    let started = Instant::now();
    let fenced = log.append(&[99; 100]).and_then(|()| log.flush());
    let err = fenced.expect_err("a fenced writer's hflush succeeded");
    // A real refusal, not the operation timeout running out.
    assert_ne!(err.kind(), std::io::ErrorKind::TimedOut, "{err}");
    assert!(started.elapsed() < Duration::from_secs(25), "{err}");
    eprintln!("fenced hflush failed in {:?}: {err}", started.elapsed());
    // Nor can it flush with nothing new, or sync.
    assert!(log.flush().is_err(), "a fenced writer flushed");
    assert!(log.sync().is_err(), "a fenced writer synced");
    let src = LogStore::open(fencer.as_ref(), &path).unwrap();
    assert_eq!(src.size().unwrap(), 2000);
    assert_eq!(&src.read_at(1900, 100).unwrap()[..], &[19u8; 100][..]);
    FileStore::remove_dir_all(fencer.as_ref(), &dir).unwrap();
}
