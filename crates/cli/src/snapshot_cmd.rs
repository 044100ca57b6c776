//! `strata snapshot export|import`: a snapshot copied to another root (a local directory,
//! `hdfs://` or `s3://`) and registered by the cluster on that root (RFC 0025, "Export"), as
//! HBase's `ExportSnapshot` tool does. A nightly backup is an export to a bucket; a restore
//! into a fresh cluster is an import there, then `clone_snapshot`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use strata_storage::vfs::FileStore;

use crate::s3_args::S3Args;

/// `strata snapshot …`.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Copies snapshot --snapshot with every file it reads from the root --from to the root
    /// --to, in parallel and verified by checksums; an interrupted export resumes when run
    /// again. The snapshot must exist on the source for the whole copy.
    Export {
        /// The snapshot.
        #[arg(long)]
        snapshot: String,
        /// The source cluster's root (its `--root` or data directory).
        #[arg(long)]
        from: String,
        /// The target root: a directory, `hdfs://host:port/path` or `s3://bucket/prefix`.
        #[arg(long)]
        to: String,
        /// Files copied at once.
        #[arg(long, default_value_t = 4)]
        threads: usize,
        /// WebHDFS address of an `hdfs://` root's NameNode, when not the default.
        #[arg(long)]
        hdfs_http: Option<String>,
        #[command(flatten)]
        s3: S3Args,
    },
    /// Registers a snapshot exported to this cluster's root, so `clone_snapshot` can make a
    /// table of it.
    Import {
        /// The snapshot.
        #[arg(long)]
        snapshot: String,
        /// A server of the cluster (`host:port`).
        #[arg(long, default_value = "127.0.0.1:16000")]
        server: String,
        #[command(flatten)]
        tls: strata_tls::args::ConnectArgs,
    },
}

/// A root's file store and path: `s3://` without a WAL, anything else as a root opens.
fn open(
    url: &str,
    hdfs_http: Option<&str>,
    s3: &S3Args,
) -> Result<(Arc<dyn FileStore>, PathBuf), String> {
    let mut options = s3.root_options(hdfs_http.map(str::to_owned), None);
    options.s3_cache_bytes = 0; // copied once: no page cache
    if url.starts_with("s3://") {
        let (s3, path) =
            strata_shared_storage::open_cold_root(url, &options).map_err(|e| e.to_string())?;
        let files: Arc<dyn FileStore> = s3;
        return Ok((files, path));
    }
    let root = strata_shared_storage::open_root_with(url, &options).map_err(|e| e.to_string())?;
    Ok((root.storage.files, root.path))
}

/// Runs `strata snapshot …`.
///
/// # Errors
/// A root cannot be opened, the snapshot is missing, a copy failed, or the cluster refused
/// the import.
pub fn run(command: &Command) -> Result<(), String> {
    match command {
        Command::Export {
            snapshot,
            from,
            to,
            threads,
            hdfs_http,
            s3,
        } => {
            let (src, src_root) = open(from, hdfs_http.as_deref(), s3)?;
            let (dst, dst_root) = open(to, hdfs_http.as_deref(), s3)?;
            let started = Instant::now();
            let done = strata_cluster_node::snapshot::export::export(
                src.as_ref(),
                &src_root,
                dst.as_ref(),
                &dst_root,
                snapshot,
                *threads,
            )?;
            let secs = started.elapsed().as_secs_f64().max(1e-3);
            outln!(
                "exported snapshot {snapshot} to {to}: {} files, {} copied, {} already there, \
                 {:.1} MiB in {secs:.2} s ({:.1} MiB/s)",
                done.files,
                done.copied,
                done.kept,
                done.bytes as f64 / f64::from(1 << 20),
                done.bytes as f64 / f64::from(1 << 20) / secs
            );
            outln!("next, on the cluster of {to}: strata snapshot import --snapshot {snapshot}");
        }
        Command::Import {
            snapshot,
            server,
            tls,
        } => {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?;
            let options = strata_client::ClientOptions {
                tls: tls.load()?,
                retries: 3,
                retry_max: Duration::from_millis(500),
                ..Default::default()
            };
            let imported = runtime.block_on(async {
                let conn = strata_client::Connection::connect_with(server, options)
                    .await
                    .map_err(|e| format!("{server}: {e}"))?;
                conn.admin()
                    .import_snapshot(snapshot)
                    .await
                    .map_err(|e| e.to_string())
            })?;
            outln!(
                "imported snapshot {} of table {}; clone it with: clone_snapshot '{}', 'TABLE'",
                imported.name,
                imported.table,
                imported.name
            );
        }
    }
    Ok(())
}
