//! Date-tiered vs exploring compaction on a simulated time series (issue 5's benchmark).
//!
//! Several simulated days on a manual clock: `rows` rows a minute (row = sensor and time,
//! ~100-byte values), 2% of them out of order (up to an hour late), a flush every 30
//! minutes and a minor compaction round after each flush; periodic majors off for both
//! policies. Same exploring settings for both (DATE_TIERED uses them per window, with HBase's
//! defaults otherwise: 6 h base window, 4 per tier, incoming minimum 6), with the minimum
//! compact size set to one flushed file, as HBase's default (the flush size) does. Two more
//! DATE_TIERED runs set a max tier age, then a max store file age, of 2 days, and one keeps
//! HBase's settings but a blocking file count of 50 (HBase's advice for date-tiered stores;
//! every other run has 1000, so no store is ever near it). Prints
//! bytes flushed, bytes rewritten by compactions, write amplification, files at the end,
//! files per window (exploring's files placed in the default date-tiered windows),
//! files opened and time for a "last hour", a "one day last week" and a "four days to
//! yesterday" scan, and where the
//! rewriting happened: per window width (the window holding a compaction's newest cell when
//! it ran; "incoming" apart), compactions, bytes written, and how many of the input bytes
//! had been written by an earlier compaction (rewritten again) rather than by a flush.
//! `DTCP_TRACE=1` prints every compaction.
//!
//! `cargo run --release -p strata-storage --example dtcp_timeseries -- [days] [rows/min]`
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use strata_model::ops::{Put, Scan, TimeRange};
use strata_model::schema::{
    CompactionPolicy, DateTiered, Durability, FamilyDescriptor, TableDescriptor, TableName,
};
use strata_sstable::{Reader, ReaderOptions};
use strata_storage::clock::{Clock, ManualClock};
use strata_storage::compaction::date_tiered::incoming_window;
use strata_storage::compaction::exploring::MajorRequest;
use strata_storage::manifest::RegionInfo;
use strata_storage::region::{region_dir_name, CompactionOptions};
use strata_storage::wal::{Wal, WalOptions};
use strata_storage::{Region, RegionConfig};

const MIN: i64 = 60_000;
const H: i64 = 60 * MIN;
const DAY: i64 = 24 * H;

