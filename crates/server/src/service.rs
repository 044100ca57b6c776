//! The gRPC data service: decode, validate, route to the region, run the engine call, encode.
//!
//! Reads are first tried inline on the async worker inside
//! [`cache_only`](strata_sstable::cache_only::cache_only): a get answered from memtables and
//! cached blocks (the common case) never leaves it. A read that needs an uncached block fails
//! fast without side effects and is run again on a blocking thread, as writes always are
//! (they may wait for a WAL sync). Only one read at a time is served inline
//! ([`crate::inline`], shared with the server's other protocols); reads arriving meanwhile
//! use the blocking pool.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use bytes::Bytes;
use prost::Message;
use strata_model::ops::{Get, Mutation, RowMutations};
use strata_proto::convert::{
    cell_to_pb, check_and_mutate_from_pb, get_from_pb, result_to_pb_as, row_mutations_from_pb,
    scan_from_pb, PutBatch,
};
use strata_proto::pb;
use strata_proto::pb::data_server::Data;
use strata_storage::region::WriteNow;
use tonic::{Request, Response, Status};

use crate::caller::caller;
use crate::host::{HostedRegion, RegionServer};
use crate::observe::{Call, Op};
use crate::scan::scan_page_rows;
use crate::status::{
    denied, from_storage, internal, invalid, not_serving, space_limited, throttled,
};
use strata_access::quota::Cost;
use strata_access::{Caller, Guard, Readable};
use strata_model::ops::Columns;

/// Whether a request may be served now (`Err`: the status to answer instead). A cluster
/// region server refuses every data request while it does not hold its lease.
pub type Admission = Arc<dyn Fn() -> Result<(), Status> + Send + Sync>;

/// The data service over a [`RegionServer`].
#[derive(Clone)]
pub struct DataService {
    server: Arc<RegionServer>,
    admission: Option<Admission>,
    /// Who may do what (RFC 0026); off unless the process runs with `--auth`.
    guard: Arc<Guard>,
}

impl DataService {
    /// A service answering from `server`'s regions.
    pub fn new(server: Arc<RegionServer>) -> Self {
        DataService {
            server,
            admission: None,
            guard: Guard::off(),
        }
    }

    /// The same service, checking every call with `guard`.
    #[must_use]
    pub fn with_guard(mut self, guard: Arc<Guard>) -> Self {
        self.guard = guard;
        self
    }

    /// The access guard calls are checked with.
    pub fn guard(&self) -> &Arc<Guard> {
        &self.guard
    }

    /// Narrows `columns` to what `caller` may read of `table`; `false` when that is nothing
    /// (the call answers no cells, as HBase's `AccessControlFilter` leaves them all out).
    fn narrow_read(
        &self,
        caller: &Caller,
        call: &str,
        table: &str,
        columns: &mut Columns,
    ) -> Result<bool, Status> {
        if !self.guard.is_on() {
            return Ok(true);
        }
        match self.guard.readable(caller, call, table).map_err(denied)? {
            Readable::All => Ok(true),
            readable => match readable.narrow(columns) {
                Some(narrowed) => {
                    *columns = narrowed;
                    Ok(true)
                }
                None => Ok(false),
            },
        }
    }

    /// Admits `caller`'s request on `table` costing `cost` under the throttles in force
    /// (RFC 0029).
    fn throttle(&self, caller: &Caller, table: &str, cost: Cost) -> Result<(), Status> {
        self.guard.throttle(caller, table, cost).map_err(throttled)
    }

    /// `rows` with each row `caller` may not write, or that a space quota in violation
    /// refuses, replaced by its refusal.
    fn check_rows(
        &self,
        caller: &Caller,
        table: &str,
        rows: Vec<Result<RowMutations, Status>>,
    ) -> Vec<Result<RowMutations, Status>> {
        let space = self.guard.quotas().space();
        if !self.guard.is_on() && !space.any() {
            return rows;
        }
        rows.into_iter()
            .map(|r| {
                r.and_then(|rm| {
                    if self.guard.is_on() {
                        self.guard
                            .mutation(caller, "batch", table, &rm)
                            .map_err(denied)?;
                    }
                    self.space_check(table, &rm.mutations)?;
                    Ok(rm)
                })
            })
            .collect()
    }

