//! list_regions, get_splits, locate_region, and region names in HBase's forms given to
//! merge_region and split.

use super::Cluster;

/// The REGION_NAME column of `list_regions`' output, by row.
fn region_names(out: &str) -> Vec<String> {
    out.lines()
        .filter_map(|l| l.split('|').nth(1))
        .map(str::trim)
        .filter(|name| name.starts_with("t,"))
        .map(str::to_string)
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn regions_are_listed_located_and_named_as_hbase_names_them() {
    let c = Cluster::start().await;
    let mut script = String::from("create 't', 'f', SPLITS => ['g', 'p']\n");
    for row in ["a", "h", "i", "q"] {
        script.push_str(&format!("put 't', '{row}', 'f:q', 'v'\n"));
    }
    let out = c.run(&script).await;
    assert!(!out.contains("ERROR"), "{out}");

    let out = c.run("get_splits 't'").await;
    assert_eq!(out, "Total number of splits = 3\ng\np\n");

    let out = c.run("list_regions 't'").await;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 6, "{out}");
    let heads: Vec<&str> = lines[0].split('|').map(str::trim).collect();
    assert_eq!(
        heads,
        [
            "SERVER_NAME",
            "REGION_NAME",
            "START_KEY",
            "END_KEY",
            "SIZE",
            "REQ",
            "LOCALITY",
            ""
        ]
    );
    assert!(lines[1].trim_start().starts_with("---"), "{out}");
    assert_eq!(lines[5], " 3 rows");
    // Each column is right-aligned to its widest entry, every cell followed by ` |`.
    assert!(
        lines
            .iter()
            .all(|l| l.len() == lines[0].len() || l == &" 3 rows"),
        "{out}"
    );
    let cells =
        |i: usize| -> Vec<String> { lines[i].split('|').map(|s| s.trim().to_string()).collect() };
    let (first, middle, last) = (cells(2), cells(3), cells(4));
    assert_eq!((first[2].as_str(), first[3].as_str()), ("", "g"));
    assert_eq!((middle[2].as_str(), middle[3].as_str()), ("g", "p"));
    assert_eq!((last[2].as_str(), last[3].as_str()), ("p", ""));
    assert_eq!(first[0], c.conn_address());
    // Region names: table, start key, signed id, then the 32-digit MD5 and a dot.
    for (row, start) in [(&first, ""), (&middle, "g"), (&last, "p")] {
        let name = &row[1];
        assert!(name.starts_with(&format!("t,{start},")), "{name}");
        let (_, tail) = name.rsplit_once(',').unwrap();
        let (id, encoded) = tail.split_once('.').unwrap();
        id.parse::<i64>().unwrap();
        assert_eq!(encoded.len(), 33, "{name}");
        assert!(encoded.ends_with('.'));
    }
    // Two puts went to the middle region, one to each other.
    assert_eq!(middle[5], "2", "{out}");
    assert_eq!(first[5], "1", "{out}");
    assert_eq!(first[6], "-", "{out}");

    // A projection, and a server filter in HBase's and in Strata's spelling.
    let out = c
        .run("list_regions 't', {}, ['SERVER_NAME', 'start_key']")
        .await;
    let head: Vec<&str> = out
        .lines()
        .next()
        .unwrap()
        .split('|')
        .map(str::trim)
        .collect();
    assert_eq!(head, ["SERVER_NAME", "START_KEY", ""], "{out}");
    let host = c.conn_address();
    let hbase_host = host.replace(':', ",");
    for server in [host.as_str(), hbase_host.as_str()] {
        let out = c.run(&format!("list_regions 't', '{server}'")).await;
        assert!(out.ends_with(" 3 rows\n"), "{out}");
    }
    let out = c
        .run("list_regions 't', {SERVER_NAME => 'elsewhere:1'}")
        .await;
    assert!(out.ends_with(" 0 rows\n"), "{out}");
    let out = c.run("list_regions 't', {LOCALITY_THRESHOLD => 0.5}").await;
    assert!(out.contains("ERROR: ") && out.contains("locality"), "{out}");
    let out = c.run("list_regions 't', {}, ['BOGUS']").await;
    assert!(out.contains("BOGUS is not a valid column"), "{out}");

    // locate_region prints the server and the region as HBase prints a RegionInfo.
    let names = region_names(&c.run("list_regions 't'").await);
    let out = c.run("locate_region 't', 'h'").await;
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("HOST") && lines[0].ends_with("REGION"),
        "{out}"
    );
    let encoded = names[1]
        .rsplit_once('.')
        .unwrap()
        .0
        .rsplit_once('.')
        .unwrap()
        .1;
    assert!(
        lines[1].ends_with(&format!(
            "{{ENCODED => {encoded}, NAME => '{}', STARTKEY => 'g', ENDKEY => 'p'}}",
            names[1]
        )),
        "{out}"
    );
    assert!(
        lines[1].trim_start().starts_with(&c.conn_address()),
        "{out}"
    );
    assert_eq!(lines[2], "1 row(s)");
    let out = c.run("locate_region 'nope', 'h'").await;
    assert!(out.contains("ERROR"), "{out}");

    // merge_region takes HBase's full names...
    let out = c
        .run(&format!("merge_region '{}', '{}'", names[0], names[1]))
        .await;
    assert!(!out.contains("ERROR"), "{out}");
    assert_eq!(
        c.run("get_splits 't'").await,
        "Total number of splits = 2\np\n"
    );
    // ... split takes one, with a key ...
    let names = region_names(&c.run("list_regions 't'").await);
    assert_eq!(names.len(), 2);
    let out = c.run(&format!("split '{}', 'x'", names[1])).await;
    assert!(!out.contains("ERROR"), "{out}");
    assert_eq!(
        c.run("get_splits 't'").await,
        "Total number of splits = 3\np\nx\n"
    );
    // ... and merge_region the encoded names alone.
    let names = region_names(&c.run("list_regions 't'").await);
    let encoded: Vec<&str> = names
        .iter()
        .map(|n| n.rsplit_once('.').unwrap().0.rsplit_once('.').unwrap().1)
        .collect();
    let out = c
        .run(&format!("merge_region '{}', '{}'", encoded[1], encoded[2]))
        .await;
    assert!(!out.contains("ERROR"), "{out}");
    assert_eq!(
        c.run("get_splits 't'").await,
        "Total number of splits = 2\np\n"
    );
    let out = c.run("count 't'").await;
    assert!(out.ends_with("4 row(s)\n"), "{out}");

    // Names of no region change nothing.
    let stale = &names[2];
    let out = c
        .run(&format!("merge_region '{}', '{}'", names[0], stale))
        .await;
    assert!(out.contains("ERROR: Unknown region"), "{out}");
    let out = c
        .run(&format!(
            "merge_region '0123456789abcdef0123456789abcdef', '{stale}'"
        ))
        .await;
    assert!(out.contains("ERROR: Unknown region"), "{out}");
    assert_eq!(
        c.run("get_splits 't'").await,
        "Total number of splits = 2\np\n"
    );

    // The table-reference forms.
    let out = c.run("r = get_table 't'\nr.get_splits\nr.regions").await;
    assert!(out.contains("Total number of splits = 2\np\n"), "{out}");
    assert!(out.ends_with(" 2 rows\n"), "{out}");

    // A disabled table's regions are not listed.
    let out = c.run("disable 't'\nlist_regions 't'").await;
    assert!(out.contains("ERROR"), "{out}");
    c.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn splitormerge_switch_refuses_splits_and_merges_until_turned_back_on() {
    let c = Cluster::start().await;
    let out = c
        .run("create 't', 'f', SPLITS => ['g', 'p']\nput 't', 'q', 'f:q', 'v'")
        .await;
    assert!(!out.contains("ERROR"), "{out}");
    assert_eq!(c.run("splitormerge_enabled 'SPLIT'").await, "true\n");
    assert_eq!(c.run("splitormerge_switch 'SPLIT', false").await, "true\n");
    assert_eq!(c.run("splitormerge_switch 'merge', false").await, "true\n");
    assert_eq!(c.run("splitormerge_enabled 'SPLIT'").await, "false\n");
    assert_eq!(c.run("splitormerge_enabled 'MERGE'").await, "false\n");

    let names = region_names(&c.run("list_regions 't'").await);
    let out = c.run(&format!("split '{}', 'x'", names[2])).await;
    assert!(out.contains("failed due to split switch off"), "{out}");
    let out = c
        .run(&format!("merge_region '{}', '{}'", names[0], names[1]))
        .await;
    assert!(out.contains("failed because merge switch is off"), "{out}");
    assert_eq!(
        c.run("get_splits 't'").await,
        "Total number of splits = 3\ng\np\n"
    );
    let out = c.run("splitormerge_switch 'REGION', true").await;
    assert!(
        out.contains("ERROR") && out.contains("expected 'SPLIT' or 'MERGE'"),
        "{out}"
    );

    // Back on: the same split and merge go through.
    assert_eq!(c.run("splitormerge_switch 'SPLIT', true").await, "false\n");
    assert_eq!(c.run("splitormerge_switch 'MERGE', true").await, "false\n");
    let out = c.run(&format!("split '{}', 'x'", names[2])).await;
    assert!(!out.contains("ERROR"), "{out}");
    let out = c
        .run(&format!("merge_region '{}', '{}'", names[0], names[1]))
        .await;
    assert!(!out.contains("ERROR"), "{out}");
    assert_eq!(
        c.run("get_splits 't'").await,
        "Total number of splits = 3\np\nx\n"
    );
    c.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn regions_move_and_the_balancer_switches_on_a_standalone_server() {
    let c = Cluster::start().await;
    let out = c
        .run("create 't', 'f', SPLITS => ['g']\nput 't', 'a', 'f:q', 'v'")
        .await;
    assert!(!out.contains("ERROR"), "{out}");
    assert_eq!(c.run("balancer_enabled").await, "true\n");
    assert_eq!(
        c.run("balance_switch false").await,
        "Previous balancer state : true\n"
    );
    assert_eq!(c.run("balancer_enabled").await, "false\n");
    // As HBase's shell: false while off, not an error.
    let out = c.run("balancer").await;
    assert!(out.starts_with("false (the balancer is off"), "{out}");
    assert_eq!(
        c.run("balance_switch true").await,
        "Previous balancer state : false\n"
    );
    let out = c.run("balancer").await;
    assert!(out.starts_with("true (balancer ran: 0 moves"), "{out}");

    // A region by HBase's name, by its encoded name, closed and opened again.
    let names = region_names(&c.run("list_regions 't'").await);
    let out = c.run(&format!("move '{}'", names[0])).await;
    assert!(out.contains(" is open on "), "{out}");
    let encoded = names[1].trim_end_matches('.').rsplit_once('.').unwrap().1;
    let out = c.run(&format!("unassign '{encoded}'")).await;
    assert!(out.ends_with(" is closed\n"), "{out}");
    let out = c.run("get 't', 'a'").await;
    assert!(out.contains("value=v"), "{out}");
    let out = c.run(&format!("assign '{encoded}'")).await;
    assert!(out.contains(" is open on "), "{out}");

    // Bad names are refused and change nothing; the only server cannot be drained.
    let out = c.run("move 'nosuch,00000009'").await;
    assert!(out.contains("no region nosuch,00000009"), "{out}");
    let out = c.run(&format!("move '{}', '127.0.0.1:1'", names[0])).await;
    assert!(out.contains("no live region server 127.0.0.1:1"), "{out}");
    let out = c.run("decommission_regionservers '127.0.0.1:1'").await;
    assert!(out.contains("no live region server"), "{out}");
    let live = out
        .split("live servers: ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .unwrap()
        .to_string();
    let out = c.run(&format!("decommission_regionservers '{live}'")).await;
    assert!(
        out.contains("last region server not decommissioned"),
        "{out}"
    );
    let out = c.run(&format!("recommission_regionserver '{live}'")).await;
    assert!(out.contains("is not decommissioned"), "{out}");
    assert_eq!(
        c.run("list_decommissioned_regionservers").await,
        "DECOMMISSIONED REGION SERVERS\n0 row(s)\n"
    );
    assert_eq!(
        c.run("get_splits 't'").await,
        "Total number of splits = 2\ng\n"
    );
    c.stop().await;
}