struct Outcome {
    flushed: u64,
    rewritten: u64,
    compactions: u64,
    files: usize,
    windows: String,
    scans: Vec<(&'static str, u64, f64, usize)>,
    /// Per (window width in hours, incoming): compactions, bytes written, input bytes that
    /// an earlier compaction wrote.
    rewrites: BTreeMap<(i64, bool), (u64, u64, u64)>,
}

fn open(dir: &std::path::Path, policy: CompactionPolicy, clock: Arc<ManualClock>) -> Region {
    let mut f = FamilyDescriptor::new("f");
    f.versions = 1;
    f.compaction_policy = policy;
    let mut t = TableDescriptor::new(TableName::parse("t").unwrap()).with_family(f);
    t.durability = Durability::SkipWal;
    let wal = Arc::new(Wal::open(dir.join("wal"), WalOptions::default()).unwrap());
    Region::open(RegionConfig {
        dir: dir.join("t").join(region_dir_name(1)),
        table: t,
        info: RegionInfo {
            table: "t".into(),
            region_id: 1,
            start_row: Bytes::new(),
            end_row: Bytes::new(),
        },
        wal,
        cache: None,
        clock,
        background: None,
        budget: None,
        volumes: None,
    })
    .unwrap()
}

fn file_bytes(r: &Region) -> u64 {
    r.store_stats().iter().map(|s| s.file_bytes).sum()
}

fn run(policy: CompactionPolicy, days: i64, rows: u64, blocking: usize) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    let start = 20_000 * DAY;
    let clock = Arc::new(ManualClock::new(start));
    let r = open(dir.path(), policy, clock.clone());
    let mut o = CompactionOptions::default();
    o.exploring.blocking_file_count = blocking;
    o.exploring.major.period_ms = 0;
    r.set_compaction_options(o).unwrap();
    let mut rng: u64 = 0x2545_F491_4F6C_DD1D;
    let mut out = Outcome {
        flushed: 0,
        rewritten: 0,
        compactions: 0,
        files: 0,
        windows: String::new(),
        scans: vec![],
        rewrites: BTreeMap::new(),
    };
    let dt = match policy {
        CompactionPolicy::DateTiered(dt) => dt,
        CompactionPolicy::Exploring => DateTiered::default(),
    };
    let store = dir.path().join("t").join(region_dir_name(1)).join("f");
    let trace = std::env::var_os("DTCP_TRACE").is_some();
    // Files written by compactions, with their sizes.
    let mut compacted: BTreeMap<String, u64> = BTreeMap::new();
    let value = Bytes::from(vec![b'x'; 100]);
    for minute in 0..days * 24 * 60 {
        let now = clock.now_ms();
        for s in 0..rows {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let ts = if rng % 100 < 2 {
                now - (rng >> 8) as i64 % H
            } else {
                now
            };
            let row = format!("s{s:04}-{ts:015}");
            let put = Put::new(Bytes::from(row)).add_at(
                Bytes::from_static(b"f"),
                Bytes::from_static(b"v"),
                ts,
                value.clone(),
            );
            r.put(&put).unwrap();
        }
        clock.advance(MIN);
        if (minute + 1) % 30 == 0 {
            let before = file_bytes(&r);
            r.flush().unwrap();
            let flushed = file_bytes(&r) - before;
            out.flushed += flushed;
            if out.compactions == 0 && o.exploring.min_compact_size == 128 << 20 {
                o.exploring.min_compact_size = flushed.max(1);
                r.set_compaction_options(o).unwrap();
            }
            while let Some(rep) = r.compact_store(b"f", MajorRequest::None).unwrap() {
                out.rewritten += rep.bytes_out;
                out.compactions += 1;
                let again: u64 = rep.inputs.iter().filter_map(|n| compacted.remove(n)).sum();
                let infos: Vec<(String, i64, i64, u64)> = rep
                    .outputs
                    .iter()
                    .map(|n| {
                        let p = store.join(n);
                        let size = std::fs::metadata(&p).unwrap().len();
                        let info = Reader::open(&p, ReaderOptions::default())
                            .unwrap()
                            .info()
                            .clone();
                        (n.clone(), info.min_timestamp, info.max_timestamp, size)
                    })
                    .collect();
                let newest = infos.iter().map(|i| i.2).max().unwrap_or(i64::MIN);
                let now = clock.now_ms();
                let incoming = incoming_window(&dt, now);
                let w = incoming.earlier_until(newest);
                let key = (w.width() / H, w == incoming);
                let e = out.rewrites.entry(key).or_default();
                e.0 += 1;
                e.1 += rep.bytes_out;
                e.2 += again;
                if trace {
                    println!(
                        "  day {:5.2} window {}h{} inputs {} ({} KiB, {} KiB from compactions) -> {} KiB",
                        (now - start) as f64 / DAY as f64,
                        key.0,
                        if key.1 { " incoming" } else { "" },
                        rep.inputs.len(),
                        rep.bytes_in / 1024,
                        again / 1024,
                        rep.bytes_out / 1024
                    );
                }
                compacted.extend(infos.into_iter().map(|(n, _, _, size)| (n, size)));
            }
        }
    }
    out.files = r.store_stats().iter().map(|s| s.files).sum();
    let now = clock.now_ms();
    out.windows = files_per_window(&store, &dt, now);
    for (name, from, to) in [
        ("last hour", now - H, now + 1),
        ("one day last week", now - 7 * DAY, now - 6 * DAY),
        ("four days to yesterday", now - 5 * DAY, now - DAY),
    ] {
        let read = r.counters().files_read.load(Ordering::Relaxed);
        let t = Instant::now();
        let scan = Scan {
            time_range: TimeRange::new(from, to).unwrap(),
            ..Scan::new()
        };
        let mut sc = r.scan(&scan).unwrap();
        let mut n = 0;
        while sc.next_row().unwrap().is_some() {
            n += 1;
        }
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        let opened = r.counters().files_read.load(Ordering::Relaxed) - read;
        out.scans.push((name, opened, ms, n));
    }
    out
}

