//! The slow-operation log: requests slower than the server's threshold, logged as they finish
//! (HBase's `responseTooSlow`) and the latest [`KEPT`] kept for the web UI.

use std::collections::VecDeque;
use std::time::{Duration, SystemTime};

use parking_lot::Mutex;

use super::Op;

/// Slow operations kept for the web UI.
pub const KEPT: usize = 100;

/// Bytes of a row key shown; longer keys are cut and marked with `…`.
pub const ROW_SHOWN: usize = 64;

/// One slow request.
#[derive(Clone, Debug, PartialEq)]
pub struct SlowOp {
    /// When it finished.
    pub at: SystemTime,
    /// The operation.
    pub op: Op,
    /// The table.
    pub table: String,
    /// The (first) row, escaped and cut to [`ROW_SHOWN`] bytes.
    pub row: String,
    /// Encoded request bytes.
    pub request_bytes: usize,
    /// Time from receipt to response.
    pub elapsed: Duration,
    /// False when the request failed.
    pub ok: bool,
}

impl SlowOp {
    /// A slow request's entry; logs it as a warning.
    pub fn new(
        op: Op,
        table: &str,
        row: &[u8],
        request_bytes: usize,
        elapsed: Duration,
        ok: bool,
    ) -> SlowOp {
        let mut shown = strata_model::ops::escape(&row[..row.len().min(ROW_SHOWN)]);
        if row.len() > ROW_SHOWN {
            shown.push('…');
        }
        tracing::warn!(
            op = op.name(),
            table,
            row = %shown,
            request_bytes,
            elapsed_ms = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX),
            ok,
            "slow operation"
        );
        SlowOp {
            at: SystemTime::now(),
            op,
            table: table.to_owned(),
            row: shown,
            request_bytes,
            elapsed,
            ok,
        }
    }
}

/// The latest slow operations.
#[derive(Debug)]
pub struct SlowOps {
    kept: usize,
    ops: Mutex<VecDeque<SlowOp>>,
}

impl SlowOps {
    /// An empty log keeping the latest `kept`.
    pub fn new(kept: usize) -> SlowOps {
        SlowOps {
            kept,
            ops: Mutex::new(VecDeque::with_capacity(kept)),
        }
    }

    /// Adds an entry, dropping the oldest beyond the limit.
    pub fn push(&self, op: SlowOp) {
        let mut ops = self.ops.lock();
        if ops.len() >= self.kept {
            ops.pop_back();
        }
        ops.push_front(op);
    }

    /// The entries, newest first.
    pub fn list(&self) -> Vec<SlowOp> {
        self.ops.lock().iter().cloned().collect()
    }
}