    /// Allows `mutations` on `table` under the space quotas in force (RFC 0029).
    fn space_check(&self, table: &str, mutations: &[Mutation]) -> Result<(), Status> {
        self.guard
            .quotas()
            .space()
            .check_mutations(table, mutations)
            .map_err(space_limited)
    }

    /// The region server it answers from.
    pub fn region_server(&self) -> &Arc<RegionServer> {
        &self.server
    }

    /// The same service, asking `admission` before each request runs, whichever protocol
    /// carried it (gRPC or frames).
    pub fn with_admission(mut self, admission: Admission) -> Self {
        self.admission = Some(admission);
        self
    }

    /// `admission`'s answer (requests are always admitted without one).
    pub(crate) fn admitted(&self) -> Result<(), Status> {
        self.admission.as_ref().map_or(Ok(()), |admit| admit())
    }

    /// How long an idle framed connection polls before parking (the server's configuration).
    pub(crate) fn poll_before_park(&self) -> std::time::Duration {
        self.server.config().poll_before_park
    }

    /// The tonic server for this service, with Strata's message-size limits.
    pub fn into_server(self) -> pb::data_server::DataServer<crate::logged::Logged> {
        pb::data_server::DataServer::new(crate::logged::Logged(self))
            .max_decoding_message_size(strata_proto::MAX_MESSAGE_BYTES)
            .max_encoding_message_size(strata_proto::MAX_MESSAGE_BYTES)
    }

    async fn blocking<T, F>(&self, call: Call, f: F) -> Result<T, Status>
    where
        T: Send + 'static,
        F: FnOnce(&RegionServer) -> Result<T, Status> + Send + 'static,
    {
        self.server
            .counters()
            .requests
            .fetch_add(1, Ordering::Relaxed);
        if let Err(refused) = self.admitted() {
            self.server.observer().finish(call, false);
            return Err(refused);
        }
        let server = self.server.clone();
        let result = tokio::task::spawn_blocking(move || f(&server))
            .await
            .map_err(internal)
            .and_then(|r| r);
        self.server.observer().finish(call, result.is_ok());
        result
    }

    /// Applies one row mutation in place on this worker when nothing on the way waits
    /// (`Region::try_mutate_row_now`); otherwise through its region's write queue
    /// ([`crate::write_queue`]): gathered with the region's other queued rows into one
    /// mini-batch, on the blocking pool.
    async fn queued_write(
        &self,
        call: Call,
        table: &str,
        rm: RowMutations,
    ) -> Result<Vec<pb::Cell>, Status> {
        self.server
            .counters()
            .requests
            .fetch_add(1, Ordering::Relaxed);
        let result = match self.admitted() {
            Err(refused) => Err(refused),
            Ok(()) => match self.server.region_for(table, &rm.row) {
                None => Err(not_serving(table, &rm.row)),
                Some(hosted) => match self.write_now(&hosted, &rm).await {
                    Some(result) => result,
                    None => {
                        self.server
                            .counters()
                            .writes_queued
                            .fetch_add(1, Ordering::Relaxed);
                        match self.server.writes().submit(hosted, rm).await {
                            Ok(Ok(r)) => Ok(r.cells.iter().map(cell_to_pb).collect()),
                            Ok(Err(e)) => Err(from_storage(&e)),
                            Err(_) => Err(Status::internal(
                                "the write's drainer stopped before answering",
                            )),
                        }
                    }
                },
            },
        };
        self.server.observer().finish(call, result.is_ok());
        result
    }

    /// Applies `rm` in place on this worker if nothing on the way waits
    /// (`Region::try_mutate_row_now`), counted as a write in place; `None` when that
    /// declined, nothing changed.
    async fn write_now(
        &self,
        hosted: &HostedRegion,
        rm: &RowMutations,
    ) -> Option<Result<Vec<pb::Cell>, Status>> {
        let result = match hosted.try_mutate_row_now(rm) {
            WriteNow::Declined => return None,
            WriteNow::Done(r) => r
                .map(|r| r.cells.iter().map(cell_to_pb).collect())
                .map_err(|e| from_storage(&e)),
            WriteNow::Pending(r) => {
                let region = hosted.region.clone();
                tokio::task::spawn_blocking(move || region.wait_visible(r.seq))
                    .await
                    .map(|()| r.cells.iter().map(cell_to_pb).collect())
                    .map_err(internal)
            }
        };
        self.server
            .counters()
            .writes_in_place
            .fetch_add(1, Ordering::Relaxed);
        Some(result)
    }

