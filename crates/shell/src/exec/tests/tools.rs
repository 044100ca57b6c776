//! flush, compact, major_compact, compaction_state, split, status, version, whoami, help, exit,
//! compact_rs,
//! processlist, list_procedures, list_locks, clear_block_cache, table_help, update_config,
//! update_all_config.

use super::Cluster;
use crate::exec::Flow;
use crate::script::run_statement;

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
         major_compact 't', 'f'",
    );
    let out = c.run(&script).await;
    assert!(!out.contains("ERROR"), "{out}");
    // Status counts flushes and compactions of the regions being served (from each server's
    // load report, so it may lag a report), so read them before the split replaces the region.
    let figure = |out: &str, name: &str| -> u64 {
        let at = out.find(&format!("{name}=")).unwrap() + name.len() + 1;
        out[at..].split(',').next().unwrap().trim().parse().unwrap()
    };
    let out = c
        .status_until(|out| figure(out, "flushes") == 2 && figure(out, "compactions") >= 1)
        .await;
    assert_eq!(figure(&out, "flushes"), 2, "{out}");
    // A time-range scan that misses every file's cells opens none of them, and says so.
    let out = c.run("scan 't', {TIMERANGE => [100, 200]}").await;
    assert!(out.contains("0 row(s)"), "{out}");
    let out = c
        .status_until(|out| figure(out, "storeFilesSkippedByTimeRange") >= 1)
        .await;
    assert_eq!(figure(&out, "storeFilesRead"), 0, "{out}");
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

/// HBase's forms: `summary` (the default) one line, `simple` the servers and their load,
/// `detailed` the version, regions in transition and each table's regions too.
#[tokio::test(flavor = "multi_thread")]
async fn status_shows_servers_tables_and_load() {
    let c = Cluster::start().await;
    let out = c
        .run("create 't', 'f', SPLITS => ['m']\nput 't', 'a', 'f:q', 'v'\nstatus\nstatus 'simple'")
        .await;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[1],
        "1 active master, 0 backup masters, 1 servers, 0 dead, 2.0000 average load"
    );
    assert!(lines[2].starts_with("active master:  127.0.0.1:"), "{out}");
    assert_eq!(lines[3], "0 backup masters");
    assert_eq!(lines[4], "1 live servers");
    assert!(lines[6].contains("regions=2, requests="), "{out}");
    assert!(lines[6].contains("memtableSize="));
    assert!(lines[6].contains("blockCacheSize="));
    assert_eq!(lines[7], "0 dead servers");
    assert!(lines[8].starts_with("Aggregate load: "), "{out}");
    assert!(lines[8].ends_with(", regions: 2"), "{out}");
    assert_eq!(lines.len(), 9, "{out}");
    let out = c.run("status 'summary'\nstatus 'detailed'").await;
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].ends_with(" average load"), "{out}");
    assert!(lines[1].starts_with("version "), "{out}");
    assert_eq!(lines[2], "0 regionsInTransition");
    assert!(out.contains("\ntable t (ENABLED)\n"), "{out}");
    c.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn general_commands() {
    let c = Cluster::start().await;
    let out = c.run("version\nwhoami\nhelp\nhelp 'scan'").await;
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].ends_with(&format!(", shell {}", env!("CARGO_PKG_VERSION"))));
    assert!(lines[1].ends_with(" (auth:SIMPLE)"));
    assert!(!lines[1].starts_with("unknown "), "{out}");
    assert!(lines[2].starts_with("    groups: "), "{out}");
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

#[tokio::test(flavor = "multi_thread")]
async fn server_commands_use_what_the_server_has_and_say_what_it_lacks() {
    let c = Cluster::start().await;
    let out = c.run("create 't', 'f'\nput 't', 'r', 'f:q', 'v'\nflush 't'\nput 't', 'r', 'f:q', 'w'\nflush 't'").await;
    assert!(!out.contains("ERROR"), "{out}");
    let server = c.conn.admin().status().await.unwrap().servers[0]
        .address
        .clone();
    let out = c
        .run(&format!(
            "compact_rs '{server}', true\ncompact_rs 'nohost:1'\nprocesslist\n\
             clear_block_cache 't'\ntable_help\nlsit"
        ))
        .await;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        format!("Requested major compactions of 1 table(s) on {server}")
    );
    assert!(
        lines[1].starts_with("ERROR: compact_rs: no live server 'nohost:1'"),
        "{out}"
    );
    assert_eq!(
        lines[2], "Id Name State Submitted_Time Last_Update Parameters",
        "{out}"
    );
    assert_eq!(lines[3], "0 row(s)", "{out}");
    assert!(
        lines[4].starts_with("CacheEvictionStats{evictedBlocks="),
        "{out}"
    );
    assert!(out.contains("  t = get_table 't'\n"), "{out}");
    assert!(
        out.contains("  put, get, scan, count, delete, deleteall, incr, get_counter\n"),
        "{out}"
    );
    assert!(!out.contains("not supported:"), "{out}");
    assert!(
        out.contains("unknown command 'lsit'; did you mean 'list'?"),
        "{out}"
    );
    c.stop().await;
}

