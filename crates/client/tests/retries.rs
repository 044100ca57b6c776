//! Relocation and retries against the fake cluster, and the rule for requests that must not
//! apply twice: retried only when the server said it did not apply them.

#![allow(clippy::unwrap_used, missing_docs)]

mod support;

use std::time::Duration;

use strata_client::{ClientOptions, Connection, Table};
use strata_model::ops::{CheckAndMutate, Condition, Get, Increment, Mutation, Put};
use strata_proto::pb::ErrorCode;
use support::{fast_options, numbered, Cluster, TABLE};

async fn table(cluster: &Cluster) -> Table {
    cluster.connect().await.table(TABLE).unwrap()
}

fn counter(cluster: &Cluster, row: &str) -> i64 {
    let s = cluster.state.lock();
    let v = &s.rows[row.as_bytes()][&("f".into(), "c".into())];
    i64::from_be_bytes(v[..].try_into().unwrap())
}

#[tokio::test]
async fn not_serving_region_relocates_and_retries() {
    let cluster = Cluster::start(1, &["r10"]).await;
    cluster.load(numbered(20));
    let t = table(&cluster).await;
    cluster
        .state
        .lock()
        .fail("get", Some(ErrorCode::NotServingRegion));
    let cells = t.get(&Get::new("r12")).await.unwrap();
    assert_eq!(cells[0].value, "v12");
    let s = cluster.state.lock();
    assert_eq!(s.calls("get"), 2);
    assert_eq!(s.calls("locate"), 2);
}

#[tokio::test]
async fn a_moved_region_is_found_on_its_new_server() {
    let cluster = Cluster::start(2, &["r10"]).await;
    cluster.load(numbered(20));
    let t = table(&cluster).await;
    assert_eq!(t.get(&Get::new("r15")).await.unwrap()[0].value, "v15");
    cluster.state.lock().move_region(b"r15", 1);
    assert_eq!(t.get(&Get::new("r15")).await.unwrap()[0].value, "v15");
    assert_eq!(cluster.state.lock().calls("get"), 3);
}

#[tokio::test]
async fn busy_and_unavailable_are_retried_for_idempotent_requests() {
    let cluster = Cluster::start(1, &[]).await;
    let t = table(&cluster).await;
    {
        let mut s = cluster.state.lock();
        s.fail("mutate", Some(ErrorCode::RegionTooBusy));
        s.fail_after_apply("mutate", None);
    }
    t.put(&Put::new("a").add_at("f", "q", 1, "1"))
        .await
        .unwrap();
    assert_eq!(cluster.state.lock().calls("mutate"), 3);
    assert!(t.exists(&Get::new("a")).await.unwrap());
}

/// A put stamped by the server's clock whose answer was lost after it applied is not sent
/// again: the caller gets `UNAVAILABLE` (outcome unknown), and the write is there once.
#[tokio::test]
async fn a_put_stamped_by_the_server_is_not_sent_again_after_a_lost_answer() {
    let cluster = Cluster::start(1, &[]).await;
    let t = table(&cluster).await;
    cluster.state.lock().fail_after_apply("mutate", None);
    let err = t.put(&Put::new("a").add("f", "q", "1")).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Unavailable, "{err}");
    assert_eq!(cluster.state.lock().calls("mutate"), 1);
    assert!(t.exists(&Get::new("a")).await.unwrap());
}

#[tokio::test]
async fn an_increment_is_retried_when_the_server_did_not_apply_it() {
    let cluster = Cluster::start(1, &[]).await;
    let t = table(&cluster).await;
    {
        let mut s = cluster.state.lock();
        s.fail("mutate", Some(ErrorCode::RegionTooBusy));
        s.fail("mutate", Some(ErrorCode::NotServingRegion));
    }
    let mut inc = Increment::new("n").add("f", "c", 5);
    inc.return_results = true;
    let cells = t.increment(&inc).await.unwrap();
    assert_eq!(cells[0].value.as_ref(), 5i64.to_be_bytes());
    assert_eq!(counter(&cluster, "n"), 5);
    assert_eq!(cluster.state.lock().calls("mutate"), 3);
}

