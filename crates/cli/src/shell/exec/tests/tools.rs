//! flush, compact, major_compact, split, status, version, whoami, help, exit.

use super::Cluster;
use crate::shell::exec::Flow;
use crate::shell::script::run_statement;

#[tokio::test(flavor = "multi_thread")]
async fn maintenance_commands_reach_the_server() {
    let c = Cluster::start().await;
    let mut script = String::from("create 't', 'f', 'g'\n");
    for i in 0..20 {
        script.push_str(&format!("put 't', 'row{i:02}', 'f:q', 'v{i}', 1\n"));
    }
    script.push_str(
        "flush 't'\n\
         put 't', 'row05', 'f:q', 'again', 2\n\
         flush 't', 'f'\n\
         compact 't'\n\
         major_compact 't', 'f'\n\
         status",
    );
    let out = c.run(&script).await;
    assert!(!out.contains("ERROR"), "{out}");
    // Status counts flushes and compactions of the regions being served, so read them
    // before the split replaces the region.
    let figure = |name: &str| -> u64 {
        let at = out.find(&format!("{name}=")).unwrap() + name.len() + 1;
        out[at..].split(',').next().unwrap().parse().unwrap()
    };
    assert_eq!(figure("flushes"), 2, "{out}");
    assert!(figure("compactions") >= 1, "{out}");
    // A time-range scan that misses every file's cells opens none of them, and says so.
    let out = c.run("scan 't', {TIMERANGE => [100, 200]}\nstatus").await;
    assert!(out.contains("0 row(s)"), "{out}");
    let figure = |name: &str| -> u64 {
        let at = out.find(&format!("{name}=")).unwrap() + name.len() + 1;
        out[at..].split(',').next().unwrap().trim().parse().unwrap()
    };
    assert!(figure("storeFilesSkippedByTimeRange") >= 1, "{out}");
    assert_eq!(figure("storeFilesRead"), 0, "{out}");
    let out = c
        .run("split 't', 'row10'\nstatus 'detailed'\nget 't', 'row05'\ncount 't'")
        .await;
    assert!(!out.contains("ERROR"), "{out}");
    assert!(out.contains("\ntable t (ENABLED)\n"), "{out}");
    assert!(out.contains("['', 'row10')"), "{out}");
    assert!(out.contains("['row10', '')"), "{out}");
    assert!(out.contains("value=again"));
    assert!(out.ends_with("20 row(s)\n"));
    // A split without a key cuts each region at its midpoint (once the data is on disk).
    // Small blocks, so the store file has a middle key apart from its first and last.
    let mut script = String::from("create 'u', {NAME => 'f', BLOCKSIZE => 1024}\n");
    let value = "x".repeat(200);
    for i in 0..20 {
        script.push_str(&format!("put 'u', 'row{i:02}', 'f:q', '{value}', 1\n"));
    }
    script.push_str("flush 'u'\nsplit 'u'\ndescribe 'u'\ncount 'u'");
    let out = c.run(&script).await;
    assert!(!out.contains("ERROR"), "{out}");
    assert!(out.contains("\n2 region(s)\n"), "{out}");
    assert!(out.ends_with("\n20 row(s)\n"), "{out}");
    c.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn status_shows_servers_tables_and_load() {
    let c = Cluster::start().await;
    let out = c
        .run("create 't', 'f', SPLITS => ['m']\nput 't', 'a', 'f:q', 'v'\nstatus\nstatus 'simple'")
        .await;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[1],
        "1 active master, 0 backup masters, 1 servers, 0 dead, 2.0000 average load, \
         1 tables, 2 regions"
    );
    assert!(lines[2].starts_with("version "));
    assert_eq!(lines[3], "1 live servers");
    assert!(lines[5].contains("regions=2, requests="), "{out}");
    assert!(lines[5].contains("memtableSize="));
    assert!(lines[5].contains("blockCacheSize="));
    assert_eq!(lines[6], lines[1]);
    assert_eq!(lines.len(), 7, "{out}");
    c.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn general_commands() {
    let c = Cluster::start().await;
    let out = c.run("version\nwhoami\nhelp\nhelp 'scan'").await;
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].ends_with(&format!(", shell {}", env!("CARGO_PKG_VERSION"))));
    assert!(lines[1].ends_with(" (auth:SIMPLE)"));
    assert!(out.contains("Commands (type help 'name' for details):"));
    assert!(out.contains("usage: scan 't' [, {STARTROW"));
    let mut sink = Vec::new();
    let flow = run_statement(&c.conn, "exit", &mut sink).await.unwrap();
    assert_eq!(flow, Flow::Exit);
    let flow = run_statement(&c.conn, "quit", &mut sink).await.unwrap();
    assert_eq!(flow, Flow::Exit);
    assert!(sink.is_empty());
    c.stop().await;
}
