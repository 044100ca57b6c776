//! Guarded, batched writes of the active master. Procedures *stage* their operations: each is
//! applied to the image at once and collected into one transaction that also compares the
//! master's epoch and the revision of every catalog key it writes; the batch is committed when
//! full (the store's transaction limit: etcd's 128 operations), when an operation touches a key already in it, or at the
//! end of a round. A batch that fails to commit, or whose outcome is unknown, halts the tick and
//! the image is reloaded.

use std::collections::BTreeSet;

use super::{Halt, Kv, Master};
use crate::election;
use crate::kv::{Compare, Op, Txn};
use crate::wal::WalFencer;

/// Operations staged but not committed.
#[derive(Default)]
pub(crate) struct Batch {
    compares: Vec<Compare>,
    ops: Vec<Op>,
    touched: BTreeSet<String>,
}

fn key_of(op: &Op) -> &str {
    match op {
        Op::Put { key, .. } | Op::Delete(key) | Op::DeletePrefix(key) => key,
    }
}

impl<K: Kv, F: WalFencer> Master<K, F> {
    /// Stages `ops`, which must commit together.
    pub(crate) fn stage(&mut self, ops: Vec<Op>) -> Result<(), Halt> {
        let max = self.kv.max_txn_ops();
        let full = {
            let b = &self.lead().batch;
            ops.iter().any(|op| b.touched.contains(key_of(op)))
                || b.ops.len() + ops.len() > max
                || b.compares.len() + ops.len() + 1 > max
        };
        if full {
            self.flush()?;
        }
        let layout = self.layout.clone();
        let lead = self.lead();
        for op in &ops {
            let key = key_of(op);
            if let Some(rev) = lead.image.revision_of(&layout, key) {
                lead.batch
                    .compares
                    .push(Compare::ModRevision(key.to_string(), rev));
            }
            lead.batch.touched.insert(key.to_string());
            lead.image.apply_op(&layout, op);
        }
        lead.batch.ops.extend(ops);
        Ok(())
    }

    /// Operations staged and not yet committed.
    pub(crate) fn pending_ops(&self) -> usize {
        self.lead.as_ref().map_or(0, |l| l.batch.ops.len())
    }

    /// Commits the staged batch.
    pub(crate) fn flush(&mut self) -> Result<(), Halt> {
        let lead = self.lead();
        if lead.batch.ops.is_empty() {
            return Ok(());
        }
        let batch = std::mem::take(&mut lead.batch);
        let mut compares = vec![election::guard(&lead.candidacy)];
        compares.extend(batch.compares);
        let n_ops = batch.ops.len() as u64;
        match self.kv.txn(Txn {
            compares,
            success: batch.ops,
        }) {
            Ok(out) if out.succeeded => {
                self.stats.txns += 1;
                self.stats.ops += n_ops;
                let layout = self.layout.clone();
                let image = &mut self.lead().image;
                for key in &batch.touched {
                    image.committed(&layout, key, out.revision);
                }
                Ok(())
            }
            Ok(_) => {
                let c = self.lead().candidacy.clone();
                match self.kv.get(&c.key) {
                    Ok(Some(kv)) if kv.create_revision == c.create_revision => Err(Halt::Stale),
                    Ok(_) => Err(Halt::Deposed),
                    Err(_) => Err(Halt::Stale),
                }
            }
            Err(_) => Err(Halt::Stale),
        }
    }
}
