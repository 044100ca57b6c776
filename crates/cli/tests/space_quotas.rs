//! Space quotas (RFC 0029) on a real `strata standalone` with a short period: a table past
//! its limit after writes and a flush refuses puts under `NO_INSERTS` (deletes still go
//! through), lifts when its data is deleted and compacted away, and again when the quota is
//! removed; `NO_WRITES_COMPACTIONS` on a namespace refuses deletes and compactions while a
//! table's own quota wins for that table; `DISABLE` disables the table and enables it again
//! when the quota goes; the shell's `set_quota` and `list_quotas`; bad input refused.
#![allow(clippy::unwrap_used)]

mod support;

use std::process::Stdio;
use std::time::{Duration, Instant};

use strata_client::access::quota::{SpacePolicy, Subject};
use strata_client::{ClientOptions, Connection, Error, Table};
use strata_model::ops::{Delete, Put};
use strata_proto::pb::ErrorCode;

fn shell(addr: &str, script: &str) -> (bool, String) {
    support::run_shell(&["--noninteractive", "--server", addr], script)
}

fn start(dir: &tempfile::TempDir) -> (support::Killed, String) {
    let extra = ["--space-quota-period-ms".to_owned(), "200".to_owned()];
    let (child, addr) = support::spawn(&dir.path().join("data"), &extra, Stdio::null());
    (support::Killed(child), addr)
}

async fn connect(addr: &str) -> Connection {
    let options = ClientOptions {
        operation_timeout: Duration::from_secs(20),
        ..ClientOptions::default()
    };
    Connection::connect_with(addr, options).await.unwrap()
}

/// Puts `n` rows of 1 KiB under `prefix`, then flushes the table (usage counts store files).
async fn fill(conn: &Connection, name: &str, prefix: &str, n: usize) {
    let table = conn.table(name).unwrap();
    for i in 0..n {
        let put = Put::new(format!("{prefix}{i:04}")).add("f", "q", vec![b'x'; 1024]);
        table.put(&put).await.unwrap();
    }
    conn.admin().flush(name).await.unwrap();
}

fn put(i: usize) -> Put {
    Put::new(format!("late{i:04}")).add("f", "q", "v")
}

