//! The store files of a table's open regions, for the admin service's `ListFiles`.

use strata_storage::manifest::RegionInfo;
use strata_storage::region::FileListing;

use crate::host::RegionServer;

/// One open region's store files.
#[derive(Clone, Debug)]
pub struct RegionFiles {
    /// The region.
    pub info: RegionInfo,
    /// Its store files, by family.
    pub files: Vec<FileListing>,
}

impl RegionServer {
    /// The store files of every region of `table` open here, regions by start row; empty
    /// when none is open (an unknown or disabled table).
    pub fn table_files(&self, table: &str) -> Vec<RegionFiles> {
        let mut regions: Vec<RegionFiles> = self
            .hosted_regions()
            .into_iter()
            .filter(|h| h.region.info().table == table)
            .map(|h| {
                let mut files = h.region.file_listing();
                // Stable: each family keeps the engine's order.
                files.sort_by(|a, b| a.family.cmp(&b.family));
                RegionFiles {
                    info: h.region.info().clone(),
                    files,
                }
            })
            .collect();
        regions.sort_by(|a, b| a.info.start_row.cmp(&b.info.start_row));
        regions
    }
}
