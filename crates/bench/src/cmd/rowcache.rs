//! `strata bench row-cache`: seed 002's random-read test against a region server in this
//! process (one region, no master) — 1 KB values under 20-digit keys `0..rows` (every query hits), many concurrent
//! readers, zipfian and uniform — with the row cache off and on in the same run, for several
//! block-cache sizes and cached forms. Reads go straight to the region server (no RPC), so
//! the figures show the caches, not the network stack.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::engine::latency::Recorder;
use crate::engine::read::timed_gets;
use crate::engine::zipf::Zipf;
use crate::engine::{key, text};
use crate::table::Table;
use bytes::Bytes;
use clap::Args as ClapArgs;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_model::ops::{Get, Put, RowMutations};
use strata_model::schema::{
    BloomType, CachedForm, Compression, Durability, FamilyDescriptor, TableDescriptor, TableName,
};
use strata_server::{RegionServer, ServerConfig};
use strata_storage::manifest::RegionInfo;

/// Arguments of `bench row-cache`.
#[derive(ClapArgs)]
pub struct Args {
    /// Data directory (emptied first and removed afterwards).
    #[arg(long, default_value = "data/bench-rowcache")]
    dir: PathBuf,
    /// Rows of 1 KB values.
    #[arg(long, default_value_t = 200_000)]
    rows: u64,
    /// Concurrent readers.
    #[arg(long, default_value_t = 16)]
    threads: usize,
    /// Seconds per measurement (after a warm-up of half as long).
    #[arg(long, default_value_t = 5)]
    seconds: u64,
    /// Zipf exponent.
    #[arg(long, default_value_t = 0.8)]
    zipf: f64,
    /// Row cache size in MiB when on.
    #[arg(long, default_value_t = 64)]
    row_cache_mib: u64,
    /// Block caches to run, comma-separated `MiB:FORM` (FORM: DECODED, ENCODED, COMPRESSED).
    #[arg(long, value_delimiter = ',', default_values_t = vec![
        "256:ENCODED".to_string(), "256:DECODED".to_string(),
        "256:COMPRESSED".to_string(), "32:ENCODED".to_string()])]
    block_caches: Vec<String>,
}

const TABLE: &str = "seed";

fn descriptor(form: CachedForm, row_cache: bool) -> Result<TableDescriptor, String> {
    let mut family = FamilyDescriptor::new("f")
        .with_block_cache_form(form)
        .with_row_cache(row_cache);
    family.compression = Compression::Snappy;
    family.bloom_filter = BloomType::Row;
    Ok(
        TableDescriptor::new(TableName::parse(TABLE).map_err(|e| e.to_string())?)
            .with_family(family)
            .with_durability(Durability::AsyncWal),
    )
}

/// The region server on `a.dir` with a block cache of `block_mib`, no region open yet.
fn open(a: &Args, block_mib: u64) -> Result<Arc<RegionServer>, String> {
    let mut c = ServerConfig::new(a.dir.clone(), String::new());
    c.block_cache_bytes = block_mib << 20;
    c.row_cache_bytes = a.row_cache_mib << 20;
    RegionServer::open(c).map_err(|e| e.to_string())
}

/// The table's one region.
fn region() -> RegionInfo {
    RegionInfo {
        table: TABLE.to_owned(),
        region_id: 1,
        start_row: Bytes::new(),
        end_row: Bytes::new(),
    }
}

fn parse_block_cache(s: &str) -> Result<(u64, CachedForm), String> {
    let bad = || format!("bad block cache '{s}': use MiB:FORM, e.g. 256:ENCODED");
    let (mib, form) = s.split_once(':').ok_or_else(bad)?;
    Ok((
        mib.parse().map_err(|_| bad())?,
        CachedForm::parse(form).ok_or_else(bad)?,
    ))
}

