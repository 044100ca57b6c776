//! Bytes read from store files per storage tier, counted for the whole process: what the
//! block cache did not absorb, by the tier the bytes came from (seed 001's question: how much
//! of the read load reaches RAM disk, SSD, HDD or archive).

use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use strata_sstable::Source;

use super::StorageType;

static BYTES: [AtomicU64; 4] = [const { AtomicU64::new(0) }; 4];
static READS: [AtomicU64; 4] = [const { AtomicU64::new(0) }; 4];

fn slot(kind: StorageType) -> usize {
    match kind {
        StorageType::RamDisk => 0,
        StorageType::Ssd => 1,
        StorageType::Hdd => 2,
        StorageType::Archive => 3,
    }
}

/// Reads from store files of one tier since the process started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TierReads {
    /// The tier.
    pub kind: StorageType,
    /// Bytes read from its files.
    pub bytes: u64,
    /// Read requests made to its files.
    pub reads: u64,
}

/// Reads per tier since the process started, fastest tier first.
pub fn tier_reads() -> Vec<TierReads> {
    StorageType::ALL
        .iter()
        .map(|&kind| TierReads {
            kind,
            bytes: BYTES[slot(kind)].load(Ordering::Relaxed),
            reads: READS[slot(kind)].load(Ordering::Relaxed),
        })
        .collect()
}

/// A store file's source that counts what is read from it under its tier.
pub(crate) struct CountedSource {
    inner: Arc<dyn Source>,
    slot: usize,
}

impl CountedSource {
    pub(crate) fn new(inner: Arc<dyn Source>, kind: StorageType) -> CountedSource {
        CountedSource {
            inner,
            slot: slot(kind),
        }
    }

    /// Counts one read of `b` under the file's tier.
    fn count(&self, b: &Bytes) {
        BYTES[self.slot].fetch_add(b.len() as u64, Ordering::Relaxed);
        READS[self.slot].fetch_add(1, Ordering::Relaxed);
    }
}

impl Source for CountedSource {
    fn read_at(&self, offset: u64, len: usize) -> io::Result<Bytes> {
        let b = self.inner.read_at(offset, len)?;
        self.count(&b);
        Ok(b)
    }

    fn read_at_nowait(&self, offset: u64, len: usize) -> io::Result<Option<Bytes>> {
        let b = self.inner.read_at_nowait(offset, len)?;
        if let Some(b) = &b {
            self.count(b);
        }
        Ok(b)
    }

    fn size(&self) -> io::Result<u64> {
        self.inner.size()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    struct Zeros;
    impl Source for Zeros {
        fn read_at(&self, _offset: u64, len: usize) -> io::Result<Bytes> {
            Ok(Bytes::from(vec![0; len]))
        }
        fn size(&self) -> io::Result<u64> {
            Ok(1 << 20)
        }
    }

    #[test]
    fn reads_are_counted_under_the_files_tier() {
        let of = |k: StorageType| tier_reads().into_iter().find(|r| r.kind == k).unwrap();
        let before = of(StorageType::Archive);
        let s = CountedSource::new(Arc::new(Zeros), StorageType::Archive);
        s.read_at(0, 100).unwrap();
        s.read_at(100, 28).unwrap();
        let after = of(StorageType::Archive);
        // Other tests of this process may read archive files too: at least ours are counted.
        assert!(after.bytes >= before.bytes + 128, "{before:?} {after:?}");
        assert!(after.reads >= before.reads + 2, "{before:?} {after:?}");
        assert_eq!(s.size().unwrap(), 1 << 20);
    }
}
