//! Region-server settings and their defaults.

use std::path::PathBuf;

use strata_storage::wal::WalOptions;

/// What a region server needs to start.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Root of the server's data: `wal/` and `tables/<namespace>/<table>/<region>/`.
    pub data_dir: PathBuf,
    /// The address clients reach this server at (`host:port`), as the catalog records it.
    pub advertised_address: String,
    /// Bytes all memtables may hold together before writers wait for flushes.
    pub memtable_budget_bytes: u64,
    /// Block cache capacity in bytes (0 disables it).
    pub block_cache_bytes: u64,
    /// Threads for flushes and compactions.
    pub background_threads: usize,
    /// Largest value accepted in a put or append (HBase's `hbase.server.keyvalue.maxsize`).
    pub max_value_bytes: usize,
    /// Most rows per scan response when the scan sets no caching.
    pub scan_default_rows: u32,
    /// Most cell bytes per scan response.
    pub scan_max_result_bytes: u64,
    /// Write-ahead log settings.
    pub wal: WalOptions,
}

impl ServerConfig {
    /// Defaults for a server on `data_dir` reachable at `advertised_address`.
    pub fn new(data_dir: impl Into<PathBuf>, advertised_address: impl Into<String>) -> Self {
        ServerConfig {
            data_dir: data_dir.into(),
            advertised_address: advertised_address.into(),
            memtable_budget_bytes: 512 << 20,
            block_cache_bytes: 256 << 20,
            background_threads: 2,
            max_value_bytes: 10 << 20,
            scan_default_rows: 1000,
            scan_max_result_bytes: 4 << 20,
            wal: WalOptions::default(),
        }
    }

    /// The WAL directory.
    pub fn wal_dir(&self) -> PathBuf {
        self.data_dir.join("wal")
    }

    /// The directory holding a table's region directories.
    pub fn table_dir(&self, table: &strata_model::schema::TableName) -> PathBuf {
        self.data_dir
            .join("tables")
            .join(table.namespace())
            .join(table.qualifier())
    }
}
