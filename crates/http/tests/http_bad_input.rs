//! The endpoint only reads and refuses what it does not understand: unknown pages 404,
//! other methods 405, malformed, unknown or oversized query strings 400, unknown tables and
//! regions 404; and it binds where configured.
#![allow(clippy::unwrap_used)]

mod support;

use std::net::TcpListener;

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
    let tables_before = format!("{:?}", run.conn.admin().list_tables().await.unwrap());

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
        ("/table?name=bad_t&kind=hot", 400),
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
        format!("{:?}", run.conn.admin().list_tables().await.unwrap()),
        tables_before
    );
    // Escaping: a table name cannot inject markup (names are validated, but rows are not):
    // a region starting at a row that looks like markup is listed escaped.
    run.conn
        .admin()
        .create_table(&table("split_t", &["f"]), &[b("<script>")])
        .await
        .unwrap();
    let page = get(addr, "/table?name=split_t").await;
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
    let other = tempfile::tempdir().unwrap();
    let mut config = support::config(other.path());
    config.endpoints.http = Some(taken.local_addr().unwrap());
    let err = strata_testkit::Single::start_with(config)
        .err()
        .expect("a taken port is refused");
    assert!(err.contains("HTTP endpoint on"), "{err}");
    run.stop().await;
}
