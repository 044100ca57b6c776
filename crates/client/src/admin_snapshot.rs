//! Snapshots through [`Admin`]: HBase's `snapshot`, `listSnapshots`,
//! `listTableSnapshots`, `deleteSnapshot`, `cloneSnapshot` and `restoreSnapshot`.

use strata_proto::pb;

use crate::admin::Admin;
use crate::error::Error;

/// A complete snapshot (HBase's `SnapshotDescription`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapshotDescription {
    /// Its name.
    pub name: String,
    /// The table it is of (`ns:t`, or `t` in the default namespace).
    pub table: String,
    /// When it began, ms since the epoch.
    pub creation_time_ms: i64,
    /// Taken of a disabled table (HBase's `DISABLED` type; else `FLUSH`).
    pub offline: bool,
}

impl From<pb::SnapshotDescription> for SnapshotDescription {
    fn from(d: pb::SnapshotDescription) -> SnapshotDescription {
        SnapshotDescription {
            name: d.name,
            table: d.table,
            creation_time_ms: d.creation_time_ms,
            offline: d.offline,
        }
    }
}

impl Admin {
    /// Takes snapshot `name` of `table`, online: every write acknowledged before the call
    /// is in it.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a bad name, `SNAPSHOT_EXISTS`, `TABLE_NOT_FOUND`, or the
    /// server's error (the snapshot then does not exist).
    pub async fn snapshot(&self, table: &str, name: &str) -> Result<SnapshotDescription, Error> {
        let request = pb::SnapshotRequest {
            table: table.to_string(),
            name: name.to_string(),
        };
        self.change(|mut m| async move { m.snapshot(request).await })
            .await
            .map(Into::into)
    }

    /// The snapshots whose whole name matches the regular expression `pattern` (every
    /// snapshot when `None`), oldest first.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a bad pattern, or the server's error.
    pub async fn list_snapshots(
        &self,
        pattern: Option<&str>,
    ) -> Result<Vec<SnapshotDescription>, Error> {
        self.snapshots(pattern.unwrap_or_default(), "").await
    }

    /// The snapshots of `table`, oldest first.
    ///
    /// # Errors
    /// The server's error.
    pub async fn list_table_snapshots(
        &self,
        table: &str,
    ) -> Result<Vec<SnapshotDescription>, Error> {
        self.snapshots("", table).await
    }

    async fn snapshots(
        &self,
        pattern: &str,
        table: &str,
    ) -> Result<Vec<SnapshotDescription>, Error> {
        let request = pb::ListSnapshotsRequest {
            name_pattern: pattern.to_string(),
            table: table.to_string(),
        };
        let list = self
            .read(|mut m| {
                let request = request.clone();
                async move { m.list_snapshots(request).await }
            })
            .await?;
        Ok(list.snapshots.into_iter().map(Into::into).collect())
    }

    /// Deletes snapshot `name` (tables cloned from it keep reading its files).
    ///
    /// # Errors
    /// `SNAPSHOT_NOT_FOUND`, or the server's error.
    pub async fn delete_snapshot(&self, name: &str) -> Result<(), Error> {
        let request = pb::SnapshotNameRequest {
            name: name.to_string(),
        };
        self.change(|mut m| async move { m.delete_snapshot(request).await })
            .await
            .map(drop)
    }

    /// Makes the new table `table` from snapshot `name`, sharing its files (no copy).
    ///
    /// # Errors
    /// `SNAPSHOT_NOT_FOUND`, `TABLE_EXISTS`, `NAMESPACE_NOT_FOUND`, or the server's error.
    pub async fn clone_snapshot(&self, name: &str, table: &str) -> Result<(), Error> {
        let request = pb::CloneSnapshotRequest {
            name: name.to_string(),
            table: table.to_string(),
        };
        self.change(|mut m| async move { m.clone_snapshot(request).await })
            .await
            .map(drop)
    }

    /// Registers snapshot `name`, which `strata snapshot export` copied under the cluster's
    /// root; it can then be cloned.
    ///
    /// # Errors
    /// `SNAPSHOT_NOT_FOUND` (nothing exported under that name), `SNAPSHOT_EXISTS`, or the
    /// server's error.
    pub async fn import_snapshot(&self, name: &str) -> Result<SnapshotDescription, Error> {
        let request = pb::SnapshotNameRequest {
            name: name.to_string(),
        };
        self.change(|mut m| async move { m.import_snapshot(request).await })
            .await
            .map(Into::into)
    }

    /// Restores the snapshot's (disabled) table to snapshot `name`; the table stays
    /// disabled, as HBase leaves it.
    ///
    /// # Errors
    /// `SNAPSHOT_NOT_FOUND`, `TABLE_ENABLED`, or the server's error.
    pub async fn restore_snapshot(&self, name: &str) -> Result<(), Error> {
        let request = pb::SnapshotNameRequest {
            name: name.to_string(),
        };
        self.change(|mut m| async move { m.restore_snapshot(request).await })
            .await
            .map(drop)
    }
}
