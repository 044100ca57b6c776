//! `strata bench client-scan`: one client scanning seed 003's table through a running server.
//!
//! The table is seed 003's Phoenix table (4 cells a row: `V1`–`V3` 4-byte floats and the
//! empty `_0`, keys 4-byte big-endian integers; `crate::phoenix`), loaded through
//! buffered mutators, flushed and major-compacted so the scan reads store files from the
//! block cache. Each pass is one full-table scan by one client, reading each row's cells in
//! place (`Scanner::next_scan_row`); the report gives cells/s per pass and, with
//! `--server-pid`, the server's CPU per cell.

use std::time::Instant;

use crate::phoenix::{self, Rows, CELLS_PER_ROW};
use crate::table::Table as Report;
use strata_client::{BufferedMutatorOptions, ClientOptions, Connection, Protocol};
use strata_model::ops::{Put, RowMutations, Scan};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};

use super::seed002::cpu_seconds;

/// Arguments of `bench client-scan`.
#[derive(clap::Args)]
pub struct Args {
    /// The server.
    #[arg(long, default_value = "127.0.0.1:16000")]
    server: String,
    /// The protocol of data requests: grpc, or frames.
    #[arg(long, default_value = "frames")]
    protocol: Protocol,
    /// Rows of seed 003's table (4 cells each).
    #[arg(long, default_value_t = 1_000_000)]
    rows: u32,
    /// Timed full-table scans.
    #[arg(long, default_value_t = 3)]
    passes: u32,
    /// Rows per scan page (the scan's caching; 0 keeps the client's default).
    #[arg(long, default_value_t = 0)]
    caching: u32,
    /// Turn the client's scan prefetch off (`ClientOptions::scan_prefetch`): each page is
    /// requested only once the previous one is consumed.
    #[arg(long)]
    no_prefetch: bool,
    /// Scan the table as it is if it already exists (a table left by an earlier run with
    /// --keep), instead of creating and loading it.
    #[arg(long)]
    reuse: bool,
    /// Leave the table in place after the run (for --reuse).
    #[arg(long)]
    keep: bool,
    /// The server's process id, to report its CPU time (utime + stime from /proc).
    #[arg(long)]
    server_pid: Option<u32>,
}

const TABLE: &str = "seed003_scan";

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())
}

/// Creates the table (dropping an older one) and loads `rows` rows, then flushes and
/// major-compacts it.
async fn load(conn: &Connection, rows: u32) -> Result<(), String> {
    let admin = conn.admin();
    if admin.table_exists(TABLE).await.map_err(|e| e.to_string())? {
        let _ = admin.disable_table(TABLE).await;
        admin.delete_table(TABLE).await.map_err(|e| e.to_string())?;
    }
    let name = TableName::parse(TABLE).map_err(|e| e.to_string())?;
    let family = String::from_utf8_lossy(phoenix::FAMILY).into_owned();
    let table = TableDescriptor::new(name).with_family(FamilyDescriptor::new(&family));
    admin
        .create_table(&table, &[])
        .await
        .map_err(|e| e.to_string())?;
    let start = Instant::now();
    let mut mutator = conn
        .table(TABLE)
        .map_err(|e| e.to_string())?
        .buffered_mutator(BufferedMutatorOptions::default());
    for cells in Rows::new(rows, 3) {
        let row = cells[0].row.clone();
        let mut put = Put::new(row.clone());
        for c in cells {
            put = put.add_at(c.family, c.qualifier, c.timestamp, c.value);
        }
        let m = RowMutations::new(row)
            .with(put)
            .map_err(|e| e.to_string())?;
        mutator.mutate(m).await.map_err(|e| e.to_string())?;
    }
    mutator.close().await.map_err(|e| e.to_string())?;
    admin.flush(TABLE).await.map_err(|e| e.to_string())?;
    admin
        .compact(TABLE, None, true)
        .await
        .map_err(|e| e.to_string())?;
    eprintln!(
        "client-scan: loaded {rows} rows in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Runs `client-scan` and prints a markdown table.
///
/// # Errors
/// An unreachable server, a failed load or scan, or a scan that did not return every cell.
pub fn run(args: &Args) -> Result<(), String> {
    let options = ClientOptions {
        protocol: args.protocol,
        scan_prefetch: !args.no_prefetch,
        ..ClientOptions::default()
    };
    let rt = runtime()?;
    let mut report = Report::new(&[
        "pass",
        "rows",
        "cells",
        "s",
        "cells/s",
        "MB/s (values)",
        "server CPU s",
        "server µs/cell",
    ]);
    rt.block_on(async {
        let conn = Connection::connect_with(&args.server, options)
            .await
            .map_err(|e| format!("cannot reach {}: {e}", args.server))?;
        let exists = conn
            .admin()
            .table_exists(TABLE)
            .await
            .map_err(|e| e.to_string())?;
        if !(args.reuse && exists) {
            load(&conn, args.rows).await?;
        }
        let table = conn.table(TABLE).map_err(|e| e.to_string())?;
        let mut scan = Scan::new();
        if args.caching > 0 {
            scan.caching = Some(args.caching);
        }
        // One unreported pass warms the block cache.
        for pass in 0..=args.passes {
            let cpu0 = cpu_seconds(args.server_pid);
            let start = Instant::now();
            let (mut rows, mut cells, mut bytes) = (0u64, 0u64, 0u64);
            let mut scanner = table.scan(&scan);
            while let Some(row) = scanner.next_scan_row().await.map_err(|e| e.to_string())? {
                rows += 1;
                for cell in row.cells() {
                    cells += 1;
                    bytes += cell.value.len() as u64;
                }
            }
            let secs = start.elapsed().as_secs_f64();
            let cpu = cpu0.zip(cpu_seconds(args.server_pid)).map(|(a, b)| b - a);
            if rows != u64::from(args.rows) && !args.reuse {
                return Err(format!("scanned {rows} rows of {}", args.rows));
            }
            if cells != rows * CELLS_PER_ROW {
                return Err(format!("scanned {cells} cells in {rows} rows"));
            }
            if pass == 0 {
                continue;
            }
            report.row(vec![
                pass.to_string(),
                rows.to_string(),
                cells.to_string(),
                format!("{secs:.2}"),
                format!("{:.0}", cells as f64 / secs),
                format!("{:.1}", bytes as f64 / secs / 1e6),
                cpu.map_or("-".into(), |c| format!("{c:.2}")),
                cpu.map_or("-".into(), |c| {
                    format!("{:.3}", c * 1e6 / cells.max(1) as f64)
                }),
            ]);
        }
        if !args.keep {
            let admin = conn.admin();
            let _ = admin.disable_table(TABLE).await;
            admin.delete_table(TABLE).await.map_err(|e| e.to_string())?;
        }
        Ok::<_, String>(())
    })?;
    println!(
        "\n## Seed 003's table scanned by one client ({} rows × {CELLS_PER_ROW} cells, {:?}, prefetch {})\n\n{}",
        args.rows,
        args.protocol,
        if args.no_prefetch { "off" } else { "on" },
        report.render()
    );
    Ok(())
}
