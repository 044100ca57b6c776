//! [`Manifest`]: a region's durable [`Version`], updated atomically by [`VersionEdit`]s.
//!
//! Files in the directory: `MANIFEST-<n>` (n: 20 decimal digits), each a complete snapshot, and
//! transiently `MANIFEST-<n>.tmp`. The highest-numbered `MANIFEST-<n>` is the current one.
//!
//! Publishing version n (the commit protocol):
//! 1. write `MANIFEST-<n>.tmp`, 2. `sync_file` it, 3. rename it to `MANIFEST-<n>`,
//! 4. `sync_dir` (the commit point), 5. remove `MANIFEST-<n-1>`.
//!
//! Invariants:
//! - A file named `MANIFEST-<n>` is always complete: its bytes are synced before it gets the
//!   name. A `.tmp` file is an unfinished write and is deleted on open.
//! - An older manifest is removed only after a newer one is durable, so a crash at any instant
//!   leaves the newest `MANIFEST-<n>` holding either the old or the new version.
//! - So a damaged current manifest is never an unfinished write: open reports it instead of
//!   falling back to an older one (whose files compactions may have deleted since).
//! - A failed publish never blocks the next: a failure before the rename leaves the current
//!   manifest the durable one (the `.tmp` is removed, the next publish reuses the number); a
//!   failed directory sync leaves the old or the new one durable, so the next publish takes
//!   the number after the new one and supersedes either. Callers keep every file a
//!   possibly-durable manifest lists until a later edit is durable (a failed flush or
//!   compaction leaves its outputs, unlisted, for open to delete).
//!
//! Thread safety: [`Manifest::apply`] takes `&mut self`; the region serializes its edits (one
//! owner, or a mutex). Readers keep the `Arc<Version>` they were given.

use std::sync::Arc;

use super::edit::VersionEdit;
use super::error::{Error, Result};
use super::format;
use super::fs::Fs;
use super::version::Version;

const PREFIX: &str = "MANIFEST-";
const TMP_SUFFIX: &str = ".tmp";

/// The name of manifest number `n`.
pub fn file_name(n: u64) -> String {
    format!("{PREFIX}{n:020}")
}

/// What a directory entry is, by its name.
enum Entry {
    Manifest(u64),
    Temporary,
    Other,
}

fn classify(name: &str) -> Entry {
    let Some(rest) = name.strip_prefix(PREFIX) else {
        return Entry::Other;
    };
    let (digits, tmp) = match rest.strip_suffix(TMP_SUFFIX) {
        Some(d) => (d, true),
        None => (rest, false),
    };
    if digits.len() != 20 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Entry::Other;
    }
    match (tmp, digits.parse::<u64>()) {
        (true, _) => Entry::Temporary,
        (false, Ok(n)) => Entry::Manifest(n),
        (false, Err(_)) => Entry::Other,
    }
}

/// A region's manifest: the current [`Version`] and the means to change it durably.
#[derive(Debug)]
pub struct Manifest {
    fs: Arc<dyn Fs>,
    number: u64,
    current: Arc<Version>,
    /// Manifests superseded by a failed publish (which may or may not be durable), removed
    /// once a later one is.
    superseded: Vec<u64>,
}

impl Manifest {
    /// Records a new region's first version as manifest 1.
    ///
    /// A crash before this returns leaves either no manifest (open then reports
    /// [`Error::NotFound`] and creating again is safe) or the complete first version.
    ///
    /// # Errors
    /// [`Error::AlreadyExists`] if the directory holds a manifest; [`Error::Io`].
    pub fn create(fs: Arc<dyn Fs>, version: Version) -> Result<Manifest> {
        let names = fs.list().map_err(Error::io("."))?;
        for name in &names {
            match classify(name) {
                Entry::Manifest(_) => return Err(Error::AlreadyExists { file: name.clone() }),
                Entry::Temporary => fs.remove(name).map_err(Error::io(name))?,
                Entry::Other => {}
            }
        }
        let mut manifest = Manifest {
            fs,
            number: 0,
            current: Arc::new(version),
            superseded: Vec::new(),
        };
        let first = Arc::clone(&manifest.current);
        manifest.publish(first)?;
        Ok(manifest)
    }

