//! What a client does in a cluster: a server that stops answering (SIGSTOPped) is left after
//! the per-attempt timeout (reads and idempotent writes go to the region's new server, an
//! increment fails with `UNAVAILABLE` and is not sent again), and a connection learns the
//! servers that locate answers name, so it outlives the servers it was started with.

#![allow(clippy::unwrap_used, missing_docs)]

mod support;

use std::time::{Duration, Instant};

use strata_client::{ClientOptions, Connection, Table};
use strata_model::ops::{Get, Increment, Put};
use strata_proto::pb::ErrorCode;
use support::{fast_options, numbered, Cluster, TABLE};

/// A per-attempt timeout short enough for a test, an operation timeout long enough that
/// only the per-attempt timeout can explain a quick answer.
fn options() -> ClientOptions {
    ClientOptions {
        attempt_timeout: Duration::from_millis(300),
        operation_timeout: Duration::from_secs(60),
        ..fast_options()
    }
}

async fn table(cluster: &Cluster) -> Table {
    Connection::connect_with(&cluster.addrs[0], options())
        .await
        .unwrap()
        .table(TABLE)
        .unwrap()
}

/// Bounds every test: a hang fails instead of blocking the suite.
async fn bounded<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(40), f)
        .await
        .expect("the test did not finish in 40 s")
}

/// Server 1 stops answering and its regions move to server 2 (as the master reassigns a
/// SIGSTOPped server's regions); the client still has them on server 1.
fn stall_and_move(cluster: &Cluster, rows: &[&[u8]]) {
    let mut s = cluster.state.lock();
    s.stalled.insert(1);
    for row in rows {
        s.move_region(row, 2);
    }
}

/// Two regions split at `m`, `a`'s on server 1, which the client has written to once; then
/// server 1 stalls and `a`'s region moves to server 2.
async fn stalled_after_a_put() -> (Cluster, Table) {
    let cluster = Cluster::start(3, &["m"]).await;
    cluster.state.lock().move_region(b"a", 1);
    let t = table(&cluster).await;
    t.put(&Put::new("a0").add("f", "q", "x")).await.unwrap();
    stall_and_move(&cluster, &[b"a"]);
    (cluster, t)
}

#[tokio::test]
async fn a_read_to_a_stalled_server_goes_to_the_new_server_after_the_attempt_timeout() {
    bounded(async {
        let cluster = Cluster::start(3, &[]).await;
        cluster.load(numbered(20));
        cluster.state.lock().move_region(b"r01", 1);
        let t = table(&cluster).await;
        assert_eq!(t.get(&Get::new("r01")).await.unwrap()[0].value, "v01");
        stall_and_move(&cluster, &[b"r01"]);
        let started = Instant::now();
        assert_eq!(t.get(&Get::new("r01")).await.unwrap()[0].value, "v01");
        // Well under the 60 s operation timeout: only the per-attempt timeout moved it on.
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(cluster.state.lock().stalled_calls, 1);
    })
    .await;
}

#[tokio::test]
async fn an_idempotent_batch_to_a_stalled_server_is_sent_again() {
    bounded(async {
        let (cluster, t) = stalled_after_a_put().await;
        // Timestamps of the client's own: a repeat writes the same cells again.
        let puts = [
            Put::new("a1").add_at("f", "q", 7, "1"),
            Put::new("z1").add_at("f", "q", 7, "2"),
        ];
        t.put_many(&puts).await.unwrap();
        assert!(t.exists(&Get::new("a1")).await.unwrap());
        assert!(t.exists(&Get::new("z1")).await.unwrap());
        assert!(cluster.state.lock().stalled_calls >= 1);
    })
    .await;
}

/// A put stamped by the server's clock is not sent again after an attempt with no answer:
/// the first attempt, held up, may still be applied later, and two applications are two
/// versions, the late one over other clients' newer writes (a register read back an old
/// value that way under a slowed link).
#[tokio::test]
async fn a_put_stamped_by_the_server_to_a_stalled_server_fails_as_unavailable() {
    bounded(async {
        let (cluster, t) = stalled_after_a_put().await;
        let err = t.put(&Put::new("a1").add("f", "q", "1")).await.unwrap_err();
        assert_eq!(err.code, ErrorCode::Unavailable, "{err}");
        assert!(
            err.message.contains("may or may not have been applied"),
            "{err}"
        );
        // Located again (the failure dropped the cache), on the stalled server once more.
        cluster.state.lock().move_region(b"a", 1);
        let outcomes = t
            .batch(&[strata_model::ops::Mutation::Put(Put::new("a2").add("f", "q", "2")).into()])
            .await
            .unwrap();
        assert_eq!(
            outcomes[0].as_ref().unwrap_err().code,
            ErrorCode::Unavailable
        );
        let s = cluster.state.lock();
        assert_eq!(s.stalled_calls, 2, "each sent once, to the stalled server");
        assert!(!s.rows.contains_key(b"a1".as_slice()));
        assert!(!s.rows.contains_key(b"a2".as_slice()));
    })
    .await;
}

