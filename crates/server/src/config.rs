//! Region-server settings and their defaults.
//!
//! # Memory
//! A server's memory budget is shared by three consumers, each sized as a fraction of it
//! ([`ServerConfig::with_memory_budget`]; [`ServerConfig::new`] assumes 1 GiB, the command
//! line's `standalone` and `regionserver` take a quarter of the machine's memory, see
//! [`crate::machine_memory`]):
//! - memtables, 1/2: write absorption; too little means small flushes and more compaction;
//! - block cache, 1/4: store-file blocks, serving gets and scans of warm data (the OS page
//!   cache holds the files too, so a block cache is most useful in a decoded or encoded form
//!   the OS cannot hold);
//! - row cache, 1/8: finished results of gets of hot rows, so a repeated get costs a hash
//!   lookup instead of a merge of memtable and files; only for families with `ROW_CACHE`.
//!
//! The remaining 1/8 is headroom for indexes, blooms and requests in flight.
//!
//! With the memory tuner on ([`ServerConfig::memory_tuner`], `--memory-tuner`), the three
//! sizes are where the split starts: the tuner moves memory between them by load, within
//! each part's bounds, keeping their sum (`crate::memory_tuner`, RFC 0031).
//!
//! # Volumes
//! `data_dir` is one volume (of `data_dir_type`); `volumes` adds others. Each family's
//! `STORAGE_POLICY` (or its date-tiered windows' policies) and `wal_storage_policy` pick the
//! volume files go to; a volume keeps the data directory's layout below its path.

use std::path::PathBuf;

use strata_model::schema::StoragePolicy;
use strata_storage::tiers::{StorageType, Volume};
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
    /// Row cache capacity in bytes (0 disables it); only families with `ROW_CACHE` use it.
    pub row_cache_bytes: u64,
    /// How long an idle framed connection polls for its next request before its task parks
    /// (`strata_proto::read_soon`), when it serves one sequential caller and no other
    /// connection is busy (`strata_proto::solo`); zero never polls. Default 200 µs: a lone
    /// client's calls on a virtual machine skip a wake-up each way; under load, or with a
    /// thread waiting for a CPU, nothing polls (docs/rfcs/0013-request-path.md, Decisions
    /// 12 and 25).
    pub poll_before_park: std::time::Duration,
    /// Threads for flushes and compactions.
    pub background_threads: usize,
    /// How many steps below the server's CPU priority (a nice increment, 0–19) disk and
    /// in-memory compactions run (`strata_storage::background`; 0: the same priority).
    pub compaction_nice: i32,
    /// Largest value accepted in a put or append (HBase's `hbase.server.keyvalue.maxsize`).
    pub max_value_bytes: usize,
    /// Most rows per scan response when the scan sets no caching.
    pub scan_default_rows: u32,
    /// Most cell bytes per scan response.
    pub scan_max_result_bytes: u64,
    /// Write-ahead log settings.
    pub wal: WalOptions,
    /// The storage type of the device `data_dir` is on (`HDD` unless declared).
    pub data_dir_type: StorageType,
    /// Further volumes, at most one per storage type, for store files and the WAL that
    /// storage policies place there (RFC 0010).
    pub volumes: Vec<Volume>,
    /// The ARCHIVE tier on a store of its own (`--cold-root s3://bucket/prefix`): the volume
    /// (its path in that store's namespace) and the store. Only the tier mover writes there;
    /// any root (local, HDFS, S3), and no local ARCHIVE volume.
    pub cold_volume: Option<(Volume, std::sync::Arc<dyn strata_storage::vfs::FileStore>)>,
    /// The WAL's storage policy (HBase's `hbase.wal.storage.policy`); default `HOT`, the data
    /// directory when it is the `HDD` volume.
    pub wal_storage_policy: StoragePolicy,
    /// Where the data lives (`--root`): local files by default, or a shared store (HDFS) whose
    /// namespace `data_dir` is a path in.
    pub storage: strata_storage::vfs::Storage,
    /// Requests slower than this are logged and listed as slow operations (HBase's
    /// `hbase.ipc.warn.response.time`); default 1 s.
    pub slow_op_threshold: std::time::Duration,
    /// Width of a column of the key-access heatmap; default 10 s (60 columns: 10 minutes).
    pub heatmap_slot: std::time::Duration,
    /// How often every open region is checked for store files whose tier changed with age
    /// (date-tiered windows past their warm or cold age), so idle regions move them too
    /// (`strata_storage::tier_check`); a check touches no store when nothing is due. Default
    /// five minutes; zero turns the check off (moves then wait for a compaction check).
    pub tier_check_every: std::time::Duration,
    /// When the server flushes regions on its own: edits older than an hour, or a WAL past
    /// 32 segment files (`crate::flush_check`).
    pub flush_check: crate::flush_check::FlushCheck,
    /// The compaction throughput limit, which may change at run time; every region server
    /// built from this config (and its clones) follows it.
    pub compaction_throughput: std::sync::Arc<crate::compaction_throughput::CompactionThroughput>,
    /// A directory below `wal/` for this server's WAL (cluster mode: one per region server,
    /// `wal/<server>/`, so another server can fence and split it); `None` uses `wal/` itself.
    pub wal_subdir: Option<String>,
    /// Discarded store files move to their volume's `archive/` instead of being deleted, for
    /// snapshots to keep (RFC 0025); a cluster's region servers set it, and the master's
    /// cleaner deletes what nothing references.
    pub archive_discarded: bool,
    /// When a region splits by load (RFC 0028); the region server's upkeep decides.
    pub load_split: crate::load_split::LoadSplitConfig,
    /// The memory tuner (RFC 0031): off by default, the three sizes above stay as set.
    pub memory_tuner: crate::memory_tuner::MemoryTunerConfig,
}

