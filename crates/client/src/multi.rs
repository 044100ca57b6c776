//! Multi-row requests (`get_many`, `batch`, and through it `put_many` and the buffered
//! mutator): rows are grouped by region, each group goes out as RPCs of at most
//! [`MAX_ROWS_PER_RPC`] rows, RPCs run concurrently (as many as the caller's limit allows),
//! and results are put back in request order.
//!
//! A group that fails as a whole with `NOT_SERVING_REGION` (or another retryable code its
//! rows allow) is relocated and regrouped in the next round; so are single rows the server
//! reports as not applied (`NOT_SERVING_REGION`, `REGION_TOO_BUSY`). Rounds share one retry
//! budget.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use strata_model::cell::Cell;
use strata_model::ops::{Get, RowMutations};
use strata_proto::convert;
use strata_proto::pb::{self, ErrorCode};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tonic::Status;

use crate::error::Error;
use crate::link::DataLink;
use crate::locate::{RegionLocation, Regions};
use crate::retry::{should_retry, within, Idempotence, Retry};
use crate::table::{cells_of, idempotence_of, Table};

/// Most rows one multi-row RPC carries. A region's group larger than this goes out as several
/// RPCs, so that each answers well within the per-attempt timeout even when its rows are many
/// and small: a 2 MiB buffer of 10-byte values is ~35,000 rows, which took the server longer
/// than the timeout, and the resent RPCs then piled more work on it.
pub const MAX_ROWS_PER_RPC: usize = 1000;

/// What a group's RPC says of one of its rows.
pub(crate) enum Outcome<T> {
    /// Finished, well or badly.
    Done(Result<T, Error>),
    /// Not applied; send it again (after relocating).
    Retry(Error),
}

/// Row indexes grouped by the region holding them (in region order), and the indexes of rows
/// no assigned region holds.
///
/// Each row is first checked against the region the previous row fell in (two comparisons,
/// which is all a buffered mutator's single-region chunks need), then searched; groups are
/// found by the region's position, so no row is compared with more region bounds than that.
pub(crate) fn group_by_region<'a>(
    regions: &Regions,
    rows: impl IntoIterator<Item = (usize, &'a [u8])>,
) -> (Vec<(RegionLocation, Vec<usize>)>, Vec<usize>) {
    let all = regions.all();
    // (region position, row indexes), in order of first appearance.
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut group_of: HashMap<usize, usize> = HashMap::new();
    let mut missing = Vec::new();
    // The region position and group of the previous row held by an assigned region.
    let mut last: Option<(usize, usize)> = None;
    for (index, row) in rows {
        if let Some((position, group)) = last {
            if all[position].contains(row) {
                groups[group].1.push(index);
                continue;
            }
        }
        match regions.position(row).filter(|&p| !all[p].server.is_empty()) {
            Some(position) => {
                let group = *group_of.entry(position).or_insert_with(|| {
                    groups.push((position, Vec::new()));
                    groups.len() - 1
                });
                groups[group].1.push(index);
                last = Some((position, group));
            }
            None => missing.push(index),
        }
    }
    groups.sort_unstable_by_key(|(position, _)| *position);
    let groups = groups
        .into_iter()
        .map(|(position, indexes)| (all[position].clone(), indexes))
        .collect();
    (groups, missing)
}

/// Reads `gets` grouped per region with `MultiGet`.
pub(crate) async fn get_many(table: &Table, gets: &[Get]) -> Result<Vec<Vec<Cell>>, Error> {
    for get in gets {
        get.validate()?;
    }
    let rows: Vec<&[u8]> = gets.iter().map(|g| g.row.as_ref()).collect();
    let name = table.name().to_string();
    let idempotence = vec![Idempotence::Idempotent; gets.len()];
    let send = |mut client: DataLink, indexes: Vec<usize>| {
        let request = pb::MultiGetRequest {
            table: name.clone(),
            gets: indexes
                .iter()
                .map(|&i| convert::get_to_pb(&gets[i]))
                .collect(),
            cell_block: true,
        };
        async move {
            let response = client.multi_get(request).await?.into_inner();
            if response.results.len() != indexes.len() {
                return Err(Status::internal(format!(
                    "multi-get answered {} of {} gets",
                    response.results.len(),
                    indexes.len()
                )));
            }
            Ok(response
                .results
                .into_iter()
                .map(|r| Outcome::Done(cells_of(r)))
                .collect())
        }
    };
    let results = run(table, &rows, idempotence, None, send).await?;
    results.into_iter().collect()
}

