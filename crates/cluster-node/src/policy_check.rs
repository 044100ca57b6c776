//! A precondition of creating or altering a table on a root whose store places files by storage
//! policy (HDFS): every policy the table's families ask for (`STORAGE_POLICY`, and the windows'
//! policies of date-tiered compaction placed by age) must be settable, or the request is
//! refused before anything changes, with the storage's reason (for HDFS without WebHDFS, which
//! names `--hdfs-http`). Without the check the table would be created and its regions would
//! fail to open again and again.
//!
//! The check sets each policy on a probe directory under the root (`.policy-probe`), the same
//! call a region's open makes, so what it accepts an open accepts. HDFS's default policy (HOT)
//! needs no call and is not probed.

use std::path::Path;

use strata_model::schema::{CompactionPolicy, StoragePolicy, TableDescriptor};
use strata_proto::pb::ErrorCode;
use strata_server::RegionServer;
use tonic::Status;

/// The probe directory's name under the root.
pub const PROBE_DIR: &str = ".policy-probe";

/// The storage policies `table`'s families ask for, other than HOT, each once.
pub fn wanted_policies(table: &TableDescriptor) -> Vec<StoragePolicy> {
    let mut out = Vec::new();
    for family in &table.families {
        let mut add = |p: StoragePolicy| {
            if p != StoragePolicy::Hot && !out.contains(&p) {
                out.push(p);
            }
        };
        add(family.storage_policy);
        if let CompactionPolicy::DateTiered(dt) = &family.compaction_policy {
            if dt.storage_policy_enable {
                add(dt.hot_window_storage_policy);
                add(dt.warm_window_storage_policy);
                add(dt.cold_window_storage_policy);
            }
        }
    }
    out
}

/// Refuses `table` (`INVALID_ARGUMENT`, with the storage's reason) when `server`'s root cannot
/// take one of its policies. Nothing to check in a process without a region server (a master),
/// or on stores that place files by volume.
pub fn check_policies(
    server: Option<&RegionServer>,
    table: &TableDescriptor,
) -> Result<(), Status> {
    let Some(server) = server else {
        return Ok(());
    };
    let config = server.config();
    let files = &config.storage.files;
    if !files.places_by_policy() {
        return Ok(());
    }
    let policies = wanted_policies(table);
    if policies.is_empty() {
        return Ok(());
    }
    let probe = config.data_dir.join(PROBE_DIR);
    probe_each(files.as_ref(), &probe, &policies).map_err(|e| {
        strata_proto::status(
            ErrorCode::InvalidArgument,
            format!("table {}: {e}", table.name),
        )
    })
}

fn probe_each(
    files: &dyn strata_storage::vfs::FileStore,
    probe: &Path,
    policies: &[StoragePolicy],
) -> std::io::Result<()> {
    files.create_dir_all(probe)?;
    for &policy in policies {
        files.set_storage_policy(probe, policy)?;
    }
    Ok(())
}
