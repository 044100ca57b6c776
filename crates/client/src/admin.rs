//! [`Admin`]: table DDL and maintenance through the master.
//!
//! Reads (list, describe, regions, files, status) are retried on `UNAVAILABLE` like data
//! reads; changes are sent once, since a lost answer may hide an applied change. Changes that
//! move region boundaries drop the table's cached locations.

use std::future::Future;

use bytes::Bytes;
use strata_model::schema::TableDescriptor;
use strata_proto::convert;
use strata_proto::pb::admin_client::AdminClient;
use strata_proto::pb::{self, ErrorCode};
use tonic::transport::Channel;
use tonic::{Response, Status};

use crate::connection::Connection;
use crate::error::Error;
use crate::locate::RegionLocation;
use crate::retry::{Idempotence, Retry};

/// A table's schema, state and regions.
#[derive(Clone, Debug, PartialEq)]
pub struct TableInfo {
    /// The schema.
    pub descriptor: TableDescriptor,
    /// False once disabled.
    pub enabled: bool,
    /// Every region, by start row.
    pub regions: Vec<RegionLocation>,
}

impl TryFrom<pb::TableInfo> for TableInfo {
    type Error = Error;

    fn try_from(info: pb::TableInfo) -> Result<TableInfo, Error> {
        let schema = info
            .schema
            .ok_or_else(|| Error::bad_response("table info without a schema"))?;
        Ok(TableInfo {
            descriptor: convert::table_from_pb(schema).map_err(Error::bad_response)?,
            enabled: info.state == pb::TableState::Enabled as i32,
            regions: info.regions.into_iter().map(Into::into).collect(),
        })
    }
}

/// The compactions running in a table's regions now: HBase's `CompactionState`, as
/// `Admin.getCompactionState` answers it. `Display` prints HBase's names (`NONE`, `MINOR`,
/// `MAJOR`, `MAJOR_AND_MINOR`), as HBase's shell's `compaction_state` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompactionState {
    /// No compaction is running.
    None,
    /// Minor compactions only.
    Minor,
    /// Major compactions only.
    Major,
    /// Both: a major compaction and a minor one (in one region, or in two).
    MajorAndMinor,
}

impl CompactionState {
    /// The state of `minor` minor and `major` major compactions running.
    pub fn of_counts(minor: u64, major: u64) -> CompactionState {
        match (minor, major) {
            (0, 0) => CompactionState::None,
            (_, 0) => CompactionState::Minor,
            (0, _) => CompactionState::Major,
            _ => CompactionState::MajorAndMinor,
        }
    }

    /// The state of a table whose regions are `regions` (with their load, as
    /// [`Admin::regions_with_load`] gives them), combined as HBase combines its regions'
    /// states: a major anywhere and a minor anywhere is `MajorAndMinor`.
    pub fn of_regions(regions: &[RegionLocation]) -> CompactionState {
        let sum = |count: fn(&RegionLocation) -> u32| -> u64 {
            regions.iter().map(|r| u64::from(count(r))).sum()
        };
        CompactionState::of_counts(sum(|r| r.minor_compactions), sum(|r| r.major_compactions))
    }

    /// HBase's name for it.
    pub fn as_str(self) -> &'static str {
        match self {
            CompactionState::None => "NONE",
            CompactionState::Minor => "MINOR",
            CompactionState::Major => "MAJOR",
            CompactionState::MajorAndMinor => "MAJOR_AND_MINOR",
        }
    }
}

impl std::fmt::Display for CompactionState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One store file of a table, as the shell's `files` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreFileInfo {
    /// The region holding it.
    pub region_id: u64,
    /// The region's first row (empty for the table's first region).
    pub region_start: Bytes,
    /// The region's end row, exclusive (empty for the table's last region).
    pub region_end: Bytes,
    /// The column family.
    pub family: String,
    /// The file's name in the region's manifest.
    pub name: String,
    /// Bytes on disk.
    pub size: u64,
    /// Cells in the file.
    pub cells: u64,
    /// Oldest and newest cell timestamps (ms); `None` for an empty file.
    pub time_range: Option<(i64, i64)>,
    /// The newest sequence id the file holds.
    pub max_seq_id: u64,
    /// Written by a major compaction.
    pub major: bool,
    /// Half of a split parent's file, read through a reference.
    pub reference: bool,
    /// The storage type of the volume holding it (`HDD`, `SSD`, `RAM_DISK`, `ARCHIVE`).
    pub tier: String,
    /// The file's path on the region server (for a reference, the parent's file).
    pub path: String,
    /// For a date-tiered family, the window `[start, end)` (ms) holding the file's newest
    /// cell now; `None` for other families and empty files.
    pub window: Option<(i64, i64)>,
}

