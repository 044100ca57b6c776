//! put, get, scan (with its options), delete, deleteall, incr, get_counter, append, count.

use super::{squeeze, Cluster};

/// Rows r1..r5 in family `f` (3 versions kept) at timestamps 1000.., plus two versions of
/// r1's `f:v` and a cell in family `g`.
const FIXTURE: &str = "\
create 't', {NAME => 'f', VERSIONS => 3}, 'g'
put 't', 'r1', 'f:a', 'a1', 1000
put 't', 'r2', 'f:a', 'a2', 2000
put 't', 'r3', 'f:a', 'a3', 3000
put 't', 'p1', 'f:a', 'pa', 4000
put 't', 'p2', 'f:a', 'pb', 5000
put 't', 'r1', 'f:v', 'old', 100
put 't', 'r1', 'f:v', 'new', 200
put 't', 'r1', 'g:x', \"\\x00\\x01\", 300
";

async fn fixture() -> Cluster {
    let c = Cluster::start().await;
    assert_eq!(c.run(FIXTURE).await, "Created table t\n");
    c
}

#[tokio::test(flavor = "multi_thread")]
async fn get_prints_columns_and_cells() {
    let c = fixture().await;
    let out = c.run("get 't', 'r1'").await;
    assert_eq!(
        out,
        "COLUMN                         CELL\n \
         f:a                           timestamp=1000, value=a1\n \
         f:v                           timestamp=200, value=new\n \
         g:x                           timestamp=300, value=\\x00\\x01\n\
         1 row(s)\n"
    );
    let out = c
        .run("get 't', 'r1', {COLUMN => 'f:v', VERSIONS => 2}")
        .await;
    assert_eq!(
        squeeze(&out),
        "COLUMN CELL\n\
         f:v timestamp=200, value=new\n\
         f:v timestamp=100, value=old\n\
         1 row(s)"
    );
    let out = c.run("get 't', 'r1', 'g'\nget 't', 'nothing'").await;
    assert_eq!(
        squeeze(&out),
        "COLUMN CELL\ng:x timestamp=300, value=\\x00\\x01\n1 row(s)\n\
         COLUMN CELL\n0 row(s)"
    );
    c.stop().await;
}

