//! A server's volumes and the placement of files on them.

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;
use strata_model::schema::StoragePolicy;

use super::policy::{preference, StorageType};
use crate::vfs::{FileStore, Local};

/// Where placement warnings go (a type is missing, so a policy falls back).
pub type WarnSink = Arc<dyn Fn(&str) + Send + Sync>;

/// A directory on a device of one storage type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Volume {
    /// The device's storage type.
    pub kind: StorageType,
    /// The directory files go under.
    pub path: PathBuf,
}

impl Volume {
    /// Parses `TYPE=PATH` (as `--volume SSD=/mnt/ssd/strata`).
    ///
    /// # Errors
    /// No `=`, an unknown type, or an empty path.
    pub fn parse(spec: &str) -> Result<Volume, String> {
        let (kind, path) = spec
            .split_once('=')
            .ok_or_else(|| format!("volume '{spec}': expected TYPE=PATH"))?;
        let kind = StorageType::parse(kind).ok_or_else(|| {
            format!(
                "volume '{spec}': unknown storage type '{kind}'; allowed: RAM_DISK, SSD, HDD \
                 (or DISK), ARCHIVE"
            )
        })?;
        if path.is_empty() {
            return Err(format!("volume '{spec}': empty path"));
        }
        Ok(Volume {
            kind,
            path: PathBuf::from(path),
        })
    }
}

/// The volumes of a server: the data directory (one storage type) and at most one more volume
/// per other type. Placement never fails: a policy whose types have no volume falls back to
/// the data directory, with one warning per policy.
pub struct Volumes {
    root: Volume,
    others: Vec<Volume>,
    warned: Mutex<HashSet<StoragePolicy>>,
    warn: WarnSink,
    /// The store every volume's files are in, but those of `remote`.
    files: Arc<dyn FileStore>,
    /// Volumes on a store of their own (the ARCHIVE tier as an S3 bucket): only the tier
    /// mover copies files there; flushes and compactions write on `files`.
    remote: Vec<(StorageType, Arc<dyn FileStore>)>,
    /// Discarded store files go to each volume's archive rather than being deleted
    /// (`archive`, RFC 0025).
    archive: bool,
}

impl fmt::Debug for Volumes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Volumes")
            .field("root", &self.root)
            .field("others", &self.others)
            .field("files", &self.files)
            .finish_non_exhaustive()
    }
}

impl Volumes {
    /// Only the data directory, as an `HDD` volume: every policy places files there.
    pub fn single(root: impl Into<PathBuf>) -> Volumes {
        Volumes {
            root: Volume {
                kind: StorageType::Hdd,
                path: root.into(),
            },
            others: Vec::new(),
            warned: Mutex::new(HashSet::new()),
            warn: Arc::new(|_| {}),
            files: Arc::new(Local),
            remote: Vec::new(),
            archive: false,
        }
    }

    /// The data directory `root` of storage type `root_kind`, and `others`.
    ///
    /// # Errors
    /// Two volumes of one type, or two volumes on one path.
    pub fn new(
        root: impl Into<PathBuf>,
        root_kind: StorageType,
        others: Vec<Volume>,
    ) -> Result<Volumes, String> {
        let root = Volume {
            kind: root_kind,
            path: root.into(),
        };
        let mut kinds = HashSet::from([root.kind]);
        let mut paths = HashSet::from([root.path.clone()]);
        for v in &others {
            if !kinds.insert(v.kind) {
                return Err(format!(
                    "two volumes of storage type {} (the data directory is {}); declare one \
                     volume per type",
                    v.kind, root.kind
                ));
            }
            if !paths.insert(v.path.clone()) {
                return Err(format!("two volumes on {}", v.path.display()));
            }
        }
        Ok(Volumes {
            root,
            others,
            warned: Mutex::new(HashSet::new()),
            warn: Arc::new(|msg| tracing::warn!("{msg}")),
            files: Arc::new(Local),
            remote: Vec::new(),
            archive: false,
        })
    }

    /// Adds `volume`, on the store `files` rather than the data directory's (an `s3://`
    /// bucket as the ARCHIVE tier).
    ///
    /// # Errors
    /// A volume of its type is already configured.
    pub fn with_remote(
        mut self,
        volume: Volume,
        files: Arc<dyn FileStore>,
    ) -> Result<Volumes, String> {
        if self.get(volume.kind).is_some() {
            return Err(format!(
                "two volumes of storage type {}; the {} tier on {} replaces a local one",
                volume.kind,
                volume.kind,
                files.url(&volume.path)
            ));
        }
        self.remote.push((volume.kind, files));
        self.others.push(volume);
        Ok(self)
    }

