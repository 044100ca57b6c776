//! `ClientService`: Get, Mutate (put, delete, increment, append, check-and-mutate), Multi
//! and Scan, on user regions through the same `HostedRegion` calls the gRPC data service
//! makes, and read-only on `hbase:meta`.

use std::time::Instant;

use prost::Message;
use strata_access::quota::Cost;
use strata_model::cell::Cell;
use strata_model::ops::{Get, Mutation, RowMutations};
use strata_server::HostedRegion;

use crate::context::{check_row, CellsOut, Context, Target};
use crate::convert::{
    cell_to_pb, check_and_mutate, condition_from_pb, get_from_pb, mutation_from_pb, scan_from_pb,
};
use crate::error::{HBaseError, HResult};
use crate::meta::MetaScan;
use crate::pb;
use crate::region_action::non_atomic;
use crate::scanners::{Batch, Limits, OpenScanner, Source};

fn decode<M: Message + Default>(param: &[u8]) -> HResult<M> {
    M::decode(param).map_err(|e| HBaseError::do_not_retry(format!("malformed request: {e}")))
}

const META_READ_ONLY: &str = "hbase:meta is read-only in Strata: it mirrors the catalog";

/// Runs one `ClientService` method.
///
/// # Errors
/// The exception for the client.
pub fn call(
    ctx: &Context,
    method: &str,
    param: &[u8],
    block: Vec<Cell>,
    out: &mut CellsOut,
) -> HResult<Vec<u8>> {
    match method {
        "Get" => get(ctx, decode(param)?, out).map(|r| r.encode_to_vec()),
        "Mutate" => mutate(ctx, decode(param)?, block, out).map(|r| r.encode_to_vec()),
        "Multi" => multi(ctx, decode(param)?, block, out).map(|r| r.encode_to_vec()),
        "Scan" => scan(ctx, decode(param)?, out).map(|r| r.encode_to_vec()),
        // HBase's bulk load moves HFiles (HBase's format) from the cluster's file system;
        // Strata loads its own store files, streamed by its own tool (RFC 0027).
        "BulkLoadHFile" | "PrepareBulkLoad" | "CleanupBulkLoad" => {
            Err(HBaseError::do_not_retry(format!(
                "{method}: Strata does not load HFiles; prepare and load store files with                  `strata bulkload prepare` and `strata bulkload load` instead"
            )))
        }
        _ => Err(HBaseError::unknown_method("ClientService", method)),
    }
}

/// Runs `method` if it only reads user regions (a get, or a multi of gets alone): no side
/// effects, no blocking work besides store-file reads, so the listener may try it inline
/// ([`strata_server::inline`]). `None`: it is some other call (a write, a scan, a read of
/// `hbase:meta`, which may wait on a cluster's directory), for [`call`] on a blocking thread.
pub fn call_read_only(
    ctx: &Context,
    method: &str,
    param: &[u8],
    out: &mut CellsOut,
) -> Option<HResult<Vec<u8>>> {
    match method {
        "Get" => {
            let req: pb::GetRequest = match decode(param) {
                Ok(r) => r,
                Err(e) => return Some(Err(e)),
            };
            match ctx.target(&req.region) {
                Ok(Target::Meta) => None,
                target => Some(
                    target
                        .and_then(|t| get_from(ctx, &t, &req, out))
                        .map(|r| r.encode_to_vec()),
                ),
            }
        }
        "Multi" => {
            let req: pb::MultiRequest = match decode(param) {
                Ok(r) => r,
                Err(e) => return Some(Err(e)),
            };
            let gets_only = req.condition.is_none()
                && req.region_action.iter().all(|ra| {
                    !ra.atomic()
                        && ra.condition.is_none()
                        && ra
                            .action
                            .iter()
                            .all(|a| a.get.is_some() && a.mutation.is_none())
                });
            if !gets_only {
                return None;
            }
            Some(multi(ctx, req, Vec::new(), out).map(|r| r.encode_to_vec()))
        }
        _ => None,
    }
}

