//! `Mutate` calls applied in place on the listener's worker (docs/rfcs/0013-request-path.md,
//! Decision 10): a put or delete without a condition, to a user region, that
//! `HostedRegion::try_mutate_row_now` can apply without waiting for another thread. Anything
//! else — a malformed call, a condition, an increment or append, a row outside the region, a
//! write that would wait — is left, untouched, to the usual path on a blocking thread, which
//! answers it (errors included) exactly as before.

use prost::Message;
use strata_model::cell::Cell;
use strata_model::ops::{Mutation, RowMutations};
use strata_storage::region::{Region, WriteNow};

use crate::client_svc::check_values;
use crate::context::{check_row, CellsOut, Context, Target};
use crate::convert::mutation_from_pb;
use crate::error::{HBaseError, HResult};
use crate::pb;
use strata_server::HostedRegion;

/// A `Mutate` applied in place.
pub(crate) struct Applied {
    /// The encoded `MutateResponse`, or the exception.
    pub result: HResult<Vec<u8>>,
    /// Logged and applied but not yet visible: answer only after `wait_visible(seq)` on a
    /// thread that may block.
    pub pending: Option<(Region, u64)>,
}

/// A `Mutate` call that may be applied in place: its region and its row.
pub(crate) struct Ready {
    hosted: HostedRegion,
    rm: RowMutations,
}

impl Ready {
    /// The region and row, for `HostedRegion::try_mutate_rows_now`.
    pub(crate) fn row(&self) -> (&HostedRegion, &RowMutations) {
        (&self.hosted, &self.rm)
    }
}

/// A `Mutate` call (`param`, its cells `block`) that may be applied in place; `None` when it
/// takes the usual way (nothing changed).
pub(crate) fn ready(ctx: &Context, param: &[u8], block: Vec<Cell>) -> Option<Ready> {
    // Under access control, throttles or space quotas, writes take the usual way, which
    // checks them.
    let quotas = ctx.config.guard.quotas();
    if ctx.config.guard.is_on() || quotas.any() || quotas.space().any() {
        return None;
    }
    let req = pb::MutateRequest::decode(param).ok()?;
    if req.condition.is_some() {
        return None;
    }
    let Ok(Target::User(hosted)) = ctx.target(&req.region) else {
        return None;
    };
    let m = mutation_from_pb(&req.mutation, &mut block.into_iter()).ok()?;
    if !matches!(m, Mutation::Put(_) | Mutation::Delete(_)) {
        return None;
    }
    check_values(ctx, &m).ok()?;
    check_row(&hosted, m.row()).ok()?;
    let rm = RowMutations::new(m.row().clone()).with(m).ok()?;
    Some(Ready { hosted, rm })
}

/// What a `Mutate` of `ready` answers after `now` (`HostedRegion::try_mutate_row_now` or
/// `…_rows_now`); `None` when it was declined (nothing changed: it takes the usual way).
pub(crate) fn applied(ready: &Ready, now: WriteNow, out: &mut CellsOut) -> Option<Applied> {
    let mut response = || {
        pb::MutateResponse {
            result: Some(out.result(&[])),
            processed: Some(true),
        }
        .encode_to_vec()
    };
    match now {
        WriteNow::Declined => None,
        WriteNow::Done(result) => Some(Applied {
            result: result.map(|_| response()).map_err(|e| HBaseError::from(&e)),
            pending: None,
        }),
        WriteNow::Pending(r) => Some(Applied {
            result: Ok(response()),
            pending: Some((ready.hosted.region.clone(), r.seq)),
        }),
    }
}
