//! `strata bench history` against a standalone server without faults: every operation is
//! recorded, every row is read at the end, and those final reads show every acknowledged
//! append and increment (what the fault harness's checker relies on).
#![allow(clippy::unwrap_used)]

mod support;

use std::collections::BTreeMap;
use std::process::Command;

use bytes::Bytes;
use strata_client::Connection;
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use support::start;

/// The raw text of `key`'s value in one JSON line of a history (numbers, strings without
/// their quotes, lists with their brackets).
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let at = line.find(&format!("\"{key}\":"))? + key.len() + 3;
    let rest = &line[at..];
    let end = if rest.starts_with('[') {
        rest.find(']')? + 1
    } else {
        rest.find([',', '}'])?
    };
    Some(rest[..end].trim_matches('"'))
}

fn list(text: &str) -> Vec<u64> {
    text.trim_matches(['[', ']'])
        .split(',')
        .filter(|e| !e.is_empty())
        .map(|e| e.parse().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn every_acknowledged_write_is_in_the_final_reads() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(&dir.path().join("data")).await;
    let addr = server.addr().to_string();
    let conn = Connection::connect(&addr).await.unwrap();
    let table = TableDescriptor::new(TableName::parse("w").unwrap())
        .with_family(FamilyDescriptor::new("f"));
    let splits = ["250", "500", "750"].map(Bytes::from);
    conn.admin().create_table(&table, &splits).await.unwrap();

    let out = dir.path().join("history.jsonl");
    let run = tokio::task::spawn_blocking({
        let (addr, out) = (addr.clone(), out.clone());
        move || {
            Command::new(env!("CARGO_BIN_EXE_strata"))
                .args(["bench", "history", "--server", &addr, "--table", "w"])
                .args(["--seconds", "2", "--rate", "200", "--seed", "7", "--out"])
                .arg(&out)
                .output()
                .unwrap()
        }
    })
    .await
    .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );

    let text = std::fs::read_to_string(&out).unwrap();
    let mut lines = text.lines();
    assert!(lines
        .next()
        .unwrap()
        .starts_with("{\"history\":1,\"seed\":7,"));
    let ops: Vec<&str> = lines.collect();
    assert!(ops.len() > 100, "{} operations in 2 s at 200/s", ops.len());
    assert!(ops.iter().all(|l| field(l, "outcome") == Some("ok")));
    // The final reads: one per row, 4 rows of each of the 4 models, after every other.
    let finals = &ops[ops.len() - 16..];
    assert!(finals.iter().all(|l| field(l, "op") == Some("read")));
    let mut acked_appends: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    let mut acked_adds: BTreeMap<&str, u64> = BTreeMap::new();
    for l in &ops[..ops.len() - 16] {
        let row = field(l, "row").unwrap();
        match field(l, "op").unwrap() {
            "append" => acked_appends
                .entry(row)
                .or_default()
                .push(field(l, "arg").unwrap().parse().unwrap()),
            "add" => *acked_adds.entry(row).or_default() += 1,
            _ => {}
        }
    }
    assert!(!acked_appends.is_empty() && !acked_adds.is_empty());
    for l in finals {
        let row = field(l, "row").unwrap();
        match field(l, "model").unwrap() {
            // Without faults every acknowledged append is there, and nothing else.
            "list" => {
                let mut seen = list(field(l, "list").unwrap());
                let mut acked = acked_appends.remove(row).unwrap_or_default();
                seen.sort_unstable();
                acked.sort_unstable();
                assert_eq!(seen, acked, "row {row}");
            }
            "counter" => assert_eq!(
                field(l, "value").unwrap().parse::<u64>().unwrap(),
                acked_adds.remove(row).unwrap_or(0),
                "row {row}"
            ),
            _ => {}
        }
    }
}
