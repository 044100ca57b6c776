//! The fake data service: rows in the shared `BTreeMap`, served only for regions assigned to
//! this server (else `NOT_SERVING_REGION`), scans following the protocol in `strata.proto`.

use std::ops::RangeBounds;
use std::sync::Arc;

use bytes::Bytes;
use parking_lot::Mutex;
use strata_proto::pb::{self, ErrorCode};
use tonic::{Request, Response, Status};

use super::{fault_status, Fault, Region, State, TABLE};

pub struct FakeData {
    pub state: Arc<Mutex<State>>,
    pub me: usize,
}

type Answer<T> = Result<Response<T>, Status>;

impl FakeData {
    /// Never answers while this server is stalled (as a SIGSTOPped process): the call is
    /// counted in `stalled_calls`, nothing is applied.
    async fn stall(&self) {
        let stalled = {
            let mut s = self.state.lock();
            let stalled = s.stalled.contains(&self.me);
            if stalled {
                s.stalled_calls += 1;
            }
            stalled
        };
        if stalled {
            tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
        }
    }

    /// Counts the call; fails now for a plain fault, returns one to fail with after applying.
    fn begin(
        &self,
        s: &mut State,
        rpc: &'static str,
        table: &str,
    ) -> Result<Option<Fault>, Status> {
        let fault = s.enter(rpc);
        if let Some(f) = fault.as_ref().filter(|f| !f.after_apply) {
            return Err(fault_status(f));
        }
        if table != TABLE {
            return Err(strata_proto::status(
                ErrorCode::TableNotFound,
                table.to_string(),
            ));
        }
        Ok(fault)
    }

    fn serve<'a>(&self, region: Option<&'a Region>) -> Result<&'a Region, Status> {
        match region {
            Some(r) if r.server == self.me => Ok(r),
            _ => Err(strata_proto::status(
                ErrorCode::NotServingRegion,
                format!("server {} does not serve that region", self.me),
            )),
        }
    }
}

fn finish<T>(fault: Option<Fault>, answer: T) -> Answer<T> {
    match fault {
        Some(f) => Err(fault_status(&f)),
        None => Ok(Response::new(answer)),
    }
}

fn result_of(s: &State, row: &Bytes) -> pb::Result {
    let cells = s.rows.get(row).into_iter().flatten();
    pb::Result {
        cells: cells
            .map(|((family, qualifier), value)| cell(row, family, qualifier, value))
            .collect(),
        cell_block: Bytes::new(),
    }
}

fn cell(row: &Bytes, family: &Bytes, qualifier: &Bytes, value: &Bytes) -> pb::Cell {
    pb::Cell {
        row: row.clone(),
        family: family.clone(),
        qualifier: qualifier.clone(),
        timestamp: 1,
        r#type: pb::CellType::Put as i32,
        value: value.clone(),
    }
}

/// Applies a row's mutations; returns the new values of increments and appends.
fn apply(s: &mut State, rm: &pb::RowMutations) -> Vec<pb::Cell> {
    use pb::mutation::Kind;
    let mut out = Vec::new();
    for m in &rm.mutations {
        let row = s.rows.entry(rm.row.clone()).or_default();
        match m.kind.as_ref().unwrap() {
            Kind::Put(p) => {
                for c in &p.cells {
                    row.insert((c.family.clone(), c.qualifier.clone()), c.value.clone());
                }
            }
            Kind::Delete(d) if d.markers.is_empty() => row.clear(),
            Kind::Delete(d) => {
                for marker in &d.markers {
                    row.retain(|(f, q), _| {
                        f != &marker.family
                            || !(marker.qualifier.is_empty() || q == &marker.qualifier)
                    });
                }
            }
            Kind::Increment(inc) => {
                for c in &inc.cells {
                    let key = (c.family.clone(), c.qualifier.clone());
                    let old = row
                        .get(&key)
                        .map_or(0, |v| i64::from_be_bytes(v[..].try_into().unwrap()));
                    let new = Bytes::copy_from_slice(&(old + c.amount).to_be_bytes());
                    row.insert(key, new.clone());
                    if inc.return_results {
                        out.push(cell(&rm.row, &c.family, &c.qualifier, &new));
                    }
                }
            }
            Kind::Append(app) => {
                for c in &app.cells {
                    let key = (c.family.clone(), c.qualifier.clone());
                    let old = row.get(&key).cloned().unwrap_or_default();
                    let new = Bytes::from([old.as_ref(), c.value.as_ref()].concat());
                    row.insert(key, new.clone());
                    if app.return_results {
                        out.push(cell(&rm.row, &c.family, &c.qualifier, &new));
                    }
                }
            }
        }
        if row.is_empty() {
            s.rows.remove(&rm.row);
        }
    }
    out
}

#[tonic::async_trait]
impl pb::data_server::Data for FakeData {
    async fn get(&self, request: Request<pb::GetRequest>) -> Answer<pb::GetResponse> {
        self.stall().await;
        let request = request.into_inner();
        let mut s = self.state.lock();
        let fault = self.begin(&mut s, "get", &request.table)?;
        let row = request.get.unwrap().row;
        self.serve(s.containing(&row))?;
        let result = Some(result_of(&s, &row));
        finish(fault, pb::GetResponse { result })
    }

