//! Positional reads of one object (the sstable `Source`): pages from the cache, each run of
//! missing pages fetched with one ranged GET.

use std::io;
use std::ops::Range;

use bytes::Bytes;
use object_store::path::Path as Key;
use object_store::ObjectStoreExt;
use strata_storage::vfs::Source;

use super::{io_error, S3Requests, S3};
use crate::s3_cache::{key_hash, PAGE};

/// Positional reads of one object, page by page through the cache.
pub(super) struct S3Source {
    s3: S3,
    key: Key,
    hash: u128,
    len: u64,
}

impl S3Source {
    /// Reads of the object `key` of `len` bytes.
    pub(super) fn new(s3: S3, key: Key, len: u64) -> S3Source {
        S3Source {
            s3,
            hash: key_hash(key.as_ref()),
            key,
            len,
        }
    }

    fn get_range(&self, range: Range<u64>) -> io::Result<Bytes> {
        let inner = &self.s3.inner;
        S3Requests::count(&inner.requests.get);
        let (store, k) = (inner.store.clone(), self.key.clone());
        inner.bridge.run(
            &format!("read {}", self.s3.url_of(self.key.as_ref())),
            async move { store.get_range(&k, range).await.map_err(io_error) },
        )
    }

    /// The end of the range `offset..offset + len`; `UnexpectedEof` past the object.
    fn end_of(&self, offset: u64, len: usize) -> io::Result<u64> {
        offset
            .checked_add(len as u64)
            .filter(|&end| end <= self.len)
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("{}: read past the end", self.s3.url_of(self.key.as_ref())),
                )
            })
    }
}

impl Source for S3Source {
    /// From the local page cache alone, each page's part read without waiting; `None` if a
    /// page is missing there or would wait for the disk (no GET is ever sent).
    fn read_at_nowait(&self, offset: u64, len: usize) -> io::Result<Option<Bytes>> {
        let end = self.end_of(offset, len)?;
        if len == 0 {
            return Ok(Some(Bytes::new()));
        }
        let Some(cache) = &self.s3.inner.cache else {
            return Ok(None);
        };
        let mut parts = Vec::new();
        for page in offset / PAGE..=(end - 1) / PAGE {
            let start = page * PAGE;
            let (lo, hi) = (offset.max(start) - start, end.min(start + PAGE) - start);
            match cache.get_nowait(self.hash, page, lo as usize, (hi - lo) as usize) {
                Some(part) => parts.push(part),
                None => return Ok(None),
            }
        }
        if parts.len() == 1 {
            return Ok(parts.pop());
        }
        Ok(Some(Bytes::from(parts.concat())))
    }

    fn read_at(&self, offset: u64, len: usize) -> io::Result<Bytes> {
        let end = self.end_of(offset, len)?;
        if len == 0 {
            return Ok(Bytes::new());
        }
        let Some(cache) = &self.s3.inner.cache else {
            return self.get_range(offset..end);
        };
        let (first, last) = (offset / PAGE, (end - 1) / PAGE);
        let mut pages: Vec<Option<Bytes>> =
            (first..=last).map(|p| cache.get(self.hash, p)).collect();
        // Fetch each run of missing pages with one ranged GET.
        let mut i = 0;
        while i < pages.len() {
            if pages[i].is_some() {
                i += 1;
                continue;
            }
            let mut j = i;
            while j < pages.len() && pages[j].is_none() {
                j += 1;
            }
            let from = (first + i as u64) * PAGE;
            let to = ((first + j as u64) * PAGE).min(self.len);
            let data = self.get_range(from..to)?;
            if data.len() as u64 != to - from {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!(
                        "{}: short read ({} of {} bytes)",
                        self.s3.url_of(self.key.as_ref()),
                        data.len(),
                        to - from
                    ),
                ));
            }
            for (n, page) in data.chunks(PAGE as usize).enumerate() {
                let page = data.slice_ref(page);
                cache.put(self.hash, first + (i + n) as u64, &page);
                pages[i + n] = Some(page);
            }
            i = j;
        }
        if pages.len() == 1 {
            let page = pages.pop().flatten().expect("every page was fetched");
            let at = (offset - first * PAGE) as usize;
            return Ok(page.slice(at..at + len));
        }
        let mut out = Vec::with_capacity(len);
        for (n, page) in pages.into_iter().enumerate() {
            let page = page.expect("every page was fetched");
            let start = (first + n as u64) * PAGE;
            let lo = offset.saturating_sub(start) as usize;
            let hi = ((end - start) as usize).min(page.len());
            out.extend_from_slice(&page[lo..hi]);
        }
        Ok(Bytes::from(out))
    }

    fn size(&self) -> io::Result<u64> {
        Ok(self.len)
    }
}
