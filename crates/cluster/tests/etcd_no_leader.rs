//! An etcd member without a leader (the minority side of a partition, or every member during
//! an election) refuses requests at once instead of holding them until the client's timeout,
//! so that a lease's keep-alive fails fast and the next attempt can go to another member: the
//! client asks for a leader (etcd's `hasleader` metadata).
//!
//! Two members of a cluster of their own on loopback (free ports), one of them killed: the
//! other cannot elect itself. Needs the `etcd` binary; runs when `STRATA_ETCD_ENDPOINTS` is
//! set (as `scripts/test.sh` does once etcd is installed), else says so and does nothing.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use strata_cluster::etcd::EtcdKv;
use strata_cluster::kv::Kv;

/// Removed when dropped.
struct Scratch(std::path::PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Killed when dropped.
struct Member(Child);

impl Drop for Member {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Four distinct free ports: every listener is held until all four are chosen.
fn free_ports() -> [u16; 4] {
    let listeners: Vec<TcpListener> = (0..4)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("a free port"))
        .collect();
    let port = |i: usize| listeners[i].local_addr().expect("its address").port();
    [port(0), port(1), port(2), port(3)]
}

/// The last lines etcd `name` wrote (its log is kept in the scratch directory).
fn log_tail(dir: &std::path::Path, name: &str) -> String {
    let text = std::fs::read_to_string(dir.join(format!("{name}.log"))).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(10)..].join("\n")
}

fn start(name: &str, client: u16, peer: u16, cluster: &str, dir: &std::path::Path) -> Member {
    let child = Command::new("etcd")
        .args(["--name", name, "--data-dir"])
        .arg(dir.join(name))
        .args([
            "--listen-client-urls",
            &format!("http://127.0.0.1:{client}"),
            "--advertise-client-urls",
            &format!("http://127.0.0.1:{client}"),
            "--listen-peer-urls",
            &format!("http://127.0.0.1:{peer}"),
            "--initial-advertise-peer-urls",
            &format!("http://127.0.0.1:{peer}"),
            "--initial-cluster",
            cluster,
            "--initial-cluster-state",
            "new",
            "--initial-cluster-token",
            "strata-no-leader",
            "--heartbeat-interval",
            "50",
            "--election-timeout",
            "500",
            "--log-level",
            "error",
            "--logger",
            "zap",
        ])
        .stdout(Stdio::null())
        .stderr(
            std::fs::File::create(dir.join(format!("{name}.log")))
                .map_or_else(|_| Stdio::null(), Stdio::from),
        )
        .spawn()
        .expect("etcd starts");
    Member(child)
}

#[test]
fn a_member_without_a_leader_refuses_at_once() {
    if std::env::var_os("STRATA_ETCD_ENDPOINTS").is_none() {
        eprintln!("STRATA_ETCD_ENDPOINTS unset: etcd not installed (scripts/test.sh installs it)");
        return;
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let dir = Scratch(
        std::env::temp_dir().join(format!("strata-no-leader-{}-{nanos}", std::process::id())),
    );
    std::fs::create_dir_all(&dir.0).expect("scratch directory");
    let (a, b, kv) = two_members(&dir.0);
    let (lease, _) = kv.grant(10).expect("a lease");
    assert!(kv.keep_alive(lease).expect("kept alive").is_some());

    // b gone: a is one of two and cannot elect itself; once its election timeout passes it
    // has no leader.
    drop(b);
    std::thread::sleep(Duration::from_secs(2));
    let asked = Instant::now();
    let e = kv.get("/no-leader/probe").expect_err("no leader, no read");
    assert!(
        asked.elapsed() < Duration::from_secs(2),
        "a read waited {:?} for a member without a leader ({e})",
        asked.elapsed()
    );
    let asked = Instant::now();
    let kept = kv.keep_alive(lease);
    assert!(kept.is_err(), "kept alive without a leader: {kept:?}");
    assert!(
        asked.elapsed() < Duration::from_secs(2),
        "a keep-alive waited {:?} for a member without a leader",
        asked.elapsed()
    );
    drop(a);
}

/// Two members up, a leader elected, and a client of the first. A member that exits before
/// (a port taken meanwhile by another process) is started again on other ports, twice at
/// most; a cluster not up within 45 s fails the test with both members' last log lines.
fn two_members(dir: &std::path::Path) -> (Member, Member, EtcdKv) {
    for attempt in 1..=3 {
        let [c1, p1, c2, p2] = free_ports();
        let cluster = format!("a=http://127.0.0.1:{p1},b=http://127.0.0.1:{p2}");
        let _ = std::fs::remove_dir_all(dir.join("a"));
        let _ = std::fs::remove_dir_all(dir.join("b"));
        let mut a = start("a", c1, p1, &cluster, dir);
        let mut b = start("b", c2, p2, &cluster, dir);
        let endpoint = vec![format!("127.0.0.1:{c1}")];
        let started = Instant::now();
        loop {
            match EtcdKv::connect(&endpoint, Duration::from_secs(5)).and_then(|kv| {
                kv.get("/no-leader/probe")?;
                Ok(kv)
            }) {
                Ok(kv) => return (a, b, kv),
                Err(e) => {
                    let exited = [a.0.try_wait(), b.0.try_wait()]
                        .iter()
                        .any(|w| matches!(w, Ok(Some(_))));
                    if exited && attempt < 3 {
                        eprintln!(
                            "attempt {attempt}: a member exited ({e}); a: {} b: {}",
                            log_tail(dir, "a"),
                            log_tail(dir, "b")
                        );
                        break;
                    }
                    assert!(
                        !exited && started.elapsed() < Duration::from_secs(45),
                        "etcd not up after {:?}: {e}\na: {}\nb: {}",
                        started.elapsed(),
                        log_tail(dir, "a"),
                        log_tail(dir, "b")
                    );
                    std::thread::sleep(Duration::from_millis(200));
                }
            }
        }
    }
    unreachable!("the third attempt returns or fails")
}