    /// The store holding the files of the volume of type `kind`.
    pub fn files_of(&self, kind: StorageType) -> &Arc<dyn FileStore> {
        self.remote
            .iter()
            .find(|(k, _)| *k == kind)
            .map_or(&self.files, |(_, f)| f)
    }

    /// True when the volume of type `kind` is on a store of its own ([`Volumes::with_remote`]).
    pub fn is_remote(&self, kind: StorageType) -> bool {
        self.remote.iter().any(|(k, _)| *k == kind)
    }

    /// Sends placement warnings to `sink` instead of standard error.
    #[must_use]
    pub fn with_warnings(mut self, sink: WarnSink) -> Volumes {
        self.warn = sink;
        self
    }

    /// Keeps every volume's files in `files` (HDFS, …) instead of the local file system.
    #[must_use]
    pub fn with_files(mut self, files: Arc<dyn FileStore>) -> Volumes {
        self.files = files;
        self
    }

    /// Keeps discarded store files in each volume's archive (a process serving snapshots).
    #[must_use]
    pub fn with_archive(mut self, archive: bool) -> Volumes {
        self.archive = archive;
        self
    }

    /// True when discarded store files go to the archive.
    pub fn archives(&self) -> bool {
        self.archive
    }

    /// The root of the volume of type `kind` (the data directory's when there is none).
    pub fn root_of(&self, kind: StorageType) -> &Path {
        &self.get(kind).unwrap_or(&self.root).path
    }

    /// The store the volumes' files are in.
    pub fn files(&self) -> &Arc<dyn FileStore> {
        &self.files
    }

    /// The data directory.
    pub fn root(&self) -> &Path {
        &self.root.path
    }

    /// The data directory's storage type.
    pub fn root_kind(&self) -> StorageType {
        self.root.kind
    }

    /// Every volume, the data directory first.
    pub fn all(&self) -> impl Iterator<Item = &Volume> {
        std::iter::once(&self.root).chain(&self.others)
    }

    /// The volume of storage type `kind`, if there is one.
    pub fn get(&self, kind: StorageType) -> Option<&Volume> {
        self.all().find(|v| v.kind == kind)
    }

    /// Where `policy` places a file, and whether that is a fallback (the policy's first type
    /// has no volume: the next of its types that has one, else the data directory). Pure.
    pub fn choose(&self, policy: StoragePolicy) -> (StorageType, bool) {
        let wanted = preference(policy);
        let kind = wanted
            .iter()
            .copied()
            .find(|k| self.get(*k).is_some())
            .unwrap_or(self.root.kind);
        (kind, Some(&kind) != wanted.first())
    }

    /// Where `policy` places a file now; warns the first time a policy falls back.
    pub fn place(&self, policy: StoragePolicy) -> StorageType {
        let (kind, fell_back) = self.choose(policy);
        // A store that places files by policy (HDFS) honours it on the directory instead.
        if fell_back && !self.files.places_by_policy() && self.warned.lock().insert(policy) {
            let wanted = preference(policy)[0];
            let at = if kind == self.root.kind {
                "the data directory".to_owned()
            } else {
                self.dir(kind, Path::new("")).display().to_string()
            };
            (self.warn)(&format!(
                "storage policy {policy} wants a {wanted} volume and none is configured; its \
                 files go to the {kind} volume ({at})"
            ));
        }
        kind
    }

    /// The storage type a manifest's tier field names; the empty name (files written before
    /// tiers were recorded) is the data directory's.
    ///
    /// # Errors
    /// The name is unknown, or no volume of that type is configured (the file cannot be
    /// found; the error says which volume to declare).
    pub fn resolve(&self, tier: &str) -> Result<StorageType, String> {
        if tier.is_empty() {
            return Ok(self.root.kind);
        }
        let kind = StorageType::parse(tier)
            .ok_or_else(|| format!("unknown storage tier '{tier}' in the manifest"))?;
        match self.get(kind) {
            Some(_) => Ok(kind),
            None => Err(format!(
                "a store file is on a {kind} volume, and none is configured; declare the \
                 {kind} volume it was written to"
            )),
        }
    }

    /// The directory for `rel` (a path relative to the data directory) on the volume of type
    /// `kind`; the data directory's when there is no such volume.
    pub fn dir(&self, kind: StorageType, rel: &Path) -> PathBuf {
        self.get(kind).unwrap_or(&self.root).path.join(rel)
    }