/// The rows a scan printed, in order, one per cell.
fn scanned(out: &str) -> Vec<String> {
    squeeze(out)
        .lines()
        .filter(|l| l.contains("column="))
        .map(|l| l.split(", timestamp").next().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn scan_options_select_rows_and_cells() {
    let c = fixture().await;
    let all = c.run("scan 't'").await;
    assert!(all.starts_with("ROW                            COLUMN+CELL\n"));
    assert!(all.contains(" r1                            column=f:a, timestamp=1000, value=a1\n"));
    assert!(all.ends_with("5 row(s)\n"), "{all}");
    let cases: [(&str, &[&str]); 8] = [
        ("{STARTROW => 'r2', STOPROW => 'r3'}", &["r2 column=f:a"]),
        (
            "{ROWPREFIXFILTER => 'p'}",
            &["p1 column=f:a", "p2 column=f:a"],
        ),
        (
            "{LIMIT => 2, COLUMNS => ['f:a']}",
            &["p1 column=f:a", "p2 column=f:a"],
        ),
        (
            "{REVERSED => true, COLUMNS => 'f:a', LIMIT => 2}",
            &["r3 column=f:a", "r2 column=f:a"],
        ),
        ("{COLUMNS => ['g']}", &["r1 column=g:x"]),
        (
            "{COLUMNS => ['f:v'], VERSIONS => 3}",
            &["r1 column=f:v", "r1 column=f:v"],
        ),
        (
            "{TIMERANGE => [2000, 4000]}",
            &["r2 column=f:a", "r3 column=f:a"],
        ),
        (
            "{FILTER => \"ValueFilter(=, 'binary:a3')\"}",
            &["r3 column=f:a"],
        ),
    ];
    for (options, expected) in cases {
        let out = c.run(&format!("scan 't', {options}")).await;
        assert_eq!(scanned(&out), expected, "scan 't', {options}:\n{out}");
        assert!(out.ends_with(&format!(
            "{} row(s)\n",
            expected
                .iter()
                .collect::<std::collections::BTreeSet<_>>()
                .len()
        )));
    }
    c.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn deletes_remove_columns_and_rows() {
    let c = fixture().await;
    let out = c
        .run(
            "delete 't', 'r1', 'f:v'\n\
             get 't', 'r1'\n\
             deleteall 't', 'r2'\n\
             deleteall 't', 'r1', 'g'\n\
             scan 't', {COLUMNS => ['f:a', 'g'], STOPROW => 'r3'}",
        )
        .await;
    assert_eq!(
        squeeze(&out),
        "COLUMN CELL\n\
         f:a timestamp=1000, value=a1\n\
         g:x timestamp=300, value=\\x00\\x01\n\
         1 row(s)\n\
         ROW COLUMN+CELL\n\
         p1 column=f:a, timestamp=4000, value=pa\n\
         p2 column=f:a, timestamp=5000, value=pb\n\
         r1 column=f:a, timestamp=1000, value=a1\n\
         3 row(s)"
    );
    c.stop().await;
}

/// HBase's shell prints a raw scan's delete markers as `type=<KeyValue.Type>` in place of the
/// value (`table.rb`'s `to_string`), beside the cells they mask.
#[tokio::test(flavor = "multi_thread")]
async fn raw_scans_print_delete_markers_and_masked_cells() {
    let c = fixture().await;
    let out = c
        .run(
            "delete 't', 'r1', 'f:v', 200\n\
             deleteall 't', 'r1', 'g', 300\n\
             scan 't', {STARTROW => 'r1', STOPROW => 'r2'}\n\
             scan 't', {RAW => true, VERSIONS => 3, STARTROW => 'r1', STOPROW => 'r2'}",
        )
        .await;
    assert_eq!(
        squeeze(&out),
        "ROW COLUMN+CELL\n\
         r1 column=f:a, timestamp=1000, value=a1\n\
         1 row(s)\n\
         ROW COLUMN+CELL\n\
         r1 column=f:a, timestamp=1000, value=a1\n\
         r1 column=f:v, timestamp=200, type=DeleteColumn\n\
         r1 column=f:v, timestamp=200, value=new\n\
         r1 column=f:v, timestamp=100, value=old\n\
         r1 column=g:, timestamp=300, type=DeleteFamily\n\
         r1 column=g:x, timestamp=300, value=\\x00\\x01\n\
         1 row(s)"
    );
    c.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_put_ttl_counts_from_the_cell_timestamp() {
    let c = fixture().await;
    // Written at 1000 ms (1970) with a 1 ms TTL: expired already. Written now with an
    // hour's TTL: visible.
    let out = c
        .run(
            "put 't', 'x1', 'f:a', 'gone', 1000, {TTL => 1}\n\
             put 't', 'x2', 'f:a', 'kept', {TTL => 3600000}\n\
             get 't', 'x1'\nget 't', 'x2'",
        )
        .await;
    let out = squeeze(&out);
    assert!(
        out.starts_with("COLUMN CELL\n0 row(s)\nCOLUMN CELL\nf:a "),
        "{out}"
    );
    assert!(out.ends_with("value=kept\n1 row(s)"), "{out}");
    c.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn counters_and_appends() {
    let c = fixture().await;
    let out = c
        .run(
            "get_counter 't', 'c', 'f:hits'\n\
             incr 't', 'c', 'f:hits'\n\
             incr 't', 'c', 'f:hits', 41\n\
             incr 't', 'c', 'f:hits', -2\n\
             get_counter 't', 'c', 'f:hits'\n\
             append 't', 'r1', 'f:a', '+more'\n\
             append 't', 'new', 'f:b', 'first'\n\
             get_counter 't', 'r1', 'f:a'",
        )
        .await;
    assert_eq!(
        out,
        "No counter found at specified coordinates\n\
         COUNTER VALUE = 1\n\
         COUNTER VALUE = 42\n\
         COUNTER VALUE = 40\n\
         COUNTER VALUE = 40\n\
         CURRENT VALUE = a1+more\n\
         CURRENT VALUE = first\n\
         ERROR: f:a is 7 bytes long, not a 64-bit counter (value=a1+more)\n"
    );
    c.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn count_reports_progress_every_interval() {
    let c = fixture().await;
    let out = c
        .run("count 't', INTERVAL => 2\ncount 't', {ROWPREFIXFILTER => 'r'}")
        .await;
    assert_eq!(
        out,
        "Current count: 2, row: p2\n\
         Current count: 4, row: r2\n\
         5 row(s)\n\
         3 row(s)\n"
    );
    c.stop().await;
}