/// Applies `rows` grouped per region with `Batch`; at most `limit`'s permits of RPCs run at
/// once when given.
pub(crate) async fn batch(
    table: &Table,
    rows: &[RowMutations],
    limit: Option<Arc<Semaphore>>,
) -> Result<Vec<Result<Vec<Cell>, Error>>, Error> {
    for row in rows {
        row.validate()?;
    }
    batch_valid(table, rows, limit).await
}

/// [`batch`] of rows already validated (the buffered mutator checks each row as it buffers
/// it). Each RPC's rows are put in wire form when it is made: encoded straight into its
/// frame over a framed link, converted to messages otherwise; never kept converted.
pub(crate) async fn batch_valid(
    table: &Table,
    rows: &[RowMutations],
    limit: Option<Arc<Semaphore>>,
) -> Result<Vec<Result<Vec<Cell>, Error>>, Error> {
    let keys: Vec<&[u8]> = rows.iter().map(|r| r.row.as_ref()).collect();
    let idempotence = rows.iter().map(idempotence_of).collect();
    let name = table.name().to_string();
    let send = |client: DataLink, indexes: Vec<usize>| {
        let call = client.batch_rows(&name, indexes.iter().map(|&i| &rows[i]).collect());
        async move {
            let response = call.send().await?;
            if response.results.len() != indexes.len() {
                return Err(Status::internal(format!(
                    "batch answered {} of {} rows",
                    response.results.len(),
                    indexes.len()
                )));
            }
            Ok(response.results.into_iter().map(batch_outcome).collect())
        }
    };
    run(table, &keys, idempotence, limit, send).await
}

fn batch_outcome(result: pb::BatchResult) -> Outcome<Vec<Cell>> {
    match result.outcome {
        Some(pb::batch_result::Outcome::Ok(r)) => Outcome::Done(cells_of(r)),
        Some(pb::batch_result::Outcome::Error(detail)) => {
            let code = ErrorCode::try_from(detail.code).unwrap_or(ErrorCode::Unknown);
            let e = Error::new(code, detail.message);
            match code {
                ErrorCode::NotServingRegion | ErrorCode::RegionTooBusy => Outcome::Retry(e),
                _ => Outcome::Done(Err(e)),
            }
        }
        None => Outcome::Done(Err(Error::bad_response("a batch result has no outcome"))),
    }
}