/// Files per window of `dt`'s windows at `now`, newest first, as `width:count`, a file
/// placed by its newest cell; `+k` counts files whose oldest cell lies in an earlier window
/// (the late cells), as HBase's major trigger would see them.
fn files_per_window(store: &std::path::Path, dt: &DateTiered, now: i64) -> String {
    let mut files: Vec<(i64, i64)> = std::fs::read_dir(store)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "sst"))
        .map(|p| {
            let info = Reader::open(&p, ReaderOptions::default())
                .unwrap()
                .info()
                .clone();
            (info.min_timestamp, info.max_timestamp)
        })
        .collect();
    files.sort_by_key(|f| std::cmp::Reverse(f.1));
    let mut parts: Vec<(i64, i64, usize, usize)> = vec![];
    for (min, max) in files {
        let mut w = incoming_window(dt, now);
        while w.compare_to_timestamp(max) == std::cmp::Ordering::Greater {
            w = w.next_earlier();
        }
        let spans = usize::from(w.compare_to_timestamp(min) != std::cmp::Ordering::Equal);
        match parts.last_mut() {
            Some(p) if p.0 == w.start() => {
                p.2 += 1;
                p.3 += spans;
            }
            _ => parts.push((w.start(), w.width(), 1, spans)),
        }
    }
    parts
        .iter()
        .map(|(_, width, n, spans)| match spans {
            0 => format!("{}h:{n}", width / H),
            k => format!("{}h:{n}(+{k})", width / H),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let days: i64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(8);
    let rows: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(20);
    println!("{days} simulated days, {rows} rows/min, flush every 30 min, 2% out of order");
    let tier_age = DateTiered {
        max_tier_age_ms: 2 * DAY,
        ..DateTiered::default()
    };
    let file_age = DateTiered {
        max_storefile_age_ms: 2 * DAY,
        ..DateTiered::default()
    };
    let defaults = CompactionPolicy::DateTiered(DateTiered::default());
    for (name, policy, blocking) in [
        ("EXPLORING", CompactionPolicy::Exploring, 1000),
        ("DATE_TIERED", defaults, 1000),
        ("DT blocking50", defaults, 50),
        ("DT tier<=2d", CompactionPolicy::DateTiered(tier_age), 1000),
        ("DT file<=2d", CompactionPolicy::DateTiered(file_age), 1000),
    ] {
        let o = run(policy, days, rows, blocking);
        println!(
            "{name:<13} flushed {:>6.1} MiB  rewritten {:>7.1} MiB  WA {:.2}  compactions {:>4}  files {:>3}",
            o.flushed as f64 / 1048576.0,
            o.rewritten as f64 / 1048576.0,
            (o.flushed + o.rewritten) as f64 / o.flushed.max(1) as f64,
            o.compactions,
            o.files
        );
        println!(
            "{:<13}  files per window, newest first (+k: with late cells from an older window): {}",
            "", o.windows
        );
        let flushed = o.flushed.max(1) as f64;
        let per_window: Vec<String> = o
            .rewrites
            .iter()
            .rev()
            .map(|((hours, incoming), (n, bytes, again))| {
                format!(
                    "{hours}h{}: {n} compactions, {:.2} written ({:.2} of it rewritten again)",
                    if *incoming { " incoming" } else { "" },
                    *bytes as f64 / flushed,
                    *again as f64 / flushed
                )
            })
            .collect();
        println!(
            "{:<13}  rewritten per flushed byte, by window: {}",
            "",
            per_window.join("; ")
        );
        for (scan, opened, ms, n) in o.scans {
            println!(
                "{:<13}  scan {scan:<22} files opened {opened:>3}  {ms:>7.2} ms  rows {n}",
                ""
            );
        }
    }
}
