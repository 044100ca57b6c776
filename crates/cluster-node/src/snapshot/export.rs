//! Exporting a snapshot to another root, and importing it there (RFC 0025, "Export").
//!
//! [`export`] copies a snapshot's manifest and every file it reads from one root (local,
//! HDFS or S3) to another, in parallel: each file into the target's staging directory
//! `.snapshots/<name>/files/<table dir>/<region>/<family>/<file>`, through a temporary name,
//! synced, then verified by reading it back (CRC32C of the source's bytes and of the copy's).
//! A file already there with the source's length and checksum is kept, so an interrupted
//! export resumes where it stopped. The manifest is written last, with every entry's tier
//! cleared (the target keeps the files on its root). [`import`] registers the exported
//! snapshot in the target cluster and moves the staged files into its archive, where a
//! clone's links find them and the cleaner keeps them while the snapshot exists.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use parking_lot::Mutex;
use prost::Message;
use strata_model::schema::StoragePolicy;
use strata_proto::pb;
use strata_storage::manifest::{format, StoreFile, VersionEdit};
use strata_storage::tiers::archive::{files_under, ARCHIVE_DIR};
use strata_storage::tiers::policy_dir_name;
use strata_storage::vfs::{FileStore, FileWriter};

use super::cleaner::{file_key, FileKey};
use super::clone::region_version;
use super::{manifest_path, read_manifest, snapshot_dir};

/// What an export did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Exported {
    /// Files the snapshot reads.
    pub files: usize,
    /// Of those, copied by this run.
    pub copied: usize,
    /// Of those, found complete from an earlier run.
    pub kept: usize,
    /// Bytes of every file.
    pub bytes: u64,
}

/// One file to copy: where its bytes are on the source (tried in order) and its key.
struct Job {
    sources: Vec<PathBuf>,
    key: FileKey,
}

/// The staging path of `key` under the target's snapshot directory `dir`.
fn staged(dir: &Path, key: &FileKey) -> PathBuf {
    dir.join("files")
        .join(&key.0)
        .join(&key.1)
        .join(&key.2)
        .join(&key.3)
}

/// Where a file of `key` on tier `tier` may be on the root `root`: its live path, its
/// archived path, then staged by an earlier export into `snapshot_dir` (an exported copy is
/// exported again so: a backup in a bucket restored into a fresh cluster).
fn source_paths(
    root: &Path,
    snapshot_dir: &Path,
    key: &FileKey,
    tier: &str,
) -> Result<Vec<PathBuf>, String> {
    let mut rel = Path::new(&key.0).join(&key.1).join(&key.2);
    if !tier.is_empty() {
        let policy = StoragePolicy::parse(tier).ok_or_else(|| {
            format!(
                "{} is on the {tier} volume; export reads files on the root only (move them \
                 to the root's tier first)",
                key.3
            )
        })?;
        rel = rel.join(policy_dir_name(policy));
    }
    let rel = rel.join(&key.3);
    Ok(vec![
        root.join(&rel),
        root.join(ARCHIVE_DIR).join(&rel),
        staged(snapshot_dir, key),
    ])
}

fn crc_of(files: &dyn FileStore, path: &Path) -> io::Result<(u64, u32)> {
    let src = files.open(path)?;
    let len = src.size()?;
    let (mut at, mut crc) = (0u64, 0u32);
    while at < len {
        let n = usize::try_from((len - at).min(4 << 20)).unwrap_or(4 << 20);
        crc = crc32c::crc32c_append(crc, &src.read_at(at, n)?);
        at += n as u64;
    }
    Ok((len, crc))
}

/// Copies `source` to `target` through `target.tmp`; answers the length and CRC32C of the
/// bytes read.
fn copy(
    from: &dyn FileStore,
    source: &Path,
    to: &dyn FileStore,
    target: &Path,
) -> io::Result<(u64, u32)> {
    let mut tmp = target.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    if let Some(dir) = target.parent() {
        to.create_dir_all(dir)?;
    }
    let done = (|| {
        let src = from.open(source)?;
        let len = src.size()?;
        let mut out = to.create(&tmp)?;
        let (mut at, mut crc) = (0u64, 0u32);
        while at < len {
            let n = usize::try_from((len - at).min(4 << 20)).unwrap_or(4 << 20);
            let chunk = src.read_at(at, n)?;
            crc = crc32c::crc32c_append(crc, &chunk);
            out.write_all(&chunk)?;
            at += n as u64;
        }
        out.sync()?;
        FileWriter::close(out)?;
        to.rename(&tmp, target)?;
        Ok((len, crc))
    })();
    if done.is_err() {
        let _ = to.remove_file(&tmp);
    }
    done
}

/// Copies one file, or keeps a complete copy; answers (copied, bytes).
fn run_job(
    from: &dyn FileStore,
    to: &dyn FileStore,
    dir: &Path,
    job: &Job,
) -> Result<(bool, u64), String> {
    let target = staged(dir, &job.key);
    let mut source = None;
    for path in &job.sources {
        match from.len(path) {
            Ok(Some(len)) => {
                source = Some((path, len));
                break;
            }
            Ok(None) => {}
            Err(e) => return Err(format!("{}: {e}", from.url(path))),
        }
    }
    let (source, len) = source.ok_or_else(|| {
        format!(
            "{} is missing from {} and its archive",
            job.key.3,
            from.url(&job.sources[0])
        )
    })?;
    let err = |what: &str, path: &Path, e: io::Error| format!("{what} {}: {e}", to.url(path));
    if to.len(&target).map_err(|e| err("read", &target, e))? == Some(len) {
        let want = crc_of(from, source).map_err(|e| format!("read {}: {e}", from.url(source)))?;
        if crc_of(to, &target).map_err(|e| err("read", &target, e))? == want {
            return Ok((false, len));
        }
    }
    let wrote = copy(from, source, to, &target).map_err(|e| err("copy to", &target, e))?;
    let back = crc_of(to, &target).map_err(|e| err("read back", &target, e))?;
    if back != wrote {
        let _ = to.remove_file(&target);
        return Err(format!(
            "{}: the copy's checksum differs from the source's; run the export again",
            to.url(&target)
        ));
    }
    Ok((true, len))
}

