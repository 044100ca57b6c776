//! Multi-row requests (grouped per region, order kept, per-row errors), the buffered mutator
//! and admin calls against the fake cluster.

#![allow(clippy::unwrap_used, missing_docs)]

mod support;

use bytes::Bytes;
use strata_client::{BufferedMutatorOptions, Table, MAX_ROWS_PER_RPC};
use strata_model::ops::{Delete, Get, Increment, Mutation, Put, RowMutations, Scan};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use strata_proto::pb::ErrorCode;
use support::{numbered, Cluster, TABLE};

async fn table(cluster: &Cluster) -> Table {
    cluster.connect().await.table(TABLE).unwrap()
}

fn put(row: &str) -> RowMutations {
    Mutation::Put(Put::new(row.to_string()).add("f", "q", format!("v-{row}"))).into()
}

#[tokio::test]
async fn get_many_keeps_request_order_across_regions_and_servers() {
    let cluster = Cluster::start(2, &["r05", "r10"]).await;
    cluster.load(numbered(15));
    cluster.state.lock().move_region(b"r07", 1);
    let t = table(&cluster).await;
    cluster
        .state
        .lock()
        .fail("multi_get", Some(ErrorCode::NotServingRegion));
    let rows = ["r12", "r01", "r07", "zz", "r03", "r09"];
    let gets: Vec<Get> = rows.iter().map(|r| Get::new(r.to_string())).collect();
    let results = t.get_many(&gets).await.unwrap();
    let values: Vec<String> = results
        .iter()
        .map(|cells| {
            cells
                .first()
                .map(|c| String::from_utf8(c.value.to_vec()).unwrap())
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(values, ["v12", "v01", "v07", "", "v03", "v09"]);
    // Three regions, one retried group.
    assert_eq!(cluster.state.lock().calls("multi_get"), 4);
}

#[tokio::test]
async fn batch_reports_row_errors_in_order_and_retries_moved_rows() {
    let cluster = Cluster::start(2, &["m"]).await;
    let t = table(&cluster).await;
    t.put(&Put::new("a").add("f", "q", "warm the cache"))
        .await
        .unwrap();
    // The upper region moves after the client cached it: its rows bounce once.
    cluster.state.lock().move_region(b"x", 1);
    let mut inc = RowMutations::new("c");
    inc.add(Increment::new("c").add("f", "c", 2)).unwrap();
    let rows = vec![put("z"), put("bad1"), put("b"), inc, put("n")];
    let outcomes = t.batch(&rows).await.unwrap();
    assert!(outcomes[0].is_ok());
    assert_eq!(
        outcomes[1].as_ref().unwrap_err().code,
        ErrorCode::NoSuchFamily
    );
    assert!(outcomes[2].is_ok());
    assert_eq!(
        outcomes[3].as_ref().unwrap()[0].value.as_ref(),
        2i64.to_be_bytes()
    );
    assert!(outcomes[4].is_ok());
    let found = t.scan_all(&Scan::new()).await.unwrap();
    assert_eq!(found.len(), 5, "a, b, c, n, z");
}

/// A put with a timestamp of the client's may be sent again; an increment and a put
/// stamped by the server may not (a repeat would apply them twice).
#[tokio::test]
async fn a_lost_batch_answer_fails_only_rows_that_must_not_repeat() {
    let cluster = Cluster::start(1, &[]).await;
    let t = table(&cluster).await;
    cluster.state.lock().fail("batch", None);
    let mut inc = RowMutations::new("c");
    inc.add(Increment::new("c").add("f", "c", 1)).unwrap();
    let stamped: RowMutations = Mutation::Put(Put::new("a").add_at("f", "q", 7, "v")).into();
    let outcomes = t.batch(&[stamped, inc, put("b")]).await.unwrap();
    assert!(outcomes[0].is_ok());
    for unsafe_to_repeat in [&outcomes[1], &outcomes[2]] {
        assert_eq!(
            unsafe_to_repeat.as_ref().unwrap_err().code,
            ErrorCode::Unavailable
        );
    }
    assert_eq!(cluster.state.lock().calls("batch"), 2);
}

#[tokio::test]
async fn put_many_then_delete() {
    let cluster = Cluster::start(2, &["r05"]).await;
    cluster.state.lock().move_region(b"r07", 1);
    let t = table(&cluster).await;
    let puts: Vec<Put> = (0..10)
        .map(|i| Put::new(format!("r{i:02}")).add("f", "q", "v"))
        .collect();
    t.put_many(&puts).await.unwrap();
    assert_eq!(t.scan_all(&Scan::new()).await.unwrap().len(), 10);
    t.delete(&Delete::new("r03")).await.unwrap();
    assert!(!t.exists(&Get::new("r03")).await.unwrap());
    let bad = [
        Put::new("r01").add("f", "q", "v"),
        Put::new("bad").add("f", "q", "v"),
    ];
    assert_eq!(
        t.put_many(&bad).await.unwrap_err().code,
        ErrorCode::NoSuchFamily
    );
}

#[tokio::test]
async fn a_large_batch_for_one_region_goes_out_in_bounded_rpcs() {
    let cluster = Cluster::start(1, &[]).await;
    let t = table(&cluster).await;
    let n = 2 * MAX_ROWS_PER_RPC + 500;
    let rows: Vec<RowMutations> = (0..n).map(|i| put(&format!("r{i:05}"))).collect();
    let outcomes = t.batch(&rows).await.unwrap();
    assert_eq!(outcomes.len(), n);
    assert!(outcomes.iter().all(Result::is_ok));
    assert_eq!(cluster.state.lock().calls("batch"), 3);
    assert_eq!(t.scan_all(&Scan::new()).await.unwrap().len(), n);
}

#[tokio::test]
async fn buffered_mutator_sends_in_the_background_and_reports_failures_on_flush() {
    let cluster = Cluster::start(2, &["r50"]).await;
    cluster.state.lock().move_region(b"r70", 1);
    let t = table(&cluster).await;
    let mut mutator = t.buffered_mutator(BufferedMutatorOptions {
        max_buffer_bytes: 300,
        max_in_flight: 2,
    });
    for i in 0..100 {
        mutator.mutate(put(&format!("r{i:02}"))).await.unwrap();
    }
    mutator.mutate(put("bad")).await.unwrap();
    let err = mutator.flush().await.unwrap_err();
    assert_eq!(err.code, ErrorCode::NoSuchFamily);
    assert!(err.message.starts_with("1 rows failed"), "{err}");
    assert!(cluster.state.lock().calls("batch") > 4);
    mutator.mutate(put("s")).await.unwrap();
    let invalid = mutator
        .mutate(RowMutations::new("empty"))
        .await
        .unwrap_err();
    assert!(invalid.is_invalid_argument());
    mutator.close().await.unwrap();
    assert_eq!(t.scan_all(&Scan::new()).await.unwrap().len(), 101);
}

#[tokio::test]
async fn a_buffering_caller_lets_other_tasks_of_its_thread_run() {
    let cluster = Cluster::start(1, &[]).await;
    let t = table(&cluster).await;
    let mut mutator = t.buffered_mutator(BufferedMutatorOptions {
        max_buffer_bytes: usize::MAX,
        max_in_flight: 2,
    });
    // A test runtime has one thread: the spawned task runs only if `mutate` yields.
    let ran = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = ran.clone();
    tokio::spawn(async move { flag.store(true, std::sync::atomic::Ordering::SeqCst) });
    for i in 0..2000 {
        mutator.mutate(put(&format!("r{i:04}"))).await.unwrap();
    }
    assert!(ran.load(std::sync::atomic::Ordering::SeqCst));
    assert_eq!(cluster.state.lock().calls("batch"), 0, "nothing sent yet");
    mutator.close().await.unwrap();
    assert_eq!(t.scan_all(&Scan::new()).await.unwrap().len(), 2000);
}

#[tokio::test]
async fn admin_calls_reach_the_master() {
    let cluster = Cluster::start(2, &["m"]).await;
    let conn = cluster.connect().await;
    let admin = conn.admin();
    let t2 = TableDescriptor::new(TableName::parse("t2").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    admin.create_table(&t2, &[]).await.unwrap();
    let again = admin.create_table(&t2, &[]).await.unwrap_err();
    assert_eq!(again.code, ErrorCode::TableExists);
    let names: Vec<String> = admin
        .list_tables()
        .await
        .unwrap()
        .iter()
        .map(|t| t.descriptor.name.to_string())
        .collect();
    assert_eq!(names, ["t", "t2"]);
    let info = admin.describe_table(TABLE).await.unwrap();
    assert!(info.enabled);
    assert_eq!(info.regions.len(), 2);
    assert!(admin.table_exists("t2").await.unwrap());
    assert!(!admin.table_exists("nope").await.unwrap());
    admin.split(TABLE, Some(Bytes::from("f"))).await.unwrap();
    let regions = admin.regions(TABLE).await.unwrap();
    let starts: Vec<&[u8]> = regions.iter().map(|r| r.start_row.as_ref()).collect();
    assert_eq!(starts, [&b""[..], b"f", b"m"]);
    assert_eq!(regions[2].server, cluster.addrs[0]);
    let status = admin.status().await.unwrap();
    assert_eq!(status.servers.len(), 2);
    admin.flush(TABLE).await.unwrap();
    admin.compact(TABLE, Some("f"), true).await.unwrap();
}
