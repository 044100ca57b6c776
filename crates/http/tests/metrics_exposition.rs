//! `/metrics` after a workload: every metric family appears, with the figures the workload
//! produced, and the whole exposition passes a strict OpenMetrics text check when asked for
//! OpenMetrics, and a classic (0.0.4) text check by default, with every counter's type kept.
#![allow(clippy::unwrap_used)]

mod support;

use strata_model::ops::{CheckAndMutate, Condition, Get, Put, RowMutations, Scan};
use strata_model::schema::{CompactionPolicy, DateTiered};
use support::exposition::{parse, parse_classic, Exposition};
use support::{b, get, get_openmetrics, start, table};

/// Families and the sample that must be there (by name) after the workload below.
const EXPECTED: &[&str] = &[
    "strata_requests_total",
    "strata_request_errors_total",
    "strata_request_duration_seconds_bucket",
    "strata_request_duration_seconds_sum",
    "strata_request_duration_seconds_count",
    "strata_slow_operations_kept",
    "strata_regions",
    "strata_memtable_bytes",
    "strata_memtable_index_bytes",
    "strata_memtable_segments",
    "strata_memtable_budget_used_bytes",
    "strata_memtable_budget_limit_bytes",
    "strata_store_files",
    "strata_store_file_bytes",
    "strata_tier_store_files",
    "strata_tier_store_file_bytes",
    "strata_tier_read_bytes_total",
    "strata_tier_reads_total",
    "strata_inline_block_reads_total",
    "strata_flushes_total",
    "strata_flushed_bytes_total",
    "strata_compactions_total",
    "strata_compacted_bytes_total",
    "strata_splits_total",
    "strata_load_splits_total",
    "strata_writes_in_place_total",
    "strata_writes_queued_total",
    "strata_flush_queue_length",
    "strata_compaction_queue_length",
    "strata_background_failures_total",
    "strata_corruptions_found_total",
    "strata_uptime_seconds",
    "strata_wal_appends_total",
    "strata_wal_writes_total",
    "strata_wal_syncs_total",
    "strata_wal_rolls_total",
    "strata_wal_failed_batches_total",
    "strata_wal_segments",
    "strata_flush_check_flushes_total",
    "strata_memtable_idle_merges_total",
    "strata_wal_bytes",
    "strata_wal_sync_duration_seconds_bucket",
    "strata_wal_sync_duration_seconds_count",
    "strata_block_cache_hits_total",
    "strata_block_cache_misses_total",
    "strata_block_cache_evictions_total",
    "strata_block_cache_bytes",
    "strata_block_cache_capacity_bytes",
    "strata_row_cache_hits_total",
    "strata_row_cache_misses_total",
    "strata_row_cache_evictions_total",
    "strata_row_cache_invalidations_total",
    "strata_row_cache_bytes",
    "strata_row_cache_capacity_bytes",
    "strata_memory_part_bytes",
    "strata_memory_tuner_periods_total",
    "strata_nonces",
    "strata_compaction_throughput_limit_bytes_per_second",
    "strata_compaction_pressure_ratio",
    "strata_window_store_files",
    "process_cpu_seconds_total",
    "process_resident_memory_bytes",
    "process_virtual_memory_bytes",
    "process_open_fds",
    "process_max_fds",
    "process_start_time_seconds",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_family_appears_after_a_workload_and_the_text_parses() {
    let dir = tempfile::tempdir().unwrap();
    let run = start(dir.path()).await;
    let admin = run.conn.admin();
    let mut desc = table("metrics_t", &["f"]);
    desc.families[0].row_cache = true;
    admin.create_table(&desc, &[b("m")]).await.unwrap();
    // A date-tiered family, for the store files per window.
    let mut dt = table("metrics_dt", &["d"]);
    dt.families[0].compaction_policy = CompactionPolicy::DateTiered(DateTiered::default());
    admin.create_table(&dt, &[]).await.unwrap();
    let tdt = run.conn.table("metrics_dt").unwrap();
    tdt.put(&Put::new(b("r")).add(b("d"), b("q"), b("v")))
        .await
        .unwrap();
    admin.flush("metrics_dt").await.unwrap();
    let t = run.conn.table("metrics_t").unwrap();
    for i in 0..50 {
        t.put(&Put::new(b(&format!("row{i:03}"))).add(b("f"), b("q"), b("value")))
            .await
            .unwrap();
    }
    admin.flush("metrics_t").await.unwrap();
    for i in 0..5 {
        t.put(&Put::new(b(&format!("row{i:03}"))).add(b("f"), b("q"), b("newer")))
            .await
            .unwrap();
    }
    admin.flush("metrics_t").await.unwrap();
    admin.compact("metrics_t", None, true).await.unwrap();
    for _ in 0..3 {
        // The first get reads the files (block cache misses), later ones the row cache.
        t.get(&Get::new(b("row010"))).await.unwrap();
    }
    t.get_many(&[Get::new(b("row001")), Get::new(b("zzz"))])
        .await
        .unwrap();
    t.scan_all(&Scan::default()).await.unwrap();
    t.batch(&[RowMutations::new(b("row100"))
        .with(Put::new(b("row100")).add(b("f"), b("q"), b("v")))
        .unwrap()])
        .await
        .unwrap();
    t.check_and_mutate(&CheckAndMutate::new(
        Condition::absent(b("f"), b("nope")),
        RowMutations::new(b("row001"))
            .with(Put::new(b("row001")).add(b("f"), b("q2"), b("v")))
            .unwrap(),
    ))
    .await
    .unwrap();

    let response = get_openmetrics(run.http.addr()).await;
    assert_eq!(response.status, 200);
    assert!(response
        .header("content-type")
        .unwrap()
        .starts_with("application/openmetrics-text"));
    let m: Exposition = parse(&response.body).unwrap_or_else(|e| panic!("{e}\n{}", response.body));
    for name in EXPECTED {
        assert!(
            !m.find(name, &[]).is_empty(),
            "{name} missing:\n{}",
            response.body
        );
    }
    let table_get = [("op", "get"), ("table", "metrics_t")];
    assert_eq!(m.sum("strata_requests_total", &table_get), 3.0);
    assert_eq!(
        m.sum("strata_request_duration_seconds_count", &table_get),
        3.0
    );
    assert_eq!(
        m.sum(
            "strata_request_duration_seconds_bucket",
            &[("op", "get"), ("le", "+Inf")]
        ),
        3.0
    );
    for op in ["mutate", "multi_get", "scan", "batch", "check_and_mutate"] {
        assert!(
            m.sum("strata_requests_total", &[("op", op)]) >= 1.0,
            "{op}: {}",
            response.body
        );
    }
    assert_eq!(m.sum("strata_regions", &[]), 3.0);
    assert_eq!(
        m.sum(
            "strata_window_store_files",
            &[("table", "metrics_dt"), ("family", "d")]
        ),
        1.0
    );
    assert!(m.sum("strata_flushes_total", &[]) >= 2.0);
    assert!(m.sum("strata_flushed_bytes_total", &[]) > 0.0);
    assert!(m.sum("strata_compactions_total", &[]) >= 1.0);
    assert!(m.sum("strata_compacted_bytes_total", &[]) > 0.0);
    assert!(
        m.sum(
            "strata_store_files",
            &[("table", "metrics_t"), ("family", "f")]
        ) >= 1.0
    );
    assert!(m.sum("strata_tier_store_files", &[("tier", "HDD")]) >= 1.0);
    // Opening and reading the flushed files read their bytes from the HDD volume.
    assert!(m.sum("strata_tier_read_bytes_total", &[("tier", "HDD")]) > 0.0);
    assert!(m.sum("strata_tier_reads_total", &[("tier", "HDD")]) >= 1.0);
    assert!(m.sum("strata_memtable_bytes", &[("table", "metrics_t")]) > 0.0);
    assert!(m.sum("strata_wal_appends_total", &[]) >= 57.0);
    assert!(m.sum("strata_wal_syncs_total", &[]) >= 1.0);
    assert!(m.sum("strata_wal_sync_duration_seconds_count", &[]) >= 1.0);
    assert!(m.sum("strata_block_cache_misses_total", &[]) >= 1.0);
    assert!(m.sum("strata_row_cache_hits_total", &[]) >= 1.0);
    assert!(m.sum("strata_row_cache_misses_total", &[]) >= 1.0);
    assert_eq!(
        m.find("strata_background_failures_total", &[]).len(),
        7,
        "one series per kind of work"
    );
    // Every series the Grafana dashboard queries exists.
    let dashboard = include_str!("../../../docs/grafana-dashboard.json");
    for word in dashboard.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        if word.starts_with("strata_") {
            assert!(
                !m.find(word, &[]).is_empty(),
                "the dashboard's {word} is not served"
            );
        }
    }
    // Rows never become labels.
    assert!(!response.body.contains("row0"), "{}", response.body);

    // Without an Accept header (curl, a classic scraper): the 0.0.4 text, with the same
    // samples and every counter declared as one under its samples' name.
    let classic = get(run.http.addr(), "/metrics").await;
    assert_eq!(
        classic.header("content-type"),
        Some("text/plain; version=0.0.4; charset=utf-8")
    );
    let c = parse_classic(&classic.body).unwrap_or_else(|e| panic!("{e}\n{}", classic.body));
    for name in EXPECTED {
        assert!(
            !c.find(name, &[]).is_empty(),
            "{name} missing:\n{}",
            classic.body
        );
    }
    for (family, kind) in &m.types {
        let (name, want) = match kind.as_str() {
            "counter" => (format!("{family}_total"), "counter"),
            "unknown" => (family.clone(), "untyped"),
            other => (family.clone(), other),
        };
        assert_eq!(c.types.get(&name).map(String::as_str), Some(want), "{name}");
    }
    assert_eq!(c.types.get("strata_requests_total").unwrap(), "counter");
    assert_eq!(
        c.sum("strata_requests_total", &table_get),
        m.sum("strata_requests_total", &table_get)
    );
    assert!(parse(&classic.body).is_err(), "0.0.4 text has no # EOF");
    assert!(
        parse_classic(&response.body).is_err(),
        "OpenMetrics is not 0.0.4"
    );
    let p = c.sum("strata_compaction_pressure_ratio", &[]);
    assert!((0.0..=1.0).contains(&p), "{p}");
    run.stop().await;
}
#[test]
fn the_classic_checker_refuses_what_a_classic_parser_cannot_read() {
    let good = "# HELP a_total A.\n# TYPE a_total counter\na_total{x=\"1\"} 2\n";
    assert_eq!(
        parse_classic(good).unwrap().sum("a_total", &[("x", "1")]),
        2.0
    );
    for bad in [
        // The OpenMetrics naming: the counter's samples are outside its family.
        "# TYPE a counter\na_total 1\n",
        "# TYPE a_total counter\na_total 1\n# EOF\n",
        "# TYPE a_bytes gauge\n# UNIT a_bytes bytes\na_bytes 1\n",
        "# TYPE a unknown\na 1\n",
    ] {
        assert!(parse_classic(bad).is_err(), "accepted: {bad:?}");
    }
}

#[test]
fn the_checker_refuses_broken_expositions() {
    let good = "# TYPE a counter\na_total{x=\"1\"} 2\n# EOF\n";
    assert_eq!(parse(good).unwrap().sum("a_total", &[("x", "1")]), 2.0);
    for bad in [
        "# TYPE a counter\na_total 1\n",
        "a 1\n# EOF\n",
        "# TYPE a counter\nb_total 1\n# EOF\n",
        "# TYPE a gauge\na{x=\"1} 1\n# EOF\n",
        "# TYPE a gauge\na one\n# EOF\n",
        "# TYPE a histogram\na_bucket 1\n# EOF\n",
        "# TYPE a gauge\n# TYPE a gauge\n# EOF\n",
    ] {
        assert!(parse(bad).is_err(), "accepted: {bad:?}");
    }
}
