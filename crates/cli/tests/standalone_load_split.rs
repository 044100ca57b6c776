//! Splits by load (RFC 0028) in `strata standalone`: with a low threshold, a region hammered
//! on a range of rows splits inside that range, counted in `/metrics` and logged with the
//! reason; a region hammered on one row is not split (no row balances its load), and says
//! why.
#![allow(clippy::unwrap_used)]

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use strata_client::Connection;
use strata_model::ops::{Get, Put};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};

use support::key;

/// Starts standalone splitting by load at 200 requests/s held for 3 s, logging to `log`;
/// answers it with its data and HTTP addresses.
fn spawn(data: &Path, log: &Path) -> (support::Killed, String, String) {
    let extra: Vec<String> = [
        "--load-split-qps=200",
        "--load-split-secs=3",
        "--load-split-min-mib=0",
        "--log-rotation=never",
    ]
    .map(String::from)
    .into_iter()
    .chain([format!("--log-file={}", log.display())])
    .collect();
    let mut child = support::standalone(data, &extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let child = support::Killed(child);
    let (mut addr, mut http) = (None, None);
    while addr.is_none() || http.is_none() {
        let line = lines.next().expect("the server's address lines").unwrap();
        if let Some(rest) = line.split("serving on ").nth(1) {
            addr = rest.split_whitespace().next().map(str::to_owned);
        }
        if let Some(rest) = line.strip_prefix("web UI and /metrics on http://") {
            http = Some(rest.trim().to_owned());
        }
    }
    std::thread::spawn(move || for _ in lines {});
    (child, addr.unwrap(), http.unwrap())
}

/// The value of counter `name` on `/metrics` at `http`.
fn counter(http: &str, name: &str) -> u64 {
    let mut s = TcpStream::connect(http).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
        s,
        "GET /metrics HTTP/1.1\r\nHost: {http}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    s.read_to_string(&mut response).unwrap();
    response
        .lines()
        .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {name} in {response}"))
}

async fn table_of(conn: &Connection, name: &str, rows: u64) -> strata_client::Table {
    let t = TableDescriptor::new(TableName::parse(name).unwrap())
        .with_family(FamilyDescriptor::new("f"));
    conn.admin().create_table(&t, &[]).await.unwrap();
    let table = conn.table(name).unwrap();
    for i in 0..rows {
        let put = Put::new(key(i)).add("f", "q", bytes::Bytes::from(format!("v{i}")));
        table.put(&put).await.unwrap();
    }
    table
}

/// Four readers getting the rows `pick` gives (from a counter) until `stop`.
fn hammer(
    table: &strata_client::Table,
    stop: &Arc<AtomicBool>,
    pick: fn(u64) -> u64,
) -> Vec<tokio::task::JoinHandle<()>> {
    (0..4u64)
        .map(|w| {
            let (table, stop) = (table.clone(), stop.clone());
            tokio::spawn(async move {
                let mut n = w * 7919;
                while !stop.load(Ordering::Relaxed) {
                    n += 1;
                    let got = table.get(&Get::new(key(pick(n)))).await;
                    // During the split the client finds the daughters by itself.
                    if let Ok(cells) = got {
                        assert_eq!(cells.len(), 1);
                    }
                }
            })
        })
        .collect()
}

/// Rows 1000..1200, the lower ones more often (a zipfian-like hot range), and now and then
/// any of 0..2000.
fn hot_range(n: u64) -> u64 {
    let x = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40; // 24 random-looking bits
    if x.is_multiple_of(10) {
        x % 2000
    } else {
        let u = (x % 1000) as f64 / 1000.0;
        1000 + (u * u * 200.0) as u64
    }
}

fn one_row(_: u64) -> u64 {
    1500
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hammered_region_splits_inside_its_hot_range_and_one_hot_row_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("strata.log");
    let (_child, addr, http) = spawn(&dir.path().join("data"), &log);
    let conn = Connection::connect(&addr).await.unwrap();
    let admin = conn.admin();

    // One hot row: hot for several windows, never split, and the log says why.
    let single = table_of(&conn, "single", 2000).await;
    let stop = Arc::new(AtomicBool::new(false));
    let readers = hammer(&single, &stop, one_row);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if text.contains("no row splits its load evenly") {
            break;
        }
        assert!(Instant::now() < deadline, "no 'not split' line: {text}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // A few more windows: still one region.
    tokio::time::sleep(Duration::from_secs(7)).await;
    stop.store(true, Ordering::Relaxed);
    for r in readers {
        r.await.unwrap();
    }
    assert_eq!(admin.regions("single").await.unwrap().len(), 1);
    assert_eq!(counter(&http, "strata_load_splits_total"), 0);

    // A hot range: split inside it, and both halves still serve every row.
    let hot = table_of(&conn, "hot", 2000).await;
    let stop = Arc::new(AtomicBool::new(false));
    let readers = hammer(&hot, &stop, hot_range);
    let deadline = Instant::now() + Duration::from_secs(60);
    let regions = loop {
        let regions = admin.regions("hot").await.unwrap();
        if regions.len() >= 2 {
            break regions;
        }
        assert!(Instant::now() < deadline, "no split by load after 60 s");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    stop.store(true, Ordering::Relaxed);
    for r in readers {
        r.await.unwrap();
    }
    let split = regions[1].start_row.clone();
    assert!(
        split >= key(1000) && split <= key(1200),
        "split at {split:?}, outside the hot range: {regions:?}"
    );
    for i in [0, 999, 1000, 1100, 1199, 1999] {
        let got = hot.get(&Get::new(key(i))).await.unwrap();
        assert_eq!(got.len(), 1, "row {i} after the split");
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    while counter(&http, "strata_load_splits_total") < 1 {
        assert!(Instant::now() < deadline, "the split is not counted");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let text = std::fs::read_to_string(&log).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains("split by load requested"))
        .unwrap_or_else(|| panic!("no reason logged: {text}"));
    assert!(line.contains("INFO") && line.contains("hot,"), "{line}");
}
