//! `strata bulkload prepare|load` (RFC 0027): HBase's `ImportTsv` with a bulk output, then
//! `LoadIncrementalHFiles`, for Strata's store files.

use std::io::BufReader;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::bulkload_prepare::{now_ms, parse_columns, Prepare};

/// `strata bulkload …`.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Writes store files for --table from delimited text: sorted, cut at the table's region
    /// boundaries, one directory per family, with each family's settings.
    Prepare {
        /// The table the files are for (its families and regions are read from the server).
        #[arg(long)]
        table: String,
        /// The input file (`-` for standard input).
        #[arg(long)]
        input: String,
        /// The input's columns, as ImportTsv names them: HBASE_ROW_KEY, HBASE_TS_KEY (optional)
        /// and family:qualifier, e.g. `HBASE_ROW_KEY,f:a,f:b`.
        #[arg(long)]
        columns: String,
        /// The field separator: one byte, or `tab` (the default) or `comma`.
        #[arg(long, default_value = "tab")]
        separator: String,
        /// Timestamp of cells without an HBASE_TS_KEY column (ms since the epoch; default now).
        #[arg(long)]
        timestamp: Option<i64>,
        /// Memory for sorting, in MiB; larger inputs are sorted in runs on disk and merged.
        #[arg(long, default_value_t = 256)]
        sort_mib: usize,
        /// Count and skip lines that do not parse instead of stopping at the first.
        #[arg(long)]
        skip_bad_lines: bool,
        /// The output directory (must be empty or absent).
        #[arg(long)]
        out: PathBuf,
        /// A server of the cluster (`host:port`).
        #[arg(long, default_value = "127.0.0.1:16000")]
        server: String,
        #[command(flatten)]
        tls: strata_tls::args::ConnectArgs,
    },
    /// Adds the store files under DIR (one directory per family) to --table; each region's
    /// share becomes visible at once. Files crossing region boundaries are cut first.
    Load {
        /// The table.
        #[arg(long)]
        table: String,
        /// The directory of store files (as `prepare` writes it).
        dir: PathBuf,
        /// A server of the cluster (`host:port`).
        #[arg(long, default_value = "127.0.0.1:16000")]
        server: String,
        #[command(flatten)]
        tls: strata_tls::args::ConnectArgs,
    },
}

fn separator(s: &str) -> Result<u8, String> {
    match s {
        "tab" | "\\t" => Ok(b'\t'),
        "comma" => Ok(b','),
        s if s.len() == 1 => Ok(s.as_bytes()[0]),
        _ => Err(format!("--separator {s:?}: one byte, `tab` or `comma`")),
    }
}

async fn connect(
    server: &str,
    tls: &strata_tls::args::ConnectArgs,
) -> Result<strata_client::Connection, String> {
    let options = strata_client::ClientOptions {
        tls: tls.load()?,
        retries: 3,
        retry_max: Duration::from_millis(500),
        ..Default::default()
    };
    strata_client::Connection::connect_with(server, options)
        .await
        .map_err(|e| format!("{server}: {e}"))
}

/// Runs `strata bulkload …`.
///
/// # Errors
/// Bad arguments or input, the table is missing, or the cluster refused the load.
pub fn run(command: &Command) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    match command {
        Command::Prepare {
            table,
            input,
            columns,
            separator: sep,
            timestamp,
            sort_mib,
            skip_bad_lines,
            out,
            server,
            tls,
        } => {
            let info = runtime.block_on(async {
                let conn = connect(server, tls).await?;
                conn.admin()
                    .describe_table(table)
                    .await
                    .map_err(|e| format!("table {table}: {e}"))
            })?;
            let prepare = Prepare {
                columns: parse_columns(columns, &info.descriptor)?,
                boundaries: info
                    .regions
                    .iter()
                    .skip(1)
                    .map(|r| r.start_row.clone())
                    .collect(),
                table: info.descriptor,
                separator: separator(sep)?,
                timestamp: timestamp.unwrap_or_else(now_ms),
                sort_bytes: sort_mib.max(&1) << 20,
                skip_bad_lines: *skip_bad_lines,
                out: out.clone(),
            };
            let started = Instant::now();
            let done = if input == "-" {
                prepare.run(std::io::stdin().lock())?
            } else {
                let file = std::fs::File::open(input).map_err(|e| format!("{input}: {e}"))?;
                prepare.run(BufReader::with_capacity(1 << 20, file))?
            };
            let secs = started.elapsed().as_secs_f64().max(1e-3);
            outln!(
                "prepared {} cells from {} lines ({} skipped) in {} files under {} ({} sorted \
                 runs, {secs:.2} s, {:.0} cells/s)",
                done.cells,
                done.lines,
                done.bad_lines,
                done.files,
                out.display(),
                done.runs,
                done.cells as f64 / secs
            );
            outln!(
                "next: strata bulkload load --table {table} {} --server {server}",
                out.display()
            );
        }
        Command::Load {
            table,
            dir,
            server,
            tls,
        } => {
            let files = strata_client::bulk_files_in(dir).map_err(|e| e.to_string())?;
            let scratch = dir.join(format!("_cut-{}", std::process::id()));
            let started = Instant::now();
            let report = runtime.block_on(async {
                let conn = connect(server, tls).await?;
                conn.bulk_load(table, &files, scratch)
                    .await
                    .map_err(|e| format!("bulk load into {table}: {e}"))
            })?;
            let secs = started.elapsed().as_secs_f64().max(1e-3);
            outln!(
                "loaded {} cells ({:.1} MiB) in {} files into {} regions of {table} in {secs:.2} s \
                 ({:.0} cells/s); {} files cut at region boundaries, {} regions sent again",
                report.cells,
                report.bytes as f64 / f64::from(1 << 20),
                report.files,
                report.regions,
                report.cells as f64 / secs,
                report.cut,
                report.retried
            );
        }
    }
    Ok(())
}
