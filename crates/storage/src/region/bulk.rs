//! Bulk load (RFC 0027): store files written outside the region join it, every file of one
//! load at once, ordered against the region's own writes by one sequence id.
//!
//! ```text
//! bulk_stage(family) ─▶ BulkStage::write(bytes)* ─▶ finish(len, crc32c): synced, opened,
//!                                                    every block verified ─▶ StagedFile
//! bulk_commit([StagedFile], load id): flush lock; s = next sequence id; rename each file to
//!   its store name; ONE VersionEdit adding them all (max_seq_id = s, BULK) ─▶ file lists;
//!   s completes: readers see the load's cells together, each read with sequence id s
//! ```
//!
//! A crash before the edit leaves `.tmp` or unlisted files that the next open removes; after
//! it the load is durable without the WAL (the files are the data, and `s` is recovered as
//! the largest sequence id of any listed file).

use std::path::PathBuf;
use std::sync::atomic::Ordering;

use bytes::Bytes;
use strata_model::cell::compare_bytes;
use strata_sstable::Reader;

use super::store::Store;
use super::Region;
use crate::error::{Error, Result};
use crate::manifest::{StoreFile, VersionEdit};
use crate::tiers::Tier;
use crate::vfs::FileWriter;

/// A file being received into a store, not yet part of the region.
pub struct BulkStage {
    family: Bytes,
    tier: Tier,
    dir: PathBuf,
    tmp: PathBuf,
    writer: Option<Box<dyn FileWriter>>,
    len: u64,
    crc: u32,
    region: Region,
}

/// A received file, checked and synced, waiting for [`Region::bulk_commit`].
pub struct StagedFile {
    /// Renamed to its store name: nothing to remove when dropped.
    renamed: bool,
    family: Bytes,
    tier: Tier,
    dir: PathBuf,
    tmp: PathBuf,
    reader: Reader,
    region: Region,
}

impl std::fmt::Debug for StagedFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StagedFile")
            .field("family", &self.family)
            .field("tmp", &self.tmp)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for BulkStage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BulkStage")
            .field("family", &self.family)
            .field("tmp", &self.tmp)
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

/// What a committed load added to the region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BulkLoaded {
    /// The sequence id the load's cells carry.
    pub seq_id: u64,
    /// Files added.
    pub files: usize,
    /// Cells added.
    pub cells: u64,
    /// Bytes added.
    pub bytes: u64,
    /// False when every file of this load id was there already (a retried call).
    pub loaded: bool,
}

impl BulkStage {
    /// Appends the file's next bytes.
    ///
    /// # Errors
    /// I/O errors of the store.
    pub fn write(&mut self, bytes: &[u8]) -> Result<()> {
        let writer = self
            .writer
            .as_mut()
            .expect("a stage writes until it finishes");
        writer
            .write_all(bytes)
            .map_err(|e| Error::io(&self.tmp, e))?;
        self.len += bytes.len() as u64;
        self.crc = crc32c::crc32c_append(self.crc, bytes);
        Ok(())
    }

    /// Ends the file: its length and CRC32C must be those the sender announced; it is synced,
    /// opened and every block of it verified, so a damaged file is refused here, and deleted.
    ///
    /// # Errors
    /// `InvalidArgument` for a length or checksum mismatch, a file that is not a store file, a
    /// damaged one, or one of another family; I/O errors.
    pub fn finish(mut self, len: u64, crc32c: u32) -> Result<StagedFile> {
        let checked = self.check(len, crc32c);
        match checked {
            Ok(reader) => Ok(StagedFile {
                renamed: false,
                family: self.family.clone(),
                tier: self.tier,
                dir: self.dir.clone(),
                tmp: self.tmp.clone(),
                reader,
                region: self.region.clone(),
            }),
            Err(e) => {
                self.discard();
                Err(e)
            }
        }
    }