    /// A batch of one row (happybase's `put`, a buffered mutator flushing one row) applied
    /// in place as a single-row write is; `None` when the row cannot be (it goes the usual
    /// way then, nothing changed).
    async fn batch_row_now(
        &self,
        table: &str,
        rows: &[Result<RowMutations, Status>],
    ) -> Option<pb::BatchResponse> {
        let [Ok(rm)] = rows else {
            return None;
        };
        // A refusal is answered by the usual way, which counts it.
        self.admitted().ok()?;
        let hosted = self.server.region_for(table, &rm.row)?;
        let outcome = self.write_now(&hosted, rm).await?;
        self.server
            .counters()
            .requests
            .fetch_add(1, Ordering::Relaxed);
        Some(pb::BatchResponse {
            results: vec![batch_result(outcome)],
        })
    }

    /// A batch the framed protocol read without prost (`strata_proto::convert::PutBatch`):
    /// each row checked as [`Data::batch`] checks a decoded one, then applied the same way.
    pub(crate) async fn batch_of_puts(
        &self,
        caller: &Caller,
        batch: PutBatch,
        request_bytes: usize,
    ) -> Result<Response<pb::BatchResponse>, Status> {
        let max_value = self.server.config().max_value_bytes;
        let rows = batch
            .rows
            .into_iter()
            .map(|rm| check_mutations(&rm, max_value).map(|()| rm))
            .collect();
        let rows = self.check_rows(caller, &batch.table, rows);
        let cost = Cost::writes(rows.len() as u64, request_bytes as u64);
        self.throttle(caller, &batch.table, cost)?;
        self.batch_rows(batch.table, rows, request_bytes).await
    }

    /// Applies a batch's decoded rows (each its own outcome) to `table`.
    async fn batch_rows(
        &self,
        table: String,
        rows: Vec<Result<RowMutations, Status>>,
        request_bytes: usize,
    ) -> Result<Response<pb::BatchResponse>, Status> {
        let mut decoded = rows
            .iter()
            .filter_map(|r| r.as_ref().ok())
            .map(|rm| &rm.row);
        let first = decoded.next().cloned().unwrap_or_default();
        let call = self.call(Op::Batch, &table, &first, request_bytes);
        touch_rows(&call, decoded, true);
        if let Some(response) = self.batch_row_now(&table, &rows).await {
            self.server.observer().finish(call, true);
            return Ok(Response::new(response));
        }
        let results = self
            .blocking(call, move |server| {
                Ok(apply_rows(server, &table, rows)
                    .into_iter()
                    .map(batch_result)
                    .collect())
            })
            .await?;
        Ok(Response::new(pb::BatchResponse { results }))
    }

    /// Starts timing a request (see [`crate::observe`]).
    fn call(&self, op: Op, table: &str, row: &Bytes, request_bytes: usize) -> Call {
        self.server.observer().start(op, table, row, request_bytes)
    }

    /// Runs the read `f` inline (if no other read is in flight) with reads limited to cached
    /// blocks; if it needed a block from disk, or another read is in flight, runs it on a
    /// blocking thread. `f` answers a routing or request error as the outer `Status` and the
    /// engine's outcome inside.
    async fn read<T, F>(&self, call: Call, f: F) -> Result<T, Status>
    where
        T: Send + 'static,
        F: Fn(&RegionServer) -> Result<strata_storage::Result<T>, Status> + Send + 'static,
    {
        self.server
            .counters()
            .requests
            .fetch_add(1, Ordering::Relaxed);
        if let Err(refused) = self.admitted() {
            self.server.observer().finish(call, false);
            return Err(refused);
        }
        let result = self.read_inline_or_blocking(f).await;
        self.server.observer().finish(call, result.is_ok());
        result
    }

    /// The body of [`read`](Self::read).
    async fn read_inline_or_blocking<T, F>(&self, f: F) -> Result<T, Status>
    where
        T: Send + 'static,
        F: Fn(&RegionServer) -> Result<strata_storage::Result<T>, Status> + Send + 'static,
    {
        let ticket = self.server.reads().enter();
        match ticket.try_inline(|| f(&self.server)) {
            Some(Ok(Ok(value))) => return Ok(value),
            Some(Ok(Err(e))) => return Err(from_storage(&e)),
            Some(Err(status)) => return Err(status),
            None => {}
        }
        let server = self.server.clone();
        tokio::task::spawn_blocking(move || f(&server))
            .await
            .map_err(internal)??
            .map_err(|e| from_storage(&e))
    }
}

