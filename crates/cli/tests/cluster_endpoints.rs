//! The endpoints of cluster processes (RFC 0018), as real processes on a real etcd
//! (`STRATA_ETCD_ENDPOINTS`) with a local shared root: one `strata master --http` and two
//! `strata regionserver --http`; a table of three regions is written through the cluster; the
//! master's `/metrics` and page show the cluster (servers, regions by state, etcd operations),
//! each region server's its lease renewals, orders and requests; and `strata gateway --etcd`
//! serves the cluster's tables over Thrift; namespaces (a table refused without its namespace,
//! a quota, a namespace holding a table kept) behave as on a cluster of one. Skipped with a message without etcd, unless
//! `STRATA_REQUIRE_ETCD` is set.
#![allow(clippy::unwrap_used)]

#[path = "../../http/tests/support/browser.rs"]
mod browser;
mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use strata_client::{ClientOptions, Connection, NamespaceDescriptor};
use strata_model::ops::{Get, Put};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use strata_proto::pb::ErrorCode;
use support::{key, Killed};

/// Starts `strata ARGS…` and returns it (killed when dropped) with its stdout lines up to the
/// first containing `marker`.
fn start(args: &[String], marker: &str) -> (Killed, Vec<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let child = Killed(child);
    let (tx, rx) = std::sync::mpsc::channel();
    let wanted = marker.to_string();
    std::thread::spawn(move || {
        let mut seen = Vec::new();
        let mut sent = false;
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if !sent {
                seen.push(line.clone());
                if line.contains(&wanted) {
                    let _ = tx.send(std::mem::take(&mut seen));
                    sent = true;
                }
            }
        }
    });
    let lines = rx
        .recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("strata {args:?} did not print '{marker}' in 60 s"));
    (child, lines)
}

/// The word after `prefix` in the first of `lines` containing it.
fn after(lines: &[String], prefix: &str) -> String {
    lines
        .iter()
        .find_map(|l| l.split(prefix).nth(1))
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("no '{prefix}' in {lines:?}"))
        .trim_end_matches('/')
        .to_string()
}

