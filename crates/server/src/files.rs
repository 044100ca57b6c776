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

/// The files of one region as Strata's protocol lists them (`Admin.ListFiles`).
pub fn to_pb(region: RegionFiles) -> impl Iterator<Item = strata_proto::pb::StoreFileInfo> {
    let info = region.info;
    region
        .files
        .into_iter()
        .map(move |f| store_file_to_pb(&info, f))
}

fn store_file_to_pb(region: &RegionInfo, f: FileListing) -> strata_proto::pb::StoreFileInfo {
    let (min_timestamp, max_timestamp) = f.time_range.unwrap_or_default();
    let (window_start, window_end) = f.window.unwrap_or_default();
    strata_proto::pb::StoreFileInfo {
        region_id: region.region_id,
        region_start: region.start_row.clone(),
        region_end: region.end_row.clone(),
        family: f.family,
        name: f.name,
        size: f.size,
        cells: f.cells,
        has_time_range: f.time_range.is_some(),
        min_timestamp,
        max_timestamp,
        max_seq_id: f.max_seq_id,
        major: f.major,
        reference: f.reference,
        tier: f.tier,
        path: f.path,
        has_window: f.window.is_some(),
        window_start,
        window_end,
    }
}