    fn check(&mut self, len: u64, crc32c: u32) -> Result<Reader> {
        let mut writer = self.writer.take().expect("finished once");
        writer.sync().map_err(|e| Error::io(&self.tmp, e))?;
        FileWriter::close(writer).map_err(|e| Error::io(&self.tmp, e))?;
        if self.len != len || self.crc != crc32c {
            return Err(Error::InvalidArgument(format!(
                "bulk file received with {} bytes and CRC32C {:08x}, sent as {len} bytes and \
                 {crc32c:08x}",
                self.len, self.crc
            )));
        }
        let store = self.region.store_of(&self.family)?;
        let files = store.files_of(self.tier).as_ref();
        let bad = |e: Error| Error::InvalidArgument(format!("not a valid store file: {e}"));
        let reader =
            super::sst_io::open(files, &self.tmp, self.tier.kind(), store.reader_options())
                .map_err(bad)?;
        reader.verify().map_err(|e| bad(Error::Sstable(e)))?;
        let family = &reader.info().family;
        if family.as_ref() != self.family.as_ref() {
            return Err(Error::InvalidArgument(format!(
                "the file holds family {:?}, sent for family {:?}",
                String::from_utf8_lossy(family),
                String::from_utf8_lossy(&self.family)
            )));
        }
        Ok(reader)
    }

    fn discard(&mut self) {
        if let Some(w) = self.writer.take() {
            let _ = FileWriter::close(w);
        }
        if let Ok(store) = self.region.store_of(&self.family) {
            let _ = store.files_of(self.tier).remove_file(&self.tmp);
        }
    }
}

impl Drop for BulkStage {
    fn drop(&mut self) {
        // Abandoned mid-way (the sender went away): nothing of it stays.
        if self.writer.is_some() {
            self.discard();
        }
    }
}

impl StagedFile {
    /// The file's first and last rows (`None` for a file without cells).
    pub fn rows(&self) -> Option<(Bytes, Bytes)> {
        let info = self.reader.info();
        Some((
            info.first_key.as_ref()?.row.clone(),
            info.last_key.as_ref()?.row.clone(),
        ))
    }

    /// Cells in the file.
    pub fn cells(&self) -> u64 {
        self.reader.info().cell_count
    }

    /// The family it is for.
    pub fn family(&self) -> &Bytes {
        &self.family
    }

    fn remove(&self) {
        if let Ok(store) = self.region.store_of(&self.family) {
            let _ = store.files_of(self.tier).remove_file(&self.tmp);
        }
    }
}

impl Drop for StagedFile {
    fn drop(&mut self) {
        // Renamed files are the store's now (listed, or removed by the next open).
        if !self.renamed {
            self.remove();
        }
    }
}

impl Region {
    /// Starts receiving a bulk-loaded file for `family`, on the family's flush tier.
    ///
    /// # Errors
    /// `NoSuchFamily`; `Closed`; I/O errors.
    pub fn bulk_stage(&self, family: &[u8]) -> Result<BulkStage> {
        if self.inner.closed.load(Ordering::Acquire) {
            return Err(Error::Closed(self.inner.config.info.region_id));
        }
        let store = self.store_of(family)?;
        let tier = store.written_tier(store.flush_tier());
        let dir = store.prepare_dir(tier)?;
        let n = self.inner.compactions.nonce.fetch_add(1, Ordering::Relaxed);
        let now = self.inner.config.clock.now_ms();
        let tmp = dir.join(format!("bulk-{now:x}-{n:x}.sst.tmp"));
        let writer = store
            .files_of(tier)
            .create(&tmp)
            .map_err(|e| Error::io(&tmp, e))?;
        Ok(BulkStage {
            family: store.name.clone(),
            tier,
            dir,
            tmp,
            writer: Some(writer),
            len: 0,
            crc: 0,
            region: self.clone(),
        })
    }