/// `GET target` on `addr`: the status code and body.
fn get(addr: &str, target: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
        s,
        "GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    s.read_to_string(&mut response).unwrap();
    let status = response[9..12].parse().unwrap();
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

/// The value of the sample `series` (name and labels as exposed) in a `/metrics` body.
/// (A family without labels is exposed as `name{} value`.)
fn sample(body: &str, series: &str) -> Option<f64> {
    body.lines().find_map(|l| {
        let rest = l.strip_prefix(series)?;
        let rest = rest.strip_prefix("{}").unwrap_or(rest);
        rest.strip_prefix(' ')?.parse().ok()
    })
}

/// Waits until `f` holds (up to 30 s).
fn eventually(what: &str, mut f: impl FnMut() -> bool) {
    let start = Instant::now();
    while !f() {
        assert!(start.elapsed() < Duration::from_secs(30), "{what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A Thrift1 `getTableNames` call (strict binary protocol, buffered transport); the raw
/// reply.
fn thrift_table_names(addr: &str) -> Vec<u8> {
    let mut call = Vec::new();
    call.extend_from_slice(&0x8001_0001u32.to_be_bytes());
    let name = b"getTableNames";
    call.extend_from_slice(&(name.len() as u32).to_be_bytes());
    call.extend_from_slice(name);
    call.extend_from_slice(&7u32.to_be_bytes());
    call.push(0); // the arguments: an empty struct
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(&call).unwrap();
    let mut reply = vec![0u8; 4096];
    let mut got = 0;
    // Read until the reply's struct ends (a STOP after the list) or the peer stops.
    loop {
        let n = s.read(&mut reply[got..]).unwrap();
        got += n;
        if n == 0 || (got > 20 && reply[got - 1] == 0) {
            break;
        }
    }
    reply.truncate(got);
    reply
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_processes_serve_metrics_pages_and_thrift() {
    let Some(etcd) = support::etcd() else { return };
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let cluster = format!("endpoints-{}-{nanos}", std::process::id());
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root").display().to_string();
    let common = |cmd: &str| -> Vec<String> {
        [
            cmd,
            "--etcd",
            &etcd,
            "--cluster",
            &cluster,
            "--ttl",
            "2",
            "--root",
            &root,
            "--http",
            "127.0.0.1:0",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let (_master, lines) = start(&common("master"), "active");
    let master_http = after(&lines, "HTTP endpoint on http://");
    let mut servers = Vec::new();
    for _ in 0..2 {
        let mut args = common("regionserver");
        args.extend(
            [
                "--listen",
                "127.0.0.1:0",
                "--memtable-mib",
                "32",
                "--block-cache-mib",
                "8",
            ]
            .map(String::from),
        );
        let (child, lines) = start(&args, "HTTP endpoint on ");
        let grpc = after(&lines, "serving on ");
        let http = after(&lines, "HTTP endpoint on http://");
        servers.push((child, grpc, http));
    }
    let addrs: Vec<String> = servers.iter().map(|(_, a, _)| a.clone()).collect();
    let options = ClientOptions {
        retry_max: Duration::from_millis(500),
        retries: 100,
        ..ClientOptions::default()
    };
    let conn = Connection::connect_any(&addrs, options).await.unwrap();
    let t = TableDescriptor::new(TableName::parse("endpoints_t").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    conn.admin()
        .create_table(&t, &[key(100), key(200)])
        .await
        .unwrap();
    let table = conn.table("endpoints_t").unwrap();
    for i in 0..300 {
        table
            .put(&Put::new(key(i)).add("f", "q", bytes::Bytes::from(format!("v{i}"))))
            .await
            .unwrap();
    }

    // The master: the cluster as etcd records it.
    let m = master_http.clone();
    let metrics = tokio::task::spawn_blocking(move || {
        let mut body = String::new();
        eventually("the master's /metrics shows 3 open regions", || {
            let (status, b) = get(&m, "/metrics");
            body = b;
            status == 200 && sample(&body, "strata_cluster_regions{state=\"open\"}") == Some(3.0)
        });
        body
    })
    .await
    .unwrap();
    for (series, value) in [
        ("strata_master_active", 1.0),
        ("strata_cluster_servers{state=\"live\"}", 2.0),
        ("strata_cluster_servers{state=\"dead\"}", 0.0),
        ("strata_cluster_regions_in_transition", 0.0),
        ("strata_cluster_tables", 1.0),
        ("strata_cluster_up", 1.0),
    ] {
        assert_eq!(
            sample(&metrics, series),
            Some(value),
            "{series}:\n{metrics}"
        );
    }
    assert!(
        sample(&metrics, "strata_etcd_operations_total{op=\"txn\"}").unwrap() > 0.0,
        "{metrics}"
    );
    // The classic text format by default: counters typed under their samples' name.
    assert!(
        metrics.contains("\n# TYPE strata_etcd_operations_total counter\n"),
        "{metrics}"
    );
    assert!(!metrics.contains("# EOF"), "{metrics}");
    let m = master_http.clone();
    let (page, region) =
        tokio::task::spawn_blocking(move || (get(&m, "/"), get(&m, "/region?id=1")))
            .await
            .unwrap();
    assert_eq!(page.0, 200);
    for text in [
        "Region servers",
        ".00000001",
        "endpoints_t,",
        "active (this one)",
        "Procedures",
    ] {
        assert!(
            page.1.contains(text),
            "'{text}' missing from the master's page"
        );
    }
    assert_eq!(region.0, 404, "a master has no region pages");

    // The region servers: their lease, orders and requests.
    let mut regions = 0.0;
    let mut puts = 0.0;
    for (_, _, http) in &servers {
        let h = http.clone();
        let ((status, body), (page_status, page)) = tokio::task::spawn_blocking(move || {
            // A renewal comes a third of the lease's TTL after registering.
            let mut metrics = (0, String::new());
            eventually("a region server renews its lease", || {
                metrics = get(&h, "/metrics");
                sample(&metrics.1, "strata_cluster_lease_renewals_total").is_some_and(|n| n > 0.0)
            });
            (metrics, get(&h, "/"))
        })
        .await
        .unwrap();
        assert_eq!(status, 200);
        assert_eq!(page_status, 200);
        assert!(page.contains("Regions open here"), "{page}");
        assert_eq!(sample(&body, "strata_cluster_serving"), Some(1.0), "{body}");
        assert!(sample(&body, "strata_cluster_lease_renewals_total").unwrap() > 0.0);
        regions += sample(&body, "strata_cluster_regions_assigned").unwrap();
        let opened = sample(
            &body,
            "strata_cluster_orders_total{order=\"open\",outcome=\"done\"}",
        )
        .unwrap();
        assert_eq!(Some(opened), sample(&body, "strata_regions"), "{body}");
        puts += body
            .lines()
            .filter(|l| l.starts_with("strata_requests_total{op=\"mutate\""))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum::<f64>();
    }
    assert_eq!(regions, 3.0);
    assert_eq!(puts, 300.0);

    // The master's key-access heatmap, from the region servers' load reports (every 5 s):
    // reads now, then the master page and the table's page show the table's heatmap.
    for i in (0..300).step_by(3) {
        table.get(&Get::new(key(i))).await.unwrap();
    }
    let m = master_http.clone();
    let (home, table_page) = tokio::task::spawn_blocking(move || {
        let mut page = (0, String::new());
        eventually("the master's table page shows a heatmap", || {
            page = get(&m, "/table?name=endpoints_t");
            page.0 == 200 && page.1.contains("aria-label=\"key-access heatmap\"")
        });
        (get(&m, "/"), page)
    })
    .await
    .unwrap();
    assert_eq!(home.0, 200);
    for text in [
        "Key access by table",
        "href=\"/table?name=endpoints_t\"",
        "key-access heatmap",
        "Requests/s",
    ] {
        assert!(
            home.1.contains(text),
            "'{text}' missing from the master's page"
        );
    }
    for text in [
        "endpoints_t,",
        "Requests/s",
        "Reads",
        "Writes",
        "Key access",
    ] {
        assert!(
            table_page.1.contains(text),
            "'{text}' missing from the table page"
        );
    }
    let m = master_http.clone();
    let (missing, bad) = tokio::task::spawn_blocking(move || {
        (
            get(&m, "/table?name=nope"),
            get(&m, "/table?name=endpoints_t&kind=x"),
        )
    })
    .await
    .unwrap();
    assert_eq!(missing.0, 404);
    assert_eq!(bad.0, 400);

    // The same pages in a real browser: no console error, the cluster shown, a screenshot.
    let pages = [
        (
            "cluster-master",
            format!("{master_http}/"),
            vec![
                "Region servers",
                "endpoints_t,",
                "Procedures",
                "Key access by table",
            ],
        ),
        (
            "cluster-master-table",
            format!("{master_http}/table?name=endpoints_t"),
            vec!["Table endpoints_t", "endpoints_t,", "key-access heatmap"],
        ),
        (
            "cluster-regionserver",
            format!("{}/", servers[0].2),
            vec!["Regions open here", "endpoints_t,"],
        ),
    ];
    tokio::task::spawn_blocking(move || in_chromium(&pages))
        .await
        .unwrap();

    // The Thrift gateway on the cluster.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let thrift = format!("127.0.0.1:{port}");
    let (_gateway, _) = start(
        &[
            "gateway",
            "--etcd",
            &etcd,
            "--cluster",
            &cluster,
            "--listen",
            &thrift,
        ]
        .map(String::from),
        "HBase Thrift1 on",
    );
    let reply = tokio::task::spawn_blocking(move || thrift_table_names(&thrift))
        .await
        .unwrap();
    assert_eq!(
        &reply[..4],
        &0x8001_0002u32.to_be_bytes(),
        "a reply: {reply:?}"
    );
    assert!(
        reply.windows(11).any(|w| w == b"endpoints_t"),
        "the cluster's table is listed: {reply:?}"
    );

    // Namespaces on the cluster (RFC 0023), through a connection to the other server.
    let other = Connection::connect(&addrs[1]).await.unwrap();
    let admin = other.admin();
    let in_ns = |name: &str| {
        TableDescriptor::new(TableName::parse(name).unwrap())
            .with_family(FamilyDescriptor::new("f"))
    };
    let err = admin
        .create_table(&in_ns("endpoints_ns:a"), &[])
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NamespaceNotFound, "{err}");
    let ns = NamespaceDescriptor::new("endpoints_ns")
        .with_property("hbase.namespace.quota.maxtables", "1");
    conn.admin().create_namespace(&ns).await.unwrap();
    assert_eq!(admin.get_namespace("endpoints_ns").await.unwrap(), ns);
    admin
        .create_table(&in_ns("endpoints_ns:a"), &[key(10)])
        .await
        .unwrap();
    let err = admin
        .create_table(&in_ns("endpoints_ns:b"), &[])
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::QuotaExceeded, "{err}");
    let err = conn
        .admin()
        .delete_namespace("endpoints_ns")
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Constraint, "{err}");
    admin.disable_table("endpoints_ns:a").await.unwrap();
    admin.delete_table("endpoints_ns:a").await.unwrap();
    conn.admin().delete_namespace("endpoints_ns").await.unwrap();
    let names: Vec<String> = admin
        .list_namespaces()
        .await
        .unwrap()
        .into_iter()
        .map(|d| d.name)
        .collect();
    assert_eq!(names, ["default", "hbase"]);

    conn.admin().disable_table("endpoints_t").await.unwrap();
    conn.admin().delete_table("endpoints_t").await.unwrap();
}

/// Loads each `(name, host:port/path, expected texts)` page in headless Chromium: it must
/// show the texts and log no console message; its screenshot goes to
/// `<target>/tmp/ui-screenshots/NAME.png`. Skipped without Chromium unless
/// `STRATA_REQUIRE_CHROMIUM` is set.
fn in_chromium(pages: &[(&str, String, Vec<&str>)]) {
    let Some(chromium) = browser::chromium() else {
        assert!(
            std::env::var_os("STRATA_REQUIRE_CHROMIUM").is_none(),
            "chromium is not installed (scripts/ui/install-chromium.sh) and \
             STRATA_REQUIRE_CHROMIUM is set"
        );
        eprintln!("skipped the browser check: chromium is not installed");
        return;
    };
    let out = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ui-screenshots");
    std::fs::create_dir_all(&out).unwrap();
    for (name, addr, expected) in pages {
        let url = format!("http://{addr}");
        let scratch = tempfile::tempdir().unwrap();
        let profile = scratch.path().join("profile");
        let dom = browser::browse(&chromium, &profile, "--dump-dom", &url);
        let html = String::from_utf8_lossy(&dom.stdout);
        let log = String::from_utf8_lossy(&dom.stderr);
        assert!(dom.status.success(), "{name}: chromium failed: {log}");
        for text in expected {
            assert!(html.contains(text), "{name}: '{text}' missing from {html}");
        }
        let errors = browser::console_errors(&log);
        assert!(errors.is_empty(), "{name}: console errors: {errors:?}");
        let file = out.join(format!("{name}.png"));
        let shot = browser::browse(
            &chromium,
            &profile,
            &format!("--screenshot={}", file.display()),
            &url,
        );
        assert!(shot.status.success(), "{name}: screenshot failed");
        let png = std::fs::read(&file).unwrap();
        assert!(png.starts_with(b"\x89PNG"), "{name}: not a PNG");
        eprintln!("{name}: {} ({} bytes)", file.display(), png.len());
    }
}
