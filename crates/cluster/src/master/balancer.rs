//! The balancer by region count (HBase's simple balancer): when nothing is in transition and the
//! most loaded live server has at least two regions more than the least loaded, move regions from
//! the most to the least loaded until the counts differ by at most one. Moves are ordinary
//! transit procedures, so they are as safe and resumable as any other.

use std::collections::BTreeMap;

use super::{Halt, Kv, Master};
use crate::record::TransitStep;
use crate::wal::WalFencer;

/// Moves planned per tick, at most.
const MOVES_PER_TICK: usize = 100;

impl<K: Kv, F: WalFencer> Master<K, F> {
    /// Plans and starts the moves of one balancing round, if the cluster is quiet and uneven.
    pub(super) fn balance(&mut self) -> Result<(), Halt> {
        if !self.config.balance {
            return Ok(());
        }
        let image = &self.lead().image;
        if !image.procs.is_empty() || image.live.len() < 2 {
            return Ok(());
        }
        let mut counts: BTreeMap<String, Vec<String>> = image
            .live
            .iter()
            .map(|s| {
                (
                    s.clone(),
                    image
                        .by_server
                        .get(s)
                        .map(|r| r.iter().cloned().collect())
                        .unwrap_or_default(),
                )
            })
            .collect();
        let mut moves = Vec::new();
        while moves.len() < MOVES_PER_TICK {
            let (Some(most), Some(least)) = (
                counts
                    .iter()
                    .max_by_key(|(_, r)| r.len())
                    .map(|(s, _)| s.clone()),
                counts
                    .iter()
                    .min_by_key(|(_, r)| r.len())
                    .map(|(s, _)| s.clone()),
            ) else {
                break;
            };
            if counts[&most].len() <= counts[&least].len() + 1 {
                break;
            }
            let Some(region) = counts.get_mut(&most).and_then(Vec::pop) else {
                break;
            };
            counts
                .entry(least.clone())
                .or_default()
                .push(region.clone());
            moves.push((region, least));
        }
        for (region, target) in moves {
            self.start_transit(&region, Some(target), true, TransitStep::Close)?;
        }
        Ok(())
    }
}
