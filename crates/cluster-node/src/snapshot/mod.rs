//! Table snapshots, clones and restores (RFC 0025), written once for every front end.
//!
//! - [`Record`]: a snapshot's record in the coordination store, `snapshot/<name>`: `taking`
//!   while it is taken, `done` once its manifest is complete. A snapshot exists exactly when
//!   its record says `done`.
//! - The manifest, `.snapshots/<name>/manifest` under the root: the table's schema and, per
//!   region, its boundaries, where its files are and its region manifest as read
//!   (`pb::SnapshotManifest`).
//! - [`take`]: flush, read the region manifests, write the snapshot's manifest, commit.
//! - [`clone`]: a new table whose regions' manifests link to the snapshot's files.
//! - [`making`]: a clone or restore recorded, so that the master finishes one whose maker died.
//! - [`cleaner`]: deletes archived store files that no snapshot and no clone references.

pub mod cleaner;
pub mod clone;
pub mod export;
pub mod making;
pub mod service;
pub mod take;

use std::path::{Path, PathBuf};

use prost::Message;
use strata_cluster::kv::{range_all, Kv};
use strata_cluster::layout::Layout;
use strata_proto::pb::{self, ErrorCode};
use strata_storage::vfs::FileStore;
use tonic::Status;

use crate::admin::unavailable;

/// The directory of snapshot manifests under the root.
pub const SNAPSHOT_DIR: &str = ".snapshots";

/// How long a snapshot may stay `taking` before the cleaner abandons it; its taker moves the
/// deadline every [`RENEW_EVERY_MS`] while it works, so only a taker that died leaves one.
pub const TAKING_DEADLINE_MS: i64 = 60 * 1000;

/// How often a taker moves its snapshot's deadline.
pub const RENEW_EVERY_MS: u64 = 15 * 1000;

/// A snapshot's record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Record {
    /// Being taken; abandoned once `deadline_ms` has passed.
    Taking {
        /// The table (`ns:q` or `q`).
        table: String,
        /// Tells this attempt from a later one of the same name.
        token: u64,
        /// Milliseconds since the epoch.
        deadline_ms: i64,
    },
    /// Complete.
    Done {
        /// The table.
        table: String,
        /// When it began, ms since the epoch.
        creation_ms: i64,
        /// The attempt that took it.
        token: u64,
        /// Taken of a disabled table (HBase's `DISABLED` type; else `FLUSH`).
        offline: bool,
    },
}

impl Record {
    /// One line: `taking <table> <token> <deadline>` or
    /// `done <table> <creation> <token> flush|offline`.
    pub fn encode(&self) -> Vec<u8> {
        match self {
            Record::Taking {
                table,
                token,
                deadline_ms,
            } => format!("taking {table} {token} {deadline_ms}"),
            Record::Done {
                table,
                creation_ms,
                token,
                offline,
            } => format!(
                "done {table} {creation_ms} {token} {}",
                if *offline { "offline" } else { "flush" }
            ),
        }
        .into_bytes()
    }

    /// Parses [`Record::encode`]'s line.
    ///
    /// # Errors
    /// Not such a line.
    pub fn decode(bytes: &[u8]) -> Result<Record, String> {
        let text = std::str::from_utf8(bytes).map_err(|e| e.to_string())?;
        let parts: Vec<&str> = text.split(' ').collect();
        let num = |s: &str| s.parse::<i64>().map_err(|e| format!("{text:?}: {e}"));
        let token = |s: &str| s.parse::<u64>().map_err(|e| format!("{text:?}: {e}"));
        match parts.as_slice() {
            ["taking", table, t, deadline] => Ok(Record::Taking {
                table: (*table).to_string(),
                token: token(t)?,
                deadline_ms: num(deadline)?,
            }),
            ["done", table, created, t, kind @ ("flush" | "offline")] => Ok(Record::Done {
                table: (*table).to_string(),
                creation_ms: num(created)?,
                token: token(t)?,
                offline: *kind == "offline",
            }),
            _ => Err(format!("not a snapshot record: {text:?}")),
        }
    }
}