/// What cells read cost a size throttle: their keys' and values' bytes.
fn cells_bytes(cells: &[Cell]) -> u64 {
    cells.iter().map(|c| c.raw_size() as u64).sum()
}

fn meta_get(ctx: &Context, get: &Get) -> HResult<Vec<Cell>> {
    let rows = ctx.meta_rows()?;
    let scan = MetaScan {
        columns: get
            .columns
            .families
            .iter()
            .map(|(f, q)| (f.clone(), q.iter().flatten().cloned().collect()))
            .collect(),
        ..MetaScan::default()
    };
    Ok(rows
        .into_iter()
        .find(|r| r.key == get.row)
        .map(|r| scan.project(&r.cells))
        .unwrap_or_default())
}

fn read_row(ctx: &Context, target: &Target, get: &Get) -> HResult<Vec<Cell>> {
    match target {
        Target::Meta => {
            if get.filter.is_some() {
                return Err(HBaseError::do_not_retry(
                    "filters on hbase:meta are not supported",
                ));
            }
            meta_get(ctx, get)
        }
        Target::User(h) => {
            check_row(h, &get.row)?;
            h.get(get).map_err(|e| HBaseError::from(&e))
        }
    }
}

fn get(ctx: &Context, req: pb::GetRequest, out: &mut CellsOut) -> HResult<pb::GetResponse> {
    let target = ctx.target(&req.region)?;
    get_from(ctx, &target, &req, out)
}

/// A get on `target`, the region `req` names.
fn get_from(
    ctx: &Context,
    target: &Target,
    req: &pb::GetRequest,
    out: &mut CellsOut,
) -> HResult<pb::GetResponse> {
    let (mut get, exists_only) = get_from_pb(&req.get)?;
    let readable = match target {
        Target::User(h) => {
            let readable = crate::access::narrow_read(h, "get", &mut get.columns)?;
            crate::access::throttle(h, Cost::READ)?;
            readable
        }
        Target::Meta => true,
    };
    let cells = if readable {
        read_row(ctx, target, &get)?
    } else {
        Vec::new()
    };
    if let Target::User(h) = target {
        crate::access::charge_read(h, cells_bytes(&cells));
    }
    let result = if exists_only {
        pb::Result {
            exists: Some(!cells.is_empty()),
            ..pb::Result::default()
        }
    } else {
        out.result(&cells)
    };
    Ok(pb::GetResponse {
        result: Some(result),
    })
}

fn user_region(ctx: &Context, spec: &pb::RegionSpecifier) -> HResult<HostedRegion> {
    match ctx.target(spec)? {
        Target::Meta => Err(HBaseError::do_not_retry(META_READ_ONLY)),
        Target::User(h) => Ok(h),
    }
}

pub(crate) fn check_values(ctx: &Context, m: &Mutation) -> HResult<()> {
    let max = ctx.server()?.config().max_value_bytes;
    let largest = match m {
        Mutation::Put(p) => p.cells.iter().map(|c| c.value.len()).max(),
        Mutation::Append(a) => a.cells.iter().map(|c| c.value.len()).max(),
        _ => None,
    };
    match largest {
        Some(len) if len > max => Err(HBaseError::do_not_retry(format!(
            "a value of {len} bytes exceeds the server's maximum of {max} bytes"
        ))),
        _ => Ok(()),
    }
}

fn returns_cells(m: &Mutation) -> bool {
    match m {
        Mutation::Increment(i) => i.return_results,
        Mutation::Append(a) => a.return_results,
        _ => false,
    }
}