/// The snapshot's manifest with every entry's tier cleared: on the target its files are on
/// the root.
fn on_the_root(mut manifest: pb::SnapshotManifest) -> Result<pb::SnapshotManifest, String> {
    for region in &mut manifest.regions {
        let Some(version) = region_version(region).map_err(|e| e.message().to_string())? else {
            continue;
        };
        let mut edit = VersionEdit::new();
        for (family, ff) in version.families() {
            for f in ff.files().filter(|f| !f.tier.is_empty()) {
                edit = edit.remove_file(family.clone(), f.name.clone()).add_file(
                    family.clone(),
                    StoreFile {
                        tier: String::new(),
                        ..f.clone()
                    },
                );
            }
        }
        let version = version.apply(&edit).map_err(|e| e.to_string())?;
        region.manifest = format::encode(&version, 1).into();
    }
    Ok(manifest)
}

/// Exports snapshot `name` from the root `from_root` of `from` to the root `to_root` of `to`
/// with `threads` copies at once. Requires: the snapshot exists on the source for the whole
/// run (its files are kept meanwhile).
///
/// # Errors
/// The manifest cannot be read, a file is missing or on a volume, a copy failed or did not
/// verify (files copied so far stay: run it again to resume).
pub fn export(
    from: &dyn FileStore,
    from_root: &Path,
    to: &dyn FileStore,
    to_root: &Path,
    name: &str,
    threads: usize,
) -> Result<Exported, String> {
    let manifest = read_manifest(from, from_root, name).map_err(|e| e.message().to_string())?;
    let from_dir = snapshot_dir(from_root, name);
    let mut jobs: BTreeMap<FileKey, Vec<PathBuf>> = BTreeMap::new();
    for region in &manifest.regions {
        let Some(version) = region_version(region).map_err(|e| e.message().to_string())? else {
            continue;
        };
        for (family, ff) in version.families() {
            for f in ff.files() {
                let key = file_key(&region.table_dir, region.region_id, family, f);
                let sources = source_paths(from_root, &from_dir, &key, &f.tier)?;
                jobs.entry(key).or_insert(sources);
            }
        }
    }
    let jobs: Vec<Job> = jobs
        .into_iter()
        .map(|(key, sources)| Job { sources, key })
        .collect();
    let dir = snapshot_dir(to_root, name);
    let queue = Mutex::new(jobs.iter());
    let totals = Mutex::new((
        Exported {
            files: jobs.len(),
            ..Exported::default()
        },
        None::<String>,
    ));
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| loop {
                let Some(job) = queue.lock().next() else {
                    return;
                };
                let outcome = run_job(from, to, &dir, job);
                let mut t = totals.lock();
                match outcome {
                    Ok((copied, bytes)) => {
                        t.0.bytes += bytes;
                        if copied {
                            t.0.copied += 1;
                        } else {
                            t.0.kept += 1;
                        }
                    }
                    Err(e) => {
                        t.1.get_or_insert(e);
                    }
                }
            });
        }
    });
    let (exported, failed) = totals.into_inner();
    if let Some(e) = failed {
        return Err(e);
    }
    let manifest = on_the_root(manifest)?;
    let path = manifest_path(to_root, name);
    to.create_dir_all(&dir)
        .and_then(|()| to.write_atomic(&path, &manifest.encode_to_vec()))
        .map_err(|e| format!("write {}: {e}", to.url(&path)))?;
    Ok(exported)
}

/// Moves the files an export staged for snapshot `name` under `root` into the archive
/// (idempotent: a file already moved is skipped); answers how many moved.
///
/// # Errors
/// Listing or renaming failed.
pub fn unstage(files: &dyn FileStore, root: &Path, name: &str) -> Result<usize, String> {
    let staging = snapshot_dir(root, name).join("files");
    let found =
        files_under(files, &staging).map_err(|e| format!("list {}: {e}", files.url(&staging)))?;
    let mut moved = 0;
    // A `.tmp` is an export's copy in flight, never complete: left to the removal below.
    for path in found
        .into_iter()
        .filter(|p| p.extension().is_none_or(|x| x != "tmp"))
    {
        let Ok(rel) = path.strip_prefix(&staging) else {
            continue;
        };
        let target = root.join(ARCHIVE_DIR).join(rel);
        if let Some(dir) = target.parent() {
            files
                .create_dir_all(dir)
                .map_err(|e| format!("{}: {e}", files.url(dir)))?;
        }
        files
            .rename(&path, &target)
            .map_err(|e| format!("move {} into the archive: {e}", files.url(&path)))?;
        moved += 1;
    }
    match files.remove_dir_all(&staging) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => {
            Err(format!("{}: {e}", files.url(&staging)))
        }
        _ => Ok(moved),
    }
}
