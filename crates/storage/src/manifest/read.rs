//! Reading a region's current manifest without opening it: for a process other than the
//! region's server (a snapshot taker, a split parent's janitor), which must not remove
//! temporary files or take the region's lock.

use std::io;
use std::path::Path;

use super::format;
use super::store::file_name;
use super::version::Version;
use crate::vfs::FileStore;

/// The number of the newest `MANIFEST-<n>` in `dir`, if any.
///
/// # Errors
/// Listing failed (a missing directory is `Ok(None)`).
pub fn current_number(files: &dyn FileStore, dir: &Path) -> io::Result<Option<u64>> {
    let entries = match files.list(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    Ok(entries
        .into_iter()
        .filter_map(|e| {
            let digits = e.name.strip_prefix("MANIFEST-")?.to_owned();
            (digits.len() == 20 && digits.bytes().all(|b| b.is_ascii_digit()))
                .then(|| digits.parse::<u64>().ok())
                .flatten()
        })
        .max())
}

/// The bytes and the decoded version of the newest manifest in `dir`; `None` when the
/// directory has none. The region's server may write the next manifest and remove this one
/// meanwhile: a manifest that vanished between the listing and the read is looked for again.
///
/// # Errors
/// Listing or reading failed, or the newest manifest is corrupt.
pub fn read_current(files: &dyn FileStore, dir: &Path) -> io::Result<Option<(Vec<u8>, Version)>> {
    let mut attempts = 0;
    loop {
        let Some(n) = current_number(files, dir)? else {
            return Ok(None);
        };
        let name = file_name(n);
        match files.read(&dir.join(&name)) {
            Ok(bytes) => {
                let (_, version) = format::decode(&name, &bytes)
                    .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))?;
                return Ok(Some((bytes, version)));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound && attempts < 10 => attempts += 1,
            Err(e) => return Err(e),
        }
    }
}
