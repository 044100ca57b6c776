//! Seed 002 (Hypertable vs HBase) at engine level: random writes of 10 B to 10 KB values and
//! zipfian / uniform random reads of 1 KB values, against an embedded region.
//!
//! Keys are 20-digit zero-padded ASCII integers; values are snippets of a deterministic,
//! text-like buffer (compressible like prose); the family is SNAPPY with a ROW bloom filter,
//! as in the seed and the HBase peer runs.

pub mod latency;
pub mod read;
pub mod text;
pub mod write;
pub mod zipf;

use std::path::Path;
use std::sync::Arc;

use strata_model::schema::{
    BloomType, Compression, Durability, FamilyDescriptor, TableDescriptor, TableName,
};
use strata_storage::background::{Background, MemoryBudget};
use strata_storage::clock::SystemClock;
use strata_storage::manifest::RegionInfo;
use strata_storage::wal::{Wal, WalOptions};
use strata_storage::{Region, RegionConfig};

/// An embedded region in `dir` with its own WAL, flush pool and budget.
pub struct Engine {
    /// The region.
    pub region: Region,
    /// The flush pool (shut down on drop of the engine by `close`).
    pub background: Arc<Background>,
    /// The WAL.
    pub wal: Arc<Wal>,
}

impl Engine {
    /// Opens a one-family (`f`, SNAPPY, ROW bloom) region in `dir`.
    ///
    /// # Errors
    /// Opening the WAL or region failed.
    pub fn open(dir: &Path, durability: Durability) -> Result<Engine, String> {
        let mut family = FamilyDescriptor::new("f");
        family.compression = Compression::Snappy;
        family.bloom_filter = BloomType::Row;
        let name = TableName::parse("seed").map_err(|e| e.to_string())?;
        let table = TableDescriptor::new(name)
            .with_family(family)
            .with_durability(durability);
        let wal =
            Arc::new(Wal::open(dir.join("wal"), WalOptions::default()).map_err(|e| e.to_string())?);
        let background = Background::new(1);
        let region = Region::open(RegionConfig {
            dir: dir
                .join("seed")
                .join(strata_storage::region::region_dir_name(1)),
            table,
            info: RegionInfo {
                table: "seed".into(),
                region_id: 1,
                start_row: bytes::Bytes::new(),
                end_row: bytes::Bytes::new(),
            },
            wal: wal.clone(),
            cache: Some(Arc::new(strata_sstable::BlockCache::new(2 << 30))),
            clock: Arc::new(SystemClock),
            background: Some(background.clone()),
            budget: Some(MemoryBudget::new(1 << 30)),
            volumes: None,
        })
        .map_err(|e| e.to_string())?;
        Ok(Engine {
            region,
            background,
            wal,
        })
    }

    /// Flushes, closes and stops the pool.
    ///
    /// # Errors
    /// The final flush failed.
    pub fn close(self) -> Result<(), String> {
        let r = self.region.close().map_err(|e| e.to_string());
        self.background.shutdown();
        r
    }
}

/// The 20-digit key of `i`.
pub fn key(i: u64) -> [u8; 20] {
    let mut k = [b'0'; 20];
    let mut v = i;
    for slot in k.iter_mut().rev() {
        *slot = b'0' + (v % 10) as u8;
        v /= 10;
    }
    k
}