    /// Removes `rel` (relative to the data directory) from every volume other than the data
    /// directory; missing directories are fine.
    ///
    /// # Errors
    /// A removal failed.
    pub fn remove_elsewhere(&self, rel: &Path) -> std::io::Result<()> {
        for v in &self.others {
            self.files_of(v.kind).remove_dir_all(&v.path.join(rel))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vol(kind: StorageType, path: &str) -> Volume {
        Volume {
            kind,
            path: PathBuf::from(path),
        }
    }

    #[test]
    fn parses_volume_specs_with_clear_errors() {
        assert_eq!(
            Volume::parse("ssd=/fast").unwrap(),
            vol(StorageType::Ssd, "/fast")
        );
        assert_eq!(Volume::parse("DISK=/d").unwrap().kind, StorageType::Hdd);
        assert!(Volume::parse("/fast").unwrap_err().contains("TYPE=PATH"));
        assert!(Volume::parse("FLASH=/x").unwrap_err().contains("allowed"));
        assert!(Volume::parse("SSD=").unwrap_err().contains("empty"));
    }

    #[test]
    fn rejects_duplicate_types_and_paths() {
        let e = Volumes::new("/d", StorageType::Hdd, vec![vol(StorageType::Hdd, "/e")]);
        assert!(e.unwrap_err().contains("one volume per type"));
        let e = Volumes::new(
            "/d",
            StorageType::Hdd,
            vec![vol(StorageType::Ssd, "/s"), vol(StorageType::Archive, "/s")],
        );
        assert!(e.unwrap_err().contains("two volumes on"));
    }

    #[test]
    fn places_by_policy_with_fallbacks() {
        let v = Volumes::new(
            "/d",
            StorageType::Hdd,
            vec![vol(StorageType::Ssd, "/s"), vol(StorageType::RamDisk, "/r")],
        )
        .unwrap();
        assert_eq!(
            v.choose(StoragePolicy::LazyPersist),
            (StorageType::RamDisk, false)
        );
        assert_eq!(v.choose(StoragePolicy::AllSsd), (StorageType::Ssd, false));
        assert_eq!(v.choose(StoragePolicy::OneSsd), (StorageType::Ssd, false));
        assert_eq!(v.choose(StoragePolicy::Hot), (StorageType::Hdd, false));
        assert_eq!(v.choose(StoragePolicy::Warm), (StorageType::Hdd, false));
        // No archive volume: COLD falls back to the data directory.
        assert_eq!(v.choose(StoragePolicy::Cold), (StorageType::Hdd, true));
        let v = Volumes::new("/d", StorageType::Hdd, Vec::new()).unwrap();
        assert_eq!(v.choose(StoragePolicy::AllSsd), (StorageType::Hdd, true));
        assert_eq!(v.choose(StoragePolicy::Hot), (StorageType::Hdd, false));
        // HOT on an SSD data directory with an archive volume: HDFS's fallback, archive.
        let v = Volumes::new(
            "/d",
            StorageType::Ssd,
            vec![vol(StorageType::Archive, "/a")],
        )
        .unwrap();
        assert_eq!(v.choose(StoragePolicy::Hot), (StorageType::Archive, true));
        assert_eq!(
            v.choose(StoragePolicy::LazyPersist),
            (StorageType::Ssd, true)
        );
    }

    #[test]
    fn warns_once_per_policy() {
        let seen = Arc::new(Mutex::new(Vec::<String>::new()));
        let sink = seen.clone();
        let v = Volumes::new("/d", StorageType::Hdd, Vec::new())
            .unwrap()
            .with_warnings(Arc::new(move |m| sink.lock().push(m.to_owned())));
        for _ in 0..3 {
            assert_eq!(v.place(StoragePolicy::AllSsd), StorageType::Hdd);
            assert_eq!(v.place(StoragePolicy::Hot), StorageType::Hdd);
        }
        let seen = seen.lock();
        assert_eq!(seen.len(), 1, "{seen:?}");
        assert!(
            seen[0].contains("ALL_SSD wants a SSD volume"),
            "{}",
            seen[0]
        );
    }

    #[test]
    fn resolves_manifest_tiers() {
        let v = Volumes::new("/d", StorageType::Hdd, vec![vol(StorageType::Ssd, "/s")]).unwrap();
        assert_eq!(v.resolve("").unwrap(), StorageType::Hdd);
        assert_eq!(v.resolve("SSD").unwrap(), StorageType::Ssd);
        assert!(v
            .resolve("ARCHIVE")
            .unwrap_err()
            .contains("declare the ARCHIVE volume"));
        assert!(v
            .resolve("TAPE")
            .unwrap_err()
            .contains("unknown storage tier"));
        assert_eq!(
            v.dir(StorageType::Ssd, Path::new("tables/t/1/cf")),
            PathBuf::from("/s/tables/t/1/cf")
        );
        assert_eq!(
            v.dir(StorageType::Archive, Path::new("x")),
            PathBuf::from("/d/x")
        );
    }
}
