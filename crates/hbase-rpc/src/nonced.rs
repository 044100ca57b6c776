//! Increments and appends with nonces, as HBase's region server runs them (RFC 0032): HBase's
//! client gives each increment and append a nonce (`hbase.client.nonces.enabled`, on by
//! default) and sends it again, with the same nonce, after a timeout or a lost connection. A
//! nonce this server applied is not applied twice: the repeat is answered with the columns'
//! current values (HBase's `RSRpcServices` turns a duplicate increment or append into a get).

use std::time::Duration;

use strata_model::cell::Cell;
use strata_model::ops::{CheckAndMutate, Get, Mutation, RowMutations};
use strata_server::nonces::Start;
use strata_server::HostedRegion;
use strata_storage::region::MutationResult;
use strata_storage::wal::Nonce;

use crate::context::Context;
use crate::error::{HBaseError, HResult};

/// How long a repeat waits for the first attempt, still running here, to end.
const WAIT: Duration = Duration::from_secs(30);

/// HBase's `HConstants.NO_NONCE`.
const NO_NONCE: u64 = 0;

/// The nonce `m` is run with: its own (`MutationProto.nonce`) in the request's group, for an
/// increment or append only (HBase ignores nonces of puts and deletes).
pub(crate) fn of(m: &Mutation, group: Option<u64>, nonce: Option<u64>) -> Option<Nonce> {
    let nonce = nonce.filter(|&n| n != NO_NONCE)?;
    matches!(m, Mutation::Increment(_) | Mutation::Append(_)).then_some(Nonce {
        group: group.unwrap_or(0),
        nonce,
    })
}

/// Applies `rm` (one increment or append) unless its `nonce` was applied here; the cells to
/// answer with when `wants` them: the new values, or the current ones for a repeat.
///
/// # Errors
/// The write's, or a retryable one while the first attempt still runs after [`WAIT`].
pub(crate) fn mutate_once(
    ctx: &Context,
    h: &HostedRegion,
    rm: &RowMutations,
    nonce: Nonce,
    wants: bool,
) -> HResult<Vec<Cell>> {
    let run = || h.mutate_row_nonced(rm, Some(nonce)).map(Some);
    once(ctx, h, rm, nonce, wants, run).map(|(_, cells)| cells)
}

/// Applies `cam` if its condition holds, unless its `nonce` was applied here: whether it
/// applied (a repeat of an applied one: yes), and the cells to answer with when `wants` them.
/// A condition that did not hold applied nothing: its nonce is forgotten, and a repeat tests
/// the condition again.
///
/// # Errors
/// As [`mutate_once`].
pub(crate) fn check_and_mutate_once(
    ctx: &Context,
    h: &HostedRegion,
    cam: &CheckAndMutate,
    nonce: Nonce,
    wants: bool,
) -> HResult<(bool, Vec<Cell>)> {
    let run = || h.check_and_mutate_result_nonced(cam, Some(nonce));
    once(ctx, h, &cam.mutations, nonce, wants, run)
}

/// Runs `run` (which writes `rm` with `nonce`; `None`: it applied nothing) unless `nonce` was
/// applied here; whether it applied, and the cells to answer with when `wants` them.
fn once(
    ctx: &Context,
    h: &HostedRegion,
    rm: &RowMutations,
    nonce: Nonce,
    wants: bool,
    run: impl FnOnce() -> strata_storage::Result<Option<MutationResult>>,
) -> HResult<(bool, Vec<Cell>)> {
    let server = ctx.server()?;
    let start = server
        .nonces()
        .start(nonce, WAIT)
        .map_err(HBaseError::retryable)?;
    match start {
        Start::Run(op) => {
            let Some(result) = run().map_err(|e| HBaseError::from(&e))? else {
                // Dropped without success: the nonce is forgotten.
                return Ok((false, Vec::new()));
            };
            op.succeeded();
            Ok((true, if wants { result.cells } else { Vec::new() }))
        }
        Start::Done if wants => {
            let cells = h.get(&current(rm)).map_err(|e| HBaseError::from(&e))?;
            Ok((true, cells))
        }
        Start::Done => Ok((true, Vec::new())),
    }
}

/// A get of the columns `rm`'s increments and appends write (HBase's `toGet` of a duplicate).
fn current(rm: &RowMutations) -> Get {
    let mut get = Get::new(rm.row.clone());
    for m in &rm.mutations {
        match m {
            Mutation::Increment(i) => {
                for c in &i.cells {
                    get = get.with_column(c.family.clone(), c.qualifier.clone());
                }
            }
            Mutation::Append(a) => {
                for c in &a.cells {
                    get = get.with_column(c.family.clone(), c.qualifier.clone());
                }
            }
            Mutation::Put(_) | Mutation::Delete(_) => {}
        }
    }
    get
}
