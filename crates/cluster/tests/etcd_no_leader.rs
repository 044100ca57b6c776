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

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
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
        .stderr(Stdio::null())
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
    let (c1, p1, c2, p2) = (free_port(), free_port(), free_port(), free_port());
    let cluster = format!("a=http://127.0.0.1:{p1},b=http://127.0.0.1:{p2}");
    let a = start("a", c1, p1, &cluster, &dir.0);
    let b = start("b", c2, p2, &cluster, &dir.0);
    let endpoint = vec![format!("127.0.0.1:{c1}")];
    // Both up, a leader elected, a lease granted and kept alive.
    let started = Instant::now();
    let kv = loop {
        match EtcdKv::connect(&endpoint, Duration::from_secs(5)).and_then(|kv| {
            kv.get("/no-leader/probe")?;
            Ok(kv)
        }) {
            Ok(kv) => break kv,
            Err(e) => {
                assert!(
                    started.elapsed() < Duration::from_secs(30),
                    "etcd not up: {e}"
                );
                std::thread::sleep(Duration::from_millis(200));
            }
        }
    };
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