/// A process that installed no configuration reload (this test's server runs in the test's
/// process, started without a file) answers so, naming the server, and nothing changes; a
/// server that is not live is refused before anything is sent.
#[tokio::test(flavor = "multi_thread")]
async fn update_config_names_servers_without_a_file_and_unknown_servers() {
    let c = Cluster::start().await;
    let server = c.conn_address();
    let out = c
        .run(&format!(
            "update_config '{server}'\nupdate_all_config\nupdate_config 'nohost:1'\n\
             update_config 'a,b'"
        ))
        .await;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        format!(
            "ERROR: update_config '{server}': not reloaded on {server}: {}",
            strata_server::config_reload::NO_FILE
        ),
        "{out}"
    );
    assert_eq!(
        lines[1],
        format!(
            "ERROR: update_all_config: not reloaded on {server}: {}",
            strata_server::config_reload::NO_FILE
        ),
        "{out}"
    );
    assert!(
        lines[2].starts_with(&format!(
            "ERROR: no live server 'nohost:1' (live: {server})"
        )),
        "{out}"
    );
    assert!(lines[3].starts_with("ERROR: no live server 'a,b'"), "{out}");
    assert_eq!(lines.len(), 4, "{out}");
    c.stop().await;
}

/// `clear_block_cache` drops every cached block of the table's files, on each region, counts
/// them as HBase's `CacheEvictionStats` does, and leaves other tables' blocks cached.
#[tokio::test(flavor = "multi_thread")]
async fn clear_block_cache_evicts_a_tables_blocks_and_counts_them() {
    let c = Cluster::start().await;
    let mut script = String::from("create 't', 'f', SPLITS => ['m']\ncreate 'u', 'f'\n");
    for i in 0..200 {
        script.push_str(&format!(
            "put 't', '{}{i:03}', 'f:q', '{}'\n",
            if i % 2 == 0 { "a" } else { "x" },
            "v".repeat(300)
        ));
        script.push_str(&format!("put 'u', 'r{i:03}', 'f:q', 'w'\n"));
    }
    // Gets cache the blocks they read (`count` asks for no caching, as HBase's does).
    script.push_str("flush 't'\nflush 'u'\nget 't', 'a000'\nget 't', 'x001'\nget 'u', 'r000'");
    let out = c.run(&script).await;
    assert!(!out.contains("ERROR"), "{out}");
    let server = c.server_ref().region_server();
    let cache = server.block_cache().unwrap().clone();
    let before = cache.stats();

    let out = c.run("clear_block_cache 't'").await;
    let line = out.lines().next().unwrap();
    let field = |name: &str| -> u64 {
        let at = line.find(&format!("{name}=")).unwrap() + name.len() + 1;
        line[at..]
            .split([',', '}'])
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    assert!(field("evictedBlocks") >= 2, "both regions' blocks: {out}");
    assert!(field("bytesEvicted") > 0, "{out}");
    assert_eq!(field("maxCacheSize"), 8 << 20, "{out}");
    assert!(
        line.ends_with(", failedRegionsSize=0, failedRegions=[]}"),
        "{out}"
    );
    let after = cache.stats();
    assert_eq!(after.entries, before.entries - field("evictedBlocks"));
    assert!(
        after.entries > 0,
        "the other table's blocks stay: {after:?}"
    );

    // Nothing cached since: nothing to evict. Reading caches the blocks again.
    let out = c.run("clear_block_cache 't'").await;
    assert!(
        out.starts_with("CacheEvictionStats{evictedBlocks=0, bytesEvicted=0,"),
        "{out}"
    );
    let out = c.run("get 't', 'x199'\nclear_block_cache 't'").await;
    assert!(!out.contains("evictedBlocks=0,"), "{out}");

    let out = c
        .run("clear_block_cache 'nope'\ndisable 'u'\nclear_block_cache 'u'")
        .await;
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("ERROR: ") && lines[0].contains("nope"),
        "{out}"
    );
    assert!(
        lines[1].starts_with("ERROR: ") && lines[1].contains('u'),
        "{out}"
    );
    assert_eq!(lines.len(), 2, "{out}");
    c.stop().await;
}

/// `list_procedures` asks the admin service on a standalone server too (no etcd): HBase's
/// header and row count; `list_locks` prints nothing, as HBase's shell does without locks.
#[tokio::test(flavor = "multi_thread")]
async fn list_procedures_and_list_locks_through_the_admin_service() {
    let c = Cluster::start().await;
    let out = c
        .run("create 't', 'f'\nlist_procedures\nlist_locks\nprocesslist")
        .await;
    assert_eq!(
        out,
        "Created table t\nId Name State Submitted_Time Last_Update Parameters\n0 row(s)\n\
         Id Name State Submitted_Time Last_Update Parameters\n0 row(s)\n",
        "the create finished: nothing in progress"
    );
    c.stop().await;
}