/// Applies one mutation (an increment or append with a `nonce` at most once on this server,
/// RFC 0032); the cells of an increment or append that asked for them.
fn apply(
    ctx: &Context,
    h: &HostedRegion,
    m: Mutation,
    nonce: Option<strata_storage::wal::Nonce>,
) -> HResult<Vec<Cell>> {
    check_row(h, m.row())?;
    crate::access::check_write(h, "mutate", std::slice::from_ref(&m), None)?;
    crate::access::space(h, std::slice::from_ref(&m))?;
    crate::access::throttle(h, Cost::writes(1, crate::access::mutation_bytes(&m)))?;
    let wants = returns_cells(&m);
    let rm = RowMutations::new(m.row().clone())
        .with(m)
        .map_err(|e| HBaseError::do_not_retry(e.to_string()))?;
    if let Some(nonce) = nonce {
        return crate::nonced::mutate_once(ctx, h, &rm, nonce, wants);
    }
    let result = h.mutate_row(&rm).map_err(|e| HBaseError::from(&e))?;
    Ok(if wants { result.cells } else { Vec::new() })
}

fn mutate(
    ctx: &Context,
    req: pb::MutateRequest,
    block: Vec<Cell>,
    out: &mut CellsOut,
) -> HResult<pb::MutateResponse> {
    let h = user_region(ctx, &req.region)?;
    let mut cells = block.into_iter();
    let m = mutation_from_pb(&req.mutation, &mut cells)?;
    check_values(ctx, &m)?;
    if let Some(cond) = &req.condition {
        let (condition, tr) = condition_from_pb(cond)?;
        if cond.row != *m.row() {
            return Err(HBaseError::do_not_retry(
                "check-and-mutate: the condition's row differs from the mutation's",
            ));
        }
        check_row(&h, m.row())?;
        crate::access::check_write(
            &h,
            "check_and_mutate",
            std::slice::from_ref(&m),
            Some(&condition),
        )?;
        // HBase counts a check-and-mutate as one read and one write.
        let cost = Cost {
            reads: 1,
            ..Cost::writes(1, crate::access::mutation_bytes(&m))
        };
        crate::access::space(&h, std::slice::from_ref(&m))?;
        crate::access::throttle(&h, cost)?;
        let wants = returns_cells(&m);
        let nonce = crate::nonced::of(&m, req.nonce_group, req.mutation.nonce);
        let cam = check_and_mutate(m.row().clone(), condition, tr, vec![m])?;
        // As HBase's `RSRpcServices.mutate`: the result of the increment or append applied
        // (`CheckAndMutateResult.getResult`), empty for a put or delete or a failed condition.
        let (processed, cells) = match nonce {
            Some(nonce) => crate::nonced::check_and_mutate_once(ctx, &h, &cam, nonce, wants)?,
            None => {
                let done = h
                    .check_and_mutate_result(&cam)
                    .map_err(|e| HBaseError::from(&e))?;
                let processed = done.is_some();
                let cells = done.filter(|_| wants).map(|r| r.cells).unwrap_or_default();
                (processed, cells)
            }
        };
        return Ok(pb::MutateResponse {
            result: Some(out.result(&cells)),
            processed: Some(processed),
        });
    }
    let nonce = crate::nonced::of(&m, req.nonce_group, req.mutation.nonce);
    let result = apply(ctx, &h, m, nonce)?;
    Ok(pb::MutateResponse {
        result: Some(out.result(&result)),
        processed: Some(true),
    })
}

/// The result of one action of a non-atomic region action; `group` is the request's nonce
/// group.
pub(crate) fn action_result(
    ctx: &Context,
    h: &HostedRegion,
    action: &pb::Action,
    group: Option<u64>,
    cells: &mut dyn Iterator<Item = Cell>,
    out: &mut CellsOut,
) -> pb::ResultOrException {
    let outcome = if let Some(g) = &action.get {
        get_from_pb(g).and_then(|(mut get, exists_only)| {
            check_row(h, &get.row)?;
            let found = if crate::access::narrow_read(h, "multi", &mut get.columns)? {
                crate::access::throttle(h, Cost::READ)?;
                h.get(&get).map_err(|e| HBaseError::from(&e))?
            } else {
                Vec::new()
            };
            crate::access::charge_read(h, cells_bytes(&found));
            Ok(if exists_only {
                pb::Result {
                    exists: Some(!found.is_empty()),
                    ..pb::Result::default()
                }
            } else {
                out.result(&found)
            })
        })
    } else if let Some(proto) = &action.mutation {
        mutation_from_pb(proto, cells).and_then(|m| {
            check_values(ctx, &m)?;
            let nonce = crate::nonced::of(&m, group, proto.nonce);
            let found = apply(ctx, h, m, nonce)?;
            Ok(out.result(&found))
        })
    } else {
        Err(HBaseError::do_not_retry(
            "coprocessor service calls are not supported by Strata",
        ))
    };
    match outcome {
        Ok(result) => pb::ResultOrException {
            index: action.index,
            result: Some(result),
            exception: None,
        },
        Err(e) => pb::ResultOrException {
            index: action.index,
            result: None,
            exception: Some(e.to_name_bytes()),
        },
    }
}