#[tokio::test]
async fn an_increment_to_a_stalled_server_fails_as_unavailable_and_is_not_sent_again() {
    bounded(async {
        let cluster = Cluster::start(3, &[]).await;
        cluster.state.lock().move_region(b"n", 1);
        let t = table(&cluster).await;
        t.put(&Put::new("x").add("f", "q", "v")).await.unwrap();
        stall_and_move(&cluster, &[b"n"]);
        let err = t
            .increment(&Increment::new("n").add("f", "c", 1))
            .await
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::Unavailable, "{err}");
        assert!(
            err.message.contains("may or may not have been applied"),
            "{err}"
        );
        let s = cluster.state.lock();
        assert_eq!(s.stalled_calls, 1, "sent once, to the stalled server");
        assert_eq!(
            s.calls("mutate"),
            1,
            "the first put only: not sent to the new server"
        );
        assert!(!s.rows.contains_key(b"n".as_slice()));
    })
    .await;
}

/// A request whose connection cannot be made was never sent: even a put stamped by the
/// server goes on to the region's new server (a failover does not fail such writes).
#[tokio::test]
async fn a_put_stamped_by_the_server_goes_to_the_new_server_when_the_old_one_refuses() {
    bounded(async {
        let cluster = Cluster::start(3, &[]).await;
        // The region's server is gone before the client first reaches it; the region moves
        // a moment later, as a master reassigns a dead server's regions.
        cluster.state.lock().move_region(b"a", 1);
        cluster.stop_server(1);
        let t = Connection::connect_with(
            &cluster.addrs[0],
            ClientOptions {
                retries: 100,
                ..options()
            },
        )
        .await
        .unwrap()
        .table(TABLE)
        .unwrap();
        let state = cluster.state.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            state.lock().move_region(b"a", 2);
        });
        t.put(&Put::new("a1").add("f", "q", "1")).await.unwrap();
        assert!(cluster.state.lock().rows.contains_key(b"a1".as_slice()));
    })
    .await;
}

#[tokio::test]
async fn a_cluster_connection_learns_the_servers_and_outlives_those_it_started_with() {
    bounded(async {
        let cluster = Cluster::start(3, &["r10"]).await;
        cluster.load(numbered(20));
        {
            let mut s = cluster.state.lock();
            s.move_region(b"r05", 1);
            s.move_region(b"r15", 2);
        }
        let conn = Connection::connect_any(&[cluster.addrs[0].clone()], options())
            .await
            .unwrap();
        assert_eq!(conn.admin_endpoints(), vec![cluster.addrs[0].clone()]);
        let t = conn.table(TABLE).unwrap();
        assert_eq!(t.get(&Get::new("r05")).await.unwrap()[0].value, "v05");
        let known = conn.admin_endpoints();
        assert!(known.contains(&cluster.addrs[1]), "{known:?}");
        assert!(known.contains(&cluster.addrs[2]), "{known:?}");
        // The server the client started with goes away, and a region moves: the client
        // locates it through a server it learned of.
        cluster.stop_server(0);
        cluster.state.lock().move_region(b"r05", 2);
        assert_eq!(t.get(&Get::new("r05")).await.unwrap()[0].value, "v05");
        assert_eq!(t.get(&Get::new("r15")).await.unwrap()[0].value, "v15");
    })
    .await;
}

#[tokio::test]
async fn a_connection_to_one_master_learns_nothing() {
    bounded(async {
        let cluster = Cluster::start(2, &[]).await;
        cluster.load(numbered(3));
        cluster.state.lock().move_region(b"r01", 1);
        let conn = cluster.connect().await;
        let t = conn.table(TABLE).unwrap();
        assert_eq!(t.get(&Get::new("r01")).await.unwrap()[0].value, "v01");
        assert!(conn.admin_endpoints().is_empty());
    })
    .await;
}