/// The cells of one get, from the region holding its row.
fn read_row(
    server: &RegionServer,
    table: &str,
    get: &Get,
) -> Result<strata_storage::Result<Vec<strata_model::cell::Cell>>, Status> {
    let hosted = server
        .region_for(table, &get.row)
        .ok_or_else(|| not_serving(table, &get.row))?;
    Ok(hosted.get(get))
}

/// Decodes and checks row mutations: the model's limits plus the server's value limit.
fn decode_mutations(
    rm: Option<pb::RowMutations>,
    max_value: usize,
) -> Result<RowMutations, Status> {
    let rm = row_mutations_from_pb(rm.ok_or_else(|| invalid("request has no mutations"))?)
        .map_err(invalid)?;
    check_mutations(&rm, max_value)?;
    Ok(rm)
}

fn check_mutations(rm: &RowMutations, max_value: usize) -> Result<(), Status> {
    rm.validate().map_err(invalid)?;
    for m in &rm.mutations {
        let largest = match m {
            Mutation::Put(p) => p.cells.iter().map(|c| c.value.len()).max(),
            Mutation::Append(a) => a.cells.iter().map(|c| c.value.len()).max(),
            _ => None,
        };
        if let Some(len) = largest.filter(|&l| l > max_value) {
            return Err(invalid(format!(
                "a value of {len} bytes exceeds the server's maximum of {max_value} bytes"
            )));
        }
    }
    Ok(())
}

/// A batch row's outcome as the response carries it.
fn batch_result(outcome: Result<Vec<pb::Cell>, Status>) -> pb::BatchResult {
    pb::BatchResult {
        outcome: Some(match outcome {
            Ok(cells) => pb::batch_result::Outcome::Ok(pb::Result {
                cells,
                cell_block: Bytes::new(),
            }),
            Err(status) => pb::batch_result::Outcome::Error(pb::ErrorDetail {
                code: strata_proto::code_of(&status) as i32,
                message: status.message().to_string(),
            }),
        }),
    }
}

/// Applies the rows of a batch: the rows of each region together (in mini-batches, see
/// `Region::batch`), each row with its own outcome, in the order given.
fn apply_rows(
    server: &RegionServer,
    table: &str,
    rows: Vec<Result<RowMutations, Status>>,
) -> Vec<Result<Vec<pb::Cell>, Status>> {
    let mut outcomes: Vec<Option<Result<Vec<pb::Cell>, Status>>> = Vec::with_capacity(rows.len());
    // (the region, its rows, their places in `outcomes`), in first-seen order.
    let mut groups: Vec<(HostedRegion, Vec<RowMutations>, Vec<usize>)> = Vec::new();
    let mut group_of: HashMap<u64, usize> = HashMap::new();
    // The group of the previous row: a client sends a region's rows together, so most rows
    // fall in it and skip the lookup (a region's bounds never change; if the region closes
    // meanwhile, its batch fails as a lookup just before it would).
    let mut last: Option<usize> = None;
    for (i, rm) in rows.into_iter().enumerate() {
        let rm = match rm {
            Ok(rm) => rm,
            Err(status) => {
                outcomes.push(Some(Err(status)));
                continue;
            }
        };
        if let Some(g) = last.filter(|&g| holds(&groups[g].0, &rm.row)) {
            outcomes.push(None);
            groups[g].1.push(rm);
            groups[g].2.push(i);
            continue;
        }
        let Some(hosted) = server.region_for(table, &rm.row) else {
            outcomes.push(Some(Err(not_serving(table, &rm.row))));
            continue;
        };
        outcomes.push(None);
        let id = hosted.region.info().region_id;
        match group_of.get(&id) {
            Some(&g) => {
                groups[g].1.push(rm);
                groups[g].2.push(i);
                last = Some(g);
            }
            None => {
                group_of.insert(id, groups.len());
                last = Some(groups.len());
                groups.push((hosted, vec![rm], vec![i]));
            }
        }
    }
    for (hosted, rows, places) in groups {
        for (result, i) in hosted.batch(&rows).into_iter().zip(places) {
            outcomes[i] = Some(
                result
                    .map(|r| r.cells.iter().map(cell_to_pb).collect())
                    .map_err(|e| from_storage(&e)),
            );
        }
    }
    outcomes
        .into_iter()
        .map(|o| o.unwrap_or_else(|| Err(Status::internal("a row of the batch was not applied"))))
        .collect()
}

