//! The bulk-load service (RFC 0027): a client streams store files for one region; they are
//! received into the region's store, checked, and added all at once.
//!
//! ```text
//! header ─▶ region here, with the bounds the client cut by? ─▶ worker (blocking pool):
//!   per file: Region::bulk_stage ─▶ bytes as they arrive ─▶ finish(length, crc32c)
//!   then Region::bulk_commit inside the row cache's region-wide write
//! chunks ─▶ bounded channel ─▶ worker            (a slow store slows the sender down)
//! ```

use std::sync::atomic::Ordering;

use bytes::Bytes;
use strata_proto::pb;
use strata_proto::pb::bulk_load_server::{BulkLoad, BulkLoadServer};
use strata_proto::pb::ErrorCode;
use strata_storage::region::StagedFile;
use tokio::sync::mpsc;
use tonic::{Request, Response, Status, Streaming};

use crate::host::HostedRegion;
use crate::service::DataService;
use crate::status::{from_storage, internal, invalid};

/// Most files one call may carry.
pub const MAX_FILES: usize = 10_000;

/// The bulk-load service of a region server (shares the data service's admission).
#[derive(Clone)]
#[allow(missing_debug_implementations)]
pub struct BulkService(DataService);

impl DataService {
    /// The tonic server of the bulk-load service over the same regions.
    pub fn into_bulk_server(self) -> BulkLoadServer<BulkService> {
        BulkLoadServer::new(BulkService(self))
            .max_decoding_message_size(strata_proto::MAX_MESSAGE_BYTES)
            .max_encoding_message_size(strata_proto::MAX_MESSAGE_BYTES)
    }
}

#[tonic::async_trait]
impl BulkLoad for BulkService {
    async fn load(
        &self,
        request: Request<Streaming<pb::BulkLoadPart>>,
    ) -> Result<Response<pb::BulkLoadResponse>, Status> {
        let caller = crate::caller::caller(&request);
        let client = caller.addr;
        let outcome = self.load_stream(&caller, request.into_inner()).await;
        strata_proto::bad_input::report(client, "Strata gRPC", "bulk_load", outcome)
            .map(Response::new)
    }
}

impl BulkService {
    async fn load_stream(
        &self,
        caller: &strata_access::Caller,
        mut stream: Streaming<pb::BulkLoadPart>,
    ) -> Result<pb::BulkLoadResponse, Status> {
        let server = self.0.region_server().clone();
        server.counters().requests.fetch_add(1, Ordering::Relaxed);
        self.0.admitted()?;
        let header = match stream.message().await?.and_then(|p| p.part) {
            Some(pb::bulk_load_part::Part::Header(h)) => h,
            _ => return Err(invalid("a bulk load starts with its header")),
        };
        // HBase's bulk load needs C or A on the table (AccessController.preBulkLoadHFile).
        let scope = strata_access::Scope::Table(strata_access::TableScope::table(&header.table));
        self.0
            .guard()
            .check(
                caller,
                "bulk_load",
                &[strata_access::Action::Create, strata_access::Action::Admin],
                &scope,
            )
            .map_err(crate::status::denied)?;
        if header.files.is_empty() || header.files.len() > MAX_FILES {
            return Err(invalid(format!(
                "a bulk load carries 1 to {MAX_FILES} files, not {}",
                header.files.len()
            )));
        }
        // HBase refuses bulk loads that would take a table past its space quota, and every
        // bulk load while it is in violation (RFC 0029).
        let bytes = header.files.iter().map(|f| f.length).sum();
        self.0
            .guard()
            .quotas()
            .space()
            .check_bulk_load(&header.table, header.files.len(), bytes)
            .map_err(crate::status::space_limited)?;
        let hosted = region_as_cut(&server, &header)?;
        let (tx, rx) = mpsc::channel::<Bytes>(4);
        let worker = tokio::task::spawn_blocking(move || receive(&hosted, &header, rx));
        while let Some(part) = stream.message().await? {
            match part.part {
                Some(pb::bulk_load_part::Part::Chunk(bytes)) => {
                    if tx.send(bytes).await.is_err() {
                        // The worker stopped (a refused file): its error is the answer.
                        break;
                    }
                }
                _ => return Err(invalid("a bulk load has one header, then chunks")),
            }
        }
        drop(tx);
        worker.await.map_err(internal)?
    }
}

/// The region of `header`, if this server hosts it with the bounds the client cut its files
/// by; else NOT_SERVING_REGION, so that the client locates the region again.
fn region_as_cut(
    server: &crate::host::RegionServer,
    header: &pb::BulkLoadHeader,
) -> Result<HostedRegion, Status> {
    let moved = |why: String| {
        strata_proto::status(
            ErrorCode::NotServingRegion,
            format!("region {} of {}: {why}", header.region_id, header.table),
        )
    };
    let hosted = server
        .hosted(header.region_id)
        .map_err(|_| moved("not served here".into()))?;
    let info = hosted.region.info();
    if info.table != header.table {
        return Err(moved(format!("is a region of {}", info.table)));
    }
    if info.start_row != header.start_row || info.end_row != header.end_row {
        return Err(moved(format!(
            "spans ['{}', '{}') now",
            strata_model::ops::escape(&info.start_row),
            strata_model::ops::escape(&info.end_row)
        )));
    }
    Ok(hosted)
}

/// Receives the files of `header` from `rx` into `hosted`'s stores, then adds them.
fn receive(
    hosted: &HostedRegion,
    header: &pb::BulkLoadHeader,
    mut rx: mpsc::Receiver<Bytes>,
) -> Result<pb::BulkLoadResponse, Status> {
    let region = &hosted.region;
    let mut staged: Vec<StagedFile> = Vec::with_capacity(header.files.len());
    let mut pending = Bytes::new();
    for (i, file) in header.files.iter().enumerate() {
        let mut stage = region
            .bulk_stage(file.family.as_bytes())
            .map_err(|e| from_storage(&e))?;
        let mut left = file.length;
        while left > 0 {
            if pending.is_empty() {
                pending = rx.blocking_recv().ok_or_else(|| {
                    invalid(format!(
                        "the stream ended {left} bytes before the end of file {i} \
                         ({} bytes)",
                        file.length
                    ))
                })?;
                continue;
            }
            let take = pending
                .len()
                .min(usize::try_from(left).unwrap_or(usize::MAX));
            let part = pending.split_to(take);
            stage.write(&part).map_err(|e| from_storage(&e))?;
            left -= take as u64;
        }
        staged.push(
            stage
                .finish(file.length, file.crc32c)
                .map_err(|e| from_storage(&e))?,
        );
    }
    if !pending.is_empty() || rx.blocking_recv().is_some() {
        return Err(invalid(
            "the stream carries more bytes than its files' lengths",
        ));
    }
    let loaded = hosted
        .row_cache
        .write_region(|| region.bulk_commit(staged, header.load_id))
        .map_err(|e| from_storage(&e))?;
    if loaded.loaded {
        tracing::info!(
            table = %header.table,
            region = header.region_id,
            files = loaded.files,
            cells = loaded.cells,
            bytes = loaded.bytes,
            seq = loaded.seq_id,
            "bulk load added"
        );
    }
    Ok(pb::BulkLoadResponse {
        seq_id: loaded.seq_id,
        files: loaded.files as u64,
        cells: loaded.cells,
        bytes: loaded.bytes,
        already_loaded: !loaded.loaded,
    })
}