/// Checks a snapshot name by HBase's rule: letters, digits, `_`, `-` and `.`, not starting
/// with `.` or `-`, at most 255 bytes.
///
/// # Errors
/// `INVALID_ARGUMENT` with the reason.
pub fn check_name(name: &str) -> Result<(), Status> {
    let ok_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
    let reason = if name.is_empty() {
        Some("is empty")
    } else if name.len() > 255 {
        Some("is longer than 255 bytes")
    } else if name.starts_with(['.', '-']) {
        Some("starts with '.' or '-'")
    } else if !name.chars().all(ok_char) {
        Some("may hold only letters, digits, '_', '-' and '.'")
    } else {
        None
    };
    match reason {
        None => Ok(()),
        Some(why) => Err(strata_server::status::invalid(format!(
            "snapshot name {name:?} {why}"
        ))),
    }
}

/// The directory of snapshot `name` under `root`.
pub fn snapshot_dir(root: &Path, name: &str) -> PathBuf {
    root.join(SNAPSHOT_DIR).join(name)
}

/// The manifest of snapshot `name` under `root`.
pub fn manifest_path(root: &Path, name: &str) -> PathBuf {
    snapshot_dir(root, name).join("manifest")
}

/// Reads and decodes snapshot `name`'s manifest.
///
/// # Errors
/// `UNAVAILABLE` when the store fails, `CORRUPTION` when the manifest does not decode.
pub fn read_manifest(
    files: &dyn FileStore,
    root: &Path,
    name: &str,
) -> Result<pb::SnapshotManifest, Status> {
    let path = manifest_path(root, name);
    let bytes = files.read(&path).map_err(|e| {
        strata_proto::status(
            ErrorCode::Unavailable,
            format!("read {}: {e}", files.url(&path)),
        )
    })?;
    pb::SnapshotManifest::decode(bytes.as_slice()).map_err(|e| {
        strata_proto::status(
            ErrorCode::Corruption,
            format!("snapshot manifest {}: {e}", files.url(&path)),
        )
    })
}

/// Every snapshot record, by name (records that do not parse are skipped).
///
/// # Errors
/// Reading the store failed.
pub fn records<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
) -> Result<Vec<(String, Record, i64)>, Status> {
    let prefix = layout.snapshots();
    let page = range_all(kv, &prefix, 1000).map_err(unavailable)?;
    Ok(page
        .kvs
        .into_iter()
        .filter_map(|item| {
            let name = item.key.strip_prefix(&prefix)?.to_string();
            let rec = Record::decode(&item.value).ok()?;
            Some((name, rec, item.mod_revision))
        })
        .collect())
}

/// The `done` record of snapshot `name`; `SNAPSHOT_NOT_FOUND` if there is none.
///
/// # Errors
/// No such snapshot, or reading the store failed.
pub fn done<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    name: &str,
) -> Result<(String, i64, u64, i64), Status> {
    let found = kv.get(&layout.snapshot(name)).map_err(unavailable)?;
    match found.map(|kv| (Record::decode(&kv.value), kv.mod_revision)) {
        Some((
            Ok(Record::Done {
                table,
                creation_ms,
                token,
                ..
            }),
            rev,
        )) => Ok((table, creation_ms, token, rev)),
        _ => Err(not_found(name)),
    }
}

pub(crate) fn not_found(name: &str) -> Status {
    strata_proto::status(
        ErrorCode::SnapshotNotFound,
        format!("Snapshot '{name}' doesn't exist on the filesystem"),
    )
}

pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        for rec in [
            Record::Taking {
                table: "ns:t".into(),
                token: 7,
                deadline_ms: 1_700_000_000_000,
            },
            Record::Done {
                table: "t".into(),
                creation_ms: 5,
                token: u64::MAX,
                offline: true,
            },
        ] {
            assert_eq!(Record::decode(&rec.encode()), Ok(rec));
        }
        assert!(Record::decode(b"done t").is_err());
    }

    #[test]
    fn names_follow_hbase() {
        for good in ["s", "s1.backup-2026_12", "_x"] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        for bad in ["", ".s", "-s", "a/b", "a b", "ns:s", &"x".repeat(256)] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }
}
