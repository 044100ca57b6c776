//! Bulk load (RFC 0027): store files written offline join a table's regions, each region's
//! share all at once, without the memtable or the WAL.
//!
//! ```text
//! files ─▶ rows, family checked ─▶ assigned to the table's regions (a file crossing
//!   boundaries is cut into one file per region) ─▶ per region: one BulkLoad call streaming
//!   its files to the hosting server
//!   NOT_SERVING_REGION (moved, split, merged) ─▶ regions asked afresh, that region's files
//!   assigned (and cut) again, sent again; bounded
//!   UNAVAILABLE (answer lost) ─▶ sent again with the same load id: never loaded twice
//! ```

use std::collections::BTreeMap;
use std::io::Read;
use std::path::PathBuf;
use std::time::Duration;

use strata_proto::pb::bulk_load_client::BulkLoadClient;
use strata_proto::pb::{self, ErrorCode};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use crate::bulk_cut::{checksum, cut, overlapped, piece_of, BulkFile, Piece};
use crate::connection::Connection;
use crate::error::Error;
use crate::locate::RegionLocation;

/// Rounds of locating and sending before a load gives up on regions that keep moving.
const MAX_ROUNDS: u32 = 12;
/// Bytes per streamed chunk.
const CHUNK: usize = 1 << 20;

/// What a bulk load did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BulkLoadReport {
    /// Regions that received files.
    pub regions: usize,
    /// Files added to regions (after cutting).
    pub files: usize,
    /// Cells added.
    pub cells: u64,
    /// Bytes sent and added.
    pub bytes: u64,
    /// Files that crossed region boundaries and were cut.
    pub cut: usize,
    /// Regions whose files were sent again (moved or split meanwhile, or an answer lost).
    pub retried: usize,
}

impl Connection {
    /// Adds the store files `files` to `table`: each region's share becomes visible at once,
    /// and every loaded cell reads as newer than any write acknowledged before its region's
    /// share was added. Files crossing region boundaries are cut into pieces under `scratch`
    /// (removed afterwards). Regions that move or split meanwhile are handled.
    ///
    /// # Errors
    /// `TABLE_NOT_FOUND`, `NO_SUCH_FAMILY`, `INVALID_ARGUMENT` for a file that is not a store
    /// file of its family (nothing is sent then), or the server's error. Regions loaded
    /// before an error keep their share.
    pub async fn bulk_load(
        &self,
        table: &str,
        files: &[BulkFile],
        scratch: PathBuf,
    ) -> Result<BulkLoadReport, Error> {
        let mut pending = Vec::new();
        for file in files {
            let file = file.clone();
            let piece = tokio::task::spawn_blocking(move || piece_of(&file))
                .await
                .map_err(|e| Error::invalid(e.to_string()))??;
            pending.extend(piece);
        }
        // Names this call's loads: a region's share sent again (an answer lost, or its server
        // died and another opened it) has the same load id and is not added twice.
        let salt: u64 = rand::random();
        let result = self.load_pieces(table, pending, &scratch, salt).await;
        let _ = std::fs::remove_dir_all(&scratch);
        result
    }