    /// Adds `staged` (files of this region, from [`Region::bulk_stage`]) to the region: all of
    /// them or none. `load_id` names the load: files whose names carry it are already there
    /// (a call retried after its answer was lost), and the call then changes nothing.
    ///
    /// # Errors
    /// `WrongRegion` for a file with rows outside the region; `InvalidArgument` for one
    /// staged by another region; `Closed`; I/O and manifest errors (nothing added).
    pub fn bulk_commit(&self, staged: Vec<StagedFile>, load_id: u64) -> Result<BulkLoaded> {
        let inner = &self.inner;
        let info = &inner.config.info;
        for file in &staged {
            if !std::ptr::eq(file.region.inner.as_ref(), inner.as_ref()) {
                return Err(Error::InvalidArgument(
                    "a bulk file staged for another region".into(),
                ));
            }
            if let Some((first, last)) = file.rows() {
                let below =
                    !info.start_row.is_empty() && compare_bytes(&first, &info.start_row).is_lt();
                let above = !info.end_row.is_empty() && compare_bytes(&last, &info.end_row).is_ge();
                if below || above {
                    // The sender's view of the region is stale (it split): it cuts again.
                    let escape = strata_model::ops::escape;
                    return Err(Error::WrongRegion {
                        row: escape(if below { &first } else { &last }),
                        region: info.region_id,
                        start: escape(&info.start_row),
                        end: escape(&info.end_row),
                    });
                }
            }
        }
        let marker = format!("-bulk{load_id:016x}-");
        let _flush = inner.flush_lock.lock();
        if inner.closed.load(Ordering::Acquire) {
            return Err(Error::Closed(info.region_id));
        }
        let already = inner.stores.values().any(|store| {
            store
                .files()
                .iter()
                .any(|f| f.meta.bulk && f.meta.name.contains(&marker))
        });
        if already {
            return Ok(BulkLoaded {
                seq_id: 0,
                files: 0,
                cells: 0,
                bytes: 0,
                loaded: false,
            });
        }
        let seq = inner.mvcc.begin();
        let mut staged = staged;
        let result = self.install_bulk(&mut staged, seq, &marker);
        // Visible once the edit is durable; given back (unused) when it is not.
        inner.mvcc.complete(seq);
        let metas = result?;
        Ok(BulkLoaded {
            seq_id: seq,
            files: metas.len(),
            cells: metas.iter().map(|(_, m)| m.cell_count).sum(),
            bytes: metas.iter().map(|(_, m)| m.size).sum(),
            loaded: true,
        })
    }

    /// Renames the staged files to store names and adds them in one edit. Requires: the flush
    /// lock is held.
    fn install_bulk(
        &self,
        staged: &mut [StagedFile],
        seq: u64,
        marker: &str,
    ) -> Result<Vec<(Bytes, StoreFile)>> {
        let inner = &self.inner;
        let now = inner.config.clock.now_ms();
        let mut metas = Vec::with_capacity(staged.len());
        let mut renamed = Vec::new();
        let outcome = (|| {
            for (i, file) in staged.iter_mut().enumerate() {
                let store = self.store_of(&file.family)?;
                let name = format!("{seq:016x}-{now:x}{marker}{i:x}.sst");
                let path = file.dir.join(&name);
                let files = store.files_of(file.tier);
                files
                    .rename(&file.tmp, &path)
                    .map_err(|e| Error::io(&path, e))?;
                file.renamed = true;
                renamed.push((files.clone(), path.clone()));
                let info = file.reader.info();
                metas.push((
                    store.name.clone(),
                    StoreFile {
                        name,
                        size: file.reader.file_len(),
                        max_seq_id: seq,
                        min_timestamp: info.min_timestamp,
                        max_timestamp: info.max_timestamp,
                        cell_count: info.cell_count,
                        created_at_ms: now,
                        major: false,
                        tier: store.tier_name(file.tier),
                        reference: None,
                        link: None,
                        bulk: true,
                    },
                ));
            }
            for file in staged {
                super::flush::sync_dir(
                    self.store_of(&file.family)?.files_of(file.tier).as_ref(),
                    &file.dir,
                )?;
            }
            let edit = metas.iter().fold(VersionEdit::new(), |e, (family, meta)| {
                e.add_file(family.clone(), meta.clone())
            });
            inner.manifest.lock().apply(&edit)?;
            Ok(())
        })();
        if let Err(e) = outcome {
            // Not listed: removed now, or by the next open.
            for (files, path) in renamed {
                let _ = files.remove_file(&path);
            }
            return Err(e);
        }
        for (family, meta) in &metas {
            let store = self.store_of(family)?;
            let handle = store.open_file(meta.clone())?;
            let mut files: Vec<_> = store.files().iter().cloned().collect();
            files.push(handle);
            store.set_files(files);
        }
        self.request_compaction();
        Ok(metas)
    }

    fn store_of(&self, family: &[u8]) -> Result<&Store> {
        self.inner
            .stores
            .get(family)
            .ok_or_else(|| Error::NoSuchFamily(String::from_utf8_lossy(family).into_owned()))
    }
}
