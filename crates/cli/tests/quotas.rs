//! Throttles (RFC 0029) on a real `strata standalone`: `set_quota` and `list_quotas` in the
//! shell, a throttle of 100 requests a second holding within 10% under eight clients (the
//! client waiting out each refusal by its hint), removing it lifting it, the RPC throttle
//! switch, and bad input refused with nothing changed.
#![allow(clippy::unwrap_used)]

mod support;
#[path = "support/throttle.rs"]
mod throttle;

use std::process::Stdio;
use std::time::Duration;

use strata_client::Connection;
use strata_model::ops::{Get, Put};
use strata_proto::pb::ErrorCode;
use throttle::{patient, Load};

fn shell(addr: &str, script: &str) -> (bool, String) {
    support::run_shell(&["--noninteractive", "--server", addr], script)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_throttle_holds_within_ten_percent_and_lifts() {
    let dir = tempfile::tempdir().unwrap();
    let (child, addr) = support::spawn(&dir.path().join("data"), &[], Stdio::null());
    let _server = support::Killed(child);
    let (ok, said) = shell(
        &addr,
        "create 't', 'f'\nput 't', 'r', 'f:q', 'v'\n\
         set_quota TYPE => THROTTLE, TABLE => 't', LIMIT => '100req/sec'\nlist_quotas\n",
    );
    assert!(ok, "{said}");
    assert!(
        said.contains("TABLE => t")
            && said.contains(
                "TYPE => THROTTLE, THROTTLE_TYPE => REQUEST_NUMBER, LIMIT => 100req/sec, \
                 SCOPE => MACHINE"
            )
            && said.contains("1 row(s)"),
        "{said}"
    );

    let conn = patient(&addr).await;
    let table = conn.table("t").unwrap();
    let load = Load::start(&table, b"r", 8);
    // The first second spends the throttle's initial allowance; then 4 s are measured.
    let rate = load
        .rate(Duration::from_millis(1500), Duration::from_secs(4))
        .await;
    eprintln!("throttled to 100req/sec under 8 clients: {rate:.1} gets/s");
    assert!((90.0..=110.0).contains(&rate), "{rate:.1} gets/s");

    let (ok, said) = shell(
        &addr,
        "set_quota TYPE => THROTTLE, TABLE => 't', LIMIT => NONE\nlist_quotas\n",
    );
    assert!(ok && said.contains("0 row(s)"), "{said}");
    let rate = load
        .rate(Duration::from_millis(200), Duration::from_secs(1))
        .await;
    eprintln!("unthrottled: {rate:.1} gets/s");
    assert!(
        rate > 300.0,
        "{rate:.1} gets/s after the throttle was removed"
    );
    load.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn user_throttles_refuse_with_a_wait_and_bad_input_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (child, addr) = support::spawn(&dir.path().join("data"), &[], Stdio::null());
    let _server = support::Killed(child);
    // Without access control, a caller that proved no name is the user 'unknown'.
    let (ok, said) = shell(
        &addr,
        "create 't', 'f'\ncreate_namespace 'ns'\n\
         set_quota TYPE => THROTTLE, USER => 'unknown', THROTTLE_TYPE => WRITE, LIMIT => '2req/min'\n\
         set_quota TYPE => THROTTLE, NAMESPACE => 'ns', THROTTLE_TYPE => READ, LIMIT => '10M/sec'\n\
         list_quotas\nlist_quotas USER => 'unk.*'\n",
    );
    assert!(ok, "{said}");
    for line in [
        "USER => unknown",
        "THROTTLE_TYPE => WRITE_NUMBER, LIMIT => 2req/min",
        "NAMESPACE => ns",
        "THROTTLE_TYPE => READ_SIZE, LIMIT => 10M/sec",
        "2 row(s)",
        "1 row(s)",
    ] {
        assert!(said.contains(line), "missing {line}: {said}");
    }

    // Two writes a minute: the third is refused once the client's deadline is near, with
    // HBase's message and the wait.
    let options = strata_client::ClientOptions {
        operation_timeout: Duration::from_secs(2),
        ..strata_client::ClientOptions::default()
    };
    let conn = Connection::connect_with(&addr, options).await.unwrap();
    let t = conn.table("t").unwrap();
    for i in 0..2 {
        t.put(&Put::new(format!("r{i}")).add("f", "q", "v"))
            .await
            .unwrap();
    }
    let e = t.put(&Put::new("r2").add("f", "q", "v")).await.unwrap_err();
    assert!(
        e.message
            .contains("number of write requests exceeded - wait "),
        "{e}"
    );
    // Reads are not writes.
    assert_eq!(t.get(&Get::new("r1")).await.unwrap().len(), 1);

    // The RPC throttle switch (HBase's disable_rpc_throttle): the throttles stay listed and
    // refuse nothing until it is on again; what was spent before still counts then.
    let (ok, said) = shell(
        &addr,
        "disable_rpc_throttle
list_quotas
",
    );
    assert!(ok, "{said}");
    assert!(
        said.contains("Previous rpc throttle state : true") && said.contains("2 row(s)"),
        "{said}"
    );
    for i in 2..6 {
        t.put(&Put::new(format!("r{i}")).add("f", "q", "v"))
            .await
            .unwrap();
    }
    let (ok, said) = shell(
        &addr,
        "disable_rpc_throttle
enable_rpc_throttle
",
    );
    assert!(ok, "{said}");
    assert_eq!(
        said.matches("Previous rpc throttle state : false").count(),
        2,
        "{said}"
    );
    let e = t.put(&Put::new("r6").add("f", "q", "v")).await.unwrap_err();
    assert!(
        e.message.contains("number of write requests exceeded"),
        "{e}"
    );
    let (ok, said) = shell(
        &addr,
        "enable_rpc_throttle
enable_rpc_throttle 'x'
",
    );
    assert!(!ok, "{said}");
    assert!(
        said.contains("Previous rpc throttle state : true"),
        "{said}"
    );

    // Bad input: a clear error, and the quotas unchanged.
    for (script, expected) in [
        (
            "set_quota TYPE => THROTTLE, TABLE => 'nosuch', LIMIT => '10req/sec'",
            "nosuch does not exist",
        ),
        (
            "set_quota TYPE => THROTTLE, USER => 'bob', LIMIT => '10reqs/sec'",
            "is not a throttle limit",
        ),
        (
            "set_quota TYPE => THROTTLE, USER => 'bob', LIMIT => '0req/sec'",
            "a limit of zero",
        ),
        (
            "set_quota TYPE => THROTTLE, NAMESPACE => 'nons', LIMIT => '10req/sec'",
            "nons",
        ),
        (
            "set_quota TYPE => THROTTLE, USER => 'bob', TABLE => 't', LIMIT => '1req/sec'",
            "exactly one of USER, TABLE or NAMESPACE",
        ),
        (
            "set_quota TYPE => THROTTLE, USER => 'bob', THROTTLE_TYPE => SCAN, LIMIT => '1req/sec'",
            "expected READ, WRITE or REQUEST",
        ),
    ] {
        let (_, said) = shell(&addr, &format!("{script}\n"));
        assert!(said.contains(expected), "{script}: {said}");
    }
    let (_, said) = shell(&addr, "list_quotas\n");
    assert!(said.contains("2 row(s)") && !said.contains("bob"), "{said}");

    // Dropping the namespace drops its throttle.
    let (ok, said) = shell(&addr, "drop_namespace 'ns'\nlist_quotas\n");
    assert!(ok && said.contains("1 row(s)"), "{said}");

    // A Strata client's refusal carries the THROTTLED code.
    let (ok, said) = shell(
        &addr,
        "set_quota TYPE => THROTTLE, USER => 'unknown', LIMIT => NONE\n\
         set_quota TYPE => THROTTLE, TABLE => 't', LIMIT => '1req/hour'\n",
    );
    assert!(ok, "{said}");
    let options = strata_client::ClientOptions {
        operation_timeout: Duration::from_millis(500),
        ..strata_client::ClientOptions::default()
    };
    let conn = Connection::connect_with(&addr, options).await.unwrap();
    let t = conn.table("t").unwrap();
    t.get(&Get::new("r1")).await.unwrap();
    let e = t.get(&Get::new("r1")).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::Unavailable, "{e}");
    assert!(
        e.message
            .contains("THROTTLED: number of requests exceeded - wait "),
        "{e}"
    );
    let wait = strata_client::access::quota::wait_of(&e.message).unwrap();
    assert!(wait > Duration::from_secs(3500), "{e}");
}
