//! The endpoint only reads and refuses what it does not understand: unknown pages 404,
//! other methods 405, malformed, unknown or oversized query strings 400, unknown tables and
//! regions 404; and it binds where configured.
#![allow(clippy::unwrap_used)]

mod support;

use std::net::TcpListener;

use strata_http::HttpServer;
use support::{b, get, request, start, table};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_are_refused_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let run = start(dir.path()).await;
    run.conn
        .admin()
        .create_table(&table("bad_t", &["f"]), &[])
        .await
        .unwrap();
    let addr = run.http.addr();
    let catalog_before = format!("{:?}", run.server.master().catalog().tables.keys());

    for (target, status) in [
        ("/", 200),
        ("/table?name=bad_t", 200),
        ("/nope", 404),
        ("/table/../etc/passwd", 404),
        ("/table", 400),
        ("/table?name=missing", 404),
        ("/table?name=bad_t&name=bad_t", 400),
        ("/table?nme=bad_t", 400),
        ("/table?name", 400),
        ("/table?name=%zz", 400),
        ("/table?name=%ff", 400),
        ("/region?id=abc", 400),
        ("/region?id=-1", 400),
        ("/region?id=999999", 404),
        ("/heatmap?table=bad_t&kind=hot", 400),
        ("/heatmap?table=missing", 404),
        ("/slow?x=1", 400),
        ("/metrics?format=json", 400),
    ] {
        let r = get(addr, target).await;
        assert_eq!(r.status, status, "{target}: {}", r.body);
        if status != 200 {
            assert!(r.body.contains("class=\"error\""), "{target}: {}", r.body);
        }
    }
    let huge = format!("/table?name={}", "a".repeat(5000));
    assert_eq!(get(addr, &huge).await.status, 400);

    // Only GET (and HEAD) are served; nothing else changes anything.
    for method in ["POST", "PUT", "DELETE", "PATCH"] {
        let r = tokio::task::spawn_blocking(move || request(addr, method, "/table?name=bad_t"))
            .await
            .unwrap();
        assert_eq!(r.status, 405, "{method}");
    }
    let r = tokio::task::spawn_blocking(move || request(addr, "HEAD", "/"))
        .await
        .unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(
        format!("{:?}", run.server.master().catalog().tables.keys()),
        catalog_before
    );
    // Escaping: a table name cannot inject markup (names are validated, but rows are not).
    let t = run.conn.table("bad_t").unwrap();
    t.put(&strata_model::ops::Put::new(b("<script>")).add(b("f"), b("q"), b("v")))
        .await
        .unwrap();
    let page = get(addr, "/heatmap?table=bad_t").await;
    assert_eq!(page.status, 200);
    assert!(!page.body.contains("<script>"), "{}", page.body);
    assert!(page.body.contains("&lt;script&gt;"), "{}", page.body);
    run.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn binds_where_configured_and_refuses_a_taken_port() {
    let dir = tempfile::tempdir().unwrap();
    let run = start(dir.path()).await;
    // Loopback by default, as configured.
    assert!(run.http.addr().ip().is_loopback());
    assert_eq!(strata_http::DEFAULT_LISTEN.to_string(), "127.0.0.1:16010");
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let err = HttpServer::start(
        taken.local_addr().unwrap(),
        run.server.master().clone(),
        Vec::new(),
    )
    .await
    .err()
    .expect("a taken port is refused");
    assert_eq!(err.kind(), std::io::ErrorKind::AddrInUse);
    run.stop().await;
}