    async fn load_pieces(
        &self,
        table: &str,
        mut pending: Vec<Piece>,
        scratch: &std::path::Path,
        salt: u64,
    ) -> Result<BulkLoadReport, Error> {
        let mut report = BulkLoadReport::default();
        let mut serial = 0u64;
        let mut round = 0;
        while !pending.is_empty() {
            if round == MAX_ROUNDS {
                return Err(Error::new(
                    ErrorCode::NotServingRegion,
                    format!(
                        "bulk load into {table}: {} files still unplaced after {MAX_ROUNDS} \
                         rounds of locating regions",
                        pending.len()
                    ),
                ));
            }
            if round > 0 {
                tokio::time::sleep(Duration::from_millis(100 << round.min(5))).await;
            }
            round += 1;
            let regions = self.fresh_regions(table).await?;
            let regions = regions.all().to_vec();
            let mut groups: BTreeMap<usize, Vec<Piece>> = BTreeMap::new();
            let mut unplaced = Vec::new();
            for piece in pending.drain(..) {
                match overlapped(&regions, &piece) {
                    None => unplaced.push(piece),
                    Some(range) if range.start() == range.end() => {
                        groups.entry(*range.start()).or_default().push(piece);
                    }
                    Some(range) => {
                        let (p, r, s) = (piece.clone(), regions.clone(), scratch.to_owned());
                        let mut n = serial;
                        let (pieces, n) = tokio::task::spawn_blocking(move || {
                            cut(&p, &r, range, &s, &mut n).map(|pieces| (pieces, n))
                        })
                        .await
                        .map_err(|e| Error::invalid(e.to_string()))??;
                        serial = n;
                        report.cut += 1;
                        if piece.cut {
                            let _ = std::fs::remove_file(&piece.path);
                        }
                        for (at, p) in pieces {
                            groups.entry(at).or_default().push(p);
                        }
                    }
                }
            }
            pending = unplaced;
            for (at, pieces) in groups {
                let region = &regions[at];
                match self.load_region(table, region, &pieces, salt).await {
                    Ok(done) => {
                        report.regions += 1;
                        report.files += done.files as usize;
                        report.cells += done.cells;
                        report.bytes += done.bytes;
                        for p in pieces.iter().filter(|p| p.cut) {
                            let _ = std::fs::remove_file(&p.path);
                        }
                    }
                    // Moved, split, or its server gone: located again next round.
                    Err(e)
                        if e.code == ErrorCode::NotServingRegion
                            || e.code == ErrorCode::Unavailable =>
                    {
                        report.retried += 1;
                        pending.extend(pieces);
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(report)
    }

    /// Sends `pieces` to `region`'s server as one load; an answer lost on the way is asked
    /// again once with the same load id (derived from `salt`, the region and the files, so a
    /// later round sending the same share elsewhere uses it too).
    async fn load_region(
        &self,
        table: &str,
        region: &RegionLocation,
        pieces: &[Piece],
        salt: u64,
    ) -> Result<pb::BulkLoadResponse, Error> {
        if region.server.is_empty() {
            return Err(Error::new(
                ErrorCode::NotServingRegion,
                format!("region {} of {table} is not assigned", region.region_id),
            ));
        }
        let mut files = Vec::with_capacity(pieces.len());
        for p in pieces {
            let path = p.path.clone();
            let (length, crc32c) = tokio::task::spawn_blocking(move || checksum(&path))
                .await
                .map_err(|e| Error::invalid(e.to_string()))?
                .map_err(|e| Error::invalid(format!("{}: {e}", p.path.display())))?;
            files.push(pb::BulkLoadFile {
                family: p.family.clone(),
                length,
                crc32c,
            });
        }
        let header = pb::BulkLoadHeader {
            table: table.to_owned(),
            region_id: region.region_id,
            start_row: region.start_row.clone(),
            end_row: region.end_row.clone(),
            load_id: load_id(salt, region.region_id, &files),
            files,
        };
        let total: u64 = header.files.iter().map(|f| f.length).sum();
        // A minute, and a second more per 10 MiB: a large share on a slow store still fits.
        let limit = self.options().operation_timeout + Duration::from_secs(total >> 23);
        let mut attempt = 0;
        loop {
            attempt += 1;
            let sent = tokio::time::timeout(limit, self.send(region, &header, pieces)).await;
            let error = match sent {
                Ok(Ok(response)) => return Ok(response),
                Ok(Err(e)) => e,
                Err(_) => Error::new(
                    ErrorCode::Unavailable,
                    format!("bulk load into region {} timed out", region.region_id),
                ),
            };
            if error.code != ErrorCode::Unavailable || attempt >= 2 {
                return Err(error);
            }
            tokio::time::sleep(Duration::from_millis(200 * attempt)).await;
        }
    }

    async fn send(
        &self,
        region: &RegionLocation,
        header: &pb::BulkLoadHeader,
        pieces: &[Piece],
    ) -> Result<pb::BulkLoadResponse, Error> {
        let channel = self.channel(&region.server)?;
        let mut client = BulkLoadClient::new(channel)
            .max_encoding_message_size(strata_proto::MAX_MESSAGE_BYTES)
            .max_decoding_message_size(strata_proto::MAX_MESSAGE_BYTES);
        let (tx, rx) = mpsc::channel(4);
        let head = pb::BulkLoadPart {
            part: Some(pb::bulk_load_part::Part::Header(header.clone())),
        };
        let paths: Vec<PathBuf> = pieces.iter().map(|p| p.path.clone()).collect();
        let producer = tokio::task::spawn_blocking(move || {
            if tx.blocking_send(head).is_err() {
                return Ok(());
            }
            for path in paths {
                let mut file = std::fs::File::open(&path)?;
                loop {
                    let mut buf = vec![0u8; CHUNK];
                    let n = file.read(&mut buf)?;
                    if n == 0 {
                        break;
                    }
                    buf.truncate(n);
                    let part = pb::BulkLoadPart {
                        part: Some(pb::bulk_load_part::Part::Chunk(buf.into())),
                    };
                    if tx.blocking_send(part).is_err() {
                        // The server answered early (a refusal): its answer says why.
                        return Ok(());
                    }
                }
            }
            Ok::<(), std::io::Error>(())
        });
        let answer = client.load(ReceiverStream::new(rx)).await;
        match producer.await {
            Ok(Err(e)) => return Err(Error::invalid(format!("reading a bulk file: {e}"))),
            Err(e) => return Err(Error::invalid(e.to_string())),
            Ok(Ok(())) => {}
        }
        Ok(answer.map_err(Error::from)?.into_inner())
    }
}

/// The load id of `files` sent to region `region_id` by the call of `salt`.
fn load_id(salt: u64, region_id: u64, files: &[pb::BulkLoadFile]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    (salt, region_id).hash(&mut h);
    for f in files {
        (&f.family, f.length, f.crc32c).hash(&mut h);
    }
    h.finish()
}
