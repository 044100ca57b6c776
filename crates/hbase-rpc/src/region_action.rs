//! A non-atomic region action of a `Multi` call: its actions in order, with consecutive puts
//! and deletes applied together through `HostedRegion::batch` (one WAL entry, one MVCC wait
//! per mini-batch, as HBase's `doBatchOp`). A get, an increment or an append first applies the
//! puts and deletes before it, so every action sees the ones before it.

use strata_model::ops::{Mutation, RowMutations};
use strata_server::HostedRegion;

use crate::client_svc::{action_result, check_values};
use crate::context::{check_row, CellsOut, Context};
use crate::convert::mutation_from_pb;
use crate::error::{HBaseError, HResult};
use crate::pb;
use strata_model::cell::Cell;

/// The results of the actions of `ra` on `h`, in the order of its actions; increments and
/// appends run with their nonces in `nonce_group` (RFC 0032).
pub(crate) fn non_atomic(
    ctx: &Context,
    h: &HostedRegion,
    ra: &pb::RegionAction,
    nonce_group: Option<u64>,
    cells: &mut dyn Iterator<Item = Cell>,
    out: &mut CellsOut,
) -> Vec<pb::ResultOrException> {
    let mut results: Vec<Option<pb::ResultOrException>> = Vec::with_capacity(ra.action.len());
    // Puts and deletes not applied yet: (place in `results`, action index, the row mutation).
    let mut pending: Vec<(usize, Option<u32>, RowMutations)> = Vec::new();
    for a in &ra.action {
        let place = results.len();
        let plain = match &a.mutation {
            Some(m) if is_plain(m) => Some(plain_row(ctx, h, m, cells)),
            _ => None,
        };
        match plain {
            Some(Ok(rm)) => {
                results.push(None);
                pending.push((place, a.index, rm));
            }
            Some(Err(e)) => results.push(Some(failed(a.index, &e))),
            None => {
                apply_pending(h, &mut pending, &mut results, out);
                results.push(Some(action_result(ctx, h, a, nonce_group, cells, out)));
            }
        }
    }
    apply_pending(h, &mut pending, &mut results, out);
    // Every action has a result unless the region's batch answered fewer rows than it was
    // given: that action then fails on its own instead of the whole call.
    results
        .into_iter()
        .zip(&ra.action)
        .map(|(r, a)| {
            r.unwrap_or_else(|| {
                failed(
                    a.index,
                    &HBaseError::do_not_retry(
                        "the region gave no result for this action; it may or may not have \
                         been applied",
                    ),
                )
            })
        })
        .collect()
}

fn is_plain(m: &pb::MutationProto) -> bool {
    use pb::mutation_proto::MutationType;
    matches!(m.mutate_type(), MutationType::Put | MutationType::Delete)
}

/// Decodes a put or delete (its cells come next from `cells`) into a row mutation, once the
/// caller may write it (W on every column it writes, RFC 0026) and the space quotas allow it.
fn plain_row(
    ctx: &Context,
    h: &HostedRegion,
    m: &pb::MutationProto,
    cells: &mut dyn Iterator<Item = Cell>,
) -> HResult<RowMutations> {
    let m: Mutation = mutation_from_pb(m, cells)?;
    check_values(ctx, &m)?;
    check_row(h, m.row())?;
    crate::access::check_write(h, "multi", std::slice::from_ref(&m), None)?;
    crate::access::space(h, std::slice::from_ref(&m))?;
    RowMutations::new(m.row().clone())
        .with(m)
        .map_err(|e| HBaseError::do_not_retry(e.to_string()))
}

/// Applies the pending puts and deletes as one batch and stores each one's result.
fn apply_pending(
    h: &HostedRegion,
    pending: &mut Vec<(usize, Option<u32>, RowMutations)>,
    results: &mut [Option<pb::ResultOrException>],
    out: &mut CellsOut,
) {
    if pending.is_empty() {
        return;
    }
    let (places, rest): (Vec<usize>, Vec<(Option<u32>, RowMutations)>) = pending
        .drain(..)
        .map(|(place, index, rm)| (place, (index, rm)))
        .unzip();
    let (indexes, rows): (Vec<Option<u32>>, Vec<RowMutations>) = rest.into_iter().unzip();
    for ((outcome, place), index) in h.batch(&rows).into_iter().zip(places).zip(indexes) {
        results[place] = Some(match outcome {
            Ok(_) => pb::ResultOrException {
                index,
                result: Some(out.result(&[])),
                exception: None,
            },
            Err(e) => failed(index, &HBaseError::from(&e)),
        });
    }
}

fn failed(index: Option<u32>, e: &HBaseError) -> pb::ResultOrException {
    pb::ResultOrException {
        index,
        result: None,
        exception: Some(e.to_name_bytes()),
    }
}