/// An atomic region action (or one under a condition): all mutations of one row at once.
/// Its increments and appends run with the last one's nonce in `group`, as HBase's
/// `RSRpcServices.checkAndMutate` and `mutateRows` run them (RFC 0032).
fn atomic(
    ctx: &Context,
    h: &HostedRegion,
    ra: &pb::RegionAction,
    condition: Option<&pb::Condition>,
    group: Option<u64>,
    cells: &mut dyn Iterator<Item = Cell>,
) -> HResult<(pb::RegionActionResult, bool)> {
    let mut mutations = Vec::new();
    let mut nonce = None;
    for a in &ra.action {
        let proto = a.mutation.as_ref().ok_or_else(|| {
            HBaseError::do_not_retry("an atomic region action holds only mutations")
        })?;
        let m = mutation_from_pb(proto, cells)?;
        check_values(ctx, &m)?;
        nonce = crate::nonced::of(&m, group, proto.nonce).or(nonce);
        mutations.push(m);
    }
    let row = mutations
        .first()
        .map(|m| m.row().clone())
        .ok_or_else(|| HBaseError::do_not_retry("empty atomic region action"))?;
    check_row(h, &row)?;
    let cost = Cost {
        reads: u64::from(condition.is_some()),
        ..Cost::writes(
            mutations.len() as u64,
            mutations.iter().map(crate::access::mutation_bytes).sum(),
        )
    };
    crate::access::space(h, &mutations)?;
    crate::access::throttle(h, cost)?;
    let wants = mutations.iter().any(returns_cells);
    let (processed, cells) = match condition {
        Some(cond) => {
            let (c, tr) = condition_from_pb(cond)?;
            crate::access::check_write(h, "check_and_mutate", &mutations, Some(&c))?;
            if cond.row != row {
                return Err(HBaseError::do_not_retry(
                    "check-and-mutate: the condition's row differs from the mutations'",
                ));
            }
            let cam = check_and_mutate(row, c, tr, mutations)?;
            if let Some(nonce) = nonce {
                crate::nonced::check_and_mutate_once(ctx, h, &cam, nonce, wants)?
            } else {
                let done = h
                    .check_and_mutate_result(&cam)
                    .map_err(|e| HBaseError::from(&e))?;
                (done.is_some(), done.map(|r| r.cells).unwrap_or_default())
            }
        }
        None => {
            crate::access::check_write(h, "mutate_row", &mutations, None)?;
            let mut rm = RowMutations::new(row);
            for m in mutations {
                rm.add(m)
                    .map_err(|e| HBaseError::do_not_retry(e.to_string()))?;
            }
            if let Some(nonce) = nonce {
                (true, crate::nonced::mutate_once(ctx, h, &rm, nonce, true)?)
            } else {
                let done = h.mutate_row(&rm).map_err(|e| HBaseError::from(&e))?;
                (true, done.cells)
            }
        }
    };
    // As HBase's `RSRpcServices.multi` answers an atomic region action: one result per
    // action, indexed by position, empty but for the first, which carries the new values of
    // the increments and appends applied (`CheckAndMutateResult.getResult`, `mutateRow`'s
    // `Result`), inline in the protobuf as HBase's `ProtobufUtil.toResult` puts them.
    let first = if wants && !cells.is_empty() {
        pb::Result {
            cell: cells.iter().map(cell_to_pb).collect(),
            ..pb::Result::default()
        }
    } else {
        pb::Result::default()
    };
    let mut first = Some(first);
    let results = (0..ra.action.len())
        .map(|i| pb::ResultOrException {
            index: Some(i as u32),
            result: Some(first.take().unwrap_or_default()),
            exception: None,
        })
        .collect();
    Ok((
        pb::RegionActionResult {
            result_or_exception: results,
            exception: None,
            processed: Some(processed),
        },
        processed,
    ))
}

