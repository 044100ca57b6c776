//! Store files of a bulk load, and cutting one that crosses region boundaries into one file per
//! region (HBase's `LoadIncrementalHFiles` splits an HFile the same way). A file sent to a
//! server is always whole: a cut writes new files, with the original's settings.

use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use bytes::Bytes;
use strata_sstable::{Reader, ReaderOptions, Writer, WriterOptions};

use crate::error::Error;
use crate::locate::RegionLocation;

/// A store file to bulk-load: written by [`strata_sstable::Writer`] (cells in store order, one
/// family), for `family` of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BulkFile {
    /// The column family the file's cells belong to.
    pub family: String,
    /// Where the file is.
    pub path: PathBuf,
}

/// The store files under `dir` as HBase lays out a bulk load's output: one sub-directory per
/// family, each holding that family's files (names starting with `.` or `_` are skipped).
///
/// # Errors
/// The directory cannot be listed, or holds no file.
pub fn bulk_files_in(dir: &Path) -> io::Result<Vec<BulkFile>> {
    let mut out = Vec::new();
    let hidden = |name: &str| name.starts_with('.') || name.starts_with('_');
    let mut families: Vec<_> = fs::read_dir(dir)?.collect::<io::Result<_>>()?;
    families.sort_by_key(fs::DirEntry::file_name);
    for family in families {
        let name = family.file_name().to_string_lossy().into_owned();
        if hidden(&name) || !family.file_type()?.is_dir() {
            continue;
        }
        let mut files: Vec<_> = fs::read_dir(family.path())?.collect::<io::Result<_>>()?;
        files.sort_by_key(fs::DirEntry::file_name);
        for file in files {
            let file_name = file.file_name().to_string_lossy().into_owned();
            if hidden(&file_name) || !file.file_type()?.is_file() {
                continue;
            }
            out.push(BulkFile {
                family: name.clone(),
                path: file.path(),
            });
        }
    }
    if out.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!(
                "{} holds no store file (expected one directory per family)",
                dir.display()
            ),
        ));
    }
    Ok(out)
}

/// A file ready to send: its rows, length and checksum known.
#[derive(Clone, Debug)]
pub(crate) struct Piece {
    pub family: String,
    pub path: PathBuf,
    pub first: Bytes,
    pub last: Bytes,
    /// Written by a cut (deleted once loaded).
    pub cut: bool,
}

fn invalid(path: &Path, what: impl std::fmt::Display) -> Error {
    Error::invalid(format!("{}: {what}", path.display()))
}

/// Opens `file` and checks that it is a store file of its family; `None` for one without
/// cells (nothing to load).
pub(crate) fn piece_of(file: &BulkFile) -> Result<Option<Piece>, Error> {
    let reader =
        Reader::open(&file.path, ReaderOptions::default()).map_err(|e| invalid(&file.path, e))?;
    let info = reader.info();
    if info.family.as_ref() != file.family.as_bytes() {
        return Err(invalid(
            &file.path,
            format!(
                "holds family {:?}, given for family {:?}",
                String::from_utf8_lossy(&info.family),
                file.family
            ),
        ));
    }
    let (Some(first), Some(last)) = (&info.first_key, &info.last_key) else {
        return Ok(None);
    };
    Ok(Some(Piece {
        family: file.family.clone(),
        path: file.path.clone(),
        first: first.row.clone(),
        last: last.row.clone(),
        cut: false,
    }))
}

/// The indexes (into `regions`, sorted by start row) of the regions `piece` overlaps; `None`
/// if its first or last row has no region (a stale or incomplete list).
pub(crate) fn overlapped(
    regions: &[RegionLocation],
    piece: &Piece,
) -> Option<std::ops::RangeInclusive<usize>> {
    let find = |row: &[u8]| regions.iter().position(|r| r.contains(row));
    Some(find(&piece.first)?..=find(&piece.last)?)
}

/// Cuts `piece` into one file per region of `regions[range]`, written under `scratch` with
/// the original's settings. Regions the file has no cell in get no file.
pub(crate) fn cut(
    piece: &Piece,
    regions: &[RegionLocation],
    range: std::ops::RangeInclusive<usize>,
    scratch: &Path,
    serial: &mut u64,
) -> Result<Vec<(usize, Piece)>, Error> {
    let io = |e: io::Error| Error::invalid(format!("bulk load scratch {}: {e}", scratch.display()));
    fs::create_dir_all(scratch).map_err(io)?;
    let reader =
        Reader::open(&piece.path, ReaderOptions::default()).map_err(|e| invalid(&piece.path, e))?;
    let info = reader.info().clone();
    let options = WriterOptions {
        family: info.family.clone(),
        block_size: info.block_size as usize,
        encoding: info.encoding,
        compression: info.compression,
        bloom: info.bloom,
        created_at_ms: info.created_at_ms,
        ..WriterOptions::default()
    };
    let mut out = Vec::new();
    let mut it = reader.iter_uncached();
    let mut ok = it.seek_to_first().map_err(|e| invalid(&piece.path, e))?;
    let mut writing: Option<(usize, PathBuf, Writer<io::BufWriter<fs::File>>, Bytes)> = None;
    let finish = |w: Option<(usize, PathBuf, Writer<io::BufWriter<fs::File>>, Bytes)>,
                  last: Bytes,
                  out: &mut Vec<(usize, Piece)>|
     -> Result<(), Error> {
        if let Some((region, path, writer, first)) = w {
            writer.finish_and_sync().map_err(|e| invalid(&path, e))?;
            out.push((
                region,
                Piece {
                    family: piece.family.clone(),
                    path,
                    first,
                    last,
                    cut: true,
                },
            ));
        }
        Ok(())
    };
    let mut last_row = Bytes::new();
    let regions_of = &regions[range.clone()];
    while ok {
        let cell = it.current();
        let same = writing
            .as_ref()
            .is_some_and(|(r, ..)| regions[*r].contains(cell.row));
        if !same {
            finish(writing.take(), last_row.clone(), &mut out)?;
            let at = regions_of
                .iter()
                .position(|r| r.contains(cell.row))
                .map(|i| i + range.start())
                .ok_or_else(|| invalid(&piece.path, "a row outside the regions it spans"))?;
            *serial += 1;
            let path = scratch.join(format!("{}-{serial}.sst", piece.family));
            let writer = Writer::create(&path, options.clone()).map_err(|e| invalid(&path, e))?;
            writing = Some((at, path, writer, Bytes::copy_from_slice(cell.row)));
        }
        if last_row.as_ref() != cell.row {
            last_row = Bytes::copy_from_slice(cell.row);
        }
        let (_, path, writer, _) = writing.as_mut().expect("a writer is open");
        writer.add(&cell).map_err(|e| invalid(path, e))?;
        ok = it.next().map_err(|e| invalid(&piece.path, e))?;
    }
    finish(writing.take(), last_row, &mut out)?;
    Ok(out)
}

/// The length and CRC32C of the file at `path`.
pub(crate) fn checksum(path: &Path) -> io::Result<(u64, u32)> {
    let mut file = fs::File::open(path)?;
    let mut buf = vec![0u8; 1 << 20];
    let (mut len, mut crc) = (0u64, 0u32);
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            return Ok((len, crc));
        }
        len += n as u64;
        crc = crc32c::crc32c_append(crc, &buf[..n]);
    }
}