/// Sends `rows` in per-region groups with `send(client, indexes)` until each has an outcome
/// or the retry budget runs out (the rows left then carry the last error).
async fn run<T, S, Fut>(
    table: &Table,
    rows: &[&[u8]],
    idempotence: Vec<Idempotence>,
    limit: Option<Arc<Semaphore>>,
    send: S,
) -> Result<Vec<Result<T, Error>>, Error>
where
    T: Send + 'static,
    S: Fn(DataLink, Vec<usize>) -> Fut,
    Fut: Future<Output = Result<Vec<Outcome<T>>, Status>> + Send + 'static,
{
    let conn = &table.conn;
    let name = table.name();
    let mut results: Vec<Option<Result<T, Error>>> = (0..rows.len()).map(|_| None).collect();
    let mut pending: Vec<usize> = (0..rows.len()).collect();
    let mut retry = Retry::new(conn.options());
    while !pending.is_empty() {
        let regions = match retry.run(conn.regions(name)).await {
            Ok(regions) => regions,
            Err(e) => {
                retry.back_off(e, Idempotence::Idempotent).await?;
                continue;
            }
        };
        let (groups, mut next) = group_by_region(&regions, pending.iter().map(|&i| (i, rows[i])));
        let mut last_error = (!next.is_empty()).then(|| {
            conn.invalidate(name);
            Error::new(
                ErrorCode::NotServingRegion,
                format!("rows of {name} without a region"),
            )
        });
        let mut tasks = JoinSet::new();
        let rpcs = groups.into_iter().flat_map(|(region, indexes)| {
            let chunks: Vec<Vec<usize>> = indexes
                .chunks(MAX_ROWS_PER_RPC)
                .map(<[usize]>::to_vec)
                .collect();
            chunks.into_iter().map(move |c| (region.clone(), c))
        });
        for (region, indexes) in rpcs {
            let client = conn.data(&region.server)?;
            let request = send(client, indexes.clone());
            let limit = limit.clone();
            let (server, patience) = (region.server.clone(), conn.options().attempt_timeout);
            tasks.spawn(async move {
                let _permit = match &limit {
                    Some(l) => l.clone().acquire_owned().await.ok(),
                    None => None,
                };
                let answer = within(&server, patience, async {
                    request.await.map_err(Error::from)
                })
                .await
                .map_err(|e| strata_proto::status(e.code, e.message));
                (indexes, answer)
            });
        }
        let finished = retry.run(async { Ok(tasks.join_all().await) }).await?;
        for (indexes, answer) in finished {
            match answer {
                Ok(outcomes) => {
                    for (i, outcome) in indexes.into_iter().zip(outcomes) {
                        match outcome {
                            Outcome::Done(r) => results[i] = Some(r),
                            Outcome::Retry(e) => {
                                if e.code == ErrorCode::NotServingRegion {
                                    conn.invalidate(name);
                                }
                                next.push(i);
                                last_error = Some(e);
                            }
                        }
                    }
                }
                Err(status) => {
                    let e = Error::from(status);
                    if matches!(e.code, ErrorCode::NotServingRegion | ErrorCode::Unavailable) {
                        conn.invalidate(name);
                    }
                    for i in indexes {
                        if should_retry(&e, idempotence[i]) {
                            next.push(i);
                        } else {
                            results[i] = Some(Err(e.clone()));
                        }
                    }
                    last_error = Some(e);
                }
            }
        }
        pending = next;
        if let (false, Some(e)) = (pending.is_empty(), last_error) {
            if let Err(e) = retry.back_off(e, Idempotence::Idempotent).await {
                for &i in &pending {
                    results[i] = Some(Err(e.clone()));
                }
                break;
            }
        }
    }
    Ok(results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(Error::bad_response("a row got no outcome"))))
        .collect())
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;

    use super::*;

    fn region(id: u64, start: &'static [u8], end: &'static [u8], server: &str) -> RegionLocation {
        RegionLocation {
            region_id: id,
            start_row: Bytes::from_static(start),
            end_row: Bytes::from_static(end),
            server: server.to_string(),
            store_bytes: 0,
            memtable_bytes: 0,
            store_files: 0,
            name: String::new(),
            requests: 0,
            minor_compactions: 0,
            major_compactions: 0,
        }
    }

    /// `rows` grouped as (region id, row indexes), and the rows no assigned region holds.
    fn grouped(regions: &Regions, rows: &[&[u8]]) -> (Vec<(u64, Vec<usize>)>, Vec<usize>) {
        let (groups, missing) = group_by_region(regions, rows.iter().copied().enumerate());
        let ids = groups.into_iter().map(|(r, i)| (r.region_id, i)).collect();
        (ids, missing)
    }

    #[test]
    fn rows_group_by_region_keeping_request_order_within_a_group() {
        let regions = Regions::new(vec![
            region(1, b"", b"f", "a:1"),
            region(2, b"f", b"m", ""),
            region(3, b"m", b"", "b:1"),
        ]);
        let rows: [&[u8]; 6] = [b"z", b"a", b"g", b"n", b"e", b"m"];
        let (ids, missing) = grouped(&regions, &rows);
        assert_eq!(ids, vec![(1, vec![1, 4]), (3, vec![0, 3, 5])]);
        // Region 2 is unassigned.
        assert_eq!(missing, vec![2]);
    }

    #[test]
    fn runs_of_rows_in_one_region_stop_at_its_bounds() {
        let regions = Regions::new(vec![
            region(1, b"", b"f", "a:1"),
            region(2, b"f", b"m", "b:1"),
            region(3, b"m", b"", "c:1"),
        ]);
        // Runs in one region, each ended by a row on the next region's start row (an end row
        // is not the region's), or one below the previous region's start.
        let rows: [&[u8]; 9] = [b"a", b"b", b"f", b"g", b"l", b"m", b"z", b"", b"e"];
        let (ids, missing) = grouped(&regions, &rows);
        assert_eq!(
            ids,
            vec![(1, vec![0, 1, 7, 8]), (2, vec![2, 3, 4]), (3, vec![5, 6])]
        );
        assert!(missing.is_empty());
        // A table without regions (not yet located) holds no row.
        let (ids, missing) = grouped(&Regions::new(vec![]), &rows);
        assert!(ids.is_empty());
        assert_eq!(missing.len(), rows.len());
    }
}