/// Loads the table, then measures every block cache × row cache × distribution; prints a
/// table.
///
/// # Errors
/// A message for the user.
pub fn run(a: &Args) -> Result<(), String> {
    let specs = a
        .block_caches
        .iter()
        .map(|s| parse_block_cache(s))
        .collect::<Result<Vec<_>, _>>()?;
    let _ = std::fs::remove_dir_all(&a.dir);
    load(a)?;
    let zipf = Arc::new(Zipf::new(a.rows as usize, a.zipf));
    let mut t = Table::new(&[
        "block cache",
        "row cache",
        "distribution",
        "queries/s",
        "avg µs",
        "p50 µs",
        "p99 µs",
        "row hits",
    ]);
    for (mib, form) in specs {
        let server = open(a, mib)?;
        for row_cache in [false, true] {
            // A schema change reopens the region, as an alter does.
            if row_cache {
                server.close_region(1, true).map_err(|e| e.to_string())?;
            }
            server
                .open_region(&descriptor(form, row_cache)?, &region())
                .map_err(|e| e.to_string())?;
            let warm = Duration::from_secs(a.seconds.div_ceil(2));
            for dist in [Some(zipf.clone()), None] {
                measure(&server, a, dist.clone(), warm)?;
                let before = server.row_cache_stats();
                let rec = measure(&server, a, dist.clone(), Duration::from_secs(a.seconds))?;
                let after = server.row_cache_stats();
                let (hits, misses) = (after.hits - before.hits, after.misses - before.misses);
                let (p50, p99, _, _) = rec.percentiles();
                let n = rec.len() as f64;
                let secs = a.seconds as f64;
                t.row(vec![
                    format!("{mib} MiB {form}"),
                    if row_cache {
                        format!("{} MiB", a.row_cache_mib)
                    } else {
                        "off".into()
                    },
                    match dist {
                        Some(_) => format!("zipfian {}", a.zipf),
                        None => "uniform".into(),
                    },
                    format!("{:.0}", n / secs),
                    format!("{:.1}", secs * 1e6 * a.threads as f64 / n.max(1.0)),
                    p50.to_string(),
                    p99.to_string(),
                    format!(
                        "{:.0}%",
                        100.0 * hits as f64 / (hits + misses).max(1) as f64
                    ),
                ]);
            }
        }
        server.shutdown().map_err(|e| e.to_string())?;
    }
    println!(
        "\n## Random reads (seed 002) through the region server: {} rows, {} readers, {} s each\n\n{}",
        a.rows,
        a.threads,
        a.seconds,
        t.render()
    );
    let _ = std::fs::remove_dir_all(&a.dir);
    Ok(())
}

/// Writes the rows, flushes and major-compacts them into one store file.
fn load(a: &Args) -> Result<(), String> {
    let server = open(a, 32)?;
    server
        .open_region(&descriptor(CachedForm::Encoded, false)?, &region())
        .map_err(|e| e.to_string())?;
    let buffer = text::buffer(8 << 20, 20_120_207);
    let mut rng = SmallRng::seed_from_u64(5);
    let t0 = Instant::now();
    for i in 0..a.rows {
        let k = Bytes::copy_from_slice(&key(i));
        let off = rng.gen_range(0..buffer.len() - 1000);
        let put = Put::new(k.clone()).add("f", "c", buffer[off..off + 1000].to_vec());
        let rm = RowMutations::new(k.clone())
            .with(put)
            .map_err(|e| e.to_string())?;
        let hosted = server.region_for(TABLE, &k).ok_or("no region for a row")?;
        hosted.mutate_row(&rm).map_err(|e| e.to_string())?;
    }
    server.flush_region(1).map_err(|e| e.to_string())?;
    server
        .compact_region(1, None, true)
        .map_err(|e| e.to_string())?;
    println!(
        "loaded {} rows in {:.1} s",
        a.rows,
        t0.elapsed().as_secs_f64()
    );
    server.shutdown().map_err(|e| e.to_string())
}

fn measure(
    server: &Arc<RegionServer>,
    a: &Args,
    zipf: Option<Arc<Zipf>>,
    time: Duration,
) -> Result<Recorder, String> {
    let host = server.clone();
    timed_gets(a.threads, a.rows, zipf, time, move |i| {
        let get = Get::new(Bytes::copy_from_slice(&key(i)));
        let hosted = host.region_for(TABLE, &get.row).ok_or("no region")?;
        hosted
            .get(&get)
            .map(|cells| cells.len())
            .map_err(|e| e.to_string())
    })
}