/// True when `row` is within `hosted`'s bounds.
fn holds(hosted: &HostedRegion, row: &[u8]) -> bool {
    let info = hosted.region.info();
    (info.start_row.is_empty() || row >= info.start_row.as_ref())
        && (info.end_row.is_empty() || row < info.end_row.as_ref())
}

/// Counts the rows of a multi-row request after its first in the table's heatmap.
fn touch_rows<'a>(call: &Call, rows: impl Iterator<Item = &'a Bytes>, write: bool) {
    let now = std::time::Instant::now();
    call.table().touch(rows.map(|r| &r[..]), write, now);
}

#[tonic::async_trait]
impl Data for DataService {
    async fn get(
        &self,
        request: Request<pb::GetRequest>,
    ) -> Result<Response<pb::GetResponse>, Status> {
        let caller = caller(&request);
        let req = request.into_inner();
        let request_bytes = req.encoded_len();
        let mut get =
            get_from_pb(req.get.ok_or_else(|| invalid("request has no get"))?).map_err(invalid)?;
        get.validate().map_err(invalid)?;
        let table = req.table;
        if !self.narrow_read(&caller, "get", &table, &mut get.columns)? {
            return Ok(Response::new(pb::GetResponse {
                result: Some(result_to_pb_as(&[], req.cell_block)),
            }));
        }
        self.throttle(&caller, &table, Cost::READ)?;
        let call = self.call(Op::Get, &table, &get.row, request_bytes);
        let read_table = table.clone();
        let result = self
            .read(call, move |server| read_row(server, &read_table, &get))
            .await?;
        let response = pb::GetResponse {
            result: Some(result_to_pb_as(&result, req.cell_block)),
        };
        self.guard
            .charge_read(&caller, &table, response.encoded_len() as u64);
        Ok(Response::new(response))
    }

    async fn multi_get(
        &self,
        request: Request<pb::MultiGetRequest>,
    ) -> Result<Response<pb::MultiGetResponse>, Status> {
        let caller = caller(&request);
        let req = request.into_inner();
        let request_bytes = req.encoded_len();
        let table = req.table;
        let gets = req
            .gets
            .into_iter()
            .map(|g| {
                let mut get = get_from_pb(g).map_err(invalid)?;
                get.validate().map_err(invalid)?;
                let readable = self.narrow_read(&caller, "multi_get", &table, &mut get.columns)?;
                Ok((get, readable))
            })
            .collect::<Result<Vec<_>, Status>>()?;
        let first = gets.first().map(|g| g.0.row.clone()).unwrap_or_default();
        let cost = Cost {
            reads: gets.len() as u64,
            ..Cost::default()
        };
        self.throttle(&caller, &table, cost)?;
        let call = self.call(Op::MultiGet, &table, &first, request_bytes);
        let read_table = table.clone();
        touch_rows(&call, gets.iter().skip(1).map(|g| &g.0.row), false);
        let cell_block = req.cell_block;
        let results = self
            .read(call, move |server| {
                let mut results = Vec::with_capacity(gets.len());
                for (get, readable) in &gets {
                    if !readable {
                        results.push(result_to_pb_as(&[], cell_block));
                        continue;
                    }
                    match read_row(server, &read_table, get)? {
                        Ok(cells) => results.push(result_to_pb_as(&cells, cell_block)),
                        Err(e) => return Ok(Err(e)),
                    }
                }
                Ok(Ok(results))
            })
            .await?;
        let response = pb::MultiGetResponse { results };
        self.guard
            .charge_read(&caller, &table, response.encoded_len() as u64);
        Ok(Response::new(response))
    }

    async fn mutate(
        &self,
        request: Request<pb::MutateRequest>,
    ) -> Result<Response<pb::MutateResponse>, Status> {
        let caller = caller(&request);
        let req = request.into_inner();
        let request_bytes = req.encoded_len();
        let rm = decode_mutations(req.mutations, self.server.config().max_value_bytes)?;
        let table = req.table;
        self.guard
            .mutation(&caller, "mutate", &table, &rm)
            .map_err(denied)?;
        self.space_check(&table, &rm.mutations)?;
        self.throttle(&caller, &table, Cost::writes(1, request_bytes as u64))?;
        let call = self.call(Op::Mutate, &table, &rm.row, request_bytes);
        let cells = self.queued_write(call, &table, rm).await?;
        Ok(Response::new(pb::MutateResponse { cells }))
    }