fn multi(
    ctx: &Context,
    req: pb::MultiRequest,
    block: Vec<Cell>,
    out: &mut CellsOut,
) -> HResult<pb::MultiResponse> {
    let mut cells = block.into_iter();
    let mut results = Vec::with_capacity(req.region_action.len());
    let mut processed = None;
    for ra in &req.region_action {
        let region = user_region(ctx, &ra.region);
        // The condition moved from the request to each region action in HBase 2.4.
        let condition = ra.condition.as_ref().or(req.condition.as_ref());
        let outcome = region.and_then(|h| {
            if ra.atomic() || condition.is_some() {
                let (r, p) = atomic(ctx, &h, ra, condition, req.nonce_group, &mut cells)?;
                processed = Some(p);
                Ok(r)
            } else {
                Ok(pb::RegionActionResult {
                    result_or_exception: non_atomic(ctx, &h, ra, req.nonce_group, &mut cells, out),
                    exception: None,
                    processed: None,
                })
            }
        });
        results.push(match outcome {
            Ok(r) => r,
            Err(e) => {
                if ctx.trace {
                    eprintln!("hbase-rpc: Multi region action: {} {}", e.class, e.message);
                }
                // The region's cells must still be consumed so later actions find theirs.
                for a in &ra.action {
                    let n = a
                        .mutation
                        .as_ref()
                        .and_then(|m| m.associated_cell_count)
                        .unwrap_or(0);
                    for _ in 0..n.max(0) {
                        cells.next();
                    }
                }
                pb::RegionActionResult {
                    result_or_exception: Vec::new(),
                    exception: Some(e.to_name_bytes()),
                    processed: None,
                }
            }
        });
    }
    Ok(pb::MultiResponse {
        region_action_result: results,
        processed,
    })
}

fn scan_response(id: u64, batch: &Batch, out: &mut CellsOut) -> pb::ScanResponse {
    let mut resp = pb::ScanResponse {
        scanner_id: Some(id),
        more_results: Some(true),
        more_results_in_region: Some(batch.more),
        heartbeat_message: batch.heartbeat.then_some(true),
        ..pb::ScanResponse::default()
    };
    if out.uses_block() {
        for (cells, partial) in &batch.results {
            out.push_block(cells);
            resp.cells_per_result.push(cells.len() as u32);
            resp.partial_flag_per_result.push(*partial);
        }
    } else {
        resp.results = batch
            .results
            .iter()
            .map(|(cells, partial)| pb::Result {
                partial: partial.then_some(true),
                ..out.result(cells)
            })
            .collect();
    }
    resp
}

/// A response with no results: the region has more rows (or `more` is false).
fn empty_response(id: u64, more: bool, out: &mut CellsOut) -> pb::ScanResponse {
    let batch = Batch {
        more,
        ..Batch::default()
    };
    scan_response(id, &batch, out)
}

