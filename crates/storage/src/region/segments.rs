//! The memtable figures of a region's stores, for `/metrics` and the web UI.

use super::Region;
use crate::memtable::Stats;

/// One store's memtable figures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemtableListing {
    /// The family.
    pub family: String,
    /// The memtable's figures: cells, bytes, index bytes, segments.
    pub stats: Stats,
}

impl Region {
    /// Each store's memtable figures, by family.
    pub fn memtable_listing(&self) -> Vec<MemtableListing> {
        self.inner
            .stores
            .values()
            .map(|store| MemtableListing {
                family: store.family.name.clone(),
                stats: store.memtable.stats(),
            })
            .collect()
    }
}