/// `compaction_state` on an idle table prints `NONE` alone on its line, as HBase's shell does
/// (the regions' counts, through the client, are 0); so does a disabled one (its regions are
/// open nowhere: HBase asks only regions with a server); an unknown table and wrong arguments
/// are one error each.
#[tokio::test(flavor = "multi_thread")]
async fn compaction_state_of_an_idle_table_and_its_errors() {
    let c = Cluster::start().await;
    let out = c
        .run(
            "create 't', 'f', SPLITS => ['m']\n\
             put 't', 'a', 'f:q', 'v'\n\
             put 't', 'n', 'f:q', 'v'\n\
             flush 't'\n\
             compaction_state 't'",
        )
        .await;
    assert!(!out.contains("ERROR"), "{out}");
    assert!(out.ends_with("\nNONE\n"), "{out}");
    let regions = c.conn.admin().regions_with_load("t").await.unwrap();
    assert_eq!(regions.len(), 2, "{regions:?}");
    assert!(
        regions
            .iter()
            .all(|r| r.store_files == 1 && r.minor_compactions == 0 && r.major_compactions == 0),
        "{regions:?}"
    );
    assert_eq!(
        c.conn.admin().compaction_state("t").await.unwrap(),
        strata_client::CompactionState::None
    );

    let out = c
        .run(
            "compaction_state 'nope'\n\
             compaction_state\n\
             compaction_state 't', 'f'\n\
             disable 't'\n\
             compaction_state 't'",
        )
        .await;
    assert_eq!(
        out,
        "ERROR: table nope does not exist\n\
         ERROR: compaction_state: wrong number of arguments (given 0, expected 1)\n\
         usage: compaction_state 't'\n\
         ERROR: compaction_state: wrong number of arguments (given 2, expected 1)\n\
         usage: compaction_state 't'\n\
         NONE\n"
    );
    c.stop().await;
}

/// While a major compaction runs in one region of a table and a minor one in the other (both
/// slowed by the compaction throughput limit, so they run for seconds), `compaction_state`
/// prints `MAJOR_AND_MINOR`, as HBase combines its regions' states; `NONE` once both ended.
#[tokio::test(flavor = "multi_thread")]
async fn compaction_state_follows_the_compactions_running() {
    let c = Cluster::start().await;
    // Four flushed files in each region, of 100 rows with 1 KB values that do not compress.
    let mut script = String::from("create 't', 'f', SPLITS => ['m']\n");
    let mut seed = 7u64;
    for file in 0..4 {
        for i in 0..100 {
            for prefix in ["a", "n"] {
                let value: String = (0..1024)
                    .map(|_| {
                        seed = seed
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        char::from(b'a' + (seed >> 59) as u8 % 26)
                    })
                    .collect();
                script.push_str(&format!(
                    "put 't', '{prefix}{file}-{i:03}', 'f:q', '{value}'\n"
                ));
            }
        }
        script.push_str("flush 't'\n");
    }
    let out = c.run(&script).await;
    assert!(!out.contains("ERROR"), "{out}");
    let regions = c.conn.admin().regions_with_load("t").await.unwrap();
    assert!(
        regions.len() == 2 && regions.iter().all(|r| r.store_files == 4),
        "{regions:?}"
    );

    let server = c.server_ref().region_server().clone();
    let mut limit = server.config().compaction_throughput.get();
    limit.lower_bytes_per_sec = 100 << 10;
    limit.upper_bytes_per_sec = 100 << 10;
    limit.enabled = true;
    server.config().compaction_throughput.set(limit);
    let compactions: Vec<_> = [(regions[0].region_id, true), (regions[1].region_id, false)]
        .into_iter()
        .map(|(id, major)| {
            let server = server.clone();
            std::thread::spawn(move || server.compact_region(id, None, major))
        })
        .collect();
    let started = std::time::Instant::now();
    let mut seen = std::collections::BTreeSet::new();
    while started.elapsed() < std::time::Duration::from_secs(60) {
        let out = c.run("compaction_state 't'").await;
        seen.insert(out.trim_end().to_string());
        if compactions.iter().all(std::thread::JoinHandle::is_finished) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    for compaction in compactions {
        compaction.join().unwrap().unwrap();
    }
    assert!(seen.contains("MAJOR_AND_MINOR"), "{seen:?}");
    assert!(
        seen.iter()
            .all(|s| ["NONE", "MINOR", "MAJOR", "MAJOR_AND_MINOR"].contains(&s.as_str())),
        "{seen:?}"
    );
    assert_eq!(c.run("compaction_state 't'").await, "NONE\n");
    let regions = c.conn.admin().regions_with_load("t").await.unwrap();
    assert!(
        regions.iter().all(|r| r.store_files == 1),
        "both regions compacted their four files into one: {regions:?}"
    );
    c.stop().await;
}
