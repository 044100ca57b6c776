//! Store files written and opened through the region's [`FileStore`].

use std::path::Path;

use strata_sstable::{FileInfo, Reader, ReaderOptions, Writer, WriterOptions};

use crate::error::{Error, Result};
use crate::tiers::{CountedSource, StorageType};
use crate::vfs::{FileStore, FileWriter};

/// A store file being written.
pub(crate) type SstWriter = Writer<Box<dyn FileWriter>>;

/// Creates the store file `path` (replacing a leftover there) and a writer for it.
///
/// # Errors
/// I/O errors, or invalid options.
pub(crate) fn create(
    files: &dyn FileStore,
    path: &Path,
    options: WriterOptions,
) -> Result<SstWriter> {
    let sink = files.create(path).map_err(|e| Error::io(path, e))?;
    Ok(Writer::new(sink, path.display().to_string(), options)?)
}

/// Finishes a store file and makes it durable (synced and closed). Its name is durable once
/// its directory is synced.
///
/// # Errors
/// I/O errors.
pub(crate) fn finish(writer: SstWriter, path: &Path) -> Result<FileInfo> {
    let (mut sink, info) = writer.finish()?;
    sink.sync().map_err(|e| Error::io(path, e))?;
    FileWriter::close(sink).map_err(|e| Error::io(path, e))?;
    Ok(info)
}

/// Opens the store file `path`, on the tier `kind` (its reads are counted under it).
///
/// # Errors
/// I/O errors, or corruption of the file's trailer, info, root index or bloom index.
pub(crate) fn open(
    files: &dyn FileStore,
    path: &Path,
    kind: StorageType,
    options: ReaderOptions,
) -> Result<Reader> {
    let source = files.open(path).map_err(|e| Error::io(path, e))?;
    let source: std::sync::Arc<dyn strata_sstable::Source> =
        std::sync::Arc::new(CountedSource::new(source, kind));
    Ok(Reader::from_source(
        source,
        path.display().to_string(),
        options,
    )?)
}