    async fn multi_get(
        &self,
        request: Request<pb::MultiGetRequest>,
    ) -> Answer<pb::MultiGetResponse> {
        self.stall().await;
        let request = request.into_inner();
        let mut s = self.state.lock();
        let fault = self.begin(&mut s, "multi_get", &request.table)?;
        let mut results = Vec::new();
        for get in request.gets {
            self.serve(s.containing(&get.row))?;
            results.push(result_of(&s, &get.row));
        }
        finish(fault, pb::MultiGetResponse { results })
    }

    async fn mutate(&self, request: Request<pb::MutateRequest>) -> Answer<pb::MutateResponse> {
        self.stall().await;
        let request = request.into_inner();
        let mut s = self.state.lock();
        let fault = self.begin(&mut s, "mutate", &request.table)?;
        let rm = request.mutations.unwrap();
        self.serve(s.containing(&rm.row))?;
        let cells = apply(&mut s, &rm);
        finish(fault, pb::MutateResponse { cells })
    }

    async fn batch(&self, request: Request<pb::BatchRequest>) -> Answer<pb::BatchResponse> {
        self.stall().await;
        use pb::batch_result::Outcome;
        let request = request.into_inner();
        let mut s = self.state.lock();
        let fault = self.begin(&mut s, "batch", &request.table)?;
        let mut results = Vec::new();
        for rm in request.rows {
            let outcome = if rm.row.starts_with(b"bad") {
                Outcome::Error(pb::ErrorDetail {
                    code: ErrorCode::NoSuchFamily as i32,
                    message: "rows named bad* fail".into(),
                })
            } else if let Err(status) = self.serve(s.containing(&rm.row)) {
                Outcome::Error(pb::ErrorDetail {
                    code: ErrorCode::NotServingRegion as i32,
                    message: status.message().to_string(),
                })
            } else {
                Outcome::Ok(pb::Result {
                    cells: apply(&mut s, &rm),
                    cell_block: Bytes::new(),
                })
            };
            results.push(pb::BatchResult {
                outcome: Some(outcome),
            });
        }
        finish(fault, pb::BatchResponse { results })
    }

    async fn check_and_mutate(
        &self,
        request: Request<pb::CheckAndMutateRequest>,
    ) -> Answer<pb::CheckAndMutateResponse> {
        self.stall().await;
        use pb::check_and_mutate_request::Condition;
        let request = request.into_inner();
        let mut s = self.state.lock();
        let fault = self.begin(&mut s, "check_and_mutate", &request.table)?;
        self.serve(s.containing(&request.row))?;
        let Some(Condition::Column(c)) = request.condition else {
            return Err(Status::unimplemented("filter conditions"));
        };
        let stored = s
            .rows
            .get(&request.row)
            .and_then(|row| row.get(&(c.family.clone(), c.qualifier.clone())));
        let processed = stored == c.expected.as_ref();
        if processed {
            apply(&mut s, &request.mutations.unwrap());
        }
        finish(fault, pb::CheckAndMutateResponse { processed })
    }

    async fn scan(&self, request: Request<pb::ScanRequest>) -> Answer<pb::ScanResponse> {
        self.stall().await;
        let request = request.into_inner();
        let mut s = self.state.lock();
        let fault = self.begin(&mut s, "scan", &request.table)?;
        let wire = request.scan.unwrap();
        let scan = strata_proto::convert::scan_from_pb(wire.clone()).unwrap();
        let (lower, upper) = scan.bounds();
        let region = match (&request.after_row, scan.reversed) {
            (Some(after), false) => s.containing(&[after.as_ref(), &[0]].concat()),
            (Some(after), true) => s.before(after),
            (None, true) if scan.start_row.is_empty() => s.regions.last(),
            (None, _) => s.containing(&scan.start_row),
        };
        let region = self.serve(region)?.clone();
        let in_scan = |row: &Bytes| {
            region.contains(row)
                && RangeBounds::<Bytes>::contains(&(lower.as_ref(), upper.as_ref()), row)
                && match &request.after_row {
                    Some(after) if scan.reversed => row < after,
                    Some(after) => row > after,
                    None => true,
                }
        };
        let wanted = wire
            .caching
            .unwrap_or(100)
            .min(wire.limit.map_or(u32::MAX, |l| l as u32)) as usize;
        let matching: Box<dyn Iterator<Item = &Bytes>> = if scan.reversed {
            Box::new(s.rows.keys().rev().filter(|r| in_scan(r)))
        } else {
            Box::new(s.rows.keys().filter(|r| in_scan(r)))
        };
        let mut page: Vec<Bytes> = matching.take(wanted + 1).cloned().collect();
        let more_in_region = page.len() > wanted || s.stuck_scans;
        page.truncate(if s.stuck_scans { 0 } else { wanted });
        let rows = page.iter().map(|row| result_of(&s, row)).collect();
        s.scan_pages += 1;
        let page_number = s.scan_pages;
        let (due, later): (Vec<_>, Vec<_>) = std::mem::take(&mut s.page_hooks)
            .into_iter()
            .partition(|(n, _)| *n == page_number);
        s.page_hooks = later;
        for (_, hook) in due {
            hook(&mut s);
        }
        finish(
            fault,
            pb::ScanResponse {
                rows,
                more_in_region,
                region_id: region.id,
                region_start: region.start,
                region_end: region.end,
                // A server of the row-by-row form: the client reads either.
                page_block: Default::default(),
            },
        )
    }
}
