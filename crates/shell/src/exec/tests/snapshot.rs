//! snapshot, list_snapshots, list_table_snapshots, clone_snapshot, restore_snapshot,
//! delete_snapshot: HBase shell's output and refusals.

use super::Cluster;

/// The listing with its creation times replaced by `TIME` (they vary).
fn untimed(listing: &str) -> String {
    listing
        .lines()
        .map(|l| match l.find(" (") {
            Some(i) if l.ends_with(" +0000)") => format!("{} (TIME)", &l[..i]),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

#[tokio::test(flavor = "multi_thread")]
async fn snapshot_commands_print_as_hbase_does() {
    let c = Cluster::start().await;
    c.run("create 't', 'f'\nput 't', 'r1', 'f:q', 'v1'").await;
    assert_eq!(c.run("snapshot 't', 's1'").await, "");
    assert_eq!(
        c.run("snapshot 't', 's1'").await,
        "ERROR: Snapshot 's1' already stored on the filesystem.\n"
    );
    assert_eq!(
        c.run("snapshot 'nosuch', 's2'").await,
        "ERROR: table nosuch does not exist\n"
    );
    assert!(c
        .run("snapshot 't', 'a b'")
        .await
        .starts_with("ERROR: snapshot name \"a b\""));
    c.run("put 't', 'r2', 'f:q', 'v2'\ncreate_namespace 'ns'\nsnapshot 't', 's2'")
        .await;
    let header = "SNAPSHOT                       TABLE + CREATION TIME\n";
    assert_eq!(
        untimed(&c.run("list_snapshots").await),
        format!("{header} s1                            t (TIME)\n s2                            t (TIME)\n2 row(s)\n")
    );
    assert_eq!(
        untimed(&c.run("list_snapshots 's2'").await),
        format!("{header} s2                            t (TIME)\n1 row(s)\n")
    );
    assert_eq!(
        c.run("list_snapshots 's'").await,
        format!("{header}0 row(s)\n")
    );
    assert_eq!(
        untimed(&c.run("list_table_snapshots 't', '.*1'").await),
        format!("{header} s1                            t (TIME)\n1 row(s)\n")
    );
    assert_eq!(
        c.run("list_table_snapshots 'x.*'").await,
        format!("{header}0 row(s)\n")
    );

    assert_eq!(c.run("clone_snapshot 's1', 'ns:c'").await, "");
    assert_eq!(
        c.run("scan 'ns:c'").await,
        c.run("scan 't', {STOPROW => 'r2'}")
            .await
            .replace("'t'", "'ns:c'")
    );
    assert_eq!(
        c.run("clone_snapshot 's1', 't'").await,
        "ERROR: table t already exists\n"
    );
    assert_eq!(
        c.run("restore_snapshot 's1'").await,
        "ERROR: table t is not disabled; disable it first\n"
    );
    assert_eq!(c.run("disable 't'\nrestore_snapshot 's1'").await, "");
    assert_eq!(c.run("is_disabled 't'").await, "true\n");
    c.run("enable 't'").await;
    assert_eq!(c.run("count 't'").await, "1 row(s)\n");
    assert_eq!(
        c.run("delete_snapshot 's1'\ndelete_snapshot 's2'").await,
        ""
    );
    assert_eq!(
        c.run("delete_snapshot 's1'").await,
        "ERROR: Snapshot 's1' doesn't exist on the filesystem\n"
    );
    assert_eq!(c.run("list_snapshots").await, format!("{header}0 row(s)\n"));
}
