//! Table references as HBase's shell teaches them: `t = create …` / `t = get_table …`, then
//! `t.put`, `t.get`, `t.scan`, `t.count`, `t.deleteall`, `t.disable`, `t.describe`.

use super::{squeeze, Cluster};

#[tokio::test(flavor = "multi_thread")]
async fn a_table_reference_runs_the_table_commands() {
    let c = Cluster::start().await;
    let out = c
        .run(
            "t = create 'rt', 'f'\n\
             t.put 'r1', 'f:a', 'v1'\n\
             t.put('r2', 'f:a', 'v2')\n\
             t.get 'r1'\n\
             t.count\n\
             t.scan {LIMIT => 1}",
        )
        .await;
    let out = squeeze(&out);
    assert!(
        out.starts_with("Created table rt\n=> Hbase::Table - rt\n"),
        "{out}"
    );
    assert!(out.contains("f:a timestamp="), "{out}");
    assert!(out.contains("value=v1"), "{out}");
    assert!(out.contains("2 row(s)"), "{out}");
    assert!(out.contains("r1 column=f:a"), "{out}");
    assert!(
        !out.contains("r2 column=f:a"),
        "LIMIT => 1 reached the scan: {out}"
    );

    // A second reference to the same table, from get_table; the first still works.
    let out = squeeze(
        &c.run("u = get_table 'rt'\nu.deleteall 'r1'\nu.count\nu.disable\nu.describe")
            .await,
    );
    assert!(out.starts_with("=> Hbase::Table - rt\n"), "{out}");
    assert!(out.contains("1 row(s)"), "{out}");
    assert!(out.contains("rt"), "{out}");
    assert!(
        out.contains("DISABLED") || out.contains("disabled"),
        "{out}"
    );

    // A method tables lack, an assignment of something else, an unbound name: errors.
    let out = c
        .run("t = get_table 'rt'\nt.frobnicate\nx = list\nnope.scan")
        .await;
    assert!(out.contains("undefined method 'frobnicate'"), "{out}");
    assert!(
        out.contains("only get_table and create return a table reference"),
        "{out}"
    );
    assert!(out.contains("ERROR"), "{out}");
    c.stop().await;
}