#[tokio::test]
async fn an_increment_whose_answer_is_lost_is_not_sent_again() {
    let cluster = Cluster::start(1, &[]).await;
    let t = table(&cluster).await;
    cluster.state.lock().fail_after_apply("mutate", None);
    let err = t
        .increment(&Increment::new("n").add("f", "c", 1))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Unavailable);
    // Applied once, and the caller was told it may have been.
    assert_eq!(counter(&cluster, "n"), 1);
    assert_eq!(cluster.state.lock().calls("mutate"), 1);
}

#[tokio::test]
async fn check_and_mutate_follows_the_same_rule() {
    let cluster = Cluster::start(1, &[]).await;
    let t = table(&cluster).await;
    let cam = CheckAndMutate::new(
        Condition::absent("f", "q"),
        Mutation::Put(Put::new("x").add("f", "q", "v")),
    );
    cluster
        .state
        .lock()
        .fail("check_and_mutate", Some(ErrorCode::NotServingRegion));
    assert!(t.check_and_mutate(&cam).await.unwrap());
    cluster.state.lock().fail("check_and_mutate", None);
    let err = t.check_and_mutate(&cam).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Unavailable);
    assert_eq!(cluster.state.lock().calls("check_and_mutate"), 3);
    // The column now exists, so the condition fails.
    assert!(!t.check_and_mutate(&cam).await.unwrap());
}

#[tokio::test]
async fn other_codes_return_at_once() {
    let cluster = Cluster::start(1, &[]).await;
    let t = table(&cluster).await;
    cluster
        .state
        .lock()
        .fail("get", Some(ErrorCode::TableDisabled));
    let err = t.get(&Get::new("a")).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::TableDisabled);
    assert_eq!(cluster.state.lock().calls("get"), 1);
    let conn = cluster.connect().await;
    let err = conn.table("missing").unwrap().get(&Get::new("a")).await;
    assert!(err.unwrap_err().is_not_found());
}

#[tokio::test]
async fn retries_run_out() {
    let cluster = Cluster::start(1, &[]).await;
    for _ in 0..10 {
        cluster
            .state
            .lock()
            .fail("get", Some(ErrorCode::RegionTooBusy));
    }
    let options = ClientOptions {
        retries: 2,
        ..fast_options()
    };
    let conn = Connection::connect_with(&cluster.addrs[0], options)
        .await
        .unwrap();
    let err = conn
        .table(TABLE)
        .unwrap()
        .get(&Get::new("a"))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::RegionTooBusy);
    assert_eq!(cluster.state.lock().calls("get"), 3);
}

#[tokio::test]
async fn the_operation_timeout_bounds_retries() {
    let cluster = Cluster::start(1, &[]).await;
    for _ in 0..100 {
        cluster
            .state
            .lock()
            .fail("get", Some(ErrorCode::RegionTooBusy));
    }
    let options = ClientOptions {
        operation_timeout: Duration::from_millis(200),
        retries: 1000,
        retry_base: Duration::from_millis(20),
        retry_max: Duration::from_millis(50),
        ..fast_options()
    };
    let conn = Connection::connect_with(&cluster.addrs[0], options)
        .await
        .unwrap();
    let err = conn
        .table(TABLE)
        .unwrap()
        .get(&Get::new("a"))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Unavailable);
    assert!(err.message.contains("timed out"), "{err}");
}

#[tokio::test]
async fn invalid_requests_fail_without_a_round_trip() {
    let cluster = Cluster::start(1, &[]).await;
    let t = table(&cluster).await;
    let err = t.get(&Get::new("")).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    let err = t.put(&Put::new("a")).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    let s = cluster.state.lock();
    assert_eq!(s.calls("get") + s.calls("mutate") + s.calls("locate"), 0);
}
