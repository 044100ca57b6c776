//! `files` in `strata shell`: a table's store files, one line each, through the real binary
//! against a standalone server in this process.
#![allow(clippy::unwrap_used)]

mod support;

use std::path::Path;
use std::process::Command;

use support::start;

/// Runs `script` with `strata shell` off the runtime's threads (so the server keeps
/// serving); stdout without the `Took` lines, and stderr.
async fn shell(addr: String, script: &Path) -> (String, String) {
    let script = script.to_path_buf();
    tokio::task::spawn_blocking(move || {
        let out = Command::new(env!("CARGO_BIN_EXE_strata"))
            .args(["shell", "--server", &addr])
            .arg(&script)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| !l.starts_with("Took "))
            .map(|l| format!("{l}\n"))
            .collect();
        (stdout, String::from_utf8_lossy(&out.stderr).into_owned())
    })
    .await
    .unwrap()
}

const SCRIPT: &str = "\
create 't', 'f', {NAME => 'd', COMPACTION_POLICY => 'DATE_TIERED'}, SPLITS => ['m']
files 't'
put 't', 'a', 'f:q', 'v1', 1000
put 't', 'b', 'f:q', 'v2', 1000
put 't', 'z', 'f:q', 'v3', 1000
put 't', 'a', 'd:q', 'v4'
flush 't'
files 't'
list_files 't'
files 'nope'
";

#[tokio::test(flavor = "multi_thread")]
async fn files_prints_one_line_per_store_file() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(&dir.path().join("data")).await;
    let script = dir.path().join("files.txt");
    std::fs::write(&script, SCRIPT).unwrap();
    let (stdout, stderr) = shell(server.address(), &script).await;
    server.stop().unwrap();

    assert!(
        stderr.contains("ERROR: table nope does not exist"),
        "{stderr}"
    );
    let lines: Vec<&str> = stdout.lines().collect();
    let header = "REGION FAMILY FILE SIZE CELLS WINDOW TIER PATH";
    let squeeze = |l: &str| l.split_whitespace().collect::<Vec<_>>().join(" ");
    // Before the flush: a header and no files.
    assert_eq!(squeeze(lines[1]), header, "{stdout}");
    assert_eq!(lines[2], "0 file(s)", "{stdout}");
    // After it: three files, regions by start row, then by family; twice (the alias).
    let listing = &lines[3..8];
    assert_eq!(&lines[8..13], listing, "{stdout}");
    assert_eq!(lines.len(), 13, "{stdout}");
    assert_eq!(squeeze(listing[0]), header);
    assert_eq!(listing[4], "3 file(s)");
    // Columns line up under their headings (SIZE is two words: "367 B").
    let head = starts(listing[0]);
    for line in &listing[1..4] {
        let at = starts(line);
        for (field, heading) in [(2, 2), (5, 4), (6, 5), (7, 6), (8, 7)] {
            assert_eq!(at[field], head[heading], "{heading}: {line}");
        }
    }
    let rows: Vec<Vec<&str>> = listing[1..4]
        .iter()
        .map(|l| l.split_whitespace().collect())
        .collect();
    let region_family_cells: Vec<(&str, &str, &str)> =
        rows.iter().map(|r| (r[0], r[1], r[5])).collect();
    assert_eq!(
        region_family_cells,
        [("''", "d", "1"), ("''", "f", "2"), ("'m'", "f", "1")]
    );
    for r in &rows {
        // REGION FAMILY FILE SIZE(n unit) CELLS WINDOW TIER PATH
        assert_eq!(r.len(), 9, "{r:?}");
        assert_eq!(r[7], "HDD", "{r:?}");
        assert!(Path::new(r[8]).ends_with(r[2]), "{r:?}");
        assert!(Path::new(r[8]).is_file(), "{r:?}");
        assert!(r[8].contains(&*dir.path().to_string_lossy()), "{r:?}");
        assert!(r[4].ends_with('B'), "{r:?}");
    }
    // The date-tiered family's file has a window (UTC, ISO 8601); the other family's none.
    let (start, end) = rows[0][6].split_once('/').unwrap();
    assert!(
        start.ends_with('Z') && end.ends_with('Z') && start < end,
        "{rows:?}"
    );
    assert_eq!(start.len(), "1970-01-01T00:00:00.000Z".len(), "{rows:?}");
    assert_eq!(rows[1][6], "-");
    assert_eq!(rows[2][6], "-");
}

/// Where each space-separated word of `line` starts.
fn starts(line: &str) -> Vec<usize> {
    let bytes = line.as_bytes();
    (0..bytes.len())
        .filter(|&i| bytes[i] != b' ' && (i == 0 || bytes[i - 1] == b' '))
        .collect()
}
