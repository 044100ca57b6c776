//! How long the embedded store takes to open: empty, and holding the records of N regions
//! written as the master writes them (transactions of up to 128 puts).
//!
//! `cargo run --release -p strata-embedded-kv --example open_time -- [regions] [dir]`

use std::path::PathBuf;
use std::time::Instant;

use strata_cluster::kv::{Kv, Op, Txn, MAX_TXN_OPS};
use strata_embedded_kv::{EmbeddedKv, Options};
use strata_storage::vfs::Storage;

fn main() {
    let mut args = std::env::args().skip(1);
    let regions: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let tmp = tempfile::tempdir().expect("temporary directory");
    let base: PathBuf = args
        .next()
        .map_or_else(|| tmp.path().to_path_buf(), PathBuf::from);
    let time_open = |dir: &PathBuf| {
        let t = Instant::now();
        let (kv, rec) = EmbeddedKv::open(Storage::local(), dir, Options::default()).expect("open");
        (t.elapsed(), kv, rec)
    };
    let empty = base.join("empty");
    let (t, _, _) = time_open(&empty);
    println!("open, new directory: {:.1} ms", t.as_secs_f64() * 1e3);
    let (t, _, _) = time_open(&empty);
    println!("open, empty store: {:.1} ms", t.as_secs_f64() * 1e3);
    let full = base.join("full");
    let (_, kv, _) = time_open(&full);
    let t = Instant::now();
    let keys: Vec<String> = (0..regions)
        .map(|i| format!("/strata/region/t,{i:08}"))
        .collect();
    for chunk in keys.chunks(MAX_TXN_OPS) {
        let success = chunk
            .iter()
            .enumerate()
            .map(|(i, k)| {
                // About the size of a region record: state, server, epoch, keys.
                let v = format!(
                    "open host-{:03}:16020:1733300000000 {i} - {k:0>40} {k:0>40}",
                    i % 100
                );
                Op::put(k.clone(), v)
            })
            .collect();
        kv.txn(Txn {
            compares: vec![],
            success,
        })
        .expect("write");
    }
    println!(
        "{regions} region records written in {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    drop(kv);
    let (t, kv, rec) = time_open(&full);
    println!(
        "open, {regions} regions (replayed {} records): {:.1} ms",
        rec.replayed,
        t.as_secs_f64() * 1e3
    );
    drop(kv);
    let (t, _, _) = time_open(&full);
    println!(
        "open again, {regions} regions (from the snapshot): {:.1} ms",
        t.as_secs_f64() * 1e3
    );
}