    /// Opens the current manifest and deletes unfinished and superseded files.
    ///
    /// # Errors
    /// [`Error::NotFound`] without a manifest; [`Error::Corruption`] or
    /// [`Error::UnsupportedVersion`] naming the current manifest; [`Error::Io`].
    pub fn open(fs: Arc<dyn Fs>) -> Result<Manifest> {
        let names = fs.list().map_err(Error::io("."))?;
        let mut numbers = Vec::new();
        let mut stale = Vec::new();
        for name in &names {
            match classify(name) {
                Entry::Manifest(n) => numbers.push(n),
                Entry::Temporary => stale.push(name.clone()),
                Entry::Other => {}
            }
        }
        let newest = numbers.iter().copied().max();
        stale.extend(
            numbers
                .iter()
                .filter(|n| Some(**n) != newest)
                .map(|n| file_name(*n)),
        );
        let number = newest.ok_or(Error::NotFound)?;
        let name = file_name(number);
        let bytes = fs.read(&name).map_err(Error::io(&name))?;
        let (recorded, version) = format::decode(&name, &bytes)?;
        if recorded != number {
            return Err(Error::Corruption {
                file: name,
                offset: 0,
                reason: format!("header says manifest {recorded}"),
            });
        }
        // Cleanup is an optimisation: a failure leaves files the next open removes again.
        for name in &stale {
            let _ = fs.remove(name);
        }
        Ok(Manifest {
            fs,
            number,
            current: Arc::new(version),
            superseded: Vec::new(),
        })
    }

    /// The current version.
    pub fn current(&self) -> &Arc<Version> {
        &self.current
    }

    /// The current manifest's number (1 after create, +1 per applied edit, +1 more after a
    /// publish whose directory sync failed).
    pub fn number(&self) -> u64 {
        self.number
    }

    /// Applies `edit` and makes the result durable; returns the new current version. An empty
    /// edit changes nothing and writes nothing.
    ///
    /// When this returns `Ok`, the new version survives any crash. When it returns
    /// [`Error::Io`], the current version stays the old one, the durable state is the old or
    /// the new version until the next successful apply (which supersedes both), and the
    /// handle stays usable: the next apply retries.
    ///
    /// # Errors
    /// [`Error::Edit`] (nothing written), [`Error::Io`].
    pub fn apply(&mut self, edit: &VersionEdit) -> Result<Arc<Version>> {
        if edit.is_empty() {
            return Ok(Arc::clone(&self.current));
        }
        let next = Arc::new(self.current.apply(edit)?);
        self.publish(Arc::clone(&next))?;
        Ok(next)
    }

    /// Writes `version` as manifest `self.number + 1` and makes it current.
    fn publish(&mut self, version: Arc<Version>) -> Result<()> {
        let number = self.number + 1;
        let name = file_name(number);
        let tmp = format!("{name}{TMP_SUFFIX}");
        let bytes = format::encode(&version, number);
        let fs = &self.fs;
        let named = fs
            .write(&tmp, &bytes)
            .and_then(|()| fs.sync_file(&tmp))
            .map_err(Error::io(&tmp))
            .and_then(|()| fs.rename(&tmp, &name).map_err(Error::io(&name)));
        if let Err(e) = named {
            // Never named (a failed rename did not happen): the current manifest is the
            // durable one. A failed removal leaves a `.tmp` the next write replaces.
            let _ = fs.remove(&tmp);
            return Err(e);
        }
        if let Err(e) = fs.sync_dir().map_err(Error::io(".")) {
            // `name` may or may not be durable: the next publish goes past it.
            if self.number > 0 {
                self.superseded.push(self.number);
            }
            self.number = number;
            return Err(e);
        }
        // The new manifest is durable; a failed removal leaves a file open removes.
        if self.number > 0 {
            self.superseded.push(self.number);
        }
        for old in std::mem::take(&mut self.superseded) {
            let _ = self.fs.remove(&file_name(old));
        }
        self.number = number;
        self.current = version;
        Ok(())
    }
}