impl From<pb::StoreFileInfo> for StoreFileInfo {
    fn from(f: pb::StoreFileInfo) -> StoreFileInfo {
        StoreFileInfo {
            region_id: f.region_id,
            region_start: f.region_start,
            region_end: f.region_end,
            family: f.family,
            name: f.name,
            size: f.size,
            cells: f.cells,
            time_range: f
                .has_time_range
                .then_some((f.min_timestamp, f.max_timestamp)),
            max_seq_id: f.max_seq_id,
            major: f.major,
            reference: f.reference,
            tier: f.tier,
            path: f.path,
            window: f.has_window.then_some((f.window_start, f.window_end)),
        }
    }
}

/// Administration of tables and the cluster. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Admin {
    conn: Connection,
}

impl Admin {
    pub(crate) fn new(conn: Connection) -> Admin {
        Admin { conn }
    }

    /// Creates a table, pre-split at `split_keys` (sorted, distinct, non-empty).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for an invalid descriptor; `TABLE_EXISTS`; the master's error.
    pub async fn create_table(
        &self,
        table: &TableDescriptor,
        split_keys: &[Bytes],
    ) -> Result<(), Error> {
        table.validate().map_err(Error::invalid)?;
        let request = pb::CreateTableRequest {
            schema: Some(convert::table_to_pb(table)),
            split_keys: split_keys.to_vec(),
        };
        self.change(|mut m| async move { m.create_table(request).await })
            .await?;
        self.conn.invalidate(&table.name.to_string());
        Ok(())
    }

    /// Replaces a table's schema (families missing from it are deleted).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT`, `TABLE_NOT_FOUND` or the master's error.
    pub async fn alter_table(&self, table: &TableDescriptor) -> Result<(), Error> {
        table.validate().map_err(Error::invalid)?;
        let request = pb::AlterTableRequest {
            schema: Some(convert::table_to_pb(table)),
            no_wait: false,
        };
        self.change(|mut m| async move { m.alter_table(request).await })
            .await
            .map(drop)
    }

    /// Disables a table (its regions close).
    ///
    /// # Errors
    /// `TABLE_NOT_FOUND`, `TABLE_DISABLED` or the master's error.
    pub async fn disable_table(&self, name: &str) -> Result<(), Error> {
        let request = table_request(name);
        self.change(|mut m| async move { m.disable_table(request).await })
            .await?;
        self.conn.invalidate(name);
        Ok(())
    }

    /// Enables a disabled table.
    ///
    /// # Errors
    /// `TABLE_NOT_FOUND`, `TABLE_ENABLED` or the master's error.
    pub async fn enable_table(&self, name: &str) -> Result<(), Error> {
        let request = table_request(name);
        self.change(|mut m| async move { m.enable_table(request).await })
            .await?;
        self.conn.invalidate(name);
        Ok(())
    }

    /// Deletes a (disabled) table and its data.
    ///
    /// # Errors
    /// `TABLE_NOT_FOUND`, `TABLE_ENABLED` or the master's error.
    pub async fn delete_table(&self, name: &str) -> Result<(), Error> {
        let request = table_request(name);
        self.change(|mut m| async move { m.delete_table(request).await })
            .await?;
        self.conn.invalidate(name);
        Ok(())
    }

    /// Empties a table, keeping its region boundaries if `preserve_splits`.
    ///
    /// # Errors
    /// `TABLE_NOT_FOUND` or the master's error.
    pub async fn truncate_table(&self, name: &str, preserve_splits: bool) -> Result<(), Error> {
        let request = pb::TruncateTableRequest {
            table: name.to_string(),
            preserve_splits,
        };
        self.change(|mut m| async move { m.truncate_table(request).await })
            .await?;
        self.conn.invalidate(name);
        Ok(())
    }

    /// Every table.
    ///
    /// # Errors
    /// The master's error.
    pub async fn list_tables(&self) -> Result<Vec<TableInfo>, Error> {
        let response = self
            .read(|mut m| async move { m.list_tables(pb::Empty {}).await })
            .await?;
        response.tables.into_iter().map(TryInto::try_into).collect()
    }

    /// One table's schema, state and regions.
    ///
    /// # Errors
    /// `TABLE_NOT_FOUND` or the master's error.
    pub async fn describe_table(&self, name: &str) -> Result<TableInfo, Error> {
        let request = table_request(name);
        self.read(|mut m| {
            let request = request.clone();
            async move { m.describe_table(request).await }
        })
        .await?
        .try_into()
    }