/// Waits (up to 10 s) until `probe` gives what `done` wants; answers the last result.
async fn until<T, F, Fut>(what: &str, mut probe: F, done: impl Fn(&T) -> bool) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = T>,
{
    let start = Instant::now();
    loop {
        let r = probe().await;
        if done(&r) {
            return r;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{what}: not within 10 s"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn refused(table: &Table) -> Error {
    let mut i = 0;
    until(
        "a put refused",
        || {
            i += 1;
            let p = put(i);
            async move { table.put(&p).await }
        },
        Result::is_err,
    )
    .await
    .unwrap_err()
}

async fn accepted(table: &Table) {
    let mut i = 1000;
    until(
        "a put accepted",
        || {
            i += 1;
            let p = put(i);
            async move { table.put(&p).await }
        },
        Result::is_ok,
    )
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_inserts_refuses_puts_and_lifts_when_space_is_freed_or_the_quota_removed() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, addr) = start(&dir);
    let (ok, said) = shell(
        &addr,
        "create 't', 'f'\n\
         set_quota TYPE => SPACE, TABLE => 't', LIMIT => '16K', POLICY => NO_INSERTS\n\
         list_quotas\n",
    );
    assert!(ok, "{said}");
    // HBase's shell: the owner, then SpaceLimitSettings.toString.
    assert!(
        said.contains(" TABLE => t ")
            && said.contains(
                "TYPE => SPACE, TABLE => t, LIMIT => 16384, VIOLATION_POLICY => NO_INSERTS"
            ),
        "{said}"
    );
    assert!(said.contains("1 row(s)"), "{said}");

    let conn = connect(&addr).await;
    let table = conn.table("t").unwrap();
    fill(&conn, "t", "row", 40).await;
    let e = refused(&table).await;
    assert_eq!(e.code, ErrorCode::SpaceLimited, "{e}");
    assert_eq!(
        e.message, "NO_INSERTS Puts are disallowed due to a space quota.",
        "{e}"
    );
    let states = conn.admin().space_quota_states().await.unwrap();
    let (name, state) = &states[0];
    assert_eq!(name, "t");
    assert!(state.in_violation && state.usage > 16 << 10, "{state:?}");
    assert_eq!(
        (state.policy, state.limit),
        (SpacePolicy::NoInserts, 16 << 10)
    );
    // HBase's shell reports of the same: the state, and the table's reported size.
    let (ok, said) = shell(
        &addr,
        "list_quota_snapshots
list_quota_snapshots NAMESPACE => 'other'
         list_quota_table_sizes
list_quota_snapshots REGIONSERVER => 'x'
",
    );
    assert!(!ok, "REGIONSERVER is refused: {said}");
    let squeezed: Vec<String> = said
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    let at = |line: &str| squeezed.iter().position(|l| l == line);
    let header = at("TABLE USAGE LIMIT IN_VIOLATION POLICY").expect(&said);
    let row: Vec<&str> = squeezed[header + 1].split(' ').collect();
    assert_eq!(
        (row[0], row[2], row[3], row[4]),
        ("t", "16384", "true", "NO_INSERTS"),
        "{said}"
    );
    assert!(row[1].parse::<u64>().unwrap() > 16 << 10, "{said}");
    assert_eq!(squeezed[header + 2], "1 row(s)", "{said}");
    // After the first listing's "Took" line, the second listing: nothing in another namespace.
    assert_eq!(squeezed[header + 4], squeezed[header], "{said}");
    assert_eq!(squeezed[header + 5], "0 row(s)", "{said}");
    let sizes = at("TABLE SIZE").expect(&said);
    let size_row: Vec<&str> = squeezed[sizes + 1].split(' ').collect();
    assert_eq!(size_row[0], "t", "{said}");
    assert!(size_row[1].parse::<u64>().unwrap() > 16 << 10, "{said}");
    assert!(said.contains("REGIONSERVER: not supported"), "{said}");

    // Deletes are allowed; once the space is compacted away, the violation lifts.
    for i in 0..40 {
        table
            .delete(&Delete::new(format!("row{i:04}")))
            .await
            .unwrap();
    }
    conn.admin().flush("t").await.unwrap();
    conn.admin().compact("t", None, true).await.unwrap();
    accepted(&table).await;

    // Past the limit again; removing the quota lifts it.
    fill(&conn, "t", "again", 40).await;
    refused(&table).await;
    let (ok, said) = shell(
        &addr,
        "set_quota TYPE => SPACE, TABLE => 't', LIMIT => NONE\nlist_quotas\n",
    );
    assert!(ok && said.contains("0 row(s)"), "{said}");
    accepted(&table).await;
    assert!(conn.admin().space_quota_states().await.unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_namespace_quota_stops_writes_and_compactions_and_a_table_quota_wins() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, addr) = start(&dir);
    let (ok, said) = shell(
        &addr,
        "create_namespace 'ns'\ncreate 'ns:a', 'f'\ncreate 'ns:b', 'f'\n\
         set_quota TYPE => SPACE, NAMESPACE => 'ns', LIMIT => '16K', POLICY => NO_WRITES_COMPACTIONS\n\
         set_quota TYPE => SPACE, TABLE => 'ns:b', LIMIT => '1G', POLICY => NO_WRITES\n",
    );
    assert!(ok, "{said}");
    let conn = connect(&addr).await;
    fill(&conn, "ns:a", "row", 20).await;
    fill(&conn, "ns:b", "row", 20).await;
    let a = conn.table("ns:a").unwrap();
    let e = refused(&a).await;
    assert_eq!(e.code, ErrorCode::SpaceLimited, "{e}");
    assert!(e.message.starts_with("NO_WRITES_COMPACTIONS Puts"), "{e}");
    let e = a.delete(&Delete::new("row0000")).await.unwrap_err();
    assert_eq!(
        e.message, "NO_WRITES_COMPACTIONS Deletes are disallowed due to a space quota.",
        "{e}"
    );
    let e = conn.admin().compact("ns:a", None, true).await.unwrap_err();
    assert!(
        e.message
            .contains("disabled due to a space quota violation"),
        "{e}"
    );
    // ns:b has its own quota, far from its limit: it takes writes.
    let b = conn.table("ns:b").unwrap();
    b.put(&put(1)).await.unwrap();
    let states = conn.admin().space_quota_states().await.unwrap();
    let of = |t: &str| states.iter().find(|(n, _)| n == t).unwrap().1;
    assert!(
        of("ns:a").in_violation && !of("ns:b").in_violation,
        "{states:?}"
    );
    assert!(
        of("ns:a").usage > of("ns:b").usage / 2,
        "the namespace counts ns:b"
    );

    // Bad input changes nothing.
    let admin = conn.admin();
    let user = Subject::User("bob".into());
    let e = admin
        .set_space_quota(&user, "1G", SpacePolicy::NoWrites)
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument, "{e}");
    let e = admin
        .set_space_quota(&Subject::table("nope"), "1G", SpacePolicy::NoWrites)
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::TableNotFound, "{e}");
    assert!(admin
        .set_space_quota(&Subject::table("ns:a"), "1X", SpacePolicy::NoWrites)
        .await
        .is_err());
    let (ok, said) = shell(
        &addr,
        "set_quota TYPE => SPACE, TABLE => 'ns:a', LIMIT => '1G', POLICY => NO_READS\n",
    );
    assert!(!ok && said.contains("POLICY => NO_READS"), "{said}");
    assert_eq!(admin.list_space_quotas().await.unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disable_disables_the_table_until_the_quota_goes() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, addr) = start(&dir);
    let conn = connect(&addr).await;
    let (ok, said) = shell(
        &addr,
        "create 'd', 'f'\nset_quota TYPE => SPACE, TABLE => 'd', LIMIT => '8K', POLICY => DISABLE\n",
    );
    assert!(ok, "{said}");
    fill(&conn, "d", "row", 20).await;
    let admin = &conn.admin();
    until(
        "the table disabled",
        || async move { admin.describe_table("d").await.unwrap().enabled },
        |enabled| !enabled,
    )
    .await;
    let states = admin.space_quota_states().await.unwrap();
    assert!(states[0].1.in_violation, "{states:?}");
    admin
        .remove_space_quota(&Subject::table("d"))
        .await
        .unwrap();
    until(
        "the table enabled again",
        || async move { admin.describe_table("d").await.unwrap().enabled },
        |enabled| *enabled,
    )
    .await;
    accepted(&conn.table("d").unwrap()).await;
}