impl ServerConfig {
    /// The memory budget the defaults are derived from.
    pub const DEFAULT_MEMORY_BUDGET: u64 = 1 << 30;

    /// Defaults for a server on `data_dir` reachable at `advertised_address`, with the
    /// default memory budget.
    pub fn new(data_dir: impl Into<PathBuf>, advertised_address: impl Into<String>) -> Self {
        let budget = Self::DEFAULT_MEMORY_BUDGET;
        ServerConfig {
            data_dir: data_dir.into(),
            advertised_address: advertised_address.into(),
            memtable_budget_bytes: budget / 2,
            block_cache_bytes: budget / 4,
            row_cache_bytes: budget / 8,
            poll_before_park: strata_proto::read_soon::DEFAULT_BUDGET,
            background_threads: 2,
            compaction_nice: strata_storage::background::DEFAULT_COMPACTION_NICE,
            max_value_bytes: 10 << 20,
            scan_default_rows: 1000,
            scan_max_result_bytes: 4 << 20,
            wal: WalOptions::default(),
            data_dir_type: StorageType::Hdd,
            volumes: Vec::new(),
            cold_volume: None,
            wal_storage_policy: StoragePolicy::Hot,
            storage: strata_storage::vfs::Storage::local(),
            slow_op_threshold: std::time::Duration::from_secs(1),
            heatmap_slot: std::time::Duration::from_secs(10),
            tier_check_every: strata_storage::tier_check::TierChecker::DEFAULT_EVERY,
            flush_check: crate::flush_check::FlushCheck::default(),
            compaction_throughput: std::sync::Arc::default(),
            wal_subdir: None,
            archive_discarded: false,
            load_split: crate::load_split::LoadSplitConfig::default(),
            memory_tuner: crate::memory_tuner::MemoryTunerConfig::default(),
        }
    }

    /// Sizes memtables (1/2), block cache (1/4) and row cache (1/8) from a total memory
    /// budget in bytes (see the module documentation).
    #[must_use]
    pub fn with_memory_budget(mut self, bytes: u64) -> Self {
        self.memtable_budget_bytes = bytes / 2;
        self.block_cache_bytes = bytes / 4;
        self.row_cache_bytes = bytes / 8;
        self
    }

    /// The WAL directory's path relative to a volume's root.
    pub const WAL_DIR: &'static str = "wal";

    /// The directory holding a table's region directories.
    pub fn table_dir(&self, table: &strata_model::schema::TableName) -> PathBuf {
        self.data_dir
            .join("tables")
            .join(table.namespace())
            .join(table.qualifier())
    }
}