    async fn batch(
        &self,
        request: Request<pb::BatchRequest>,
    ) -> Result<Response<pb::BatchResponse>, Status> {
        let caller = caller(&request);
        let req = request.into_inner();
        let request_bytes = req.encoded_len();
        let max_value = self.server.config().max_value_bytes;
        let rows: Vec<Result<RowMutations, Status>> = req
            .rows
            .into_iter()
            .map(|rm| decode_mutations(Some(rm), max_value))
            .collect();
        let rows = self.check_rows(&caller, &req.table, rows);
        let cost = Cost::writes(rows.len() as u64, request_bytes as u64);
        self.throttle(&caller, &req.table, cost)?;
        self.batch_rows(req.table, rows, request_bytes).await
    }

    async fn check_and_mutate(
        &self,
        request: Request<pb::CheckAndMutateRequest>,
    ) -> Result<Response<pb::CheckAndMutateResponse>, Status> {
        let caller = caller(&request);
        let req = request.into_inner();
        let request_bytes = req.encoded_len();
        let table = req.table.clone();
        let cam = check_and_mutate_from_pb(req).map_err(invalid)?;
        cam.validate().map_err(invalid)?;
        if self.guard.is_on() {
            let checked = match &cam.condition {
                strata_model::ops::Condition::Column {
                    family, qualifier, ..
                } => Some((&family[..], &qualifier[..])),
                strata_model::ops::Condition::Filter(_) => None,
            };
            self.guard
                .check_and_mutate(&caller, "check_and_mutate", &table, checked, &cam.mutations)
                .map_err(denied)?;
        }
        check_mutations(&cam.mutations, self.server.config().max_value_bytes)?;
        self.space_check(&table, &cam.mutations.mutations)?;
        // HBase counts a check-and-mutate as one read and one write.
        let cost = Cost {
            reads: 1,
            ..Cost::writes(1, request_bytes as u64)
        };
        self.throttle(&caller, &table, cost)?;
        let call = self.call(Op::CheckAndMutate, &table, &cam.row, request_bytes);
        let processed = self
            .blocking(call, move |server| {
                let hosted = server
                    .region_for(&table, &cam.row)
                    .ok_or_else(|| not_serving(&table, &cam.row))?;
                hosted.check_and_mutate(&cam).map_err(|e| from_storage(&e))
            })
            .await?;
        Ok(Response::new(pb::CheckAndMutateResponse { processed }))
    }

    async fn scan(
        &self,
        request: Request<pb::ScanRequest>,
    ) -> Result<Response<pb::ScanResponse>, Status> {
        let caller = caller(&request);
        let req = request.into_inner();
        let request_bytes = req.encoded_len();
        let mut scan = scan_from_pb(req.scan.ok_or_else(|| invalid("request has no scan"))?)
            .map_err(invalid)?;
        let after: Option<Bytes> = req.after_row;
        let table = req.table;
        if !self.narrow_read(&caller, "scan", &table, &mut scan.columns)? {
            // Nothing of the table may be read with these columns: no rows, and no region
            // after this one.
            return Ok(Response::new(pb::ScanResponse::default()));
        }
        let max = req.max_result_bytes;
        let (cell_block, page_block) = (req.cell_block, req.page_block);
        self.throttle(&caller, &table, Cost::READ)?;
        let from = after.as_ref().unwrap_or(&scan.start_row);
        let call = self.call(Op::Scan, &table, from, request_bytes);
        let activity = call.activity();
        let read_table = table.clone();
        let (page, rows) = self
            .blocking(call, move |server| {
                scan_page_rows(
                    server,
                    &read_table,
                    scan,
                    after,
                    max,
                    cell_block,
                    page_block,
                )
            })
            .await?;
        self.guard
            .charge_read(&caller, &table, page.encoded_len() as u64);
        // The heatmap credits the page to the rows it read (a sample of them for a long one).
        if self.server.observer().is_enabled() {
            activity.touch(
                rows.iter().map(|r| &r[..]),
                false,
                std::time::Instant::now(),
            );
        }
        Ok(Response::new(page))
    }
}