    /// True if the table exists.
    ///
    /// # Errors
    /// The master's error other than `TABLE_NOT_FOUND`.
    pub async fn table_exists(&self, name: &str) -> Result<bool, Error> {
        match self.describe_table(name).await {
            Ok(_) => Ok(true),
            Err(e) if e.code == ErrorCode::TableNotFound => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Flushes every region's memtables.
    ///
    /// # Errors
    /// `TABLE_NOT_FOUND` or the master's error.
    pub async fn flush(&self, name: &str) -> Result<(), Error> {
        let request = table_request(name);
        self.change(|mut m| async move { m.flush(request).await })
            .await
            .map(drop)
    }

    /// Compacts every region (one family, or all), minor or `major`.
    ///
    /// # Errors
    /// `TABLE_NOT_FOUND`, `NO_SUCH_FAMILY` or the master's error.
    pub async fn compact(
        &self,
        name: &str,
        family: Option<&str>,
        major: bool,
    ) -> Result<(), Error> {
        let request = pb::CompactRequest {
            table: name.to_string(),
            family: family.unwrap_or_default().to_string(),
            major,
        };
        self.change(|mut m| async move { m.compact(request).await })
            .await
            .map(drop)
    }

    /// Splits the region holding `split_row` there, or, without one, every region at its
    /// middle key.
    ///
    /// # Errors
    /// `TABLE_NOT_FOUND`, `INVALID_ARGUMENT` or the master's error.
    pub async fn split(&self, name: &str, split_row: Option<Bytes>) -> Result<(), Error> {
        let request = pb::SplitRequest {
            table: name.to_string(),
            split_row,
        };
        self.change(|mut m| async move { m.split(request).await })
            .await?;
        self.conn.invalidate(name);
        Ok(())
    }

    /// Merges two adjacent regions.
    ///
    /// # Errors
    /// `REGION_NOT_FOUND`, `INVALID_ARGUMENT` (not adjacent) or the master's error.
    pub async fn merge(&self, name: &str, region_a: u64, region_b: u64) -> Result<(), Error> {
        let request = pb::MergeRequest {
            table: name.to_string(),
            region_a,
            region_b,
        };
        self.change(|mut m| async move { m.merge(request).await })
            .await?;
        self.conn.invalidate(name);
        Ok(())
    }

    /// Every region of the table, by start row, asked afresh (the cache is refreshed too).
    ///
    /// # Errors
    /// `TABLE_NOT_FOUND` or the master's error.
    pub async fn regions(&self, name: &str) -> Result<Vec<RegionLocation>, Error> {
        Ok(self.conn.fresh_regions(name).await?.all().to_vec())
    }

    /// Every region of the table, by start row, with its sizes and request count as the
    /// server holding it reports them (each server is asked; slower than [`Admin::regions`]).
    ///
    /// # Errors
    /// `TABLE_NOT_FOUND`, `TABLE_DISABLED`, a server that cannot be reached, or the master's
    /// error.
    pub async fn regions_with_load(&self, name: &str) -> Result<Vec<RegionLocation>, Error> {
        let request = pb::LocateRequest {
            table: name.to_string(),
            with_load: true,
        };
        let response = self
            .read(|mut m| {
                let request = request.clone();
                async move { m.locate(request).await }
            })
            .await?;
        Ok(response.regions.into_iter().map(Into::into).collect())
    }

    /// The compactions running in the table's regions now, as HBase's
    /// `Admin.getCompactionState(table)` answers (the shell's `compaction_state`): each
    /// server holding a region is asked ([`Admin::regions_with_load`]) and the regions'
    /// states combined ([`CompactionState::of_regions`]). A compaction the region's policy
    /// has asked for but not started is not running yet: `None`, as in HBase. A disabled
    /// table's regions are open nowhere: `None` too (HBase asks only regions with a server).
    ///
    /// # Errors
    /// As [`Admin::regions_with_load`]: `TABLE_NOT_FOUND`, a server that cannot be reached,
    /// or the master's error.
    pub async fn compaction_state(&self, table: &str) -> Result<CompactionState, Error> {
        let regions = match self.regions_with_load(table).await {
            Err(e) if e.code == ErrorCode::TableDisabled => return Ok(CompactionState::None),
            found => found?,
        };
        Ok(CompactionState::of_regions(&regions))
    }

    /// Every store file of the table's serving regions: regions by start row, then by
    /// family.
    ///
    /// # Errors
    /// `TABLE_NOT_FOUND`, `TABLE_DISABLED` or the master's error.
    pub async fn list_files(&self, name: &str) -> Result<Vec<StoreFileInfo>, Error> {
        let request = table_request(name);
        let response = self
            .read(|mut m| {
                let request = request.clone();
                async move { m.list_files(request).await }
            })
            .await?;
        Ok(response.files.into_iter().map(Into::into).collect())
    }

    /// The cluster's servers and counters.
    ///
    /// # Errors
    /// The master's error.
    pub async fn status(&self) -> Result<pb::StatusResponse, Error> {
        let status = self
            .read(|mut m| async move { m.status(pb::Empty {}).await })
            .await?;
        self.conn
            .learn(status.servers.iter().map(|s| s.address.as_str()));
        Ok(status)
    }

    /// Sends a change once.
    pub(crate) async fn change<T, F, Fut>(&self, send: F) -> Result<T, Error>
    where
        F: FnOnce(AdminClient<Channel>) -> Fut,
        Fut: Future<Output = Result<Response<T>, Status>>,
    {
        // No per-attempt limit: a change (creating a table of many regions, a flush) may
        // rightly take long, and it is never sent twice anyway.
        let retry = Retry::new(self.conn.options());
        let response = retry
            .run(async { send(self.conn.master()).await.map_err(Error::from) })
            .await
            .inspect_err(|e| self.unreachable(e))?;
        Ok(response.into_inner())
    }

    /// Sends a read, retrying as a data read would (each attempt cut off at the per-attempt
    /// timeout).
    pub(crate) async fn read<T, F, Fut>(&self, mut send: F) -> Result<T, Error>
    where
        F: FnMut(AdminClient<Channel>) -> Fut,
        Fut: Future<Output = Result<Response<T>, Status>>,
    {
        let mut retry = Retry::new(self.conn.options());
        loop {
            let attempt = retry.run_at(ADMIN, async {
                send(self.conn.master()).await.map_err(Error::from)
            });
            match attempt.await {
                Ok(response) => return Ok(response.into_inner()),
                Err(e) => {
                    self.unreachable(&e);
                    retry.back_off(e, Idempotence::Idempotent).await?;
                }
            }
        }
    }

    /// Moves to the next admin endpoint after `UNAVAILABLE` (a cluster connection).
    fn unreachable(&self, e: &Error) {
        if e.code == ErrorCode::Unavailable {
            self.conn.admin_unreachable();
        }
    }
}

/// How an admin endpoint is named in a per-attempt timeout's error.
const ADMIN: &str = "the admin endpoint";

fn table_request(name: &str) -> pb::TableRequest {
    pb::TableRequest {
        table: name.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use CompactionState as S;

    fn region(minor: u32, major: u32) -> RegionLocation {
        RegionLocation {
            region_id: 1,
            start_row: Bytes::new(),
            end_row: Bytes::new(),
            server: "s:1".into(),
            store_bytes: 0,
            memtable_bytes: 0,
            store_files: 0,
            name: String::new(),
            requests: 0,
            minor_compactions: minor,
            major_compactions: major,
        }
    }

    #[test]
    fn compaction_state_of_counts_and_names() {
        assert_eq!(CompactionState::of_counts(0, 0), S::None);
        assert_eq!(CompactionState::of_counts(2, 0), S::Minor);
        assert_eq!(CompactionState::of_counts(0, 1), S::Major);
        assert_eq!(CompactionState::of_counts(1, 3), S::MajorAndMinor);
        let names: Vec<String> = [S::None, S::Minor, S::Major, S::MajorAndMinor]
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(names, ["NONE", "MINOR", "MAJOR", "MAJOR_AND_MINOR"]);
    }

    /// As HBase's `getCompactionState`: a major in one region and a minor in another is
    /// both; idle regions change nothing; no regions at all is none.
    #[test]
    fn compaction_state_combines_the_regions() {
        let of = |rs: &[(u32, u32)]| {
            let regions: Vec<_> = rs.iter().map(|&(mi, ma)| region(mi, ma)).collect();
            CompactionState::of_regions(&regions)
        };
        assert_eq!(of(&[]), S::None);
        assert_eq!(of(&[(0, 0), (0, 0)]), S::None);
        assert_eq!(of(&[(0, 0), (1, 0)]), S::Minor);
        assert_eq!(of(&[(0, 1), (0, 0), (0, 2)]), S::Major);
        assert_eq!(of(&[(0, 1), (1, 0)]), S::MajorAndMinor);
        assert_eq!(of(&[(1, 1), (0, 0)]), S::MajorAndMinor);
        assert_eq!(of(&[(u32::MAX, 0), (u32::MAX, 0)]), S::Minor);
    }
}