fn open_scanner(ctx: &Context, req: &pb::ScanRequest) -> HResult<OpenScanner> {
    let region = req
        .region
        .as_ref()
        .ok_or_else(|| HBaseError::do_not_retry("scan without a region or scanner id"))?;
    let s = req
        .scan
        .as_ref()
        .ok_or_else(|| HBaseError::do_not_retry("scan without a scan"))?;
    match ctx.target(region)? {
        Target::Meta => {
            if s.filter.is_some() {
                return Err(HBaseError::do_not_retry(
                    "filters on hbase:meta are not supported",
                ));
            }
            let mscan = MetaScan {
                start: s.start_row.clone().unwrap_or_default(),
                include_start: s.include_start_row(),
                stop: s.stop_row.clone().unwrap_or_default(),
                include_stop: s.include_stop_row(),
                reversed: s.reversed(),
                columns: s
                    .column
                    .iter()
                    .map(|c| (c.family.clone(), c.qualifier.clone()))
                    .collect(),
            };
            let mut rows = mscan.select(ctx.meta_rows()?);
            let limit = req.limit_of_rows();
            if limit > 0 {
                rows.truncate(limit as usize);
            }
            Ok(OpenScanner::new(Source::Meta(rows.into()), None, None))
        }
        Target::User(h) => {
            let mut spec = scan_from_pb(s, req.limit_of_rows())?;
            crate::access::throttle(&h, Cost::READ)?;
            if !crate::access::narrow_read(&h, "scan", &mut spec.scan.columns)? {
                // Nothing of the table may be read with these columns: no rows.
                return Ok(OpenScanner::new(
                    Source::Meta(Vec::new().into()),
                    None,
                    None,
                ));
            }
            let scanner = h.scan(&spec.scan).map_err(|e| HBaseError::from(&e))?;
            let skip = spec.exclude_start.then(|| spec.scan.start_row.clone());
            Ok(OpenScanner::new(
                Source::Region(Box::new(scanner)),
                skip,
                spec.max_result_bytes,
            ))
        }
    }
}

fn scan(ctx: &Context, req: pb::ScanRequest, out: &mut CellsOut) -> HResult<pb::ScanResponse> {
    // Meta's rows are small: a master (no region server) answers them with HBase's default.
    let server_max = ctx
        .server
        .as_ref()
        .map_or(2 << 20, |s| s.config().scan_max_result_bytes);
    let rows_wanted = req.number_of_rows.unwrap_or(0) as usize;
    let (id, scanner) = match req.scanner_id {
        Some(id) => {
            if req.close_scanner() && rows_wanted == 0 {
                ctx.scanners.close(id);
                return Ok(pb::ScanResponse {
                    scanner_id: Some(id),
                    more_results: Some(false),
                    ..pb::ScanResponse::default()
                });
            }
            let scanner = ctx.scanners.get(id)?;
            (id, scanner)
        }
        None => {
            let opened = open_scanner(ctx, &req)?;
            ctx.scanners.open(opened)?
        }
    };
    let mut s = scanner.lock();
    if req.scanner_id.is_some() {
        if let Some(seq) = req.next_call_seq {
            if seq != s.next_call_seq {
                let expected = s.next_call_seq;
                drop(s);
                ctx.scanners.close(id);
                return Err(HBaseError::out_of_order(id, expected, seq));
            }
        }
        s.next_call_seq += 1;
        if req.renew() {
            return Ok(empty_response(id, true, out));
        }
    }
    if rows_wanted == 0 {
        return Ok(empty_response(id, true, out));
    }
    let limits = Limits {
        max_bytes: s.max_result_bytes.map_or(server_max, |m| m.min(server_max)),
        partials: req.client_handles_partials(),
        deadline: req
            .client_handles_heartbeats()
            .then(|| Instant::now() + ctx.config.scan_time_limit),
    };
    let batch = s.next_batch(rows_wanted, &limits);
    drop(s);
    let batch = match batch {
        Ok(b) => b,
        Err(e) => {
            ctx.scanners.close(id);
            return Err(e);
        }
    };
    if !batch.more || req.close_scanner() {
        ctx.scanners.close(id);
    }
    let mut resp = scan_response(id, &batch, out);
    resp.ttl = Some(ctx.scanners.lease().as_millis() as u32);
    Ok(resp)
}
