//! create, describe, alter, list, enable/disable, drop, exists, truncate.

use super::{squeeze, Cluster};

#[tokio::test(flavor = "multi_thread")]
async fn describe_shows_settings_and_regions() {
    let c = Cluster::start().await;
    let out = c
        .run(
            "create 't', {NAME => 'f', VERSIONS => 5, COMPRESSION => 'LZ4', \
             DATA_BLOCK_ENCODING => 'FAST_DIFF'}, {SPLITS => ['g', 'p'], DURABILITY => 'ASYNC_WAL'}\n\
             describe 't'",
        )
        .await;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "Created table t");
    assert_eq!(lines[1], "Table t is ENABLED");
    assert!(lines[2].starts_with("t, {TABLE_ATTRIBUTES => {DURABILITY => 'ASYNC_WAL', "));
    assert_eq!(lines[3], "COLUMN FAMILIES DESCRIPTION");
    assert!(
        lines[4].starts_with("{NAME => 'f', VERSIONS => '5', "),
        "{out}"
    );
    assert!(lines[4].contains("DATA_BLOCK_ENCODING => 'FAST_DIFF', COMPRESSION => 'LZ4'"));
    assert_eq!(lines[5..8], ["", "1 row(s)", "REGIONS"]);
    assert!(lines[8].contains("STARTKEY => '', ENDKEY => 'g'"), "{out}");
    assert!(lines[9].contains("STARTKEY => 'g', ENDKEY => 'p'"));
    assert!(lines[10].contains("STARTKEY => 'p', ENDKEY => ''"));
    assert_eq!(lines[11], "3 region(s)");
    c.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn custom_values_are_stored_and_described() {
    let c = Cluster::start().await;
    let out = c
        .run(
            "create 't', {NAME => 'f', METADATA => {'fk' => 'fv'}, \
             CONFIGURATION => {'hbase.x' => '1'}}, {METADATA => {'owner' => 'team-a'}}\n\
             alter 't', METADATA => {'k2' => 'v2'}\n\
             describe 't'",
        )
        .await;
    let table = out
        .lines()
        .find(|l| l.starts_with("t, {TABLE_ATTRIBUTES"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        table.ends_with(", METADATA => {'k2' => 'v2', 'owner' => 'team-a'}}}"),
        "{table}"
    );
    let family = out
        .lines()
        .find(|l| l.starts_with("{NAME => 'f'"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        family.ends_with(", METADATA => {'fk' => 'fv'}, CONFIGURATION => {'hbase.x' => '1'}}"),
        "{family}"
    );
    c.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn alter_adds_a_family_and_changes_versions() {
    let c = Cluster::start().await;
    let out = c
        .run(
            "create 't', 'f'\n\
             alter 't', {NAME => 'f', VERSIONS => 4}, {NAME => 'g', TTL => 3600}\n\
             put 't', 'r', 'g:q', 'v', 1000\n\
             desc 't'\n\
             alter 't', 'delete' => 'g'\n\
             describe 't'",
        )
        .await;
    assert!(out.starts_with(
        "Created table t\nUpdating all regions with the new schema...\nDone.\nTable t is ENABLED\n"
    ));
    let families: Vec<&str> = out.lines().filter(|l| l.starts_with("{NAME")).collect();
    assert_eq!(families.len(), 3, "{out}");
    assert!(families[0].starts_with("{NAME => 'f', VERSIONS => '4', "));
    assert!(
        families[1].starts_with(
            "{NAME => 'g', VERSIONS => '1', MIN_VERSIONS => '0', TTL => '3600 SECONDS (1 HOUR)'"
        ),
        "{}",
        families[1]
    );
    assert!(families[2].starts_with("{NAME => 'f', VERSIONS => '4', "));
    assert!(
        families[0].contains(", TTL => 'FOREVER', "),
        "{}",
        families[0]
    );
    c.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn table_lifecycle() {
    let c = Cluster::start().await;
    let out = c
        .run(
            "create 'abc1', 'f'\n\
             create 'abc2', 'f'\n\
             create 'ns_x', 'f'\n\
             list\n\
             list 'abc.*'\n\
             list 'ns_[a-z]|zzz'\n\
             exists 'abc1'\n\
             exists 'nope'\n\
             is_enabled 'abc1'\n\
             disable 'abc1'\n\
             is_enabled 'abc1'\n\
             is_disabled 'abc1'\n\
             enable 'abc1'\n\
             is_disabled 'abc1'\n\
             disable 'abc2'\n\
             drop 'abc2'\n\
             exists 'abc2'\n\
             list",
        )
        .await;
    assert_eq!(
        out,
        "Created table abc1\nCreated table abc2\nCreated table ns_x\n\
         TABLE\nabc1\nabc2\nns_x\n3 row(s)\n\
         TABLE\nabc1\nabc2\n2 row(s)\n\
         TABLE\nns_x\n1 row(s)\n\
         Table abc1 does exist\n\
         Table nope does not exist\n\
         true\nfalse\ntrue\nfalse\n\
         Table abc2 does not exist\n\
         TABLE\nabc1\nns_x\n2 row(s)\n"
    );
    c.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn truncate_empties_and_optionally_keeps_regions() {
    let c = Cluster::start().await;
    let out = c
        .run(
            "create 't', 'f', SPLITS => ['m']\n\
             put 't', 'a', 'f:q', 'v', 1\n\
             put 't', 'z', 'f:q', 'v', 1\n\
             truncate_preserve 't'\n\
             count 't'\n\
             put 't', 'a', 'f:q', 'v', 1\n\
             disable 't'\n\
             truncate 't'\n\
             scan 't'\n\
             describe 't'",
        )
        .await;
    assert!(
        out.starts_with(
            "Created table t\n\
             Truncating 't' table (preserving its regions) (it may take a while):\n\
             Disabling table...\nTruncating table...\nDone.\n\
             0 row(s)\n\
             Truncating 't' table (it may take a while):\nTruncating table...\nDone.\n\
             ROW                            COLUMN+CELL\n0 row(s)\n"
        ),
        "{out}"
    );
    assert!(out.contains("\nTable t is ENABLED\n"), "{out}");
    assert!(squeeze(&out).ends_with("\n1 region(s)"), "{out}");
    c.stop().await;
}

/// `alter_async` answers once the reopening is submitted; `alter_status` counts the regions
/// serving the new schema until all do; the change then shows in `describe`.
#[tokio::test(flavor = "multi_thread")]
async fn alter_async_then_alter_status_until_done() {
    let c = Cluster::start().await;
    let out = c
        .run("create 't', 'f', SPLITS => ['g', 'p']\nalter_async 't', {NAME => 'f', VERSIONS => 5}")
        .await;
    assert_eq!(
        out,
        "Created table t\nThe regions reopen with the new schema; alter_status 't' follows them.\n"
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let out = c.run("alter_status 't'").await;
        let (counts, rest) = out.split_once(" regions updated.\n").unwrap();
        let (updated, regions) = counts.split_once('/').unwrap();
        assert_eq!(regions, "3", "{out}");
        assert!(updated.parse::<u32>().unwrap() <= 3, "{out}");
        if rest == "Done.\n" {
            assert_eq!(updated, "3", "{out}");
            break;
        }
        assert_eq!(rest, "", "{out}");
        assert!(std::time::Instant::now() < deadline, "{out}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let out = c.run("describe 't'\nalter_status 'nope'").await;
    assert!(out.contains("VERSIONS => '5'"), "{out}");
    assert!(out.contains("ERROR: ") && out.contains("nope"), "{out}");
    c.stop().await;
}
