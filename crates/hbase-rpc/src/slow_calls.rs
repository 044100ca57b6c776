//! Slow client calls in the server's slow-operation log (HBase's `responseTooSlow`, which its
//! RPC server logs past `hbase.ipc.warn.response.time`): a `Get`, `Mutate`, `Multi` or `Scan`
//! answered at least the server's slow threshold (`--slow-op-ms`) after it was read is logged
//! and kept for the web UI's slow-operation page, as the gRPC services' requests are.
//!
//! A call costs two clock reads, a comparison and (for these four methods) a reference to
//! its request; only a slow call's request is decoded
//! again (for its table and first row) and its reply's header read (did it fail?).

use std::time::Instant;

use bytes::Bytes;
use prost::Message;
use strata_server::observe::Op;

use crate::context::Context;
use crate::frame::Call;
use crate::pb;
use crate::region_name::{parse_region_name, RegionRef};

/// A client call being timed, from when it was read.
#[derive(Clone)]
pub(crate) struct Timed {
    received: Instant,
    /// The method, if it is one recorded.
    method: Option<&'static str>,
    param: Bytes,
    request_bytes: usize,
}

impl Timed {
    /// Starts timing `call` (read now).
    pub(crate) fn start(call: &Call) -> Timed {
        let method = match call.header.method_name() {
            "Get" => Some("Get"),
            "Mutate" => Some("Mutate"),
            "Multi" => Some("Multi"),
            "Scan" => Some("Scan"),
            _ => None,
        };
        Timed {
            received: Instant::now(),
            method,
            param: if method.is_some() {
                call.param.clone()
            } else {
                Bytes::new()
            },
            request_bytes: call.param.len() + call.cell_block.len(),
        }
    }

    /// Records the call, answered with the reply frame `reply` (length prefix included), if
    /// it was slow. Calls of other methods, and servers without a region server (a master's
    /// listener), are not recorded.
    pub(crate) fn check(&self, ctx: &Context, reply: &[u8]) {
        let (Some(server), Some(method)) = (&ctx.server, self.method) else {
            return;
        };
        let observer = server.observer();
        let elapsed = self.received.elapsed();
        if !observer.is_slow(elapsed) {
            return;
        }
        let Some(what) = describe(method, self.param.clone()) else {
            return;
        };
        let table = match what.region.as_deref().map(parse_region_name) {
            Some(Ok(RegionRef::User { table, .. })) => table,
            Some(Ok(RegionRef::Meta)) => "hbase:meta".to_owned(),
            // A scanner's next page names its scanner only; a name that does not parse was
            // refused (and answered) as such.
            _ => String::new(),
        };
        observer.record_slow(
            what.op,
            &table,
            &what.row,
            self.request_bytes,
            elapsed,
            !failed(reply),
        );
    }
}

/// What a slow call was: its operation, region name (if it names one) and first row.
#[derive(Debug, PartialEq)]
struct Described {
    op: Op,
    region: Option<Vec<u8>>,
    row: Vec<u8>,
}

fn describe(method: &str, param: Bytes) -> Option<Described> {
    let region = |r: pb::RegionSpecifier| Some(r.value.to_vec());
    Some(match method {
        "Get" => {
            let req = pb::GetRequest::decode(param).ok()?;
            Described {
                op: Op::Get,
                region: region(req.region),
                row: req.get.row.to_vec(),
            }
        }
        "Mutate" => {
            let req = pb::MutateRequest::decode(param).ok()?;
            Described {
                op: if req.condition.is_some() {
                    Op::CheckAndMutate
                } else {
                    Op::Mutate
                },
                region: region(req.region),
                row: req.mutation.row.map(|r| r.to_vec()).unwrap_or_default(),
            }
        }
        "Multi" => {
            let req = pb::MultiRequest::decode(param).ok()?;
            let writes = req
                .region_action
                .iter()
                .flat_map(|ra| &ra.action)
                .any(|a| a.mutation.is_some());
            let first = req.region_action.into_iter().next();
            let row = first
                .as_ref()
                .and_then(|ra| ra.action.first())
                .and_then(|a| match (&a.mutation, &a.get) {
                    (Some(m), _) => m.row.as_ref().map(|r| r.to_vec()),
                    (None, Some(g)) => Some(g.row.to_vec()),
                    (None, None) => None,
                })
                .unwrap_or_default();
            Described {
                op: if writes { Op::Batch } else { Op::MultiGet },
                region: first.map(|ra| ra.region.value.to_vec()),
                row,
            }
        }
        "Scan" => {
            let req = pb::ScanRequest::decode(param).ok()?;
            Described {
                op: Op::Scan,
                region: req.region.map(|r| r.value.to_vec()),
                row: req
                    .scan
                    .and_then(|s| s.start_row)
                    .map(|r| r.to_vec())
                    .unwrap_or_default(),
            }
        }
        _ => return None,
    })
}

/// Whether a reply frame carries an exception.
fn failed(reply: &[u8]) -> bool {
    let Some(frame) = reply.get(4..) else {
        return false;
    };
    pb::ResponseHeader::decode_length_delimited(frame).is_ok_and(|h| h.exception.is_some())
}

#[cfg(test)]
mod tests;
